/* The values a caller reads back where ROCm 6 renumbered an enum (rocm5_abi_changes.txt), through
 * whichever library the test is linked against. Built twice: against Debian's ROCm 5.2.3 headers
 * and libamdhip64.so.5 (run on hipkfd's libamdhip64.so.5 via LD_LIBRARY_PATH, expecting ROCm 5
 * numbers), and against hipkfd's headers and libamdhip64.so.7 (expecting ROCm 7 numbers). The
 * expected numbers are literals, not the header's enumerators, so that a header and a library that
 * agree on a wrong value still fail. */
#include <criterion/criterion.h>
#include <hip/hip_runtime_api.h>
#include <string.h>

#ifdef HIPKFD_EXPECT_ROCM5
enum { HOST = 0, DEVICE = 1 };
enum { KERNEL_NODE = 1, MEMCPY_NODE = 2, MEMSET_NODE = 3, HOST_NODE = 4, GRAPH_NODE = 5,
       EMPTY_NODE = 6, WAIT_EVENT_NODE = 7, EVENT_RECORD_NODE = 8 };
#else
enum { HOST = 1, DEVICE = 2 };
enum { KERNEL_NODE = 0, MEMCPY_NODE = 1, MEMSET_NODE = 2, HOST_NODE = 3, GRAPH_NODE = 4,
       EMPTY_NODE = 5, WAIT_EVENT_NODE = 6, EVENT_RECORD_NODE = 7 };
#endif

static unsigned attributes_type(const void *p)
{
	hipPointerAttribute_t a;
	cr_assert_eq(hipPointerGetAttributes(&a, p), hipSuccess);
	/* the first field: memoryType in ROCm 5, the memoryType/type union in ROCm 6+ */
	unsigned t;
	memcpy(&t, &a, sizeof(t));
	return t;
}

static unsigned attribute_type(void *p)
{
	unsigned t = 0xdead;
	cr_assert_eq(hipPointerGetAttribute(&t, HIP_POINTER_ATTRIBUTE_MEMORY_TYPE, (hipDeviceptr_t)p),
	             hipSuccess);
	return t;
}

Test(abi_enum_values, device_memory_type)
{
	void *d = NULL;
	cr_assert_eq(hipMalloc(&d, 4096), hipSuccess);
	cr_expect_eq(attributes_type(d), DEVICE);
	cr_expect_eq(attribute_type(d), DEVICE);
	cr_assert_eq(hipFree(d), hipSuccess);
}

Test(abi_enum_values, pinned_host_memory_type)
{
	void *h = NULL;
	cr_assert_eq(hipHostMalloc(&h, 4096, 0), hipSuccess);
	cr_expect_eq(attributes_type(h), HOST);
	cr_expect_eq(attribute_type(h), HOST);
	cr_assert_eq(hipHostFree(h), hipSuccess);
}

static void host_fn(void *arg)
{
	(void)arg;
}

static unsigned node_type(hipGraphNode_t n)
{
	hipGraphNodeType t;
	cr_assert_eq(hipGraphNodeGetType(n, &t), hipSuccess);
	return (unsigned)t;
}

