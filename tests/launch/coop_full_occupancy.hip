/* Cooperative launches at full occupancy: the grid is hipOccupancyMaxActiveBlocksPerMultiprocessor
 * times the CU count (the largest grid hipLaunchCooperativeKernel accepts), so every workgroup
 * is resident at once and each grid.sync() (ockl's grid barrier: s_barrier, ds_gws_barrier,
 * s_barrier) waits for all of them. kfdsim parks the waiting workgroups and resumes them after
 * the barrier; what must survive a park is checked here:
 *   - global memory written before a barrier is seen by other workgroups after it;
 *   - registers (a running value per work-item kept across every barrier);
 *   - LDS, per workgroup (a value one work-item wrote before a barrier, read by its neighbour);
 *   - s_barrier inside a workgroup of several waves around the grid barrier.
 * Workgroups of 64 work-items (one wave: 32 per CU on gfx942, 304 CUs, 9728 workgroups), of
 * 256 (four waves) and of 1024 (sixteen). Built at -O3 and at -O0 (which keeps variables in
 * scratch: private memory must survive a park too). The same phases also run over a spin barrier (atomic counter and s_sleep
 * polling), which needs every workgroup to keep running while others poll. Prints "coop_full_occupancy: PASSED" when every check holds. */
#include <hip/hip_runtime.h>
#include <hip/hip_cooperative_groups.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

namespace cg = cooperative_groups;

#define CHECK_HIP(expr)                                                                       \
  do {                                                                                        \
    hipError_t e_ = (expr);                                                                   \
    if (e_ != hipSuccess) {                                                                   \
      fprintf(stderr, "FAIL %s:%d: %s returned %s (%d)\n", __FILE__, __LINE__, #expr,         \
              hipGetErrorName(e_), (int)e_);                                                  \
      return 1;                                                                               \
    }                                                                                         \
  } while (0)

static const unsigned ROUNDS = 4;
static const unsigned MOD = 1000003u;

/* The source index a work-item reads in round r: always in another workgroup (for grids of
 * more than one), and moving every round. */
__host__ __device__ static unsigned src_index(unsigned i, unsigned r, unsigned n, unsigned block)
{
  return (i + block * (r + 1) + 13u * r) % n;
}

template <unsigned BLOCK>
__global__ void __launch_bounds__(BLOCK) phases(unsigned *a, unsigned *out)
{
  cg::grid_group grid = cg::this_grid();
  __shared__ unsigned lds[BLOCK];
  unsigned n = (unsigned)grid.size();
  unsigned i = (unsigned)grid.thread_rank();
  unsigned t = threadIdx.x;
  unsigned acc = i;                       /* lives in a register across every grid barrier */
  a[i] = i;
  lds[t] = i * 3u + blockIdx.x;
  for (unsigned r = 0; r < ROUNDS; r++) {
    grid.sync();
    unsigned v = a[src_index(i, r, n, BLOCK)];
    unsigned l = lds[(t + 1) % BLOCK];    /* written by another wave for t = 63 of a wave */
    acc = (acc * 7u + v + l) % MOD;
    grid.sync();
    a[i] = (v + l + r) % MOD;
    lds[t] = (l + 1u) % MOD;
  }
  out[i] = acc;
}

/* A grid barrier built from an atomic counter and an s_sleep polling loop (as the multi-grid
 * sync and hand-written spin barriers do) instead of GWS: it completes only if every workgroup
 * keeps running while the others poll. Round r ends when the counter reaches
 * (r + 1) * gridDim.x. */
__device__ static void spin_barrier(unsigned *counter, unsigned target)
{
  __syncthreads();
  if (threadIdx.x == 0) {
    __hip_atomic_fetch_add(counter, 1u, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT);
    while (__hip_atomic_load(counter, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_AGENT) < target)
      __builtin_amdgcn_s_sleep(1);
  }
  __syncthreads();
}

