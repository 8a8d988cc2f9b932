/* The command processors' threads: one doorbell watcher and one worker per queue.
 *
 * Doorbells are plain memory in the doorbell page: user space writes them without telling
 * anyone, so somebody must look. The watcher looks at every doorbell of every GPU, often right
 * after it last saw one change, then every millisecond, then ever more slowly (cp_internal.h),
 * and wakes the GPU's workers when one changed under a sleeping worker. A worker whose ring
 * empties first watches its own doorbell for a short adaptive window (CP_LINGER_*), then sleeps
 * on its GPU's condition variable; sim_cp_kick() broadcasts it too (the driver
 * kicks on queue ioctls and when user space enters WAIT_EVENTS, so a waiter is never left to the
 * poll period). An idle process therefore costs one short timed wakeup every 10 ms, however
 * many GPUs it has.
 *
 * Locking: g_lock (global) serialises queue creation and destruction, starting and stopping the
 * watcher, and guards the GPU table; g_watch.lock only the watcher's stop flag;
 * cg->lock guards a GPU's queue list, the queues' ring fields and stop flags, and `kicks`.
 * After fork() the child has none of these threads: queues created before the fork are
 * forgotten (freed without joining), and the child starts afresh.
 */
#include <errno.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cp_internal.h"

#define CP_MAX_GPUS 64

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
/* Written under g_lock; read without it by sim_cp_kick (entries are never freed, only forgotten
 * after fork, so a reader never sees a dangling pointer). */
static struct cp_gpu *_Atomic g_gpus[CP_MAX_GPUS];
/* The doorbell watcher: one thread for the whole process, alive while any queue exists. It does
 * not need kicks: a kick is for the workers, which look at their own rings when woken. */
static struct {
  pthread_mutex_t lock;
  pthread_cond_t cond;   /* only to stop the watcher promptly */
  pthread_t thread;
  bool running;          /* protected by g_lock */
  bool stop;             /* protected by lock */
  bool poke;             /* protected by lock: a queue was created, poll eagerly again */
  unsigned queues;       /* protected by g_lock: queues in the process */
} g_watch = {.lock = PTHREAD_MUTEX_INITIALIZER};

uint64_t cp_preempt_timeout_ns = 9000000000ull;

static unsigned g_fork_generation;         /* bumped in the child after fork() */
static _Atomic unsigned g_lingering;       /* workers watching their doorbell right now */
static pthread_once_t g_atfork_once = PTHREAD_ONCE_INIT;

uint64_t cp_now_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static struct timespec deadline_after(uint64_t ns)
{
  uint64_t t = cp_now_ns() + ns;
  struct timespec ts = {.tv_sec = (time_t)(t / 1000000000ull), .tv_nsec = (long)(t % 1000000000ull)};
  return ts;
}

/* ---- fork ---- */

static void atfork_prepare(void) { pthread_mutex_lock(&g_lock); }
static void atfork_parent(void) { pthread_mutex_unlock(&g_lock); }
static void atfork_child(void)
{
  /* The threads did not survive; neither may their locks be trusted. Forget every GPU. */
  for (unsigned i = 0; i < CP_MAX_GPUS; i++)
    atomic_store(&g_gpus[i], NULL);
  g_watch.running = false;
  g_watch.queues = 0;
  atomic_store(&g_lingering, 0);
  cp_gate_atfork_child();
  pthread_mutex_init(&g_watch.lock, NULL);
  g_fork_generation++;
  pthread_mutex_unlock(&g_lock);
}
static void atfork_register(void) { pthread_atfork(atfork_prepare, atfork_parent, atfork_child); }

/* ---- per-GPU state ---- */

static void cg_broadcast_locked(struct cp_gpu *cg)
{
  cg->kicks++;
  pthread_cond_broadcast(&cg->cond);
}

