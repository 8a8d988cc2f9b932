// A producer stream and a consumer stream: the consumer waits for the producer's event before
// reading, so it always sees the produced data even though the producer is held back.
#include <string.h>
#include <unistd.h>

#include "check.h"

static void hold(void *) { usleep(20000); }

int main()
{
  const size_t n = 1 << 20;
  hipStream_t prod, cons;
  CHECK_HIP(hipStreamCreateWithFlags(&prod, hipStreamNonBlocking));
  CHECK_HIP(hipStreamCreateWithFlags(&cons, hipStreamNonBlocking));
  hipEvent_t ready;
  CHECK_HIP(hipEventCreateWithFlags(&ready, hipEventDisableTiming));
  void *d;
  unsigned char *out;
  CHECK_HIP(hipMalloc(&d, n));
  CHECK_HIP(hipHostMalloc((void **)&out, n, 0));
  CHECK_HIP(hipMemset(d, 0, n));
  for (int round = 1; round <= 5; round++) {
    CHECK_HIP(LAUNCH_HOST_FUNC(prod, hold, NULL));
    CHECK_HIP(hipMemsetAsync(d, round, n, prod));
    CHECK_HIP(hipEventRecord(ready, prod));
    CHECK_HIP(hipStreamWaitEvent(cons, ready, 0));
    CHECK_HIP(hipMemcpyAsync(out, d, n, hipMemcpyDeviceToHost, cons));
    CHECK_HIP(hipStreamSynchronize(cons));
    for (size_t i = 0; i < n; i += 4093)
      CHECK(out[i] == round);
  }
  CHECK_HIP(hipEventDestroy(ready));
  CHECK_HIP(hipStreamDestroy(prod));
  CHECK_HIP(hipStreamDestroy(cons));
  CHECK_HIP(hipFree(d));
  CHECK_HIP(hipHostFree(out));
  printf("PASSED\n");
  return 0;
}
