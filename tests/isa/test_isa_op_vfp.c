/* Per-instruction tests of the floating-point VALU opcodes of the kernel corpus (issue 3):
 * kernels/op_vfp.s assembled for gfx90a and gfx942, run on the interpreter under the EXEC mask
 * with holes of op_frame.inc, over every pair of edge values (NaN quiet and signalling, +-inf,
 * denormals, +-0, overflow, extremes). Every lane is compared with a reference written here
 * from the ISA definitions (MI200/MI300 ISA guides, LLVM AMDGPUUsage and the AMDGPU backend's
 * documented instruction behaviour); lanes outside EXEC must keep the frame's marker.
 *
 * Transcendentals are approximations on hardware: they are compared within the bound LLVM's
 * AMDGPU backend documents (1 ulp for f32 rcp/rsq/sqrt/exp/log; 2^29 ulp for f64 rcp/rsq),
 * with NaN, infinities and zeros exact. v_exp_f32, v_log_f32 and v_rsq_f32 flush denormal
 * inputs and results whatever MODE says (AMD's ocml scales around them when denormals are on;
 * LLVM AMDGPUISelLowering.h: RSQ f32 has "no denormal handling"). v_rcp_f32 is documented the
 * same way (and LLVM's rcp fold: "the instruction always flushes denormal results") but the
 * interpreter still follows MODE for it, as do v_sqrt_f32 and v_sin_f32, whose behaviour the
 * sources leave open: for those, with denormals on, the exact and the flushed result are both
 * accepted. In flush mode (the *_ftz kernels) only the flushed result is.
 *
 * The MFMA cases run with EXEC all ones (the matrix spans the wave; partial EXEC is not
 * exercised) and compare every element of D. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op_check.h"

#define F op_f
#define U op_u
#define D op_d
#define UD op_ud

/* ---- comparison kinds ---- */
enum vk {
  V_BITS,   /* bit for bit */
  V_F32,    /* f32, any NaN matches any NaN */
  V_H16,    /* low 16 bits as a half, any NaN matches */
  V_B16,    /* low 16 bits */
  V_ULP1,   /* f32 within 1 ulp; NaN, inf, zero exact */
  V_SIN,    /* f32 within 2^-20 absolute; NaN, inf exact */
  V_F64,    /* f64, any NaN matches */
  V_F64R,   /* f64 within 2^-23 relative (2^29 ulp); NaN, inf, zero exact */
  V_PK32,   /* two f32 halves of a 64-bit result, NaN any */
};

typedef uint32_t (*ref32)(uint32_t a, uint32_t b, uint32_t c);
typedef uint64_t (*ref64)(uint64_t a, uint64_t b, uint64_t c);

static bool nan32(uint32_t u) { return (u & 0x7fffffff) > 0x7f800000; }
static bool snan32(uint32_t u) { return nan32(u) && !(u & 0x400000); }
static bool nan64(uint64_t u) { return (u & ~(1ull << 63)) > 0x7ff0000000000000ull; }
static bool snan64(uint64_t u) { return nan64(u) && !(u >> 51 & 1); }
static bool nan16(uint32_t h) { return (h & 0x7c00) == 0x7c00 && (h & 0x3ff); }
static bool den32(uint32_t u) { return !(u & 0x7f800000) && (u & 0x7fffff); }

static bool same_f32(uint32_t g, uint32_t w) { return g == w || (nan32(g) && nan32(w)); }
static bool same_f64(uint64_t g, uint64_t w) { return g == w || (nan64(g) && nan64(w)); }

static bool ulp1(uint32_t g, uint32_t w)
{
  if (nan32(w) || nan32(g) || (w & 0x7fffffff) == 0x7f800000 || !(w & 0x7fffffff))
    return same_f32(g, w);
  if ((g ^ w) >> 31)
    return false;
  uint32_t d = g > w ? g - w : w - g;
  return d <= 1;
}

static bool same32(uint32_t g, uint32_t w, enum vk how)
{
  switch (how) {
  case V_F32: return same_f32(g, w);
  case V_H16: return (g & 0xffff) == (w & 0xffff) || (nan16(g & 0xffff) && nan16(w & 0xffff));
  case V_B16: return (g & 0xffff) == (w & 0xffff);
  case V_ULP1: return ulp1(g, w);
  case V_SIN:
    if (nan32(w) || nan32(g) || (w & 0x7fffffff) == 0x7f800000)
      return same_f32(g, w);
    return fabs((double)F(g) - (double)F(w)) <= 0x1p-20 || ulp1(g, w);
  default: return g == w;
  }
}

static bool same64(uint64_t g, uint64_t w, enum vk how)
{
  switch (how) {
  case V_F64: return same_f64(g, w);
  case V_F64R: {
    double x = D(g), y = D(w);
    if (nan64(w) || nan64(g) || isinf(y) || y == 0)
      return same_f64(g, w);
    return signbit(x) == signbit(y) && fabs(x - y) <= fabs(y) * 0x1p-23;
  }
  case V_PK32: return same_f32((uint32_t)g, (uint32_t)w) && same_f32((uint32_t)(g >> 32), (uint32_t)(w >> 32));
  default: return g == w;
  }
}

/* ---- the runners: every (a, b) pair of the two sets, spread over the lanes inside EXEC,
 * as many launches as it takes; c walks its set with another stride ---- */
static unsigned active_lanes(unsigned *idx)
{
  unsigned n = 0;
  for (unsigned l = 0; l < 64; l++)
    if (OP_HOLES >> l & 1)
      idx[n++] = l;
  return n;
}

struct set32 { const uint32_t *v; size_t n; };
struct set64 { const uint64_t *v; size_t n; };
#define S32(a) ((struct set32){(a), OP_N(a)})
#define S64(a) ((struct set64){(a), OP_N(a)})
static const uint32_t none32[1] = {0};
static const uint64_t none64[1] = {0};
#define NO32 S32(none32)
#define NO64 S64(none64)

/* alt: a second accepted result (the flushed-denormal one of f32 transcendentals), or NULL */
static void run32(enum isa_target t, const char *k, struct set32 sa, struct set32 sb, struct set32 sc,
                  ref32 ref, ref32 alt, enum vk how)
{
  struct op_ctx x;
  unsigned idx[64], na = active_lanes(idx);
  size_t pairs = sa.n * sb.n;
  op_setup(&x, "op_vfp", t);
  for (size_t p0 = 0; p0 < pairs; p0 += na) {
    for (unsigned l = 0; l < 64; l++) {
      x.a[l] = 0x7fa00000u;   /* outside EXEC: a signalling NaN nobody may compute on */
      x.b[l] = x.c[l] = 0x7fa00000u;
    }
    for (unsigned i = 0; i < na && p0 + i < pairs; i++) {
      size_t p = p0 + i;
      unsigned l = idx[i];
      x.a[l] = sa.v[p % sa.n];
      x.b[l] = sb.v[p / sa.n];
      x.c[l] = sc.v[(p * 5 + p / sa.n + 3) % sc.n];
    }
    op_run(&x, k);
    for (unsigned l = 0; l < 64; l++) {
      bool on = OP_HOLES >> l & 1;
      uint32_t got = x.out[l];
      if (!on) {
        cr_expect_eq(got, OP_MARK, "%s (%s) lane %u outside EXEC: got 0x%08x", k, op_target_name(t), l, got);
        continue;
      }
      uint32_t want = ref(x.a[l], x.b[l], x.c[l]);
      bool ok = same32(got, want, how) || (alt && same32(got, alt(x.a[l], x.b[l], x.c[l]), how));
      cr_expect(ok, "%s (%s) lane %u: a=0x%08x b=0x%08x c=0x%08x: got 0x%08x want 0x%08x", k,
                op_target_name(t), l, x.a[l], x.b[l], x.c[l], got, want);
    }
  }
  op_close(&x);
}

