/* src/queues/aql.c: AQL compute queues built by hand (ROCr amd_aql_queue.cpp, libhsakmt
 * queues.c), with buffers sized the way kfd_queue.c checks them. */
#define _GNU_SOURCE
#include "aql.h"
#include "fault.h"
#include "queues_internal.h"
#include "memory/mem.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PAGE 4096u
#define MIN_PACKETS 64u       /* 64 x 64 B = one page: the ring BO must be exactly the ring */
#define MAX_PACKETS (1u << 20)
#define WAIT_SLICE_NS 100000000ull
#define CLAIM_SPINS 256u      /* pause-loop rounds before a full ring starts yielding */

struct aql_queue {
  struct kfd_gpu *gpu;
  struct amd_queue *amd;          /* page-aligned, alone in a one-page BO (kfd_queue.c checks
                                   * the rptr/wptr BOs are exactly PAGE_SIZE) */
  struct amd_signal *doorbell_signal; /* same page, after amd_queue_t */
  uint8_t *ring;
  uint32_t packets, mask;
  uint8_t *kernargs;              /* AQL_KERNARG_SLOT_SIZE bytes per packet slot; NULL for a
                                   * queue made by aql_queue_create_bare */
  void *eop;
  void *cwsr;
  volatile uint64_t *doorbell;
  uint32_t queue_id;
  struct signal *inactive;        /* amd_queue_t.queue_inactive_signal: error payload */
  const _Atomic int64_t *inactive_value; /* its amd_signal_t value (pinned host memory: the GPU
                                   * VA is the CPU address), read on every submission */
  pthread_mutex_t idle_lock;      /* protects idle_signal */
  struct signal *idle_signal;     /* (idle_lock) */
  pthread_mutex_t scratch_lock;   /* serialises scratch growth */
  _Atomic uint32_t scratch_per_lane; /* bytes per work-item the current scratch covers */
  void *scratch[8];               /* every scratch allocation (scratch_lock); freed at destroy:
                                   * a packet in flight may still use an older one */
  unsigned n_scratch;             /* (scratch_lock) */
  struct aql_queue *next_live;    /* in live_queues (live_lock) */
  _Atomic int dead_err;           /* abandoned (aql_queue_abandon): the error it reports from
                                   * then on; 0 while it runs */
};

/* Every queue that may still run packets, for the process-wide fault poll (aql_queues_error): a
 * queue that faults stops, and so does every queue whose barrier packets wait for its signals,
 * but only the faulted queue's own error signal says why. */
static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;
static struct aql_queue *live_queues; /* (live_lock) */

static void live_link(struct aql_queue *q)
{
  pthread_mutex_lock(&live_lock);
  q->next_live = live_queues;
  live_queues = q;
  pthread_mutex_unlock(&live_lock);
}

