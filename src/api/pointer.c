/* Pointer queries from the address table: hipPointerGetAttributes and hipPointerGetAttribute.
 *
 * Memory the runtime does not know (plain malloc, the stack) is not an error: as in CUDA 11+ and
 * HIP 6+, it is reported as hipMemoryTypeUnregistered with hipSuccess.
 */
#include <stdint.h>
#include <string.h>

#include "../kfd/kfd.h"
#include "../memory/mem.h"
#include "error.h"
#include "internal.h"

static int ordinal_of(const struct mem_info *info)
{
	struct hip_device *d = info->gpu ? hip_device_of_gpu(info->gpu) : NULL;
	return d ? d->ordinal : hip_device_current_ordinal();
}

static void *offset_of(uint64_t base, const struct mem_info *info, const void *p)
{
	return (void *)(uintptr_t)(base + ((uintptr_t)p - (uintptr_t)info->base));
}

static enum hipMemoryType type_of(const struct mem_info *info)
{
	switch (info->kind) {
	case MEM_HOST_PINNED:
	case MEM_HOST_REGISTERED:
		return hipMemoryTypeHost;
	case MEM_MANAGED:
		return hipMemoryTypeManaged;
	default:
		return hipMemoryTypeDevice;
	}
}

static unsigned host_flags_of(const struct mem_info *info)
{
	unsigned f = 0;
	if (info->kind != MEM_HOST_PINNED && info->kind != MEM_HOST_REGISTERED)
		return 0;
	f |= hipHostMallocMapped;
	if (info->flags & MEM_FLAG_ALL_GPUS)
		f |= hipHostMallocPortable;
	if (info->flags & MEM_FLAG_WC)
		f |= hipHostMallocWriteCombined;
	if (info->flags & MEM_FLAG_NUMA_USER)
		f |= hipHostMallocNumaUser;
	if (info->kind == MEM_HOST_PINNED)
		f |= (info->flags & MEM_FLAG_COHERENT) ? hipHostMallocCoherent : hipHostMallocNonCoherent;
	return f;
}

static void fill_attributes(hipPointerAttribute_t *a, const struct mem_info *info, const void *p)
{
	memset(a, 0, sizeof(*a));
	a->type = type_of(info);
	a->device = ordinal_of(info);
	a->devicePointer = offset_of(info->gpu_va, info, p);
	if (info->host_ptr)
		a->hostPointer = offset_of((uintptr_t)info->host_ptr, info, p);
	/* Device memory has no host pointer in HIP's and CUDA's answer even when the CPU can map it. */
	if (a->type == hipMemoryTypeDevice)
		a->hostPointer = NULL;
	a->isManaged = info->kind == MEM_MANAGED;
	a->allocationFlags = host_flags_of(info);
}

hipError_t hipPointerGetAttributes(hipPointerAttribute_t *attributes, const void *ptr)
{
	if (!attributes || !ptr)
		HIP_RETURN(hipErrorInvalidValue);
	hipError_t ierr = hip_init_error();
	if (ierr != hipSuccess)
		HIP_RETURN(ierr);
	struct mem_info info;
	const void *at = ptr;
	if (mem_lookup(ptr, &info) != 0) {
		/* the device address of registered memory that got a GPU VA of its own? */
		void *host = mem_host_of_alias(ptr);
		if (!host || mem_lookup(host, &info) != 0) {
			memset(attributes, 0, sizeof(*attributes));
			attributes->type = hipMemoryTypeUnregistered;
			attributes->device = -2; /* CUDA's value for memory of no device */
			HIP_RETURN(hipSuccess);
		}
		at = host;
	}
	fill_attributes(attributes, &info, at);
	HIP_RETURN(hipSuccess);
}

/* One attribute of a pointer. Sizes written follow CUDA's cuPointerGetAttribute: pointers and
 * sizes are 8 bytes, the memory type and ordinals 4, booleans 1 (a bool, as AMD writes them). */
hipError_t hipPointerGetAttribute(void *data, hipPointer_attribute attribute, hipDeviceptr_t ptr)
{
	if (!data || !ptr)
		HIP_RETURN(hipErrorInvalidValue);
	hipError_t ierr = hip_init_error();
	if (ierr != hipSuccess)
		HIP_RETURN(ierr);
	struct mem_info info;
	bool known = mem_lookup((const void *)ptr, &info) == 0;
	hipPointerAttribute_t a;
	if (known)
		fill_attributes(&a, &info, (const void *)ptr);

	switch (attribute) {
	case HIP_POINTER_ATTRIBUTE_MEMORY_TYPE:
		*(uint32_t *)data = known ? (uint32_t)a.type : (uint32_t)hipMemoryTypeUnregistered;
		HIP_RETURN(hipSuccess);
	case HIP_POINTER_ATTRIBUTE_IS_MANAGED:
		*(bool *)data = known && a.isManaged;
		HIP_RETURN(hipSuccess);
	default:
		break;
	}
	if (!known)
		HIP_RETURN(hipErrorInvalidValue);

	switch (attribute) {
	case HIP_POINTER_ATTRIBUTE_CONTEXT:
		*(void **)data = NULL; /* no driver contexts in HIP's primary-context model */
		break;
	case HIP_POINTER_ATTRIBUTE_DEVICE_POINTER:
		*(void **)data = a.devicePointer;
		break;
	case HIP_POINTER_ATTRIBUTE_HOST_POINTER:
		if (!a.hostPointer)
			HIP_RETURN(hipErrorInvalidValue);
		*(void **)data = a.hostPointer;
		break;
	case HIP_POINTER_ATTRIBUTE_SYNC_MEMOPS:
		*(bool *)data = true;
		break;
	case HIP_POINTER_ATTRIBUTE_BUFFER_ID:
		*(uint64_t *)data = info.alloc_id;
		break;
	case HIP_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
		*(int *)data = a.device;
		break;
	case HIP_POINTER_ATTRIBUTE_IS_LEGACY_HIP_IPC_CAPABLE:
		*(bool *)data = info.kind == MEM_DEVICE && !info.suballocated;
		break;
	case HIP_POINTER_ATTRIBUTE_RANGE_START_ADDR:
		*(void **)data = info.base;
		break;
	case HIP_POINTER_ATTRIBUTE_RANGE_SIZE:
		*(size_t *)data = info.size;
		break;
	case HIP_POINTER_ATTRIBUTE_MAPPED:
		*(bool *)data = true;
		break;
	case HIP_POINTER_ATTRIBUTE_ACCESS_FLAGS:
		/* hipMemAccessFlagsProtReadWrite (3): everything we map is read-write. */
		*(uint32_t *)data = 3;
		break;
	default:
		HIP_RETURN(hipErrorInvalidValue);
	}
	HIP_RETURN(hipSuccess);
}
