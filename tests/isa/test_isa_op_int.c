/* Per-instruction tests of the integer VALU and the scalar ALU/SOPP opcodes of the kernel
 * corpus (issue 3): kernels/op_int.s, assembled for gfx90a and gfx942, run on the interpreter
 * with an EXEC mask with holes over edge values (0, -1, INT_MIN/INT_MAX, carries, shift counts
 * at and past the width, 16-bit wrap with junk in the high half, sign extension); every lane is
 * compared with a reference computed here from the ISA guide's definition of the instruction.
 * The frames are described at the top of op_int.s. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "op_check.h"

#define HOLES OP_HOLES
#define MARK OP_MARK
#define MARK64 ((uint64_t)OP_MARK << 32 | OP_MARK)
#define ON(l) ((HOLES >> (l)) & 1)

/* ---- input sets ---- */

/* 16-bit values with junk in the high halves */
static const uint64_t s16_vals[] = {
  0x0, 0x1, 0xffff, 0x7fff, 0x8000, 0xabcd8001, 0x1234ffff, 15, 16, 17, 0xfffe0003,
  0x0001000f, 0xdead0010, 0x00ff, 0xff00, 0x5555aaaa, 0x80000000, 0x7fff7ffe,
};
/* s_bfe controls (offset in bits 4:0, width in 22:16) with offset + width <= 32 */
static const uint64_t bfe_ctl[] = {
  0x10000, 0x80000, 0x80008, 0x100010, 0x100000, 0x1f0001, 0x200000, 0x10001f, 0x0, 0x4000c,
  0x180008, 0x50003, 0x1b0005, 0x20001e,
};
/* extra 32-bit scalar values: the s_addk/s_cmpk constants and their neighbours */
static const uint32_t k_vals[] = {0x20f, 0x1000, 0xffff8000, 0x8000, 0x7fff, 0xffff7fff, 0x7fff8001, 0x80007fff, 0xffffffff};

enum set_id { S_I32, S_I16, S_I64, S_LO32, S_SC32, S_BFE, S_COUNT };
static uint64_t sets[S_COUNT][64];
static size_t set_n[S_COUNT];

static uint64_t junk(uint32_t v) { return (uint64_t)((v * 0x9e3779b9u) ^ 0x5a5a5a5au) << 32; }

static void init_sets(void)
{
  size_t n = 0;
  for (size_t i = 0; i < OP_I32_EDGES_N; i++) sets[S_I32][n++] = op_i32_edges[i];
  set_n[S_I32] = n;
  memcpy(sets[S_I16], s16_vals, sizeof(s16_vals));
  set_n[S_I16] = OP_N(s16_vals);
  memcpy(sets[S_I64], op_i64_edges, sizeof(op_i64_edges));
  set_n[S_I64] = OP_I64_EDGES_N;
  /* 32-bit edges in the low halves of 64-bit lanes (T64 frame carry kernels, scalar loop) */
  for (size_t i = 0; i < OP_I32_EDGES_N; i++) sets[S_LO32][i] = op_i32_edges[i] | junk(op_i32_edges[i]);
  set_n[S_LO32] = OP_I32_EDGES_N;
  n = 0;
  for (size_t i = 0; i < OP_I32_EDGES_N; i++) sets[S_SC32][n++] = op_i32_edges[i] | junk(op_i32_edges[i]);
  for (size_t i = 0; i < OP_N(k_vals); i++) sets[S_SC32][n++] = k_vals[i] | junk(k_vals[i]);
  set_n[S_SC32] = n;
  memcpy(sets[S_BFE], bfe_ctl, sizeof(bfe_ctl));
  set_n[S_BFE] = OP_N(bfe_ctl);
}

/* How b relates to a: an independent set member, or (for a quarter of the lanes each) equal,
 * one more (32-bit wrap), a match of only the low 16 / low 32 / high 32 bits. */
enum pair { PS, P32, P16, P64 };

static uint64_t pick_b(enum pair pm, uint64_t a, const uint64_t *set, size_t n, unsigned l, unsigned rot)
{
  uint64_t other = set[(l * 7 + 3 + rot) % n];
  switch (pm) {
  case P32:
    return l % 4 == 0 ? a : l % 4 == 1 ? (a & ~0xffffffffull) | (uint32_t)(a + 1) : other;
  case P16:
    return l % 4 == 0 ? a : l % 4 == 1 ? (a & 0xffff) | ((a ^ 0x5a5a0000u) & 0xffff0000u)
         : l % 4 == 2 ? (uint16_t)(a + 1) | (other & 0xffff0000u) : other;
  case P64:
    return l % 4 == 0 ? a : l % 4 == 1 ? a ^ (1ull << 32) : l % 4 == 2 ? a ^ 1 : other;
  default:
    return other;
  }
}

/* the lane inputs of the running case, for references that look across lanes */
static uint64_t GA[64], GB[64], GC[64];

/* rot rotates the sets, so that a kernel run several times sees different uniform values */
static void fill(struct op_ctx *x, bool wide, enum set_id s, enum pair pm, int bs, unsigned rot)
{
  const uint64_t *set = sets[s];
  size_t n = set_n[s];
  for (unsigned l = 0; l < 64; l++) {
    GA[l] = set[(l + rot) % n];
    GB[l] = bs >= 0 ? sets[bs][(l * 7 + 3 + rot) % set_n[bs]] : pick_b(pm, GA[l], set, n, l, rot);
    GC[l] = set[(l * 5 + 11 + rot) % n];
    if (!wide) {
      GA[l] = (uint32_t)GA[l];
      GB[l] = (uint32_t)GB[l];
      GC[l] = (uint32_t)GC[l];
      x->a[l] = (uint32_t)GA[l];
      x->b[l] = (uint32_t)GB[l];
      x->c[l] = (uint32_t)GC[l];
    } else {
      ((uint64_t *)x->a)[l] = GA[l];
      ((uint64_t *)x->b)[l] = GB[l];
      ((uint64_t *)x->c)[l] = GC[l];
    }
  }
}

