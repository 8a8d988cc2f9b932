/* src/queues: AQL queues: creation, barrier-AND packets, idle waits, fault reporting. */
#include "lowlevel.h"
#include "memory/mem.h"
#include "queues/aql.h"
#include "queues/signal.h"
#include "queues/queues_internal.h"

#include <errno.h>
#include <string.h>

Test(aql, create_and_destroy)
{
  struct kfd_gpu *gpu = ll_gpu();
  struct aql_queue *q = NULL;

  cr_assert_eq(aql_queue_create(gpu, 100, 0, &q), 0);
  cr_assert_not_null(q);
  cr_assert_neq(aql_queue_va(q), 0u);
  cr_assert(aql_queue_idle(q));
  cr_assert_eq(aql_queue_error(q), 0);
  cr_assert_eq(aql_queue_destroy(q), 0);
}

Test(aql, barrier_and_completes)
{
  struct kfd_gpu *gpu = ll_gpu();
  struct aql_queue *q = NULL;
  struct signal *done = NULL, *dep_ready = NULL;
  uint64_t id = 99;

  cr_assert_eq(aql_queue_create(gpu, 64, 0, &q), 0);
  cr_assert_eq(signal_create(gpu, 1, true, &done), 0);
  cr_assert_eq(signal_create(gpu, 0, false, &dep_ready), 0);
  struct signal *deps[] = {dep_ready};
  cr_assert_eq(aql_submit_barrier_and(q, deps, 1, done, &id), 0);
  cr_assert_eq(id, 0u);
  cr_assert_eq(signal_wait_lt(done, 1, UINT64_MAX, true), 0);
  cr_assert_eq(signal_load(done), 0);
  cr_assert_eq(aql_queue_wait_idle(q, true), 0);
  cr_assert(aql_queue_idle(q));
  signal_destroy(done);
  signal_destroy(dep_ready);
  cr_assert_eq(aql_queue_destroy(q), 0);
}

Test(aql, barrier_waits_for_its_dependency)
{
  struct kfd_gpu *gpu = ll_gpu();
  struct aql_queue *q = NULL;
  struct signal *done = NULL, *gate = NULL;

  cr_assert_eq(aql_queue_create(gpu, 64, 0, &q), 0);
  cr_assert_eq(signal_create(gpu, 1, true, &done), 0);
  cr_assert_eq(signal_create(gpu, 1, false, &gate), 0);
  struct signal *deps[] = {gate};
  cr_assert_eq(aql_submit_barrier_and(q, deps, 1, done, NULL), 0);
  /* Not a timing assertion: the barrier cannot complete while its dependency is 1. */
  cr_assert_eq(signal_wait_lt(done, 1, 20000000, true), -ETIMEDOUT);
  cr_assert_eq(signal_load(done), 1);
  signal_store(gate, 0);
  cr_assert_eq(signal_wait_lt(done, 1, UINT64_MAX, true), 0);
  signal_destroy(done);
  signal_destroy(gate);
  cr_assert_eq(aql_queue_destroy(q), 0);
}

Test(aql, many_dependencies_chain)
{
  struct kfd_gpu *gpu = ll_gpu();
  struct aql_queue *q = NULL;
  struct signal *done = NULL, *deps[12];
  uint64_t id = 0;

  cr_assert_eq(aql_queue_create(gpu, 64, 0, &q), 0);
  cr_assert_eq(signal_create(gpu, 1, true, &done), 0);
  for (int i = 0; i < 12; i++)
    cr_assert_eq(signal_create(gpu, 0, false, &deps[i]), 0);
  cr_assert_eq(aql_submit_barrier_and(q, deps, 12, done, &id), 0);
  cr_assert_eq(id, 2u, "12 dependencies take three packets");
  cr_assert_eq(signal_wait_lt(done, 1, UINT64_MAX, true), 0);
  for (int i = 0; i < 12; i++)
    signal_destroy(deps[i]);
  signal_destroy(done);
  cr_assert_eq(aql_queue_destroy(q), 0);
}

Test(aql, ring_wraps)
{
  struct kfd_gpu *gpu = ll_gpu();
  struct aql_queue *q = NULL;
  struct signal *done = NULL;

  cr_assert_eq(aql_queue_create(gpu, 64, 0, &q), 0);
  cr_assert_eq(signal_create(gpu, 200, true, &done), 0);
  for (int i = 0; i < 200; i++)
    cr_assert_eq(aql_submit_barrier_and(q, NULL, 0, done, NULL), 0);
  cr_assert_eq(signal_wait_lt(done, 1, UINT64_MAX, true), 0);
  cr_assert_eq(signal_load(done), 0);
  signal_destroy(done);
  cr_assert_eq(aql_queue_destroy(q), 0);
}