Test(abi_enum_values, graph_node_types)
{
	hipGraph_t g, child;
	hipGraphNode_t n;
	cr_assert_eq(hipGraphCreate(&g, 0), hipSuccess);
	cr_assert_eq(hipGraphCreate(&child, 0), hipSuccess);

	cr_assert_eq(hipGraphAddEmptyNode(&n, g, NULL, 0), hipSuccess);
	cr_expect_eq(node_type(n), EMPTY_NODE);

	hipHostNodeParams hp = { .fn = host_fn, .userData = NULL };
	cr_assert_eq(hipGraphAddHostNode(&n, g, NULL, 0, &hp), hipSuccess);
	cr_expect_eq(node_type(n), HOST_NODE);

	cr_assert_eq(hipGraphAddChildGraphNode(&n, g, NULL, 0, child), hipSuccess);
	cr_expect_eq(node_type(n), GRAPH_NODE);

	void *d = NULL;
	cr_assert_eq(hipMalloc(&d, 4096), hipSuccess);
	hipMemsetParams mp = { .dst = d, .elementSize = 4, .width = 16, .height = 1, .pitch = 64,
	                       .value = 7 };
	cr_assert_eq(hipGraphAddMemsetNode(&n, g, NULL, 0, &mp), hipSuccess);
	cr_expect_eq(node_type(n), MEMSET_NODE);

	static char src[256];
	cr_assert_eq(hipGraphAddMemcpyNode1D(&n, g, NULL, 0, d, src, sizeof(src), hipMemcpyHostToDevice),
	             hipSuccess);
	cr_expect_eq(node_type(n), MEMCPY_NODE);

	hipEvent_t e;
	cr_assert_eq(hipEventCreate(&e), hipSuccess);
	cr_assert_eq(hipGraphAddEventRecordNode(&n, g, NULL, 0, e), hipSuccess);
	cr_expect_eq(node_type(n), EVENT_RECORD_NODE);
	cr_assert_eq(hipGraphAddEventWaitNode(&n, g, NULL, 0, e), hipSuccess);
	cr_expect_eq(node_type(n), WAIT_EVENT_NODE);

	cr_assert_eq(hipGraphDestroy(g), hipSuccess);
	cr_assert_eq(hipGraphDestroy(child), hipSuccess);
	cr_assert_eq(hipEventDestroy(e), hipSuccess);
	cr_assert_eq(hipFree(d), hipSuccess);
	(void)KERNEL_NODE;
}

/* hipMemAllocationProp changed its field order in ROCm 6: each build fills the layout of its own
 * header and must get the allocation it asked for, and read the same fields back. */
Test(abi_enum_values, allocation_prop_layout)
{
	hipMemAllocationProp prop;
	memset(&prop, 0, sizeof(prop));
	prop.type = hipMemAllocationTypePinned;
	prop.location.type = hipMemLocationTypeDevice;
	prop.location.id = 0;
	prop.requestedHandleType = hipMemHandleTypeNone;
	size_t gran = 0;
	cr_assert_eq(hipMemGetAllocationGranularity(&gran, &prop, hipMemAllocationGranularityMinimum),
	             hipSuccess);
	cr_assert_gt(gran, 0);
	hipMemGenericAllocationHandle_t h;
	cr_assert_eq(hipMemCreate(&h, gran, &prop, 0), hipSuccess);
	hipMemAllocationProp back;
	memset(&back, 0xff, sizeof(back));
	cr_assert_eq(hipMemGetAllocationPropertiesFromHandle(&back, h), hipSuccess);
	cr_expect_eq(back.type, hipMemAllocationTypePinned);
	cr_expect_eq(back.location.type, hipMemLocationTypeDevice);
	cr_expect_eq(back.location.id, 0);
	cr_expect_eq(back.requestedHandleType, hipMemHandleTypeNone);
	cr_assert_eq(hipMemRelease(h), hipSuccess);
}

/* hip_Memcpy2D names its memory types with the renumbered enum: each build passes its own header's
 * Host and Device (ROCm 5: 0 and 1) and must get the bytes across. A pitch of 0 means a tight
 * pitch (the width), as AMD accepts it. */
