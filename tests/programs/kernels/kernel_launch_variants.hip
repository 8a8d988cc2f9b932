// The ways to launch the same kernel: triple chevrons, hipLaunchKernelGGL, hipLaunchKernel with
// an argument array, hipExtLaunchKernelGGL with start/stop events, launches with 3-D grids and
// blocks (built-in indices checked), large by-value struct arguments, and a host function
// enqueued behind the kernels (hipLaunchHostFunc; ROCm 5.2.3 builds use hipStreamAddCallback).
#include <hip/hip_runtime.h>
#include <hip/hip_ext.h>
#include "../check.h"

struct big_arg {
  int vals[40];   // 160 bytes by value
  char tag;
  double scale;
};

__global__ void write_ids(int *out, int base)
{
  int bx = blockIdx.x + blockIdx.y * gridDim.x + blockIdx.z * gridDim.x * gridDim.y;
  int tx = threadIdx.x + threadIdx.y * blockDim.x + threadIdx.z * blockDim.x * blockDim.y;
  int threads = blockDim.x * blockDim.y * blockDim.z;
  out[bx * threads + tx] = base + bx * 1000 + tx;
}

__global__ void use_big(int *out, struct big_arg a)
{
  int i = threadIdx.x;
  if (i < 40)
    out[i] = (int)(a.vals[i] * a.scale) + a.tag;
}

static int check_ids(int *d, int blocks, int threads, int base)
{
  int n = blocks * threads;
  int *h = (int *)malloc(n * sizeof(int));
  CHECK_HIP(hipMemcpy(h, d, n * sizeof(int), hipMemcpyDeviceToHost));
  for (int b = 0; b < blocks; b++)
    for (int t = 0; t < threads; t++)
      if (h[b * threads + t] != base + b * 1000 + t) {
        fprintf(stderr, "base %d: [%d][%d] = %d\n", base, b, t, h[b * threads + t]);
        return 1;
      }
  free(h);
  return 0;
}

static void host_fn(void *arg)
{
  __atomic_store_n((int *)arg, 1, __ATOMIC_RELEASE);
}

int main()
{
  int *d;
  CHECK_HIP(hipMalloc(&d, 4096 * sizeof(int)));
  hipStream_t s;
  CHECK_HIP(hipStreamCreate(&s));

  write_ids<<<dim3(4), dim3(64), 0, s>>>(d, 1);
  CHECK_HIP(hipGetLastError());
  CHECK_HIP(hipStreamSynchronize(s));
  if (check_ids(d, 4, 64, 1))
    return 1;

  hipLaunchKernelGGL(write_ids, dim3(2, 3, 2), dim3(4, 4, 4), 0, s, d, 2);
  CHECK_HIP(hipStreamSynchronize(s));
  if (check_ids(d, 12, 64, 2))
    return 1;

  int base = 3;
  void *args[] = {&d, &base};
  CHECK_HIP(hipLaunchKernel((const void *)write_ids, dim3(3, 1, 1), dim3(8, 2, 1), args, 0, s));
  CHECK_HIP(hipStreamSynchronize(s));
  if (check_ids(d, 3, 16, 3))
    return 1;

  hipEvent_t start, stop;
  CHECK_HIP(hipEventCreate(&start));
  CHECK_HIP(hipEventCreate(&stop));
  hipExtLaunchKernelGGL(write_ids, dim3(5), dim3(32), 0, s, start, stop, 0, d, 4);
  CHECK_HIP(hipGetLastError());
  CHECK_HIP(hipEventSynchronize(stop));
  CHECK_HIP(hipEventQuery(start));
  float ms = -1;
  CHECK_HIP(hipEventElapsedTime(&ms, start, stop));
  CHECK(ms >= 0.0f);
  if (check_ids(d, 5, 32, 4))
    return 1;

  struct big_arg a;
  for (int i = 0; i < 40; i++)
    a.vals[i] = i * 2;
  a.tag = 9;
  a.scale = 1.5;
  hipLaunchKernelGGL(use_big, dim3(1), dim3(64), 0, s, d, a);
  CHECK_HIP(hipGetLastError());

  // The host function runs after the kernel before it on the stream.
  int *flag = (int *)calloc(1, sizeof(int));
  CHECK_HIP(LAUNCH_HOST_FUNC(s, host_fn, flag));
  CHECK_HIP(hipStreamSynchronize(s));
  CHECK(__atomic_load_n(flag, __ATOMIC_ACQUIRE) == 1);
  free(flag);
  int h[40];
  CHECK_HIP(hipMemcpy(h, d, sizeof(h), hipMemcpyDeviceToHost));
  for (int i = 0; i < 40; i++)
    CHECK(h[i] == i * 3 + 9);

  // A launch with a null function is refused.
  CHECK(hipLaunchKernel(nullptr, dim3(1), dim3(1), args, 0, s) != hipSuccess);
  (void)hipGetLastError();
  CHECK_HIP(hipEventDestroy(start));
  CHECK_HIP(hipEventDestroy(stop));
  CHECK_HIP(hipStreamDestroy(s));
  CHECK_HIP(hipFree(d));
  printf("PASSED\n");
  return 0;
}
