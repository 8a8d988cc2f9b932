/* Events: markers in a stream, timing from the command processor's timestamps, and cross-stream
 * waits (hipStreamWaitEvent).
 *
 * hipEventRecord submits a barrier-AND packet on the stream's AQL queue that follows the stream's
 * work; the CP writes the packet's start/end timestamps into its completion signal, which is what
 * hipEventElapsedTime reads (AMD's runtime also times events with a marker packet).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../kfd/kfd.h"
#include "../queues/signal.h"
#include "../runtime/capture.h"
#include "../runtime/error.h"
#include "event_ipc.h"
#include "../runtime/internal.h"

struct hip_event {
	_Atomic bool live;            /* created and not destroyed (objects are recycled) */
	unsigned flags;               /* hipEvent* creation flags */
	struct hip_device *device;    /* current device at creation */
	pthread_mutex_t lock;         /* protects fence */
	struct hip_fence *fence;      /* the last record; NULL if never recorded */
	_Atomic bool complete;        /* fast path: the last record was seen complete */
	struct hip_event *next_free;  /* in event_pool */
	/* hipEventInterprocess: the shared record area (event_ipc.c), made at the first record or
	 * hipIpcGetEventHandle, or mapped by hipIpcOpenEventHandle; protected by lock. Records
	 * published there are what queries, synchronization and stream waits look at. */
	struct ipc_event *ipc;
};

static pthread_mutex_t event_pool_lock = PTHREAD_MUTEX_INITIALIZER;
static struct hip_event *event_pool;

static struct hip_event *event_alloc(void)
{
	struct hip_event *e;
	pthread_mutex_lock(&event_pool_lock);
	e = event_pool;
	if (e)
		event_pool = e->next_free;
	pthread_mutex_unlock(&event_pool_lock);
	if (e)
		return e;
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	/* Initialised once: a recycled event keeps its mutex, so a late call on a destroyed handle
	 * still locks a valid mutex. */
	pthread_mutex_init(&e->lock, NULL);
	if (hip_handle_add(&hip_known_events, e) != 0) {
		pthread_mutex_destroy(&e->lock);
		free(e);
		return NULL;
	}
	return e;
}

/* A live event of ours, or NULL. */
static inline __attribute__((always_inline)) struct hip_event *event_of(hipEvent_t h)
{
	struct hip_event *e = (struct hip_event *)h;
	if (hip_after_fork() || !hip_handle_known(&hip_known_events, e) ||
	    !atomic_load_explicit(&e->live, memory_order_acquire))
		return NULL;
	return e;
}

/* event_of for a handle from the caller, NULL included: these callers answer a NULL handle and a
 * dead one alike, with hipErrorInvalidHandle. Inlined as event_of is (hipEventQuery's path). */
static inline __attribute__((always_inline)) struct hip_event *event_lookup(hipEvent_t h)
{
	return h ? event_of(h) : NULL;
}

static bool flags_valid(unsigned flags)
{
	const unsigned release = hipEventReleaseToDevice | hipEventReleaseToSystem
#ifdef hipEventDisableSystemFence
				 | hipEventDisableSystemFence
#endif
		;
	const unsigned known = hipEventDefault | hipEventBlockingSync | hipEventDisableTiming |
			       hipEventInterprocess | release;
	if (flags & ~known)
		return false;
	if (__builtin_popcount(flags & release) > 1)
		return false;
	/* An interprocess event cannot be timed (AMD and CUDA require DisableTiming with it). */
	if ((flags & hipEventInterprocess) && !(flags & hipEventDisableTiming))
		return false;
	return true;
}

hipError_t hipEventCreateWithFlags(hipEvent_t *event, unsigned flags)
{
	if (!event)
		HIP_RETURN(hipErrorInvalidValue);
	if (!flags_valid(flags))
		HIP_RETURN(hipErrorInvalidValue);
	struct hip_device *d = hip_device_current();
	if (!d)
		HIP_RETURN(hip_init_error() ?: hipErrorInvalidDevice);
	struct hip_event *e = event_alloc();
	if (!e)
		HIP_RETURN(hipErrorOutOfMemory);
	e->flags = flags;
	e->device = d;
	e->fence = NULL;
	e->ipc = NULL;
	e->next_free = NULL;
	atomic_store(&e->complete, false);
	atomic_store_explicit(&e->live, true, memory_order_release);
	*event = (hipEvent_t)e;
	HIP_RETURN(hipSuccess);
}

