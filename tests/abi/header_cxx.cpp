// hip_runtime_api.h must compile alone as C++ and give the C++ conveniences (typed allocation,
// default arguments, kernel-pointer templates, hipLaunchKernelEx).
#include <hip/hip_runtime_api.h>

static void kernel(int, float*) {}

int main() {
  float* p = nullptr;
  (void)hipMalloc(&p, 64);
  (void)hipMemcpyAsync(p, p, 4, hipMemcpyDefault);
  (void)hipEventRecord(nullptr);
  hipLaunchConfig_t cfg{};
  (void)hipLaunchKernelEx(&cfg, kernel, 1, p);
  int grid = 0, block = 0;
  (void)hipOccupancyMaxPotentialBlockSize(&grid, &block, kernel);
  (void)hipOccupancyMaxPotentialBlockSizeVariableSMem(&grid, &block, kernel,
                                                      [](int n) { return static_cast<size_t>(n) * 4; });
  dim3 d(4);
  static_assert(sizeof(hipDeviceProp_t) > sizeof(hipDeviceProp_tR0000), "R0600 is the larger layout");
  return d.y == 1 ? 0 : 1;
}