/* ---- vector cases ---- */

#define U __attribute__((unused))
#define R(name) static uint64_t name(uint64_t a U, uint64_t b U, uint64_t c U, unsigned l U, int p U)
typedef uint64_t (*vref)(uint64_t a, uint64_t b, uint64_t c, unsigned l, int p);

struct vcase {
  const char *k;
  vref ref;
  int p;            /* parameter of the reference */
  uint8_t set, pm;
  int8_t bset;      /* b from its own set (-1: from pick_b) */
  uint8_t wide;     /* T64 frame: 64-bit lanes and results */
  uint8_t all;      /* the reference also gives lanes outside EXEC */
  uint8_t only942;
  uint8_t reps;     /* runs with rotated inputs (kernels with uniform SGPR operands) */
};

/* one run of a case: fill, launch, compare every lane */
static void check_vcase(struct op_ctx *x, enum isa_target t, const struct vcase *v, unsigned rot)
{
  fill(x, v->wide, (enum set_id)v->set, (enum pair)v->pm, v->bset, rot);
  op_run(x, v->k);
  for (unsigned l = 0; l < 64; l++) {
    bool use = ON(l) || v->all;
    uint64_t want = use ? v->ref(GA[l], GB[l], GC[l], l, v->p) : MARK64;
    uint64_t got = v->wide ? ((uint64_t *)x->out)[l] : x->out[l];
    if (!v->wide)
      want = (uint32_t)want;
    cr_expect_eq(got, want, "%s (%s) lane %u%s: a=0x%llx b=0x%llx c=0x%llx: got 0x%llx want 0x%llx",
                 v->k, op_target_name(t), l, ON(l) ? "" : " (off)", (unsigned long long)GA[l],
                 (unsigned long long)GB[l], (unsigned long long)GC[l], (unsigned long long)got,
                 (unsigned long long)want);
  }
}

static void run_vcases(enum isa_target t, const struct vcase *cs, size_t n)
{
  struct op_ctx x;
  op_setup(&x, "op_int", t);
  for (size_t i = 0; i < n; i++) {
    if (cs[i].only942 && t != ISA_GFX942)
      continue;
    for (unsigned rep = 0; rep < cs[i].reps; rep++)
      check_vcase(&x, t, &cs[i], rep * 5);
  }
  op_close(&x);
}

static uint32_t sx8(uint32_t v) { return (uint32_t)(int32_t)(int8_t)v; }
static uint32_t sx24(uint32_t v) { return (uint32_t)((int32_t)(v << 8) >> 8); }
static uint32_t bitrev(uint32_t v) { uint32_t r = 0; for (int i = 0; i < 32; i++) r |= (v >> i & 1) << (31 - i); return r; }

