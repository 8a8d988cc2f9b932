/* hipkfd: HIP's type-conversion and reinterpretation intrinsics (the CUDA "Type Casting
 * Intrinsics" set): float/double <-> integer with an explicit rounding mode (rn to nearest
 * even, rz toward zero, ru toward +inf, rd toward -inf), double <-> float with a rounding mode,
 * and the bit reinterpretations. Usable on the host and the device.
 *
 * Float-to-integer conversions round first, then convert; out-of-range values follow the
 * hardware's saturating conversion on the device (v_cvt_i32_f32 clamps, NaN gives 0). Integer-
 * or double-to-float conversions in a directed mode take the nearest value and step one ulp
 * when it lies on the wrong side of the exact value.
 */
#ifndef HIPKFD_AMD_DEVICE_CONVERSIONS_H
#define HIPKFD_AMD_DEVICE_CONVERSIONS_H

#include <hip/amd_detail/host_defines.h>

#if defined(__cplusplus)

#define HIPKFD_CONV __host__ __device__ static inline

/* ---- reinterpretations -------------------------------------------------------------------- */
HIPKFD_CONV int __float_as_int(float x) { return __builtin_bit_cast(int, x); }
HIPKFD_CONV unsigned int __float_as_uint(float x) { return __builtin_bit_cast(unsigned int, x); }
HIPKFD_CONV float __int_as_float(int x) { return __builtin_bit_cast(float, x); }
HIPKFD_CONV float __uint_as_float(unsigned int x) { return __builtin_bit_cast(float, x); }
HIPKFD_CONV long long __double_as_longlong(double x) { return __builtin_bit_cast(long long, x); }
HIPKFD_CONV double __longlong_as_double(long long x) { return __builtin_bit_cast(double, x); }
HIPKFD_CONV int __double2hiint(double x) {
  return (int)(__builtin_bit_cast(unsigned long long, x) >> 32);
}
HIPKFD_CONV int __double2loint(double x) {
  return (int)(unsigned int)__builtin_bit_cast(unsigned long long, x);
}
HIPKFD_CONV double __hiloint2double(int hi, int lo) {
  return __builtin_bit_cast(double, ((unsigned long long)(unsigned int)hi << 32) |
                                        (unsigned long long)(unsigned int)lo);
}

/* ---- rounding helpers --------------------------------------------------------------------- */
HIPKFD_CONV float hipkfd_round_f(float x, int mode) {
  return mode == 0 ? __builtin_rintf(x) : mode == 1 ? __builtin_truncf(x)
       : mode == 2 ? __builtin_ceilf(x) : __builtin_floorf(x);
}
HIPKFD_CONV double hipkfd_round_d(double x, int mode) {
  return mode == 0 ? __builtin_rint(x) : mode == 1 ? __builtin_trunc(x)
       : mode == 2 ? __builtin_ceil(x) : __builtin_floor(x);
}
/* Saturating conversions of an already integral value (NaN -> 0), as v_cvt_*_f32/f64 do. */
HIPKFD_CONV int hipkfd_sat_i32(double r) {
  return r != r ? 0 : r <= -2147483648.0 ? (int)0x80000000 : r >= 2147483647.0 ? 0x7fffffff : (int)r;
}
HIPKFD_CONV unsigned int hipkfd_sat_u32(double r) {
  return r != r || r <= 0.0 ? 0u : r >= 4294967295.0 ? 0xffffffffu : (unsigned int)r;
}
HIPKFD_CONV long long hipkfd_sat_i64(double r) {
  return r != r ? 0 : r <= -0x1p63 ? (long long)0x8000000000000000ull
       : r >= 0x1p63 ? 0x7fffffffffffffffll : (long long)r;
}
HIPKFD_CONV unsigned long long hipkfd_sat_u64(double r) {
  return r != r || r <= 0.0 ? 0ull : r >= 0x1p64 ? ~0ull : (unsigned long long)r;
}

#define HIPKFD_F2I(name, mode, sat, type)                                                   \
  HIPKFD_CONV type __float2##name(float x) { return sat((double)hipkfd_round_f(x, mode)); } \
  HIPKFD_CONV type __double2##name(double x) { return sat(hipkfd_round_d(x, mode)); }
