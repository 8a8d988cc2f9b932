// Dynamic shared memory (extern __shared__) sized at launch: each block reverses its slice of
// the input through LDS, for several sizes, and reports the dynamic size it saw.
#include <hip/hip_runtime.h>
#include "../check.h"

extern __shared__ int lds_buf[];

__global__ void reverse_through_lds(const int *in, int *out, int n_per_block)
{
  const int *src = in + blockIdx.x * n_per_block;
  int *dst = out + blockIdx.x * n_per_block;
  for (int i = threadIdx.x; i < n_per_block; i += blockDim.x)
    lds_buf[i] = src[i];
  __syncthreads();
  for (int i = threadIdx.x; i < n_per_block; i += blockDim.x)
    dst[i] = lds_buf[n_per_block - 1 - i];
}

int main()
{
  const int sizes[] = {1, 64, 200, 1024, 4096, 16384};
  const int blocks = 3;
  for (int s = 0; s < (int)(sizeof(sizes) / sizeof(sizes[0])); s++) {
    int n = sizes[s];
    size_t bytes = (size_t)n * blocks * sizeof(int);
    int *h_in = (int *)malloc(bytes), *h_out = (int *)malloc(bytes);
    for (int i = 0; i < n * blocks; i++)
      h_in[i] = i * 7 + s;
    int *d_in, *d_out;
    CHECK_HIP(hipMalloc(&d_in, bytes));
    CHECK_HIP(hipMalloc(&d_out, bytes));
    CHECK_HIP(hipMemcpy(d_in, h_in, bytes, hipMemcpyHostToDevice));
    hipLaunchKernelGGL(reverse_through_lds, dim3(blocks), dim3(64), n * sizeof(int), 0,
                       (const int *)d_in, d_out, n);
    CHECK_HIP(hipGetLastError());
    CHECK_HIP(hipMemcpy(h_out, d_out, bytes, hipMemcpyDeviceToHost));
    for (int b = 0; b < blocks; b++)
      for (int i = 0; i < n; i++)
        if (h_out[b * n + i] != h_in[b * n + n - 1 - i]) {
          fprintf(stderr, "size %d block %d [%d] = %d, want %d\n", n, b, i, h_out[b * n + i],
                  h_in[b * n + n - 1 - i]);
          return 1;
        }
    CHECK_HIP(hipFree(d_in));
    CHECK_HIP(hipFree(d_out));
    free(h_in);
    free(h_out);
  }
  // More dynamic LDS than a workgroup can have (64 KiB on gfx90a/gfx942) is refused at launch.
  int dev_lds = 0;
  CHECK_HIP(hipDeviceGetAttribute(&dev_lds, hipDeviceAttributeMaxSharedMemoryPerBlock, 0));
  CHECK(dev_lds >= 64 * 1024);
  int *d;
  CHECK_HIP(hipMalloc(&d, 64));
  hipLaunchKernelGGL(reverse_through_lds, dim3(1), dim3(64), (size_t)dev_lds + 4096, 0,
                     (const int *)d, d, 1);
  hipError_t e = hipGetLastError();
  CHECK(e != hipSuccess);
  CHECK_HIP(hipGetLastError());   // the launch error was cleared by the previous call
  CHECK_HIP(hipFree(d));
  printf("PASSED\n");
  return 0;
}
