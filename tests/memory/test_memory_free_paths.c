/* src/memory's free paths without locks (white-box, on kfdsim): the sub-allocator's free
 * (clear the length, set the slot's bit in the chunk's bitmap) and the block cache that keeps a
 * freed block's address-table entries. What must hold: a freed address is unknown at once, a
 * second free of it fails (also when two threads race to free it: exactly one wins), no slot is
 * ever handed to two live allocations, freed slots and cached blocks still go back to the
 * kernel on a trim, and mem_free_owner answers as mem_free would. */
#include <criterion/criterion.h>

#include "kfd/kfd.h"
#include "memory/mem.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#define RACE_ROUNDS 20000

static struct kfd_gpu *test_gpu(void)
{
  struct kfd_gpu *gpu = NULL;

  cr_assert_eq(kfd_topology_load(), 0);
  if (kfd_open() != 0 || kfd_gpu_count() < 1)
    cr_skip_test("no KFD GPU (run with kfdsim preloaded)");
  cr_assert_eq(kfd_gpu_open(kfd_gpu(0), &gpu), 0);
  return gpu;
}

Test(memory_free_paths, cached_block_is_unknown_until_reused)
{
  struct kfd_gpu *gpu = test_gpu();
  const size_t size = 64u << 20;
  struct mem_info info;
  void *p = NULL, *q = NULL;

  cr_assert_eq(mem_alloc(gpu, size, MEM_DEVICE, 0, &p), 0);
  cr_assert_eq(mem_lookup((char *)p + size / 2, &info), 0);
  uint64_t first_id = info.alloc_id;
  cr_assert_eq(mem_free(p), 0);
  /* Parked in the block cache with its table entries: still unknown to every lookup. */
  cr_assert_eq(mem_lookup(p, &info), -ENOENT);
  cr_assert_eq(mem_lookup((char *)p + size - 1, &info), -ENOENT);
  struct kfd_gpu *owner = gpu;
  cr_assert_eq(mem_free_owner(p, &owner), -EINVAL);
  cr_assert_null(owner);
  cr_assert_eq(mem_free(p), -EINVAL, "double free of a cached block");
  /* The same size comes back from the cache, at the same address, as a new allocation. */
  uint64_t kernel_allocs = mem_stat_kernel_allocs();
  cr_assert_eq(mem_alloc(gpu, size, MEM_DEVICE, 0, &q), 0);
  cr_assert_eq(mem_stat_kernel_allocs(), kernel_allocs, "reused from the block cache");
  cr_assert_eq(q, p);
  cr_assert_eq(mem_lookup((char *)q + size / 2, &info), 0);
  cr_assert_eq(info.base, q);
  cr_assert_neq(info.alloc_id, first_id);
  cr_assert_eq(mem_free(q), 0);
  /* A trim gives it back to the kernel and clears its entries. */
  cr_assert_geq(mem_trim(gpu), size);
  cr_assert_eq(mem_lookup(p, &info), -ENOENT);
  cr_assert_eq(mem_lookup((char *)p + size / 2, &info), -ENOENT);
  /* An allocation of another size may land there now: it is found, and only it. */
  cr_assert_eq(mem_alloc(gpu, size / 2, MEM_DEVICE, 0, &q), 0);
  cr_assert_eq(mem_lookup(q, &info), 0);
  cr_assert_eq(info.size, size / 2);
  cr_assert_eq(mem_free(q), 0);
}

