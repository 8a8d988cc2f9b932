// Multi-device cooperative launches on two emulated GPUs: one grid per device joined by
// this_multi_grid().sync(), through hipModuleLaunchCooperativeKernelMultiDevice and
// hipLaunchCooperativeKernelMultiDevice, and clr's argument checks.
#include <criterion/criterion.h>
#include <hip/hip_runtime.h>
#include <hip/hip_cooperative_groups.h>

#include <cstring>

namespace cg = cooperative_groups;

#define HIP_OK(expr) cr_assert_eq((expr), hipSuccess, "%s", #expr)
#define NGRIDS 2
#define BLOCKS 2
#define THREADS 64

// Per grid: is_valid, num_grids, grid_rank, size, thread_rank of work-item 0, the other grid's
// token read after the barrier.
struct GridReport {
  int valid, grids, rank, size, first_thread_rank, other_token;
};

__global__ void multi_grid_kernel(volatile int *tokens, GridReport *reports)
{
  cg::multi_grid_group mg = cg::this_multi_grid();
  unsigned rank = mg.grid_rank();
  bool first = threadIdx.x == 0 && blockIdx.x == 0;
  if (first) {
    tokens[rank] = 1000 + (int)rank;
    __threadfence_system();
  }
  mg.sync();
  if (first) {
    GridReport r;
    r.valid = mg.is_valid();
    r.grids = (int)mg.num_grids();
    r.rank = (int)rank;
    r.size = (int)mg.size();
    r.first_thread_rank = (int)mg.thread_rank();
    r.other_token = tokens[(rank + 1) % mg.num_grids()];
    reports[rank] = r;
  }
}

__global__ void plain_kernel(int *out) { out[threadIdx.x] = 7; }

struct Fixture {
  hipStream_t streams[NGRIDS];
  int *tokens;
  GridReport *reports;
  void *args[2];
};

static void fixture_init(Fixture *f)
{
  int n = 0;
  HIP_OK(hipGetDeviceCount(&n));
  cr_assert_eq(n, NGRIDS, "the suite runs with KFDSIM_GPUS=2");
  for (int d = 0; d < NGRIDS; d++) {
    HIP_OK(hipSetDevice(d));
    HIP_OK(hipStreamCreate(&f->streams[d]));
  }
  HIP_OK(hipSetDevice(0));
  HIP_OK(hipHostMalloc(&f->tokens, sizeof(int) * NGRIDS, hipHostMallocPortable | hipHostMallocCoherent));
  HIP_OK(hipHostMalloc(&f->reports, sizeof(GridReport) * NGRIDS, hipHostMallocPortable | hipHostMallocCoherent));
  memset(f->tokens, 0, sizeof(int) * NGRIDS);
  memset(f->reports, 0xff, sizeof(GridReport) * NGRIDS);
  f->args[0] = &f->tokens;
  f->args[1] = &f->reports;
}

static void fixture_fini(Fixture *f)
{
  for (int d = 0; d < NGRIDS; d++)
    HIP_OK(hipStreamDestroy(f->streams[d]));
  HIP_OK(hipHostFree(f->tokens));
  HIP_OK(hipHostFree(f->reports));
}

static void module_params(Fixture *f, hipFunctionLaunchParams *p)
{
  hipFunction_t fn = nullptr;
  HIP_OK(hipGetFuncBySymbol(&fn, (const void *)multi_grid_kernel));
  for (int d = 0; d < NGRIDS; d++) {
    memset(&p[d], 0, sizeof(p[d]));
    p[d].function = fn;
    p[d].gridDimX = BLOCKS, p[d].gridDimY = 1, p[d].gridDimZ = 1;
    p[d].blockDimX = THREADS, p[d].blockDimY = 1, p[d].blockDimZ = 1;
    p[d].hStream = f->streams[d];
    p[d].kernelParams = f->args;
  }
}

static void check_reports(const Fixture *f)
{
  for (int r = 0; r < NGRIDS; r++) {
    const GridReport &g = f->reports[r];
    cr_assert_eq(g.valid, 1, "grid %d", r);
    cr_assert_eq(g.grids, NGRIDS);
    cr_assert_eq(g.rank, r);
    cr_assert_eq(g.size, NGRIDS * BLOCKS * THREADS);
    cr_assert_eq(g.first_thread_rank, r * BLOCKS * THREADS); // prev_sum of the grids before it
    cr_assert_eq(g.other_token, 1000 + (r + 1) % NGRIDS, "grid %d saw the other grid's store", r);
  }
}

Test(multi_device, module_launch_joins_grids)
{
  Fixture f;
  hipFunctionLaunchParams p[NGRIDS];
  fixture_init(&f);
  module_params(&f, p);
  HIP_OK(hipModuleLaunchCooperativeKernelMultiDevice(p, NGRIDS, 0));
  check_reports(&f); // post-sync by default: results are there on return
  fixture_fini(&f);
}

