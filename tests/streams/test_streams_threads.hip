// Streams shared between host threads: 8 threads, 8 streams each (6 of their own, 2 of 4
// streams every thread shares), each iteration a fresh allocation, kernels, device-to-device
// and device-to-host copies (the small ones go through the stream's callback worker while the
// stream is busy), an event handed to the next thread, which makes one of its streams wait for
// it and reads the allocation before freeing it; queries of the shared streams, events every
// thread records and waits for, host callbacks, device-wide waits and null-stream work in
// between. Every value read back is checked, every callback counted.
//
// The same source is the ThreadSanitizer tier's stress test (tests/streams/CMakeLists.txt:
// HIPKFD_TSAN builds it and the runtime with -fsanitize=thread). HIPKFD_STRESS_ITERS sets the
// iterations per thread.
#ifndef STREAMS_THREADS_MAIN
#include <criterion/criterion.h>
#endif
#include <hip/hip_runtime.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

enum { THREADS = 8, STREAMS = 8, OWN = 6, SHARED = 4, N = 256 };

__global__ void fill(int *p, int v)
{
  p[threadIdx.x] = v;
}

__global__ void add(int *p, int k)
{
  p[threadIdx.x] += k;
}

// An allocation handed from one thread to the next, with the event that says it is written.
struct handoff {
  int *d;
  hipEvent_t ready;
  int value;
};

struct mailbox {
  std::mutex lock;
  std::deque<handoff> items;
};

static mailbox boxes[THREADS];
// Events every thread records on the shared streams and makes its own streams wait for.
static hipEvent_t shared_events[SHARED];
static std::atomic<int> callbacks_ran;

static void count_callback(void *) { callbacks_ran++; }
static std::atomic<int> failures;
static std::atomic<long> checked;
static char first_failure[256];
static std::mutex failure_lock;

static void fail(const char *what, int t, int i, long got, long want)
{
  if (failures++ == 0) {
    std::lock_guard<std::mutex> g(failure_lock);
    snprintf(first_failure, sizeof(first_failure), "thread %d iteration %d: %s: %ld, expected %ld",
             t, i, what, got, want);
  }
}

