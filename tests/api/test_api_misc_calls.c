/* The small calls of src/api/misc.c on one GPU. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include <hip/hip_runtime_api.h>

Test(calls, init_device)
{
	unsigned flags = 0;

	cr_assert_eq(hipInitDevice(0, 0, 0), hipSuccess);
	cr_assert_eq(hipInitDevice(0, hipDeviceScheduleYield, 1), hipSuccess);
	cr_assert_eq(hipGetDeviceFlags(&flags), hipSuccess);
	cr_assert_eq(flags & hipDeviceScheduleMask, hipDeviceScheduleYield);
	cr_assert_eq(hipInitDevice(5, 0, 0), hipErrorInvalidDevice);
	cr_assert_eq(hipInitDevice(-1, 0, 0), hipErrorInvalidDevice);
	cr_assert_eq(hipInitDevice(0, 0, 2), hipErrorInvalidValue);
}

Test(calls, symbols_of_unregistered_variables)
{
	static int not_a_device_variable;
	void *p = (void *)1;
	size_t n = 1;

	/* a failed call leaves its outputs alone */
	cr_assert_eq(hipGetSymbolAddress(&p, &not_a_device_variable), hipErrorInvalidSymbol);
	cr_assert_eq((uintptr_t)p, 1);
	cr_assert_eq(hipGetSymbolSize(&n, &not_a_device_variable), hipErrorInvalidSymbol);
	cr_assert_eq(n, 1);
	cr_assert_eq(hipGetSymbolAddress(NULL, &not_a_device_variable), hipErrorInvalidValue);
	cr_assert_eq(hipGetSymbolSize(&n, NULL), hipErrorInvalidSymbol);
}

Test(calls, profiler_switches)
{
	cr_assert_eq(hipProfilerStart(), hipSuccess);
	cr_assert_eq(hipProfilerStop(), hipSuccess);
}

Test(calls, pointer_attributes)
{
	void *d = NULL;
	unsigned int one = 1;
	hipMemoryType type = hipMemoryTypeUnregistered;
	int ordinal = -1;
	hipPointer_attribute attrs[2] = {HIP_POINTER_ATTRIBUTE_MEMORY_TYPE,
					 HIP_POINTER_ATTRIBUTE_DEVICE_ORDINAL};
	void *data[2] = {&type, &ordinal};

	cr_assert_eq(hipMalloc(&d, 4096), hipSuccess);
	cr_assert_eq(hipDrvPointerGetAttributes(2, attrs, data, d), hipSuccess);
	cr_assert_eq(type, hipMemoryTypeDevice);
	cr_assert_eq(ordinal, 0);
	cr_assert_eq(hipDrvPointerGetAttributes(0, attrs, data, d), hipErrorInvalidValue);
	cr_assert_eq(hipDrvPointerGetAttributes(2, NULL, data, d), hipErrorInvalidValue);
	cr_assert_eq(hipDrvPointerGetAttributes(2, attrs, NULL, d), hipErrorInvalidValue);
	cr_assert_eq(hipDrvPointerGetAttributes(2, attrs, data, NULL), hipErrorInvalidValue);

	cr_assert_eq(hipPointerSetAttribute(&one, HIP_POINTER_ATTRIBUTE_SYNC_MEMOPS, d), hipSuccess);
	cr_assert_eq(hipPointerSetAttribute(&one, HIP_POINTER_ATTRIBUTE_MEMORY_TYPE, d),
		     hipErrorInvalidValue);
	cr_assert_eq(hipPointerSetAttribute(NULL, HIP_POINTER_ATTRIBUTE_SYNC_MEMOPS, d),
		     hipErrorInvalidValue);
	cr_assert_eq(hipPointerSetAttribute(&one, HIP_POINTER_ATTRIBUTE_SYNC_MEMOPS, &one),
		     hipErrorInvalidDevicePointer, "a host variable (clr)");
	cr_assert_eq(hipFree(d), hipSuccess);
}

