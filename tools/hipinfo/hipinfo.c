/* hipinfo: every HIP device's properties, as AMD's hipInfo sample (hip-tests samples/1_Utils/
 * hipInfo) prints them, with --json for scripts. It asks the runtime it is linked against, so
 * under kfdsim it shows the emulated GPUs:  kfdsim --gpus 2 -- hipinfo
 *
 * The properties are a table over hipDeviceProp_t (one line each, the same keys in both
 * formats); the rest (PCI bus id, limits, memory in use, peers, versions) are runtime calls. */
#include <hip/hip_runtime_api.h>
#include <hip/hip_version.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#ifndef HIPINFO_PROJECT_VERSION
#define HIPINFO_PROJECT_VERSION "0.0.0"
#endif

enum kind { K_INT, K_SIZE, K_STR, K_KHZ, K_INT2, K_INT3 };

struct field {
  const char *key;
  enum kind kind;
  size_t offset;
  const char *unit; /* text output only */
};

#define F(name, kind, unit) {#name, kind, offsetof(hipDeviceProp_t, name), unit}

static const struct field fields[] = {
    F(name, K_STR, ""),
    F(gcnArchName, K_STR, ""),
    F(pciDomainID, K_INT, ""),
    F(pciBusID, K_INT, ""),
    F(pciDeviceID, K_INT, ""),
    F(major, K_INT, ""),
    F(minor, K_INT, ""),
    F(asicRevision, K_INT, ""),
    F(multiProcessorCount, K_INT, "CUs"),
    F(warpSize, K_INT, ""),
    F(maxThreadsPerBlock, K_INT, ""),
    F(maxThreadsDim, K_INT3, ""),
    F(maxGridSize, K_INT3, ""),
    F(maxThreadsPerMultiProcessor, K_INT, ""),
    F(maxBlocksPerMultiProcessor, K_INT, ""),
    F(regsPerBlock, K_INT, ""),
    F(regsPerMultiprocessor, K_INT, ""),
    F(clockRate, K_KHZ, "MHz"),
    F(memoryClockRate, K_KHZ, "MHz"),
    F(clockInstructionRate, K_KHZ, "MHz"),
    F(totalGlobalMem, K_SIZE, "bytes"),
    F(totalConstMem, K_SIZE, "bytes"),
    F(memoryBusWidth, K_INT, "bits"),
    F(l2CacheSize, K_INT, "bytes"),
    F(persistingL2CacheMaxSize, K_INT, "bytes"),
    F(globalL1CacheSupported, K_INT, ""),
    F(localL1CacheSupported, K_INT, ""),
    F(sharedMemPerBlock, K_SIZE, "bytes"),
    F(sharedMemPerBlockOptin, K_SIZE, "bytes"),
    F(sharedMemPerMultiprocessor, K_SIZE, "bytes"),
    F(maxSharedMemoryPerMultiProcessor, K_SIZE, "bytes"),
    F(memPitch, K_SIZE, "bytes"),
    F(textureAlignment, K_SIZE, "bytes"),
    F(texturePitchAlignment, K_SIZE, "bytes"),
    F(surfaceAlignment, K_SIZE, "bytes"),
    F(maxTexture1D, K_INT, ""),
    F(maxTexture1DLinear, K_INT, ""),
    F(maxTexture2D, K_INT2, ""),
    F(maxTexture3D, K_INT3, ""),
    F(maxSurface1D, K_INT, ""),
    F(maxSurface2D, K_INT2, ""),
    F(maxSurface3D, K_INT3, ""),
    F(concurrentKernels, K_INT, ""),
    F(asyncEngineCount, K_INT, ""),
    F(cooperativeLaunch, K_INT, ""),
    F(cooperativeMultiDeviceLaunch, K_INT, ""),
    F(streamPrioritiesSupported, K_INT, ""),
    F(computeMode, K_INT, ""),
    F(integrated, K_INT, ""),
    F(isMultiGpuBoard, K_INT, ""),
    F(isLargeBar, K_INT, ""),
    F(ECCEnabled, K_INT, ""),
    F(canMapHostMemory, K_INT, ""),
    F(unifiedAddressing, K_INT, ""),
    F(managedMemory, K_INT, ""),
    F(concurrentManagedAccess, K_INT, ""),
    F(pageableMemoryAccess, K_INT, ""),
    F(hostNativeAtomicSupported, K_INT, ""),
    F(hostRegisterSupported, K_INT, ""),
    F(memoryPoolsSupported, K_INT, ""),
    F(ipcEventSupported, K_INT, ""),
};

