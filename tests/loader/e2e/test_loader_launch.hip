// End-to-end launches on kfdsim: argument layout, hidden arguments, dynamic LDS, launch errors,
// function attributes and occupancy. Built by clang-19 with our headers; one Criterion test per
// feature (each runs in its own process).
#include <criterion/criterion.h>
#include <hip/hip_runtime.h>
#include <hip/hip_cooperative_groups.h>

#include <cstring>

#define HIP_OK(expr) cr_assert_eq((expr), hipSuccess, "%s", #expr)

struct Mixed {
  int a;
  double b;
  char c;
};

__device__ int dev_table[8];
__managed__ int managed_counter = 5;

__global__ void bump_managed() { atomicAdd(&managed_counter, 1); }

__global__ void many_args(Mixed s, int *out, double d, char c, float f, long l, short h,
                          unsigned long long u, const int *in)
{
  if (threadIdx.x != 0 || blockIdx.x != 0)
    return;
  out[0] = s.a;
  out[1] = (int)(s.b * 1000.0);
  out[2] = s.c;
  out[3] = (int)(d * 1000.0);
  out[4] = c;
  out[5] = (int)(f * 100.0f);
  out[6] = (int)(l >> 32);
  out[7] = (int)(l & 0xffffffff);
  out[8] = h;
  out[9] = (int)(u >> 40);
  out[10] = in[0] + in[1];
  out[11] = dev_table[3];
}

// Every work-item writes what it sees of the launch geometry.
__global__ void geometry(unsigned *out)
{
  unsigned tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  unsigned bid = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  unsigned *o = out + 8 * (bid * blockDim.x * blockDim.y * blockDim.z + tid);
  o[0] = blockDim.x;
  o[1] = blockDim.y;
  o[2] = blockDim.z;
  o[3] = gridDim.x;
  o[4] = gridDim.y;
  o[5] = gridDim.z;
  o[6] = tid;
  o[7] = bid;
}

__global__ void reverse_dyn(int *out)
{
  extern __shared__ int sh[];
  unsigned t = threadIdx.x;
  sh[t] = (int)t * 3;
  __syncthreads();
  out[t] = sh[blockDim.x - 1 - t];
}

__global__ void __launch_bounds__(256) bounded(int *out)
{
  __shared__ int tile[4096];
  tile[threadIdx.x] = threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = tile[255 - threadIdx.x];
}

__global__ void tiny(int *out) { out[threadIdx.x] = 1; }

// Every block writes, the whole grid meets at grid.sync(), then each reads another block's data.
__global__ void grid_exchange(int *buf, int *out, int *valid)
{
  cooperative_groups::grid_group g = cooperative_groups::this_grid();
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x, n = gridDim.x * blockDim.x;
  if (i == 0)
    *valid = g.is_valid();
  buf[i] = (int)i * 7;
  g.sync();
  out[i] = buf[(i + blockDim.x) % n];
}

Test(launch, argument_layout)
{
  int *out, *in;
  int host_in[2] = {40, 2}, table[8] = {0, 0, 0, 77, 0, 0, 0, 0};
  HIP_OK(hipMalloc(&out, 16 * sizeof(int)));
  HIP_OK(hipMalloc(&in, sizeof(host_in)));
  HIP_OK(hipMemcpy(in, host_in, sizeof(host_in), hipMemcpyHostToDevice));
  HIP_OK(hipMemcpyToSymbol(HIP_SYMBOL(dev_table), table, sizeof(table)));
  Mixed s = {-12345, 2.5, 'z'};
  many_args<<<1, 64>>>(s, out, 3.25, 'q', 1.5f, 0x1234567890abcdefL, (short)-7,
                       0xfedcba9876543210ull, in);
  HIP_OK(hipGetLastError());
  HIP_OK(hipDeviceSynchronize());
  int r[16];
  HIP_OK(hipMemcpy(r, out, sizeof(r), hipMemcpyDeviceToHost));
  cr_assert_eq(r[0], -12345);
  cr_assert_eq(r[1], 2500);
  cr_assert_eq(r[2], 'z');
  cr_assert_eq(r[3], 3250);
  cr_assert_eq(r[4], 'q');
  cr_assert_eq(r[5], 150);
  cr_assert_eq(r[6], 0x12345678);
  cr_assert_eq(r[7], (int)0x90abcdef);
  cr_assert_eq(r[8], -7);
  cr_assert_eq(r[9], 0xfedcba);
  cr_assert_eq(r[10], 42);
  cr_assert_eq(r[11], 77);
  HIP_OK(hipFree(out));
  HIP_OK(hipFree(in));
}

