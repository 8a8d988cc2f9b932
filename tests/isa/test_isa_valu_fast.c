/* The VALU direct path (sim/isa/exec_valu_fast.c) against the general path (exec_valu.c).
 *
 * Every VOP1/VOP2/VOPC/VOP3/VOP3P row of the opcode table is tried with VGPR, SGPR, inline-constant and
 * literal sources, random and edge-value register contents (denormals, NaNs, infinities, signed
 * zeros, carries), full and partial EXEC, and MODE with f32 denormals kept and flushed. Whenever
 * the direct path takes an instruction, a copy of the wave runs it through the general path and
 * the two register files (VGPRs, SGPRs, VCC, EXEC) must be identical, bit for bit. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "isa/exec_valu_fast.h"
#include "isa/isa_optab.h"

static const uint32_t edge[] = {
    0x00000000, 0x80000000, 0x00000001, 0x807fffff, 0x00800000, 0x3f800000, 0xbf800000,
    0x7f800000, 0xff800000, 0x7fc00000, 0x7fa00000, 0xffffffff, 0x7fffffff, 0x00ffffff,
    0x00800001, 0xff000000, 0x4f800000, 0xcf000000, 0x0000001f, 0x00000020, 0x3effffff};

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint32_t next_u32(void)
{
  return (uint32_t)(harness_xorshift(&rng) >> 16);
}

static uint32_t value(void)
{
  uint32_t r = next_u32();
  return (r & 3) ? edge[r % (sizeof(edge) / sizeof(edge[0]))] ^ (r & 0x100 ? 0 : next_u32() & 0xff)
                 : next_u32();
}

/* Which NaN an f32 operation returns when both inputs are NaNs depends on the host compiler's
 * operand order (it treats a + b as commutative), in either path: any NaN matches any NaN. */
static bool is_nan(uint32_t v)
{
  return (v & 0x7f800000u) == 0x7f800000u && (v & 0x007fffffu);
}

/* The same for f64 results (the register pair lo, hi). */
static bool is_nan64(uint32_t lo, uint32_t hi)
{
  return (hi & 0x7ff00000u) == 0x7ff00000u && ((hi & 0x000fffffu) || lo);
}

struct wave_copy {
  struct isa_wave w;
  uint32_t (*v)[WAVE_SIZE];
};

static void wave_init(struct wave_copy *c)
{
  memset(&c->w, 0, sizeof(c->w));
  c->v = calloc(NUM_VREGS, sizeof(*c->v));
  cr_assert_not_null(c->v);
  c->w.v = c->v;
}

static void wave_fill(struct wave_copy *c, uint64_t exec, uint32_t mode)
{
  for (unsigned r = 0; r < 16; r++)
    for (unsigned l = 0; l < WAVE_SIZE; l++)
      c->v[r][l] = value();
  /* equal sources in a quarter of the lanes (v1..v5 hold one value), so that the compares'
   * equal case is taken for 32-bit registers and for the overlapping 64-bit pairs too */
  for (unsigned l = 0; l < WAVE_SIZE; l++)
    if ((next_u32() & 3) == 0)
      for (unsigned r = 2; r <= 5; r++)
        c->v[r][l] = c->v[1][l];
  for (unsigned s = 0; s < 128; s++)
    c->w.s[s] = value();
  c->w.s[OPD_VCC] = next_u32();
  c->w.s[OPD_VCC + 1] = next_u32();
  wave_set_exec(&c->w, exec);
  c->w.mode = mode;
}

static void wave_clone(struct wave_copy *dst, const struct wave_copy *src)
{
  uint32_t (*v)[WAVE_SIZE] = dst->v;
  memcpy(v, src->v, NUM_VREGS * sizeof(*v));
  dst->w = src->w;
  dst->w.v = v;
}

/* An instruction of row `row` with the given src0 code (src1 and src2 are VGPRs). */
static struct isa_inst make_inst(const struct isa_opinfo *row, unsigned src0, uint32_t literal)
{
  struct isa_inst in;
  memset(&in, 0, sizeof(in));
  in.op = row->op;
  in.enc = row->enc;
  in.size = row->enc == ENC_VOP3 ? 8 : 4;
  in.dst_w = row->dst_w;
  memcpy(in.src_w, row->src_w, sizeof(in.src_w));
  in.dst = OPD_VGPR + 10;
  in.sdst = row->vop3b ? 20 : OPD_NONE;
  in.src[0] = src0;
  in.src[1] = OPD_VGPR + 2;
  in.src[2] = row->enc == ENC_VOP3 ? (row->src_w[2] > 1 ? 40 : OPD_VGPR + 3) : OPD_NONE;
  if (row->enc == ENC_VOP3P) {
    in.src[2] = row->src_w[2] ? OPD_VGPR + 5 : OPD_NONE;
    in.opsel_hi = 7; /* the assembler's default op_sel_hi:[1,1,1] */
  }
  if (row->enc == ENC_VOP1)
    in.src[1] = OPD_NONE;
  if (row->enc == ENC_VOP3 && row->src_w[1] > 1)
    in.src[1] = OPD_VGPR + 4;
  in.literal = literal;
  in.dpp_kind = DPP_NONE;
  if (in.op == OP_V_FMAMK_F32 || in.op == OP_V_FMAAK_F32)
    in.literal = value();
  in.nsrc = row->enc == ENC_VOP1 ? 1 : row->enc == ENC_VOP3 ? 3 : 2;
  /* as the decoder marks them: the last type suffix is _f64 (a literal is the high half) */
  const char *last = strrchr(isa_op_name(in.op), '_');
  in.fp64 = last && !strcmp(last, "_f64");
  /* a compare writes a lane mask: VCC (VOPC) or the SGPR pair dst (VOP3) */
  if (!strncmp(isa_op_name(in.op), "v_cmp", 5))
    in.dst = row->enc == ENC_VOP3 ? 30 : OPD_VCC;
  return in;
}

