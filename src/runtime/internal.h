/* What src/runtime offers the layers above it (devices, settings, streams, fences, the copy engine,
 * handle sets, errors) beyond runtime.h.
 * Not part of the runtime contract: the loader uses runtime.h only. */
#ifndef HIPKFD_RUNTIME_INTERNAL_H
#define HIPKFD_RUNTIME_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "runtime.h"
#include "../queues/aql.h"
#include "error.h"

/* hipStreamLegacy is ROCm 6.1+; older headers name only the per-thread stream. */
#ifndef hipStreamLegacy
#define hipStreamLegacy ((hipStream_t)1)
#endif

/* ---- init.c: settings read once from the environment ---------------------------------------- */

/* HIPKFD_LOG level: 0 silent (default), 1 errors, 2 info, 3 every API call. */
extern int hip_log_level;
/* True in a child after fork(): the parent's GPU state must not be touched (init.c). Handles
 * handed out before the fork check this (one load) instead of hip_runtime_init(). */
extern _Atomic bool hip_forked;
static inline bool hip_after_fork(void)
{
	return __atomic_load_n((const bool *)&hip_forked, __ATOMIC_RELAXED);
}

/* HIP_HOST_COHERENT=1: hipHostMalloc without coherence flags gives fine-grained memory. */
extern bool hip_host_coherent_default;
void hip_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* True when the log goes to AMD_LOG_LEVEL_FILE rather than stderr. */
bool hip_log_to_file(void);

/* ---- device.c -------------------------------------------------------------------------------- */

/* Create the device table (once, from hip_runtime_init). 0 or -errno. */
int hip_devices_create(void);
/* The device of this ordinal without opening its GPU (topology facts only). NULL if bad. */
struct hip_device *hip_device_peek(int ordinal);
/* Open the device's GPU state (kfd_gpu, null stream) if not done yet. 0 or -errno. */
int hip_device_open(struct hip_device *d);
/* The device whose GPU state is `gpu` (memory owner lookups), or NULL. */
struct hip_device *hip_device_of_gpu(const struct kfd_gpu *gpu);
/* hipSetDevice: [in] ordinal (valid) becomes the calling thread's current device. */
void hip_device_select(int ordinal);
/* hipSetValidDevices: [in] ordinal becomes current unless the thread chose one with hipSetDevice. */
void hip_device_prefer(int ordinal);
/* The calling thread's current ordinal (hipSetDevice), without opening anything. */
int hip_device_current_ordinal(void);
/* A limit's value (hipDeviceSetLimit, or the default): the loader reads the stack size. */
size_t hip_device_limit(struct hip_device *d, enum hipLimit_t limit);
/* Wait for the device's streams (0, or the first failed wait's -errno); `blocking_only` skips hipStreamNonBlocking streams (what a
 * synchronize of the legacy null stream waits for, as AMD's runtime does). */
int hip_device_sync_streams(struct hip_device *d, bool blocking_only);
/* No blocking (created without hipStreamNonBlocking) stream of [in] d has work pending. */
bool hip_device_blocking_streams_idle(struct hip_device *d);
/* hipDeviceScheduleBlockingSync set on the device (waits sleep rather than spin). */
bool hip_device_blocking(const struct hip_device *d);
/* Add [in] s to / remove it from [in] d's stream list (d->streams; takes d->lock; unlink also
 * forgets it as the null stream). Every change of the list goes through these: they advance the
 * list's generation, which the lock-free idle check of device-wide waits relies on (device.c). */
void hip_device_stream_link(struct hip_device *d, struct hip_stream *s);
void hip_device_stream_unlink(struct hip_device *d, struct hip_stream *s);
/* Stream-ordered pools (src/pool) sit above the entry points (they allocate, free and order
 * through them); the entry points reach the pools through these, which the pool layer installs
 * at load. hip_pool_holds_free: [in] ptr lies in a block hipFreeAsync gave back to its pool (still
 * mapped, but freed for the program). hip_pool_reset_device: hipDeviceReset's release of every
 * pool of device [in] device (pool/mempool.h says what goes). */
