/* bench_trace: what the timeline trace costs an API call, through the real exported entry points
 * (the generated wrappers of runtime/observe.h), around calls that do almost nothing:
 *   trace.<call>.off   recording paused (HIPKFD_TRACE_START=paused): the wrappers' fast path;
 *   trace.<call>.on    recording (after hipProfilerStart): the wrapper's observed path plus the
 *                      record in the thread's ring;
 * for <call> = noargs (hipGetLastError()), out (hipRuntimeGetVersion(&v): one output pointer whose
 * value is captured) and args3 (hipDeviceCanAccessPeer(&v, 0, 0): an output and two scalars).
 * trace.clock is one read of the trace's clock (hip_observe_clock). The difference on - off is
 * the whole cost of tracing a call. Run under kfdsim with HIPKFD_TRACE=<file>
 * HIPKFD_TRACE_START=paused; white-box: links the runtime's objects, not through dlopen. */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>

#include "runtime/observe.h"

enum { BATCH = 1000 };

static volatile int sink;

static void call_noargs(void)
{
	sink = hipGetLastError();
}

static void call_out(void)
{
	int v = 0;
	sink = hipRuntimeGetVersion(&v) + v;
}

static void call_args3(void)
{
	int v = 0;
	sink = hipDeviceCanAccessPeer(&v, 0, 0) + v;
}

static void measure(const char *name, void (*call)(void), size_t iters)
{
	struct bench_samples smp = {0};
	for (size_t i = 0; i < iters; i++) {
		uint64_t t0 = bench_now_ns();
		for (int j = 0; j < BATCH; j++)
			call();
		bench_samples_add(&smp, (double)(bench_now_ns() - t0) / BATCH);
	}
	bench_report(name, &smp, "ns");
}

static void measure_clock(size_t iters)
{
	struct bench_samples smp = {0};
	for (size_t i = 0; i < iters; i++) {
		uint64_t t0 = bench_now_ns(), acc = 0;
		for (int j = 0; j < BATCH; j++)
			acc += hip_observe_clock();
		sink = (int)acc;
		bench_samples_add(&smp, (double)(bench_now_ns() - t0) / BATCH);
	}
	bench_report("trace.clock", &smp, "ns");
}

static void measure_all(const char *mode, size_t iters)
{
	static const struct {
		const char *name;
		void (*call)(void);
	} calls[] = {{"noargs", call_noargs}, {"out", call_out}, {"args3", call_args3}};
	char name[64];
	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
		snprintf(name, sizeof(name), "trace.%s.%s", calls[i].name, mode);
		measure(name, calls[i].call, iters);
	}
}

int main(void)
{
	size_t iters = bench_iters(200);
	if (!getenv("HIPKFD_TRACE")) {
		bench_report_note("trace", "run with HIPKFD_TRACE=<file> HIPKFD_TRACE_START=paused");
		return 0;
	}
	if (hipSetDevice(0) != hipSuccess) {
		bench_report_note("trace", "no device (run under kfdsim)");
		return 0;
	}
	bench_table_header("timeline trace: cost per API call");
	measure_clock(iters);
	measure_all("off", iters);
	hipProfilerStart();
	/* A thread's ring holds a bounded number of records: past that the figures include
	 * wrapping, as a long run does. */
	measure_all("on", iters);
	hipProfilerStop();
	return 0;
}
