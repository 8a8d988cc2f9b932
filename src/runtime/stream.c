/* Streams: ordering of work.
 *
 * Every piece of work on a stream (a kernel, a marker, an SDMA copy, a CPU copy, a host callback)
 * ends in a fence; the stream's `tail` is the fence of its last work. New work depends on:
 *  - the stream's own tail (for AQL packets on the stream's queue the packet's barrier bit suffices);
 *  - the legacy null stream rule (CUDA "legacy default stream" semantics, which HIP follows): work
 *    on a blocking stream waits for the null stream's last work, and work on the null stream waits
 *    for the last work of every blocking stream of the device;
 *  - pending hipStreamWaitEvent fences.
 * GPU work expresses those dependencies as AQL barrier-AND packets; CPU and SDMA work waits for
 * them on the host first (the SDMA queue has no packet that waits on a signal in our queue layer).
 *
 * Kernels carry no completion signal (an interrupt and a signal update per kernel that nobody may
 * ever look at). The stream counts them (`launches`); the tail fence covers the kernels counted in
 * `covered`. Whoever needs a fence for all of the stream's work (a synchronize, a query, another
 * stream's dependency, host or SDMA work on the stream) calls stream_cover(), which puts a
 * barrier-AND marker with a fresh fence behind the uncovered kernels (the barrier bit makes it
 * complete after them) and makes that the tail. A packet the stream itself adds with its own fence
 * (a marker, an event record) covers the kernels before it just the same.
 *
 * Lock order: stream->lock, then device->lock, then any stream's tail_lock. Nobody waits for a
 * fence while holding a tail_lock or the device lock (stream_cover drops the tail lock to wait
 * for ring space).
 *
 * Who may replace the tail: a holder of s->lock (hip_stream_end), and any thread covering the
 * stream's kernels (stream_cover, under the tail lock only: a synchronize, a query, another
 * stream's dependency). A cover only acts while `launches` != `covered`, and `launches` only
 * grows under s->lock: so a holder of s->lock that sees covered == launches (acquire: the
 * cover's tail store before its release store of `covered`) knows the tail stays as it is until
 * it lets go, and may read it and use the fence without the tail lock. Otherwise the tail is
 * read, and a reference taken, under the tail lock: a cover drops the old tail's reference, and
 * a fence whose last reference went is recycled for other work at once.
 */
#include <errno.h>
#include <unistd.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "../kfd/kfd.h"
#include "../queues/aql.h"
#include "../queues/signal.h"
#include "error.h"
#include "internal.h"
#include "stream_lock.h"

/* AQL ring size of a stream's queue. 512 packets let a burst of a few hundred launches go in
 * without waiting for the GPU to retire packets (the CP retires a packet shortly after its
 * completion signal changes, so a ring exactly as big as the burst would wait on the last one),
 * at 2 MiB of kernarg memory per queue (AQL_KERNARG_SLOT_SIZE per slot, touched only as used);
 * a full ring makes the submitter wait and yield. */
#define STREAM_QUEUE_PACKETS 512

static pthread_mutex_t stream_pool_lock = PTHREAD_MUTEX_INITIALIZER;
static struct hip_stream *stream_pool; /* destroyed streams for reuse; stream_pool_lock */

/* ---- the tail lock ------------------------------------------------------------------------------
 *
 * Every holder of the tail lock keeps it for a handful of instructions (a pointer swap, a
 * reference, re-arming a signal), and a launch takes it once: a spin lock costs one atomic
 * exchange and a plain release store where a mutex costs two atomic operations and two calls.
 * A waiter that keeps finding it taken yields, in case the holder was preempted. */

static inline void tail_lock(struct hip_stream *s)
{
	while (atomic_exchange_explicit(&s->tail_lock, 1, memory_order_acquire)) {
		for (unsigned n = 0; atomic_load_explicit(&s->tail_lock, memory_order_relaxed); n++) {
			if (n < 64) {
#if defined(__x86_64__) || defined(__i386__)
				__builtin_ia32_pause();
#endif
			} else
				sched_yield();
		}
	}
}

static inline void tail_unlock(struct hip_stream *s)
{
	atomic_store_explicit(&s->tail_lock, 0, memory_order_release);
}

