/* Pointer queries from the address table: hipPointerGetAttributes and hipPointerGetAttribute.
 *
 * Memory the runtime does not know (plain malloc, the stack) is not an error: as in CUDA 11+ and
 * HIP 6+, it is reported as hipMemoryTypeUnregistered with hipSuccess.
 */
#include <stdint.h>
#include <string.h>

#include "../kfd/kfd.h"
#include "../memory/mem.h"
#include "../runtime/error.h"
#include "../runtime/abi.h"
#include "../runtime/internal.h"
#include "array.h"
#include "pointer.h"

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
	if (mem_lookup_host(ptr, &info) != 0) {
		/* the device address of registered memory that got a GPU VA of its own? */
		void *host = mem_host_of_alias(ptr);
		if (!host || mem_lookup_host(host, &info) != 0) {
			/* Memory the runtime does not know (freed, stack, malloc): ROCm 5's runtime fails
			 * (5.2.3 on kfdsim: hipErrorInvalidValue); ROCm 6+ and CUDA answer Unregistered.
			 * Each library follows its ABI (tests/abi/pointer_attributes_freed.md). */
			if (hip_abi_major() == 5)
				HIP_RETURN(hipErrorInvalidValue);
			memset(attributes, 0, sizeof(*attributes));
			attributes->type = (enum hipMemoryType)hip_abi_memory_type(hipMemoryTypeUnregistered);
			attributes->device = -2; /* CUDA's value for memory of no device */
			HIP_RETURN(hipSuccess);
		}
		at = host;
	}
	fill_attributes(attributes, &info, at);
	attributes->type = (enum hipMemoryType)hip_abi_memory_type(attributes->type);
	HIP_RETURN(hipSuccess);
}

/* The value an attribute reads as for memory the runtime does not describe: null pointers and
 * sizes, false, CUDA's -2 for "no device" (clr writes the same defaults before failing). False for an attribute this runtime does not
 * answer. */
static bool attribute_default(void *data, hipPointer_attribute attribute)
{
	switch (attribute) {
	case HIP_POINTER_ATTRIBUTE_CONTEXT:
	case HIP_POINTER_ATTRIBUTE_DEVICE_POINTER:
	case HIP_POINTER_ATTRIBUTE_HOST_POINTER:
	case HIP_POINTER_ATTRIBUTE_RANGE_START_ADDR:
		*(void **)data = NULL;
		break;
	case HIP_POINTER_ATTRIBUTE_SYNC_MEMOPS:
	case HIP_POINTER_ATTRIBUTE_IS_MANAGED:
	case HIP_POINTER_ATTRIBUTE_IS_LEGACY_HIP_IPC_CAPABLE:
	case HIP_POINTER_ATTRIBUTE_MAPPED:
		*(bool *)data = false;
		break;
	case HIP_POINTER_ATTRIBUTE_BUFFER_ID:
	case HIP_POINTER_ATTRIBUTE_RANGE_SIZE:
		*(uint32_t *)data = 0;
		break;
	case HIP_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
		*(int *)data = -2;
		break;
	case HIP_POINTER_ATTRIBUTE_MEMORY_TYPE:
	case HIP_POINTER_ATTRIBUTE_ACCESS_FLAGS:
		*(uint32_t *)data = 0;
		break;
	default:
		return false; /* an attribute not answered here: nothing is written */
	}
	return true;
}

/* A hipArray handle passed where a device pointer goes: AMD's runtime answers its memory type
 * (Array) and device, as the driver API does for a CUarray. Other attributes: not an array's. */
static bool array_attribute(void *data, hipPointer_attribute attribute, const void *ptr)
{
	const struct hipArray *arr = hip_array_find(ptr);
	if (!arr)
		return false;
	switch (attribute) {
	case HIP_POINTER_ATTRIBUTE_MEMORY_TYPE:
		*(uint32_t *)data = hip_abi_memory_type(hipMemoryTypeArray);
		return true;
	case HIP_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
		*(int *)data = arr->device;
		return true;
	default:
		return false;
	}
}

/* One attribute of a pointer. The width written is clr's (hip_memory.cpp
 * ihipPointerGetAttributes), which HIP programs are written against: pointers are 8 bytes; the
 * memory type, ordinal, buffer id and range size 4 (AMD's tests read the last two into an
 * unsigned int, so CUDA's 8-byte size would overwrite the caller's next variable); booleans 1.
 * On an error the attribute's default is written (attribute_default). */
