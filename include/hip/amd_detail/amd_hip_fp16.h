/* hipkfd: IEEE half precision for HIP: __half, __half2 and their intrinsics (conversions,
 * arithmetic, comparisons, math, shuffles).
 *
 * Storage is the 16-bit pattern; arithmetic goes through clang's _Float16, which is native on
 * the GPU (v_add_f16 ...) and emulated through float on x86-64, so every function works on host
 * and device. Requires clang (any mode); HIP's device-only functions are __device__. */
#ifndef HIPKFD_AMD_DETAIL_AMD_HIP_FP16_H
#define HIPKFD_AMD_DETAIL_AMD_HIP_FP16_H

#include <hip/amd_detail/host_defines.h>

#if defined(__cplusplus) && defined(__clang__)

#if defined(__HIPKFD_HIP_CLANG__)
#include <hip/amd_detail/amd_warp_functions.h>
#endif

#define __HIPKFD_FP16_HD__ __host__ __device__ inline __attribute__((always_inline))
#define __HIPKFD_FP16_CHD__ __host__ __device__ constexpr inline __attribute__((always_inline))

/* The raw forms hold the bits; `data` views the same bits as _Float16 values, the member AMD's
 * header offers (code reads r.data.x of a __half2_raw). */
typedef _Float16 __hipkfd_f16x2 __attribute__((ext_vector_type(2)));
typedef struct __half_raw {
  union {
    unsigned short x;
    _Float16 data;
  };
} __half_raw;
typedef struct __half2_raw {
  union {
    struct {
      unsigned short x, y;
    };
    __hipkfd_f16x2 data;
  };
} __half2_raw;

struct __attribute__((aligned(2))) __half {
 protected:
  unsigned short __x;

 public:
  __half() = default;
  __HIPKFD_FP16_HD__ __half(const __half_raw &r) : __x(r.x) {}
  __HIPKFD_FP16_HD__ __half(_Float16 f) : __x(__builtin_bit_cast(unsigned short, f)) {}
  __HIPKFD_FP16_HD__ __half(float f) : __half((_Float16)f) {}
  __HIPKFD_FP16_HD__ __half(double f) : __half((_Float16)f) {}
  __HIPKFD_FP16_HD__ __half(int v) : __half((_Float16)v) {}
  __HIPKFD_FP16_HD__ __half(unsigned int v) : __half((_Float16)v) {}
  __HIPKFD_FP16_HD__ __half(short v) : __half((_Float16)v) {}
  __HIPKFD_FP16_HD__ __half(unsigned short v) : __half((_Float16)v) {}
  __HIPKFD_FP16_HD__ __half(long v) : __half((_Float16)v) {}
  __HIPKFD_FP16_HD__ __half(unsigned long v) : __half((_Float16)v) {}
  __HIPKFD_FP16_HD__ __half(long long v) : __half((_Float16)v) {}
  __HIPKFD_FP16_HD__ __half(unsigned long long v) : __half((_Float16)v) {}

  __HIPKFD_FP16_HD__ operator __half_raw() const { return __half_raw{__x}; }
  __HIPKFD_FP16_HD__ _Float16 __f16() const { return __builtin_bit_cast(_Float16, __x); }
  __HIPKFD_FP16_HD__ operator float() const { return (float)__f16(); }

  __HIPKFD_FP16_HD__ __half &operator=(const __half_raw &r) { __x = r.x; return *this; }
  /* Assignable from volatile raw values too, lvalue and rvalue, as AMD's __half is. */
  __HIPKFD_FP16_HD__ __half &operator=(const volatile __half_raw &r) { __x = r.x; return *this; }
  __HIPKFD_FP16_HD__ __half &operator=(volatile __half_raw &&r) { __x = r.x; return *this; }
  __HIPKFD_FP16_HD__ __half &operator+=(const __half &o) { return *this = __half(__f16() + o.__f16()); }
  __HIPKFD_FP16_HD__ __half &operator-=(const __half &o) { return *this = __half(__f16() - o.__f16()); }
  __HIPKFD_FP16_HD__ __half &operator*=(const __half &o) { return *this = __half(__f16() * o.__f16()); }
  __HIPKFD_FP16_HD__ __half &operator/=(const __half &o) { return *this = __half(__f16() / o.__f16()); }
  __HIPKFD_FP16_HD__ __half &operator++() { return *this += __half(1.0f); }
  __HIPKFD_FP16_HD__ __half &operator--() { return *this -= __half(1.0f); }
  __HIPKFD_FP16_HD__ __half operator++(int) { __half o = *this; *this += __half(1.0f); return o; }
  __HIPKFD_FP16_HD__ __half operator--(int) { __half o = *this; *this -= __half(1.0f); return o; }

