// hip::device: a kernel in a .cpp file. Squares 10000 values on the GPU, checks each.
#include <hip/hip_runtime.h>

#include <cstdio>
#include <vector>

#define CHECK(expr)                                                          \
  do {                                                                       \
    hipError_t e_ = (expr);                                                  \
    if (e_ != hipSuccess) {                                                  \
      std::printf("device_app: %s: %s\n", #expr, hipGetErrorString(e_));       \
      return 1;                                                              \
    }                                                                        \
  } while (0)

__global__ void square(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * in[i];
}

int main() {
  const int n = 10000;
  std::vector<int> in(n), out(n, 0);
  for (int i = 0; i < n; ++i) in[i] = i - 5000;
  int *din = nullptr, *dout = nullptr;
  CHECK(hipMalloc(&din, n * sizeof(int)));
  CHECK(hipMalloc(&dout, n * sizeof(int)));
  CHECK(hipMemcpy(din, in.data(), n * sizeof(int), hipMemcpyHostToDevice));
  square<<<(n + 255) / 256, 256>>>(din, dout, n);
  if (hipDeviceSynchronize() != hipSuccess) {
    std::printf("device_app: kernel failed: %s\n", hipGetErrorString(hipGetLastError()));
    return 1;
  }
  CHECK(hipMemcpy(out.data(), dout, n * sizeof(int), hipMemcpyDeviceToHost));
  CHECK(hipFree(din));
  CHECK(hipFree(dout));
  for (int i = 0; i < n; ++i)
    if (out[i] != in[i] * in[i]) {
      std::printf("device_app: out[%d] = %d, expected %d\n", i, out[i], in[i] * in[i]);
      return 1;
    }
  std::printf("device_app: %d squares: PASSED\n", n);
  return 0;
}
