/* The driver-style context API: a context is its device; the per-thread stack; primary contexts. */
#include <criterion/criterion.h>

#include <hip/hip_runtime_api.h>

Test(context, create_push_pop_follow_the_stack)
{
	hipCtx_t c0 = NULL, cur = NULL, popped = NULL;
	hipDevice_t dev = -1;

	cr_assert_eq(hipCtxCreate(&c0, 0, 0), hipSuccess);
	cr_assert_not_null(c0);
	cr_assert_eq(hipCtxGetCurrent(&cur), hipSuccess);
	cr_assert_eq(cur, c0);
	cr_assert_eq(hipCtxGetDevice(&dev), hipSuccess);
	cr_assert_eq(dev, 0);
	cr_assert_eq(hipCtxPushCurrent(c0), hipSuccess);
	cr_assert_eq(hipCtxPopCurrent(&popped), hipSuccess);
	cr_assert_eq(popped, c0);
	cr_assert_eq(hipCtxPopCurrent(&popped), hipSuccess);
	cr_assert_eq(popped, c0);
	/* The stack is empty now. */
	cr_assert_eq(hipCtxPopCurrent(&popped), hipErrorInvalidContext);
	cr_assert_eq(hipCtxDestroy(c0), hipSuccess);
}

Test(context, set_current_replaces_the_top)
{
	hipCtx_t c = NULL, top = NULL;

	cr_assert_eq(hipDevicePrimaryCtxRetain(&c, 0), hipSuccess);
	cr_assert_eq(hipCtxSetCurrent(c), hipSuccess);
	cr_assert_eq(hipCtxSetCurrent(c), hipSuccess);
	cr_assert_eq(hipCtxPopCurrent(&top), hipSuccess);
	cr_assert_eq(top, c);
	cr_assert_eq(hipCtxPopCurrent(&top), hipErrorInvalidContext, "SetCurrent replaced, not pushed");
	cr_assert_eq(hipCtxSetCurrent(NULL), hipSuccess);
	cr_assert_eq(hipDevicePrimaryCtxRelease(0), hipSuccess);
}

Test(context, bad_arguments)
{
	hipCtx_t c;
	int bogus;

	cr_assert_eq(hipCtxCreate(NULL, 0, 0), hipErrorInvalidValue);
	cr_assert_eq(hipCtxCreate(&c, 0, 99), hipErrorInvalidValue);
	cr_assert_eq(hipCtxCreate(&c, 0, -1), hipErrorInvalidValue);
	cr_assert_eq(hipCtxPushCurrent(NULL), hipErrorInvalidContext);
	cr_assert_eq(hipCtxPushCurrent((hipCtx_t)&bogus), hipErrorInvalidContext);
	cr_assert_eq(hipCtxDestroy(NULL), hipErrorInvalidValue);
	cr_assert_eq(hipCtxDestroy((hipCtx_t)&bogus), hipErrorInvalidContext);
	cr_assert_eq(hipCtxGetCurrent(NULL), hipErrorInvalidValue);
	cr_assert_eq(hipCtxGetDevice(NULL), hipErrorInvalidValue);
	cr_assert_eq(hipCtxSetCacheConfig((hipFuncCache_t)77), hipErrorInvalidValue);
	cr_assert_eq(hipCtxEnablePeerAccess(NULL, 0), hipErrorInvalidValue);
	cr_assert_eq(hipDevicePrimaryCtxRetain(NULL, 0), hipErrorInvalidValue);
	cr_assert_eq(hipDevicePrimaryCtxRetain(&c, 42), hipErrorInvalidDevice);
	cr_assert_eq(hipDevicePrimaryCtxRelease(42), hipErrorInvalidDevice);
	cr_assert_eq(hipDevicePrimaryCtxGetState(42, NULL, NULL), hipErrorInvalidDevice);
	cr_assert_eq(hipDevicePrimaryCtxSetFlags(42, 0), hipErrorInvalidDevice);
}

Test(context, primary_context_state)
{
	unsigned flags = 99;
	int active = -1;
	hipCtx_t c = NULL, c2 = NULL;

	cr_assert_eq(hipDevicePrimaryCtxRetain(&c, 0), hipSuccess);
	cr_assert_eq(hipDevicePrimaryCtxRetain(&c2, 0), hipSuccess);
	cr_assert_eq(c, c2, "one primary context per device");
	cr_assert_eq(hipDevicePrimaryCtxGetState(0, &flags, &active), hipSuccess);
	cr_assert_eq(flags, 0);
	cr_assert_eq(active, 1);
	cr_assert_eq(hipDevicePrimaryCtxSetFlags(0, 0), hipErrorContextAlreadyInUse);
	cr_assert_eq(hipDevicePrimaryCtxReset(0), hipSuccess);
	cr_assert_eq(hipDevicePrimaryCtxRelease(0), hipSuccess);
	cr_assert_eq(hipDevicePrimaryCtxRelease(0), hipSuccess);
}

Test(context, device_wide_settings_through_the_context)
{
	hipFuncCache_t cfg = (hipFuncCache_t)-1;
	hipSharedMemConfig sm = (hipSharedMemConfig)-1;
	unsigned flags = 0xdead, dflags = 0xbeef;
	int v;

	cr_assert_eq(hipCtxGetCacheConfig(&cfg), hipSuccess);
	/* The context forms answer what the device forms answer (clr: checked, no effect). */
	cr_assert_eq(hipCtxSetCacheConfig(hipFuncCachePreferNone),
		     hipDeviceSetCacheConfig(hipFuncCachePreferNone));
	cr_assert_eq(hipCtxSetSharedMemConfig(hipSharedMemBankSizeFourByte),
		     hipDeviceSetSharedMemConfig(hipSharedMemBankSizeFourByte));
	cr_assert_eq(hipCtxGetSharedMemConfig(&sm), hipSuccess);
	cr_assert_eq(sm, hipSharedMemBankSizeFourByte);
	cr_assert_eq(hipCtxGetFlags(&flags), hipSuccess);
	cr_assert_eq(hipGetDeviceFlags(&dflags), hipSuccess);
	cr_assert_eq(flags, dflags);
	cr_assert_eq(hipCtxSynchronize(), hipSuccess);
	hipCtx_t c;
	cr_assert_eq(hipDevicePrimaryCtxRetain(&c, 0), hipSuccess);
	cr_assert_eq(hipCtxGetApiVersion(c, &v), hipErrorNotSupported);
	cr_assert_eq(hipDevicePrimaryCtxRelease(0), hipSuccess);
}