Test(launch, hidden_geometry_args)
{
  const dim3 grid(3, 2, 2), block(4, 2, 2);
  const unsigned items = 12 * 16;
  unsigned *out;
  HIP_OK(hipMalloc(&out, items * 8 * sizeof(unsigned)));
  HIP_OK(hipMemset(out, 0xff, items * 8 * sizeof(unsigned)));
  void *args[] = {&out};
  HIP_OK(hipLaunchKernel((const void *)geometry, grid, block, args, 0, nullptr));
  HIP_OK(hipDeviceSynchronize());
  unsigned *h = new unsigned[items * 8];
  HIP_OK(hipMemcpy(h, out, items * 8 * sizeof(unsigned), hipMemcpyDeviceToHost));
  for (unsigned i = 0; i < items; i++) {
    const unsigned *o = h + 8 * i;
    cr_assert_eq(o[0], 4u, "item %u", i);
    cr_assert_eq(o[1], 2u);
    cr_assert_eq(o[2], 2u);
    cr_assert_eq(o[3], 3u);
    cr_assert_eq(o[4], 2u);
    cr_assert_eq(o[5], 2u);
    cr_assert_eq(o[6], i % 16);
    cr_assert_eq(o[7], i / 16);
  }
  delete[] h;
  HIP_OK(hipFree(out));
}

Test(launch, dynamic_lds)
{
  int *out;
  HIP_OK(hipMalloc(&out, 128 * sizeof(int)));
  reverse_dyn<<<1, 128, 128 * sizeof(int)>>>(out);
  HIP_OK(hipGetLastError());
  HIP_OK(hipDeviceSynchronize());
  int r[128];
  HIP_OK(hipMemcpy(r, out, sizeof(r), hipMemcpyDeviceToHost));
  for (int i = 0; i < 128; i++)
    cr_assert_eq(r[i], (127 - i) * 3, "r[%d] = %d", i, r[i]);
  HIP_OK(hipFree(out));
}

Test(launch, configuration_errors)
{
  int *out;
  HIP_OK(hipMalloc(&out, 4096));
  void *args[] = {&out};
  cr_assert_eq(hipLaunchKernel((const void *)&out, dim3(1), dim3(1), args, 0, nullptr),
               hipErrorInvalidDeviceFunction);
  cr_assert_eq(hipLaunchKernel((const void *)tiny, dim3(1), dim3(2048), args, 0, nullptr),
               hipErrorInvalidConfiguration);
  cr_assert_eq(hipLaunchKernel((const void *)tiny, dim3(0), dim3(64), args, 0, nullptr),
               hipErrorInvalidConfiguration);
  cr_assert_eq(hipLaunchKernel((const void *)tiny, dim3(1), dim3(64, 0), args, 0, nullptr),
               hipErrorInvalidConfiguration);
  cr_assert_eq(hipLaunchKernel((const void *)tiny, dim3(1), dim3(64), args, 1 << 20, nullptr),
               hipErrorInvalidValue);
  cr_assert_eq(hipLaunchKernel((const void *)tiny, dim3(1), dim3(64), nullptr, 0, nullptr),
               hipErrorInvalidValue);
  // Beyond the kernel's launch bounds (256): AMD's runtime answers hipErrorLaunchFailure.
  cr_assert_eq(hipLaunchKernel((const void *)bounded, dim3(1), dim3(512), args, 0, nullptr),
               hipErrorLaunchFailure);
  // The errors left the device usable.
  HIP_OK(hipLaunchKernel((const void *)tiny, dim3(1), dim3(64), args, 0, nullptr));
  HIP_OK(hipDeviceSynchronize());
  HIP_OK(hipFree(out));
}