  /* The operators are hidden friends, as in AMD's header: overload resolution sees them only
   * for __half operands, so a class that merely converts to __half (and to float) still gets
   * the built-in float operators without ambiguity. Equality is device-only, also as in AMD's
   * header: host code may then define its own (hip-tests compare halves on the host with a
   * static operator==). */
  friend __HIPKFD_FP16_HD__ __half operator+(__half a, __half b) { return __half(a.__f16() + b.__f16()); }
  friend __HIPKFD_FP16_HD__ __half operator-(__half a, __half b) { return __half(a.__f16() - b.__f16()); }
  friend __HIPKFD_FP16_HD__ __half operator*(__half a, __half b) { return __half(a.__f16() * b.__f16()); }
  friend __HIPKFD_FP16_HD__ __half operator/(__half a, __half b) { return __half(a.__f16() / b.__f16()); }
  friend __HIPKFD_FP16_HD__ __half operator-(__half a) { return __half(-a.__f16()); }
  friend __HIPKFD_FP16_HD__ __half operator+(__half a) { return a; }
  friend __device__ inline bool operator==(__half a, __half b) { return a.__f16() == b.__f16(); }
  friend __device__ inline bool operator!=(__half a, __half b) { return a.__f16() != b.__f16(); }
  friend __HIPKFD_FP16_HD__ bool operator<(__half a, __half b) { return a.__f16() < b.__f16(); }
  friend __HIPKFD_FP16_HD__ bool operator<=(__half a, __half b) { return a.__f16() <= b.__f16(); }
  friend __HIPKFD_FP16_HD__ bool operator>(__half a, __half b) { return a.__f16() > b.__f16(); }
  friend __HIPKFD_FP16_HD__ bool operator>=(__half a, __half b) { return a.__f16() >= b.__f16(); }
};

/* AMD's __half2 converts implicitly from the two-half clang vector, so a scalar (which clang
 * splats to a vector) becomes a __half2 with both lanes equal: `__half2 h = 0;`, `h += 2;`. */

struct __attribute__((aligned(4))) __half2 {
  /* `data` is the same two halves as one clang vector (AMD's header has the member). */
  union {
    struct {
      __half x, y;
    };
    __hipkfd_f16x2 data;
  };

  __half2() = default;
  __HIPKFD_FP16_HD__ __half2(__hipkfd_f16x2 v) : x((_Float16)v.x), y((_Float16)v.y) {}
  __HIPKFD_FP16_HD__ __half2(const __half2_raw &r) : x(__half_raw{r.x}), y(__half_raw{r.y}) {}
  __HIPKFD_FP16_HD__ __half2(const __half &a, const __half &b) : x(a), y(b) {}
  __HIPKFD_FP16_HD__ operator __half2_raw() const {
    __half2_raw r;
    r.x = __half_raw(x).x;
    r.y = __half_raw(y).x;
    return r;
  }
  __HIPKFD_FP16_HD__ __half2 &operator=(const __half2_raw &r) { return *this = __half2(r); }
  __HIPKFD_FP16_HD__ __half2 &operator+=(const __half2 &o) { x += o.x; y += o.y; return *this; }
  __HIPKFD_FP16_HD__ __half2 &operator-=(const __half2 &o) { x -= o.x; y -= o.y; return *this; }
  __HIPKFD_FP16_HD__ __half2 &operator*=(const __half2 &o) { x *= o.x; y *= o.y; return *this; }
  __HIPKFD_FP16_HD__ __half2 &operator/=(const __half2 &o) { x /= o.x; y /= o.y; return *this; }
  __HIPKFD_FP16_HD__ __half2 &operator++() { ++x; ++y; return *this; }
  __HIPKFD_FP16_HD__ __half2 &operator--() { --x; --y; return *this; }
  __HIPKFD_FP16_HD__ __half2 operator++(int) { __half2 o = *this; ++*this; return o; }
  __HIPKFD_FP16_HD__ __half2 operator--(int) { __half2 o = *this; --*this; return o; }

