/* The SDMA engines (SDMA 4.x packets, gfx9).
 *
 * Ring protocol (libhsakmt/ROCr BlitSdmaV4): a ring of bytes; the read and write pointers are
 * 64-bit byte offsets that only grow (ROCr's HwIndexMonotonic), the ring offset being the pointer
 * modulo the ring size. User space writes packets, stores the new write pointer to memory and
 * then to the doorbell; the engine takes the doorbell as its write pointer (as hardware does),
 * executes whole packets and publishes its progress at read_pointer.
 *
 * Every address is a GPU VA translated through the GPU's page table and split at mapping
 * boundaries; an untranslatable address is a GPU page fault: the memory-exception event, the
 * queue stopped, never a host crash.
 */
#include <string.h>

#include "cp_internal.h"
#include "sdma_packets.h"

#define SDMA_MAX_BATCH 256 /* packets per call before the worker re-checks stop */
#define SDMA_WRITE_MAX_DW (4 + 1024) /* WRITE_LINEAR with up to 4 KiB of data (unused by ROCr) */

static enum cp_status sdma_fault(struct sim_cp_queue *q, uint64_t va, bool write)
{
  sim_log("cp: gpu %u SDMA queue %u page fault at 0x%llx (%s)", sim_gpu_id(q->gpu),
          q->desc.queue_id, (unsigned long long)va, write ? "write" : "read");
  atomic_store(&q->failed, true);
  sim_event_memory_fault(q->gpu, va, write);
  return CP_FAILED;
}

static enum cp_status sdma_bad_packet(struct sim_cp_queue *q, uint32_t h, const char *why)
{
  sim_log("cp: gpu %u SDMA queue %u stopped: %s (header 0x%08x)", sim_gpu_id(q->gpu),
          q->desc.queue_id, why, h);
  atomic_store(&q->failed, true);
  return CP_FAILED;
}

static uint64_t va64(uint32_t lo, uint32_t hi) { return (uint64_t)lo | ((uint64_t)hi << 32); }

/* ---- packets ---- */

static enum cp_status sdma_copy_linear(struct sim_cp_queue *q, const uint32_t *p)
{
  uint64_t bytes = (uint64_t)(p[1] & SDMA_COUNT_MASK) + 1;
  uint64_t src = va64(p[3], p[4]), dst = va64(p[5], p[6]);
  uint64_t fault_va;
  bool fault_write;
  if (cp_mem_copy(q->gpu, dst, src, bytes, &fault_va, &fault_write))
    return sdma_fault(q, fault_va, fault_write);
  return CP_DONE;
}

/* A sub-window copy in elements of 2^element bytes: pitches and slice pitches are in elements,
 * minus one; offsets are in elements; rect sizes are counts minus one. */
static enum cp_status sdma_copy_rect(struct sim_cp_queue *q, const uint32_t *p)
{
  unsigned e = SDMA_RECT_ELEMENT(p[0]);
  if (e > 4)
    return sdma_bad_packet(q, p[0], "COPY_LINEAR_RECT element larger than 16 bytes");
  uint64_t esz = 1ull << e;
  uint64_t src = va64(p[1], p[2]), dst = va64(p[6], p[7]);
  uint64_t sx = p[3] & 0x3fffu, sy = (p[3] >> 16) & 0x3fffu, sz = p[4] & 0x7ffu;
  uint64_t spitch = (p[4] >> 13) + 1, sslice = (uint64_t)(p[5] & 0x0fffffffu) + 1;
  uint64_t dx = p[8] & 0x3fffu, dy = (p[8] >> 16) & 0x3fffu, dz = p[9] & 0x7ffu;
  uint64_t dpitch = (p[9] >> 13) + 1, dslice = (uint64_t)(p[10] & 0x0fffffffu) + 1;
  uint64_t w = (uint64_t)(p[11] & 0x3fffu) + 1, h = (uint64_t)((p[11] >> 16) & 0x3fffu) + 1;
  uint64_t d = (uint64_t)(p[12] & 0x7ffu) + 1;

  for (uint64_t z = 0; z < d; z++) {
    for (uint64_t y = 0; y < h; y++) {
      uint64_t s = src + (sx + (sy + y) * spitch + (sz + z) * sslice) * esz;
      uint64_t t = dst + (dx + (dy + y) * dpitch + (dz + z) * dslice) * esz;
      uint64_t fault_va;
      bool fault_write;
      if (cp_mem_copy(q->gpu, t, s, w * esz, &fault_va, &fault_write))
        return sdma_fault(q, fault_va, fault_write);
    }
  }
  return CP_DONE;
}

