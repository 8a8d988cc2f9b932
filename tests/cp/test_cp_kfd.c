/* The command processors end to end, through AMD's own thunk (libhsakmt 5.2.3) on kfdsim:
 * queues created with CREATE_QUEUE, memory from ALLOC_MEMORY_OF_GPU / USERPTR, completions and
 * faults seen through WAIT_EVENTS. Packets are written the way ROCr writes them. */
#include <criterion/criterion.h>
#include <hsakmt.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static HSAuint32 g_node; /* the first GPU node */

static void kfd_setup(void)
{
  cr_assert_eq(hsaKmtOpenKFD(), HSAKMT_STATUS_SUCCESS);
  HsaSystemProperties sp;
  cr_assert_eq(hsaKmtAcquireSystemProperties(&sp), HSAKMT_STATUS_SUCCESS);
  for (HSAuint32 n = 0; n < sp.NumNodes; n++) {
    HsaNodeProperties np;
    cr_assert_eq(hsaKmtGetNodeProperties(n, &np), HSAKMT_STATUS_SUCCESS);
    if (np.NumFComputeCores) {
      g_node = n;
      return;
    }
  }
  cr_assert_fail("no GPU node");
}

static void kfd_teardown(void)
{
  hsaKmtReleaseSystemProperties();
  hsaKmtCloseKFD();
}

TestSuite(cp_kfd, .init = kfd_setup, .fini = kfd_teardown, .timeout = 120);

/* System memory the GPU can reach (ROCr's system region: cached, host accessible). */
static void *sys_alloc(size_t size)
{
  HsaMemFlags f = {0};
  f.ui32.HostAccess = 1;
  f.ui32.CachePolicy = HSA_CACHING_CACHED;
  f.ui32.PageSize = HSA_PAGE_SIZE_4KB;
  f.ui32.ExecuteAccess = 1;
  void *p = NULL;
  cr_assert_eq(hsaKmtAllocMemory(0, size, f, &p), HSAKMT_STATUS_SUCCESS);
  HSAuint64 gva = 0;
  cr_assert_eq(hsaKmtMapMemoryToGPU(p, size, &gva), HSAKMT_STATUS_SUCCESS);
  memset(p, 0, size);
  return p;
}

/* VRAM, not host accessible: only the GPU can tell what it holds. */
static void *vram_alloc(size_t size)
{
  HsaMemFlags f = {0};
  f.ui32.NonPaged = 1;
  f.ui32.PageSize = HSA_PAGE_SIZE_4KB;
  f.ui32.NoSubstitute = 1;
  void *p = NULL;
  cr_assert_eq(hsaKmtAllocMemory(g_node, size, f, &p), HSAKMT_STATUS_SUCCESS);
  HSAuint64 gva = 0;
  cr_assert_eq(hsaKmtMapMemoryToGPU(p, size, &gva), HSAKMT_STATUS_SUCCESS);
  return p;
}

static HsaEvent *signal_event(void)
{
  HsaEventDescriptor d = {.EventType = HSA_EVENTTYPE_SIGNAL, .NodeId = g_node};
  HsaEvent *e = NULL;
  cr_assert_eq(hsaKmtCreateEvent(&d, false, false, &e), HSAKMT_STATUS_SUCCESS);
  return e;
}

/* ---- SDMA ---- */

struct sdma {
  HsaQueueResource r;
  uint8_t *ring;
  uint64_t size, w;
};

static void sdma_create(struct sdma *s)
{
  memset(s, 0, sizeof(*s));
  s->size = 64 << 10;
  s->ring = sys_alloc(s->size);
  cr_assert_eq(hsaKmtCreateQueue(g_node, HSA_QUEUE_SDMA, 100, HSA_QUEUE_PRIORITY_NORMAL, s->ring,
                                 s->size, NULL, &s->r), HSAKMT_STATUS_SUCCESS);
  s->w = *s->r.Queue_write_ptr_aql;
}

static void emit(struct sdma *s, const uint32_t *dw, unsigned n)
{
  for (unsigned i = 0; i < n; i++, s->w += 4)
    memcpy(s->ring + (s->w & (s->size - 1)), &dw[i], 4);
}

static void commit(struct sdma *s)
{
  __atomic_store_n(s->r.Queue_write_ptr_aql, s->w, __ATOMIC_RELEASE);
  __atomic_store_n(s->r.Queue_DoorBell_aql, s->w, __ATOMIC_RELEASE);
}

