/* Per-instruction execution tests: kernels/alu_tests.s assembled for gfx90a and gfx942, run on
 * the interpreter over edge values (NaN, infinities, denormals, signed zeros, overflow), with an
 * EXEC mask with holes; every lane is compared with a value computed here on the CPU. */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "op_check.h"

#define HOLES OP_HOLES
#define MARK OP_MARK
#define N(a) OP_N(a)
#define F op_f
#define U op_u
#define D op_d
#define UD op_ud
#define h2f op_h2f
#define f2h op_f2h
#define f32_edges op_f32_edges
#define i32_edges op_i32_edges
#define f64_edges op_f64_edges
#define i64_edges op_i64_edges
#define f16_edges op_f16_edges

/* The kernels of kernels/alu_tests.s; the frame and the comparison live in op_check.c. */
static void check32(enum isa_target t, const char *name, const uint32_t *set, size_t n, op_ref32 ref, enum op_cmp how)
{
  op_check32("alu_tests", t, name, set, n, ref, how);
}
static void check64(enum isa_target t, const char *name, const uint64_t *set, size_t n, op_ref64 ref, bool fp)
{
  op_check64("alu_tests", t, name, set, n, ref, fp);
}

/* ---- CPU references (written from the ISA guide's definitions) ---- */

/* v_min/v_max in IEEE mode (MODE.IEEE, on for compute kernels) on the bits: a signalling NaN
 * gives it quieted, a quiet NaN gives the other operand, -0 orders below +0. Not libm's
 * fminf/fmaxf: clang inlines them as llvm.minnum, which passes a signalling NaN's partner
 * through, so the reference would depend on the compiler building this test. */
static uint32_t ieee_mm32(uint32_t a, uint32_t b, bool max)
{
  bool an = (a & 0x7fffffff) > 0x7f800000, bn = (b & 0x7fffffff) > 0x7f800000;
  if (an && !(a & 0x400000)) return a | 0x400000;
  if (bn && !(b & 0x400000)) return b | 0x400000;
  if (an) return b;
  if (bn) return a;
  float x = F(a), y = F(b);
  if (x == y)
    return max ? ((a >> 31) ? b : a) : ((a >> 31) ? a : b);
  return (max ? x > y : x < y) ? a : b;
}
static uint64_t ieee_mm64(uint64_t a, uint64_t b, bool max)
{
  const uint64_t q = 1ull << 51, inf = 0x7ff0000000000000ull;
  bool an = (a & ~(1ull << 63)) > inf, bn = (b & ~(1ull << 63)) > inf;
  if (an && !(a & q)) return a | q;
  if (bn && !(b & q)) return b | q;
  if (an) return b;
  if (bn) return a;
  double x = D(a), y = D(b);
  if (x == y)
    return max ? ((a >> 63) ? b : a) : ((a >> 63) ? a : b);
  return (max ? x > y : x < y) ? a : b;
}