Test(aql, dispatch_rejects_bad_packets)
{
  struct kfd_gpu *gpu = ll_gpu();
  struct aql_queue *q = NULL;
  struct aql_dispatch d = {.kernel_object = 0x1000, .grid = {64, 1, 1}, .block = {64, 1, 1}, .dims = 1};

  cr_assert_eq(aql_queue_create(gpu, 64, 0, &q), 0);
  d.dims = 0;
  cr_assert_eq(aql_submit_dispatch(q, &d, NULL, false, NULL), -EINVAL);
  d.dims = 1;
  d.block[0] = 0;
  cr_assert_eq(aql_submit_dispatch(q, &d, NULL, false, NULL), -EINVAL);
  d.block[0] = 64;
  d.kernarg_size = AQL_KERNARG_SLOT_SIZE + 1;
  d.kernarg = &d;
  cr_assert_eq(aql_submit_dispatch(q, &d, NULL, false, NULL), -E2BIG);
  cr_assert(aql_queue_idle(q), "nothing was submitted");
  cr_assert_eq(aql_queue_destroy(q), 0);
}

/* A dispatch whose kernel descriptor is not mapped faults on the GPU: the runtime learns it
 * from the memory-exception event and reports it on the queue. */
Test(aql, fault_is_reported)
{
  struct kfd_gpu *gpu = ll_gpu();
  struct aql_queue *q = NULL;
  struct signal *done = NULL;
  uint64_t va = 0;
  uint32_t gpu_id = 0;
  struct aql_dispatch d = {
    .kernel_object = 0x7e0000000000ull, /* inside the GPUVM aperture, never mapped */
    .grid = {64, 1, 1}, .block = {64, 1, 1}, .dims = 1,
  };

  cr_assert_eq(aql_queue_create(gpu, 64, 0, &q), 0);
  cr_assert_eq(signal_create(gpu, 1, true, &done), 0);
  cr_assert_eq(aql_submit_dispatch(q, &d, done, false, NULL), 0);
  cr_assert_eq(event_wait_memory_fault(UINT32_MAX - 1, &va, &gpu_id), 0);
  cr_assert_eq(gpu_id, gpu->gpu_id);
  cr_assert_eq(aql_queue_error(q), -EFAULT);
  cr_assert_eq(aql_queue_wait_idle(q, true), -EFAULT);
  aql_queue_destroy(q);
}

/* The CP reads a barrier's dependency signals through the GPU's page tables: one at an address
 * that was never mapped is a GPU page fault, reported through the memory-exception event. */
Test(aql, fault_in_barrier_dependency_is_reported)
{
  struct kfd_gpu *gpu = ll_gpu();
  struct aql_queue *q = NULL;
  struct signal *done = NULL;
  struct signal unmapped = {.abi = (struct amd_signal *)(uintptr_t)0x7e0000000000ull};
  struct signal *deps[] = {&unmapped};
  uint64_t va = 0;
  uint32_t gpu_id = 0;

  cr_assert_eq(aql_queue_create(gpu, 64, 0, &q), 0);
  cr_assert_eq(signal_create(gpu, 1, true, &done), 0);
  cr_assert_eq(aql_queue_error(q), 0);
  cr_assert_eq(aql_submit_barrier_and(q, deps, 1, done, NULL), 0);
  cr_assert_eq(event_wait_memory_fault(UINT32_MAX - 1, &va, &gpu_id), 0);
  cr_assert_eq(gpu_id, gpu->gpu_id);
  cr_assert_eq(va & ~0xfffull, 0x7e0000000000ull);
  cr_assert_eq(aql_queue_error(q), -EFAULT);
  cr_assert_eq(aql_queue_wait_idle(q, true), -EFAULT);
  cr_assert_eq(signal_load(done), 1, "the faulted barrier never completed");
  aql_queue_destroy(q);
}

/* A hand-made kernel: a 64-byte kernel descriptor (AMDGPUUsage.rst "Kernel Descriptor") whose
 * code entry (offset 16, relative to the descriptor) points at `code` 256 bytes further. */
static uint64_t make_kernel(struct kfd_gpu *gpu, const uint32_t *code, size_t ncode, void **mem)
{
  uint8_t *kd = NULL;

  cr_assert_eq(mem_alloc(gpu, 4096, MEM_DEVICE, MEM_FLAG_EXEC, (void **)&kd), 0);
  memset(kd, 0, 4096);
  int64_t entry = 256;
  memcpy(kd + 16, &entry, sizeof(entry));
  /* compute_pgm_rsrc2 (offset 52): nothing enabled; rsrc1 (48): one VGPR/SGPR granule. */
  memcpy(kd + 256, code, ncode * sizeof(*code));
  *mem = kd;
  return mem_gpu_va(kd);
}

