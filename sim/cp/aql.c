/* The AQL packet processor: walks a queue's ring by dispatch id, one packet at a time, in order.
 *
 * Ring protocol (HSA spec, amd_hsa_queue.h): user space bumps write_dispatch_id, writes a
 * packet body, release-stores its 16-bit header and rings the doorbell. The CP reads packet
 * `read_dispatch_id % slots` once its header type is no longer INVALID, executes it, then
 * releases the slot the way the CP's AQL release does: header back to INVALID, then
 * read_dispatch_id + 1 (so a producer that sees the new read index finds an INVALID header).
 *
 * Packets run to completion one after another, so the barrier bit (wait for earlier packets)
 * always holds. Memory is coherent host memory: acquire and release fences are ordering points
 * (a full fence each), nothing more.
 */
#include <string.h>

#include "aql_packets.h"
#include "cp_internal.h"
#include "isa/isa.h"

#define AQL_MAX_BATCH 64          /* packets per call before the worker re-checks stop */
#define AQL_MAX_WORKGROUP 1024u   /* work-items per workgroup on gfx9 */
#define AQL_MAX_LDS (64u << 10)   /* group segment bytes per workgroup on gfx90a/gfx942 */

/* ---- errors ---- */

/* KFD exception codes (kfd_ioctl.h EC_QUEUE_*) for a CP_QERR_* bit, as the exception path
 * reports them. */
static unsigned qerr_to_exception(uint32_t code)
{
  switch (code) {
  case CP_QERR_ILLEGAL_INSTRUCTION: return 4;   /* EC_QUEUE_WAVE_ILLEGAL_INSTRUCTION */
  case CP_QERR_MEMORY_VIOLATION: return 5;      /* EC_QUEUE_WAVE_MEMORY_VIOLATION */
  case CP_QERR_DEBUG_TRAP: return 2;            /* EC_QUEUE_WAVE_TRAP */
  case CP_QERR_INVALID_DIM: return 16;          /* EC_QUEUE_PACKET_DISPATCH_DIM_INVALID */
  case CP_QERR_INVALID_GROUP_MEM: return 17;    /* ..._GROUP_SEGMENT_SIZE_INVALID */
  case CP_QERR_INVALID_CODE: return 18;         /* ..._CODE_INVALID */
  case CP_QERR_INVALID_PACKET: return 20;       /* EC_QUEUE_PACKET_UNSUPPORTED */
  case CP_QERR_GROUP_TOO_LARGE: return 21;      /* ..._WORK_GROUP_SIZE_INVALID */
  case CP_QERR_INVALID_VENDOR_PACKET: return 23;/* EC_QUEUE_PACKET_VENDOR_UNSUPPORTED */
  case CP_QERR_QUEUE_RESET: return 30;          /* EC_QUEUE_PREEMPTION_ERROR */
  default: return 0;
  }
}

/* The exception path of runtimes that enabled KFD exception reporting: libhsakmt 5.2.3 puts
 * an HsaUserContextSaveAreaHeader at the start of the CWSR area (ErrorReason pointer at +24,
 * ErrorEventId at +32); the error's exception bit is ORed into *ErrorReason and the event
 * raised. Without a pointer there (ROCr without exception support) nothing is written. */
static void aql_report_exception(struct sim_cp_queue *q, uint32_t code)
{
  unsigned ec = qerr_to_exception(code);
  if (!ec || !q->desc.ctx_save_restore)
    return;
  volatile uint64_t *reason_ptr = cp_mem_u64(q->gpu, q->desc.ctx_save_restore + 24, false);
  volatile uint32_t *event_id = cp_mem_u32(q->gpu, q->desc.ctx_save_restore + 32, false);
  if (!reason_ptr || !event_id || !*reason_ptr)
    return;
  volatile uint64_t *reason = cp_mem_u64(q->gpu, *reason_ptr, true);
  if (!reason)
    return;
  __atomic_fetch_or(reason, 1ull << (ec - 1), __ATOMIC_RELEASE);
  if (*event_id)
    sim_event_interrupt(q->gpu, *event_id, 32);
}

