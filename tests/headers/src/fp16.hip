// __half / __half2: conversions, arithmetic, comparisons, math, shuffles (hip_fp16.h).
// EXPECT-ASM: v_fma_f16|v_fmac_f16|v_pk_fma_f16
// EXPECT-ASM: v_cvt_f16_f32
#include <hip/hip_fp16.h>
#include <hip/hip_runtime.h>

__global__ void half_kernel(const __half *in, __half2 *in2, float *out) {
  __half a = in[threadIdx.x];
  __half b = __float2half(2.5f);
  __half c = __hfma(a, b, __hadd(a, b)) * a - b / a;
  c = __hsub(c, __hmul(a, __hdiv(b, c))) + __hneg(__habs(c));
  c += __hadd_sat(a, b);
  c = __hmax(c, __hmin(a, b)) + __float2half_rz(1.1f) + __float2half_rd(1.1f) +
      __float2half_ru(1.1f) + __float2half_rn(1.1f) + __int2half_rn(3) + __uint2half_rn(4u) +
      __short2half_rn((short)5) + __ll2half_rn(6ll) + __ushort_as_half(__half_as_ushort(a));
  __half2 v = __hmul2(in2[0], __halves2half2(a, c)) + __float2half2_rn(1.0f);
  v = __hfma2(v, __half2half2(b), __hadd2(v, v)) - __hneg2(v);
  v = __h2div(v, __floats2half2_rn(1.0f, 2.0f)) + __lowhigh2highlow(v) + __lows2half2(v, v) +
      __highs2half2(v, v) + h2sqrt(v) + h2exp(v) + __hmax2(v, v);
  c = __shfl_xor(c, 1) + __shfl(c, 0) + __shfl_up(c, 1u) + __shfl_down(c, 1u, 16);
  v = __shfl(v, 3) + __shfl_xor(v, 2);
  float2 f2 = __half22float2(v);
  int flags = __hlt(a, b) + __hge(a, b) + __heq(a, b) + __hneu(a, b) + __hbeq2(v, v) +
              __hblt2(v, v) + __hisnan(a) + __hisinf(b) + (a < b) + (a == b);
  out[threadIdx.x] = __half2float(c) + __low2float(v) + __high2float(v) + (float)hsqrt(a) +
                     (float)hexp(a) + (float)hlog(b) + (float)hsin(a) + (float)hcos(a) +
                     (float)hrcp(b) + (float)hfloor(a) + (float)hceil(a) + (float)htrunc(a) +
                     (float)hrint(a) + (float)hrsqrt(b) + f2.x + f2.y + flags +
                     __half2int_rn(a) + __half2int_rz(a) + __half2uint_rd(b) + __half2ll_ru(b) +
                     __half2short_rn(a) + __half2ushort_rz(b) + __half2ull_rn(b);
  in2[threadIdx.x] = __float22half2_rn(f2);
}

int host_side() {
  __half h = __float2half(1.5f);
  __half g = h * h + __half(1.0f);
  __half2 v = __floats2half2_rn(1.0f, 2.0f);
  return (int)__half2float(g) + (int)__high2float(v + v);
}

int launch(const __half *in, __half2 *in2, float *out) {
  half_kernel<<<1, 64>>>(in, in2, out);
  return host_side();
}

// Host code may define its own equality for halves (AMD's operators are device-only hidden
// friends; hip-tests' warp shuffle tests do this).
static bool operator==(__half a, __half b) { return __half2float(a) == __half2float(b); }
bool host_halves_equal(float x) { return __float2half(x) == __float2half(x + 0.0f); }
