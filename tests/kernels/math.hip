/* Transcendental and rounding math through the device libraries (ocml), f32 and f64, compared
 * in ULPs with a more precise host reference (f32 against double libm rounded to float, f64
 * against long double libm rounded to double). The ULP bounds are the documented maximum
 * errors of HIP's math functions (the HIP math API tables, which follow CUDA's), so a result
 * outside them is a wrong instruction or a wrong device-library link, not noise. */
#include "common.h"
#include <math.h>

#define MBLOCK 128
static const int NM = 1024;

enum {
  F_SIN, F_COS, F_TAN, F_EXP, F_EXP2, F_EXP10, F_EXPM1, F_LOG, F_LOG2, F_LOG10, F_LOG1P, F_SQRT, F_RSQRT,
  F_CBRT, F_ERF, F_ERFC, F_TANH, F_SINH, F_COSH, F_ATAN, F_ASIN, F_ACOS, F_ASINH, F_ATANH, F_LGAMMA,
  F_TGAMMA, F_POW, F_ATAN2, F_HYPOT, F_FMOD, F_FDIM, F_REMAINDER,
  F_FLOOR, F_CEIL, F_TRUNC, F_ROUND, F_RINT, F_FABS, F_COPYSIGN, F_FMIN, F_FMAX, F_LDEXP, F_FREXP, F_MODF,
  F_ILOGB, F_NEXTAFTER, F_FAST_EXP, F_FAST_LOG, F_FAST_SIN, F_COUNT
};

template <class T> __device__ T eval(int fn, T x, T y);

template <> __device__ float eval<float>(int fn, float x, float y) {
  switch (fn) {
  case F_SIN: return sinf(x);
  case F_COS: return cosf(x);
  case F_TAN: return tanf(x);
  case F_EXP: return expf(x);
  case F_EXP2: return exp2f(x);
  case F_EXP10: return exp10f(x);
  case F_EXPM1: return expm1f(x);
  case F_LOG: return logf(x);
  case F_LOG2: return log2f(x);
  case F_LOG10: return log10f(x);
  case F_LOG1P: return log1pf(x);
  case F_SQRT: return sqrtf(x);
  case F_RSQRT: return rsqrtf(x);
  case F_CBRT: return cbrtf(x);
  case F_ERF: return erff(x);
  case F_ERFC: return erfcf(x);
  case F_TANH: return tanhf(x);
  case F_SINH: return sinhf(x);
  case F_COSH: return coshf(x);
  case F_ATAN: return atanf(x);
  case F_ASIN: return asinf(x);
  case F_ACOS: return acosf(x);
  case F_ASINH: return asinhf(x);
  case F_ATANH: return atanhf(x);
  case F_LGAMMA: return lgammaf(x);
  case F_TGAMMA: return tgammaf(x);
  case F_POW: return powf(x, y);
  case F_ATAN2: return atan2f(x, y);
  case F_HYPOT: return hypotf(x, y);
  case F_FMOD: return fmodf(x, y);
  case F_FDIM: return fdimf(x, y);
  case F_REMAINDER: return remainderf(x, y);
  case F_FLOOR: return floorf(x);
  case F_CEIL: return ceilf(x);
  case F_TRUNC: return truncf(x);
  case F_ROUND: return roundf(x);
  case F_RINT: return rintf(x);
  case F_FABS: return fabsf(x);
  case F_COPYSIGN: return copysignf(x, y);
  case F_FMIN: return fminf(x, y);
  case F_FMAX: return fmaxf(x, y);
  case F_LDEXP: return ldexpf(x, (int)y);
  case F_FREXP: { int e; float m = frexpf(x, &e); return m + (float)e * 4.0f; }
  case F_MODF: { float ip; float fp = modff(x, &ip); return fp + ip * 8.0f; }
  case F_ILOGB: return (float)ilogbf(x);
  case F_NEXTAFTER: return nextafterf(x, y);
  case F_FAST_EXP: return __expf(x);
  case F_FAST_LOG: return __logf(x);
  case F_FAST_SIN: return __sinf(x);
  }
  return 0.0f;
}
template <> __device__ double eval<double>(int fn, double x, double y) {
  switch (fn) {
  case F_SIN: return sin(x);
  case F_COS: return cos(x);
  case F_TAN: return tan(x);
  case F_EXP: return exp(x);
  case F_EXP2: return exp2(x);
  case F_EXP10: return exp10(x);
  case F_EXPM1: return expm1(x);
  case F_LOG: return log(x);
  case F_LOG2: return log2(x);
  case F_LOG10: return log10(x);
  case F_LOG1P: return log1p(x);
  case F_SQRT: return sqrt(x);
  case F_RSQRT: return rsqrt(x);
  case F_CBRT: return cbrt(x);
  case F_ERF: return erf(x);
  case F_ERFC: return erfc(x);
  case F_TANH: return tanh(x);
  case F_SINH: return sinh(x);
  case F_COSH: return cosh(x);
  case F_ATAN: return atan(x);
  case F_ASIN: return asin(x);
  case F_ACOS: return acos(x);
  case F_ASINH: return asinh(x);
  case F_ATANH: return atanh(x);
  case F_LGAMMA: return lgamma(x);
  case F_TGAMMA: return tgamma(x);
  case F_POW: return pow(x, y);
  case F_ATAN2: return atan2(x, y);
  case F_HYPOT: return hypot(x, y);
  case F_FMOD: return fmod(x, y);
  case F_FDIM: return fdim(x, y);
  case F_REMAINDER: return remainder(x, y);
  case F_FLOOR: return floor(x);
  case F_CEIL: return ceil(x);
  case F_TRUNC: return trunc(x);
  case F_ROUND: return round(x);
  case F_RINT: return rint(x);
  case F_FABS: return fabs(x);
  case F_COPYSIGN: return copysign(x, y);
  case F_FMIN: return fmin(x, y);
  case F_FMAX: return fmax(x, y);
  case F_LDEXP: return ldexp(x, (int)y);
  case F_FREXP: { int e; double m = frexp(x, &e); return m + (double)e * 4.0; }
  case F_MODF: { double ip; double fp = modf(x, &ip); return fp + ip * 8.0; }
  case F_ILOGB: return (double)ilogb(x);
  case F_NEXTAFTER: return nextafter(x, y);
  }
  return 0.0;
}