/* Stop the queue and tell user space why: ROCr 5.2.3 waits on amd_queue_t's
 * queue_inactive_signal for a non-zero value and decodes the CP_QERR_* bits; the signal is an
 * interrupt signal, so storing it also raises its event. */
static enum cp_status aql_fail(struct sim_cp_queue *q, uint32_t code, const char *why)
{
  atomic_store(&q->failed, true);
  sim_log("cp: gpu %u AQL queue %u stopped: %s (queue error 0x%x)", sim_gpu_id(q->gpu),
          q->desc.queue_id, why, code);
  aql_report_exception(q, code);
  if (!q->amd_queue_va)
    return CP_FAILED;
  volatile uint64_t *sig = cp_mem_u64(q->gpu, q->amd_queue_va + AMD_QUEUE_INACTIVE_SIGNAL_OFF, false);
  uint64_t fault_va;
  if (sig && *sig && cp_signal_store(q->gpu, *sig, (int64_t)code, &fault_va))
    sim_log("cp: queue_inactive_signal unreachable at 0x%llx", (unsigned long long)fault_va);
  return CP_FAILED;
}

/* A GPU page fault by this queue: the memory-exception event (what the kernel's VM fault
 * handler raises), then the queue error. */
static enum cp_status aql_fault(struct sim_cp_queue *q, uint64_t va, bool write)
{
  sim_log("cp: gpu %u AQL queue %u page fault at 0x%llx (%s)", sim_gpu_id(q->gpu),
          q->desc.queue_id, (unsigned long long)va, write ? "write" : "read");
  sim_event_memory_fault(q->gpu, va, write);
  return aql_fail(q, CP_QERR_MEMORY_VIOLATION, "memory violation");
}

/* The watchdog stopped a dispatch that would not end (cp_monitor.c). On hardware amdkfd finds
 * such a queue when it cannot preempt it, resets it and signals the reset to the process
 * (kfd_signal_reset_event: hardware-exception events, reset cause "GPU hang"); the queue is
 * then dead, which user space learns from its error signal. */
static enum cp_status aql_hang(struct sim_cp_queue *q)
{
  sim_event_gpu_hang(q->gpu);
  return aql_fail(q, CP_QERR_QUEUE_RESET, "dispatch stopped by the watchdog (GPU hang)");
}

/* ---- packets ---- */

static enum cp_status aql_complete(struct sim_cp_queue *q, uint64_t signal, uint64_t start)
{
  if (!signal)
    return CP_DONE;
  uint64_t fault_va;
  if (cp_signal_complete(q->gpu, signal, start, sim_gpu_clock_counter(), &fault_va))
    return aql_fault(q, fault_va, true);
  return CP_DONE;
}

static enum cp_status aql_barrier(struct sim_cp_queue *q, const struct aql_barrier *b, bool is_or)
{
  bool any_dep = false, any_zero = false, all_zero = true;
  for (unsigned i = 0; i < 5; i++) {
    if (!b->dep_signal[i])
      continue; /* a null handle is ignored */
    int64_t v;
    if (!cp_signal_load(q->gpu, b->dep_signal[i], &v))
      return aql_fault(q, b->dep_signal[i] + CP_SIGNAL_VALUE_OFF, false);
    any_dep = true;
    if (v == 0)
      any_zero = true;
    else
      all_zero = false;
  }
  /* AND: every dependency reached 0. OR: one did (or there are none). */
  bool satisfied = is_or ? (!any_dep || any_zero) : all_zero;
  return satisfied ? CP_DONE : CP_BLOCKED;
}

static enum cp_status aql_barrier_value(struct sim_cp_queue *q, const struct aql_amd_barrier_value *b)
{
  if (!b->signal)
    return CP_DONE;
  int64_t v;
  if (!cp_signal_load(q->gpu, b->signal, &v))
    return aql_fault(q, b->signal + CP_SIGNAL_VALUE_OFF, false);
  v &= b->mask;
  bool ok;
  switch (b->cond) {
  case 0: ok = v == b->value; break;
  case 1: ok = v != b->value; break;
  case 2: ok = v < b->value; break;
  case 3: ok = v >= b->value; break;
  default: return aql_fail(q, CP_QERR_INVALID_VENDOR_PACKET, "barrier-value condition");
  }
  return ok ? CP_DONE : CP_BLOCKED;
}

