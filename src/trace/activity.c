/* hipkfd: the recorder behind the runtime's activity hook (runtime/activity.h; trace.h).
 *
 * A kernel gets a completion signal (a fence of its device) on which the CP writes its start and
 * end timestamps; an SDMA transfer comes with its engine's fence. Both wait on a pending list in
 * issue order until one reaper thread, sleeping on the oldest entry's signal (WAIT_EVENTS, never
 * spinning), sees it complete; then the timestamps are read (GPU counter ticks, converted to
 * CLOCK_MONOTONIC ns through one calibration pair per device) and the work goes to its
 * consumers. CPU copies and fills finish before they are reported and go straight through.
 * After fork() the child has no reaper thread; it issues no GPU work either (the runtime refuses
 * it in a child: hip_forked), and the rings it inherited are the parent's records. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "../kfd/kfd.h"
#include "../queues/aql.h"
#include "../queues/signal.h"
#include "../runtime/internal.h"
#include "../runtime/observe.h"
#include "trace.h"

/* How long the reaper sleeps on a signal before it looks at the queues' health and the stop
 * flag again. */
#define REAPER_SLICE_NS (20 * 1000 * 1000ull)

struct pending {
	struct pending *next;          /* protected by lock */
	struct hip_fence *fence;       /* our reference; completes when the work has */
	struct hip_device *device;
	struct trace_work w;
	struct hip_activity_transfer t; /* transfers: what the engine reported (w.transfer) */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
static pthread_cond_t retired = PTHREAD_COND_INITIALIZER; /* an entry left the list */
static struct pending *head, **tailp = &head; /* protected by lock */
static bool reaper_started;                   /* protected by lock */
static _Atomic bool reaper_stop;
static pthread_t reaper;
static _Atomic unsigned consumers;            /* enum trace_consumer bits */

/* ---- stream tracks and names ---------------------------------------------------------------- */

#define MAX_TRACKS 1024

static pthread_mutex_t names_lock = PTHREAD_MUTEX_INITIALIZER;
static const struct hip_stream *tracks[MAX_TRACKS]; /* track n is tracks[n - 1]; names_lock */
static uint32_t ntracks;                            /* names_lock */
static HIP_TLS const struct hip_stream *last_stream;
static HIP_TLS uint32_t last_track;

/* Streams are recycled, never freed: a pointer names one stream object for good (a destroyed
 * stream's object reused by a new stream keeps the track, which then shows both in turn). */
uint32_t trace_stream_track(const struct hip_stream *s, bool *is_null)
{
	*is_null = s && s->is_null;
	if (s == last_stream && last_track)
		return last_track;
	uint32_t n = 0;
	pthread_mutex_lock(&names_lock);
	for (uint32_t i = 0; i < ntracks && !n; i++)
		if (tracks[i] == s)
			n = i + 1;
	if (!n && ntracks < MAX_TRACKS) {
		tracks[ntracks++] = s;
		n = ntracks;
	}
	pthread_mutex_unlock(&names_lock);
	last_stream = s, last_track = n;
	return n; /* 0: more streams than tracks, all shown on track 0 */
}

struct interned {
	struct interned *next;  /* names_lock */
	const char *key;        /* the pointer it was interned from */
	char text[];
};

#define INTERN_BUCKETS 256
static struct interned *interned[INTERN_BUCKETS]; /* names_lock */

/* Kernel names belong to their code object, which may be unloaded before the trace is written;
 * the copy lives for good. Found by the caller's pointer first (one per kernel), checked by text
 * (an unloaded module's memory may hold another name later). */
const char *trace_intern(const char *name)
{
	if (!name)
		return NULL;
	size_t b = ((uintptr_t)name >> 4) % INTERN_BUCKETS;
	const char *out = NULL;
	pthread_mutex_lock(&names_lock);
	for (struct interned *e = interned[b]; e && !out; e = e->next)
		if (e->key == name && strcmp(e->text, name) == 0)
			out = e->text;
	if (!out) {
		size_t n = strlen(name) + 1;
		struct interned *e = malloc(sizeof(*e) + n);
		if (e) {
			e->key = name;
			memcpy(e->text, name, n);
			e->next = interned[b];
			interned[b] = e;
			out = e->text;
		}
	}
	pthread_mutex_unlock(&names_lock);
	return out;
}

/* ---- GPU time --------------------------------------------------------------------------------- */

/* One (GPU counter, CLOCK_MONOTONIC) pair per device, read on first use by the reaper (the only
 * thread that converts, so no lock). The CP stamps packets with the counter that
 * AMDKFD_IOC_GET_CLOCK_COUNTERS reads (gpu_clock_counter); the host time is taken on both sides
 * of the ioctl and the middle kept. */
static struct {
	bool ok;
	uint64_t ticks, host_ns;
} calibration[HIP_MAX_DEVICES];

static bool gpu_to_host(struct hip_device *d, uint64_t ticks, uint64_t *ns)
{
	int o = d->ordinal;
	if (o < 0 || o >= HIP_MAX_DEVICES || !d->gpu)
		return false;
	if (!calibration[o].ok) {
		uint64_t t0 = hip_activity_now();
		if (kfd_clock_counters(d->gpu, &calibration[o].ticks, NULL, NULL, NULL))
			return false;
		calibration[o].host_ns = t0 + (hip_activity_now() - t0) / 2;
		calibration[o].ok = true;
	}
	uint64_t c = calibration[o].ticks, h = calibration[o].host_ns;
	*ns = ticks >= c ? h + kfd_gpu_ticks_to_ns(d->gpu, ticks - c)
			 : h - kfd_gpu_ticks_to_ns(d->gpu, c - ticks);
	return true;
}

/* ---- delivery --------------------------------------------------------------------------------- */

static void deliver(const struct trace_work *w)
{
	if (w->consumers & TRACE_CONSUMER_TIMELINE)
		trace_timeline_work(w);
	if (w->consumers & TRACE_CONSUMER_CALLBACK)
		trace_callback_work(w);
}

/* Fill in the times of finished work [in] p and hand it on. A kernel's come from its signal; a
 * signal without timestamps (a GPU whose queue does not profile) and an SDMA transfer get the
 * time the reaper saw them finish. */
static void finish(struct pending *p)
{
	uint64_t now = hip_activity_now(), start, end, b, e;
	if (p->w.kind == TRACE_KERNEL) {
		if (signal_timestamps(p->fence->sig, &start, &end) == 0 &&
		    gpu_to_host(p->device, start, &b) && gpu_to_host(p->device, end, &e) && e >= b) {
			p->w.begin_ns = b;
			p->w.end_ns = e;
		} else {
			p->w.begin_ns = p->w.issue_ns;
			p->w.end_ns = now;
		}
	} else {
		p->w.end_ns = now;
	}
	deliver(&p->w);
}

static void pending_free(struct pending *p)
{
	hip_fence_put(p->fence);
	free(p);
}

/* ---- the reaper --------------------------------------------------------------------------- */

/* Sleep until [in] p's work completes. False when the reaper is told to stop first, or when a
 * queue stopped (a fault): work behind it may never complete, and is dropped. */
static bool wait_done(struct pending *p)
{
	while (!hip_fence_done(p->fence)) {
		if (atomic_load_explicit(&reaper_stop, memory_order_acquire) || hip_fault_poll())
			return false;
		int err = signal_wait_lt(p->fence->sig, 1, REAPER_SLICE_NS, true);
		if (err && err != -ETIMEDOUT && err != -ETIME)
			return false;
	}
	return true;
}

static struct pending *pending_pop(void)
{
	struct pending *p = head;
	head = p->next;
	if (!head)
		tailp = &head;
	return p;
}

static void *reaper_main(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock);
	for (;;) {
		while (!head && !atomic_load_explicit(&reaper_stop, memory_order_acquire))
			pthread_cond_wait(&wake, &lock);
		if (!head)
			break;
		struct pending *p = head; /* only the reaper removes entries: p stays the head */
		pthread_mutex_unlock(&lock);
		bool done = wait_done(p);
		if (!done && atomic_load_explicit(&reaper_stop, memory_order_acquire)) {
			pthread_mutex_lock(&lock);
			break; /* shutdown retires what is finished */
		}
		if (done)
			finish(p);
		pthread_mutex_lock(&lock);
		pending_free(pending_pop());
		pthread_cond_broadcast(&retired);
	}
	pthread_cond_broadcast(&retired);
	pthread_mutex_unlock(&lock);
	return NULL;
}

