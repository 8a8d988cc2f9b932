/* The direct path for GLOBAL/FLAT dword loads and stores (exec_mem_fast.c). */
#ifndef KFDSIM_ISA_EXEC_MEM_FAST_H
#define KFDSIM_ISA_EXEC_MEM_FAST_H

#include "isa/mem_ops.h"
#include "isa/wave.h"

/* Runs the GLOBAL or FLAT load/store of 1-4 whole dwords `in` (described by `mo`) when every
 * active lane's access falls in one mapped 4 KiB page outside the LDS and private apertures,
 * with the results of exec_mem.c's per-lane path. Returns 0 when it ran it, 1 when the
 * per-lane path must (it then reports any fault exactly as before: this path never faults). */
int flat_dwords_direct(struct isa_wave *w, const struct isa_inst *in, const struct mem_op *mo,
                       uint64_t exec, bool use_saddr);

/* exec_vmem() without the direct path; separate so tests can compare the two. */
int exec_vmem_general(struct isa_wave *w, const struct isa_inst *in);

#endif
