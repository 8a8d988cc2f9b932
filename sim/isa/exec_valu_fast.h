/* The direct path for plain 32-bit VALU instructions (exec_valu_fast.c). */
#ifndef KFDSIM_ISA_EXEC_VALU_FAST_H
#define KFDSIM_ISA_EXEC_VALU_FAST_H

#include "isa/wave.h"

/* Runs `in` if it is a plain VOP1/VOP2/VOP3 instruction of the covered set, with the results
 * exec_valu() would give. Returns 0 when it ran it, 1 when the general path must. */
int exec_valu_fast(struct isa_wave *w, const struct isa_inst *in);

/* exec_valu.c's path for every VALU instruction (exec_valu() tries exec_valu_fast first);
 * separate so tests can compare the two. */
int exec_valu_general(struct isa_wave *w, const struct isa_inst *in);

#endif