struct out {
  bool json;
  bool first; /* no comma before the next JSON member */
};

static void json_string(const char *s)
{
  putchar('"');
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\')
      printf("\\%c", c);
    else if (c < 0x20)
      printf("\\u%04x", c);
    else
      putchar(c);
  }
  putchar('"');
}

/* One member: `value` is printed as is (a JSON number or array), or quoted when is_string. */
static void member(struct out *o, const char *key, const char *value, bool is_string,
                   const char *unit)
{
  if (o->json) {
    printf("%s\n      \"%s\": ", o->first ? "" : ",", key);
    if (is_string)
      json_string(value);
    else
      printf("%s", value);
    o->first = false;
    return;
  }
  char label[64];
  snprintf(label, sizeof(label), "%s:", key);
  printf("%-34s%s%s%s\n", label, value, unit && *unit ? " " : "", unit ? unit : "");
}

static void member_long(struct out *o, const char *key, long long v, const char *unit)
{
  char buf[32];
  snprintf(buf, sizeof(buf), "%lld", v);
  member(o, key, buf, false, unit);
}

static void print_field(struct out *o, const hipDeviceProp_t *prop, const struct field *f)
{
  const char *base = (const char *)prop + f->offset;
  const int *iv = (const int *)(const void *)base;
  char buf[128];
  switch (f->kind) {
  case K_STR:
    member(o, f->key, base, true, f->unit);
    return;
  case K_INT:
    snprintf(buf, sizeof(buf), "%d", iv[0]);
    break;
  case K_SIZE:
    snprintf(buf, sizeof(buf), "%zu", *(const size_t *)(const void *)base);
    break;
  case K_KHZ: /* kHz in the struct; MHz in text as AMD's hipInfo prints, kHz in JSON */
    if (o->json)
      snprintf(buf, sizeof(buf), "%d", iv[0]);
    else
      snprintf(buf, sizeof(buf), "%.0f", iv[0] / 1000.0);
    break;
  case K_INT2:
    snprintf(buf, sizeof(buf), o->json ? "[%d, %d]" : "%d x %d", iv[0], iv[1]);
    break;
  case K_INT3:
    snprintf(buf, sizeof(buf), o->json ? "[%d, %d, %d]" : "%d x %d x %d", iv[0], iv[1], iv[2]);
    break;
  }
  member(o, f->key, buf, false, f->kind == K_KHZ && o->json ? "" : f->unit);
}

/* The device's peers, as "[0, 2]" (JSON) or "device#0 device#2" (text). */
static void print_peers(struct out *o, int dev, int count)
{
  char buf[512] = "";
  size_t n = 0;
  if (o->json)
    n += (size_t)snprintf(buf, sizeof(buf), "[");
  bool any = false;
  for (int i = 0; i < count && n < sizeof(buf) - 16; i++) {
    int can = 0;
    if (i == dev || hipDeviceCanAccessPeer(&can, dev, i) != hipSuccess || !can)
      continue;
    n += (size_t)snprintf(buf + n, sizeof(buf) - n, o->json ? "%s%d" : "%sdevice#%d",
                          any ? (o->json ? ", " : " ") : "", i);
    any = true;
  }
  if (o->json)
    snprintf(buf + n, sizeof(buf) - n, "]");
  member(o, "peers", buf, false, "");
}

static void print_limits(struct out *o)
{
  static const struct {
    const char *key;
    enum hipLimit_t limit;
  } limits[] = {{"limitStackSize", hipLimitStackSize},
                {"limitPrintfFifoSize", hipLimitPrintfFifoSize},
                {"limitMallocHeapSize", hipLimitMallocHeapSize}};
  for (size_t i = 0; i < sizeof(limits) / sizeof(limits[0]); i++) {
    size_t v = 0;
    if (hipDeviceGetLimit(&v, limits[i].limit) == hipSuccess)
      member_long(o, limits[i].key, (long long)v, "bytes");
  }
}

static void print_arch_flags(struct out *o, const hipDeviceArch_t *a)
{
#define ARCH(flag) member_long(o, "arch." #flag, a->flag, "")
  ARCH(hasGlobalInt32Atomics);
  ARCH(hasGlobalFloatAtomicExch);
  ARCH(hasSharedInt32Atomics);
  ARCH(hasSharedFloatAtomicExch);
  ARCH(hasFloatAtomicAdd);
  ARCH(hasGlobalInt64Atomics);
  ARCH(hasSharedInt64Atomics);
  ARCH(hasDoubles);
  ARCH(hasWarpVote);
  ARCH(hasWarpBallot);
  ARCH(hasWarpShuffle);
  ARCH(hasFunnelShift);
  ARCH(hasThreadFenceSystem);
  ARCH(hasSyncThreadsExt);
  ARCH(hasSurfaceFuncs);
  ARCH(has3dGrid);
  ARCH(hasDynamicParallelism);
#undef ARCH
}