/* Queue [in] p for the reaper, starting it on first use. False when it cannot run. */
static bool pending_push(struct pending *p)
{
	bool ok = true;
	pthread_mutex_lock(&lock);
	if (atomic_load_explicit(&reaper_stop, memory_order_relaxed))
		ok = false; /* shut down: nobody would retire it */
	else if (!reaper_started) {
		if (pthread_create(&reaper, NULL, reaper_main, NULL) != 0)
			ok = false;
		else
			reaper_started = true;
	}
	if (ok) {
		p->next = NULL;
		*tailp = p;
		tailp = &p->next;
		pthread_cond_signal(&wake);
	}
	pthread_mutex_unlock(&lock);
	return ok;
}

/* ---- the hook --------------------------------------------------------------------------------- */

static void work_common(struct trace_work *w, const struct hip_stream *s, unsigned want)
{
	w->device = s->device->ordinal;
	w->track = trace_stream_track(s, &w->null_stream);
	w->tid = trace_thread_id();
	/* Only while calls are observed: a call whose end was not observed (recording stopped
	 * inside it) leaves its id behind. */
	w->correlation = atomic_load_explicit(&hip_observe_flags, memory_order_relaxed) &
				 (HIP_OBSERVE_TRACE | HIP_OBSERVE_CALLBACK)
			 ? hip_observe_current_call()
			 : 0;
	w->consumers = want;
	w->record_id = want & TRACE_CONSUMER_CALLBACK ? trace_callback_issue(w->kind) : 0;
}

