// Kernels alternating between a blocking stream and the legacy null stream, back to back without
// synchronising: each null-stream kernel must see every earlier kernel of the blocking stream, and
// each later blocking-stream kernel must see the null-stream kernel before it. Consecutive kernels
// of a stream share one completion signal (stream.c); a signal another stream's barrier already
// waits on must never be extended by a later launch, or the two streams wait for each other
// forever (this program would then hang and time out).
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

// snap[round] = a[0] at the time this kernel runs; a[] += 100.
__global__ void snapshot_and_bump(int *a, int n, int *snap, int round)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i == 0)
    snap[round] = a[0];
  if (i < n)
    a[i] += 100;
}

int main()
{
  const int n = 8192, rounds = 16, per_round = 3;
  hipStream_t s;
  CHECK_HIP(hipStreamCreate(&s));
  int *a, *snap;
  CHECK_HIP(hipMalloc((void **)&a, n * sizeof(int)));
  CHECK_HIP(hipMalloc((void **)&snap, rounds * sizeof(int)));
  CHECK_HIP(hipMemset(a, 0, n * sizeof(int)));
  for (int r = 0; r < rounds; r++) {
    for (int k = 0; k < per_round; k++)
      hipLaunchKernelGGL(add_one, dim3(n / 256), dim3(256), 0, s, a, n);
    hipLaunchKernelGGL(snapshot_and_bump, dim3(n / 256), dim3(256), 0, 0, a, n, snap, r);
  }
  CHECK_HIP(hipGetLastError());
  CHECK_HIP(hipDeviceSynchronize());
  int h_snap[rounds], h_a[n];
  CHECK_HIP(hipMemcpy(h_snap, snap, sizeof(h_snap), hipMemcpyDeviceToHost));
  CHECK_HIP(hipMemcpy(h_a, a, sizeof(h_a), hipMemcpyDeviceToHost));
  for (int r = 0; r < rounds; r++) {
    int want = (r + 1) * per_round + r * 100;
    if (h_snap[r] != want) {
      fprintf(stderr, "round %d: null-stream kernel saw %d, want %d\n", r, h_snap[r], want);
      return 1;
    }
  }
  for (int i = 0; i < n; i++)
    if (h_a[i] != rounds * (per_round + 100)) {
      fprintf(stderr, "a[%d] = %d, want %d\n", i, h_a[i], rounds * (per_round + 100));
      return 1;
    }
  CHECK_HIP(hipStreamDestroy(s));
  CHECK_HIP(hipFree(a));
  CHECK_HIP(hipFree(snap));
  printf("PASSED\n");
  return 0;
}