extern bool (*hip_pool_holds_free)(const void *ptr);
extern void (*hip_pool_reset_device)(int device);
/* hipFree's wait: the work of every device that may use memory of [in] gpu (its own device, or
 * every opened device when gpu is NULL: managed memory). 0 or the first failed wait's -errno. */
int hip_device_sync_owner(const struct kfd_gpu *gpu);

/* ---- fence.c: a completion signal with a reference count ------------------------------------- */

/* A fence is one amd_signal_t that starts at 1 and reaches 0 when the work it tracks completes
 * (the CP decrements an AQL packet's completion signal; SDMA and host work store 0). Fences are
 * recycled, never freed, so a stale pointer never faults. */
struct hip_fence {
	_Atomic int refs;
	struct hip_device *device;
	struct signal *sig;
	uint64_t sig_va;               /* signal_gpu_va(sig), for packets */
	_Atomic bool done;             /* cached: the signal was seen at 0 */
	bool timestamped;              /* an AQL packet completed it: signal_timestamps() is valid */
	bool host_stamped;             /* completed by the host (event.c): host_ticks is its end */
	uint64_t host_ticks;           /* GPU clock counter when the host completed it */
	struct aql_queue *queue;       /* the queue whose packet completes it (NULL: SDMA or host); a
					* wait checks it for faults so a dead queue cannot hang it */
	struct hip_fence *next_free;   /* in the device's free list; protected by the list lock */
};

/* The fence of the host callback running on this thread (NULL elsewhere). Work a callback enqueues
 * and waits it performs never wait for that fence: it completes only when the callback returns,
 * so waiting for it would deadlock (CUDA leaves API calls in callbacks undefined; we do not hang). */
extern HIP_TLS struct hip_fence *hip_callback_fence;

int hip_fence_create(struct hip_device *d, struct hip_fence **out);
struct hip_fence *hip_fence_get(struct hip_fence *f); /* NULL-safe */
void hip_fence_put(struct hip_fence *f);              /* NULL-safe */
bool hip_fence_done(struct hip_fence *f);             /* NULL counts as done */
int hip_fence_wait(struct hip_fence *f, bool blocking);
void hip_fence_signal(struct hip_fence *f);           /* host work completed */

/* ---- fault.c: the failed context -------------------------------------------------------------- */

/* 0 while no GPU work of the process failed; else -EFAULT (a memory fault) or -EIO (a trap, an
 * illegal instruction, any other queue error, a GPU reset), with the sticky error set. Looks at
 * every queue and the exception events (at most once per millisecond): for a wait that made no
 * progress, and for queries of unfinished work. */
int hip_fault_poll(void);
/* The same without looking for new faults: the sticky error, or a fault some poll latched. */
int hip_fault_known(void);
/* [in] err, a wait's result: a queue error (-EFAULT, -EIO) sets the sticky error. Returns err. */
int hip_fault_note(int err);
/* hipDeviceReset of [in] d after a fault: the streams it keeps get new queues, the SDMA engine
 * goes, and the fault state starts over (the caller then clears the sticky error). */
void hip_device_fault_reset(struct hip_device *d);

/* ---- stream.c: ordering of work on a stream -------------------------------------------------- */

#define HIP_STREAM_MAX_DEPS 64

/* What a new piece of work on a stream must wait for. Filled by hip_stream_begin. */
struct hip_stream_deps {
	struct hip_fence *f[HIP_STREAM_MAX_DEPS]; /* other streams' work and pending event waits */
	int n;
	struct hip_fence *own;   /* the stream's own last work, NULL when done */
	bool own_on_queue;       /* `own` came from the stream's AQL queue */
};

/* Begin an operation: takes s->lock (held until hip_stream_end) and gathers the fences the new
 * work depends on (the stream's tail, the null stream's legacy synchronisation, pending waits). */