/* Replace the tail (tail_lock held; the caller drops the old one's reference). Atomic stores:
 * stream_begin's fast path reads the pair without the lock. */
static inline void tail_set(struct hip_stream *s, struct hip_fence *f, bool on_queue)
{
	__atomic_store_n(&s->tail, f, __ATOMIC_RELAXED);
	__atomic_store_n(&s->tail_on_queue, on_queue, __ATOMIC_RELAXED);
}

/* ---- objects ----------------------------------------------------------------------------------- */

static struct hip_stream *stream_alloc(void)
{
	struct hip_stream *s;

	pthread_mutex_lock(&stream_pool_lock);
	s = stream_pool;
	if (s)
		stream_pool = s->next_free;
	pthread_mutex_unlock(&stream_pool_lock);
	if (s)
		return s;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	/* Initialised once: a recycled stream keeps its locks (and the bias of its stream lock),
	 * so a late call on a destroyed handle still finds valid ones. */
	atomic_init(&s->bias_owner, NULL);
	atomic_init(&s->bias_state, STREAM_LOCK_BIASED);
	atomic_init(&s->bias_busy, 0);
	atomic_init(&s->lock, 0);
	atomic_init(&s->tail_lock, 0);
	if (hip_handle_add(&hip_known_streams, s) != 0) {
		free(s);
		return NULL;
	}
	return s;
}

int hip_stream_create(struct hip_device *d, unsigned flags, int priority, struct hip_stream **out)
{
	struct hip_stream *s = stream_alloc();

	*out = NULL;
	if (!s)
		return -ENOMEM;
	s->device = d;
	s->flags = flags;
	s->priority = priority;
	s->is_null = false;
	s->is_per_thread = false;
	s->queue = NULL;
	s->nwaits = 0;
	s->tail = NULL;
	s->tail_on_queue = false;
	s->callbacks = NULL;
	s->next_free = NULL;
	atomic_store(&s->submitted, 0);
	atomic_store(&s->done_seq, 0);
	atomic_store(&s->launches, 0);
	atomic_store_explicit(&s->covered, 0, memory_order_relaxed);

	hip_device_stream_link(d, s);
	atomic_store_explicit(&s->live, true, memory_order_release);
	*out = s;
	return 0;
}

/* Waits for the stream's work and callbacks, then releases its queue. The object goes back to the
 * pool; its handle stays readable and answers "not live". */
/* What the layers above keep per stream (CU masks, green-context membership) is forgotten when
 * the stream is destroyed: stream objects are recycled. Installed at load, before any stream. */
#define STREAM_DESTROY_HOOKS 4
static void (*destroy_hooks[STREAM_DESTROY_HOOKS])(const struct hip_stream *s);

void hip_stream_on_destroy(void (*hook)(const struct hip_stream *s))
{
	for (int i = 0; i < STREAM_DESTROY_HOOKS; i++) {
		if (!destroy_hooks[i]) {
			destroy_hooks[i] = hook;
			return;
		}
	}
	abort(); /* more layers than slots: a build error, caught by the first test */
}

static void stream_destroy_hooks_run(const struct hip_stream *s)
{
	for (int i = 0; i < STREAM_DESTROY_HOOKS && destroy_hooks[i]; i++)
		destroy_hooks[i](s);
}

/* Let go of the stream's queue (s->lock held). In a failed context (the queue faulted, or may
 * wait for one that did) it is abandoned, not drained: fences of its packets may outlive the
 * stream in events, and their waits still ask the queue's error state. */
static void stream_queue_release(struct hip_stream *s)
{
	struct aql_queue *q = s->queue;
	if (!q)
		return;
	if (aql_queue_error(q) || hip_fault_poll())
		aql_queue_abandon(q);
	else
		aql_queue_destroy(q);
	__atomic_store_n(&s->queue, NULL, __ATOMIC_RELEASE);
}

/* Drop the pending hipStreamWaitEvent fences (s->lock held). */
static void stream_waits_release(struct hip_stream *s)
{
	for (int i = 0; i < s->nwaits; i++)
		hip_fence_put(s->waits[i]);
	__atomic_store_n(&s->nwaits, 0, __ATOMIC_RELAXED);
}

