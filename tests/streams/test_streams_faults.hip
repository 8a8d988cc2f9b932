// A fault on one stream ends the waits for work on every stream: a trap or an illegal address in
// a kernel, then work on other streams that depends on it (the legacy null stream's implicit
// wait, an event wait) or not, then each kind of wait. Every wait must return an error promptly
// (the test's own timeout bounds it), never hang. Each Test runs in its own process (Criterion),
// so each starts with a healthy context.
#include <criterion/criterion.h>
#include <hip/hip_runtime.h>

#define HIP_OK(expr) cr_assert_eq((expr), hipSuccess, "%s", #expr)

__global__ void trap_kernel() { __builtin_trap(); }

__global__ void bad_store(int *p) { p[threadIdx.x] = 1; }

__global__ void fill(int *out, int v) { out[threadIdx.x] = v; }

enum fault { TRAP, ILLEGAL_ADDRESS };

static void fault_on(hipStream_t s, fault f)
{
  if (f == TRAP)
    trap_kernel<<<1, 64, 0, s>>>();
  else
    bad_store<<<1, 64, 0, s>>>(reinterpret_cast<int *>(0x1000)); // nothing is mapped there
}

static void expect_failed(hipError_t e, const char *what)
{
  cr_assert_neq(e, hipSuccess, "%s returned hipSuccess after a fault", what);
  cr_assert_neq(e, hipErrorNotReady, "%s returned hipErrorNotReady after a fault", what);
}

// A blocking stream faults; the null stream's kernel waits for it (legacy synchronisation).
static void null_stream_after(fault f)
{
  hipStream_t s;
  int *out;
  HIP_OK(hipMalloc(&out, 64 * sizeof(int)));
  HIP_OK(hipStreamCreate(&s));
  fault_on(s, f);
  fill<<<1, 64>>>(out, 7);
  expect_failed(hipDeviceSynchronize(), "hipDeviceSynchronize");
}

Test(stream_faults, trap_then_null_stream_then_device_sync, .timeout = 60)
{
  null_stream_after(TRAP);
}

Test(stream_faults, illegal_address_then_null_stream_then_device_sync, .timeout = 60)
{
  null_stream_after(ILLEGAL_ADDRESS);
}

// A non-blocking stream faults; a second non-blocking stream waits on an event recorded after
// the fault, then records its own event.
static void event_chain_after(fault f, int wait_kind)
{
  hipStream_t a, b;
  hipEvent_t after_fault, done;
  int *out;
  HIP_OK(hipMalloc(&out, 64 * sizeof(int)));
  HIP_OK(hipStreamCreateWithFlags(&a, hipStreamNonBlocking));
  HIP_OK(hipStreamCreateWithFlags(&b, hipStreamNonBlocking));
  HIP_OK(hipEventCreate(&after_fault));
  HIP_OK(hipEventCreate(&done));
  fault_on(a, f);
  HIP_OK(hipEventRecord(after_fault, a));
  HIP_OK(hipStreamWaitEvent(b, after_fault, 0));
  fill<<<1, 64, 0, b>>>(out, 3);
  HIP_OK(hipEventRecord(done, b));
  switch (wait_kind) {
  case 0: expect_failed(hipEventSynchronize(done), "hipEventSynchronize"); break;
  case 1: expect_failed(hipStreamSynchronize(b), "hipStreamSynchronize"); break;
  case 2: {
    int host[64];
    expect_failed(hipMemcpyAsync(host, out, sizeof(host), hipMemcpyDeviceToHost, b) == hipSuccess
                      ? hipStreamSynchronize(b)
                      : hipErrorLaunchFailure,
                  "hipMemcpyAsync + hipStreamSynchronize");
    break;
  }
  default: {
    hipError_t e;
    while ((e = hipEventQuery(done)) == hipErrorNotReady)
      ;
    expect_failed(e, "hipEventQuery");
  }
  }
}

Test(stream_faults, trap_then_event_wait_then_event_sync, .timeout = 60)
{
  event_chain_after(TRAP, 0);
}

Test(stream_faults, trap_then_event_wait_then_stream_sync, .timeout = 60)
{
  event_chain_after(TRAP, 1);
}

Test(stream_faults, illegal_address_then_event_wait_then_copy, .timeout = 60)
{
  event_chain_after(ILLEGAL_ADDRESS, 2);
}

Test(stream_faults, illegal_address_then_event_wait_then_query, .timeout = 60)
{
  event_chain_after(ILLEGAL_ADDRESS, 3);
}

// Work on a stream that does not depend on the faulted one: its wait reports the context's
// error too (CUDA: the context is unusable after a fault), instead of succeeding or hanging.
Test(stream_faults, trap_then_independent_stream_sync, .timeout = 60)
{
  hipStream_t a, b;
  HIP_OK(hipStreamCreateWithFlags(&a, hipStreamNonBlocking));
  HIP_OK(hipStreamCreateWithFlags(&b, hipStreamNonBlocking));
  fault_on(a, TRAP);
  expect_failed(hipStreamSynchronize(a), "hipStreamSynchronize of the faulted stream");
  expect_failed(hipDeviceSynchronize(), "hipDeviceSynchronize");
}