static int print_device(struct out *o, int dev, int count)
{
  hipDeviceProp_t prop;
  memset(&prop, 0, sizeof(prop));
  hipError_t err = hipSetDevice(dev);
  if (err == hipSuccess)
    err = hipGetDeviceProperties(&prop, dev);
  if (err != hipSuccess) {
    fprintf(stderr, "hipinfo: device %d: %s\n", dev, hipGetErrorString(err));
    return 1;
  }
  if (o->json) {
    printf("%s\n    {", dev ? "," : "");
    o->first = true;
  } else {
    printf("--------------------------------------------------------------------------------\n");
  }
  member_long(o, "device#", dev, "");
  for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
    print_field(o, &prop, &fields[i]);
  char bus[64] = "";
  if (hipDeviceGetPCIBusId(bus, (int)sizeof(bus), dev) == hipSuccess)
    member(o, "pciBusId", bus, true, "");
  int vgprs = 0;
  if (hipDeviceGetAttribute(&vgprs, hipDeviceAttributeMaxAvailableVgprsPerThread, dev) ==
      hipSuccess)
    member_long(o, "maxAvailableVgprsPerThread", vgprs, "DWORDs");
  int wall = 0;
  if (hipDeviceGetAttribute(&wall, hipDeviceAttributeWallClockRate, dev) == hipSuccess)
    member_long(o, "wallClockRate", wall, "kHz");
  print_arch_flags(o, &prop.arch);
  print_limits(o);
  size_t free_b = 0, total_b = 0;
  if (hipMemGetInfo(&free_b, &total_b) == hipSuccess) {
    member_long(o, "memInfo.total", (long long)total_b, "bytes");
    member_long(o, "memInfo.free", (long long)free_b, "bytes");
  }
  print_peers(o, dev, count);
  if (o->json)
    printf("\n    }");
  else
    printf("\n");
  return 0;
}

static void usage(FILE *f)
{
  fprintf(f, "usage: hipinfo [--json]\n"
             "  Prints every HIP device's properties (under kfdsim: kfdsim -- hipinfo).\n"
             "  --json   one JSON document for scripts\n");
}

int main(int argc, char **argv)
{
  struct out o = {.json = false, .first = true};
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--json")) {
      o.json = true;
    } else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
      usage(stdout);
      return 0;
    } else {
      fprintf(stderr, "hipinfo: unknown option '%s'\n", argv[i]);
      usage(stderr);
      return 2;
    }
  }
  int count = 0, runtime = 0, driver = 0;
  hipError_t err = hipGetDeviceCount(&count);
  hipRuntimeGetVersion(&runtime);
  hipDriverGetVersion(&driver);
  if (err != hipSuccess && err != hipErrorNoDevice) {
    fprintf(stderr, "hipinfo: hipGetDeviceCount: %s\n", hipGetErrorString(err));
    return 1;
  }
  if (err == hipErrorNoDevice)
    count = 0;
  if (o.json) {
    printf("{\n  \"hipkfd_version\": \"%s\",\n  \"hip_version\": \"%d.%d.%d\",\n",
           HIPINFO_PROJECT_VERSION, HIP_VERSION_MAJOR, HIP_VERSION_MINOR, HIP_VERSION_PATCH);
    printf("  \"runtime_version\": %d,\n  \"driver_version\": %d,\n  \"device_count\": %d,\n"
           "  \"devices\": [", runtime, driver, count);
  } else {
    printf("hipkfd version:                   %s (HIP API %d.%d.%d)\n", HIPINFO_PROJECT_VERSION,
           HIP_VERSION_MAJOR, HIP_VERSION_MINOR, HIP_VERSION_PATCH);
    printf("runtime version:                  %d\ndriver version:                   %d\n"
           "device count:                     %d\n", runtime, driver, count);
  }
  int status = 0;
  for (int dev = 0; dev < count; dev++)
    status |= print_device(&o, dev, count);
  if (o.json)
    printf("%s]\n}\n", count ? "\n  " : "");
  if (count == 0)
    fprintf(stderr, "hipinfo: no HIP device found (no GPU, or run under kfdsim: kfdsim -- hipinfo)\n");
  return status;
}
