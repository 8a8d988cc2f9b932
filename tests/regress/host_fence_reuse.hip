// A fence reused while a barrier packet still reads its signal (stream_gpu_reads.c).
//
// A kernel after a host function waits, in a barrier packet, for the host function's fence.
// The host completes that fence; if the fence went back to the pool before the command processor
// consumed the barrier, its next use reset the signal to 1 and the kernel waited forever. This
// replays the pattern of hip-tests' captureComplexGraph (host node, kernels, a pageable copy back)
// many times, with other streams creating and releasing fences meanwhile, and checks every value.
#include <hip/hip_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(x)                                                                  \
  do {                                                                            \
    hipError_t e_ = (x);                                                          \
    if (e_ != hipSuccess) {                                                       \
      std::fprintf(stderr, "%s:%d: %s -> %s\n", __FILE__, __LINE__, #x,         \
                   hipGetErrorString(e_));                                        \
      std::exit(1);                                                               \
    }                                                                             \
  } while (0)

__global__ void add_one(int *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] += 1;
}

static int host_calls;
static void note(void *) { __atomic_add_fetch(&host_calls, 1, __ATOMIC_RELAXED); }

int main() {
  const int n = 4096, rounds = 300;
  int *d;
  std::vector<int> h(n);
  hipStream_t s, others[3];
  CHECK(hipMalloc(&d, n * sizeof(int)));
  CHECK(hipMemset(d, 0, n * sizeof(int)));
  CHECK(hipStreamCreate(&s));
  for (auto &o : others) CHECK(hipStreamCreate(&o));
  hipEvent_t ev;
  CHECK(hipEventCreateWithFlags(&ev, hipEventDisableTiming));
  for (int r = 0; r < rounds; r++) {
    CHECK(hipLaunchHostFunc(s, note, nullptr));
    add_one<<<n / 256, 256, 0, s>>>(d, n);
    add_one<<<n / 256, 256, 0, s>>>(d, n);
    CHECK(hipLaunchHostFunc(s, note, nullptr));
    add_one<<<n / 256, 256, 0, s>>>(d, n);
    // fences created and released elsewhere meanwhile
    for (auto &o : others) {
      CHECK(hipEventRecord(ev, o));
      CHECK(hipStreamWaitEvent(o, ev, 0));
    }
    CHECK(hipMemcpyAsync(h.data(), d, n * sizeof(int), hipMemcpyDeviceToHost, s));
    CHECK(hipStreamSynchronize(s));
    for (int i = 0; i < n; i++)
      if (h[i] != 3 * (r + 1)) {
        std::fprintf(stderr, "round %d: h[%d] = %d, expected %d\n", r, i, h[i], 3 * (r + 1));
        return 1;
      }
  }
  if (host_calls != 2 * rounds) {
    std::fprintf(stderr, "%d host calls, expected %d\n", host_calls, 2 * rounds);
    return 1;
  }
  CHECK(hipEventDestroy(ev));
  for (auto &o : others) CHECK(hipStreamDestroy(o));
  CHECK(hipStreamDestroy(s));
  CHECK(hipFree(d));
  std::printf("host_fence_reuse: %d rounds PASSED\n", rounds);
  return 0;
}