/* Registers v0..v15 and the SGPRs of x (a direct path) and y (the general path) agree. */
static void same_waves(const struct wave_copy *x, const struct wave_copy *y, const struct isa_inst *in,
                       uint64_t exec, uint32_t mode)
{
  bool fp = strstr(isa_op_name(in->op), "_f32") != NULL;
  for (unsigned r = 0; r < 16; r++)
    for (unsigned l = 0; l < WAVE_SIZE; l++)
      cr_assert(x->v[r][l] == y->v[r][l] || (fp && is_nan(x->v[r][l]) && is_nan(y->v[r][l])) ||
                    (in->fp64 && (r == 10 || r == 11) && is_nan64(x->v[10][l], x->v[11][l]) &&
                     is_nan64(y->v[10][l], y->v[11][l])),
                "%s enc %u src0 %u exec %016llx mode %x: v%u lane %u: fast %08x general %08x",
                isa_op_name(in->op), in->enc, in->src[0], (unsigned long long)exec, mode, r, l,
                x->v[r][l], y->v[r][l]);
  cr_assert_eq(memcmp(x->w.s, y->w.s, sizeof(x->w.s)), 0, "%s enc %u: SGPRs differ",
               isa_op_name(in->op), in->enc);
}

/* b := c, then `in` through the general path on b and through the executor valu_bind gives
 * on c: both succeed and leave the same wave (EXEC `exec`, MODE `mode`). */
static void bound_matches_general(struct wave_copy *b, struct wave_copy *c,
                                  const struct isa_inst *in, uint64_t exec, uint32_t mode)
{
  wave_clone(b, c);
  cr_assert_eq(exec_valu_general(&b->w, in), 0, "%s: general path failed", isa_op_name(in->op));
  struct isa_inst bound = *in;
  valu_exec_fn fn = valu_bind(&bound);
  cr_assert_eq(fn(&c->w, &bound), 0, "%s: bound executor failed", isa_op_name(in->op));
  same_waves(c, b, in, exec, mode);
}

Test(isa_valu_fast, same_results_as_the_general_path)
{
  static const unsigned src0_codes[] = {OPD_VGPR + 1, 4, 133, 196, 240, 242, OPD_LITERAL, OPD_VCC};
  static const uint64_t execs[] = {~0ull, 0x00000000ffffffffull, 0x8000000000000001ull, 0};
  static const uint32_t modes[] = {0xf0, 0x00};
  struct wave_copy a, b, c;
  unsigned taken = 0;
  bool op_taken[ISA_OP_COUNT] = {false};
  wave_init(&a);
  wave_init(&b);
  wave_init(&c);
  for (unsigned i = 0; i < isa_optab_count; i++) {
    const struct isa_opinfo *row = &isa_optab[i];
    if (row->enc != ENC_VOP1 && row->enc != ENC_VOP2 && row->enc != ENC_VOP3 &&
        row->enc != ENC_VOPC && row->enc != ENC_VOP3P)
      continue;
    for (unsigned s = 0; s < sizeof(src0_codes) / sizeof(src0_codes[0]); s++)
      for (unsigned e = 0; e < sizeof(execs) / sizeof(execs[0]); e++)
        for (unsigned m = 0; m < 2; m++)
          for (int rep = 0; rep < 3; rep++) {
            uint64_t exec = rep == 2 ? ((uint64_t)next_u32() << 32 | next_u32()) : execs[e];
            struct isa_inst in = make_inst(row, src0_codes[s], value());
            if (rep == 2 && in.op == OP_V_LSHL_ADD_U64)
              in.src[1] = (uint16_t)(128 + next_u32() % 8);   /* a constant shift, as compilers emit */
            if (rep == 1 && in.enc == ENC_VOP3) {   /* source modifiers */
              in.abs = (uint8_t)(next_u32() & 7);
              in.neg = (uint8_t)(next_u32() & 7);
            }
            wave_fill(&a, exec, modes[m]);
            wave_clone(&b, &a);
            wave_clone(&c, &a);
            if (exec_valu_fast(&a.w, &in))
              continue;
            int rc = exec_valu_general(&b.w, &in);
            cr_assert_eq(rc, 0, "%s: general path failed", isa_op_name(in.op));
            /* the executor dispatch.c binds at decode takes the same path */
            struct isa_inst bound = in;
            valu_exec_fn fn = valu_bind(&bound);
            cr_assert_eq(fn(&c.w, &bound), 0, "%s: bound executor failed", isa_op_name(in.op));
            same_waves(&a, &b, &in, exec, modes[m]);
            same_waves(&c, &b, &in, exec, modes[m]);
            taken++;
            op_taken[in.op] = true;
          }
  }
  unsigned ops = 0;
  for (unsigned op = 0; op < ISA_OP_COUNT; op++)
    ops += op_taken[op];
  /* the direct path covers the common 32-bit integer, f32, carry and select operations */
  cr_assert_geq(ops, 100, "only %u opcodes took the direct path", ops);
  cr_assert_gt(taken, 1000);
  static const unsigned must[] = {OP_V_PK_FMA_F32, OP_V_PK_MUL_F32, OP_V_CMP_GT_I32, OP_V_CMPX_LT_F32,
                                  OP_V_MAD_U64_U32, OP_V_ADDC_CO_U32, OP_V_CNDMASK_B32,
                                  OP_V_LSHLREV_B64, OP_V_FMAC_F32, OP_V_BFI_B32,
                                  OP_V_FMAC_F64, OP_V_MUL_F64, OP_V_FMA_F64, OP_V_LSHL_ADD_U64,
                                  OP_V_CVT_F64_F32, OP_V_CVT_F32_F64};
  for (unsigned i = 0; i < sizeof(must) / sizeof(must[0]); i++)
    cr_expect(op_taken[must[i]], "%s did not take the direct path", isa_op_name(must[i]));
  free(a.v);
  free(b.v);
  free(c.v);
}

