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

/* A compare and the s_cbranch_scc0/scc1 right after it (the end of nearly every compiled loop
 * and `if`) run as one handler: salu_fuse binds it when it decodes the compare and finds the
 * branch in the next word; in->simm16 then holds the branch's offset. The branch counts as an
 * executed instruction (w->insts; run_wave adds its own count to that) and is relative to the
 * instruction after it, 4 bytes past w->pc. A jump to the branch itself decodes it alone. */
#define CMP32(NAME, EXPR)                                                   \
  static inline uint32_t NAME##_scc(struct isa_wave *w, const struct isa_inst *in) \
  {                                                                         \
    uint32_t a = src32(w, in, 0), b = src32(w, in, 1);                      \
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

/* The fused branch: one more instruction executed, taken when `taken`. */
static inline void fused_branch(struct isa_wave *w, const struct isa_inst *in, bool taken)
{
  w->insts++;
  w->pc += 4;
  if (taken)
    w->pc += (uint64_t)((int64_t)in->simm16 * 4);
}

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

/* ---- SOP2 ---- */

/* A 32-bit operation: r from a and b (and SCC), which may also set SCC; SETS_SCC: SCC = r != 0
 * afterwards (the logical operations and shifts). */
#define OP32(NAME, SETS_SCC, BODY)                                          \
  static int NAME(struct isa_wave *w, const struct isa_inst *in)            \
  {                                                                         \
    uint32_t a = src32(w, in, 0), b = src32(w, in, 1), r;                   \
    int32_t ai = (int32_t)a, bi = (int32_t)b;                               \
    (void)ai;                                                               \
    (void)bi;                                                               \
    BODY;                                                                   \
    if (SETS_SCC)                                                           \
      w->scc = r != 0;                                                      \
    dst32(w, in, r);                                                        \
    return 0;                                                               \
  }
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
#undef OP32

/* A 64-bit logical operation: SCC = r != 0. */
#define OP64(NAME, EXPR)                                                    \
  static int NAME(struct isa_wave *w, const struct isa_inst *in)            \
  {                                                                         \
    uint64_t a = src64(w, in, 0), b = src64(w, in, 1), r = (EXPR);          \
    w->scc = r != 0;                                                        \
    dst64(w, in, r);                                                        \
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

static int salu_mov_b64(struct isa_wave *w, const struct isa_inst *in)
{
  dst64(w, in, src64(w, in, 0));
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

/* s_and_saveexec_b64 and the s_cbranch_execz after it (an `if` whose lanes may all be off),
 * fused as the compares are. */
static int salu_and_saveexec_b64_execz(struct isa_wave *w, const struct isa_inst *in)
{
  salu_and_saveexec_b64(w, in);
  fused_branch(w, in, !wave_exec(w));
  return 0;
}

/* A compare or s_and_saveexec_b64 (bound by salu_bind to its handler `fn`) followed by the
 * conditional branch `next` (decoded): the fused handler, with the branch's offset in
 * in->simm16, or NULL when the pair has none. */
isa_exec_fn salu_fuse(struct isa_inst *in, isa_exec_fn fn, const struct isa_inst *next)
{
  static const struct {
    isa_exec_fn alone, br0, br1;
  } cmp[] = {
#define F(N) {N, N##_br0, N##_br1}
      F(salu_cmp_eq), F(salu_cmp_lg), F(salu_cmp_gt_i32), F(salu_cmp_ge_i32), F(salu_cmp_lt_i32),
      F(salu_cmp_le_i32), F(salu_cmp_gt_u32), F(salu_cmp_ge_u32), F(salu_cmp_lt_u32),
      F(salu_cmp_le_u32),
#undef F
  };
  if (next->enc != ENC_SOPP || in->size != 4)
    return NULL;
  isa_exec_fn r = NULL;
  if (fn == salu_and_saveexec_b64 && next->op == OP_S_CBRANCH_EXECZ)
    r = salu_and_saveexec_b64_execz;
  for (size_t i = 0; i < sizeof(cmp) / sizeof(cmp[0]) && !r; i++)
    if (fn == cmp[i].alone)
      r = next->op == OP_S_CBRANCH_SCC0 ? cmp[i].br0 : next->op == OP_S_CBRANCH_SCC1 ? cmp[i].br1 : NULL;
  if (r)
    in->simm16 = next->simm16;
  return r;
}

/* Whether fn is the handler of the instructions that do nothing here (s_nop, s_waitcnt and the
 * other hints salu_bind gives salu_nop): run_wave's blocks leave them out (dispatch.c). */
bool salu_is_nop(isa_exec_fn fn)
{
  return fn == salu_nop;
}

/* The handler of a decoded SALU instruction: one of the above, else exec_salu. The 64-bit
 * handlers read their sources as 64 bits, as exec_salu does when the opcode table says so. */
isa_exec_fn salu_bind(const struct isa_inst *in)
{
  bool wide0 = in->src_w[0] == 2, wide01 = wide0 && in->src_w[1] == 2;
  switch (in->op) {
  case OP_S_NOP: case OP_S_WAITCNT: case OP_S_SETPRIO: case OP_S_ICACHE_INV:
  case OP_S_INCPERFLEVEL: case OP_S_DECPERFLEVEL: case OP_S_TTRACEDATA: case OP_S_SETKILL:
  case OP_S_WAKEUP:
    return salu_nop;
  case OP_S_ENDPGM: return salu_endpgm;
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
