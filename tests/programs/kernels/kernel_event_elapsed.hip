// Events around kernels: hipEventElapsedTime is positive for real work, and timestamps taken in
// stream order are monotone (t0 <= t1 <= t2, elapsed(t0,t2) = elapsed(t0,t1) + elapsed(t1,t2)).
// No assertion depends on how long anything took.
#include <hip/hip_runtime.h>
#include <math.h>
#include "../check.h"

__global__ void busy(int *out, int iters)
{
  int v = threadIdx.x;
  for (int i = 0; i < iters; i++)
    v = v * 1664525 + 1013904223;
  out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}

int main()
{
  int *d;
  CHECK_HIP(hipMalloc(&d, 4 * 64 * sizeof(int)));
  hipStream_t s;
  CHECK_HIP(hipStreamCreate(&s));
  hipEvent_t ev[3];
  for (int i = 0; i < 3; i++)
    CHECK_HIP(hipEventCreate(&ev[i]));

  CHECK_HIP(hipEventRecord(ev[0], s));
  hipLaunchKernelGGL(busy, dim3(4), dim3(64), 0, s, d, 200);
  CHECK_HIP(hipEventRecord(ev[1], s));
  hipLaunchKernelGGL(busy, dim3(4), dim3(64), 0, s, d, 400);
  CHECK_HIP(hipEventRecord(ev[2], s));
  CHECK_HIP(hipEventSynchronize(ev[2]));

  float t01 = -1, t12 = -1, t02 = -1, t20 = 0;
  CHECK_HIP(hipEventElapsedTime(&t01, ev[0], ev[1]));
  CHECK_HIP(hipEventElapsedTime(&t12, ev[1], ev[2]));
  CHECK_HIP(hipEventElapsedTime(&t02, ev[0], ev[2]));
  CHECK_HIP(hipEventElapsedTime(&t20, ev[2], ev[0]));
  printf("elapsed: %.4f + %.4f = %.4f ms\n", t01, t12, t02);
  CHECK(t01 > 0.0f && t12 > 0.0f);
  CHECK(t02 >= t01 && t02 >= t12);
  CHECK(fabsf(t02 - (t01 + t12)) <= 0.01f * t02 + 0.01f);
  CHECK(fabsf(t20 + t02) <= 0.01f * t02 + 0.01f);   // reversed order is negative

  // The kernels computed.
  int h[64];
  CHECK_HIP(hipMemcpy(h, d, sizeof(h), hipMemcpyDeviceToHost));
  for (int t = 0; t < 64; t++) {
    int v = t;
    for (int i = 0; i < 400; i++)
      v = (int)((unsigned)v * 1664525u + 1013904223u);
    CHECK(h[t] == v);
  }

  // An event without timing, and an event not yet recorded, cannot be measured.
  hipEvent_t notime, fresh;
  CHECK_HIP(hipEventCreateWithFlags(&notime, hipEventDisableTiming));
  CHECK_HIP(hipEventCreate(&fresh));
  CHECK_HIP(hipEventRecord(notime, s));
  CHECK_HIP(hipStreamSynchronize(s));
  float t;
  CHECK(hipEventElapsedTime(&t, ev[0], notime) == hipErrorInvalidHandle);
  CHECK(hipEventElapsedTime(&t, ev[0], fresh) != hipSuccess);
  (void)hipGetLastError();
  CHECK_HIP(hipEventDestroy(notime));
  CHECK_HIP(hipEventDestroy(fresh));
  for (int i = 0; i < 3; i++)
    CHECK_HIP(hipEventDestroy(ev[i]));
  CHECK_HIP(hipStreamDestroy(s));
  CHECK_HIP(hipFree(d));
  printf("PASSED\n");
  return 0;
}