  /* Hidden friends too (see __half). Lane-wise arithmetic; == holds when both lanes are equal;
   * the ordering is AMD's (device-only): a < b when it holds in both lanes, a > b is b < a, and
   * a <= b, a >= b are the negations of b < a and a < b. */
  friend __HIPKFD_FP16_HD__ __half2 operator+(__half2 a, __half2 b) { return __half2(a.x + b.x, a.y + b.y); }
  friend __HIPKFD_FP16_HD__ __half2 operator-(__half2 a, __half2 b) { return __half2(a.x - b.x, a.y - b.y); }
  friend __HIPKFD_FP16_HD__ __half2 operator*(__half2 a, __half2 b) { return __half2(a.x * b.x, a.y * b.y); }
  friend __HIPKFD_FP16_HD__ __half2 operator/(__half2 a, __half2 b) { return __half2(a.x / b.x, a.y / b.y); }
  friend __HIPKFD_FP16_HD__ __half2 operator-(__half2 a) { return __half2(-a.x, -a.y); }
  friend __HIPKFD_FP16_HD__ __half2 operator+(__half2 a) { return a; }
  friend __device__ inline bool operator==(__half2 a, __half2 b) { return a.x == b.x && a.y == b.y; }
  friend __device__ inline bool operator!=(__half2 a, __half2 b) { return !(a == b); }
  friend __device__ inline bool operator<(__half2 a, __half2 b) { return a.x < b.x && a.y < b.y; }
  friend __device__ inline bool operator>(__half2 a, __half2 b) { return b < a; }
  friend __device__ inline bool operator<=(__half2 a, __half2 b) { return !(b < a); }
  friend __device__ inline bool operator>=(__half2 a, __half2 b) { return !(a < b); }
};

typedef __half half;
typedef __half2 half2;

/* ---- Bit views and conversions ---- */
__HIPKFD_FP16_HD__ _Float16 __hipkfd_f16(__half h) { return h.__f16(); }
__HIPKFD_FP16_HD__ short __half_as_short(__half h) { return (short)__half_raw(h).x; }
__HIPKFD_FP16_HD__ unsigned short __half_as_ushort(__half h) { return __half_raw(h).x; }
__HIPKFD_FP16_HD__ __half __short_as_half(short v) { return __half_raw{(unsigned short)v}; }
__HIPKFD_FP16_HD__ __half __ushort_as_half(unsigned short v) { return __half_raw{v}; }

__HIPKFD_FP16_HD__ __half __float2half(float f) { return __half((_Float16)f); }
__HIPKFD_FP16_HD__ __half __float2half_rn(float f) { return __half((_Float16)f); }
/* Directed roundings: round to nearest, then step one ulp toward the requested direction if
 * the nearest value lies on the wrong side of f. */
