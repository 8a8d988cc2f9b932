/* The direct path for GLOBAL/FLAT dword loads and stores (exec_mem_fast.c). */
#ifndef KFDSIM_ISA_EXEC_MEM_FAST_H
#define KFDSIM_ISA_EXEC_MEM_FAST_H

#include "isa/mem_ops.h"
#include "isa/wave.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* Runs the GLOBAL or FLAT load/store of 1-4 whole dwords `in` (described by `mo`) when every
 * active lane's access falls in one mapped 4 KiB page outside the LDS and private apertures,
 * with the results of exec_mem.c's per-lane path. Returns 0 when it ran it, 1 when the
 * per-lane path must (it then reports any fault exactly as before: this path never faults). */
int flat_dwords_direct(struct isa_wave *w, const struct isa_inst *in, const struct mem_op *mo,
                       uint64_t exec, bool use_saddr);

/* Runs the DS load/store of whole dwords `in` (ds_read/write_b32, _b64, _b96, _b128 and the
 * read2/write2 and st64 forms; not sub-dword or d16) when every active lane's access lies
 * inside the workgroup's LDS, with exec_ds()'s results. Returns 0 when it ran it, 1 when the
 * per-lane path must. */
int ds_dwords_direct(struct isa_wave *w, const struct isa_inst *in, const struct mem_op *mo,
                     uint64_t exec);

/* The executor of the GLOBAL/FLAT load (store when [in] store) of [in] dw whole dwords (1-4)
 * decoded as [in] in, whose mo is set: a whole-wave direct path for its form, else the paths
 * of flat_dwords_direct() and flat_dwords_lanes(); exec_vmem()'s results. */
isa_exec_fn flat_dwords_bind(const struct isa_inst *in, unsigned dw, bool store);

/* The executor of the DS load or store of whole dwords decoded as [in] in, whose mo is set
 * (ds_read/write_b32 to _b128, read2/write2 and st64 forms of b32 and b64): a whole-wave direct
 * path for its form, else ds_dwords_direct() and exec_ds()'s per-lane path; exec_ds()'s
 * results. NULL for any other DS instruction. */
isa_exec_fn ds_dwords_bind(const struct isa_inst *in);

/* ds_dwords_bind() with the AVX2 executors of ds_read_b32/ds_write_b32 (avx2: the host has
 * AVX2) or without them (the portable executors, which tests also run on an AVX2 host). */
isa_exec_fn ds_dwords_bind_for(const struct isa_inst *in, bool avx2);

/* exec_mem.c's lane-after-lane path for those accesses (faults at the first faulting lane). */
int flat_dwords_lanes(struct isa_wave *w, const struct isa_inst *in, const struct mem_op *mo,
                      uint64_t exec, bool use_saddr);

/* exec_vmem() and exec_ds() without the direct paths; separate so tests can compare. */
int exec_vmem_general(struct isa_wave *w, const struct isa_inst *in);
int exec_ds_general(struct isa_wave *w, const struct isa_inst *in);

/* Move [in] dw dwords between memory at [in] p and lane [in] l of the VGPRs [in] regs (one array
 * per dword): a store copies registers to memory, a load memory to registers. */
static inline void lane_dwords_move(uint8_t *p, uint32_t *const *regs, unsigned l, unsigned dw,
                                    bool store)
{
  for (unsigned i = 0; i < dw; i++) {
    if (store)
      memcpy(p + 4 * i, &regs[i][l], 4);
    else
      memcpy(&regs[i][l], p + 4 * i, 4);
  }
}

#endif
