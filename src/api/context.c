/* The deprecated driver-style context API (hipCtx*, hipDevicePrimaryCtx*).
 *
 * As in AMD's runtime (clr hipamd/src/hip_context.cpp), a context is not an object of its own: a
 * hipCtx_t is the device's struct hip_device, so every device has exactly one context, its
 * primary one. Each thread keeps a stack of contexts; pushing or setting a context makes its device
 * the thread's current device (hipSetDevice). Where clr leaves a call unimplemented but CUDA's
 * meaning is safe and plain (hipCtxSynchronize, hipCtxGetFlags, the cache and shared-memory
 * configuration) the call forwards to the device-wide API, as CUDA defines the context versions.
 *
 * Differences from clr, both following CUDA's documented behaviour: hipCtxCreate makes the new
 * context current (clr only pushes it), and hipCtxPopCurrent makes the context below the popped
 * one current again. Unknown handles get hipErrorInvalidContext instead of being dereferenced.
 */
#include <stdatomic.h>

#include "../runtime/error.h"
#include "../runtime/internal.h"

/* Deep enough for any real nesting; a push beyond it fails with hipErrorOutOfMemory. */
#define CTX_STACK_MAX 64
/* Devices whose primary-context retain count is kept (a KFD system has at most 32 GPU nodes,
 * kfd_topology.c; 64 leaves room). */
#define CTX_MAX_DEVICES 64

/* The calling thread's context stack (clr's tls.ctxt_stack_). */
static _Thread_local struct hip_device *ctx_stack[CTX_STACK_MAX];
static HIP_TLS int ctx_depth;

/* hipCtxCreate / hipDevicePrimaryCtxRetain references per device, atomic. */
static _Atomic int ctx_refs[CTX_MAX_DEVICES];

/* The device a context handle names, or NULL when the handle is no device of ours. */
static struct hip_device *ctx_device(hipCtx_t ctx)
{
	int n = hip_device_count();

	if (!ctx)
		return NULL;
	for (int i = 0; i < n; i++)
		if ((void *)hip_device_peek(i) == (void *)ctx)
			return hip_device_peek(i);
	return NULL;
}

static hipCtx_t ctx_of(struct hip_device *d)
{
	return (hipCtx_t)(void *)d;
}

static hipError_t ctx_push(struct hip_device *d)
{
	if (ctx_depth >= CTX_STACK_MAX)
		return hipErrorOutOfMemory;
	ctx_stack[ctx_depth++] = d;
	return hipSuccess;
}

static void ctx_ref_add(int ordinal, int delta)
{
	if (ordinal < 0 || ordinal >= CTX_MAX_DEVICES)
		return;
	if (delta > 0) {
		atomic_fetch_add(&ctx_refs[ordinal], delta);
		return;
	}
	/* Never below zero: an unbalanced release is harmless, as in clr. */
	int old = atomic_load(&ctx_refs[ordinal]);
	while (old > 0 && !atomic_compare_exchange_weak(&ctx_refs[ordinal], &old, old + delta))
		;
}

/* A device ordinal of a driver-style call: hipErrorInvalidDevice when out of range (clr). */
static hipError_t ctx_check_ordinal(hipDevice_t dev)
{
	int n = hip_device_count();

	if (n == 0)
		return hip_init_error() ?: hipErrorNoDevice;
	if (dev < 0 || dev >= n)
		return hipErrorInvalidDevice;
	return hipSuccess;
}

hipError_t hipCtxCreate(hipCtx_t *ctx, unsigned int flags, hipDevice_t device)
{
	if (!ctx)
		HIP_RETURN(hipErrorInvalidValue);
	int n = hip_device_count();
	if (n == 0)
		HIP_RETURN(hip_init_error() ?: hipErrorNoDevice);
	if (device < 0 || device >= n)
		HIP_RETURN(hipErrorInvalidValue); /* clr: InvalidValue, not InvalidDevice */
	struct hip_device *d = hip_device_peek(device);
	HIP_RETURN_IF_ERROR(ctx_push(d));
	/* clr (hip_context.cpp) records the flags on the device as they are: hipGetDeviceFlags
	 * then returns them. */
	pthread_mutex_lock(&d->lock);
	d->flags = flags;
	pthread_mutex_unlock(&d->lock);
	hipError_t err = hipSetDevice(device);
	if (err != hipSuccess) {
		ctx_depth--;
		HIP_RETURN(err);
	}
	ctx_ref_add(device, 1);
	*ctx = ctx_of(d);
	HIP_RETURN(hipSuccess);
}