static void live_unlink(struct aql_queue *q)
{
  pthread_mutex_lock(&live_lock);
  for (struct aql_queue **pp = &live_queues; *pp; pp = &(*pp)->next_live) {
    if (*pp == q) {
      *pp = q->next_live;
      break;
    }
  }
  pthread_mutex_unlock(&live_lock);
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

static uint32_t round_packets(uint32_t n)
{
  uint32_t p = MIN_PACKETS;
  if (n > MAX_PACKETS)
    n = MAX_PACKETS;
  while (p < n)
    p <<= 1;
  return p;
}

/* libhsakmt's map of HSA priorities -3..3 to KFD 0..15 (queues.c priority_map). */
static uint32_t kfd_priority(int priority)
{
  static const uint32_t map[] = {0, 3, 5, 7, 9, 11, 15};
  if (priority < -3)
    priority = -3;
  if (priority > 3)
    priority = 3;
  return map[priority + 3];
}

static void fill_amd_queue(struct aql_queue *q)
{
  const struct kfd_node *n = q->gpu->node;
  struct amd_queue *a = q->amd;

  memset(a, 0, sizeof(*a));
  a->type = HSA_QUEUE_TYPE_MULTI;
  a->features = HSA_QUEUE_FEATURE_KERNEL_DISPATCH | HSA_QUEUE_FEATURE_AGENT_DISPATCH;
  a->base_address = (uint64_t)(uintptr_t)q->ring;
  a->doorbell_signal = (uint64_t)(uintptr_t)q->doorbell_signal;
  a->size = q->packets;
  a->group_segment_aperture_base_hi = (uint32_t)(q->gpu->lds_base >> 32);
  a->private_segment_aperture_base_hi = (uint32_t)(q->gpu->scratch_base >> 32);
  /* As ROCr sets them from the node properties. */
  a->max_cu_id = n->cu_count ? n->cu_count - 1 : 0;
  uint32_t waves_per_cu = n->max_waves_per_simd * n->simd_per_cu;
  a->max_wave_id = waves_per_cu ? waves_per_cu - 1 : 0;
  a->read_dispatch_id_field_base_byte_offset = (uint32_t)offsetof(struct amd_queue, read_dispatch_id);
  a->queue_properties = AMD_QUEUE_PROPERTIES_IS_PTR64;
  a->queue_inactive_signal = signal_gpu_va(q->inactive);
  memset(q->doorbell_signal, 0, sizeof(*q->doorbell_signal));
  q->doorbell_signal->kind = AMD_SIGNAL_KIND_DOORBELL;
  q->doorbell_signal->queue_ptr = (uint64_t)(uintptr_t)a;
}

static void init_ring(struct aql_queue *q)
{
  /* Every slot starts INVALID: the CP stops at the first packet whose header is not yet valid. */
  for (uint32_t i = 0; i < q->packets; i++) {
    struct aql_dispatch_packet *p = (struct aql_dispatch_packet *)(q->ring + (size_t)i * AQL_PACKET_SIZE);
    memset(p, 0, sizeof(*p));
    p->header = AQL_TYPE_INVALID;
  }
}

/* The CWSR area: one save area of ctx_save_restore_size per XCC, then the debugger area of
 * every XCC; the kernel checks the BO is exactly ALIGN((size + debug) * num_xcc, PAGE) and that
 * size >= the node's ctl_stack + wave data (kfd_queue.c kfd_queue_acquire_buffers; the MQD of
 * XCC i points at base + i * size, kfd_mqd_manager_v9.c). Each save area starts with
 * libhsakmt's header, which routes queue errors to queue_inactive_signal. */
static int alloc_cwsr(struct aql_queue *q, struct kfd_ioctl_create_queue_args *args)
{
  const struct kfd_node *n = q->gpu->node;
  uint32_t xcc = n->num_xcc ? n->num_xcc : 1;
  uint32_t size = n->cwsr_size;
  uint64_t total = ((uint64_t)(size + n->debugger_bytes) * xcc + PAGE - 1) & ~(uint64_t)(PAGE - 1);
  int err;

  if (!n->ctl_stack_size)
    return 0; /* pre-gfx8: no CWSR */
  err = mem_alloc(q->gpu, total, MEM_DEVICE, MEM_FLAG_NO_SUBALLOC, &q->cwsr);
  if (err)
    return err;
  for (uint32_t i = 0; i < xcc; i++) {
    struct cwsr_header *h = (struct cwsr_header *)((char *)q->cwsr + (size_t)i * size);
    memset(h, 0, sizeof(*h));
    h->error_event_id = signal_event_id(q->inactive);
    h->error_reason = signal_gpu_va(q->inactive) + offsetof(struct amd_signal, value);
    h->debug_offset = (xcc - i) * size;
    h->debug_size = n->debugger_bytes * xcc;
  }
  args->ctx_save_restore_address = (uint64_t)(uintptr_t)q->cwsr;
  args->ctx_save_restore_size = size;
  args->ctl_stack_size = n->ctl_stack_size;
  return 0;
}

static int alloc_buffers(struct aql_queue *q, struct kfd_ioctl_create_queue_args *args,
                         bool kernargs)
{
  const unsigned host = MEM_FLAG_COHERENT | MEM_FLAG_NO_SUBALLOC;
  void *page;
  int err;

  err = mem_alloc(q->gpu, PAGE, MEM_HOST_PINNED, host, &page);
  if (err)
    return err;
  q->amd = page;
  q->doorbell_signal = (struct amd_signal *)((char *)page + sizeof(struct amd_queue));
  err = mem_alloc(q->gpu, (size_t)q->packets * AQL_PACKET_SIZE, MEM_HOST_PINNED, host, (void **)&q->ring);
  if (err)
    return err;
  if (kernargs) {
    err = mem_alloc(q->gpu, (size_t)q->packets * AQL_KERNARG_SLOT_SIZE, MEM_HOST_PINNED, host,
                    (void **)&q->kernargs);
    if (err)
      return err;
  }
  /* gfx8+ queues need a 4 KiB EOP buffer; the kernel checks the size equals the node's
   * eop_buffer_size and that the BO is exactly that big (kfd_queue.c). */
  if (q->gpu->node->gfx_target_version >= 80000) {
    err = mem_alloc(q->gpu, PAGE, MEM_DEVICE, MEM_FLAG_NO_SUBALLOC, &q->eop);
    if (err)
      return err;
    args->eop_buffer_address = (uint64_t)(uintptr_t)q->eop;
    args->eop_buffer_size = PAGE;
  }
  return alloc_cwsr(q, args);
}

static void free_buffers(struct aql_queue *q)
{
  for (unsigned i = 0; i < q->n_scratch; i++)
    mem_free(q->scratch[i]);
  mem_free(q->cwsr);
  mem_free(q->eop);
  mem_free(q->kernargs);
  mem_free(q->ring);
  mem_free(q->amd);
  signal_destroy(q->inactive);
  signal_destroy(q->idle_signal);
}

static int queue_create(struct kfd_gpu *gpu, uint32_t packets, int priority, bool kernargs,
                        struct aql_queue **out)
{
  struct kfd_ioctl_create_queue_args args = {0};
  struct aql_queue *q;
  int err;

  if (!gpu || !out)
    return -EINVAL;
  *out = NULL;
  q = calloc(1, sizeof(*q));
  if (!q)
    return -ENOMEM;
  q->gpu = gpu;
  q->packets = round_packets(packets);
  q->mask = q->packets - 1;
  pthread_mutex_init(&q->idle_lock, NULL);
  pthread_mutex_init(&q->scratch_lock, NULL);
  event_memory_init(); /* so GPU faults are recorded from now on; a failure only loses that */
  err = signal_create(gpu, 0, true, &q->inactive);
  if (!err) {
    q->inactive_value = (const _Atomic int64_t *)(uintptr_t)(signal_gpu_va(q->inactive) +
                                                             offsetof(struct amd_signal, value));
    err = event_page_map(gpu);
  }
  if (err)
    goto fail;
  err = alloc_buffers(q, &args, kernargs);
  if (err)
    goto fail;
  init_ring(q);
  fill_amd_queue(q);
  args.ring_base_address = (uint64_t)(uintptr_t)q->ring;
  args.ring_size = q->packets * AQL_PACKET_SIZE;
  args.write_pointer_address = (uint64_t)(uintptr_t)&q->amd->write_dispatch_id;
  args.read_pointer_address = (uint64_t)(uintptr_t)&q->amd->read_dispatch_id;
  args.queue_type = KFD_IOC_QUEUE_TYPE_COMPUTE_AQL;
  args.queue_percentage = KFD_MAX_QUEUE_PERCENTAGE;
  args.queue_priority = kfd_priority(priority);
  err = kfd_create_queue(gpu, &args);
  if (err)
    goto fail;
  q->queue_id = args.queue_id;
  err = kfd_gpu_doorbell(gpu, args.doorbell_offset, &q->doorbell);
  if (err)
    goto fail_destroy;
  q->amd->id = args.queue_id;
  q->doorbell_signal->hardware_doorbell_ptr = (uint64_t)(uintptr_t)q->doorbell;
  live_link(q);
  *out = q;
  return 0;

fail_destroy:
  kfd_destroy_queue(q->queue_id);
fail:
  free_buffers(q);
  free(q);
  return err;
}

int aql_queue_create(struct kfd_gpu *gpu, uint32_t packets, int priority, struct aql_queue **out)
{
  return queue_create(gpu, packets, priority, true, out);
}

int aql_queue_create_bare(struct kfd_gpu *gpu, uint32_t packets, int priority,
                          struct aql_queue **out)
{
  return queue_create(gpu, packets, priority, false, out);
}

/* Queue error bits the CP stores in queue_inactive_signal, as ROCr decodes them
 * (amd_aql_queue.cpp): 0x1 insufficient scratch, 0x2 invalid dimensions, 0x4 invalid group
 * memory, 0x8 invalid code, 0x20 invalid packet, 0x40 group too large, 0x100 invalid vendor
 * packet, 0x20000000 memory violation, 0x40000000 illegal instruction, 0x80000000 debug trap. */
#define QERR_MEMORY_VIOLATION 0x20000000ll

/* The same value also receives KFD exception bits (KFD_EC_MASK(EC_*), kfd_ioctl.h): the CWSR
 * header's error_reason points at it (alloc_cwsr), and the driver ORs the exception into it
 * before the CP's error code arrives. Those of a memory violation: */
#define QEXC_MEMORY_VIOLATION (KFD_EC_MASK(EC_QUEUE_WAVE_MEMORY_VIOLATION) |                     \
                               KFD_EC_MASK(EC_DEVICE_MEMORY_VIOLATION))

