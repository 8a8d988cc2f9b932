/* hipkfd: single and double precision complex numbers for HIP (hipFloatComplex,
 * hipDoubleComplex), stored as float2/double2 so they match the vector types' layout. */
#ifndef HIPKFD_AMD_DETAIL_AMD_HIP_COMPLEX_H
#define HIPKFD_AMD_DETAIL_AMD_HIP_COMPLEX_H

#include <hip/amd_detail/host_defines.h>
#include <hip/amd_detail/amd_hip_vector_types.h>

#if defined(__cplusplus)
#include <cmath>
#define __HIPKFD_CX_HD__ __host__ __device__ inline
#else
#include <math.h>
#define __HIPKFD_CX_HD__ static inline
#endif

typedef float2 hipFloatComplex;
typedef double2 hipDoubleComplex;
typedef hipFloatComplex hipComplex;

__HIPKFD_CX_HD__ float hipCrealf(hipFloatComplex z) { return z.x; }
__HIPKFD_CX_HD__ float hipCimagf(hipFloatComplex z) { return z.y; }
__HIPKFD_CX_HD__ hipFloatComplex make_hipFloatComplex(float re, float im) { return make_float2(re, im); }
__HIPKFD_CX_HD__ hipComplex make_hipComplex(float re, float im) { return make_float2(re, im); }
__HIPKFD_CX_HD__ hipFloatComplex hipConjf(hipFloatComplex z) { return make_float2(z.x, -z.y); }
__HIPKFD_CX_HD__ float hipCsqabsf(hipFloatComplex z) { return z.x * z.x + z.y * z.y; }
__HIPKFD_CX_HD__ hipFloatComplex hipCaddf(hipFloatComplex a, hipFloatComplex b) {
  return make_float2(a.x + b.x, a.y + b.y);
}
__HIPKFD_CX_HD__ hipFloatComplex hipCsubf(hipFloatComplex a, hipFloatComplex b) {
  return make_float2(a.x - b.x, a.y - b.y);
}
__HIPKFD_CX_HD__ hipFloatComplex hipCmulf(hipFloatComplex a, hipFloatComplex b) {
  return make_float2(a.x * b.x - a.y * b.y, a.y * b.x + a.x * b.y);
}
/* a / b = a * conj(b) / |b|^2 */
__HIPKFD_CX_HD__ hipFloatComplex hipCdivf(hipFloatComplex a, hipFloatComplex b) {
  float d = hipCsqabsf(b);
  return make_float2((a.x * b.x + a.y * b.y) / d, (a.y * b.x - a.x * b.y) / d);
}
__HIPKFD_CX_HD__ float hipCabsf(hipFloatComplex z) { return hypotf(z.x, z.y); }
/* p * q + r */
__HIPKFD_CX_HD__ hipFloatComplex hipCfmaf(hipFloatComplex p, hipFloatComplex q, hipFloatComplex r) {
  float re = fmaf(p.x, q.x, r.x);
  float im = fmaf(p.y, q.x, r.y);
  re = fmaf(-p.y, q.y, re);
  im = fmaf(p.x, q.y, im);
  return make_float2(re, im);
}

__HIPKFD_CX_HD__ double hipCreal(hipDoubleComplex z) { return z.x; }
__HIPKFD_CX_HD__ double hipCimag(hipDoubleComplex z) { return z.y; }
__HIPKFD_CX_HD__ hipDoubleComplex make_hipDoubleComplex(double re, double im) {
  return make_double2(re, im);
}
__HIPKFD_CX_HD__ hipDoubleComplex hipConj(hipDoubleComplex z) { return make_double2(z.x, -z.y); }
__HIPKFD_CX_HD__ double hipCsqabs(hipDoubleComplex z) { return z.x * z.x + z.y * z.y; }
__HIPKFD_CX_HD__ hipDoubleComplex hipCadd(hipDoubleComplex a, hipDoubleComplex b) {
  return make_double2(a.x + b.x, a.y + b.y);
}
__HIPKFD_CX_HD__ hipDoubleComplex hipCsub(hipDoubleComplex a, hipDoubleComplex b) {
  return make_double2(a.x - b.x, a.y - b.y);
}
__HIPKFD_CX_HD__ hipDoubleComplex hipCmul(hipDoubleComplex a, hipDoubleComplex b) {
  return make_double2(a.x * b.x - a.y * b.y, a.y * b.x + a.x * b.y);
}
__HIPKFD_CX_HD__ hipDoubleComplex hipCdiv(hipDoubleComplex a, hipDoubleComplex b) {
  double d = hipCsqabs(b);
  return make_double2((a.x * b.x + a.y * b.y) / d, (a.y * b.x - a.x * b.y) / d);
}
__HIPKFD_CX_HD__ double hipCabs(hipDoubleComplex z) { return hypot(z.x, z.y); }
__HIPKFD_CX_HD__ hipDoubleComplex hipCfma(hipDoubleComplex p, hipDoubleComplex q, hipDoubleComplex r) {
  double re = fma(p.x, q.x, r.x);
  double im = fma(p.y, q.x, r.y);
  re = fma(-p.y, q.y, re);
  im = fma(p.x, q.y, im);
  return make_double2(re, im);
}

__HIPKFD_CX_HD__ hipFloatComplex hipComplexDoubleToFloat(hipDoubleComplex z) {
  return make_float2((float)z.x, (float)z.y);
}
__HIPKFD_CX_HD__ hipDoubleComplex hipComplexFloatToDouble(hipFloatComplex z) {
  return make_double2((double)z.x, (double)z.y);
}

#endif /* HIPKFD_AMD_DETAIL_AMD_HIP_COMPLEX_H */