Test(abi_enum_values, memcpy_param2d_memory_types)
{
	enum { W = 48, H = 3 };
	unsigned char src[W * H], back[W * H];
	for (unsigned i = 0; i < sizeof(src); i++)
		src[i] = (unsigned char)(i * 7 + 1);
	void *d = NULL;
	cr_assert_eq(hipMalloc(&d, sizeof(src)), hipSuccess);
	hip_Memcpy2D c;
	memset(&c, 0, sizeof(c));
	c.srcMemoryType = hipMemoryTypeHost;
	c.srcHost = src;
	c.dstMemoryType = hipMemoryTypeDevice;
	c.dstDevice = (hipDeviceptr_t)d;
	c.WidthInBytes = W;
	c.Height = H;
	cr_assert_eq(hipMemcpyParam2D(&c), hipSuccess);
	memset(back, 0, sizeof(back));
	cr_assert_eq(hipMemcpy(back, d, sizeof(back), hipMemcpyDeviceToHost), hipSuccess);
	cr_expect_arr_eq(back, src, sizeof(src));

	/* and back through the asynchronous form, device to host */
	memset(&c, 0, sizeof(c));
	c.srcMemoryType = hipMemoryTypeDevice;
	c.srcDevice = (hipDeviceptr_t)d;
	c.dstMemoryType = hipMemoryTypeHost;
	c.dstHost = back;
	c.WidthInBytes = W;
	c.Height = H;
	memset(back, 0, sizeof(back));
	cr_assert_eq(hipMemcpyParam2DAsync(&c, NULL), hipSuccess);
	cr_assert_eq(hipStreamSynchronize(NULL), hipSuccess);
	cr_expect_arr_eq(back, src, sizeof(src));
	cr_assert_eq(hipFree(d), hipSuccess);
}

/* HIP_MEMCPY3D: ROCm 5 has 32-bit offsets and sizes (128 bytes), ROCm 6+ size_t (184). A host box
 * copied to slice 1 of a device volume lands exactly there, [0,0,1] included. */
Test(abi_enum_values, drv_memcpy3d_layout)
{
	enum { W = 16, H = 4, D = 3, PITCH = 32 };
	unsigned char src[W * H], vol[PITCH * H * D];
	for (unsigned i = 0; i < sizeof(src); i++)
		src[i] = (unsigned char)(i + 1);
	void *d = NULL;
	cr_assert_eq(hipMalloc(&d, sizeof(vol)), hipSuccess);
	cr_assert_eq(hipMemset(d, 0, sizeof(vol)), hipSuccess);
	HIP_MEMCPY3D c;
	memset(&c, 0, sizeof(c));
	c.srcMemoryType = hipMemoryTypeHost;
	c.srcHost = src;
	c.srcPitch = W;
	c.srcHeight = H;
	c.dstMemoryType = hipMemoryTypeDevice;
	c.dstDevice = (hipDeviceptr_t)d;
	c.dstZ = 1;
	c.dstPitch = PITCH;
	c.dstHeight = H;
	c.WidthInBytes = W;
	c.Height = H;
	c.Depth = 1;
	cr_assert_eq(hipDrvMemcpy3D(&c), hipSuccess);
	cr_assert_eq(hipMemcpy(vol, d, sizeof(vol), hipMemcpyDeviceToHost), hipSuccess);
	for (unsigned z = 0; z < D; z++)
		for (unsigned y = 0; y < H; y++)
			for (unsigned x = 0; x < PITCH; x++) {
				unsigned char want = (z == 1 && x < W) ? src[y * W + x] : 0;
				cr_assert_eq(vol[(z * H + y) * PITCH + x], want, "at [%u,%u,%u]", x, y, z);
			}
	/* the asynchronous form, device slice 1 back to host */
	unsigned char back[W * H];
	memset(back, 0, sizeof(back));
	memset(&c, 0, sizeof(c));
	c.srcMemoryType = hipMemoryTypeDevice;
	c.srcDevice = (hipDeviceptr_t)d;
	c.srcZ = 1;
	c.srcPitch = PITCH;
	c.srcHeight = H;
	c.dstMemoryType = hipMemoryTypeHost;
	c.dstHost = back;
	c.dstPitch = W;
	c.dstHeight = H;
	c.WidthInBytes = W;
	c.Height = H;
	c.Depth = 1;
	cr_assert_eq(hipDrvMemcpy3DAsync(&c, NULL), hipSuccess);
	cr_assert_eq(hipStreamSynchronize(NULL), hipSuccess);
	cr_expect_arr_eq(back, src, sizeof(src));
	cr_assert_eq(hipFree(d), hipSuccess);
}

