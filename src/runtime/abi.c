/* The ABI selector (abi.h). The flag is a weak definition here and a strong one in abi_rocm5.c,
 * which only libamdhip64.so.5 links: the static linker picks the strong one there, so the
 * choice costs no constructor and no environment variable. */
#include "abi.h"

#include <stddef.h>
#include <string.h>

__attribute__((weak)) int hip_abi_rocm_major = 7;

int hip_abi_major(void)
{
	return hip_abi_rocm_major;
}

/* ROCm 5.x hipMemoryType: Host 0, Device 1, Array 2, Unified 3 (5.2's hip_runtime_api.h). ROCm 6
 * inserted Unregistered 0 and Managed 3 and moved Array/Unified to 10/11. ROCm 5 has neither
 * of the inserted values: managed memory reads as Device (isManaged says the rest) and memory
 * the runtime does not know reads as Host (0, what a ROCm 5 caller zero-fills). */
unsigned hip_abi_memory_type(enum hipMemoryType type)
{
	if (hip_abi_rocm_major != 5)
		return (unsigned)type;
	switch (type) {
	case hipMemoryTypeUnregistered:
	case hipMemoryTypeHost:
		return 0;
	case hipMemoryTypeArray:
		return 2;
	case hipMemoryTypeUnified:
		return 3;
	default:
		return 1;
	}
}

/* ROCm 5.x hipGraphNodeType starts at Kernel 1 and has no ExtSemaphore, MemAlloc, MemFree or
 * BatchMemOp nodes; its Memcpy1D (9) was dropped by ROCm 6. Types ROCm 5 cannot name read as
 * its hipGraphNodeTypeCount (12), never as another valid type. */
unsigned hip_abi_graph_node_type(hipGraphNodeType type)
{
	if (hip_abi_rocm_major != 5)
		return (unsigned)type;
	switch (type) {
	case hipGraphNodeTypeKernel:
	case hipGraphNodeTypeMemcpy:
	case hipGraphNodeTypeMemset:
	case hipGraphNodeTypeHost:
	case hipGraphNodeTypeGraph:
	case hipGraphNodeTypeEmpty:
	case hipGraphNodeTypeWaitEvent:
	case hipGraphNodeTypeEventRecord:
		return (unsigned)type + 1;
	case hipGraphNodeTypeMemcpyFromSymbol:
		return 10;
	case hipGraphNodeTypeMemcpyToSymbol:
		return 11;
	default:
		return 12;
	}
}

/* ROCm 5.2.3's hipMemAllocationProp (its hip_runtime_api.h): the enums are ints, and their
 * values did not change in ROCm 6. */
struct rocm5_alloc_prop {
	unsigned char compressionType;
	hipMemLocation location;
	int requestedHandleType;
	int type;
	unsigned short usage;
	void *win32HandleMetaData;
};
_Static_assert(offsetof(struct rocm5_alloc_prop, location) == 4, "ROCm 5 layout");
_Static_assert(offsetof(struct rocm5_alloc_prop, requestedHandleType) == 12, "ROCm 5 layout");
_Static_assert(offsetof(struct rocm5_alloc_prop, type) == 16, "ROCm 5 layout");
_Static_assert(offsetof(struct rocm5_alloc_prop, usage) == 20, "ROCm 5 layout");
_Static_assert(offsetof(struct rocm5_alloc_prop, win32HandleMetaData) == 24, "ROCm 5 layout");
_Static_assert(sizeof(struct rocm5_alloc_prop) == sizeof(hipMemAllocationProp),
	       "a caller's buffer holds either layout");

void hip_abi_alloc_prop_in(const hipMemAllocationProp *caller, hipMemAllocationProp *out)
{
	if (hip_abi_rocm_major != 5) {
		*out = *caller;
		return;
	}
	struct rocm5_alloc_prop p;
	memcpy(&p, caller, sizeof(p));
	memset(out, 0, sizeof(*out));
	out->type = (hipMemAllocationType)p.type;
	out->requestedHandleType = (hipMemAllocationHandleType)p.requestedHandleType;
	out->location = p.location;
	out->win32HandleMetaData = p.win32HandleMetaData;
	out->allocFlags.compressionType = p.compressionType;
	out->allocFlags.usage = p.usage;
}

void hip_abi_alloc_prop_out(const hipMemAllocationProp *in, hipMemAllocationProp *caller)
{
	if (hip_abi_rocm_major != 5) {
		*caller = *in;
		return;
	}
	struct rocm5_alloc_prop p;
	memset(&p, 0, sizeof(p));
	p.compressionType = in->allocFlags.compressionType;
	p.location = in->location;
	p.requestedHandleType = (int)in->requestedHandleType;
	p.type = (int)in->type;
	p.usage = in->allocFlags.usage;
	p.win32HandleMetaData = in->win32HandleMetaData;
	memcpy(caller, &p, sizeof(p));
}