hipError_t hipCtxDestroy(hipCtx_t ctx)
{
	if (!ctx)
		HIP_RETURN(hipErrorInvalidValue);
	struct hip_device *d = ctx_device(ctx);
	if (!d)
		HIP_RETURN(hipErrorInvalidContext);
	if (ctx_depth > 0 && ctx_stack[ctx_depth - 1] == d)
		ctx_depth--;
	ctx_ref_add(d->ordinal, -1);
	HIP_RETURN(hipSuccess);
}

hipError_t hipCtxPushCurrent(hipCtx_t ctx)
{
	struct hip_device *d = ctx_device(ctx);
	if (!d)
		HIP_RETURN(hipErrorInvalidContext);
	HIP_RETURN_IF_ERROR(ctx_push(d));
	hipError_t err = hipSetDevice(d->ordinal);
	if (err != hipSuccess)
		ctx_depth--;
	HIP_RETURN(err);
}

hipError_t hipCtxPopCurrent(hipCtx_t *ctx)
{
	if (ctx_depth == 0)
		HIP_RETURN(hipErrorInvalidContext); /* clr: an empty stack */
	struct hip_device *d = ctx_stack[--ctx_depth];
	if (ctx)
		*ctx = ctx_of(d);
	if (ctx_depth > 0)
		HIP_RETURN(hipSetDevice(ctx_stack[ctx_depth - 1]->ordinal));
	HIP_RETURN(hipSuccess);
}

hipError_t hipCtxSetCurrent(hipCtx_t ctx)
{
	if (!ctx) {
		/* clr: NULL unbinds the top context and leaves the current device alone. */
		if (ctx_depth > 0)
			ctx_depth--;
		HIP_RETURN(hipSuccess);
	}
	struct hip_device *d = ctx_device(ctx);
	if (!d)
		HIP_RETURN(hipErrorInvalidContext);
	HIP_RETURN_IF_ERROR(hipSetDevice(d->ordinal));
	if (ctx_depth > 0)
		ctx_depth--;
	ctx_stack[ctx_depth++] = d;
	HIP_RETURN(hipSuccess);
}

hipError_t hipCtxGetCurrent(hipCtx_t *ctx)
{
	if (!ctx)
		HIP_RETURN(hipErrorInvalidValue);
	*ctx = NULL;
	int ordinal;
	HIP_RETURN_IF_ERROR(hipGetDevice(&ordinal));
	struct hip_device *d = hip_device_peek(ordinal);
	if (!d)
		HIP_RETURN(hipErrorInvalidContext);
	*ctx = ctx_of(d); /* clr: the current device, whatever the stack holds */
	HIP_RETURN(hipSuccess);
}

hipError_t hipCtxGetDevice(hipDevice_t *device)
{
	if (!device)
		HIP_RETURN(hipErrorInvalidValue);
	HIP_RETURN(hipGetDevice(device));
}

/* clr leaves this unimplemented (hipErrorNotSupported) and so do we: no HIP release defined the
 * number to report. */
hipError_t hipCtxGetApiVersion(hipCtx_t ctx, int *apiVersion)
{
	(void)ctx;
	if (!apiVersion)
		HIP_RETURN(hipErrorInvalidValue);
	HIP_RETURN(hipErrorNotSupported);
}

hipError_t hipCtxGetCacheConfig(hipFuncCache_t *cacheConfig)
{
	if (!cacheConfig)
		HIP_RETURN(hipErrorInvalidValue);
	HIP_RETURN(hipDeviceGetCacheConfig(cacheConfig));
}

