// Several threads launch kernels on one shared stream while another thread synchronizes, queries
// and records events on it. Every launch must run exactly once (the counter ends at the number of
// launches) and every wait must return; consecutive launches share a completion signal, which
// must stay correct when the stream is shared.
#include <hip/hip_runtime.h>
#include <pthread.h>
#include <stdatomic.h>
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

__global__ void bump(unsigned *counter) { atomicAdd(counter, 1u); }

enum { THREADS = 3, LAUNCHES = 300 };
static hipStream_t shared;
static unsigned *counter;
static atomic_int launchers_done;

static void *launcher(void *)
{
  for (int i = 0; i < LAUNCHES; i++)
    hipLaunchKernelGGL(bump, dim3(1), dim3(1), 0, shared, counter);
  CHECK_HIP(hipGetLastError());
  atomic_fetch_add(&launchers_done, 1);
  return NULL;
}

static void *watcher(void *)
{
  hipEvent_t ev;
  CHECK_HIP(hipEventCreate(&ev));
  while (atomic_load(&launchers_done) < THREADS) {
    CHECK_HIP(hipEventRecord(ev, shared));
    CHECK_HIP(hipEventSynchronize(ev));
    hipError_t q = hipStreamQuery(shared);
    if (q != hipSuccess && q != hipErrorNotReady) {
      fprintf(stderr, "hipStreamQuery -> %d\n", (int)q);
      exit(1);
    }
    CHECK_HIP(hipStreamSynchronize(shared));
  }
  CHECK_HIP(hipEventDestroy(ev));
  return NULL;
}

int main()
{
  CHECK_HIP(hipStreamCreate(&shared));
  CHECK_HIP(hipMalloc((void **)&counter, sizeof(*counter)));
  CHECK_HIP(hipMemset(counter, 0, sizeof(*counter)));
  pthread_t t[THREADS + 1];
  for (int i = 0; i < THREADS; i++)
    pthread_create(&t[i], NULL, launcher, NULL);
  pthread_create(&t[THREADS], NULL, watcher, NULL);
  for (int i = 0; i <= THREADS; i++)
    pthread_join(t[i], NULL);
  CHECK_HIP(hipStreamSynchronize(shared));
  unsigned h = 0;
  CHECK_HIP(hipMemcpy(&h, counter, sizeof(h), hipMemcpyDeviceToHost));
  if (h != THREADS * LAUNCHES) {
    fprintf(stderr, "counter = %u, want %u\n", h, (unsigned)(THREADS * LAUNCHES));
    return 1;
  }
  CHECK_HIP(hipStreamDestroy(shared));
  CHECK_HIP(hipFree(counter));
  printf("PASSED\n");
  return 0;
}