template <class T> __global__ void math_kernel(int fn, int n, const T *x, const T *y, T *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = eval<T>(fn, x[i], y[i]);
}

/* Host references, computed in a wider type. */
static long double ref(int fn, long double x, long double y) {
  switch (fn) {
  case F_SIN: return sinl(x);
  case F_COS: return cosl(x);
  case F_TAN: return tanl(x);
  case F_EXP: case F_FAST_EXP: return expl(x);
  case F_EXP2: return exp2l(x);
  case F_EXP10: return powl(10.0L, x);
  case F_EXPM1: return expm1l(x);
  case F_LOG: case F_FAST_LOG: return logl(x);
  case F_LOG2: return log2l(x);
  case F_LOG10: return log10l(x);
  case F_LOG1P: return log1pl(x);
  case F_SQRT: return sqrtl(x);
  case F_RSQRT: return 1.0L / sqrtl(x);
  case F_CBRT: return cbrtl(x);
  case F_ERF: return erfl(x);
  case F_ERFC: return erfcl(x);
  case F_TANH: return tanhl(x);
  case F_SINH: return sinhl(x);
  case F_COSH: return coshl(x);
  case F_ATAN: return atanl(x);
  case F_ASIN: return asinl(x);
  case F_ACOS: return acosl(x);
  case F_ASINH: return asinhl(x);
  case F_ATANH: return atanhl(x);
  case F_LGAMMA: return lgammal(x);
  case F_TGAMMA: return tgammal(x);
  case F_POW: return powl(x, y);
  case F_ATAN2: return atan2l(x, y);
  case F_HYPOT: return hypotl(x, y);
  case F_FMOD: return fmodl(x, y);
  case F_FDIM: return fdiml(x, y);
  case F_REMAINDER: return remainderl(x, y);
  case F_FLOOR: return floorl(x);
  case F_CEIL: return ceill(x);
  case F_TRUNC: return truncl(x);
  case F_ROUND: return roundl(x);
  case F_RINT: return rintl(x);
  case F_FABS: return fabsl(x);
  case F_COPYSIGN: return copysignl(x, y);
  case F_FMIN: return fminl(x, y);
  case F_FMAX: return fmaxl(x, y);
  case F_LDEXP: return ldexpl(x, (int)y);
  case F_FREXP: { int e; long double m = frexpl(x, &e); return m + (long double)e * 4.0L; }
  case F_MODF: { long double ip; long double fp = modfl(x, &ip); return fp + ip * 8.0L; }
  case F_ILOGB: return (long double)ilogbl(x);
  case F_FAST_SIN: return sinl(x);
  }
  return 0;
}