Test(isa_valu_fast, declines_output_modifiers_and_flushed_f32)
{
  const struct isa_opinfo *row = NULL;
  for (unsigned i = 0; i < isa_optab_count && !row; i++)
    if (isa_optab[i].op == OP_V_ADD_F32 && isa_optab[i].enc == ENC_VOP3)
      row = &isa_optab[i];
  cr_assert_not_null(row);
  struct wave_copy a;
  wave_init(&a);
  wave_fill(&a, ~0ull, 0xf0);
  struct isa_inst in = make_inst(row, OPD_VGPR + 1, 0);
  cr_expect_eq(exec_valu_fast(&a.w, &in), 0, "plain v_add_f32_e64 takes the direct path");
  in.neg = 1;
  cr_expect_eq(exec_valu_fast(&a.w, &in), 0, "a negated f32 source takes the direct path");
  in.neg = 0;
  in.opsel = 1;
  cr_expect_eq(exec_valu_fast(&a.w, &in), 1, "op_sel is the general path's");
  in.opsel = 0;
  in.clamp = 1;
  cr_expect_eq(exec_valu_fast(&a.w, &in), 1, "clamp is the general path's");
  in.clamp = 0;
  a.w.mode = 0;
  cr_expect_eq(exec_valu_fast(&a.w, &in), 1, "flushed f32 denormals are the general path's");
  free(a.v);
}

/* The row of `op` in encoding `enc`. */
static const struct isa_opinfo *row_of(unsigned op, unsigned enc)
{
  for (unsigned i = 0; i < isa_optab_count; i++)
    if (isa_optab[i].op == op && isa_optab[i].enc == enc)
      return &isa_optab[i];
  return NULL;
}

/* The address arithmetic clang emits before global accesses (v_lshl_add_u64 vD, sBase, 0, vOff;
 * v_lshlrev_b64 vD, k, vX), which the bound executors run with handlers of their own: the same
 * registers as the general path when the destination pair is the source pair, overlaps it by
 * one register or is apart, with full and partial EXEC. */
Test(isa_valu_fast, address_arithmetic_in_place_matches_the_general_path)
{
  static const unsigned pairs[] = {OPD_VGPR + 10, OPD_VGPR + 9, OPD_VGPR + 11, OPD_VGPR + 2};
  static const unsigned bases[] = {4, 133, 196, OPD_LITERAL, OPD_VCC};
  static const uint64_t execs[] = {~0ull, 0x00000000ffffffffull};
  const struct isa_opinfo *add = row_of(OP_V_LSHL_ADD_U64, ENC_VOP3);
  const struct isa_opinfo *shl = row_of(OP_V_LSHLREV_B64, ENC_VOP3);
  cr_assert(add && shl);
  struct wave_copy b, c;
  wave_init(&b);
  wave_init(&c);
  for (unsigned p = 0; p < sizeof(pairs) / sizeof(pairs[0]); p++)
    for (unsigned e = 0; e < sizeof(execs) / sizeof(execs[0]); e++)
      for (unsigned k = 0; k < 31; k++) {
        struct isa_inst in;
        if (k < sizeof(bases) / sizeof(bases[0])) {
          in = make_inst(add, bases[k], value());
          in.src[1] = 128;   /* inline constant 0 */
          in.src[2] = (uint16_t)pairs[p];
        } else {
          in = make_inst(shl, 129 + k, 0);   /* shifts 1..31 */
          in.src[1] = (uint16_t)pairs[p];
        }
        wave_fill(&c, execs[e], 0xf0);
        /* carries out of the low dword in some lanes */
        for (unsigned l = 0; l < WAVE_SIZE; l += 3)
          c.v[pairs[p] - OPD_VGPR][l] = 0xfffffff0u + l % 32;
        bound_matches_general(&b, &c, &in, execs[e], 0xf0);
      }
  free(b.v);
  free(c.v);
}