static enum cp_status sdma_const_fill(struct sim_cp_queue *q, const uint32_t *p)
{
  unsigned shift = SDMA_FILL_SIZE(p[0]);
  if (shift > 2)
    shift = 2; /* the data field holds 32 bits */
  uint64_t count = p[4] & SDMA_COUNT_MASK;
  /* "bytes - 1" (kernel) and "bytes - 4" (ROCr) both name the same whole elements. */
  uint64_t bytes = ((count >> shift) + 1) << shift;
  uint64_t fault_va;
  if (cp_mem_fill(q->gpu, va64(p[1], p[2]), p[3], 1u << shift, bytes, &fault_va))
    return sdma_fault(q, fault_va, true);
  return CP_DONE;
}

static enum cp_status sdma_fence(struct sim_cp_queue *q, const uint32_t *p)
{
  uint64_t va = va64(p[1] & ~3u, p[2]);
  volatile uint32_t *dst = cp_mem_u32(q->gpu, va, true);
  if (!dst)
    return sdma_fault(q, va, true);
  /* Release: the fence value is seen only after everything before it in the ring. */
  __atomic_store_n(dst, p[3], __ATOMIC_RELEASE);
  return CP_DONE;
}

static enum cp_status sdma_trap(struct sim_cp_queue *q, const uint32_t *p)
{
  /* kfd_int_process_v9.c: an SDMA trap interrupt carries 28 bits of context id. */
  sim_event_interrupt(q->gpu, SDMA_TRAP_INT_CTX(p[1]), 28);
  return CP_DONE;
}

static bool poll_compare(unsigned func, uint32_t v, uint32_t ref)
{
  switch (func) {
  case 0: return true;
  case 1: return v < ref;
  case 2: return v <= ref;
  case 3: return v == ref;
  case 4: return v != ref;
  case 5: return v >= ref;
  case 6: return v > ref;
  default: return false;
  }
}

static enum cp_status sdma_poll_regmem(struct sim_cp_queue *q, const uint32_t *p)
{
  /* A register poll (mem_poll = 0) is how ROCr asks for an HDP flush; kfdsim has no HDP and no
   * registers, so it is satisfied at once. */
  if (!SDMA_POLL_MEM(p[0]))
    return CP_DONE;
  uint64_t va = va64(p[1] & ~3u, p[2]);
  volatile uint32_t *src = cp_mem_u32(q->gpu, va, false);
  if (!src)
    return sdma_fault(q, va, false);
  uint32_t v = __atomic_load_n(src, __ATOMIC_ACQUIRE);
  if (poll_compare(SDMA_POLL_FUNC(p[0]), v & p[4], p[3]))
    return CP_DONE;
  unsigned retry = SDMA_POLL_RETRY(p[5]);
  if (retry != SDMA_POLL_RETRY_FOREVER && q->sdma_poll_tries >= retry) {
    sim_log("cp: SDMA queue %u POLL_REGMEM gave up after %u retries", q->desc.queue_id, retry);
    return CP_DONE;
  }
  q->sdma_poll_tries++;
  return CP_BLOCKED; /* the worker backs off before the next look */
}

/* TC atomic opcodes (gfx9 TC_OP): 32-bit ops at 0x07..0x19 (returning) and 0x47..0x59, 64-bit
 * at 0x27..0x39 and 0x67..0x79. The returning and non-returning forms act alike here: the
 * SDMA 4 ATOMIC packet has no field to receive the pre-op value; the engine uses it only for
 * the loop bit (CMPSWAP retried until the compare succeeds). */
enum tc_atomic {
  TC_SWAP = 0x07, TC_CMPSWAP = 0x08, TC_ADD = 0x0f, TC_SUB, TC_SMIN, TC_UMIN, TC_SMAX, TC_UMAX,
  TC_AND, TC_OR, TC_XOR, TC_INC, TC_DEC,
};

static bool atomic_apply(unsigned op, bool is64, uint64_t old, uint64_t src, uint64_t cmp,
                         uint64_t *out)
{
  uint64_t mask = is64 ? ~0ull : 0xffffffffull;
  int64_t so = is64 ? (int64_t)old : (int64_t)(int32_t)old;
  int64_t ss = is64 ? (int64_t)src : (int64_t)(int32_t)src;
  switch (op) {
  case TC_SWAP: *out = src; break;
  case TC_CMPSWAP: *out = old == (cmp & mask) ? src : old; break;
  case TC_ADD: *out = old + src; break;
  case TC_SUB: *out = old - src; break;
  case TC_SMIN: *out = so < ss ? old : src; break;
  case TC_UMIN: *out = old < (src & mask) ? old : src; break;
  case TC_SMAX: *out = so > ss ? old : src; break;
  case TC_UMAX: *out = old > (src & mask) ? old : src; break;
  case TC_AND: *out = old & src; break;
  case TC_OR: *out = old | src; break;
  case TC_XOR: *out = old ^ src; break;
  case TC_INC: *out = old >= (src & mask) ? 0 : old + 1; break;
  case TC_DEC: *out = (old == 0 || old > (src & mask)) ? src : old - 1; break;
  default: return false;
  }
  *out &= mask;
  return true;
}

