/* hipkfd: bfloat16 for HIP: __hip_bfloat16, __hip_bfloat162 and their intrinsics.
 *
 * A bfloat16 is the upper 16 bits of an IEEE float. Conversions from float round to nearest
 * even (NaN stays NaN); arithmetic converts to float, computes, and rounds back, on host and
 * device alike (gfx90a/gfx942 have no bf16 ALU instructions outside the matrix units). */
#ifndef HIPKFD_AMD_DETAIL_AMD_HIP_BF16_H
#define HIPKFD_AMD_DETAIL_AMD_HIP_BF16_H

#include <hip/amd_detail/host_defines.h>
#include <hip/amd_detail/amd_hip_vector_types.h>

#if defined(__cplusplus)

#define __HIPKFD_BF16_HD__ __host__ __device__ inline __attribute__((always_inline))

typedef struct __hip_bfloat16_raw {
  unsigned short x;
} __hip_bfloat16_raw;
typedef struct __hip_bfloat162_raw {
  unsigned short x, y;
} __hip_bfloat162_raw;

__HIPKFD_BF16_HD__ unsigned short __hipkfd_float_to_bf16_bits(float f) {
  unsigned int u = __builtin_bit_cast(unsigned int, f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (unsigned short)((u >> 16) | 0x40u); /* quiet NaN */
  u += 0x7fffu + ((u >> 16) & 1u); /* round half to even on the dropped 16 bits */
  return (unsigned short)(u >> 16);
}
__HIPKFD_BF16_HD__ float __hipkfd_bf16_bits_to_float(unsigned short b) {
  return __builtin_bit_cast(float, (unsigned int)b << 16);
}

struct __attribute__((aligned(2))) __hip_bfloat16 {
 protected:
  unsigned short __x;

 public:
  __hip_bfloat16() = default;
  __HIPKFD_BF16_HD__ __hip_bfloat16(const __hip_bfloat16_raw &r) : __x(r.x) {}
  __HIPKFD_BF16_HD__ __hip_bfloat16(float f) : __x(__hipkfd_float_to_bf16_bits(f)) {}
  __HIPKFD_BF16_HD__ __hip_bfloat16(double f) : __x(__hipkfd_float_to_bf16_bits((float)f)) {}
  __HIPKFD_BF16_HD__ __hip_bfloat16(int v) : __x(__hipkfd_float_to_bf16_bits((float)v)) {}
  __HIPKFD_BF16_HD__ __hip_bfloat16(unsigned int v) : __x(__hipkfd_float_to_bf16_bits((float)v)) {}
  __HIPKFD_BF16_HD__ operator __hip_bfloat16_raw() const { return __hip_bfloat16_raw{__x}; }
  __HIPKFD_BF16_HD__ operator float() const { return __hipkfd_bf16_bits_to_float(__x); }
  __HIPKFD_BF16_HD__ __hip_bfloat16 &operator=(const __hip_bfloat16_raw &r) { __x = r.x; return *this; }
  __HIPKFD_BF16_HD__ __hip_bfloat16 &operator+=(const __hip_bfloat16 &o) { return *this = (float)*this + (float)o; }
  __HIPKFD_BF16_HD__ __hip_bfloat16 &operator-=(const __hip_bfloat16 &o) { return *this = (float)*this - (float)o; }
  __HIPKFD_BF16_HD__ __hip_bfloat16 &operator*=(const __hip_bfloat16 &o) { return *this = (float)*this * (float)o; }
  __HIPKFD_BF16_HD__ __hip_bfloat16 &operator/=(const __hip_bfloat16 &o) { return *this = (float)*this / (float)o; }
};

struct __attribute__((aligned(4))) __hip_bfloat162 {
  __hip_bfloat16 x, y;
  __hip_bfloat162() = default;
  __HIPKFD_BF16_HD__ __hip_bfloat162(const __hip_bfloat162_raw &r)
      : x(__hip_bfloat16_raw{r.x}), y(__hip_bfloat16_raw{r.y}) {}
  __HIPKFD_BF16_HD__ __hip_bfloat162(__hip_bfloat16 a, __hip_bfloat16 b) : x(a), y(b) {}
  __HIPKFD_BF16_HD__ operator __hip_bfloat162_raw() const {
    return __hip_bfloat162_raw{__hip_bfloat16_raw(x).x, __hip_bfloat16_raw(y).x};
  }
};

typedef __hip_bfloat16 hip_bf16;
typedef __hip_bfloat162 hip_bf162;

/* ---- Conversions and bit views ---- */
__HIPKFD_BF16_HD__ float __bfloat162float(__hip_bfloat16 a) { return (float)a; }
__HIPKFD_BF16_HD__ __hip_bfloat16 __float2bfloat16(float f) { return __hip_bfloat16(f); }
__HIPKFD_BF16_HD__ __hip_bfloat16 __float2bfloat16_rn(float f) { return __hip_bfloat16(f); }
__HIPKFD_BF16_HD__ __hip_bfloat16 __float2bfloat16_rz(float f) {
  return __hip_bfloat16_raw{(unsigned short)(__builtin_bit_cast(unsigned int, f) >> 16)};
}
__HIPKFD_BF16_HD__ __hip_bfloat16 __double2bfloat16(double d) { return __hip_bfloat16((float)d); }
__HIPKFD_BF16_HD__ short __bfloat16_as_short(__hip_bfloat16 a) { return (short)__hip_bfloat16_raw(a).x; }
__HIPKFD_BF16_HD__ unsigned short __bfloat16_as_ushort(__hip_bfloat16 a) { return __hip_bfloat16_raw(a).x; }
__HIPKFD_BF16_HD__ __hip_bfloat16 __short_as_bfloat16(short v) { return __hip_bfloat16_raw{(unsigned short)v}; }
__HIPKFD_BF16_HD__ __hip_bfloat16 __ushort_as_bfloat16(unsigned short v) { return __hip_bfloat16_raw{v}; }
__HIPKFD_BF16_HD__ float2 __bfloat1622float2(__hip_bfloat162 a) { return float2((float)a.x, (float)a.y); }
__HIPKFD_BF16_HD__ __hip_bfloat162 __float22bfloat162_rn(float2 a) {
  return __hip_bfloat162(__hip_bfloat16(a.x), __hip_bfloat16(a.y));
}
__HIPKFD_BF16_HD__ __hip_bfloat162 __floats2bfloat162_rn(float a, float b) {
  return __hip_bfloat162(__hip_bfloat16(a), __hip_bfloat16(b));
}
__HIPKFD_BF16_HD__ __hip_bfloat162 __float2bfloat162_rn(float a) {
  return __hip_bfloat162(__hip_bfloat16(a), __hip_bfloat16(a));
}
__HIPKFD_BF16_HD__ __hip_bfloat162 __bfloat162bfloat162(__hip_bfloat16 a) { return __hip_bfloat162(a, a); }
__HIPKFD_BF16_HD__ __hip_bfloat162 __halves2bfloat162(__hip_bfloat16 a, __hip_bfloat16 b) {
  return __hip_bfloat162(a, b);
}
__HIPKFD_BF16_HD__ __hip_bfloat162 make_bfloat162(__hip_bfloat16 a, __hip_bfloat16 b) {
  return __hip_bfloat162(a, b);
}
__HIPKFD_BF16_HD__ __hip_bfloat16 __low2bfloat16(__hip_bfloat162 a) { return a.x; }
__HIPKFD_BF16_HD__ __hip_bfloat16 __high2bfloat16(__hip_bfloat162 a) { return a.y; }
__HIPKFD_BF16_HD__ float __low2float(__hip_bfloat162 a) { return (float)a.x; }
__HIPKFD_BF16_HD__ float __high2float(__hip_bfloat162 a) { return (float)a.y; }
__HIPKFD_BF16_HD__ __hip_bfloat162 __lowhigh2highlow(__hip_bfloat162 a) { return __hip_bfloat162(a.y, a.x); }

/* ---- Arithmetic, comparisons, math (in float) ---- */
#define __HIPKFD_BF16_BIN(name, expr)                                                      \
  __HIPKFD_BF16_HD__ __hip_bfloat16 name(__hip_bfloat16 a_, __hip_bfloat16 b_) {           \
    float a = (float)a_, b = (float)b_;                                                   \
    return __hip_bfloat16(expr);                                                          \
  }
__HIPKFD_BF16_BIN(__hadd, a + b)
__HIPKFD_BF16_BIN(__hsub, a - b)
__HIPKFD_BF16_BIN(__hmul, a * b)
__HIPKFD_BF16_BIN(__hdiv, a / b)
__HIPKFD_BF16_BIN(__hmax, __builtin_fmaxf(a, b))
__HIPKFD_BF16_BIN(__hmin, __builtin_fminf(a, b))
__HIPKFD_BF16_HD__ __hip_bfloat16 __hfma(__hip_bfloat16 a, __hip_bfloat16 b, __hip_bfloat16 c) {
  return __hip_bfloat16(__builtin_fmaf((float)a, (float)b, (float)c));
}
__HIPKFD_BF16_HD__ __hip_bfloat16 __hneg(__hip_bfloat16 a) {
  return __ushort_as_bfloat16((unsigned short)(__bfloat16_as_ushort(a) ^ 0x8000u));
}
__HIPKFD_BF16_HD__ __hip_bfloat16 __habs(__hip_bfloat16 a) {
  return __ushort_as_bfloat16((unsigned short)(__bfloat16_as_ushort(a) & 0x7fffu));
}
#define __HIPKFD_BF16_LIFT2(name2, name1)                                                  \
  __HIPKFD_BF16_HD__ __hip_bfloat162 name2(__hip_bfloat162 a, __hip_bfloat162 b) {         \
    return __hip_bfloat162(name1(a.x, b.x), name1(a.y, b.y));                             \
  }
__HIPKFD_BF16_LIFT2(__hadd2, __hadd)
__HIPKFD_BF16_LIFT2(__hsub2, __hsub)
__HIPKFD_BF16_LIFT2(__hmul2, __hmul)
__HIPKFD_BF16_LIFT2(__h2div, __hdiv)
__HIPKFD_BF16_LIFT2(__hmax2, __hmax)
__HIPKFD_BF16_LIFT2(__hmin2, __hmin)
__HIPKFD_BF16_HD__ __hip_bfloat162 __hfma2(__hip_bfloat162 a, __hip_bfloat162 b, __hip_bfloat162 c) {
  return __hip_bfloat162(__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y));
}
__HIPKFD_BF16_HD__ __hip_bfloat162 __hneg2(__hip_bfloat162 a) { return __hip_bfloat162(__hneg(a.x), __hneg(a.y)); }
__HIPKFD_BF16_HD__ __hip_bfloat162 __habs2(__hip_bfloat162 a) { return __hip_bfloat162(__habs(a.x), __habs(a.y)); }

