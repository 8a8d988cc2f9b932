/* hipkfd: the timeline trace and the roctracer-era callbacks (private to src/trace).
 *
 * Three parts:
 *  - rings (ring.c): one ring of device-work records per host thread, appended to without a lock
 *    and read when the trace file is written (API calls have their own rings, runtime/observe.h:
 *    the generated wrappers write them);
 *  - activity (activity.c): the runtime's activity hook (runtime/activity.h). It gives each
 *    kernel a completion signal, keeps the kernels and SDMA transfers in flight on a pending list
 *    that one reaper thread retires in order, and hands every finished piece of work to the
 *    consumers that want it: the timeline (a record in a ring) and the roctracer activity
 *    callback (roctracer.c);
 *  - the timeline (timeline.c: HIPKFD_TRACE, hipProfilerStart/Stop, the API-call observer;
 *    json.c writes the Chrome/Perfetto file).
 */
#ifndef HIPKFD_TRACE_TRACE_H
#define HIPKFD_TRACE_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../runtime/activity.h"

enum trace_kind {
	TRACE_KERNEL, /* one kernel on a stream */
	TRACE_COPY,   /* one copy on a stream */
	TRACE_FILL,   /* one fill on a stream */
};

/* One piece of device work on the timeline. Times are CLOCK_MONOTONIC ns. */
struct trace_rec {
	uint8_t kind;          /* enum trace_kind */
	uint8_t engine;        /* copies, fills: enum hip_activity_engine */
	bool dst_device, src_device;
	uint32_t tid;          /* the launching thread */
	int32_t device;        /* the ordinal */
	uint32_t track;        /* the stream's track number (trace_stream_track) */
	bool null_stream;      /* the track is a device's null stream */
	uint64_t correlation;  /* the launching call's correlation id (0: none) */
	uint64_t begin_ns, end_ns;
	uint64_t issue_ns;     /* kernel: when the launch published it (the flow arrow's start) */
	const char *name;      /* kernel: an interned copy of its name */
	union {
		struct {
			uint32_t grid[3];  /* blocks */
			uint16_t block[3];
			uint32_t lds;      /* static + dynamic LDS bytes */
		} k;
		uint64_t bytes;            /* copies, fills */
	} u;
};

/* ---- ring.c ---------------------------------------------------------------------------------- */

/* A free record of the calling thread's ring (its ring is made on first use), or NULL when no
 * memory. The record becomes visible to readers at trace_ring_commit; the thread's next append
 * may reuse it if it is not committed. When the ring is full, the oldest record is overwritten. */
struct trace_rec *trace_ring_append(void);
void trace_ring_commit(void);
/* Calls [in] fn for every committed record of every ring (the oldest of each ring first). */
void trace_rings_each(void (*fn)(const struct trace_rec *r, void *arg), void *arg);
/* Records overwritten because a ring was full, over all rings. */
uint64_t trace_rings_lost(void);
/* The calling thread's id (gettid), cached. */
uint32_t trace_thread_id(void);

/* ---- activity.c ------------------------------------------------------------------------------ */

/* Who wants finished device work (a bit set). */
enum trace_consumer {
	TRACE_CONSUMER_TIMELINE = 1u << 0,
	TRACE_CONSUMER_CALLBACK = 1u << 1,
};

/* Add or remove a consumer; the runtime's activity hook is installed while any is set. */
void trace_activity_consumer(enum trace_consumer c, bool on);
/* Wait until the reaper has retired the work that finished in issue order (the list up to its
 * first unfinished entry): hipProfilerStop after a synchronize writes every kernel it waited for. */
void trace_activity_flush(void);
/* Stop the reaper (waiting for nothing more than the work already finished) and retire what is
 * finished: at exit, before the file is written. */
void trace_activity_shutdown(void);
/* The track number of [in] s (1, 2, ... in order of first use; its kind in *null). */
uint32_t trace_stream_track(const struct hip_stream *s, bool *is_null);
/* An interned copy of [in] name, valid for good (NULL when no memory). */
const char *trace_intern(const char *name);

/* A finished piece of device work, as the consumers get it. */
struct trace_work {
	enum trace_kind kind;
	const struct hip_activity_transfer *transfer; /* copies and fills */
	const char *name;      /* kernels: interned */
	uint32_t grid[3];
	uint16_t block[3];
	uint32_t lds;
	int device;
	uint32_t track;
	bool null_stream;
	uint32_t tid;          /* launching thread */
	uint64_t correlation;  /* the API call's correlation id (0: none) */
	uint64_t record_id;    /* the activity record's correlation id (roctracer.c) */
	uint64_t issue_ns, begin_ns, end_ns;
	unsigned consumers;    /* enum trace_consumer bits wanted when it was issued */
};

/* ---- timeline.c ------------------------------------------------------------------------------ */

void trace_timeline_work(const struct trace_work *w);

/* ---- roctracer.c ----------------------------------------------------------------------------- */

/* A new activity record id for a kernel or transfer issued now, on the issuing thread (the
 * id callback of hipInitActivityCallback runs here, as rocclr calls it at command creation);
 * 0 when activity callbacks are off for [in] kind's operation. */
uint64_t trace_callback_issue(enum trace_kind kind);
void trace_callback_work(const struct trace_work *w);

/* ---- json.c ---------------------------------------------------------------------------------- */

/* Write every record of the rings (the API calls' and the device work's) to [in] f as a Chrome
 * trace-event JSON object; [in] base_ns is the time shown as 0; [in] with_args: the API calls'
 * argument text. Returns 0 or -errno. */
int trace_json_write(FILE *f, uint64_t base_ns, bool with_args);

#endif