#define HIPKFD_F2I_ALL(stem, sat, type) \
  HIPKFD_F2I(stem##_rn, 0, sat, type)   \
  HIPKFD_F2I(stem##_rz, 1, sat, type)   \
  HIPKFD_F2I(stem##_ru, 2, sat, type)   \
  HIPKFD_F2I(stem##_rd, 3, sat, type)
HIPKFD_F2I_ALL(int, hipkfd_sat_i32, int)
HIPKFD_F2I_ALL(uint, hipkfd_sat_u32, unsigned int)
HIPKFD_F2I_ALL(ll, hipkfd_sat_i64, long long)
HIPKFD_F2I_ALL(ull, hipkfd_sat_u64, unsigned long long)
#undef HIPKFD_F2I_ALL
#undef HIPKFD_F2I

/* ---- to float in a directed rounding mode -------------------------------------------------- */
/* `f` is the round-to-nearest result and `above`/`below` tell on which side of the exact value
 * it lies; step one ulp toward the requested direction when it lies on the wrong side. */
HIPKFD_CONV float hipkfd_direct_f(float f, bool above, bool below, int mode) {
  bool down = mode == 3 || (mode == 1 && f > 0.0f);
  bool up = mode == 2 || (mode == 1 && f < 0.0f);
  if (down && above)
    return __builtin_nextafterf(f, -__builtin_inff());
  if (up && below)
    return __builtin_nextafterf(f, __builtin_inff());
  return f;
}
HIPKFD_CONV double hipkfd_direct_d(double f, bool above, bool below, int mode) {
  bool down = mode == 3 || (mode == 1 && f > 0.0);
  bool up = mode == 2 || (mode == 1 && f < 0.0);
  if (down && above)
    return __builtin_nextafter(f, -__builtin_inf());
  if (up && below)
    return __builtin_nextafter(f, __builtin_inf());
  return f;
}

/* 32-bit integers and floats are exact in double: compare there. */
#define HIPKFD_I2F(name, type, mode)                                                  \
  HIPKFD_CONV float __##name(type x) {                                                \
    float f = (float)x;                                                               \
    return hipkfd_direct_f(f, (double)f > (double)x, (double)f < (double)x, mode);   \
  }
HIPKFD_I2F(int2float_rn, int, 0)
HIPKFD_I2F(int2float_rz, int, 1)
HIPKFD_I2F(int2float_ru, int, 2)
HIPKFD_I2F(int2float_rd, int, 3)
HIPKFD_I2F(uint2float_rn, unsigned int, 0)
HIPKFD_I2F(uint2float_rz, unsigned int, 1)
HIPKFD_I2F(uint2float_ru, unsigned int, 2)
HIPKFD_I2F(uint2float_rd, unsigned int, 3)
HIPKFD_I2F(double2float_rn, double, 0)
HIPKFD_I2F(double2float_rz, double, 1)
HIPKFD_I2F(double2float_ru, double, 2)
HIPKFD_I2F(double2float_rd, double, 3)
#undef HIPKFD_I2F

/* 64-bit integers: compare in integer arithmetic; a rounded value of 2^63 (or 2^64) is above
 * every representable input. */
#define HIPKFD_L2F(name, type, ftype, mode, limit, direct)                                   \
  HIPKFD_CONV ftype __##name(type x) {                                                        \
    ftype f = (ftype)x;                                                                       \
    bool above = f >= (ftype)(limit) || (f >= (ftype)0 ? (type)f > x : false);               \
    bool below = f < (ftype)(limit) && !above && (type)f < x;                                \
    if (f < (ftype)0 && f > -(ftype)(limit)) {                                               \
      above = (type)f > x;                                                                    \
      below = (type)f < x;                                                                    \
    }                                                                                         \
    return direct(f, above, below, mode);                                                     \
  }
HIPKFD_L2F(ll2float_rn, long long, float, 0, 0x1p63f, hipkfd_direct_f)
HIPKFD_L2F(ll2float_rz, long long, float, 1, 0x1p63f, hipkfd_direct_f)
HIPKFD_L2F(ll2float_ru, long long, float, 2, 0x1p63f, hipkfd_direct_f)
HIPKFD_L2F(ll2float_rd, long long, float, 3, 0x1p63f, hipkfd_direct_f)
HIPKFD_L2F(ull2float_rn, unsigned long long, float, 0, 0x1p64f, hipkfd_direct_f)
HIPKFD_L2F(ull2float_rz, unsigned long long, float, 1, 0x1p64f, hipkfd_direct_f)
HIPKFD_L2F(ull2float_ru, unsigned long long, float, 2, 0x1p64f, hipkfd_direct_f)
HIPKFD_L2F(ull2float_rd, unsigned long long, float, 3, 0x1p64f, hipkfd_direct_f)
HIPKFD_L2F(ll2double_rn, long long, double, 0, 0x1p63, hipkfd_direct_d)
HIPKFD_L2F(ll2double_rz, long long, double, 1, 0x1p63, hipkfd_direct_d)
HIPKFD_L2F(ll2double_ru, long long, double, 2, 0x1p63, hipkfd_direct_d)
HIPKFD_L2F(ll2double_rd, long long, double, 3, 0x1p63, hipkfd_direct_d)
HIPKFD_L2F(ull2double_rn, unsigned long long, double, 0, 0x1p64, hipkfd_direct_d)
HIPKFD_L2F(ull2double_rz, unsigned long long, double, 1, 0x1p64, hipkfd_direct_d)
HIPKFD_L2F(ull2double_ru, unsigned long long, double, 2, 0x1p64, hipkfd_direct_d)
HIPKFD_L2F(ull2double_rd, unsigned long long, double, 3, 0x1p64, hipkfd_direct_d)
#undef HIPKFD_L2F

/* 32-bit integers are exact in double. */
HIPKFD_CONV double __int2double_rn(int x) { return (double)x; }
HIPKFD_CONV double __uint2double_rn(unsigned int x) { return (double)x; }

#undef HIPKFD_CONV
#endif /* __cplusplus */
#endif
