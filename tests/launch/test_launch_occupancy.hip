// Occupancy searches with a block-size-dependent LDS size (the exported C symbols and the header
// templates), the cluster queries (no clusters on gfx942: clr's answers), and the profiling name
// lookups hipApiName / hipGetCmdName.
#include <criterion/criterion.h>
#include <hip/hip_runtime.h>

#include <cstring>
#include <dlfcn.h>

#define HIP_OK(expr) cr_assert_eq((expr), hipSuccess, "%s", #expr)

extern "C" const char *hipGetCmdName(uint32_t op);

__global__ void copy_kernel(int *out, const int *in) { out[threadIdx.x] = in[threadIdx.x]; }

__global__ void lds_kernel(int *out)
{
  __shared__ int tile[4096]; // 16 KiB of static LDS
  tile[threadIdx.x] = (int)threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = tile[(threadIdx.x + 1) % blockDim.x];
}

typedef size_t (*smem_fn)(int);
typedef hipError_t (*vsmem_flags_fn)(int *, int *, const void *, smem_fn, int, unsigned);
typedef hipError_t (*vsmem_fn)(int *, int *, const void *, smem_fn, int);

static size_t no_smem(int) { return 0; }
static size_t smem_64k(int) { return 64 * 1024; }     // one block per CU whatever its size
static size_t smem_per_thread(int bs) { return (size_t)bs * 64; } // 1024 threads' worth per CU

static vsmem_flags_fn c_vsmem_flags()
{
  void *p = dlsym(RTLD_DEFAULT, "hipOccupancyMaxPotentialBlockSizeVariableSMemWithFlags");
  cr_assert_not_null(p);
  return (vsmem_flags_fn)p;
}

static int cu_count()
{
  int cus = 0;
  HIP_OK(hipDeviceGetAttribute(&cus, hipDeviceAttributeMultiprocessorCount, 0));
  cr_assert_gt(cus, 0);
  return cus;
}

Test(variable_smem, c_symbol_matches_template_search)
{
  vsmem_flags_fn c_fn = c_vsmem_flags();
  smem_fn fns[] = {no_smem, smem_64k, smem_per_thread};
  for (smem_fn f : fns) {
    int grid_c = -1, block_c = -1, grid_t = -2, block_t = -2;
    HIP_OK(c_fn(&grid_c, &block_c, (const void *)copy_kernel, f, 0, hipOccupancyDefault));
    HIP_OK(hipOccupancyMaxPotentialBlockSizeVariableSMemWithFlags(&grid_t, &block_t, copy_kernel, f, 0,
                                                                   hipOccupancyDefault));
    cr_assert_eq(grid_c, grid_t);
    cr_assert_eq(block_c, block_t);
  }
}

Test(variable_smem, lds_bound_search_values)
{
  vsmem_flags_fn c_fn = c_vsmem_flags();
  const int cus = cu_count();
  int grid = 0, block = 0;
  // 64 KiB per block: one block per CU at every size, so the largest block wins.
  HIP_OK(c_fn(&grid, &block, (const void *)copy_kernel, smem_64k, 0, 0));
  cr_assert_eq(block, 1024);
  cr_assert_eq(grid, cus);
  // A 256-thread limit with no LDS: the limit itself, 2048 threads per CU -> 8 blocks per CU.
  HIP_OK(c_fn(&grid, &block, (const void *)copy_kernel, no_smem, 256, 0));
  cr_assert_eq(block, 256);
  int per_cu = 0;
  HIP_OK(hipOccupancyMaxActiveBlocksPerMultiprocessor(&per_cu, copy_kernel, 256, 0));
  cr_assert_eq(grid, per_cu * cus);
  // The variant without flags is the same search.
  vsmem_fn plain = (vsmem_fn)dlsym(RTLD_DEFAULT, "hipOccupancyMaxPotentialBlockSizeVariableSMem");
  cr_assert_not_null((void *)plain);
  int grid2 = 0, block2 = 0;
  HIP_OK(plain(&grid2, &block2, (const void *)copy_kernel, no_smem, 256));
  cr_assert_eq(grid2, grid);
  cr_assert_eq(block2, block);
}

Test(variable_smem, bad_arguments)
{
  vsmem_flags_fn c_fn = c_vsmem_flags();
  int grid = 0, block = 0;
  cr_assert_eq(c_fn(nullptr, &block, (const void *)copy_kernel, no_smem, 0, 0), hipErrorInvalidValue);
  cr_assert_eq(c_fn(&grid, nullptr, (const void *)copy_kernel, no_smem, 0, 0), hipErrorInvalidValue);
  cr_assert_eq(c_fn(&grid, &block, nullptr, no_smem, 0, 0), hipErrorInvalidValue);
  cr_assert_eq(c_fn(&grid, &block, (const void *)copy_kernel, nullptr, 0, 0), hipErrorInvalidValue);
  cr_assert_eq(c_fn(&grid, &block, (const void *)copy_kernel, no_smem, -1, 0), hipErrorInvalidValue);
  cr_assert_eq(c_fn(&grid, &block, (const void *)copy_kernel, no_smem, 0, 0xffff), hipErrorInvalidValue);
  cr_assert_eq(c_fn(&grid, &block, (const void *)&grid, no_smem, 0, 0), hipErrorInvalidDeviceFunction);
  // The header template validates the same way (flags through the per-size query).
  cr_assert_eq(hipOccupancyMaxPotentialBlockSizeVariableSMemWithFlags(&grid, &block, copy_kernel, no_smem, 0, 2u),
               hipErrorInvalidValue);
}