void hip_stream_begin(struct hip_stream *s, struct hip_stream_deps *deps);
/* End it: `tail` (may be NULL: the work already completed) becomes the stream's last work;
 * `on_queue` says the tail was produced by the stream's own AQL queue (so a following AQL packet
 * is ordered by its barrier bit alone). Drops the deps' references and releases s->lock. */
void hip_stream_end(struct hip_stream *s, struct hip_stream_deps *deps, struct hip_fence *tail,
		    bool on_queue);
/* hip_stream_dispatch in two steps, for a launch that writes its kernarg block straight into
 * the queue's kernarg slot: reserve begins the operation (s->lock held), submits the
 * dependencies and claims the packet slot (x->slot.kernarg: where the kernarg block goes);
 * commit publishes the packet and ends the operation. Nothing between the two may fail or wait.
 * reserve returns 0 or -errno (then nothing is held). */
struct hip_stream_dispatch {
	struct hip_stream_deps deps;
	struct aql_queue *q;
	struct aql_slot slot;
	uint64_t completion_va;  /* 0 (set by reserve): no completion signal; a recorder of kernel
				  * timestamps (activity.h) sets one between reserve and commit */
};
int hip_stream_dispatch_reserve(struct hip_stream *s, const struct aql_dispatch *d,
				struct hip_stream_dispatch *x);
void hip_stream_dispatch_commit(struct hip_stream *s, const struct aql_dispatch *d,
				struct hip_stream_dispatch *x);
/* Abort an operation begun with hip_stream_begin without changing the tail. */
void hip_stream_abort(struct hip_stream *s, struct hip_stream_deps *deps);
/* Wait on the host for every dependency (used before CPU and SDMA work). 0 or -errno. */
int hip_stream_deps_wait(struct hip_stream *s, struct hip_stream_deps *deps);
int hip_deps_wait(struct hip_stream_deps *deps, bool blocking);
/* hip_stream_begin for work that is itself a packet with the barrier bit on the stream's queue
 * (a marker): the stream's own kernels and queue work are ordered by the bit, so they are not
 * named in deps (deps->own is only set for a tail from elsewhere: SDMA, a callback). */
void hip_stream_begin_queued(struct hip_stream *s, struct hip_stream_deps *deps);
/* With s->lock held (between begin and end): everything enqueued on the stream so far has
 * completed, as far as known without waiting (no kernel since the tail, and the tail done). */
bool hip_stream_drained(struct hip_stream *s);
/* Submit a barrier-AND marker after all deps and the stream's own work, completing `f`. */
int hip_stream_marker(struct hip_stream *s, struct hip_stream_deps *deps, struct hip_fence *f);
/* Every operation submitted so far is known complete (two loads; false may be stale). */
static inline bool hip_stream_known_idle(struct hip_stream *s)
{
	return atomic_load_explicit(&s->done_seq, memory_order_acquire) ==
	       atomic_load_explicit(&s->submitted, memory_order_acquire);
}
/* No unfinished work on the stream (hipStreamQuery). */
bool hip_stream_idle(struct hip_stream *s);
/* The stream's AQL queue, created on first use; NULL on failure (*err set). Lock held. */
struct aql_queue *hip_stream_queue(struct hip_stream *s, int *err);
/* Submit barrier-AND packets so that the next packet on the queue follows `deps`. Lock held. */
int hip_stream_deps_submit(struct hip_stream *s, struct hip_stream_deps *deps);

/* stream_gpu_reads.c (s->lock held): keep a reference on each of [in] fences (n of them), whose
 * signals the barrier packet [in] packet of s->queue reads, until the CP has consumed it; and
 * drop them all (the queue is drained or gone). */
int hip_stream_gpu_reads_add(struct hip_stream *s, struct hip_fence *const fences[], int n,
			     uint64_t packet);