/* -EFAULT or -EIO for [in] q's nonzero error value [in] code. A page fault raises the
 * memory-exception event before the queue stops, so when the bits seen so far do not name a
 * memory violation the event is asked now (not at the rate-limited pace of the polls). */
static int queue_code_error(const struct aql_queue *q, int64_t code)
{
  if (code & (QERR_MEMORY_VIOLATION | (int64_t)QEXC_MEMORY_VIOLATION))
    return -EFAULT;
  return event_memory_fault_now(q->gpu->gpu_id) ? -EFAULT : -EIO;
}

int aql_queue_error(const struct aql_queue *q)
{
  int64_t code;

  if (!q)
    return -EINVAL;
  int dead = atomic_load_explicit(&q->dead_err, memory_order_acquire);
  if (dead)
    return dead;
  code = signal_load(q->inactive);
  if (code != 0)
    return queue_code_error(q, code);
  if (event_memory_fault_on(q->gpu->gpu_id))
    return -EFAULT;
  return 0;
}

int aql_queue_error_known(const struct aql_queue *q)
{
  int dead = atomic_load_explicit(&q->dead_err, memory_order_acquire);
  if (dead)
    return dead;
  int64_t code = atomic_load_explicit(q->inactive_value, memory_order_acquire);
  bool fault = event_memory_fault_known_on(q->gpu->gpu_id);

  if (code != 0)
    return (code & (QERR_MEMORY_VIOLATION | (int64_t)QEXC_MEMORY_VIOLATION)) || fault ? -EFAULT
                                                                                    : -EIO;
  return fault ? -EFAULT : 0;
}