void hip_stream_destroy(struct hip_stream *s)
{
	atomic_store_explicit(&s->live, false, memory_order_release);
	hip_stream_sync(s);
	hip_stream_callbacks_stop(s);
	hip_device_stream_unlink(s->device, s);
	stream_destroy_hooks_run(s);

	stream_lock(s);
	stream_queue_release(s);
	/* drained (or dead, never to read them again): the barriers' fences may go */
	hip_stream_gpu_reads_release(s);
	stream_waits_release(s);
	stream_unlock(s);
	tail_lock(s);
	struct hip_fence *old = s->tail;
	tail_set(s, NULL, false);
	tail_unlock(s);
	hip_fence_put(old);

	pthread_mutex_lock(&stream_pool_lock);
	s->next_free = stream_pool;
	stream_pool = s;
	pthread_mutex_unlock(&stream_pool_lock);
}

void hip_stream_fault_reset(struct hip_stream *s)
{
	stream_lock(s);
	stream_queue_release(s);
	hip_stream_gpu_reads_release(s);
	stream_waits_release(s);
	tail_lock(s);
	struct hip_fence *old = s->tail;
	tail_set(s, NULL, false);
	atomic_store_explicit(&s->covered, atomic_load_explicit(&s->launches, memory_order_relaxed),
			      memory_order_release);
	tail_unlock(s);
	/* Nothing it had in flight will complete: it counts as done. */
	atomic_store_explicit(&s->done_seq, atomic_load_explicit(&s->submitted, memory_order_relaxed),
			      memory_order_release);
	stream_unlock(s);
	hip_fence_put(old);
}

void hip_device_streams_reset(struct hip_device *d)
{
	for (;;) {
		struct hip_stream *victim = NULL;
		pthread_mutex_lock(&d->lock);
		for (struct hip_stream *s = d->streams; s; s = s->next) {
			if (!s->is_null && !s->is_per_thread) {
				victim = s;
				break;
			}
		}
		pthread_mutex_unlock(&d->lock);
		if (!victim)
			break;
		hip_stream_destroy(victim);
	}
}

/* ---- handles ----------------------------------------------------------------------------------- */

/* Per-thread default streams: one per device per thread, created on first use, destroyed (after
 * their work completes) when the thread exits. */
static pthread_key_t pts_key;
static pthread_once_t pts_once = PTHREAD_ONCE_INIT;
static HIP_TLS struct hip_stream **pts_streams;

static void pts_destroy(void *arg)
{
	struct hip_stream **v = arg;
	for (int i = 0; i < hip_device_count(); i++)
		if (v[i])
			hip_stream_destroy(v[i]);
	free(v);
}

static void pts_init(void)
{
	pthread_key_create(&pts_key, pts_destroy);
}

static struct hip_stream *per_thread_stream(struct hip_device *d)
{
	if (!pts_streams) {
		pthread_once(&pts_once, pts_init);
		pts_streams = calloc((size_t)hip_device_count(), sizeof(*pts_streams));
		if (!pts_streams)
			return NULL;
		pthread_setspecific(pts_key, pts_streams);
	}
	if (!pts_streams[d->ordinal]) {
		struct hip_stream *s;
		if (hip_stream_create(d, 0, 0, &s) != 0)
			return NULL;
		s->is_per_thread = true;
		pts_streams[d->ordinal] = s;
	}
	return pts_streams[d->ordinal];
}

struct hip_stream *hip_stream_resolve(hipStream_t h)
{
	if (h == NULL || h == hipStreamLegacy) {
		struct hip_device *d = hip_device_current();
		return d ? d->null_stream : NULL;
	}
	if (h == hipStreamPerThread) {
		struct hip_device *d = hip_device_current();
		return d ? per_thread_stream(d) : NULL;
	}
	return hip_stream_valid(h) ? (struct hip_stream *)h : NULL;
}