hipError_t hipEventCreate(hipEvent_t *event)
{
	return hipEventCreateWithFlags(event, hipEventDefault);
}

hipError_t hipEventDestroy(hipEvent_t event)
{
	if (!event)
		HIP_RETURN(hipErrorInvalidHandle);
	hip_capture_event_destroyed(event);
	struct hip_event *e = event_of(event);
	/* AMD's answer for an event that is not (or no longer) in its event set. */
	if (!e)
		HIP_RETURN(hipErrorContextIsDestroyed);
	bool was_live = true;
	if (!atomic_compare_exchange_strong(&e->live, &was_live, false))
		HIP_RETURN(hipErrorContextIsDestroyed);
	pthread_mutex_lock(&e->lock);
	struct hip_fence *f = e->fence;
	struct ipc_event *ie = e->ipc;
	e->fence = NULL;
	e->ipc = NULL;
	pthread_mutex_unlock(&e->lock);
	hip_fence_put(f);
	ipc_event_release(ie);
	pthread_mutex_lock(&event_pool_lock);
	e->next_free = event_pool;
	event_pool = e;
	pthread_mutex_unlock(&event_pool_lock);
	HIP_RETURN(hipSuccess);
}

static void event_set_fence(struct hip_event *e, struct hip_fence *f)
{
	pthread_mutex_lock(&e->lock);
	struct hip_fence *old = e->fence;
	e->fence = f;
	atomic_store_explicit(&e->complete, false, memory_order_release);
	pthread_mutex_unlock(&e->lock);
	hip_fence_put(old);
}

/* The GPU clock counter now, without a GET_CLOCK_COUNTERS ioctl per call: extrapolated from the
 * last calibration pair (GPU ticks, CLOCK_MONOTONIC_RAW ns) at the counter's frequency, and
 * re-read from the driver when that pair is over CALIB_MAX_AGE_NS old, so the drift between the
 * two clocks (ppm) stays far below a microsecond. */
#define CALIB_MAX_AGE_NS 1000000ull
#define CALIB_DEVICES 16

struct clock_calib {
	pthread_mutex_t lock;
	uint64_t ticks, cpu_ns;   /* (lock); cpu_ns 0 = never read */
};
static struct clock_calib calib[CALIB_DEVICES];
static pthread_once_t calib_once = PTHREAD_ONCE_INIT;

static void calib_init(void)
{
	for (int i = 0; i < CALIB_DEVICES; i++)
		pthread_mutex_init(&calib[i].lock, NULL);
}

static int gpu_ticks_now(struct hip_device *d, uint64_t *ticks)
{
	struct kfd_gpu *gpu = d->gpu;
	if (d->ordinal < 0 || d->ordinal >= CALIB_DEVICES)
		return kfd_clock_counters(gpu, ticks, NULL, NULL, NULL);
	pthread_once(&calib_once, calib_init);
	struct clock_calib *c = &calib[d->ordinal];
	struct timespec ts;
	int err = 0;
	pthread_mutex_lock(&c->lock);
	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	uint64_t now = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	if (!c->cpu_ns || now < c->cpu_ns || now - c->cpu_ns > CALIB_MAX_AGE_NS)
		err = kfd_clock_counters(gpu, &c->ticks, &c->cpu_ns, NULL, NULL);
	if (!err && now < c->cpu_ns)
		now = c->cpu_ns; /* read just before the driver's pair */
	uint64_t hz = gpu->gpu_clock_hz ? gpu->gpu_clock_hz : 100000000ull;
	/* now - cpu_ns is at most CALIB_MAX_AGE_NS: the product fits in 64 bits. */
	if (!err)
		*ticks = c->ticks + (now - c->cpu_ns) * hz / 1000000000ull;
	else
		c->cpu_ns = 0;
	pthread_mutex_unlock(&c->lock);
	return err;
}

/* Everything a record on the stream would wait for has completed (no dependency left after
 * hip_stream_begin) and the queue is healthy: the record is complete now. The host completes the
 * fence instead of a marker packet round trip through the GPU; a timed event gets the GPU clock
 * counter of this moment (gpu_ticks_now: the counter the CP stamps packets with), which is after
 * the end of all the work it follows, as the marker's end timestamp would be. The
 * stream's tail is left as it is. Returns 0 with *out set, or -EAGAIN to submit a marker. */
static int record_idle(struct hip_stream *s, const struct hip_stream_deps *deps, bool timed,
		       struct hip_fence **out)
{
	struct hip_fence *f;
	uint64_t ticks = 0;

