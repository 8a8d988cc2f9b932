/* Vector ALU: VOP1, VOP2, VOPC, VOP3A/B, VOP3P (non-MAI), with DPP and SDWA source/destination
 * modifiers. Every instruction runs as a loop over the lanes enabled in EXEC.
 * Semantics: MI200/MI300 ISA guides, "Vector ALU Operations".
 */
#include "isa/wave.h"
#include "isa/valu_fp.h"
#include "isa/exec_valu_fast.h"

#include <pthread.h>
#include <stdlib.h>

typedef uint64_t lanes_t[WAVE_SIZE];

/* Visit the set bits of a lane mask: `l` is the lane number. `continue` moves to the next lane. */
#define FOR_ACTIVE(m)                                                                    \
  for (uint64_t lanes_left_ = (m); lanes_left_; lanes_left_ &= lanes_left_ - 1)           \
    for (unsigned l = (unsigned)__builtin_ctzll(lanes_left_), once_ = 1; once_; once_ = 0)
#define FOR_LANES(m) FOR_ACTIVE(m)

/* ---- compare opcodes, classified once from their names (data, not a switch ladder) ---- */

struct cmp_info {
  uint8_t type, pred, x, cls;
};
static struct cmp_info cmp_tab[ISA_OP_COUNT];
static uint8_t is_matrix[ISA_OP_COUNT];   /* v_mfma* / v_smfmac*: executed by exec_mfma */
static pthread_once_t cmp_once = PTHREAD_ONCE_INIT;

static const char *const fpred[16] = {"f", "lt", "eq", "le", "gt", "lg", "ge", "o",
                                      "u", "nge", "nlg", "ngt", "nle", "neq", "nlt", "tru"};
static const char *const ipred[8] = {"f", "lt", "eq", "le", "gt", "ne", "ge", "t"};

static void cmp_init(void)
{
  static const struct { const char *s; uint8_t t; } types[] = {
    {"f16", CT_F16}, {"f32", CT_F32}, {"f64", CT_F64}, {"i16", CT_I16}, {"u16", CT_U16},
    {"i32", CT_I32}, {"u32", CT_U32}, {"i64", CT_I64}, {"u64", CT_U64}};
  for (unsigned op = 1; op < ISA_OP_COUNT; op++) {
    const char *n = isa_op_names[op];
    is_matrix[op] = !strncmp(n, "v_mfma", 6) || !strncmp(n, "v_smfmac", 8);
    struct cmp_info ci = {0};
    if (!strncmp(n, "v_cmpx_", 7)) { ci.x = 1; n += 7; }
    else if (!strncmp(n, "v_cmp_", 6)) n += 6;
    else continue;
    const char *us = strrchr(n, '_');
    if (!us)
      continue;
    for (unsigned t = 0; t < sizeof(types) / sizeof(types[0]); t++)
      if (!strcmp(us + 1, types[t].s))
        ci.type = types[t].t;
    char pred[8] = {0};
    size_t pl = (size_t)(us - n);
    if (!ci.type || pl >= sizeof(pred))
      continue;
    memcpy(pred, n, pl);
    if (!strcmp(pred, "class")) {
      ci.cls = 1;
    } else if (ci.type <= CT_F64) {
      for (int i = 0; i < 16; i++) if (!strcmp(pred, fpred[i])) ci.pred = (uint8_t)i;
    } else {
      for (int i = 0; i < 8; i++) if (!strcmp(pred, ipred[i])) ci.pred = (uint8_t)i;
    }
    cmp_tab[op] = ci;
  }
}

bool valu_cmp_lookup(unsigned op, unsigned *type, unsigned *pred, bool *writes_exec)
{
  pthread_once(&cmp_once, cmp_init);
  if (op >= ISA_OP_COUNT || !cmp_tab[op].type || cmp_tab[op].cls)
    return false;
  *type = cmp_tab[op].type;
  *pred = cmp_tab[op].pred;
  *writes_exec = cmp_tab[op].x;
  return true;
}

static bool fcmp(unsigned pred, double a, double b)
{
  bool un = isnan(a) || isnan(b);
  switch (pred) {
  case 0: return false;
  case 1: return a < b;
  case 2: return a == b;
  case 3: return a <= b;
  case 4: return a > b;
  case 5: return a < b || a > b;
  case 6: return a >= b;
  case 7: return !un;
  case 8: return un;
  case 9: return !(a >= b);
  case 10: return !(a < b || a > b);
  case 11: return !(a > b);
  case 12: return !(a <= b);
  case 13: return !(a == b);
  case 14: return !(a < b);
  default: return true;
  }
}

static bool icmp(unsigned pred, int64_t as, int64_t bs, uint64_t au, uint64_t bu, bool sign)
{
  switch (pred) {
  case 0: return false;
  case 1: return sign ? as < bs : au < bu;
  case 2: return au == bu;
  case 3: return sign ? as <= bs : au <= bu;
  case 4: return sign ? as > bs : au > bu;
  case 5: return au != bu;
  case 6: return sign ? as >= bs : au >= bu;
  default: return true;
  }
}

/* v_cmp_class: S1 bits 0 sNaN, 1 qNaN, 2 -inf, 3 -normal, 4 -denorm, 5 -0, 6 +0, 7 +denorm,
 * 8 +normal, 9 +inf. */
static bool fclass(double v, bool subnormal, bool snan, uint32_t mask)
{
  int bit;
  if (isnan(v)) bit = snan ? 0 : 1;
  else if (isinf(v)) bit = v < 0 ? 2 : 9;
  else if (v == 0) bit = signbit(v) ? 5 : 6;
  else if (subnormal) bit = v < 0 ? 4 : 7;
  else bit = v < 0 ? 3 : 8;
  return mask >> bit & 1;
}

/* ---- operand fetch ---- */

static unsigned src_width(const struct isa_inst *in, int i)
{
  return in->src_w[i] ? in->src_w[i] : 1;
}

/* s_set_gpr_idx_on: M0-relative indexing of VGPR operands (src0..2 mode bits 0..2, dst bit 3). */
static unsigned gpr_index(const struct isa_wave *w, unsigned code, unsigned bit)
{
  uint32_t m0 = w->s[OPD_M0];
  if ((w->gpr_idx >> 31) && (m0 >> (12 + bit) & 1) && code >= OPD_VGPR && code < OPD_AGPR)
    return code + (m0 & 0xff);
  return code;
}

static int dpp_lane(unsigned ctrl, unsigned l)
{
  unsigned r = l & 15, n = ctrl & 15;
  if (ctrl <= 0xff)
    return (int)((l & ~3u) | (ctrl >> (2 * (l & 3)) & 3));
  if (ctrl >= 0x101 && ctrl <= 0x10f) return r + n <= 15 ? (int)(l + n) : -1;     /* row_shl */
  if (ctrl >= 0x111 && ctrl <= 0x11f) return r >= n ? (int)(l - n) : -1;          /* row_shr */
  if (ctrl >= 0x121 && ctrl <= 0x12f) return (int)((l & ~15u) | ((r - n) & 15));  /* row_ror */
  switch (ctrl) {
  case 0x130: return l < 63 ? (int)l + 1 : -1;          /* wave_shl:1 */
  case 0x134: return (int)((l + 1) & 63);               /* wave_rol:1 */
  case 0x138: return l > 0 ? (int)l - 1 : -1;           /* wave_shr:1 */
  case 0x13c: return (int)((l - 1) & 63);               /* wave_ror:1 */
  case 0x140: return (int)((l & ~15u) | (15 - r));      /* row_mirror */
  case 0x141: return (int)((l & ~7u) | (7 - (l & 7)));  /* row_half_mirror */
  case 0x142: return l >= 16 ? (int)((l & ~15u) - 1) : -1;  /* row_bcast:15 */
  case 0x143: return l >= 32 ? 31 : -1;                 /* row_bcast:31 */
  }
  return -1;
}

static uint32_t sdwa_select(uint32_t v, unsigned sel, bool sext)
{
  switch (sel) {
  case 0: case 1: case 2: case 3: {
    uint32_t b = v >> (8 * sel) & 0xff;
    return sext ? (uint32_t)(int32_t)(int8_t)b : b;
  }
  case 4: case 5: {
    uint32_t h = v >> (16 * (sel - 4)) & 0xffff;
    return sext ? (uint32_t)(int32_t)(int16_t)h : h;
  }
  default:
    return v;
  }
}

static void fetch(struct isa_wave *w, const struct isa_inst *in, int i, uint64_t *restrict out,
                  uint64_t *dppmask)
{
  unsigned code = gpr_index(w, in->src[i], (unsigned)i);
  unsigned width = src_width(in, i);
  if (code >= OPD_VGPR && code != OPD_NONE) {
    const uint32_t *restrict lo = wave_vreg(w, code);
    if (width >= 2) {
      const uint32_t *restrict hi = wave_vreg(w, code + 1);
      for (unsigned l = 0; l < WAVE_SIZE; l++)
        out[l] = lo[l] | (uint64_t)hi[l] << 32;
    } else if (i == 0 && in->dpp_kind == DPP_DPP) {
      uint64_t valid = 0, exec = wave_exec(w);
      for (unsigned l = 0; l < WAVE_SIZE; l++) {
        int s = dpp_lane(in->dpp_ctrl, l);
        /* An invalid source lane (outside the row or wave, or off in EXEC: gfx9 has no FI bit to
         * fetch inactive lanes) reads 0 with bound_ctrl, else leaves the destination lane
         * unwritten (LLVM AMDGPUModifierSyntax, bound_ctrl and fi). */
        if (s >= 0 && (exec >> s & 1)) { out[l] = lo[s]; valid |= 1ull << l; }
        else out[l] = 0;
      }
      if (!in->bound_ctrl)
        *dppmask &= valid;
    } else {
      for (unsigned l = 0; l < WAVE_SIZE; l++)
        out[l] = lo[l];
    }
  } else if (code != OPD_NONE) {
    uint64_t v = wave_scalar_src(w, in, code, width);
    for (unsigned l = 0; l < WAVE_SIZE; l++)
      out[l] = v;
  } else {
    return;
  }
  if (in->dpp_kind == DPP_SDWA && i < 2)
    for (unsigned l = 0; l < WAVE_SIZE; l++)
      out[l] = sdwa_select((uint32_t)out[l], in->sdwa_sel[i], in->sdwa_sext[i]);
  if (in->enc == ENC_VOP3 && in->fp16 && (in->opsel >> i & 1))
    for (unsigned l = 0; l < WAVE_SIZE; l++)
      out[l] = out[l] >> 16 & 0xffff;
  if ((in->abs | in->neg) >> i & 1) {
    uint64_t sign = width >= 2 ? 1ull << 63 : in->fp16 ? 0x8000 : 0x80000000u;
    bool ab = in->abs >> i & 1, ng = in->neg >> i & 1;
    for (unsigned l = 0; l < WAVE_SIZE; l++) {
      if (ab) out[l] &= ~sign;
      if (ng) out[l] ^= sign;
    }
  }
}

/* ---- destination write ---- */

static uint64_t apply_omod_clamp(const struct isa_inst *in, uint64_t r, unsigned kind)
{
  /* kind: 1 = f32, 2 = f64, 3 = f16 */
  if (!in->omod && !in->clamp)
    return r;
  static const double omod_mul[4] = {1.0, 2.0, 4.0, 0.5};
  if (kind == 1) {
    float f = f32_of(r) * (float)omod_mul[in->omod];
    if (in->clamp) f = isnan(f) ? 0.0f : fminf(fmaxf(f, 0.0f), 1.0f);
    return bits_f32(f);
  }
  if (kind == 2) {
    double d = f64_of(r) * omod_mul[in->omod];
    if (in->clamp) d = isnan(d) ? 0.0 : fmin(fmax(d, 0.0), 1.0);
    return bits_f64(d);
  }
  if (kind == 3) {
    float f = f16_to_f32((uint16_t)r) * (float)omod_mul[in->omod];
    if (in->clamp) f = isnan(f) ? 0.0f : fminf(fmaxf(f, 0.0f), 1.0f);
    return f32_to_f16(f);
  }
  return r;
}