/* v_pk_add_f32 / v_pk_mul_f32 with every lane active write their destination pair directly:
 * the same registers as the general path when that pair is, or overlaps, a source pair. */
Test(isa_valu_fast, packed_f32_in_place_matches_the_general_path)
{
  static const unsigned ops[] = {OP_V_PK_ADD_F32, OP_V_PK_MUL_F32};
  static const unsigned dsts[] = {OPD_VGPR + 10, OPD_VGPR + 1, OPD_VGPR + 2, OPD_VGPR + 3,
                                  OPD_VGPR + 0};
  struct wave_copy b, c;
  wave_init(&b);
  wave_init(&c);
  for (unsigned o = 0; o < 2; o++)
    for (unsigned d = 0; d < sizeof(dsts) / sizeof(dsts[0]); d++)
      for (unsigned e = 0; e < 2; e++) {
        const struct isa_opinfo *row = row_of(ops[o], ENC_VOP3P);
        cr_assert_not_null(row);
        struct isa_inst in = make_inst(row, OPD_VGPR + 1, 0);   /* sources v[1:2], v[2:3] */
        in.dst = (uint16_t)dsts[d];
        uint64_t exec = e ? 0x0f0f0f0f0f0f0f0full : ~0ull;
        wave_fill(&c, exec, 0xf0);
        bound_matches_general(&b, &c, &in, exec, 0xf0);
      }
  free(b.v);
  free(c.v);
}

/* v_pk_mov_b32 (a bound handler of its own): op_sel picks the half of src0 for the low result
 * and the half of src1 for the high one. Against the general path for every op_sel, VGPR
 * pairs (the destination apart from, equal to or overlapping a source pair), SGPR pairs,
 * integer and float inline constants and literals, with full, partial and empty EXEC. */
Test(isa_valu_fast, pk_mov_b32_matches_the_general_path)
{
  static const unsigned srcs[] = {OPD_VGPR + 1, OPD_VGPR + 10, OPD_VGPR + 11, OPD_VGPR + 9,
                                  4, OPD_VCC, 129, 200, 242, OPD_LITERAL};
  static const uint64_t execs[] = {~0ull, 0x0123456789abcdefull, 0};
  const struct isa_opinfo *row = row_of(OP_V_PK_MOV_B32, ENC_VOP3P);
  cr_assert_not_null(row);
  struct wave_copy b, c;
  wave_init(&b);
  wave_init(&c);
  unsigned n = sizeof(srcs) / sizeof(srcs[0]);
  for (unsigned sel = 0; sel < 4; sel++)
    for (unsigned i = 0; i < n; i++)
      for (unsigned j = 0; j < n; j++)
        for (unsigned e = 0; e < sizeof(execs) / sizeof(execs[0]); e++) {
          struct isa_inst in = make_inst(row, srcs[i], value());
          in.src[1] = (uint16_t)srcs[j];
          in.src[2] = OPD_NONE;
          in.opsel = (uint8_t)sel;
          in.opsel_hi = (uint8_t)(next_u32() & 3);   /* not used by v_pk_mov_b32 */
          wave_fill(&c, execs[e], 0xf0);
          bound_matches_general(&b, &c, &in, execs[e], 0xf0);
        }
  /* values: op_sel 3 takes the high register of each pair, v2 (of v[1:2]) and v4 (of v[3:4]) */
  struct isa_inst in = make_inst(row, OPD_VGPR + 1, 0);
  in.src[1] = OPD_VGPR + 3;
  in.src[2] = OPD_NONE;
  in.opsel = 3;
  wave_fill(&c, ~0ull, 0xf0);
  valu_exec_fn fn = valu_bind(&in);
  cr_assert_eq(fn(&c.w, &in), 0);
  for (unsigned l = 0; l < WAVE_SIZE; l++)
    cr_assert(c.v[10][l] == c.v[2][l] && c.v[11][l] == c.v[4][l], "lane %u", l);
  free(b.v);
  free(c.v);
}

/* The fma forms round once: (1 + 2^-23) * (1 - 2^-23) - 1 is -2^-46 exactly, where a
 * multiply rounded before the add gives 0. Every bound f32 fma executor, full and partial
 * EXEC, against that value (random registers cannot tell one rounding from two). */
