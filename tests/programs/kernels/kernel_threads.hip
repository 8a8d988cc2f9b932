// Several host threads launch kernels at once, each on its own stream (created per thread) and
// on hipStreamPerThread, with hipMemcpyAsync on the same streams; every thread checks its data.
#include <hip/hip_runtime.h>
#include <pthread.h>
#include "../check.h"

#define THREADS 4
#define N 512
#define ROUNDS 6

__global__ void add_tag(int *v, int n, int tag)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    v[i] += tag;
}

static int failures;

static void *worker(void *arg)
{
  int id = (int)(long)arg;
  int *h = (int *)malloc(N * sizeof(int));
  int *d;
  hipStream_t s;
  if (hipSetDevice(0) != hipSuccess || hipMalloc(&d, N * sizeof(int)) != hipSuccess ||
      hipStreamCreate(&s) != hipSuccess) {
    __atomic_add_fetch(&failures, 1, __ATOMIC_RELAXED);
    return nullptr;
  }
  for (int i = 0; i < N; i++)
    h[i] = id * 100000 + i;
  int ok = hipMemcpyAsync(d, h, N * sizeof(int), hipMemcpyHostToDevice, s) == hipSuccess;
  for (int r = 0; r < ROUNDS; r++) {
    // Alternate between the thread's own stream and its per-thread default stream, ordered by
    // synchronising between them.
    hipStream_t use = (r % 2) ? hipStreamPerThread : s;
    hipLaunchKernelGGL(add_tag, dim3(N / 128), dim3(128), 0, use, d, N, id + r);
    ok &= hipGetLastError() == hipSuccess;
    ok &= hipStreamSynchronize(use) == hipSuccess;
  }
  ok &= hipMemcpyAsync(h, d, N * sizeof(int), hipMemcpyDeviceToHost, s) == hipSuccess;
  ok &= hipStreamSynchronize(s) == hipSuccess;
  int add = 0;
  for (int r = 0; r < ROUNDS; r++)
    add += id + r;
  for (int i = 0; i < N; i++)
    if (h[i] != id * 100000 + i + add) {
      fprintf(stderr, "thread %d: v[%d] = %d\n", id, i, h[i]);
      ok = 0;
      break;
    }
  ok &= hipStreamDestroy(s) == hipSuccess;
  ok &= hipFree(d) == hipSuccess;
  free(h);
  if (!ok)
    __atomic_add_fetch(&failures, 1, __ATOMIC_RELAXED);
  return nullptr;
}

int main()
{
  CHECK_HIP(hipFree(nullptr));   // initialise the runtime before the threads race
  pthread_t t[THREADS];
  for (int i = 0; i < THREADS; i++)
    CHECK(pthread_create(&t[i], nullptr, worker, (void *)(long)i) == 0);
  for (int i = 0; i < THREADS; i++)
    pthread_join(t[i], nullptr);
  CHECK(failures == 0);

  // The same, without the warm-up: threads that each make the first call of their own.
  CHECK_HIP(hipDeviceSynchronize());
  for (int i = 0; i < THREADS; i++)
    CHECK(pthread_create(&t[i], nullptr, worker, (void *)(long)(i + THREADS)) == 0);
  for (int i = 0; i < THREADS; i++)
    pthread_join(t[i], nullptr);
  CHECK(failures == 0);
  printf("PASSED\n");
  return 0;
}