R(r_a) { return a; }
R(r_const) { return (uint32_t)p; }
R(r_b1) { return GB[1]; }
R(r_and) { return a & b; }
R(r_and_k) { return a & (uint32_t)p; }
R(r_or) { return a | b; }
R(r_xor) { return a ^ b; }
R(r_not) { return ~(uint32_t)a; }
R(r_lshl) { return (uint32_t)(a << (b & 31)); }
R(r_lshr) { return (uint32_t)a >> (b & 31); }
R(r_ashr) { return (uint32_t)((int32_t)a >> (b & 31)); }
R(r_bfrev) { return bitrev((uint32_t)a); }
/* v_ffbh_i32: leading bits equal to the sign, counted from bit 31; -1 for 0 and -1 */
R(r_ffbh_i) { uint32_t v = (int32_t)a < 0 ? ~(uint32_t)a : (uint32_t)a; return v ? (uint32_t)__builtin_clz(v) : 0xffffffffu; }
R(r_ffbh_u) { return (uint32_t)a ? (uint32_t)__builtin_clz((uint32_t)a) : 0xffffffffu; }
R(r_ffbl) { return (uint32_t)a ? (uint32_t)__builtin_ctz((uint32_t)a) : 0xffffffffu; }
R(r_add_lshl) { return (uint32_t)(a + b) << (c & 31); }
R(r_and_or) { return (a & b) | c; }
R(r_lshl_or) { return (uint32_t)(a << (b & 31)) | c; }
R(r_or3) { return a | b | c; }
R(r_max_i) { return (int32_t)a > (int32_t)b ? a : b; }
R(r_min_u) { return (uint32_t)a < (uint32_t)b ? a : b; }
R(r_mul_i24) { return (uint32_t)((int64_t)(int32_t)sx24((uint32_t)a) * (int32_t)sx24((uint32_t)b)); }
R(r_subrev) { return (uint32_t)(b - a); }
R(r_add16) { return (uint16_t)(a + b); }
R(r_sub16) { return (uint16_t)(a - b); }
R(r_mul16) { return (uint16_t)(a * b); }
R(r_lshl16) { return (uint16_t)(a << (b & 15)); }
R(r_lshr16) { return (uint16_t)((uint16_t)a >> (b & 15)); }
R(r_and_s) { return a & GB[1]; }
R(r_xor_s) { return a ^ GB[1]; }
R(r_min_u_s) { return (uint32_t)a < (uint32_t)GB[1] ? a : GB[1]; }
R(r_lshl_s) { return (uint32_t)(a << (GB[1] & 31)); }
R(r_one_lshl) { return 1u << (b & 31); }
R(r_add16_k) { return (uint16_t)(a + 7); }
/* SDWA */
R(r_or_sdwa) { return (a & 0xffff) | b; }
R(r_or_sdwa_sext) { uint32_t r = sx8((uint32_t)(a >> 24)) | (uint32_t)(b >> 16); return (MARK & 0xffff) | (r & 0xffff) << 16; }
R(r_lshl_sdwa) { return (uint32_t)((a & 0xff) << (b & 31)); }
R(r_lshl_sdwa_b2) { uint32_t r = (uint32_t)(a << ((b >> 8) & 31)); return sx8(r & 0xff) << 16; }
R(r_mul16_sdwa) { return (uint16_t)((a >> 16) * b); }
R(r_mul16_sdwa_s) { return (uint16_t)((a & 0xff) * GB[1]); }
/* DPP: the source lane s, valid if in the row and in EXEC */
static int dpp_shl(unsigned l, unsigned n) { return (l & 15) + n <= 15 ? (int)(l + n) : -1; }
static int dpp_mirror(unsigned l) { return (int)((l & ~15u) | (15 - (l & 15))); }
static bool dpp_ok(int s) { return s >= 0 && ON((unsigned)s); }
R(r_dpp_and_shl1) { int s = dpp_shl(l, 1); return dpp_ok(s) ? GA[s] & b : MARK; }
R(r_dpp_and_mirror) { int s = dpp_mirror(l); return dpp_ok(s) ? GA[s] & b : MARK; }
R(r_dpp_or_shl2) { int s = dpp_shl(l, 2); return (dpp_ok(s) ? GA[s] : 0) | b; }
R(r_dpp_or_masks)
{
  /* row_mask 0x5: rows 0 and 2; bank_mask 0xa: banks 1 and 3 (a bank is 4 lanes of a row) */
  if (!(0x5 >> (l / 16) & 1) || !(0xa >> ((l >> 2) & 3) & 1)) return MARK;
  int s = dpp_mirror(l);
  return (dpp_ok(s) ? GA[s] : 0) | b;
}
/* carries: 32-bit operands in the low halves; result | carry out << 32 */
static uint64_t co(uint32_t r, bool c) { return r | (uint64_t)c << 32; }
R(r_addc) { uint32_t x = (uint32_t)a, y = (uint32_t)b, ci = c & 1; uint64_t s = (uint64_t)x + y + ci; return co((uint32_t)s, s >> 32); }
R(r_sub_co) { uint32_t x = (uint32_t)a, y = (uint32_t)b; return co(x - y, y > x); }
R(r_subrev_co) { uint32_t x = (uint32_t)a, y = (uint32_t)b; return co(y - x, x > y); }
R(r_subb) { uint32_t x = (uint32_t)a, y = (uint32_t)b, ci = c & 1; return co(x - y - ci, (uint64_t)y + ci > x); }
R(r_subbrev) { uint32_t x = (uint32_t)a, y = (uint32_t)b, ci = c & 1; return co(y - x - ci, (uint64_t)x + ci > y); }
R(r_addc_0) { uint32_t y = (uint32_t)b, ci = c & 1; uint64_t s = (uint64_t)y + ci; return co((uint32_t)s, s >> 32); }
R(r_subbrev_0) { uint32_t y = (uint32_t)b, ci = c & 1; return co(y - ci, ci > y); }
R(r_subrev_co_s) { uint32_t x = (uint32_t)GA[1], y = (uint32_t)b; return co(y - x, x > y); }
R(r_sub_co_s) { uint32_t x = (uint32_t)a, y = (uint32_t)GB[1]; return co(x - y, y > x); }
/* compares: p = predicate | type << 4 */
enum { EQ, NE, LT, LE, GT, GE };
enum { TU32, TI32, TU16, TU64, TI64 };
#define CP(pred, type) ((pred) | (type) << 4)
static bool cmp_pred(int pred, int64_t s, int64_t t)
{
  switch (pred) {
  case EQ: return s == t;
  case NE: return s != t;
  case LT: return s < t;
  case LE: return s <= t;
  case GT: return s > t;
  default: return s >= t;
  }
}
static bool cmp_u(int pred, uint64_t s, uint64_t t)
{
  return pred == EQ ? s == t : pred == NE ? s != t : pred == LT ? s < t : pred == LE ? s <= t
       : pred == GT ? s > t : s >= t;
}
R(r_cmp)
{
  switch (p >> 4) {
  case TU32: return cmp_u(p & 15, (uint32_t)a, (uint32_t)b);
  case TI32: return cmp_pred(p & 15, (int32_t)a, (int32_t)b);
  case TU16: return cmp_u(p & 15, (uint16_t)a, (uint16_t)b);
  case TU64: return cmp_u(p & 15, a, b);
  default: return cmp_pred(p & 15, (int64_t)a, (int64_t)b);
  }
}
R(r_cmp_first) { return (uint32_t)a == (uint32_t)GA[1]; }
R(r_cmp_first64) { return a == GA[1]; }
R(r_cmp_ne16_s) { return (uint16_t)b != (uint16_t)GA[1]; }
/* 64-bit */
R(r_lshr64) { return a >> (b & 63); }
R(r_lshr64_s) { return a >> (GB[1] & 63); }
R(r_lshl_add64) { return (a << p) + b; }
R(r_mov64_inl) { return 0xfffffffffffffff0ull; }
/* lanes */
R(r_readlane_s) { return GA[63 - l]; }
R(r_readlane_i) { return (l & 1) ? GA[63] : GA[0]; }
R(r_writelane)
{
  if (l == 0 || l == 5) return GB[1];
  if (l == 20) return 0xfffffff9u;
  if (l == 63) return 0x80000000u;
  return ON(l) ? a : MARK;
}
R(r_accvgpr) { return ON(l) ? a : c; }
R(r_gpr_idx)
{
  uint32_t regs[4] = {(uint32_t)a, (uint32_t)b, (uint32_t)c, l};
  uint32_t r = regs[GB[1] & 3];
  return r ^ (r + 1) ^ (0x1000 + r) ^ (uint32_t)a;
}
/* control flow */
R(r_if_else)
{
  uint32_t taken = 0;
  for (unsigned i = 0; i < 64; i++)
    if (ON(i))
      taken |= (int32_t)GA[i] < (int32_t)GB[i] ? 1 : 0x100;
  uint32_t r = (int32_t)a < (int32_t)b ? (uint32_t)(b - a) : (uint32_t)(a ^ c);
  return r + taken;
}
R(r_if_none) { return (uint32_t)(a ^ c) + 0x100; }
R(r_loop) { uint32_t n = a & 7; return (uint32_t)b * (n ? n : 1); }
R(r_saveexec_misc) { return ON(l) ? a : 7; }