Test(calls, ext_host_alloc)
{
	uint32_t *h = NULL;
	void *d = NULL;

	cr_assert_eq(hipExtHostAlloc((void **)&h, 4096, hipHostAllocDefault), hipSuccess);
	cr_assert_not_null(h);
	for (int i = 0; i < 1024; i++)
		h[i] = (uint32_t)i;
	cr_assert_eq(hipMalloc(&d, 4096), hipSuccess);
	cr_assert_eq(hipMemcpy(d, h, 4096, hipMemcpyHostToDevice), hipSuccess);
	memset(h, 0, 4096);
	cr_assert_eq(hipMemcpy(h, d, 4096, hipMemcpyDeviceToHost), hipSuccess);
	cr_assert_eq(h[1023], 1023u);
	cr_assert_eq(hipFree(d), hipSuccess);
	cr_assert_eq(hipHostFree(h), hipSuccess);
}

Test(calls, stream_ids_and_attributes)
{
	hipStream_t a, b, lo;
	unsigned long long ia = 0, ib = 0, inull = 0, inull2 = 1;
	hipStreamAttrValue v;
	int least, greatest;

	cr_assert_eq(hipStreamCreate(&a), hipSuccess);
	cr_assert_eq(hipStreamCreate(&b), hipSuccess);
	cr_assert_eq(hipStreamGetId(a, &ia), hipSuccess);
	cr_assert_eq(hipStreamGetId(b, &ib), hipSuccess);
	cr_assert_neq(ia, ib);
	cr_assert_eq(hipStreamGetId(NULL, &inull), hipSuccess);
	cr_assert_eq(hipStreamGetId(NULL, &inull2), hipSuccess);
	cr_assert_eq(inull, inull2);
	cr_assert_neq(inull, ia);
	cr_assert_eq(hipStreamGetId(a, NULL), hipErrorInvalidValue);

	memset(&v, 0, sizeof(v));
	cr_assert_eq(hipStreamGetAttribute(a, hipStreamAttributeSynchronizationPolicy, &v),
		     hipSuccess);
	cr_assert_eq(v.syncPolicy, hipSyncPolicyAuto);
	cr_assert_eq(hipStreamGetAttribute(a, hipStreamAttributePriority, &v), hipSuccess);
	cr_assert_eq(v.priority, 0);
	cr_assert_eq(hipStreamSetAttribute(a, hipStreamAttributePriority, &v), hipSuccess);
	cr_assert_eq(hipStreamCopyAttributes(b, a), hipSuccess);
	cr_assert_eq(hipDeviceGetStreamPriorityRange(&least, &greatest), hipSuccess);
	if (least != greatest) {
		cr_assert_eq(hipStreamCreateWithPriority(&lo, 0, greatest), hipSuccess);
		cr_assert_eq(hipStreamGetAttribute(lo, hipStreamAttributePriority, &v), hipSuccess);
		cr_assert_eq(v.priority, greatest);
		cr_assert_eq(hipStreamCopyAttributes(b, lo), hipErrorNotSupported);
		cr_assert_eq(hipStreamDestroy(lo), hipSuccess);
	}
	v.syncPolicy = (hipSynchronizationPolicy)9;
	cr_assert_eq(hipStreamSetAttribute(a, hipStreamAttributeSynchronizationPolicy, &v),
		     hipErrorInvalidValue);
	cr_assert_eq(hipStreamGetAttribute(a, hipStreamAttributePriority, NULL), hipErrorInvalidValue);
	cr_assert_eq(hipStreamGetAttribute(a, hipLaunchAttributeClusterDimension, &v),
		     hipErrorNotSupported);
	cr_assert_eq(hipStreamDestroy(a), hipSuccess);
	cr_assert_eq(hipStreamDestroy(b), hipSuccess);
	cr_assert_neq(hipStreamGetId(a, &ia), hipSuccess, "a destroyed stream has no id");
}

Test(calls, luid_and_link_errors)
{
	char luid[8];
	unsigned mask;
	uint32_t type, hops;

	cr_assert_eq(hipDeviceGetLuid(luid, &mask, 0), hipErrorNotSupported);
	cr_assert_eq(hipExtGetLinkTypeAndHopCount(0, 0, &type, &hops), hipErrorInvalidValue);
	cr_assert_eq(hipExtGetLinkTypeAndHopCount(0, 1, NULL, &hops), hipErrorInvalidValue);
	cr_assert_eq(hipExtGetLinkTypeAndHopCount(0, 1, &type, &hops), hipErrorInvalidDevice);
}

