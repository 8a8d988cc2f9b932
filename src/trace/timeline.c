/* hipkfd: the timeline trace (HIPKFD_TRACE) and hipProfilerStart/Stop.
 *
 * Settings, read once when the library is loaded:
 *   HIPKFD_TRACE=out.json      record, and write a Chrome/Perfetto trace-event file at exit and at
 *                              every hipProfilerStop;
 *   HIPKFD_TRACE_START=paused  record nothing until the program calls hipProfilerStart;
 *   HIPKFD_TRACE_ARGS=0        write each API call's name, result and times but not its argument
 *                              text (the arguments are recorded either way: raw, they cost no
 *                              more than the copy; only the file is shorter).
 *
 * While recording (bit HIP_OBSERVE_TRACE of hip_observe_flags), each API call is recorded into its
 * thread's API ring (runtime/observe.h): by the entry point's wrapper itself when the trace is the
 * only observer, which copies the arguments raw and reads the TSC twice, and otherwise by the
 * observer below at the call's end. The activity recorder (activity.c) writes one record per
 * kernel, copy and fill once it finished. Arguments become text, and ticks CLOCK_MONOTONIC ns, when
 * the file is written. Without HIPKFD_TRACE nothing is registered: the entry points' observer
 * test and the activity hook both stay off. */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../runtime/error.h"
#include "../runtime/observe.h"
#include "trace.h"

static char trace_path[PATH_MAX]; /* "" when HIPKFD_TRACE is unset; set once at load */
static bool record_args = true;   /* the file shows arguments; set once at load */
static pthread_mutex_t timeline_lock = PTHREAD_MUTEX_INITIALIZER;
static bool recording;            /* timeline_lock */
static uint64_t base_ns;          /* timeline_lock: when recording first started (time 0) */

/* ---- recording -------------------------------------------------------------------------------- */

/* The observer, for calls that take the gate's general path (another observer is on, or the
 * error is sticky, or a call serializes): the same record as the wrappers' trace-only path
 * writes, from the call's own struct. Runs after the call's end was stamped (observe.c). */
static void api_end(struct hip_api_call *call)
{
	uint32_t size = call->args_size <= HIP_API_ARGS_MAX ? call->args_size : 0;
	uint32_t len = (uint32_t)(sizeof(struct hip_api_rec) + size + 7) & ~7u;
	struct hip_observe_thread *t = hip_observe_self;
	struct hip_api_rec *r = hip_api_ring_reserve(&t, len);
	if (!r)
		return;
	r->id = call->id;
	r->correlation = call->correlation_id;
	r->begin = call->begin;
	r->name = call->name;
	r->format_args = size ? call->format_args : NULL;
	memcpy(r + 1, call->args, size);
	atomic_store_explicit(&r->end, call->end, memory_order_release);
}

static const struct hip_api_observer timeline_observer = {.begin = NULL, .end = api_end};

void trace_timeline_work(const struct trace_work *w)
{
	struct trace_rec *r = trace_ring_append();
	if (!r)
		return;
	r->kind = (uint8_t)w->kind;
	r->tid = w->tid;
	r->device = w->device;
	r->track = w->track;
	r->null_stream = w->null_stream;
	r->correlation = w->correlation;
	r->begin_ns = w->begin_ns;
	r->end_ns = w->end_ns;
	r->issue_ns = w->issue_ns;
	r->name = w->name;
	if (w->kind == TRACE_KERNEL) {
		memcpy(r->u.k.grid, w->grid, sizeof(w->grid));
		memcpy(r->u.k.block, w->block, sizeof(w->block));
		r->u.k.lds = w->lds;
	} else {
		r->engine = (uint8_t)w->transfer->engine;
		r->dst_device = w->transfer->dst_device;
		r->src_device = w->transfer->src_device;
		r->u.bytes = w->transfer->bytes;
	}
	trace_ring_commit();
}

/* ---- the file --------------------------------------------------------------------------------- */

/* Write everything recorded so far (timeline_lock held). Returns 0 or -errno. */
static int timeline_write(void)
{
	FILE *f = fopen(trace_path, "w");
	if (!f)
		return -errno;
	int err = trace_json_write(f, base_ns, record_args);
	if (fclose(f) != 0 && !err)
		err = -errno;
	return err;
}

/* ---- start and stop --------------------------------------------------------------------------- */

static void timeline_start_locked(void)
{
	if (recording)
		return;
	if (!base_ns)
		base_ns = hip_activity_now();
	hip_observe_register(HIP_OBSERVE_TRACE, &timeline_observer);
	hip_observe_enable(HIP_OBSERVE_TRACE, 1);
	trace_activity_consumer(TRACE_CONSUMER_TIMELINE, true);
	recording = true;
}

static void timeline_stop_locked(void)
{
	if (!recording)
		return;
	hip_observe_enable(HIP_OBSERVE_TRACE, 0);
	trace_activity_consumer(TRACE_CONSUMER_TIMELINE, false);
	recording = false;
}

/* At exit: stop, let the reaper retire what finished, write the file. Registered from the
 * library's constructor, so it runs after the program's own exit handlers (the compiler's
 * __hipUnregisterFatBinary among them: kernel names were copied, see trace_intern). */
static void timeline_exit(void)
{
	pthread_mutex_lock(&timeline_lock);
	timeline_stop_locked();
	trace_activity_shutdown();
	/* Never started (HIPKFD_TRACE_START=paused and no hipProfilerStart): no file. */
	int err = base_ns ? timeline_write() : 0;
	if (err)
		fprintf(stderr, "hipkfd: HIPKFD_TRACE: cannot write %s: %s\n", trace_path,
			strerror(-err));
	pthread_mutex_unlock(&timeline_lock);
}

__attribute__((constructor)) static void timeline_init(void)
{
	const char *path = getenv("HIPKFD_TRACE");
	if (!path || !*path || strlen(path) >= sizeof(trace_path))
		return;
	strcpy(trace_path, path);
	const char *args = getenv("HIPKFD_TRACE_ARGS");
	record_args = !(args && strcmp(args, "0") == 0);
	const char *start = getenv("HIPKFD_TRACE_START");
	bool paused = start && strcmp(start, "paused") == 0;
	atexit(timeline_exit);
	if (!paused) {
		pthread_mutex_lock(&timeline_lock);
		timeline_start_locked();
		pthread_mutex_unlock(&timeline_lock);
	}
}

/* clr without a profiler attached: both succeed and do nothing. With HIPKFD_TRACE set they
 * bracket the recording; every hipProfilerStop writes the file with all recorded so far (kernels
 * still running then appear in the file written at exit). */
hipError_t hipProfilerStart(void)
{
	if (trace_path[0]) {
		pthread_mutex_lock(&timeline_lock);
		timeline_start_locked();
		pthread_mutex_unlock(&timeline_lock);
	}
	HIP_RETURN(hipSuccess);
}

hipError_t hipProfilerStop(void)
{
	int err = 0;
	if (trace_path[0]) {
		pthread_mutex_lock(&timeline_lock);
		timeline_stop_locked();
		trace_activity_flush();
		err = timeline_write();
		pthread_mutex_unlock(&timeline_lock);
	}
	/* The recording stopped either way; a file that cannot be written is the caller's to know. */
	HIP_RETURN(err ? hipErrorUnknown : hipSuccess);
}
