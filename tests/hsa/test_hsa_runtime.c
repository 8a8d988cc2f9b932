/* AMD's own HSA runtime (Debian 12's ROCm 5.2.3 libhsa-runtime64 + libhsakmt), unmodified, on
 * kfdsim: the referee of the emulated driver and command processors. Runs with two emulated
 * gfx90a GPUs (ROCm 5.2.3 predates gfx942). Each Criterion test runs in its own process, so each
 * initialises the runtime on a fresh kfdsim. */
#include <criterion/criterion.h>
#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>
#include <stdlib.h>
#include <string.h>

struct agents {
  hsa_agent_t cpu;
  hsa_agent_t gpu[4];
  int ngpu;
  int ncpu;
};

static hsa_status_t collect_agent(hsa_agent_t agent, void *data) {
  struct agents *a = data;
  hsa_device_type_t type;
  hsa_status_t st = hsa_agent_get_info(agent, HSA_AGENT_INFO_DEVICE, &type);
  if (st != HSA_STATUS_SUCCESS)
    return st;
  if (type == HSA_DEVICE_TYPE_CPU && a->ncpu++ == 0)
    a->cpu = agent;
  if (type == HSA_DEVICE_TYPE_GPU && a->ngpu < 4)
    a->gpu[a->ngpu++] = agent;
  return HSA_STATUS_SUCCESS;
}

static struct agents init_agents(void) {
  struct agents a = {0};
  cr_assert_eq(hsa_init(), HSA_STATUS_SUCCESS);
  cr_assert_eq(hsa_iterate_agents(collect_agent, &a), HSA_STATUS_SUCCESS);
  cr_assert_eq(a.ncpu, 1, "one CPU agent, got %d", a.ncpu);
  cr_assert_eq(a.ngpu, 2, "two GPU agents (KFDSIM_GPUS=2), got %d", a.ngpu);
  return a;
}

Test(hsa, agents_report_the_profile) {
  struct agents a = init_agents();
  char name[64] = {0};
  uint32_t cus = 0, wave = 0;
  cr_assert_eq(hsa_agent_get_info(a.gpu[0], HSA_AGENT_INFO_NAME, name), HSA_STATUS_SUCCESS);
  cr_expect_str_eq(name, "gfx90a");
  cr_assert_eq(hsa_agent_get_info(a.gpu[0], (hsa_agent_info_t)HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT,
                                  &cus), HSA_STATUS_SUCCESS);
  cr_expect_eq(cus, 104u);
  cr_assert_eq(hsa_agent_get_info(a.gpu[0], HSA_AGENT_INFO_WAVEFRONT_SIZE, &wave),
               HSA_STATUS_SUCCESS);
  cr_expect_eq(wave, 64u);
  cr_assert_eq(hsa_shut_down(), HSA_STATUS_SUCCESS);
}

/* A barrier-AND packet with a completion signal, waited on by spinning and by sleeping. */
static void barrier_roundtrip(hsa_queue_t *q, hsa_wait_state_t how) {
  hsa_signal_t done;
  cr_assert_eq(hsa_signal_create(1, 0, NULL, &done), HSA_STATUS_SUCCESS);
  uint64_t idx = hsa_queue_add_write_index_relaxed(q, 1);
  hsa_barrier_and_packet_t *pkt =
      (hsa_barrier_and_packet_t *)q->base_address + (idx & (q->size - 1));
  memset((char *)pkt + 4, 0, sizeof(*pkt) - 4);
  pkt->completion_signal = done;
  uint16_t header = (HSA_PACKET_TYPE_BARRIER_AND << HSA_PACKET_HEADER_TYPE) |
                    (1 << HSA_PACKET_HEADER_BARRIER) |
                    (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) |
                    (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE);
  __atomic_store_n((uint16_t *)pkt, header, __ATOMIC_RELEASE);
  hsa_signal_store_screlease(q->doorbell_signal, (hsa_signal_value_t)idx);
  hsa_signal_value_t v = hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_LT, 1,
                                                   10ull * 1000 * 1000 * 1000, how);
  cr_assert_eq(v, 0, "completion signal decremented to 0, got %ld", (long)v);
  cr_assert_eq(hsa_signal_destroy(done), HSA_STATUS_SUCCESS);
}

