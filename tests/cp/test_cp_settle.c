/* A lingering AQL worker against the producer patterns it must never lose a packet in: one packet
 * at a time (a launch + synchronize loop), a packet and a marker right behind it (what a
 * synchronize adds), bursts of every length around the engine's run size, a burst the producer
 * keeps up while the ring wraps, and destruction while the worker waits for a burst to settle.
 * No test asserts on time: the patterns are what matters, and ctest's timeout catches a hang. */
#include <criterion/criterion.h>
#include <pthread.h>

#include "cp_harness.h"
#include "cp/cp_internal.h"

#define HEADER_INVALID 1

static uint64_t kernel_object(uint32_t kind)
{
  void *p;
  uint64_t va = gva_alloc(64, &p);
  *(uint32_t *)p = kind;
  return va;
}

static void submit_barrier(struct haql *a, uint64_t completion)
{
  uint64_t none[5] = {0};
  uint32_t pkt[16];
  WAIT_UNTIL(a->next - aql_read_index(a) < a->slots); /* the producer's "queue full" wait */
  aql_barrier_pkt(pkt, 3 /* BARRIER_AND */, none, completion);
  aql_submit(a, pkt);
}

static unsigned invalid_headers(const struct haql *a)
{
  unsigned n = 0;
  for (uint64_t i = 0; i < a->slots; i++)
    n += __atomic_load_n((uint16_t *)(a->ring + i * 64), __ATOMIC_ACQUIRE) == HEADER_INVALID;
  return n;
}

Test(cp_settle, one_packet_at_a_time_each_completes)
{
  struct haql a;
  cr_assert_eq(aql_open(&a, 64), 0);
  struct hsig done = sig_new(1, 0, 0);
  for (unsigned i = 0; i < 3000; i++) {
    sig_set(done, 1);
    submit_barrier(&a, done.va);
    WAIT_UNTIL(sig_value(done) == 0);
    cr_assert_eq(aql_read_index(&a), i + 1, "packet %u consumed", i);
  }
  sim_cp_queue_destroy(a.q);
}

Test(cp_settle, packet_and_marker_right_behind_it_both_complete)
{
  struct haql a;
  cr_assert_eq(aql_open(&a, 64), 0);
  uint64_t ko = kernel_object(FAKE_KERNEL_STORE);
  void *out, *args;
  uint64_t out_va = gva_alloc(4, &out), args_va = gva_alloc(8, &args);
  memcpy(args, &out_va, 8);
  struct hsig marker = sig_new(1, 0, 0);
  uint32_t pkt[16];
  for (unsigned i = 0; i < 1000; i++) {
    __atomic_store_n((uint32_t *)out, 0u, __ATOMIC_RELEASE);
    sig_set(marker, 1);
    uint32_t grid = 64u * (1 + i % 7);
    aql_dispatch_pkt(pkt, ko, args_va, 64, grid, 0);
    WAIT_UNTIL(a.next - aql_read_index(&a) < a.slots - 1);
    aql_submit(&a, pkt);
    submit_barrier(&a, marker.va);
    WAIT_UNTIL(sig_value(marker) == 0);
    cr_assert_eq(__atomic_load_n((uint32_t *)out, __ATOMIC_ACQUIRE), grid * 64u,
                 "iteration %u: the kernel before the marker ran", i);
    cr_assert_eq(aql_read_index(&a), 2ull * (i + 1));
  }
  sim_cp_queue_destroy(a.q);
}

Test(cp_settle, bursts_of_every_length_around_the_run_size_complete)
{
  /* The engine takes up to 64 packets per run and hands their slots back at its end. */
  static const unsigned lengths[] = {1, 2, 3, 63, 64, 65, 127, 128, 129, 255, 300, 511};
  struct haql a;
  cr_assert_eq(aql_open(&a, 512), 0);
  uint64_t total = 0;
  for (unsigned r = 0; r < 3; r++) {
    for (unsigned l = 0; l < sizeof(lengths) / sizeof(lengths[0]); l++) {
      struct hsig done = sig_new(lengths[l], 0, 0);
      for (unsigned i = 0; i < lengths[l]; i++)
        submit_barrier(&a, done.va);
      total += lengths[l];
      WAIT_UNTIL(sig_value(done) == 0);
      WAIT_UNTIL(aql_read_index(&a) == total); /* the slot is released after the signal */
      cr_assert_eq(invalid_headers(&a), a.slots, "burst of %u: every consumed header is INVALID",
                   lengths[l]);
    }
  }
  sim_cp_queue_destroy(a.q);
}

Test(cp_settle, a_burst_that_wraps_the_ring_completes)
{
  /* The producer never pauses on its own: only a full ring stops it, so the worker's wait for
   * the burst to settle ends at its bound or at the full ring, and it must then drain the ring
   * while the producer keeps going. */
  struct haql a;
  cr_assert_eq(aql_open(&a, 128), 0);
  const unsigned n = 20000;
  struct hsig done = sig_new(n, 0, 0);
  for (unsigned i = 0; i < n; i++)
    submit_barrier(&a, done.va);
  WAIT_UNTIL(sig_value(done) == 0);
  WAIT_UNTIL(aql_read_index(&a) == n);
  cr_assert_eq(invalid_headers(&a), a.slots);
  sim_cp_queue_destroy(a.q);
}

struct producer {
  struct haql *a;
  struct hsig done;
  _Atomic bool stop;
  _Atomic uint64_t published;
};

static void *produce(void *arg)
{
  struct producer *p = arg;
  uint64_t none[5] = {0};
  uint32_t pkt[16];
  aql_barrier_pkt(pkt, 3, none, p->done.va);
  while (!atomic_load(&p->stop)) {
    if (p->a->next - aql_read_index(p->a) >= p->a->slots) {
      sched_yield(); /* full: the queue may be gone, so look at the stop flag again */
      continue;
    }
    aql_submit(p->a, pkt);
    atomic_fetch_add(&p->published, 1);
  }
  return NULL;
}

Test(cp_settle, destroy_while_a_burst_goes_on_returns)
{
  for (unsigned r = 0; r < 20; r++) {
    struct haql a;
    cr_assert_eq(aql_open(&a, 256), 0);
    struct producer p = {.a = &a, .done = sig_new(INT64_MAX, 0, 0)};
    pthread_t t;
    cr_assert_eq(pthread_create(&t, NULL, produce, &p), 0);
    WAIT_UNTIL(aql_read_index(&a) >= 100 * (r + 1));
    sim_cp_queue_destroy(a.q); /* returns although the doorbell keeps ringing */
    atomic_store(&p.stop, true);
    pthread_join(t, NULL);
    uint64_t consumed = aql_read_index(&a);
    cr_assert_geq(consumed, 100 * (r + 1));
    cr_assert_leq(consumed, atomic_load(&p.published), "never more consumed than published");
    cr_assert_eq(INT64_MAX - sig_value(p.done), (int64_t)consumed,
                 "one completion per consumed packet");
  }
}