// The same checks once each kernel has launched (its launch plan is cached and a launch that
// fits the plan skips the kernel's metadata): every configuration that does not fit still gets
// the full checks and their exact errors.
Test(launch, configuration_errors_after_launch)
{
  int *out;
  HIP_OK(hipMalloc(&out, 4096));
  void *args[] = {&out};
  HIP_OK(hipLaunchKernel((const void *)tiny, dim3(1), dim3(64), args, 0, nullptr));
  HIP_OK(hipLaunchKernel((const void *)bounded, dim3(1), dim3(256), args, 0, nullptr));
  HIP_OK(hipDeviceSynchronize());
  cr_assert_eq(hipLaunchKernel((const void *)tiny, dim3(1), dim3(2048), args, 0, nullptr),
               hipErrorInvalidConfiguration);
  cr_assert_eq(hipLaunchKernel((const void *)tiny, dim3(0), dim3(64), args, 0, nullptr),
               hipErrorInvalidConfiguration);
  cr_assert_eq(hipLaunchKernel((const void *)tiny, dim3(1), dim3(64, 1, 0), args, 0, nullptr),
               hipErrorInvalidConfiguration);
  // 2^23 blocks of 1024: more than 2^32 work-items in x.
  cr_assert_eq(hipLaunchKernel((const void *)tiny, dim3(1u << 23), dim3(1024), args, 0, nullptr),
               hipErrorInvalidConfiguration);
  cr_assert_eq(hipLaunchKernel((const void *)tiny, dim3(1), dim3(64), nullptr, 0, nullptr),
               hipErrorInvalidValue);
  cr_assert_eq(hipLaunchKernel((const void *)bounded, dim3(1), dim3(512), args, 0, nullptr),
               hipErrorLaunchFailure);
  // bounded has 16 KiB of LDS of its own: 48 KiB more fit in 64, one more word does not.
  int lds = 0;
  HIP_OK(hipDeviceGetAttribute(&lds, hipDeviceAttributeMaxSharedMemoryPerBlock, 0));
  size_t room = (size_t)lds - 4096 * sizeof(int);
  HIP_OK(hipLaunchKernel((const void *)bounded, dim3(1), dim3(256), args, room, nullptr));
  cr_assert_eq(hipLaunchKernel((const void *)bounded, dim3(1), dim3(256), args, room + 4, nullptr),
               hipErrorInvalidValue);
  // A different geometry after the errors computes the right answer.
  HIP_OK(hipMemset(out, 0, 4096));
  HIP_OK(hipLaunchKernel((const void *)tiny, dim3(1), dim3(100), args, 0, nullptr));
  HIP_OK(hipDeviceSynchronize());
  int r[128];
  HIP_OK(hipMemcpy(r, out, sizeof(r), hipMemcpyDeviceToHost));
  for (int i = 0; i < 128; i++)
    cr_assert_eq(r[i], i < 100 ? 1 : 0, "r[%d] = %d", i, r[i]);
  HIP_OK(hipFree(out));
}