/* ROCr 5.2.3 allocates scratch on demand: a queue starts with none, and the CP, finding a
 * dispatch whose per-wave private memory exceeds COMPUTE_TMPRING_SIZE.WAVESIZE (gfx9: bits
 * 12..24, KiB per wave), raises "insufficient scratch" (1) on queue_inactive_signal and holds
 * the dispatch. ROCr's DynamicScratchHandler allocates, rewrites the amd_queue_t scratch fields
 * and stores 0 to resume (or -1 after reporting an error). Queues without an inactive signal
 * (a runtime that allocates scratch up front) are not asked. */
static enum cp_status aql_ensure_scratch(struct sim_cp_queue *q, const struct aql_kernel_dispatch *p)
{
  if (!p->private_segment_size || !q->amd_queue_va)
    return CP_DONE;
  volatile uint32_t *tmpring = cp_mem_u32(q->gpu, q->amd_queue_va + AMD_QUEUE_COMPUTE_TMPRING_SIZE_OFF, false);
  volatile uint64_t *sigp = cp_mem_u64(q->gpu, q->amd_queue_va + AMD_QUEUE_INACTIVE_SIGNAL_OFF, false);
  if (!tmpring || !sigp)
    return aql_fault(q, q->amd_queue_va, false);
  uint64_t sig = *sigp;
  uint64_t need_kib = ((uint64_t)p->private_segment_size * 64 + 1023) / 1024;
  uint32_t tmp = __atomic_load_n(tmpring, __ATOMIC_ACQUIRE);
  bool enough = (tmp & 0xfffu) && ((tmp >> 12) & 0x1fffu) >= need_kib;

  if (q->scratch_requested) {
    int64_t v;
    if (!cp_signal_load(q->gpu, sig, &v))
      return aql_fault(q, sig + CP_SIGNAL_VALUE_OFF, false);
    if (v == CP_QERR_INSUFFICIENT_SCRATCH)
      return CP_BLOCKED; /* the runtime has not answered yet */
    q->scratch_requested = false;
    if (v != 0) {
      atomic_store(&q->failed, true); /* the runtime reported the error itself */
      sim_log("cp: queue %u: scratch request refused (%lld)", q->desc.queue_id, (long long)v);
      return CP_FAILED;
    }
    sim_log("cp: queue %u: scratch granted, tmpring 0x%x (%s)", q->desc.queue_id, tmp,
            enough ? "enough" : "still smaller than the dispatch asks");
    return CP_DONE;
  }
  if (enough || !sig)
    return CP_DONE;
  uint64_t fault_va;
  if (cp_signal_store(q->gpu, sig, CP_QERR_INSUFFICIENT_SCRATCH, &fault_va))
    return aql_fault(q, fault_va, true);
  q->scratch_requested = true;
  sim_log("cp: queue %u: dispatch needs %llu KiB of scratch per wave, tmpring 0x%x: asking",
          q->desc.queue_id, (unsigned long long)need_kib, tmp);
  return CP_BLOCKED;
}

/* The other half of on-demand scratch: ROCr 5.2.3 marks a "large" grant single-use by setting
 * AMD_QUEUE_PROPERTIES_USE_SCRATCH_ONCE in amd_queue_t.queue_properties. The CP, once the
 * dispatch that used it has finished, raises "scratch reclaim" (512) on queue_inactive_signal
 * and processes nothing more until the runtime has released the memory, cleared the tmpring
 * size and stored 0 (AqlQueue::DynamicScratchHandler). Without it the grant stays bound to the
 * queue, and the next queue that asks for scratch finds ROCr's pool exhausted
 * (HSA_STATUS_ERROR_OUT_OF_RESOURCES). */
