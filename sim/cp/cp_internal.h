/* kfdsim command processors: state shared by the scheduler (cp_sched.c), the AQL engine (aql.c,
 * pm4.c), the SDMA engine (sdma.c) and the GPU memory helpers (cp_mem.c). Not a public header.
 *
 * Threads: one doorbell watcher per process (it exists while any queue does) and one worker per
 * queue. The watcher polls the doorbells of every queue, often after activity and then ever
 * more slowly, and wakes the workers; a worker sleeps on the GPU's condition variable
 * while its ring is empty, so an idle process costs one timed wakeup every 10 ms.
 */
#ifndef KFDSIM_CP_INTERNAL_H
#define KFDSIM_CP_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "sim.h"

/* The watcher's poll period by time since it last saw a doorbell change. Each timed wakeup
 * costs 25 us of CPU or more on the shared 2-core VMs here, so the period grows with idleness;
 * waiters do not depend on it (the driver kicks on WAIT_EVENTS), only a submission nobody waits
 * for yet does, after a long idle stretch. */
#define CP_BUSY_POLL_NS 100000ull          /* right after activity ... */
#define CP_BUSY_WINDOW_NS 2000000ull       /* ... for 2 ms */
#define CP_IDLE_POLL_NS 1000000ull         /* then every 1 ms ... */
#define CP_IDLE_WINDOW_NS 100000000ull     /* ... up to 100 ms */
#define CP_DEEP_IDLE_POLL_NS 4000000ull    /* then every 4 ms ... */
#define CP_DEEP_IDLE_WINDOW_NS 1000000000ull /* ... up to 1 s */
#define CP_DORMANT_POLL_NS 10000000ull     /* then every 10 ms */

/* After its ring empties, a queue's worker keeps watching its own doorbell for a while before it
 * sleeps, as a GPU's command processor polls its queues: a launch that follows a completion
 * within that window (a launch + synchronize loop, a stream of launches) is picked up in well
 * under a microsecond, where a sleeping worker needs a thread wake-up (tens of microseconds on
 * these VMs) and, with nobody waiting yet, the watcher's next poll.
 *
 * The window is CP_LINGER_NS, unless the previous full windows went unused: then the next 1, 3,
 * 7, ... (up to CP_LINGER_BACKOFF_MAX) windows are CP_LINGER_SHORT_NS, before a full one is
 * tried again. A queue fed in a tight loop keeps the full window; one fed rarely spends little
 * CPU per submission. It is a plain spin: sched_yield() on a loaded machine gives the CPU away
 * for a whole scheduler slice (milliseconds, measured), far worse than the wake-up it saves. */
#define CP_LINGER_NS 100000ull
#define CP_LINGER_SHORT_NS 5000ull
#define CP_LINGER_BACKOFF_MAX 63u
/* Settling (cp_sched.c worker_settle): after the doorbell rang under a lingering worker, a
 * doorbell that did not move between two looks ends the producer's burst. */
#define CP_SETTLE_NS 150ull          /* the first looks come this far apart ... */
#define CP_SETTLE_EAGER_LOOKS 2u     /* ... this many of them */
#define CP_SETTLE_GAP_MAX_NS 1000ull /* then doubling gaps, up to this */
#define CP_SETTLE_MAX_NS 20000ull    /* the burst is taken as over this long after it first rang */

/* Queue errors as ROCr 5.2.3 decodes them from amd_queue_t.queue_inactive_signal
 * (AqlQueue::DynamicScratchHandler): one bit per cause. */
#define CP_QERR_INSUFFICIENT_SCRATCH 0x1u /* recoverable: ROCr allocates, then stores 0 */
#define CP_QERR_SCRATCH_RECLAIM 0x200u    /* "large" scratch used once: ROCr frees it, stores 0 */
#define CP_QERR_INVALID_DIM 0x2u
#define CP_QERR_INVALID_GROUP_MEM 0x4u
#define CP_QERR_INVALID_CODE 0x8u
#define CP_QERR_INVALID_PACKET 0x20u
#define CP_QERR_GROUP_TOO_LARGE 0x40u
#define CP_QERR_INVALID_VENDOR_PACKET 0x100u
#define CP_QERR_MEMORY_VIOLATION 0x20000000u
#define CP_QERR_ILLEGAL_INSTRUCTION 0x40000000u
#define CP_QERR_DEBUG_TRAP 0x80000000u
/* kfdsim's own: the driver reset a queue whose dispatch would not end (the watchdog,
 * cp_monitor.c). The CP firmware has no code for that, since on hardware it is amdkfd, failing to
 * preempt the queue, that finds the hang; a bit outside every cause ROCr decodes, which ROCr
 * 5.2.3 reports as an undefined queue error (HSA_STATUS_ERROR, fatal) and our runtime as a
 * queue error (-EIO). The exception path reports it as EC_QUEUE_PREEMPTION_ERROR. */
