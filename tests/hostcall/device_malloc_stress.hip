// Device-side malloc/free under load: many threads allocate blocks of several sizes (small
// slab blocks, the largest slab size class, and direct allocations above it), write a pattern,
// read it back in a later launch, and free them. One size class alone needs more than one 2 MiB
// slab, so the runtime's DEVMEM hostcall service must hand out further slabs. The host checks
// every result: pointers non-null, aligned and disjoint, patterns intact, and a second round
// after the frees succeeding too. Built by clang-19 (code object v5: hidden_heap_v1) and by
// Debian's hipcc 5.2.3 (v4: the heap object is static in the code object).
#include <hip/hip_runtime.h>

#include <dlfcn.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define NTHREADS 2048
#define BLOCK 256

static int failures;

#define CHECK(cond, ...)                                                                           \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      std::printf("FAIL %s:%d: ", __FILE__, __LINE__);                                            \
      std::printf(__VA_ARGS__);                                                                    \
      std::printf("\n");                                                                           \
      failures++;                                                                                  \
    }                                                                                              \
  } while (0)

#define HIP(call)                                                                                  \
  do {                                                                                             \
    hipError_t e_ = (call);                                                                        \
    if (e_ != hipSuccess) {                                                                        \
      std::printf("FAIL %s:%d: %s -> %s\n", __FILE__, __LINE__, #call, hipGetErrorString(e_));   \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)

// Half the threads take 3072 bytes (ockl's largest slab size class: 1024 x 3072 B = 3 MiB, more
// than one slab); the rest spread over small classes and direct (> 3072 B) allocations.
__host__ __device__ static unsigned block_size(unsigned tid) {
  if (tid % 2 == 0) return 3072;
  if (tid % 4 == 1) return 40;
  if (tid % 32 == 7) return 10000;
  if (tid % 8 == 3) return 700;
  return 128;
}

__host__ __device__ static unsigned pattern(unsigned tid, unsigned i, unsigned round) {
  return tid * 2654435761u ^ (i * 40503u + round);
}

__global__ void alloc_kernel(unsigned **ptrs, unsigned round) {
  unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned size = block_size(tid);
  unsigned *p = (unsigned *)malloc(size);
  ptrs[tid] = p;
  if (!p) return;
  for (unsigned i = 0; i < size / 4; ++i) p[i] = pattern(tid, i, round);
}

__global__ void check_kernel(unsigned **ptrs, unsigned *bad, unsigned round) {
  unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned *p = ptrs[tid];
  unsigned n = 0;
  if (p)
    for (unsigned i = 0; i < block_size(tid) / 4; ++i) n += p[i] != pattern(tid, i, round);
  bad[tid] = p ? n : 0xffffffffu;
}

__global__ void free_kernel(unsigned **ptrs) {
  unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
  free(ptrs[tid]);
}

// The DEVMEM service itself, called as the device library does (service 3: a nonzero first
// word frees that address, otherwise the second word is a size to allocate).
extern "C" __device__ unsigned long long __ockl_devmem_request(unsigned long long addr,
                                                               unsigned long long size);

// Requests the service must refuse without harm: freeing memory it did not hand out (a user
// buffer, which must stay allocated), sizes it cannot satisfy, free(NULL).
__global__ void bad_requests_kernel(unsigned *user, unsigned long long *out) {
  if (threadIdx.x != 0) return;
  out[0] = __ockl_devmem_request((unsigned long long)user, 0);  // not the service's: ignored
  out[1] = __ockl_devmem_request(0, 0);                         // nothing to allocate: 0
  out[2] = (unsigned long long)malloc((size_t)1 << 50);         // out of memory: NULL
  free(nullptr);                                                // a no-op
  out[3] = (unsigned long long)malloc(0);                       // NULL, as ockl answers 0 bytes
  user[5] = 1234;                                               // the user buffer still works
}

static void bad_requests() {
  unsigned *user;
  unsigned long long *dout, out[4];
  unsigned h[8] = {};
  HIP(hipMalloc(&user, sizeof(h)));
  HIP(hipMemset(user, 0, sizeof(h)));
  HIP(hipMalloc(&dout, sizeof(out)));
  hipLaunchKernelGGL(bad_requests_kernel, dim3(1), dim3(64), 0, 0, user, dout);
  HIP(hipGetLastError());
  HIP(hipDeviceSynchronize());
  HIP(hipMemcpy(out, dout, sizeof(out), hipMemcpyDeviceToHost));
  HIP(hipMemcpy(h, user, sizeof(h), hipMemcpyDeviceToHost));
  CHECK(out[0] == 0, "free of a user buffer answered %#llx", out[0]);
  CHECK(out[1] == 0, "a 0-byte request answered %#llx", out[1]);
  CHECK(out[2] == 0, "malloc(1 << 50) returned %#llx", out[2]);
  CHECK(out[3] == 0, "malloc(0) returned %#llx", out[3]);
  CHECK(h[5] == 1234, "user buffer after the bogus free reads %u", h[5]);
  hipPointerAttribute_t attr;
  CHECK(hipPointerGetAttributes(&attr, user) == hipSuccess, "user buffer no longer known");
  HIP(hipFree(user));
  HIP(hipFree(dout));
  std::printf("bad requests: refused\n");
}

// Allocate, write, read back in another launch, check on the host, free.
static void round_trip(unsigned round) {
  unsigned **dptrs;
  unsigned *dbad;
  HIP(hipMalloc(&dptrs, NTHREADS * sizeof(*dptrs)));
  HIP(hipMalloc(&dbad, NTHREADS * sizeof(*dbad)));
  hipLaunchKernelGGL(alloc_kernel, dim3(NTHREADS / BLOCK), dim3(BLOCK), 0, 0, dptrs, round);
  HIP(hipGetLastError());
  hipLaunchKernelGGL(check_kernel, dim3(NTHREADS / BLOCK), dim3(BLOCK), 0, 0, dptrs, dbad, round);
  HIP(hipGetLastError());
  HIP(hipDeviceSynchronize());

  std::vector<unsigned *> ptrs(NTHREADS);
  std::vector<unsigned> bad(NTHREADS);
  HIP(hipMemcpy(ptrs.data(), dptrs, NTHREADS * sizeof(*dptrs), hipMemcpyDeviceToHost));
  HIP(hipMemcpy(bad.data(), dbad, NTHREADS * sizeof(*dbad), hipMemcpyDeviceToHost));

  uint64_t total = 0;
  std::vector<std::pair<uintptr_t, uintptr_t>> ranges;
  for (unsigned t = 0; t < NTHREADS; ++t) {
    uintptr_t a = (uintptr_t)ptrs[t];
    CHECK(a != 0, "round %u thread %u: malloc(%u) returned NULL", round, t, block_size(t));
    CHECK(bad[t] == 0, "round %u thread %u: %u words of %u read back wrong", round, t, bad[t],
          block_size(t) / 4);
    CHECK(a % 16 == 0, "round %u thread %u: block %p not 16-byte aligned", round, t, (void *)a);
    if (a) ranges.push_back({a, a + block_size(t)});
    total += block_size(t);
  }
  std::sort(ranges.begin(), ranges.end());
  for (size_t i = 1; i < ranges.size(); ++i)
    CHECK(ranges[i - 1].second <= ranges[i].first, "round %u: blocks %p and %p overlap", round,
          (void *)ranges[i - 1].first, (void *)ranges[i].first);
  CHECK(total > 2u * 1024 * 1024, "round %u: only %llu bytes allocated", round,
        (unsigned long long)total);

  hipLaunchKernelGGL(free_kernel, dim3(NTHREADS / BLOCK), dim3(BLOCK), 0, 0, dptrs);
  HIP(hipGetLastError());
  HIP(hipDeviceSynchronize());
  HIP(hipFree(dptrs));
  HIP(hipFree(dbad));
  std::printf("round %u: %u blocks, %llu bytes checked\n", round, NTHREADS,
              (unsigned long long)total);
}

int main() {
  // Which libamdhip64 serves us (the drop-in run must be ours, not AMD's).
  Dl_info info;
  if (dladdr((void *)&hipDeviceSynchronize, &info) && info.dli_fname)
    std::printf("runtime: %s\n", info.dli_fname);
  // Two rounds: the second allocates again after everything was freed (slab reuse and fresh
  // direct allocations).
  round_trip(1);
  round_trip(2);
  bad_requests();
  if (failures) {
    std::printf("device_malloc_stress: %d failures\n", failures);
    return 1;
  }
  std::printf("device_malloc_stress: PASSED\n");
  return 0;
}