Test(aql, dispatch_runs_a_kernel)
{
  struct kfd_gpu *gpu = ll_gpu();
  struct aql_queue *q = NULL;
  struct signal *done = NULL;
  const uint32_t code[] = {0xbf810000u}; /* s_endpgm */
  void *mem;
  uint64_t kargs[2] = {1, 2};
  struct aql_dispatch d = {
    .kernel_object = make_kernel(gpu, code, 1, &mem),
    .kernarg = kargs, .kernarg_size = sizeof(kargs), .kernarg_align = 16,
    .grid = {256, 2, 1}, .block = {64, 1, 1}, .dims = 2,
  };

  cr_assert_eq(aql_queue_create(gpu, 64, 0, &q), 0);
  cr_assert_eq(signal_create(gpu, 1, true, &done), 0);
  cr_assert_eq(aql_submit_dispatch(q, &d, done, true, NULL), 0);
  cr_assert_eq(signal_wait_lt(done, 1, UINT64_MAX, true), 0);
  cr_assert_eq(aql_queue_error(q), 0);
  uint64_t start = 0, end = 0;
  cr_assert_eq(signal_timestamps(done, &start, &end), 0, "the CP stamped the completion signal");
  cr_assert_gt(start, 0u);
  cr_assert_geq(end, start);
  cr_assert_eq(kfd_gpu_ticks_to_ns(gpu, 100), 1000u, "gfx9 timestamps count 100 MHz");
  cr_assert_eq(aql_queue_wait_idle(q, true), 0);
  signal_destroy(done);
  cr_assert_eq(aql_queue_destroy(q), 0);
  mem_free(mem);
}

Test(aql, illegal_instruction_is_a_queue_error)
{
  struct kfd_gpu *gpu = ll_gpu();
  struct aql_queue *q = NULL;
  struct signal *done = NULL;
  const uint32_t code[] = {0xffffffffu, 0xffffffffu, 0xbf810000u};
  void *mem;
  struct aql_dispatch d = {
    .kernel_object = make_kernel(gpu, code, 3, &mem),
    .grid = {64, 1, 1}, .block = {64, 1, 1}, .dims = 1,
  };

  cr_assert_eq(aql_queue_create(gpu, 64, 0, &q), 0);
  cr_assert_eq(signal_create(gpu, 1, true, &done), 0);
  cr_assert_eq(aql_submit_dispatch(q, &d, done, false, NULL), 0);
  cr_assert_eq(aql_queue_wait_idle(q, true), -EIO);
  cr_assert_eq(aql_queue_error(q), -EIO);
  aql_queue_destroy(q);
  mem_free(mem);
}

Test(aql, dispatch_with_scratch_sets_up_private_memory)
{
  struct kfd_gpu *gpu = ll_gpu();
  struct aql_queue *q = NULL;
  struct signal *done = NULL;
  const uint32_t code[] = {0xbf810000u};
  void *mem;
  struct aql_dispatch d = {
    .kernel_object = make_kernel(gpu, code, 1, &mem),
    .grid = {64, 1, 1}, .block = {64, 1, 1}, .dims = 1, .private_segment_size = 200,
  };

  cr_assert_eq(aql_queue_create(gpu, 64, 0, &q), 0);
  cr_assert_eq(signal_create(gpu, 1, true, &done), 0);
  cr_assert_eq(aql_submit_dispatch(q, &d, done, false, NULL), 0);
  cr_assert_eq(signal_wait_lt(done, 1, UINT64_MAX, true), 0);
  const struct amd_queue *a = (const struct amd_queue *)(uintptr_t)aql_queue_va(q);
  cr_assert_neq(a->scratch_backing_memory_location, 0u);
  cr_assert_geq(a->scratch_wave64_lane_byte_size, 208u);
  cr_assert_geq((a->compute_tmpring_size >> 12) & 0x1fffu, (208u * 64 + 1023) / 1024);
  cr_assert_eq(aql_queue_error(q), 0, "the CP did not have to ask for scratch");
  signal_destroy(done);
  cr_assert_eq(aql_queue_destroy(q), 0);
  mem_free(mem);
}

Test(aql, cu_mask)
{
  struct kfd_gpu *gpu = ll_gpu();
  struct aql_queue *q = NULL;
  uint32_t half[10] = {0};

  for (uint32_t cu = 0; cu < gpu->node->cu_count / 2; cu++)
    half[cu / 32] |= 1u << (cu % 32);
  cr_assert_eq(aql_queue_create(gpu, 64, 0, &q), 0);
  cr_assert_eq(aql_queue_set_cu_mask(q, half, gpu->node->cu_count), 0);
  cr_assert_eq(aql_queue_set_cu_mask(q, half, 0), -EINVAL);
  cr_assert_eq(aql_queue_destroy(q), 0);
}
