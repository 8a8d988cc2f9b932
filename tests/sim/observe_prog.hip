// The program test_kfdsim_observe.c runs under the kfdsim launcher to check --stats,
// --progress and --timeout. One mode per run:
//   observe_prog straight N   N launches of obs_straight (16 waves, straight-line code)
//   observe_prog long MS      one dispatch of 8 workgroups, each spinning MS ms of wall time
//   observe_prog hang         one dispatch that never ends, then hipDeviceSynchronize
// It prints what it saw on stdout ("sync=<code>", "PASSED") for the test to assert.
#include <hip/hip_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#define OBS_BLOCKS 4
#define OBS_THREADS 256

// No branch at all at -O3 (the test checks the disassembly): every wave executes each
// instruction exactly once, so the instruction count is known from the code object.
extern "C" __global__ void obs_straight(int *out) {
  int i = blockIdx.x * OBS_THREADS + threadIdx.x;
  out[i] = i * 3 + 1;
}

// Spins `ticks` of the shader clock (clock64(): s_memtime, counting at the device's clock rate).
__global__ void obs_long(unsigned long long ticks, int *out) {
  unsigned long long start = clock64();
  while (clock64() - start < ticks) {
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = 1;
}

__global__ void obs_spin(volatile int *flag) {
  while (*flag == 0) {
  }
}

static int run_straight(int launches) {
  const int n = OBS_BLOCKS * OBS_THREADS;
  int *d = nullptr;
  if (hipMalloc(&d, n * sizeof(int)) != hipSuccess)
    return 1;
  for (int l = 0; l < launches; l++)
    obs_straight<<<OBS_BLOCKS, OBS_THREADS>>>(d);
  static int h[OBS_BLOCKS * OBS_THREADS];
  if (hipMemcpy(h, d, sizeof(h), hipMemcpyDeviceToHost) != hipSuccess)
    return 1;
  for (int i = 0; i < n; i++)
    if (h[i] != i * 3 + 1) {
      std::printf("straight: out[%d] = %d\n", i, h[i]);
      return 1;
    }
  return hipFree(d) != hipSuccess;
}

static int run_long(long ms) {
  int *d = nullptr;
  if (hipMalloc(&d, 8 * 64 * sizeof(int)) != hipSuccess)
    return 1;
  int khz = 0;
  if (hipDeviceGetAttribute(&khz, hipDeviceAttributeClockRate, 0) != hipSuccess || khz <= 0)
    return 1;
  obs_long<<<8, 64>>>((unsigned long long)ms * (unsigned long long)khz, d);
  return hipDeviceSynchronize() != hipSuccess;
}

static int run_hang() {
  int *flag = nullptr;
  if (hipMalloc(&flag, sizeof(int)) != hipSuccess || hipMemset(flag, 0, sizeof(int)) != hipSuccess)
    return 1;
  obs_spin<<<2, 64>>>(flag);
  hipError_t e = hipDeviceSynchronize();
  std::printf("sync=%d %s\n", (int)e, hipGetErrorName(e));
  // The error is sticky: later work is refused with it.
  void *p = nullptr;
  hipError_t m = hipMalloc(&p, 64);
  std::printf("after=%d\n", (int)m);
  std::fflush(stdout);
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: observe_prog straight N | long MS | hang\n");
    return 2;
  }
  int rc;
  if (!std::strcmp(argv[1], "straight") && argc == 3)
    rc = run_straight(std::atoi(argv[2]));
  else if (!std::strcmp(argv[1], "long") && argc == 3)
    rc = run_long(std::atol(argv[2]));
  else if (!std::strcmp(argv[1], "hang"))
    rc = run_hang();
  else
    rc = 2;
  std::printf("%s\n", rc ? "FAILED" : "PASSED");
  return rc;
}