__HIPKFD_FP16_HD__ __half __hipkfd_half_step(_Float16 h, bool up) {
  unsigned short b = __builtin_bit_cast(unsigned short, h);
  bool neg = (b & 0x8000u) != 0;
  if ((b & 0x7fffu) == 0) return __half_raw{(unsigned short)(up ? 0x0001u : 0x8001u)};
  b = (unsigned short)(neg == up ? b - 1 : b + 1);
  return __half_raw{b};
}
__HIPKFD_FP16_HD__ __half __float2half_ru(float f) {
  _Float16 h = (_Float16)f;
  return (float)h < f ? __hipkfd_half_step(h, true) : __half(h);
}
__HIPKFD_FP16_HD__ __half __float2half_rd(float f) {
  _Float16 h = (_Float16)f;
  return (float)h > f ? __hipkfd_half_step(h, false) : __half(h);
}
__HIPKFD_FP16_HD__ __half __float2half_rz(float f) {
  _Float16 h = (_Float16)f;
  float back = (float)h;
  if (f > 0.0f && back > f) return __hipkfd_half_step(h, false);
  if (f < 0.0f && back < f) return __hipkfd_half_step(h, true);
  return __half(h);
}
__HIPKFD_FP16_HD__ float __half2float(__half h) { return (float)__hipkfd_f16(h); }
__HIPKFD_FP16_HD__ __half2 __float2half2_rn(float f) { return __half2(__half(f), __half(f)); }
__HIPKFD_FP16_HD__ __half2 __floats2half2_rn(float a, float b) { return __half2(__half(a), __half(b)); }
__HIPKFD_FP16_HD__ __half2 __halves2half2(__half a, __half b) { return __half2(a, b); }
__HIPKFD_FP16_HD__ __half2 __half2half2(__half a) { return __half2(a, a); }
__HIPKFD_FP16_HD__ __half2 make_half2(__half a, __half b) { return __half2(a, b); }
__HIPKFD_FP16_HD__ __half __low2half(__half2 v) { return v.x; }
__HIPKFD_FP16_HD__ __half __high2half(__half2 v) { return v.y; }
__HIPKFD_FP16_HD__ float __low2float(__half2 v) { return __half2float(v.x); }
__HIPKFD_FP16_HD__ float __high2float(__half2 v) { return __half2float(v.y); }
__HIPKFD_FP16_HD__ __half2 __low2half2(__half2 v) { return __half2(v.x, v.x); }
__HIPKFD_FP16_HD__ __half2 __high2half2(__half2 v) { return __half2(v.y, v.y); }
__HIPKFD_FP16_HD__ __half2 __lows2half2(__half2 a, __half2 b) { return __half2(a.x, b.x); }
__HIPKFD_FP16_HD__ __half2 __highs2half2(__half2 a, __half2 b) { return __half2(a.y, b.y); }
__HIPKFD_FP16_HD__ __half2 __lowhigh2highlow(__half2 v) { return __half2(v.y, v.x); }

/* Integer conversions: _rn rounds to nearest even, _rz truncates (C conversion), _rd/_ru
 * floor/ceil. Out-of-range values saturate as the GPU conversions do. */
#define __HIPKFD_FP16_INT_CONV(T, name)                                                    \
  __HIPKFD_FP16_HD__ __half __##name##2half_rn(T v) { return __half((_Float16)v); }        \
  __HIPKFD_FP16_HD__ __half __##name##2half_rz(T v) { return __float2half_rz((float)v); }  \
  __HIPKFD_FP16_HD__ __half __##name##2half_rd(T v) { return __float2half_rd((float)v); }  \
  __HIPKFD_FP16_HD__ __half __##name##2half_ru(T v) { return __float2half_ru((float)v); }  \
  __HIPKFD_FP16_HD__ T __half2##name##_rz(__half h) { return (T)__builtin_truncf(__half2float(h)); } \
  __HIPKFD_FP16_HD__ T __half2##name##_rn(__half h) { return (T)__builtin_rintf(__half2float(h)); } \
  __HIPKFD_FP16_HD__ T __half2##name##_rd(__half h) { return (T)__builtin_floorf(__half2float(h)); } \
  __HIPKFD_FP16_HD__ T __half2##name##_ru(__half h) { return (T)__builtin_ceilf(__half2float(h)); }