/* hipMemcpy3DPeer on one device: a box between two pitched allocations. */
Test(calls, memcpy_3d_peer_same_device)
{
	enum { W = 16, H = 4, D = 2 };
	hipPitchedPtr src, dst;
	hipExtent whole = {W, H, D};
	static uint8_t host[D][H][W], back[D][H][W];

	cr_assert_eq(hipMalloc3D(&src, whole), hipSuccess);
	cr_assert_eq(hipMalloc3D(&dst, whole), hipSuccess);
	for (int z = 0; z < D; z++)
		for (int y = 0; y < H; y++)
			for (int x = 0; x < W; x++)
				host[z][y][x] = (uint8_t)(z * 64 + y * 16 + x);
	hipMemcpy3DParms up;
	memset(&up, 0, sizeof(up));
	up.srcPtr = make_hipPitchedPtr(host, W, W, H);
	up.dstPtr = src;
	up.extent = whole;
	up.kind = hipMemcpyHostToDevice;
	cr_assert_eq(hipMemcpy3D(&up), hipSuccess);
	cr_assert_eq(hipMemset3D(dst, 0, whole), hipSuccess);

	hipMemcpy3DPeerParms p;
	memset(&p, 0, sizeof(p));
	p.srcPtr = src;
	p.dstPtr = dst;
	p.srcPos = make_hipPos(2, 1, 0);
	p.dstPos = make_hipPos(0, 0, 1);
	p.extent = make_hipExtent(8, 2, 1);
	cr_assert_eq(hipMemcpy3DPeer(&p), hipSuccess);

	hipMemcpy3DParms down;
	memset(&down, 0, sizeof(down));
	down.srcPtr = dst;
	down.dstPtr = make_hipPitchedPtr(back, W, W, H);
	down.extent = whole;
	down.kind = hipMemcpyDeviceToHost;
	cr_assert_eq(hipMemcpy3D(&down), hipSuccess);
	for (int y = 0; y < H; y++)
		for (int x = 0; x < W; x++) {
			bool in = y < 2 && x < 8;
			cr_assert_eq(back[1][y][x], in ? host[0][y + 1][x + 2] : 0, "(%d,%d)", x, y);
			cr_assert_eq(back[0][y][x], 0);
		}
	hipStream_t s;
	cr_assert_eq(hipStreamCreate(&s), hipSuccess);
	p.extent = whole;
	p.srcPos = p.dstPos = make_hipPos(0, 0, 0);
	cr_assert_eq(hipMemcpy3DPeerAsync(&p, s), hipSuccess);
	cr_assert_eq(hipStreamSynchronize(s), hipSuccess);
	cr_assert_eq(hipMemcpy3D(&down), hipSuccess);
	cr_assert_eq(memcmp(back, host, sizeof(host)), 0);
	p.srcDevice = 3;
	cr_assert_eq(hipMemcpy3DPeer(&p), hipErrorInvalidDevice);
	cr_assert_eq(hipMemcpy3DPeer(NULL), hipErrorInvalidValue);
	cr_assert_eq(hipStreamDestroy(s), hipSuccess);
	cr_assert_eq(hipFree(src.ptr), hipSuccess);
	cr_assert_eq(hipFree(dst.ptr), hipSuccess);
}

/* Run-time log control: levels 0-7 are accepted, others refused; enable/disable always succeed
 * and leave the library usable (it prints only when a level asks, so nothing is checked on
 * stderr here). */
Test(calls, logging_controls)
{
	cr_assert_eq(hipExtSetLoggingParams(8, 0, 0), hipErrorInvalidValue);
	cr_assert_eq(hipExtSetLoggingParams(0, 1 << 20, ~(size_t)0), hipSuccess);
	cr_assert_eq(hipExtEnableLogging(), hipSuccess);
	cr_assert_eq(hipExtDisableLogging(), hipSuccess);
	void *p = NULL;
	cr_assert_eq(hipMalloc(&p, 64), hipSuccess);
	cr_assert_eq(hipFree(p), hipSuccess);
}