/* The GPU's state, or NULL. Lock-free. */
static struct cp_gpu *cg_find(struct sim_gpu *gpu)
{
  for (unsigned i = 0; i < CP_MAX_GPUS; i++) {
    struct cp_gpu *cg = atomic_load(&g_gpus[i]);
    if (cg && cg->gpu == gpu)
      return cg;
  }
  return NULL;
}

/* The GPU's state, created on first use. Caller holds g_lock. */
static struct cp_gpu *cg_lookup(struct sim_gpu *gpu)
{
  struct cp_gpu *found = cg_find(gpu);
  if (found)
    return found;
  for (unsigned i = 0; i < CP_MAX_GPUS; i++) {
    if (atomic_load(&g_gpus[i]))
      continue;
    struct cp_gpu *cg = calloc(1, sizeof(*cg));
    if (!cg)
      return NULL;
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&cg->cond, &attr);
    pthread_condattr_destroy(&attr);
    pthread_mutex_init(&cg->lock, NULL);
    cg->gpu = gpu;
    atomic_store(&g_gpus[i], cg);
    return cg;
  }
  return NULL;
}

static uint64_t doorbell_read(const struct sim_cp_queue *q)
{
  return __atomic_load_n(q->desc.doorbell, __ATOMIC_ACQUIRE);
}


/* Look at every doorbell of one GPU; wake its workers if one changed under a worker that is
 * asleep (a running or lingering worker finds its new packets by itself). */
static bool watch_gpu(struct cp_gpu *cg)
{
  bool changed = false, wake = false;
  pthread_mutex_lock(&cg->lock);
  for (struct sim_cp_queue *q = cg->queues; q; q = q->next) {
    uint64_t db = doorbell_read(q);
    if (db != q->seen_doorbell) {
      q->seen_doorbell = db;
      changed = true;
      wake = wake || q->waiting;
    }
  }
  if (wake)
    cg_broadcast_locked(cg);
  pthread_mutex_unlock(&cg->lock);
  return changed;
}

/* Linux lets a normal thread's timed sleeps overshoot by its timer slack, 50 us by default:
 * more than the polling periods themselves. The CP's threads ask for 1 us, as a GPU's command
 * processor notices a doorbell within microseconds. Idle cost is unchanged (same wakeups). */
#define CP_PR_SET_TIMERSLACK 29 /* <linux/prctl.h>; its header clashes with the raw UAPI path */
static void cp_thread_timer_slack(void)
{
  syscall(SYS_prctl, CP_PR_SET_TIMERSLACK, 1000ul, 0ul, 0ul, 0ul);
}

static void *watcher_main(void *arg)
{
  (void)arg;
  cp_thread_timer_slack();
  uint64_t last_activity = cp_now_ns();
  pthread_mutex_lock(&g_watch.lock);
  while (!g_watch.stop) {
    if (g_watch.poke) {
      g_watch.poke = false;
      last_activity = cp_now_ns();
    }
    pthread_mutex_unlock(&g_watch.lock);
    bool changed = false;
    for (unsigned i = 0; i < CP_MAX_GPUS; i++) {
      struct cp_gpu *cg = atomic_load(&g_gpus[i]);
      if (cg && watch_gpu(cg))
        changed = true;
    }
    uint64_t now = cp_now_ns();
    if (changed)
      last_activity = now;
    uint64_t idle = now - last_activity;
    uint64_t period = idle < CP_BUSY_WINDOW_NS        ? CP_BUSY_POLL_NS
                      : idle < CP_IDLE_WINDOW_NS      ? CP_IDLE_POLL_NS
                      : idle < CP_DEEP_IDLE_WINDOW_NS ? CP_DEEP_IDLE_POLL_NS
                                                      : CP_DORMANT_POLL_NS;
    struct timespec until = deadline_after(period);
    pthread_mutex_lock(&g_watch.lock);
    if (!g_watch.stop)
      pthread_cond_timedwait(&g_watch.cond, &g_watch.lock, &until);
  }
  pthread_mutex_unlock(&g_watch.lock);
  return NULL;
}