Test(isa_valu_fast, fma_forms_round_once)
{
  const uint32_t a = 0x3f800001u, b = 0x3f7ffffeu, c = 0xbf800000u, r = 0xa8800000u;
  static const unsigned ops[] = {OP_V_FMA_F32, OP_V_FMAC_F32, OP_V_FMAMK_F32, OP_V_FMAAK_F32,
                                 OP_V_PK_FMA_F32};
  static const unsigned encs[] = {ENC_VOP3, ENC_VOP2, ENC_VOP2, ENC_VOP2, ENC_VOP3P};
  struct wave_copy w;
  wave_init(&w);
  for (unsigned o = 0; o < sizeof(ops) / sizeof(ops[0]); o++)
    for (unsigned e = 0; e < 2; e++) {
      const struct isa_opinfo *row = row_of(ops[o], encs[o]);
      cr_assert_not_null(row, "%s", isa_op_name(ops[o]));
      uint64_t exec = e ? 0x5555555555555555ull : ~0ull;
      struct isa_inst in = make_inst(row, OPD_VGPR + 1, 0);
      wave_fill(&w, exec, 0xf0);
      uint32_t old[WAVE_SIZE], old_hi[WAVE_SIZE];
      memcpy(old, w.v[10], sizeof(old));
      memcpy(old_hi, w.v[11], sizeof(old_hi));
      /* sources by operation: a in src0, b in src1 (or the literal), c in src2, the
       * accumulator v10 (fmac), src1 (fmamk) or the literal (fmaak); pairs for v_pk_fma */
      for (unsigned l = 0; l < WAVE_SIZE; l++) {
        w.v[1][l] = w.v[2][l] = a;
        w.v[3][l] = w.v[4][l] = b;
        w.v[5][l] = w.v[6][l] = c;
      }
      in.src[1] = OPD_VGPR + 3;
      if (ops[o] == OP_V_FMA_F32 || ops[o] == OP_V_PK_FMA_F32)
        in.src[2] = OPD_VGPR + 5;
      if (ops[o] == OP_V_FMAC_F32)
        for (unsigned l = 0; l < WAVE_SIZE; l++)
          old[l] = w.v[10][l] = c;
      if (ops[o] == OP_V_FMAMK_F32) {   /* v10 = v1 * K + v3: K = b, src1 = c */
        in.literal = b;
        in.src[1] = OPD_VGPR + 5;
      }
      if (ops[o] == OP_V_FMAAK_F32)     /* v10 = v1 * v3 + K */
        in.literal = c;
      valu_exec_fn fn = valu_bind(&in);
      cr_assert_eq(fn(&w.w, &in), 0);
      for (unsigned l = 0; l < WAVE_SIZE; l++) {
        uint32_t want = exec >> l & 1 ? r : old[l];
        cr_assert_eq(w.v[10][l], want, "%s exec %016llx lane %u: %08x", isa_op_name(ops[o]),
                     (unsigned long long)exec, l, w.v[10][l]);
        if (ops[o] == OP_V_PK_FMA_F32)
          cr_assert_eq(w.v[11][l], exec >> l & 1 ? r : old_hi[l], "high half, lane %u", l);
      }
    }
  free(w.v);
}

/* v_mad_u64_u32 / v_mad_i64_i32 with the addend in a VGPR pair (the destination apart from it,
 * the same pair, or overlapping it by one register), src0 a VGPR, an SGPR or a constant, full
 * and partial EXEC: the 64-bit results and the overflow mask in sdst as the general path's. */
Test(isa_valu_fast, mad64_with_a_register_addend_matches_the_general_path)
{
  static const unsigned ops[] = {OP_V_MAD_U64_U32, OP_V_MAD_I64_I32};
  static const unsigned addends[] = {OPD_VGPR + 4, OPD_VGPR + 10, OPD_VGPR + 11, OPD_VGPR + 9};
  static const unsigned src0s[] = {OPD_VGPR + 1, 4, 200, OPD_LITERAL};
  static const uint64_t execs[] = {~0ull, 0xf0f0f0f00f0f0f0full};
  struct wave_copy b, c;
  wave_init(&b);
  wave_init(&c);
  for (unsigned o = 0; o < 2; o++)
    for (unsigned a = 0; a < sizeof(addends) / sizeof(addends[0]); a++)
      for (unsigned s = 0; s < sizeof(src0s) / sizeof(src0s[0]); s++)
        for (unsigned e = 0; e < 2; e++)
          for (int rep = 0; rep < 4; rep++) {
            const struct isa_opinfo *row = row_of(ops[o], ENC_VOP3);
            cr_assert_not_null(row);
            struct isa_inst in = make_inst(row, src0s[s], value());
            in.src[2] = (uint16_t)addends[a];
            wave_fill(&c, execs[e], 0xf0);
            /* large products and addends, so that some lanes overflow */
            for (unsigned l = 0; l < WAVE_SIZE; l += 2) {
              c.v[1][l] = c.v[2][l] = 0xffffffffu - l;
              c.v[addends[a] - OPD_VGPR + 1][l] = 0xfffffff0u | (l & 15);
            }
            bound_matches_general(&b, &c, &in, execs[e], 0xf0);
          }
  free(b.v);
  free(c.v);
}

/* EXEC masks with 1, 7, 16 and 17 active lanes (16 is the most the few-lane path takes; 17
 * goes the 64-lane way), scattered over both halves of the wave. */