	if (deps->n || deps->own || !hip_stream_drained(s) ||
	    (s->queue && aql_queue_error_known(s->queue)))
		return -EAGAIN;
	if (timed && gpu_ticks_now(s->device, &ticks) != 0)
		return -EAGAIN;
	if (hip_fence_create(s->device, &f) != 0)
		return -EAGAIN;
	f->host_stamped = timed;
	f->host_ticks = ticks;
	hip_fence_signal(f);
	*out = f;
	return 0;
}

/* Submit the marker that the event records. The stream's tail becomes the marker's fence. */
static int record_marker(struct hip_stream *s, bool timed, struct hip_fence **out)
{
	struct hip_stream_deps deps;
	struct hip_fence *f = NULL;
	int err;

	*out = NULL;
	/* The marker's barrier bit orders it after the stream's kernels: no cover needed. */
	hip_stream_begin_queued(s, &deps);
	if (record_idle(s, &deps, timed, out) == 0) {
		hip_stream_abort(s, &deps);
		return 0;
	}
	if (!hip_stream_queue(s, &err))
		goto fail;
	err = hip_fence_create(s->device, &f);
	if (err)
		goto fail;
	err = hip_stream_marker(s, &deps, f);
	if (err) {
		hip_fence_put(f);
		goto fail;
	}
	f->timestamped = true;
	*out = hip_fence_get(f);
	hip_stream_end(s, &deps, f, true);
	return 0;
fail:
	hip_stream_abort(s, &deps);
	return err;
}

/* [in] e's shared record area, made now if it has none. NULL when it cannot be made. */
static struct ipc_event *ipc_area(struct hip_event *e, int *err)
{
	*err = 0;
	pthread_mutex_lock(&e->lock);
	if (!e->ipc)
		*err = ipc_event_create(&e->ipc);
	struct ipc_event *ie = e->ipc;
	pthread_mutex_unlock(&e->lock);
	return ie;
}

/* An interprocess event's record, published in its shared area for other processes. */
static hipError_t ipc_record(struct hip_event *e, hipStream_t stream)
{
	int err;
	struct ipc_event *ie = ipc_area(e, &err);
	if (!ie)
		return hip_error_from_errno(err);
	/* Published records take over from the local fence: drop it so that every process answers
	 * from the same slot. */
	atomic_store(&e->complete, false);
	return ipc_event_record(ie, stream);
}

/* [in] e's shared record area if it has one (interprocess events after a record or an open). */
static struct ipc_event *ipc_of(struct hip_event *e)
{
	if (!(e->flags & hipEventInterprocess))
		return NULL;
	pthread_mutex_lock(&e->lock);
	struct ipc_event *ie = e->ipc;
	pthread_mutex_unlock(&e->lock);
	return ie;
}

static hipError_t event_record(hipEvent_t event, hipStream_t stream, unsigned flags)
{
	if (flags != 0 && flags != hipEventRecordExternal)
		return hipErrorInvalidValue;
	struct hip_event *e = event_lookup(event);
	if (!e)
		return hipErrorInvalidHandle;
	hipError_t ce;
	if (hip_capture_any() && hip_capture_event_record(event, stream, flags, &ce))
		return ce;
	hipError_t herr;
	struct hip_stream *s = hip_stream_from_api_live(stream, &herr);
	if (!s)
		return herr;
	if (s->device != e->device)
		return hipErrorInvalidHandle;
	struct hip_fence *f;
	int err = record_marker(s, !(e->flags & hipEventDisableTiming), &f);
	if (err)
		return hip_error_from_errno(err);
	event_set_fence(e, f);
	if (e->flags & hipEventInterprocess)
		return ipc_record(e, stream);
	return hipSuccess;
}

hipError_t hipEventRecord(hipEvent_t event, hipStream_t stream)
{
	HIP_RETURN(event_record(event, stream, 0));
}

hipError_t hipEventRecord_spt(hipEvent_t event, hipStream_t stream)
{
	HIP_RETURN(event_record(event, stream ? stream : hipStreamPerThread, 0));
}

hipError_t hipEventRecordWithFlags(hipEvent_t event, hipStream_t stream, unsigned int flags)
{
	HIP_RETURN(event_record(event, stream, flags));
}

/* The event's last record (a new reference), or NULL if never recorded. */
static struct hip_fence *event_fence(struct hip_event *e)
{
	pthread_mutex_lock(&e->lock);
	struct hip_fence *f = hip_fence_get(e->fence);
	pthread_mutex_unlock(&e->lock);
	return f;
}

