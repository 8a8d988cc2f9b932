// Stream priorities reach the GPU: a stream of higher priority gets its kernels run before those
// of a lower one that are ready at the same time (amdkfd's pipe priority classes: low, normal and
// high streams land in three), streams of equal priority run side by side, and a high-priority
// kernel waiting on a low-priority stream's work still finishes. Ordering is asserted through
// tickets the kernels take from one counter, never through timing.
#include <criterion/criterion.h>
#include <hip/hip_runtime.h>

#include <unistd.h>

#define HIP_OK(expr) cr_assert_eq((expr), hipSuccess, "%s", #expr)

enum { STAMPS = 6, LOWEST = 1, NORMAL = 0, HIGHEST = -1 };

// Announces that it runs, then spins until the host (or another kernel) sets *go.
__global__ void spin(int *started, int *go)
{
  __hip_atomic_store(started, 1, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_SYSTEM);
  while (!__hip_atomic_load(go, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_SYSTEM))
    __builtin_amdgcn_s_sleep(2);
}

// Takes the next ticket: the order in which the GPU ran the stamps of every stream.
__global__ void stamp(int *counter, int *ticket) { *ticket = atomicAdd(counter, 1); }

__global__ void release(int *go) { __hip_atomic_store(go, 1, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_SYSTEM); }

struct host_flags {
  int *started;
  int *go;
};

static host_flags flags_new(void)
{
  host_flags f;
  HIP_OK(hipHostMalloc(&f.started, sizeof(int), hipHostMallocCoherent));
  HIP_OK(hipHostMalloc(&f.go, sizeof(int), hipHostMallocCoherent));
  *f.started = 0;
  *f.go = 0;
  return f;
}

static void wait_started(const host_flags &f)
{
  for (int i = 0; i < 60000 && !__atomic_load_n(f.started, __ATOMIC_ACQUIRE); i++)
    usleep(1000);
  cr_assert_eq(__atomic_load_n(f.started, __ATOMIC_ACQUIRE), 1, "the spinning kernel never ran");
}

// A kernel of stream `high` holds the GPU's attention (it runs, spinning) while STAMPS kernels
// wait on each stream; once it ends, every stamp of `high` must run before any of `low`.
static void check_order(int high_priority, int low_priority)
{
  hipStream_t high, low;
  HIP_OK(hipStreamCreateWithPriority(&high, hipStreamNonBlocking, high_priority));
  HIP_OK(hipStreamCreateWithPriority(&low, hipStreamNonBlocking, low_priority));
  int *counter, *tickets;
  HIP_OK(hipMalloc(&counter, sizeof(int)));
  HIP_OK(hipMalloc(&tickets, 2 * STAMPS * sizeof(int)));
  HIP_OK(hipMemset(counter, 0, sizeof(int)));
  HIP_OK(hipMemset(tickets, 0xff, 2 * STAMPS * sizeof(int)));
  host_flags f = flags_new();

  spin<<<1, 1, 0, high>>>(f.started, f.go);
  wait_started(f);
  for (int i = 0; i < STAMPS; i++) {
    stamp<<<1, 1, 0, low>>>(counter, tickets + STAMPS + i);
    stamp<<<1, 1, 0, high>>>(counter, tickets + i);
  }
  usleep(20000); // time for the low stream's stamps to run, were priority ignored
  __atomic_store_n(f.go, 1, __ATOMIC_RELEASE);
  HIP_OK(hipStreamSynchronize(high));
  HIP_OK(hipStreamSynchronize(low));

  int got[2 * STAMPS];
  HIP_OK(hipMemcpy(got, tickets, sizeof(got), hipMemcpyDeviceToHost));
  for (int i = 0; i < STAMPS; i++) {
    cr_expect_lt(got[i], STAMPS, "priority %d stamp %d ran as number %d", high_priority, i, got[i]);
    cr_expect_geq(got[STAMPS + i], STAMPS, "priority %d stamp %d ran as number %d", low_priority,
                  i, got[STAMPS + i]);
  }
  HIP_OK(hipStreamDestroy(high));
  HIP_OK(hipStreamDestroy(low));
  HIP_OK(hipFree(counter));
  HIP_OK(hipFree(tickets));
  HIP_OK(hipHostFree(f.started));
  HIP_OK(hipHostFree(f.go));
}

Test(streams_priority, high_runs_before_low) { check_order(HIGHEST, LOWEST); }
Test(streams_priority, high_runs_before_normal) { check_order(HIGHEST, NORMAL); }
Test(streams_priority, normal_runs_before_low) { check_order(NORMAL, LOWEST); }

// Equal priorities: the second stream's kernels run while the first one's kernel still spins.
Test(streams_priority, equal_priorities_run_side_by_side)
{
  hipStream_t a, b;
  HIP_OK(hipStreamCreateWithPriority(&a, hipStreamNonBlocking, HIGHEST));
  HIP_OK(hipStreamCreateWithPriority(&b, hipStreamNonBlocking, HIGHEST));
  int *counter, *tickets;
  HIP_OK(hipMalloc(&counter, sizeof(int)));
  HIP_OK(hipMalloc(&tickets, STAMPS * sizeof(int)));
  HIP_OK(hipMemset(counter, 0, sizeof(int)));
  host_flags f = flags_new();

  spin<<<1, 1, 0, a>>>(f.started, f.go);
  wait_started(f);
  for (int i = 0; i < STAMPS; i++)
    stamp<<<1, 1, 0, b>>>(counter, tickets + i);
  HIP_OK(hipStreamSynchronize(b));
  cr_expect_eq(hipStreamQuery(a), hipErrorNotReady, "the spinning kernel ended by itself");
  __atomic_store_n(f.go, 1, __ATOMIC_RELEASE);
  HIP_OK(hipStreamSynchronize(a));
  int n = 0;
  HIP_OK(hipMemcpy(&n, counter, sizeof(n), hipMemcpyDeviceToHost));
  cr_expect_eq(n, STAMPS);
  HIP_OK(hipStreamDestroy(a));
  HIP_OK(hipStreamDestroy(b));
  HIP_OK(hipFree(counter));
  HIP_OK(hipFree(tickets));
  HIP_OK(hipHostFree(f.started));
  HIP_OK(hipHostFree(f.go));
}

// A high-priority kernel that waits for a low-priority stream's kernel: the low stream defers only
// for a bounded time while the high one completes nothing, so both finish.
Test(streams_priority, high_waiting_on_low_finishes)
{
  hipStream_t high, low;
  HIP_OK(hipStreamCreateWithPriority(&high, hipStreamNonBlocking, HIGHEST));
  HIP_OK(hipStreamCreateWithPriority(&low, hipStreamNonBlocking, LOWEST));
  host_flags f = flags_new();

  spin<<<1, 1, 0, high>>>(f.started, f.go);
  wait_started(f);
  release<<<1, 1, 0, low>>>(f.go);
  HIP_OK(hipStreamSynchronize(high));
  HIP_OK(hipStreamSynchronize(low));
  cr_expect_eq(__atomic_load_n(f.go, __ATOMIC_ACQUIRE), 1);
  HIP_OK(hipStreamDestroy(high));
  HIP_OK(hipStreamDestroy(low));
  HIP_OK(hipHostFree(f.started));
  HIP_OK(hipHostFree(f.go));
}
