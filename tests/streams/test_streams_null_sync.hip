// hipStreamSynchronize of a blocking stream also waits for the legacy null stream's earlier work,
// as AMD's runtime does (the blocking stream waits on the null stream first): a program that
// launches on the null stream and synchronizes a blocking stream sees the kernel's results. A
// non-blocking stream does not wait for it.
#include <criterion/criterion.h>
#include <hip/hip_runtime.h>

#include <pthread.h>
#include <unistd.h>

#define HIP_OK(expr) cr_assert_eq((expr), hipSuccess, "%s", #expr)

// Waits until the host sets *go, then stores 1 to *done.
__global__ void wait_then_mark(int *go, int *done)
{
  while (!__hip_atomic_load(go, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_SYSTEM))
    __builtin_amdgcn_s_sleep(2);
  __hip_atomic_store(done, 1, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_SYSTEM);
}

static void *release_later(void *go)
{
  usleep(50000);
  __atomic_store_n(static_cast<int *>(go), 1, __ATOMIC_RELEASE);
  return nullptr;
}

static void alloc_flags(int **go, int **done)
{
  HIP_OK(hipHostMalloc(go, sizeof(int), hipHostMallocCoherent));
  HIP_OK(hipHostMalloc(done, sizeof(int), hipHostMallocCoherent));
  **go = 0;
  **done = 0;
}

Test(streams_null_sync, blocking_stream_waits_for_null_stream_work)
{
  int *go, *done;
  alloc_flags(&go, &done);
  hipStream_t s;
  HIP_OK(hipStreamCreate(&s));
  wait_then_mark<<<1, 1>>>(go, done);
  pthread_t t;
  cr_assert_eq(pthread_create(&t, nullptr, release_later, go), 0);
  HIP_OK(hipStreamSynchronize(s));
  cr_expect_eq(__atomic_load_n(done, __ATOMIC_ACQUIRE), 1,
               "the null stream's kernel had not finished when the blocking stream was synchronized");
  pthread_join(t, nullptr);
  HIP_OK(hipDeviceSynchronize());
  HIP_OK(hipStreamDestroy(s));
  HIP_OK(hipHostFree(go));
  HIP_OK(hipHostFree(done));
}

Test(streams_null_sync, non_blocking_stream_does_not_wait)
{
  int *go, *done;
  alloc_flags(&go, &done);
  hipStream_t s;
  HIP_OK(hipStreamCreateWithFlags(&s, hipStreamNonBlocking));
  wait_then_mark<<<1, 1>>>(go, done);
  HIP_OK(hipStreamSynchronize(s)); // would never return if it waited: nobody sets go yet
  cr_expect_eq(__atomic_load_n(done, __ATOMIC_ACQUIRE), 0);
  __atomic_store_n(go, 1, __ATOMIC_RELEASE);
  HIP_OK(hipDeviceSynchronize());
  cr_expect_eq(__atomic_load_n(done, __ATOMIC_ACQUIRE), 1);
  HIP_OK(hipStreamDestroy(s));
  HIP_OK(hipHostFree(go));
  HIP_OK(hipHostFree(done));
}
