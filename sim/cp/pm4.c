/* The PM4 side of AMD's vendor-specific AQL packet (AMD_AQL_FORMAT_PM4_IB): the packet carries
 * one PM4 INDIRECT_BUFFER command whose IB holds the real work. ROCr 5.2.3 uses it on gfx9 for
 * one thing, AqlQueue::ExecutePM4 from GpuAgent::InvalidateCodeCaches: an IB with a single
 * ACQUIRE_MEM that invalidates the instruction, scalar and L2 caches. kfdsim has no caches, so
 * ACQUIRE_MEM is an ordering point; NOP is skipped; anything else is reported as an unsupported
 * vendor packet rather than silently ignored.
 *
 * PM4 type-3 header (amd_gpu_pm4.h facts): bits 30..31 type (3), 16..29 count (body dwords - 1),
 * 8..15 opcode. INDIRECT_BUFFER: dw1 IB base bits 2..31, dw2 base bits 32..47, dw3 bits 0..19
 * size in dwords, bit 23 valid.
 */
#include "cp_internal.h"

#define PM4_TYPE(h) ((h) >> 30)
#define PM4_COUNT(h) (((h) >> 16) & 0x3fffu)
#define PM4_OPCODE(h) (((h) >> 8) & 0xffu)

#define PM4_OP_NOP 0x10u
#define PM4_OP_INDIRECT_BUFFER 0x3fu
#define PM4_OP_ACQUIRE_MEM 0x58u

#define PM4_MAX_IB_DW 0x1000u /* ROCr's IB is one 4 KiB page; accept up to 16 KiB */

/* Execute one IB's commands. Returns 0 or a CP_QERR_* code. */
static uint32_t pm4_run_ib(struct sim_cp_queue *q, const uint32_t *ib, uint32_t ndw)
{
  uint32_t i = 0;
  while (i < ndw) {
    uint32_t h = ib[i];
    if (PM4_TYPE(h) == 2) { /* type-2: a one-dword filler */
      i++;
      continue;
    }
    if (PM4_TYPE(h) != 3)
      return CP_QERR_INVALID_VENDOR_PACKET;
    uint32_t len = PM4_COUNT(h) + 2;
    if (len > ndw - i)
      return CP_QERR_INVALID_VENDOR_PACKET;
    switch (PM4_OPCODE(h)) {
    case PM4_OP_NOP:
      break;
    case PM4_OP_ACQUIRE_MEM:
      /* Cache invalidation: coherent host memory needs only the ordering. */
      __atomic_thread_fence(__ATOMIC_SEQ_CST);
      break;
    default:
      sim_log("cp: gpu %u queue %u: PM4 opcode 0x%x not supported", sim_gpu_id(q->gpu),
              q->desc.queue_id, PM4_OPCODE(h));
      return CP_QERR_INVALID_VENDOR_PACKET;
    }
    i += len;
  }
  return 0;
}

uint32_t cp_pm4_vendor_packet(struct sim_cp_queue *q, const uint32_t packet[16],
                              uint64_t *fault_va, bool *fault_write)
{
  const uint32_t *jump = &packet[1];
  if (PM4_TYPE(jump[0]) != 3 || PM4_OPCODE(jump[0]) != PM4_OP_INDIRECT_BUFFER ||
      PM4_COUNT(jump[0]) != 2 || !(jump[3] & (1u << 23)))
    return CP_QERR_INVALID_VENDOR_PACKET;
  uint64_t ib_va = (uint64_t)(jump[1] & ~3u) | ((uint64_t)(jump[2] & 0xffffu) << 32);
  uint32_t ndw = jump[3] & 0xfffffu;
  if (ndw > PM4_MAX_IB_DW)
    return CP_QERR_INVALID_VENDOR_PACKET;
  uint32_t ib[PM4_MAX_IB_DW];
  if (cp_mem_read(q->gpu, ib_va, ib, (uint64_t)ndw * 4, fault_va)) {
    *fault_write = false;
    return CP_QERR_MEMORY_VIOLATION;
  }
  sim_log("cp: gpu %u queue %u: PM4 IB of %u dwords at 0x%llx", sim_gpu_id(q->gpu),
          q->desc.queue_id, ndw, (unsigned long long)ib_va);
  return pm4_run_ib(q, ib, ndw);
}