Test(launch, function_attributes)
{
  hipFuncAttributes a;
  HIP_OK(hipFuncGetAttributes(&a, (const void *)bounded));
  cr_assert_eq(a.maxThreadsPerBlock, 256);
  cr_assert_eq(a.sharedSizeBytes, 4096 * sizeof(int));
  cr_assert_eq(a.maxDynamicSharedSizeBytes, 65536 - 4096 * (int)sizeof(int));
  cr_assert(a.numRegs > 0);
  HIP_OK(hipFuncGetAttributes(&a, (const void *)tiny));
  cr_assert_eq(a.maxThreadsPerBlock, 1024);
  cr_assert_eq(a.sharedSizeBytes, 0u);
  cr_assert_eq(hipFuncGetAttributes(&a, (const void *)&a), hipErrorInvalidDeviceFunction);
  cr_assert_eq(hipFuncGetAttributes(nullptr, (const void *)tiny), hipErrorInvalidValue);
  HIP_OK(hipFuncSetCacheConfig((const void *)tiny, hipFuncCachePreferL1));
  HIP_OK(hipFuncSetSharedMemConfig((const void *)tiny, hipSharedMemBankSizeFourByte));
  HIP_OK(hipFuncSetAttribute((const void *)tiny, hipFuncAttributeMaxDynamicSharedMemorySize, 1024));
  cr_assert_eq(hipFuncSetAttribute((const void *)tiny, hipFuncAttributeMaxDynamicSharedMemorySize,
                                   1 << 20), hipErrorInvalidValue);
}

Test(launch, occupancy)
{
  int blocks = -1, grid = -1, block = -1, cus = 0;
  HIP_OK(hipDeviceGetAttribute(&cus, hipDeviceAttributeMultiprocessorCount, 0));
  // bounded: 16 KiB of static LDS per block, 64 KiB per CU -> 4 blocks, whatever the registers.
  HIP_OK(hipOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, (const void *)bounded, 256, 0));
  cr_assert_eq(blocks, 4);
  // 16 KiB static + 16 KiB dynamic -> 2.
  HIP_OK(hipOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, (const void *)bounded, 256, 16384));
  cr_assert_eq(blocks, 2);
  // tiny: few registers, so the wave limit decides: 4 SIMDs x 8 waves x 64 lanes = 2048 threads.
  HIP_OK(hipOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, (const void *)tiny, 1024, 0));
  cr_assert_eq(blocks, 2);
  HIP_OK(hipOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, (const void *)tiny, 65, 0));
  cr_assert_eq(blocks, 2048 / 128);
  HIP_OK(hipOccupancyMaxPotentialBlockSize(&grid, &block, (const void *)tiny, 0, 0));
  cr_assert_eq(block, 1024);
  cr_assert_eq(grid, 2 * cus);
  HIP_OK(hipOccupancyMaxPotentialBlockSize(&grid, &block, (const void *)bounded, 0, 0));
  cr_assert_eq(block, 256);
  cr_assert_eq(grid, 4 * cus);
  cr_assert_eq(hipOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, (const void *)tiny, 0, 0),
               hipErrorInvalidValue);
  cr_assert_eq(hipOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, (const void *)&blocks, 64, 0),
               hipErrorInvalidDeviceFunction);
}

Test(launch, cooperative_limit)
{
  int *out, blocks = 0, cus = 0;
  HIP_OK(hipMalloc(&out, 4096));
  HIP_OK(hipDeviceGetAttribute(&cus, hipDeviceAttributeMultiprocessorCount, 0));
  HIP_OK(hipOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, (const void *)bounded, 256, 0));
  void *args[] = {&out};
  cr_assert_eq(hipLaunchCooperativeKernel((const void *)bounded, dim3(blocks * cus + 1), dim3(256),
                                          args, 0, nullptr),
               hipErrorCooperativeLaunchTooLarge);
  HIP_OK(hipLaunchCooperativeKernel((const void *)bounded, dim3(1), dim3(256), args, 0, nullptr));
  HIP_OK(hipDeviceSynchronize());
  int r[256];
  HIP_OK(hipMemcpy(r, out, sizeof(r), hipMemcpyDeviceToHost));
  cr_assert_eq(r[0], 255);
  cr_assert_eq(r[255], 0);
  HIP_OK(hipFree(out));
}

