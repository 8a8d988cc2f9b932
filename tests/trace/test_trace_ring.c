/* The API-call rings the trace records into (runtime/observe.h), white-box: what the generated
 * wrappers' trace-only path writes (the call, its result, its arguments raw with outputs
 * captured), per thread, and what a full ring keeps (the newest records, the rest counted lost).
 * Runs with HIPKFD_TRACE=<file> and HIPKFD_TRACE_START=paused (CMake). */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <hip/hip_runtime_api.h>

#include "runtime/observe.h"

struct seen {
	const struct hip_observe_thread *only; /* NULL: every thread */
	const char *name;                      /* NULL: every call */
	uint64_t n, first, last;
	bool contiguous, ordered, thread_elsewhere;
	uint64_t prev_end;
	char text[256];                        /* the last record's argument text */
	hipError_t result;                     /* the last record's result */
};

static void visit(const struct hip_observe_thread *t, const struct hip_api_rec *r, void *arg)
{
	struct seen *s = arg;
	if (s->only && t != s->only) {
		s->thread_elsewhere = true;
		return;
	}
	if (s->name && strcmp(r->name, s->name) != 0)
		return;
	uint64_t end = atomic_load_explicit(&r->end, memory_order_relaxed);
	if (s->n) {
		s->contiguous &= r->correlation == s->last + 1;
		s->ordered &= s->prev_end <= r->begin;
	} else {
		s->first = r->correlation;
		s->contiguous = s->ordered = true;
	}
	s->ordered &= r->begin <= end;
	s->prev_end = end;
	s->last = r->correlation;
	s->n++;
	const struct hip_gate_args *h = (const void *)(r + 1);
	s->result = h->result;
	s->text[0] = '\0';
	if (r->format_args)
		r->format_args(h, s->text, sizeof(s->text));
}

Test(api_ring, records_result_and_captured_output)
{
	int v = -1;
	cr_assert_eq(hipProfilerStart(), hipSuccess);
	cr_assert_eq(hipRuntimeGetVersion(&v), hipSuccess);
	/* A failure: the output is not shown (nothing was written). */
	cr_assert_eq(hipRuntimeGetVersion(NULL), hipErrorInvalidValue);
	cr_assert_eq(hipProfilerStop(), hipSuccess);
	cr_assert_gt(v, 0);

	struct seen s = {.only = hip_observe_self, .name = "hipRuntimeGetVersion"};
	cr_assert_not_null(s.only);
	hip_api_rings_each(visit, &s);
	cr_assert_eq(s.n, 2);
	cr_assert(s.contiguous && s.ordered);
	cr_assert_eq(s.result, hipErrorInvalidValue);
	cr_assert_str_eq(s.text, "runtimeVersion=0");
}

static void visit_first(const struct hip_observe_thread *t, const struct hip_api_rec *r, void *arg)
{
	char *text = arg;
	if (t != hip_observe_self || strcmp(r->name, "hipRuntimeGetVersion") != 0 || text[0])
		return;
	r->format_args(r + 1, text, 256);
}

Test(api_ring, output_value_is_the_one_written)
{
	int v = -1;
	cr_assert_eq(hipProfilerStart(), hipSuccess);
	cr_assert_eq(hipRuntimeGetVersion(&v), hipSuccess);
	cr_assert_eq(hipProfilerStop(), hipSuccess);
	int written = v;
	v = -2; /* changed after the call: the record keeps what the call wrote */
	char text[256] = "", want[64];
	hip_api_rings_each(visit_first, text);
	snprintf(want, sizeof(want), "->%d", written);
	cr_assert(strstr(text, want) != NULL, "%s lacks %s", text, want);
}

Test(api_ring, full_ring_keeps_the_newest)
{
	enum { CALLS = 200000 }; /* 64-byte records: about three times the ring */
	cr_assert_eq(hipProfilerStart(), hipSuccess);
	for (int i = 0; i < CALLS; i++)
		(void)hipGetLastError();
	cr_assert_eq(hipProfilerStop(), hipSuccess);

	struct seen s = {.only = hip_observe_self, .name = "hipGetLastError"};
	hip_api_rings_each(visit, &s);
	cr_assert_gt(s.n, 1000);
	cr_assert_lt(s.n, CALLS);
	cr_assert(s.contiguous, "the records kept are one run of calls");
	cr_assert(s.ordered, "each record ends before the next begins");
	cr_assert_geq(hip_api_rings_lost(), (uint64_t)(CALLS - s.n));
}

static void *other_thread(void *arg)
{
	(void)arg;
	int v;
	hipError_t e = hipRuntimeGetVersion(&v);
	return (void *)(intptr_t)e;
}

Test(api_ring, each_thread_has_its_ring)
{
	pthread_t th;
	void *ret;
	cr_assert_eq(hipProfilerStart(), hipSuccess);
	cr_assert_eq(pthread_create(&th, NULL, other_thread, NULL), 0);
	cr_assert_eq(pthread_join(th, &ret), 0);
	cr_assert_eq((hipError_t)(intptr_t)ret, hipSuccess);
	cr_assert_eq(hipProfilerStop(), hipSuccess);

	struct seen s = {.only = hip_observe_self, .name = "hipRuntimeGetVersion"};
	hip_api_rings_each(visit, &s);
	cr_assert_eq(s.n, 0, "the other thread's call is not in this thread's ring");
	cr_assert(s.thread_elsewhere);
	struct seen any = {.name = "hipRuntimeGetVersion"};
	hip_api_rings_each(visit, &any);
	cr_assert_eq(any.n, 1);
}