struct hip_stream *hip_stream_from_api(hipStream_t h, hipError_t *err)
{
	struct hip_stream *s = hip_stream_resolve(h);
	*err = hipSuccess;
	if (!s) {
		hipError_t ie = hip_init_error();
		*err = ie != hipSuccess ? ie : hip_stream_invalid_error(h);
	}
	return s;
}

struct hip_stream *hip_stream_from_api_live(hipStream_t h, hipError_t *err)
{
	struct hip_stream *s = hip_stream_from_api(h, err);
	if (!s && *err == hipErrorInvalidHandle)
		*err = hipErrorContextIsDestroyed;
	return s;
}

struct hip_device *hip_stream_device(struct hip_stream *s)
{
	return s ? s->device : NULL;
}

/* ---- dependencies ------------------------------------------------------------------------------ */

static bool stream_blocking(const struct hip_stream *s)
{
	return !s->is_null && !(s->flags & hipStreamNonBlocking);
}

/* Make the tail cover every kernel counted in `launches` (tail_lock held; it may be dropped and
 * taken again while the ring is full). Kernels counted later are left to the next cover: they
 * are concurrent with the caller. Without memory for a fence, waits for the queue to drain
 * instead. */
static void stream_cover(struct hip_stream *s)
{
	for (;;) {
		uint64_t launches = atomic_load_explicit(&s->launches, memory_order_acquire);
		struct aql_queue *q = __atomic_load_n(&s->queue, __ATOMIC_ACQUIRE);
		struct hip_fence *f;
		if (launches == atomic_load_explicit(&s->covered, memory_order_relaxed) || !q)
			return;
		if (aql_queue_space(q) == 0) {
			/* Never wait for the CP with the tail lock held: a host callback that the
			 * ring's packets wait for may need it. */
			tail_unlock(s);
			int err = 0;
			while (aql_queue_space(q) == 0 && !(err = aql_queue_error(q)) &&
			       !(err = hip_fault_poll()))
				sched_yield();
			tail_lock(s);
			if (err) {
				/* The ring never drains (the queue, or one it waits for, failed): no
				 * marker; waits report the fault (the stream's error is sticky). */
				atomic_store_explicit(&s->covered, launches, memory_order_release);
				return;
			}
			continue;
		}
		if (hip_fence_create(s->device, &f) != 0) {
			tail_unlock(s);
			aql_queue_wait_idle(q, hip_device_blocking(s->device));
			tail_lock(s);
			/* Complete (or the queue faulted). */
			if (atomic_load_explicit(&s->covered, memory_order_relaxed) < launches)
				atomic_store_explicit(&s->covered, launches, memory_order_release);
			return;
		}
		f->queue = q;
		if (aql_submit_barrier_and(q, NULL, 0, f->sig, NULL) != 0) {
			hip_fence_signal(f); /* never submitted: nothing will complete it */
			hip_fence_put(f);
			/* The queue is dead: its waits report the fault. */
			atomic_store_explicit(&s->covered, launches, memory_order_release);
			return;
		}
		f->timestamped = true;
		struct hip_fence *old = s->tail;
		tail_set(s, f, true);
		/* Release: a holder of s->lock that reads this value reads the new tail (top). */
		atomic_store_explicit(&s->covered, launches, memory_order_release);
		hip_fence_put(old);
		return;
	}
}

struct hip_fence *hip_stream_tail(struct hip_stream *s)
{
	tail_lock(s);
	stream_cover(s);
	struct hip_fence *f = hip_fence_get(s->tail);
	tail_unlock(s);
	return f;
}

/* Add a fence reference to deps (consumes the reference). A full list is drained on the host. */
static void deps_add(struct hip_stream_deps *deps, struct hip_fence *f, bool blocking)
{
	if (!f)
		return;
	if (hip_fence_done(f) || f == hip_callback_fence) {
		hip_fence_put(f);
		return;
	}
	if (deps->n == HIP_STREAM_MAX_DEPS) {
		hip_fence_wait(f, blocking);
		hip_fence_put(f);
		return;
	}
	deps->f[deps->n++] = f;
}

/* The legacy rule costs a blocking stream nothing while the null stream has no unfinished work
 * known to it: two loads instead of the device lock and the null stream's tail lock. Stream
 * objects are never freed, so reading a null stream that is being torn down is safe, and work
 * another thread submits to the null stream concurrently is unordered with ours anyway. */