#define __HIPKFD_BF16_CMP(name, op)                                                        \
  __HIPKFD_BF16_HD__ bool name(__hip_bfloat16 a, __hip_bfloat16 b) { return (float)a op (float)b; }
__HIPKFD_BF16_CMP(__heq, ==)
__HIPKFD_BF16_CMP(__hne, !=)
__HIPKFD_BF16_CMP(__hlt, <)
__HIPKFD_BF16_CMP(__hle, <=)
__HIPKFD_BF16_CMP(__hgt, >)
__HIPKFD_BF16_CMP(__hge, >=)
__HIPKFD_BF16_HD__ bool __hisnan(__hip_bfloat16 a) { return (float)a != (float)a; }
__HIPKFD_BF16_HD__ int __hisinf(__hip_bfloat16 a) {
  unsigned short b = __bfloat16_as_ushort(a);
  return (b & 0x7fffu) == 0x7f80u ? ((b & 0x8000u) ? -1 : 1) : 0;
}

__HIPKFD_BF16_HD__ __hip_bfloat16 operator+(__hip_bfloat16 a, __hip_bfloat16 b) { return __hadd(a, b); }
__HIPKFD_BF16_HD__ __hip_bfloat16 operator-(__hip_bfloat16 a, __hip_bfloat16 b) { return __hsub(a, b); }
__HIPKFD_BF16_HD__ __hip_bfloat16 operator*(__hip_bfloat16 a, __hip_bfloat16 b) { return __hmul(a, b); }
__HIPKFD_BF16_HD__ __hip_bfloat16 operator/(__hip_bfloat16 a, __hip_bfloat16 b) { return __hdiv(a, b); }
__HIPKFD_BF16_HD__ __hip_bfloat16 operator-(__hip_bfloat16 a) { return __hneg(a); }
__HIPKFD_BF16_HD__ bool operator==(__hip_bfloat16 a, __hip_bfloat16 b) { return __heq(a, b); }
__HIPKFD_BF16_HD__ bool operator!=(__hip_bfloat16 a, __hip_bfloat16 b) { return __hne(a, b); }
__HIPKFD_BF16_HD__ bool operator<(__hip_bfloat16 a, __hip_bfloat16 b) { return __hlt(a, b); }
__HIPKFD_BF16_HD__ bool operator<=(__hip_bfloat16 a, __hip_bfloat16 b) { return __hle(a, b); }
__HIPKFD_BF16_HD__ bool operator>(__hip_bfloat16 a, __hip_bfloat16 b) { return __hgt(a, b); }
__HIPKFD_BF16_HD__ bool operator>=(__hip_bfloat16 a, __hip_bfloat16 b) { return __hge(a, b); }
__HIPKFD_BF16_HD__ __hip_bfloat162 operator+(__hip_bfloat162 a, __hip_bfloat162 b) { return __hadd2(a, b); }
__HIPKFD_BF16_HD__ __hip_bfloat162 operator-(__hip_bfloat162 a, __hip_bfloat162 b) { return __hsub2(a, b); }
__HIPKFD_BF16_HD__ __hip_bfloat162 operator*(__hip_bfloat162 a, __hip_bfloat162 b) { return __hmul2(a, b); }
__HIPKFD_BF16_HD__ __hip_bfloat162 operator/(__hip_bfloat162 a, __hip_bfloat162 b) { return __h2div(a, b); }

