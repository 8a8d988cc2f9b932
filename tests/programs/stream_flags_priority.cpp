// Stream creation variants: flags and priorities read back, the priority range, destroy.
#include "check.h"

int main()
{
  int least = 0, greatest = 0;
  CHECK_HIP(hipDeviceGetStreamPriorityRange(&least, &greatest));
  CHECK(greatest <= least);
  hipStream_t s[3];
  CHECK_HIP(hipStreamCreateWithPriority(&s[0], hipStreamDefault, greatest));
  CHECK_HIP(hipStreamCreateWithPriority(&s[1], hipStreamNonBlocking, least));
  CHECK_HIP(hipStreamCreateWithFlags(&s[2], hipStreamNonBlocking));
  int p;
  unsigned f;
  CHECK_HIP(hipStreamGetPriority(s[0], &p));
  CHECK(p == greatest);
  CHECK_HIP(hipStreamGetPriority(s[1], &p));
  CHECK(p == least);
  CHECK_HIP(hipStreamGetFlags(s[1], &f));
  CHECK(f == hipStreamNonBlocking);
  CHECK_HIP(hipStreamGetFlags(s[0], &f));
  CHECK(f == hipStreamDefault);
  for (int i = 0; i < 3; i++) {
    CHECK_HIP(hipStreamQuery(s[i]));
    CHECK_HIP(hipStreamSynchronize(s[i]));
    CHECK_HIP(hipStreamDestroy(s[i]));
  }
  printf("PASSED\n");
  return 0;
}
