/* The commonest scalar ALU instructions, bound to handlers of their own at decode.
 *
 * Compiled loops are held together by a few SALU instructions (a counter add, a compare, a
 * conditional branch; s_waitcnt after every load; EXEC masks saved and restored around
 * branches). exec_salu.c decides the encoding, then the opcode, and widens every source through
 * wave_scalar_src for each of them; here each such opcode has a handler that does its one
 * operation, with an SGPR source read in place. The results are exec_salu.c's, bit for bit: the
 * same expressions, the same order of register reads and writes (the per-instruction tests in
 * tests/isa run through these handlers, as the decoded-instruction cache binds them).
 */
#include "isa/wave.h"

/* Source i as 32 bits: an SGPR in place, an integer inline constant (128..192: 0..64,
 * 193..208: -1..-16) computed, anything else as exec_salu.c reads it. */
static inline uint32_t src32(struct isa_wave *w, const struct isa_inst *in, int i)
{
  unsigned code = in->src[i];
  if (code < 128)
    return w->s[code];
  if (code <= 192)
    return code - 128;
  if (code <= 208)
    return 192u - code;
  return (uint32_t)wave_scalar_src(w, in, code, in->src_w[i] ? in->src_w[i] : 1);
}

/* Source i as 64 bits (an SGPR pair in place). */
static inline uint64_t src64(struct isa_wave *w, const struct isa_inst *in, int i)
{
  unsigned code = in->src[i];
  if (code < 127)
    return (uint64_t)w->s[code] | (uint64_t)w->s[code + 1] << 32;
  return wave_scalar_src(w, in, code, in->src_w[i] ? in->src_w[i] : 1);
}

/* The register pair at code < 127 (the _pp forms' operands), as one 8-byte access. */
static inline uint64_t pair_get(const struct isa_wave *w, unsigned code)
{
  uint64_t v;
  memcpy(&v, &w->s[code], sizeof(v));
  return v;
}

static inline void pair_set(struct isa_wave *w, unsigned code, uint64_t v)
{
  memcpy(&w->s[code], &v, sizeof(v));
}

static inline void dst32(struct isa_wave *w, const struct isa_inst *in, uint32_t v)
{
  if (in->dst < 128)
    w->s[in->dst] = v;
}

static inline void dst64(struct isa_wave *w, const struct isa_inst *in, uint64_t v)
{
  unsigned code = in->dst;
  if (code >= 128)
    return;
  w->s[code] = (uint32_t)v;
  if (code + 1 < 128)
    w->s[code + 1] = (uint32_t)(v >> 32);
}

/* ---- SOPP ---- */

static int salu_nop(struct isa_wave *w, const struct isa_inst *in)
{
  (void)w;
  (void)in;
  return 0;   /* in-order execution: counters and hints have nothing to wait for */
}

static int salu_endpgm(struct isa_wave *w, const struct isa_inst *in)
{
  (void)in;
  w->state = WAVE_DONE;
  return 0;
}

/* The wave waits until every live wave of its workgroup arrived (wave_barrier_arrive). */
static int salu_barrier(struct isa_wave *w, const struct isa_inst *in)
{
  (void)in;
  wave_barrier_arrive(w);
  return 0;
}

/* Branches are relative to the next instruction, which w->pc already holds. */
#define BRANCH(NAME, COND)                                                  \
  static int NAME(struct isa_wave *w, const struct isa_inst *in)            \
  {                                                                         \
    if (COND)                                                               \
      w->pc += (uint64_t)((int64_t)in->simm16 * 4);                         \
    return 0;                                                               \
  }
BRANCH(salu_branch, true)
BRANCH(salu_cbranch_scc0, !w->scc)
BRANCH(salu_cbranch_scc1, w->scc)
BRANCH(salu_cbranch_vccz, !wave_sreg64(w, OPD_VCC))
BRANCH(salu_cbranch_vccnz, wave_sreg64(w, OPD_VCC))
BRANCH(salu_cbranch_execz, !wave_exec(w))
BRANCH(salu_cbranch_execnz, wave_exec(w))
#undef BRANCH

/* ---- SOPC: 32-bit compares, alone or fused with the branch on SCC that follows ---- */

/* Operand forms of the 32-bit SOPC/SOP2 handlers (salu_specialize): any sources through src32;
 * SS: two SGPRs read in place; SK: an SGPR and a constant (an integer inline constant or the
 * literal) that salu_specialize leaves in in->literal. SS and SK also write an SGPR
 * destination without checking it. */
