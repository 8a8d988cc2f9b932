/* hipStreamQuery and the legacy null stream's implicit synchronisation: a blocking stream waits
 * for the null stream's work before its own, so while the null stream is busy a blocking stream
 * is not ready, even with nothing queued on it; a non-blocking stream is. The null stream is held
 * busy by a host function that waits for the test to release it. */
#include <criterion/criterion.h>
#include <hip/hip_runtime_api.h>
#include <stdatomic.h>
#include <sched.h>

static atomic_int gate;

static void hold(void *arg)
{
	(void)arg;
	while (!atomic_load(&gate))
		sched_yield();
}

Test(streams_query, blocking_stream_waits_for_null_stream)
{
	hipStream_t blocking, nonblocking;
	cr_assert_eq(hipStreamCreate(&blocking), hipSuccess);
	cr_assert_eq(hipStreamCreateWithFlags(&nonblocking, hipStreamNonBlocking), hipSuccess);
	cr_assert_eq(hipStreamQuery(blocking), hipSuccess, "nothing queued anywhere yet");

	atomic_store(&gate, 0);
	cr_assert_eq(hipLaunchHostFunc(NULL, hold, NULL), hipSuccess);
	cr_expect_eq(hipStreamQuery(NULL), hipErrorNotReady);
	cr_expect_eq(hipStreamQuery(blocking), hipErrorNotReady,
	             "a blocking stream is not ready while the null stream is busy");
	cr_expect_eq(hipStreamQuery(nonblocking), hipSuccess,
	             "a non-blocking stream does not wait for the null stream");

	atomic_store(&gate, 1);
	cr_assert_eq(hipStreamSynchronize(NULL), hipSuccess);
	cr_expect_eq(hipStreamQuery(blocking), hipSuccess);
	cr_expect_eq(hipStreamQuery(NULL), hipSuccess);
	cr_assert_eq(hipStreamDestroy(blocking), hipSuccess);
	cr_assert_eq(hipStreamDestroy(nonblocking), hipSuccess);
}
