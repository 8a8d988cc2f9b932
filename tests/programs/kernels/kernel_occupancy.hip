// hipFuncGetAttributes / hipFuncSetAttribute and the occupancy calculator: sane values that are
// consistent with each other and with the device limits.
#include <hip/hip_runtime.h>
#include "../check.h"

__global__ void small_kernel(int *p)
{
  p[blockIdx.x * blockDim.x + threadIdx.x] = threadIdx.x;
}

__global__ void lds_kernel(int *p)
{
  __shared__ int tile[4096];   // 16 KiB of static LDS
  tile[threadIdx.x] = threadIdx.x;
  __syncthreads();
  p[threadIdx.x] = tile[(threadIdx.x + 1) % blockDim.x];
}

int main()
{
  int max_threads = 0, cus = 0, lds = 0;
  CHECK_HIP(hipDeviceGetAttribute(&max_threads, hipDeviceAttributeMaxThreadsPerBlock, 0));
  CHECK_HIP(hipDeviceGetAttribute(&cus, hipDeviceAttributeMultiprocessorCount, 0));
  CHECK_HIP(hipDeviceGetAttribute(&lds, hipDeviceAttributeMaxSharedMemoryPerBlock, 0));
  CHECK(max_threads == 1024 && cus > 0 && lds > 0);

  hipFuncAttributes a;
  CHECK_HIP(hipFuncGetAttributes(&a, (const void *)small_kernel));
  CHECK(a.maxThreadsPerBlock > 0 && a.maxThreadsPerBlock <= max_threads);
  CHECK(a.sharedSizeBytes == 0);
  CHECK(a.numRegs > 0);
  hipFuncAttributes b;
  CHECK_HIP(hipFuncGetAttributes(&b, (const void *)lds_kernel));
  CHECK(b.sharedSizeBytes == 4096 * sizeof(int));
  CHECK(b.maxDynamicSharedSizeBytes >= 0);

  // Not a kernel.
  int not_a_kernel;
  CHECK(hipFuncGetAttributes(&a, (const void *)&not_a_kernel) != hipSuccess);
  (void)hipGetLastError();

  // hipFuncSetAttribute accepts the dynamic LDS limit and the carveout hint.
  CHECK_HIP(hipFuncSetAttribute((const void *)small_kernel,
                                hipFuncAttributeMaxDynamicSharedMemorySize, 1024));
  CHECK_HIP(hipFuncSetAttribute((const void *)small_kernel,
                                hipFuncAttributePreferredSharedMemoryCarveout, 50));

  // Occupancy: blocks per CU shrink (weakly) as blocks grow and as LDS grows.
  int prev = 1 << 30;
  for (int bs = 64; bs <= 1024; bs *= 2) {
    int blocks = -1;
    CHECK_HIP(hipOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, small_kernel, bs, 0));
    CHECK(blocks >= 1 && blocks <= prev);
    // A CU holds at most 4 SIMDs x 10 wave64 slots = 2560 threads.
    CHECK(blocks * bs <= 2560);
    prev = blocks;
  }
  int b_small = 0, b_lds = 0, b_dyn = 0;
  CHECK_HIP(hipOccupancyMaxActiveBlocksPerMultiprocessor(&b_small, small_kernel, 64, 0));
  CHECK_HIP(hipOccupancyMaxActiveBlocksPerMultiprocessor(&b_lds, lds_kernel, 64, 0));
  CHECK_HIP(hipOccupancyMaxActiveBlocksPerMultiprocessor(&b_dyn, small_kernel, 64, 32 * 1024));
  CHECK(b_lds >= 1 && b_lds <= b_small);
  CHECK(b_lds <= 65536 / (int)b.sharedSizeBytes);
  CHECK(b_dyn >= 1 && b_dyn <= 2);   // 32 KiB dynamic LDS each out of 64 KiB
  int b_flags = 0;
  CHECK_HIP(hipOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&b_flags, small_kernel, 64, 0,
                                                                  hipOccupancyDefault));
  CHECK(b_flags == b_small);
  EXPECT_HIP(hipOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&b_flags, small_kernel, 64, 0,
                                                                   0xffff),
             hipErrorInvalidValue);

  int grid = 0, block = 0;
  CHECK_HIP(hipOccupancyMaxPotentialBlockSize(&grid, &block, small_kernel, 0, 0));
  CHECK(block >= 64 && block <= max_threads && block % 64 == 0);
  int per_cu = 0;
  CHECK_HIP(hipOccupancyMaxActiveBlocksPerMultiprocessor(&per_cu, small_kernel, block, 0));
  CHECK(grid == per_cu * cus);
  // A limit on the block size is honoured.
  CHECK_HIP(hipOccupancyMaxPotentialBlockSize(&grid, &block, small_kernel, 0, 128));
  CHECK(block >= 1 && block <= 128);

  // Bad arguments.
  CHECK(hipOccupancyMaxActiveBlocksPerMultiprocessor(&per_cu, small_kernel, 0, 0) != hipSuccess);
  (void)hipGetLastError();
  // A block larger than the kernel allows: an error, or zero resident blocks.
  per_cu = -1;
  if (hipOccupancyMaxActiveBlocksPerMultiprocessor(&per_cu, small_kernel, 2048, 0) == hipSuccess)
    CHECK(per_cu == 0);
  (void)hipGetLastError();

  // The suggested configuration runs.
  int *d;
  CHECK_HIP(hipMalloc(&d, (size_t)block * 2 * sizeof(int)));
  hipLaunchKernelGGL(small_kernel, dim3(2), dim3(block), 0, 0, d);
  CHECK_HIP(hipGetLastError());
  int *h = (int *)malloc((size_t)block * 2 * sizeof(int));
  CHECK_HIP(hipMemcpy(h, d, (size_t)block * 2 * sizeof(int), hipMemcpyDeviceToHost));
  for (int i = 0; i < block * 2; i++)
    CHECK(h[i] == i % block);
  free(h);
  CHECK_HIP(hipFree(d));
  printf("PASSED\n");
  return 0;
}
