// GPU faults never hang a wait: a kernel that traps (__builtin_trap, assert(false), s_trap),
// writes an unmapped address or runs an illegal instruction, on a blocking, a non-blocking or the
// null stream, followed by healthy work on another queue that depends on it (an event wait),
// then one kind of wait on that work: every wait returns the sticky error
// (hipErrorIllegalAddress for a memory fault, hipErrorLaunchFailure for the others), and later
// calls keep returning it. Each case runs
// in its own process (Criterion), bounded by its own timeout: a hang fails the case.
// A "no fault" row runs the same scenarios and expects hipSuccess.
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <hip/hip_runtime.h>

#include <atomic>
#include <cassert>
#include <cstdio>
#include <cstring>
#include <unistd.h>

#define HIP_OK(expr) cr_assert_eq((expr), hipSuccess, "%s", #expr)

enum fault_kind {
  F_NONE,
  F_BUILTIN_TRAP,
  F_ASSERT,
  F_S_TRAP,
  F_ILLEGAL_ADDRESS,
  F_ILLEGAL_INSTRUCTION,
  F_COUNT
};
enum stream_kind { S_BLOCKING, S_NON_BLOCKING, S_NULL, S_COUNT };
enum wait_kind {
  W_STREAM_SYNC,
  W_DEVICE_SYNC,
  W_EVENT_SYNC,
  W_STREAM_QUERY,
  W_EVENT_QUERY,
  W_CALLBACK,
  W_GRAPH_LAUNCH,
  W_MEMCPY_D2H,
  W_FREE,
  W_COUNT
};

static const char *const fault_names[] = {"none", "__builtin_trap", "assert(false)", "s_trap",
                                          "illegal address", "illegal instruction"};
static const char *const stream_names[] = {"blocking", "non-blocking", "null"};
static const char *const wait_names[] = {"hipStreamSynchronize", "hipDeviceSynchronize",
                                         "hipEventSynchronize", "hipStreamQuery",
                                         "hipEventQuery", "host callback",
                                         "hipGraphLaunch", "hipMemcpy D2H", "hipFree"};

struct fault_case {
  int fault, stream, wait;
};

// An address no allocation of this process uses (the GPU VA apertures start far above it).
#define UNMAPPED_VA ((int *)(uintptr_t)0x1000)

__global__ void healthy(int *out, int v) { out[threadIdx.x] = v; }

__global__ void builtin_trap(int *out)
{
  if (out)
    __builtin_trap();
}

__global__ void assert_false(int *out)
{
  assert(out == nullptr); // false: out is a real buffer
}

__global__ void s_trap(int *out)
{
  if (out)
    asm volatile("s_trap 2");
}

__global__ void illegal_address(int *out) { out[threadIdx.x] = 1; }

__global__ void illegal_instruction(int *out)
{
  if (out)
    asm volatile(".long 0xffffffff"); // no gfx9 instruction encodes so
}

static hipError_t expected_error(int fault)
{
  switch (fault) {
  case F_NONE: return hipSuccess;
  case F_ILLEGAL_ADDRESS: return hipErrorIllegalAddress;
  default: return hipErrorLaunchFailure;
  }
}

static void launch_fault(int fault, hipStream_t s, int *buf)
{
  switch (fault) {
  case F_NONE: healthy<<<1, 64, 0, s>>>(buf, 1); break;
  case F_BUILTIN_TRAP: builtin_trap<<<1, 64, 0, s>>>(buf); break;
  case F_ASSERT: assert_false<<<1, 64, 0, s>>>(buf); break;
  case F_S_TRAP: s_trap<<<1, 64, 0, s>>>(buf); break;
  case F_ILLEGAL_ADDRESS: illegal_address<<<1, 64, 0, s>>>(UNMAPPED_VA); break;
  case F_ILLEGAL_INSTRUCTION: illegal_instruction<<<1, 64, 0, s>>>(buf); break;
  }
}

static std::atomic<int> callback_ran;
static std::atomic<int> callback_status;

static void record_status(hipStream_t, hipError_t status, void *)
{
  callback_status = status;
  callback_ran = 1;
}

