// hipDeviceReset destroys the device's streams; the runtime stays usable afterwards.
#include "check.h"

int main()
{
  hipStream_t s;
  CHECK_HIP(hipStreamCreate(&s));
  void *d;
  CHECK_HIP(hipMalloc(&d, 1024));
  CHECK_HIP(hipMemsetAsync(d, 1, 1024, s));
  CHECK_HIP(hipStreamSynchronize(s));
  CHECK_HIP(hipFree(d));
  CHECK_HIP(hipDeviceReset());
  EXPECT_HIP(hipStreamQuery(s), hipErrorContextIsDestroyed);  // as clr answers for a dead stream
  (void)hipGetLastError();
  CHECK_HIP(hipStreamCreate(&s));
  CHECK_HIP(hipMalloc(&d, 1024));
  CHECK_HIP(hipMemsetAsync(d, 2, 1024, s));
  unsigned char b = 0;
  CHECK_HIP(hipMemcpyAsync(&b, (char *)d + 1023, 1, hipMemcpyDeviceToHost, s));
  CHECK_HIP(hipStreamSynchronize(s));
  CHECK(b == 2);
  CHECK_HIP(hipStreamDestroy(s));
  CHECK_HIP(hipFree(d));
  printf("PASSED\n");
  return 0;
}