static unsigned result_kind(const struct isa_inst *in)
{
  const char *n = isa_op_name(in->op);
  const char *t = strchr(n + 2, '_');
  if (!strncmp(n, "v_cvt_", 6))
    t = n + 5;
  if (!t)
    return 0;
  if (!strncmp(t, "_f32", 4)) return 1;
  if (!strncmp(t, "_f64", 4)) return 2;
  if (!strncmp(t, "_f16", 4)) return 3;
  const char *last = strrchr(n, '_');
  if (!strcmp(last, "_f32")) return 1;
  if (!strcmp(last, "_f64")) return 2;
  if (!strcmp(last, "_f16")) return 3;
  return 0;
}

static void write_vdst(struct isa_wave *w, const struct isa_inst *in, const uint64_t *r, uint64_t m,
                       unsigned width)
{
  unsigned code = gpr_index(w, in->dst, 3);
  if (code < OPD_VGPR) {
    /* SGPR destination (v_readlane, v_readfirstlane): the first active lane's value */
    return;
  }
  unsigned kind = (in->omod || in->clamp) ? result_kind(in) : 0;
  uint32_t *lo = wave_vreg(w, code);
  if (width >= 2) {
    uint32_t *hi = wave_vreg(w, code + 1);
    FOR_LANES(m) {
      uint64_t v = kind ? apply_omod_clamp(in, r[l], kind) : r[l];
      lo[l] = (uint32_t)v;
      hi[l] = (uint32_t)(v >> 32);
    }
    return;
  }
  if (in->dpp_kind == DPP_SDWA && in->sdwa_dst_sel != 6) {
    unsigned sel = in->sdwa_dst_sel;
    unsigned shift = sel < 4 ? 8 * sel : 16 * (sel - 4);
    uint32_t fm = (sel < 4 ? 0xffu : 0xffffu) << shift;
    FOR_LANES(m) {
      uint32_t v = (uint32_t)(kind ? apply_omod_clamp(in, r[l], kind) : r[l]);
      uint32_t field = (v << shift) & fm, old = lo[l];
      if (in->sdwa_dst_unused == 2)
        lo[l] = (old & ~fm) | field;
      else if (in->sdwa_dst_unused == 1) {
        uint32_t top = fm ^ (fm - (1u << shift) + (1u << shift));
        (void)top;
        /* sign-extend the field into the bits above it, zero below */
        int32_t sx = sel < 4 ? (int32_t)(int8_t)v : (int32_t)(int16_t)v;
        lo[l] = ((uint32_t)sx << shift);
      } else
        lo[l] = field;
    }
    return;
  }
  if (in->enc == ENC_VOP3 && in->fp16 && (in->opsel >> 3 & 1)) {
    FOR_LANES(m) {
      uint32_t v = (uint32_t)(kind ? apply_omod_clamp(in, r[l], kind) : r[l]);
      lo[l] = (lo[l] & 0xffff) | v << 16;
    }
    return;
  }
  if (!kind && m == ~0ull) {   /* every lane active: a straight, vectorisable copy */
    for (unsigned l = 0; l < WAVE_SIZE; l++)
      lo[l] = (uint32_t)r[l];
    return;
  }
  FOR_LANES(m) lo[l] = (uint32_t)(kind ? apply_omod_clamp(in, r[l], kind) : r[l]);
}

static void write_mask(struct isa_wave *w, unsigned code, uint64_t v)
{
  wave_set_sreg64(w, code, v);
}

/* ---- helpers for individual operations ---- */

static float fmin_ieee(float a, float b) { return fmin_hw(a, b); }
static float fmax_ieee(float a, float b) { return fmax_hw(a, b); }

static float med3f(float a, float b, float c)
{
  if (isnan(a) || isnan(b) || isnan(c))
    return fmin_hw(fmin_hw(a, b), c);
  float mx = fmax_hw(fmax_hw(a, b), c);
  if (mx == a) return fmax_hw(b, c);
  if (mx == b) return fmax_hw(a, c);
  return fmax_hw(a, b);
}

/* v_mad_f32 / v_mac_f32: product rounded, then added; denormal inputs, the product and the
 * result are flushed whatever MODE.FP_DENORM says. LLVM relies on it: it selects these only
 * for flushed f32 (AMDGPUISD::FMAD_FTZ, "mac/mad is treated as an illegal operation" with f32
 * denormals on) and names the intrinsic llvm.amdgcn.fmad.ftz. */
static float mad_ftz(float a, float b, float c)
{
  volatile float p = flush_f32(a) * flush_f32(b);
  return flush_f32(flush_f32(p) + flush_f32(c));
}

static int32_t cvt_i32(double d)
{
  if (isnan(d)) return 0;
  if (d >= 2147483647.0) return INT32_MAX;
  if (d <= -2147483648.0) return INT32_MIN;
  return (int32_t)d;
}
static uint32_t cvt_u32(double d)
{
  if (isnan(d) || d <= 0) return 0;
  if (d >= 4294967295.0) return UINT32_MAX;
  return (uint32_t)d;
}

static int exponent_f32(float f) { return (int)(bits_f32(f) >> 23 & 0xff); }
static int exponent_f64(double d) { return (int)(bits_f64(d) >> 52 & 0x7ff); }

static float div_scale_f32(float s0, float s1, float s2, bool *vcc)
{
  float d = s0;
  *vcc = false;
  if (s2 == 0 || s1 == 0)
    return NAN;
  if (exponent_f32(s2) - exponent_f32(s1) >= 96) {
    *vcc = true;
    if (s0 == s1) d = ldexpf(s0, 64);
  } else if (fpclassify(s1) == FP_SUBNORMAL) {
    d = ldexpf(s0, 64);
  } else if (fpclassify(1.0 / (double)s1) == FP_SUBNORMAL && fpclassify(s2 / s1) == FP_SUBNORMAL) {
    *vcc = true;
    if (s0 == s1) d = ldexpf(s0, 64);
  } else if (fabs(1.0 / (double)s1) < 1.1754943508222875e-38) {
    d = ldexpf(s0, -64);
  } else if (fpclassify(s2 / s1) == FP_SUBNORMAL) {
    *vcc = true;
    if (s0 == s2) d = ldexpf(s0, 64);
  } else if (exponent_f32(s2) <= 23) {
    d = ldexpf(s0, 64);
  }
  return d;
}

static double div_scale_f64(double s0, double s1, double s2, bool *vcc)
{
  double d = s0;
  *vcc = false;
  if (s2 == 0 || s1 == 0)
    return NAN;
  if (exponent_f64(s2) - exponent_f64(s1) >= 768) {
    *vcc = true;
    if (s0 == s1) d = ldexp(s0, 128);
  } else if (fpclassify(s1) == FP_SUBNORMAL) {
    d = ldexp(s0, 128);
  } else if (fabs(1.0 / s1) < 2.2250738585072014e-308 && fpclassify(s2 / s1) == FP_SUBNORMAL) {
    *vcc = true;
    if (s0 == s1) d = ldexp(s0, 128);
  } else if (fabs(1.0 / s1) < 2.2250738585072014e-308) {
    d = ldexp(s0, -128);
  } else if (fpclassify(s2 / s1) == FP_SUBNORMAL) {
    *vcc = true;
    if (s0 == s2) d = ldexp(s0, 128);
  } else if (exponent_f64(s2) <= 53) {
    d = ldexp(s0, 128);
  }
  return d;
}

static double div_fixup(double q, double den, double num, bool f64)
{
  bool sign = signbit(den) != signbit(num);
  if (isnan(num)) return num;
  if (isnan(den)) return den;
  if (den == 0 && num == 0) return NAN;
  if (isinf(den) && isinf(num)) return NAN;
  if (den == 0 || isinf(num)) return sign ? -INFINITY : INFINITY;
  if (isinf(den) || num == 0) return sign ? -0.0 : 0.0;
  if (isnan(q)) return sign ? -INFINITY : INFINITY;   /* overflow in the iteration */
  (void)f64;
  return sign ? -fabs(q) : fabs(q);
}

/* 2/pi as the fixed-point fraction v_trig_preop_f64 reads: bits b1200 (weight 2^-1) down to b0,
 * most significant first, padded with zero bits to 19 words. A mathematical constant,
 * computed with integer arithmetic (Machin's formula) and checked against its well-known
 * leading digits 0xa2f9836e4e441529. */
static const uint64_t two_over_pi[19] = {
  0xa2f9836e4e441529ull, 0xfc2757d1f534ddc0ull, 0xdb6295993c439041ull, 0xfe5163abdebbc561ull,
  0xb7246e3a424dd2e0ull, 0x06492eea09d1921cull, 0xfe1deb1cb129a73eull, 0xe88235f52ebb4484ull,
  0xe99c7026b45f7e41ull, 0x3991d639835339f4ull, 0x9c845f8bbdf9283bull, 0x1ff897ffde05980full,
  0xef2f118b5a0a6d1full, 0x6d367ecf27cb09b7ull, 0x4f463f669e5fea2dull, 0x7527bac7ebe5f17bull,
  0x3d0739f78a5292eaull, 0x6bfb5fb11f8d5d08ull, 0x56033046fc7b0000ull,
};

/* The 53 bits of 2/pi starting `start` bits below the binary point, as an integer. */
static uint64_t two_over_pi_53(unsigned start)
{
  uint64_t r = 0;
  for (unsigned i = 0; i < 53; i++) {
    unsigned b = start + i;
    unsigned bit = b < 19 * 64 ? (unsigned)(two_over_pi[b / 64] >> (63 - b % 64) & 1) : 0;
    r = r << 1 | bit;
  }
  return r;
}

/* v_trig_preop_f64 (ISA guide): segment S1[4:0] of 2/pi, 53 bits at a time, for large-argument
 * reduction; inputs with a large exponent skip further into the constant, and very large
 * ones get the result scaled up by 2^128 to stay in range. */
static double trig_preop(double x, uint32_t seg)
{
  int e = exponent_f64(x);
  unsigned shift = (seg & 31) * 53;
  if (e > 1077)
    shift += (unsigned)(e - 1077);
  int scale = -53 - (int)shift;
  if (e >= 1968)
    scale += 128;
  return ldexp((double)two_over_pi_53(shift), scale);
}

static uint32_t bfe_u(uint32_t v, uint32_t off, uint32_t wid)
{
  off &= 31; wid &= 31;
  if (!wid) return 0;
  return off + wid < 32 ? v >> off & ((1u << wid) - 1) : v >> off;
}
static int32_t bfe_i(uint32_t v, uint32_t off, uint32_t wid)
{
  off &= 31; wid &= 31;
  if (!wid) return 0;
  if (off + wid < 32) {
    int32_t x = (int32_t)(v << (32 - off - wid));
    return x >> (32 - wid);
  }
  return (int32_t)v >> off;
}

static uint8_t perm_byte(uint64_t src, unsigned sel)
{
  if (sel < 8) return (uint8_t)(src >> (8 * sel));
  switch (sel) {
  case 8: return (src >> 15 & 1) ? 0xff : 0;
  case 9: return (src >> 31 & 1) ? 0xff : 0;
  case 10: return (src >> 47 & 1) ? 0xff : 0;
  case 11: return (src >> 63 & 1) ? 0xff : 0;
  case 12: return 0;
  default: return 0xff;
  }
}