static uint32_t r_add_f32(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v) { (void)c; (void)l; (void)v; return U(F(a) + F(b)); }
static uint32_t r_sub_f32(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v) { (void)c; (void)l; (void)v; return U(F(a) - F(b)); }
static uint32_t r_mul_f32(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v) { (void)c; (void)l; (void)v; return U(F(a) * F(b)); }
static uint32_t r_fma_f32(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v) { (void)l; (void)v; return U(fmaf(F(a), F(b), F(c))); }
static uint32_t r_min_f32(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v) { (void)c; (void)l; (void)v; return ieee_mm32(a, b, false); }
static uint32_t r_max_f32(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v) { (void)c; (void)l; (void)v; return ieee_mm32(a, b, true); }
static uint32_t r_neg_abs(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v) { (void)c; (void)l; (void)v; return U(-fabsf(F(a)) + fabsf(F(b))); }
static uint32_t r_mul_clamp(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v)
{
  (void)c; (void)l; (void)v;
  float r = F(a) * F(b);
  /* clamp to [0, 1]; NaN and -0 become +0 */
  return U(isnan(r) || r <= 0 ? 0.0f : r > 1 ? 1.0f : r);
}
static uint32_t r_mul_omod2(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v) { (void)c; (void)l; (void)v; return U(F(a) * F(b) * 2.0f); }
static uint32_t r_cvt_i32(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v)
{
  (void)b; (void)c; (void)l; (void)v;
  float f = F(a);
  if (isnan(f)) return 0;
  if (f >= 2147483648.0f) return 0x7fffffff;
  if (f <= -2147483648.0f) return 0x80000000;
  return (uint32_t)(int32_t)f;
}
static uint32_t r_cvt_u32(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v)
{
  (void)b; (void)c; (void)l; (void)v;
  float f = F(a);
  if (isnan(f) || f <= 0) return 0;
  if (f >= 4294967296.0f) return 0xffffffff;
  return (uint32_t)f;
}
static uint32_t r_cvt_f32_i32(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v) { (void)b; (void)c; (void)l; (void)v; return U((float)(int32_t)a); }
static uint32_t r_rcp(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v) { (void)b; (void)c; (void)l; (void)v; return U(1.0f / F(a)); }
static uint32_t r_sqrt(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v) { (void)b; (void)c; (void)l; (void)v; return U(sqrtf(F(a))); }
static uint32_t r_floor(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v) { (void)b; (void)c; (void)l; (void)v; return U(floorf(F(a))); }
static uint32_t r_fract(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v)
{
  (void)b; (void)c; (void)l; (void)v;
  float f = F(a);
  if (isinf(f)) return U(NAN);
  float r = f - floorf(f);
  return U(r >= 1.0f ? nextafterf(1.0f, 0.0f) : r);
}
static uint32_t r_ldexp(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v) { (void)c; (void)l; (void)v; return U(ldexpf(F(a), (int32_t)b)); }
static uint32_t r_med3(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v)
{
  (void)l; (void)v;
  if (isnan(F(a)) || isnan(F(b)) || isnan(F(c)))
    return ieee_mm32(ieee_mm32(a, b, false), c, false);
  uint32_t lo = ieee_mm32(a, b, false), hi = ieee_mm32(a, b, true);
  return ieee_mm32(lo, ieee_mm32(hi, c, false), true);
}
static uint32_t r_add_inline(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v) { (void)b; (void)c; (void)l; (void)v; return U(0.5f + F(a)); }
static uint32_t r_add_literal(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v) { (void)b; (void)c; (void)l; (void)v; return U(F(0x40490fdb) + F(a)); }
static uint32_t r_madmk(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v) { (void)c; (void)l; (void)v; volatile float p = F(a) * 1.5f; return U(p + F(b)); }
static uint32_t r_madmk942(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v) { (void)c; (void)l; (void)v; return U(fmaf(F(a), 1.5f, F(b))); }
static uint32_t r_div_f32(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v) { (void)c; (void)l; (void)v; return U(F(a) / F(b)); }
static uint32_t r_add_u32(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v) { (void)c; (void)l; (void)v; return a + b; }
static uint32_t r_sub_u32(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v) { (void)c; (void)l; (void)v; return a - b; }
static uint32_t r_add_co(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v) { (void)c; (void)l; (void)v; uint64_t s = (uint64_t)a + b; return (uint32_t)s + (uint32_t)(s >> 32); }
static uint32_t r_mul_lo(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v) { (void)c; (void)l; (void)v; return a * b; }
static uint32_t r_mul_hi_u(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v) { (void)c; (void)l; (void)v; return (uint32_t)((uint64_t)a * b >> 32); }
static uint32_t r_mul_hi_i(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v) { (void)c; (void)l; (void)v; return (uint32_t)((int64_t)(int32_t)a * (int32_t)b >> 32); }
static uint32_t r_mul_u24(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v) { (void)c; (void)l; (void)v; return (a & 0xffffff) * (b & 0xffffff); }
static uint32_t r_min_i32(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v) { (void)c; (void)l; (void)v; return (int32_t)a < (int32_t)b ? a : b; }
static uint32_t r_max_u32(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v) { (void)c; (void)l; (void)v; return a > b ? a : b; }
static uint32_t r_lshl(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v) { (void)c; (void)l; (void)v; return a << (b & 31); }
static uint32_t r_lshr(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v) { (void)c; (void)l; (void)v; return a >> (b & 31); }
static uint32_t r_ashr(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v) { (void)c; (void)l; (void)v; return (uint32_t)((int32_t)a >> (b & 31)); }
static uint32_t r_bfe_u(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v) { (void)b; (void)c; (void)l; (void)v; return (a >> 3) & 0x7f; }
static uint32_t r_bfe_i(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v) { (void)b; (void)c; (void)l; (void)v; return (uint32_t)(((int32_t)(a << 18)) >> 23); }
static uint32_t r_bfi(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v) { (void)l; (void)v; return (a & b) | (~a & c); }
static uint32_t r_alignbit(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v) { (void)l; (void)v; return (uint32_t)((((uint64_t)a << 32) | b) >> (c & 31)); }
static uint32_t r_perm(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v)
{
  (void)c; (void)l; (void)v;
  /* selector 0x0c070501: bytes {b.byte1, b.byte5=a.byte1, a.byte3, 0x00} */
  uint64_t s = (uint64_t)a << 32 | b;
  uint32_t b0 = (uint32_t)(s >> 8) & 0xff, b1 = (uint32_t)(s >> 40) & 0xff, b2 = (uint32_t)(s >> 56) & 0xff;
  return b0 | b1 << 8 | b2 << 16;
}
static uint32_t r_add3(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v) { (void)l; (void)v; return a + b + c; }
static uint32_t r_lshl_add(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v) { (void)c; (void)l; (void)v; return (a << 3) + b; }
static uint32_t r_xad(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v) { (void)l; (void)v; return (a ^ b) + c; }
static uint32_t r_bcnt(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v) { (void)c; (void)l; (void)v; return (uint32_t)__builtin_popcount(a) + b; }
static uint32_t r_ffbh(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v) { (void)b; (void)c; (void)l; (void)v; return a ? (uint32_t)__builtin_clz(a) : 0xffffffff; }
static uint32_t r_bfrev(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v)
{
  (void)b; (void)c; (void)l; (void)v;
  uint32_t r = 0;
  for (int i = 0; i < 32; i++) if (a >> i & 1) r |= 1u << (31 - i);
  return r;
}
static uint32_t r_cndmask(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v) { (void)l; (void)v; return (int32_t)a < (int32_t)b ? a : c; }
static uint32_t r_class(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v)
{
  (void)b; (void)c; (void)l; (void)v;
  /* mask 0x3f0: -denorm, -0, +0, +denorm, +normal, +inf */
  float f = F(a);
  if (isnan(f)) return 0;
  if (isinf(f)) return f > 0;
  if (f == 0) return 1;
  if (fpclassify(f) == FP_SUBNORMAL) return 1;
  return f > 0;
}
static uint32_t r_nge(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v) { (void)c; (void)l; (void)v; return !(F(a) >= F(b)); }
static uint32_t r_mbcnt(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v) { (void)a; (void)b; (void)c; (void)v; return l; }
static uint32_t r_firstlane(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v) { (void)a; (void)b; (void)c; (void)l; return v[__builtin_ctzll(HOLES)]; }
static uint32_t r_row_shr1(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v)
{
  (void)a; (void)b; (void)c;
  /* row_shr:1 without bound_ctrl: row lane 0 and lanes whose source is disabled keep v5 = 0 */
  if ((l & 15) == 0 || !(HOLES >> (l - 1) & 1)) return 0;
  return v[l - 1];
}
static uint32_t r_quad_perm(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v)
{
  (void)a; (void)c;
  /* bound_ctrl: a source lane outside EXEC reads as 0 (gfx9 DPP has no fetch-inactive bit) */
  unsigned s = (l & ~3u) | (3 - (l & 3));
  return ((HOLES >> s & 1) ? v[s] : 0) + b;
}
static uint32_t r_sdwa_byte1(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v) { (void)c; (void)l; (void)v; return ((a >> 8) & 0xff) + (b & 0xffff); }
static uint32_t r_sdwa_sext(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v)
{
  (void)b; (void)c; (void)l; (void)v;
  uint32_t r = MARK;
  r = (r & 0xffff) | (a & 0xff) << 16;
  r = (r & 0xffff0000u) | ((uint32_t)(int32_t)(int8_t)(a >> 16) & 0xffff);
  return r;
}
static uint32_t r_swizzle_rev8(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v)
{
  (void)a; (void)b; (void)c;
  unsigned s = l ^ 7;   /* swizzle(REVERSE,8): xor_mask 7 within groups of 32 */
  return (HOLES >> s & 1) ? v[s] : 0;
}
static uint32_t r_bpermute(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v)
{
  (void)a; (void)b; (void)c;
  unsigned s = (l + 1) & 63;
  return (HOLES >> s & 1) ? v[s] : 0;
}