static bool null_stream_known_idle(struct hip_device *d)
{
	struct hip_stream *n = __atomic_load_n(&d->null_stream, __ATOMIC_ACQUIRE);
	return !n || hip_stream_known_idle(n);
}

/* The dependencies of new work on [in] s other than its own tail: the legacy null stream rule and
 * pending hipStreamWaitEvent fences (s->lock held). Out of line: work on a stream with neither
 * (a non-null stream while the null stream is idle, no pending waits) skips it. */
static __attribute__((noinline)) void stream_begin_deps(struct hip_stream *s,
							 struct hip_stream_deps *deps)
{
	struct hip_device *d = s->device;

	if (s->is_null) {
		bool blocking = hip_device_blocking(d);
		pthread_mutex_lock(&d->lock);
		for (struct hip_stream *t = d->streams; t; t = t->next)
			if (t != s && stream_blocking(t))
				deps_add(deps, hip_stream_tail(t), blocking);
		pthread_mutex_unlock(&d->lock);
	} else if (stream_blocking(s) && !null_stream_known_idle(d)) {
		pthread_mutex_lock(&d->lock);
		struct hip_stream *null_stream = d->null_stream;
		if (null_stream)
			deps_add(deps, hip_stream_tail(null_stream), hip_device_blocking(d));
		pthread_mutex_unlock(&d->lock);
	}
	if (s->nwaits) {
		bool blocking = hip_device_blocking(d);
		for (int i = 0; i < s->nwaits; i++)
			deps_add(deps, s->waits[i], blocking);
		__atomic_store_n(&s->nwaits, 0, __ATOMIC_RELAXED);
	}
}

/* The tail can change under a holder of s->lock only through a cover, which needs kernels it
 * has not covered (the top of the file). Acquire: pairs with the cover's release of `covered`. */
static inline bool tail_settled(struct hip_stream *s)
{
	return atomic_load_explicit(&s->launches, memory_order_relaxed) ==
	       atomic_load_explicit(&s->covered, memory_order_acquire);
}

/* A reference to the stream's own tail for deps->own, unless it completed (s->lock held). */
static void own_tail(struct hip_stream *s, struct hip_stream_deps *deps)
{
	bool settled = tail_settled(s);
	if (!settled)
		tail_lock(s);
	struct hip_fence *own = s->tail;
	deps->own_on_queue = s->tail_on_queue;
	if (own && !hip_fence_done(own) && own != hip_callback_fence)
		deps->own = hip_fence_get(own);
	if (!settled)
		tail_unlock(s);
}

/* hip_stream_begin; [in] queue_ordered: the new work is an AQL packet with the barrier bit on
 * the stream's queue, which orders it after a tail from that queue by itself: no reference to
 * the own tail is taken then (deps->own stays NULL). */
static inline __attribute__((always_inline)) void
stream_begin(struct hip_stream *s, struct hip_stream_deps *deps, bool queue_ordered)
{
	deps->n = 0;
	deps->own = NULL;
	stream_lock(s);
	if (__builtin_expect(s->is_null || s->nwaits ||
				     (stream_blocking(s) && !null_stream_known_idle(s->device)),
			     0))
		stream_begin_deps(s, deps);

	if (queue_ordered) {
		/* The launch path: a packet with the barrier bit needs nothing of a tail from its
		 * own queue, nor of no tail. A tail from elsewhere (SDMA, a callback) only appears
		 * under s->lock, which we hold, and a cover only replaces it with one from the
		 * queue that follows it: seeing "none" or "from the queue", in either order of the
		 * two loads, stays true. */
		if (!__atomic_load_n(&s->tail, __ATOMIC_RELAXED) ||
		    __atomic_load_n(&s->tail_on_queue, __ATOMIC_RELAXED)) {
			deps->own_on_queue = true;
			return;
		}
	} else if (!tail_settled(s)) {
		/* Work that is not a packet on the stream's queue needs a fence for every kernel
		 * too: cover them. */
		tail_lock(s);
		stream_cover(s);
		tail_unlock(s);
	}
	own_tail(s, deps);
}