/* Caller holds g_lock. A new queue is about to be used: poll eagerly again. */
static int watcher_start(void)
{
  if (g_watch.running) {
    pthread_mutex_lock(&g_watch.lock);
    g_watch.poke = true;
    pthread_cond_broadcast(&g_watch.cond);
    pthread_mutex_unlock(&g_watch.lock);
    return 0;
  }
  static bool cond_ready;
  if (!cond_ready) {
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&g_watch.cond, &attr);
    pthread_condattr_destroy(&attr);
    cond_ready = true;
  }
  g_watch.stop = false;
  if (pthread_create(&g_watch.thread, NULL, watcher_main, NULL))
    return -ENOMEM;
  g_watch.running = true;
  return 0;
}

/* Caller holds g_lock. */
static void watcher_stop(void)
{
  if (!g_watch.running)
    return;
  pthread_mutex_lock(&g_watch.lock);
  g_watch.stop = true;
  pthread_cond_broadcast(&g_watch.cond);
  pthread_mutex_unlock(&g_watch.lock);
  pthread_join(g_watch.thread, NULL);
  g_watch.running = false;
}

/* ---- waiting ---- */

bool cp_queue_wait(struct sim_cp_queue *q, uint64_t timeout_ns)
{
  struct cp_gpu *cg = q->cg;
  pthread_mutex_lock(&cg->lock);
  uint64_t seen = cg->kicks;
  struct timespec until = deadline_after(timeout_ns);
  cg->blocked++;
  q->waiting = true;
  while (!q->stop && cg->kicks == seen)
    if (pthread_cond_timedwait(&cg->cond, &cg->lock, &until) == ETIMEDOUT)
      break;
  q->waiting = false;
  cg->blocked--;
  bool run = !q->stop;
  pthread_mutex_unlock(&cg->lock);
  return run;
}

bool cp_queue_backoff(struct sim_cp_queue *q, unsigned tries)
{
  /* Yield a few times (a producer is usually mid-write), then sleep ever longer, up to the
   * idle poll period, so a queue parked on a barrier or POLL_REGMEM costs no core. */
  if (tries < 8) {
    sched_yield();
    pthread_mutex_lock(&q->cg->lock);
    bool run = !q->stop;
    pthread_mutex_unlock(&q->cg->lock);
    return run;
  }
  uint64_t ns = tries < 32 ? 20000ull : tries < 64 ? 200000ull : tries < 164 ? CP_IDLE_POLL_NS
                                                                 : CP_DEEP_IDLE_POLL_NS;
  return cp_queue_wait(q, ns);
}

/* ---- queue priority ----
 *
 * amdkfd writes a compute queue's priority (0-15, kfd_ioctl.h) into its MQD twice:
 * cp_hqd_queue_priority as given and cp_hqd_pipe_priority = pipe_priority_map[priority]
 * (kfd_mqd_manager.c: 0-6 LOW, 7-10 MEDIUM, 11-15 HIGH), and the hardware launches the waves of
 * higher-priority pipes first. kfdsim's workers arbitrate the same way between packets: a queue
 * whose next packet is ready defers while a queue of a higher class on its GPU has one ready or
 * running, and its engine stops between packets when one appears. A dispatch already running is
 * not preempted (the hardware does not take back waves it launched either). Queues of one class
 * run side by side as before, so streams of default priority are unaffected.
 *
 * Deferring forever could deadlock a program whose high-priority kernel spins on memory that a
 * lower-priority queue's work writes (on hardware the spinning waves leave CUs free for the other
 * queue). So a queue defers at most CP_PRIO_DEFER_MAX_NS while the higher classes make no
 * progress (no packet consumed, no workgroup finished); then it runs regardless until they do. */

static unsigned pipe_class(uint32_t priority)
{
  return priority >= 11 ? 2u : priority >= 7 ? 1u : 0u;
}