static uint32_t r_cvt_f16(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v) { (void)b; (void)c; (void)l; (void)v; return f2h(F(a)); }
static uint32_t r_cvt_f32_f16(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v) { (void)b; (void)c; (void)l; (void)v; return U(h2f((uint16_t)a)); }
static uint32_t r_pk_add_f16(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v)
{
  (void)c; (void)l; (void)v;
  return f2h(h2f((uint16_t)a) + h2f((uint16_t)b)) | (uint32_t)f2h(h2f((uint16_t)(a >> 16)) + h2f((uint16_t)(b >> 16))) << 16;
}
static uint32_t r_pk_fma_opsel(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v)
{
  (void)l; (void)v;
  /* op_sel:[1,0,0] op_sel_hi:[0,1,1]: low = a.hi*b.lo+c.lo, high = a.lo*b.hi+c.hi */
  uint16_t lo = f2h((float)fma(h2f((uint16_t)(a >> 16)), h2f((uint16_t)b), h2f((uint16_t)c)));
  uint16_t hi = f2h((float)fma(h2f((uint16_t)a), h2f((uint16_t)(b >> 16)), h2f((uint16_t)(c >> 16))));
  return lo | (uint32_t)hi << 16;
}
static uint32_t r_fma_mix(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v) { (void)l; (void)v; return U(fmaf(h2f((uint16_t)a), h2f((uint16_t)b), F(c))); }
static uint32_t r_dot2(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v)
{
  (void)l; (void)v;
  return U(F(c) + h2f((uint16_t)a) * h2f((uint16_t)b) + h2f((uint16_t)(a >> 16)) * h2f((uint16_t)(b >> 16)));
}

/* float inline constants in packed operands: the operand's own type, in its low half */
static uint32_t r_pk_add_f16_const(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v)
{
  (void)b; (void)c; (void)l; (void)v;
  return f2h(h2f((uint16_t)a) + 1.0f) | (uint32_t)f2h(h2f((uint16_t)(a >> 16)) + 1.0f) << 16;
}
static uint32_t r_dot2_const(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v)
{
  (void)c; (void)l; (void)v;
  return U(1.0f + h2f((uint16_t)a) * h2f((uint16_t)b) + h2f((uint16_t)(a >> 16)) * h2f((uint16_t)(b >> 16)));
}
/* pairs of f32 edge values without NaN (the subtraction keeps every bit defined) */
static const uint64_t pk32_edges[] = {
  0x000000003f800000ull, 0x80000000bf800000ull, 0x7f800000ff800000ull, 0x000116c2800116c2ull,
  0x7f7fffff00800000ull, 0x3f80000040400000ull, 0xc02000007149f2caull, 0x4b8000013dcccccdull,
  0x3effffff00000001ull, 0x4f800000cf000000ull,
};

static uint64_t r_pk_add_f32_const(uint64_t a, uint64_t b, uint64_t c, unsigned l)
{
  (void)b; (void)c; (void)l;
  return (uint64_t)U(1.0f - F((uint32_t)(a >> 32))) << 32 | U(1.0f - F((uint32_t)a));
}

/* ---- half precision (low 16 bits; the upper halves of the inputs carry junk that must be
 * ignored) ---- */
static float HL(uint32_t v) { return h2f((uint16_t)v); }
static bool nan16(uint16_t h) { return (h & 0x7c00) == 0x7c00 && (h & 0x3ff); }

/* v_div_fixup_f16 (ISA guide): special cases of numerator S2 / denominator S1, else the
 * quotient S0 with the sign of S1 ^ S2 */
static uint32_t r_div_fixup_f16(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v)
{
  (void)l; (void)v;
  uint16_t q = (uint16_t)a, den = (uint16_t)b, num = (uint16_t)c;
  uint16_t sign = (den ^ num) & 0x8000;
  if (nan16(num)) return 0x7e00;
  if (nan16(den)) return 0x7e00;
  bool den0 = !(den & 0x7fff), num0 = !(num & 0x7fff);
  bool deninf = (den & 0x7fff) == 0x7c00, numinf = (num & 0x7fff) == 0x7c00;
  if (den0 && num0) return 0x7e00;
  if (deninf && numinf) return 0x7e00;
  if (den0 || numinf) return sign | 0x7c00;
  if (deninf || num0) return sign;
  if (nan16(q)) return sign | 0x7c00;
  return sign | (q & 0x7fff);
}
static uint32_t r_div_f16(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v)
{
  (void)c; (void)l; (void)v;
  return f2h(HL(a) / HL(b));
}
/* IEEE-mode v_min/v_max on halves (MODE.IEEE, on for compute kernels): a signalling NaN input
 * gives a quiet NaN; a quiet NaN input gives the other operand. */