static enum cp_status aql_scratch_reclaim_start(struct sim_cp_queue *q)
{
  if (!q->amd_queue_va)
    return CP_DONE;
  volatile uint32_t *props = cp_mem_u32(q->gpu, q->amd_queue_va + AMD_QUEUE_PROPERTIES_OFF, false);
  volatile uint64_t *sigp = cp_mem_u64(q->gpu, q->amd_queue_va + AMD_QUEUE_INACTIVE_SIGNAL_OFF, false);
  if (!props || !sigp)
    return aql_fault(q, q->amd_queue_va, false);
  uint64_t sig = *sigp;
  if (!(__atomic_load_n(props, __ATOMIC_ACQUIRE) & AMD_QUEUE_PROPERTIES_USE_SCRATCH_ONCE) || !sig)
    return CP_DONE;
  uint64_t fault_va;
  if (cp_signal_store(q->gpu, sig, CP_QERR_SCRATCH_RECLAIM, &fault_va))
    return aql_fault(q, fault_va, true);
  q->scratch_reclaiming = true;
  sim_log("cp: queue %u: single-use scratch released to the runtime", q->desc.queue_id);
  return CP_DONE;
}

/* Before the next packet: has the runtime answered the reclaim? */
static enum cp_status aql_scratch_reclaim_wait(struct sim_cp_queue *q)
{
  if (!q->scratch_reclaiming)
    return CP_DONE;
  volatile uint64_t *sigp = cp_mem_u64(q->gpu, q->amd_queue_va + AMD_QUEUE_INACTIVE_SIGNAL_OFF, false);
  if (!sigp)
    return aql_fault(q, q->amd_queue_va + AMD_QUEUE_INACTIVE_SIGNAL_OFF, false);
  int64_t v;
  if (!cp_signal_load(q->gpu, *sigp, &v))
    return aql_fault(q, *sigp + CP_SIGNAL_VALUE_OFF, false);
  if (v == CP_QERR_SCRATCH_RECLAIM)
    return CP_BLOCKED;
  q->scratch_reclaiming = false;
  if (v != 0) {
    atomic_store(&q->failed, true); /* the runtime is tearing the queue down */
    sim_log("cp: queue %u: scratch reclaim answered %lld", q->desc.queue_id, (long long)v);
    return CP_FAILED;
  }
  return CP_DONE;
}

static void *isa_translate(void *ctx, uint64_t va, uint64_t len, bool write)
{
  return sim_gpuvm_translate(ctx, va, len, write);
}

static bool isa_sys_uncached(void *ctx, uint64_t va)
{
  return sim_gpuvm_sys_uncached(ctx, va);
}

/* s_sendmsg from a wave: `msg` is the instruction's SIMM16, whose bits 3..0 are the message id.
 * MSG_INTERRUPT (1) carries M0 as the context id; the SQ interrupt path keeps its low 24 bits
 * (kfd_int_process_v9.c). */
static void isa_sendmsg(void *ctx, uint32_t msg, uint32_t m0)
{
  if ((msg & 0xfu) == 1)
    sim_event_interrupt(ctx, m0 & 0xffffffu, 24);
  else
    sim_log("cp: s_sendmsg %u (m0 0x%x) ignored", msg, m0);
}

/* Waves of a dispatch: wave64 waves per workgroup times the workgroups of the grid (partial
 * workgroups at the edges count whole, as the hardware launches them). */
static uint64_t aql_wave_count(const struct isa_dispatch *d)
{
  uint64_t groups = 1, items = 1;
  for (unsigned i = 0; i < 3; i++) {
    groups *= (d->grid_size[i] + (uint64_t)d->workgroup_size[i] - 1) / d->workgroup_size[i];
    items *= d->workgroup_size[i];
  }
  return groups * ((items + 63) / 64);
}

