// Threads creating and destroying streams (each stream's first launch makes an AQL queue: ring,
// kernarg and EOP buffers) at the same time. A freed buffer's address range used to be returned
// to the kernel before the buffer itself, so another thread could be given that range and have
// its allocation there refused (-EINVAL): a launch failed with hipErrorInvalidValue about one run
// in thirty of tests/programs kernel_threads (src/memory/block.c mem_block_release).
#include <hip/hip_runtime.h>

#include <pthread.h>
#include <cstdio>

#define THREADS 4
#define ROUNDS 40

__global__ void set(int *p, int v) { p[threadIdx.x] = v; }

static int failures;

static void *worker(void *arg)
{
  int id = (int)(long)arg;
  int *d = nullptr, h[64];
  if (hipSetDevice(0) != hipSuccess || hipMalloc(&d, sizeof(h)) != hipSuccess) {
    __atomic_add_fetch(&failures, 1, __ATOMIC_RELAXED);
    return nullptr;
  }
  for (int r = 0; r < ROUNDS; r++) {
    hipStream_t s;
    int v = id * 1000 + r;
    bool ok = hipStreamCreate(&s) == hipSuccess;
    if (ok) {
      hipLaunchKernelGGL(set, dim3(1), dim3(64), 0, s, d, v);
      ok = hipGetLastError() == hipSuccess && hipStreamSynchronize(s) == hipSuccess &&
           hipMemcpy(h, d, sizeof(h), hipMemcpyDeviceToHost) == hipSuccess &&
           h[0] == v && h[63] == v;
      ok = (hipStreamDestroy(s) == hipSuccess) && ok;
    }
    if (!ok) {
      std::fprintf(stderr, "thread %d round %d failed\n", id, r);
      __atomic_add_fetch(&failures, 1, __ATOMIC_RELAXED);
      break;
    }
  }
  (void)hipFree(d);
  return nullptr;
}

int main()
{
  if (hipFree(nullptr) != hipSuccess)
    return 1;
  pthread_t t[THREADS];
  for (int i = 0; i < THREADS; i++)
    pthread_create(&t[i], nullptr, worker, (void *)(long)i);
  for (int i = 0; i < THREADS; i++)
    pthread_join(t[i], nullptr);
  if (failures) {
    std::fprintf(stderr, "%d threads failed\n", failures);
    return 1;
  }
  std::printf("concurrent_queue_create: PASSED\n");
  return 0;
}
