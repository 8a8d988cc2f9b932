// Several streams each copy their own chunk host -> device -> host asynchronously; the results
// are checked after one hipDeviceSynchronize.
#include <string.h>

#include "check.h"

int main()
{
  enum { S = 4 };
  const size_t n = 2 << 20;
  hipStream_t s[S];
  unsigned char *in[S], *out[S];
  void *d[S];
  for (int i = 0; i < S; i++) {
    CHECK_HIP(hipStreamCreate(&s[i]));
    CHECK_HIP(hipHostMalloc((void **)&in[i], n, 0));
    CHECK_HIP(hipHostMalloc((void **)&out[i], n, 0));
    CHECK_HIP(hipMalloc(&d[i], n));
    for (size_t k = 0; k < n; k++)
      in[i][k] = (unsigned char)(k * (i + 3));
    memset(out[i], 0, n);
  }
  for (int i = 0; i < S; i++) {
    CHECK_HIP(hipMemcpyAsync(d[i], in[i], n, hipMemcpyHostToDevice, s[i]));
    CHECK_HIP(hipMemcpyAsync(out[i], d[i], n, hipMemcpyDeviceToHost, s[i]));
  }
  CHECK_HIP(hipDeviceSynchronize());
  for (int i = 0; i < S; i++) {
    CHECK(memcmp(in[i], out[i], n) == 0);
    CHECK_HIP(hipStreamQuery(s[i]));
    CHECK_HIP(hipStreamDestroy(s[i]));
    CHECK_HIP(hipFree(d[i]));
    CHECK_HIP(hipHostFree(in[i]));
    CHECK_HIP(hipHostFree(out[i]));
  }
  printf("PASSED\n");
  return 0;
}
