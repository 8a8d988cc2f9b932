/* hipkfd: hip_bfloat16, the bfloat16 class of ROCm's math libraries (rocBLAS style): a 16-bit
 * `data` member, conversions from float rounding to nearest even (or truncating on request),
 * arithmetic in float. Usable from C++ host code and from HIP device code; in C it is the bare
 * struct. */
#ifndef HIPKFD_HIP_BFLOAT16_H
#define HIPKFD_HIP_BFLOAT16_H

#include <hip/amd_detail/host_defines.h>

#if defined(__cplusplus)
#include <cmath>
#include <cstdint>
#include <ostream>

#define __HIPKFD_BF_HD__ __host__ __device__ inline

struct hip_bfloat16 {
  uint16_t data;

  enum truncate_t { truncate };

  hip_bfloat16() = default;
  __HIPKFD_BF_HD__ explicit hip_bfloat16(float f) : data(float_to_bfloat16(f)) {}
  __HIPKFD_BF_HD__ hip_bfloat16(float f, truncate_t) : data(truncate_float_to_bfloat16(f)) {}
  __HIPKFD_BF_HD__ operator float() const {
    uint32_t u = (uint32_t)data << 16;
    float f;
    __builtin_memcpy(&f, &u, sizeof(f));
    return f;
  }
  __HIPKFD_BF_HD__ hip_bfloat16 &operator=(const float &f) {
    data = float_to_bfloat16(f);
    return *this;
  }

  /* The rounding (nearest even) and truncating conversions as values. */
  static __HIPKFD_BF_HD__ hip_bfloat16 round_to_bfloat16(float f) {
    hip_bfloat16 r;
    r.data = float_to_bfloat16(f);
    return r;
  }
  static __HIPKFD_BF_HD__ hip_bfloat16 round_to_bfloat16(float f, truncate_t) {
    hip_bfloat16 r;
    r.data = truncate_float_to_bfloat16(f);
    return r;
  }

  static __HIPKFD_BF_HD__ uint16_t float_to_bfloat16(float f) {
    uint32_t u;
    __builtin_memcpy(&u, &f, sizeof(u));
    if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40u); /* keep NaN */
    u += 0x7fffu + ((u >> 16) & 1u);                                          /* nearest even */
    return (uint16_t)(u >> 16);
  }
  static __HIPKFD_BF_HD__ uint16_t truncate_float_to_bfloat16(float f) {
    uint32_t u;
    __builtin_memcpy(&u, &f, sizeof(u));
    return (uint16_t)(u >> 16);
  }
};

typedef struct {
  uint16_t data;
} hip_bfloat16_public;

static_assert(sizeof(hip_bfloat16) == sizeof(hip_bfloat16_public), "hip_bfloat16 is 16 bits");

inline std::ostream &operator<<(std::ostream &os, const hip_bfloat16 &bf) { return os << float(bf); }

__HIPKFD_BF_HD__ hip_bfloat16 operator+(hip_bfloat16 a) { return a; }
__HIPKFD_BF_HD__ hip_bfloat16 operator-(hip_bfloat16 a) {
  a.data ^= 0x8000;
  return a;
}
__HIPKFD_BF_HD__ hip_bfloat16 operator+(hip_bfloat16 a, hip_bfloat16 b) { return hip_bfloat16(float(a) + float(b)); }
__HIPKFD_BF_HD__ hip_bfloat16 operator-(hip_bfloat16 a, hip_bfloat16 b) { return hip_bfloat16(float(a) - float(b)); }
__HIPKFD_BF_HD__ hip_bfloat16 operator*(hip_bfloat16 a, hip_bfloat16 b) { return hip_bfloat16(float(a) * float(b)); }
__HIPKFD_BF_HD__ hip_bfloat16 operator/(hip_bfloat16 a, hip_bfloat16 b) { return hip_bfloat16(float(a) / float(b)); }
__HIPKFD_BF_HD__ bool operator<(hip_bfloat16 a, hip_bfloat16 b) { return float(a) < float(b); }
__HIPKFD_BF_HD__ bool operator<=(hip_bfloat16 a, hip_bfloat16 b) { return float(a) <= float(b); }
__HIPKFD_BF_HD__ bool operator>(hip_bfloat16 a, hip_bfloat16 b) { return float(a) > float(b); }
__HIPKFD_BF_HD__ bool operator>=(hip_bfloat16 a, hip_bfloat16 b) { return float(a) >= float(b); }
__HIPKFD_BF_HD__ bool operator==(hip_bfloat16 a, hip_bfloat16 b) { return float(a) == float(b); }
__HIPKFD_BF_HD__ bool operator!=(hip_bfloat16 a, hip_bfloat16 b) { return !(a == b); }
__HIPKFD_BF_HD__ hip_bfloat16 &operator+=(hip_bfloat16 &a, hip_bfloat16 b) { return a = a + b; }
__HIPKFD_BF_HD__ hip_bfloat16 &operator-=(hip_bfloat16 &a, hip_bfloat16 b) { return a = a - b; }
__HIPKFD_BF_HD__ hip_bfloat16 &operator*=(hip_bfloat16 &a, hip_bfloat16 b) { return a = a * b; }
__HIPKFD_BF_HD__ hip_bfloat16 &operator/=(hip_bfloat16 &a, hip_bfloat16 b) { return a = a / b; }
__HIPKFD_BF_HD__ hip_bfloat16 &operator++(hip_bfloat16 &a) { return a = hip_bfloat16(float(a) + 1.0f); }
__HIPKFD_BF_HD__ hip_bfloat16 &operator--(hip_bfloat16 &a) { return a = hip_bfloat16(float(a) - 1.0f); }
__HIPKFD_BF_HD__ hip_bfloat16 operator++(hip_bfloat16 &a, int) {
  hip_bfloat16 o = a;
  ++a;
  return o;
}
__HIPKFD_BF_HD__ hip_bfloat16 operator--(hip_bfloat16 &a, int) {
  hip_bfloat16 o = a;
  --a;
  return o;
}

namespace std {
__HIPKFD_BF_HD__ bool isinf(hip_bfloat16 a) { return (a.data & 0x7fff) == 0x7f80; }
__HIPKFD_BF_HD__ bool isnan(hip_bfloat16 a) { return (a.data & 0x7fff) > 0x7f80; }
__HIPKFD_BF_HD__ bool iszero(hip_bfloat16 a) { return (a.data & 0x7fff) == 0; }
__HIPKFD_BF_HD__ hip_bfloat16 abs(hip_bfloat16 a) {
  a.data &= 0x7fff;
  return a;
}
__HIPKFD_BF_HD__ hip_bfloat16 sin(hip_bfloat16 a) { return hip_bfloat16(sinf(float(a))); }
__HIPKFD_BF_HD__ hip_bfloat16 cos(hip_bfloat16 a) { return hip_bfloat16(cosf(float(a))); }
} // namespace std

#else /* C */
#include <stdint.h>
typedef struct {
  uint16_t data;
} hip_bfloat16;
#endif

#endif /* HIPKFD_HIP_BFLOAT16_H */