/* One function under test: its input ranges and its error bound in ULPs. */
struct mcase {
  const char *name;
  int fn;
  double xlo, xhi, ylo, yhi;
  unsigned ulps;
  bool yint;                  /* y is an integer (ldexp exponent) */
};

template <class T>
static int run_cases(const char *kind, const mcase *cases, size_t ncases, uint64_t seed) {
  kc_buf<T> dx, dy, dout;
  KC_HIP(dx.alloc(NM));
  KC_HIP(dy.alloc(NM));
  KC_HIP(dout.alloc(NM));
  kc_rng r(seed);
  for (size_t c = 0; c < ncases; c++) {
    const mcase &m = cases[c];
    std::vector<T> x(NM), y(NM), out;
    for (int i = 0; i < NM; i++) {
      /* wide positive ranges are sampled log-uniformly, so every decade is exercised */
      if (m.xlo > 0 && m.xhi / m.xlo > 1e4)
        x[i] = (T)std::exp(r.uniform(std::log(m.xlo), std::log(m.xhi)));
      else
        x[i] = (T)r.uniform(m.xlo, m.xhi);
      y[i] = m.yint ? (T)r.irange((int)m.ylo, (int)m.yhi) : (T)r.uniform(m.ylo, m.yhi);
    }
    KC_HIP(hipMemcpy(dx.p, x.data(), NM * sizeof(T), hipMemcpyHostToDevice));
    KC_HIP(hipMemcpy(dy.p, y.data(), NM * sizeof(T), hipMemcpyHostToDevice));
    math_kernel<T><<<NM / MBLOCK, MBLOCK>>>(m.fn, NM, dx.p, dy.p, dout.p);
    KC_HIP(hipGetLastError());
    hipError_t e = hipDeviceSynchronize();
    KC_EXPECT(e == hipSuccess, "%s %s: the kernel failed with %s", kind, m.name, hipGetErrorName(e));
    KC_HIP(dout.download(out));
    for (int i = 0; i < NM; i++) {
      T want = (T)ref(m.fn, x[i], y[i]);
      if (m.fn == F_NEXTAFTER) want = std::nextafter(x[i], y[i]);
      uint64_t d = kc_ulp_distance(out[i], want);
      unsigned bound = m.ulps;
      if (m.fn == F_FAST_EXP) bound += (unsigned)(2 * std::fabs((double)x[i]));   /* grows with |x| */
      KC_EXPECT(d <= bound, "%s %s(%.17g, %.17g) = %.17g, want %.17g: %llu ulp > %u", kind, m.name,
                (double)x[i], (double)y[i], (double)out[i], (double)want, (unsigned long long)d, bound);
    }
  }
  return KC_OK;
}