static float fract_f32(float x)
{
  if (isinf(x)) return NAN;
  float r = x - floorf(x);
  return r >= 1.0f ? 0x1.fffffep-1f : r;
}
static double fract_f64(double x)
{
  if (isinf(x)) return NAN;
  double r = x - floor(x);
  return r >= 1.0 ? 0x1.fffffffffffffp-1 : r;
}

static int frexp_exp(double x)
{
  int e = 0;
  if (isnan(x) || isinf(x)) return 0;
  frexp(x, &e);
  return e;
}

/* Normalised 16-bit conversions (v_cvt_norm_*, v_cvt_pknorm_*): clamp to [-1, 1] or [0, 1],
 * scale to the integer range, round to nearest even; NaN converts to 0. */
static uint16_t snorm16(float f)
{
  if (isnan(f)) return 0;
  f = fminf(fmaxf(f, -1.0f), 1.0f);
  return (uint16_t)(int16_t)nearbyintf(f * 32767.0f);
}
static uint16_t unorm16(float f)
{
  if (isnan(f)) return 0;
  f = fminf(fmaxf(f, 0.0f), 1.0f);
  return (uint16_t)nearbyintf(f * 65535.0f);
}

/* Signed 4-bit field i of v (v_dot8*_i32_i4). */
static int nib_s(uint64_t v, int i) { return (int)((int32_t)((uint32_t)v << (28 - 4 * i)) >> 28); }

/* Saturation for the clamp bit of integer adds and subtracts. */
static uint32_t sat_u32(int64_t v) { return v < 0 ? 0 : v > UINT32_MAX ? UINT32_MAX : (uint32_t)v; }
static uint32_t sat_i32(int64_t v) { return (uint32_t)(int32_t)(v < INT32_MIN ? INT32_MIN : v > INT32_MAX ? INT32_MAX : v); }
static uint16_t sat_u16(int32_t v) { return (uint16_t)(v < 0 ? 0 : v > 0xffff ? 0xffff : v); }
static uint16_t sat_i16(int32_t v) { return (uint16_t)(int16_t)(v < -32768 ? -32768 : v > 32767 ? 32767 : v); }

static int16_t med3_i16(int16_t a, int16_t b, int16_t c)
{
  int16_t mx = a > b ? a : b, mn = a < b ? a : b;
  return c > mx ? mx : c < mn ? mn : c;
}
static uint16_t med3_u16(uint16_t a, uint16_t b, uint16_t c)
{
  uint16_t mx = a > b ? a : b, mn = a < b ? a : b;
  return c > mx ? mx : c < mn ? mn : c;
}

/* f32 denormal handling: MODE[5:4] = 0 flushes inputs and outputs (ISA guide "MODE register"). */
static inline float in32(const struct isa_wave *w, uint64_t b)
{
  float f = f32_of(b);
  return (w->mode >> 4 & 3) ? f : flush_f32(f);
}
static inline uint64_t out32(const struct isa_wave *w, float f)
{
  return bits_f32((w->mode >> 4 & 3) ? f : flush_f32(f));
}
static inline float h2f(uint64_t b) { return f16_to_f32((uint16_t)b); }
static inline uint64_t f2h(float f) { return f32_to_f16(f); }

/* ---- lane-crossing and special instructions ---- */

static int exec_special(struct isa_wave *w, const struct isa_inst *in, uint64_t exec, lanes_t *S)
{
  switch (in->op) {
  case OP_V_READFIRSTLANE_B32: {
    unsigned l = exec ? (unsigned)__builtin_ctzll(exec) : 0;
    if (in->dst < 128) w->s[in->dst] = (uint32_t)S[0][l];
    return 0;
  }
  case OP_V_READLANE_B32:
    if (in->dst < 128) w->s[in->dst] = (uint32_t)S[0][S[1][0] & 63];
    return 0;
  case OP_V_WRITELANE_B32: {
    uint32_t *d = wave_vreg(w, in->dst);
    d[S[1][0] & 63] = (uint32_t)S[0][0];
    return 0;
  }
  default:
    return 1;
  }
}

static int exec_cmp(struct isa_wave *w, const struct isa_inst *in, uint64_t exec, lanes_t *S)
{
  struct cmp_info ci = cmp_tab[in->op];
  uint64_t res = 0;
  FOR_LANES(exec) {
    uint64_t a = S[0][l], b = S[1][l];
    bool r;
    if (ci.cls) {
      /* the class is taken in the operand's own format: an f32 denormal is normal as a double */
      double v = ci.type == CT_F64 ? f64_of(a) : ci.type == CT_F32 ? (double)f32_of(a) : (double)h2f(a);
      bool snan = ci.type == CT_F64 ? !(a >> 51 & 1) : ci.type == CT_F32 ? !(a >> 22 & 1) : !(a >> 9 & 1);
      bool sub = ci.type == CT_F64 ? fpclassify(v) == FP_SUBNORMAL
               : ci.type == CT_F32 ? fpclassify(f32_of(a)) == FP_SUBNORMAL
               : ((a >> 10 & 0x1f) == 0 && (a & 0x3ff));
      r = fclass(v, sub, snan, (uint32_t)b);
    } else {
      switch (ci.type) {
      case CT_F16: r = fcmp(ci.pred, h2f(a), h2f(b)); break;
      case CT_F32: r = fcmp(ci.pred, in32(w, a), in32(w, b)); break;
      case CT_F64: r = fcmp(ci.pred, f64_of(a), f64_of(b)); break;
      case CT_I16: r = icmp(ci.pred, (int16_t)a, (int16_t)b, (uint16_t)a, (uint16_t)b, true); break;
      case CT_U16: r = icmp(ci.pred, 0, 0, (uint16_t)a, (uint16_t)b, false); break;
      case CT_I32: r = icmp(ci.pred, (int32_t)a, (int32_t)b, (uint32_t)a, (uint32_t)b, true); break;
      case CT_U32: r = icmp(ci.pred, 0, 0, (uint32_t)a, (uint32_t)b, false); break;
      case CT_I64: r = icmp(ci.pred, (int64_t)a, (int64_t)b, a, b, true); break;
      default: r = icmp(ci.pred, 0, 0, a, b, false); break;
      }
    }
    if (r) res |= 1ull << l;
  }
  unsigned dst = in->enc == ENC_VOP3 ? in->dst : (in->dpp_kind == DPP_SDWA ? in->dst : OPD_VCC);
  write_mask(w, dst, res);
  if (ci.x)
    wave_set_exec(w, res);
  return 0;
}

static int exec_vop3p(struct isa_wave *w, const struct isa_inst *in, uint64_t exec);

/* The per-lane ALU. Returns 0 when handled, 1 for an unknown opcode.
 * It computes every lane, active or not: R is scratch and write_vdst stores only the lanes in
 * `m`, so a straight 64-lane loop (which the compiler can unroll and vectorise, and which has
 * no bit-scan chain) replaces visiting the set bits of EXEC. Results that leave the function
 * other than through R are masked explicitly: carry and VCC outputs (& m) and v_swap_b32,
 * which writes registers itself. Inactive lanes compute on whatever their registers hold; the
 * host raises no floating-point traps, so that is harmless. */
