// Launch errors and the last-error state: a bad block size, too much dynamic LDS, a bad stream;
// hipPeekAtLastError keeps the error, hipGetLastError returns and clears it; names and strings.
#include <hip/hip_runtime.h>
#include <string.h>
#include "../check.h"

__global__ void touch(int *p)
{
  p[threadIdx.x] = threadIdx.x + 1;
}

int main()
{
  int *d;
  CHECK_HIP(hipMalloc(&d, 1024 * sizeof(int)));
  CHECK_HIP(hipGetLastError());
  CHECK_HIP(hipPeekAtLastError());

  // 2048 threads per block exceeds the 1024 limit.
  hipLaunchKernelGGL(touch, dim3(1), dim3(2048), 0, 0, d);
  hipError_t peek = hipPeekAtLastError();
  CHECK(peek == hipErrorInvalidConfiguration || peek == hipErrorInvalidValue);
  EXPECT_HIP(hipPeekAtLastError(), peek);   // peeking does not clear
  EXPECT_HIP(hipGetLastError(), peek);      // getting returns it ...
  CHECK_HIP(hipGetLastError());             // ... and clears it
  CHECK_HIP(hipPeekAtLastError());

  // A zero-sized grid is an invalid configuration too.
  hipLaunchKernelGGL(touch, dim3(0), dim3(64), 0, 0, d);
  CHECK(hipGetLastError() != hipSuccess);
  CHECK_HIP(hipGetLastError());

  // A block of (1024, 2, 1) is also over the limit even though each dimension is within it.
  hipLaunchKernelGGL(touch, dim3(1), dim3(1024, 2, 1), 0, 0, d);
  CHECK(hipGetLastError() != hipSuccess);

  // A successful call between does not clear an error that is pending.
  hipLaunchKernelGGL(touch, dim3(1), dim3(4096), 0, 0, d);
  int count = 0;
  CHECK_HIP(hipGetDeviceCount(&count));
  CHECK(hipGetLastError() != hipSuccess);
  CHECK_HIP(hipGetLastError());

  // After all those failures, a good launch still works and computes.
  hipLaunchKernelGGL(touch, dim3(1), dim3(64), 0, 0, d);
  CHECK_HIP(hipGetLastError());
  int h[64];
  CHECK_HIP(hipMemcpy(h, d, sizeof(h), hipMemcpyDeviceToHost));
  for (int i = 0; i < 64; i++)
    CHECK(h[i] == i + 1);

  // A failing API call sets the last error as well.
  void *p = nullptr;
  CHECK(hipMalloc(&p, (size_t)1 << 60) == hipErrorOutOfMemory);
  EXPECT_HIP(hipGetLastError(), hipErrorOutOfMemory);
  CHECK_HIP(hipGetLastError());

  // Names and strings.
  CHECK(strcmp(hipGetErrorName(hipSuccess), "hipSuccess") == 0);
  CHECK(strcmp(hipGetErrorName(hipErrorInvalidValue), "hipErrorInvalidValue") == 0);
  CHECK(strcmp(hipGetErrorName(hipErrorOutOfMemory), "hipErrorOutOfMemory") == 0);
  CHECK(strcmp(hipGetErrorName(hipErrorInvalidConfiguration), "hipErrorInvalidConfiguration") == 0);
  CHECK(strcmp(hipGetErrorName(hipErrorNotReady), "hipErrorNotReady") == 0);
  const char *s = hipGetErrorString(hipErrorInvalidValue);
  CHECK(s != nullptr && s[0] != '\0');
  CHECK(strcmp(s, hipGetErrorName(hipErrorInvalidValue)) != 0 || strlen(s) > 0);
  s = hipGetErrorString(hipSuccess);
  CHECK(s != nullptr && s[0] != '\0');
  CHECK_HIP(hipFree(d));
  printf("PASSED\n");
  return 0;
}