__HIPKFD_FP16_INT_CONV(int, int)
__HIPKFD_FP16_INT_CONV(unsigned int, uint)
__HIPKFD_FP16_INT_CONV(short, short)
__HIPKFD_FP16_INT_CONV(unsigned short, ushort)
__HIPKFD_FP16_INT_CONV(long long, ll)
__HIPKFD_FP16_INT_CONV(unsigned long long, ull)
__HIPKFD_FP16_HD__ float2 __half22float2(__half2 v) {
  return float2(__half2float(v.x), __half2float(v.y));
}
__HIPKFD_FP16_HD__ __half2 __float22half2_rn(float2 v) { return __floats2half2_rn(v.x, v.y); }

/* ---- Arithmetic ---- */
__HIPKFD_FP16_HD__ __half __hipkfd_sat(_Float16 v) {
  return __half(v < (_Float16)0.0f ? (_Float16)0.0f : (v > (_Float16)1.0f ? (_Float16)1.0f : v));
}
__HIPKFD_FP16_HD__ __half __hadd(__half a, __half b) { return __half(__hipkfd_f16(a) + __hipkfd_f16(b)); }
__HIPKFD_FP16_HD__ __half __hsub(__half a, __half b) { return __half(__hipkfd_f16(a) - __hipkfd_f16(b)); }
__HIPKFD_FP16_HD__ __half __hmul(__half a, __half b) { return __half(__hipkfd_f16(a) * __hipkfd_f16(b)); }
__HIPKFD_FP16_HD__ __half __hdiv(__half a, __half b) { return __half(__hipkfd_f16(a) / __hipkfd_f16(b)); }
__HIPKFD_FP16_HD__ __half __hadd_sat(__half a, __half b) { return __hipkfd_sat(__hipkfd_f16(a) + __hipkfd_f16(b)); }
__HIPKFD_FP16_HD__ __half __hsub_sat(__half a, __half b) { return __hipkfd_sat(__hipkfd_f16(a) - __hipkfd_f16(b)); }
__HIPKFD_FP16_HD__ __half __hmul_sat(__half a, __half b) { return __hipkfd_sat(__hipkfd_f16(a) * __hipkfd_f16(b)); }
__HIPKFD_FP16_HD__ __half __hfma(__half a, __half b, __half c) {
  return __half(__builtin_fmaf16(__hipkfd_f16(a), __hipkfd_f16(b), __hipkfd_f16(c)));
}
__HIPKFD_FP16_HD__ __half __hfma_sat(__half a, __half b, __half c) {
  return __hipkfd_sat(__builtin_fmaf16(__hipkfd_f16(a), __hipkfd_f16(b), __hipkfd_f16(c)));
}
__HIPKFD_FP16_HD__ __half __hneg(__half a) { return __half(-__hipkfd_f16(a)); }
__HIPKFD_FP16_HD__ __half __habs(__half a) {
  return __half_raw{(unsigned short)(__half_as_ushort(a) & 0x7fffu)};
}

#define __HIPKFD_FP16_LIFT2(name2, name1)                                                  \
  __HIPKFD_FP16_HD__ __half2 name2(__half2 a, __half2 b) {                                 \
    return __half2(name1(a.x, b.x), name1(a.y, b.y));                                     \
  }
__HIPKFD_FP16_LIFT2(__hadd2, __hadd)
__HIPKFD_FP16_LIFT2(__hsub2, __hsub)
__HIPKFD_FP16_LIFT2(__hmul2, __hmul)
__HIPKFD_FP16_LIFT2(__h2div, __hdiv)
__HIPKFD_FP16_LIFT2(__hadd2_sat, __hadd_sat)
__HIPKFD_FP16_LIFT2(__hsub2_sat, __hsub_sat)
__HIPKFD_FP16_LIFT2(__hmul2_sat, __hmul_sat)
__HIPKFD_FP16_HD__ __half2 __hfma2(__half2 a, __half2 b, __half2 c) {
  return __half2(__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y));
}
__HIPKFD_FP16_HD__ __half2 __hfma2_sat(__half2 a, __half2 b, __half2 c) {
  return __half2(__hfma_sat(a.x, b.x, c.x), __hfma_sat(a.y, b.y, c.y));
}
__HIPKFD_FP16_HD__ __half2 __hneg2(__half2 a) { return __half2(__hneg(a.x), __hneg(a.y)); }
__HIPKFD_FP16_HD__ __half2 __habs2(__half2 a) { return __half2(__habs(a.x), __habs(a.y)); }