static uint64_t higher_progress(struct cp_gpu *cg, unsigned mine)
{
  uint64_t sum = 0;
  for (unsigned c = mine + 1; c < CP_PRIO_CLASSES; c++)
    sum += __atomic_load_n(&cg->progress[c], __ATOMIC_RELAXED);
  return sum;
}

uint64_t *cp_queue_progress_counter(struct sim_cp_queue *q)
{
  if (q->desc.type != CP_QUEUE_TYPE_COMPUTE_AQL || !q->contending || !q->contend_class)
    return NULL;
  return &q->cg->progress[q->contend_class];
}

bool cp_queue_outranked(struct sim_cp_queue *q)
{
  if (q->desc.type != CP_QUEUE_TYPE_COMPUTE_AQL || !q->contending)
    return false;
  unsigned mine = q->contend_class;
  bool higher = false;
  for (unsigned c = mine + 1; c < CP_PRIO_CLASSES && !higher; c++)
    higher = atomic_load_explicit(&q->cg->contenders[c], memory_order_acquire) != 0;
  if (!higher)
    return false;
  if (q->prio_starved && higher_progress(q->cg, mine) == q->starved_progress)
    return false;
  q->prio_starved = false;
  return true;
}

/* Count the worker in (or out of) its class's contenders. Leaving wakes deferring workers. */
static void queue_contend(struct sim_cp_queue *q, bool on)
{
  if (q->desc.type != CP_QUEUE_TYPE_COMPUTE_AQL || q->contending == on)
    return;
  struct cp_gpu *cg = q->cg;
  q->contending = on;
  if (on) {
    q->contend_class = atomic_load(&q->prio_class);
    atomic_fetch_add(&cg->contenders[q->contend_class], 1);
    return;
  }
  atomic_fetch_sub(&cg->contenders[q->contend_class], 1);
  bool lower = false; /* only a lower class's worker can be deferring to this one */
  for (unsigned c = 0; c < q->contend_class && !lower; c++)
    lower = atomic_load(&cg->contenders[c]) != 0;
  if (!lower)
    return;
  pthread_mutex_lock(&cg->lock);
  if (cg->blocked)
    cg_broadcast_locked(cg);
  pthread_mutex_unlock(&cg->lock);
}

/* Wait while outranked, within the bound above. Returns false when the queue must stop. */
static bool queue_defer(struct sim_cp_queue *q)
{
  if (!cp_queue_outranked(q))
    return true;
  uint64_t start = cp_now_ns(), seen = higher_progress(q->cg, q->contend_class);
  while (cp_queue_outranked(q)) {
    uint64_t now = cp_now_ns(), progress = higher_progress(q->cg, q->contend_class);
    if (progress != seen) {
      seen = progress;
      start = now;
    } else if (now - start >= CP_PRIO_DEFER_MAX_NS) {
      q->prio_starved = true;
      q->starved_progress = progress;
      return true;
    }
    /* Completions and queues leaving contention broadcast; the timeout is a safety net. */
    if (!cp_queue_wait(q, 1000000ull))
      return false;
  }
  return true;
}

/* ---- the worker ---- */

static bool queue_is_aql(const struct sim_cp_queue *q)
{
  return q->desc.type == CP_QUEUE_TYPE_COMPUTE_AQL;
}

static bool queue_has_work(struct sim_cp_queue *q)
{
  if (atomic_load(&q->failed))
    return false;
  return queue_is_aql(q) ? cp_aql_has_work(q) : cp_sdma_has_work(q);
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

/* How many workers may linger at once in the process (g_lingering): half the CPUs (at least
 * one), so that queues emptying together (several streams) never spin on every core while the
 * dispatches of other queues, or the host threads feeding them, need the CPUs. */
static unsigned linger_cap(void)
{
  static _Atomic unsigned cap;
  unsigned c = atomic_load_explicit(&cap, memory_order_relaxed);
  if (!c) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    c = n >= 4 ? (unsigned)(n / 2) : 1;
    atomic_store_explicit(&cap, c, memory_order_relaxed);
  }
  return c;
}