static bool snan16(uint16_t h) { return nan16(h) && !(h & 0x200); }
static uint16_t min16(uint16_t a, uint16_t b, bool max)
{
  if (snan16(a) || snan16(b)) return 0x7e00;
  if (nan16(a)) return b;
  if (nan16(b)) return a;
  return f2h(F(ieee_mm32(U(h2f(a)), U(h2f(b)), max)));
}
static uint32_t r_min3_f16(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v) { (void)l; (void)v; return min16(min16((uint16_t)a, (uint16_t)b, false), (uint16_t)c, false); }
static uint32_t r_max3_f16(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v) { (void)l; (void)v; return min16(min16((uint16_t)a, (uint16_t)b, true), (uint16_t)c, true); }
/* v_med3_f16: min3 when any input is NaN, else the middle value */
static uint32_t r_med3_f16(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v)
{
  if (nan16((uint16_t)a) || nan16((uint16_t)b) || nan16((uint16_t)c))
    return r_min3_f16(a, b, c, l, v);
  float x[3] = {HL(a), HL(b), HL(c)};
  for (int i = 0; i < 3; i++)
    for (int j = i + 1; j < 3; j++)
      if (x[j] < x[i]) { float t = x[i]; x[i] = x[j]; x[j] = t; }
  return f2h(x[1]);
}
static uint32_t r_frexp_mant_f16(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v)
{
  (void)b; (void)c; (void)l; (void)v;
  float f = HL(a);
  int e;
  if (isnan(f) || isinf(f)) return (uint16_t)a;
  return f2h(frexpf(f, &e));
}
static uint32_t r_frexp_exp_f16(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v)
{
  (void)b; (void)c; (void)l; (void)v;
  float f = HL(a);
  int e = 0;
  if (!isnan(f) && !isinf(f)) frexpf(f, &e);
  return (uint16_t)e;
}
static uint32_t r_rcp_f16(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v) { (void)b; (void)c; (void)l; (void)v; return f2h(1.0f / HL(a)); }
static uint32_t r_sqrt_f16(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v) { (void)b; (void)c; (void)l; (void)v; return f2h(sqrtf(HL(a))); }
static uint32_t r_ldexp_f16(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v)
{
  (void)c; (void)l; (void)v;
  /* the exponent is the signed 16-bit S1 */
  return f2h((float)ldexp((double)HL(a), (int16_t)b));
}
static uint32_t r_fract_f16(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v)
{
  (void)b; (void)c; (void)l; (void)v;
  float f = HL(a);
  if (isnan(f) || isinf(f)) return 0x7e00;
  uint16_t r = f2h(f - floorf(f));
  return r > 0x3bff ? 0x3bff : r;   /* capped below 1.0 */
}
static uint32_t r_rndne_f16(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v) { (void)b; (void)c; (void)l; (void)v; return f2h(nearbyintf(HL(a))); }
static uint32_t r_trunc_f16(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v) { (void)b; (void)c; (void)l; (void)v; return f2h(truncf(HL(a))); }
static uint32_t r_fma_f16(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v)
{
  (void)l; (void)v;
  /* exact: an f16 product fits a double, and so does its sum with an f16 (before rounding) */
  return f2h((float)((double)HL(a) * HL(b) + HL(c)));
}
static uint32_t r_cvt_norm_i16(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v)
{
  (void)b; (void)c; (void)l; (void)v;
  float f = HL(a);
  if (isnan(f)) return 0;
  f = f < -1 ? -1 : f > 1 ? 1 : f;
  return (uint16_t)(int16_t)nearbyintf(f * 32767.0f);
}
static uint16_t unorm_ref(float f)
{
  if (isnan(f)) return 0;
  f = f < 0 ? 0 : f > 1 ? 1 : f;
  return (uint16_t)nearbyintf(f * 65535.0f);
}
static uint32_t r_cvt_pknorm_u16(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v) { (void)c; (void)l; (void)v; return unorm_ref(HL(a)) | (uint32_t)unorm_ref(HL(b)) << 16; }
static uint32_t r_cvt_i16_f16(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v)
{
  (void)b; (void)c; (void)l; (void)v;
  float f = HL(a);
  if (isnan(f)) return 0;
  return (uint16_t)(f >= 32767 ? 32767 : f <= -32768 ? -32768 : (int16_t)f);
}
/* v_cmp_class_f16: S1 is a mask of the classes; b's low bits pick several per lane */
static uint32_t r_cmp_class_f16(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v)
{
  (void)c; (void)l; (void)v;
  uint16_t h = (uint16_t)a;
  bool neg = h >> 15, e0 = !(h & 0x7c00), emax = (h & 0x7c00) == 0x7c00, m = h & 0x3ff;
  int bit;
  if (emax && m) bit = (h & 0x200) ? 1 : 0;
  else if (emax) bit = neg ? 2 : 9;
  else if (e0 && !m) bit = neg ? 5 : 6;
  else if (e0) bit = neg ? 4 : 7;
  else bit = neg ? 3 : 8;
  return b >> bit & 1;
}
static uint32_t r_dot2c_f32_f16(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v)
{
  (void)l; (void)v;
  return U(F(c) + HL(a) * HL(b) + HL(a >> 16) * HL(b >> 16));
}
static uint32_t r_med3_i16(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v)
{
  (void)l; (void)v;
  int x[3] = {(int16_t)a, (int16_t)b, (int16_t)c};
  for (int i = 0; i < 3; i++)
    for (int j = i + 1; j < 3; j++)
      if (x[j] < x[i]) { int t = x[i]; x[i] = x[j]; x[j] = t; }
  return (uint16_t)x[1];
}
static uint32_t r_sad_u16(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v)
{
  (void)l; (void)v;
  return c + (uint32_t)abs((int)(a & 0xffff) - (int)(b & 0xffff)) + (uint32_t)abs((int)(a >> 16) - (int)(b >> 16));
}