static uint32_t lo(const void *p) { return (uint32_t)(uintptr_t)p; }
static uint32_t hi(const void *p) { return (uint32_t)((uintptr_t)p >> 32); }

static void emit_copy(struct sdma *s, void *dst, const void *src, uint32_t bytes)
{
  uint32_t p[7] = {1u, bytes - 1, 0, lo(src), hi(src), lo(dst), hi(dst)};
  emit(s, p, 7);
}

/* BlitSdma's completion: FENCE the event id into the mailbox, then TRAP with it. */
static void emit_signal_event(struct sdma *s, HsaEvent *e)
{
  void *mailbox = (void *)(uintptr_t)e->EventData.HWData2;
  uint32_t fence[4] = {5u, lo(mailbox), hi(mailbox), e->EventId};
  uint32_t trap[2] = {6u, e->EventId & 0x0fffffffu};
  emit(s, fence, 4);
  emit(s, trap, 2);
}

static void sdma_run(struct sdma *s, HsaEvent *e)
{
  emit_signal_event(s, e);
  commit(s);
  cr_assert_eq(hsaKmtWaitOnEvent(e, HSA_EVENTTIMEOUT_INFINITE), HSAKMT_STATUS_SUCCESS);
  while (__atomic_load_n(s->r.Queue_read_ptr_aql, __ATOMIC_ACQUIRE) != s->w)
    sched_yield();
}

static void pattern(uint8_t *p, size_t n, unsigned seed)
{
  for (size_t i = 0; i < n; i++)
    p[i] = (uint8_t)(i * 7u + seed + (i >> 12));
}

/* ROCm 5.2.3's HIP copies device to host with SDMA by default; rocjitsu hung right there. */
Test(cp_kfd, sdma_copies_host_to_vram_and_back)
{
  const size_t n = 3 << 20;
  struct sdma s;
  sdma_create(&s);
  HsaEvent *e = signal_event();
  uint8_t *src = sys_alloc(n), *dst = sys_alloc(n), *vram = vram_alloc(n);
  pattern(src, n, 1);
  for (size_t off = 0; off < n; off += 1 << 20) {
    emit_copy(&s, vram + off, src + off, 1 << 20);
    emit_copy(&s, dst + off, vram + off, 1 << 20);
  }
  sdma_run(&s, e);
  cr_assert_eq(memcmp(dst, src, n), 0, "device-to-host copy differs");
  hsaKmtDestroyEvent(e);
  cr_assert_eq(hsaKmtDestroyQueue(s.r.QueueId), HSAKMT_STATUS_SUCCESS);
}

/* libhsakmt maps registered (USERPTR) memory at a GPU VA that is not its CPU address. */
Test(cp_kfd, sdma_copies_into_registered_user_memory)
{
  const size_t n = 2 << 20;
  struct sdma s;
  sdma_create(&s);
  HsaEvent *e = signal_event();
  uint8_t *user = aligned_alloc(4096, n), *src = sys_alloc(n);
  memset(user, 0, n);
  pattern(src, n, 9);
  cr_assert_eq(hsaKmtRegisterMemory(user, n), HSAKMT_STATUS_SUCCESS);
  HSAuint64 gva = 0;
  cr_assert_eq(hsaKmtMapMemoryToGPU(user, n, &gva), HSAKMT_STATUS_SUCCESS);
  emit_copy(&s, (void *)(uintptr_t)gva, src, (uint32_t)n);
  sdma_run(&s, e);
  cr_assert_eq(memcmp(user, src, n), 0, "copy through the USERPTR GPU VA differs");
  hsaKmtUnmapMemoryToGPU(user);
  hsaKmtDeregisterMemory(user);
  free(user);
  hsaKmtDestroyEvent(e);
  hsaKmtDestroyQueue(s.r.QueueId);
}