#define CP_QERR_QUEUE_RESET 0x10000000u

/* sim_queue_desc.type values (kfd_ioctl.h KFD_IOC_QUEUE_TYPE_*), spelled here so that sim/cp
 * does not depend on which UAPI header is on the include path. */
#define CP_QUEUE_TYPE_COMPUTE_PM4 0x0u
#define CP_QUEUE_TYPE_COMPUTE_AQL 0x2u
#define CP_QUEUE_TYPE_SDMA 0x1u
#define CP_QUEUE_TYPE_SDMA_XGMI 0x3u
#define CP_QUEUE_TYPE_SDMA_BY_ENG_ID 0x4u

struct cp_gpu;

/* Why a queue worker stopped making progress. */
enum cp_status {
  CP_DONE = 0,   /* the packet was consumed */
  CP_BLOCKED,    /* waiting on memory (header, dependency, poll): retry after a back-off */
  CP_FAILED,     /* the queue hit an error and was stopped (already reported) */
};

struct sim_cp_queue {
  struct cp_gpu *cg;
  struct sim_gpu *gpu;
  struct sim_queue_desc desc; /* ring fields protected by cg->lock; the rest is immutable */
  pthread_t thread;
  unsigned fork_generation;   /* the worker exists only in the process that created it */
  bool stop;                  /* protected by cg->lock */
  bool exited;                /* protected by cg->lock: the worker has left its loop */
  bool detached;              /* protected by cg->lock: destroy gave up waiting; the worker frees q */
  atomic_bool failed;         /* set once by the worker; the queue then consumes nothing */
  int cancel_dispatch;        /* set once by destroy (atomic store of 1): the interpreter
                               * abandons the dispatch in flight, as amdkfd's queue preemption
                               * ends waves; the watchdog stores 2 (cp_monitor.c) */
  uint64_t seen_doorbell;     /* watcher-private */
  bool waiting;               /* protected by cg->lock: the worker sleeps on cg->cond */
  unsigned linger_misses;     /* worker-private: full linger windows that went unused in a row */
  unsigned linger_short;      /* worker-private: short windows left before a full one */
  uint64_t consumed;          /* worker-private: packets consumed so far */
  struct sim_cp_queue *next;  /* cg->queues list, protected by cg->lock */

  /* Engine state, worker-private. */
  uint64_t amd_queue_va;      /* AQL: the amd_queue_t, from read_pointer; 0 if unknown */
  bool scratch_requested;     /* AQL: "insufficient scratch" raised, waiting for the reply */
  bool scratch_reclaiming;    /* AQL: "scratch reclaim" raised, waiting for the reply */
  uint64_t sdma_poll_tries;   /* SDMA: POLL_REGMEM retries of the current packet */

  /* Priority (cp_sched.c, AQL queues only). */
  atomic_uint prio_class;     /* pipe priority class of desc.priority: set at creation and by
                               * UPDATE_QUEUE, read by the worker */
  bool contending;            /* worker-private: counted in cg->contenders[contend_class] */
  unsigned contend_class;     /* worker-private: the class it was counted in */
  bool prio_starved;          /* worker-private: higher classes made no progress for
                               * CP_PRIO_DEFER_MAX_NS; run regardless until they do */
  uint64_t starved_progress;  /* worker-private: their progress when that was decided */
};

/* Pipe priority classes (kfd_mqd_manager.c pipe_priority_map: LOW, MEDIUM, HIGH). */
#define CP_PRIO_CLASSES 3u
/* The longest a queue defers to higher-priority queues that complete nothing meanwhile (a
 * high-priority kernel spinning on memory that a lower-priority queue's work will write). */