#define SRC_A_G src32(w, in, 0)
#define SRC_B_G src32(w, in, 1)
#define SRC_A_S w->s[in->src[0]]
#define SRC_B_S w->s[in->src[1]]
#define SRC_B_K in->literal

/* The fused branch: one more instruction executed, taken when `taken`. */
static inline void fused_branch(struct isa_wave *w, const struct isa_inst *in, bool taken)
{
  w->insts++;
  w->pc += 4;
  if (taken)
    w->pc += (uint64_t)((int64_t)in->simm16 * 4);
}

/* A compare and the s_cbranch_scc0/scc1 right after it (the end of nearly every compiled loop
 * and `if`) run as one handler: salu_fuse binds it when it decodes the compare and finds the
 * branch in the next word; in->simm16 then holds the branch's offset. The branch counts as an
 * executed instruction (w->insts; run_wave adds its own count to that) and is relative to the
 * instruction after it, 4 bytes past w->pc. A jump to the branch itself decodes it alone. */
#define CMP32_FORM(NAME, EXPR, A, B)                                        \
  static inline uint32_t NAME##_scc(struct isa_wave *w, const struct isa_inst *in) \
  {                                                                         \
    uint32_t a = (A), b = (B);                                              \
    int32_t ai = (int32_t)a, bi = (int32_t)b;                               \
    (void)ai;                                                               \
    (void)bi;                                                               \
    return (EXPR);                                                          \
  }                                                                         \
  static int NAME(struct isa_wave *w, const struct isa_inst *in)            \
  {                                                                         \
    w->scc = NAME##_scc(w, in);                                             \
    return 0;                                                               \
  }                                                                         \
  static int NAME##_br0(struct isa_wave *w, const struct isa_inst *in)      \
  {                                                                         \
    w->scc = NAME##_scc(w, in);                                             \
    fused_branch(w, in, !w->scc);                                           \
    return 0;                                                               \
  }                                                                         \
  static int NAME##_br1(struct isa_wave *w, const struct isa_inst *in)      \
  {                                                                         \
    w->scc = NAME##_scc(w, in);                                             \
    fused_branch(w, in, w->scc);                                            \
    return 0;                                                               \
  }