/* A full ring: wait for the CP to retire packets until slot [in] id is free. After a short
 * spin, yield the CPU on every look, since the CP that must retire packets may need this core (an
 * emulated one does; so does a GPU driver thread). Kept out of line: the submission path only
 * pays for it when the ring is full. */
static __attribute__((noinline)) int claim_wait(struct aql_queue *q, uint64_t id)
{
  unsigned spins = 0;

  while (id - __atomic_load_n(&q->amd->read_dispatch_id, __ATOMIC_ACQUIRE) >= q->packets) {
    if (++spins < CLAIM_SPINS) {
      cpu_relax();
      continue;
    }
    /* A full ring behind a barrier that waits for a faulted queue never drains either. */
    int err = aql_queue_error(q);
    if (!err)
      err = queues_fault_poll();
    if (err)
      return err;
    sched_yield();
  }
  return 0;
}

/* Claim the next packet slot. Producers serialise only on the fetch-add of the write index;
 * a full ring waits for the CP to retire packets (read_dispatch_id, written by the CP). */
static inline __attribute__((always_inline)) int claim_slot(struct aql_queue *q,
                                                            uint64_t *id_out)
{
  uint64_t id = __atomic_fetch_add(&q->amd->write_dispatch_id, 1, __ATOMIC_RELAXED);

  if (__builtin_expect(id - __atomic_load_n(&q->amd->read_dispatch_id, __ATOMIC_ACQUIRE) >=
                           q->packets, 0)) {
    int err = claim_wait(q, id);
    if (err)
      return err;
  }
  *id_out = id;
  return 0;
}

static uint16_t make_header(uint8_t type, bool barrier)
{
  /* System-scope acquire and release: kernels see host writes made before the launch, and
   * the host sees the kernel's writes once the completion signal changes. */
  return (uint16_t)(type | (barrier ? 1u << AQL_HEADER_BARRIER_SHIFT : 0u) |
                    (AQL_FENCE_SCOPE_SYSTEM << AQL_HEADER_ACQUIRE_SHIFT) |
                    (AQL_FENCE_SCOPE_SYSTEM << AQL_HEADER_RELEASE_SHIFT));
}

/* Publish a packet whose body is written: the release store of header+setup (one 32-bit store)
 * makes the body visible to the CP before the packet turns valid; then the doorbell, written
 * after the header so the CP never wakes to an invalid slot. The doorbell carries the packet
 * index (ROCr writes the write index of the packet it published). */
static void publish(struct aql_queue *q, void *pkt, uint16_t header, uint16_t setup, uint64_t id)
{
  __atomic_store_n((uint32_t *)pkt, (uint32_t)header | ((uint32_t)setup << 16), __ATOMIC_RELEASE);
  __atomic_store_n(q->doorbell, id, __ATOMIC_RELEASE);
}

static int check_dispatch(const struct aql_dispatch *d)
{
  if (!d || d->dims < 1 || d->dims > 3 || !d->kernel_object)
    return -EINVAL;
  if (d->dims == 3) {
    /* The HIP case: every dimension used, none may be 0. */
    if (!d->grid[0] || !d->grid[1] || !d->grid[2] || !d->block[0] || !d->block[1] || !d->block[2])
      return -EINVAL;
  } else {
    for (int i = 0; i < 3; i++) {
      bool used = i < d->dims;
      if (used && (!d->grid[i] || !d->block[i]))
        return -EINVAL;
      if (!used && (d->grid[i] > 1 || d->block[i] > 1))
        return -EINVAL;
    }
  }
  if (d->kernarg_size > AQL_KERNARG_SLOT_SIZE)
    return -E2BIG;
  if (d->kernarg_align > 64 || (d->kernarg_align & (d->kernarg_align - 1)))
    return -EINVAL;
  return 0;
}

/* Scratch (private segment) backing as ROCr's AqlQueue sets it up on gfx9: one buffer holding
 * `waves` wave slots of `wave_kib` KiB, described to the CP by compute_tmpring_size (WAVES in
 * bits 0-11, WAVESIZE in KiB in bits 12-24) and by a buffer resource (V#) with swizzling by
 * lane (ADD_TID_ENABLE, INDEX_STRIDE 64) (amd_aql_queue.cpp InitScratchSRD). It only grows;
 * growing waits for the queue to drain so no dispatch sees half-updated fields. */
