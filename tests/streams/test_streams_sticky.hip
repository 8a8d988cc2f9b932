// Sticky means stopped (issue 12 item 3): once a GPU fault made the error sticky, calls return it
// without doing their work (no allocation, copy, fill, launch, stream or event work) and leave
// their outputs alone; the queries of tools/gate/sticky_allowed.tsv keep answering; hipDeviceReset
// clears the error and the device computes again. Each Test runs in its own process (Criterion).
#include <criterion/criterion.h>
#include <hip/hip_runtime.h>

#include <string.h>
#include <unistd.h>

#define HIP_OK(expr) cr_assert_eq((expr), hipSuccess, "%s", #expr)

__global__ void trap_kernel() { __builtin_trap(); }

__global__ void bad_store(int *p) { p[threadIdx.x] = 1; }

__global__ void fill(int *out, int v) { out[threadIdx.x] = v; }

enum { N = 64 };

// Faults the device and returns the sticky error the fault left.
static hipError_t fault(bool trap)
{
  if (trap)
    trap_kernel<<<1, N>>>();
  else
    bad_store<<<1, N>>>(reinterpret_cast<int *>(0x1000)); // nothing is mapped there
  hipError_t e = hipDeviceSynchronize();
  cr_assert(e == hipErrorIllegalAddress || e == hipErrorLaunchFailure,
            "the fault returned %s", hipGetErrorName(e));
  return e;
}

static void calls_stop(bool trap)
{
  int *host_visible, *dev;
  hipStream_t stream;
  hipEvent_t event;
  HIP_OK(hipHostMalloc(&host_visible, N * sizeof(int), hipHostMallocDefault));
  HIP_OK(hipMalloc(&dev, N * sizeof(int)));
  HIP_OK(hipStreamCreate(&stream));
  HIP_OK(hipEventCreate(&event));
  memset(host_visible, 0xab, N * sizeof(int));

  hipError_t sticky = fault(trap);
  size_t free0 = 0, total = 0;
  HIP_OK(hipMemGetInfo(&free0, &total));

  // No allocation: the output is untouched and the device's free memory unchanged.
  void *p = reinterpret_cast<void *>(0x5151);
  cr_assert_eq(hipMalloc(&p, 64 << 20), sticky);
  cr_assert_eq(p, reinterpret_cast<void *>(0x5151));
  size_t free1 = 0;
  HIP_OK(hipMemGetInfo(&free1, &total));
  cr_assert_eq(free1, free0, "hipMalloc allocated after the fault (%zu -> %zu)", free0, free1);

  // No copy, no fill: the destination bytes are the ones written before.
  int src[N], dst[N];
  memset(src, 0x11, sizeof(src));
  memset(dst, 0x22, sizeof(dst));
  cr_assert_eq(hipMemcpy(dst, src, sizeof(dst), hipMemcpyHostToHost), sticky);
  cr_assert_eq(hipMemcpy(host_visible, src, sizeof(src), hipMemcpyHostToDevice), sticky);
  cr_assert_eq(hipMemcpyAsync(host_visible, src, sizeof(src), hipMemcpyDefault, stream), sticky);
  cr_assert_eq(hipMemset(host_visible, 0, N * sizeof(int)), sticky);
  cr_assert_eq(hipMemsetAsync(host_visible, 0, N * sizeof(int), stream), sticky);
  for (int i = 0; i < N; i++) {
    cr_assert_eq(dst[i], 0x22222222);
    cr_assert_eq(host_visible[i], (int)0xabababab, "word %d was written after the fault", i);
  }

  // No launch: the kernel would have written 7 into host-visible memory.
  int v = 7;
  void *args[] = {&host_visible, &v};
  cr_assert_eq(hipLaunchKernel(reinterpret_cast<const void *>(fill), dim3(1), dim3(N), args, 0, stream),
               sticky);
  fill<<<1, N, 0, stream>>>(host_visible, 7);
  cr_assert_eq(hipGetLastError(), sticky);
  usleep(200 * 1000);
  for (int i = 0; i < N; i++)
    cr_assert_eq(host_visible[i], (int)0xabababab, "a kernel ran after the fault");

  // No new stream or event work; outputs untouched.
  hipStream_t s2 = reinterpret_cast<hipStream_t>(0x7777);
  cr_assert_eq(hipStreamCreate(&s2), sticky);
  cr_assert_eq(s2, reinterpret_cast<hipStream_t>(0x7777));
  cr_assert_eq(hipEventRecord(event, stream), sticky);
  cr_assert_eq(hipStreamSynchronize(stream), sticky);
  cr_assert_eq(hipFree(dev), sticky);

  // What keeps working: error queries (the error cannot be cleared), device enumeration.
  int count = 0, device = -1;
  HIP_OK(hipGetDeviceCount(&count));
  cr_assert_eq(count, 1);
  HIP_OK(hipGetDevice(&device));
  cr_assert_eq(device, 0);
  cr_assert_eq(hipPeekAtLastError(), sticky);
  cr_assert_eq(hipGetLastError(), sticky);
  cr_assert_eq(hipGetLastError(), sticky, "reading the sticky error does not clear it");
}

Test(sticky, trap_stops_later_calls, .timeout = 120) { calls_stop(true); }

Test(sticky, illegal_address_stops_later_calls, .timeout = 120) { calls_stop(false); }

// hipDeviceReset ends the sticky state; the device computes the right answer again.
static void reset_recovers(bool trap)
{
  (void)fault(trap);
  HIP_OK(hipDeviceReset());
  (void)hipGetLastError(); // the thread's record of the fault, once
  cr_assert_eq(hipGetLastError(), hipSuccess, "the reset clears the sticky error");

  int *dev;
  int host[N];
  HIP_OK(hipMalloc(&dev, sizeof(host)));
  fill<<<1, N>>>(dev, 42);
  HIP_OK(hipGetLastError());
  HIP_OK(hipMemcpy(host, dev, sizeof(host), hipMemcpyDeviceToHost));
  for (int i = 0; i < N; i++)
    cr_assert_eq(host[i], 42, "word %d: %d", i, host[i]);

  // A created stream works too.
  hipStream_t s;
  HIP_OK(hipStreamCreate(&s));
  fill<<<1, N, 0, s>>>(dev, 5);
  HIP_OK(hipStreamSynchronize(s));
  HIP_OK(hipMemcpy(host, dev, sizeof(host), hipMemcpyDeviceToHost));
  cr_assert_eq(host[N - 1], 5);
  HIP_OK(hipStreamDestroy(s));
  HIP_OK(hipFree(dev));
}

Test(sticky, reset_after_trap_computes_again, .timeout = 120) { reset_recovers(true); }

Test(sticky, reset_after_illegal_address_computes_again, .timeout = 120) { reset_recovers(false); }
