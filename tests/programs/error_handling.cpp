// Bad input gets errors, never crashes: the last-error state records them.
#include <string.h>

#include "check.h"

int main()
{
  int junk[64];
  memset(junk, 0, sizeof(junk));
  (void)hipGetLastError();
  EXPECT_HIP(hipSetDevice(12345), hipErrorInvalidDevice);
  EXPECT_HIP(hipGetLastError(), hipErrorInvalidDevice);
  EXPECT_HIP(hipGetLastError(), hipSuccess);
  EXPECT_HIP(hipMalloc(NULL, 10), hipErrorInvalidValue);
  EXPECT_HIP(hipPeekAtLastError(), hipErrorInvalidValue);
  EXPECT_HIP(hipStreamSynchronize((hipStream_t)junk), hipErrorContextIsDestroyed);
  EXPECT_HIP(hipEventQuery((hipEvent_t)junk), hipErrorInvalidHandle);
  EXPECT_HIP(hipFree(junk), hipErrorInvalidValue);
  EXPECT_HIP(hipMemcpy(junk, (void *)0x1000, 16, hipMemcpyDeviceToHost), hipErrorInvalidValue);
  EXPECT_HIP(hipMemcpy(junk, junk, 16, (hipMemcpyKind)42), hipErrorInvalidMemcpyDirection);
  EXPECT_HIP(hipStreamDestroy(NULL), hipErrorInvalidHandle);
  EXPECT_HIP(hipEventDestroy(NULL), hipErrorInvalidHandle);
  EXPECT_HIP(hipHostUnregister(junk), hipErrorHostMemoryNotRegistered);
  (void)hipGetLastError();
  printf("PASSED\n");
  return 0;
}