static int ensure_scratch(struct aql_queue *q, uint32_t private_segment_size)
{
  const struct kfd_node *n = q->gpu->node;
  uint32_t per_lane = (private_segment_size + 15u) & ~15u;
  uint32_t wave_kib, waves;
  uint64_t size, base;
  void *mem = NULL;
  int err = 0;

  if (per_lane <= atomic_load_explicit(&q->scratch_per_lane, memory_order_acquire))
    return 0;
  wave_kib = (per_lane * 64u + 1023u) / 1024u;
  if (wave_kib >= (1u << 13))
    return -E2BIG;
  waves = n->cu_count * (n->max_slots_scratch_cu ? n->max_slots_scratch_cu : 32u);
  if (waves > 4095u)
    waves = 4095u;
  size = (uint64_t)waves * wave_kib * 1024u;
  pthread_mutex_lock(&q->scratch_lock);
  if (per_lane <= atomic_load_explicit(&q->scratch_per_lane, memory_order_relaxed))
    goto out;
  if (q->n_scratch == sizeof(q->scratch) / sizeof(q->scratch[0])) {
    err = -ENOSPC;
    goto out;
  }
  err = mem_alloc(q->gpu, size, MEM_DEVICE, MEM_FLAG_NO_SUBALLOC, &mem);
  if (err)
    goto out;
  q->scratch[q->n_scratch++] = mem;
  if (!aql_queue_idle(q))
    err = aql_queue_wait_idle(q, true);
  if (err)
    goto out;
  base = (uint64_t)(uintptr_t)mem;
  q->amd->scratch_backing_memory_location = base;
  q->amd->scratch_backing_memory_byte_size = size;
  q->amd->scratch_wave64_lane_byte_size = per_lane;
  q->amd->compute_tmpring_size = waves | (wave_kib << 12);
  q->amd->scratch_resource_descriptor[0] = (uint32_t)base;
  /* BASE_ADDRESS_HI [15:0], SWIZZLE_ENABLE [31] */
  q->amd->scratch_resource_descriptor[1] = (uint32_t)(base >> 32) | (1u << 31);
  q->amd->scratch_resource_descriptor[2] = (uint32_t)(size > UINT32_MAX ? UINT32_MAX : size);
  /* DST_SEL_XYZW = X,Y,Z,W (4,5,6,7), NUM_FORMAT UINT (4), DATA_FORMAT 32 (4),
   * INDEX_STRIDE 64 (3 << 21), ADD_TID_ENABLE (1 << 23) */
  q->amd->scratch_resource_descriptor[3] = 4u | (5u << 3) | (6u << 6) | (7u << 9) | (4u << 12) |
                                           (4u << 15) | (3u << 21) | (1u << 23);
  atomic_store_explicit(&q->scratch_per_lane, wave_kib * 1024u / 64u, memory_order_release);
out:
  pthread_mutex_unlock(&q->scratch_lock);
  return err;
}

/* Validation, scratch set-up and the queue's known error state, for a dispatch that needs more
 * than a look (unchecked fields, a private segment, an error flag up). Out of line: a checked
 * dispatch without scratch on a healthy queue skips it. */
static __attribute__((noinline)) int prepare_dispatch_slow(struct aql_queue *q,
                                                           const struct aql_dispatch *d)
{
  int err = d->checked ? 0 : check_dispatch(d);
  if (!err && d->private_segment_size)
    err = ensure_scratch(q, d->private_segment_size);
  /* A queue in error gets no more packets; the memory-fault state is the one already known
   * (asking the driver per packet would cost a syscall: waits poll it). */
  if (!err)
    err = aql_queue_error_known(q);
  return err;
}

/* What a dispatch needs before it claims a slot. */
static inline __attribute__((always_inline)) int prepare_dispatch(struct aql_queue *q,
                                                                  const struct aql_dispatch *d)
{
  if (!q)
    return -EINVAL;
  if (__builtin_expect(!d->checked || d->private_segment_size ||
                           atomic_load_explicit(q->inactive_value, memory_order_acquire) ||
                           atomic_load_explicit(&event_fault_seen, memory_order_relaxed), 0))
    return prepare_dispatch_slow(q, d);
  return 0;
}

static void *slot_kernarg(const struct aql_queue *q, uint64_t id)
{
  /* The slot's kernarg block is free exactly when its packet slot is: both are reused only
   * after the CP has moved read_dispatch_id past this packet's previous occupant. Slots are
   * 4 KiB aligned, which satisfies any kernarg_align <= 64. */
  return q->kernargs + (size_t)(id & q->mask) * AQL_KERNARG_SLOT_SIZE;
}

int aql_dispatch_reserve(struct aql_queue *q, const struct aql_dispatch *d, struct aql_slot *slot)
{
  uint64_t id;
  int err = prepare_dispatch(q, d);

  if (!err)
    err = claim_slot(q, &id);
  if (err)
    return err;
  slot->id = id;
  slot->packet = q->ring + (size_t)(id & q->mask) * AQL_PACKET_SIZE;
  slot->kernarg = slot_kernarg(q, id);
  slot->queue_va = (uint64_t)(uintptr_t)q->amd;
  return 0;
}

