/* hipkfd: the timeline as a Chrome trace-event JSON file (the format chrome://tracing and
 * Perfetto's UI open): one object with a "traceEvents" array of
 *   "X" complete events: API calls on their host thread's track; kernels, copies and fills on the
 *       tracks of their stream (pid: one per GPU, tid: two per stream, kernels then transfers);
 *   "s"/"f" flow events: an arrow from each launch call to its kernel (id: the correlation id);
 *   "M" metadata: process and thread names.
 * Times are microseconds from the start of recording, written from integer ns (three decimals),
 * so spans that touch in ns still touch in the file. API calls were recorded raw (clock ticks and
 * a copy of the wrapper's argument struct, runtime/observe.h): their times are converted and their
 * arguments formatted here. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hip/hip_runtime_api.h>

#include "../runtime/observe.h"
#include "trace.h"

#define GPU_PID_BASE 1000000000 /* GPU d is process GPU_PID_BASE + d in the file */

struct json_ctx {
	FILE *f;
	uint64_t base_ns;
	int pid;
	bool first;            /* no event written yet (no comma before the next) */
	bool with_args;        /* API calls' argument text */
	struct hip_clock_map clock; /* API calls' ticks -> CLOCK_MONOTONIC ns */
	uint64_t *tids;        /* host threads seen */
	size_t ntids, cap_tids;
	uint64_t *tracks;      /* (device << 33 | null << 32 | track) of device work seen */
	size_t ntracks, cap_tracks;
	bool oom;
};

static void put_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* [in] ns as microseconds from the base, exactly (ns resolution). */
static void put_time(FILE *f, uint64_t ns, uint64_t base)
{
	uint64_t d = ns >= base ? ns - base : base - ns;
	fprintf(f, "%s%" PRIu64 ".%03" PRIu64, ns >= base ? "" : "-", d / 1000, d % 1000);
}

static void put_dur(FILE *f, uint64_t b, uint64_t e)
{
	uint64_t d = e > b ? e - b : 0;
	fprintf(f, "%" PRIu64 ".%03" PRIu64, d / 1000, d % 1000);
}

static void event_start(struct json_ctx *c)
{
	fputs(c->first ? "\n" : ",\n", c->f);
	c->first = false;
}

static bool remember(uint64_t **set, size_t *n, size_t *cap, uint64_t v)
{
	for (size_t i = 0; i < *n; i++)
		if ((*set)[i] == v)
			return true;
	if (*n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 16;
		uint64_t *p = realloc(*set, ncap * sizeof(*p));
		if (!p)
			return false;
		*set = p, *cap = ncap;
	}
	(*set)[(*n)++] = v;
	return true;
}

static void collect(const struct trace_rec *r, void *arg)
{
	struct json_ctx *c = arg;
	uint64_t key = (uint64_t)(uint32_t)r->device << 33 | (uint64_t)r->null_stream << 32 | r->track;
	if (!remember(&c->tracks, &c->ntracks, &c->cap_tracks, key))
		c->oom = true;
}

static void collect_api(const struct hip_observe_thread *t, const struct hip_api_rec *r, void *arg)
{
	(void)r;
	struct json_ctx *c = arg;
	if (!remember(&c->tids, &c->ntids, &c->cap_tids, t->tid))
		c->oom = true;
}

static void put_meta(struct json_ctx *c, const char *what, int pid, int64_t tid, const char *name)
{
	event_start(c);
	fprintf(c->f, "{\"ph\":\"M\",\"name\":\"%s\",\"pid\":%d", what, pid);
	if (tid >= 0)
		fprintf(c->f, ",\"tid\":%" PRId64, tid);
	fputs(",\"args\":{\"name\":", c->f);
	put_string(c->f, name);
	fputs("}}", c->f);
}

