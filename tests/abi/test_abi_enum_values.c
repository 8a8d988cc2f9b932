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
