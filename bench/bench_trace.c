/* bench_trace: what the timeline trace costs an API call, measured on the observer path the
 * generated entry-point wrappers take (runtime/observe.h), around a call that does nothing.
 *   trace.observe_off     hip_observe_call_begin + end with no observer active (the floor: two
 *                         clock reads and a correlation id)
 *   trace.record          the same with the timeline recording (HIPKFD_TRACE set): the added
 *                         cost is the trace's, argument text included unless HIPKFD_TRACE_ARGS=0
 * Run with HIPKFD_TRACE=<file> HIPKFD_TRACE_START=paused (the figures need the recorder loaded
 * but idle first); white-box: links the runtime's objects, not through dlopen. */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>

#include "runtime/observe.h"

enum { BATCH = 1000 };

static int format_two(const void *args, char *buf, size_t size)
{
	const int *a = args;
	return snprintf(buf, size, "ptr=%p, size=%d", (const void *)a, a[0]);
}

static void measure(const char *name, size_t iters)
{
	struct bench_samples smp = {0};
	int args[2] = {4096, 0};
	for (size_t i = 0; i < iters; i++) {
		uint64_t t0 = bench_now_ns();
		for (int j = 0; j < BATCH; j++) {
			struct hip_api_call c = {.id = 0, .name = "hipMalloc", .args = args,
						 .format_args = format_two};
			hip_observe_call_begin(&c);
			c.result = hipSuccess;
			hip_observe_call_end(&c);
		}
		bench_samples_add(&smp, (double)(bench_now_ns() - t0) / BATCH);
	}
	bench_report(name, &smp, "ns");
}

int main(void)
{
	const char *it = getenv("HIPKFD_BENCH_ITERS");
	size_t iters = it ? (size_t)atoi(it) : 200;
	if (!getenv("HIPKFD_TRACE")) {
		bench_report_note("trace.record", "run with HIPKFD_TRACE=<file> HIPKFD_TRACE_START=paused");
		return 0;
	}
	measure("trace.observe_off", iters);
	hipProfilerStart();
	/* A ring holds 16384 records: past that the figures include wrapping, as a long run does. */
	measure("trace.record", iters);
	hipProfilerStop();
	return 0;
}