Test(memory_free_paths, free_owner_answers_as_free_would)
{
  struct kfd_gpu *gpu = test_gpu();
  void *small = NULL, *big = NULL;
  struct kfd_gpu *owner = NULL;

  cr_assert_eq(mem_alloc(gpu, 4096, MEM_DEVICE, 0, &small), 0);
  cr_assert_eq(mem_alloc(gpu, 8u << 20, MEM_DEVICE, 0, &big), 0);
  cr_assert_eq(mem_free_owner(small, &owner), 0);
  cr_assert_eq(owner, gpu);
  cr_assert_eq(mem_free_owner(big, &owner), 0);
  cr_assert_eq(owner, gpu);
  cr_assert_eq(mem_free_owner((char *)small + 256, &owner), -EINVAL, "interior of a slot");
  cr_assert_eq(mem_free_owner((char *)big + 4096, &owner), -EINVAL, "interior of a block");
  cr_assert_eq(mem_free_owner(NULL, &owner), -EINVAL);
  int on_stack = 0;
  cr_assert_eq(mem_free_owner(&on_stack, &owner), -EINVAL);
  cr_assert_eq(mem_free(small), 0);
  cr_assert_eq(mem_free_owner(small, &owner), -EINVAL, "a freed slot");
  cr_assert_eq(mem_free(big), 0);
  cr_assert_eq(mem_free_owner(big, &owner), -EINVAL, "a freed block");

  static char host[3 * 4096] __attribute__((aligned(4096)));
  cr_assert_eq(mem_host_register(gpu, host, sizeof(host), 0), 0);
  cr_assert_eq(mem_free_owner(host, &owner), -EINVAL, "registered memory is not freed");
  cr_assert_eq(mem_host_unregister(host), 0);
}

/* Freed slots are taken back: after freeing every slot of a size class, a trim returns the
 * chunks (each one counts as empty only once its freed slots are taken in). */
Test(memory_free_paths, freed_slots_are_counted_free_again)
{
  struct kfd_gpu *gpu = test_gpu();
  enum { N = 100 };
  void *p[N];

  mem_trim(gpu);
  for (int i = 0; i < N; i++)
    cr_assert_eq(mem_alloc(gpu, 64u << 10, MEM_DEVICE, 0, &p[i]), 0);
  for (int i = 0; i < N; i++)
    cr_assert_eq(mem_free(p[i]), 0);
  /* 100 slots of 64 KiB filled more than one 2 MiB chunk: all of them are empty again. */
  cr_assert_geq(mem_trim(gpu), (size_t)N * (64u << 10));
  struct mem_info info;
  cr_assert_eq(mem_lookup(p[0], &info), -ENOENT);
}

/* Two threads free the same pointer at once, many times over: exactly one free succeeds each
 * time, and the slot is handed out once afterwards. Both threads spin on `round` to start
 * within nanoseconds of each other (a barrier's wake-up is microseconds apart). */
struct race {
  void *_Atomic ptr;
  _Atomic int round, done, ok;
};

static void *race_free(void *arg)
{
  struct race *r = arg;
  for (int round = 1; round <= RACE_ROUNDS; round++) {
    while (atomic_load_explicit(&r->round, memory_order_acquire) != round)
      ;
    if (mem_free(atomic_load(&r->ptr)) == 0)
      atomic_fetch_add(&r->ok, 1);
    atomic_fetch_add(&r->done, 1);
  }
  return NULL;
}

Test(memory_free_paths, racing_frees_of_one_pointer_one_wins)
{
  struct kfd_gpu *gpu = test_gpu();
  struct race r = {0};
  pthread_t t;
  int bad = 0;

  cr_assert_eq(pthread_create(&t, NULL, race_free, &r), 0);
  for (int round = 1; round <= RACE_ROUNDS; round++) {
    void *p = NULL;
    cr_assert_eq(mem_alloc(gpu, 4096, MEM_DEVICE, 0, &p), 0);
    atomic_store(&r.ptr, p);
    atomic_store(&r.ok, 0);
    atomic_store(&r.done, 0);
    atomic_store_explicit(&r.round, round, memory_order_release);
    /* The other thread sees the round a cache-line transfer later: start about then, with a
     * varying lag so that some rounds overlap the two frees exactly. */
    for (volatile int spin = 0; spin < round % 64; spin++)
      ;
    if (mem_free(p) == 0)
      atomic_fetch_add(&r.ok, 1);
    while (atomic_load(&r.done) != 1)
      ;
    bad += atomic_load(&r.ok) != 1;
    /* The slot comes back once: two allocations now get two different addresses. */
    void *a = NULL, *b = NULL;
    cr_assert_eq(mem_alloc(gpu, 4096, MEM_DEVICE, 0, &a), 0);
    cr_assert_eq(mem_alloc(gpu, 4096, MEM_DEVICE, 0, &b), 0);
    bad += a == b;
    cr_assert_eq(mem_free(a), 0);
    cr_assert_eq(mem_free(b), 0);
  }
  pthread_join(t, NULL);
  cr_assert_eq(bad, 0, "%d of %d rounds: not exactly one free succeeded, or the slot came back "
               "twice", bad, RACE_ROUNDS);
}