Test(multi_device, runtime_launch_joins_grids_no_post_sync)
{
  Fixture f;
  hipLaunchParams p[NGRIDS];
  fixture_init(&f);
  for (int d = 0; d < NGRIDS; d++) {
    p[d].func = (void *)multi_grid_kernel;
    p[d].gridDim = dim3(BLOCKS);
    p[d].blockDim = dim3(THREADS);
    p[d].sharedMem = 0;
    p[d].stream = f.streams[d];
    p[d].args = f.args;
  }
  HIP_OK(hipLaunchCooperativeKernelMultiDevice(p, NGRIDS, hipCooperativeLaunchMultiDeviceNoPostSync |
                                                              hipCooperativeLaunchMultiDeviceNoPreSync));
  for (int d = 0; d < NGRIDS; d++)
    HIP_OK(hipStreamSynchronize(f.streams[d]));
  check_reports(&f);
  // A second launch reuses nothing stale: the barrier starts from zero again.
  memset(f.reports, 0xff, sizeof(GridReport) * NGRIDS);
  HIP_OK(hipLaunchCooperativeKernelMultiDevice(p, NGRIDS, 0));
  check_reports(&f);
  fixture_fini(&f);
}

Test(multi_device, argument_errors)
{
  Fixture f;
  hipFunctionLaunchParams p[NGRIDS + 1];
  fixture_init(&f);
  module_params(&f, p);
  p[NGRIDS] = p[0];
  cr_assert_eq(hipModuleLaunchCooperativeKernelMultiDevice(nullptr, NGRIDS, 0), hipErrorInvalidValue);
  cr_assert_eq(hipModuleLaunchCooperativeKernelMultiDevice(p, 0, 0), hipErrorInvalidValue);
  cr_assert_eq(hipModuleLaunchCooperativeKernelMultiDevice(p, NGRIDS + 1, 0), hipErrorInvalidValue);
  cr_assert_eq(hipModuleLaunchCooperativeKernelMultiDevice(p, NGRIDS, 4), hipErrorInvalidValue);
  cr_assert_eq(hipModuleLaunchCooperativeKernelMultiDevice(p, NGRIDS, 999), hipErrorInvalidValue);

  hipFunctionLaunchParams q[NGRIDS];
  memcpy(q, p, sizeof(q));
  q[1].blockDimY = 0;
  cr_assert_eq(hipModuleLaunchCooperativeKernelMultiDevice(q, NGRIDS, 0), hipErrorInvalidConfiguration);
  memcpy(q, p, sizeof(q));
  q[1].hStream = nullptr;
  cr_assert_eq(hipModuleLaunchCooperativeKernelMultiDevice(q, NGRIDS, 0), hipErrorInvalidResourceHandle);
  memcpy(q, p, sizeof(q));
  q[1].hStream = f.streams[0]; // two grids on device 0
  cr_assert_eq(hipModuleLaunchCooperativeKernelMultiDevice(q, NGRIDS, 0), hipErrorInvalidDevice);
  // CUDA's rule: the same kernel and sizes everywhere.
  memcpy(q, p, sizeof(q));
  q[1].gridDimX = BLOCKS + 1;
  cr_assert_eq(hipModuleLaunchCooperativeKernelMultiDevice(q, NGRIDS, 0), hipErrorInvalidValue);
  memcpy(q, p, sizeof(q));
  q[1].sharedMemBytes = 1024;
  cr_assert_eq(hipModuleLaunchCooperativeKernelMultiDevice(q, NGRIDS, 0), hipErrorInvalidValue);
  memcpy(q, p, sizeof(q));
  HIP_OK(hipGetFuncBySymbol(&q[1].function, (const void *)plain_kernel));
  cr_assert_eq(hipModuleLaunchCooperativeKernelMultiDevice(q, NGRIDS, 0), hipErrorInvalidValue);
  // A grid too large to be resident: refused before anything runs (no grid left at the barrier).
  memcpy(q, p, sizeof(q));
  q[0].gridDimX = q[1].gridDimX = 1u << 20;
  cr_assert_eq(hipModuleLaunchCooperativeKernelMultiDevice(q, NGRIDS, 0), hipErrorCooperativeLaunchTooLarge);
  // A destroyed stream handle.
  hipStream_t dead;
  HIP_OK(hipSetDevice(1));
  HIP_OK(hipStreamCreate(&dead));
  HIP_OK(hipStreamDestroy(dead));
  memcpy(q, p, sizeof(q));
  q[1].hStream = dead;
  cr_assert_eq(hipModuleLaunchCooperativeKernelMultiDevice(q, NGRIDS, 0), hipErrorInvalidValue);
  // The runtime-API form: an unregistered host function.
  hipLaunchParams r[NGRIDS];
  for (int d = 0; d < NGRIDS; d++) {
    r[d].func = (void *)&f;
    r[d].gridDim = dim3(1);
    r[d].blockDim = dim3(1);
    r[d].sharedMem = 0;
    r[d].stream = f.streams[d];
    r[d].args = f.args;
  }
  cr_assert_eq(hipLaunchCooperativeKernelMultiDevice(r, NGRIDS, 0), hipErrorInvalidDeviceFunction);
  cr_assert_eq(hipLaunchCooperativeKernelMultiDevice(r, -1, 0), hipErrorInvalidValue);
  // After all of that, a good launch still works.
  HIP_OK(hipModuleLaunchCooperativeKernelMultiDevice(p, NGRIDS, 0));
  check_reports(&f);
  fixture_fini(&f);
}
