/* Adjacent VALU instructions run as one (exec_valu_simd.c; bound by blocks.c per block).
 *
 * gfx90a code forms each 64-bit address with v_add_co_u32 lo, X, a, b followed by
 * v_addc_co_u32 hi, Y, c, d, X: the second reads the carry the first wrote to the SGPR pair X
 * (VCC in the VOP2 forms). Run as one, the carry stays in a vector register per eight lanes
 * instead of going out to X as a mask and back. */
#ifndef KFDSIM_ISA_VALU_PAIR_H
#define KFDSIM_ISA_VALU_PAIR_H

#include "isa/wave.h"

/* The executor that runs `first` and then `second` (adjacent in a block, both already bound:
 * valu_bind) in one pass, with the same results in registers and SGPRs as the two in sequence;
 * NULL when the pair is not one it covers. The caller sets first->pair to second and binds
 * second to valu_pair_second. */
isa_exec_fn valu_pair_bind(const struct isa_inst *first, const struct isa_inst *second);

/* The second instruction of a pair: already run by the first's executor. */
int valu_pair_second(struct isa_wave *w, const struct isa_inst *in);

#endif