static enum cp_status sdma_atomic(struct sim_cp_queue *q, const uint32_t *p)
{
  unsigned operation = SDMA_ATOMIC_OPERATION(p[0]);
  bool is64 = (operation & 0x20u) != 0;
  unsigned op = operation & ~0x60u;
  uint64_t va = va64(p[1], p[2]);
  uint64_t src = va64(p[3], p[4]), cmp = va64(p[5], p[6]);
  uint64_t scratch;
  if (!atomic_apply(op, is64, 0, src, cmp, &scratch))
    return sdma_bad_packet(q, p[0], "unsupported ATOMIC operation");

  uint64_t old, new_value;
  if (is64) {
    volatile uint64_t *m = cp_mem_u64(q->gpu, va, true);
    if (!m)
      return sdma_fault(q, va, true);
    old = __atomic_load_n(m, __ATOMIC_RELAXED);
    do
      atomic_apply(op, true, old, src, cmp, &new_value);
    while (!__atomic_compare_exchange_n(m, &old, new_value, false, __ATOMIC_ACQ_REL,
                                        __ATOMIC_RELAXED));
  } else {
    volatile uint32_t *m = cp_mem_u32(q->gpu, va, true);
    if (!m)
      return sdma_fault(q, va, true);
    uint32_t o = __atomic_load_n(m, __ATOMIC_RELAXED), n;
    do {
      atomic_apply(op, false, o, src & 0xffffffffu, cmp & 0xffffffffu, &new_value);
      n = (uint32_t)new_value;
    } while (!__atomic_compare_exchange_n(m, &o, n, false, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED));
    old = o;
  }
  uint64_t mask = is64 ? ~0ull : 0xffffffffull;
  if (op == TC_CMPSWAP && SDMA_ATOMIC_LOOP(p[0]) && old != (cmp & mask))
    return CP_BLOCKED; /* loop: try again after a back-off */
  return CP_DONE;
}

static enum cp_status sdma_timestamp(struct sim_cp_queue *q, const uint32_t *p)
{
  if (SDMA_SUB_OP(p[0]) == SDMA_SUBOP_TIMESTAMP_SET)
    return CP_DONE; /* the GPU clock is the host's steady clock: it cannot be set */
  uint64_t va = va64(p[1] & ~7u, p[2]);
  volatile uint64_t *dst = cp_mem_u64(q->gpu, va, true);
  if (!dst)
    return sdma_fault(q, va, true);
  __atomic_store_n(dst, sim_gpu_clock_counter(), __ATOMIC_RELEASE);
  return CP_DONE;
}

static enum cp_status sdma_write_linear(struct sim_cp_queue *q, const uint32_t *p, uint32_t ndw)
{
  uint64_t fault_va;
  if (cp_mem_write(q->gpu, va64(p[1] & ~3u, p[2]), &p[4], (uint64_t)(ndw - 4) * 4, &fault_va))
    return sdma_fault(q, fault_va, true);
  return CP_DONE;
}

/* ---- the ring ---- */

/* Packet length in dwords from its header (and, for WRITE, its count dword); 0 if unknown. */
static uint32_t sdma_packet_dw(uint32_t h, uint32_t dw3)
{
  switch (SDMA_OP(h)) {
  case SDMA_OP_NOP: return 1 + SDMA_NOP_COUNT(h);
  case SDMA_OP_COPY:
    if (SDMA_SUB_OP(h) == SDMA_SUBOP_COPY_LINEAR)
      return SDMA_COPY_LINEAR_DW;
    if (SDMA_SUB_OP(h) == SDMA_SUBOP_COPY_LINEAR_RECT)
      return SDMA_COPY_LINEAR_RECT_DW;
    return 0;
  case SDMA_OP_WRITE:
    return SDMA_SUB_OP(h) == SDMA_SUBOP_WRITE_LINEAR ? 4 + (dw3 & 0xfffffu) + 1 : 0;
  case SDMA_OP_FENCE: return SDMA_FENCE_DW;
  case SDMA_OP_TRAP: return SDMA_TRAP_DW;
  case SDMA_OP_POLL_REGMEM: return SDMA_POLL_REGMEM_DW;
  case SDMA_OP_ATOMIC: return SDMA_ATOMIC_DW;
  case SDMA_OP_CONST_FILL: return SDMA_CONST_FILL_DW;
  case SDMA_OP_TIMESTAMP: return SDMA_TIMESTAMP_DW;
  default: return 0;
  }
}