// A query polled until it stops answering hipErrorNotReady (the test's timeout bounds it).
template <typename Q> static hipError_t poll(Q query)
{
  hipError_t e;
  while ((e = query()) == hipErrorNotReady)
    usleep(200);
  return e;
}

ParameterizedTestParameters(faults, every_wait)
{
  static struct fault_case cases[F_COUNT * S_COUNT * W_COUNT];
  size_t n = 0;
  for (int f = 0; f < F_COUNT; f++)
    for (int s = 0; s < S_COUNT; s++)
      for (int w = 0; w < W_COUNT; w++)
        cases[n++] = {f, s, w};
  return cr_make_param_array(struct fault_case, cases, n);
}

ParameterizedTest(struct fault_case *c, faults, every_wait, .timeout = 60)
{
  const hipError_t want = expected_error(c->fault);
  cr_log_info("fault %s on a %s stream, then %s", fault_names[c->fault], stream_names[c->stream],
              wait_names[c->wait]);

  int *buf = nullptr, *other = nullptr;
  HIP_OK(hipMalloc(&buf, 64 * sizeof(int)));
  HIP_OK(hipMalloc(&other, 64 * sizeof(int)));
  hipStream_t x = nullptr, y;
  if (c->stream != S_NULL)
    HIP_OK(hipStreamCreateWithFlags(&x, c->stream == S_NON_BLOCKING ? hipStreamNonBlocking
                                                                    : hipStreamDefault));
  // The waited-for work runs on another queue and depends on the faulted work through an
  // event: a wait on it can only end by noticing the fault elsewhere.
  HIP_OK(hipStreamCreateWithFlags(&y, hipStreamNonBlocking));
  hipEvent_t ex, ey;
  HIP_OK(hipEventCreateWithFlags(&ex, hipEventDisableTiming));
  HIP_OK(hipEventCreateWithFlags(&ey, hipEventDisableTiming));

  // Built before the fault: after it, building may itself be refused.
  hipGraph_t graph = nullptr;
  hipGraphExec_t exec = nullptr;
  if (c->wait == W_GRAPH_LAUNCH) {
    hipStream_t cap;
    HIP_OK(hipStreamCreateWithFlags(&cap, hipStreamNonBlocking));
    HIP_OK(hipStreamBeginCapture(cap, hipStreamCaptureModeThreadLocal));
    healthy<<<1, 64, 0, cap>>>(other, 3);
    HIP_OK(hipStreamEndCapture(cap, &graph));
    HIP_OK(hipGraphInstantiate(&exec, graph, nullptr, nullptr, 0));
    HIP_OK(hipStreamDestroy(cap));
  }

  launch_fault(c->fault, x, buf);
  HIP_OK(hipEventRecord(ex, x));
  HIP_OK(hipStreamWaitEvent(y, ex, 0));
  healthy<<<1, 64, 0, y>>>(other, 2);
  HIP_OK(hipEventRecord(ey, y));
  // Null-stream work behind the faulted work too (the legacy rule orders it after a blocking
  // stream; the event orders it in every case).
  HIP_OK(hipStreamWaitEvent(nullptr, ex, 0));
  healthy<<<1, 64, 0, nullptr>>>(other, 4);

  hipError_t got = hipSuccess;
  int host[64];
  switch (c->wait) {
  case W_STREAM_SYNC: got = hipStreamSynchronize(y); break;
  case W_DEVICE_SYNC: got = hipDeviceSynchronize(); break;
  case W_EVENT_SYNC: got = hipEventSynchronize(ey); break;
  case W_STREAM_QUERY: got = poll([&] { return hipStreamQuery(y); }); break;
  case W_EVENT_QUERY: got = poll([&] { return hipEventQuery(ey); }); break;
  case W_CALLBACK: {
    // The null-stream launch above may already have met the fault (its queue stopped): then
    // the error is sticky and adding a callback is refused with it, as CUDA does.
    hipError_t added = hipStreamAddCallback(y, record_status, nullptr, 0);
    cr_assert(added == hipSuccess || added == want, "hipStreamAddCallback: %d", added);
    if (added == hipSuccess) {
      while (!callback_ran)
        usleep(200);
      cr_assert_eq(callback_status, want, "the callback's status: %d", (int)callback_status);
    }
    got = hipStreamSynchronize(y);
    break;
  }
  case W_GRAPH_LAUNCH: {
    hipError_t launched = hipGraphLaunch(exec, y);
    cr_assert(launched == hipSuccess || launched == want, "hipGraphLaunch: %d", launched);
    got = hipStreamSynchronize(y);
    break;
  }
  case W_MEMCPY_D2H: got = hipMemcpy(host, other, sizeof(host), hipMemcpyDeviceToHost); break;
  case W_FREE: got = hipFree(other); other = nullptr; break;
  }
  cr_assert_eq(got, want, "%s after %s on a %s stream: %d (%s), expected %d",
               wait_names[c->wait], fault_names[c->fault], stream_names[c->stream], got,
               hipGetErrorName(got), want);

  // The error sticks: later waits of every kind report it, without hanging.
  cr_assert_eq(hipDeviceSynchronize(), want);
  cr_assert_eq(hipStreamSynchronize(y), want);
  cr_assert_eq(hipEventSynchronize(ex), want);
  cr_assert_eq(hipGetLastError(), want);
  if (want == hipSuccess && other) {
    HIP_OK(hipMemcpy(host, other, sizeof(host), hipMemcpyDeviceToHost));
    for (int i = 0; i < 64; i++)
      cr_assert(host[i] == 2 || host[i] == 3 || host[i] == 4, "work ran: %d", host[i]);
  }
}