static void put_sort(struct json_ctx *c, int pid, int64_t tid, int64_t index)
{
	event_start(c);
	if (tid < 0)
		fprintf(c->f, "{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":%d,"
			      "\"args\":{\"sort_index\":%" PRId64 "}}", pid, index);
	else
		fprintf(c->f, "{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":%d,\"tid\":%" PRId64
			      ",\"args\":{\"sort_index\":%" PRId64 "}}", pid, tid, index);
}

static void put_metadata(struct json_ctx *c)
{
	char name[96];
	snprintf(name, sizeof(name), "host (pid %d)", c->pid);
	put_meta(c, "process_name", c->pid, -1, name);
	put_sort(c, c->pid, -1, 0);
	for (size_t i = 0; i < c->ntids; i++) {
		if (c->tids[i] == (uint32_t)c->pid)
			snprintf(name, sizeof(name), "main thread");
		else
			snprintf(name, sizeof(name), "thread %" PRIu64, c->tids[i]);
		put_meta(c, "thread_name", c->pid, (int64_t)c->tids[i], name);
	}
	int64_t devices_named[64] = {0};
	for (size_t i = 0; i < c->ntracks; i++) {
		int device = (int)(c->tracks[i] >> 33);
		bool null = (c->tracks[i] >> 32) & 1;
		uint32_t track = (uint32_t)c->tracks[i];
		int pid = GPU_PID_BASE + device;
		if (device >= 0 && device < 64 && !devices_named[device]) {
			devices_named[device] = 1;
			snprintf(name, sizeof(name), "GPU %d", device);
			put_meta(c, "process_name", pid, -1, name);
			put_sort(c, pid, -1, 1 + device);
		}
		if (null)
			snprintf(name, sizeof(name), "null stream");
		else
			snprintf(name, sizeof(name), "stream %u", track);
		put_meta(c, "thread_name", pid, 2 * (int64_t)track, name);
		put_sort(c, pid, 2 * (int64_t)track, 2 * (int64_t)track);
		strncat(name, ": copies, fills", sizeof(name) - strlen(name) - 1);
		put_meta(c, "thread_name", pid, 2 * (int64_t)track + 1, name);
		put_sort(c, pid, 2 * (int64_t)track + 1, 2 * (int64_t)track + 1);
	}
}

static void put_span(struct json_ctx *c, const char *name, const char *cat, int pid, int64_t tid,
		     uint64_t b, uint64_t e)
{
	event_start(c);
	fputs("{\"ph\":\"X\",\"name\":", c->f);
	put_string(c->f, name);
	fprintf(c->f, ",\"cat\":\"%s\",\"pid\":%d,\"tid\":%" PRId64 ",\"ts\":", cat, pid, tid);
	put_time(c->f, b, c->base_ns);
	fputs(",\"dur\":", c->f);
	put_dur(c->f, b, e);
}

static void put_api(const struct hip_observe_thread *t, const struct hip_api_rec *r, void *arg)
{
	struct json_ctx *c = arg;
	/* The call's struct starts with the gate's head: its result (runtime/observe.h). */
	const struct hip_gate_args *h = (const void *)(r + 1);
	bool has_args = r->size >= sizeof(*r) + sizeof(*h);
	char text[512] = "";
	if (c->with_args && has_args && r->format_args)
		r->format_args(h, text, sizeof(text));
	uint64_t end = atomic_load_explicit(&r->end, memory_order_relaxed);
	put_span(c, r->name, "api", c->pid, t->tid, hip_clock_map_ns(&c->clock, r->begin),
		 hip_clock_map_ns(&c->clock, end));
	fputs(",\"args\":{\"args\":", c->f);
	put_string(c->f, text);
	fputs(",\"result\":", c->f);
	put_string(c->f, has_args ? hipGetErrorName(h->result) : "?");
	fprintf(c->f, ",\"correlation_id\":%" PRIu64 "}}", r->correlation);
}

