// vector_add: c[i] = a[i] + b[i] on the GPU, checked against the CPU.
//
//   build: cmake -S . -B build && cmake --build build -j2 --target vector_add
//   run:   build/sim/kfdsim -- build/samples/vector_add [n]      (an emulated MI300X)
//          build/samples/vector_add [n]                          (a real AMD GPU)
//
// Exit status 0 and "vector_add: PASSED" when every element matches.
#include <hip/hip_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#define HIP_CHECK(expr)                                                                   \
  do {                                                                                    \
    hipError_t err_ = (expr);                                                             \
    if (err_ != hipSuccess) {                                                             \
      std::fprintf(stderr, "vector_add: %s failed: %s\n", #expr, hipGetErrorString(err_)); \
      std::exit(2);                                                                       \
    }                                                                                     \
  } while (0)

__global__ void vector_add(const float *a, const float *b, float *c, size_t n) {
  // Grid-stride loop: any grid size covers any n.
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x)
    c[i] = a[i] + b[i];
}

int main(int argc, char **argv) {
  size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 0) : (size_t)1 << 20;
  if (n == 0) {
    std::fprintf(stderr, "usage: %s [element count > 0]\n", argv[0]);
    return 2;
  }

  int device = 0;
  hipDeviceProp_t prop;
  HIP_CHECK(hipGetDevice(&device));
  HIP_CHECK(hipGetDeviceProperties(&prop, device));
  std::printf("vector_add: device %d: %s (%s), %zu elements\n", device, prop.name,
              prop.gcnArchName, n);

  std::vector<float> a(n), b(n), c(n, -1.0f);
  for (size_t i = 0; i < n; ++i) {
    a[i] = (float)(i % 1000) * 0.5f;
    b[i] = (float)(i % 77) - 3.0f;
  }

  const size_t bytes = n * sizeof(float);
  float *da = nullptr, *db = nullptr, *dc = nullptr;
  HIP_CHECK(hipMalloc(&da, bytes));
  HIP_CHECK(hipMalloc(&db, bytes));
  HIP_CHECK(hipMalloc(&dc, bytes));
  HIP_CHECK(hipMemcpy(da, a.data(), bytes, hipMemcpyHostToDevice));
  HIP_CHECK(hipMemcpy(db, b.data(), bytes, hipMemcpyHostToDevice));

  const unsigned int block = 256;
  size_t blocks = (n + block - 1) / block;
  const unsigned int grid = (unsigned int)(blocks < 4096 ? blocks : 4096);
  vector_add<<<grid, block>>>(da, db, dc, n);
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipDeviceSynchronize());
  HIP_CHECK(hipMemcpy(c.data(), dc, bytes, hipMemcpyDeviceToHost));

  size_t errors = 0;
  for (size_t i = 0; i < n; ++i) {
    if (c[i] != a[i] + b[i]) {
      if (errors < 5)
        std::fprintf(stderr, "vector_add: c[%zu] = %g, expected %g\n", i, (double)c[i],
                     (double)(a[i] + b[i]));
      ++errors;
    }
  }
  HIP_CHECK(hipFree(da));
  HIP_CHECK(hipFree(db));
  HIP_CHECK(hipFree(dc));

  std::printf("vector_add: c[0] = %g, c[%zu] = %g\n", (double)c[0], n - 1, (double)c[n - 1]);
  if (errors != 0) {
    std::printf("vector_add: FAILED (%zu of %zu elements wrong)\n", errors, n);
    return 1;
  }
  std::printf("vector_add: PASSED\n");
  return 0;
}
