/* Work on execution contexts: kernels on green-context streams compute the right values, and a
 * context's synchronize, event record and event wait cover the context's streams (the primary
 * context: the whole device). Outputs are pinned host memory read by the CPU once the call under
 * test says the work is done, so a call that returned early shows as wrong values. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include <hip/hip_runtime_api.h>

#define HIP_OK(expr) cr_assert_eq((expr), hipSuccess, "%s", #expr)

#define N 1024
#define BLOCK 256
/* Rounds of the producer's loop: long enough that an unordered consumer would overtake it. */
#define SLOW 20000

static hipModule_t module;
static hipFunction_t produce, consume;

static void setup(void)
{
	HIP_OK(hipSetDevice(0));
	HIP_OK(hipModuleLoad(&module, GREENCTX_KERNELS));
	HIP_OK(hipModuleGetFunction(&produce, module, "produce"));
	HIP_OK(hipModuleGetFunction(&consume, module, "consume"));
}

static void teardown(void)
{
	if (module)
		hipModuleUnload(module);
}

TestSuite(greenctx, .init = setup, .fini = teardown);

static hipExecutionCtx_t green_of(unsigned first_group, unsigned groups, unsigned size)
{
	hipDevResource dev, g[8];
	HIP_OK(hipDeviceGetDevResource(0, &dev, hipDevResourceTypeSm));
	unsigned n = 8;
	HIP_OK(hipDevSmResourceSplitByCount(g, &n, &dev, NULL, 0, size));
	cr_assert_geq(n, first_group + groups);
	hipDevResourceDesc_t d;
	hipExecutionCtx_t c;
	HIP_OK(hipDevResourceGenerateDesc(&d, &g[first_group], groups));
	HIP_OK(hipGreenCtxCreate(&c, d, 0, 0));
	return c;
}

static void launch_produce(hipStream_t s, int *out, int rounds)
{
	int n = N;
	unsigned zero = 0;
	void *args[] = {&out, &n, &rounds, &zero};
	HIP_OK(hipModuleLaunchKernel(produce, N / BLOCK, 1, 1, BLOCK, 1, 1, 0, s, args, NULL));
}

static void launch_consume(hipStream_t s, int *out, const int *in)
{
	int n = N;
	void *args[] = {&out, &in, &n};
	HIP_OK(hipModuleLaunchKernel(consume, N / BLOCK, 1, 1, BLOCK, 1, 1, 0, s, args, NULL));
}

static int *pinned(void)
{
	int *p = NULL;
	HIP_OK(hipHostMalloc((void **)&p, N * sizeof(int), 0));
	memset(p, 0xff, N * sizeof(int));
	return p;
}

static void assert_values(const int *p, int add)
{
	for (int i = 0; i < N; i++)
		cr_assert_eq(p[i], 3 * i + add, "element %d: %d", i, p[i]);
}

Test(greenctx, kernel_on_a_green_stream)
{
	hipExecutionCtx_t c = green_of(0, 1, 8);
	hipStream_t s;
	HIP_OK(hipExecutionCtxStreamCreate(&s, c, 0, 0));
	int *dev = NULL, host[N];
	HIP_OK(hipMalloc((void **)&dev, sizeof(host)));
	launch_produce(s, dev, 3);
	HIP_OK(hipStreamSynchronize(s));
	HIP_OK(hipMemcpy(host, dev, sizeof(host), hipMemcpyDeviceToHost));
	assert_values(host, 0);
	/* A device-to-device copy and a second kernel on the same stream keep stream order. */
	int *dev2 = NULL;
	HIP_OK(hipMalloc((void **)&dev2, sizeof(host)));
	launch_consume(s, dev2, dev);
	HIP_OK(hipMemcpyAsync(host, dev2, sizeof(host), hipMemcpyDeviceToHost, s));
	HIP_OK(hipStreamSynchronize(s));
	assert_values(host, 1);
	HIP_OK(hipStreamDestroy(s));
	HIP_OK(hipExecutionCtxDestroy(c));
	HIP_OK(hipFree(dev));
	HIP_OK(hipFree(dev2));
}