static void run64(enum isa_target t, const char *k, struct set64 sa, struct set64 sb, struct set64 sc,
                  ref64 ref, enum vk how)
{
  struct op_ctx x;
  unsigned idx[64], na = active_lanes(idx);
  size_t pairs = sa.n * sb.n;
  op_setup(&x, "op_vfp", t);
  uint64_t *a = (uint64_t *)x.a, *b = (uint64_t *)x.b, *c = (uint64_t *)x.c, *o = (uint64_t *)x.out;
  for (size_t p0 = 0; p0 < pairs; p0 += na) {
    for (unsigned l = 0; l < 64; l++)
      a[l] = b[l] = c[l] = 0x7ff4000000000000ull;
    for (unsigned i = 0; i < na && p0 + i < pairs; i++) {
      size_t p = p0 + i;
      unsigned l = idx[i];
      a[l] = sa.v[p % sa.n];
      b[l] = sb.v[p / sa.n];
      c[l] = sc.v[(p * 5 + p / sa.n + 3) % sc.n];
    }
    op_run(&x, k);
    for (unsigned l = 0; l < 64; l++) {
      bool on = OP_HOLES >> l & 1;
      uint64_t want = on ? ref(a[l], b[l], c[l]) : ((uint64_t)OP_MARK << 32 | OP_MARK);
      bool ok = on ? same64(o[l], want, how) : o[l] == want;
      cr_expect(ok, "%s (%s) lane %u: a=0x%016llx b=0x%016llx c=0x%016llx: got 0x%016llx want 0x%016llx",
                k, op_target_name(t), l, (unsigned long long)a[l], (unsigned long long)b[l],
                (unsigned long long)c[l], (unsigned long long)o[l], (unsigned long long)want);
    }
  }
  op_close(&x);
}

/* ---- value sets beyond op_check's ---- */
static uint64_t f32in64[OP_F32_EDGES_N], i32in64[OP_I32_EDGES_N], pk64[OP_F32_EDGES_N];
static const uint32_t class_masks[] = {0x3ff, 0x001, 0x002, 0x003, 0x004, 0x008, 0x010, 0x020,
                                       0x040, 0x060, 0x080, 0x100, 0x200, 0x090, 0x155, 0x2aa};
static uint64_t class_masks64[OP_N(class_masks)];
static const uint64_t exps64[] = {0, 1, 0xffffffff /* -1 */, 52, (uint32_t)-52, 1023,
                                  (uint32_t)-1022, (uint32_t)-1074, 1100, (uint32_t)-1100, 2047,
                                  (uint32_t)-2048, 0x7fffffff, 0x80000000, 3, (uint32_t)-3};

static void sets_init(void)
{
  for (unsigned i = 0; i < OP_F32_EDGES_N; i++) {
    f32in64[i] = op_f32_edges[i] | 0xabcd000000000000ull;   /* junk high dword: ignored */
    pk64[i] = op_f32_edges[i] | (uint64_t)op_f32_edges[(i * 7 + 5) % OP_F32_EDGES_N] << 32;
  }
  for (unsigned i = 0; i < OP_I32_EDGES_N; i++)
    i32in64[i] = op_i32_edges[i] | 0x1234000000000000ull;
  for (unsigned i = 0; i < OP_N(class_masks); i++)
    class_masks64[i] = class_masks[i];
}

#define F32E ((struct set32){op_f32_edges, OP_F32_EDGES_N})
#define I32E ((struct set32){op_i32_edges, OP_I32_EDGES_N})
#define F16E ((struct set32){op_f16_edges, OP_F16_EDGES_N})
#define F64E ((struct set64){op_f64_edges, OP_F64_EDGES_N})
#define I64E ((struct set64){op_i64_edges, OP_I64_EDGES_N})
#define F32IN64 ((struct set64){f32in64, OP_F32_EDGES_N})
#define I32IN64 ((struct set64){i32in64, OP_I32_EDGES_N})
#define PK64 ((struct set64){pk64, OP_F32_EDGES_N})

/* ---- IEEE helpers ---- */
static uint32_t flush32(uint32_t u) { return den32(u) ? u & 0x80000000u : u; }
static uint32_t quiet32(uint32_t u) { return u | 0x400000; }
static uint64_t quiet64(uint64_t u) { return u | 1ull << 51; }

/* double -> half, round to nearest even (the sum of two halves is exact in a double) */
static uint16_t d2h(double d)
{
  if (isnan(d))
    return 0x7e00;
  uint16_t s = signbit(d) ? 0x8000 : 0;
  double a = fabs(d);
  if (a >= 65520.0)
    return s | 0x7c00;
  if (a < 0x1p-14)
    return s | (uint16_t)nearbyint(a * 0x1p24);
  int e;
  frexp(a, &e);
  double q = nearbyint(ldexp(a, 11 - e));
  if (q >= 2048) {
    q /= 2;
    e++;
  }
  return (uint16_t)(s | (e + 14) << 10 | ((uint16_t)q & 0x3ff));
}
static double H(uint32_t v) { return op_h2f((uint16_t)v); }

/* v_min/v_max in IEEE mode (MODE.IEEE = 1 for compute kernels): a signalling NaN gives a quiet
 * NaN, a quiet NaN gives the other operand, and -0 orders below +0 (the AMDGPU instructions
 * follow IEEE-754 2019 minimumNumber/maximumNumber; LLVM FMINNUM_IEEE, llvm-project #85195) */
static uint32_t minmax32(uint32_t a, uint32_t b, bool max)
{
  if (snan32(a)) return quiet32(a);
  if (snan32(b)) return quiet32(b);
  if (nan32(a)) return b;
  if (nan32(b)) return a;
  float x = F(a), y = F(b);
  if (x == y)   /* equal, or zeros of either sign: the sign decides */
    return max ? ((a >> 31) ? b : a) : ((a >> 31) ? a : b);
  return (max ? x > y : x < y) ? a : b;
}
static uint64_t minmax64(uint64_t a, uint64_t b, bool max)
{
  if (snan64(a)) return quiet64(a);
  if (snan64(b)) return quiet64(b);
  if (nan64(a)) return b;
  if (nan64(b)) return a;
  double x = D(a), y = D(b);
  if (x == y)
    return max ? ((a >> 63) ? b : a) : ((a >> 63) ? a : b);
  return (max ? x > y : x < y) ? a : b;
}

static bool snan16(uint32_t h) { return nan16(h) && !(h & 0x200); }
static uint32_t minmax16(uint32_t a, uint32_t b, bool max)
{
  a &= 0xffff;
  b &= 0xffff;
  if (snan16(a)) return a | 0x200;
  if (snan16(b)) return b | 0x200;
  if (nan16(a)) return b;
  if (nan16(b)) return a;
  double x = H(a), y = H(b);
  if (x == y)
    return max ? ((a >> 15) ? b : a) : ((a >> 15) ? a : b);
  return (max ? x > y : x < y) ? a : b;
}
/* v_med3_f32 (ISA pseudocode): min3 when any input is NaN; else the max of the two inputs
 * other than the first one equal (as a number) to max3 */
static uint32_t med3_32(uint32_t a, uint32_t b, uint32_t c)
{
  if (nan32(a) || nan32(b) || nan32(c))
    return minmax32(minmax32(a, b, false), c, false);
  float mx = F(minmax32(minmax32(a, b, true), c, true));
  if (mx == F(a)) return minmax32(b, c, true);
  if (mx == F(b)) return minmax32(a, c, true);
  return minmax32(a, b, true);
}

/* ---- references: f16, f32 arithmetic ---- */
static uint32_t r_min3_f32(uint32_t a, uint32_t b, uint32_t c) { return minmax32(minmax32(a, b, false), c, false); }
static uint32_t r_max3_f32(uint32_t a, uint32_t b, uint32_t c) { return minmax32(minmax32(a, b, true), c, true); }
static uint32_t r_med3_f32(uint32_t a, uint32_t b, uint32_t c) { return med3_32(a, b, c); }
static uint32_t r_min_f16(uint32_t a, uint32_t b, uint32_t c) { (void)c; return minmax16(a, b, false); }
static uint32_t r_max_f16(uint32_t a, uint32_t b, uint32_t c) { (void)c; return minmax16(a, b, true); }
static uint32_t r_add_f16(uint32_t a, uint32_t b, uint32_t c) { (void)c; return d2h(H(a) + H(b)); }
static uint32_t r_add_f16_neg(uint32_t a, uint32_t b, uint32_t c) { (void)c; return d2h(-H(a) + fabs(H(b))); }
static uint32_t r_mul_f16(uint32_t a, uint32_t b, uint32_t c) { (void)c; return d2h(H(a) * H(b)); }
static uint32_t r_sub_f32(uint32_t a, uint32_t b, uint32_t c) { (void)c; return U(F(a) - F(b)); }
static uint32_t r_sub_f32_abs(uint32_t a, uint32_t b, uint32_t c) { (void)c; return U(fabsf(F(a)) - -F(b)); }
static uint32_t r_min_f32(uint32_t a, uint32_t b, uint32_t c) { (void)c; return minmax32(a, b, false); }
static uint32_t r_max_f32(uint32_t a, uint32_t b, uint32_t c) { (void)c; return minmax32(a, b, true); }
/* flush mode: denormal inputs read as signed zeros, denormal results are written as zeros */
static uint32_t r_min_f32_ftz(uint32_t a, uint32_t b, uint32_t c) { (void)c; return flush32(minmax32(flush32(a), flush32(b), false)); }
static uint32_t r_fmaak(uint32_t a, uint32_t b, uint32_t c) { (void)c; return U(fmaf(F(a), F(b), 1.5f)); }
static uint32_t r_fma(uint32_t a, uint32_t b, uint32_t c) { return U(fmaf(F(a), F(b), F(c))); }
/* v_mac_f32 / v_mad_f32: unfused (the product is rounded first), and they flush denormals
 * whatever MODE says: LLVM selects them only for flushed f32 (AMDGPUISD::FMAD_FTZ, "mac/mad is
 * treated as an illegal operation" when f32 denormals are on) */
