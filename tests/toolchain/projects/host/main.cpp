// hip::host: the runtime API from a g++-compiled program. A copy through the device and back,
// then a device-to-device copy, checked value by value.
#include <hip/hip_runtime_api.h>

#include <cstdio>
#include <vector>

#define CHECK(expr)                                                          \
  do {                                                                       \
    hipError_t e_ = (expr);                                                  \
    if (e_ != hipSuccess) {                                                  \
      std::printf("host_app: %s: %s\n", #expr, hipGetErrorString(e_));       \
      return 1;                                                              \
    }                                                                        \
  } while (0)

int main() {
  int count = 0;
  CHECK(hipGetDeviceCount(&count));
  const size_t n = 4096;
  std::vector<int> in(n), out(n, -1);
  for (size_t i = 0; i < n; ++i) in[i] = (int)(i * 7 + 1);
  int *a = nullptr, *b = nullptr;
  CHECK(hipMalloc(&a, n * sizeof(int)));
  CHECK(hipMalloc(&b, n * sizeof(int)));
  CHECK(hipMemcpy(a, in.data(), n * sizeof(int), hipMemcpyHostToDevice));
  CHECK(hipMemcpy(b, a, n * sizeof(int), hipMemcpyDeviceToDevice));
  CHECK(hipMemcpy(out.data(), b, n * sizeof(int), hipMemcpyDeviceToHost));
  CHECK(hipFree(a));
  CHECK(hipFree(b));
  for (size_t i = 0; i < n; ++i)
    if (out[i] != in[i]) {
      std::printf("host_app: out[%zu] = %d, expected %d\n", i, out[i], in[i]);
      return 1;
    }
  std::printf("host_app: %d device(s), %zu values round-tripped: PASSED\n", count, n);
  return 0;
}