static uint64_t r_add_f64(uint64_t a, uint64_t b, uint64_t c, unsigned l) { (void)c; (void)l; return UD(D(a) + D(b)); }
static uint64_t r_mul_f64(uint64_t a, uint64_t b, uint64_t c, unsigned l) { (void)c; (void)l; return UD(D(a) * D(b)); }
static uint64_t r_fma_f64(uint64_t a, uint64_t b, uint64_t c, unsigned l) { (void)l; return UD(fma(D(a), D(b), D(c))); }
static uint64_t r_max_f64(uint64_t a, uint64_t b, uint64_t c, unsigned l) { (void)c; (void)l; return ieee_mm64(a, b, true); }
static uint64_t r_fmac_lit(uint64_t a, uint64_t b, uint64_t c, unsigned l) { (void)b; (void)l; return UD(fma(3.0, D(a), D(c))); }
static uint64_t r_add_neg(uint64_t a, uint64_t b, uint64_t c, unsigned l) { (void)b; (void)c; (void)l; return UD(-D(a) + -4.0); }
static uint64_t r_rcp_f64(uint64_t a, uint64_t b, uint64_t c, unsigned l) { (void)b; (void)c; (void)l; return UD(1.0 / D(a)); }
static uint64_t r_floor_f64(uint64_t a, uint64_t b, uint64_t c, unsigned l) { (void)b; (void)c; (void)l; return UD(floor(D(a))); }
static uint64_t r_lshl64(uint64_t a, uint64_t b, uint64_t c, unsigned l) { (void)c; (void)l; return a << (b & 63); }
static uint64_t r_ashr64(uint64_t a, uint64_t b, uint64_t c, unsigned l) { (void)c; (void)l; return (uint64_t)((int64_t)a >> (b & 63)); }
static uint64_t r_mad_u64(uint64_t a, uint64_t b, uint64_t c, unsigned l) { (void)l; return (uint64_t)(uint32_t)a * (uint32_t)b + c; }
static uint64_t r_cvt_f64_i32(uint64_t a, uint64_t b, uint64_t c, unsigned l) { (void)b; (void)c; (void)l; return UD((double)(int32_t)a); }
static uint64_t r_cmp_u64(uint64_t a, uint64_t b, uint64_t c, unsigned l) { (void)c; (void)l; return a < b; }
static uint64_t r_div_f64(uint64_t a, uint64_t b, uint64_t c, unsigned l) { (void)c; (void)l; return UD(D(a) / D(b)); }

#define T32(tname, kname, set, fn, fp)                                                   \
  Test(isa_alu_gfx90a, tname) { check32(ISA_GFX90A, kname, set, N(set), fn, (fp) ? FP32 : BITS); } \
  Test(isa_alu_gfx942, tname) { check32(ISA_GFX942, kname, set, N(set), fn, (fp) ? FP32 : BITS); }
#define T64(tname, kname, set, fn, fp)                                                   \
  Test(isa_alu_gfx90a, tname) { check64(ISA_GFX90A, kname, set, N(set), fn, fp); }      \
  Test(isa_alu_gfx942, tname) { check64(ISA_GFX942, kname, set, N(set), fn, fp); }