#define V(k, ref, p, set, pm) {k, ref, p, set, pm, -1, 0, 0, 0, 1}
#define VR(k, ref, p, set, pm) {k, ref, p, set, pm, -1, 0, 0, 0, 8}
#define W(k, ref, p, set, pm) {k, ref, p, set, pm, -1, 1, 0, 0, 1}
#define WR(k, ref, p, set, pm) {k, ref, p, set, pm, -1, 1, 0, 0, 8}
#define W942(k, ref, p, set, pm) {k, ref, p, set, pm, -1, 1, 0, 1, 1}
#define VALL(k, ref, p, set, pm) {k, ref, p, set, pm, -1, 0, 1, 0, 1}

static const struct vcase bitwise_cases[] = {
  V("t_mov_b32_e32", r_a, 0, S_I32, PS),
  V("t_mov_b32_e32_inl", r_const, -16, S_I32, PS),
  V("t_mov_b32_e32_lit", r_const, (int)0x80000000u, S_I32, PS),
  V("t_mov_b32_e32_sgpr", r_b1, 0, S_I32, PS),
  V("t_and_b32_e32", r_and, 0, S_I32, P32),
  V("t_and_b32_e32_lit", r_and_k, 0xffff, S_I32, PS),
  V("t_and_b32_e64", r_and, 0, S_I32, P32),
  V("t_and_b32_e64_inl", r_and_k, -16, S_I32, PS),
  V("t_or_b32_e32", r_or, 0, S_I32, P32),
  V("t_or_b32_e64", r_or, 0, S_I32, P32),
  V("t_xor_b32_e32", r_xor, 0, S_I32, P32),
  V("t_xor_b32_e64", r_xor, 0, S_I32, P32),
  V("t_not_b32_e32", r_not, 0, S_I32, PS),
  V("t_lshlrev_b32_e32", r_lshl, 0, S_I32, PS),
  V("t_lshlrev_b32_e64", r_lshl, 0, S_I32, PS),
  V("t_lshrrev_b32_e64", r_lshr, 0, S_I32, PS),
  V("t_ashrrev_i32_e64", r_ashr, 0, S_I32, PS),
  V("t_bfrev_b32_e64", r_bfrev, 0, S_I32, PS),
  V("t_ffbh_i32_e32", r_ffbh_i, 0, S_I32, PS),
  V("t_ffbh_i32_e64", r_ffbh_i, 0, S_I32, PS),
  V("t_ffbh_u32_e64", r_ffbh_u, 0, S_I32, PS),
  V("t_ffbl_b32_e32", r_ffbl, 0, S_I32, PS),
  V("t_ffbl_b32_e64", r_ffbl, 0, S_I32, PS),
  V("t_add_lshl_u32", r_add_lshl, 0, S_I32, P32),
  V("t_and_or_b32", r_and_or, 0, S_I32, PS),
  V("t_lshl_or_b32", r_lshl_or, 0, S_I32, PS),
  V("t_or3_b32", r_or3, 0, S_I32, PS),
  V("t_max_i32_e32", r_max_i, 0, S_I32, P32),
  V("t_min_u32_e32", r_min_u, 0, S_I32, P32),
  V("t_min_u32_e64", r_min_u, 0, S_I32, P32),
  V("t_mul_i32_i24_e32", r_mul_i24, 0, S_I32, PS),
  V("t_subrev_u32_e32", r_subrev, 0, S_I32, P32),
  VR("t_and_b32_e64_s", r_and_s, 0, S_I32, PS),
  VR("t_xor_b32_e64_s", r_xor_s, 0, S_I32, PS),
  VR("t_min_u32_e64_s", r_min_u_s, 0, S_I32, PS),
  VR("t_lshlrev_b32_e64_s", r_lshl_s, 0, S_I32, PS),
  V("t_lshlrev_b32_e64_1", r_one_lshl, 0, S_I32, PS),
};

static const struct vcase b16_cases[] = {
  V("t_add_u16_e32", r_add16, 0, S_I16, P16),
  V("t_sub_u16_e32", r_sub16, 0, S_I16, P16),
  V("t_mul_lo_u16_e32", r_mul16, 0, S_I16, P16),
  V("t_lshlrev_b16_e32", r_lshl16, 0, S_I16, PS),
  V("t_lshrrev_b16_e32", r_lshr16, 0, S_I16, PS),
  V("t_add_u16_e32_k", r_add16_k, 0, S_I16, PS),
};

static const struct vcase sdwa_dpp_cases[] = {
  V("t_or_b32_sdwa", r_or_sdwa, 0, S_I32, PS),
  V("t_or_b32_sdwa_sext", r_or_sdwa_sext, 0, S_I32, PS),
  V("t_lshlrev_b32_sdwa", r_lshl_sdwa, 0, S_I32, PS),
  V("t_lshlrev_b32_sdwa_b2", r_lshl_sdwa_b2, 0, S_I32, PS),
  V("t_mul_lo_u16_sdwa", r_mul16_sdwa, 0, S_I32, PS),
  V("t_mul_lo_u16_sdwa_s", r_mul16_sdwa_s, 0, S_I32, PS),
  V("t_and_b32_dpp_shl1", r_dpp_and_shl1, 0, S_I32, PS),
  V("t_and_b32_dpp_mirror", r_dpp_and_mirror, 0, S_I32, PS),
  V("t_or_b32_dpp_shl2", r_dpp_or_shl2, 0, S_I32, PS),
  V("t_or_b32_dpp_masks", r_dpp_or_masks, 0, S_I32, PS),
};

