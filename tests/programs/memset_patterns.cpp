// hipMemset, hipMemsetD16, hipMemsetD32 at odd offsets and lengths, small and large.
#include <stdint.h>
#include <string.h>

#include "check.h"

int main()
{
  const size_t n = (3 << 20) + 6;
  unsigned char *d;
  CHECK_HIP(hipMalloc((void **)&d, n + 8));
  unsigned char *h = (unsigned char *)malloc(n + 8);

  CHECK_HIP(hipMemset(d, 0, n + 8));
  CHECK_HIP(hipMemset(d + 1, 0xa5, n));
  CHECK_HIP(hipMemcpy(h, d, n + 8, hipMemcpyDeviceToHost));
  CHECK(h[0] == 0 && h[n + 1] == 0);
  for (size_t i = 1; i <= n; i++)
    CHECK(h[i] == 0xa5);

  CHECK_HIP(hipMemsetD16(d + 2, 0x1234, n / 2));
  CHECK_HIP(hipMemcpy(h, d, n + 8, hipMemcpyDeviceToHost));
  for (size_t i = 0; i < n / 2; i++) {
    uint16_t v;
    memcpy(&v, h + 2 + 2 * i, 2);
    CHECK(v == 0x1234);
  }
  CHECK_HIP(hipMemsetD32(d + 4, (int)0xcafef00d, n / 4 - 1));
  CHECK_HIP(hipMemcpy(h, d, n + 8, hipMemcpyDeviceToHost));
  for (size_t i = 0; i < n / 4 - 1; i++) {
    uint32_t v;
    memcpy(&v, h + 4 + 4 * i, 4);
    CHECK(v == 0xcafef00du);
  }
  EXPECT_HIP(hipMemset(NULL, 0, 10), hipErrorInvalidValue);
  CHECK_HIP(hipFree(d));
  free(h);
  printf("PASSED\n");
  return 0;
}
