/* The ABI selector (abi.h). The flag is a weak definition here and a strong one in abi_rocm5.c,
 * which only libamdhip64.so.5 links: the static linker picks the strong one there, so the
 * choice costs no constructor and no environment variable. */
#include "abi.h"

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