/* HIP's documented f32 maximum errors (ULP). */
static const mcase f32_transcendental[] = {
    {"sinf", F_SIN, -100, 100, 0, 1, 2},       {"cosf", F_COS, -100, 100, 0, 1, 2},
    {"tanf", F_TAN, -10, 10, 0, 1, 4},         {"expf", F_EXP, -80, 80, 0, 1, 2},
    {"exp2f", F_EXP2, -120, 120, 0, 1, 2},     {"exp10f", F_EXP10, -30, 30, 0, 1, 2},
    {"expm1f", F_EXPM1, -10, 10, 0, 1, 1},     {"logf", F_LOG, 1e-30, 1e30, 0, 1, 1},
    {"log2f", F_LOG2, 1e-3, 1e6, 0, 1, 1},     {"log10f", F_LOG10, 1e-5, 1e5, 0, 1, 2},
    {"log1pf", F_LOG1P, -0.9, 100, 0, 1, 1},   {"sqrtf", F_SQRT, 0, 1e20, 0, 1, 0},
    {"rsqrtf", F_RSQRT, 1e-10, 1e10, 0, 1, 2}, {"cbrtf", F_CBRT, -1e6, 1e6, 0, 1, 1},
    {"erff", F_ERF, -4, 4, 0, 1, 2},           {"erfcf", F_ERFC, -2, 9, 0, 1, 4},
    {"tanhf", F_TANH, -10, 10, 0, 1, 2},       {"sinhf", F_SINH, -20, 20, 0, 1, 3},
    {"coshf", F_COSH, -20, 20, 0, 1, 2},       {"atanf", F_ATAN, -50, 50, 0, 1, 2},
    {"asinf", F_ASIN, -1, 1, 0, 1, 4},         {"acosf", F_ACOS, -1, 1, 0, 1, 4},
    {"asinhf", F_ASINH, -100, 100, 0, 1, 3},   {"atanhf", F_ATANH, -0.99, 0.99, 0, 1, 3},
    {"lgammaf", F_LGAMMA, 2.5, 30, 0, 1, 6},   {"tgammaf", F_TGAMMA, 0.1, 30, 0, 1, 11},
    {"powf", F_POW, 0.01, 20, -10, 10, 4},     {"atan2f", F_ATAN2, -10, 10, -10, 10, 3},
    {"hypotf", F_HYPOT, -1e10, 1e10, -1e10, 1e10, 3},
    {"fmodf", F_FMOD, -1000, 1000, 0.1, 30, 0},
    {"fdimf", F_FDIM, -100, 100, -100, 100, 0},
    {"remainderf", F_REMAINDER, -1000, 1000, 0.1, 30, 0},
};
static int test_f32_transcendental() {
  return run_cases<float>("f32", f32_transcendental, sizeof(f32_transcendental) / sizeof(mcase), 61);
}

/* f64 bounds. */
static const mcase f64_transcendental[] = {
    {"sin", F_SIN, -100, 100, 0, 1, 2},        {"cos", F_COS, -100, 100, 0, 1, 2},
    {"tan", F_TAN, -10, 10, 0, 1, 2},          {"exp", F_EXP, -700, 700, 0, 1, 1},
    {"exp2", F_EXP2, -1000, 1000, 0, 1, 1},    {"exp10", F_EXP10, -300, 300, 0, 1, 1},
    {"expm1", F_EXPM1, -10, 10, 0, 1, 1},      {"log", F_LOG, 1e-300, 1e300, 0, 1, 1},
    {"log2", F_LOG2, 1e-3, 1e6, 0, 1, 1},      {"log10", F_LOG10, 1e-5, 1e5, 0, 1, 1},
    {"log1p", F_LOG1P, -0.9, 100, 0, 1, 1},    {"sqrt", F_SQRT, 0, 1e300, 0, 1, 0},
    {"rsqrt", F_RSQRT, 1e-100, 1e100, 0, 1, 1}, {"cbrt", F_CBRT, -1e6, 1e6, 0, 1, 1},
    {"erf", F_ERF, -5, 5, 0, 1, 2},            {"erfc", F_ERFC, -2, 25, 0, 1, 5},
    {"tanh", F_TANH, -20, 20, 0, 1, 2},        {"sinh", F_SINH, -30, 30, 0, 1, 2},
    {"cosh", F_COSH, -30, 30, 0, 1, 1},        {"atan", F_ATAN, -50, 50, 0, 1, 2},
    {"asin", F_ASIN, -1, 1, 0, 1, 2},          {"acos", F_ACOS, -1, 1, 0, 1, 2},
    {"asinh", F_ASINH, -100, 100, 0, 1, 2},    {"atanh", F_ATANH, -0.99, 0.99, 0, 1, 2},
    {"lgamma", F_LGAMMA, 2.5, 30, 0, 1, 4},    {"tgamma", F_TGAMMA, 0.1, 30, 0, 1, 10},
    {"pow", F_POW, 0.01, 20, -100, 100, 2},    {"atan2", F_ATAN2, -10, 10, -10, 10, 2},
    {"hypot", F_HYPOT, -1e100, 1e100, -1e100, 1e100, 2},
    {"fmod", F_FMOD, -1e6, 1e6, 0.1, 30, 0},
    {"fdim", F_FDIM, -100, 100, -100, 100, 0},
    {"remainder", F_REMAINDER, -1e6, 1e6, 0.1, 30, 0},
};
static int test_f64_transcendental() {
  return run_cases<double>("f64", f64_transcendental, sizeof(f64_transcendental) / sizeof(mcase), 62);
}

