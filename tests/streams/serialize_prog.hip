// The program test_streams_serialize runs with the serialization variables in its environment
// from the start. One mode per run; it prints what it saw for the test to assert:
//   serialize_prog kernel   a ~1 s kernel on a stream: "launch=<code> finished_at_return=<0|1>"
//   serialize_prog copy     the same kernel, then an async copy on its stream: "copy=<code>
//                           finished_at_return=<0|1>" (the copy waits for the kernel before it)
//   serialize_prog fault    a trapping kernel: "launch=<code>"
//   serialize_prog illegal  a store to an unmapped address, then a wait: "sync=<code>" (and the
//                           fault report on stderr)
// The kernel writes its flag into host memory as its last act, so the flag says whether the
// kernel had finished when the call returned.
#include <hip/hip_runtime.h>

#include <cstdio>
#include <cstring>

__global__ void long_kernel(unsigned long long ticks, volatile int *flag)
{
  unsigned long long start = clock64();
  while (clock64() - start < ticks) {
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence_system();
    *flag = 1;
  }
}

__global__ void trap_kernel() { __builtin_trap(); }

__global__ void bad_store(int *p) { p[threadIdx.x] = 1; }

int main(int argc, char **argv)
{
  const char *mode = argc > 1 ? argv[1] : "kernel";
  int rate_khz = 0, *flag = nullptr, *dev = nullptr, *host = nullptr;
  hipStream_t s;
  if (hipDeviceGetAttribute(&rate_khz, hipDeviceAttributeClockRate, 0) != hipSuccess ||
      hipHostMalloc(&flag, sizeof(int), hipHostMallocDefault) != hipSuccess ||
      hipHostMalloc(&host, sizeof(int), hipHostMallocDefault) != hipSuccess ||
      hipMalloc(&dev, sizeof(int)) != hipSuccess || hipStreamCreate(&s) != hipSuccess) {
    printf("setup failed\n");
    return 1;
  }
  *flag = 0;
  unsigned long long ticks = (unsigned long long)rate_khz * 1000; // one second of the clock
  void *args[] = {&ticks, &flag};
  if (strcmp(mode, "illegal") == 0) {
    // A store to an address nothing maps: the fault report (stderr) names kernel and address.
    int *wild = reinterpret_cast<int *>(0x7f0000001000ull);
    void *bargs[] = {&wild};
    (void)hipLaunchKernel(reinterpret_cast<const void *>(bad_store), dim3(1), dim3(64), bargs, 0, s);
    printf("sync=%d\n", (int)hipStreamSynchronize(s));
    return 0;
  }
  if (strcmp(mode, "fault") == 0) {
    hipError_t e = hipLaunchKernel(reinterpret_cast<const void *>(trap_kernel), dim3(1), dim3(64),
                                   nullptr, 0, s);
    printf("launch=%d\n", (int)e);
    return 0;
  }
  hipError_t e = hipLaunchKernel(reinterpret_cast<const void *>(long_kernel), dim3(1), dim3(64),
                                 args, 0, s);
  if (strcmp(mode, "copy") == 0) {
    // Into pinned memory: a copy into pageable memory returns once done anyway.
    e = hipMemcpyAsync(host, dev, sizeof(int), hipMemcpyDeviceToHost, s);
    printf("copy=%d finished_at_return=%d\n", (int)e, *(volatile int *)flag);
  } else {
    printf("launch=%d finished_at_return=%d\n", (int)e, *(volatile int *)flag);
  }
  hipError_t sync = hipStreamSynchronize(s);
  printf("sync=%d flag=%d\n", (int)sync, *(volatile int *)flag);
  return 0;
}