template <unsigned BLOCK>
__global__ void __launch_bounds__(BLOCK) spin_phases(unsigned *a, unsigned *out, unsigned *counter)
{
  __shared__ unsigned lds[BLOCK];
  unsigned n = gridDim.x * BLOCK;
  unsigned i = blockIdx.x * BLOCK + threadIdx.x;
  unsigned t = threadIdx.x;
  unsigned acc = i;
  a[i] = i;
  lds[t] = i * 3u + blockIdx.x;
  for (unsigned r = 0; r < ROUNDS; r++) {
    spin_barrier(counter, (2 * r + 1) * gridDim.x);
    unsigned v = __hip_atomic_load(&a[src_index(i, r, n, BLOCK)], __ATOMIC_RELAXED,
                                   __HIP_MEMORY_SCOPE_AGENT);
    unsigned l = lds[(t + 1) % BLOCK];
    acc = (acc * 7u + v + l) % MOD;
    spin_barrier(counter, (2 * r + 2) * gridDim.x);
    __hip_atomic_store(&a[i], (v + l + r) % MOD, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
    lds[t] = (l + 1u) % MOD;
  }
  out[i] = acc;
}

/* The same computation on the CPU, round by round. */
static void reference(unsigned nblocks, unsigned block, std::vector<unsigned> &out)
{
  unsigned n = nblocks * block;
  std::vector<unsigned> a(n), lds(n), acc(n), v(n), l(n);
  for (unsigned i = 0; i < n; i++) {
    a[i] = i;
    lds[i] = i * 3u + i / block;
    acc[i] = i;
  }
  for (unsigned r = 0; r < ROUNDS; r++) {
    for (unsigned i = 0; i < n; i++) {
      unsigned b = i / block, t = i % block;
      v[i] = a[src_index(i, r, n, block)];
      l[i] = lds[b * block + (t + 1) % block];
      acc[i] = (acc[i] * 7u + v[i] + l[i]) % MOD;
    }
    for (unsigned i = 0; i < n; i++) {
      a[i] = (v[i] + l[i] + r) % MOD;
      lds[i] = (l[i] + 1u) % MOD;
    }
  }
  out = acc;
}

template <unsigned BLOCK>
static int run(int cus, bool spin)
{
  const void *kernel = spin ? reinterpret_cast<const void *>(&spin_phases<BLOCK>)
                            : reinterpret_cast<const void *>(&phases<BLOCK>);
  const char *kind = spin ? "spin barrier" : "grid.sync";
  int per_cu = 0;
  CHECK_HIP(hipOccupancyMaxActiveBlocksPerMultiprocessor(&per_cu, kernel, (int)BLOCK, 0));
  if (per_cu < 1) {
    fprintf(stderr, "FAIL: occupancy of %u-item blocks is %d\n", BLOCK, per_cu);
    return 1;
  }
  unsigned nblocks = (unsigned)per_cu * (unsigned)cus, n = nblocks * BLOCK;
  printf("%s, block %u: %d per CU x %d CUs = %u workgroups, %u grid barriers\n", kind, BLOCK,
         per_cu, cus, nblocks, 2 * ROUNDS);
  unsigned *a = nullptr, *out = nullptr, *counter = nullptr;
  CHECK_HIP(hipMalloc(&a, n * sizeof(unsigned)));
  CHECK_HIP(hipMalloc(&out, n * sizeof(unsigned)));
  CHECK_HIP(hipMalloc(&counter, sizeof(unsigned)));
  CHECK_HIP(hipMemset(out, 0xff, n * sizeof(unsigned)));
  CHECK_HIP(hipMemset(counter, 0, sizeof(unsigned)));
  void *args[] = {&a, &out, &counter};
  CHECK_HIP(hipLaunchCooperativeKernel(kernel, dim3(nblocks), dim3(BLOCK), args, 0, nullptr));
  CHECK_HIP(hipDeviceSynchronize());
  std::vector<unsigned> got(n), want;
  CHECK_HIP(hipMemcpy(got.data(), out, n * sizeof(unsigned), hipMemcpyDeviceToHost));
  reference(nblocks, BLOCK, want);
  unsigned bad = 0;
  for (unsigned i = 0; i < n; i++) {
    if (got[i] != want[i] && bad++ < 5)
      fprintf(stderr, "FAIL %s, block %u: out[%u] = %u, want %u\n", kind, BLOCK, i, got[i],
              want[i]);
  }
  CHECK_HIP(hipFree(a));
  CHECK_HIP(hipFree(out));
  CHECK_HIP(hipFree(counter));
  if (bad) {
    fprintf(stderr, "FAIL %s, block %u: %u of %u work-items wrong\n", kind, BLOCK, bad, n);
    return 1;
  }
  return 0;
}

int main()
{
  int coop = 0, cus = 0;
  CHECK_HIP(hipDeviceGetAttribute(&coop, hipDeviceAttributeCooperativeLaunch, 0));
  CHECK_HIP(hipDeviceGetAttribute(&cus, hipDeviceAttributeMultiprocessorCount, 0));
  if (coop != 1 || cus < 1) {
    fprintf(stderr, "FAIL: cooperative launch attribute %d, %d CUs\n", coop, cus);
    return 1;
  }
  if (run<64>(cus, false) || run<256>(cus, false) || run<1024>(cus, false) ||
      run<64>(cus, true) || run<256>(cus, true) || run<1024>(cus, true))
    return 1;
  printf("coop_full_occupancy: PASSED\n");
  return 0;
}