#define CP_PRIO_DEFER_MAX_NS 200000000ull

/* Per-GPU command processor state. */
struct cp_gpu {
  struct sim_gpu *gpu;
  pthread_mutex_t lock;
  pthread_cond_t cond;        /* broadcast on every kick, doorbell change or queue change */
  uint64_t kicks;             /* protected by lock: bumped with every broadcast */
  unsigned blocked;           /* protected by lock: workers backing off on memory (barrier,
                               * poll, scratch answer), which a completion may release */
  struct sim_cp_queue *queues;/* protected by lock */
  unsigned nqueues;           /* protected by lock */
  /* Lock-free, for the per-packet priority check: AQL queues that have a packet they can run,
   * per pipe priority class, and the progress of each class's queues (packets consumed, and
   * workgroups finished by the interpreter: a long dispatch is progress too). __atomic builtins,
   * as the interpreter adds to it through isa_dispatch.waves_done. */
  atomic_uint contenders[CP_PRIO_CLASSES];
  uint64_t progress[CP_PRIO_CLASSES];
};

/* ---- cp_sched.c ---- */
/* How long queue destruction waits for a dispatch in flight before abandoning it: amdkfd's
 * queue_preemption_timeout_ms (9000 by default) bounds the same wait. Tests may lower it. */
extern uint64_t cp_preempt_timeout_ns;
/* True once destruction has begun: an engine must not touch the queue's memory any more. */
bool cp_queue_stopping(struct sim_cp_queue *q);
/* Sleep until the GPU is kicked or `timeout_ns` passes. Returns false when the queue must stop. */
bool cp_queue_wait(struct sim_cp_queue *q, uint64_t timeout_ns);
/* Back-off for a worker blocked on memory: `tries` counts consecutive blocked attempts. */
bool cp_queue_backoff(struct sim_cp_queue *q, unsigned tries);
/* True when an AQL queue of a higher pipe priority on the same GPU has a packet it can run:
 * the engine then stops between packets so that the worker defers (cp_sched.c). Lock-free. */
bool cp_queue_outranked(struct sim_cp_queue *q);
/* Where the interpreter counts the finished waves of the queue's dispatch as its class's
 * progress (isa_dispatch.waves_done), or NULL when nothing defers to the queue. Worker only. */
uint64_t *cp_queue_progress_counter(struct sim_cp_queue *q);
uint64_t cp_now_ns(void);
/* The ring as UPDATE_QUEUE last left it; false when the queue is inactive. */
bool cp_queue_ring(struct sim_cp_queue *q, uint64_t *base, uint64_t *size);

/* ---- aql.c / sdma.c ---- */
/* Process what the ring holds. Returns CP_DONE when the ring is empty, CP_BLOCKED when the head
 * packet waits on memory, CP_FAILED when the queue stopped on an error. */
enum cp_status cp_aql_run(struct sim_cp_queue *q);
enum cp_status cp_sdma_run(struct sim_cp_queue *q);
bool cp_aql_has_work(struct sim_cp_queue *q);
bool cp_sdma_has_work(struct sim_cp_queue *q);

/* ---- pm4.c ---- */
/* Execute an AMD vendor-specific AQL packet (PM4 IB). Returns 0, or a CP_QERR_* bit set. */
uint32_t cp_pm4_vendor_packet(struct sim_cp_queue *q, const uint32_t packet[16],
                              uint64_t *fault_va, bool *fault_write);

/* ---- cp_mem.c: GPU memory through the GPU's page table ---- */
/* Each returns 0, or -EFAULT with *fault_va set to the first unmapped page touched. */
int cp_mem_read(struct sim_gpu *gpu, uint64_t va, void *dst, uint64_t len, uint64_t *fault_va);
int cp_mem_write(struct sim_gpu *gpu, uint64_t va, const void *src, uint64_t len,
                 uint64_t *fault_va);
/* GPU-to-GPU copy, split at mapping boundaries (either side may change mapping). */
int cp_mem_copy(struct sim_gpu *gpu, uint64_t dst_va, uint64_t src_va, uint64_t len,
                uint64_t *fault_va, bool *fault_write);
/* Fill with a repeating pattern of `elem` bytes (1, 2, 4 or 8). */
int cp_mem_fill(struct sim_gpu *gpu, uint64_t dst_va, uint64_t pattern, unsigned elem,
                uint64_t len, uint64_t *fault_va);
