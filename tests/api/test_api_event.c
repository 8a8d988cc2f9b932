/* Events: flags, record/query/synchronize, elapsed time and its error cases, destroy, and
 * hipStreamWaitEvent ordering between streams. */
#include <criterion/criterion.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include <hip/hip_runtime_api.h>

Test(event, create_flags)
{
	hipEvent_t e;
	const unsigned good[] = {hipEventDefault, hipEventBlockingSync, hipEventDisableTiming,
				 hipEventDisableTiming | hipEventInterprocess,
				 hipEventReleaseToDevice, hipEventReleaseToSystem};
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		cr_assert_eq(hipEventCreateWithFlags(&e, good[i]), hipSuccess, "flags %#x", good[i]);
		cr_assert_eq(hipEventDestroy(e), hipSuccess);
	}
	cr_assert_eq(hipEventCreateWithFlags(&e, hipEventInterprocess), hipErrorInvalidValue,
		     "interprocess needs DisableTiming");
	cr_assert_eq(hipEventCreateWithFlags(&e, hipEventReleaseToDevice | hipEventReleaseToSystem),
		     hipErrorInvalidValue);
	cr_assert_eq(hipEventCreateWithFlags(&e, 0x100), hipErrorInvalidValue);
	cr_assert_eq(hipEventCreateWithFlags(NULL, 0), hipErrorInvalidValue);
	cr_assert_eq(hipEventCreate(NULL), hipErrorInvalidValue);
}

Test(event, unrecorded_event)
{
	hipEvent_t a, b;
	float ms = -1;
	cr_assert_eq(hipEventCreate(&a), hipSuccess);
	cr_assert_eq(hipEventCreate(&b), hipSuccess);
	cr_assert_eq(hipEventQuery(a), hipSuccess, "never recorded counts as complete");
	cr_assert_eq(hipEventSynchronize(a), hipSuccess);
	cr_assert_eq(hipEventElapsedTime(&ms, a, b), hipErrorInvalidHandle);
	cr_assert_eq(hipEventRecord(a, NULL), hipSuccess);
	cr_assert_eq(hipEventSynchronize(a), hipSuccess);
	cr_assert_eq(hipEventElapsedTime(&ms, a, b), hipErrorInvalidHandle, "stop never recorded");
	cr_assert_eq(hipEventDestroy(a), hipSuccess);
	cr_assert_eq(hipEventDestroy(b), hipSuccess);
}

Test(event, record_and_elapsed_time)
{
	hipEvent_t start, stop;
	hipStream_t s;
	void *d = NULL;
	float ms = -1;
	cr_assert_eq(hipStreamCreate(&s), hipSuccess);
	cr_assert_eq(hipEventCreate(&start), hipSuccess);
	cr_assert_eq(hipEventCreate(&stop), hipSuccess);
	cr_assert_eq(hipMalloc(&d, 8 << 20), hipSuccess);
	cr_assert_eq(hipEventRecord(start, s), hipSuccess);
	cr_assert_eq(hipMemsetAsync(d, 1, 8 << 20, s), hipSuccess);
	cr_assert_eq(hipEventRecord(stop, s), hipSuccess);
	cr_assert_eq(hipEventSynchronize(stop), hipSuccess);
	cr_assert_eq(hipEventQuery(stop), hipSuccess);
	cr_assert_eq(hipEventQuery(start), hipSuccess);
	cr_assert_eq(hipEventElapsedTime(&ms, start, stop), hipSuccess);
	cr_assert_geq(ms, 0.0f);
	cr_assert_eq(hipEventElapsedTime(&ms, start, start), hipSuccess);
	cr_assert_eq(ms, 0.0f);
	cr_assert_eq(hipEventElapsedTime(NULL, start, stop), hipErrorInvalidValue);
	cr_assert_eq(hipEventElapsedTime(&ms, NULL, stop), hipErrorInvalidHandle);
	/* Re-recording moves the event. */
	cr_assert_eq(hipEventRecord(start, NULL), hipSuccess);
	cr_assert_eq(hipEventSynchronize(start), hipSuccess);
	cr_assert_eq(hipFree(d), hipSuccess);
	cr_assert_eq(hipEventDestroy(start), hipSuccess);
	cr_assert_eq(hipEventDestroy(stop), hipSuccess);
	cr_assert_eq(hipStreamDestroy(s), hipSuccess);
}

Test(event, disable_timing)
{
	hipEvent_t a, b;
	float ms;
	cr_assert_eq(hipEventCreateWithFlags(&a, hipEventDisableTiming), hipSuccess);
	cr_assert_eq(hipEventCreate(&b), hipSuccess);
	cr_assert_eq(hipEventRecord(a, NULL), hipSuccess);
	cr_assert_eq(hipEventRecord(b, NULL), hipSuccess);
	cr_assert_eq(hipEventSynchronize(b), hipSuccess);
	cr_assert_eq(hipEventElapsedTime(&ms, a, b), hipErrorInvalidHandle);
	cr_assert_eq(hipEventDestroy(a), hipSuccess);
	cr_assert_eq(hipEventDestroy(b), hipSuccess);
}

static _Atomic int gate;

static void wait_gate(void *arg)
{
	(void)arg;
	while (!atomic_load(&gate))
		usleep(100);
}

