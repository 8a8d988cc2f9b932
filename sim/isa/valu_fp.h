/* Floating-point helpers for the vector ALU: bit casts, half precision, denormal flushing.
 * Half conversions round to nearest even and keep NaN payload bits as the ISA guide requires. */
#ifndef KFDSIM_ISA_VALU_FP_H
#define KFDSIM_ISA_VALU_FP_H

#include <math.h>
#include <stdint.h>
#include <string.h>

static inline float f32_of(uint64_t b)
{
  uint32_t u = (uint32_t)b;
  float f;
  memcpy(&f, &u, 4);
  return f;
}
static inline uint32_t bits_f32(float f)
{
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}
static inline double f64_of(uint64_t b)
{
  double d;
  memcpy(&d, &b, 8);
  return d;
}
static inline uint64_t bits_f64(double d)
{
  uint64_t u;
  memcpy(&u, &d, 8);
  return u;
}

static inline float f16_to_f32(uint16_t h)
{
  uint32_t s = (uint32_t)(h >> 15) << 31, e = h >> 10 & 0x1f, m = h & 0x3ff;
  if (e == 0x1f)
    return f32_of(s | 0x7f800000u | m << 13);
  if (e == 0) {
    float v = ldexpf((float)m, -24);
    return s ? -v : v;
  }
  return f32_of(s | (e + 112) << 23 | m << 13);
}

static inline uint16_t f32_to_f16(float f)
{
  uint32_t u = bits_f32(f), s = u >> 16 & 0x8000;
  uint32_t e = u >> 23 & 0xff, m = u & 0x7fffff;
  if (e == 0xff)
    return (uint16_t)(s | 0x7c00 | (m ? 0x200 | m >> 13 : 0));
  float a = fabsf(f);
  if (a >= 65520.0f)
    return (uint16_t)(s | 0x7c00);
  if (a < 6.103515625e-05f) {      /* half denormal range: round to a multiple of 2^-24 */
    float q = nearbyintf(a * 16777216.0f);
    return (uint16_t)(s | (uint32_t)q);
  }
  /* normal: round mantissa from 23 to 10 bits, nearest even */
  uint32_t r = u & 0x7fffffff;
  uint32_t lsb = r >> 13 & 1;
  r += 0xfff + lsb;
  return (uint16_t)(s | ((r >> 13) - (112 << 10)));
}

static inline uint16_t f32_to_bf16(float f)
{
  uint32_t u = bits_f32(f);
  if ((u & 0x7fffffff) > 0x7f800000)
    return (uint16_t)(u >> 16 | 0x40);
  return (uint16_t)((u + 0x7fff + (u >> 16 & 1)) >> 16);
}
static inline float bf16_to_f32(uint16_t h)
{
  return f32_of((uint32_t)h << 16);
}

/* v_min/v_max (and the min3/max3/med3 built on them; f16 through f32) in IEEE mode: a
 * signalling NaN gives that NaN quieted, a quiet NaN gives the other operand, and -0 orders
 * below +0: the AMDGPU instructions follow IEEE-754 2019 minimumNumber/maximumNumber (LLVM
 * defines FMINNUM_IEEE so for AMDGPU, llvm-project #85195). Written out on the bits rather than
 * with libm's fminf/fmaxf: compilers inline those as llvm.minnum, which returns the other
 * operand for a signalling NaN too (clang -O2), so the emulator's result depended on the
 * compiler that built it. */
static inline float minmax_f32(float a, float b, int max)
{
  uint32_t x = bits_f32(a), y = bits_f32(b);
  int xnan = (x & 0x7fffffff) > 0x7f800000, ynan = (y & 0x7fffffff) > 0x7f800000;
  if (xnan && !(x & 0x400000))
    return f32_of(x | 0x400000);
  if (ynan && !(y & 0x400000))
    return f32_of(y | 0x400000);
  if (xnan)
    return b;
  if (ynan)
    return a;
  if (a == b)   /* equal, or zeros of both signs: the negative one is the smaller */
    return (x >> 31) == (unsigned)!max ? a : b;
  return (max ? a > b : a < b) ? a : b;
}
static inline double minmax_f64(double a, double b, int max)
{
  const uint64_t quiet = 1ull << 51, inf = 0x7ff0000000000000ull;
  uint64_t x = bits_f64(a), y = bits_f64(b);
  int xnan = (x & ~(1ull << 63)) > inf, ynan = (y & ~(1ull << 63)) > inf;
  if (xnan && !(x & quiet))
    return f64_of(x | quiet);
  if (ynan && !(y & quiet))
    return f64_of(y | quiet);
  if (xnan)
    return b;
  if (ynan)
    return a;
  if (a == b)
    return (x >> 63) == (uint64_t)!max ? a : b;
  return (max ? a > b : a < b) ? a : b;
}
static inline float fmin_hw(float a, float b)
{
  return minmax_f32(a, b, 0);
}
static inline float fmax_hw(float a, float b)
{
  return minmax_f32(a, b, 1);
}
static inline double fmin_hw64(double a, double b)
{
  return minmax_f64(a, b, 0);
}
static inline double fmax_hw64(double a, double b)
{
  return minmax_f64(a, b, 1);
}

static inline float flush_f32(float f)
{
  return fpclassify(f) == FP_SUBNORMAL ? copysignf(0.0f, f) : f;
}
static inline double flush_f64(double d)
{
  return fpclassify(d) == FP_SUBNORMAL ? copysign(0.0, d) : d;
}

#endif