/* The event's record is complete (a never-recorded event counts as complete, as in AMD's
 * runtime). Fast path: one acquire load once completion has been seen. */
static bool event_done_slow(struct hip_event *e)
{
	pthread_mutex_lock(&e->lock);
	bool done = hip_fence_done(e->fence);
	if (done)
		atomic_store_explicit(&e->complete, true, memory_order_release);
	pthread_mutex_unlock(&e->lock);
	return done;
}

static inline bool event_done(struct hip_event *e)
{
	return atomic_load_explicit(&e->complete, memory_order_acquire) || event_done_slow(e);
}

/* The status of [in] event (hipEventQuery's answer before the error state). */
static hipError_t event_query(hipEvent_t event)
{
	struct hip_event *e = event_lookup(event);
	if (!e)
		return hipErrorInvalidHandle;
	/* A captured record cannot be queried (only looked up while some capture exists). */
	if (hip_capture_any()) {
		hipError_t ce = hip_capture_event_check(event);
		if (ce != hipSuccess)
			return ce;
	}
	struct ipc_event *ie = ipc_of(e);
	enum ipc_event_status st = ie ? ipc_event_status(ie) : IPC_EVENT_PENDING;
	if (st == IPC_EVENT_ABANDONED)
		return hipErrorInvalidHandle; /* its recorder is gone: it never completes */
	if (ie ? st == IPC_EVENT_DONE : event_done(e))
		return hipSuccess;
	/* Unfinished: unless the context failed, and then it never finishes (a program polling
	 * the query must hear so). */
	int err = hip_fault_poll();
	return err ? hip_gpu_error(err) : hipErrorNotReady;
}

hipError_t hipEventQuery(hipEvent_t event)
{
	HIP_RETURN(event_query(event));
}

hipError_t hipEventSynchronize(hipEvent_t event)
{
	struct hip_event *e = event_lookup(event);
	if (!e)
		HIP_RETURN(hipErrorInvalidHandle);
	HIP_RETURN_IF_ERROR(hip_capture_event_check(event));
	struct ipc_event *ie = ipc_of(e);
	if (ie) {
		/* The record's slot is cleared by whichever process's GPU ran it; if it was ours and
		 * our context failed, never: a failed context ends the wait. Another process's fault is
		 * not visible here, its death is: the record is abandoned (hipErrorInvalidHandle). */
		int err = 0;
		enum ipc_event_status st;
		while ((st = ipc_event_status(ie)) == IPC_EVENT_PENDING && !(err = hip_fault_poll())) {
			struct timespec nap = {0, 100000};
			nanosleep(&nap, NULL);
		}
		if (err)
			HIP_RETURN(hip_gpu_error(err));
		HIP_RETURN(st == IPC_EVENT_DONE ? hipSuccess : hipErrorInvalidHandle);
	}
	if (event_done(e))
		HIP_RETURN(hipSuccess);
	struct hip_fence *f = event_fence(e);
	bool blocking = (e->flags & hipEventBlockingSync) || hip_device_blocking(e->device);
	int err = hip_fence_wait(f, blocking);
	hip_fence_put(f);
	HIP_RETURN(err ? hip_gpu_error(err) : hipSuccess);
}

/* GPU end timestamp of a record, in ns. -EAGAIN when the CP wrote none. */
static int fence_end_ns(struct hip_fence *f, int64_t *ns)
{
	uint64_t start, end;
	if (f->host_stamped) {
		*ns = (int64_t)kfd_gpu_ticks_to_ns(f->device->gpu, f->host_ticks);
		return 0;
	}
	if (!f->timestamped)
		return -EAGAIN;
	int err = signal_timestamps(f->sig, &start, &end);
	if (err)
		return err;
	*ns = (int64_t)kfd_gpu_ticks_to_ns(f->device->gpu, end);
	return 0;
}

