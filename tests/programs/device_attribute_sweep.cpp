// Every hipDeviceGetAttribute value in the CUDA-compatible and AMD-specific ranges: each call
// returns success or a clean "invalid/unsupported" error (never a crash), the named ones are
// sane, and the device properties agree. With hipkfd's headers both property layouts (R0600, the
// default, and the ROCm 5 R0000 one) are read and compared; the hipcc 5.2.3 build uses R0000.
#include "check.h"
#include <string.h>

static int sweep(int first, int last, int dev)
{
  int ok = 0;
  for (int attr = first; attr <= last; attr++) {
    int v = -12345;
    hipError_t e = hipDeviceGetAttribute(&v, (hipDeviceAttribute_t)attr, dev);
    if (e == hipSuccess) {
      ok++;
      continue;
    }
    if (e != hipErrorInvalidValue && e != hipErrorNotSupported) {
      fprintf(stderr, "attribute %d -> %s\n", attr, hipGetErrorName(e));
      exit(1);
    }
  }
  (void)hipGetLastError();
  return ok;
}

int main()
{
  int n = 0;
  CHECK_HIP(hipGetDeviceCount(&n));
  CHECK(n >= 1);
  int ok_compat = sweep(0, 200, 0);
  int ok_amd = sweep(10000, 10100, 0);
  printf("attributes answered: %d CUDA-compatible, %d AMD-specific\n", ok_compat, ok_amd);
  CHECK(ok_compat >= 40);
  CHECK(ok_amd >= 5);

  int v = 0;
  hipDeviceProp_t p;
  CHECK_HIP(hipGetDeviceProperties(&p, 0));
#define SAME(attr, field)                                                                     \
  do {                                                                                        \
    CHECK_HIP(hipDeviceGetAttribute(&v, attr, 0));                                            \
    if (v != (int)(field)) {                                                                  \
      fprintf(stderr, "%s = %d, properties say %d\n", #attr, v, (int)(field));              \
      return 1;                                                                               \
    }                                                                                         \
  } while (0)
  SAME(hipDeviceAttributeMaxThreadsPerBlock, p.maxThreadsPerBlock);
  SAME(hipDeviceAttributeMaxBlockDimX, p.maxThreadsDim[0]);
  SAME(hipDeviceAttributeMaxBlockDimY, p.maxThreadsDim[1]);
  SAME(hipDeviceAttributeMaxBlockDimZ, p.maxThreadsDim[2]);
  SAME(hipDeviceAttributeMaxGridDimX, p.maxGridSize[0]);
  SAME(hipDeviceAttributeWarpSize, p.warpSize);
  SAME(hipDeviceAttributeMultiprocessorCount, p.multiProcessorCount);
  SAME(hipDeviceAttributeMaxSharedMemoryPerBlock, p.sharedMemPerBlock);
  SAME(hipDeviceAttributeComputeCapabilityMajor, p.major);
  SAME(hipDeviceAttributeComputeCapabilityMinor, p.minor);
  SAME(hipDeviceAttributePciBusId, p.pciBusID);
  SAME(hipDeviceAttributePciDeviceId, p.pciDeviceID);
  SAME(hipDeviceAttributeClockRate, p.clockRate);
  SAME(hipDeviceAttributeMemoryClockRate, p.memoryClockRate);
  SAME(hipDeviceAttributeMemoryBusWidth, p.memoryBusWidth);
  SAME(hipDeviceAttributeL2CacheSize, p.l2CacheSize);
  SAME(hipDeviceAttributeMaxThreadsPerMultiProcessor, p.maxThreadsPerMultiProcessor);
  SAME(hipDeviceAttributeCooperativeLaunch, p.cooperativeLaunch);
  SAME(hipDeviceAttributeIntegrated, p.integrated);
  SAME(hipDeviceAttributeConcurrentKernels, p.concurrentKernels);
  SAME(hipDeviceAttributeManagedMemory, p.managedMemory);
  SAME(hipDeviceAttributeTotalConstantMemory, p.totalConstMem);

  CHECK(p.warpSize == 64);
  CHECK(p.maxThreadsPerBlock == 1024);
  CHECK(p.multiProcessorCount > 0);
  CHECK(p.totalGlobalMem > ((size_t)1 << 30));
  CHECK(p.major == 9);
  CHECK(strncmp(p.gcnArchName, "gfx9", 4) == 0);
  CHECK(p.name[0] != '\0');

#ifdef __HIPKFD__
  // The ROCm 5 layout, as binaries built by ROCm 5 headers read it, agrees with the R0600 one.
  hipDeviceProp_tR0000 old;
  memset(&old, 0, sizeof(old));
  CHECK_HIP(hipGetDevicePropertiesR0000(&old, 0));
  CHECK(strcmp(old.name, p.name) == 0);
  CHECK(strcmp(old.gcnArchName, p.gcnArchName) == 0);
  CHECK(old.totalGlobalMem == p.totalGlobalMem);
  CHECK(old.multiProcessorCount == p.multiProcessorCount);
  CHECK(old.maxThreadsPerBlock == p.maxThreadsPerBlock);
  CHECK(old.sharedMemPerBlock == p.sharedMemPerBlock);
  CHECK(old.warpSize == p.warpSize);
  CHECK(old.pciBusID == p.pciBusID);
  CHECK(old.cooperativeLaunch == p.cooperativeLaunch);
  CHECK(old.major == p.major && old.minor == p.minor);
  printf("R0000 and R0600 layouts agree\n");
#else
  // ROCm 5 headers: gcnArch is the numeric target.
  CHECK(p.gcnArch >= 900 && p.gcnArch < 1000);
#endif

  // Bad device and null pointer.
  EXPECT_HIP(hipDeviceGetAttribute(&v, hipDeviceAttributeWarpSize, n), hipErrorInvalidDevice);
  EXPECT_HIP(hipDeviceGetAttribute(nullptr, hipDeviceAttributeWarpSize, 0), hipErrorInvalidValue);
  EXPECT_HIP(hipGetDeviceProperties(&p, -1), hipErrorInvalidDevice);
  (void)hipGetLastError();
  printf("PASSED\n");
  return 0;
}