/* ---- Comparisons (ordered; the u forms are true when either operand is NaN) ---- */
#define __HIPKFD_FP16_CMP(name, op)                                                        \
  __HIPKFD_FP16_HD__ bool name(__half a, __half b) { return __hipkfd_f16(a) op __hipkfd_f16(b); } \
  __HIPKFD_FP16_HD__ bool name##u(__half a, __half b) {                                    \
    return !(__hipkfd_f16(a) == __hipkfd_f16(a) && __hipkfd_f16(b) == __hipkfd_f16(b)) ||  \
           (__hipkfd_f16(a) op __hipkfd_f16(b));                                           \
  }                                                                                       \
  __HIPKFD_FP16_HD__ __half2 name##2(__half2 a, __half2 b) {                               \
    return __half2(__half(name(a.x, b.x) ? 1.0f : 0.0f), __half(name(a.y, b.y) ? 1.0f : 0.0f)); \
  }                                                                                       \
  __HIPKFD_FP16_HD__ bool __hb##name##2(__half2 a, __half2 b) {                            \
    return name(a.x, b.x) && name(a.y, b.y);                                              \
  }                                                                                       \
  __HIPKFD_FP16_HD__ __half2 name##u2(__half2 a, __half2 b) {                              \
    return __half2(__half(name##u(a.x, b.x) ? 1.0f : 0.0f), __half(name##u(a.y, b.y) ? 1.0f : 0.0f)); \
  }                                                                                       \
  __HIPKFD_FP16_HD__ bool __hb##name##u2(__half2 a, __half2 b) {                           \
    return name##u(a.x, b.x) && name##u(a.y, b.y);                                        \
  }
/* __hbeq2 etc. are named with the bare comparison after __hb: map them below. */
__HIPKFD_FP16_CMP(__heq, ==)
__HIPKFD_FP16_CMP(__hne, !=)
__HIPKFD_FP16_CMP(__hlt, <)
__HIPKFD_FP16_CMP(__hle, <=)
__HIPKFD_FP16_CMP(__hgt, >)
__HIPKFD_FP16_CMP(__hge, >=)
#define __hbeq2 __hb__heq2
#define __hbne2 __hb__hne2
#define __hblt2 __hb__hlt2
#define __hble2 __hb__hle2
#define __hbgt2 __hb__hgt2
#define __hbge2 __hb__hge2
#define __hbequ2 __hb__hequ2
#define __hbneu2 __hb__hneu2
#define __hbltu2 __hb__hltu2
#define __hbleu2 __hb__hleu2
#define __hbgtu2 __hb__hgtu2
#define __hbgeu2 __hb__hgeu2

__HIPKFD_FP16_HD__ bool __hisnan(__half a) { return __hipkfd_f16(a) != __hipkfd_f16(a); }
__HIPKFD_FP16_HD__ int __hisinf(__half a) {
  unsigned short b = __half_as_ushort(a);
  return (b & 0x7fffu) == 0x7c00u ? ((b & 0x8000u) ? -1 : 1) : 0;
}
__HIPKFD_FP16_HD__ __half2 __hisnan2(__half2 a) {
  return __half2(__half(__hisnan(a.x) ? 1.0f : 0.0f), __half(__hisnan(a.y) ? 1.0f : 0.0f));
}
__HIPKFD_FP16_HD__ __half __hmax(__half a, __half b) {
  return __half(__builtin_fmaxf(__half2float(a), __half2float(b)));
}
__HIPKFD_FP16_HD__ __half __hmin(__half a, __half b) {
  return __half(__builtin_fminf(__half2float(a), __half2float(b)));
}
__HIPKFD_FP16_LIFT2(__hmax2, __hmax)
__HIPKFD_FP16_LIFT2(__hmin2, __hmin)
__HIPKFD_FP16_HD__ __half2 __hisinf2(__half2 a) {
  return __half2(__half(__hisinf(a.x) ? 1.0f : 0.0f), __half(__hisinf(a.y) ? 1.0f : 0.0f));
}
/* The _nan forms propagate a NaN operand instead of preferring the number (IEEE maximum /
 * minimum rather than maxNum / minNum). */