static const uint64_t few_execs[] = {0x0000000000000001ull, 0x8000000000000000ull,
                                     0x0000100000000000ull, 0x0100010001000101ull | 1ull << 33 | 1ull << 63,
                                     0x00000000ffff0000ull, 0x5555000000005555ull,
                                     0x0001ffff00000000ull, 0x8000000080008421ull | 0x7ffull << 40,
                                     0};

static unsigned lanes_in(uint64_t m)
{
  unsigned n = 0;
  for (; m; m &= m - 1)
    n++;
  return n;
}

/* Every VOP1/VOP2/VOPC/VOP3 row the direct path takes, with 1, 7, 16 and 17 active lanes:
 * VGPR, SGPR, inline-constant and literal sources, abs/neg on the VOP3 forms, f32 denormals
 * kept and flushed. exec_valu_fast and the bound executor against the general path. */
Test(isa_valu_fast, few_active_lanes_match_the_general_path)
{
  static const unsigned src0_codes[] = {OPD_VGPR + 1, 4, 133, 196, 242, OPD_LITERAL};
  static const uint32_t modes[] = {0xf0, 0x00};
  struct wave_copy a, b, c;
  wave_init(&a);
  wave_init(&b);
  wave_init(&c);
  unsigned taken = 0, counts = 0;
  for (unsigned e = 0; e < sizeof(few_execs) / sizeof(few_execs[0]); e++)
    counts |= 1u << (lanes_in(few_execs[e]) & 31);
  cr_assert_eq(counts & (1u << 1 | 1u << 7 | 1u << 16 | 1u << 17), 1u << 1 | 1u << 7 | 1u << 16 | 1u << 17);
  for (unsigned i = 0; i < isa_optab_count; i++) {
    const struct isa_opinfo *row = &isa_optab[i];
    if (row->enc != ENC_VOP1 && row->enc != ENC_VOP2 && row->enc != ENC_VOP3 &&
        row->enc != ENC_VOPC)
      continue;
    for (unsigned s = 0; s < sizeof(src0_codes) / sizeof(src0_codes[0]); s++)
      for (unsigned e = 0; e < sizeof(few_execs) / sizeof(few_execs[0]); e++)
        for (unsigned m = 0; m < 2; m++) {
          uint64_t exec = few_execs[e];
          struct isa_inst in = make_inst(row, src0_codes[s], value());
          if (in.enc == ENC_VOP3 && (e & 1)) {
            in.abs = (uint8_t)(next_u32() & 7);
            in.neg = (uint8_t)(next_u32() & 7);
          }
          if (in.op == OP_V_FMAC_F32 && in.enc == ENC_VOP3)
            in.abs = in.neg = 0;   /* the accumulator takes no modifier */
          wave_fill(&a, exec, modes[m]);
          wave_clone(&c, &a);
          if (exec_valu_fast(&a.w, &in))
            continue;
          wave_clone(&b, &c);
          cr_assert_eq(exec_valu_general(&b.w, &in), 0, "%s: general path failed",
                       isa_op_name(in.op));
          same_waves(&a, &b, &in, exec, modes[m]);
          bound_matches_general(&b, &c, &in, exec, modes[m]);
          taken++;
        }
  }
  cr_assert_gt(taken, 2000, "only %u cases took the direct path", taken);
  free(a.v);
  free(b.v);
  free(c.v);
}

/* One value of each class v_cmp_class tells apart, in the order of the mask's bits: signaling
 * NaN, quiet NaN, -inf, -normal, -denormal, -0, +0, +denormal, +normal, +inf. */
static const uint32_t class_f32[10][2] = {
    {0x7f800001, 0xffa00000}, {0x7fc00000, 0xffffffff}, {0xff800000, 0xff800000},
    {0xbf800000, 0x80800000}, {0x80000001, 0x807fffff}, {0x80000000, 0x80000000},
    {0x00000000, 0x00000000}, {0x00000001, 0x007fffff}, {0x3f800000, 0x7f7fffff},
    {0x7f800000, 0x7f800000}};
static const uint64_t class_f64[10][2] = {
    {0x7ff0000000000001ull, 0xfff4000000000000ull}, {0x7ff8000000000000ull, 0xffffffffffffffffull},
    {0xfff0000000000000ull, 0xfff0000000000000ull}, {0xbff0000000000000ull, 0x8010000000000000ull},
    {0x8000000000000001ull, 0x800fffffffffffffull}, {0x8000000000000000ull, 0x8000000000000000ull},
    {0x0000000000000000ull, 0x0000000000000000ull}, {0x0000000000000001ull, 0x000fffffffffffffull},
    {0x3ff0000000000000ull, 0x7fefffffffffffffull}, {0x7ff0000000000000ull, 0x7ff0000000000000ull}};

/* Lane l of src0 (v1, or the pair v[1:2]) holds a value of class l % 10 (f32: an f32 denormal
 * is not normal, though it is as a double). */