void hip_stream_begin_queued(struct hip_stream *s, struct hip_stream_deps *deps)
{
	stream_begin(s, deps, true);
}

bool hip_stream_drained(struct hip_stream *s)
{
	/* Kernels not covered yet are not known complete; otherwise the tail is settled. */
	if (!tail_settled(s))
		return false;
	struct hip_fence *t = s->tail;
	return !t || t == hip_callback_fence || hip_fence_done(t);
}

void hip_stream_begin(struct hip_stream *s, struct hip_stream_deps *deps)
{
	stream_begin(s, deps, false);
}

static void deps_release(struct hip_stream_deps *deps)
{
	if (!deps->n && !deps->own)
		return;
	for (int i = 0; i < deps->n; i++)
		hip_fence_put(deps->f[i]);
	deps->n = 0;
	hip_fence_put(deps->own);
	deps->own = NULL;
}

/* One more operation submitted. Only holders of s->lock write the count, so a plain increment
 * suffices; the release store publishes the operation to the lock-free idle checks. */
static void stream_count_submitted(struct hip_stream *s)
{
	uint64_t n = atomic_load_explicit(&s->submitted, memory_order_relaxed);
	atomic_store_explicit(&s->submitted, n + 1, memory_order_release);
}

void hip_stream_end(struct hip_stream *s, struct hip_stream_deps *deps, struct hip_fence *tail,
		    bool on_queue)
{
	tail_lock(s);
	struct hip_fence *old = s->tail;
	tail_set(s, tail, on_queue);
	/* Work ended under s->lock follows every kernel enqueued before it: a packet of the stream's
	 * queue by the barrier bit, host or SDMA work by waiting for the covered tail. */
	atomic_store_explicit(&s->covered, atomic_load_explicit(&s->launches, memory_order_relaxed),
			      memory_order_release);
	stream_count_submitted(s);
	tail_unlock(s);
	hip_fence_put(old);
	deps_release(deps);
	stream_unlock(s);
}

void hip_stream_abort(struct hip_stream *s, struct hip_stream_deps *deps)
{
	deps_release(deps);
	stream_unlock(s);
}

int hip_deps_wait(struct hip_stream_deps *deps, bool blocking)
{
	for (int i = 0; i < deps->n; i++) {
		int err = hip_fence_wait(deps->f[i], blocking);
		if (err)
			return err;
	}
	return hip_fence_wait(deps->own, blocking);
}

int hip_stream_deps_wait(struct hip_stream *s, struct hip_stream_deps *deps)
{
	return hip_deps_wait(deps, hip_device_blocking(s->device));
}

struct aql_queue *hip_stream_queue(struct hip_stream *s, int *err)
{
	*err = 0;
	if (s->queue)
		return s->queue;
	/* HIP priorities: -1 high, 0 normal, 1 low. The queue layer takes HSA's -3..3 (3 high), and
	 * ROCr maps HSA_AMD_QUEUE_PRIORITY_HIGH/NORMAL/LOW to HSA_QUEUE_PRIORITY_MAXIMUM/NORMAL/MINIMUM
	 * (KFD 15, 7, 0): one per pipe priority class of amdkfd (HIGH, MEDIUM, LOW). */
	struct aql_queue *q;
	*err = aql_queue_create(s->device->gpu, STREAM_QUEUE_PACKETS, -s->priority * 3, &q);
	if (*err)
		return NULL;
	__atomic_store_n(&s->queue, q, __ATOMIC_RELEASE);
	return q;
}

int hip_stream_apply_cu_mask(struct hip_stream *s, const uint32_t *mask, uint32_t words)
{
	int err;
	stream_lock(s);
	struct aql_queue *q = hip_stream_queue(s, &err);
	if (q)
		err = aql_queue_set_cu_mask(q, mask, words * 32u);
	stream_unlock(s);
	return err;
}

uint64_t hip_stream_queue_va(struct hip_stream *s)
{
	int err;
	stream_lock(s);
	struct aql_queue *q = hip_stream_queue(s, &err);
	stream_unlock(s);
	return q ? aql_queue_va(q) : 0;
}