hipError_t hipEventElapsedTime(float *ms, hipEvent_t start, hipEvent_t stop)
{
	if (!ms)
		HIP_RETURN(hipErrorInvalidValue);
	if (!start || !stop)
		HIP_RETURN(hipErrorInvalidHandle);
	struct hip_event *a = event_of(start), *b = event_of(stop);
	if (!a || !b || a->device != b->device)
		HIP_RETURN(hipErrorInvalidHandle);
	*ms = 0.0f;
	/* AMD's order of checks: unrecorded, then untimed, then incomplete. */
	struct hip_fence *fa = event_fence(a), *fb = event_fence(b);
	hipError_t res = hipSuccess;
	int64_t ta, tb;
	if (!fa || !fb || ((a->flags | b->flags) & hipEventDisableTiming))
		res = hipErrorInvalidHandle;
	else if (!hip_fence_done(fa) || !hip_fence_done(fb))
		res = hipErrorNotReady;
	else if (fa == fb)
		*ms = 0.0f;
	else if (fence_end_ns(fa, &ta) != 0 || fence_end_ns(fb, &tb) != 0)
		res = hipErrorNotSupported; /* the CP wrote no timestamps (profiling off) */
	else
		*ms = (float)(tb - ta) / 1e6f;
	hip_fence_put(fa);
	hip_fence_put(fb);
	HIP_RETURN(res);
}

static hipError_t stream_wait_event(hipStream_t stream, hipEvent_t event, unsigned flags)
{
	if (flags != 0 && flags != hipEventWaitExternal)
		return hipErrorInvalidValue;
	struct hip_event *e = event_lookup(event);
	if (!e)
		return hipErrorInvalidHandle;
	hipError_t ce;
	if (hip_capture_any() && hip_capture_wait_event(stream, event, flags, &ce))
		return ce;
	hipError_t herr;
	struct hip_stream *s = hip_stream_from_api(stream, &herr);
	if (!s) /* clr: any stream that fails hip::isValid, destroyed ones too, is a bad handle */
		return herr == hipErrorContextIsDestroyed ? hipErrorInvalidHandle : herr;
	struct ipc_event *ie = ipc_of(e);
	if (ie)
		return ipc_event_stream_wait(ie, stream);
	struct hip_fence *f = event_fence(e);
	if (!f || hip_fence_done(f)) {
		hip_fence_put(f);
		return hipSuccess;
	}
	if (f->device != s->device) {
		/* Another device's signal may not be mapped to this GPU: wait on the host instead. */
		int err = hip_fence_wait(f, hip_device_blocking(f->device));
		hip_fence_put(f);
		return err ? hip_gpu_error(err) : hipSuccess;
	}
	hip_stream_add_wait(s, f);
	return hipSuccess;
}

hipError_t hipStreamWaitEvent(hipStream_t stream, hipEvent_t event, unsigned int flags)
{
	HIP_RETURN(stream_wait_event(stream, event, flags));
}

hipError_t hipStreamWaitEvent_spt(hipStream_t stream, hipEvent_t event, unsigned int flags)
{
	HIP_RETURN(stream_wait_event(stream ? stream : hipStreamPerThread, event, flags));
}

/* ---- interprocess handles (clr hip_event_ipc.cpp) ---- */

hipError_t hipIpcGetEventHandle(hipIpcEventHandle_t *handle, hipEvent_t event)
{
	if (!handle || !event)
		HIP_RETURN(hipErrorInvalidValue);
	struct hip_event *e = event_of(event);
	if (!e)
		HIP_RETURN(hipErrorInvalidValue);
	/* clr: only an event created with hipEventInterprocess has a handle. */
	if (!(e->flags & hipEventInterprocess))
		HIP_RETURN(hipErrorInvalidConfiguration);
	int err;
	struct ipc_event *ie = ipc_area(e, &err);
	if (!ie)
		HIP_RETURN(hipErrorInvalidValue);
	ipc_event_handle(ie, handle);
	HIP_RETURN(hipSuccess);
}

hipError_t hipIpcOpenEventHandle(hipEvent_t *event, hipIpcEventHandle_t handle)
{
	if (!event)
		HIP_RETURN(hipErrorInvalidValue);
	struct ipc_event *ie;
	int err = ipc_event_open(&handle, &ie);
	/* clr: a handle of this very process -> hipErrorInvalidContext; one it cannot map ->
	 * hipErrorInvalidValue. clr still hands back the event it made on the way; here none is. */
	if (err == -EPERM)
		HIP_RETURN(hipErrorInvalidContext);
	if (err)
		HIP_RETURN(err == -ENOMEM ? hipErrorOutOfMemory : hipErrorInvalidValue);
	hipEvent_t h;
	hipError_t e = hipEventCreateWithFlags(&h, hipEventDisableTiming | hipEventInterprocess);
	if (e) {
		ipc_event_release(ie);
		HIP_RETURN(e);
	}
	struct hip_event *ev = (struct hip_event *)h;
	pthread_mutex_lock(&ev->lock);
	ev->ipc = ie;
	pthread_mutex_unlock(&ev->lock);
	*event = h;
	HIP_RETURN(hipSuccess);
}
