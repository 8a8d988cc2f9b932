// Two streams: a producer kernel and a consumer kernel ordered by an event; kernel time measured
// with events is non-negative; hipEventQuery reports completion.
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

__global__ void produce(float *a, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    a[i] = (float)i * 0.5f;
}

__global__ void consume(const float *a, float *b, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    b[i] = a[i] + 1.0f;
}

int main()
{
  const int n = 1 << 14;
  hipStream_t p, c;
  CHECK_HIP(hipStreamCreateWithFlags(&p, hipStreamNonBlocking));
  CHECK_HIP(hipStreamCreateWithFlags(&c, hipStreamNonBlocking));
  float *a, *b;
  CHECK_HIP(hipMalloc((void **)&a, n * sizeof(float)));
  CHECK_HIP(hipMalloc((void **)&b, n * sizeof(float)));
  hipEvent_t start, produced, done;
  CHECK_HIP(hipEventCreate(&start));
  CHECK_HIP(hipEventCreate(&produced));
  CHECK_HIP(hipEventCreate(&done));
  CHECK_HIP(hipEventRecord(start, p));
  hipLaunchKernelGGL(produce, dim3(n / 256), dim3(256), 0, p, a, n);
  CHECK_HIP(hipEventRecord(produced, p));
  CHECK_HIP(hipStreamWaitEvent(c, produced, 0));
  hipLaunchKernelGGL(consume, dim3(n / 256), dim3(256), 0, c, a, b, n);
  CHECK_HIP(hipEventRecord(done, c));
  CHECK_HIP(hipEventSynchronize(done));
  CHECK_HIP(hipEventQuery(done));
  float ms = -1;
  CHECK_HIP(hipEventElapsedTime(&ms, start, produced));
  printf("producer kernel: %.3f ms\n", ms);
  if (ms < 0)
    return 1;
  float *h = (float *)malloc(n * sizeof(float));
  CHECK_HIP(hipMemcpy(h, b, n * sizeof(float), hipMemcpyDeviceToHost));
  for (int i = 0; i < n; i++)
    if (h[i] != (float)i * 0.5f + 1.0f) {
      fprintf(stderr, "b[%d] = %f\n", i, h[i]);
      return 1;
    }
  CHECK_HIP(hipEventDestroy(start));
  CHECK_HIP(hipEventDestroy(produced));
  CHECK_HIP(hipEventDestroy(done));
  CHECK_HIP(hipStreamDestroy(p));
  CHECK_HIP(hipStreamDestroy(c));
  CHECK_HIP(hipFree(a));
  CHECK_HIP(hipFree(b));
  free(h);
  printf("PASSED\n");
  return 0;
}