__HIPKFD_FP16_HD__ __half __hmax_nan(__half a, __half b) {
  return __hisnan(a) ? a : (__hisnan(b) ? b : __hmax(a, b));
}
__HIPKFD_FP16_HD__ __half __hmin_nan(__half a, __half b) {
  return __hisnan(a) ? a : (__hisnan(b) ? b : __hmin(a, b));
}
__HIPKFD_FP16_LIFT2(__hmax2_nan, __hmax_nan)
__HIPKFD_FP16_LIFT2(__hmin2_nan, __hmin_nan)
/* Clamp to [0, 1] (a NaN stays NaN), the saturation of the _sat operations. */
__HIPKFD_FP16_HD__ __half __clamp_01(__half a) { return __hipkfd_sat(__hipkfd_f16(a)); }

/* ---- Operators ---- */
/* (The arithmetic and comparison operators are hidden friends of __half and __half2, above.) */

/* ---- Math (computed in float, rounded once to half) ---- */
#define __HIPKFD_FP16_MATH(hname, fexpr)                                                   \
  __HIPKFD_FP16_HD__ __half hname(__half a) {                                              \
    float x = __half2float(a);                                                            \
    return __half(fexpr);                                                                 \
  }                                                                                       \
  __HIPKFD_FP16_HD__ __half2 h2##hname(__half2 a) { return __half2(hname(a.x), hname(a.y)); }
__HIPKFD_FP16_MATH(hsqrt, __builtin_sqrtf(x))
__HIPKFD_FP16_MATH(hrsqrt, 1.0f / __builtin_sqrtf(x))
__HIPKFD_FP16_MATH(hrcp, 1.0f / x)
__HIPKFD_FP16_MATH(hexp, __builtin_expf(x))
__HIPKFD_FP16_MATH(hexp2, __builtin_exp2f(x))
__HIPKFD_FP16_MATH(hexp10, __builtin_powf(10.0f, x))
__HIPKFD_FP16_MATH(hlog, __builtin_logf(x))
__HIPKFD_FP16_MATH(hlog2, __builtin_log2f(x))
__HIPKFD_FP16_MATH(hlog10, __builtin_log10f(x))
__HIPKFD_FP16_MATH(hsin, __builtin_sinf(x))
__HIPKFD_FP16_MATH(hcos, __builtin_cosf(x))
__HIPKFD_FP16_MATH(hfloor, __builtin_floorf(x))
__HIPKFD_FP16_MATH(hceil, __builtin_ceilf(x))
__HIPKFD_FP16_MATH(htrunc, __builtin_truncf(x))
__HIPKFD_FP16_MATH(hrint, __builtin_rintf(x))
/* CUDA names the packed forms h2sqrt, h2exp ...; the macro above made h2hsqrt: alias them. */
#define h2sqrt h2hsqrt
#define h2rsqrt h2hrsqrt
#define h2rcp h2hrcp
#define h2exp h2hexp
#define h2exp2 h2hexp2
#define h2exp10 h2hexp10
#define h2log h2hlog
#define h2log2 h2hlog2
#define h2log10 h2hlog10
#define h2sin h2hsin
#define h2cos h2hcos
#define h2floor h2hfloor
#define h2ceil h2hceil
#define h2trunc h2htrunc
#define h2rint h2hrint

#if defined(__HIPKFD_HIP_CLANG__)
/* ---- Mixed-precision dot product (device): a.x*b.x + a.y*b.y + c in f32, one
 * v_dot2_f32_f16 through ockl; `saturate` is the instruction's clamp bit. */