/* Exact functions: rounding, sign, min/max, exponent manipulation: 0 ULP. */
static const mcase exact_cases[] = {
    {"floor", F_FLOOR, -1e3, 1e3, 0, 1, 0},    {"ceil", F_CEIL, -1e3, 1e3, 0, 1, 0},
    {"trunc", F_TRUNC, -1e3, 1e3, 0, 1, 0},    {"round", F_ROUND, -1e3, 1e3, 0, 1, 0},
    {"rint", F_RINT, -1e3, 1e3, 0, 1, 0},      {"fabs", F_FABS, -1e3, 1e3, 0, 1, 0},
    {"copysign", F_COPYSIGN, -1e3, 1e3, -1, 1, 0},
    {"fmin", F_FMIN, -1e3, 1e3, -1e3, 1e3, 0}, {"fmax", F_FMAX, -1e3, 1e3, -1e3, 1e3, 0},
    {"ldexp", F_LDEXP, -1e3, 1e3, -20, 20, 0, true},
    {"frexp", F_FREXP, -1e6, 1e6, 0, 1, 0},    {"modf", F_MODF, -1e4, 1e4, 0, 1, 0},
    {"ilogb", F_ILOGB, 1e-20, 1e20, 0, 1, 0},  {"nextafter", F_NEXTAFTER, -10, 10, -10, 10, 0},
};
static int test_f32_exact() {
  return run_cases<float>("f32", exact_cases, sizeof(exact_cases) / sizeof(mcase), 63);
}
static int test_f64_exact() {
  return run_cases<double>("f64", exact_cases, sizeof(exact_cases) / sizeof(mcase), 64);
}

/* Fast intrinsics: native instructions; bounds from HIP's intrinsic table (relative to
 * |x| for __expf, absolute 2^-21.41 for __sinf on [-pi, pi]). __logf: ULPs on [0.5, 2] are
 * meaningless near 1, so it is checked on [2, 1e6]. */
static int test_fast_intrinsics() {
  static const mcase fast[] = {
      {"__expf", F_FAST_EXP, -20, 20, 0, 1, 2},
      {"__logf", F_FAST_LOG, 2, 1e6, 0, 1, 4},
  };
  if (run_cases<float>("f32", fast, 2, 65) != KC_OK) return KC_FAIL;
  /* __sinf: absolute error */
  kc_rng r(66);
  std::vector<float> x(NM), y(NM, 0.0f), out;
  for (auto &v : x) v = (float)r.uniform(-3.14159, 3.14159);
  kc_buf<float> dx, dy, dout;
  KC_HIP(dx.upload(x));
  KC_HIP(dy.upload(y));
  KC_HIP(dout.alloc(NM));
  math_kernel<float><<<NM / MBLOCK, MBLOCK>>>(F_FAST_SIN, NM, dx.p, dy.p, dout.p);
  KC_SYNC();
  KC_HIP(dout.download(out));
  for (int i = 0; i < NM; i++) {
    double err = std::fabs((double)out[i] - std::sin((double)x[i]));
    KC_EXPECT(err <= 0x1p-21, "__sinf(%.9g) = %.9g, error %.3g > 2^-21", x[i], out[i], err);
  }
  return KC_OK;
}

/* Large arguments take ocml's Payne-Hanek argument reduction (f64: v_trig_preop_f64). */
static int test_trig_large() {
  static const mcase f32_large[] = {
      {"sinf(large)", F_SIN, 1e4, 1e30, 0, 1, 2}, {"cosf(large)", F_COS, 1e4, 1e30, 0, 1, 2},
      {"tanf(large)", F_TAN, 1e4, 1e30, 0, 1, 4},
  };
  static const mcase f64_large[] = {
      {"sin(large)", F_SIN, 1e6, 1e300, 0, 1, 2}, {"cos(large)", F_COS, 1e6, 1e300, 0, 1, 2},
      {"tan(large)", F_TAN, 1e6, 1e300, 0, 1, 2},
  };
  if (run_cases<float>("f32", f32_large, 3, 67) != KC_OK) return KC_FAIL;
  return run_cases<double>("f64", f64_large, 3, 68);
}

