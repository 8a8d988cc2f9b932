// hipDeviceGetAttribute agrees with hipGetDeviceProperties; bad attribute and device are refused.
#include "check.h"

int main()
{
  hipDeviceProp_t p;
  CHECK_HIP(hipGetDeviceProperties(&p, 0));
  int v = 0;
  CHECK_HIP(hipDeviceGetAttribute(&v, hipDeviceAttributeMaxThreadsPerBlock, 0));
  CHECK(v == p.maxThreadsPerBlock);
  CHECK_HIP(hipDeviceGetAttribute(&v, hipDeviceAttributeWarpSize, 0));
  CHECK(v == p.warpSize);
  CHECK_HIP(hipDeviceGetAttribute(&v, hipDeviceAttributeMultiprocessorCount, 0));
  CHECK(v == p.multiProcessorCount);
  CHECK_HIP(hipDeviceGetAttribute(&v, hipDeviceAttributeComputeCapabilityMajor, 0));
  CHECK(v == p.major);
  CHECK_HIP(hipDeviceGetAttribute(&v, hipDeviceAttributeComputeCapabilityMinor, 0));
  CHECK(v == p.minor);
  CHECK_HIP(hipDeviceGetAttribute(&v, hipDeviceAttributeClockRate, 0));
  CHECK(v == p.clockRate);
  CHECK_HIP(hipDeviceGetAttribute(&v, hipDeviceAttributeL2CacheSize, 0));
  CHECK(v == p.l2CacheSize);
  CHECK_HIP(hipDeviceGetAttribute(&v, hipDeviceAttributePciBusId, 0));
  CHECK(v == p.pciBusID);
  CHECK_HIP(hipDeviceGetAttribute(&v, hipDeviceAttributeMaxSharedMemoryPerBlock, 0));
  CHECK(v == (int)p.sharedMemPerBlock);
  EXPECT_HIP(hipDeviceGetAttribute(&v, (hipDeviceAttribute_t)9999, 0), hipErrorInvalidValue);
  EXPECT_HIP(hipDeviceGetAttribute(&v, hipDeviceAttributeWarpSize, 64), hipErrorInvalidDevice);
  EXPECT_HIP(hipDeviceGetAttribute(NULL, hipDeviceAttributeWarpSize, 0), hipErrorInvalidValue);
  printf("PASSED\n");
  return 0;
}