static enum cp_status aql_dispatch(struct sim_cp_queue *q, const struct aql_kernel_dispatch *p,
                                   uint64_t packet_va, uint64_t dispatch_id)
{
  unsigned dims = p->setup & 3u;
  if (dims < 1)
    return aql_fail(q, CP_QERR_INVALID_DIM, "dispatch with 0 dimensions");
  uint32_t items = 1;
  for (unsigned i = 0; i < dims; i++) {
    if (!p->workgroup_size[i] || !p->grid_size[i])
      return aql_fail(q, CP_QERR_INVALID_DIM, "empty grid or workgroup dimension");
    items *= p->workgroup_size[i];
  }
  if (items > AQL_MAX_WORKGROUP)
    return aql_fail(q, CP_QERR_GROUP_TOO_LARGE, "workgroup larger than 1024 work-items");
  if (p->group_segment_size > AQL_MAX_LDS)
    return aql_fail(q, CP_QERR_INVALID_GROUP_MEM, "group segment larger than LDS");
  if (!p->kernel_object)
    return aql_fail(q, CP_QERR_INVALID_CODE, "null kernel object");
  enum cp_status scratch = aql_ensure_scratch(q, p);
  if (scratch != CP_DONE)
    return scratch;

  struct isa_dispatch d = {
    .target = sim_gpu_gfx(q->gpu) == SIM_GFX942 ? ISA_GFX942 : ISA_GFX90A,
    .mem_ctx = q->gpu,
    .translate = isa_translate,
    .sys_uncached = isa_sys_uncached,
    .msg_ctx = q->gpu,
    .sendmsg = isa_sendmsg,
    .packet_va = packet_va,
    .queue_va = q->amd_queue_va,
    .dispatch_id = dispatch_id,
    .setup_dims = (uint16_t)dims,
    .private_segment_size = p->private_segment_size,
    .group_segment_size = p->group_segment_size,
    .kernel_object = p->kernel_object,
    .kernarg_address = p->kernarg_address,
    .host_threads = 0,
    .shader_clock_mhz = sim_gpu_shader_mhz(q->gpu),
    .cancel = &q->cancel_dispatch,
  };
  for (unsigned i = 0; i < 3; i++) {
    d.workgroup_size[i] = i < dims ? p->workgroup_size[i] : 1;
    d.grid_size[i] = i < dims ? p->grid_size[i] : 1;
  }
  struct isa_result r;
  memset(&r, 0, sizeof(r));
  struct cp_run run;
  bool watched = cp_monitor_flags != 0;
  if (watched) {
    cp_monitor_begin(&run, q, p->kernel_object, aql_wave_count(&d));
    d.waves_done = &run.waves_done;
  } else {
    d.waves_done = cp_queue_progress_counter(q); /* lower-priority queues watch it (cp_sched.c) */
  }
  isa_dispatch_run(&d, &r);
  bool hung = watched && cp_monitor_end(&run, &r);
  if (cp_queue_stopping(q))
    return CP_FAILED; /* destroyed meanwhile: its memory may be gone, report nothing */
  if (hung)
    return aql_hang(q);
  switch (r.status) {
  case ISA_OK:
    return CP_DONE;
  case ISA_PAGE_FAULT:
    return aql_fault(q, r.fault_va, r.fault_write);
  case ISA_ILLEGAL_INSTR:
    sim_log("cp: %s", r.message);
    return aql_fail(q, CP_QERR_ILLEGAL_INSTRUCTION, "illegal instruction");
  case ISA_TRAP:
    sim_log("cp: %s", r.message);
    return aql_fail(q, CP_QERR_DEBUG_TRAP, "wave trap");
  case ISA_BAD_DISPATCH:
    sim_log("cp: %s", r.message);
    return aql_fail(q, CP_QERR_INVALID_CODE, "invalid kernel descriptor");
  case ISA_CANCELLED:
    return CP_FAILED; /* the queue is being destroyed */
  }
  return aql_fail(q, CP_QERR_INVALID_PACKET, "unknown interpreter status");
}