/* Collect the signals a packet on the stream's queue must wait for, and their fences. The stream's
 * own tail counts only when it came from elsewhere (SDMA, a callback) or when `with_own` asks for
 * it. */
struct dep_list {
	struct signal *sigs[HIP_STREAM_MAX_DEPS + 1];
	struct hip_fence *fences[HIP_STREAM_MAX_DEPS + 1];
	int n;
};

static void dep_signal(struct hip_stream *s, struct hip_fence *f, struct dep_list *l)
{
	if (hip_fence_done(f))
		return;
	/* Another GPU's signal need not be mapped to this one (a peer copy's engine fence): the
	 * host waits for it rather than the CP. */
	if (f->device != s->device) {
		hip_fence_wait(f, hip_device_blocking(s->device));
		return;
	}
	l->fences[l->n] = f;
	l->sigs[l->n++] = f->sig;
}

static void deps_signals(struct hip_stream *s, struct hip_stream_deps *deps, bool with_own,
			 struct dep_list *l)
{
	l->n = 0;
	for (int i = 0; i < deps->n; i++)
		dep_signal(s, deps->f[i], l);
	if (deps->own && (with_own || !deps->own_on_queue))
		dep_signal(s, deps->own, l);
}

/* Submit a barrier waiting for l's signals (completing [in] completion, may be NULL), and keep
 * its fences until the CP is done reading them (stream_gpu_reads.c). */
static int submit_barrier(struct hip_stream *s, const struct dep_list *l, struct signal *completion)
{
	uint64_t id = 0;
	int err = aql_submit_barrier_and(s->queue, l->sigs, l->n, completion, &id);
	if (!err && l->n)
		hip_stream_gpu_reads_add(s, l->fences, l->n, id);
	return err;
}

int hip_stream_deps_submit(struct hip_stream *s, struct hip_stream_deps *deps)
{
	struct dep_list l;
	if (!deps->n && !deps->own)
		return 0;
	deps_signals(s, deps, false, &l);
	if (l.n == 0)
		return 0;
	return submit_barrier(s, &l, NULL);
}

int hip_stream_marker(struct hip_stream *s, struct hip_stream_deps *deps, struct hip_fence *f)
{
	struct dep_list l;
	/* A barrier-AND packet does not order after earlier packets by itself unless its barrier bit
	 * is set; naming the stream's own tail makes the marker follow it in any case. */
	deps_signals(s, deps, true, &l);
	f->queue = s->queue;
	return submit_barrier(s, &l, f->sig);
}

void hip_stream_add_wait(struct hip_stream *s, struct hip_fence *f)
{
	stream_lock(s);
	int n = s->nwaits;
	if (n == HIP_STREAM_MAX_WAITS) {
		/* Too many pending waits: fold the oldest into a host wait. */
		hip_fence_wait(s->waits[0], hip_device_blocking(s->device));
		hip_fence_put(s->waits[0]);
		memmove(&s->waits[0], &s->waits[1], (HIP_STREAM_MAX_WAITS - 1) * sizeof(s->waits[0]));
		n--;
	}
	s->waits[n] = f;
	/* Atomic: copy.c's stream_busy reads the count without the lock. */
	__atomic_store_n(&s->nwaits, n + 1, __ATOMIC_RELAXED);
	stream_unlock(s);
}

/* ---- the contract verbs ------------------------------------------------------------------------ */

int hip_stream_error(struct hip_stream *s)
{
	/* A failed context fails every stream. */
	int err = hip_fault_known();
	if (err)
		return err;
	struct aql_queue *q = __atomic_load_n(&s->queue, __ATOMIC_ACQUIRE);
	if (q)
		return hip_fault_note(aql_queue_error(q));
	/* A stream that only copied and filled (SDMA): a fault of its engine shows only as the
	 * GPU's memory fault event, sticky as on CUDA. */
	return s->device->gpu && event_memory_fault_on(s->device->gpu->gpu_id) ? hip_fault_note(-EFAULT)
									       : 0;
}

int hip_stream_dispatch_reserve(struct hip_stream *s, const struct aql_dispatch *d,
				struct hip_stream_dispatch *x)
{
	int err;

