// Two GPUs: data goes host -> GPU0 -> GPU1 -> host with hipMemcpyPeer and hipMemcpyPeerAsync.
#include <string.h>

#include "check.h"

int main()
{
  int n = 0;
  CHECK_HIP(hipGetDeviceCount(&n));
  if (n < 2) {
    printf("needs 2 GPUs, found %d\n", n);
    return 1;
  }
  int can01 = 0;
  CHECK_HIP(hipDeviceCanAccessPeer(&can01, 0, 1));
  printf("peer 0->1: %d\n", can01);
  const size_t size = 3 << 20;
  unsigned char *h = (unsigned char *)malloc(size), *back = (unsigned char *)malloc(size);
  for (size_t i = 0; i < size; i++)
    h[i] = (unsigned char)(i * 31);
  void *d0, *d1;
  CHECK_HIP(hipSetDevice(0));
  CHECK_HIP(hipMalloc(&d0, size));
  CHECK_HIP(hipSetDevice(1));
  CHECK_HIP(hipMalloc(&d1, size));
  CHECK_HIP(hipMemcpy(d0, h, size, hipMemcpyHostToDevice));
  CHECK_HIP(hipMemcpyPeer(d1, 1, d0, 0, size));
  CHECK_HIP(hipMemcpy(back, d1, size, hipMemcpyDeviceToHost));
  CHECK(memcmp(h, back, size) == 0);
  CHECK_HIP(hipMemset(d0, 0, size));
  CHECK_HIP(hipMemcpyPeerAsync(d0, 0, d1, 1, size, NULL));
  CHECK_HIP(hipDeviceSynchronize());
  CHECK_HIP(hipMemcpy(back, d0, size, hipMemcpyDeviceToHost));
  CHECK(memcmp(h, back, size) == 0);
  CHECK_HIP(hipFree(d0));
  CHECK_HIP(hipFree(d1));
  free(h);
  free(back);
  printf("PASSED\n");
  return 0;
}