static bool worker_linger_window(struct sim_cp_queue *q, uint64_t db);

/* The ring just emptied: watch the doorbell for a window (cp_internal.h), if no more than
 * linger_cap() workers already do. Returns true when it rang (look at the ring again), false
 * when the window passed or the queue is being destroyed (sleep). */
static bool worker_linger(struct sim_cp_queue *q, uint64_t db)
{
  if (atomic_fetch_add(&g_lingering, 1) >= linger_cap()) {
    atomic_fetch_sub(&g_lingering, 1);
    return false;
  }
  bool rang = worker_linger_window(q, db);
  atomic_fetch_sub(&g_lingering, 1);
  return rang;
}

/* The doorbell just rang while the worker lingered: let the producer finish its burst before the
 * worker reads the ring. A worker that takes each packet the moment it is published shares every
 * ring, kernarg and index cache line with the producing core, one transfer per line per launch
 * (a launch loop measured 120-135 ns per enqueue against 35-40 ns with the worker off the
 * core). The burst is over when the doorbell has not moved between two looks CP_SETTLE_NS apart.
 *
 * Each look costs the producer as well: it pulls the doorbell's line into this core, and the
 * producer's next doorbell store must take it back (a cross-core transfer that its next locked
 * instruction waits for). So the worker looks on a clock rather than continuously: the first
 * CP_SETTLE_EAGER_LOOKS looks CP_SETTLE_NS apart (a launch and the marker of the synchronize
 * that follows it ring twice, ~100 ns apart, and should not wait longer), then at gaps that
 * double while it keeps moving, up to CP_SETTLE_GAP_MAX_NS. In between it reads only the clock
 * and its own queue's cancel flag, lines the producer never writes. A long burst then pays one
 * transfer per microsecond instead of one per launch, and its end is seen at most one gap late. Measured on kfdsim (2 vCPUs, worker and producer pinned apart, 180
 * batches of 256 empty-kernel launches): enqueue median 80 -> 55 ns, launch + synchronize
 * 1.9 -> 1.7 us. Bounded by CP_SETTLE_MAX_NS, and a full ring stops the producer anyway. */
static void worker_settle(struct sim_cp_queue *q)
{
  uint64_t last = doorbell_read(q), t0 = cp_now_ns(), gap = CP_SETTLE_NS, next = t0 + gap;
  for (unsigned moved = 0;; moved++) {
    uint64_t now;
    do {
      for (unsigned p = 0; p < 8; p++)
        cpu_relax();
      /* destroy stores cancel_dispatch (atomically) along with stop */
      if (__atomic_load_n(&q->cancel_dispatch, __ATOMIC_ACQUIRE))
        return;
      now = cp_now_ns();
    } while (now < next);
    uint64_t v = doorbell_read(q);
    if (v == last || now - t0 >= CP_SETTLE_MAX_NS)
      return;
    last = v;
    if (moved + 1 >= CP_SETTLE_EAGER_LOOKS)
      gap = gap * 2 < CP_SETTLE_GAP_MAX_NS ? gap * 2 : CP_SETTLE_GAP_MAX_NS;
    next = now + gap;
  }
}

/* `db`: the doorbell as it was before the ring was found empty, so that a ring in between counts. */
static bool worker_linger_window(struct sim_cp_queue *q, uint64_t db)
{
  bool full = q->linger_short == 0;
  uint64_t window = full ? CP_LINGER_NS : CP_LINGER_SHORT_NS;
  if (!full)
    q->linger_short--;
  uint64_t start = cp_now_ns();
  for (unsigned n = 1;; n++) {
    if (doorbell_read(q) != db) {
      q->linger_misses = 0;
      q->linger_short = 0;
      worker_settle(q);
      return true;
    }
    /* destroy stores cancel_dispatch (atomically) along with stop */
    if (__atomic_load_n(&q->cancel_dispatch, __ATOMIC_ACQUIRE))
      return false;
    if (n % 32) {
      cpu_relax();
      continue;
    }
    if (cp_now_ns() - start >= window) {
      if (full) {
        /* 1, 3, 7, ... short windows before the next full one */
        q->linger_misses += q->linger_misses < 6;
        unsigned skip = (1u << q->linger_misses) - 1;
        q->linger_short = skip < CP_LINGER_BACKOFF_MAX ? skip : CP_LINGER_BACKOFF_MAX;
      }
      return false;
    }
    cpu_relax();
  }
}