#undef FOR_LANES
#define FOR_LANES(m) for (unsigned l = 0; l < WAVE_SIZE; l++)
static int alu(struct isa_wave *w, const struct isa_inst *in, uint64_t m, lanes_t *restrict S,
               uint64_t *restrict R, unsigned *width)
{
  /* restrict: R and S are the caller's scratch arrays, never the wave's registers, so the
   * compiler may keep w->mode and the like in registers across the lane loops */
  const uint64_t *restrict A = S[0], *restrict B = S[1], *restrict C = S[2];
  uint64_t vcc_in = 0, carry = 0;
  bool e64 = in->enc == ENC_VOP3;
  *width = in->dst_w ? in->dst_w : 1;
  switch (in->op) {
  case OP_V_NOP: return 0;
  case OP_V_MOV_B32: case OP_V_ACCVGPR_READ_B32: case OP_V_ACCVGPR_WRITE_B32: case OP_V_ACCVGPR_MOV_B32:
    FOR_LANES(m) { R[l] = (uint32_t)A[l]; } *width = 1; return 0;
  case OP_V_MOV_B64: FOR_LANES(m) { R[l] = A[l]; } *width = 2; return 0;
  case OP_V_NOT_B32: FOR_LANES(m) { R[l] = ~(uint32_t)A[l]; } return 0;
  case OP_V_BFREV_B32: FOR_LANES(m) { uint32_t v = (uint32_t)A[l], r = 0; for (int i = 0; i < 32; i++) r |= (v >> i & 1) << (31 - i); R[l] = r; }
    return 0;
  case OP_V_FFBH_U32: FOR_LANES(m) { R[l] = (uint32_t)A[l] ? (uint32_t)__builtin_clz((uint32_t)A[l]) : ~0u; } return 0;
  case OP_V_FFBL_B32: FOR_LANES(m) { R[l] = (uint32_t)A[l] ? (uint32_t)__builtin_ctz((uint32_t)A[l]) : ~0u; } return 0;
  case OP_V_FFBH_I32: FOR_LANES(m) { int32_t v = (int32_t)A[l]; uint32_t u = (uint32_t)(v < 0 ? ~v : v); R[l] = u ? (uint32_t)__builtin_clz(u) : ~0u; }
    return 0;
  /* conversions */
  case OP_V_CVT_F32_I32: FOR_LANES(m) { R[l] = out32(w, (float)(int32_t)A[l]); } return 0;
  case OP_V_CVT_F32_U32: FOR_LANES(m) { R[l] = out32(w, (float)(uint32_t)A[l]); } return 0;
  case OP_V_CVT_I32_F32: FOR_LANES(m) { R[l] = (uint32_t)cvt_i32(in32(w, A[l])); } return 0;
  case OP_V_CVT_U32_F32: FOR_LANES(m) { R[l] = cvt_u32(in32(w, A[l])); } return 0;
  case OP_V_CVT_I32_F64: FOR_LANES(m) { R[l] = (uint32_t)cvt_i32(f64_of(A[l])); } return 0;
  case OP_V_CVT_U32_F64: FOR_LANES(m) { R[l] = cvt_u32(f64_of(A[l])); } return 0;
  case OP_V_CVT_F64_I32: FOR_LANES(m) { R[l] = bits_f64((double)(int32_t)A[l]); } return 0;
  case OP_V_CVT_F64_U32: FOR_LANES(m) { R[l] = bits_f64((double)(uint32_t)A[l]); } return 0;
  case OP_V_CVT_F32_F64: FOR_LANES(m) { R[l] = out32(w, (float)f64_of(A[l])); } return 0;
  case OP_V_CVT_F64_F32: FOR_LANES(m) { R[l] = bits_f64((double)in32(w, A[l])); } return 0;
  case OP_V_CVT_F16_F32: FOR_LANES(m) { R[l] = f2h(in32(w, A[l])); } return 0;
  case OP_V_CVT_F32_F16: FOR_LANES(m) { R[l] = out32(w, h2f(A[l])); } return 0;
  case OP_V_CVT_RPI_I32_F32: FOR_LANES(m) { R[l] = (uint32_t)cvt_i32(floor((double)in32(w, A[l]) + 0.5)); } return 0;
  case OP_V_CVT_FLR_I32_F32: FOR_LANES(m) { R[l] = (uint32_t)cvt_i32(floor((double)in32(w, A[l]))); } return 0;
  case OP_V_CVT_F32_UBYTE0: FOR_LANES(m) { R[l] = bits_f32((float)(A[l] & 0xff)); } return 0;
  case OP_V_CVT_F32_UBYTE1: FOR_LANES(m) { R[l] = bits_f32((float)(A[l] >> 8 & 0xff)); } return 0;
  case OP_V_CVT_F32_UBYTE2: FOR_LANES(m) { R[l] = bits_f32((float)(A[l] >> 16 & 0xff)); } return 0;
  case OP_V_CVT_F32_UBYTE3: FOR_LANES(m) { R[l] = bits_f32((float)(A[l] >> 24 & 0xff)); } return 0;
  case OP_V_CVT_F16_U16: FOR_LANES(m) { R[l] = f2h((float)(uint16_t)A[l]); } return 0;
  case OP_V_CVT_F16_I16: FOR_LANES(m) { R[l] = f2h((float)(int16_t)A[l]); } return 0;
  case OP_V_CVT_U16_F16: FOR_LANES(m) { float f = h2f(A[l]); R[l] = isnan(f) || f < 0 ? 0 : f > 65535 ? 65535 : (uint16_t)f; }
    return 0;
  case OP_V_CVT_I16_F16: FOR_LANES(m) { float f = h2f(A[l]); R[l] = (uint16_t)(isnan(f) ? 0 : f > 32767 ? 32767 : f < -32768 ? -32768 : (int16_t)f); }
    return 0;
  case OP_V_CVT_PKRTZ_F16_F32: FOR_LANES(m) {
    /* round toward zero: truncate the f32 -> f16 mantissa */
    uint16_t h[2];
    for (int k = 0; k < 2; k++) {
      float f = in32(w, k ? B[l] : A[l]);
      uint16_t r = f32_to_f16(f);
      if (!isnan(f) && fabsf(h2f(r)) > fabsf(f)) r--;
      if (isinf(h2f(r)) && !isinf(f)) r = (uint16_t)((r & 0x8000) | 0x7bff);
      h[k] = r;
    }
    R[l] = h[0] | (uint32_t)h[1] << 16;
  } return 0;
  case OP_V_CVT_PK_U16_U32: FOR_LANES(m) { uint32_t a = (uint32_t)A[l], b = (uint32_t)B[l]; R[l] = (a > 0xffff ? 0xffff : a) | (b > 0xffff ? 0xffffu : b) << 16; }
    return 0;
  case OP_V_CVT_PK_I16_I32: FOR_LANES(m) { int32_t a = (int32_t)A[l], b = (int32_t)B[l]; a = a > 32767 ? 32767 : a < -32768 ? -32768 : a; b = b > 32767 ? 32767 : b < -32768 ? -32768 : b; R[l] = (uint16_t)a | (uint32_t)(uint16_t)b << 16; }
    return 0;
  case OP_V_PACK_B32_F16: FOR_LANES(m) { R[l] = (A[l] & 0xffff) | (B[l] & 0xffff) << 16; } return 0;
  /* f32 unary */
  case OP_V_TRUNC_F32: FOR_LANES(m) { R[l] = out32(w, truncf(in32(w, A[l]))); } return 0;
  case OP_V_CEIL_F32: FOR_LANES(m) { R[l] = out32(w, ceilf(in32(w, A[l]))); } return 0;
  case OP_V_RNDNE_F32: FOR_LANES(m) { R[l] = out32(w, nearbyintf(in32(w, A[l]))); } return 0;
  case OP_V_FLOOR_F32: FOR_LANES(m) { R[l] = out32(w, floorf(in32(w, A[l]))); } return 0;
  case OP_V_FRACT_F32: FOR_LANES(m) { R[l] = out32(w, fract_f32(in32(w, A[l]))); } return 0;
  /* The f32 exp, log and rsq do not handle denormals whatever MODE says: a denormal input
   * reads as zero and a denormal result is written as zero. AMD's code relies on it: with
   * denormals on, ocml's exp2f adds 64 to inputs below -126 and scales the result by 2^-64,
   * its log2f scales denormal inputs by 2^32, and LLVM documents RSQ f32 as having "no
   * denormal handling" (AMDGPUISelLowering.h). */
  case OP_V_EXP_F32: case OP_V_EXP_LEGACY_F32: FOR_LANES(m) { R[l] = bits_f32(flush_f32(exp2f(flush_f32(f32_of(A[l]))))); } return 0;
  case OP_V_LOG_F32: case OP_V_LOG_LEGACY_F32: FOR_LANES(m) { R[l] = bits_f32(flush_f32(log2f(flush_f32(f32_of(A[l]))))); } return 0;
  case OP_V_RCP_F32: case OP_V_RCP_IFLAG_F32: FOR_LANES(m) { R[l] = out32(w, 1.0f / in32(w, A[l])); } return 0;
  case OP_V_RSQ_F32: FOR_LANES(m) { R[l] = bits_f32(flush_f32(1.0f / sqrtf(flush_f32(f32_of(A[l]))))); } return 0;
  case OP_V_SQRT_F32: FOR_LANES(m) { R[l] = out32(w, sqrtf(in32(w, A[l]))); } return 0;
  case OP_V_SIN_F32: FOR_LANES(m) { R[l] = out32(w, (float)sin(2.0 * M_PI * in32(w, A[l]))); } return 0;
  case OP_V_COS_F32: FOR_LANES(m) { R[l] = out32(w, (float)cos(2.0 * M_PI * in32(w, A[l]))); } return 0;
  case OP_V_FREXP_EXP_I32_F32: FOR_LANES(m) { R[l] = (uint32_t)frexp_exp(in32(w, A[l])); } return 0;
  case OP_V_FREXP_MANT_F32: FOR_LANES(m) { float f = in32(w, A[l]); int e; R[l] = bits_f32(isnan(f) || isinf(f) ? f : frexpf(f, &e)); }
    return 0;
  /* f64 unary */
  case OP_V_TRUNC_F64: FOR_LANES(m) { R[l] = bits_f64(trunc(f64_of(A[l]))); } return 0;
  case OP_V_CEIL_F64: FOR_LANES(m) { R[l] = bits_f64(ceil(f64_of(A[l]))); } return 0;
  case OP_V_RNDNE_F64: FOR_LANES(m) { R[l] = bits_f64(nearbyint(f64_of(A[l]))); } return 0;
  case OP_V_FLOOR_F64: FOR_LANES(m) { R[l] = bits_f64(floor(f64_of(A[l]))); } return 0;
  case OP_V_FRACT_F64: FOR_LANES(m) { R[l] = bits_f64(fract_f64(f64_of(A[l]))); } return 0;
  case OP_V_RCP_F64: FOR_LANES(m) { R[l] = bits_f64(1.0 / f64_of(A[l])); } return 0;
  case OP_V_RSQ_F64: FOR_LANES(m) { R[l] = bits_f64(1.0 / sqrt(f64_of(A[l]))); } return 0;
  case OP_V_SQRT_F64: FOR_LANES(m) { R[l] = bits_f64(sqrt(f64_of(A[l]))); } return 0;
  case OP_V_FREXP_EXP_I32_F64: FOR_LANES(m) { R[l] = (uint32_t)frexp_exp(f64_of(A[l])); } *width = 1; return 0;
  case OP_V_FREXP_MANT_F64: FOR_LANES(m) { double d = f64_of(A[l]); int e; R[l] = bits_f64(isnan(d) || isinf(d) ? d : frexp(d, &e)); }
    return 0;
  /* f16 unary */
  case OP_V_TRUNC_F16: FOR_LANES(m) { R[l] = f2h(truncf(h2f(A[l]))); } return 0;
  case OP_V_CEIL_F16: FOR_LANES(m) { R[l] = f2h(ceilf(h2f(A[l]))); } return 0;
  case OP_V_FLOOR_F16: FOR_LANES(m) { R[l] = f2h(floorf(h2f(A[l]))); } return 0;
  case OP_V_RNDNE_F16: FOR_LANES(m) { R[l] = f2h(nearbyintf(h2f(A[l]))); } return 0;
  case OP_V_FRACT_F16: FOR_LANES(m) {
    /* the largest half below 1 caps the result (a tiny negative input would round up to 1.0) */
    float f = h2f(A[l]);
    uint64_t r = f2h(fract_f32(f));
    R[l] = !isnan(f) && !isinf(f) && r == 0x3c00 ? 0x3bff : r;
  } return 0;
  case OP_V_RCP_F16: FOR_LANES(m) { R[l] = f2h(1.0f / h2f(A[l])); } return 0;
  case OP_V_SQRT_F16: FOR_LANES(m) { R[l] = f2h(sqrtf(h2f(A[l]))); } return 0;
  case OP_V_RSQ_F16: FOR_LANES(m) { R[l] = f2h(1.0f / sqrtf(h2f(A[l]))); } return 0;
  case OP_V_EXP_F16: FOR_LANES(m) { R[l] = f2h(exp2f(h2f(A[l]))); } return 0;
  case OP_V_LOG_F16: FOR_LANES(m) { R[l] = f2h(log2f(h2f(A[l]))); } return 0;
  case OP_V_SIN_F16: FOR_LANES(m) { R[l] = f2h((float)sin(2.0 * M_PI * h2f(A[l]))); } return 0;
  case OP_V_COS_F16: FOR_LANES(m) { R[l] = f2h((float)cos(2.0 * M_PI * h2f(A[l]))); } return 0;
  /* v_frexp_*_f16: as the f32 forms; the exponent is a 16-bit integer */
  case OP_V_FREXP_MANT_F16: FOR_LANES(m) { float f = h2f(A[l]); int e; R[l] = isnan(f) || isinf(f) ? (uint16_t)A[l] : f2h(frexpf(f, &e)); }
    return 0;
  case OP_V_FREXP_EXP_I16_F16: FOR_LANES(m) { R[l] = (uint16_t)frexp_exp(h2f(A[l])); } return 0;
  case OP_V_CVT_NORM_I16_F16: FOR_LANES(m) { R[l] = snorm16(h2f(A[l])); } return 0;
  case OP_V_CVT_NORM_U16_F16: FOR_LANES(m) { R[l] = unorm16(h2f(A[l])); } return 0;
  case OP_V_CVT_PKNORM_I16_F16: FOR_LANES(m) { R[l] = snorm16(h2f(A[l])) | (uint32_t)snorm16(h2f(B[l])) << 16; } return 0;
  case OP_V_CVT_PKNORM_U16_F16: FOR_LANES(m) { R[l] = unorm16(h2f(A[l])) | (uint32_t)unorm16(h2f(B[l])) << 16; } return 0;
  case OP_V_CVT_PKNORM_I16_F32: FOR_LANES(m) { R[l] = snorm16(in32(w, A[l])) | (uint32_t)snorm16(in32(w, B[l])) << 16; } return 0;
  case OP_V_CVT_PKNORM_U16_F32: FOR_LANES(m) { R[l] = unorm16(in32(w, A[l])) | (uint32_t)unorm16(in32(w, B[l])) << 16; } return 0;
  case OP_V_CVT_PK_U8_F32: FOR_LANES(m) {
    /* byte S1[1:0] of S2 replaced by S0 converted to u8 (round to nearest even, saturate) */
    float f = in32(w, A[l]);
    uint32_t b = isnan(f) || f <= 0 ? 0 : f >= 255.0f ? 255 : (uint32_t)nearbyintf(f);
    unsigned sh = 8 * (B[l] & 3);
    R[l] = ((uint32_t)C[l] & ~(0xffu << sh)) | b << sh;
  } return 0;
  /* f32 binary / ternary */
  case OP_V_ADD_F32: FOR_LANES(m) { R[l] = out32(w, in32(w, A[l]) + in32(w, B[l])); } return 0;
  case OP_V_SUB_F32: FOR_LANES(m) { R[l] = out32(w, in32(w, A[l]) - in32(w, B[l])); } return 0;
  case OP_V_SUBREV_F32: FOR_LANES(m) { R[l] = out32(w, in32(w, B[l]) - in32(w, A[l])); } return 0;
  case OP_V_MUL_F32: FOR_LANES(m) { R[l] = out32(w, in32(w, A[l]) * in32(w, B[l])); } return 0;
  case OP_V_MUL_LEGACY_F32: FOR_LANES(m) { float a = in32(w, A[l]), b = in32(w, B[l]); R[l] = out32(w, (a == 0 || b == 0) ? 0.0f : a * b); }
    return 0;
  case OP_V_MIN_F32: FOR_LANES(m) { R[l] = out32(w, fmin_ieee(in32(w, A[l]), in32(w, B[l]))); } return 0;
  case OP_V_MAX_F32: FOR_LANES(m) { R[l] = out32(w, fmax_ieee(in32(w, A[l]), in32(w, B[l]))); } return 0;
  case OP_V_LDEXP_F32: FOR_LANES(m) { R[l] = out32(w, ldexpf(in32(w, A[l]), (int32_t)B[l])); } return 0;
  /* v_mad/v_mac are unfused (the product is rounded first); v_fma/v_fmac are fused. */
  case OP_V_MAC_F32: {
    const uint32_t *d = wave_vreg(w, in->dst);
    FOR_LANES(m) R[l] = bits_f32(mad_ftz(f32_of(A[l]), f32_of(B[l]), f32_of(d[l])));
    return 0;
  }
  case OP_V_FMAC_F32: {
    const uint32_t *d = wave_vreg(w, in->dst);
    FOR_LANES(m) R[l] = out32(w, fmaf(in32(w, A[l]), in32(w, B[l]), in32(w, d[l])));
    return 0;
  }
  case OP_V_FMA_F32:
    FOR_LANES(m) { R[l] = out32(w, fmaf(in32(w, A[l]), in32(w, B[l]), in32(w, C[l]))); } return 0;
  case OP_V_MAD_F32:
    FOR_LANES(m) { R[l] = bits_f32(mad_ftz(f32_of(A[l]), f32_of(B[l]), f32_of(C[l]))); } return 0;
  case OP_V_MAD_LEGACY_F32:
    FOR_LANES(m) { R[l] = out32(w, in32(w, A[l]) * in32(w, B[l]) + in32(w, C[l])); } return 0;
  case OP_V_FMAMK_F32:
    FOR_LANES(m) { R[l] = out32(w, fmaf(in32(w, A[l]), f32_of(in->literal), in32(w, B[l]))); } return 0;
  /* the literal forms of v_mad_f32 (gfx90a): the same unfused, always-flushing arithmetic */
  case OP_V_MADMK_F32:
    FOR_LANES(m) { R[l] = bits_f32(mad_ftz(f32_of(A[l]), f32_of(in->literal), f32_of(B[l]))); } return 0;
  case OP_V_FMAAK_F32:
    FOR_LANES(m) { R[l] = out32(w, fmaf(in32(w, A[l]), in32(w, B[l]), f32_of(in->literal))); } return 0;
  case OP_V_MADAK_F32:
    FOR_LANES(m) { R[l] = bits_f32(mad_ftz(f32_of(A[l]), f32_of(B[l]), f32_of(in->literal))); } return 0;
  case OP_V_MIN3_F32: FOR_LANES(m) { R[l] = out32(w, fmin_hw(fmin_hw(in32(w, A[l]), in32(w, B[l])), in32(w, C[l]))); } return 0;
  case OP_V_MAX3_F32: FOR_LANES(m) { R[l] = out32(w, fmax_hw(fmax_hw(in32(w, A[l]), in32(w, B[l])), in32(w, C[l]))); } return 0;
  case OP_V_MED3_F32: FOR_LANES(m) { R[l] = out32(w, med3f(in32(w, A[l]), in32(w, B[l]), in32(w, C[l]))); } return 0;
  case OP_V_DIV_SCALE_F32: {
    uint64_t v = 0;
    FOR_LANES(m) { bool f; R[l] = bits_f32(div_scale_f32(in32(w, A[l]), in32(w, B[l]), in32(w, C[l]), &f)); if (f) v |= 1ull << l; }
    write_mask(w, in->sdst, v & m);
    return 0;
  }
  case OP_V_DIV_FMAS_F32: {
    uint64_t v = wave_sreg64(w, OPD_VCC);
    FOR_LANES(m) {
      float r = fmaf(in32(w, A[l]), in32(w, B[l]), in32(w, C[l]));
      if (v >> l & 1) r = ldexpf(r, exponent_f32(in32(w, C[l])) > 127 ? 64 : -64);
      R[l] = out32(w, r);
    }
    return 0;
  }
  case OP_V_DIV_FIXUP_F32: FOR_LANES(m) { R[l] = out32(w, (float)div_fixup(in32(w, A[l]), in32(w, B[l]), in32(w, C[l]), false)); } return 0;
  /* f64 */
  case OP_V_ADD_F64: FOR_LANES(m) { R[l] = bits_f64(f64_of(A[l]) + f64_of(B[l])); } return 0;
  case OP_V_MUL_F64: FOR_LANES(m) { R[l] = bits_f64(f64_of(A[l]) * f64_of(B[l])); } return 0;
  case OP_V_MIN_F64: FOR_LANES(m) { R[l] = bits_f64(fmin_hw64(f64_of(A[l]), f64_of(B[l]))); } return 0;
  case OP_V_MAX_F64: FOR_LANES(m) { R[l] = bits_f64(fmax_hw64(f64_of(A[l]), f64_of(B[l]))); } return 0;
  case OP_V_LDEXP_F64: FOR_LANES(m) { R[l] = bits_f64(ldexp(f64_of(A[l]), (int32_t)B[l])); } return 0;
  case OP_V_FMA_F64: FOR_LANES(m) { R[l] = bits_f64(fma(f64_of(A[l]), f64_of(B[l]), f64_of(C[l]))); } return 0;
  case OP_V_FMAC_F64: {
    const uint32_t *lo = wave_vreg(w, in->dst), *hi = wave_vreg(w, in->dst + 1);
    FOR_LANES(m) R[l] = bits_f64(fma(f64_of(A[l]), f64_of(B[l]), f64_of(lo[l] | (uint64_t)hi[l] << 32)));
    return 0;
  }
  case OP_V_DIV_SCALE_F64: {
    uint64_t v = 0;
    FOR_LANES(m) { bool f; R[l] = bits_f64(div_scale_f64(f64_of(A[l]), f64_of(B[l]), f64_of(C[l]), &f)); if (f) v |= 1ull << l; }
    write_mask(w, in->sdst, v & m);
    return 0;
  }
  case OP_V_DIV_FMAS_F64: {
    uint64_t v = wave_sreg64(w, OPD_VCC);
    FOR_LANES(m) {
      double r = fma(f64_of(A[l]), f64_of(B[l]), f64_of(C[l]));
      if (v >> l & 1) r = ldexp(r, exponent_f64(f64_of(C[l])) > 1023 ? 128 : -128);
      R[l] = bits_f64(r);
    }
    return 0;
  }
  case OP_V_DIV_FIXUP_F64: FOR_LANES(m) { R[l] = bits_f64(div_fixup(f64_of(A[l]), f64_of(B[l]), f64_of(C[l]), true)); } return 0;
  case OP_V_TRIG_PREOP_F64: FOR_LANES(m) { R[l] = bits_f64(trig_preop(f64_of(A[l]), (uint32_t)B[l])); } return 0;
  /* f16 binary */
  case OP_V_ADD_F16: FOR_LANES(m) { R[l] = f2h(h2f(A[l]) + h2f(B[l])); } return 0;
  case OP_V_SUB_F16: FOR_LANES(m) { R[l] = f2h(h2f(A[l]) - h2f(B[l])); } return 0;
  case OP_V_SUBREV_F16: FOR_LANES(m) { R[l] = f2h(h2f(B[l]) - h2f(A[l])); } return 0;
  case OP_V_MUL_F16: FOR_LANES(m) { R[l] = f2h(h2f(A[l]) * h2f(B[l])); } return 0;
  case OP_V_MIN_F16: FOR_LANES(m) { R[l] = f2h(fmin_hw(h2f(A[l]), h2f(B[l]))); } return 0;
  case OP_V_MAX_F16: FOR_LANES(m) { R[l] = f2h(fmax_hw(h2f(A[l]), h2f(B[l]))); } return 0;
  case OP_V_LDEXP_F16: FOR_LANES(m) { R[l] = f2h(ldexpf(h2f(A[l]), (int16_t)B[l])); } return 0;
  case OP_V_MAD_F16: case OP_V_FMA_F16: case OP_V_MAD_LEGACY_F16: case OP_V_FMA_LEGACY_F16:
    FOR_LANES(m) { R[l] = f2h((float)fma(h2f(A[l]), h2f(B[l]), h2f(C[l]))); } return 0;
  case OP_V_MAC_F16: {
    const uint32_t *d = wave_vreg(w, in->dst);
    FOR_LANES(m) R[l] = f2h((float)fma(h2f(A[l]), h2f(B[l]), h2f(d[l])));
    return 0;
  }
  /* v_div_fixup_f16: the special cases of num/den around the quotient S0 (den S1, num S2) */
  case OP_V_DIV_FIXUP_F16: case OP_V_DIV_FIXUP_LEGACY_F16:
    FOR_LANES(m) { R[l] = f2h((float)div_fixup(h2f(A[l]), h2f(B[l]), h2f(C[l]), false)); } return 0;
  case OP_V_MIN3_F16: FOR_LANES(m) { R[l] = f2h(fmin_hw(fmin_hw(h2f(A[l]), h2f(B[l])), h2f(C[l]))); } return 0;
  case OP_V_MAX3_F16: FOR_LANES(m) { R[l] = f2h(fmax_hw(fmax_hw(h2f(A[l]), h2f(B[l])), h2f(C[l]))); } return 0;
  case OP_V_MED3_F16: FOR_LANES(m) { R[l] = f2h(med3f(h2f(A[l]), h2f(B[l]), h2f(C[l]))); } return 0;
  case OP_V_MIN3_I16: FOR_LANES(m) { int16_t a = (int16_t)A[l], b = (int16_t)B[l], c = (int16_t)C[l]; int16_t r = a < b ? a : b; R[l] = (uint16_t)(r < c ? r : c); }
    return 0;
  case OP_V_MAX3_I16: FOR_LANES(m) { int16_t a = (int16_t)A[l], b = (int16_t)B[l], c = (int16_t)C[l]; int16_t r = a > b ? a : b; R[l] = (uint16_t)(r > c ? r : c); }
    return 0;
  case OP_V_MIN3_U16: FOR_LANES(m) { uint16_t a = (uint16_t)A[l], b = (uint16_t)B[l], c = (uint16_t)C[l]; uint16_t r = a < b ? a : b; R[l] = r < c ? r : c; }
    return 0;
  case OP_V_MAX3_U16: FOR_LANES(m) { uint16_t a = (uint16_t)A[l], b = (uint16_t)B[l], c = (uint16_t)C[l]; uint16_t r = a > b ? a : b; R[l] = r > c ? r : c; }
    return 0;
  case OP_V_MED3_I16: FOR_LANES(m) { R[l] = (uint16_t)med3_i16((int16_t)A[l], (int16_t)B[l], (int16_t)C[l]); } return 0;
  case OP_V_MED3_U16: FOR_LANES(m) { R[l] = med3_u16((uint16_t)A[l], (uint16_t)B[l], (uint16_t)C[l]); } return 0;
  /* VOP2 dot products accumulate into the destination (the "c" forms) */
  case OP_V_DOT2C_F32_F16: {
    const uint32_t *d = wave_vreg(w, in->dst);
    FOR_LANES(m) R[l] = bits_f32(f32_of(d[l]) + h2f(A[l]) * h2f(B[l]) + h2f(A[l] >> 16) * h2f(B[l] >> 16));
    return 0;
  }
  case OP_V_DOT2C_I32_I16: {
    const uint32_t *d = wave_vreg(w, in->dst);
    FOR_LANES(m) R[l] = (uint32_t)((int32_t)d[l] + (int16_t)A[l] * (int16_t)B[l] + (int16_t)(A[l] >> 16) * (int16_t)(B[l] >> 16));
    return 0;
  }
  case OP_V_DOT4C_I32_I8: {
    const uint32_t *d = wave_vreg(w, in->dst);
    FOR_LANES(m) { int32_t s = (int32_t)d[l]; for (int i = 0; i < 4; i++) s += (int8_t)(A[l] >> (8 * i)) * (int8_t)(B[l] >> (8 * i)); R[l] = (uint32_t)s; }
    return 0;
  }
  case OP_V_DOT8C_I32_I4: {
    const uint32_t *d = wave_vreg(w, in->dst);
    FOR_LANES(m) { int32_t s = (int32_t)d[l]; for (int i = 0; i < 8; i++) s += nib_s(A[l], i) * nib_s(B[l], i); R[l] = (uint32_t)s; }
    return 0;
  }
  case OP_V_SAD_U16: FOR_LANES(m) { uint32_t s = (uint32_t)C[l]; for (int i = 0; i < 2; i++) { int a = (int)(A[l] >> (16 * i) & 0xffff), b = (int)(B[l] >> (16 * i) & 0xffff); s += (uint32_t)abs(a - b); } R[l] = s; }
    return 0;
  case OP_V_SAD_HI_U8: FOR_LANES(m) { uint32_t s = 0; for (int i = 0; i < 4; i++) { int a = (int)(A[l] >> (8 * i) & 0xff), b = (int)(B[l] >> (8 * i) & 0xff); s += (uint32_t)abs(a - b); } R[l] = (s << 16) + (uint32_t)C[l]; }
    return 0;
  case OP_V_MSAD_U8: FOR_LANES(m) { uint32_t s = (uint32_t)C[l]; for (int i = 0; i < 4; i++) { int a = (int)(A[l] >> (8 * i) & 0xff), b = (int)(B[l] >> (8 * i) & 0xff); if (b) s += (uint32_t)abs(a - b); } R[l] = s; }
    return 0;
  case OP_V_SAT_PK_U8_I16: FOR_LANES(m) { int16_t lo = (int16_t)A[l], hi = (int16_t)(A[l] >> 16); R[l] = (uint32_t)(lo < 0 ? 0 : lo > 255 ? 255 : lo) | (uint32_t)(hi < 0 ? 0 : hi > 255 ? 255 : hi) << 8; }
    return 0;
  case OP_V_MADMK_F16: FOR_LANES(m) { R[l] = f2h((float)fma(h2f(A[l]), h2f(in->literal), h2f(B[l]))); } return 0;
  case OP_V_MADAK_F16: FOR_LANES(m) { R[l] = f2h((float)fma(h2f(A[l]), h2f(B[l]), h2f(in->literal))); } return 0;
  /* integer 32-bit */
  /* Integer adds and subtracts: the VOP3 clamp bit saturates (unsigned to [0, 2^32-1], signed
   * to [INT32_MIN, INT32_MAX]); LLVM selects these forms for llvm.uadd.sat and friends. */
  case OP_V_ADD_U32: FOR_LANES(m) { R[l] = in->clamp ? sat_u32((int64_t)(uint32_t)A[l] + (uint32_t)B[l]) : (uint32_t)(A[l] + B[l]); } return 0;
  case OP_V_SUB_U32: FOR_LANES(m) { R[l] = in->clamp ? sat_u32((int64_t)(uint32_t)A[l] - (uint32_t)B[l]) : (uint32_t)(A[l] - B[l]); } return 0;
  case OP_V_SUBREV_U32: FOR_LANES(m) { R[l] = in->clamp ? sat_u32((int64_t)(uint32_t)B[l] - (uint32_t)A[l]) : (uint32_t)(B[l] - A[l]); } return 0;
  case OP_V_ADD_I32: FOR_LANES(m) { R[l] = in->clamp ? sat_i32((int64_t)(int32_t)A[l] + (int32_t)B[l]) : (uint32_t)(A[l] + B[l]); } return 0;
  case OP_V_SUB_I32: FOR_LANES(m) { R[l] = in->clamp ? sat_i32((int64_t)(int32_t)A[l] - (int32_t)B[l]) : (uint32_t)(A[l] - B[l]); } return 0;
  case OP_V_ADD_CO_U32: case OP_V_SUB_CO_U32: case OP_V_SUBREV_CO_U32:
  case OP_V_ADDC_CO_U32: case OP_V_SUBB_CO_U32: case OP_V_SUBBREV_CO_U32: {
    bool with_in = in->op == OP_V_ADDC_CO_U32 || in->op == OP_V_SUBB_CO_U32 || in->op == OP_V_SUBBREV_CO_U32;
    if (with_in)
      vcc_in = e64 ? C[0] : wave_sreg64(w, OPD_VCC);
    FOR_LANES(m) {
      uint64_t a = (uint32_t)A[l], b = (uint32_t)B[l], ci = with_in ? (vcc_in >> l & 1) : 0, r;
      bool co;
      switch (in->op) {
      case OP_V_ADD_CO_U32: case OP_V_ADDC_CO_U32: r = a + b + ci; co = r >> 32; break;
      case OP_V_SUB_CO_U32: case OP_V_SUBB_CO_U32: r = a - b - ci; co = b + ci > a; break;
      default: r = b - a - ci; co = a + ci > b; break;
      }
      /* clamp saturates to the unsigned range (the carry still reports the overflow) */
      R[l] = in->clamp && co ? (in->op == OP_V_ADD_CO_U32 || in->op == OP_V_ADDC_CO_U32 ? 0xffffffffu : 0) : (uint32_t)r;
      if (co) carry |= 1ull << l;
    }
    write_mask(w, e64 ? in->sdst : OPD_VCC, carry & m);
    return 0;
  }
  case OP_V_MUL_LO_U32: FOR_LANES(m) { R[l] = (uint32_t)A[l] * (uint32_t)B[l]; } return 0;
  case OP_V_MUL_HI_U32: FOR_LANES(m) { R[l] = (uint32_t)((uint64_t)(uint32_t)A[l] * (uint32_t)B[l] >> 32); } return 0;
  case OP_V_MUL_HI_I32: FOR_LANES(m) { R[l] = (uint32_t)((int64_t)(int32_t)A[l] * (int32_t)B[l] >> 32); } return 0;
  case OP_V_MUL_U32_U24: FOR_LANES(m) { R[l] = (uint32_t)((A[l] & 0xffffff) * (B[l] & 0xffffff)); } return 0;
  case OP_V_MUL_HI_U32_U24: FOR_LANES(m) { R[l] = (uint32_t)((A[l] & 0xffffff) * (B[l] & 0xffffff) >> 32); } return 0;
  case OP_V_MUL_I32_I24: FOR_LANES(m) { int64_t a = ((int32_t)((uint32_t)A[l] << 8)) >> 8, b = ((int32_t)((uint32_t)B[l] << 8)) >> 8; R[l] = (uint32_t)(a * b); }
    return 0;
  case OP_V_MUL_HI_I32_I24: FOR_LANES(m) { int64_t a = ((int32_t)((uint32_t)A[l] << 8)) >> 8, b = ((int32_t)((uint32_t)B[l] << 8)) >> 8; R[l] = (uint32_t)((a * b) >> 32); }
    return 0;
  case OP_V_MAD_U32_U24: FOR_LANES(m) { R[l] = (uint32_t)((A[l] & 0xffffff) * (B[l] & 0xffffff) + C[l]); } return 0;
  case OP_V_MAD_I32_I24: FOR_LANES(m) { int64_t a = ((int32_t)((uint32_t)A[l] << 8)) >> 8, b = ((int32_t)((uint32_t)B[l] << 8)) >> 8; R[l] = (uint32_t)(a * b + (int32_t)C[l]); }
    return 0;
  case OP_V_MAD_U32_U16: FOR_LANES(m) { R[l] = (uint32_t)((A[l] & 0xffff) * (B[l] & 0xffff) + C[l]); } return 0;
  case OP_V_MAD_I32_I16: FOR_LANES(m) { R[l] = (uint32_t)((int16_t)A[l] * (int16_t)B[l] + (int32_t)C[l]); } return 0;
  case OP_V_MAD_U64_U32: case OP_V_MAD_I64_I32: {
    FOR_LANES(m) {
      uint64_t r;
      bool ovf;
      if (in->op == OP_V_MAD_U64_U32) {
        unsigned __int128 p = (unsigned __int128)((uint64_t)(uint32_t)A[l] * (uint32_t)B[l]) + C[l];
        r = (uint64_t)p;
        ovf = (p >> 64) != 0;
      } else {
        __int128 p = (__int128)((int64_t)(int32_t)A[l] * (int32_t)B[l]) + (int64_t)C[l];
        r = (uint64_t)p;
        ovf = p != (__int128)(int64_t)r;
      }
      R[l] = r;
      if (ovf) carry |= 1ull << l;
    }
    write_mask(w, in->sdst, carry & m);
    *width = 2;
    return 0;
  }
  case OP_V_MIN_I32: FOR_LANES(m) { R[l] = (uint32_t)((int32_t)A[l] < (int32_t)B[l] ? A[l] : B[l]); } return 0;
  case OP_V_MAX_I32: FOR_LANES(m) { R[l] = (uint32_t)((int32_t)A[l] > (int32_t)B[l] ? A[l] : B[l]); } return 0;
  case OP_V_MIN_U32: FOR_LANES(m) { R[l] = (uint32_t)((uint32_t)A[l] < (uint32_t)B[l] ? A[l] : B[l]); } return 0;
  case OP_V_MAX_U32: FOR_LANES(m) { R[l] = (uint32_t)((uint32_t)A[l] > (uint32_t)B[l] ? A[l] : B[l]); } return 0;
  case OP_V_MIN3_I32: FOR_LANES(m) { int32_t a = (int32_t)A[l], b = (int32_t)B[l], c = (int32_t)C[l]; int32_t r = a < b ? a : b; R[l] = (uint32_t)(r < c ? r : c); }
    return 0;
  case OP_V_MAX3_I32: FOR_LANES(m) { int32_t a = (int32_t)A[l], b = (int32_t)B[l], c = (int32_t)C[l]; int32_t r = a > b ? a : b; R[l] = (uint32_t)(r > c ? r : c); }
    return 0;
  case OP_V_MIN3_U32: FOR_LANES(m) { uint32_t a = (uint32_t)A[l], b = (uint32_t)B[l], c = (uint32_t)C[l]; uint32_t r = a < b ? a : b; R[l] = r < c ? r : c; }
    return 0;
  case OP_V_MAX3_U32: FOR_LANES(m) { uint32_t a = (uint32_t)A[l], b = (uint32_t)B[l], c = (uint32_t)C[l]; uint32_t r = a > b ? a : b; R[l] = r > c ? r : c; }
    return 0;
  case OP_V_MED3_I32: FOR_LANES(m) { int32_t a = (int32_t)A[l], b = (int32_t)B[l], c = (int32_t)C[l]; int32_t mx = a > b ? a : b, mn = a < b ? a : b; R[l] = (uint32_t)(c > mx ? mx : c < mn ? mn : c); }
    return 0;
  case OP_V_MED3_U32: FOR_LANES(m) { uint32_t a = (uint32_t)A[l], b = (uint32_t)B[l], c = (uint32_t)C[l]; uint32_t mx = a > b ? a : b, mn = a < b ? a : b; R[l] = c > mx ? mx : c < mn ? mn : c; }
    return 0;
  case OP_V_AND_B32: FOR_LANES(m) { R[l] = (uint32_t)(A[l] & B[l]); } return 0;
  case OP_V_OR_B32: FOR_LANES(m) { R[l] = (uint32_t)(A[l] | B[l]); } return 0;
  case OP_V_XOR_B32: FOR_LANES(m) { R[l] = (uint32_t)(A[l] ^ B[l]); } return 0;
  case OP_V_XNOR_B32: FOR_LANES(m) { R[l] = (uint32_t)~(A[l] ^ B[l]); } return 0;
  case OP_V_LSHLREV_B32: FOR_LANES(m) { R[l] = (uint32_t)B[l] << (A[l] & 31); } return 0;
  case OP_V_LSHRREV_B32: FOR_LANES(m) { R[l] = (uint32_t)B[l] >> (A[l] & 31); } return 0;
  case OP_V_ASHRREV_I32: FOR_LANES(m) { R[l] = (uint32_t)((int32_t)B[l] >> (A[l] & 31)); } return 0;
  case OP_V_LSHLREV_B64: FOR_LANES(m) { R[l] = B[l] << (A[l] & 63); } *width = 2; return 0;
  case OP_V_LSHRREV_B64: FOR_LANES(m) { R[l] = B[l] >> (A[l] & 63); } *width = 2; return 0;
  case OP_V_ASHRREV_I64: FOR_LANES(m) { R[l] = (uint64_t)((int64_t)B[l] >> (A[l] & 63)); } *width = 2; return 0;
  case OP_V_LSHL_ADD_U64: FOR_LANES(m) { R[l] = (A[l] << (B[l] & 7)) + C[l]; } *width = 2; return 0;
  case OP_V_BFE_U32: FOR_LANES(m) { R[l] = bfe_u((uint32_t)A[l], (uint32_t)B[l], (uint32_t)C[l]); } return 0;
  case OP_V_BFE_I32: FOR_LANES(m) { R[l] = (uint32_t)bfe_i((uint32_t)A[l], (uint32_t)B[l], (uint32_t)C[l]); } return 0;
  case OP_V_BFI_B32: FOR_LANES(m) { R[l] = (uint32_t)((A[l] & B[l]) | (~A[l] & C[l])); } return 0;
  case OP_V_BFM_B32: FOR_LANES(m) { R[l] = (uint32_t)(((1ull << (A[l] & 31)) - 1) << (B[l] & 31)); } return 0;
  case OP_V_ALIGNBIT_B32: FOR_LANES(m) { R[l] = (uint32_t)((((uint64_t)(uint32_t)A[l] << 32) | (uint32_t)B[l]) >> (C[l] & 31)); } return 0;
  case OP_V_ALIGNBYTE_B32: FOR_LANES(m) { R[l] = (uint32_t)((((uint64_t)(uint32_t)A[l] << 32) | (uint32_t)B[l]) >> (8 * (C[l] & 3))); } return 0;
  case OP_V_LSHL_ADD_U32: FOR_LANES(m) { R[l] = (uint32_t)(((uint32_t)A[l] << (B[l] & 31)) + C[l]); } return 0;
  case OP_V_ADD_LSHL_U32: FOR_LANES(m) { R[l] = (uint32_t)(A[l] + B[l]) << (C[l] & 31); } return 0;
  case OP_V_ADD3_U32: FOR_LANES(m) { R[l] = (uint32_t)(A[l] + B[l] + C[l]); } return 0;
  case OP_V_LSHL_OR_B32: FOR_LANES(m) { R[l] = ((uint32_t)A[l] << (B[l] & 31)) | (uint32_t)C[l]; } return 0;
  case OP_V_AND_OR_B32: FOR_LANES(m) { R[l] = (uint32_t)((A[l] & B[l]) | C[l]); } return 0;
  case OP_V_OR3_B32: FOR_LANES(m) { R[l] = (uint32_t)(A[l] | B[l] | C[l]); } return 0;
  case OP_V_XAD_U32: FOR_LANES(m) { R[l] = (uint32_t)((A[l] ^ B[l]) + C[l]); } return 0;
  case OP_V_PERM_B32: FOR_LANES(m) {
    uint64_t src = (uint32_t)B[l] | (uint64_t)(uint32_t)A[l] << 32;
    uint32_t sel = (uint32_t)C[l], r = 0;
    for (int i = 0; i < 4; i++) r |= (uint32_t)perm_byte(src, sel >> (8 * i) & 0xff) << (8 * i);
    R[l] = r;
  } return 0;
  case OP_V_BCNT_U32_B32: FOR_LANES(m) { R[l] = (uint32_t)(bit_count64((uint32_t)A[l]) + B[l]); } return 0;
  case OP_V_MBCNT_LO_U32_B32: FOR_LANES(m) { R[l] = (uint32_t)(bit_count64((uint32_t)A[l] & (uint32_t)((1ull << (l < 32 ? l : 32)) - 1)) + B[l]); } return 0;
  case OP_V_MBCNT_HI_U32_B32: FOR_LANES(m) { R[l] = (uint32_t)(bit_count64((uint32_t)A[l] & (uint32_t)(l > 32 ? ((1ull << (l - 32)) - 1) : 0)) + B[l]); } return 0;
  case OP_V_SAD_U32: FOR_LANES(m) { uint32_t a = (uint32_t)A[l], b = (uint32_t)B[l]; R[l] = (a > b ? a - b : b - a) + (uint32_t)C[l]; }
    return 0;
  case OP_V_SAD_U8: FOR_LANES(m) { uint32_t s = (uint32_t)C[l]; for (int i = 0; i < 4; i++) { int a = (int)(A[l] >> (8 * i) & 0xff), b = (int)(B[l] >> (8 * i) & 0xff); s += (uint32_t)abs(a - b); } R[l] = s; }
    return 0;
  case OP_V_LERP_U8: FOR_LANES(m) { uint32_t r = 0; for (int i = 0; i < 4; i++) { uint32_t a = A[l] >> (8 * i) & 0xff, b = B[l] >> (8 * i) & 0xff, c = C[l] >> (8 * i) & 1; r |= ((a + b + c) >> 1 & 0xff) << (8 * i); } R[l] = r; }
    return 0;
  case OP_V_CNDMASK_B32: {
    uint64_t mask = e64 ? C[0] : wave_sreg64(w, OPD_VCC);
    FOR_LANES(m) R[l] = (uint32_t)((mask >> l & 1) ? B[l] : A[l]);
    return 0;
  }
  /* 16-bit integer */
  case OP_V_ADD_U16: FOR_LANES(m) { R[l] = in->clamp ? sat_u16((int32_t)(uint16_t)A[l] + (uint16_t)B[l]) : (uint16_t)(A[l] + B[l]); } return 0;
  case OP_V_SUB_U16: FOR_LANES(m) { R[l] = in->clamp ? sat_u16((int32_t)(uint16_t)A[l] - (uint16_t)B[l]) : (uint16_t)(A[l] - B[l]); } return 0;
  case OP_V_SUBREV_U16: FOR_LANES(m) { R[l] = in->clamp ? sat_u16((int32_t)(uint16_t)B[l] - (uint16_t)A[l]) : (uint16_t)(B[l] - A[l]); } return 0;
  case OP_V_ADD_I16: FOR_LANES(m) { R[l] = in->clamp ? sat_i16((int32_t)(int16_t)A[l] + (int16_t)B[l]) : (uint16_t)(A[l] + B[l]); } return 0;
  case OP_V_SUB_I16: FOR_LANES(m) { R[l] = in->clamp ? sat_i16((int32_t)(int16_t)A[l] - (int16_t)B[l]) : (uint16_t)(A[l] - B[l]); } return 0;
  case OP_V_MUL_LO_U16: FOR_LANES(m) { R[l] = (uint16_t)(A[l] * B[l]); } return 0;
  case OP_V_LSHLREV_B16: FOR_LANES(m) { R[l] = (uint16_t)(B[l] << (A[l] & 15)); } return 0;
  case OP_V_LSHRREV_B16: FOR_LANES(m) { R[l] = (uint16_t)((uint16_t)B[l] >> (A[l] & 15)); } return 0;
  case OP_V_ASHRREV_I16: FOR_LANES(m) { R[l] = (uint16_t)((int16_t)B[l] >> (A[l] & 15)); } return 0;
  case OP_V_MAX_U16: FOR_LANES(m) { R[l] = (uint16_t)A[l] > (uint16_t)B[l] ? (uint16_t)A[l] : (uint16_t)B[l]; } return 0;
  case OP_V_MIN_U16: FOR_LANES(m) { R[l] = (uint16_t)A[l] < (uint16_t)B[l] ? (uint16_t)A[l] : (uint16_t)B[l]; } return 0;
  case OP_V_MAX_I16: FOR_LANES(m) { R[l] = (uint16_t)((int16_t)A[l] > (int16_t)B[l] ? A[l] : B[l]); } return 0;
  case OP_V_MIN_I16: FOR_LANES(m) { R[l] = (uint16_t)((int16_t)A[l] < (int16_t)B[l] ? A[l] : B[l]); } return 0;
  case OP_V_MAD_U16: case OP_V_MAD_LEGACY_U16: FOR_LANES(m) { R[l] = (uint16_t)(A[l] * B[l] + C[l]); } return 0;
  case OP_V_MAD_I16: case OP_V_MAD_LEGACY_I16: FOR_LANES(m) { R[l] = (uint16_t)((int16_t)A[l] * (int16_t)B[l] + (int16_t)C[l]); } return 0;
  case OP_V_SWAP_B32: {
    uint32_t *d = wave_vreg(w, in->dst), *s = wave_vreg(w, in->src[0]);
    FOR_ACTIVE(m) { uint32_t t = d[l]; d[l] = s[l]; s[l] = t; }
    *width = 0;
    return 0;
  }
  default:
    return 1;
  }
}

