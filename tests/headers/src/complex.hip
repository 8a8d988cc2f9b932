// hipFloatComplex / hipDoubleComplex (hip_complex.h), host and device.
// EXPECT-ASM: \.amdhsa_kernel .*complex_kernel
#include <hip/hip_complex.h>
#include <hip/hip_runtime.h>

template <class C> __host__ __device__ C use_float(C a, C b);

__global__ void complex_kernel(hipFloatComplex *f, hipDoubleComplex *d) {
  hipFloatComplex a = f[threadIdx.x], b = make_hipFloatComplex(1.0f, -2.0f);
  hipFloatComplex r = hipCaddf(hipCmulf(a, b), hipCdivf(a, b));
  r = hipCsubf(r, hipConjf(r));
  r = hipCfmaf(a, b, r);
  f[threadIdx.x] = make_hipComplex(hipCrealf(r) + hipCabsf(a), hipCimagf(r) + hipCsqabsf(b));
  hipDoubleComplex x = d[threadIdx.x], y = make_hipDoubleComplex(0.5, 0.25);
  hipDoubleComplex s = hipCadd(hipCmul(x, y), hipCdiv(x, y));
  s = hipCfma(x, y, hipCsub(s, hipConj(s)));
  d[threadIdx.x] = make_hipDoubleComplex(hipCreal(s) + hipCabs(x), hipCimag(s) + hipCsqabs(y));
  f[0] = hipComplexDoubleToFloat(hipComplexFloatToDouble(f[0]));
}

int host_side() {
  hipDoubleComplex z = hipCdiv(make_hipDoubleComplex(1, 2), make_hipDoubleComplex(3, 4));
  hipFloatComplex w = hipCmulf(make_hipFloatComplex(0, 1), make_hipFloatComplex(0, 1));
  return (int)(hipCreal(z) * 25.0) + (int)hipCrealf(w); /* 11/25 * 25 = 11, i*i = -1 */
}

int launch(hipFloatComplex *f, hipDoubleComplex *d) {
  complex_kernel<<<1, 64>>>(f, d);
  return host_side();
}
