// System-scope atomics on memory the host updates at the same time: fine-grained host memory
// (hipHostMalloc coherent and default) and fine-grained device memory (hipExtMallocWithFlags).
// A host thread and a kernel each add N to one counter, with fetch-add and with CAS loops, and
// a ping-pong hands one word back and forth; the final values are checked exactly. Last, the
// MI200 rule for float atomics on fine-grained host memory (they do not reach it over PCIe).
#include <criterion/criterion.h>
#include <hip/hip_runtime.h>

#include <cstring>
#include <pthread.h>

#define HIP_OK(expr) cr_assert_eq((expr), hipSuccess, "%s", #expr)

enum { THREADS = 64, PER_THREAD = 256, N = THREADS * PER_THREAD, ROUNDS = 200 };

__global__ void add_system(unsigned *c)
{
  for (int i = 0; i < PER_THREAD; i++)
    atomicAdd_system(c, 1u);
}

__global__ void cas_system(unsigned *c)
{
  for (int i = 0; i < PER_THREAD; i++) {
    unsigned old = __hip_atomic_load(c, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_SYSTEM);
    for (;;) {
      unsigned seen = atomicCAS_system(c, old, old + 1);
      if (seen == old)
        break;
      old = seen;
    }
  }
}

// The kernel takes the odd turns: it waits for the host's even value, then publishes data and
// the next turn with a system fence between them, as a producer on an MI210 must.
__global__ void ping_pong(unsigned *turn, unsigned *data)
{
  for (unsigned r = 0; r < ROUNDS; r++) {
    while (__hip_atomic_load(turn, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_SYSTEM) != 2 * r)
      ;
    data[r] = r * 3 + 1;
    __threadfence_system();
    __hip_atomic_store(turn, 2 * r + 1, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_SYSTEM);
  }
}

struct host_side {
  unsigned *c;
  bool cas;
};

static void *host_adds(void *arg)
{
  host_side *h = static_cast<host_side *>(arg);
  for (int i = 0; i < N; i++) {
    if (!h->cas) {
      __atomic_fetch_add(h->c, 1u, __ATOMIC_SEQ_CST);
      continue;
    }
    unsigned old = __atomic_load_n(h->c, __ATOMIC_RELAXED);
    while (!__atomic_compare_exchange_n(h->c, &old, old + 1, false, __ATOMIC_SEQ_CST,
                                        __ATOMIC_RELAXED))
      ;
  }
  return nullptr;
}

// The host thread runs while the kernel is in flight; both must land every increment.
static void race(unsigned *host_view, unsigned *dev_view, bool cas)
{
  __atomic_store_n(host_view, 0u, __ATOMIC_SEQ_CST);
  host_side h = {host_view, cas};
  pthread_t t;
  cr_assert_eq(pthread_create(&t, nullptr, host_adds, &h), 0);
  if (cas)
    cas_system<<<1, THREADS>>>(dev_view);
  else
    add_system<<<1, THREADS>>>(dev_view);
  HIP_OK(hipGetLastError());
  HIP_OK(hipDeviceSynchronize());
  cr_assert_eq(pthread_join(t, nullptr), 0);
  cr_assert_eq(__atomic_load_n(host_view, __ATOMIC_SEQ_CST), 2u * N);
}

static void race_host_memory(unsigned flags, bool cas)
{
  unsigned *h = nullptr, *d = nullptr;
  HIP_OK(hipHostMalloc(reinterpret_cast<void **>(&h), sizeof(*h), flags));
  HIP_OK(hipHostGetDevicePointer(reinterpret_cast<void **>(&d), h, 0));
  race(h, d, cas);
  HIP_OK(hipHostFree(h));
}

Test(system_atomics, add_on_coherent_host_memory)
{
  race_host_memory(hipHostMallocCoherent, false);
}

Test(system_atomics, add_on_default_host_memory)
{
  race_host_memory(hipHostMallocDefault, false);
}

Test(system_atomics, cas_loop_on_coherent_host_memory)
{
  race_host_memory(hipHostMallocCoherent, true);
}

static void race_device_fine(bool cas)
{
  unsigned *d = nullptr;
  HIP_OK(hipExtMallocWithFlags(reinterpret_cast<void **>(&d), sizeof(*d),
                               hipDeviceMallocFinegrained));
  race(d, d, cas);   // fine-grained VRAM: the host reaches it at the same address
  HIP_OK(hipFree(d));
}

Test(system_atomics, add_on_fine_grained_device_memory)
{
  race_device_fine(false);
}

Test(system_atomics, cas_loop_on_fine_grained_device_memory)
{
  race_device_fine(true);
}

Test(system_atomics, ping_pong_with_host)
{
  unsigned *turn = nullptr, *data = nullptr;
  HIP_OK(hipHostMalloc(reinterpret_cast<void **>(&turn), sizeof(*turn), hipHostMallocCoherent));
  HIP_OK(hipHostMalloc(reinterpret_cast<void **>(&data), ROUNDS * sizeof(*data),
                       hipHostMallocCoherent));
  *turn = 0;
  memset(data, 0, ROUNDS * sizeof(*data));
  ping_pong<<<1, 1>>>(turn, data);
  HIP_OK(hipGetLastError());
  for (unsigned r = 0; r < ROUNDS; r++) {
    while (__atomic_load_n(turn, __ATOMIC_ACQUIRE) != 2 * r + 1)
      ;
    cr_assert_eq(data[r], r * 3 + 1, "round %u", r);
    __atomic_store_n(turn, 2 * r + 2, __ATOMIC_RELEASE);
  }
  HIP_OK(hipDeviceSynchronize());
  cr_assert_eq(*turn, 2u * ROUNDS);
  HIP_OK(hipHostFree(turn));
  HIP_OK(hipHostFree(data));
}

__global__ void fadd_unsafe(float *p, float *old)
{
  *old = unsafeAtomicAdd(p, 10.0f);
}

// Returns {value after, value returned} of one hardware float add on host memory.
static void fadd_host(unsigned flags, float *after, float *returned)
{
  float *a = nullptr, *r = nullptr;
  HIP_OK(hipHostMalloc(reinterpret_cast<void **>(&a), sizeof(*a), flags));
  HIP_OK(hipHostMalloc(reinterpret_cast<void **>(&r), sizeof(*r), flags));
  *a = 5.0f;
  *r = 5.0f;
  fadd_unsafe<<<1, 1>>>(a, r);
  HIP_OK(hipGetLastError());
  HIP_OK(hipDeviceSynchronize());
  *after = *a;
  *returned = *r;
  HIP_OK(hipHostFree(a));
  HIP_OK(hipHostFree(r));
}

static bool is_gfx90a()
{
  hipDeviceProp_t p;
  HIP_OK(hipGetDeviceProperties(&p, 0));
  return strncmp(p.gcnArchName, "gfx90a", 6) == 0;
}

// MI200: global_atomic_add_f32 on fine-grained host memory goes over PCIe, which has no float
// AtomicOp: memory keeps its value and the instruction returns 0. Coarse-grained host memory
// is cached in L2, where the add happens.
Test(system_atomics, hardware_float_add_on_host_memory)
{
  float after, returned;
  fadd_host(hipHostMallocCoherent, &after, &returned);
  if (is_gfx90a()) {
    cr_assert_eq(after, 5.0f);
    cr_assert_eq(returned, 0.0f);
  } else {
    cr_assert_eq(after, 15.0f);
    cr_assert_eq(returned, 5.0f);
  }
  fadd_host(hipHostMallocNonCoherent, &after, &returned);
  cr_assert_eq(after, 15.0f);
  cr_assert_eq(returned, 5.0f);
}