enum hipMemoryType hip_abi_memory_type_in(unsigned type)
{
	if (hip_abi_rocm_major != 5)
		return (enum hipMemoryType)type;
	/* ROCm 5.2 hip_runtime_api.h: Host 0, Device 1, Array 2, Unified 3. */
	static const enum hipMemoryType rocm5[] = {hipMemoryTypeHost, hipMemoryTypeDevice,
						   hipMemoryTypeArray, hipMemoryTypeUnified};
	return type < 4 ? rocm5[type] : hipMemoryTypeUnregistered;
}

void hip_abi_memcpy2d_in(const hip_Memcpy2D *caller, hip_Memcpy2D *out)
{
	*out = *caller;
	out->srcMemoryType = hip_abi_memory_type_in((unsigned)caller->srcMemoryType);
	out->dstMemoryType = hip_abi_memory_type_in((unsigned)caller->dstMemoryType);
}

/* ROCm 5.2.3's HIP_MEMCPY3D (driver_types.h): the same fields with unsigned int where ROCm 6 has
 * size_t. The offsets below are those of that header on x86-64 (tests/abi/layout_probe.c). */
struct rocm5_memcpy3d {
	unsigned int srcXInBytes, srcY, srcZ, srcLOD;
	int srcMemoryType;
	const void *srcHost;
	hipDeviceptr_t srcDevice;
	hipArray_t srcArray;
	unsigned int srcPitch, srcHeight;
	unsigned int dstXInBytes, dstY, dstZ, dstLOD;
	int dstMemoryType;
	void *dstHost;
	hipDeviceptr_t dstDevice;
	hipArray_t dstArray;
	unsigned int dstPitch, dstHeight;
	unsigned int WidthInBytes, Height, Depth;
};
_Static_assert(sizeof(struct rocm5_memcpy3d) == 128, "ROCm 5 layout");
_Static_assert(offsetof(struct rocm5_memcpy3d, srcMemoryType) == 16, "ROCm 5 layout");
_Static_assert(offsetof(struct rocm5_memcpy3d, dstLOD) == 68, "ROCm 5 layout");
_Static_assert(offsetof(struct rocm5_memcpy3d, Depth) == 120, "ROCm 5 layout");

void hip_abi_memcpy3d_in(const HIP_MEMCPY3D *caller, HIP_MEMCPY3D *out)
{
	if (hip_abi_rocm_major != 5) {
		*out = *caller;
		return;
	}
	struct rocm5_memcpy3d c;
	memcpy(&c, caller, sizeof(c));
	*out = (HIP_MEMCPY3D){
		.srcXInBytes = c.srcXInBytes, .srcY = c.srcY, .srcZ = c.srcZ, .srcLOD = c.srcLOD,
		.srcMemoryType = hip_abi_memory_type_in((unsigned)c.srcMemoryType),
		.srcHost = c.srcHost, .srcDevice = c.srcDevice, .srcArray = c.srcArray,
		.srcPitch = c.srcPitch, .srcHeight = c.srcHeight,
		.dstXInBytes = c.dstXInBytes, .dstY = c.dstY, .dstZ = c.dstZ, .dstLOD = c.dstLOD,
		.dstMemoryType = hip_abi_memory_type_in((unsigned)c.dstMemoryType),
		.dstHost = c.dstHost, .dstDevice = c.dstDevice, .dstArray = c.dstArray,
		.dstPitch = c.dstPitch, .dstHeight = c.dstHeight,
		.WidthInBytes = c.WidthInBytes, .Height = c.Height, .Depth = c.Depth,
	};
}

/* ROCm 5.2.3: params is 64 bytes (fence, keyedMutex, reserved) in both forms, then flags. */
enum { ROCM5_SEM_PARAMS_SIZE = 136, ROCM5_SEM_FLAGS_AT = 64 };

static unsigned int rocm5_sem_flags(const void *arr, unsigned i)
{
	unsigned int flags;
	memcpy(&flags, (const char *)arr + (size_t)i * ROCM5_SEM_PARAMS_SIZE + ROCM5_SEM_FLAGS_AT,
	       sizeof(flags));
	return flags;
}

unsigned int hip_abi_sem_signal_flags(const hipExternalSemaphoreSignalParams *arr, unsigned i)
{
	return hip_abi_rocm_major == 5 ? rocm5_sem_flags(arr, i) : arr[i].flags;
}

unsigned int hip_abi_sem_wait_flags(const hipExternalSemaphoreWaitParams *arr, unsigned i)
{
	return hip_abi_rocm_major == 5 ? rocm5_sem_flags(arr, i) : arr[i].flags;
}
