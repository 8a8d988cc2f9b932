// hipFree waits for the device's work (CUDA and clr do: a kernel may still use the memory).
// These cases pin that wait where the lock-free idle check of device-wide waits (device.c) could
// go wrong: work in flight on each kind of stream and on each free path (sub-allocated slot,
// block of its own, cached block), streams created after the device was last seen idle (by this
// thread or another, including recycled stream objects), and frees racing with a thread that
// keeps creating streams and launching.
//
// How a wait is observed: the kernel spins for a while, then writes the buffer being freed and
// last a flag in coherent host memory. Right after hipFree returns (no other synchronisation)
// the flag must be set. A free that did not wait returns while the kernel still spins.
#include <criterion/criterion.h>
#include <hip/hip_runtime.h>

#include <atomic>
#include <sched.h>
#include <thread>

#define HIP_OK(expr) cr_assert_eq((expr), hipSuccess, "%s", #expr)

// Iterations of the kernel's dependent arithmetic: long enough on kfdsim that a free that does
// not wait returns well before the kernel ends.
static const int SPINS = 200000;

__global__ void slow_write(int *buf, int *flag, int value, int spins)
{
  unsigned acc = (unsigned)value;
  for (int i = 0; i < spins; i++) {
    acc = acc * 1664525u + 1013904223u;
    asm volatile("" : "+v"(acc)); // keeps the loop: no closed form
  }
  buf[threadIdx.x] = (int)acc;
  __threadfence_system();
  if (threadIdx.x == 0)
    *(volatile int *)flag = value;
}

static int *flags_alloc(int n)
{
  int *f = nullptr;
  HIP_OK(hipHostMalloc((void **)&f, sizeof(int) * n, hipHostMallocCoherent));
  for (int i = 0; i < n; i++)
    f[i] = 0;
  return f;
}

static int flag_read(const int *f)
{
  return __atomic_load_n(f, __ATOMIC_ACQUIRE);
}

static void launch_slow(hipStream_t s, void *buf, int *flag, int value)
{
  __atomic_store_n(flag, 0, __ATOMIC_RELAXED);
  slow_write<<<1, 64, 0, s>>>((int *)buf, flag, value, SPINS);
  HIP_OK(hipGetLastError());
}

// A free with nothing in flight, so that the device has been seen idle (the fast path's copy of
// the stream list is current) before the case under test changes the streams.
static void see_device_idle(void)
{
  for (int i = 0; i < 2; i++) {
    void *p = nullptr;
    HIP_OK(hipMalloc(&p, 256));
    HIP_OK(hipFree(p));
  }
}

// The kernel on [in] s writes the buffer; hipFree of it returns only after the kernel's last write.
static void check_free_waits(hipStream_t s, size_t size, int value)
{
  void *buf = nullptr;
  int *flag = flags_alloc(1);
  HIP_OK(hipMalloc(&buf, size));
  launch_slow(s, buf, flag, value);
  HIP_OK(hipFree(buf));
  cr_assert_eq(flag_read(flag), value, "hipFree of %zu bytes returned before the kernel on "
               "stream %p finished", size, (void *)s);
  cr_assert_eq(hipStreamQuery(s), hipSuccess);
  HIP_OK(hipHostFree(flag));
}

static const size_t sizes[] = {4096, 1u << 20, 64u << 20};

Test(free_waits, kernel_on_null_stream)
{
  for (int round = 0; round < 2; round++) // the second round reuses a cached 64 MiB block
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
      check_free_waits(nullptr, sizes[i], 10 + (int)i);
}

Test(free_waits, kernel_on_created_streams)
{
  hipStream_t blocking, nonblocking;
  HIP_OK(hipStreamCreate(&blocking));
  HIP_OK(hipStreamCreateWithFlags(&nonblocking, hipStreamNonBlocking));
  for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
    check_free_waits(blocking, sizes[i], 20 + (int)i);
    check_free_waits(nonblocking, sizes[i], 30 + (int)i);
  }
  HIP_OK(hipStreamDestroy(blocking));
  HIP_OK(hipStreamDestroy(nonblocking));
}

Test(free_waits, kernel_on_stream_created_after_idle)
{
  see_device_idle();
  hipStream_t s;
  HIP_OK(hipStreamCreateWithFlags(&s, hipStreamNonBlocking));
  check_free_waits(s, 4096, 40);
  HIP_OK(hipStreamDestroy(s));
}

// The stream list changes back to a list with the same head after the device was seen idle:
// stream B is destroyed and its object comes back as D, while C (created in between) has work.
Test(free_waits, kernel_on_stream_created_between_recycles)
{
  hipStream_t b, c, d;
  HIP_OK(hipStreamCreate(&b));
  see_device_idle();
  HIP_OK(hipStreamCreateWithFlags(&c, hipStreamNonBlocking));
  HIP_OK(hipStreamDestroy(b));
  HIP_OK(hipStreamCreate(&d));
  check_free_waits(c, 4096, 50);
  // And the recycled object itself, once the device was seen idle with it.
  see_device_idle();
  HIP_OK(hipStreamDestroy(d));
  HIP_OK(hipStreamCreate(&d));
  check_free_waits(d, 4096, 51);
  HIP_OK(hipStreamDestroy(c));
  HIP_OK(hipStreamDestroy(d));
}