/* back to visiting only the active lanes */
#undef FOR_LANES
#define FOR_LANES(m) FOR_ACTIVE(m)

int exec_valu(struct isa_wave *w, const struct isa_inst *in)
{
  if (!exec_valu_fast(w, in))
    return 0;
  return exec_valu_general(w, in);
}

int exec_valu_general(struct isa_wave *w, const struct isa_inst *in)
{
  pthread_once(&cmp_once, cmp_init);
  uint64_t exec = wave_exec(w);
  if (in->enc == ENC_VOP3P) {
    if (is_matrix[in->op])
      return exec_mfma(w, in);
    return exec_vop3p(w, in, exec);
  }
  lanes_t S[3];
  uint64_t m = exec;
  if (in->dpp_kind == DPP_DPP) {
    uint64_t rows = 0;
    for (unsigned l = 0; l < WAVE_SIZE; l++)
      if ((in->row_mask >> (l >> 4) & 1) && (in->bank_mask >> ((l >> 2) & 3) & 1))
        rows |= 1ull << l;
    m &= rows;
  }
  unsigned n = in->enc == ENC_VOP1 ? 1 : in->enc == ENC_VOP2 || in->enc == ENC_VOPC ? 2 : 3;
  for (unsigned i = 0; i < n; i++)
    if (in->src[i] != OPD_NONE)
      fetch(w, in, (int)i, S[i], &m);
  if (cmp_tab[in->op].type)
    return exec_cmp(w, in, m, S);
  int sp = exec_special(w, in, exec, S);
  if (sp <= 0)
    return sp;
  uint64_t R[WAVE_SIZE];
  unsigned width;
  if (alu(w, in, m, S, R, &width))
    return exec_illegal(w, in);
  if (width)
    write_vdst(w, in, R, m, width);
  return 0;
}