/* Special values: infinities, NaNs, signed zeros, poles. */
struct special {
  const char *name;
  int fn;
  double x, y, want;          /* want NaN: any NaN */
};
static const special specials[] = {
    {"sin(inf)", F_SIN, INFINITY, 0, NAN},       {"cos(-inf)", F_COS, -INFINITY, 0, NAN},
    {"exp(-inf)", F_EXP, -INFINITY, 0, 0.0},      {"exp(inf)", F_EXP, INFINITY, 0, INFINITY},
    {"exp(1000)", F_EXP, 1000, 0, INFINITY},      {"log(0)", F_LOG, 0.0, 0, -INFINITY},
    {"log(-1)", F_LOG, -1.0, 0, NAN},             {"log(inf)", F_LOG, INFINITY, 0, INFINITY},
    {"sqrt(-0)", F_SQRT, -0.0, 0, -0.0},          {"sqrt(-1)", F_SQRT, -1.0, 0, NAN},
    {"pow(0,-1)", F_POW, 0.0, -1.0, INFINITY},    {"pow(-2,3)", F_POW, -2.0, 3.0, -8.0},
    {"pow(-2,0.5)", F_POW, -2.0, 0.5, NAN},       {"pow(nan,0)", F_POW, NAN, 0.0, 1.0},
    {"pow(1,nan)", F_POW, 1.0, NAN, 1.0},         {"atan2(0,-0)", F_ATAN2, 0.0, -0.0, M_PI},
    {"atan2(-0,-1)", F_ATAN2, -0.0, -1.0, -M_PI}, {"tanh(inf)", F_TANH, INFINITY, 0, 1.0},
    {"erf(-inf)", F_ERF, -INFINITY, 0, -1.0},     {"erfc(inf)", F_ERFC, INFINITY, 0, 0.0},
    {"fmin(nan,2)", F_FMIN, NAN, 2.0, 2.0},       {"fmax(3,nan)", F_FMAX, 3.0, NAN, 3.0},
    {"rsqrt(0)", F_RSQRT, 0.0, 0, INFINITY},      {"cbrt(-8)", F_CBRT, -8.0, 0, -2.0},
    {"hypot(inf,nan)", F_HYPOT, INFINITY, NAN, INFINITY},
    {"tgamma(-1)", F_TGAMMA, -1.0, 0, NAN},       {"log1p(-1)", F_LOG1P, -1.0, 0, -INFINITY},
    {"fmod(1,0)", F_FMOD, 1.0, 0.0, NAN},         {"round(-2.5)", F_ROUND, -2.5, 0, -3.0},
    {"rint(-2.5)", F_RINT, -2.5, 0, -2.0},        {"ceil(-0.5)", F_CEIL, -0.5, 0, -0.0},
};
template <class T> static int run_specials(const char *kind) {
  const int n = sizeof(specials) / sizeof(specials[0]);
  kc_buf<T> dx, dy, dout;
  KC_HIP(dx.alloc(1));
  KC_HIP(dy.alloc(1));
  KC_HIP(dout.alloc(1));
  for (int i = 0; i < n; i++) {
    const special &s = specials[i];
    T x = (T)s.x, y = (T)s.y, got;
    KC_HIP(hipMemcpy(dx.p, &x, sizeof(T), hipMemcpyHostToDevice));
    KC_HIP(hipMemcpy(dy.p, &y, sizeof(T), hipMemcpyHostToDevice));
    math_kernel<T><<<1, 1>>>(s.fn, 1, dx.p, dy.p, dout.p);
    KC_HIP(hipGetLastError());
    hipError_t e = hipDeviceSynchronize();
    KC_EXPECT(e == hipSuccess, "%s %s: the kernel failed with %s", kind, s.name, hipGetErrorName(e));
    KC_HIP(hipMemcpy(&got, dout.p, sizeof(T), hipMemcpyDeviceToHost));
    T want = (T)s.want;
    bool ok = std::isnan(want) ? std::isnan(got)
                               : (got == want && std::signbit(got) == std::signbit(want));
    KC_EXPECT(ok, "%s %s = %.17g, want %.17g", kind, s.name, (double)got, (double)want);
  }
  return KC_OK;
}
static int test_specials_f32() { return run_specials<float>("f32"); }
static int test_specials_f64() { return run_specials<double>("f64"); }

static const kc_test tests[] = {
    {"f32_transcendental", test_f32_transcendental},
    {"f64_transcendental", test_f64_transcendental},
    {"f32_exact", test_f32_exact},
    {"f64_exact", test_f64_exact},
    {"fast_intrinsics", test_fast_intrinsics},
    {"specials_f32", test_specials_f32},
    {"trig_large", test_trig_large},
    {"specials_f64", test_specials_f64},
};
KC_MAIN("math", tests)
