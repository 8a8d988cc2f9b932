// Legacy default-stream semantics: work on the null stream waits for blocking streams, but not
// for non-blocking ones.
#include <unistd.h>

#include "check.h"

static volatile int blocking_done, nonblocking_done;
static volatile int release_nonblocking;

static void slow_blocking(void *) { usleep(30000); blocking_done = 1; }
static void gated_nonblocking(void *)
{
  while (!release_nonblocking)
    usleep(200);
  nonblocking_done = 1;
}

int main()
{
  hipStream_t blocking, nonblocking;
  CHECK_HIP(hipStreamCreate(&blocking));
  CHECK_HIP(hipStreamCreateWithFlags(&nonblocking, hipStreamNonBlocking));
  CHECK_HIP(LAUNCH_HOST_FUNC(nonblocking, gated_nonblocking, NULL));
  CHECK_HIP(LAUNCH_HOST_FUNC(blocking, slow_blocking, NULL));
  void *d;
  int v = 5, back = 0;
  CHECK_HIP(hipMalloc(&d, 4));
  // A synchronous copy on the null stream: returns after the blocking stream's work, while the
  // non-blocking stream is still held.
  CHECK_HIP(hipMemcpy(d, &v, 4, hipMemcpyHostToDevice));
  CHECK(blocking_done == 1);
  CHECK(nonblocking_done == 0);
  EXPECT_HIP(hipStreamQuery(nonblocking), hipErrorNotReady);
  release_nonblocking = 1;
  CHECK_HIP(hipStreamSynchronize(nonblocking));
  CHECK(nonblocking_done == 1);
  CHECK_HIP(hipMemcpy(&back, d, 4, hipMemcpyDeviceToHost));
  CHECK(back == 5);
  CHECK_HIP(hipStreamDestroy(blocking));
  CHECK_HIP(hipStreamDestroy(nonblocking));
  CHECK_HIP(hipFree(d));
  printf("PASSED\n");
  return 0;
}