/* hipExternalSemaphoreSignalParams/WaitParams grew 8 bytes in ROCm 6 (flags at 64 -> 72): the
 * runtime must find entry 1's flags where the caller's header put them. Non-zero flags are
 * hipErrorInvalidValue; with zero flags the (never imported) semaphores are hipErrorNotSupported. */
Test(abi_enum_values, external_semaphore_params_stride)
{
	hipExternalSemaphore_t sems[2] = {(hipExternalSemaphore_t)0x1000, (hipExternalSemaphore_t)0x2000};
	hipExternalSemaphoreSignalParams sp[2];
	hipExternalSemaphoreWaitParams wp[2];
	memset(sp, 0, sizeof(sp));
	memset(wp, 0, sizeof(wp));
	cr_expect_eq(hipSignalExternalSemaphoresAsync(sems, sp, 2, NULL), hipErrorNotSupported);
	cr_expect_eq(hipWaitExternalSemaphoresAsync(sems, wp, 2, NULL), hipErrorNotSupported);
	sp[1].flags = 1;
	wp[1].flags = 1;
	cr_expect_eq(hipSignalExternalSemaphoresAsync(sems, sp, 2, NULL), hipErrorInvalidValue);
	cr_expect_eq(hipWaitExternalSemaphoresAsync(sems, wp, 2, NULL), hipErrorInvalidValue);
	/* entry 1's reserved words are not flags */
	memset(sp, 0, sizeof(sp));
	sp[1].params.reserved[11] = 5;
	cr_expect_eq(hipSignalExternalSemaphoresAsync(sems, sp, 2, NULL), hipErrorNotSupported);
}

/* A freed pointer (pointer_attributes_freed.md): ROCm 5's runtime fails with hipErrorInvalidValue
 * and this test then expects the caller's struct untouched; ROCm 6+ (and CUDA) succeed with type
 * Unregistered (0) and device -2. */
Test(abi_enum_values, freed_pointer_attributes)
{
	void *d = NULL;
	cr_assert_eq(hipMalloc(&d, 4096), hipSuccess);
	cr_assert_eq(hipFree(d), hipSuccess);
	hipPointerAttribute_t a;
	memset(&a, 0x5a, sizeof(a));
	unsigned t = 0x5a5a;
#ifdef HIPKFD_EXPECT_ROCM5
	cr_expect_eq(hipPointerGetAttributes(&a, d), hipErrorInvalidValue);
	unsigned char want[sizeof(a)];
	memset(want, 0x5a, sizeof(want));
	cr_expect_arr_eq(&a, want, sizeof(a), "a failed call leaves the struct as it was");
	cr_expect_eq(hipPointerGetAttribute(&t, HIP_POINTER_ATTRIBUTE_MEMORY_TYPE, (hipDeviceptr_t)d),
	             hipErrorInvalidValue);
#else
	cr_expect_eq(hipPointerGetAttributes(&a, d), hipSuccess);
	cr_expect_eq(attributes_type(d), 0);
	cr_expect_eq(a.device, -2);
	cr_expect_eq(hipPointerGetAttribute(&t, HIP_POINTER_ATTRIBUTE_MEMORY_TYPE, (hipDeviceptr_t)d),
	             hipSuccess);
	cr_expect_eq(t, 0);
#endif
	/* a stack address is memory no runtime allocated either */
	int on_stack = 0;
#ifdef HIPKFD_EXPECT_ROCM5
	cr_expect_eq(hipPointerGetAttributes(&a, &on_stack), hipErrorInvalidValue);
#else
	cr_expect_eq(hipPointerGetAttributes(&a, &on_stack), hipSuccess);
	cr_expect_eq(a.device, -2);
#endif
}