static void *worker_main(void *arg)
{
  struct sim_cp_queue *q = arg;
  unsigned tries = 0;
  cp_thread_timer_slack();

  for (;;) {
    pthread_mutex_lock(&q->cg->lock);
    uint64_t seen = q->cg->kicks;
    bool stop = q->stop;
    pthread_mutex_unlock(&q->cg->lock);
    if (stop)
      break;

    enum cp_status st = CP_DONE;
    uint64_t consumed = q->consumed;
    if (queue_has_work(q)) {
      queue_contend(q, true);
      if (!queue_defer(q))
        break;
      cp_gate_enter();
      st = queue_is_aql(q) ? cp_aql_run(q) : cp_sdma_run(q);
      cp_gate_leave();
    }
    if (q->consumed != consumed && q->contending)
      __atomic_fetch_add(&q->cg->progress[q->contend_class], q->consumed - consumed,
                         __ATOMIC_RELAXED);
    if (q->consumed != consumed) {
      /* Completions may satisfy another queue's barrier or poll: wake the GPU's workers if
       * one is backing off on memory (idle ones have nothing to gain from it). */
      pthread_mutex_lock(&q->cg->lock);
      if (q->cg->blocked)
        cg_broadcast_locked(q->cg);
      pthread_mutex_unlock(&q->cg->lock);
    }
    if (cp_queue_stopping(q))
      break; /* destroyed while running: the queue's memory may already be gone */

    if (st == CP_BLOCKED) {
      queue_contend(q, false); /* parked on memory: it launches nothing meanwhile */
      if (!cp_queue_backoff(q, tries++))
        break;
      continue;
    }
    tries = 0;
    uint64_t db = doorbell_read(q); /* before the ring is found empty: see the sleep below */
    if (queue_has_work(q))
      continue;
    queue_contend(q, false);
    /* Linger only when the ring just emptied after work: a worker woken for nothing (a kick
     * meant for another queue, the safety timeout) goes back to sleep at once. */
    bool worked = q->consumed != consumed;
    if (worked && !atomic_load(&q->failed) && worker_linger(q, db))
      continue;
    /* Empty (or failed): sleep until the watcher or the driver kicks. The timeout is only a
     * safety net; `seen` was read before the ring was found empty, so no kick is lost. The
     * watcher wakes only a worker marked waiting: a doorbell it saw change before the mark
     * would be lost, so it is checked under the lock once the mark is set. */
    pthread_mutex_lock(&q->cg->lock);
    struct timespec until = deadline_after(1000000000ull);
    q->waiting = true;
    while (!q->stop && q->cg->kicks == seen && doorbell_read(q) == db)
      if (pthread_cond_timedwait(&q->cg->cond, &q->cg->lock, &until) == ETIMEDOUT)
        break;
    q->waiting = false;
    pthread_mutex_unlock(&q->cg->lock);
  }
  queue_contend(q, false);
  pthread_mutex_lock(&q->cg->lock);
  q->exited = true;
  bool detached = q->detached;
  pthread_cond_broadcast(&q->cg->cond);
  pthread_mutex_unlock(&q->cg->lock);
  if (detached) {
    sim_log("cp: queue %u: the abandoned dispatch ended", q->desc.queue_id);
    free(q);
  }
  return NULL;
}

bool cp_queue_stopping(struct sim_cp_queue *q)
{
  pthread_mutex_lock(&q->cg->lock);
  bool stop = q->stop;
  pthread_mutex_unlock(&q->cg->lock);
  return stop;
}