Test(hsa, queue_barrier_packets_complete) {
  struct agents a = init_agents();
  hsa_queue_t *q = NULL;
  cr_assert_eq(hsa_queue_create(a.gpu[0], 1024, HSA_QUEUE_TYPE_MULTI, NULL, NULL, UINT32_MAX,
                                UINT32_MAX, &q), HSA_STATUS_SUCCESS);
  for (int i = 0; i < 4; i++) {
    barrier_roundtrip(q, HSA_WAIT_STATE_ACTIVE);
    barrier_roundtrip(q, HSA_WAIT_STATE_BLOCKED);
  }
  cr_assert_geq(hsa_queue_load_read_index_scacquire(q), 8u);
  cr_assert_eq(hsa_queue_destroy(q), HSA_STATUS_SUCCESS);
  cr_assert_eq(hsa_shut_down(), HSA_STATUS_SUCCESS);
}

struct pools {
  hsa_amd_memory_pool_t pool[16];
  int n;
};

static hsa_status_t collect_pool(hsa_amd_memory_pool_t pool, void *data) {
  struct pools *p = data;
  if (p->n < 16)
    p->pool[p->n++] = pool;
  return HSA_STATUS_SUCCESS;
}

static struct pools pools_of(hsa_agent_t agent) {
  struct pools p = {0};
  cr_assert_eq(hsa_amd_agent_iterate_memory_pools(agent, collect_pool, &p), HSA_STATUS_SUCCESS);
  return p;
}

static bool pool_allocatable(hsa_amd_memory_pool_t pool) {
  bool ok = false;
  hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALLOWED, &ok);
  return ok;
}

static hsa_amd_memory_pool_t first_pool(hsa_agent_t agent, bool fine) {
  struct pools p = pools_of(agent);
  for (int i = 0; i < p.n; i++) {
    uint32_t flags = 0;
    hsa_amd_segment_t seg;
    hsa_amd_memory_pool_get_info(p.pool[i], HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &seg);
    hsa_amd_memory_pool_get_info(p.pool[i], HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &flags);
    bool is_fine = flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED;
    if (seg == HSA_AMD_SEGMENT_GLOBAL && pool_allocatable(p.pool[i]) && is_fine == fine)
      return p.pool[i];
  }
  cr_assert_fail("no %s-grained global pool", fine ? "fine" : "coarse");
  return p.pool[0];
}

Test(hsa, allocate_from_every_pool) {
  struct agents a = init_agents();
  hsa_agent_t all[3] = {a.cpu, a.gpu[0], a.gpu[1]};
  int allocated = 0;
  for (int i = 0; i < 3; i++) {
    struct pools p = pools_of(all[i]);
    cr_assert_gt(p.n, 0);
    for (int j = 0; j < p.n; j++) {
      if (!pool_allocatable(p.pool[j]))
        continue;
      void *ptr = NULL;
      cr_assert_eq(hsa_amd_memory_pool_allocate(p.pool[j], 1 << 20, 0, &ptr), HSA_STATUS_SUCCESS,
                   "agent %d pool %d", i, j);
      cr_assert_not_null(ptr);
      allocated++;
      cr_assert_eq(hsa_amd_memory_pool_free(ptr), HSA_STATUS_SUCCESS);
    }
  }
  cr_assert_geq(allocated, 4, "system pools and two VRAM pools, got %d", allocated);
  cr_assert_eq(hsa_shut_down(), HSA_STATUS_SUCCESS);
}