static const struct vcase carry_cases[] = {
  W("t_addc_co_u32_e32", r_addc, 0, S_LO32, P32),
  W("t_sub_co_u32_e32", r_sub_co, 0, S_LO32, P32),
  W("t_sub_co_u32_e64", r_sub_co, 0, S_LO32, P32),
  W("t_subrev_co_u32_e32", r_subrev_co, 0, S_LO32, P32),
  W("t_subb_co_u32_e32", r_subb, 0, S_LO32, P32),
  W("t_subb_co_u32_e64", r_subb, 0, S_LO32, P32),
  W("t_subbrev_co_u32_e32", r_subbrev, 0, S_LO32, P32),
  W("t_subbrev_co_u32_e64", r_subbrev, 0, S_LO32, P32),
  W("t_addc_co_u32_e32_0", r_addc_0, 0, S_LO32, PS),
  W("t_subbrev_co_u32_e32_0", r_subbrev_0, 0, S_LO32, PS),
  W("t_subbrev_co_u32_e64_0", r_subbrev_0, 0, S_LO32, PS),
  WR("t_subrev_co_u32_e32_s", r_subrev_co_s, 0, S_LO32, PS),
  WR("t_sub_co_u32_e64_s", r_sub_co_s, 0, S_LO32, PS),
};

static const struct vcase cmp_cases[] = {
  V("t_cmp_eq_u32_e32", r_cmp, CP(EQ, TU32), S_I32, P32),
  V("t_cmp_eq_u32_e64", r_cmp, CP(EQ, TU32), S_I32, P32),
  V("t_cmp_ne_u32_e32", r_cmp, CP(NE, TU32), S_I32, P32),
  V("t_cmp_ne_u32_e64", r_cmp, CP(NE, TU32), S_I32, P32),
  V("t_cmp_ge_i32_e64", r_cmp, CP(GE, TI32), S_I32, P32),
  V("t_cmp_ge_u32_e32", r_cmp, CP(GE, TU32), S_I32, P32),
  V("t_cmp_ge_u32_e64", r_cmp, CP(GE, TU32), S_I32, P32),
  V("t_cmp_gt_i32_e32", r_cmp, CP(GT, TI32), S_I32, P32),
  V("t_cmp_gt_i32_e64", r_cmp, CP(GT, TI32), S_I32, P32),
  V("t_cmp_gt_u32_e32", r_cmp, CP(GT, TU32), S_I32, P32),
  V("t_cmp_gt_u32_e64", r_cmp, CP(GT, TU32), S_I32, P32),
  V("t_cmp_le_i32_e32", r_cmp, CP(LE, TI32), S_I32, P32),
  V("t_cmp_le_i32_e64", r_cmp, CP(LE, TI32), S_I32, P32),
  V("t_cmp_le_u32_e32", r_cmp, CP(LE, TU32), S_I32, P32),
  V("t_cmp_le_u32_e64", r_cmp, CP(LE, TU32), S_I32, P32),
  V("t_cmp_lt_i32_e64", r_cmp, CP(LT, TI32), S_I32, P32),
  V("t_cmp_lt_u32_e32", r_cmp, CP(LT, TU32), S_I32, P32),
  V("t_cmp_lt_u32_e64", r_cmp, CP(LT, TU32), S_I32, P32),
  V("t_cmp_eq_u16_e32", r_cmp, CP(EQ, TU16), S_I16, P16),
  V("t_cmp_eq_u16_e64", r_cmp, CP(EQ, TU16), S_I16, P16),
  V("t_cmp_gt_u16_e32", r_cmp, CP(GT, TU16), S_I16, P16),
  V("t_cmp_ne_u16_e32", r_cmp, CP(NE, TU16), S_I16, P16),
  V("t_cmp_ne_u16_e64", r_cmp, CP(NE, TU16), S_I16, P16),
  VR("t_cmp_eq_u32_e64_s", r_cmp_first, 0, S_I32, PS),
  VR("t_cmp_ne_u16_e64_s", r_cmp_ne16_s, 0, S_I16, P16),
  WR("t_cmp_eq_u64_e64_s", r_cmp_first64, 0, S_I64, PS),
  W("t_cmp_eq_u64_e32", r_cmp, CP(EQ, TU64), S_I64, P64),
  W("t_cmp_eq_u64_e64", r_cmp, CP(EQ, TU64), S_I64, P64),
  W("t_cmp_ne_u64_e32", r_cmp, CP(NE, TU64), S_I64, P64),
  W("t_cmp_ne_u64_e64", r_cmp, CP(NE, TU64), S_I64, P64),
  W("t_cmp_ge_i64_e64", r_cmp, CP(GE, TI64), S_I64, P64),
  W("t_cmp_gt_i64_e32", r_cmp, CP(GT, TI64), S_I64, P64),
  W("t_cmp_gt_i64_e64", r_cmp, CP(GT, TI64), S_I64, P64),
  W("t_cmp_gt_u64_e32", r_cmp, CP(GT, TU64), S_I64, P64),
  W("t_cmp_gt_u64_e64", r_cmp, CP(GT, TU64), S_I64, P64),
  W("t_cmp_le_i64_e64", r_cmp, CP(LE, TI64), S_I64, P64),
  W("t_cmp_lt_i64_e32", r_cmp, CP(LT, TI64), S_I64, P64),
  W("t_cmp_lt_i64_e64", r_cmp, CP(LT, TI64), S_I64, P64),
  W("t_cmp_lt_u64_e64", r_cmp, CP(LT, TU64), S_I64, P64),
};