T32(add_f32, "t_add_f32", f32_edges, r_add_f32, true)
T32(sub_f32, "t_sub_f32", f32_edges, r_sub_f32, true)
T32(mul_f32, "t_mul_f32", f32_edges, r_mul_f32, true)
T32(fma_f32, "t_fma_f32", f32_edges, r_fma_f32, true)
T32(fmac_f32, "t_fmac_f32", f32_edges, r_fma_f32, true)
T32(min_f32, "t_min_f32", f32_edges, r_min_f32, true)
T32(max_f32, "t_max_f32", f32_edges, r_max_f32, true)
T32(neg_abs_f32, "t_neg_abs_f32", f32_edges, r_neg_abs, true)
T32(mul_clamp_f32, "t_mul_clamp_f32", f32_edges, r_mul_clamp, true)
T32(mul_omod2_f32, "t_mul_omod2_f32", f32_edges, r_mul_omod2, true)
T32(cvt_i32_f32, "t_cvt_i32_f32", f32_edges, r_cvt_i32, false)
T32(cvt_u32_f32, "t_cvt_u32_f32", f32_edges, r_cvt_u32, false)
T32(cvt_f32_i32, "t_cvt_f32_i32", i32_edges, r_cvt_f32_i32, true)
T32(cvt_f32_f16, "t_cvt_f32_f16", i32_edges, r_cvt_f32_f16, true)
T32(rcp_f32, "t_rcp_f32", f32_edges, r_rcp, true)
T32(sqrt_f32, "t_sqrt_f32", f32_edges, r_sqrt, true)
T32(floor_f32, "t_floor_f32", f32_edges, r_floor, true)
T32(fract_f32, "t_fract_f32", f32_edges, r_fract, true)
T32(ldexp_f32, "t_ldexp_f32", f32_edges, r_ldexp, true)
T32(med3_f32, "t_med3_f32", f32_edges, r_med3, true)
T32(add_inline_f32, "t_add_inline_f32", f32_edges, r_add_inline, true)
T32(add_literal_f32, "t_add_literal_f32", f32_edges, r_add_literal, true)
Test(isa_alu_gfx90a, madmk_f32) { check32(ISA_GFX90A, "t_madmk_f32", f32_edges, N(f32_edges), r_madmk, FP32); }
Test(isa_alu_gfx942, fmamk_f32) { check32(ISA_GFX942, "t_madmk_f32", f32_edges, N(f32_edges), r_madmk942, FP32); }
Test(isa_alu_gfx90a, cvt_f16_f32) { check32(ISA_GFX90A, "t_cvt_f16_f32", f32_edges, N(f32_edges), r_cvt_f16, FP16); }
Test(isa_alu_gfx942, cvt_f16_f32) { check32(ISA_GFX942, "t_cvt_f16_f32", f32_edges, N(f32_edges), r_cvt_f16, FP16); }
T32(div_f32_sequence, "t_div_f32_seq", f32_edges, r_div_f32, true)
T32(add_u32, "t_add_u32", i32_edges, r_add_u32, false)
T32(sub_u32, "t_sub_u32", i32_edges, r_sub_u32, false)
T32(add_co_addc, "t_add_co_u32", i32_edges, r_add_co, false)
T32(mul_lo_u32, "t_mul_lo_u32", i32_edges, r_mul_lo, false)
T32(mul_hi_u32, "t_mul_hi_u32", i32_edges, r_mul_hi_u, false)
T32(mul_hi_i32, "t_mul_hi_i32", i32_edges, r_mul_hi_i, false)
T32(mul_u32_u24, "t_mul_u32_u24", i32_edges, r_mul_u24, false)
T32(min_i32, "t_min_i32", i32_edges, r_min_i32, false)
T32(max_u32, "t_max_u32", i32_edges, r_max_u32, false)
T32(lshlrev_b32, "t_lshlrev_b32", i32_edges, r_lshl, false)
T32(lshrrev_b32, "t_lshrrev_b32", i32_edges, r_lshr, false)
T32(ashrrev_i32, "t_ashrrev_i32", i32_edges, r_ashr, false)
T32(bfe_u32, "t_bfe_u32", i32_edges, r_bfe_u, false)
T32(bfe_i32, "t_bfe_i32", i32_edges, r_bfe_i, false)
T32(bfi_b32, "t_bfi_b32", i32_edges, r_bfi, false)
T32(alignbit_b32, "t_alignbit_b32", i32_edges, r_alignbit, false)
T32(perm_b32, "t_perm_b32", i32_edges, r_perm, false)
T32(add3_u32, "t_add3_u32", i32_edges, r_add3, false)
T32(lshl_add_u32, "t_lshl_add_u32", i32_edges, r_lshl_add, false)
T32(xad_u32, "t_xad_u32", i32_edges, r_xad, false)
T32(bcnt_u32, "t_bcnt_u32", i32_edges, r_bcnt, false)
T32(ffbh_u32, "t_ffbh_u32", i32_edges, r_ffbh, false)
T32(bfrev_b32, "t_bfrev_b32", i32_edges, r_bfrev, false)
T32(cmp_cndmask, "t_cndmask", i32_edges, r_cndmask, false)
T32(cmp_class_f32, "t_cmp_class", f32_edges, r_class, false)
T32(cmp_nge_f32_e64, "t_cmp_nge_f32", f32_edges, r_nge, false)
T32(mbcnt, "t_mbcnt", i32_edges, r_mbcnt, false)
T32(readfirstlane, "t_readfirstlane", i32_edges, r_firstlane, false)
T32(dpp_row_shr, "t_dpp_row_shr1", i32_edges, r_row_shr1, false)
T32(dpp_quad_perm, "t_dpp_quad_perm", i32_edges, r_quad_perm, false)
T32(sdwa_byte_sel, "t_sdwa_byte1", i32_edges, r_sdwa_byte1, false)
T32(sdwa_sext_preserve, "t_sdwa_sext", i32_edges, r_sdwa_sext, false)
Test(isa_alu_gfx90a, pk_add_f16_inline_const) { check32(ISA_GFX90A, "t_pk_add_f16_const", i32_edges, N(i32_edges), r_pk_add_f16_const, PK16); }
Test(isa_alu_gfx942, pk_add_f16_inline_const) { check32(ISA_GFX942, "t_pk_add_f16_const", i32_edges, N(i32_edges), r_pk_add_f16_const, PK16); }
Test(isa_alu_gfx90a, pk_add_f16) { check32(ISA_GFX90A, "t_pk_add_f16", i32_edges, N(i32_edges), r_pk_add_f16, PK16); }
Test(isa_alu_gfx942, pk_add_f16) { check32(ISA_GFX942, "t_pk_add_f16", i32_edges, N(i32_edges), r_pk_add_f16, PK16); }
Test(isa_alu_gfx90a, pk_fma_f16_opsel) { check32(ISA_GFX90A, "t_pk_fma_f16_opsel", i32_edges, N(i32_edges), r_pk_fma_opsel, PK16); }
Test(isa_alu_gfx942, pk_fma_f16_opsel) { check32(ISA_GFX942, "t_pk_fma_f16_opsel", i32_edges, N(i32_edges), r_pk_fma_opsel, PK16); }
T32(fma_mix_f32, "t_fma_mix", i32_edges, r_fma_mix, true)
T32(dot2_f32_f16, "t_dot2_f32_f16", i32_edges, r_dot2, true)
T32(dot2_f32_f16_const, "t_dot2_f32_f16_const", i32_edges, r_dot2_const, true)
T32(ds_swizzle, "t_swizzle_rev", i32_edges, r_swizzle_rev8, false)
T32(ds_bpermute, "t_bpermute", i32_edges, r_bpermute, false)