Test(cp_kfd, sdma_fill_fence_atomic_and_poll)
{
  struct sdma s;
  sdma_create(&s);
  HsaEvent *e = signal_event();
  uint8_t *buf = sys_alloc(8192);
  uint64_t *sig = (uint64_t *)(buf + 4096);
  sig[0] = 5;
  sig[1] = 1; /* the dependency the poll waits for */
  uint32_t fill[5] = {11u | (2u << 30), lo(buf), hi(buf), 0xcafef00du, (256 - 1) * 4};
  uint32_t dec[8] = {10u | (47u << 25), lo(sig), hi(sig), 0xffffffffu, 0xffffffffu, 0, 0, 0};
  uint32_t poll[6] = {8u | (3u << 28) | (1u << 31), lo(&sig[1]), hi(&sig[1]), 0, 0xffffffffu, 4 | (0xfffu << 16)};
  uint32_t fence[4] = {5u, lo(buf + 2048), hi(buf + 2048), 0x600du};
  emit(&s, fill, 5);
  emit(&s, dec, 8);
  emit(&s, poll, 6);
  emit(&s, fence, 4);
  commit(&s);
  while (__atomic_load_n(&sig[0], __ATOMIC_ACQUIRE) != 4)
    sched_yield();
  usleep(20000);
  cr_assert_eq(*(uint32_t *)(buf + 2048), 0, "the fence passed an unsatisfied poll");
  __atomic_store_n(&sig[1], 0, __ATOMIC_RELEASE);
  sdma_run(&s, e);
  for (unsigned i = 0; i < 256; i++)
    cr_assert_eq(((uint32_t *)buf)[i], 0xcafef00du);
  cr_assert_eq(*(uint32_t *)(buf + 2048), 0x600du);
  hsaKmtDestroyEvent(e);
  hsaKmtDestroyQueue(s.r.QueueId);
}

Test(cp_kfd, sdma_fault_raises_memory_event_and_kfdsim_stays_usable)
{
  HsaEventDescriptor d = {.EventType = HSA_EVENTTYPE_MEMORY, .NodeId = g_node};
  HsaEvent *mem = NULL;
  cr_assert_eq(hsaKmtCreateEvent(&d, false, false, &mem), HSAKMT_STATUS_SUCCESS);
  struct sdma s;
  sdma_create(&s);
  uint8_t *dst = sys_alloc(4096);
  void *unmapped = (void *)(uintptr_t)0x7e5500000000ull;
  emit_copy(&s, dst, unmapped, 256);
  commit(&s);
  cr_assert_eq(hsaKmtWaitOnEvent(mem, HSA_EVENTTIMEOUT_INFINITE), HSAKMT_STATUS_SUCCESS);
  cr_assert_eq(mem->EventData.EventData.MemoryAccessFault.VirtualAddress, 0x7e5500000000ull);

  struct sdma t;
  sdma_create(&t);
  HsaEvent *e = signal_event();
  uint32_t fence[4] = {5u, lo(dst + 64), hi(dst + 64), 77u};
  emit(&t, fence, 4);
  sdma_run(&t, e);
  cr_assert_eq(*(uint32_t *)(dst + 64), 77u);
  hsaKmtDestroyQueue(s.r.QueueId);
  hsaKmtDestroyQueue(t.r.QueueId);
  hsaKmtDestroyEvent(e);
  hsaKmtDestroyEvent(mem);
}

/* ---- AQL ---- */

struct aql {
  HsaQueueResource r;
  uint8_t *amdq; /* amd_queue_t, 256 bytes */
  uint8_t *ring;
  uint64_t slots;
};

static void aql_create(struct aql *a)
{
  memset(a, 0, sizeof(*a));
  a->slots = 64;
  a->ring = sys_alloc(a->slots * 64);
  for (uint64_t i = 0; i < a->slots; i++)
    *(uint16_t *)(a->ring + 64 * i) = 1; /* INVALID */
  a->amdq = sys_alloc(4096);
  a->r.Queue_read_ptr_aql = (HSAuint64 *)(a->amdq + 128);
  a->r.Queue_write_ptr_aql = (HSAuint64 *)(a->amdq + 56);
  cr_assert_eq(hsaKmtCreateQueue(g_node, HSA_QUEUE_COMPUTE_AQL, 100, HSA_QUEUE_PRIORITY_NORMAL,
                                 a->ring, a->slots * 64, NULL, &a->r), HSAKMT_STATUS_SUCCESS);
}

static void aql_submit(struct aql *a, const uint32_t pkt[16])
{
  uint64_t idx = __atomic_fetch_add((uint64_t *)(a->amdq + 56), 1, __ATOMIC_ACQ_REL);
  uint32_t *slot = (uint32_t *)(a->ring + (idx % a->slots) * 64);
  memcpy(slot + 1, pkt + 1, 60);
  __atomic_store_n(slot, pkt[0], __ATOMIC_RELEASE);
  __atomic_store_n(a->r.Queue_DoorBell_aql, idx, __ATOMIC_RELEASE);
}