static const struct vcase v64_cases[] = {
  W("t_lshrrev_b64", r_lshr64, 0, S_I64, PS),
  WR("t_lshrrev_b64_s", r_lshr64_s, 0, S_I64, PS),
  W942("t_mov_b64_e32", r_a, 0, S_I64, PS),
  W942("t_mov_b64_e32_inl", r_mov64_inl, 0, S_I64, PS),
  W942("t_lshl_add_u64_0", r_lshl_add64, 0, S_I64, PS),
  W942("t_lshl_add_u64_1", r_lshl_add64, 1, S_I64, PS),
  W942("t_lshl_add_u64_4", r_lshl_add64, 4, S_I64, PS),
  W942("t_lshl_add_u64_s", r_lshl_add64, 3, S_I64, PS),
};

static const struct vcase lane_cases[] = {
  V("t_readlane_s", r_readlane_s, 0, S_I32, PS),
  V("t_readlane_i", r_readlane_i, 0, S_I32, PS),
  VALL("t_writelane", r_writelane, 0, S_I32, PS),
  VALL("t_accvgpr", r_accvgpr, 0, S_I32, PS),
  V("t_gpr_idx", r_gpr_idx, 0, S_I32, PS),
};

static const struct vcase flow_cases[] = {
  V("t_swappc", r_xor, 0, S_I32, PS),
  V("t_if_else", r_if_else, 0, S_I32, P32),
  V("t_if_none", r_if_none, 0, S_I32, PS),
  V("t_loop", r_loop, 0, S_I32, PS),
  VALL("t_saveexec_misc", r_saveexec_misc, 0, S_I32, PS),
  V("t_sleep", r_xor, 0, S_I32, PS),
};

/* ---- scalar cases (the SL loop frame: 64 operand pairs per run) ---- */

#define KEEP 0x2468ace013572468ull   /* what the frame presets s[16:17] to */
static uint64_t lo(uint32_t r) { return (KEEP & ~0xffffffffull) | r; }

/* scc: in = the SCC the frame set (c bit 0), out = the expected SCC */
#define SR(name) static uint64_t name(uint64_t a U, uint64_t b U, uint64_t c U, int *scc U, int p U)
typedef uint64_t (*sref)(uint64_t a, uint64_t b, uint64_t c, int *scc, int p);

struct scase {
  const char *k;
  sref ref;
  int p;
  uint8_t set, pm;
  int8_t bset;
};

static void run_scases(enum isa_target t, const struct scase *cs, size_t n)
{
  struct op_ctx x;
  op_setup(&x, "op_int", t);
  for (size_t i = 0; i < n; i++) {
    const struct scase *v = &cs[i];
    fill(&x, true, (enum set_id)v->set, (enum pair)v->pm, v->bset, 0);
    op_run(&x, v->k);
    const uint64_t *o = (const uint64_t *)x.out;
    for (unsigned l = 0; l < 64; l++) {
      int scc = (int)(GC[l] & 1);
      uint64_t want = v->ref(GA[l], GB[l], GC[l], &scc, v->p);
      if (!ON(l))
        want = MARK64;
      cr_expect_eq(o[l], want, "%s (%s) case %u: a=0x%llx b=0x%llx: got 0x%llx want 0x%llx", v->k,
                   op_target_name(t), l, (unsigned long long)GA[l], (unsigned long long)GB[l],
                   (unsigned long long)o[l], (unsigned long long)want);
      cr_expect_eq(x.c[l], (uint32_t)scc, "%s (%s) case %u: a=0x%llx b=0x%llx c=0x%llx: SCC %u, want %d",
                   v->k, op_target_name(t), l, (unsigned long long)GA[l], (unsigned long long)GB[l],
                   (unsigned long long)GC[l], x.c[l], scc);
    }
  }
  op_close(&x);
}

static bool add_ovf(int32_t x, int32_t y) { int32_t s = (int32_t)((uint32_t)x + (uint32_t)y); return (x >= 0) == (y >= 0) && (s >= 0) != (x >= 0); }

