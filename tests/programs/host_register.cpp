// A malloc'ed buffer registered with hipHostRegister is copied through its device pointer;
// registration errors are reported as HIP documents.
#include <string.h>

#include "check.h"

int main()
{
  const size_t n = 1 << 20;
  unsigned char *buf = (unsigned char *)aligned_alloc(4096, n);
  for (size_t i = 0; i < n; i++)
    buf[i] = (unsigned char)(i >> 4);
  CHECK_HIP(hipHostRegister(buf, n, hipHostRegisterMapped));
  // Registering the same start again nests (as clr re-registers); a different overlap is refused.
  CHECK_HIP(hipHostRegister(buf, n, hipHostRegisterMapped));
  EXPECT_HIP(hipHostRegister(buf + 4096, 4096, hipHostRegisterMapped),
             hipErrorHostMemoryAlreadyRegistered);
  CHECK_HIP(hipHostUnregister(buf));
  void *dev = NULL;
  CHECK_HIP(hipHostGetDevicePointer(&dev, buf, 0));
  CHECK(dev != NULL);
  void *d;
  CHECK_HIP(hipMalloc(&d, n));
  CHECK_HIP(hipMemcpy(d, dev, n, hipMemcpyDeviceToDevice));
  unsigned char *back = (unsigned char *)malloc(n);
  CHECK_HIP(hipMemcpy(back, d, n, hipMemcpyDeviceToHost));
  CHECK(memcmp(back, buf, n) == 0);
  // Writes through the device view land in the user's buffer.
  CHECK_HIP(hipMemset(d, 0x7e, 4096));
  CHECK_HIP(hipMemcpy(buf, d, 4096, hipMemcpyDeviceToHost));
  CHECK(buf[4095] == 0x7e);
  CHECK_HIP(hipHostUnregister(buf));
  EXPECT_HIP(hipHostUnregister(buf), hipErrorHostMemoryNotRegistered);
  CHECK_HIP(hipFree(d));
  free(back);
  free(buf);
  printf("PASSED\n");
  return 0;
}