	stream_begin(s, &x->deps, true);
	x->completion_va = 0;
	x->q = s->queue ? s->queue : hip_stream_queue(s, &err);
	if (!x->q)
		goto fail;
	/* The queue's error state is checked by aql_dispatch_reserve (without a driver poll: a
	 * fault is reported by the next wait, which polls, and sticks). */
	if ((x->deps.n || x->deps.own) &&
	    ((err = aql_queue_error_known(x->q)) || (err = hip_stream_deps_submit(s, &x->deps))))
		goto fail;
	err = aql_dispatch_reserve(x->q, d, &x->slot);
	if (err)
		goto fail;
	return 0;

fail:
	hip_stream_abort(s, &x->deps);
	/* A queue that stopped on a fault answers -EFAULT/-EIO: the context has failed, and the
	 * launch reports that as the sticky error (not as an argument error). */
	return hip_fault_note(err);
}

void hip_stream_dispatch_commit(struct hip_stream *s, const struct aql_dispatch *d,
				struct hip_stream_dispatch *x)
{
	/* Barrier bit: a HIP stream is in order, the kernel starts after the previous packet ends.
	 * No completion signal (unless a recorder asked for one, activity.h): stream_cover gives
	 * one to whoever needs it. */
	aql_dispatch_commit(x->q, &x->slot, d, x->completion_va, true);
	/* Counted after publication, the kernel first (a synchronize reads the counts in the other
	 * order: one that sees the operation sees the kernel to cover). */
	uint64_t n = atomic_load_explicit(&s->launches, memory_order_relaxed);
	atomic_store_explicit(&s->launches, n + 1, memory_order_release);
	stream_count_submitted(s);
	deps_release(&x->deps);
	stream_unlock(s);
}

int hip_stream_dispatch(struct hip_stream *s, const struct aql_dispatch *d)
{
	struct hip_stream_dispatch x;

	if (d->kernarg_size && !d->kernarg)
		return -EINVAL;
	int err = hip_stream_dispatch_reserve(s, d, &x);
	if (err)
		return err;
	if (d->kernarg_size)
		memcpy(x.slot.kernarg, d->kernarg, d->kernarg_size);
	hip_stream_dispatch_commit(s, d, &x);
	return 0;
}

/* hip_stream_known_idle (internal.h), the idle fast path: every operation counted in `submitted`
 * is known complete (no lock, no syscall). */

static void stream_mark_done(struct hip_stream *s, uint64_t seq)
{
	uint64_t cur = atomic_load_explicit(&s->done_seq, memory_order_relaxed);
	while (cur < seq &&
	       !atomic_compare_exchange_weak_explicit(&s->done_seq, &cur, seq, memory_order_release,
						      memory_order_relaxed))
		;
}

/* The fast path returns without looking for queue errors: the wait that saw the work complete
 * already checked, and a fault found then is sticky (hip_gpu_error). */
int hip_stream_sync(struct hip_stream *s)
{
	if (!s)
		return -EINVAL;
	if (hip_stream_known_idle(s))
		return 0;
	/* The count before the cover: an operation it includes is a kernel the cover sees. */
	uint64_t seq = atomic_load_explicit(&s->submitted, memory_order_acquire);
	tail_lock(s);
	stream_cover(s);
	struct hip_fence *t = hip_fence_get(s->tail);
	tail_unlock(s);
	int err = hip_fence_wait(t, hip_device_blocking(s->device));
	hip_fence_put(t);
	if (!err)
		err = hip_stream_error(s);
	if (err)
		return err;
	stream_mark_done(s, seq);
	return 0;
}

/* hipStreamQuery: true when the stream has no unfinished work. */
bool hip_stream_idle(struct hip_stream *s)
{
	if (hip_stream_known_idle(s))
		return true;
	uint64_t seq = atomic_load_explicit(&s->submitted, memory_order_acquire);
	tail_lock(s);
	stream_cover(s);
	struct hip_fence *t = hip_fence_get(s->tail);
	tail_unlock(s);
	bool done = hip_fence_done(t);
	hip_fence_put(t);
	if (done)
		stream_mark_done(s, seq);
	return done;
}