SR(s_mov32) { return lo((uint32_t)a); }
SR(s_const) { (void)a; return (uint64_t)0x80000000u << 32 | 0xfffffff0u; }
SR(s_mov64) { return a; }
SR(s_mov64_k) { return 0xfffffffffffffff0ull; }
SR(s_movk) { return 0x00007fffffff8000ull; }
SR(s_abs) { int32_t v = (int32_t)a; uint32_t r = v < 0 ? 0u - (uint32_t)v : (uint32_t)v; *scc = r != 0; return lo(r); }
SR(s_add_i) { *scc = add_ovf((int32_t)a, (int32_t)b); return lo((uint32_t)(a + b)); }
SR(s_addc) { uint64_t s = (uint64_t)(uint32_t)a + (uint32_t)b + (unsigned)*scc; *scc = (int)(s >> 32); return lo((uint32_t)s); }
SR(s_sub) { *scc = (uint32_t)b > (uint32_t)a; return lo((uint32_t)(a - b)); }
SR(s_subb) { uint32_t ci = (uint32_t)*scc; *scc = (uint64_t)(uint32_t)b + ci > (uint32_t)a; return lo((uint32_t)a - (uint32_t)b - ci); }
SR(s_addk) { *scc = add_ovf((int32_t)a, p); return lo((uint32_t)a + (uint32_t)p); }
SR(s_mul) { return lo((uint32_t)a * (uint32_t)b); }
SR(s_max_i) { *scc = (int32_t)a > (int32_t)b; return lo(*scc ? (uint32_t)a : (uint32_t)b); }
SR(s_max_u) { *scc = (uint32_t)a > (uint32_t)b; return lo(*scc ? (uint32_t)a : (uint32_t)b); }
SR(s_min_u) { *scc = (uint32_t)a < (uint32_t)b; return lo(*scc ? (uint32_t)a : (uint32_t)b); }
SR(s_and32) { uint32_t r = (uint32_t)(a & b); *scc = r != 0; return lo(r); }
SR(s_xor32) { uint32_t r = (uint32_t)(a ^ b); *scc = r != 0; return lo(r); }
SR(s_and64) { uint64_t r = a & b; *scc = r != 0; return r; }
SR(s_andn2_64) { uint64_t r = a & ~b; *scc = r != 0; return r; }
SR(s_or64) { uint64_t r = a | b; *scc = r != 0; return r; }
SR(s_xor64) { uint64_t r = a ^ b; *scc = r != 0; return r; }
SR(s_lshr32) { uint32_t r = (uint32_t)a >> (b & 31); *scc = r != 0; return lo(r); }
SR(s_lshl64) { uint64_t r = a << (b & 63); *scc = r != 0; return r; }
SR(s_lshr64) { uint64_t r = a >> (b & 63); *scc = r != 0; return r; }
SR(s_bfe_i)
{
  unsigned off = b & 31, w = (b >> 16) & 0x7f;
  uint32_t r = w ? (uint32_t)((int32_t)((uint32_t)a << (32 - off - w)) >> (32 - w)) : 0;
  *scc = r != 0;
  return lo(r);
}
SR(s_brev) { return lo(bitrev((uint32_t)a)); }
SR(s_sext8) { return lo(sx8((uint32_t)a)); }
SR(s_bcnt1_64) { uint32_t r = (uint32_t)__builtin_popcountll(a); *scc = r != 0; return lo(r); }
SR(s_ff1_64) { return lo(a ? (uint32_t)__builtin_ctzll(a) : 0xffffffffu); }
SR(s_cselect64) { return *scc ? a : b; }
SR(s_bitcmp1) { *scc = (int)((uint32_t)a >> (b & 31) & 1); return KEEP; }
SR(s_cmp) { *scc = (int)r_cmp(a, b, 0, 0, p); return KEEP; }
SR(s_cmpk_eq) { *scc = (int32_t)a == p; return KEEP; }
/* saveexec: EXEC was b, the source a */
SR(s_and_se) { uint64_t r = a & b; *scc = r != 0; return r; }
SR(s_andn2_se) { uint64_t r = a & ~b; *scc = r != 0; return r; }
SR(s_or_se) { uint64_t r = a | b; *scc = r != 0; return r; }
SR(s_xor_se) { uint64_t r = a ^ b; *scc = r != 0; return r; }
/* branches on a 64-bit EXEC/VCC = a: 1 when taken */
SR(s_br_z) { return lo(a == 0 ? 1 : 2); }
SR(s_br_nz) { return lo(a != 0 ? 1 : 2); }

#define S(k, ref, p, set, pm) {k, ref, p, set, pm, -1}
#define SB(k, ref, p, set, bs) {k, ref, p, set, PS, bs}

static const struct scase salu_cases[] = {
  S("s_mov_b32", s_mov32, 0, S_SC32, PS),
  S("s_mov_b32_k", s_const, 0, S_SC32, PS),
  S("s_mov_b64", s_mov64, 0, S_I64, PS),
  S("s_mov_b64_k", s_mov64_k, 0, S_I64, PS),
  S("s_movk_i32", s_movk, 0, S_SC32, PS),
  S("s_abs_i32", s_abs, 0, S_SC32, PS),
  S("s_add_i32", s_add_i, 0, S_SC32, P32),
  S("s_addc_u32", s_addc, 0, S_SC32, P32),
  S("s_sub_u32", s_sub, 0, S_SC32, P32),
  S("s_subb_u32", s_subb, 0, S_SC32, P32),
  S("s_addk_i32_m", s_addk, -32768, S_SC32, PS),
  S("s_addk_i32_p", s_addk, 0x7fff, S_SC32, PS),
  S("s_addk_i32_1", s_addk, 1, S_SC32, PS),
  S("s_mul_i32", s_mul, 0, S_SC32, PS),
  S("s_max_i32", s_max_i, 0, S_SC32, P32),
  S("s_max_u32", s_max_u, 0, S_SC32, P32),
  S("s_min_u32", s_min_u, 0, S_SC32, P32),
  S("s_and_b32", s_and32, 0, S_SC32, P32),
  S("s_xor_b32", s_xor32, 0, S_SC32, P32),
  S("s_and_b64", s_and64, 0, S_I64, P64),
  S("s_andn2_b64", s_andn2_64, 0, S_I64, P64),
  S("s_or_b64", s_or64, 0, S_I64, P64),
  S("s_xor_b64", s_xor64, 0, S_I64, P64),
  S("s_lshr_b32", s_lshr32, 0, S_SC32, PS),
  S("s_lshl_b64", s_lshl64, 0, S_I64, PS),
  S("s_lshr_b64", s_lshr64, 0, S_I64, PS),
  SB("s_bfe_i32", s_bfe_i, 0, S_SC32, S_BFE),
  S("s_brev_b32", s_brev, 0, S_SC32, PS),
  S("s_sext_i32_i8", s_sext8, 0, S_SC32, PS),
  S("s_bcnt1_i32_b64", s_bcnt1_64, 0, S_I64, PS),
  S("s_ff1_i32_b64", s_ff1_64, 0, S_I64, PS),
  S("s_cselect_b64", s_cselect64, 0, S_I64, PS),
};

