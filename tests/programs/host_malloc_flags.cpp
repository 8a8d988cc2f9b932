// hipHostMalloc with each flag: the memory is usable by the CPU and by copies, and the flags
// read back; the illegal Coherent|NonCoherent pair is refused.
#include <string.h>

#include "check.h"

int main()
{
  const unsigned flags[] = {hipHostMallocDefault, hipHostMallocPortable, hipHostMallocMapped,
                            hipHostMallocWriteCombined, hipHostMallocCoherent,
                            hipHostMallocNonCoherent, hipHostMallocNumaUser};
  void *d;
  CHECK_HIP(hipMalloc(&d, 65536));
  for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
    unsigned char *h;
    CHECK_HIP(hipHostMalloc((void **)&h, 65536, flags[i]));
    memset(h, (int)(i + 1), 65536);
    CHECK_HIP(hipMemcpy(d, h, 65536, hipMemcpyHostToDevice));
    memset(h, 0, 65536);
    CHECK_HIP(hipMemcpy(h, d, 65536, hipMemcpyDeviceToHost));
    CHECK(h[0] == i + 1 && h[65535] == i + 1);
    unsigned got = 0;
    CHECK_HIP(hipHostGetFlags(&got, h));
    if (flags[i] == hipHostMallocWriteCombined)
      CHECK(got & hipHostMallocWriteCombined);
    CHECK_HIP(hipHostFree(h));
  }
  void *bad;
  EXPECT_HIP(hipHostMalloc(&bad, 64, hipHostMallocCoherent | hipHostMallocNonCoherent),
             hipErrorInvalidValue);
  EXPECT_HIP(hipHostFree(d), hipErrorInvalidValue);
  CHECK_HIP(hipFree(d));
  printf("PASSED\n");
  return 0;
}