void hip_stream_gpu_reads_release(struct hip_stream *s);
/* Take a reference to the stream's last work (NULL when none). */
struct hip_fence *hip_stream_tail(struct hip_stream *s);
/* Record a pending wait: the next work on `s` follows `f`. */
void hip_stream_add_wait(struct hip_stream *s, struct hip_fence *f);
/* Create a stream on a device (hipStreamCreate*, null and per-thread streams). */
int hip_stream_create(struct hip_device *d, unsigned flags, int priority, struct hip_stream **out);
void hip_stream_destroy(struct hip_stream *s);
/* [in] hook runs for every stream hip_stream_destroy destroys (a layer above forgets what it kept
 * about the stream). Call from a constructor: at most 4 hooks. */
void hip_stream_on_destroy(void (*hook)(const struct hip_stream *s));
/* Creates [in] s's queue now (it is otherwise created on first use) and restricts it to the CUs
 * set in [in] mask, [in] words 32-bit words (AMDKFD_IOC_SET_CU_MASK). Returns 0 or -errno. */
int hip_stream_apply_cu_mask(struct hip_stream *s, const uint32_t *mask, uint32_t words);
/* The errno of a fault on the stream's queue (0 when none). */
int hip_stream_error(struct hip_stream *s);
/* Current device's stream for an API argument, with hipErrorInvalidHandle / hipErrorNoDevice /
 * hipErrorInvalidResourceHandle translated by the caller: returns NULL and sets *err. */
struct hip_stream *hip_stream_from_api(hipStream_t s, hipError_t *err);
/* hip_stream_from_api for the calls clr guards with hip::isValid (hipStreamSynchronize, Query,
 * Destroy, GetFlags, GetPriority, GetDevice, AddCallback, LaunchHostFunc, the stream memory
 * operations, hipEventRecord): any handle that is not a live stream, destroyed or never created,
 * is hipErrorContextIsDestroyed, as there. The handle is only looked up, never dereferenced. */
struct hip_stream *hip_stream_from_api_live(hipStream_t s, hipError_t *err);
/* Forget everything [in] s had in flight after a fault (hip_device_fault_reset): its queue is
 * abandoned (a new one is made on first use), its tail, pending waits and counts start over. */
void hip_stream_fault_reset(struct hip_stream *s);
/* Destroy every stream of the device, the null stream included (hipDeviceReset). */
void hip_device_streams_reset(struct hip_device *d);

/* ---- stream_callback.c ----------------------------------------------------------------------- */

void hip_stream_callbacks_stop(struct hip_stream *s);

/* ---- handle_set.c: handles ever handed out, lock-free lookup --------------------------------- */

/* A handle stays in its set for good (objects are recycled, never freed), so a handle found once
 * may be remembered: `recent` holds handles found lately, one per slot by address, so the handles
 * a program keeps using are recognised with one load instead of a hash probe. Slots are written
 * racily by readers; a lost or overwritten entry only costs the next lookup a probe. */
#define HIP_HANDLE_RECENT 16
struct handle_table;
struct hip_handle_set {
	pthread_mutex_t lock;
	_Atomic(struct handle_table *) table;
	_Atomic uintptr_t recent[HIP_HANDLE_RECENT];
};
extern struct hip_handle_set hip_known_streams;
extern struct hip_handle_set hip_known_events;
int hip_handle_add(struct hip_handle_set *set, const void *h);
bool hip_handle_known_probe(struct hip_handle_set *set, const void *h);
/* Calls [in] fn for every handle of [in] set (no lock: handles added meanwhile may be missed). */
void hip_handle_each(struct hip_handle_set *set, void (*fn)(const void *h, void *ctx), void *ctx);

static inline bool hip_handle_known(struct hip_handle_set *set, const void *h)
{
	uintptr_t v = (uintptr_t)h;
	if (v && atomic_load_explicit(&set->recent[(v >> 4) % HIP_HANDLE_RECENT],
				      memory_order_relaxed) == v)
		return true;
	return hip_handle_known_probe(set, h);
}

/* Handles of objects freed by their destroy call (graphs, nodes, executable graphs, libraries,
 * modules' functions excepted): added at creation, removed at destruction, so a lookup tells a live
 * handle from a dead, foreign or wrong-type one without reading through it. One set per type. */
