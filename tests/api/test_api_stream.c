/* Streams: creation flags and priorities, query/synchronize, destroyed handles, host callbacks in
 * order, legacy null-stream synchronisation, the per-thread default stream. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include <hip/hip_runtime_api.h>

Test(stream, create_query_destroy)
{
	hipStream_t s = NULL;
	unsigned flags = 99;
	int prio = 99, dev = -1;
	cr_assert_eq(hipStreamCreate(&s), hipSuccess);
	cr_assert_not_null(s);
	cr_assert_eq(hipStreamQuery(s), hipSuccess, "a new stream is idle");
	cr_assert_eq(hipStreamSynchronize(s), hipSuccess);
	cr_assert_eq(hipStreamGetFlags(s, &flags), hipSuccess);
	cr_assert_eq(flags, (unsigned)hipStreamDefault);
	cr_assert_eq(hipStreamGetPriority(s, &prio), hipSuccess);
	cr_assert_eq(prio, 0);
	cr_assert_eq(hipStreamGetDevice(s, &dev), hipSuccess);
	cr_assert_eq(dev, 0);
	cr_assert_eq(hipStreamDestroy(s), hipSuccess);
	/* The destroyed handle is refused, not used (clr: hipErrorContextIsDestroyed). */
	cr_assert_eq(hipStreamQuery(s), hipErrorContextIsDestroyed);
	cr_assert_eq(hipStreamSynchronize(s), hipErrorContextIsDestroyed);
	cr_assert_eq(hipStreamDestroy(s), hipErrorContextIsDestroyed);
}

Test(stream, flags_and_priorities)
{
	hipStream_t s;
	unsigned flags;
	int prio;
	cr_assert_eq(hipStreamCreateWithFlags(&s, hipStreamNonBlocking), hipSuccess);
	cr_assert_eq(hipStreamGetFlags(s, &flags), hipSuccess);
	cr_assert_eq(flags, (unsigned)hipStreamNonBlocking);
	cr_assert_eq(hipStreamDestroy(s), hipSuccess);

	cr_assert_eq(hipStreamCreateWithPriority(&s, 0, -1), hipSuccess);
	cr_assert_eq(hipStreamGetPriority(s, &prio), hipSuccess);
	cr_assert_eq(prio, -1);
	cr_assert_eq(hipStreamDestroy(s), hipSuccess);
	cr_assert_eq(hipStreamCreateWithPriority(&s, 0, -40), hipSuccess);
	cr_assert_eq(hipStreamGetPriority(s, &prio), hipSuccess);
	cr_assert_eq(prio, -1, "clamped to the greatest priority");
	cr_assert_eq(hipStreamDestroy(s), hipSuccess);
	cr_assert_eq(hipStreamCreateWithPriority(&s, 0, 40), hipSuccess);
	cr_assert_eq(hipStreamGetPriority(s, &prio), hipSuccess);
	cr_assert_eq(prio, 1, "clamped to the least priority");
	cr_assert_eq(hipStreamDestroy(s), hipSuccess);

	cr_assert_eq(hipStreamCreateWithFlags(&s, 0x80), hipErrorInvalidValue);
	cr_assert_eq(hipStreamCreate(NULL), hipErrorInvalidValue);
}

Test(stream, bad_handles)
{
	int junk[64];
	memset(junk, 0, sizeof(junk));
	hipStream_t bogus = (hipStream_t)junk;
	unsigned flags;
	cr_assert_eq(hipStreamQuery(bogus), hipErrorContextIsDestroyed);
	cr_assert_eq(hipStreamSynchronize(bogus), hipErrorContextIsDestroyed);
	cr_assert_eq(hipStreamDestroy(bogus), hipErrorContextIsDestroyed);
	cr_assert_eq(hipStreamDestroy(NULL), hipErrorInvalidHandle);
	cr_assert_eq(hipStreamDestroy(hipStreamPerThread), hipErrorInvalidResourceHandle);
	cr_assert_eq(hipStreamGetFlags(bogus, &flags), hipErrorContextIsDestroyed);
	cr_assert_eq(hipStreamGetFlags(NULL, &flags), hipErrorInvalidValue);
	cr_assert_eq(hipStreamGetFlags(hipStreamPerThread, NULL), hipErrorInvalidValue);
	/* The null stream and the per-thread stream are always usable. */
	cr_assert_eq(hipStreamQuery(NULL), hipSuccess);
	cr_assert_eq(hipStreamSynchronize(NULL), hipSuccess);
	cr_assert_eq(hipStreamQuery(hipStreamPerThread), hipSuccess);
	cr_assert_eq(hipStreamSynchronize(hipStreamPerThread), hipSuccess);
}