/* Aligned 32/64-bit words for atomics and polls: NULL when unmapped or misaligned. */
volatile uint32_t *cp_mem_u32(struct sim_gpu *gpu, uint64_t va, bool write);
volatile uint64_t *cp_mem_u64(struct sim_gpu *gpu, uint64_t va, bool write);

/* ---- signal.c: amd_signal_t as the CP sees it ---- */
#define CP_SIGNAL_VALUE_OFF 8u     /* amd_signal_t.value */
#define CP_SIGNAL_MAILBOX_OFF 16u  /* amd_signal_t.event_mailbox_ptr */
#define CP_SIGNAL_EVENT_ID_OFF 24u /* amd_signal_t.event_id */
#define CP_SIGNAL_START_TS_OFF 32u /* amd_signal_t.start_ts */
#define CP_SIGNAL_END_TS_OFF 40u   /* amd_signal_t.end_ts */
/* Load a signal's value; false when the signal is not mapped. */
bool cp_signal_load(struct sim_gpu *gpu, uint64_t signal_va, int64_t *value);
/* Atomically add `delta` to the value, then raise the signal's interrupt if it has a mailbox. */
int cp_signal_add(struct sim_gpu *gpu, uint64_t signal_va, int64_t delta, uint64_t *fault_va);
/* Store a value (release), then raise the interrupt. */
int cp_signal_store(struct sim_gpu *gpu, uint64_t signal_va, int64_t value, uint64_t *fault_va);
/* A packet's end: start_ts and end_ts written, then the value decremented (release), then the
 * interrupt for an interrupt signal. Returns 0 or -EFAULT with *fault_va set. */
int cp_signal_complete(struct sim_gpu *gpu, uint64_t signal_va, uint64_t start, uint64_t end,
                       uint64_t *fault_va);
/* Record a profiling timestamp in start_ts or end_ts. */
int cp_signal_timestamp(struct sim_gpu *gpu, uint64_t signal_va, unsigned off, uint64_t ticks,
                        uint64_t *fault_va);

/* ---- cp_monitor.c: statistics, progress line and watchdog (KFDSIM_STATS, KFDSIM_PROGRESS,
 * KFDSIM_TIMEOUT) ---- */
#define CP_MON_STATS 0x1
#define CP_MON_PROGRESS 0x2
#define CP_MON_TIMEOUT 0x4
/* CP_MON_* bits from the environment, read when the first queue is created; 0 when all are off,
 * and then a dispatch calls nothing below. */
extern int cp_monitor_flags;

struct isa_result;

/* One kernel dispatch while the interpreter runs it, on the queue worker's stack. */
struct cp_run {
  struct sim_cp_queue *q;
  const char *name;           /* cp_kernel_name() */
  uint64_t start_ns;
  uint64_t waves_total;
  uint64_t waves_done;        /* added to by the interpreter (isa_dispatch.waves_done) */
  uint64_t next_log_ns;       /* monitor-private: next progress line when stderr is no terminal */
  bool timed_out;             /* protected by the monitor's lock: the watchdog stopped it */
  struct cp_run *next, *prev; /* the monitor's list, protected by its lock */
};

/* Reads the environment on the first call; starts the monitor thread if it is needed. */
void cp_monitor_queue_created(void);
/* Around isa_dispatch_run(), only when cp_monitor_flags is non-zero. _end returns true when the
 * watchdog stopped the dispatch: the queue must then report a hang. */
void cp_monitor_begin(struct cp_run *r, struct sim_cp_queue *q, uint64_t kernel_object,
                      uint64_t waves_total);
bool cp_monitor_end(struct cp_run *r, const struct isa_result *res);

/* cp_names.c: the kernel's name from its code object's symbol table (demangled), or
 * "kernel@0x<kernel_object>". The string lives as long as the process. */
const char *cp_kernel_name(struct sim_gpu *gpu, uint64_t kernel_object);

/* cp_gate.c: queue workers pass the execution gate around each run of packets. */
void cp_gate_enter(void);
void cp_gate_leave(void);
void cp_gate_atfork_child(void); /* no worker survives a fork: the gate starts open and empty */

#endif