#define __HIPKFD_BF16_MATH(name, fexpr)                                                    \
  __HIPKFD_BF16_HD__ __hip_bfloat16 name(__hip_bfloat16 a_) {                              \
    float x = (float)a_;                                                                  \
    return __hip_bfloat16(fexpr);                                                         \
  }
__HIPKFD_BF16_MATH(hsqrt, __builtin_sqrtf(x))
__HIPKFD_BF16_MATH(hrsqrt, 1.0f / __builtin_sqrtf(x))
__HIPKFD_BF16_MATH(hrcp, 1.0f / x)
__HIPKFD_BF16_MATH(hexp, __builtin_expf(x))
__HIPKFD_BF16_MATH(hexp2, __builtin_exp2f(x))
__HIPKFD_BF16_MATH(hlog, __builtin_logf(x))
__HIPKFD_BF16_MATH(hlog2, __builtin_log2f(x))
__HIPKFD_BF16_MATH(hsin, __builtin_sinf(x))
__HIPKFD_BF16_MATH(hcos, __builtin_cosf(x))
__HIPKFD_BF16_MATH(hfloor, __builtin_floorf(x))
__HIPKFD_BF16_MATH(hceil, __builtin_ceilf(x))
__HIPKFD_BF16_MATH(htrunc, __builtin_truncf(x))
__HIPKFD_BF16_MATH(hrint, __builtin_rintf(x))