static uint32_t r_mac(uint32_t a, uint32_t b, uint32_t c)
{
  volatile float p = F(flush32(a)) * F(flush32(b));
  float s = F(flush32(U(p))) + F(flush32(c));
  return flush32(U(s));
}

static uint32_t r_madak(uint32_t a, uint32_t b, uint32_t c) { (void)c; return r_mac(a, b, 0x3fc00000); }
/* the literal is a denormal (2^-127) here: read as zero */
static uint32_t r_madmk(uint32_t a, uint32_t b, uint32_t c) { (void)c; return r_mac(a, 0x00400000, b); }

/* ---- integer mads ---- */
static int32_t s24(uint32_t v) { return (int32_t)(v << 8) >> 8; }
static uint32_t r_mad_i24(uint32_t a, uint32_t b, uint32_t c) { return (uint32_t)((int64_t)s24(a) * s24(b) + (int32_t)c); }
static uint32_t r_mad_u24(uint32_t a, uint32_t b, uint32_t c) { return (a & 0xffffff) * (b & 0xffffff) + c; }
static uint32_t r_med3_i32(uint32_t a, uint32_t b, uint32_t c)
{
  int32_t x = (int32_t)a, y = (int32_t)b, z = (int32_t)c;
  int32_t lo = x < y ? x : y, hi = x < y ? y : x;
  return (uint32_t)(z < lo ? lo : z > hi ? hi : z);
}
static uint32_t r_mad_u16(uint32_t a, uint32_t b, uint32_t c) { return (a * b + c) & 0xffff; }
static uint64_t r_mad_i64(uint64_t a, uint64_t b, uint64_t c) { return (uint64_t)((int64_t)(int32_t)a * (int32_t)b) + c; }

/* ---- conversions (ISA guide: round to nearest even; float -> int truncates, saturates, and
 * NaN converts to 0) ---- */
static uint32_t r_cvt_f16_f32(uint32_t a, uint32_t b, uint32_t c) { (void)b; (void)c; return d2h(F(a)); }
static uint32_t r_cvt_f32_f16(uint32_t a, uint32_t b, uint32_t c) { (void)b; (void)c; return U((float)H(a)); }
static uint32_t r_cvt_f32_i32(uint32_t a, uint32_t b, uint32_t c) { (void)b; (void)c; return U((float)(int32_t)a); }
static uint32_t r_cvt_f32_u32(uint32_t a, uint32_t b, uint32_t c) { (void)b; (void)c; return U((float)a); }
static uint32_t to_i32(double d) { return isnan(d) ? 0 : d >= 2147483647.0 ? 0x7fffffff : d <= -2147483648.0 ? 0x80000000u : (uint32_t)(int32_t)d; }
static uint32_t to_u32(double d) { return isnan(d) || d <= 0 ? 0 : d >= 4294967295.0 ? 0xffffffffu : (uint32_t)d; }
static uint32_t r_cvt_i32_f32(uint32_t a, uint32_t b, uint32_t c) { (void)b; (void)c; return to_i32(F(a)); }
static uint32_t r_cvt_u32_f32(uint32_t a, uint32_t b, uint32_t c) { (void)b; (void)c; return to_u32(F(a)); }
static uint64_t r_cvt_f32_f64(uint64_t a, uint64_t b, uint64_t c) { (void)b; (void)c; return U((float)D(a)); }
static uint64_t r_cvt_f32_f64_ftz(uint64_t a, uint64_t b, uint64_t c) { (void)b; (void)c; return flush32(U((float)D(a))); }
static uint64_t r_cvt_i32_f64(uint64_t a, uint64_t b, uint64_t c) { (void)b; (void)c; return to_i32(D(a)); }
static uint64_t r_cvt_u32_f64(uint64_t a, uint64_t b, uint64_t c) { (void)b; (void)c; return to_u32(D(a)); }
static uint64_t r_cvt_f64_f32(uint64_t a, uint64_t b, uint64_t c) { (void)b; (void)c; return UD((double)F((uint32_t)a)); }
static uint64_t r_cvt_f64_f32_ftz(uint64_t a, uint64_t b, uint64_t c) { (void)b; (void)c; return UD((double)F(flush32((uint32_t)a))); }
static uint64_t r_cvt_f64_i32(uint64_t a, uint64_t b, uint64_t c) { (void)b; (void)c; return UD((double)(int32_t)a); }
static uint64_t r_cvt_f64_u32(uint64_t a, uint64_t b, uint64_t c) { (void)b; (void)c; return UD((double)(uint32_t)a); }

/* ---- transcendentals: the exact function in double, rounded to f32; *_ftz: the same on a
 * flushed input with the result flushed (the accepted alternative for denormals) ---- */
static uint32_t r_exp(uint32_t a, uint32_t b, uint32_t c) { (void)b; (void)c; return U((float)exp2((double)F(a))); }
static uint32_t r_log(uint32_t a, uint32_t b, uint32_t c) { (void)b; (void)c; return U((float)log2((double)F(a))); }
static uint32_t r_rcp(uint32_t a, uint32_t b, uint32_t c) { (void)b; (void)c; return U((float)(1.0 / (double)F(a))); }
static uint32_t r_rsq(uint32_t a, uint32_t b, uint32_t c) { (void)b; (void)c; return U((float)(1.0 / sqrt((double)F(a)))); }
static uint32_t r_sqrt(uint32_t a, uint32_t b, uint32_t c) { (void)b; (void)c; return U(sqrtf(F(a))); }
/* v_sin_f32 takes revolutions: sin(2 pi x); the ISA guide's valid domain is |x| <= 256, so the
 * inputs stay inside it (plus the specials) */
static uint32_t r_sin(uint32_t a, uint32_t b, uint32_t c)
{
  (void)b; (void)c;
  double x = F(a);
  if (isinf(x)) return 0x7fc00000;
  if (x == 0) return a;   /* sin(+-0) = +-0 */
  return U((float)sin(2.0 * M_PI * x));
}
#define FTZ_ALT(fn)                                                          \
  static uint32_t fn##_ftz(uint32_t a, uint32_t b, uint32_t c) { return flush32(fn(flush32(a), b, c)); }
FTZ_ALT(r_exp)
FTZ_ALT(r_log)
FTZ_ALT(r_rcp)
FTZ_ALT(r_rsq)
FTZ_ALT(r_sqrt)
FTZ_ALT(r_sin)
static uint64_t r_rcp_f64(uint64_t a, uint64_t b, uint64_t c) { (void)b; (void)c; return UD(1.0 / D(a)); }
static uint64_t r_rsq_f64(uint64_t a, uint64_t b, uint64_t c) { (void)b; (void)c; return UD((double)(1.0L / sqrtl((long double)D(a)))); }

