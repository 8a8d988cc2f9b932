// Host callbacks and host functions run in submission order, after the copies queued before
// them, from a runtime thread.
#include <pthread.h>
#include <string.h>

#include "check.h"

static int order[16];
static int count;
static pthread_t main_thread;
static bool on_other_thread = true;
static unsigned char *watch;

static void cb(hipStream_t, hipError_t status, void *arg)
{
  CHECK(status == hipSuccess);
  order[count++] = (int)(long)arg;
  on_other_thread = on_other_thread && !pthread_equal(pthread_self(), main_thread);
}

static void fn(void *arg)
{
  order[count++] = (int)(long)arg;
  // The copy queued before this function has completed.
  CHECK(watch[0] == 0x5c);
}

int main()
{
  main_thread = pthread_self();
  hipStream_t s;
  CHECK_HIP(hipStreamCreate(&s));
  void *d;
  CHECK_HIP(hipMalloc(&d, 1 << 20));
  CHECK_HIP(hipHostMalloc((void **)&watch, 1 << 20, 0));
  memset(watch, 0, 1 << 20);
  CHECK_HIP(hipMemsetAsync(d, 0x5c, 1 << 20, s));
  CHECK_HIP(hipStreamAddCallback(s, cb, (void *)0L, 0));
  CHECK_HIP(hipMemcpyAsync(watch, d, 1 << 20, hipMemcpyDeviceToHost, s));
  for (long i = 1; i < 10; i++) {
    if (i % 3 == 0)
      CHECK_HIP(LAUNCH_HOST_FUNC(s, fn, (void *)i));
    else
      CHECK_HIP(hipStreamAddCallback(s, cb, (void *)i, 0));
  }
  CHECK_HIP(hipStreamSynchronize(s));
  CHECK(count == 10);
  for (int i = 0; i < 10; i++)
    CHECK(order[i] == i);
  CHECK(on_other_thread);
  CHECK_HIP(hipStreamDestroy(s));
  CHECK_HIP(hipFree(d));
  CHECK_HIP(hipHostFree(watch));
  printf("PASSED\n");
  return 0;
}