/* ---- callbacks ---------------------------------------------------------------------------------- */

struct order {
	_Atomic int next;
	int seen[64];
	hipStream_t stream_seen;
	hipError_t status_seen;
};

static void record_cb(hipStream_t s, hipError_t status, void *arg)
{
	struct order *o = arg;
	int i = atomic_fetch_add(&o->next, 1);
	o->seen[i] = i;
	o->stream_seen = s;
	o->status_seen = status;
}

static void host_fn(void *arg)
{
	struct order *o = arg;
	int i = atomic_fetch_add(&o->next, 1);
	o->seen[i] = 1000 + i;
}

Test(stream, callbacks_run_in_order)
{
	hipStream_t s;
	struct order o = {0};
	cr_assert_eq(hipStreamCreate(&s), hipSuccess);
	for (int i = 0; i < 20; i++) {
		if (i % 2)
			cr_assert_eq(hipLaunchHostFunc(s, host_fn, &o), hipSuccess);
		else
			cr_assert_eq(hipStreamAddCallback(s, record_cb, &o, 0), hipSuccess);
	}
	cr_assert_eq(hipStreamSynchronize(s), hipSuccess);
	cr_assert_eq(atomic_load(&o.next), 20);
	for (int i = 0; i < 20; i++)
		cr_assert_eq(o.seen[i], (i % 2) ? 1000 + i : i);
	cr_assert_eq(o.stream_seen, s);
	cr_assert_eq(o.status_seen, hipSuccess);
	cr_assert_eq(hipStreamQuery(s), hipSuccess);
	cr_assert_eq(hipStreamAddCallback(s, NULL, &o, 0), hipErrorInvalidValue);
	cr_assert_eq(hipStreamAddCallback(s, record_cb, &o, 1), hipErrorInvalidValue);
	cr_assert_eq(hipLaunchHostFunc(s, NULL, &o), hipErrorInvalidValue);
	cr_assert_eq(hipStreamDestroy(s), hipSuccess);
}

/* A callback that blocks until released: a copy queued behind it must wait (it must not have
 * landed while the callback ran), and the stream reports hipErrorNotReady meanwhile. */
static _Atomic int gate;
static int *gate_watch;
static _Atomic int watch_at_callback_end;

static void gate_cb(void *arg)
{
	(void)arg;
	while (!atomic_load(&gate))
		usleep(100);
	atomic_store(&watch_at_callback_end, *(volatile int *)gate_watch);
}

static void *release_gate(void *arg)
{
	(void)arg;
	usleep(20000);
	atomic_store(&gate, 1);
	return NULL;
}

Test(stream, work_waits_for_callback)
{
	hipStream_t s;
	int *h = NULL;
	void *d = NULL;
	cr_assert_eq(hipStreamCreate(&s), hipSuccess);
	cr_assert_eq(hipHostMalloc((void **)&h, 4, 0), hipSuccess);
	cr_assert_eq(hipMalloc(&d, 4), hipSuccess);
	*h = 0;
	gate_watch = h;
	int one = 1;
	cr_assert_eq(hipMemcpy(d, &one, 4, hipMemcpyHostToDevice), hipSuccess);
	atomic_store(&gate, 0);
	atomic_store(&watch_at_callback_end, -1);
	cr_assert_eq(hipLaunchHostFunc(s, gate_cb, NULL), hipSuccess);
	cr_assert_eq(hipStreamQuery(s), hipErrorNotReady);
	pthread_t t;
	pthread_create(&t, NULL, release_gate, NULL);
	cr_assert_eq(hipMemcpyAsync(h, d, 4, hipMemcpyDeviceToHost, s), hipSuccess);
	cr_assert_eq(hipStreamSynchronize(s), hipSuccess);
	pthread_join(t, NULL);
	cr_assert_eq(atomic_load(&watch_at_callback_end), 0, "the copy ran after the callback");
	cr_assert_eq(*h, 1);
	cr_assert_eq(hipStreamQuery(s), hipSuccess);
	cr_assert_eq(hipFree(d), hipSuccess);
	cr_assert_eq(hipHostFree(h), hipSuccess);
	cr_assert_eq(hipStreamDestroy(s), hipSuccess);
}

