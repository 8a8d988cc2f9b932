// Events around a large fill and copy: elapsed time is non-negative and ordered, and the
// documented errors hold (unrecorded stop, timing disabled).
#include "check.h"

int main()
{
  const size_t n = 16 << 20;
  void *d, *d2;
  CHECK_HIP(hipMalloc(&d, n));
  CHECK_HIP(hipMalloc(&d2, n));
  hipEvent_t a, b, c;
  CHECK_HIP(hipEventCreate(&a));
  CHECK_HIP(hipEventCreate(&b));
  CHECK_HIP(hipEventCreate(&c));
  float ms = -1;
  EXPECT_HIP(hipEventElapsedTime(&ms, a, b), hipErrorInvalidHandle);
  CHECK_HIP(hipEventRecord(a, NULL));
  CHECK_HIP(hipMemset(d, 1, n));
  CHECK_HIP(hipEventRecord(b, NULL));
  CHECK_HIP(hipMemcpy(d2, d, n, hipMemcpyDeviceToDevice));
  CHECK_HIP(hipEventRecord(c, NULL));
  CHECK_HIP(hipEventSynchronize(c));
  float ab = -1, ac = -1;
  CHECK_HIP(hipEventElapsedTime(&ab, a, b));
  CHECK_HIP(hipEventElapsedTime(&ac, a, c));
  printf("fill %.3f ms, fill+copy %.3f ms\n", ab, ac);
  CHECK(ab >= 0 && ac >= ab);
  hipEvent_t nt;
  CHECK_HIP(hipEventCreateWithFlags(&nt, hipEventDisableTiming));
  CHECK_HIP(hipEventRecord(nt, NULL));
  CHECK_HIP(hipEventSynchronize(nt));
  EXPECT_HIP(hipEventElapsedTime(&ms, a, nt), hipErrorInvalidHandle);
  CHECK_HIP(hipEventDestroy(a));
  CHECK_HIP(hipEventDestroy(b));
  CHECK_HIP(hipEventDestroy(c));
  CHECK_HIP(hipEventDestroy(nt));
  CHECK_HIP(hipFree(d));
  CHECK_HIP(hipFree(d2));
  printf("PASSED\n");
  return 0;
}