#if defined(__HIPKFD_HIP_CLANG__)
/* Packed bfloat16 atomic add (device): adds both halves of the 32-bit word at once and returns
 * the old pair. gfx94x has flat_atomic_pk_add_bf16 (the builtin takes the pair as two 16-bit
 * integers); elsewhere a compare-and-swap loop. */
typedef short __hipkfd_bf16x2_bits __attribute__((ext_vector_type(2)));
static __device__ inline __hip_bfloat162 unsafeAtomicAdd(__hip_bfloat162 *address, __hip_bfloat162 value) {
#if defined(__gfx940__) || defined(__gfx941__) || defined(__gfx942__) || defined(__gfx950__)
  __hipkfd_bf16x2_bits old = __builtin_amdgcn_flat_atomic_fadd_v2bf16(
      (__hipkfd_bf16x2_bits *)address, __builtin_bit_cast(__hipkfd_bf16x2_bits, value));
  return __builtin_bit_cast(__hip_bfloat162, old);
#else
  unsigned int *word = (unsigned int *)address;
  unsigned int old = __hip_atomic_load(word, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  unsigned int next;
  do {
    __hip_bfloat162 o = __builtin_bit_cast(__hip_bfloat162, old);
    __hip_bfloat162 sum(__hip_bfloat16((float)o.x + (float)value.x),
                        __hip_bfloat16((float)o.y + (float)value.y));
    next = __builtin_bit_cast(unsigned int, sum);
  } while (!__hip_atomic_compare_exchange_weak(word, &old, next, __ATOMIC_RELAXED, __ATOMIC_RELAXED,
                                               __HIP_MEMORY_SCOPE_AGENT));
  return __builtin_bit_cast(__hip_bfloat162, old);
#endif
}
#endif

#endif /* __cplusplus */
#endif /* HIPKFD_AMD_DETAIL_AMD_HIP_BF16_H */