T64(add_f64, "t_add_f64", f64_edges, r_add_f64, true)
T64(mul_f64, "t_mul_f64", f64_edges, r_mul_f64, true)
T64(fma_f64, "t_fma_f64", f64_edges, r_fma_f64, true)
T64(max_f64, "t_max_f64", f64_edges, r_max_f64, true)
T64(fmac_literal_f64, "t_fmac_lit_f64", f64_edges, r_fmac_lit, true)
T64(add_neg_inline_f64, "t_add_neg_f64", f64_edges, r_add_neg, true)
T64(rcp_f64, "t_rcp_f64", f64_edges, r_rcp_f64, true)
T64(floor_f64, "t_floor_f64", f64_edges, r_floor_f64, true)
T64(lshlrev_b64, "t_lshlrev_b64", i64_edges, r_lshl64, false)
T64(ashrrev_i64, "t_ashrrev_i64", i64_edges, r_ashr64, false)
T64(mad_u64_u32, "t_mad_u64_u32", i64_edges, r_mad_u64, false)
T64(cvt_f64_i32, "t_cvt_f64_i32", i64_edges, r_cvt_f64_i32, true)
T64(cmp_lt_u64, "t_cmp_u64", i64_edges, r_cmp_u64, false)
T64(div_f64_sequence, "t_div_f64_seq", f64_edges, r_div_f64, true)
T64(pk_add_f32_const, "t_pk_add_f32_const", pk32_edges, r_pk_add_f32_const, false)

/* ---- scalar ALU: uniform operands a[0], b[0] ---- */

struct s_case { const char *k; uint32_t a, b, want; };

static void check_scalar(enum isa_target t, const struct s_case *cs, size_t n)
{
  for (size_t i = 0; i < n; i++) {
    struct op_ctx x;
    op_setup(&x, "alu_tests", t);
    x.a[0] = cs[i].a;
    x.b[0] = cs[i].b;
    op_run(&x, cs[i].k);
    for (unsigned l = 0; l < 64; l++) {
      uint32_t want = (HOLES >> l & 1) ? cs[i].want : MARK;
      cr_expect_eq(x.out[l], want, "%s(0x%x, 0x%x) lane %u: got 0x%08x want 0x%08x", cs[i].k,
                   cs[i].a, cs[i].b, l, x.out[l], want);
    }
    harness_close(&x.h);
  }
}

static const struct s_case scalar_cases[] = {
  {"s_add_scc", 0xffffffff, 2, 0x80000001},   /* carry out -> SCC -> bit 31 */
  {"s_add_scc", 5, 6, 11},
  {"s_sub_i32", 5, 7, 0xfffffffe},
  {"s_mul_hi_u32", 0xffffffff, 0xffffffff, 0xfffffffe},
  {"s_bfe_u32", 0x12345678, 0, 0x67},          /* offset 4, width 8 */
  {"s_ff1", 0x00f00000, 0, 20},
  {"s_ff1", 0, 0, 0xffffffff},
  {"s_flbit", 0x00f00000, 0, 8},
  {"s_bcnt1", 0xf0f0f0f0, 0, 16},
  {"s_ashr", 0x80000000, 4, 0xf8000000},
  {"s_min_i32", 0xffffffff, 3, 0xffffffff},
  {"s_cmp_branch", 1, 2, 1},
  {"s_cmp_branch", 3, 2, 2},
  {"s_setreg_roundtrip", 0x5, 0, 0x5},
};

Test(isa_alu_gfx90a, scalar_ops) { check_scalar(ISA_GFX90A, scalar_cases, N(scalar_cases)); }
Test(isa_alu_gfx942, scalar_ops) { check_scalar(ISA_GFX942, scalar_cases, N(scalar_cases)); }

#define T16(tname, kname, set, fn, how)                                                  \
  Test(isa_alu_gfx90a, tname) { check32(ISA_GFX90A, kname, set, N(set), fn, how); }      \
  Test(isa_alu_gfx942, tname) { check32(ISA_GFX942, kname, set, N(set), fn, how); }
T16(div_fixup_f16, "t_div_fixup_f16", f16_edges, r_div_fixup_f16, LO16)
T16(div_f16_sequence, "t_div_f16_seq", f16_edges, r_div_f16, LO16)
T16(med3_f16, "t_med3_f16", f16_edges, r_med3_f16, LO16)
T16(min3_f16, "t_min3_f16", f16_edges, r_min3_f16, LO16)
T16(max3_f16, "t_max3_f16", f16_edges, r_max3_f16, LO16)
T16(frexp_mant_f16, "t_frexp_mant_f16", f16_edges, r_frexp_mant_f16, LO16)
T16(frexp_exp_i16_f16, "t_frexp_exp_i16_f16", f16_edges, r_frexp_exp_f16, LO16)
T16(rcp_f16, "t_rcp_f16", f16_edges, r_rcp_f16, LO16)
T16(sqrt_f16, "t_sqrt_f16", f16_edges, r_sqrt_f16, LO16)
T16(ldexp_f16, "t_ldexp_f16", f16_edges, r_ldexp_f16, LO16)
T16(fract_f16, "t_fract_f16", f16_edges, r_fract_f16, LO16)
T16(rndne_f16, "t_rndne_f16", f16_edges, r_rndne_f16, LO16)
T16(trunc_f16, "t_trunc_f16", f16_edges, r_trunc_f16, LO16)
T16(fma_f16, "t_fma_f16", f16_edges, r_fma_f16, LO16)
T16(mad_f16, "t_mad_f16", f16_edges, r_fma_f16, LO16)
T16(cvt_norm_i16_f16, "t_cvt_norm_i16_f16", f16_edges, r_cvt_norm_i16, LO16)
T16(cvt_pknorm_u16_f16, "t_cvt_pknorm_u16_f16", f16_edges, r_cvt_pknorm_u16, BITS)
T16(cvt_i16_f16, "t_cvt_i16_f16", f16_edges, r_cvt_i16_f16, LO16)
T16(cmp_class_f16, "t_cmp_class_f16", f16_edges, r_cmp_class_f16, BITS)
T16(dot2c_f32_f16, "t_dot2c_f32_f16", i32_edges, r_dot2c_f32_f16, FP32)
T16(med3_i16, "t_med3_i16", i32_edges, r_med3_i16, LO16)
T16(sad_u16, "t_sad_u16", i32_edges, r_sad_u16, BITS)

