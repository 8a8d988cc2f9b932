// Regression: launches through hipModuleLaunchKernel after hipModuleUnload and a reload of the
// same code object must run the newly loaded kernel (the runtime caches resolved kernels per
// device; a reload must never be served a freed one). Also mixes in <<<>>> launches, whose
// stub -> kernel resolution is cached per thread.
#include <hip/hip_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CHECK(call)                                                                        \
  do {                                                                                     \
    hipError_t e_ = (call);                                                                \
    if (e_ != hipSuccess) {                                                                \
      std::printf("module_reload: %s -> %s\n", #call, hipGetErrorName(e_));                \
      std::exit(1);                                                                        \
    }                                                                                      \
  } while (0)

__global__ void add_one(int *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] += 1;
}

int main() {
  const char *path = std::getenv("HIPKFD_PROG_MODULE");
  if (!path) {
    std::printf("module_reload: HIPKFD_PROG_MODULE not set\n");
    return 1;
  }
  const int n = 256;
  int host[n], *in, *out;
  for (int i = 0; i < n; i++)
    host[i] = i;
  CHECK(hipMalloc(&in, sizeof(host)));
  CHECK(hipMalloc(&out, sizeof(host)));
  CHECK(hipMemcpy(in, host, sizeof(host), hipMemcpyHostToDevice));

  for (int round = 0; round < 4; round++) {
    hipModule_t mod;
    hipFunction_t fn;
    CHECK(hipModuleLoad(&mod, path));
    CHECK(hipModuleGetFunction(&fn, mod, "mod_scale"));
    int scale = round + 2, count = n;
    void *args[] = {&in, &out, &scale, &count};
    CHECK(hipModuleLaunchKernel(fn, 1, 1, 1, n, 1, 1, 0, nullptr, args, nullptr));
    add_one<<<1, n>>>(out, n);
    CHECK(hipGetLastError());
    CHECK(hipDeviceSynchronize());
    int got[n];
    CHECK(hipMemcpy(got, out, sizeof(got), hipMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) {
      int want = i * scale + 5 + 1; /* module_bias is 5 */
      if (got[i] != want) {
        std::printf("module_reload: round %d out[%d] = %d, want %d\n", round, i, got[i], want);
        return 1;
      }
    }
    CHECK(hipModuleUnload(mod));
    /* stale handles get errors (and read no freed memory: the objects are kept for reuse) */
    if (hipModuleUnload(mod) != hipErrorNotFound) {
      std::printf("module_reload: a second unload is not hipErrorNotFound\n");
      return 1;
    }
    hipFunction_t stale;
    int attr = 0;
    if (hipModuleGetFunction(&stale, mod, "mod_scale") == hipSuccess ||
        hipFuncGetAttribute(&attr, HIP_FUNC_ATTRIBUTE_NUM_REGS, fn) == hipSuccess ||
        hipModuleLaunchKernel(fn, 1, 1, 1, n, 1, 1, 0, nullptr, args, nullptr) == hipSuccess) {
      std::printf("module_reload: a stale module or function handle was accepted\n");
      return 1;
    }
    (void)hipGetLastError();
  }
  CHECK(hipFree(in));
  CHECK(hipFree(out));
  std::printf("module_reload: PASSED\n");
  return 0;
}
