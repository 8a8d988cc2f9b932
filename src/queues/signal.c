/* src/queues/signal.c: signals: an amd_signal_t in host-coherent memory mapped to the GPUs,
 * optionally with a KFD signal event; recycled through lock-free per-GPU pools. */
#define _GNU_SOURCE
#include "queues_internal.h"
#include "memory/mem.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SLAB_BYTES 4096u
#define SIGNALS_PER_SLAB (SLAB_BYTES / sizeof(struct amd_signal))
#define EVENT_SIGNALS_PER_GROW 16u
/* How long a wait busy-polls the value before it sleeps in WAIT_EVENTS:
 *  - asked to block (hipDeviceScheduleBlockingSync, hipEventBlockingSync): 2 us;
 *  - otherwise 200 us, as ROCr does (InterruptSignal::WaitRelaxed polls 200 us before
 *    hsaKmtWaitOnEvent): a sleep costs a wake-up on the interrupt path, tens of microseconds on
 *    these VMs, more than most short kernels take;
 *  - but only 2 us (a warm round trip takes 1.3) while the CPU is contended. A poller that was
 *    descheduled in the middle of its spin (a gap longer than SPIN_PREEMPTED_NS between two
 *    looks), or whose long spin ran out just before the work completed (within
 *    SPIN_PREEMPTED_NS of going to sleep), is taking the core from whoever must complete the
 *    work (on kfdsim, the emulated GPU's threads): the next SPIN_CONTENDED_WAITS waits spin
 *    briefly, then a long spin is tried again. Measured on kfdsim, process pinned to one core:
 *    launch + synchronize 130 us with long spins, 10-16 us with short ones; on two free cores
 *    1.2-1.3 us either way.
 * A long spin also looks at the event once, with a zero timeout, after SPIN_POKE_NS: a cheap
 * ioctl on amdkfd, and under kfdsim the point where the emulated driver prompts its command
 * processors, which otherwise find a doorbell rung while they slept only at their next poll
 * (up to 100 us later, milliseconds after an idle stretch; measured: a launch + synchronize
 * stuck at 130 us). Waits shorter than this (a warm round trip) never make the call. */
#define SPIN_POKE_NS 5000ull
#define SPIN_BLOCKING_NS 2000ull
#define SPIN_POLLING_NS 200000ull
#define SPIN_CONTENDED_NS 2000ull
#define SPIN_PREEMPTED_NS 30000ull
#define SPIN_CONTENDED_WAITS 256u
#define SPIN_PROBE_NS 20000ull      /* a spin this long samples the process's CPU time */
#define SLEEP_SLICE_MS 100u       /* re-check the value at least this often while asleep */

/* Lock-free stack of free signals: a pointer (48 bits on x86-64) and a 16-bit ABA tag. */
struct signal_pool {
  _Atomic uint64_t head;
  pthread_mutex_t grow_lock;      /* serialises growth (slab allocation, event creation) */
  bool interrupt;
};

struct gpu_signal_pools {
  struct signal_pool pools[2];    /* [0] plain, [1] with KFD events */
};

#define PTR_MASK ((1ull << 48) - 1)

static struct signal *stack_ptr(uint64_t head)
{
  return (struct signal *)(uintptr_t)(head & PTR_MASK);
}

static void pool_push(struct signal_pool *p, struct signal *s)
{
  uint64_t old = atomic_load_explicit(&p->head, memory_order_relaxed), next;
  do {
    /* Atomic (relaxed): a popper that read `old` before we pushed s may read it concurrently
     * (its CAS then fails on the tag; the read itself must not be a data race). */
    __atomic_store_n(&s->next_free, stack_ptr(old), __ATOMIC_RELAXED);
    next = (uint64_t)(uintptr_t)s | (((old >> 48) + 1) << 48);
  } while (!atomic_compare_exchange_weak_explicit(&p->head, &old, next, memory_order_release,
                                                  memory_order_relaxed));
}

static struct signal *pool_pop(struct signal_pool *p)
{
  uint64_t old = atomic_load_explicit(&p->head, memory_order_acquire), next;
  struct signal *s;
  do {
    s = stack_ptr(old);
    if (!s)
      return NULL;
    /* s->next_free may be stale if another thread popped s meanwhile; the tag then differs
     * and the CAS fails. Signal structs are never freed, so the read itself is safe. */
    next = (uint64_t)(uintptr_t)__atomic_load_n(&s->next_free, __ATOMIC_RELAXED) |
           (((old >> 48) + 1) << 48);
  } while (!atomic_compare_exchange_weak_explicit(&p->head, &old, next, memory_order_acquire,
                                                  memory_order_acquire));
  return s;
}