/* ---- VOP3P: packed 16-bit and 32-bit ---- */

static uint32_t pk_half(uint64_t v, unsigned sel_hi, bool hi_part)
{
  (void)hi_part;
  return sel_hi ? (uint32_t)(v >> 16 & 0xffff) : (uint32_t)(v & 0xffff);
}

static int exec_vop3p(struct isa_wave *w, const struct isa_inst *in, uint64_t exec)
{
  lanes_t S[3];
  uint64_t m = exec;
  struct isa_inst plain = *in;
  plain.abs = plain.neg = 0;
  plain.enc = ENC_VOP3P;
  for (int i = 0; i < 3; i++)
    if (in->src[i] != OPD_NONE)
      fetch(w, &plain, i, S[i], &m);
  uint64_t R[WAVE_SIZE];
  bool f32pk = in->op == OP_V_PK_FMA_F32 || in->op == OP_V_PK_MUL_F32 ||
               in->op == OP_V_PK_ADD_F32 || in->op == OP_V_PK_MOV_B32;
  /* Float inline constants take the type of the operand that reads them (LLVM's operand types
   * OPERAND_REG_INLINE_C_V2FP16 / _V2FP32 / _FP32): a packed f16 operand gets the f16 value in its
   * low half, a packed f32 operand (a 64-bit register pair) the f32 value in its low dword, and
   * the f32 accumulator of v_dot2_f32_f16 the f32 value; the high half is 0 (the compiler selects
   * the low half for the high lanes with op_sel_hi). */
  for (int i = 0; i < 3; i++) {
    unsigned code = in->src[i];
    bool f32_operand = f32pk || (i == 2 && in->op == OP_V_DOT2_F32_F16);
    if (code < 240 || code > 248 || !f32_operand)
      continue;
    struct isa_inst f32 = plain;
    f32.fp16 = 0;
    uint64_t v = (uint32_t)wave_scalar_src(w, &f32, code, 1);
    for (unsigned l = 0; l < WAVE_SIZE; l++)
      S[i][l] = v;
  }
  if (in->op == OP_V_ACCVGPR_READ_B32 || in->op == OP_V_ACCVGPR_WRITE_B32 || in->op == OP_V_ACCVGPR_MOV_B32) {
    uint32_t *d = wave_vreg(w, in->dst);
    FOR_LANES(m) d[l] = (uint32_t)S[0][l];
    return 0;
  }
  if (f32pk) {
    /* 64-bit register pairs; op_sel picks the half of each source for the low result,
     * op_sel_hi for the high result; neg_lo/neg_hi negate per half. */
    FOR_LANES(m) {
      uint32_t lo[3], hi[3];
      for (int i = 0; i < 3; i++) {
        uint64_t v = S[i][l];
        lo[i] = (uint32_t)((in->opsel >> i & 1) ? v >> 32 : v);
        hi[i] = (uint32_t)((in->opsel_hi >> i & 1) ? v >> 32 : v);
        if (in->neg >> i & 1) lo[i] ^= 0x80000000u;
        if (in->neg_hi >> i & 1) hi[i] ^= 0x80000000u;
      }
      /* the arithmetic ones follow MODE's f32 denormal mode like any f32 VALU operation */
      float x[3], y[3];
      for (int i = 0; i < 3; i++) {
        x[i] = in32(w, lo[i]);
        y[i] = in32(w, hi[i]);
      }
      switch (in->op) {
      case OP_V_PK_FMA_F32: R[l] = out32(w, fmaf(x[0], x[1], x[2])) | out32(w, fmaf(y[0], y[1], y[2])) << 32; break;
      case OP_V_PK_MUL_F32: R[l] = out32(w, x[0] * x[1]) | out32(w, y[0] * y[1]) << 32; break;
      case OP_V_PK_ADD_F32: R[l] = out32(w, x[0] + x[1]) | out32(w, y[0] + y[1]) << 32; break;
      default: /* v_pk_mov_b32: bits unchanged, low from src0 (op_sel[0]), high from src1 (op_sel[1]) */
        R[l] = (uint32_t)((in->opsel & 1) ? S[0][l] >> 32 : S[0][l]) |
               ((in->opsel & 2) ? S[1][l] >> 32 : S[1][l] & 0xffffffffu) << 32;
        break;
      }
    }
    uint32_t *lo = wave_vreg(w, in->dst), *hi = wave_vreg(w, in->dst + 1);
    FOR_LANES(m) { lo[l] = (uint32_t)R[l]; hi[l] = (uint32_t)(R[l] >> 32); }
    return 0;
  }
  /* dot products and mixed precision read whole dwords */
  switch (in->op) {
  case OP_V_DOT2_F32_F16: FOR_LANES(m) {
    float s = f32_of(S[2][l]);
    s += h2f(S[0][l]) * h2f(S[1][l]) + h2f(S[0][l] >> 16) * h2f(S[1][l] >> 16);
    R[l] = bits_f32(s);
  } goto write32;
  case OP_V_DOT2_I32_I16: FOR_LANES(m) { R[l] = (uint32_t)((int32_t)S[2][l] + (int16_t)S[0][l] * (int16_t)S[1][l] + (int16_t)(S[0][l] >> 16) * (int16_t)(S[1][l] >> 16)); } goto write32;
  case OP_V_DOT2_U32_U16: FOR_LANES(m) { R[l] = (uint32_t)(S[2][l] + (S[0][l] & 0xffff) * (S[1][l] & 0xffff) + (S[0][l] >> 16 & 0xffff) * (S[1][l] >> 16 & 0xffff)); } goto write32;
  case OP_V_DOT4_I32_I8: FOR_LANES(m) { int32_t s = (int32_t)S[2][l]; for (int i = 0; i < 4; i++) s += (int8_t)(S[0][l] >> (8 * i)) * (int8_t)(S[1][l] >> (8 * i)); R[l] = (uint32_t)s; }
    goto write32;
  case OP_V_DOT8_I32_I4: FOR_LANES(m) { int32_t s = (int32_t)S[2][l]; for (int i = 0; i < 8; i++) s += nib_s(S[0][l], i) * nib_s(S[1][l], i); R[l] = (uint32_t)s; }
    goto write32;
  case OP_V_DOT8_U32_U4: FOR_LANES(m) { uint32_t s = (uint32_t)S[2][l]; for (int i = 0; i < 8; i++) s += (uint32_t)(S[0][l] >> (4 * i) & 15) * (uint32_t)(S[1][l] >> (4 * i) & 15); R[l] = s; }
    goto write32;
  case OP_V_DOT4_U32_U8: FOR_LANES(m) { uint32_t s = (uint32_t)S[2][l]; for (int i = 0; i < 4; i++) s += (uint32_t)(S[0][l] >> (8 * i) & 0xff) * (uint32_t)(S[1][l] >> (8 * i) & 0xff); R[l] = s; }
    goto write32;
  case OP_V_FMA_MIX_F32: case OP_V_FMA_MIXLO_F16: case OP_V_FMA_MIXHI_F16: FOR_LANES(m) {
    /* op_sel_hi[i] = 1: source i is f16 (op_sel picks its half); else f32 */
    float v[3];
    for (int i = 0; i < 3; i++) {
      uint64_t s = S[i][l];
      if (in->opsel_hi >> i & 1) v[i] = h2f((in->opsel >> i & 1) ? s >> 16 : s);
      else v[i] = f32_of(s);
      if (in->neg >> i & 1) v[i] = -v[i];
      if (in->neg_hi >> i & 1) v[i] = fabsf(v[i]);
    }
    float r = fmaf(v[0], v[1], v[2]);
    if (in->clamp) r = fminf(fmaxf(r, 0.0f), 1.0f);
    R[l] = in->op == OP_V_FMA_MIX_F32 ? bits_f32(r) : f2h(r);
  }
  if (in->op == OP_V_FMA_MIX_F32) goto write32;
  {
    uint32_t *d = wave_vreg(w, in->dst);
    bool hi = in->op == OP_V_FMA_MIXHI_F16;
    FOR_LANES(m) d[l] = hi ? (d[l] & 0xffff) | (uint32_t)R[l] << 16 : (d[l] & 0xffff0000u) | (uint32_t)R[l];
  }
  return 0;
  default:
    break;
  }
  /* packed 16-bit: per half */
  FOR_LANES(m) {
    uint32_t out = 0;
    for (int h = 0; h < 2; h++) {
      uint32_t x[3];
      for (int i = 0; i < 3; i++) {
        unsigned sel = h ? in->opsel_hi >> i & 1 : in->opsel >> i & 1;
        x[i] = pk_half(S[i][l], sel, h);
        unsigned ng = h ? in->neg_hi >> i & 1 : in->neg >> i & 1;
        if (ng) x[i] ^= 0x8000;
      }
      uint32_t r;
      switch (in->op) {
      case OP_V_PK_FMA_F16: r = f32_to_f16((float)fma(h2f(x[0]), h2f(x[1]), h2f(x[2]))); break;
      case OP_V_PK_ADD_F16: r = f32_to_f16(h2f(x[0]) + h2f(x[1])); break;
      case OP_V_PK_MUL_F16: r = f32_to_f16(h2f(x[0]) * h2f(x[1])); break;
      case OP_V_PK_MIN_F16: r = f32_to_f16(fmin_hw(h2f(x[0]), h2f(x[1]))); break;
      case OP_V_PK_MAX_F16: r = f32_to_f16(fmax_hw(h2f(x[0]), h2f(x[1]))); break;
      case OP_V_PK_ADD_U16: case OP_V_PK_ADD_I16: r = (x[0] + x[1]) & 0xffff; break;
      case OP_V_PK_SUB_U16: case OP_V_PK_SUB_I16: r = (x[0] - x[1]) & 0xffff; break;
      case OP_V_PK_MUL_LO_U16: r = (x[0] * x[1]) & 0xffff; break;
      case OP_V_PK_MAD_U16: r = (x[0] * x[1] + x[2]) & 0xffff; break;
      case OP_V_PK_MAD_I16: r = (uint32_t)((int16_t)x[0] * (int16_t)x[1] + (int16_t)x[2]) & 0xffff; break;
      case OP_V_PK_LSHLREV_B16: r = (x[1] << (x[0] & 15)) & 0xffff; break;
      case OP_V_PK_LSHRREV_B16: r = x[1] >> (x[0] & 15); break;
      case OP_V_PK_ASHRREV_I16: r = (uint32_t)((int16_t)x[1] >> (x[0] & 15)) & 0xffff; break;
      case OP_V_PK_MAX_U16: r = x[0] > x[1] ? x[0] : x[1]; break;
      case OP_V_PK_MIN_U16: r = x[0] < x[1] ? x[0] : x[1]; break;
      case OP_V_PK_MAX_I16: r = (int16_t)x[0] > (int16_t)x[1] ? x[0] : x[1]; break;
      case OP_V_PK_MIN_I16: r = (int16_t)x[0] < (int16_t)x[1] ? x[0] : x[1]; break;
      case OP_V_PK_FMAC_F16: {
        uint32_t d = wave_vreg(w, in->dst)[l];
        r = f32_to_f16((float)fma(h2f(x[0]), h2f(x[1]), h2f(h ? d >> 16 : d)));
        break;
      }
      default:
        return exec_illegal(w, in);
      }
      out |= (r & 0xffff) << (16 * h);
    }
    R[l] = out;
  }
write32: {
    uint32_t *d = wave_vreg(w, in->dst);
    FOR_LANES(m) d[l] = (uint32_t)R[l];
  }
  return 0;
}
