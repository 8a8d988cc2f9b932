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