/* ---- rounding ---- */
static uint32_t r_ceil(uint32_t a, uint32_t b, uint32_t c) { (void)b; (void)c; return U(ceilf(F(a))); }
static uint32_t r_floor(uint32_t a, uint32_t b, uint32_t c) { (void)b; (void)c; return U(floorf(F(a))); }
static uint32_t r_rndne(uint32_t a, uint32_t b, uint32_t c) { (void)b; (void)c; return U(nearbyintf(F(a))); }
static uint32_t r_trunc(uint32_t a, uint32_t b, uint32_t c) { (void)b; (void)c; return U(truncf(F(a))); }
static uint32_t r_trunc_ftz(uint32_t a, uint32_t b, uint32_t c) { (void)b; (void)c; return U(truncf(F(flush32(a)))); }
/* v_fract: x - floor(x), capped at the largest value below 1; +-inf give NaN */
static uint32_t r_fract(uint32_t a, uint32_t b, uint32_t c)
{
  (void)b; (void)c;
  double x = F(a);
  if (isinf(x)) return 0x7fc00000;
  float r = (float)(x - floor(x));
  return r >= 1.0f ? 0x3f7fffff : U(r);
}
static uint32_t r_fract_ftz(uint32_t a, uint32_t b, uint32_t c) { return r_fract(flush32(a), b, c); }
static uint64_t r_ceil64(uint64_t a, uint64_t b, uint64_t c) { (void)b; (void)c; return UD(ceil(D(a))); }
static uint64_t r_floor64(uint64_t a, uint64_t b, uint64_t c) { (void)b; (void)c; return UD(floor(D(a))); }
static uint64_t r_rndne64(uint64_t a, uint64_t b, uint64_t c) { (void)b; (void)c; return UD(nearbyint(D(a))); }
static uint64_t r_trunc64(uint64_t a, uint64_t b, uint64_t c) { (void)b; (void)c; return UD(trunc(D(a))); }
static uint64_t r_fract64(uint64_t a, uint64_t b, uint64_t c)
{
  (void)b; (void)c;
  long double x = D(a);
  if (isinf(x)) return 0x7ff8000000000000ull;
  double r = (double)(x - floorl(x));
  return r >= 1.0 ? 0x3fefffffffffffffull : UD(r);
}

/* ---- frexp / ldexp: mantissa in [0.5, 1) with the input's sign; NaN and inf give the input
 * (mantissa) and 0 (exponent), as does 0 ---- */
static uint32_t r_frexp_exp32(uint32_t a, uint32_t b, uint32_t c)
{
  (void)b; (void)c;
  int e = 0;
  if (isfinite(F(a))) frexpf(F(a), &e);
  return (uint32_t)e;
}
static uint32_t r_frexp_mant32(uint32_t a, uint32_t b, uint32_t c)
{
  (void)b; (void)c;
  int e;
  return isfinite(F(a)) ? U(frexpf(F(a), &e)) : a;
}
static uint32_t r_frexp_exp32_ftz(uint32_t a, uint32_t b, uint32_t c) { return r_frexp_exp32(flush32(a), b, c); }
static uint32_t r_frexp_mant32_ftz(uint32_t a, uint32_t b, uint32_t c) { return r_frexp_mant32(flush32(a), b, c); }
static uint64_t r_frexp_exp64(uint64_t a, uint64_t b, uint64_t c)
{
  (void)b; (void)c;
  int e = 0;
  if (isfinite(D(a))) frexp(D(a), &e);
  return (uint32_t)e;
}
static uint64_t r_frexp_mant64(uint64_t a, uint64_t b, uint64_t c)
{
  (void)b; (void)c;
  int e;
  return isfinite(D(a)) ? UD(frexp(D(a), &e)) : a;
}
static uint64_t r_ldexp64(uint64_t a, uint64_t b, uint64_t c) { (void)c; return UD(ldexp(D(a), (int32_t)(uint32_t)b)); }
static uint64_t r_min64(uint64_t a, uint64_t b, uint64_t c) { (void)c; return minmax64(a, b, false); }
static uint64_t r_min64_neg(uint64_t a, uint64_t b, uint64_t c) { (void)c; return minmax64(a ^ 1ull << 63, b, false); }
static uint64_t r_fma64(uint64_t a, uint64_t b, uint64_t c) { return UD(fma(D(a), D(b), D(c))); }

/* ---- compares: the predicates of the ISA guide on the (flushed, in flush mode) values ---- */
enum pred { P_EQ, P_GE, P_GT, P_LE, P_LT, P_NEQ, P_NGE, P_NGT, P_NLE, P_NLT, P_O, P_U, P_NLG };
static uint32_t fpred(enum pred p, double x, double y)
{
  bool un = isnan(x) || isnan(y);
  switch (p) {
  case P_EQ: return x == y;
  case P_GE: return x >= y;
  case P_GT: return x > y;
  case P_LE: return x <= y;
  case P_LT: return x < y;
  case P_NEQ: return !(x == y);
  case P_NGE: return !(x >= y);
  case P_NGT: return !(x > y);
  case P_NLE: return !(x <= y);
  case P_NLT: return !(x < y);
  case P_O: return !un;
  case P_U: return un;
  default: return !(x < y || x > y);
  }
}
#define CMPREF(p)                                                                             \
  static uint32_t r_cmp32_##p(uint32_t a, uint32_t b, uint32_t c) { (void)c; return fpred(p, F(a), F(b)); } \
  static uint64_t r_cmp64_##p(uint64_t a, uint64_t b, uint64_t c) { (void)c; return fpred(p, D(a), D(b)); }
CMPREF(P_EQ) CMPREF(P_GE) CMPREF(P_GT) CMPREF(P_LE) CMPREF(P_LT) CMPREF(P_NEQ) CMPREF(P_NGE)
CMPREF(P_NGT) CMPREF(P_NLE) CMPREF(P_NLT) CMPREF(P_O) CMPREF(P_U) CMPREF(P_NLG)
static uint32_t r_cmp_lt_ftz(uint32_t a, uint32_t b, uint32_t c) { (void)c; return F(flush32(a)) < F(flush32(b)); }

/* v_cmp_class: mask bits 0 sNaN, 1 qNaN, 2 -inf, 3 -normal, 4 -denormal, 5 -0, 6 +0,
 * 7 +denormal, 8 +normal, 9 +inf; the class is the input's own format's */
static unsigned class_bit(bool neg, bool inf, bool nan, bool snan, bool zero, bool den)
{
  if (nan) return snan ? 0 : 1;
  if (inf) return neg ? 2 : 9;
  if (zero) return neg ? 5 : 6;
  if (den) return neg ? 4 : 7;
  return neg ? 3 : 8;
}
static uint32_t r_class32(uint32_t a, uint32_t b, uint32_t c)
{
  (void)c;
  unsigned bit = class_bit(a >> 31, (a & 0x7fffffff) == 0x7f800000, nan32(a), snan32(a),
                           !(a & 0x7fffffff), den32(a));
  return b >> bit & 1;
}
static uint64_t r_class64(uint64_t a, uint64_t b, uint64_t c)
{
  (void)c;
  uint64_t m = a & ~(1ull << 63);
  unsigned bit = class_bit(a >> 63, m == 0x7ff0000000000000ull, nan64(a), snan64(a), !m,
                           m && m < 0x0010000000000000ull);
  return b >> bit & 1;
}

/* the SGPR-operand kernels: constants as the kernels load them */
static uint32_t r_lt_abs_inf(uint32_t a, uint32_t b, uint32_t c) { (void)b; (void)c; return fabsf(F(a)) < INFINITY; }
static uint32_t r_nlt_abs_inf(uint32_t a, uint32_t b, uint32_t c) { (void)b; (void)c; return !(fabsf(F(a)) < INFINITY); }
static uint32_t r_class_264(uint32_t a, uint32_t b, uint32_t c) { (void)b; return r_class32(a, 0x264, c); }
static uint64_t r_class64_90(uint64_t a, uint64_t b, uint64_t c) { (void)b; return r_class64(a, 0x90, c); }
static uint64_t r_lt64_one(uint64_t a, uint64_t b, uint64_t c) { (void)b; (void)c; return D(a) < 1.0; }
static uint32_t r_fmac_m3(uint32_t a, uint32_t b, uint32_t c) { (void)b; return U(fmaf(F(a), -3.0f, F(c))); }
static uint64_t r_fmac64_mhalf(uint64_t a, uint64_t b, uint64_t c) { (void)b; return UD(fma(D(a), -0.5, D(c))); }
static uint32_t r_sub_from_1e30(uint32_t a, uint32_t b, uint32_t c) { (void)b; (void)c; return U(F(0x7149f2ca) - F(a)); }

