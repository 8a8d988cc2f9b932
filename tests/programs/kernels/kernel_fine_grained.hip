// hipExtMallocWithFlags(hipDeviceMallocFinegrained): device memory the host can read while a
// kernel runs. The kernel publishes progress through it and waits for the host's answer through
// the same memory: a ping-pong of rounds that only completes if both directions are coherent.
#include <hip/hip_runtime.h>
#include "../check.h"

#define ROUNDS 5

__global__ void ping_pong(volatile int *box, int *result)
{
  if (threadIdx.x != 0)
    return;
  int sum = 0;
  for (int r = 1; r <= ROUNDS; r++) {
    box[0] = r;                        // ping: round r started
    __threadfence_system();
    while (box[1] != r * 10)           // wait for the host's pong
      __builtin_amdgcn_s_sleep(2);
    sum += box[1];
  }
  result[0] = sum;
}

int main()
{
  int *box = nullptr, *result = nullptr;
  CHECK_HIP(hipExtMallocWithFlags((void **)&box, 2 * sizeof(int), hipDeviceMallocFinegrained));
  CHECK(box != nullptr);
  CHECK_HIP(hipMalloc(&result, sizeof(int)));
  CHECK_HIP(hipMemset(box, 0, 2 * sizeof(int)));
  CHECK_HIP(hipDeviceSynchronize());

  hipPointerAttribute_t attr;
  CHECK_HIP(hipPointerGetAttributes(&attr, box));
  CHECK(attr.device == 0);

  hipLaunchKernelGGL(ping_pong, dim3(1), dim3(64), 0, 0, (volatile int *)box, result);
  CHECK_HIP(hipGetLastError());
  volatile int *vb = box;
  for (int r = 1; r <= ROUNDS; r++) {
    // Bounded by the kernel's progress, not by time: the stream must not be done meanwhile.
    while (vb[0] != r) {
      if (hipStreamQuery(0) == hipSuccess) {
        fprintf(stderr, "kernel finished before round %d was seen\n", r);
        return 1;
      }
    }
    __atomic_store_n(&box[1], r * 10, __ATOMIC_RELEASE);
  }
  CHECK_HIP(hipDeviceSynchronize());
  int h = 0;
  CHECK_HIP(hipMemcpy(&h, result, sizeof(h), hipMemcpyDeviceToHost));
  CHECK(h == 10 + 20 + 30 + 40 + 50);
  CHECK(vb[0] == ROUNDS);

  // Unknown flags are refused.
  void *bad = nullptr;
  CHECK(hipExtMallocWithFlags(&bad, 64, 0x80000000u) != hipSuccess);
  (void)hipGetLastError();
  CHECK_HIP(hipFree(box));
  CHECK_HIP(hipFree(result));
  printf("PASSED\n");
  return 0;
}