static void fill_classes(struct wave_copy *c, bool f64)
{
  for (unsigned l = 0; l < WAVE_SIZE; l++) {
    unsigned k = l % 10, v = l / 10 & 1;
    if (f64) {
      c->v[1][l] = (uint32_t)class_f64[k][v];
      c->v[2][l] = (uint32_t)(class_f64[k][v] >> 32);
    } else {
      c->v[1][l] = class_f32[k][v];
    }
  }
}

/* v_cmp_class_f32/f64 and v_cmpx_class_f32/f64, VOPC and VOP3, with every class in src0 and
 * each single mask bit, all ten, none and random masks (SGPR, inline constant, literal, a
 * per-lane VGPR mask), abs/neg on src0, full, empty and partial EXEC (1, 7, 16, 17 lanes):
 * the lane mask written (VCC, the VOP3 SGPR pair, EXEC for v_cmpx) is the class test of each
 * active lane, 0 in the inactive ones, and the same as the general path's. */
Test(isa_valu_fast, cmp_class_masks)
{
  static const unsigned ops[] = {OP_V_CMP_CLASS_F32, OP_V_CMPX_CLASS_F32, OP_V_CMP_CLASS_F64,
                                 OP_V_CMPX_CLASS_F64};
  static const unsigned encs[] = {ENC_VOPC, ENC_VOP3};
  static const unsigned mask_codes[] = {4, 4, 129, OPD_LITERAL, OPD_VGPR + 3};
  struct wave_copy b, c;
  wave_init(&b);
  wave_init(&c);
  unsigned checked = 0;
  for (unsigned o = 0; o < 4; o++)
    for (unsigned en = 0; en < 2; en++)
      for (unsigned mk = 0; mk < 12 + 3; mk++)
        for (unsigned mc = 0; mc < sizeof(mask_codes) / sizeof(mask_codes[0]); mc++)
          for (unsigned e = 0; e < 2 + sizeof(few_execs) / sizeof(few_execs[0]); e++) {
            const struct isa_opinfo *row = row_of(ops[o], encs[en]);
            cr_assert_not_null(row, "%s", isa_op_name(ops[o]));
            bool f64 = ops[o] == OP_V_CMP_CLASS_F64 || ops[o] == OP_V_CMPX_CLASS_F64;
            bool x = ops[o] == OP_V_CMPX_CLASS_F32 || ops[o] == OP_V_CMPX_CLASS_F64;
            uint64_t exec = e == 0 ? ~0ull : e == 1 ? 0xfedcba9876543210ull : few_execs[e - 2];
            /* masks: bit 0..9 alone, none, all ten, then random ones */
            uint32_t mask = mk < 10 ? 1u << mk : mk == 10 ? 0 : mk == 11 ? 0x3ff : next_u32();
            unsigned code = mask_codes[mc];
            if (code == 129)
              mask = 1;   /* inline constant 1: signaling NaN only */
            struct isa_inst in = make_inst(row, OPD_VGPR + 1, mask);
            in.src[1] = (uint16_t)code;
            if (encs[en] == ENC_VOP3 && mk >= 12) {
              in.abs = (uint8_t)(next_u32() & 3);
              in.neg = (uint8_t)(next_u32() & 3);
            }
            wave_fill(&c, exec, 0xf0);
            fill_classes(&c, f64);
            c.w.s[4] = mask;
            for (unsigned l = 0; l < WAVE_SIZE; l++)
              c.v[3][l] = mk >= 12 ? next_u32() : mask;
            /* the expected mask, from the table's classes */
            uint64_t want = 0;
            for (unsigned l = 0; l < WAVE_SIZE; l++) {
              unsigned k = l % 10;
              if (in.abs & 1 && k <= 5 && k >= 2)
                k = 11 - k;   /* |-x| is +x: -inf..-0 become +inf..+0 */
              if (in.neg & 1 && k >= 2)
                k = 11 - k;
              uint32_t lm = code == OPD_VGPR + 3 ? c.v[3][l] : mask;
              if ((exec >> l & 1) && (lm >> k & 1))
                want |= 1ull << l;
            }
            struct isa_inst bound = in;
            cr_assert_eq(valu_bind(&bound) != exec_valu_general, true);
            bound_matches_general(&b, &c, &in, exec, 0xf0);
            unsigned dst = encs[en] == ENC_VOP3 ? in.dst : OPD_VCC;
            uint64_t got = wave_sreg64(&c.w, dst);
            cr_assert_eq(got, want, "%s enc %u mask %03x abs %u neg %u exec %016llx: %016llx want %016llx",
                         isa_op_name(in.op), in.enc, mask & 0x3ff, in.abs, in.neg,
                         (unsigned long long)exec, (unsigned long long)got, (unsigned long long)want);
            if (x)
              cr_assert_eq(wave_exec(&c.w), want, "%s writes EXEC", isa_op_name(in.op));
            checked++;
          }
  cr_assert_gt(checked, 1000);
  free(b.v);
  free(c.v);
}

