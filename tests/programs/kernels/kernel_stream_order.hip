// Kernels, copies, fills and host callbacks on one stream run in submission order: each kernel
// reads what the previous operation wrote.
#include <hip/hip_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK_HIP(call)                                                                      \
  do {                                                                                       \
    hipError_t e_ = (call);                                                                  \
    if (e_ != hipSuccess) {                                                                  \
      fprintf(stderr, "%s:%d: %s -> %d\n", __FILE__, __LINE__, #call, (int)e_);              \
      exit(1);                                                                               \
    }                                                                                        \
  } while (0)

__global__ void add_one(int *p, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] += 1;
}

__global__ void scale(int *p, int n, int k)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] *= k;
}

static int callback_saw;
static void on_host(hipStream_t, hipError_t status, void *arg)
{
  // Runs after the kernels before it: the pinned buffer already holds their result.
  int *h = (int *)arg;
  callback_saw = status == hipSuccess ? h[0] : -1;
}

int main()
{
  const int n = 4096;
  hipStream_t s;
  CHECK_HIP(hipStreamCreate(&s));
  int *d, *h;
  CHECK_HIP(hipMalloc((void **)&d, n * sizeof(int)));
  CHECK_HIP(hipHostMalloc((void **)&h, n * sizeof(int), 0));
  CHECK_HIP(hipMemsetAsync(d, 0, n * sizeof(int), s));
  for (int r = 0; r < 5; r++)
    hipLaunchKernelGGL(add_one, dim3(n / 256), dim3(256), 0, s, d, n);
  hipLaunchKernelGGL(scale, dim3(n / 256), dim3(256), 0, s, d, n, 3);
  CHECK_HIP(hipGetLastError());
  CHECK_HIP(hipMemcpyAsync(h, d, n * sizeof(int), hipMemcpyDeviceToHost, s));
  CHECK_HIP(hipStreamAddCallback(s, on_host, h, 0));
  CHECK_HIP(hipStreamSynchronize(s));
  for (int i = 0; i < n; i++)
    if (h[i] != 15) {
      fprintf(stderr, "h[%d] = %d, want 15\n", i, h[i]);
      return 1;
    }
  if (callback_saw != 15) {
    fprintf(stderr, "callback saw %d\n", callback_saw);
    return 1;
  }
  CHECK_HIP(hipStreamDestroy(s));
  CHECK_HIP(hipFree(d));
  CHECK_HIP(hipHostFree(h));
  printf("PASSED\n");
  return 0;
}