#define CMP32(NAME, EXPR)                                                   \
  CMP32_FORM(NAME, EXPR, SRC_A_G, SRC_B_G)                                  \
  CMP32_FORM(NAME##_ss, EXPR, SRC_A_S, SRC_B_S)                             \
  CMP32_FORM(NAME##_sk, EXPR, SRC_A_S, SRC_B_K)

CMP32(salu_cmp_eq, a == b)
CMP32(salu_cmp_lg, a != b)
CMP32(salu_cmp_gt_i32, ai > bi)
CMP32(salu_cmp_ge_i32, ai >= bi)
CMP32(salu_cmp_lt_i32, ai < bi)
CMP32(salu_cmp_le_i32, ai <= bi)
CMP32(salu_cmp_gt_u32, a > b)
CMP32(salu_cmp_ge_u32, a >= b)
CMP32(salu_cmp_lt_u32, a < b)
CMP32(salu_cmp_le_u32, a <= b)
#undef CMP32
#undef CMP32_FORM

/* ---- SOP2 ---- */

/* A 32-bit operation: r from a and b (and SCC), which may also set SCC; SETS_SCC: SCC = r != 0
 * afterwards (the logical operations and shifts). */
#define OP32_FORM(NAME, SETS_SCC, BODY, A, B, DST)                          \
  static int NAME(struct isa_wave *w, const struct isa_inst *in)            \
  {                                                                         \
    uint32_t a = (A), b = (B), r;                                           \
    int32_t ai = (int32_t)a, bi = (int32_t)b;                               \
    (void)ai;                                                               \
    (void)bi;                                                               \
    BODY;                                                                   \
    if (SETS_SCC)                                                           \
      w->scc = r != 0;                                                      \
    DST;                                                                    \
    return 0;                                                               \
  }
#define OP32(NAME, SETS_SCC, BODY)                                          \
  OP32_FORM(NAME, SETS_SCC, BODY, SRC_A_G, SRC_B_G, dst32(w, in, r))        \
  OP32_FORM(NAME##_ss, SETS_SCC, BODY, SRC_A_S, SRC_B_S, w->s[in->dst] = r) \
  OP32_FORM(NAME##_sk, SETS_SCC, BODY, SRC_A_S, SRC_B_K, w->s[in->dst] = r)
OP32(salu_add_u32, 0, { uint64_t t = (uint64_t)a + b; w->scc = (uint32_t)(t >> 32); r = (uint32_t)t; })
OP32(salu_addc_u32, 0, { uint64_t t = (uint64_t)a + b + w->scc; w->scc = (uint32_t)(t >> 32); r = (uint32_t)t; })
OP32(salu_sub_u32, 0, { r = a - b; w->scc = b > a; })
OP32(salu_add_i32, 0, {
  int32_t s = (int32_t)(a + b);
  w->scc = (ai >= 0) == (bi >= 0) && (s >= 0) != (ai >= 0);
  r = (uint32_t)s;
})
OP32(salu_sub_i32, 0, {
  int32_t s = (int32_t)(a - b);
  w->scc = (ai >= 0) != (bi >= 0) && (s >= 0) != (ai >= 0);
  r = (uint32_t)s;
})
OP32(salu_mul_i32, 0, { r = a * b; })
OP32(salu_and_b32, 1, { r = a & b; })
OP32(salu_or_b32, 1, { r = a | b; })
OP32(salu_xor_b32, 1, { r = a ^ b; })
OP32(salu_lshl_b32, 1, { r = a << (b & 31); })
OP32(salu_lshr_b32, 1, { r = a >> (b & 31); })
OP32(salu_ashr_i32, 1, { r = (uint32_t)(ai >> (b & 31)); })
OP32(salu_cselect_b32, 0, { r = w->scc ? a : b; })
OP32(salu_mul_hi_u32, 0, { r = (uint32_t)((uint64_t)a * b >> 32); })
OP32(salu_min_i32, 0, { w->scc = ai < bi; r = (uint32_t)(ai < bi ? ai : bi); })
OP32(salu_min_u32, 0, { w->scc = a < b; r = a < b ? a : b; })
OP32(salu_max_i32, 0, { w->scc = ai > bi; r = (uint32_t)(ai > bi ? ai : bi); })
OP32(salu_max_u32, 0, { w->scc = a > b; r = a > b ? a : b; })
OP32(salu_andn2_b32, 1, { r = a & ~b; })
OP32(salu_lshl1_add_u32, 0, {
  uint64_t t = ((uint64_t)a << 1) + b;
  w->scc = t >> 32 != 0;
  r = (uint32_t)t;
})
OP32(salu_lshl2_add_u32, 0, {
  uint64_t t = ((uint64_t)a << 2) + b;
  w->scc = t >> 32 != 0;
  r = (uint32_t)t;
})
#undef OP32
#undef OP32_FORM

/* A 64-bit logical operation: SCC = r != 0. The _pp form: both sources and the destination
 * register pairs below 127 (EXEC included; salu_bind_pairs checks), read and written as single
 * 8-byte accesses, which keeps EXEC's store-to-load forwarding (wave_set_sreg64). */
#define OP64(NAME, EXPR)                                                    \
  static int NAME(struct isa_wave *w, const struct isa_inst *in)            \
  {                                                                         \
    uint64_t a = src64(w, in, 0), b = src64(w, in, 1), r = (EXPR);          \
    w->scc = r != 0;                                                        \
    dst64(w, in, r);                                                        \
    return 0;                                                               \
  }                                                                         \
  static int NAME##_pp(struct isa_wave *w, const struct isa_inst *in)       \
  {                                                                         \
    uint64_t a = pair_get(w, in->src[0]), b = pair_get(w, in->src[1]);      \
    uint64_t r = (EXPR);                                                    \
    w->scc = r != 0;                                                        \
    pair_set(w, in->dst, r);                                                \
    return 0;                                                               \
  }
OP64(salu_and_b64, a & b)
OP64(salu_or_b64, a | b)
OP64(salu_xor_b64, a ^ b)
OP64(salu_andn2_b64, a & ~b)
#undef OP64

/* ---- SOP1 ---- */

static int salu_mov_b32(struct isa_wave *w, const struct isa_inst *in)
{
  dst32(w, in, src32(w, in, 0));
  return 0;
}

/* s_mov_b32 to an SGPR from an SGPR (_s) or a constant left in in->literal (_k):
 * salu_specialize's forms. */
static int salu_mov_b32_s(struct isa_wave *w, const struct isa_inst *in)
{
  w->s[in->dst] = w->s[in->src[0]];
  return 0;
}

static int salu_mov_b32_k(struct isa_wave *w, const struct isa_inst *in)
{
  w->s[in->dst] = in->literal;
  return 0;
}

static int salu_mov_b64(struct isa_wave *w, const struct isa_inst *in)
{
  dst64(w, in, src64(w, in, 0));
  return 0;
}

/* |S0| (integer divisions of compiled code start with it); SCC = result != 0. */
static int salu_abs_i32(struct isa_wave *w, const struct isa_inst *in)
{
  int32_t v = (int32_t)src32(w, in, 0);
  uint32_t r = (uint32_t)(v < 0 ? -(int64_t)v : v);
  w->scc = r != 0;
  dst32(w, in, r);
  return 0;
}

/* D = EXEC; EXEC = S0 & EXEC; SCC = EXEC != 0 (the `if` of compiled code). */
static int salu_and_saveexec_b64(struct isa_wave *w, const struct isa_inst *in)
{
  uint64_t a = src64(w, in, 0), exec = wave_exec(w), r = a & exec;
  dst64(w, in, exec);
  wave_set_exec(w, r);
  w->scc = r != 0;
  return 0;
}

/* The same with S0 and D register pairs below 127 (salu_bind_pairs): 8-byte accesses. S0 is
 * read before D is written, as above (they may be the same pair). */
static int salu_and_saveexec_b64_pp(struct isa_wave *w, const struct isa_inst *in)
{
  uint64_t a = pair_get(w, in->src[0]), exec = pair_get(w, OPD_EXEC), r = a & exec;
  pair_set(w, in->dst, exec);
  wave_set_exec(w, r);
  w->scc = r != 0;
  return 0;
}

/* s_and_saveexec_b64 and the s_cbranch_execz after it (an `if` whose lanes may all be off),
 * fused as the compares are. */
static int salu_and_saveexec_b64_execz(struct isa_wave *w, const struct isa_inst *in)
{
  salu_and_saveexec_b64(w, in);
  fused_branch(w, in, !wave_exec(w));
  return 0;
}

static int salu_and_saveexec_b64_pp_execz(struct isa_wave *w, const struct isa_inst *in)
{
  salu_and_saveexec_b64_pp(w, in);
  fused_branch(w, in, !w->scc);   /* SCC is EXEC != 0 */
  return 0;
}

/* The compare handlers in their three operand forms: alone, then fused with s_cbranch_scc0
 * and with s_cbranch_scc1. */
#define F(N)                                                                \
  {N, N##_br0, N##_br1}, {N##_ss, N##_ss_br0, N##_ss_br1}, {N##_sk, N##_sk_br0, N##_sk_br1}
static const struct {
  isa_exec_fn alone, br0, br1;
} cmp_fused[] = {
    F(salu_cmp_eq), F(salu_cmp_lg), F(salu_cmp_gt_i32), F(salu_cmp_ge_i32), F(salu_cmp_lt_i32),
    F(salu_cmp_le_i32), F(salu_cmp_gt_u32), F(salu_cmp_ge_u32), F(salu_cmp_lt_u32),
    F(salu_cmp_le_u32),
};
#undef F

/* A compare or s_and_saveexec_b64 (bound by salu_bind to its handler `fn`) followed by the
 * conditional branch `next` (decoded): the fused handler, with the branch's offset in
 * in->simm16, or NULL when the pair has none. */
isa_exec_fn salu_fuse(struct isa_inst *in, isa_exec_fn fn, const struct isa_inst *next)
{
  if (next->enc != ENC_SOPP || in->size != 4)
    return NULL;
  isa_exec_fn r = NULL;
  if (fn == salu_and_saveexec_b64 && next->op == OP_S_CBRANCH_EXECZ)
    r = salu_and_saveexec_b64_execz;
  if (fn == salu_and_saveexec_b64_pp && next->op == OP_S_CBRANCH_EXECZ)
    r = salu_and_saveexec_b64_pp_execz;
  for (size_t i = 0; i < sizeof(cmp_fused) / sizeof(cmp_fused[0]) && !r; i++)
    if (fn == cmp_fused[i].alone)
      r = next->op == OP_S_CBRANCH_SCC0   ? cmp_fused[i].br0
          : next->op == OP_S_CBRANCH_SCC1 ? cmp_fused[i].br1
                                          : NULL;
  if (r)
    in->simm16 = next->simm16;
  return r;
}

/* The 32-bit SOP2/SOPC handlers in their generic, SS and SK forms (SRC_A_G above). */
#define V(N) {N, N##_ss, N##_sk}
static const struct {
  isa_exec_fn g, ss, sk;
} forms[] = {
    V(salu_cmp_eq), V(salu_cmp_lg), V(salu_cmp_gt_i32), V(salu_cmp_ge_i32), V(salu_cmp_lt_i32),
    V(salu_cmp_le_i32), V(salu_cmp_gt_u32), V(salu_cmp_ge_u32), V(salu_cmp_lt_u32),
    V(salu_cmp_le_u32), V(salu_add_u32), V(salu_addc_u32), V(salu_sub_u32), V(salu_add_i32),
    V(salu_sub_i32), V(salu_mul_i32), V(salu_and_b32), V(salu_or_b32), V(salu_xor_b32),
    V(salu_lshl_b32), V(salu_lshr_b32), V(salu_ashr_i32), V(salu_cselect_b32),
    V(salu_mul_hi_u32), V(salu_min_i32), V(salu_min_u32), V(salu_max_i32), V(salu_max_u32),
    V(salu_andn2_b32), V(salu_lshl1_add_u32), V(salu_lshl2_add_u32),
};
#undef V

/* The 32-bit value of an integer inline constant or literal source code, as src32 reads it;
 * false for any other code. */
static bool const32(const struct isa_inst *in, unsigned code, uint32_t *v)
{
  if (code >= 128 && code <= 192)
    *v = code - 128;
  else if (code >= 193 && code <= 208)
    *v = 192u - code;
  else if (code == OPD_LITERAL)
    *v = in->literal;
  else
    return false;
  return true;
}

/* fn (a generic handler of `forms`) in the form for in's operands: SS for two SGPR sources,
 * SK for an SGPR and a constant (which goes to in->literal, where the SK forms read it: an
 * instruction with an inline constant has no literal of its own), both with an SGPR
 * destination or none written by the opcode (compares). Else fn. */
static isa_exec_fn salu_specialize(struct isa_inst *in, isa_exec_fn fn)
{
  bool dst_ok = in->enc == ENC_SOPC || in->dst < 128;
  uint32_t k;
  if (!dst_ok || in->src[0] >= 128 || in->src_w[0] > 1 || in->src_w[1] > 1)
    return fn;
  for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
    if (forms[i].g != fn)
      continue;
    if (in->src[1] < 128)
      return forms[i].ss;
    if (const32(in, in->src[1], &k)) {
      in->literal = k;
      return forms[i].sk;
    }
    return fn;
  }
  return fn;
}

/* Whether fn is the handler of the instructions that do nothing here (s_nop, s_waitcnt and the
 * other hints salu_bind gives salu_nop): run_wave's blocks leave them out (blocks.c). */
bool salu_is_nop(isa_exec_fn fn)
{
  return fn == salu_nop;
}

/* The handler of a decoded SALU instruction: one of the above, else exec_salu. The 64-bit
 * handlers read their sources as 64 bits, as exec_salu does when the opcode table says so. */
static isa_exec_fn salu_bind_generic(const struct isa_inst *in)
{
  bool wide0 = in->src_w[0] == 2, wide01 = wide0 && in->src_w[1] == 2;
  switch (in->op) {
  case OP_S_NOP: case OP_S_WAITCNT: case OP_S_SETPRIO: case OP_S_ICACHE_INV:
  case OP_S_INCPERFLEVEL: case OP_S_DECPERFLEVEL: case OP_S_TTRACEDATA: case OP_S_SETKILL:
  case OP_S_WAKEUP:
    return salu_nop;
  case OP_S_ENDPGM: return salu_endpgm;
  case OP_S_BARRIER: return salu_barrier;
  case OP_S_BRANCH: return salu_branch;
  case OP_S_CBRANCH_SCC0: return salu_cbranch_scc0;
  case OP_S_CBRANCH_SCC1: return salu_cbranch_scc1;
  case OP_S_CBRANCH_VCCZ: return salu_cbranch_vccz;
  case OP_S_CBRANCH_VCCNZ: return salu_cbranch_vccnz;
  case OP_S_CBRANCH_EXECZ: return salu_cbranch_execz;
  case OP_S_CBRANCH_EXECNZ: return salu_cbranch_execnz;
  case OP_S_CMP_EQ_I32: case OP_S_CMP_EQ_U32: return salu_cmp_eq;
  case OP_S_CMP_LG_I32: case OP_S_CMP_LG_U32: return salu_cmp_lg;
  case OP_S_CMP_GT_I32: return salu_cmp_gt_i32;
  case OP_S_CMP_GE_I32: return salu_cmp_ge_i32;
  case OP_S_CMP_LT_I32: return salu_cmp_lt_i32;
  case OP_S_CMP_LE_I32: return salu_cmp_le_i32;
  case OP_S_CMP_GT_U32: return salu_cmp_gt_u32;
  case OP_S_CMP_GE_U32: return salu_cmp_ge_u32;
  case OP_S_CMP_LT_U32: return salu_cmp_lt_u32;
  case OP_S_CMP_LE_U32: return salu_cmp_le_u32;
  case OP_S_ADD_U32: return salu_add_u32;
  case OP_S_ADDC_U32: return salu_addc_u32;
  case OP_S_SUB_U32: return salu_sub_u32;
  case OP_S_ADD_I32: return salu_add_i32;
  case OP_S_SUB_I32: return salu_sub_i32;
  case OP_S_MUL_I32: return salu_mul_i32;
  case OP_S_AND_B32: return salu_and_b32;
  case OP_S_OR_B32: return salu_or_b32;
  case OP_S_XOR_B32: return salu_xor_b32;
  case OP_S_LSHL_B32: return salu_lshl_b32;
  case OP_S_LSHR_B32: return salu_lshr_b32;
  case OP_S_ASHR_I32: return salu_ashr_i32;
  case OP_S_CSELECT_B32: return salu_cselect_b32;
  case OP_S_MUL_HI_U32: return salu_mul_hi_u32;
  case OP_S_MIN_I32: return salu_min_i32;
  case OP_S_MIN_U32: return salu_min_u32;
  case OP_S_MAX_I32: return salu_max_i32;
  case OP_S_MAX_U32: return salu_max_u32;
  case OP_S_ANDN2_B32: return salu_andn2_b32;
  case OP_S_LSHL1_ADD_U32: return salu_lshl1_add_u32;
  case OP_S_LSHL2_ADD_U32: return salu_lshl2_add_u32;
  case OP_S_ABS_I32: return salu_abs_i32;
  case OP_S_AND_B64: return wide01 ? salu_and_b64 : exec_salu;
  case OP_S_OR_B64: return wide01 ? salu_or_b64 : exec_salu;
  case OP_S_XOR_B64: return wide01 ? salu_xor_b64 : exec_salu;
  case OP_S_ANDN2_B64: return wide01 ? salu_andn2_b64 : exec_salu;
  case OP_S_MOV_B32: return salu_mov_b32;
  case OP_S_MOV_B64: return wide0 ? salu_mov_b64 : exec_salu;
  case OP_S_AND_SAVEEXEC_B64: return wide0 ? salu_and_saveexec_b64 : exec_salu;
  default:
    return exec_salu;
  }
}

/* The 64-bit handlers' _pp forms and s_mov_b32's _s/_k forms, when in's operands allow them:
 * SGPR pairs below 127 for every 64-bit operand (a pair at 127 straddles the end of the
 * operand space, which src64/dst64 handle); an SGPR destination for s_mov_b32. Else fn. */
static isa_exec_fn salu_bind_pairs(struct isa_inst *in, isa_exec_fn fn)
{
  static const struct {
    isa_exec_fn g, pp;
    bool two;   /* two 64-bit sources (else only src0) */
  } pairs[] = {
      {salu_and_b64, salu_and_b64_pp, true},     {salu_or_b64, salu_or_b64_pp, true},
      {salu_xor_b64, salu_xor_b64_pp, true},     {salu_andn2_b64, salu_andn2_b64_pp, true},
      {salu_and_saveexec_b64, salu_and_saveexec_b64_pp, false},
  };
  if (fn == salu_mov_b32) {
    uint32_t k;
    if (in->dst >= 128 || in->src_w[0] > 1)
      return fn;
    if (in->src[0] < 128)
      return salu_mov_b32_s;
    if (!const32(in, in->src[0], &k))
      return fn;
    in->literal = k;
    return salu_mov_b32_k;
  }
  if (in->dst >= 127 || in->src[0] >= 127)
    return fn;
  for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++)
    if (pairs[i].g == fn)
      return !pairs[i].two || in->src[1] < 127 ? pairs[i].pp : fn;
  return fn;
}

/* The handler of a decoded SALU instruction, in the form for its operands. */
isa_exec_fn salu_bind(struct isa_inst *in)
{
  return salu_bind_pairs(in, salu_specialize(in, salu_bind_generic(in)));
}
