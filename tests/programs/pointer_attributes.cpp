// hipPointerGetAttributes for device, pinned, registered and plain host memory.
#include "check.h"

// ROCm 6 renumbered hipMemoryType (Unregistered 0, Host 1, Device 2; ROCm 5 had Host 0,
// Device 1) and renamed the field: a ROCm 5 binary checks only what did not change.
#if HIP_VERSION_MAJOR >= 6
#define CHECK_TYPE(a, t) CHECK((a).type == (t))
#else
#define CHECK_TYPE(a, t) ((void)0)
#endif

int main()
{
  void *d, *h;
  hipPointerAttribute_t a;
  CHECK_HIP(hipMalloc(&d, 4096));
  CHECK_HIP(hipPointerGetAttributes(&a, (char *)d + 16));
  CHECK_TYPE(a, hipMemoryTypeDevice);
  CHECK(a.device == 0);
  CHECK(a.devicePointer == (char *)d + 16);

  CHECK_HIP(hipHostMalloc(&h, 4096, 0));
  CHECK_HIP(hipPointerGetAttributes(&a, h));
  CHECK_TYPE(a, hipMemoryTypeHost);
  CHECK(a.hostPointer == h);

  int local = 0;
  hipError_t e = hipPointerGetAttributes(&a, &local);
#if HIP_VERSION_MAJOR >= 6
  CHECK(e == hipSuccess && a.type == hipMemoryTypeUnregistered);
#else
  // ROCm 5 headers: the binary may run on AMD 5.x (hipErrorInvalidValue) or on a runtime with
  // the CUDA 11 answer (hipSuccess).
  CHECK(e == hipSuccess || e == hipErrorInvalidValue);
  (void)hipGetLastError();
#endif
  EXPECT_HIP(hipPointerGetAttributes(NULL, d), hipErrorInvalidValue);
  CHECK_HIP(hipFree(d));
  CHECK_HIP(hipHostFree(h));
  printf("PASSED\n");
  return 0;
}
