/* Two GPUs: topology, visibility filter, peer mappings, SDMA across devices. */
#include "lowlevel.h"
#include "memory/mem.h"
#include "queues/sdma.h"
#include "queues/signal.h"

#include <errno.h>
#include <string.h>

static void two_gpus(struct kfd_gpu **a, struct kfd_gpu **b)
{
  *a = ll_gpu();
  if (kfd_gpu_count() < 2)
    cr_skip_test("needs two GPUs");
  cr_assert_eq(kfd_gpu_open(kfd_gpu(1), b), 0);
  cr_assert_neq((*a)->gpu_id, (*b)->gpu_id);
}

Test(multigpu, topology_and_filter)
{
  struct kfd_gpu *a, *b;
  two_gpus(&a, &b);
  cr_assert(kfd_node_can_access_peer(a->node, b->node));
  int second[] = {1};
  cr_assert_eq(kfd_topology_set_visible(second, 1), 1);
  cr_assert_eq(kfd_gpu(0), b->node);
  cr_assert_eq(kfd_topology_set_visible(NULL, -1), 2);
}

Test(multigpu, peer_copy_through_sdma)
{
  struct kfd_gpu *a, *b;
  struct sdma_queue *q = NULL;
  struct signal *s = NULL;
  uint8_t *vram_a = NULL, *host = NULL;
  size_t size = 1u << 20;

  two_gpus(&a, &b);
  cr_assert_eq(mem_alloc(a, size, MEM_DEVICE, 0, (void **)&vram_a), 0);
  cr_assert_eq(mem_alloc(b, size, MEM_HOST_PINNED, MEM_FLAG_COHERENT | MEM_FLAG_ALL_GPUS, (void **)&host), 0);
  for (size_t i = 0; i < size; i++)
    vram_a[i] = (uint8_t)(i ^ (i >> 8));
  memset(host, 0, size);
  cr_assert_eq(mem_map_to_gpu(vram_a, b), 0, "peer mapping of GPU 0's VRAM on GPU 1");
  cr_assert_eq(sdma_queue_create(b, &q), 0);
  cr_assert_eq(signal_create(b, 1, true, &s), 0);
  cr_assert_eq(sdma_copy(q, mem_gpu_va(host), mem_gpu_va(vram_a), size, s), 0);
  cr_assert_eq(signal_wait_lt(s, 1, UINT64_MAX, true), 0);
  for (size_t i = 0; i < size; i++)
    cr_assert_eq(host[i], (uint8_t)(i ^ (i >> 8)), "byte %zu", i);
  signal_destroy(s);
  cr_assert_eq(sdma_queue_destroy(q), 0);
  cr_assert_eq(mem_free(vram_a), 0);
  cr_assert_eq(mem_free(host), 0);
}

/* A signal made for GPU 0 before GPU 1 allocated anything is still reachable from GPU 1. */
Test(multigpu, early_host_chunks_reach_a_later_gpu)
{
  struct kfd_gpu *a = ll_gpu(), *b = NULL;
  struct signal *s = NULL;
  struct sdma_queue *q = NULL;
  uint32_t *dev = NULL;

  if (kfd_gpu_count() < 2)
    cr_skip_test("needs two GPUs");
  cr_assert_not(event_memory_fault_seen()); /* from here on faults are recorded */
  cr_assert_eq(signal_create(a, 1, true, &s), 0);
  cr_assert_eq(kfd_gpu_open(kfd_gpu(1), &b), 0);
  cr_assert_eq(mem_alloc(b, 4096, MEM_DEVICE, 0, (void **)&dev), 0);
  cr_assert_eq(sdma_queue_create(b, &q), 0);
  cr_assert_eq(sdma_fill32(q, mem_gpu_va(dev), 7, 4096, s), 0);
  cr_assert_eq(signal_wait_lt(s, 1, UINT64_MAX, true), 0);
  cr_assert_eq(dev[1023], 7u);
  cr_assert_eq(event_wait_memory_fault(0, NULL, NULL), -ETIMEDOUT,
               "the mailbox write in the events page did not fault");
  signal_destroy(s);
  cr_assert_eq(sdma_queue_destroy(q), 0);
}