/* ---- the interface in sim.h ---- */

static bool is_pow2(uint64_t v) { return v && !(v & (v - 1)); }

static int desc_check(const struct sim_queue_desc *d)
{
  switch (d->type) {
  case CP_QUEUE_TYPE_COMPUTE_AQL:
  case CP_QUEUE_TYPE_SDMA:
  case CP_QUEUE_TYPE_SDMA_XGMI:
  case CP_QUEUE_TYPE_SDMA_BY_ENG_ID:
    break;
  case CP_QUEUE_TYPE_COMPUTE_PM4:
    return -ENOSYS; /* PM4 compute rings (kfdtest uses them; ROCr does not): not emulated */
  default:
    return -EINVAL;
  }
  if (!d->doorbell || !d->read_pointer || !d->write_pointer)
    return -EINVAL;
  /* kfd_chardev.c: the ring size is a power of two (or 0 for an inactive queue). */
  if (d->ring_size && !is_pow2(d->ring_size))
    return -EINVAL;
  if (d->type == CP_QUEUE_TYPE_COMPUTE_AQL && d->ring_size && d->ring_size < 64)
    return -EINVAL;
  return 0;
}

/* amd_queue_t holds write_dispatch_id at +56 and read_dispatch_id at +128 (amd_hsa_queue.h).
 * ROCr and our runtime hand those two fields to CREATE_QUEUE; when they sit exactly that far
 * apart the CP knows where the amd_queue_t is (for queue_inactive_signal and the dispatch's
 * queue pointer). */
static uint64_t aql_find_amd_queue(const struct sim_queue_desc *d)
{
  if (d->read_pointer >= 128 && d->write_pointer >= 56 && d->read_pointer - 128 == d->write_pointer - 56)
    return d->read_pointer - 128;
  return 0;
}

int sim_cp_queue_create(struct sim_gpu *gpu, const struct sim_queue_desc *desc,
                        struct sim_cp_queue **out)
{
  *out = NULL;
  if (!gpu || !desc)
    return -EINVAL;
  int err = desc_check(desc);
  if (err)
    return err;
  pthread_once(&g_atfork_once, atfork_register);
  if (desc->type == CP_QUEUE_TYPE_COMPUTE_AQL)
    cp_monitor_queue_created();

  struct sim_cp_queue *q = calloc(1, sizeof(*q));
  if (!q)
    return -ENOMEM;
  q->gpu = gpu;
  q->desc = *desc;
  if (desc->type == CP_QUEUE_TYPE_COMPUTE_AQL)
    q->amd_queue_va = aql_find_amd_queue(desc);
  q->seen_doorbell = doorbell_read(q);
  atomic_init(&q->prio_class, pipe_class(desc->priority));

  pthread_mutex_lock(&g_lock);
  q->fork_generation = g_fork_generation;
  struct cp_gpu *cg = cg_lookup(gpu);
  if (!cg) {
    err = -ENOMEM;
    goto fail_gpu;
  }
  q->cg = cg;
  if ((err = watcher_start()))
    goto fail_gpu;
  if (pthread_create(&q->thread, NULL, worker_main, q)) {
    err = -ENOMEM;
    goto fail_gpu;
  }
  g_watch.queues++;
  pthread_mutex_lock(&cg->lock);
  q->next = cg->queues;
  cg->queues = q;
  cg->nqueues++;
  cg_broadcast_locked(cg);
  pthread_mutex_unlock(&cg->lock);
  pthread_mutex_unlock(&g_lock);
  sim_log("cp: gpu %u queue %u type %u ring 0x%llx+0x%llx started", sim_gpu_id(gpu),
          desc->queue_id, desc->type, (unsigned long long)desc->ring_base,
          (unsigned long long)desc->ring_size);
  *out = q;
  return 0;

fail_gpu:
  pthread_mutex_unlock(&g_lock);
  free(q);
  return err;
}