/* The 32-bit integer compares (eq, ne, lt, le, gt, ge; signed and unsigned; v_cmp and v_cmpx)
 * with a VGPR and a scalar in either order (VOPC: an SGPR or constant src0; VOP3: also a VGPR
 * src0 and a scalar src1), two VGPRs, and two scalars: the lane mask the bound executor
 * writes (VCC, the VOP3 SGPR pair, EXEC) and every register against the general path, with
 * EXEC all lanes, a prefix of 1, 31, 32, 33 or 63 lanes, one lane, scattered lanes, none. The
 * values straddle the signed and unsigned orders' boundaries and are often equal. */
Test(isa_valu_fast, int_compares_by_operand_kind)
{
  static const char *const preds[] = {"eq", "ne", "lt", "le", "gt", "ge"};
  static const unsigned scalars[] = {4, 128, 129, 193, 208, OPD_LITERAL, OPD_VCC, 242};
  static const uint64_t execs[] = {~0ull, 1, 0x7fffffffull, 0xffffffffull, 0x1ffffffffull,
                                   ~0ull >> 1, 1ull << 40, 0x5555aaaa0000ffffull, 0};
  static const uint32_t near[] = {0, 1, 2, 0x7fffffff, 0x80000000, 0x80000001, 0xffffffff};
  struct wave_copy b, c;
  wave_init(&b);
  wave_init(&c);
  unsigned cases = 0;
  for (unsigned p = 0; p < 6; p++)
    for (unsigned t = 0; t < 2; t++)
      for (unsigned x = 0; x < 2; x++)
        for (unsigned enc = 0; enc < 2; enc++) {
          char name[32];
          snprintf(name, sizeof(name), "v_cmp%s_%s_%s", x ? "x" : "", preds[p], t ? "u32" : "i32");
          unsigned op = ISA_OP_COUNT;
          for (unsigned i = 0; i < ISA_OP_COUNT; i++)
            if (!strcmp(isa_op_name(i), name))
              op = i;
          cr_assert_lt(op, ISA_OP_COUNT, "%s", name);
          const struct isa_opinfo *row = row_of(op, enc ? ENC_VOP3 : ENC_VOPC);
          cr_assert_not_null(row, "%s", name);
          /* kinds: scalar/VGPR, VGPR/VGPR, and for VOP3 VGPR/scalar and scalar/scalar */
          for (unsigned kind = 0; kind < (enc ? 4u : 2u); kind++)
            for (unsigned s = 0; s < sizeof(scalars) / sizeof(scalars[0]); s++)
              for (unsigned e = 0; e < sizeof(execs) / sizeof(execs[0]); e++) {
                uint32_t lit = near[next_u32() % 7];
                struct isa_inst in = make_inst(row, kind == 1 || kind == 2 ? OPD_VGPR + 1 : scalars[s], lit);
                if (kind >= 2)
                  in.src[1] = (uint16_t)scalars[(s + kind) % 8];
                if (in.src[1] == OPD_LITERAL && in.src[0] == OPD_LITERAL)
                  in.src[1] = 4;
                wave_fill(&c, execs[e], 0xf0);
                for (unsigned l = 0; l < WAVE_SIZE; l++)
                  if (next_u32() & 1) {
                    c.v[1][l] = near[next_u32() % 7];
                    c.v[2][l] = next_u32() & 1 ? c.v[1][l] : near[next_u32() % 7];
                  }
                c.w.s[4] = near[next_u32() % 7];
                bound_matches_general(&b, &c, &in, execs[e], 0xf0);
                cases++;
              }
        }
  cr_assert_gt(cases, 5000);
  free(b.v);
  free(c.v);
}

/* Every VOP1/VOP2/VOP3 row with EXEC a prefix of 2, 7, 8, 9, 31, 33 or 63 lanes (the groups of
 * eight it covers computed, the last one stored under a mask): the bound executor against the
 * general path, VGPR, SGPR, integer and f32 inline constant sources. */
Test(isa_valu_fast, exec_prefixes_match_the_general_path)
{
  static const unsigned src0_codes[] = {OPD_VGPR + 1, 4, 133, 242};
  static const unsigned lanes[] = {2, 7, 8, 9, 31, 33, 63};
  struct wave_copy b, c;
  wave_init(&b);
  wave_init(&c);
  unsigned cases = 0;
  for (unsigned i = 0; i < isa_optab_count; i++) {
    const struct isa_opinfo *row = &isa_optab[i];
    if (row->enc != ENC_VOP1 && row->enc != ENC_VOP2 && row->enc != ENC_VOP3)
      continue;
    for (unsigned s = 0; s < sizeof(src0_codes) / sizeof(src0_codes[0]); s++)
      for (unsigned e = 0; e < sizeof(lanes) / sizeof(lanes[0]); e++) {
        uint64_t exec = (1ull << lanes[e]) - 1;
        struct isa_inst in = make_inst(row, src0_codes[s], value());
        wave_fill(&c, exec, 0xf0);
        if (exec_valu_fast(&c.w, &in))
          continue;   /* not the direct path's: no bound handler of this file either */
        wave_fill(&c, exec, 0xf0);
        bound_matches_general(&b, &c, &in, exec, 0xf0);
        cases++;
      }
  }
  cr_assert_gt(cases, 1000, "only %u cases", cases);
  free(b.v);
  free(c.v);
}
