// enable_language(HIP): a .hip file, no find_package. Reverses 4096 values on the GPU in
// shared memory, checks each, and reports which target the kernel ran.
#include <hip/hip_runtime.h>

#include <cstdio>

#define CHECK(expr)                                                          \
  do {                                                                       \
    hipError_t e_ = (expr);                                                  \
    if (e_ != hipSuccess) {                                                  \
      std::printf("lang_app: %s: %s\n", #expr, hipGetErrorString(e_));       \
      return 1;                                                              \
    }                                                                        \
  } while (0)

__global__ void reverse_block(int *data) {
  __shared__ int tile[256];
  int base = blockIdx.x * blockDim.x;
  tile[threadIdx.x] = data[base + threadIdx.x];
  __syncthreads();
  data[base + threadIdx.x] = tile[blockDim.x - 1 - threadIdx.x];
}

int main() {
  const int n = 4096, block = 256;
  int host[n];
  for (int i = 0; i < n; ++i) host[i] = i * 3;
  int *dev = nullptr;
  CHECK(hipMalloc(&dev, sizeof(host)));
  CHECK(hipMemcpy(dev, host, sizeof(host), hipMemcpyHostToDevice));
  reverse_block<<<n / block, block>>>(dev);
  if (hipDeviceSynchronize() != hipSuccess) {
    std::printf("lang_app: kernel failed: %s\n", hipGetErrorString(hipGetLastError()));
    return 1;
  }
  int back[n];
  CHECK(hipMemcpy(back, dev, sizeof(back), hipMemcpyDeviceToHost));
  CHECK(hipFree(dev));
  for (int i = 0; i < n; ++i) {
    int b = i / block, t = i % block;
    int expected = (b * block + block - 1 - t) * 3;
    if (back[i] != expected) {
      std::printf("lang_app: [%d] = %d, expected %d\n", i, back[i], expected);
      return 1;
    }
  }
  hipDeviceProp_t prop;
  CHECK(hipGetDeviceProperties(&prop, 0));
  std::printf("lang_app: %s, %d values reversed: PASSED\n", prop.gcnArchName, n);
  return 0;
}
