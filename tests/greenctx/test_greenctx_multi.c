/* Execution contexts with two GPUs: resources name their device, a descriptor holds one device's
 * CUs, and a context's streams run on the context's device whatever the current device is. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include <hip/hip_runtime_api.h>

#include "green_ctx.h"

#define HIP_OK(expr) cr_assert_eq((expr), hipSuccess, "%s", #expr)
#define N 256

static void need_two(void)
{
	int n = 0;
	HIP_OK(hipGetDeviceCount(&n));
	if (n < 2)
		cr_skip_test("needs two GPUs (KFDSIM_GPUS=2)");
}

static int32_t tag_device(const hipDevResource *r)
{
	int32_t d;
	memcpy(&d, r->_internal_padding + 4, sizeof(d));
	return d;
}

Test(multi, resources_belong_to_one_device)
{
	need_two();
	hipDevResource r0, r1, g0[1], g1[1];
	HIP_OK(hipDeviceGetDevResource(0, &r0, hipDevResourceTypeSm));
	HIP_OK(hipDeviceGetDevResource(1, &r1, hipDevResourceTypeSm));
	cr_assert_eq(tag_device(&r0), 0);
	cr_assert_eq(tag_device(&r1), 1);
	unsigned one = 1;
	HIP_OK(hipDevSmResourceSplitByCount(g0, &one, &r0, NULL, 0, 4));
	HIP_OK(hipDevSmResourceSplitByCount(g1, &one, &r1, NULL, 0, 4));
	cr_assert_eq(tag_device(&g1[0]), 1, "a split keeps its input's device");
	hipDevResource both[2] = {r0, r1};
	hipDevResourceDesc_t d;
	cr_assert_eq(hipDevResourceGenerateDesc(&d, both, 2), hipErrorInvalidResourceConfiguration);
	HIP_OK(hipDevResourceGenerateDesc(&d, g1, 1));
	hipExecutionCtx_t c = NULL;
	cr_assert_eq(hipGreenCtxCreate(&c, d, 0, 0), hipErrorInvalidDevice, "descriptor of device 1");
	HIP_OK(hipGreenCtxCreate(&c, d, 1, 0));
	int dev = -1;
	HIP_OK(hipExecutionCtxGetDevice(&dev, c));
	cr_assert_eq(dev, 1);
	hipExecutionCtx_t p0, p1;
	HIP_OK(hipDeviceGetExecutionCtx(&p0, 0));
	HIP_OK(hipDeviceGetExecutionCtx(&p1, 1));
	cr_assert_neq(p0, p1, "one primary context per device");
	HIP_OK(hipExecutionCtxGetDevice(&dev, p1));
	cr_assert_eq(dev, 1);
	HIP_OK(hipExecutionCtxDestroy(c));
}

Test(multi, context_stream_runs_on_its_device)
{
	need_two();
	hipModule_t m;
	hipFunction_t produce;
	int *out = NULL, host[N];
	HIP_OK(hipSetDevice(1));
	HIP_OK(hipModuleLoad(&m, GREENCTX_KERNELS));
	HIP_OK(hipModuleGetFunction(&produce, m, "produce"));
	HIP_OK(hipMalloc((void **)&out, sizeof(host)));
	HIP_OK(hipSetDevice(0));

	hipDevResource r1, g[1];
	HIP_OK(hipDeviceGetDevResource(1, &r1, hipDevResourceTypeSm));
	unsigned one = 1;
	HIP_OK(hipDevSmResourceSplitByCount(g, &one, &r1, NULL, 0, 8));
	hipDevResourceDesc_t d;
	hipExecutionCtx_t c;
	HIP_OK(hipDevResourceGenerateDesc(&d, g, 1));
	HIP_OK(hipGreenCtxCreate(&c, d, 1, 0));
	hipStream_t s;
	HIP_OK(hipExecutionCtxStreamCreate(&s, c, 0, 0));
	int dev = -1;
	HIP_OK(hipStreamGetDevice(s, &dev));
	cr_assert_eq(dev, 1, "created on the context's device, not the current one");
	hipDevResource r;
	HIP_OK(hipStreamGetDevResource(s, &r, hipDevResourceTypeSm));
	cr_assert_eq(r.sm.smCount, 8u);
	cr_assert_eq(tag_device(&r), 1);

	int n = N, rounds = 3;
	unsigned zero = 0;
	void *args[] = {&out, &n, &rounds, &zero};
	HIP_OK(hipModuleLaunchKernel(produce, N / 64, 1, 1, 64, 1, 1, 0, s, args, NULL));
	HIP_OK(hipExecutionCtxSynchronize(c));
	HIP_OK(hipMemcpy(host, out, sizeof(host), hipMemcpyDeviceToHost));
	for (int i = 0; i < N; i++)
		cr_assert_eq(host[i], 3 * i, "element %d", i);
	HIP_OK(hipStreamDestroy(s));
	HIP_OK(hipExecutionCtxDestroy(c));
	HIP_OK(hipSetDevice(1));
	HIP_OK(hipFree(out));
	HIP_OK(hipModuleUnload(m));
}