Test(greenctx, synchronize_waits_for_every_stream_of_the_context)
{
	hipExecutionCtx_t c = green_of(0, 2, 8);
	hipStream_t s1, s2;
	HIP_OK(hipExecutionCtxStreamCreate(&s1, c, 0, 0));
	HIP_OK(hipExecutionCtxStreamCreate(&s2, c, 0, 0));
	int *a = pinned(), *b = pinned();
	launch_produce(s1, a, SLOW);
	launch_produce(s2, b, SLOW);
	HIP_OK(hipExecutionCtxSynchronize(c));
	assert_values(a, 0);
	assert_values(b, 0);
	cr_assert_eq(hipStreamQuery(s1), hipSuccess);
	cr_assert_eq(hipStreamQuery(s2), hipSuccess);
	HIP_OK(hipStreamDestroy(s1));
	HIP_OK(hipStreamDestroy(s2));
	HIP_OK(hipExecutionCtxDestroy(c));
	HIP_OK(hipHostFree(a));
	HIP_OK(hipHostFree(b));
}

Test(greenctx, record_covers_every_stream_of_the_context)
{
	hipExecutionCtx_t c = green_of(2, 1, 8);
	hipStream_t s1, s2;
	HIP_OK(hipExecutionCtxStreamCreate(&s1, c, 0, 0));
	HIP_OK(hipExecutionCtxStreamCreate(&s2, c, 0, 0));
	int *a = pinned(), *b = pinned();
	hipEvent_t ev;
	HIP_OK(hipEventCreate(&ev));
	/* The second stream's work is the long one: a record on the first stream alone would
	 * complete before it. */
	launch_produce(s1, a, 1);
	launch_produce(s2, b, 10 * SLOW);
	HIP_OK(hipExecutionCtxRecordEvent(c, ev));
	HIP_OK(hipEventSynchronize(ev));
	cr_assert_eq(hipEventQuery(ev), hipSuccess);
	assert_values(a, 0);
	assert_values(b, 0);
	HIP_OK(hipEventDestroy(ev));
	HIP_OK(hipStreamDestroy(s1));
	HIP_OK(hipStreamDestroy(s2));
	HIP_OK(hipExecutionCtxDestroy(c));
	HIP_OK(hipHostFree(a));
	HIP_OK(hipHostFree(b));
}

Test(greenctx, wait_orders_one_context_after_another)
{
	hipExecutionCtx_t ca = green_of(0, 1, 16), cb = green_of(1, 1, 16);
	hipStream_t sa, sb;
	HIP_OK(hipExecutionCtxStreamCreate(&sa, ca, 0, 0));
	HIP_OK(hipExecutionCtxStreamCreate(&sb, cb, 0, 0));
	int *data = NULL, *out = pinned();
	HIP_OK(hipMalloc((void **)&data, N * sizeof(int)));
	hipEvent_t ev;
	HIP_OK(hipEventCreateWithFlags(&ev, hipEventDisableTiming));
	launch_produce(sa, data, SLOW);
	HIP_OK(hipExecutionCtxRecordEvent(ca, ev));
	HIP_OK(hipExecutionCtxWaitEvent(cb, ev));
	launch_consume(sb, out, data);
	HIP_OK(hipExecutionCtxSynchronize(cb));
	assert_values(out, 1);
	HIP_OK(hipEventDestroy(ev));
	HIP_OK(hipStreamDestroy(sa));
	HIP_OK(hipStreamDestroy(sb));
	HIP_OK(hipExecutionCtxDestroy(ca));
	HIP_OK(hipExecutionCtxDestroy(cb));
	HIP_OK(hipFree(data));
	HIP_OK(hipHostFree(out));
}

Test(greenctx, record_on_a_context_without_streams_completes)
{
	hipExecutionCtx_t c = green_of(0, 1, 4);
	hipEvent_t ev;
	HIP_OK(hipEventCreate(&ev));
	HIP_OK(hipExecutionCtxRecordEvent(c, ev));
	HIP_OK(hipEventSynchronize(ev));
	cr_assert_eq(hipEventQuery(ev), hipSuccess);
	/* Waiting on a context without streams has nothing to hold back. */
	HIP_OK(hipExecutionCtxWaitEvent(c, ev));
	HIP_OK(hipExecutionCtxSynchronize(c));
	HIP_OK(hipEventDestroy(ev));
	HIP_OK(hipExecutionCtxDestroy(c));
}