void aql_dispatch_commit(struct aql_queue *q, const struct aql_slot *slot,
                         const struct aql_dispatch *d, uint64_t completion_va, bool barrier)
{
  struct aql_dispatch_packet *pkt = slot->packet;

  if (d->dims == 3) {
    /* The HIP case: every size is non-zero (check_dispatch), copied as is. */
    memcpy(pkt->workgroup_size, d->block, sizeof(pkt->workgroup_size));
    memcpy(pkt->grid_size, d->grid, sizeof(pkt->grid_size));
  } else {
    /* Unused dimensions are 1 (check_dispatch guarantees the caller's are 0 or 1 there). */
    pkt->workgroup_size[0] = d->block[0];
    pkt->workgroup_size[1] = d->block[1] ? d->block[1] : 1;
    pkt->workgroup_size[2] = d->block[2] ? d->block[2] : 1;
    pkt->grid_size[0] = d->grid[0];
    pkt->grid_size[1] = d->grid[1] ? d->grid[1] : 1;
    pkt->grid_size[2] = d->grid[2] ? d->grid[2] : 1;
  }
  pkt->reserved0 = 0;
  pkt->private_segment_size = d->private_segment_size;
  pkt->group_segment_size = d->group_segment_size;
  pkt->kernel_object = d->kernel_object;
  pkt->kernarg_address = (uint64_t)(uintptr_t)slot->kernarg;
  pkt->reserved2 = 0;
  pkt->completion_signal = completion_va;
  publish(q, pkt, make_header(AQL_TYPE_KERNEL_DISPATCH, barrier),
          (uint16_t)(d->dims << AQL_DISPATCH_DIMS_SHIFT), slot->id);
}

int aql_submit_dispatch(struct aql_queue *q, const struct aql_dispatch *d, struct signal *completion,
                        bool barrier, uint64_t *packet_id)
{
  struct aql_slot slot;
  int err;

  if (d && d->kernarg_size && !d->kernarg)
    return -EINVAL;
  err = aql_dispatch_reserve(q, d, &slot);
  if (err)
    return err;
  if (d->kernarg_size)
    memcpy(slot.kernarg, d->kernarg, d->kernarg_size);
  aql_dispatch_commit(q, &slot, d, completion ? signal_gpu_va(completion) : 0, barrier);
  if (packet_id)
    *packet_id = slot.id;
  return 0;
}

static int submit_barrier(struct aql_queue *q, const uint64_t deps[5], struct signal *completion,
                          uint64_t *id_out)
{
  struct aql_barrier_packet *pkt;
  uint64_t id;
  int err = claim_slot(q, &id);

  if (err)
    return err;
  pkt = (struct aql_barrier_packet *)(q->ring + (size_t)(id & q->mask) * AQL_PACKET_SIZE);
  pkt->reserved0 = 0;
  pkt->reserved1 = 0;
  for (int i = 0; i < 5; i++)
    pkt->dep_signal[i] = deps[i];
  pkt->reserved2 = 0;
  pkt->completion_signal = completion ? signal_gpu_va(completion) : 0;
  publish(q, pkt, make_header(AQL_TYPE_BARRIER_AND, true), 0, id);
  *id_out = id;
  return 0;
}

void aql_slot_cancel(struct aql_queue *q, const struct aql_slot *slot)
{
  struct aql_barrier_packet *pkt = slot->packet;

  memset((char *)pkt + sizeof(uint32_t), 0, AQL_PACKET_SIZE - sizeof(uint32_t));
  publish(q, pkt, make_header(AQL_TYPE_BARRIER_AND, true), 0, slot->id);
}

int aql_submit_barrier_and(struct aql_queue *q, struct signal *const deps[], int ndeps,
                           struct signal *completion, uint64_t *packet_id)
{
  uint64_t batch[5], id = 0;
  int i = 0, err;

  if (!q || ndeps < 0 || (ndeps && !deps))
    return -EINVAL;
  /* Five dependencies per packet; the barrier bit orders a chain of packets, and only the
   * last carries the completion signal. */
  do {
    int n = 0;
    memset(batch, 0, sizeof(batch));
    for (; i < ndeps && n < 5; i++)
      if (deps[i])
        batch[n++] = signal_gpu_va(deps[i]);
    bool last = i >= ndeps;
    err = submit_barrier(q, batch, last ? completion : NULL, &id);
    if (err)
      return err;
  } while (i < ndeps);
  if (packet_id)
    *packet_id = id;
  return 0;
}

bool aql_packet_consumed(const struct aql_queue *q, uint64_t id)
{
  return __atomic_load_n(&q->amd->read_dispatch_id, __ATOMIC_ACQUIRE) > id;
}

uint32_t aql_queue_space(const struct aql_queue *q)
{
  uint64_t w = __atomic_load_n(&q->amd->write_dispatch_id, __ATOMIC_ACQUIRE);
  uint64_t r = __atomic_load_n(&q->amd->read_dispatch_id, __ATOMIC_ACQUIRE);
  return w - r >= q->packets ? 0 : (uint32_t)(q->packets - (w - r));
}

bool aql_queue_idle(const struct aql_queue *q)
{
  return __atomic_load_n(&q->amd->read_dispatch_id, __ATOMIC_ACQUIRE) >=
         __atomic_load_n(&q->amd->write_dispatch_id, __ATOMIC_ACQUIRE);
}