/* v_trig_preop_f64 for segments 0 and 1 (the low dword of b), inputs with exponents up to
 * 1077 (larger ones start further into the constant): the result is bits 1..53 (segment 0) or
 * 54..106 (segment 1) of 2/pi, truncated, as a double. The reference takes them from a 113-bit
 * quad-precision 2/pi written from its decimal digits. */
static const uint64_t trig_in[] = {
  0x3ff0000000000000, 0x4008000000000000, 0xc000000000000000, 0x0000000000000001,
  0x4330000000000000, 0x4340000000000001, 0x3fb999999999999a, 0x8000000000000000,
};
static uint64_t trig_ref(unsigned seg)
{
  const __float128 two_over_pi = (__float128)0.6366197723675813430755350534900574481378Q;
  const __float128 p53 = 9007199254740992.0;   /* 2^53 */
  uint64_t n0 = (uint64_t)(two_over_pi * p53);
  if (seg == 0)
    return UD(ldexp((double)n0, -53));
  uint64_t n1 = (uint64_t)(two_over_pi * p53 * p53 - (__float128)n0 * p53);
  return UD(ldexp((double)n1, -106));
}
static void trig_case(enum isa_target t)
{
  struct op_ctx x;
  op_setup(&x, "alu_tests", t);
  uint64_t *a = (uint64_t *)x.a, *b = (uint64_t *)x.b, *o = (uint64_t *)x.out;
  for (unsigned l = 0; l < 64; l++) {
    a[l] = trig_in[l % N(trig_in)];
    b[l] = (l / 8) & 1;
  }
  op_run(&x, "t_trig_preop_f64");
  for (unsigned l = 0; l < 64; l++) {
    uint64_t want = (HOLES >> l & 1) ? trig_ref((unsigned)b[l]) : ((uint64_t)MARK << 32 | MARK);
    cr_expect_eq(o[l], want, "lane %u: a=0x%016llx seg %u: got 0x%016llx want 0x%016llx", l,
                 (unsigned long long)a[l], (unsigned)b[l], (unsigned long long)o[l], (unsigned long long)want);
  }
  harness_close(&x.h);
}
Test(isa_alu_gfx90a, trig_preop_f64) { trig_case(ISA_GFX90A); }
Test(isa_alu_gfx942, trig_preop_f64) { trig_case(ISA_GFX942); }

/* Integer clamp: saturating adds and subtracts (CPU references in 64-bit arithmetic) */
static uint32_t su32(int64_t v) { return v < 0 ? 0 : v > 0xffffffffll ? 0xffffffffu : (uint32_t)v; }
static uint32_t si32(int64_t v) { return (uint32_t)(int32_t)(v < INT32_MIN ? INT32_MIN : v > INT32_MAX ? INT32_MAX : v); }
static uint32_t r_add_u32_clamp(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v) { (void)c; (void)l; (void)v; return su32((int64_t)a + b); }
static uint32_t r_sub_u32_clamp(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v) { (void)c; (void)l; (void)v; return su32((int64_t)a - b); }
static uint32_t r_add_i32_clamp(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v) { (void)c; (void)l; (void)v; return si32((int64_t)(int32_t)a + (int32_t)b); }
static uint32_t r_sub_i32_clamp(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v) { (void)c; (void)l; (void)v; return si32((int64_t)(int32_t)a - (int32_t)b); }
static uint32_t r_add_u16_clamp(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v)
{
  (void)c; (void)l; (void)v;
  uint32_t s = (a & 0xffff) + (b & 0xffff);
  return s > 0xffff ? 0xffff : s;
}
static uint32_t r_sub_i16_clamp(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v)
{
  (void)c; (void)l; (void)v;
  int32_t d = (int32_t)(int16_t)a - (int16_t)b;
  return (uint16_t)(d < -32768 ? -32768 : d > 32767 ? 32767 : d);
}
static uint32_t r_clz64(uint32_t a, uint32_t b, uint32_t c, unsigned l, const uint32_t *v)
{
  (void)c; (void)l; (void)v;
  /* v2 = low word, v3 = high word of the 64-bit input; the sequence counts the high word's
   * leading zeros first only when it is non-zero (ffbh gives ~0 for 0) */
  uint32_t lo = a ? (uint32_t)__builtin_clz(a) + 32 : 0xffffffffu;
  uint32_t hi = b ? (uint32_t)__builtin_clz(b) : 0xffffffffu;
  uint32_t r = lo < hi ? lo : hi;
  return r < 64 ? r : 64;
}
T32(add_u32_clamp, "t_add_u32_clamp", i32_edges, r_add_u32_clamp, false)
T32(sub_u32_clamp, "t_sub_u32_clamp", i32_edges, r_sub_u32_clamp, false)
T32(add_i32_clamp, "t_add_i32_clamp", i32_edges, r_add_i32_clamp, false)
T32(sub_i32_clamp, "t_sub_i32_clamp", i32_edges, r_sub_i32_clamp, false)
T16(add_u16_clamp, "t_add_u16_clamp", i32_edges, r_add_u16_clamp, LO16B)
T16(sub_i16_clamp, "t_sub_i16_clamp", i32_edges, r_sub_i16_clamp, LO16B)
T32(add_co_u32_clamp, "t_add_co_u32_clamp", i32_edges, r_add_u32_clamp, false)
T32(clz64_saturating_add, "t_clz64", i32_edges, r_clz64, false)