static enum cp_status aql_vendor(struct sim_cp_queue *q, const union aql_packet *pkt)
{
  switch (pkt->pm4_ib.amd_format) {
  case AQL_AMD_FORMAT_PM4_IB: {
    uint64_t fault_va = 0;
    bool fault_write = false;
    uint32_t code = cp_pm4_vendor_packet(q, pkt->dw, &fault_va, &fault_write);
    if (code == CP_QERR_MEMORY_VIOLATION)
      return aql_fault(q, fault_va, fault_write);
    return code ? aql_fail(q, code, "unsupported PM4 in vendor packet") : CP_DONE;
  }
  case AQL_AMD_FORMAT_BARRIER_VALUE:
    return aql_barrier_value(q, &pkt->barrier_value);
  default:
    return aql_fail(q, CP_QERR_INVALID_VENDOR_PACKET, "unknown AMD vendor packet format");
  }
}

/* Runs one packet; on CP_DONE, *signal and *start are what aql_complete needs once the slot has
 * been released. */
static enum cp_status aql_execute(struct sim_cp_queue *q, const union aql_packet *pkt,
                                  uint64_t packet_va, uint64_t dispatch_id, uint64_t *signal_out,
                                  uint64_t *start_out)
{
  uint16_t h = pkt->header;
  uint64_t start = sim_gpu_clock_counter();
  if (AQL_HDR_ACQUIRE_SCOPE(h))
    __atomic_thread_fence(__ATOMIC_SEQ_CST);

  enum cp_status st;
  uint64_t signal;
  switch (AQL_HDR_TYPE(h)) {
  case AQL_TYPE_KERNEL_DISPATCH:
    st = aql_dispatch(q, &pkt->dispatch, packet_va, dispatch_id);
    signal = pkt->dispatch.completion_signal;
    break;
  case AQL_TYPE_BARRIER_AND:
  case AQL_TYPE_BARRIER_OR:
    st = aql_barrier(q, &pkt->barrier, AQL_HDR_TYPE(h) == AQL_TYPE_BARRIER_OR);
    signal = pkt->barrier.completion_signal;
    break;
  case AQL_TYPE_VENDOR_SPECIFIC:
    st = aql_vendor(q, pkt);
    signal = pkt->pm4_ib.completion_signal; /* at +56 in every AMD vendor format */
    break;
  case AQL_TYPE_AGENT_DISPATCH:
    /* Agent dispatches are for host agents; a GPU's CP rejects them (ROCr never sends one). */
    return aql_fail(q, CP_QERR_INVALID_PACKET, "agent dispatch packet on a GPU queue");
  default:
    return aql_fail(q, CP_QERR_INVALID_PACKET, "unknown packet type");
  }
  if (st != CP_DONE)
    return st;
  if (AQL_HDR_RELEASE_SCOPE(h))
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
  *signal_out = signal;
  *start_out = start;
  return CP_DONE;
}

/* ---- the ring ---- */

/* The producer's next launch into a slot (once the ring wraps) writes it again. Left modified in
 * this core's private cache by the release below, the slot's line costs that launch a snoop of
 * this core, which the producer's next locked instruction waits for; CLDEMOTE pushes it out to
 * the shared cache instead. Done for the slots of a run once the ring is found empty (or the
 * run ends), not packet by packet: a dispatch-by-dispatch demote slowed back-to-back kernels by
 * 15%, the producer not needing the lines before the ring wraps. Measured on kfdsim (2 vCPUs,
 * SCHED_FIFO, 180 batches of 256 empty-kernel launches, worker lingering): batches over 70 ns per
 * enqueue 32% -> 14%, median 62 -> 60 ns. A hint, and its encoding is a NOP on CPUs without it. */
struct aql_consumed {
  const volatile void *slot[AQL_MAX_BATCH];
  unsigned n;
};

static inline void aql_demote_line(const volatile void *p)
{
#if defined(__x86_64__)
  __asm__ volatile(".byte 0x0f, 0x1c, 0x00" : : "a"(p) : "memory"); /* cldemote (%rax) */
#else
  (void)p;
#endif
}

static enum cp_status aql_hand_back(const struct aql_consumed *c, enum cp_status st)
{
  for (unsigned i = 0; i < c->n; i++)
    aql_demote_line(c->slot[i]);
  return st;
}

