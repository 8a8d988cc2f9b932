/* The direct path for plain 32-bit VALU instructions (exec_valu_fast.c). */
#ifndef KFDSIM_ISA_EXEC_VALU_FAST_H
#define KFDSIM_ISA_EXEC_VALU_FAST_H

#include "isa/wave.h"

/* Runs `in` if it is a plain VOP1/VOP2/VOP3 instruction of the covered set, with the results
 * exec_valu() would give. Returns 0 when it ran it, 1 when the general path must. */
int exec_valu_fast(struct isa_wave *w, const struct isa_inst *in);

/* Binding at decode (blocks.c): in->fast holds the direct path's class of `in` from its
 * decoded fields alone (valu_bind sets it). exec_valu_bound runs the direct path of that class
 * (the wave's MODE and VGPR indexing still checked) and the general one otherwise:
 * exec_valu()'s results without classifying again. */
int exec_valu_bound(struct isa_wave *w, const struct isa_inst *in);

/* The executor for VALU instruction `in` (which it classifies, setting in->fast): a handler of
 * its own for the commonest classes, exec_valu_bound for the rest of the direct path,
 * exec_valu_general for what only that path runs. Same results as exec_valu(). */
typedef int (*valu_exec_fn)(struct isa_wave *w, const struct isa_inst *in);
valu_exec_fn valu_bind(struct isa_inst *in);

/* The direct path's classes (in->fast). FAST_PK and FAST_CMP: v_pk_*_f32 and v_cmp/v_cmpx,
 * checked further when they run. */
enum fast_kind {
  FAST_NONE, FAST_INT, FAST_F32, FAST_CARRY, FAST_CNDMASK, FAST_INT64, FAST_PK, FAST_CMP, FAST_F64,
  FAST_CVT64
};

/* exec_valu_simd.c: on a host with AVX2 and FMA, a whole-wave handler of its own for `in`
 * (its in->fast already set), or NULL (then valu_bind's portable choices apply). Same
 * results as exec_valu(). */
valu_exec_fn valu_simd_bind(const struct isa_inst *in);

/* Operand types of the v_cmp/v_cmpx opcodes. */
enum cmp_type { CT_NONE, CT_F16, CT_F32, CT_F64, CT_I16, CT_U16, CT_I32, CT_U32, CT_I64, CT_U64 };

/* The type and predicate of a v_cmp/v_cmpx opcode (exec_valu.c's table), false for any other
 * opcode and for v_cmp_class. Predicates: integer 0 f, 1 lt, 2 eq, 3 le, 4 gt, 5 ne, 6 ge, 7 t;
 * float 0 f, 1 lt, 2 eq, 3 le, 4 gt, 5 lg, 6 ge, 7 o, 8 u, 9 nge, 10 nlg, 11 ngt, 12 nle,
 * 13 neq, 14 nlt, 15 tru. */
bool valu_cmp_lookup(unsigned op, unsigned *type, unsigned *pred, bool *writes_exec);

/* exec_valu.c's path for every VALU instruction (exec_valu() tries exec_valu_fast first);
 * separate so tests can compare the two. */
int exec_valu_general(struct isa_wave *w, const struct isa_inst *in);

#endif