int aql_queue_wait_idle(struct aql_queue *q, bool blocking)
{
  uint64_t id;
  int err = 0;

  if (!q)
    return -EINVAL;
  /* Cheap check first (no syscall); the memory-fault event is polled only while waiting. */
  if (signal_load(q->inactive) != 0)
    return aql_queue_error(q);
  pthread_mutex_lock(&q->idle_lock);
  if (!q->idle_signal)
    err = signal_create(q->gpu, 1, true, &q->idle_signal);
  else
    signal_store(q->idle_signal, 1);
  if (!err)
    err = aql_submit_barrier_and(q, NULL, 0, q->idle_signal, &id);
  while (!err) {
    err = signal_wait_lt(q->idle_signal, 1, WAIT_SLICE_NS, blocking);
    if (err != -ETIMEDOUT)
      break;
    /* A faulted queue never completes the barrier, nor does one waiting for a faulted queue's
     * signal: report the fault instead of hanging. */
    err = aql_queue_error(q);
    if (!err)
      err = queues_fault_poll();
  }
  /* The CP signals completion before it retires the packet (moves read_dispatch_id past it);
   * wait for that too, so aql_queue_idle() agrees once this returns. */
  for (unsigned spins = 0; !err && __atomic_load_n(&q->amd->read_dispatch_id, __ATOMIC_ACQUIRE) <= id;) {
    cpu_relax();
    if (++spins % 1024 == 0) {
      sched_yield();
      err = aql_queue_error(q);
      if (!err)
        err = queues_fault_poll();
    }
  }
  pthread_mutex_unlock(&q->idle_lock);
  return err;
}

int aql_queue_destroy(struct aql_queue *q)
{
  int err;

  if (!q)
    return 0;
  live_unlink(q);
  /* Drain, but never wait forever on a CP that stopped (10 s without the queue going idle), nor
   * at all once some queue of the process faulted (its work may never end). */
  for (int i = 0; i < 100 && !aql_queue_error(q) && !queues_fault_poll() && !aql_queue_idle(q);
       i++)
    usleep(100000);
  /* The queue goes first: the kernel holds references on its buffers until then. */
  err = kfd_destroy_queue(q->queue_id);
  free_buffers(q);
  pthread_mutex_destroy(&q->idle_lock);
  free(q);
  return err;
}

void aql_queue_abandon(struct aql_queue *q)
{
  if (!q || atomic_load_explicit(&q->dead_err, memory_order_acquire))
    return;
  int err = aql_queue_error(q);
  live_unlink(q);
  /* Published before anything goes: a wait that reads 0 here reads the error signal, which
   * stays (it is never recycled, so it keeps its last value). */
  atomic_store_explicit(&q->dead_err, err ? err : -EIO, memory_order_release);
  /* DESTROY_QUEUE stops the CP even in the middle of a dispatch or a barrier, and drops the
   * kernel's references on the buffers (kfd_queue.c), which may then go. */
  kfd_destroy_queue(q->queue_id);
  for (unsigned i = 0; i < q->n_scratch; i++)
    mem_free(q->scratch[i]);
  q->n_scratch = 0;
  mem_free(q->cwsr);
  mem_free(q->eop);
  mem_free(q->kernargs);
  mem_free(q->ring);
  mem_free(q->amd);
  signal_destroy(q->idle_signal);
  q->cwsr = q->eop = NULL;
  q->kernargs = q->ring = NULL;
  q->amd = NULL;
  q->idle_signal = NULL;
}

int aql_queues_error(void)
{
  int err = 0;
  pthread_mutex_lock(&live_lock);
  for (struct aql_queue *q = live_queues; q && !err; q = q->next_live) {
    int64_t code = signal_load(q->inactive);
    if (code)
      err = queue_code_error(q, code);
  }
  pthread_mutex_unlock(&live_lock);
  return err;
}

void aql_queues_forget_stopped(void)
{
  pthread_mutex_lock(&live_lock);
  for (struct aql_queue **pp = &live_queues; *pp;) {
    if (signal_load((*pp)->inactive))
      *pp = (*pp)->next_live; /* its owner's destroy or abandon finds it unlinked: fine */
    else
      pp = &(*pp)->next_live;
  }
  pthread_mutex_unlock(&live_lock);
}

uint64_t aql_queue_va(const struct aql_queue *q)
{
  return q ? (uint64_t)(uintptr_t)q->amd : 0;
}

uint32_t aql_queue_id(const struct aql_queue *q)
{
  return q ? q->queue_id : 0;
}

int aql_queue_set_cu_mask(struct aql_queue *q, const uint32_t *mask, uint32_t nbits)
{
  uint32_t words = (nbits + 31u) / 32u;
  uint32_t buf[64] = {0};

  if (!q || !mask || !nbits || words > 64)
    return -EINVAL;
  memcpy(buf, mask, (size_t)((nbits + 7u) / 8u));
  if (nbits % 32)
    buf[words - 1] &= (1u << (nbits % 32)) - 1u;
  return kfd_set_cu_mask(q->queue_id, buf, words * 32u);
}