int sim_cp_queue_update(struct sim_cp_queue *q, uint64_t ring_base, uint64_t ring_size,
                        uint32_t percentage, uint32_t priority)
{
  if (!q)
    return -EINVAL;
  if (ring_size && !is_pow2(ring_size))
    return -EINVAL;
  if (q->fork_generation != g_fork_generation)
    return -ESRCH;
  pthread_mutex_lock(&q->cg->lock);
  q->desc.ring_base = ring_base;
  q->desc.ring_size = ring_size;
  q->desc.percentage = percentage;
  q->desc.priority = priority;
  atomic_store(&q->prio_class, pipe_class(priority)); /* counted so from its next run */
  cg_broadcast_locked(q->cg);
  pthread_mutex_unlock(&q->cg->lock);
  return 0;
}

void sim_cp_queue_destroy(struct sim_cp_queue *q)
{
  if (!q)
    return;
  pthread_mutex_lock(&g_lock);
  if (q->fork_generation != g_fork_generation) {
    /* Created by the parent before fork(): no thread here to stop. */
    pthread_mutex_unlock(&g_lock);
    free(q);
    return;
  }
  struct cp_gpu *cg = q->cg;
  pthread_mutex_lock(&cg->lock);
  q->stop = true;
  /* End a dispatch in flight now rather than waiting for it: a kernel that never finishes
   * (an infinite loop, a failed device assert) would otherwise keep a host core busy. */
  __atomic_store_n(&q->cancel_dispatch, 1, __ATOMIC_RELEASE);
  for (struct sim_cp_queue **p = &cg->queues; *p; p = &(*p)->next) {
    if (*p == q) {
      *p = q->next;
      break;
    }
  }
  cg->nqueues--;
  cg_broadcast_locked(cg);

  /* The worker finishes the packet in flight, then exits. A dispatch that outlives the
   * preemption timeout (a kernel that never ends) is abandoned as amdkfd abandons a queue it
   * cannot preempt: the worker is detached, touches none of the queue's memory when the
   * interpreter returns, and frees the queue itself. */
  struct timespec until = deadline_after(cp_preempt_timeout_ns);
  while (!q->exited)
    if (pthread_cond_timedwait(&cg->cond, &cg->lock, &until) == ETIMEDOUT)
      break;
  bool exited = q->exited;
  q->detached = !exited;
  uint32_t gpu_id = sim_gpu_id(q->gpu), queue_id = q->desc.queue_id; /* q may go once unlocked */
  pthread_mutex_unlock(&cg->lock);
  if (exited)
    pthread_join(q->thread, NULL);
  else
    pthread_detach(q->thread);

  if (--g_watch.queues == 0)
    watcher_stop(); /* no queue left: an idle process keeps no CP thread */
  pthread_mutex_unlock(&g_lock);
  if (exited) {
    sim_log("cp: gpu %u queue %u stopped", gpu_id, queue_id);
    free(q);
  } else {
    sim_log("cp: gpu %u queue %u: dispatch still running after the preemption timeout; "
            "abandoned", gpu_id, queue_id);
  }
}

void sim_cp_kick(struct sim_gpu *gpu)
{
  struct cp_gpu *cg = cg_find(gpu);
  if (cg) {
    pthread_mutex_lock(&cg->lock);
    cg_broadcast_locked(cg);
    pthread_mutex_unlock(&cg->lock);
  }
}

/* Snapshot of the ring fields UPDATE_QUEUE may change. */
bool cp_queue_ring(struct sim_cp_queue *q, uint64_t *base, uint64_t *size)
{
  pthread_mutex_lock(&q->cg->lock);
  *base = q->desc.ring_base;
  *size = q->desc.ring_size;
  /* kfd_priv.h QUEUE_IS_ACTIVE: a ring, an address and a non-zero percentage. */
  bool active = q->desc.ring_size && q->desc.ring_base && q->desc.percentage;
  pthread_mutex_unlock(&q->cg->lock);
  return active;
}