/* ---- packed f32: lo/hi halves with op_sel, op_sel_hi, neg_lo, neg_hi as each kernel sets ---- */
static float LO(uint64_t v) { return F((uint32_t)v); }
static float HI(uint64_t v) { return F((uint32_t)(v >> 32)); }
static uint64_t PK(float lo, float hi) { return U(lo) | (uint64_t)U(hi) << 32; }
static uint64_t r_pk_add(uint64_t a, uint64_t b, uint64_t c) { (void)c; return PK(LO(a) + LO(b), HI(a) + HI(b)); }
/* op_sel:[1,0] op_sel_hi:[0,1] neg_lo:[0,1] */
static uint64_t r_pk_add_sel(uint64_t a, uint64_t b, uint64_t c) { (void)c; return PK(HI(a) + -LO(b), LO(a) + HI(b)); }
static uint64_t r_pk_mul(uint64_t a, uint64_t b, uint64_t c) { (void)c; return PK(LO(a) * LO(b), HI(a) * HI(b)); }
/* op_sel:[0,1] op_sel_hi:[1,0] neg_hi:[1,0] */
static uint64_t r_pk_mul_sel(uint64_t a, uint64_t b, uint64_t c) { (void)c; return PK(LO(a) * HI(b), -HI(a) * LO(b)); }
static uint64_t r_pk_fma(uint64_t a, uint64_t b, uint64_t c) { return PK(fmaf(LO(a), LO(b), LO(c)), fmaf(HI(a), HI(b), HI(c))); }
/* op_sel:[0,0,1] op_sel_hi:[1,1,0] */
static uint64_t r_pk_fma_sel(uint64_t a, uint64_t b, uint64_t c) { return PK(fmaf(LO(a), LO(b), HI(c)), fmaf(HI(a), HI(b), LO(c))); }
/* v_pk_mov_b32: D.lo = S0[op_sel[0]], D.hi = S1[op_sel[1]], bits unchanged */
/* flush mode: each half's inputs and result flushed */
static float FZ(float f) { return F(flush32(U(f))); }
static uint64_t r_pk_fma_ftz(uint64_t a, uint64_t b, uint64_t c)
{
  return PK(FZ(fmaf(FZ(LO(a)), FZ(LO(b)), FZ(LO(c)))), FZ(fmaf(FZ(HI(a)), FZ(HI(b)), FZ(HI(c)))));
}
static uint64_t r_pk_mul_ftz(uint64_t a, uint64_t b, uint64_t c) { (void)c; return PK(FZ(FZ(LO(a)) * FZ(LO(b))), FZ(FZ(HI(a)) * FZ(HI(b)))); }
static uint64_t r_pk_mov(uint64_t a, uint64_t b, uint64_t c) { (void)c; return (uint32_t)a | (b >> 32) << 32; }
static uint64_t r_pk_mov_sel(uint64_t a, uint64_t b, uint64_t c) { (void)c; return (a >> 32) | (uint64_t)(uint32_t)b << 32; }

/* ---- the tests: one per kernel and target ---- */
#define TU(name, kern, sa, sb, sc, ref, alt, how)                                        \
  Test(isa_op_vfp_gfx90a, name, .init = sets_init) { run32(ISA_GFX90A, kern, sa, sb, sc, ref, alt, how); } \
  Test(isa_op_vfp_gfx942, name, .init = sets_init) { run32(ISA_GFX942, kern, sa, sb, sc, ref, alt, how); }
#define TD(name, kern, sa, sb, sc, ref, how)                                             \
  Test(isa_op_vfp_gfx90a, name, .init = sets_init) { run64(ISA_GFX90A, kern, sa, sb, sc, ref, how); } \
  Test(isa_op_vfp_gfx942, name, .init = sets_init) { run64(ISA_GFX942, kern, sa, sb, sc, ref, how); }
#define TU90(name, kern, sa, sb, sc, ref, how) \
  Test(isa_op_vfp_gfx90a, name, .init = sets_init) { run32(ISA_GFX90A, kern, sa, sb, sc, ref, NULL, how); }
#define TU942(name, kern, sa, sb, sc, ref, how) \
  Test(isa_op_vfp_gfx942, name, .init = sets_init) { run32(ISA_GFX942, kern, sa, sb, sc, ref, NULL, how); }

