// Allocation churn: many sizes, all distinct and writable, freed in a scrambled order; the
// errors for interior, unknown and double frees.
#include <string.h>

#include "check.h"

int main()
{
  enum { N = 200 };
  void *p[N];
  for (int i = 0; i < N; i++) {
    size_t size = (size_t)(i % 17 + 1) * 1000 + (size_t)i;
    CHECK_HIP(hipMalloc(&p[i], size));
    CHECK_HIP(hipMemset(p[i], i & 0xff, size));
    unsigned char last = 0;
    CHECK_HIP(hipMemcpy(&last, (char *)p[i] + size - 1, 1, hipMemcpyDeviceToHost));
    CHECK(last == (unsigned char)(i & 0xff));
  }
  for (int k = 0; k < N; k++) {
    int i = (k * 37) % N;
    CHECK_HIP(hipFree(p[i]));
  }
  void *q = NULL;
  CHECK_HIP(hipMalloc(&q, 1 << 20));
  EXPECT_HIP(hipFree((char *)q + 1), hipErrorInvalidValue);
  CHECK_HIP(hipFree(q));
  EXPECT_HIP(hipFree(q), hipErrorInvalidValue);
  int local;
  EXPECT_HIP(hipFree(&local), hipErrorInvalidValue);
  CHECK_HIP(hipFree(NULL));
  printf("PASSED\n");
  return 0;
}