static uint64_t on_kernel(struct hip_stream *s, const struct aql_dispatch *d, const char *name)
{
	unsigned want = atomic_load_explicit(&consumers, memory_order_acquire);
	struct pending *p = want ? calloc(1, sizeof(*p)) : NULL;
	if (!p)
		return 0;
	if (hip_fence_create(s->device, &p->fence)) {
		free(p);
		return 0;
	}
	p->device = s->device;
	p->w.kind = TRACE_KERNEL;
	p->w.name = trace_intern(name);
	for (int i = 0; i < 3; i++) {
		uint32_t b = d->block[i] ? d->block[i] : 1;
		p->w.grid[i] = d->grid[i] / b + (d->grid[i] % b != 0);
		p->w.block[i] = d->block[i];
	}
	p->w.lds = d->group_segment_size;
	work_common(&p->w, s, want);
	p->w.issue_ns = hip_activity_now();
	uint64_t va = p->fence->sig_va;
	if (!pending_push(p)) {
		hip_fence_signal(p->fence); /* the packet will not carry it */
		pending_free(p);
		return 0;
	}
	return va;
}

static void on_transfer(const struct hip_activity_transfer *t)
{
	unsigned want = atomic_load_explicit(&consumers, memory_order_acquire);
	if (!want)
		return;
	struct trace_work w = {.kind = t->fill ? TRACE_FILL : TRACE_COPY, .transfer = t};
	work_common(&w, t->stream, want);
	w.issue_ns = w.begin_ns = t->begin_ns;
	w.end_ns = t->end_ns;
	if (!t->fence) {
		deliver(&w);
		return;
	}
	struct pending *p = calloc(1, sizeof(*p));
	if (!p)
		return;
	p->t = *t;
	p->t.fence = NULL;
	p->w = w;
	p->w.transfer = &p->t;
	p->device = t->device;
	p->fence = hip_fence_get(t->fence);
	if (!pending_push(p))
		pending_free(p);
}

static const struct hip_activity_ops trace_ops = {.kernel = on_kernel, .transfer = on_transfer};

void trace_activity_consumer(enum trace_consumer c, bool on)
{
	static pthread_mutex_t consumer_lock = PTHREAD_MUTEX_INITIALIZER;
	pthread_mutex_lock(&consumer_lock);
	unsigned v = atomic_load_explicit(&consumers, memory_order_relaxed);
	v = on ? v | (unsigned)c : v & ~(unsigned)c;
	atomic_store_explicit(&consumers, v, memory_order_release);
	atomic_store_explicit(&hip_activity_hook, v ? &trace_ops : NULL, memory_order_release);
	pthread_mutex_unlock(&consumer_lock);
}

void trace_activity_flush(void)
{
	pthread_mutex_lock(&lock);
	while (head && reaper_started && !atomic_load_explicit(&reaper_stop, memory_order_acquire) &&
	       hip_fence_done(head->fence))
		pthread_cond_wait(&retired, &lock);
	pthread_mutex_unlock(&lock);
}

void trace_activity_shutdown(void)
{
	atomic_store_explicit(&reaper_stop, true, memory_order_release);
	pthread_mutex_lock(&lock);
	bool started = reaper_started;
	pthread_cond_broadcast(&wake);
	pthread_mutex_unlock(&lock);
	if (started)
		pthread_join(reaper, NULL);
	/* The reaper is gone (or never ran): retire the finished entries, drop the rest. */
	pthread_mutex_lock(&lock);
	while (head) {
		struct pending *p = pending_pop();
		if (hip_fence_done(p->fence))
			finish(p);
		pending_free(p);
	}
	pthread_mutex_unlock(&lock);
}