static hipError_t pointer_attribute(void *data, hipPointer_attribute attribute, const void *ptr)
{
	switch (attribute) {
	case HIP_POINTER_ATTRIBUTE_CONTEXT:                    /* no driver contexts */
	case HIP_POINTER_ATTRIBUTE_P2P_TOKENS:                 /* deprecated in CUDA */
	case HIP_POINTER_ATTRIBUTE_IS_LEGACY_HIP_IPC_CAPABLE:
	case HIP_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES:
	case HIP_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE:
	case HIP_POINTER_ATTRIBUTE_MEMPOOL_HANDLE:
		/* Not answered by HIP: clr returns hipErrorNotSupported for these, whatever ptr is. */
		attribute_default(data, attribute);
		return hipErrorNotSupported;
	default:
		break;
	}
	struct mem_info info;
	bool known = mem_lookup_host(ptr, &info) == 0;
	hipPointerAttribute_t a;
	if (known)
		fill_attributes(&a, &info, ptr);
	else if (array_attribute(data, attribute, ptr))
		return hipSuccess;

	switch (attribute) {
	case HIP_POINTER_ATTRIBUTE_MEMORY_TYPE:
		*(uint32_t *)data = hip_abi_memory_type(known ? a.type : hipMemoryTypeUnregistered);
		/* ROCm 5 has no Unregistered type: its runtime fails on unknown memory (as above). */
		return known || hip_abi_major() != 5 ? hipSuccess : hipErrorInvalidValue;
	case HIP_POINTER_ATTRIBUTE_IS_MANAGED:
		*(bool *)data = known && a.isManaged;
		return hipSuccess;
	default:
		break;
	}
	attribute_default(data, attribute);
	if (!known)
		return hipErrorInvalidValue;

	switch (attribute) {
	case HIP_POINTER_ATTRIBUTE_DEVICE_POINTER:
		*(void **)data = a.devicePointer;
		break;
	case HIP_POINTER_ATTRIBUTE_HOST_POINTER:
		if (!a.hostPointer)
			return hipErrorInvalidValue; /* device memory: no host pointer (clr, CUDA) */
		*(void **)data = a.hostPointer;
		break;
	case HIP_POINTER_ATTRIBUTE_SYNC_MEMOPS:
		*(bool *)data = true;
		break;
	case HIP_POINTER_ATTRIBUTE_BUFFER_ID:
		*(uint32_t *)data = (uint32_t)info.alloc_id;
		break;
	case HIP_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
		*(int *)data = a.device;
		break;
	case HIP_POINTER_ATTRIBUTE_RANGE_START_ADDR:
		*(void **)data = info.base;
		break;
	case HIP_POINTER_ATTRIBUTE_RANGE_SIZE:
		*(uint32_t *)data = (uint32_t)info.size;
		break;
	case HIP_POINTER_ATTRIBUTE_MAPPED:
		*(bool *)data = true;
		break;
	case HIP_POINTER_ATTRIBUTE_ACCESS_FLAGS:
		/* hipMemAccessFlagsProtReadWrite (3): everything we map is read-write. */
		*(uint32_t *)data = 3;
		break;
	default:
		return hipErrorInvalidValue;
	}
	return hipSuccess;
}

hipError_t hipPointerGetAttribute(void *data, hipPointer_attribute attribute, hipDeviceptr_t ptr)
{
	if (!data || !ptr)
		HIP_RETURN(hipErrorInvalidValue);
	hipError_t ierr = hip_init_error();
	if (ierr != hipSuccess)
		HIP_RETURN(ierr);
	HIP_RETURN(pointer_attribute(data, attribute, (const void *)ptr));
}

/* cuPointerGetAttributes' rule, which clr follows: unlike the single query, an attribute the
 * pointer does not have (the host pointer of device memory, anything of unknown memory) is not an
 * error; it reads as its default (attribute_default). An unknown attribute still is. */
hipError_t hip_pointer_get_attributes_drv(unsigned int n, hipPointer_attribute *attributes,
					  void **data, hipDeviceptr_t ptr)
{
	if (n == 0 || !attributes || !data || !ptr)
		return hipErrorInvalidValue;
	hipError_t ierr = hip_init_error();
	if (ierr != hipSuccess)
		return ierr;
	for (unsigned int i = 0; i < n; i++) {
		if (!data[i])
			return hipErrorInvalidValue;
		hipError_t err = pointer_attribute(data[i], attributes[i], (const void *)ptr);
		if ((err == hipErrorInvalidValue || err == hipErrorNotSupported) &&
		    attribute_default(data[i], attributes[i]))
			err = hipSuccess;
		if (err != hipSuccess)
			return err;
	}
	return hipSuccess;
}