void aql_queue_fault_info(const struct aql_queue *q, struct aql_fault_info *out)
{
  memset(out, 0, sizeof(*out));
  out->queue_id = q->queue_id;
  out->error_code = atomic_load_explicit(q->inactive_value, memory_order_acquire);
  out->dispatch_id = __atomic_load_n(&q->amd->read_dispatch_id, __ATOMIC_ACQUIRE);
  out->write_id = __atomic_load_n(&q->amd->write_dispatch_id, __ATOMIC_ACQUIRE);
  if (out->dispatch_id >= out->write_id)
    return;
  /* The header's low byte is the packet type (HSA_PACKET_TYPE_KERNEL_DISPATCH, 2); the kernel
   * object is at byte 32 of a dispatch packet (hsa_kernel_dispatch_packet_t). */
  const uint8_t *pkt = q->ring + (size_t)(out->dispatch_id & q->mask) * AQL_PACKET_SIZE;
  uint16_t header = __atomic_load_n((const uint16_t *)pkt, __ATOMIC_ACQUIRE);
  if ((header & 0xff) == 2)
    memcpy(&out->kernel_object, pkt + 32, sizeof(out->kernel_object));
}

/* ---- prepared packets ------------------------------------------------------------------------- */

int aql_dispatch_check(struct aql_queue *q, const struct aql_dispatch *d)
{
  return prepare_dispatch(q, d);
}

void aql_packet_dispatch(void *out, const struct aql_dispatch *d, uint64_t kernarg_va,
                         uint64_t completion_va, bool barrier)
{
  struct aql_dispatch_packet pkt;

  memset(&pkt, 0, sizeof(pkt));
  for (int i = 0; i < 3; i++) {
    bool used = i < d->dims;
    pkt.workgroup_size[i] = used || d->block[i] ? d->block[i] : 1;
    pkt.grid_size[i] = used || d->grid[i] ? d->grid[i] : 1;
  }
  pkt.private_segment_size = d->private_segment_size;
  pkt.group_segment_size = d->group_segment_size;
  pkt.kernel_object = d->kernel_object;
  pkt.kernarg_address = kernarg_va;
  pkt.completion_signal = completion_va;
  uint32_t word = (uint32_t)make_header(AQL_TYPE_KERNEL_DISPATCH, barrier) |
                  ((uint32_t)(d->dims << AQL_DISPATCH_DIMS_SHIFT) << 16);
  memcpy(&pkt, &word, sizeof(word));
  memcpy(out, &pkt, sizeof(pkt));
}

void aql_packet_barrier_and(void *out, const uint64_t deps[5], uint64_t completion_va)
{
  struct aql_barrier_packet pkt;

  memset(&pkt, 0, sizeof(pkt));
  for (int i = 0; i < 5; i++)
    pkt.dep_signal[i] = deps[i];
  pkt.completion_signal = completion_va;
  uint32_t word = make_header(AQL_TYPE_BARRIER_AND, true);
  memcpy(&pkt, &word, sizeof(word));
  memcpy(out, &pkt, sizeof(pkt));
}

/* One claim of n slots (a single fetch-add: concurrent producers get disjoint runs), then per
 * packet the body and the release store of its header word, then one doorbell with the last
 * index: the CP may run the first packets while the later ones are written, and never sees a
 * slot whose header is valid before its body. */
int aql_submit_packets(struct aql_queue *q, const void *packets, uint32_t n, uint64_t *last_id)
{
  const uint8_t *src = packets;

  if (!q || !n || n > q->packets || !packets)
    return -EINVAL;
  int err = aql_queue_error_known(q);
  if (err)
    return err;
  uint64_t id = __atomic_fetch_add(&q->amd->write_dispatch_id, n, __ATOMIC_RELAXED);
  uint64_t last = id + n - 1;
  if (last - __atomic_load_n(&q->amd->read_dispatch_id, __ATOMIC_ACQUIRE) >= q->packets) {
    err = claim_wait(q, last);
    if (err) {
      /* The slots are ours: fill them with empty barriers so the index stays consistent. */
      for (uint64_t i = id; i <= last; i++) {
        struct aql_slot slot = {.id = i, .packet = q->ring + (size_t)(i & q->mask) * AQL_PACKET_SIZE};
        memset((char *)slot.packet + sizeof(uint32_t), 0, AQL_PACKET_SIZE - sizeof(uint32_t));
        __atomic_store_n((uint32_t *)slot.packet, make_header(AQL_TYPE_BARRIER_AND, true),
                         __ATOMIC_RELEASE);
      }
      __atomic_store_n(q->doorbell, last, __ATOMIC_RELEASE);
      return err;
    }
  }
  for (uint32_t i = 0; i < n; i++) {
    uint8_t *dst = q->ring + (size_t)((id + i) & q->mask) * AQL_PACKET_SIZE;
    const uint8_t *p = src + (size_t)i * AQL_PACKET_SIZE;
    uint32_t word;
    memcpy(dst + sizeof(word), p + sizeof(word), AQL_PACKET_SIZE - sizeof(word));
    memcpy(&word, p, sizeof(word));
    __atomic_store_n((uint32_t *)dst, word, __ATOMIC_RELEASE);
  }
  __atomic_store_n(q->doorbell, last, __ATOMIC_RELEASE);
  if (last_id)
    *last_id = last;
  return 0;
}