static void put_kernel(struct json_ctx *c, const struct trace_rec *r)
{
	int pid = GPU_PID_BASE + r->device;
	int64_t tid = 2 * (int64_t)r->track;
	put_span(c, r->name ? r->name : "kernel", "kernel", pid, tid, r->begin_ns, r->end_ns);
	fprintf(c->f, ",\"args\":{\"grid\":\"(%u,%u,%u)\",\"block\":\"(%u,%u,%u)\",\"lds\":%u,"
		      "\"device\":%d,\"correlation_id\":%" PRIu64 "}}",
		r->u.k.grid[0], r->u.k.grid[1], r->u.k.grid[2], r->u.k.block[0], r->u.k.block[1],
		r->u.k.block[2], r->u.k.lds, r->device, r->correlation);
	if (!r->correlation)
		return;
	/* The arrow: from inside the launch call (when it published the packet) to the kernel. */
	event_start(c);
	fprintf(c->f, "{\"ph\":\"s\",\"name\":\"launch\",\"cat\":\"launch\",\"id\":%" PRIu64
		      ",\"pid\":%d,\"tid\":%u,\"ts\":", r->correlation, c->pid, r->tid);
	put_time(c->f, r->issue_ns, c->base_ns);
	fputs("}", c->f);
	event_start(c);
	fprintf(c->f, "{\"ph\":\"f\",\"bp\":\"e\",\"name\":\"launch\",\"cat\":\"launch\",\"id\":%" PRIu64
		      ",\"pid\":%d,\"tid\":%" PRId64 ",\"ts\":", r->correlation, pid, tid);
	put_time(c->f, r->begin_ns, c->base_ns);
	fputs("}", c->f);
}

static const char *direction(const struct trace_rec *r)
{
	if (r->kind == TRACE_FILL)
		return r->dst_device ? "D" : "H";
	return r->src_device ? (r->dst_device ? "DtoD" : "DtoH") : (r->dst_device ? "HtoD" : "HtoH");
}

static void put_transfer(struct json_ctx *c, const struct trace_rec *r)
{
	char name[32];
	const char *dir = direction(r);
	snprintf(name, sizeof(name), "%s%s", r->kind == TRACE_FILL ? "Memset" : "Memcpy", dir);
	put_span(c, name, r->kind == TRACE_FILL ? "fill" : "copy", GPU_PID_BASE + r->device,
		 2 * (int64_t)r->track + 1, r->begin_ns, r->end_ns);
	fprintf(c->f, ",\"args\":{\"bytes\":%" PRIu64 ",\"direction\":\"%s\",\"engine\":\"%s\","
		      "\"correlation_id\":%" PRIu64 "}}",
		r->u.bytes, dir, r->engine == HIP_ACTIVITY_ENGINE_SDMA ? "SDMA" : "CPU",
		r->correlation);
}

static void put_event(const struct trace_rec *r, void *arg)
{
	struct json_ctx *c = arg;
	switch (r->kind) {
	case TRACE_KERNEL:
		put_kernel(c, r);
		break;
	default:
		put_transfer(c, r);
		break;
	}
}

int trace_json_write(FILE *f, uint64_t base_ns, bool with_args)
{
	struct json_ctx c = {.f = f, .base_ns = base_ns, .pid = (int)getpid(), .first = true,
			     .with_args = with_args};
	hip_observe_clock_map(&c.clock);
	trace_rings_each(collect, &c);
	hip_api_rings_each(collect_api, &c);
	fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", f);
	put_metadata(&c);
	hip_api_rings_each(put_api, &c);
	trace_rings_each(put_event, &c);
	fprintf(f, "\n],\"otherData\":{\"producer\":\"hipkfd\",\"records_lost\":%" PRIu64 "}}\n",
		trace_rings_lost() + hip_api_rings_lost());
	free(c.tids);
	free(c.tracks);
	if (c.oom)
		return -ENOMEM;
	return ferror(f) ? -EIO : 0;
}