static struct gpu_signal_pools *gpu_pools(struct kfd_gpu *gpu)
{
  struct gpu_signal_pools *p = __atomic_load_n((struct gpu_signal_pools **)&gpu->queue_state,
                                               __ATOMIC_ACQUIRE);
  struct gpu_signal_pools *expected = NULL;

  if (p)
    return p;
  p = calloc(1, sizeof(*p));
  if (!p)
    return NULL;
  for (int i = 0; i < 2; i++) {
    pthread_mutex_init(&p->pools[i].grow_lock, NULL);
    p->pools[i].interrupt = i == 1;
  }
  if (!__atomic_compare_exchange_n((struct gpu_signal_pools **)&gpu->queue_state, &expected, p,
                                   false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
    free(p);
    return expected;
  }
  return p;
}

/* Add a slab of signals to the pool. Event signals grow by fewer at a time: each costs a
 * CREATE_EVENT and a process has KFD_SIGNAL_EVENT_LIMIT of them. */
static int pool_grow(struct kfd_gpu *gpu, struct signal_pool *p)
{
  unsigned count = p->interrupt ? EVENT_SIGNALS_PER_GROW : SIGNALS_PER_SLAB;
  struct signal *wrappers;
  struct amd_signal *slab;
  int err;

  err = mem_alloc(gpu, SLAB_BYTES, MEM_HOST_PINNED, MEM_FLAG_COHERENT | MEM_FLAG_ALL_GPUS,
                  (void **)&slab);
  if (err)
    return err;
  wrappers = calloc(count, sizeof(*wrappers));
  if (!wrappers) {
    mem_free(slab);
    return -ENOMEM;
  }
  memset(slab, 0, SLAB_BYTES);
  for (unsigned i = 0; i < count; i++) {
    struct signal *s = &wrappers[i];
    s->abi = &slab[i];
    s->gpu = gpu;
    s->pool = p;
    s->abi->kind = AMD_SIGNAL_KIND_USER;
    if (p->interrupt) {
      uint64_t mailbox;
      err = event_signal_create(gpu, &s->event_id, &mailbox);
      if (err) {
        if (i == 0)
          return err; /* nothing added: wrappers and slab stay allocated but unused */
        break;
      }
      s->abi->event_mailbox_ptr = mailbox;
      s->abi->event_id = s->event_id;
    }
    pool_push(p, s);
  }
  return 0;
}

int signal_create(struct kfd_gpu *gpu, int64_t initial, bool interrupt, struct signal **out)
{
  struct gpu_signal_pools *pools;
  struct signal_pool *p;
  struct signal *s;
  int err = 0;

  if (!gpu || !out)
    return -EINVAL;
  *out = NULL;
  pools = gpu_pools(gpu);
  if (!pools)
    return -ENOMEM;
  p = &pools->pools[interrupt ? 1 : 0];
  while (!(s = pool_pop(p))) {
    pthread_mutex_lock(&p->grow_lock);
    if (!(atomic_load_explicit(&p->head, memory_order_acquire) & PTR_MASK))
      err = pool_grow(gpu, p);
    pthread_mutex_unlock(&p->grow_lock);
    if (err)
      return err;
  }
  s->abi->start_ts = 0;
  s->abi->end_ts = 0;
  atomic_store_explicit(&s->last_age, 0, memory_order_relaxed);
  __atomic_store_n(&s->abi->value, initial, __ATOMIC_RELEASE);
  *out = s;
  return 0;
}

void signal_destroy(struct signal *s)
{
  if (s)
    pool_push(s->pool, s);
}

int64_t signal_load(const struct signal *s)
{
  return __atomic_load_n(&s->abi->value, __ATOMIC_ACQUIRE);
}

static void wake_waiters(struct signal *s)
{
  /* Pairs with the seq_cst increment of `waiters` before a sleeper re-reads the value: either
   * the sleeper sees the new value, or we see the sleeper and set the event. */
  if (s->event_id && atomic_load_explicit(&s->waiters, memory_order_seq_cst))
    kfd_set_event(s->event_id);
}

void signal_store(struct signal *s, int64_t value)
{
  __atomic_store_n(&s->abi->value, value, __ATOMIC_SEQ_CST);
  wake_waiters(s);
}

int64_t signal_add(struct signal *s, int64_t delta)
{
  int64_t old = __atomic_fetch_add(&s->abi->value, delta, __ATOMIC_SEQ_CST);
  wake_waiters(s);
  return old;
}

uint64_t signal_gpu_va(const struct signal *s)
{
  /* Pinned host memory from mem_alloc() has GPU VA == CPU VA: no table lookup on launch. */
  return (uint64_t)(uintptr_t)s->abi;
}

uint32_t signal_event_id(const struct signal *s)
{
  return s ? s->event_id : 0;
}

int signal_timestamps(const struct signal *s, uint64_t *start, uint64_t *end)
{
  uint64_t e;

  if (!s || !start || !end)
    return -EINVAL;
  e = __atomic_load_n(&s->abi->end_ts, __ATOMIC_ACQUIRE);
  if (!e)
    return -EAGAIN;
  *start = __atomic_load_n(&s->abi->start_ts, __ATOMIC_RELAXED);
  *end = e;
  return 0;
}

uint64_t kfd_gpu_ticks_to_ns(struct kfd_gpu *gpu, uint64_t ticks)
{
  uint64_t hz = gpu && gpu->gpu_clock_hz ? gpu->gpu_clock_hz : 100000000ull;
  return (uint64_t)((unsigned __int128)ticks * 1000000000u / hz);
}

/* Sleep in WAIT_EVENTS until the signal's event fires or timeout_ms passes. Passes the last
 * event age (KFD 1.14): an event signalled since that age returns at once, so a completion that
 * raced with going to sleep is not lost (kfd_events.c). */
int signal_wait_event(struct signal *s, uint32_t timeout_ms)
{
  struct kfd_event_data data;
  uint32_t result;
  int err;

  memset(&data, 0, sizeof(data));
  data.event_id = s->event_id;
  data.signal_event_data.last_event_age = atomic_load_explicit(&s->last_age, memory_order_relaxed);
  err = kfd_wait_events(&data, 1, true, timeout_ms, &result);
  if (err)
    return err;
  atomic_store_explicit(&s->last_age, data.signal_event_data.last_event_age, memory_order_relaxed);
  return 0;
}

int signal_poke(struct signal *s)
{
  if (!s || !s->event_id)
    return 0;
  int err = signal_wait_event(s, 0);
  return err == -ETIMEDOUT ? 0 : err;
}

static uint64_t now_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

/* Waits left that spin only SPIN_CONTENDED_NS (process-wide: contention is a property of the
 * machine, not of one signal). */
static _Atomic unsigned contended_waits;

static uint64_t spin_budget(bool blocking)
{
  if (blocking)
    return SPIN_BLOCKING_NS;
  unsigned left = atomic_load_explicit(&contended_waits, memory_order_relaxed);
  if (!left)
    return SPIN_POLLING_NS;
  /* A lost decrement between racing waiters only shortens the contended period a little. */
  atomic_store_explicit(&contended_waits, left - 1, memory_order_relaxed);
  return SPIN_CONTENDED_NS;
}

/* What the rest of the process did while a long spin ran, to tell "the CPU is contended" (the
 * threads that must complete the work, kfdsim's on an emulated GPU, were starved by the spin)
 * from "the work simply took as long as the spin" (they ran alongside). Sampled once the spin
 * has lasted SPIN_PROBE_NS, so short waits pay nothing. */
struct spin_probe {
  bool taken;
  uint64_t wall, process, thread; /* ns at the sample */
};

static uint64_t cpu_clock_ns(clockid_t id)
{
  struct timespec ts;
  if (clock_gettime(id, &ts))
    return 0;
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void probe_take(struct spin_probe *p, uint64_t now)
{
  p->wall = now;
  p->process = cpu_clock_ns(CLOCK_PROCESS_CPUTIME_ID);
  p->thread = cpu_clock_ns(CLOCK_THREAD_CPUTIME_ID);
  p->taken = p->process && p->thread;
}

/* The other threads of the process got less than a quarter of the time since the sample. */
static bool probe_others_starved(const struct spin_probe *p)
{
  if (!p->taken)
    return true; /* no sample: keep the old rule */
  uint64_t wall = now_ns() - p->wall;
  uint64_t process = cpu_clock_ns(CLOCK_PROCESS_CPUTIME_ID) - p->process;
  uint64_t thread = cpu_clock_ns(CLOCK_THREAD_CPUTIME_ID) - p->thread;
  uint64_t others = process > thread ? process - thread : 0;
  return others < wall / 4;
}

/* Busy-poll until the value is < `value`, the budget is spent, or the thread turns out to have
 * been descheduled mid-spin (see SPIN_PREEMPTED_NS). `poke`: look at the event once after
 * SPIN_POKE_NS (see there). `probe` (may be NULL): sampled after SPIN_PROBE_NS. Returns 0 when
 * satisfied, -ETIMEDOUT past the deadline, -EAGAIN when it is time to sleep. */
static int spin_wait(struct signal *s, int64_t value, uint64_t start, uint64_t spin_ns,
                     uint64_t deadline, bool poke, struct spin_probe *probe)
{
  uint64_t last = start;
  poke = poke && s->event_id && spin_ns > SPIN_POKE_NS;
  for (;;) {
    for (int k = 0; k < 64; k++) {
      if (signal_load(s) < value)
        return 0;
      cpu_relax();
    }
    uint64_t now = now_ns();
    if (now >= deadline)
      return -ETIMEDOUT;
    if (now - last >= SPIN_PREEMPTED_NS) {
      atomic_store_explicit(&contended_waits, SPIN_CONTENDED_WAITS, memory_order_relaxed);
      return -EAGAIN;
    }
    if (now - start >= spin_ns)
      return -EAGAIN;
    if (probe && !probe->taken && now - start >= SPIN_PROBE_NS) {
      probe_take(probe, now);
      now = now_ns(); /* the clock reads' own time is not a preemption */
    }
    if (poke && now - start >= SPIN_POKE_NS) {
      poke = false;
      int err = signal_poke(s);
      if (err)
        return err;
      now = now_ns(); /* the ioctl's own time is not a preemption */
    }
    last = now;
  }
}

/* Sleep in WAIT_EVENTS (in slices) until the value is < `value` or the deadline passes. */
static int sleep_wait(struct signal *s, int64_t value, uint64_t deadline, bool blocking)
{
  uint64_t now;
  int err;

  for (;;) {
    if (signal_load(s) < value)
      return 0;
    now = now_ns();
    if (now >= deadline)
      return -ETIMEDOUT;
    if (!s->event_id) {
      sched_yield();
      continue;
    }
    uint64_t left_ms = (deadline - now) / 1000000u + 1;
    uint32_t slice = left_ms < SLEEP_SLICE_MS ? (uint32_t)left_ms : SLEEP_SLICE_MS;
    atomic_fetch_add_explicit(&s->waiters, 1, memory_order_seq_cst);
    err = signal_load(s) < value ? 0 : signal_wait_event(s, slice);
    atomic_fetch_sub_explicit(&s->waiters, 1, memory_order_seq_cst);
    if (err && err != -ETIMEDOUT)
      return err;
    /* Woken (an interrupt, or the slice ended) but not there yet: the value is often a count
     * of packets still to complete, and the next completion is near. Poll again before
     * sleeping, rather than being woken by every completion's interrupt. */
    if (!err) {
      now = now_ns();
      err = spin_wait(s, value, now, spin_budget(blocking), deadline, false, NULL);
      if (err != -EAGAIN)
        return err;
    }
  }
}

int signal_wait_lt(struct signal *s, int64_t value, uint64_t timeout_ns, bool blocking)
{
  uint64_t start, deadline, budget, slept;
  int err;

  if (!s)
    return -EINVAL;
  if (signal_load(s) < value)
    return 0; /* the common case of a completed signal: one load, no clock read */
  if (!timeout_ns)
    return -ETIMEDOUT;
  start = now_ns();
  deadline = timeout_ns > UINT64_MAX - start ? UINT64_MAX : start + timeout_ns;
  /* Busy-poll first: a completion within microseconds is cheaper to catch than to sleep on. */
  budget = spin_budget(blocking);
  struct spin_probe probe = {0};
  err = spin_wait(s, value, start, budget, deadline, true,
                  budget == SPIN_POLLING_NS ? &probe : NULL);
  if (err != -EAGAIN)
    return err;
  slept = now_ns();
  bool starved = budget == SPIN_POLLING_NS && probe_others_starved(&probe);
  err = sleep_wait(s, value, deadline, blocking);
  /* A long spin that ran out, then a completion right after we went to sleep, while the rest of
   * the process hardly ran during the spin: the work could only progress once we left the CPU,
   * so the CPU is contended (a spin is not always preempted, then no gap shows it). Work that
   * merely took as long as the spin (its threads busy alongside ours) is not contention. */
  if (!err && starved && now_ns() - slept < SPIN_PREEMPTED_NS)
    atomic_store_explicit(&contended_waits, SPIN_CONTENDED_WAITS, memory_order_relaxed);
  return err;
}