#define TRY(expr, t, i)                                                                          \
  do {                                                                                           \
    hipError_t e_ = (expr);                                                                      \
    if (e_ != hipSuccess)                                                                        \
      fail(#expr, t, i, e_, hipSuccess);                                                         \
  } while (0)

static void expect_all(const int *h, int want, const char *what, int t, int i)
{
  for (int k = 0; k < N; k++)
    if (h[k] != want) {
      fail(what, t, i, h[k], want);
      return;
    }
  checked++;
}

// Read [in] h's allocation after its event on [in] s, check it, free it.
static void consume(const handoff &h, hipStream_t s, int *host, int t, int i)
{
  TRY(hipStreamWaitEvent(s, h.ready, 0), t, i);
  TRY(hipMemcpyAsync(host, h.d, N * sizeof(int), hipMemcpyDeviceToHost, s), t, i);
  TRY(hipStreamSynchronize(s), t, i);
  expect_all(host, h.value, "handed-off allocation", t, i);
  TRY(hipEventDestroy(h.ready), t, i);
  TRY(hipFree(h.d), t, i);
}

static void drain(int t, hipStream_t s, int *host, int i)
{
  for (;;) {
    handoff h;
    {
      std::lock_guard<std::mutex> g(boxes[t].lock);
      if (boxes[t].items.empty())
        return;
      h = boxes[t].items.front();
      boxes[t].items.pop_front();
    }
    consume(h, s, host, t, i);
  }
}

static void worker(int t, const std::vector<hipStream_t> &own, const std::vector<hipStream_t> &shared,
                   int *null_buf, int iters)
{
  hipStream_t streams[STREAMS];
  for (int k = 0; k < OWN; k++)
    streams[k] = own[t * OWN + k];
  streams[OWN] = shared[t % SHARED];
  streams[OWN + 1] = shared[(t + 1) % SHARED];

  int *scratch = nullptr, *host = nullptr, *host2 = nullptr;
  TRY(hipMalloc(&scratch, N * sizeof(int)), t, -1);
  TRY(hipHostMalloc(&host, N * sizeof(int), 0), t, -1);
  TRY(hipHostMalloc(&host2, N * sizeof(int), 0), t, -1);

  for (int i = 0; i < iters && !failures; i++) {
    hipStream_t s = streams[i % STREAMS];
    const int value = (t << 20) | i;
    int *d = nullptr;
    TRY(hipMalloc(&d, N * sizeof(int)), t, i);
    fill<<<1, N, 0, s>>>(d, value);
    TRY(hipGetLastError(), t, i);

    // Every fourth allocation goes to the next thread, with an event recorded after the fill:
    // that thread waits for it on one of its own streams while this one still reads it. It is
    // handed over only once this thread's last read of it is enqueued: the receiver frees it,
    // and hipFree waits for the device's enqueued work, not for work enqueued later.
    hipEvent_t ready = nullptr;
    bool handed = i % 4 == 0;
    if (handed) {
      TRY(hipEventCreateWithFlags(&ready, hipEventDisableTiming), t, i);
      TRY(hipEventRecord(ready, s), t, i);
    }

    TRY(hipMemcpyAsync(scratch, d, N * sizeof(int), hipMemcpyDeviceToDevice, s), t, i);
    if (handed) {
      std::lock_guard<std::mutex> g(boxes[(t + 1) % THREADS].lock);
      boxes[(t + 1) % THREADS].items.push_back({d, ready, value});
    }
    add<<<1, N, 0, s>>>(scratch, 1);
    TRY(hipMemcpyAsync(host, scratch, N * sizeof(int), hipMemcpyDeviceToHost, s), t, i);
    hipEvent_t done;
    TRY(hipEventCreateWithFlags(&done, hipEventDisableTiming), t, i);
    TRY(hipEventRecord(done, s), t, i);

    // Other threads' work on the shared streams, looked at from here.
    hipError_t q = hipStreamQuery(streams[OWN + (i & 1)]);
    if (q != hipSuccess && q != hipErrorNotReady)
      fail("hipStreamQuery", t, i, q, hipSuccess);
    q = hipEventQuery(done);
    if (q != hipSuccess && q != hipErrorNotReady)
      fail("hipEventQuery", t, i, q, hipSuccess);

    if (i & 1)
      TRY(hipEventSynchronize(done), t, i);
    else
      TRY(hipStreamSynchronize(s), t, i);
    expect_all(host, value + 1, "kernel, copies, kernel", t, i);
    TRY(hipEventDestroy(done), t, i);
    if (!handed)
      TRY(hipFree(d), t, i);

    if (i % 16 == 15)
      TRY(hipDeviceSynchronize(), t, i);
    if (t == 0 && i % 8 == 7) {
      // Legacy null-stream work, ordered after every blocking stream of every thread.
      TRY(hipMemsetAsync(null_buf, i & 0x7f, N * sizeof(int), nullptr), t, i);
      TRY(hipMemcpyAsync(host2, null_buf, N * sizeof(int), hipMemcpyDeviceToHost, nullptr), t, i);
      TRY(hipStreamSynchronize(nullptr), t, i);
      const int b = i & 0x7f;
      expect_all(host2, b | b << 8 | b << 16 | b << 24, "null-stream memset", t, i);
    }
    // The same events recorded, waited for and queried from every thread at once.
    TRY(hipEventRecord(shared_events[(t + i) % SHARED], streams[OWN + (i & 1)]), t, i);
    TRY(hipStreamWaitEvent(streams[(i + 1) % STREAMS], shared_events[(t + i + 1) % SHARED], 0),
        t, i);
    q = hipEventQuery(shared_events[(t + i + 2) % SHARED]);
    if (q != hipSuccess && q != hipErrorNotReady)
      fail("hipEventQuery (shared)", t, i, q, hipSuccess);
    if (i % 4 == 2)
      TRY(hipLaunchHostFunc(streams[OWN + (i & 1)], count_callback, nullptr), t, i);
    drain(t, streams[(i + 3) % STREAMS], host2, i);
  }
  TRY(hipFree(scratch), t, -1);
  TRY(hipHostFree(host), t, -1);
  TRY(hipHostFree(host2), t, -1);
}

// The whole run: 0 when every call succeeded and every value was right, else 1 with the first
// failure in first_failure.
#define CHECK_RUN(cond, ...)                                                                     \
  do {                                                                                           \
    if (!(cond)) {                                                                               \
      snprintf(first_failure, sizeof(first_failure), __VA_ARGS__);                               \
      return 1;                                                                                  \
    }                                                                                            \
  } while (0)

static int stress(int iters)
{
  std::vector<hipStream_t> own(THREADS * OWN), shared(SHARED);
  for (int k = 0; k < THREADS * OWN; k++)
    CHECK_RUN(hipStreamCreateWithFlags(&own[k], k % 2 ? hipStreamNonBlocking : hipStreamDefault) ==
                  hipSuccess, "hipStreamCreateWithFlags");
  for (int k = 0; k < SHARED; k++) {
    CHECK_RUN(hipStreamCreate(&shared[k]) == hipSuccess, "hipStreamCreate");
    CHECK_RUN(hipEventCreateWithFlags(&shared_events[k], hipEventDisableTiming) == hipSuccess,
              "hipEventCreateWithFlags");
  }
  int *null_buf = nullptr;
  CHECK_RUN(hipMalloc(&null_buf, N * sizeof(int)) == hipSuccess, "hipMalloc");

  std::vector<std::thread> threads;
  for (int t = 0; t < THREADS; t++)
    threads.emplace_back(worker, t, std::cref(own), std::cref(shared), null_buf, iters);
  for (auto &th : threads)
    th.join();

  // What the last iterations handed over and nobody took yet.
  int *host = nullptr;
  CHECK_RUN(hipHostMalloc(&host, N * sizeof(int), 0) == hipSuccess, "hipHostMalloc");
  for (int t = 0; t < THREADS; t++)
    drain(t, shared[0], host, iters);
  CHECK_RUN(hipHostFree(host) == hipSuccess, "hipHostFree");
  if (failures)
    return 1;
  // Each iteration checks its own result; each handed-off allocation is checked once.
  const long want = (long)THREADS * iters + (long)THREADS * ((iters + 3) / 4) + iters / 8;
  CHECK_RUN(checked == want, "%ld results checked, expected %ld", checked.load(), want);
  printf("streams_threads: %d threads x %d streams (%d shared), %d iterations each, %ld results "
         "checked\n", THREADS, STREAMS, SHARED, iters, checked.load());

  CHECK_RUN(hipDeviceSynchronize() == hipSuccess, "hipDeviceSynchronize");
  const int want_callbacks = THREADS * ((iters + 1) / 4);
  CHECK_RUN(callbacks_ran == want_callbacks, "%d host callbacks ran, expected %d",
            callbacks_ran.load(), want_callbacks);
  for (auto e : shared_events)
    CHECK_RUN(hipEventDestroy(e) == hipSuccess, "hipEventDestroy");
  for (auto s : own)
    CHECK_RUN(hipStreamDestroy(s) == hipSuccess, "hipStreamDestroy");
  for (auto s : shared)
    CHECK_RUN(hipStreamDestroy(s) == hipSuccess, "hipStreamDestroy");
  CHECK_RUN(hipFree(null_buf) == hipSuccess, "hipFree");
  return 0;
}

static int iterations(void)
{
  const char *env = getenv("HIPKFD_STRESS_ITERS");
  return env && atoi(env) > 0 ? atoi(env) : 64;
}

#ifndef STREAMS_THREADS_MAIN
Test(streams_threads, shared_streams_stress, .timeout = 1200)
{
  int failed = stress(iterations());
  cr_assert_eq(failed, 0, "%d failures; the first: %s", failures.load(), first_failure);
}
#else
// The ThreadSanitizer build: Criterion's sandbox (BoxFort maps its arena at a fixed address)
// does not start under TSan, so the run is a plain program there.
int main()
{
  if (stress(iterations())) {
    fprintf(stderr, "FAILED: %d failures; the first: %s\n", failures.load(), first_failure);
    return 1;
  }
  printf("PASSED\n");
  return 0;
}
#endif