/* Legacy default stream: work on the null stream waits for blocking streams, not for
 * non-blocking ones. */
static _Atomic int ran;

static void slow_cb(void *arg)
{
	(void)arg;
	usleep(50000);
	atomic_store(&ran, 1);
}

Test(stream, null_stream_waits_for_blocking_streams)
{
	hipStream_t s;
	cr_assert_eq(hipStreamCreate(&s), hipSuccess);
	atomic_store(&ran, 0);
	cr_assert_eq(hipLaunchHostFunc(s, slow_cb, NULL), hipSuccess);
	cr_assert_eq(hipStreamSynchronize(NULL), hipSuccess);
	cr_assert_eq(atomic_load(&ran), 1, "the null stream synchronised with the blocking stream");
	cr_assert_eq(hipStreamDestroy(s), hipSuccess);
}

Test(stream, destroy_waits_for_work)
{
	hipStream_t s;
	cr_assert_eq(hipStreamCreate(&s), hipSuccess);
	atomic_store(&ran, 0);
	cr_assert_eq(hipLaunchHostFunc(s, slow_cb, NULL), hipSuccess);
	cr_assert_eq(hipStreamDestroy(s), hipSuccess);
	cr_assert_eq(atomic_load(&ran), 1);
}

/* Per-thread default streams are distinct between threads and usable from each. */
static void *pts_thread(void *arg)
{
	int *ok = arg;
	void *d = NULL;
	int v = 42, back = 0;
	*ok = hipMalloc(&d, 4) == hipSuccess &&
	      hipMemcpyAsync(d, &v, 4, hipMemcpyHostToDevice, hipStreamPerThread) == hipSuccess &&
	      hipMemcpyAsync(&back, d, 4, hipMemcpyDeviceToHost, hipStreamPerThread) == hipSuccess &&
	      hipStreamSynchronize(hipStreamPerThread) == hipSuccess && back == 42 &&
	      hipFree(d) == hipSuccess;
	return NULL;
}

Test(stream, per_thread_default_stream)
{
	pthread_t t[4];
	int ok[4] = {0};
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, pts_thread, &ok[i]);
	for (int i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		cr_assert_eq(ok[i], 1, "thread %d", i);
	}
	unsigned flags = 99;
	cr_assert_eq(hipStreamGetFlags(hipStreamPerThread, &flags), hipSuccess);
	cr_assert_eq(flags, 0u);
	cr_assert_eq(hipStreamSynchronize_spt(NULL), hipSuccess);
	cr_assert_eq(hipStreamQuery_spt(NULL), hipSuccess);
}

Test(stream, many_streams)
{
	hipStream_t s[32];
	for (int i = 0; i < 32; i++)
		cr_assert_eq(hipStreamCreate(&s[i]), hipSuccess);
	for (int i = 0; i < 32; i++)
		cr_assert_eq(hipStreamDestroy(s[i]), hipSuccess);
}

/* HIP calls from inside a callback: a synchronous copy on the null stream (which synchronises
 * with the callback's own blocking stream) and a device-wide synchronize must not deadlock. */
struct inner {
	void *d;
	int value;
	hipError_t copy, sync, query;
};

static void calls_hip(void *arg)
{
	struct inner *in = arg;
	int v = 99;
	in->copy = hipMemcpy(in->d, &v, 4, hipMemcpyHostToDevice);
	in->sync = hipDeviceSynchronize();
	in->query = hipStreamQuery(NULL);
	hipMemcpy(&in->value, in->d, 4, hipMemcpyDeviceToHost);
}