extern "C" __device__ float __ockl_fdot2(__hipkfd_f16x2 a, __hipkfd_f16x2 b, float c, bool s);
static __device__ inline float amd_mixed_dot(__half2 a, __half2 b, float c, bool saturate) {
  __hipkfd_f16x2 va = {__hipkfd_f16(a.x), __hipkfd_f16(a.y)};
  __hipkfd_f16x2 vb = {__hipkfd_f16(b.x), __hipkfd_f16(b.y)};
  return __ockl_fdot2(va, vb, c, saturate);
}

/* ---- Packed half atomic add (device): adds both halves of the 32-bit word at once and
 * returns the old pair. gfx94x has flat_atomic_pk_add_f16; elsewhere a compare-and-swap loop
 * (gfx90a's packed add exists for global addresses only). */
static __device__ inline __half2 unsafeAtomicAdd(__half2 *address, __half2 value) {
#if defined(__gfx940__) || defined(__gfx941__) || defined(__gfx942__) || defined(__gfx950__)
  __hipkfd_f16x2 old = __builtin_amdgcn_flat_atomic_fadd_v2f16((__hipkfd_f16x2 *)address,
                                                               __builtin_bit_cast(__hipkfd_f16x2, value));
  return __builtin_bit_cast(__half2, old);
#else
  unsigned int *word = (unsigned int *)address;
  unsigned int old = __hip_atomic_load(word, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  unsigned int next;
  do {
    __half2 sum = __builtin_bit_cast(__half2, old) + value;
    next = __builtin_bit_cast(unsigned int, sum);
  } while (!__hip_atomic_compare_exchange_weak(word, &old, next, __ATOMIC_RELAXED, __ATOMIC_RELAXED,
                                               __HIP_MEMORY_SCOPE_AGENT));
  return __builtin_bit_cast(__half2, old);
#endif
}

/* ---- Shuffles of half values (device) ---- */
#define __HIPKFD_FP16_SHFL(T)                                                              \
  static __device__ inline T __shfl(T var, int src_lane, int width = warpSize) {           \
    return __hipkfd_shuffle_from(__hipkfd_lane_shfl(src_lane, width), var);                \
  }                                                                                       \
  static __device__ inline T __shfl_up(T var, unsigned int delta, int width = warpSize) {  \
    return __hipkfd_shuffle_from(__hipkfd_lane_up(delta, width), var);                     \
  }                                                                                       \
  static __device__ inline T __shfl_down(T var, unsigned int delta, int width = warpSize) { \
    return __hipkfd_shuffle_from(__hipkfd_lane_down(delta, width), var);                   \
  }                                                                                       \
  static __device__ inline T __shfl_xor(T var, int lane_mask, int width = warpSize) {      \
    return __hipkfd_shuffle_from(__hipkfd_lane_xor(lane_mask, width), var);                \
  }
/* A __half travels in the low half of a 32-bit lane value. */
static __device__ inline __half __hipkfd_shuffle_half(int lane, __half v) {
  unsigned int w = __half_as_ushort(v);
  return __ushort_as_half((unsigned short)__hipkfd_shuffle_from(lane, w));
}
static __device__ inline __half __shfl(__half var, int src_lane, int width = warpSize) {
  return __hipkfd_shuffle_half(__hipkfd_lane_shfl(src_lane, width), var);
}
static __device__ inline __half __shfl_up(__half var, unsigned int delta, int width = warpSize) {
  return __hipkfd_shuffle_half(__hipkfd_lane_up(delta, width), var);
}
static __device__ inline __half __shfl_down(__half var, unsigned int delta, int width = warpSize) {
  return __hipkfd_shuffle_half(__hipkfd_lane_down(delta, width), var);
}
static __device__ inline __half __shfl_xor(__half var, int lane_mask, int width = warpSize) {
  return __hipkfd_shuffle_half(__hipkfd_lane_xor(lane_mask, width), var);
}
__HIPKFD_FP16_SHFL(__half2)
#endif

#endif /* __cplusplus && __clang__ */
#endif /* HIPKFD_AMD_DETAIL_AMD_HIP_FP16_H */