bool cp_aql_has_work(struct sim_cp_queue *q)
{
  uint64_t base, size;
  if (!cp_queue_ring(q, &base, &size))
    return false;
  volatile uint64_t *rd = cp_mem_u64(q->gpu, q->desc.read_pointer, false);
  volatile uint64_t *wr = cp_mem_u64(q->gpu, q->desc.write_pointer, false);
  if (!rd || !wr)
    return true; /* cp_aql_run reports the fault */
  return __atomic_load_n(wr, __ATOMIC_ACQUIRE) > __atomic_load_n(rd, __ATOMIC_ACQUIRE);
}

enum cp_status cp_aql_run(struct sim_cp_queue *q)
{
  uint64_t base, size;
  if (!cp_queue_ring(q, &base, &size))
    return CP_DONE;
  uint64_t slots = size / AQL_PACKET_SIZE;
  /* Translated once per batch: the read and write pointers' buffers hold a queue reference
   * (kfd_queue_acquire_buffers), so they cannot be unmapped while the queue exists. */
  volatile uint64_t *rdp = cp_mem_u64(q->gpu, q->desc.read_pointer, true);
  if (!rdp)
    return aql_fault(q, q->desc.read_pointer, true);
  volatile uint64_t *wrp = cp_mem_u64(q->gpu, q->desc.write_pointer, false);
  if (!wrp)
    return aql_fault(q, q->desc.write_pointer, false);

  struct aql_consumed done;
  done.n = 0;
  /* The write index is read again only once the packets it announced are consumed: the
   * producers' line is left alone while they add packets (the CP reads the write pointer when
   * it runs dry, not per packet). */
  uint64_t wr = 0;
  for (unsigned n = 0; n < AQL_MAX_BATCH; n++) {
    /* A queue of a higher pipe priority has a packet ready: stop between packets so that the
     * worker defers to it (cp_sched.c, queue priority). */
    if (n && cp_queue_outranked(q))
      return aql_hand_back(&done, CP_DONE);
    enum cp_status reclaim = aql_scratch_reclaim_wait(q);
    if (reclaim != CP_DONE)
      return aql_hand_back(&done, reclaim);
    uint64_t rd = __atomic_load_n(rdp, __ATOMIC_ACQUIRE);
    if (rd >= wr)
      wr = __atomic_load_n(wrp, __ATOMIC_ACQUIRE);
    if (rd >= wr)
      return aql_hand_back(&done, CP_DONE);

    uint64_t slot_va = base + (rd % slots) * AQL_PACKET_SIZE;
    volatile uint16_t *slot = sim_gpuvm_translate(q->gpu, slot_va, AQL_PACKET_SIZE, true);
    if (!slot)
      return aql_fault(q, slot_va, false);
    /* Acquire: the body written before the header's release-store is visible after this. */
    uint16_t h = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
    if (AQL_HDR_TYPE(h) == AQL_TYPE_INVALID)
      return CP_BLOCKED; /* the producer has reserved the slot but not published it yet */
    union aql_packet pkt;
    memcpy(&pkt, (const void *)slot, sizeof(pkt));
    pkt.header = h;

    uint64_t signal = 0, start = 0;
    enum cp_status st = aql_execute(q, &pkt, slot_va, rd, &signal, &start);
    if (st != CP_DONE)
      return st;
    /* Release the slot: header first, then the read index that lets the producer reuse it.
     * Both precede the completion signal, so a waiter that sees the signal also sees the
     * packet consumed (HSA: read index >= id of every completed packet). */
    __atomic_store_n(slot, (uint16_t)AQL_TYPE_INVALID, __ATOMIC_RELEASE);
    __atomic_store_n(rdp, rd + 1, __ATOMIC_RELEASE);
    done.slot[done.n++] = slot;
    q->consumed++;
    st = aql_complete(q, signal, start);
    if (st != CP_DONE)
      return aql_hand_back(&done, st);
    if (AQL_HDR_TYPE(h) == AQL_TYPE_KERNEL_DISPATCH && aql_scratch_reclaim_start(q) != CP_DONE)
      return aql_hand_back(&done, CP_FAILED);
  }
  return aql_hand_back(&done, CP_DONE);
}