Test(stream, callback_may_call_hip)
{
	hipStream_t s;
	struct inner in = {.copy = hipErrorUnknown, .sync = hipErrorUnknown};
	cr_assert_eq(hipStreamCreate(&s), hipSuccess);
	cr_assert_eq(hipMalloc(&in.d, 4), hipSuccess);
	cr_assert_eq(hipLaunchHostFunc(s, calls_hip, &in), hipSuccess);
	cr_assert_eq(hipStreamSynchronize(s), hipSuccess);
	cr_assert_eq(in.copy, hipSuccess);
	cr_assert_eq(in.sync, hipSuccess);
	cr_assert_eq(in.value, 99);
	cr_assert_eq(hipFree(in.d), hipSuccess);
	cr_assert_eq(hipStreamDestroy(s), hipSuccess);
}

/* A callback may destroy its own stream (the runtime must neither self-join nor free the worker
 * under its feet). */
static _Atomic int destroyed_result = -1;

static void destroy_own_stream(hipStream_t s, hipError_t status, void *arg)
{
	(void)status;
	(void)arg;
	atomic_store(&destroyed_result, (int)hipStreamDestroy(s));
}

Test(stream, callback_destroys_its_stream)
{
	hipStream_t s;
	cr_assert_eq(hipStreamCreate(&s), hipSuccess);
	cr_assert_eq(hipStreamAddCallback(s, destroy_own_stream, NULL, 0), hipSuccess);
	for (int i = 0; i < 2000 && atomic_load(&destroyed_result) == -1; i++)
		usleep(1000);
	cr_assert_eq(atomic_load(&destroyed_result), (int)hipSuccess);
	cr_assert_eq(hipStreamQuery(s), hipErrorContextIsDestroyed);
	/* The runtime still works: a new stream with callbacks. */
	struct order o = {0};
	cr_assert_eq(hipStreamCreate(&s), hipSuccess);
	cr_assert_eq(hipStreamAddCallback(s, record_cb, &o, 0), hipSuccess);
	cr_assert_eq(hipStreamSynchronize(s), hipSuccess);
	cr_assert_eq(atomic_load(&o.next), 1);
	cr_assert_eq(hipStreamDestroy(s), hipSuccess);
}

/* The legacy null stream is not idle while a blocking stream has work (it would wait for it);
 * a non-blocking stream's work does not count (clr). */
Test(stream, null_stream_query_sees_blocking_streams)
{
	uint32_t *flag;
	cr_assert_eq(hipHostMalloc((void **)&flag, sizeof(*flag), 0), hipSuccess);
	*flag = 0;
	hipStream_t blocking, nonblocking;
	cr_assert_eq(hipStreamCreate(&blocking), hipSuccess);
	cr_assert_eq(hipStreamCreateWithFlags(&nonblocking, hipStreamNonBlocking), hipSuccess);
	cr_assert_eq(hipStreamSynchronize(NULL), hipSuccess);
	cr_assert_eq(hipStreamWaitValue32(nonblocking, flag, 1, hipStreamWaitValueEq, 0xffffffffu), hipSuccess);
	cr_assert_eq(hipStreamQuery(NULL), hipSuccess, "a non-blocking stream's work does not count");
	cr_assert_eq(hipStreamWaitValue32(blocking, flag, 1, hipStreamWaitValueEq, 0xffffffffu), hipSuccess);
	cr_assert_eq(hipStreamQuery(blocking), hipErrorNotReady);
	cr_assert_eq(hipStreamQuery(NULL), hipErrorNotReady);
	__atomic_store_n(flag, 1, __ATOMIC_RELEASE);
	cr_assert_eq(hipStreamSynchronize(blocking), hipSuccess);
	cr_assert_eq(hipStreamSynchronize(nonblocking), hipSuccess);
	cr_assert_eq(hipStreamQuery(NULL), hipSuccess);
	cr_assert_eq(hipStreamDestroy(blocking), hipSuccess);
	cr_assert_eq(hipStreamDestroy(nonblocking), hipSuccess);
	cr_assert_eq(hipHostFree(flag), hipSuccess);
}
