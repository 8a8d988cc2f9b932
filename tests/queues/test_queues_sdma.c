/* src/queues: SDMA copies host -> device -> host verified byte for byte, and fills. */
#include "lowlevel.h"
#include "memory/mem.h"
#include "queues/sdma.h"
#include "queues/signal.h"

#include <errno.h>
#include <string.h>

static void roundtrip(size_t size)
{
  struct kfd_gpu *gpu = ll_gpu();
  struct sdma_queue *q = NULL;
  struct signal *s = NULL;
  uint8_t *src = NULL, *dev = NULL, *dst = NULL;

  cr_assert_eq(mem_alloc(gpu, size, MEM_HOST_PINNED, MEM_FLAG_COHERENT, (void **)&src), 0);
  cr_assert_eq(mem_alloc(gpu, size, MEM_DEVICE, 0, (void **)&dev), 0);
  cr_assert_eq(mem_alloc(gpu, size, MEM_HOST_PINNED, MEM_FLAG_COHERENT, (void **)&dst), 0);
  for (size_t i = 0; i < size; i++)
    src[i] = (uint8_t)(i * 13 + 7);
  memset(dst, 0, size);
  cr_assert_eq(sdma_queue_create(gpu, &q), 0);
  cr_assert_eq(signal_create(gpu, 2, true, &s), 0);
  cr_assert_eq(sdma_copy(q, mem_gpu_va(dev), mem_gpu_va(src), size, s), 0);
  cr_assert_eq(signal_wait_lt(s, 2, UINT64_MAX, true), 0);
  cr_assert_eq(sdma_copy(q, mem_gpu_va(dst), mem_gpu_va(dev), size, s), 0);
  cr_assert_eq(signal_wait_lt(s, 1, UINT64_MAX, true), 0);
  cr_assert_eq(signal_load(s), 0);
  for (size_t i = 0; i < size; i++)
    cr_assert_eq(dst[i], (uint8_t)(i * 13 + 7), "byte %zu", i);
  signal_destroy(s);
  cr_assert_eq(sdma_queue_destroy(q), 0);
  mem_free(src);
  mem_free(dev);
  mem_free(dst);
}

Test(sdma, copy_small) { roundtrip(4096 + 3); }
Test(sdma, copy_larger_than_one_packet) { roundtrip((5u << 20) + 17); }

Test(sdma, registered_memory_copy)
{
  struct kfd_gpu *gpu = ll_gpu();
  struct sdma_queue *q = NULL;
  struct signal *s = NULL;
  static uint8_t host[3 * 4096];
  uint8_t *dev = NULL;

  for (size_t i = 0; i < sizeof(host); i++)
    host[i] = (uint8_t)i;
  cr_assert_eq(mem_host_register(gpu, host, sizeof(host), 0), 0);
  cr_assert_eq(mem_alloc(gpu, sizeof(host), MEM_DEVICE, 0, (void **)&dev), 0);
  cr_assert_eq(sdma_queue_create(gpu, &q), 0);
  cr_assert_eq(signal_create(gpu, 1, true, &s), 0);
  cr_assert_eq(sdma_copy(q, mem_gpu_va(dev), mem_gpu_va(host), sizeof(host), s), 0);
  cr_assert_eq(signal_wait_lt(s, 1, UINT64_MAX, true), 0);
  cr_assert_eq(memcmp(dev, host, sizeof(host)), 0);
  signal_destroy(s);
  cr_assert_eq(sdma_queue_destroy(q), 0);
  mem_free(dev);
  cr_assert_eq(mem_host_unregister(host), 0);
}

Test(sdma, fill32)
{
  struct kfd_gpu *gpu = ll_gpu();
  struct sdma_queue *q = NULL;
  struct signal *s = NULL;
  uint32_t *dev = NULL;
  size_t n = 100000;

  cr_assert_eq(mem_alloc(gpu, n * 4, MEM_DEVICE, 0, (void **)&dev), 0);
  memset(dev, 0, n * 4);
  cr_assert_eq(sdma_queue_create(gpu, &q), 0);
  cr_assert_eq(signal_create(gpu, 1, true, &s), 0);
  cr_assert_eq(sdma_fill32(q, mem_gpu_va(dev) + 4, 0xdeadbeef, (n - 2) * 4, s), 0);
  cr_assert_eq(signal_wait_lt(s, 1, UINT64_MAX, true), 0);
  cr_assert_eq(dev[0], 0u);
  for (size_t i = 1; i < n - 1; i++)
    cr_assert_eq(dev[i], 0xdeadbeefu, "word %zu", i);
  cr_assert_eq(dev[n - 1], 0u);
  cr_assert_eq(sdma_fill32(q, mem_gpu_va(dev) + 2, 0, 8, NULL), -EINVAL);
  signal_destroy(s);
  cr_assert_eq(sdma_queue_destroy(q), 0);
  mem_free(dev);
}