static const struct scase scmp_cases[] = {
  S("s_bitcmp1_b32", s_bitcmp1, 0, S_SC32, PS),
  S("s_cmp_eq_u64", s_cmp, CP(EQ, TU64), S_I64, P64),
  S("s_cmp_lg_u64", s_cmp, CP(NE, TU64), S_I64, P64),
  S("s_cmp_ge_i32", s_cmp, CP(GE, TI32), S_SC32, P32),
  S("s_cmp_ge_u32", s_cmp, CP(GE, TU32), S_SC32, P32),
  S("s_cmp_gt_i32", s_cmp, CP(GT, TI32), S_SC32, P32),
  S("s_cmp_gt_u32", s_cmp, CP(GT, TU32), S_SC32, P32),
  S("s_cmp_lg_u32", s_cmp, CP(NE, TU32), S_SC32, P32),
  S("s_cmp_lt_u32", s_cmp, CP(LT, TU32), S_SC32, P32),
  S("s_cmpk_eq_i32_a", s_cmpk_eq, 0x20f, S_SC32, PS),
  S("s_cmpk_eq_i32_m", s_cmpk_eq, -32768, S_SC32, PS),
  S("s_cmpk_eq_i32_f", s_cmpk_eq, -1, S_SC32, PS),
};

static const struct scase sexec_cases[] = {
  S("s_and_saveexec_b64", s_and_se, 0, S_I64, P64),
  S("s_andn2_saveexec_b64", s_andn2_se, 0, S_I64, P64),
  S("s_or_saveexec_b64", s_or_se, 0, S_I64, P64),
  S("s_xor_saveexec_b64", s_xor_se, 0, S_I64, P64),
  S("s_cbranch_execz", s_br_z, 0, S_I64, PS),
  S("s_cbranch_execnz", s_br_nz, 0, S_I64, PS),
  S("s_cbranch_vccz", s_br_z, 0, S_I64, PS),
  S("s_cbranch_vccnz", s_br_nz, 0, S_I64, PS),
};

/* two waves of one workgroup meet at s_barrier and read each other's LDS stores */
static void barrier_case(enum isa_target t)
{
  struct op_ctx x;
  op_setup(&x, "op_int", t);
  for (unsigned i = 0; i < 128; i++)
    x.a[i] = 0x1000u * i + 7;
  void *args[4] = {x.a, x.b, x.c, x.out};
  struct harness_launch L = {.name = "t_barrier2", .grid = {128, 1, 1}, .block = {128, 1, 1},
                             .kernarg = args, .kernarg_size = sizeof(args)};
  struct isa_result r;
  cr_assert_eq(harness_run(&x.h, &L, &r), 0);
  cr_assert_eq(r.status, ISA_OK, "t_barrier2: status %d: %s", r.status, r.message);
  for (unsigned i = 0; i < 128; i++)
    cr_expect_eq(x.out[i], x.a[i ^ 64], "t_barrier2 (%s) lane %u: got 0x%x want 0x%x",
                 op_target_name(t), i, x.out[i], x.a[i ^ 64]);
  op_close(&x);
}

/* three waves, the third ending before the first barrier: the other two still meet at each of
 * three barriers (out[i] = a[i] only if each held) and nothing waits for the one that ended */
static void barrier_exit_case(enum isa_target t)
{
  struct op_ctx x;
  op_setup(&x, "op_int", t);
  for (unsigned i = 0; i < 128; i++) {
    x.a[i] = 0x2000u * i + 3;
    x.out[i] = 0xdeadbeef;
  }
  void *args[4] = {x.a, x.b, x.c, x.out};
  struct harness_launch L = {.name = "t_barrier_exit", .grid = {192, 1, 1},
                             .block = {192, 1, 1}, .kernarg = args,
                             .kernarg_size = sizeof(args)};
  struct isa_result r;
  cr_assert_eq(harness_run(&x.h, &L, &r), 0);
  cr_assert_eq(r.status, ISA_OK, "t_barrier_exit: status %d: %s", r.status, r.message);
  for (unsigned i = 0; i < 128; i++)
    cr_expect_eq(x.out[i], x.a[i], "t_barrier_exit (%s) lane %u: got 0x%x want 0x%x",
                 op_target_name(t), i, x.out[i], x.a[i]);
  op_close(&x);
}

#define VGROUP(name, cases)                                                                 \
  Test(isa_op_int_gfx90a, name, .init = init_sets) { run_vcases(ISA_GFX90A, cases, OP_N(cases)); } \
  Test(isa_op_int_gfx942, name, .init = init_sets) { run_vcases(ISA_GFX942, cases, OP_N(cases)); }
#define SGROUP(name, cases)                                                                 \
  Test(isa_op_int_gfx90a, name, .init = init_sets) { run_scases(ISA_GFX90A, cases, OP_N(cases)); } \
  Test(isa_op_int_gfx942, name, .init = init_sets) { run_scases(ISA_GFX942, cases, OP_N(cases)); }

VGROUP(bitwise_shift_minmax, bitwise_cases)
VGROUP(int16, b16_cases)
VGROUP(sdwa_dpp, sdwa_dpp_cases)
VGROUP(carry_borrow, carry_cases)
VGROUP(int_compare, cmp_cases)
VGROUP(int64, v64_cases)
VGROUP(lane_ops, lane_cases)
VGROUP(control_flow, flow_cases)
SGROUP(salu, salu_cases)
SGROUP(salu_compare, scmp_cases)
SGROUP(salu_exec_branch, sexec_cases)
Test(isa_op_int_gfx90a, barrier_two_waves) { barrier_case(ISA_GFX90A); }
Test(isa_op_int_gfx942, barrier_two_waves) { barrier_case(ISA_GFX942); }
Test(isa_op_int_gfx90a, barrier_wave_ended) { barrier_exit_case(ISA_GFX90A); }
Test(isa_op_int_gfx942, barrier_wave_ended) { barrier_exit_case(ISA_GFX942); }
