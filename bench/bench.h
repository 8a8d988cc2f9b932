/* bench/: shared pieces of the latency and throughput tools.
 *
 * Every benchmark binary reaches the HIP runtime only through dlopen(), so the same binary runs
 * against any libamdhip64 (ours or AMD's): the library is HIPKFD_BENCH_LIB (a path or a soname,
 * default "libamdhip64.so"). Results are printed as a readable table and as JSON lines:
 *   {"name": ..., "median": ..., "p10": ..., "p90": ..., "n": ..., "unit": ...}
 */
#ifndef HIPKFD_BENCH_H
#define HIPKFD_BENCH_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <hip/hip_runtime_api.h>

/* The HIP entry points the benchmarks use, resolved from the library under test. */
struct bench_hip {
  void *lib;
  double load_ns;                    /* time dlopen() took */
  __typeof__(&hipInit) Init;
  __typeof__(&hipGetDeviceCount) GetDeviceCount;
  __typeof__(&hipSetDevice) SetDevice;
  __typeof__(&hipMalloc) Malloc;
  __typeof__(&hipFree) Free;
  __typeof__(&hipHostMalloc) HostMalloc;
  __typeof__(&hipHostFree) HostFree;
  __typeof__(&hipMemcpy) Memcpy;
  __typeof__(&hipDeviceSynchronize) DeviceSynchronize;
  __typeof__(&hipStreamCreate) StreamCreate;
  __typeof__(&hipStreamDestroy) StreamDestroy;
  __typeof__(&hipStreamSynchronize) StreamSynchronize;
  __typeof__(&hipEventCreate) EventCreate;
  __typeof__(&hipEventDestroy) EventDestroy;
  __typeof__(&hipEventRecord) EventRecord;
  __typeof__(&hipEventSynchronize) EventSynchronize;
  __typeof__(&hipEventQuery) EventQuery;
  __typeof__(&hipModuleLoadData) ModuleLoadData;
  __typeof__(&hipModuleGetFunction) ModuleGetFunction;
  __typeof__(&hipModuleLaunchKernel) ModuleLaunchKernel;
  __typeof__(&hipLaunchKernel) LaunchKernel;
  __typeof__(&hipGetErrorName) GetErrorName;
  void **(*RegisterFatBinary)(const void *wrapper);
  void (*RegisterFunction)(void **module, const void *host_fn, char *device_fn,
                           const char *device_name, unsigned thread_limit, void *tid,
                           void *bid, dim3 *block, dim3 *grid, int *wsize);
};

/* Opens the library under test and resolves every entry point; exits with a message naming the
 * missing symbol otherwise. */
void bench_hip_open(struct bench_hip *h);

/* Exits with the call's text and the error's name when `err` is not hipSuccess. */
#define BENCH_CHECK(h, call)                                                        \
  do {                                                                              \
    hipError_t bench_err_ = (call);                                                 \
    if (bench_err_ != hipSuccess)                                                   \
      bench_fail(__FILE__, __LINE__, #call, (h)->GetErrorName                       \
                 ? (h)->GetErrorName(bench_err_) : "?", (int)bench_err_);            \
  } while (0)
void bench_fail(const char *file, int line, const char *call, const char *name, int code)
    __attribute__((noreturn));

/* Monotonic time in nanoseconds. */
static inline uint64_t bench_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* One benchmark's samples; bench_report() sorts them and prints the table row and JSON line. */
struct bench_samples {
  double *v;
  size_t n, cap;
};
void bench_samples_add(struct bench_samples *s, double value);
void bench_report(const char *name, struct bench_samples *s, const char *unit);
void bench_report_note(const char *name, const char *why); /* a benchmark that cannot run */
void bench_table_header(const char *title);

/* The empty kernel used by the launch benchmarks: an offload bundle (gfx90a and gfx942, code
 * object v4 so that older runtimes load it too), linked into each binary by bench_kernels.S. */
extern const unsigned char bench_empty_bundle[];
extern const unsigned char bench_empty_bundle_end[];

/* Registers the bundle with __hipRegisterFatBinary/__hipRegisterFunction, exactly as a
 * clang-built program's constructor does, and returns the host stub for hipLaunchKernel. */
const void *bench_register_empty_kernel(struct bench_hip *h);

/* Iteration count: HIPKFD_BENCH_ITERS overrides the default. */
size_t bench_iters(size_t fallback);

#endif