struct hip_live_set {
	pthread_mutex_t lock;
	size_t cap, used;
	uintptr_t *slot;
};
#define HIP_LIVE_SET_INIT { .lock = PTHREAD_MUTEX_INITIALIZER }
int hip_live_add(struct hip_live_set *set, const void *h);
bool hip_live_remove(struct hip_live_set *set, const void *h); /* false: was not live */
bool hip_live_has(struct hip_live_set *set, const void *h);

/* Is the handle a live stream created by hipStreamCreate*? */
static inline bool hip_stream_valid(hipStream_t h)
{
	struct hip_stream *s = (struct hip_stream *)h;
	return !hip_after_fork() && hip_handle_known(&hip_known_streams, s) &&
	       atomic_load_explicit(&s->live, memory_order_acquire);
}

/* The error for a stream handle that does not resolve: a stream this process created and then
 * destroyed is hipErrorContextIsDestroyed (clr's hip::isValid), anything else a bad handle. */
static inline hipError_t hip_stream_invalid_error(hipStream_t h)
{
	struct hip_stream *s = (struct hip_stream *)h;
	return s && hip_handle_known(&hip_known_streams, s) &&
			       !atomic_load_explicit(&s->live, memory_order_acquire)
		       ? hipErrorContextIsDestroyed
		       : hipErrorInvalidHandle;
}

/* hip_stream_resolve with the case of a stream handle inline (launches). */
static inline struct hip_stream *hip_stream_resolve_inline(hipStream_t h)
{
	if (h && h != hipStreamLegacy && h != hipStreamPerThread)
		return hip_stream_valid(h) ? (struct hip_stream *)h : NULL;
	return hip_stream_resolve(h);
}

/* ---- copy.c: the copy engine used by memcpy/memset ------------------------------------------- */

/* Where one side of a copy lives. */
struct hip_span {
	void *ptr;          /* CPU address (for CPU copies), valid when host_visible */
	uint64_t gpu_va;    /* GPU address (for SDMA), valid when gpu_mapped */
	bool known;         /* found in the address table */
	bool host_visible;  /* the CPU may read and write it directly */
	bool gpu_mapped;    /* the GPU (SDMA) may access it */
	bool device_local;  /* VRAM (not system memory) */
	bool vmm;           /* a hipMemMap mapping: access as hipMemSetAccess granted (vmm.c) */
	struct hip_device *device; /* owner device for device memory, NULL for host memory */
};

/* The access (hipMemAccessFlags) device [in] ordinal was granted to the hipMemMap mapping
 * containing [in] ptr (read-write before any hipMemSetAccess), or -1 if ptr is in none. The VMM
 * objects are api/vmm.c's, above this layer: it installs the query at load; unset, no span is a
 * hipMemMap mapping. */
extern int (*hip_vmm_access_of)(const void *ptr, int ordinal);

int hip_span_of(const void *p, size_t size, struct hip_span *out);
/* Copy `size` bytes in stream order. `async`: may return before the copy completes when an engine
 * does it (pinned or device memory only). 0 or -errno. */
int hip_copy(struct hip_stream *s, void *dst, const void *src, size_t size, bool async);
/* 2D copy of `height` rows of `width` bytes. */
int hip_copy_2d(struct hip_stream *s, void *dst, size_t dpitch, const void *src, size_t spitch,
		size_t width, size_t height, bool async);
/* Fill `count` elements of `esize` (1, 2 or 4) bytes with `value`, in stream order. */
int hip_fill(struct hip_stream *s, void *dst, uint32_t value, size_t esize, size_t count, bool async);

/* ---- errors ---------------------------------------------------------------------------------- */

/* A failure seen while waiting for GPU work: queue faults become sticky hipErrorIllegalAddress /
 * hipErrorLaunchFailure; other errnos map through hip_error_from_errno. */
hipError_t hip_gpu_error(int err);

/* Translate the runtime init result for an API entry: hipErrorNoDevice when no GPU. */
hipError_t hip_init_error(void);

#endif /* HIPKFD_RUNTIME_INTERNAL_H */
