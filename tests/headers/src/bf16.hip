// bfloat16: __hip_bfloat16 (hip_bf16.h) and hip_bfloat16 (hip_bfloat16.h).
// EXPECT-ASM: \.amdhsa_kernel .*bf16_kernel
#include <hip/hip_bf16.h>
#include <hip/hip_bfloat16.h>
#include <hip/hip_runtime.h>

__global__ void bf16_kernel(const __hip_bfloat16 *in, __hip_bfloat162 *in2, hip_bfloat16 *legacy,
                            float *out) {
  __hip_bfloat16 a = in[threadIdx.x];
  __hip_bfloat16 b = __float2bfloat16(1.5f);
  __hip_bfloat16 c = __hfma(a, b, __hadd(a, b)) * a - b / a + __hneg(__habs(a));
  c = __hmax(c, __hmin(a, b)) + __float2bfloat16_rz(1.1f) + __double2bfloat16(2.0) +
      __ushort_as_bfloat16(__bfloat16_as_ushort(a)) + hsqrt(a) + hexp(b) + hlog(b) + hrcp(b);
  __hip_bfloat162 v = __hmul2(in2[0], __halves2bfloat162(a, c)) + __float2bfloat162_rn(1.0f);
  v = __hfma2(v, __bfloat162bfloat162(b), __hadd2(v, v)) + __floats2bfloat162_rn(1.0f, 2.0f);
  float2 f2 = __bfloat1622float2(v);
  int flags = __hlt(a, b) + __heq(a, b) + __hge(a, b) + __hisnan(a) + __hisinf(b) + (a < b);
  hip_bfloat16 l = legacy[threadIdx.x];
  l = l * hip_bfloat16(2.0f) + l;
  l += hip_bfloat16(1.0f, hip_bfloat16::truncate);
  legacy[threadIdx.x] = l;
  out[threadIdx.x] = __bfloat162float(c) + __low2float(v) + __high2float(v) + f2.x + flags +
                     float(l) + (std::isnan(l) ? 1.0f : 0.0f);
  in2[threadIdx.x] = __float22bfloat162_rn(f2);
}

int host_side() {
  __hip_bfloat16 a(3.0f);
  hip_bfloat16 b(2.0f);
  return (int)__bfloat162float(a * a) + (int)float(b + b);
}

int launch(const __hip_bfloat16 *in, __hip_bfloat162 *in2, hip_bfloat16 *legacy, float *out) {
  bf16_kernel<<<1, 64>>>(in, in2, legacy, out);
  return host_side();
}