static hipLaunchConfig_t cluster_config(size_t dyn_lds)
{
  static hipLaunchAttribute attr;
  attr.id = hipLaunchAttributeClusterDimension;
  attr.val.clusterDim.x = 2;
  attr.val.clusterDim.y = 1;
  attr.val.clusterDim.z = 1;
  hipLaunchConfig_t c;
  memset(&c, 0, sizeof(c));
  c.gridDim = dim3(16);
  c.blockDim = dim3(128);
  c.dynamicSmemBytes = dyn_lds;
  c.attrs = &attr;
  c.numAttrs = 1;
  return c;
}

Test(clusters, none_on_gfx942)
{
  hipLaunchConfig_t c = cluster_config(0);
  int n = -1;
  cr_assert_eq(hipOccupancyMaxActiveClusters(&n, (const void *)copy_kernel, &c), hipErrorInvalidClusterSize);
  cr_assert_eq(n, 0);
  n = -1;
  cr_assert_eq(hipOccupancyMaxPotentialClusterSize(&n, (const void *)copy_kernel, &c), hipErrorInvalidClusterSize);
  cr_assert_eq(n, 0);
  // The error is sticky-free: the next call succeeds and clears it.
  cr_assert_eq(hipGetLastError(), hipErrorInvalidClusterSize);
  cr_assert_eq(hipGetLastError(), hipSuccess);
}

Test(clusters, lds_overflow_gives_size_zero)
{
  int lds = 0;
  HIP_OK(hipDeviceGetAttribute(&lds, hipDeviceAttributeMaxSharedMemoryPerMultiprocessor, 0));
  // static 16 KiB + dynamic (CU LDS - 8 KiB) exceeds the CU: clr answers success, size 0.
  hipLaunchConfig_t c = cluster_config((size_t)lds - 8192);
  int n = -1;
  HIP_OK(hipOccupancyMaxPotentialClusterSize(&n, (const void *)lds_kernel, &c));
  cr_assert_eq(n, 0);
  // Active clusters has no such exit: no cluster size is valid here.
  cr_assert_eq(hipOccupancyMaxActiveClusters(&n, (const void *)lds_kernel, &c), hipErrorInvalidClusterSize);
}

Test(clusters, bad_arguments)
{
  hipLaunchConfig_t c = cluster_config(0);
  int n = 0;
  cr_assert_eq(hipOccupancyMaxActiveClusters(nullptr, (const void *)copy_kernel, &c), hipErrorInvalidValue);
  cr_assert_eq(hipOccupancyMaxActiveClusters(&n, (const void *)copy_kernel, nullptr), hipErrorInvalidValue);
  cr_assert_eq(hipOccupancyMaxPotentialClusterSize(nullptr, (const void *)copy_kernel, &c), hipErrorInvalidValue);
  cr_assert_eq(hipOccupancyMaxActiveClusters(&n, (const void *)&n, &c), hipErrorInvalidDeviceFunction);
  cr_assert_eq(hipOccupancyMaxPotentialClusterSize(&n, nullptr, &c), hipErrorInvalidDeviceFunction);
}

Test(names, api_names)
{
  // clr's hip_api_id_t numbering.
  cr_assert_str_eq(hipApiName(1), "__hipPopCallConfiguration");
  cr_assert_str_eq(hipApiName(3), "hipArray3DCreate");
  cr_assert_str_eq(hipApiName(407), "hipExtHostAlloc");
  cr_assert_str_eq(hipApiName(0), "unknown");
  cr_assert_str_eq(hipApiName(50), "unknown"); // reserved id
  cr_assert_str_eq(hipApiName(408), "unknown");
  cr_assert_str_eq(hipApiName(0xffffffffu), "unknown");
  int named = 0;
  for (uint32_t id = 0; id < 1024; id++)
    named += strcmp(hipApiName(id), "unknown") != 0;
  cr_assert_eq(named, 396);
}

Test(names, command_names)
{
  cr_assert_str_eq(hipGetCmdName(0), "InternalMarker");
  cr_assert_str_eq(hipGetCmdName(0x11F0), "KernelExecution");
  cr_assert_str_eq(hipGetCmdName(0x11F3), "CopyDeviceToHost");
  cr_assert_str_eq(hipGetCmdName(0x1207), "FillBuffer");
  cr_assert_str_eq(hipGetCmdName(0x4502), "StreamWrite");
  cr_assert_str_eq(hipGetCmdName(0x1234), "Unknown command kind");
}