/* Read n dwords from ring offset `off`, wrapping at the end of the ring. */
static int ring_read(struct sim_cp_queue *q, uint64_t base, uint64_t size, uint64_t off,
                     uint32_t *out, uint32_t n, uint64_t *fault_va)
{
  uint64_t bytes = (uint64_t)n * 4;
  uint64_t first = size - off < bytes ? size - off : bytes;
  if (cp_mem_read(q->gpu, base + off, out, first, fault_va))
    return -1;
  if (first < bytes && cp_mem_read(q->gpu, base, (uint8_t *)out + first, bytes - first, fault_va))
    return -1;
  return 0;
}

bool cp_sdma_has_work(struct sim_cp_queue *q)
{
  uint64_t base, size;
  if (!cp_queue_ring(q, &base, &size))
    return false;
  volatile uint64_t *rd = cp_mem_u64(q->gpu, q->desc.read_pointer, false);
  if (!rd)
    return true; /* cp_sdma_run reports the fault */
  return __atomic_load_n(rd, __ATOMIC_ACQUIRE) != __atomic_load_n(q->desc.doorbell, __ATOMIC_ACQUIRE);
}

static enum cp_status sdma_execute(struct sim_cp_queue *q, const uint32_t *p, uint32_t ndw)
{
  switch (SDMA_OP(p[0])) {
  case SDMA_OP_NOP: return CP_DONE;
  case SDMA_OP_COPY:
    return SDMA_SUB_OP(p[0]) == SDMA_SUBOP_COPY_LINEAR ? sdma_copy_linear(q, p) : sdma_copy_rect(q, p);
  case SDMA_OP_WRITE: return sdma_write_linear(q, p, ndw);
  case SDMA_OP_FENCE: return sdma_fence(q, p);
  case SDMA_OP_TRAP: return sdma_trap(q, p);
  case SDMA_OP_POLL_REGMEM: return sdma_poll_regmem(q, p);
  case SDMA_OP_ATOMIC: return sdma_atomic(q, p);
  case SDMA_OP_CONST_FILL: return sdma_const_fill(q, p);
  case SDMA_OP_TIMESTAMP: return sdma_timestamp(q, p);
  default: return sdma_bad_packet(q, p[0], "unknown opcode");
  }
}

enum cp_status cp_sdma_run(struct sim_cp_queue *q)
{
  uint64_t base, size;
  if (!cp_queue_ring(q, &base, &size))
    return CP_DONE;
  uint32_t pkt[SDMA_WRITE_MAX_DW];

  for (unsigned n = 0; n < SDMA_MAX_BATCH; n++) {
    volatile uint64_t *rdp = cp_mem_u64(q->gpu, q->desc.read_pointer, true);
    if (!rdp)
      return sdma_fault(q, q->desc.read_pointer, true);
    uint64_t rptr = __atomic_load_n(rdp, __ATOMIC_ACQUIRE);
    uint64_t wptr = __atomic_load_n(q->desc.doorbell, __ATOMIC_ACQUIRE);
    if (rptr == wptr)
      return CP_DONE;
    if ((rptr | wptr) & 3)
      return sdma_bad_packet(q, 0, "read or write pointer not dword aligned");
    if (wptr - rptr > size)
      return sdma_bad_packet(q, 0, "write pointer behind the read pointer or a ring ahead of it");
    uint64_t avail = (wptr - rptr) / 4;
    uint64_t off = rptr & (size - 1);
    uint64_t fault_va;

    if (ring_read(q, base, size, off, pkt, avail < 4 ? (uint32_t)avail : 4, &fault_va))
      return sdma_fault(q, fault_va, false);
    uint32_t ndw = sdma_packet_dw(pkt[0], avail >= 4 ? pkt[3] : 0);
    if (!ndw)
      return sdma_bad_packet(q, pkt[0], "unknown packet");
    if (ndw > SDMA_WRITE_MAX_DW)
      return sdma_bad_packet(q, pkt[0], "WRITE packet longer than kfdsim accepts");
    if (ndw > avail)
      return CP_BLOCKED; /* the rest of the packet is not published yet */
    if (ndw > 4 && ring_read(q, base, size, off, pkt, ndw, &fault_va))
      return sdma_fault(q, fault_va, false);

    enum cp_status st = sdma_execute(q, pkt, ndw);
    if (st != CP_DONE)
      return st;
    q->sdma_poll_tries = 0;
    /* Release: the packet's effects are visible before the progress that reports them. */
    __atomic_store_n(rdp, rptr + (uint64_t)ndw * 4, __ATOMIC_RELEASE);
    q->consumed++;
  }
  return CP_DONE;
}
