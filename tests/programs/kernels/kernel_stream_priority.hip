// Streams of every priority run kernels correctly; their priorities read back; work on a
// high-priority stream can wait on an event of a low-priority one (cross-priority ordering).
#include <hip/hip_runtime.h>
#include "../check.h"

__global__ void add_one_n(int *v, int n, int times)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    for (int k = 0; k < times; k++)
      v[i] += 1;
}

__global__ void times_two(int *v, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    v[i] *= 2;
}

int main()
{
  int least = 0, greatest = 0;
  CHECK_HIP(hipDeviceGetStreamPriorityRange(&least, &greatest));
  CHECK(greatest <= least);
  const int N = 256;
  int count = least - greatest + 1;
  CHECK(count >= 1 && count <= 8);
  hipStream_t *s = (hipStream_t *)malloc(count * sizeof(hipStream_t));
  int **d = (int **)malloc(count * sizeof(int *));
  for (int i = 0; i < count; i++) {
    int prio = greatest + i;
    CHECK_HIP(hipStreamCreateWithPriority(&s[i], hipStreamNonBlocking, prio));
    int back = 12345;
    CHECK_HIP(hipStreamGetPriority(s[i], &back));
    CHECK(back == prio);
    CHECK_HIP(hipMalloc(&d[i], N * sizeof(int)));
    CHECK_HIP(hipMemsetAsync(d[i], 0, N * sizeof(int), s[i]));
    hipLaunchKernelGGL(add_one_n, dim3(N / 64), dim3(64), 0, s[i], d[i], N, i + 1);
    CHECK_HIP(hipGetLastError());
  }
  for (int i = 0; i < count; i++) {
    CHECK_HIP(hipStreamSynchronize(s[i]));
    int h[N];
    CHECK_HIP(hipMemcpy(h, d[i], sizeof(h), hipMemcpyDeviceToHost));
    for (int k = 0; k < N; k++)
      CHECK(h[k] == i + 1);
  }

  // Out-of-range priorities are clamped to the range, not refused.
  hipStream_t lo, hi;
  CHECK_HIP(hipStreamCreateWithPriority(&lo, hipStreamNonBlocking, least + 100));
  CHECK_HIP(hipStreamCreateWithPriority(&hi, hipStreamNonBlocking, greatest - 100));
  int p = 0;
  CHECK_HIP(hipStreamGetPriority(lo, &p));
  CHECK(p == least);
  CHECK_HIP(hipStreamGetPriority(hi, &p));
  CHECK(p == greatest);

  // Ordering across priorities: lo adds 5, hi doubles after waiting for lo's event: 10.
  hipEvent_t e;
  CHECK_HIP(hipEventCreateWithFlags(&e, hipEventDisableTiming));
  CHECK_HIP(hipMemsetAsync(d[0], 0, N * sizeof(int), lo));
  hipLaunchKernelGGL(add_one_n, dim3(N / 64), dim3(64), 0, lo, d[0], N, 5);
  CHECK_HIP(hipEventRecord(e, lo));
  CHECK_HIP(hipStreamWaitEvent(hi, e, 0));
  hipLaunchKernelGGL(times_two, dim3(N / 64), dim3(64), 0, hi, d[0], N);
  CHECK_HIP(hipStreamSynchronize(hi));
  int h[N];
  CHECK_HIP(hipMemcpy(h, d[0], sizeof(h), hipMemcpyDeviceToHost));
  for (int k = 0; k < N; k++)
    CHECK(h[k] == 10);

  // The null stream has the default (lowest-urgency) priority.
  CHECK_HIP(hipStreamGetPriority(0, &p));
  CHECK(p == 0 || p == least);

  CHECK_HIP(hipEventDestroy(e));
  CHECK_HIP(hipStreamDestroy(lo));
  CHECK_HIP(hipStreamDestroy(hi));
  for (int i = 0; i < count; i++) {
    CHECK_HIP(hipStreamDestroy(s[i]));
    CHECK_HIP(hipFree(d[i]));
  }
  free(s);
  free(d);
  printf("PASSED\n");
  return 0;
}