// Another thread creates the stream and launches; its join orders that before the free.
Test(free_waits, kernel_launched_by_another_thread)
{
  see_device_idle();
  void *buf = nullptr;
  int *flag = flags_alloc(1);
  HIP_OK(hipMalloc(&buf, 4096));
  hipStream_t s = nullptr;
  hipError_t terr = hipErrorUnknown;
  std::thread t([&] {
    terr = hipStreamCreate(&s);
    if (terr == hipSuccess) {
      __atomic_store_n(flag, 0, __ATOMIC_RELAXED);
      slow_write<<<1, 64, 0, s>>>((int *)buf, flag, 60, SPINS);
      terr = hipGetLastError();
    }
  });
  t.join();
  HIP_OK(terr);
  HIP_OK(hipFree(buf));
  cr_assert_eq(flag_read(flag), 60);
  HIP_OK(hipStreamDestroy(s));
  HIP_OK(hipHostFree(flag));
}

// The per-thread default stream of another thread, created by its first use there; the thread
// stays alive (its exit would wait for the stream) until the free was checked.
Test(free_waits, kernel_on_another_threads_per_thread_stream)
{
  see_device_idle();
  void *buf = nullptr;
  int *flag = flags_alloc(1);
  HIP_OK(hipMalloc(&buf, 4096));
  std::atomic<int> stage{0};
  hipError_t terr = hipErrorUnknown;
  std::thread t([&] {
    __atomic_store_n(flag, 0, __ATOMIC_RELAXED);
    slow_write<<<1, 64, 0, hipStreamPerThread>>>((int *)buf, flag, 70, SPINS);
    terr = hipGetLastError();
    stage.store(1, std::memory_order_release);
    while (stage.load(std::memory_order_acquire) != 2)
      sched_yield();
  });
  while (stage.load(std::memory_order_acquire) != 1)
    sched_yield();
  hipError_t ferr = hipFree(buf);
  int seen = flag_read(flag);
  stage.store(2, std::memory_order_release);
  t.join();
  HIP_OK(terr);
  HIP_OK(ferr);
  cr_assert_eq(seen, 70);
  HIP_OK(hipHostFree(flag));
}

// A thread keeps creating streams (blocking and not), launching on them and destroying older
// ones; after each launch it publishes its number. The main thread frees a buffer whenever a new
// number appears: every kernel published before the free must have finished when it returns.
Test(free_waits, frees_racing_with_stream_creation)
{
  enum { LAUNCHES = 12, KEEP = 3 };
  int *flags = flags_alloc(LAUNCHES);
  void *target = nullptr, *bufs[LAUNCHES + 1];
  HIP_OK(hipMalloc(&target, 4096));
  for (int i = 0; i <= LAUNCHES; i++)
    HIP_OK(hipMalloc(&bufs[i], 4096));
  std::atomic<int> published{0};
  std::atomic<int> thread_err{hipSuccess};
  std::thread t([&] {
    hipStream_t live[LAUNCHES] = {};
    for (int i = 0; i < LAUNCHES; i++) {
      hipError_t e = hipStreamCreateWithFlags(&live[i], i % 2 ? hipStreamNonBlocking : hipStreamDefault);
      if (e == hipSuccess) {
        slow_write<<<1, 64, 0, live[i]>>>((int *)target, &flags[i], i + 1, SPINS / 4);
        e = hipGetLastError();
      }
      if (e == hipSuccess && i >= KEEP)
        e = hipStreamDestroy(live[i - KEEP]);
      if (e != hipSuccess) {
        thread_err.store(e);
        break;
      }
      published.store(i + 1, std::memory_order_release);
    }
    for (int i = LAUNCHES - KEEP; i < LAUNCHES; i++)
      if (live[i] && hipStreamDestroy(live[i]) != hipSuccess)
        thread_err.store(hipErrorUnknown);
    published.store(LAUNCHES + 1, std::memory_order_release);
  });
  int checked = 0, next_buf = 0, failures = 0, last_bad = 0;
  hipError_t free_err = hipSuccess; // asserted after the join: the thread must not outlive the test
  for (;;) {
    int p = published.load(std::memory_order_acquire);
    if (p > LAUNCHES)
      break;
    if (p == checked) {
      sched_yield();
      continue;
    }
    hipError_t e = hipFree(bufs[next_buf++]);
    if (e != hipSuccess)
      free_err = e;
    // Every launch published before this free (p of them) has finished.
    for (int i = 0; i < p; i++)
      if (flag_read(&flags[i]) != i + 1) {
        failures++;
        last_bad = i + 1;
      }
    checked = p;
  }
  t.join();
  cr_assert_eq(thread_err.load(), hipSuccess);
  HIP_OK(free_err);
  cr_assert_eq(failures, 0, "%d launches (last: number %d) unfinished after a hipFree that "
               "followed them", failures, last_bad);
  for (int i = 0; i < LAUNCHES; i++)
    cr_assert_eq(flags[i], i + 1);
  for (int i = next_buf; i <= LAUNCHES; i++)
    HIP_OK(hipFree(bufs[i]));
  HIP_OK(hipFree(target));
  HIP_OK(hipHostFree(flags));
}