/* amd_signal_t in system memory, an interrupt signal when `e` is given. */
static int64_t *signal_new(int64_t value, HsaEvent *e)
{
  int64_t *s = sys_alloc(4096);
  s[0] = 1;
  s[1] = value;
  if (e) {
    s[2] = (int64_t)e->EventData.HWData2;
    ((uint32_t *)s)[6] = e->EventId;
  }
  return s;
}

static void barrier_pkt(uint32_t pkt[16], unsigned type, int64_t *const deps[5], int64_t *done)
{
  memset(pkt, 0, 64);
  pkt[0] = type | (1u << 8) | (2u << 9) | (2u << 11);
  for (unsigned i = 0; i < 5; i++) {
    uint64_t v = (uint64_t)(uintptr_t)deps[i];
    memcpy(&pkt[2 + 2 * i], &v, 8);
  }
  uint64_t c = (uint64_t)(uintptr_t)done;
  memcpy(&pkt[14], &c, 8);
}

Test(cp_kfd, aql_barriers_complete_in_order_and_wake_the_waiter)
{
  struct aql a;
  aql_create(&a);
  HsaEvent *e = signal_event();
  int64_t *dep_and = signal_new(1, NULL), *dep_or0 = signal_new(1, NULL), *dep_or1 = signal_new(1, NULL);
  int64_t *s1 = signal_new(1, NULL), *s2 = signal_new(1, e);
  uint32_t pkt[16];
  int64_t *and_deps[5] = {dep_and, NULL, NULL, NULL, NULL};
  int64_t *or_deps[5] = {NULL, dep_or0, NULL, dep_or1, NULL};
  barrier_pkt(pkt, 3, and_deps, s1);
  aql_submit(&a, pkt);
  barrier_pkt(pkt, 5, or_deps, s2);
  aql_submit(&a, pkt);
  usleep(20000);
  cr_assert_eq(s1[1], 1);
  cr_assert_eq(s2[1], 1);
  __atomic_store_n(&dep_and[1], 0, __ATOMIC_RELEASE);
  __atomic_store_n(&dep_or1[1], 0, __ATOMIC_RELEASE);
  /* The second packet's signal is an interrupt signal: WAIT_EVENTS returns when it completes. */
  cr_assert_eq(hsaKmtWaitOnEvent(e, HSA_EVENTTIMEOUT_INFINITE), HSAKMT_STATUS_SUCCESS);
  cr_assert_eq(__atomic_load_n(&s2[1], __ATOMIC_ACQUIRE), 0);
  cr_assert_eq(s1[1], 0);
  cr_assert_leq(s1[4], s1[5]);
  cr_assert_leq(s1[5], s2[4], "the second barrier started before the first completed");
  HsaClockCounters cc;
  cr_assert_eq(hsaKmtGetClockCounters(g_node, &cc), HSAKMT_STATUS_SUCCESS);
  cr_assert_leq((uint64_t)s2[5], cc.GPUClockCounter, "timestamps ahead of the GPU clock");
  hsaKmtDestroyEvent(e);
  cr_assert_eq(hsaKmtDestroyQueue(a.r.QueueId), HSAKMT_STATUS_SUCCESS);
}

Test(cp_kfd, aql_null_kernel_object_reports_queue_error)
{
  struct aql a;
  aql_create(&a);
  HsaEvent *e = signal_event();
  int64_t *inactive = signal_new(0, e);
  uint64_t iv = (uint64_t)(uintptr_t)inactive;
  memcpy(a.amdq + 192, &iv, 8); /* amd_queue_t.queue_inactive_signal */
  uint32_t pkt[16] = {0};
  pkt[0] = 2u | (2u << 9) | (2u << 11) | (1u << 16);
  pkt[1] = 64 | (1u << 16);
  pkt[2] = 1;
  pkt[3] = 64;
  pkt[4] = 1;
  pkt[5] = 1;
  aql_submit(&a, pkt);
  cr_assert_eq(hsaKmtWaitOnEvent(e, HSA_EVENTTIMEOUT_INFINITE), HSAKMT_STATUS_SUCCESS);
  cr_assert_eq(__atomic_load_n(&inactive[1], __ATOMIC_ACQUIRE), 8, "ROCr reads 8 as invalid code object");
  hsaKmtDestroyEvent(e);
  cr_assert_eq(hsaKmtDestroyQueue(a.r.QueueId), HSAKMT_STATUS_SUCCESS);
}