Test(event, not_ready_while_pending)
{
	hipStream_t s;
	hipEvent_t e, e0;
	float ms;
	cr_assert_eq(hipStreamCreate(&s), hipSuccess);
	cr_assert_eq(hipEventCreate(&e), hipSuccess);
	cr_assert_eq(hipEventCreate(&e0), hipSuccess);
	cr_assert_eq(hipEventRecord(e0, s), hipSuccess);
	atomic_store(&gate, 0);
	cr_assert_eq(hipLaunchHostFunc(s, wait_gate, NULL), hipSuccess);
	cr_assert_eq(hipEventRecord(e, s), hipSuccess);
	cr_assert_eq(hipEventQuery(e), hipErrorNotReady);
	cr_assert_eq(hipEventSynchronize(e0), hipSuccess);
	cr_assert_eq(hipEventElapsedTime(&ms, e0, e), hipErrorNotReady);
	atomic_store(&gate, 1);
	cr_assert_eq(hipEventSynchronize(e), hipSuccess);
	cr_assert_eq(hipEventQuery(e), hipSuccess);
	cr_assert_eq(hipEventElapsedTime(&ms, e0, e), hipSuccess);
	cr_assert_geq(ms, 0.0f);
	cr_assert_eq(hipEventDestroy(e), hipSuccess);
	cr_assert_eq(hipEventDestroy(e0), hipSuccess);
	cr_assert_eq(hipStreamDestroy(s), hipSuccess);
}

/* Stream B waits for an event of stream A: B's copy must not run before A's callback. */
static int *watched;
static _Atomic int seen_at_release;

static void release_late(void *arg)
{
	(void)arg;
	usleep(30000);
	atomic_store(&seen_at_release, *(volatile int *)watched);
}

Test(event, stream_wait_event_orders_streams)
{
	hipStream_t a, b;
	hipEvent_t e;
	int *h = NULL;
	void *d = NULL;
	int v = 7;
	cr_assert_eq(hipStreamCreateWithFlags(&a, hipStreamNonBlocking), hipSuccess);
	cr_assert_eq(hipStreamCreateWithFlags(&b, hipStreamNonBlocking), hipSuccess);
	cr_assert_eq(hipEventCreateWithFlags(&e, hipEventDisableTiming), hipSuccess);
	cr_assert_eq(hipHostMalloc((void **)&h, 4, 0), hipSuccess);
	cr_assert_eq(hipMalloc(&d, 4), hipSuccess);
	cr_assert_eq(hipMemcpy(d, &v, 4, hipMemcpyHostToDevice), hipSuccess);
	*h = 0;
	watched = h;
	atomic_store(&seen_at_release, -1);
	cr_assert_eq(hipLaunchHostFunc(a, release_late, NULL), hipSuccess);
	cr_assert_eq(hipEventRecord(e, a), hipSuccess);
	cr_assert_eq(hipStreamWaitEvent(b, e, 0), hipSuccess);
	cr_assert_eq(hipMemcpyAsync(h, d, 4, hipMemcpyDeviceToHost, b), hipSuccess);
	cr_assert_eq(hipStreamSynchronize(b), hipSuccess);
	cr_assert_eq(atomic_load(&seen_at_release), 0);
	cr_assert_eq(*h, 7);
	cr_assert_eq(hipStreamWaitEvent(b, e, 0x10), hipErrorInvalidValue);
	cr_assert_eq(hipStreamWaitEvent(b, NULL, 0), hipErrorInvalidHandle);
	cr_assert_eq(hipFree(d), hipSuccess);
	cr_assert_eq(hipHostFree(h), hipSuccess);
	cr_assert_eq(hipEventDestroy(e), hipSuccess);
	cr_assert_eq(hipStreamDestroy(a), hipSuccess);
	cr_assert_eq(hipStreamDestroy(b), hipSuccess);
}

Test(event, destroy_and_bad_handles)
{
	hipEvent_t e;
	int junk[32];
	memset(junk, 0, sizeof(junk));
	cr_assert_eq(hipEventCreate(&e), hipSuccess);
	cr_assert_eq(hipEventDestroy(e), hipSuccess);
	cr_assert_eq(hipEventDestroy(e), hipErrorContextIsDestroyed, "AMD's answer to a double destroy");
	cr_assert_eq(hipEventDestroy(NULL), hipErrorInvalidHandle);
	cr_assert_eq(hipEventQuery(e), hipErrorInvalidHandle);
	cr_assert_eq(hipEventQuery((hipEvent_t)junk), hipErrorInvalidHandle);
	cr_assert_eq(hipEventRecord((hipEvent_t)junk, NULL), hipErrorInvalidHandle);
	cr_assert_eq(hipEventSynchronize(NULL), hipErrorInvalidHandle);
	cr_assert_eq(hipEventRecord(NULL, NULL), hipErrorInvalidHandle);
}

Test(event, record_with_flags_and_spt)
{
	hipEvent_t e;
	cr_assert_eq(hipEventCreate(&e), hipSuccess);
	cr_assert_eq(hipEventRecordWithFlags(e, NULL, 0), hipSuccess);
	cr_assert_eq(hipEventRecordWithFlags(e, NULL, 0x40), hipErrorInvalidValue);
	cr_assert_eq(hipEventRecord_spt(e, NULL), hipSuccess);
	cr_assert_eq(hipEventSynchronize(e), hipSuccess);
	cr_assert_eq(hipEventRecord(e, hipStreamPerThread), hipSuccess);
	cr_assert_eq(hipEventSynchronize(e), hipSuccess);
	cr_assert_eq(hipEventDestroy(e), hipSuccess);
}