Test(greenctx, event_call_errors)
{
	hipExecutionCtx_t c = green_of(0, 1, 4);
	hipEvent_t ev;
	HIP_OK(hipEventCreate(&ev));
	cr_assert_eq(hipExecutionCtxRecordEvent(NULL, ev), hipErrorInvalidValue);
	cr_assert_eq(hipExecutionCtxWaitEvent(NULL, ev), hipErrorInvalidValue);
	cr_assert_eq(hipExecutionCtxRecordEvent(c, NULL), hipErrorInvalidHandle);
	cr_assert_eq(hipExecutionCtxWaitEvent(c, NULL), hipErrorInvalidHandle);
	int junk = 0;
	cr_assert_eq(hipExecutionCtxRecordEvent((hipExecutionCtx_t)&junk, ev), hipErrorInvalidContext);
	cr_assert_eq(hipExecutionCtxWaitEvent((hipExecutionCtx_t)&junk, ev), hipErrorInvalidContext);
	HIP_OK(hipEventDestroy(ev));
	cr_assert_neq(hipExecutionCtxRecordEvent(c, ev), hipSuccess, "destroyed event");
	cr_assert_neq(hipExecutionCtxWaitEvent(c, ev), hipSuccess, "destroyed event");
	HIP_OK(hipExecutionCtxDestroy(c));
}

Test(greenctx, primary_context_covers_the_whole_device)
{
	hipExecutionCtx_t p, c = green_of(0, 1, 8);
	HIP_OK(hipDeviceGetExecutionCtx(&p, 0));
	hipStream_t gs, ps;
	HIP_OK(hipExecutionCtxStreamCreate(&gs, c, 0, 0));
	HIP_OK(hipExecutionCtxStreamCreate(&ps, p, hipStreamNonBlocking, 0));
	int *a = pinned(), *b = pinned();
	/* Synchronize on the primary context waits for green contexts too (AMD's guide). */
	launch_produce(gs, a, SLOW);
	launch_produce(ps, b, SLOW);
	HIP_OK(hipExecutionCtxSynchronize(p));
	assert_values(a, 0);
	assert_values(b, 0);
	/* Record on the primary context covers every stream of the device. */
	memset(a, 0xff, N * sizeof(int));
	memset(b, 0xff, N * sizeof(int));
	hipEvent_t ev;
	HIP_OK(hipEventCreate(&ev));
	launch_produce(gs, a, SLOW);
	launch_produce(ps, b, SLOW);
	HIP_OK(hipExecutionCtxRecordEvent(p, ev));
	HIP_OK(hipEventSynchronize(ev));
	assert_values(a, 0);
	assert_values(b, 0);
	/* Wait on the primary context holds back the device's existing streams. */
	int *data = NULL;
	HIP_OK(hipMalloc((void **)&data, N * sizeof(int)));
	memset(b, 0xff, N * sizeof(int));
	launch_produce(gs, data, SLOW);
	HIP_OK(hipExecutionCtxRecordEvent(c, ev));
	HIP_OK(hipExecutionCtxWaitEvent(p, ev));
	launch_consume(ps, b, data);
	HIP_OK(hipStreamSynchronize(ps));
	assert_values(b, 1);
	HIP_OK(hipEventDestroy(ev));
	HIP_OK(hipStreamDestroy(gs));
	HIP_OK(hipStreamDestroy(ps));
	HIP_OK(hipExecutionCtxDestroy(c));
	HIP_OK(hipFree(data));
	HIP_OK(hipHostFree(a));
	HIP_OK(hipHostFree(b));
}

Test(greenctx, detached_stream_still_runs_on_its_cus)
{
	hipExecutionCtx_t c = green_of(0, 1, 8);
	hipStream_t s;
	HIP_OK(hipExecutionCtxStreamCreate(&s, c, 0, 0));
	HIP_OK(hipExecutionCtxDestroy(c));
	int *a = pinned();
	launch_produce(s, a, 3);
	HIP_OK(hipStreamSynchronize(s));
	assert_values(a, 0);
	HIP_OK(hipStreamDestroy(s));
	HIP_OK(hipHostFree(a));
}