hipError_t hipCtxSetCacheConfig(hipFuncCache_t cacheConfig)
{
	if (cacheConfig != hipFuncCachePreferNone && cacheConfig != hipFuncCachePreferShared &&
	    cacheConfig != hipFuncCachePreferL1 && cacheConfig != hipFuncCachePreferEqual)
		HIP_RETURN(hipErrorInvalidValue);
	HIP_RETURN(hipDeviceSetCacheConfig(cacheConfig));
}

hipError_t hipCtxGetSharedMemConfig(hipSharedMemConfig *pConfig)
{
	if (!pConfig)
		HIP_RETURN(hipErrorInvalidValue);
	HIP_RETURN(hipDeviceGetSharedMemConfig(pConfig));
}

hipError_t hipCtxSetSharedMemConfig(hipSharedMemConfig config)
{
	HIP_RETURN(hipDeviceSetSharedMemConfig(config));
}

hipError_t hipCtxSynchronize(void)
{
	HIP_RETURN(hipDeviceSynchronize());
}

hipError_t hipCtxGetFlags(unsigned int *flags)
{
	if (!flags)
		HIP_RETURN(hipErrorInvalidValue);
	HIP_RETURN(hipGetDeviceFlags(flags));
}

hipError_t hipCtxEnablePeerAccess(hipCtx_t peerCtx, unsigned int flags)
{
	struct hip_device *p = ctx_device(peerCtx);
	if (!p)
		HIP_RETURN(hipErrorInvalidValue); /* clr's check of the handle */
	HIP_RETURN(hipDeviceEnablePeerAccess(p->ordinal, flags));
}

hipError_t hipCtxDisablePeerAccess(hipCtx_t peerCtx)
{
	struct hip_device *p = ctx_device(peerCtx);
	if (!p)
		HIP_RETURN(hipErrorInvalidValue);
	HIP_RETURN(hipDeviceDisablePeerAccess(p->ordinal));
}

hipError_t hipDevicePrimaryCtxGetState(hipDevice_t dev, unsigned int *flags, int *active)
{
	HIP_RETURN_IF_ERROR(ctx_check_ordinal(dev));
	struct hip_device *d = hip_device_peek(dev);
	if (flags)
		*flags = 0; /* clr reports no flags */
	if (active) {
		/* Active once retained or once the runtime API opened the device. */
		bool opened = atomic_load_explicit(&d->opened, memory_order_acquire);
		bool retained = dev < CTX_MAX_DEVICES && atomic_load(&ctx_refs[dev]) > 0;
		*active = opened || retained;
	}
	HIP_RETURN(hipSuccess);
}

hipError_t hipDevicePrimaryCtxRetain(hipCtx_t *pctx, hipDevice_t dev)
{
	HIP_RETURN_IF_ERROR(ctx_check_ordinal(dev));
	if (!pctx)
		HIP_RETURN(hipErrorInvalidValue);
	ctx_ref_add(dev, 1);
	*pctx = ctx_of(hip_device_peek(dev));
	HIP_RETURN(hipSuccess);
}

hipError_t hipDevicePrimaryCtxRelease(hipDevice_t dev)
{
	HIP_RETURN_IF_ERROR(ctx_check_ordinal(dev));
	ctx_ref_add(dev, -1);
	HIP_RETURN(hipSuccess);
}

/* clr returns success without touching the device; destroying its memory and streams here
 * (hipDeviceReset) would surprise programs written against it. */
hipError_t hipDevicePrimaryCtxReset(hipDevice_t dev)
{
	HIP_RETURN(ctx_check_ordinal(dev));
}

/* clr: the primary context always exists, so its flags can no longer be set. */
hipError_t hipDevicePrimaryCtxSetFlags(hipDevice_t dev, unsigned int flags)
{
	(void)flags;
	HIP_RETURN_IF_ERROR(ctx_check_ordinal(dev));
	HIP_RETURN(hipErrorContextAlreadyInUse);
}
