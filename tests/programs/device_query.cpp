// Prints every device's main properties (like deviceQuery) and checks them for consistency.
#include <string.h>

#include "check.h"

int main()
{
  int n = 0;
  CHECK_HIP(hipGetDeviceCount(&n));
  CHECK(n >= 1);
  for (int i = 0; i < n; i++) {
    hipDeviceProp_t p;
    CHECK_HIP(hipGetDeviceProperties(&p, i));
    printf("device %d: %s (%s)\n", i, p.name, p.gcnArchName);
    printf("  compute %d.%d, %d CUs at %d MHz, warp %d\n", p.major, p.minor,
           p.multiProcessorCount, p.clockRate / 1000, p.warpSize);
    printf("  memory %zu MiB, bus %d bits at %d MHz, L2 %d KiB\n", p.totalGlobalMem >> 20,
           p.memoryBusWidth, p.memoryClockRate / 1000, p.l2CacheSize >> 10);
    printf("  pci %04x:%02x:%02x\n", p.pciDomainID, p.pciBusID, p.pciDeviceID);
    CHECK(p.warpSize == 64);
    CHECK(p.maxThreadsPerBlock == 1024);
    CHECK(p.sharedMemPerBlock == 65536);
    CHECK(p.major == 9);
    CHECK(strncmp(p.gcnArchName, "gfx9", 4) == 0);
    char name[256];
    CHECK_HIP(hipDeviceGetName(name, sizeof(name), i));
    CHECK(strcmp(name, p.name) == 0);
    size_t total = 0;
    CHECK_HIP(hipDeviceTotalMem(&total, i));
    CHECK(total == p.totalGlobalMem);
    char bus[32];
    CHECK_HIP(hipDeviceGetPCIBusId(bus, sizeof(bus), i));
    int back = -1;
    CHECK_HIP(hipDeviceGetByPCIBusId(&back, bus));
    CHECK(back == i);
  }
  int rt = 0;
  CHECK_HIP(hipRuntimeGetVersion(&rt));
  printf("runtime %d\n", rt);
  printf("PASSED\n");
  return 0;
}