/* Threads allocate and free small blocks concurrently; an address is never live twice. Owners
 * are claimed in a table by address: a slot handed to a second live allocation fails the claim. */
#define OWNERS 65536 /* more than the allocations the threads make in all */
static _Atomic uintptr_t owners[OWNERS];
static _Atomic int double_owned, alloc_failed;
static struct kfd_gpu *stress_gpu;

static _Atomic uintptr_t *owner_slot(void *p)
{
  uintptr_t a = (uintptr_t)p >> 8; /* slots are 256-byte aligned */
  for (unsigned i = 0; i < OWNERS; i++) {
    _Atomic uintptr_t *s = &owners[(a + i) % OWNERS];
    uintptr_t cur = atomic_load(s);
    if (cur == (uintptr_t)p)
      return s;
    if (cur == 0) {
      uintptr_t zero = 0;
      if (atomic_compare_exchange_strong(s, &zero, (uintptr_t)p) || zero == (uintptr_t)p)
        return s;
    }
  }
  return NULL;
}

static _Atomic int live_marks[OWNERS];

static void *stress(void *arg)
{
  unsigned seed = (unsigned)(uintptr_t)arg;
  void *mine[16] = {0};
  for (int iter = 0; iter < 4000; iter++) {
    int k = (int)((seed = seed * 1103515245u + 12345u) >> 16) % 16;
    if (mine[k]) {
      _Atomic uintptr_t *s = owner_slot(mine[k]);
      if (s)
        atomic_store(&live_marks[s - owners], 0);
      if (mem_free(mine[k]) != 0)
        atomic_fetch_add(&alloc_failed, 1);
      mine[k] = NULL;
    } else {
      size_t size = 256u << (seed % 5); /* 256 B .. 4 KiB */
      if (mem_alloc(stress_gpu, size, MEM_DEVICE, 0, &mine[k]) != 0) {
        atomic_fetch_add(&alloc_failed, 1);
        mine[k] = NULL;
        continue;
      }
      _Atomic uintptr_t *s = owner_slot(mine[k]);
      int zero = 0;
      if (!s || !atomic_compare_exchange_strong(&live_marks[s - owners], &zero, 1))
        atomic_fetch_add(&double_owned, 1);
    }
  }
  for (int k = 0; k < 16; k++) {
    if (!mine[k])
      continue;
    _Atomic uintptr_t *s = owner_slot(mine[k]);
    if (s)
      atomic_store(&live_marks[s - owners], 0); /* before the free, as above */
    if (mem_free(mine[k]) != 0)
      atomic_fetch_add(&alloc_failed, 1);
  }
  return NULL;
}

Test(memory_free_paths, concurrent_allocs_and_frees_never_share_a_slot)
{
  stress_gpu = test_gpu();
  pthread_t t[3];
  for (uintptr_t i = 0; i < 3; i++)
    cr_assert_eq(pthread_create(&t[i], NULL, stress, (void *)(i + 1)), 0);
  for (int i = 0; i < 3; i++)
    pthread_join(t[i], NULL);
  cr_assert_eq(atomic_load(&alloc_failed), 0);
  cr_assert_eq(atomic_load(&double_owned), 0, "an address was handed to two live allocations");
}
