// Cooperative launch: hipLaunchCooperativeKernel with a grid-wide barrier (this_grid().sync())
// between two phases that read each other's blocks' results; a grid larger than can be resident
// at once is refused with hipErrorCooperativeLaunchTooLarge.
#include <hip/hip_runtime.h>
#include <hip/hip_cooperative_groups.h>
#include "../check.h"

namespace cg = cooperative_groups;

// Phase 1: every block writes its slice. Phase 2 (after the grid barrier): every block reads the
// slice of the next block, which another workgroup wrote.
__global__ void two_phase(int *a, int *b, int n_per_block)
{
  cg::grid_group grid = cg::this_grid();
  int base = blockIdx.x * n_per_block;
  for (int i = threadIdx.x; i < n_per_block; i += blockDim.x)
    a[base + i] = (blockIdx.x + 1) * 1000 + i;
  grid.sync();
  int next = ((blockIdx.x + 1) % gridDim.x) * n_per_block;
  for (int i = threadIdx.x; i < n_per_block; i += blockDim.x)
    b[base + i] = a[next + i] + 1;
}

int main()
{
  int coop = 0;
  CHECK_HIP(hipDeviceGetAttribute(&coop, hipDeviceAttributeCooperativeLaunch, 0));
  CHECK(coop == 1);

  const int blocks = 4, threads = 64, per = 32;
  int *a, *b;
  CHECK_HIP(hipMalloc(&a, blocks * per * sizeof(int)));
  CHECK_HIP(hipMalloc(&b, blocks * per * sizeof(int)));
  CHECK_HIP(hipMemset(a, 0, blocks * per * sizeof(int)));
  int n = per;
  void *args[] = {&a, &b, &n};
  CHECK_HIP(hipLaunchCooperativeKernel((const void *)two_phase, dim3(blocks), dim3(threads), args,
                                       0, 0));
  CHECK_HIP(hipDeviceSynchronize());
  int h[blocks * per];
  CHECK_HIP(hipMemcpy(h, b, sizeof(h), hipMemcpyDeviceToHost));
  for (int blk = 0; blk < blocks; blk++)
    for (int i = 0; i < per; i++) {
      int want = (((blk + 1) % blocks) + 1) * 1000 + i + 1;
      if (h[blk * per + i] != want) {
        fprintf(stderr, "b[%d][%d] = %d, want %d\n", blk, i, h[blk * per + i], want);
        return 1;
      }
    }

  // Far more blocks than the device can hold at once cannot be cooperative.
  int per_cu = 0, cus = 0;
  CHECK_HIP(hipOccupancyMaxActiveBlocksPerMultiprocessor(&per_cu, two_phase, 1024, 0));
  CHECK_HIP(hipDeviceGetAttribute(&cus, hipDeviceAttributeMultiprocessorCount, 0));
  CHECK(per_cu >= 1);
  unsigned too_many = (unsigned)(per_cu * cus) * 4 + 1;
  hipError_t e = hipLaunchCooperativeKernel((const void *)two_phase, dim3(too_many), dim3(1024),
                                            args, 0, 0);
  EXPECT_HIP(e, hipErrorCooperativeLaunchTooLarge);
  (void)hipGetLastError();
  CHECK_HIP(hipDeviceSynchronize());
  CHECK_HIP(hipFree(a));
  CHECK_HIP(hipFree(b));
  printf("PASSED\n");
  return 0;
}