Test(hsa, second_gpu_gets_access) {
  struct agents a = init_agents();
  void *ptr = NULL;
  cr_assert_eq(hsa_amd_memory_pool_allocate(first_pool(a.gpu[0], false), 1 << 20, 0, &ptr),
               HSA_STATUS_SUCCESS);
  cr_assert_eq(hsa_amd_agents_allow_access(1, &a.gpu[1], NULL, ptr), HSA_STATUS_SUCCESS);
  hsa_amd_pointer_info_t info = {.size = sizeof(info)};
  hsa_agent_t *accessible = NULL;
  uint32_t n = 0;
  cr_assert_eq(hsa_amd_pointer_info(ptr, &info, malloc, &n, &accessible), HSA_STATUS_SUCCESS);
  cr_expect_eq(info.type, HSA_EXT_POINTER_TYPE_HSA);
  cr_expect_geq(n, 2u, "owner and peer can access, got %u", n);
  free(accessible);
  cr_assert_eq(hsa_amd_memory_pool_free(ptr), HSA_STATUS_SUCCESS);
  cr_assert_eq(hsa_shut_down(), HSA_STATUS_SUCCESS);
}

/* Host -> device -> host through hsa_amd_memory_async_copy (SDMA engines by default). */
Test(hsa, async_copy_roundtrip_is_exact) {
  struct agents a = init_agents();
  const size_t size = 4u << 20;
  uint8_t *src = NULL, *dst = NULL;
  void *dev = NULL;
  hsa_amd_memory_pool_t sys = first_pool(a.cpu, true);
  cr_assert_eq(hsa_amd_memory_pool_allocate(sys, size, 0, (void **)&src), HSA_STATUS_SUCCESS);
  cr_assert_eq(hsa_amd_memory_pool_allocate(sys, size, 0, (void **)&dst), HSA_STATUS_SUCCESS);
  cr_assert_eq(hsa_amd_memory_pool_allocate(first_pool(a.gpu[0], false), size, 0, &dev),
               HSA_STATUS_SUCCESS);
  hsa_agent_t both[2] = {a.cpu, a.gpu[0]};
  cr_assert_eq(hsa_amd_agents_allow_access(2, both, NULL, src), HSA_STATUS_SUCCESS);
  cr_assert_eq(hsa_amd_agents_allow_access(2, both, NULL, dst), HSA_STATUS_SUCCESS);
  for (size_t i = 0; i < size; i++)
    src[i] = (uint8_t)(i * 131 + 7);
  memset(dst, 0, size);

  hsa_signal_t done;
  cr_assert_eq(hsa_signal_create(1, 0, NULL, &done), HSA_STATUS_SUCCESS);
  cr_assert_eq(hsa_amd_memory_async_copy(dev, a.gpu[0], src, a.cpu, size, 0, NULL, done),
               HSA_STATUS_SUCCESS);
  cr_assert_eq(hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_LT, 1, UINT64_MAX,
                                         HSA_WAIT_STATE_BLOCKED), 0);
  hsa_signal_store_relaxed(done, 1);
  cr_assert_eq(hsa_amd_memory_async_copy(dst, a.cpu, dev, a.gpu[0], size, 0, NULL, done),
               HSA_STATUS_SUCCESS);
  cr_assert_eq(hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_LT, 1, UINT64_MAX,
                                         HSA_WAIT_STATE_BLOCKED), 0);
  for (size_t i = 0; i < size; i++)
    if (dst[i] != src[i])
      cr_assert_fail("byte %zu: %u != %u", i, dst[i], src[i]);

  cr_assert_eq(hsa_signal_destroy(done), HSA_STATUS_SUCCESS);
  cr_assert_eq(hsa_amd_memory_pool_free(dev), HSA_STATUS_SUCCESS);
  cr_assert_eq(hsa_amd_memory_pool_free(src), HSA_STATUS_SUCCESS);
  cr_assert_eq(hsa_amd_memory_pool_free(dst), HSA_STATUS_SUCCESS);
  cr_assert_eq(hsa_shut_down(), HSA_STATUS_SUCCESS);
}
