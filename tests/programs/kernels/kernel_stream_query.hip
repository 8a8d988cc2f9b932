// hipStreamQuery / hipEventQuery report hipErrorNotReady while a kernel is still running and
// hipSuccess once it finished. The kernel waits on a flag in host-pinned memory that the host
// releases only after checking the queries, so "still running" needs no timing.
#include <hip/hip_runtime.h>
#include "../check.h"

__global__ void wait_for_flag(volatile int *flag, int *out)
{
  if (threadIdx.x == 0) {
    while (*flag == 0)
      __builtin_amdgcn_s_sleep(2);
    out[0] = *flag + 1;
  }
}

int main()
{
  int *flag = nullptr, *out = nullptr;
  CHECK_HIP(hipHostMalloc((void **)&flag, sizeof(int), hipHostMallocCoherent));
  CHECK_HIP(hipMalloc(&out, sizeof(int)));
  *flag = 0;
  hipStream_t s;
  CHECK_HIP(hipStreamCreate(&s));
  hipEvent_t before, after;
  CHECK_HIP(hipEventCreate(&before));
  CHECK_HIP(hipEventCreate(&after));

  // An idle stream and a never-recorded event are complete.
  CHECK_HIP(hipStreamQuery(s));
  CHECK_HIP(hipEventQuery(after));

  CHECK_HIP(hipEventRecord(before, s));
  hipLaunchKernelGGL(wait_for_flag, dim3(1), dim3(64), 0, s, (volatile int *)flag, out);
  CHECK_HIP(hipGetLastError());
  CHECK_HIP(hipEventRecord(after, s));

  // The kernel cannot finish before the host writes the flag.
  for (int i = 0; i < 3; i++) {
    EXPECT_HIP(hipStreamQuery(s), hipErrorNotReady);
    EXPECT_HIP(hipEventQuery(after), hipErrorNotReady);
  }
  // hipErrorNotReady is not an error: it does not become the last error.
  CHECK_HIP(hipGetLastError());

  __atomic_store_n(flag, 41, __ATOMIC_RELEASE);
  CHECK_HIP(hipEventSynchronize(after));
  CHECK_HIP(hipEventQuery(after));
  CHECK_HIP(hipEventQuery(before));
  CHECK_HIP(hipStreamQuery(s));
  int h = 0;
  CHECK_HIP(hipMemcpy(&h, out, sizeof(h), hipMemcpyDeviceToHost));
  CHECK(h == 42);

  CHECK_HIP(hipEventDestroy(before));
  CHECK_HIP(hipEventDestroy(after));
  CHECK_HIP(hipStreamDestroy(s));
  CHECK_HIP(hipFree(out));
  CHECK_HIP(hipHostFree(flag));
  printf("PASSED\n");
  return 0;
}