// hipDeviceReset ends the failed state: work runs and waits succeed again.
Test(faults, device_reset_recovers, .timeout = 60)
{
  int *buf = nullptr;
  HIP_OK(hipMalloc(&buf, 64 * sizeof(int)));
  hipStream_t s;
  HIP_OK(hipStreamCreate(&s));
  builtin_trap<<<1, 64, 0, s>>>(buf);
  healthy<<<1, 64>>>(buf, 5);
  cr_assert_eq(hipDeviceSynchronize(), hipErrorLaunchFailure);
  HIP_OK(hipDeviceReset());
  HIP_OK(hipMalloc(&buf, 64 * sizeof(int)));
  HIP_OK(hipStreamCreate(&s));
  healthy<<<1, 64, 0, s>>>(buf, 6);
  healthy<<<1, 64>>>(buf, 7);
  HIP_OK(hipDeviceSynchronize());
  int host[64];
  HIP_OK(hipMemcpy(host, buf, sizeof(host), hipMemcpyDeviceToHost));
  for (int i = 0; i < 64; i++)
    cr_assert_eq(host[i], 7);
  HIP_OK(hipStreamDestroy(s));
  HIP_OK(hipFree(buf));
}

// An interprocess event recorded behind a trap: its shared slot is never cleared, and the wait
// and query end with the sticky error all the same. The kernel traps only once the host lets
// it, after the record (a record on a queue already known to have failed may be refused).
__global__ void trap_when_released(volatile int *release)
{
  while (!*release)
    ;
  __builtin_trap();
}

Test(faults, interprocess_event, .timeout = 60)
{
  int *release = nullptr;
  HIP_OK(hipHostMalloc(&release, sizeof(int), hipHostMallocCoherent));
  *release = 0;
  hipStream_t s;
  HIP_OK(hipStreamCreateWithFlags(&s, hipStreamNonBlocking));
  hipEvent_t e;
  HIP_OK(hipEventCreateWithFlags(&e, hipEventInterprocess | hipEventDisableTiming));
  trap_when_released<<<1, 1, 0, s>>>(release);
  HIP_OK(hipEventRecord(e, s));
  cr_assert_eq(hipEventQuery(e), hipErrorNotReady);
  __atomic_store_n(release, 1, __ATOMIC_RELEASE);
  hipError_t q = poll([&] { return hipEventQuery(e); });
  cr_assert_eq(q, hipErrorLaunchFailure, "hipEventQuery: %d", q);
  cr_assert_eq(hipEventSynchronize(e), hipErrorLaunchFailure);
}