Test(launch, cooperative_grid_sync)
{
  const int n = 8 * 64;
  int *buf, *out, *valid, h[8 * 64], hv = -1;
  HIP_OK(hipMalloc(&buf, sizeof(h)));
  HIP_OK(hipMalloc(&out, sizeof(h)));
  HIP_OK(hipMalloc(&valid, sizeof(int)));
  void *args[] = {&buf, &out, &valid};
  HIP_OK(hipLaunchCooperativeKernel((const void *)grid_exchange, dim3(8), dim3(64), args, 0, nullptr));
  HIP_OK(hipDeviceSynchronize());
  HIP_OK(hipMemcpy(h, out, sizeof(h), hipMemcpyDeviceToHost));
  HIP_OK(hipMemcpy(&hv, valid, sizeof(int), hipMemcpyDeviceToHost));
  cr_assert_eq(hv, 1, "grid_group::is_valid() needs hidden_multigrid_sync_arg");
  for (int i = 0; i < n; i++)
    cr_assert_eq(h[i], ((i + 64) % n) * 7, "out[%d] = %d", i, h[i]);
  // A normal launch of the same kernel: no multigrid argument, so is_valid() is false.
  int *out2;
  HIP_OK(hipMalloc(&out2, sizeof(h)));
  void *args2[] = {&buf, &out2, &valid};
  HIP_OK(hipLaunchKernel((const void *)grid_exchange, dim3(1), dim3(64), args2, 0, nullptr));
  HIP_OK(hipDeviceSynchronize());
  HIP_OK(hipMemcpy(&hv, valid, sizeof(int), hipMemcpyDeviceToHost));
  cr_assert_eq(hv, 0);
  HIP_OK(hipFree(buf));
  HIP_OK(hipFree(out));
  HIP_OK(hipFree(out2));
  HIP_OK(hipFree(valid));
}

Test(launch, legacy_configure_setup_launch)
{
  int *out, r[64];
  HIP_OK(hipMalloc(&out, sizeof(r)));
  HIP_OK(hipMemset(out, 0, sizeof(r)));
  HIP_OK(hipConfigureCall(dim3(1), dim3(64), 0, nullptr));
  HIP_OK(hipSetupArgument(&out, sizeof(out), 0));
  HIP_OK(hipLaunchByPtr((const void *)tiny));
  HIP_OK(hipDeviceSynchronize());
  HIP_OK(hipMemcpy(r, out, sizeof(r), hipMemcpyDeviceToHost));
  for (int i = 0; i < 64; i++)
    cr_assert_eq(r[i], 1);
  cr_assert_eq(hipLaunchByPtr((const void *)tiny), hipErrorInvalidConfiguration, "no configuration pushed");
  HIP_OK(hipFree(out));
}

Test(launch, managed_variable)
{
  cr_assert_eq(managed_counter, 5, "the host sees the initial value before any launch");
  bump_managed<<<2, 64>>>();
  HIP_OK(hipDeviceSynchronize());
  cr_assert_eq(managed_counter, 5 + 128);
  managed_counter = 1000;
  bump_managed<<<1, 1>>>();
  HIP_OK(hipDeviceSynchronize());
  cr_assert_eq(managed_counter, 1001);
}

Test(launch, launch_kernel_ex)
{
  int *out;
  HIP_OK(hipMalloc(&out, 128 * sizeof(int)));
  hipLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(1);
  cfg.blockDim = dim3(128);
  cfg.dynamicSmemBytes = 128 * sizeof(int);
  void *args[] = {&out};
  HIP_OK(hipLaunchKernelExC(&cfg, (const void *)reverse_dyn, args));
  HIP_OK(hipDeviceSynchronize());
  int r[128];
  HIP_OK(hipMemcpy(r, out, sizeof(r), hipMemcpyDeviceToHost));
  cr_assert_eq(r[0], 127 * 3);
  HIP_OK(hipFree(out));
}
