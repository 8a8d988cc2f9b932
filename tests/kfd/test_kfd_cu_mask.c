/* AMDKFD_IOC_SET_CU_MASK as the kernel answers it (kfd_chardev.c kfd_ioctl_set_cu_mask and
 * pqm_update_mqd), through src/kfd's wrapper on kfdsim. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>

#include <linux/kfd_ioctl.h>

#include "kfd/kfd.h"
#include "queues/aql.h"

static struct kfd_gpu *gpu;
static struct aql_queue *q;

static void setup(void)
{
  cr_assert_eq(kfd_topology_load(), 0);
  if (kfd_open() != 0 || kfd_gpu_count() < 1)
    cr_skip_test("no KFD GPU (run with kfdsim preloaded)");
  cr_assert_eq(kfd_gpu_open(kfd_gpu(0), &gpu), 0);
  cr_assert_eq(aql_queue_create(gpu, 256, 0, &q), 0);
}

static void teardown(void)
{
  if (q)
    aql_queue_destroy(q);
}

TestSuite(kfd_cu_mask, .init = setup, .fini = teardown);

Test(kfd_cu_mask, accepted_masks)
{
  uint32_t mask[64];
  for (int i = 0; i < 64; i++)
    mask[i] = 0x0f0f0f0fu;
  cr_assert_eq(kfd_set_cu_mask(aql_queue_id(q), mask, 32), 0);
  cr_assert_eq(kfd_set_cu_mask(aql_queue_id(q), mask, 320), 0);
  /* More than 1024 bits: the driver keeps the first 1024 and succeeds. */
  cr_assert_eq(kfd_set_cu_mask(aql_queue_id(q), mask, 2048), 0);
  /* The queue layer's entry rounds a bit count up to whole words. */
  cr_assert_eq(aql_queue_set_cu_mask(q, mask, 40), 0);
}

/* The raw ioctl, so that the driver (not src/kfd's wrapper, which refuses these first) answers. */
static int set_mask(uint32_t queue_id, uint64_t ptr, uint32_t bits)
{
  struct kfd_ioctl_set_cu_mask_args a = {.queue_id = queue_id, .num_cu_mask = bits, .cu_mask_ptr = ptr};
  return kfd_ioctl(AMDKFD_IOC_SET_CU_MASK, &a);
}

Test(kfd_cu_mask, rejected_masks)
{
  uint32_t mask[2] = {1, 0};
  uint64_t m = (uint64_t)(uintptr_t)mask;
  uint32_t id = aql_queue_id(q);
  cr_assert_eq(set_mask(id, m, 0), -EINVAL, "no bits");
  cr_assert_eq(set_mask(id, m, 33), -EINVAL, "not a multiple of 32");
  cr_assert_eq(set_mask(id, 0, 32), -EFAULT, "unreadable mask");
  cr_assert_eq(set_mask(id, 8, 64), -EFAULT, "unreadable mask");
  cr_assert_eq(set_mask(1000, m, 32), -EFAULT, "no such queue (pqm_update_mqd)");
  cr_assert_eq(set_mask(5000, m, 32), -EFAULT, "queue id out of range");
  /* The size checks come before the copy: a bad count with a bad pointer is -EINVAL. */
  cr_assert_eq(set_mask(id, 0, 31), -EINVAL);
  /* src/kfd's wrapper refuses what it can tell is wrong without a system call. */
  cr_assert_eq(kfd_set_cu_mask(id, NULL, 32), -EINVAL);
  cr_assert_eq(kfd_set_cu_mask(id, mask, 33), -EINVAL);
  cr_assert_eq(aql_queue_set_cu_mask(q, NULL, 32), -EINVAL, "queue layer: no mask");
  cr_assert_eq(aql_queue_set_cu_mask(q, mask, 0), -EINVAL, "queue layer: no bits");
}