/* f16 */
TU(add_f16_e32, "f_add_f16_e32", F16E, F16E, NO32, r_add_f16, NULL, V_H16)
TU(add_f16_e64, "f_add_f16_e64", F16E, F16E, NO32, r_add_f16, NULL, V_H16)
TU(add_f16_e64_neg_abs, "f_add_f16_e64_neg", F16E, F16E, NO32, r_add_f16_neg, NULL, V_H16)
TU(mul_f16_e32, "f_mul_f16_e32", F16E, F16E, NO32, r_mul_f16, NULL, V_H16)
TU(mul_f16_e64, "f_mul_f16_e64", F16E, F16E, NO32, r_mul_f16, NULL, V_H16)
/* f32 arithmetic */
TU(sub_f32_e64, "f_sub_f32_e64", F32E, F32E, NO32, r_sub_f32, NULL, V_F32)
TU(sub_f32_e64_abs_neg, "f_sub_f32_e64_abs", F32E, F32E, NO32, r_sub_f32_abs, NULL, V_F32)
TU(min_f32_e64, "f_min_f32_e64", F32E, F32E, NO32, r_min_f32, NULL, V_F32)
TU(max_f32_e64, "f_max_f32_e64", F32E, F32E, NO32, r_max_f32, NULL, V_F32)
TU(min_f32_e64_flush, "f_min_f32_e64_ftz", F32E, F32E, NO32, r_min_f32_ftz, NULL, V_F32)
TU(min3_f32, "f_min3_f32", F32E, F32E, F32E, r_min3_f32, NULL, V_F32)
TU(max3_f32, "f_max3_f32", F32E, F32E, F32E, r_max3_f32, NULL, V_F32)
TU(med3_f32, "f_med3_f32", F32E, F32E, F32E, r_med3_f32, NULL, V_F32)
TU(min_f16_e32, "f_min_f16_e32", F16E, F16E, NO32, r_min_f16, NULL, V_H16)
TU(max_f16_e32, "f_max_f16_e32", F16E, F16E, NO32, r_max_f16, NULL, V_H16)
TD(min_f64, "f_min_f64", F64E, F64E, NO64, r_min64, V_F64)
TD(min_f64_neg, "f_min_f64_neg", F64E, F64E, NO64, r_min64_neg, V_F64)
TU942(fmaak_f32, "f_fmaak_f32", F32E, F32E, NO32, r_fmaak, V_F32)
TU(fmac_f32_e64, "f_fmac_f32_e64", F32E, F32E, F32E, r_fma, NULL, V_F32)
TD(fmac_f64_e64, "f_fmac_f64_e64", F64E, F64E, F64E, r_fma64, V_F64)
TU90(mac_f32_e32, "f_mac_f32_e32", F32E, F32E, F32E, r_mac, V_F32)
TU90(mac_f32_e64, "f_mac_f32_e64", F32E, F32E, F32E, r_mac, V_F32)
TU90(mac_f32_e32_flush_mode, "f_mac_f32_e32_ftz", F32E, F32E, F32E, r_mac, V_F32)
TU90(madak_f32, "f_madak_f32", F32E, F32E, NO32, r_madak, V_F32)
TU90(madmk_f32_denormal_literal, "f_madmk_f32", F32E, F32E, NO32, r_madmk, V_F32)
/* integer mads, med3 */
TU(mad_i32_i24, "f_mad_i32_i24", I32E, I32E, I32E, r_mad_i24, NULL, V_BITS)
TU(mad_u32_u24, "f_mad_u32_u24", I32E, I32E, I32E, r_mad_u24, NULL, V_BITS)
TU(med3_i32, "f_med3_i32", I32E, I32E, I32E, r_med3_i32, NULL, V_BITS)
TU(mad_legacy_u16, "f_mad_legacy_u16", I32E, I32E, I32E, r_mad_u16, NULL, V_B16)
TD(mad_i64_i32, "f_mad_i64_i32", I32IN64, I32IN64, I64E, r_mad_i64, V_BITS)
/* conversions */
TU(cvt_f16_f32_e64, "f_cvt_f16_f32_e64", F32E, NO32, NO32, r_cvt_f16_f32, NULL, V_H16)
TU(cvt_f32_f16_e64, "f_cvt_f32_f16_e64", F16E, NO32, NO32, r_cvt_f32_f16, NULL, V_F32)
TU(cvt_f32_i32_e64, "f_cvt_f32_i32_e64", I32E, NO32, NO32, r_cvt_f32_i32, NULL, V_BITS)
TU(cvt_f32_u32_e32, "f_cvt_f32_u32_e32", I32E, NO32, NO32, r_cvt_f32_u32, NULL, V_BITS)
TU(cvt_f32_u32_e64, "f_cvt_f32_u32_e64", I32E, NO32, NO32, r_cvt_f32_u32, NULL, V_BITS)
TU(cvt_i32_f32_e64, "f_cvt_i32_f32_e64", F32E, NO32, NO32, r_cvt_i32_f32, NULL, V_BITS)
TU(cvt_u32_f32_e64, "f_cvt_u32_f32_e64", F32E, NO32, NO32, r_cvt_u32_f32, NULL, V_BITS)
TU(cvt_i32_f32_e64_flush, "f_cvt_i32_f32_e64_ftz", F32E, NO32, NO32, r_cvt_i32_f32, NULL, V_BITS)
TD(cvt_f32_f64_e32, "f_cvt_f32_f64_e32", F64E, NO64, NO64, r_cvt_f32_f64, V_F64)
TD(cvt_f32_f64_e64, "f_cvt_f32_f64_e64", F64E, NO64, NO64, r_cvt_f32_f64, V_F64)
TD(cvt_f32_f64_e32_flush, "f_cvt_f32_f64_e32_ftz", F64E, NO64, NO64, r_cvt_f32_f64_ftz, V_F64)
TD(cvt_i32_f64_e32, "f_cvt_i32_f64_e32", F64E, NO64, NO64, r_cvt_i32_f64, V_BITS)
TD(cvt_i32_f64_e64, "f_cvt_i32_f64_e64", F64E, NO64, NO64, r_cvt_i32_f64, V_BITS)
TD(cvt_u32_f64_e32, "f_cvt_u32_f64_e32", F64E, NO64, NO64, r_cvt_u32_f64, V_BITS)
TD(cvt_u32_f64_e64, "f_cvt_u32_f64_e64", F64E, NO64, NO64, r_cvt_u32_f64, V_BITS)
TD(cvt_f64_f32_e32, "f_cvt_f64_f32_e32", F32IN64, NO64, NO64, r_cvt_f64_f32, V_F64)
TD(cvt_f64_f32_e64, "f_cvt_f64_f32_e64", F32IN64, NO64, NO64, r_cvt_f64_f32, V_F64)
TD(cvt_f64_f32_e32_flush, "f_cvt_f64_f32_e32_ftz", F32IN64, NO64, NO64, r_cvt_f64_f32_ftz, V_F64)
TD(cvt_f64_i32_e64, "f_cvt_f64_i32_e64", I32IN64, NO64, NO64, r_cvt_f64_i32, V_BITS)
TD(cvt_f64_u32_e32, "f_cvt_f64_u32_e32", I32IN64, NO64, NO64, r_cvt_f64_u32, V_BITS)
TD(cvt_f64_u32_e64, "f_cvt_f64_u32_e64", I32IN64, NO64, NO64, r_cvt_f64_u32, V_BITS)
/* transcendentals */
TU(exp_f32_e32, "f_exp_f32_e32", F32E, NO32, NO32, r_exp_ftz, NULL, V_ULP1)
TU(exp_f32_e64, "f_exp_f32_e64", F32E, NO32, NO32, r_exp_ftz, NULL, V_ULP1)
TU(log_f32_e32, "f_log_f32_e32", F32E, NO32, NO32, r_log_ftz, NULL, V_ULP1)
TU(log_f32_e64, "f_log_f32_e64", F32E, NO32, NO32, r_log_ftz, NULL, V_ULP1)
TU(rcp_f32_e64, "f_rcp_f32_e64", F32E, NO32, NO32, r_rcp, r_rcp_ftz, V_ULP1)
TU(rcp_iflag_f32_e32, "f_rcp_iflag_f32_e32", F32E, NO32, NO32, r_rcp, r_rcp_ftz, V_ULP1)
TU(rsq_f32_e32, "f_rsq_f32_e32", F32E, NO32, NO32, r_rsq_ftz, NULL, V_ULP1)
TU(rsq_f32_e64, "f_rsq_f32_e64", F32E, NO32, NO32, r_rsq_ftz, NULL, V_ULP1)
TU(sqrt_f32_e64, "f_sqrt_f32_e64", F32E, NO32, NO32, r_sqrt, r_sqrt_ftz, V_ULP1)
TU(exp_f32_e32_flush, "f_exp_f32_e32_ftz", F32E, NO32, NO32, r_exp_ftz, NULL, V_ULP1)
TU(log_f32_e32_flush, "f_log_f32_e32_ftz", F32E, NO32, NO32, r_log_ftz, NULL, V_ULP1)
TU(rcp_f32_e64_flush, "f_rcp_f32_e64_ftz", F32E, NO32, NO32, r_rcp_ftz, NULL, V_ULP1)
TU(rsq_f32_e32_flush, "f_rsq_f32_e32_ftz", F32E, NO32, NO32, r_rsq_ftz, NULL, V_ULP1)
TU(sqrt_f32_e64_flush, "f_sqrt_f32_e64_ftz", F32E, NO32, NO32, r_sqrt_ftz, NULL, V_ULP1)
TD(rcp_f64_e64, "f_rcp_f64_e64", F64E, NO64, NO64, r_rcp_f64, V_F64R)
TD(rsq_f64_e32, "f_rsq_f64_e32", F64E, NO64, NO64, r_rsq_f64, V_F64R)
TD(rsq_f64_e64, "f_rsq_f64_e64", F64E, NO64, NO64, r_rsq_f64, V_F64R)
/* v_sin_f32 over the valid domain |x| <= 256 plus the specials */
static const uint32_t sin_in[] = {
  0x00000000, 0x80000000, 0x3e800000 /* 0.25 */, 0xbe800000, 0x3f000000, 0x3f400000, 0x3dcccccd,
  0x322bcc77, 0x000116c2, 0x800116c2, 0x7f800000, 0xff800000, 0x7fc00000, 0x7fa00000,
  0x42c88000 /* 100.25 */, 0x43800000 /* 256 */, 0xc37f8000 /* -255.5 */, 0x40e00000, 0xc0200000,
  0x3effffff, 0x41a2aaab, 0x3eaaaaab /* 1/3 */, 0x00800000, 0x3f7fffff,
};
TU(sin_f32_e32, "f_sin_f32_e32", S32(sin_in), NO32, NO32, r_sin, r_sin_ftz, V_SIN)
TU(sin_f32_e64, "f_sin_f32_e64", S32(sin_in), NO32, NO32, r_sin, r_sin_ftz, V_SIN)
/* rounding */
TU(ceil_f32_e32, "f_ceil_f32_e32", F32E, NO32, NO32, r_ceil, NULL, V_F32)
TU(ceil_f32_e64, "f_ceil_f32_e64", F32E, NO32, NO32, r_ceil, NULL, V_F32)
TU(floor_f32_e64, "f_floor_f32_e64", F32E, NO32, NO32, r_floor, NULL, V_F32)
TU(fract_f32_e64, "f_fract_f32_e64", F32E, NO32, NO32, r_fract, NULL, V_F32)
TU(rndne_f32_e32, "f_rndne_f32_e32", F32E, NO32, NO32, r_rndne, NULL, V_F32)
TU(rndne_f32_e64, "f_rndne_f32_e64", F32E, NO32, NO32, r_rndne, NULL, V_F32)
TU(trunc_f32_e32, "f_trunc_f32_e32", F32E, NO32, NO32, r_trunc, NULL, V_F32)
TU(trunc_f32_e64, "f_trunc_f32_e64", F32E, NO32, NO32, r_trunc, NULL, V_F32)
TU(trunc_f32_e32_flush, "f_trunc_f32_e32_ftz", F32E, NO32, NO32, r_trunc_ftz, NULL, V_F32)
TU(fract_f32_e64_flush, "f_fract_f32_e64_ftz", F32E, NO32, NO32, r_fract_ftz, NULL, V_F32)
TD(ceil_f64_e32, "f_ceil_f64_e32", F64E, NO64, NO64, r_ceil64, V_F64)
TD(ceil_f64_e64, "f_ceil_f64_e64", F64E, NO64, NO64, r_ceil64, V_F64)
TD(floor_f64_e64, "f_floor_f64_e64", F64E, NO64, NO64, r_floor64, V_F64)
TD(fract_f64_e32, "f_fract_f64_e32", F64E, NO64, NO64, r_fract64, V_F64)
TD(fract_f64_e64, "f_fract_f64_e64", F64E, NO64, NO64, r_fract64, V_F64)
TD(rndne_f64_e32, "f_rndne_f64_e32", F64E, NO64, NO64, r_rndne64, V_F64)
TD(rndne_f64_e64, "f_rndne_f64_e64", F64E, NO64, NO64, r_rndne64, V_F64)
TD(trunc_f64_e32, "f_trunc_f64_e32", F64E, NO64, NO64, r_trunc64, V_F64)
TD(trunc_f64_e64, "f_trunc_f64_e64", F64E, NO64, NO64, r_trunc64, V_F64)
/* frexp, ldexp */
TU(frexp_exp_i32_f32_e32, "f_frexp_exp_i32_f32_e32", F32E, NO32, NO32, r_frexp_exp32, NULL, V_BITS)
TU(frexp_exp_i32_f32_e64, "f_frexp_exp_i32_f32_e64", F32E, NO32, NO32, r_frexp_exp32, NULL, V_BITS)
TU(frexp_mant_f32_e32, "f_frexp_mant_f32_e32", F32E, NO32, NO32, r_frexp_mant32, NULL, V_F32)
TU(frexp_mant_f32_e64, "f_frexp_mant_f32_e64", F32E, NO32, NO32, r_frexp_mant32, NULL, V_F32)
TU(frexp_exp_i32_f32_e32_flush, "f_frexp_exp_i32_f32_e32_ftz", F32E, NO32, NO32, r_frexp_exp32_ftz, NULL, V_BITS)
TU(frexp_mant_f32_e32_flush, "f_frexp_mant_f32_e32_ftz", F32E, NO32, NO32, r_frexp_mant32_ftz, NULL, V_F32)
TD(frexp_exp_i32_f64_e32, "f_frexp_exp_i32_f64_e32", F64E, NO64, NO64, r_frexp_exp64, V_BITS)
TD(frexp_exp_i32_f64_e64, "f_frexp_exp_i32_f64_e64", F64E, NO64, NO64, r_frexp_exp64, V_BITS)
TD(frexp_mant_f64_e32, "f_frexp_mant_f64_e32", F64E, NO64, NO64, r_frexp_mant64, V_F64)
TD(frexp_mant_f64_e64, "f_frexp_mant_f64_e64", F64E, NO64, NO64, r_frexp_mant64, V_F64)
TD(ldexp_f64, "f_ldexp_f64", F64E, S64(exps64), NO64, r_ldexp64, V_F64)
/* compares, both encodings, f32 and f64 */
#define TCMP(p, pr)                                                                                      \
  TU(cmp_##p##_f32_e32, "f_cmp_" #p "_f32_e32", F32E, F32E, NO32, r_cmp32_##pr, NULL, V_BITS)          \
  TU(cmp_##p##_f32_e64, "f_cmp_" #p "_f32_e64", F32E, F32E, NO32, r_cmp32_##pr, NULL, V_BITS)          \
  TD(cmp_##p##_f64_e32, "f_cmp_" #p "_f64_e32", F64E, F64E, NO64, r_cmp64_##pr, V_BITS)                \
  TD(cmp_##p##_f64_e64, "f_cmp_" #p "_f64_e64", F64E, F64E, NO64, r_cmp64_##pr, V_BITS)
TCMP(eq, P_EQ) TCMP(ge, P_GE) TCMP(gt, P_GT) TCMP(le, P_LE) TCMP(lt, P_LT) TCMP(neq, P_NEQ)
TCMP(nge, P_NGE) TCMP(ngt, P_NGT) TCMP(nle, P_NLE) TCMP(nlt, P_NLT) TCMP(o, P_O) TCMP(u, P_U)
TU(cmp_nlg_f32_e64, "f_cmp_nlg_f32_e64", F32E, F32E, NO32, r_cmp32_P_NLG, NULL, V_BITS)
TD(cmp_nlg_f64_e64, "f_cmp_nlg_f64_e64", F64E, F64E, NO64, r_cmp64_P_NLG, V_BITS)
TU(cmp_lt_f32_e32_flush, "f_cmp_lt_f32_e32_ftz", F32E, F32E, NO32, r_cmp_lt_ftz, NULL, V_BITS)
TU(cmp_class_f32_e64, "f_cmp_class_f32_e64", F32E, S32(class_masks), NO32, r_class32, NULL, V_BITS)
TD(cmp_class_f64_e32, "f_cmp_class_f64_e32", F64E, S64(class_masks64), NO64, r_class64, V_BITS)
TD(cmp_class_f64_e64, "f_cmp_class_f64_e64", F64E, S64(class_masks64), NO64, r_class64, V_BITS)
/* SGPR operands, modifiers */
TU(cmp_lt_f32_e64_abs_sgpr, "f_cmp_lt_f32_e64_abs_sgpr", F32E, NO32, NO32, r_lt_abs_inf, NULL, V_BITS)
TU(cmp_nlt_f32_e64_abs_sgpr, "f_cmp_nlt_f32_e64_abs_sgpr", F32E, NO32, NO32, r_nlt_abs_inf, NULL, V_BITS)
TU(cmp_class_f32_e64_vcc_sgpr, "f_cmp_class_f32_e64_vcc_sgpr", F32E, NO32, NO32, r_class_264, NULL, V_BITS)
TD(cmp_class_f64_e64_sgpr, "f_cmp_class_f64_e64_sgpr", F64E, NO64, NO64, r_class64_90, V_BITS)
TD(cmp_lt_f64_e64_sgpr, "f_cmp_lt_f64_e64_sgpr", F64E, NO64, NO64, r_lt64_one, V_BITS)
TU(fmac_f32_e64_sgpr, "f_fmac_f32_e64_sgpr", F32E, NO32, F32E, r_fmac_m3, NULL, V_F32)
TD(fmac_f64_e64_sgpr, "f_fmac_f64_e64_sgpr", F64E, NO64, F64E, r_fmac64_mhalf, V_F64)
TU(sub_f32_e64_sgpr, "f_sub_f32_e64_sgpr", F32E, NO32, NO32, r_sub_from_1e30, NULL, V_F32)
/* packed f32 */
TD(pk_add_f32, "f_pk_add_f32", PK64, PK64, NO64, r_pk_add, V_PK32)
TD(pk_add_f32_opsel_neg, "f_pk_add_f32_sel", PK64, PK64, NO64, r_pk_add_sel, V_PK32)
TD(pk_mul_f32, "f_pk_mul_f32", PK64, PK64, NO64, r_pk_mul, V_PK32)
TD(pk_mul_f32_opsel_neg, "f_pk_mul_f32_sel", PK64, PK64, NO64, r_pk_mul_sel, V_PK32)
TD(pk_fma_f32, "f_pk_fma_f32", PK64, PK64, PK64, r_pk_fma, V_PK32)
TD(pk_fma_f32_opsel, "f_pk_fma_f32_sel", PK64, PK64, PK64, r_pk_fma_sel, V_PK32)
TD(pk_fma_f32_flush, "f_pk_fma_f32_ftz", PK64, PK64, PK64, r_pk_fma_ftz, V_PK32)
TD(pk_mul_f32_flush, "f_pk_mul_f32_ftz", PK64, PK64, NO64, r_pk_mul_ftz, V_PK32)
TD(pk_mov_b32, "f_pk_mov_b32", PK64, PK64, NO64, r_pk_mov, V_BITS)
TD(pk_mov_b32_opsel, "f_pk_mov_b32_sel", PK64, PK64, NO64, r_pk_mov_sel, V_BITS)

/* ---- MFMA: D = A * B + C over the whole wave (EXEC all ones), every output element checked.
 * Operand layout (CDNA2/CDNA3 ISA guides, AMD's matrix instruction calculator) for these
 * one-block shapes: element (i, k) of A sits in lane i + M * (k / kpl), slot k % kpl of the
 * lane's register (kpl elements a lane); element (k, j) of B likewise in lane j + N * (k / kpl).
 * 32-bit D/C: rows go in groups of four registers, 64 / N groups side by side across the
 * lanes; f64 D/C: one row a register pair, four rows across the lanes. The values are small
 * and exact in every input type, so the sum is exact whatever order the hardware adds in; a
 * second run puts +inf in row 1 and NaN in row 2 of A with B all positive. ---- */
enum mty { M_F32, M_F16, M_BF16, M_I8, M_F64 };
struct mcase { const char *k; unsigned m, kd, kpl; enum mty ty; };

static const double pool_f[] = {1, -2, 0.5, 3, -0.25, 0, 1.5, -1, 2, 0.75, -3, 4, -0.0, 96, -0.125};
static const double pool_pos[] = {1, 0.5, 3, 0.25, 1.5, 2, 0.75, 4};
static const double pool_i8[] = {-128, 127, -1, 0, 1, 5, -7, 64, -100, 33};
static const double pool_c[] = {0, 1, -0.5, 100, -0.0, 7.25};
static const double pool_ci[] = {0, 1, -5, 1000000, -1000000, 77};

static unsigned mbits(enum mty t) { return t == M_F32 ? 32 : t == M_F64 ? 64 : t == M_I8 ? 8 : 16; }

static uint64_t menc(enum mty t, double v)
{
  switch (t) {
  case M_F32: return U((float)v);
  case M_F16: return op_f2h((float)v);
  case M_BF16: return U((float)v) >> 16;   /* every value used is exact in bf16 */
  case M_I8: return (uint8_t)(int8_t)v;
  default: return UD(v);
  }
}

static void mpos(const struct mcase *mc, unsigned i, unsigned j, unsigned *reg, unsigned *lane)
{
  if (mc->ty == M_F64) {
    *reg = 2 * (i / 4);
    *lane = 16 * (i % 4) + j;
    return;
  }
  unsigned groups = 64 / mc->m;
  *reg = i / (4 * groups) * 4 + i % 4;
  *lane = (i / 4) % groups * mc->m + j;
}

static void mfma_case(enum isa_target t, const struct mcase *mc, bool special)
{
  struct op_ctx x;
  op_setup(&x, "op_vfp", t);
  uint32_t *c = harness_alloc(&x.h, 16 * 64 * 4), *o = harness_alloc(&x.h, 16 * 64 * 4);
  uint64_t *a = (uint64_t *)x.a, *b = (uint64_t *)x.b;
  static double A[32][32], B[32][32], C[32][32];
  unsigned M = mc->m, K = mc->kd, bits = mbits(mc->ty);
  bool integer = mc->ty == M_I8;
  const double *pool = integer ? pool_i8 : pool_f;
  size_t np = integer ? OP_N(pool_i8) : OP_N(pool_f);
  memset(a, 0, 64 * 8);
  memset(b, 0, 64 * 8);
  memset(c, 0xee, 16 * 64 * 4);
  for (unsigned i = 0; i < M; i++)
    for (unsigned k = 0; k < K; k++) {
      double v = pool[(i * 7 + k * 3 + i * k) % np];
      if (special && i == 1 && k == 0) v = INFINITY;
      if (special && i == 2 && k == 1) v = NAN;
      A[i][k] = v;
      a[i + M * (k / mc->kpl)] |= menc(mc->ty, v) << (k % mc->kpl * bits);
    }
  for (unsigned k = 0; k < K; k++)
    for (unsigned j = 0; j < M; j++) {
      double v = special ? pool_pos[(j * 5 + k) % OP_N(pool_pos)] : pool[(j * 5 + k * 11 + 1) % np];
      B[k][j] = v;
      b[j + M * (k / mc->kpl)] |= menc(mc->ty, v) << (k % mc->kpl * bits);
    }
  for (unsigned i = 0; i < M; i++)
    for (unsigned j = 0; j < M; j++) {
      unsigned reg, lane;
      mpos(mc, i, j, &reg, &lane);
      double v = integer ? pool_ci[(i * 3 + j) % OP_N(pool_ci)] : pool_c[(i * 3 + j) % OP_N(pool_c)];
      C[i][j] = v;
      uint64_t e = integer ? (uint32_t)(int32_t)v : mc->ty == M_F64 ? UD(v) : U((float)v);
      c[reg * 64 + lane] = (uint32_t)e;
      if (mc->ty == M_F64)
        c[(reg + 1) * 64 + lane] = (uint32_t)(e >> 32);
    }
  void *args[4] = {x.a, x.b, c, o};
  struct harness_launch l = {.name = mc->k, .grid = {64, 1, 1}, .block = {64, 1, 1},
                             .kernarg = args, .kernarg_size = sizeof(args)};
  struct isa_result r;
  cr_assert_eq(harness_run(&x.h, &l, &r), 0, "kernel %s not found", mc->k);
  cr_assert_eq(r.status, ISA_OK, "%s: status %d: %s", mc->k, r.status, r.message);
  for (unsigned i = 0; i < M; i++)
    for (unsigned j = 0; j < M; j++) {
      long double s = C[i][j];
      for (unsigned k = 0; k < K; k++)
        s += (long double)A[i][k] * B[k][j];
      unsigned reg, lane;
      mpos(mc, i, j, &reg, &lane);
      uint64_t got = o[reg * 64 + lane], want;
      bool ok;
      if (mc->ty == M_F64) {
        got |= (uint64_t)o[(reg + 1) * 64 + lane] << 32;
        want = UD((double)s);
        ok = same_f64(got, want);
      } else if (integer) {
        want = (uint32_t)(int32_t)(int64_t)s;
        ok = got == want;
      } else {
        want = U((float)s);
        ok = same_f32((uint32_t)got, (uint32_t)want);
      }
      cr_expect(ok, "%s (%s)%s: D[%u][%u] (reg %u lane %u): got 0x%llx want 0x%llx", mc->k,
                op_target_name(t), special ? " inf/NaN" : "", i, j, reg, lane,
                (unsigned long long)got, (unsigned long long)want);
    }
  op_close(&x);
}

static const struct mcase m_f32_16 = {"m_f32_16x16x4_f32", 16, 4, 1, M_F32};
static const struct mcase m_f32_32 = {"m_f32_32x32x2_f32", 32, 2, 1, M_F32};
static const struct mcase m_f16_16 = {"m_f32_16x16x16_f16", 16, 16, 4, M_F16};
static const struct mcase m_f16_32 = {"m_f32_32x32x8_f16", 32, 8, 4, M_F16};
static const struct mcase m_bf16_32 = {"m_f32_32x32x8_bf16", 32, 8, 4, M_BF16};
static const struct mcase m_f64_16 = {"m_f64_16x16x4_f64", 16, 4, 1, M_F64};
static const struct mcase m_f16_32_acc = {"m_f32_32x32x8_f16_acc", 32, 8, 4, M_F16};
static const struct mcase m_f64_16_acc = {"m_f64_16x16x4_f64_acc", 16, 4, 1, M_F64};
static const struct mcase m_i8_90a = {"m_i32_16x16x16_i8", 16, 16, 4, M_I8};
static const struct mcase m_i8_942 = {"m_i32_16x16x32_i8", 16, 32, 8, M_I8};

#define TM(name, mc)                                                                     \
  Test(isa_op_vfp_gfx90a, name) { mfma_case(ISA_GFX90A, &mc, false); mfma_case(ISA_GFX90A, &mc, true); } \
  Test(isa_op_vfp_gfx942, name) { mfma_case(ISA_GFX942, &mc, false); mfma_case(ISA_GFX942, &mc, true); }
TM(mfma_f32_16x16x4_f32, m_f32_16)
TM(mfma_f32_32x32x2_f32, m_f32_32)
TM(mfma_f32_16x16x16_f16, m_f16_16)
TM(mfma_f32_32x32x8_f16, m_f16_32)
TM(mfma_f32_32x32x8_bf16_1k, m_bf16_32)
TM(mfma_f64_16x16x4_f64, m_f64_16)
TM(mfma_f32_32x32x8_f16_in_place, m_f16_32_acc)
TM(mfma_f64_16x16x4_f64_in_place, m_f64_16_acc)
/* the 8-bit integer MFMA of each target (gfx940 dropped 16x16x16i8 for 16x16x32_i8) */
Test(isa_op_vfp_gfx90a, mfma_i32_16x16x16_i8) { mfma_case(ISA_GFX90A, &m_i8_90a, false); }
Test(isa_op_vfp_gfx942, mfma_i32_16x16x32_i8) { mfma_case(ISA_GFX942, &m_i8_942, false); }
