// Device math (clang's HIP math library through our headers) and hip_math_constants.h.
// EXPECT-ASM: v_sqrt_f32|v_rsq_f32
// EXPECT-ASM: v_exp_f32
#include <hip/hip_math_constants.h>
#include <hip/hip_runtime.h>
#include <hip/math_functions.h>
#include <hip/device_functions.h>

__global__ void math_kernel(const float *in, double *out) {
  float x = in[threadIdx.x];
  double d = x;
  float f = sqrtf(x) + expf(x) + logf(x + 1.0f) + sinf(x) + cosf(x) + powf(x, 2.0f) +
            fmaf(x, x, 1.0f) + fabsf(x) + floorf(x) + ceilf(x) + rsqrtf(x + 1.0f) +
            __expf(x) + __sinf(x) + __fdividef(x, 3.0f) + __saturatef(x) + erff(x) +
            tanhf(x) + atan2f(x, 1.0f) + fminf(x, HIP_PI_F) + fmaxf(x, HIP_INF_F) + exp2f(x) +
            log2f(x + 1.0f) + cbrtf(x) + hypotf(x, 1.0f) + truncf(x) + roundf(x) + fmodf(x, 3.0f);
  float s, c;
  sincosf(x, &s, &c);
  double r = sqrt(d) + exp(d) + log(d + 1.0) + sin(d) + pow(d, 3.0) + fma(d, d, 1.0) + HIP_PI +
             std::sqrt(d) + std::abs(d) + std::max(d, 1.0) + std::min(x, 2.0f);
  out[threadIdx.x] = f + r + s + c + (isnan(x) ? 1 : 0) + (isinf(d) ? 1 : 0) + HIP_SQRT_TWO_F +
                     abs(-3) + min(3, 4) + max(5u, 6u);
}

int launch(const float *in, double *out) {
  math_kernel<<<1, 64>>>(in, out);
  return 0;
}
