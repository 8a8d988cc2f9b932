/* Device memory: hipMalloc and friends, hipFree, address-range queries, hipMemGetInfo. */
#include <errno.h>
#include <string.h>

#include "../kfd/kfd.h"
#include "../memory/mem.h"
#include "device_props.h"
#include "../runtime/capture.h"
#include "../runtime/error.h"
#include "../runtime/internal.h"

/* Row pitch alignment of hipMallocPitch/hipMalloc3D; also what hipDeviceProp_t reports as
 * texturePitchAlignment (gfx9 image pitch alignment, 256 bytes). */
#define PITCH_ALIGN 256u

static hipError_t malloc_kind(void **ptr, size_t size, enum mem_kind kind, unsigned flags)
{
	if (!ptr) {
		hip_error_reason("the output pointer is NULL");
		return hipErrorInvalidValue;
	}
	/* *ptr is written on success only: a failed call leaves the caller's variable alone. */
	struct hip_device *d = hip_device_current();
	if (!d)
		return hip_init_error() ?: hipErrorInvalidDevice;
	if (size == 0) {
		*ptr = NULL; /* as CUDA and AMD: a NULL pointer and success */
		return hipSuccess;
	}
	bool vram = kind == MEM_DEVICE || kind == MEM_DEVICE_FINE || kind == MEM_DEVICE_UNCACHED;
	if (vram && size > hip_device_total_mem(d->node)) {
		hip_error_reason("%zu bytes is more than the device's memory", size);
		return hipErrorOutOfMemory;
	}
	void *p = NULL;
	int err = mem_alloc(d->gpu, size, kind, flags | MEM_FLAG_USER, &p);
	if (err) {
		hip_error_reason("allocating %zu bytes: %s", size, strerror(-err));
		return err == -ENOMEM ? hipErrorOutOfMemory : hip_error_from_errno(err);
	}
	*ptr = p;
	return hipSuccess;
}

hipError_t hipMalloc(void **ptr, size_t size)
{
	if (hip_capture_any())
		HIP_RETURN_IF_ERROR(hip_capture_unsafe_check());
	HIP_RETURN(malloc_kind(ptr, size, MEM_DEVICE, 0));
}

hipError_t hipExtMallocWithFlags(void **ptr, size_t size, unsigned int flags)
{
	switch (flags) {
	case hipDeviceMallocDefault:
		HIP_RETURN(malloc_kind(ptr, size, MEM_DEVICE, 0));
	case hipDeviceMallocFinegrained:
		HIP_RETURN(malloc_kind(ptr, size, MEM_DEVICE_FINE, 0));
#ifdef hipDeviceMallocUncached
	case hipDeviceMallocUncached:
		HIP_RETURN(malloc_kind(ptr, size, MEM_DEVICE_UNCACHED, MEM_FLAG_UNCACHED));
#endif
#ifdef hipMallocSignalMemory
	case hipMallocSignalMemory:
		/* Signal memory is one 8-byte signal value (AMD's rule). */
		if (size != 8)
			HIP_RETURN(hipErrorInvalidValue);
		HIP_RETURN(malloc_kind(ptr, size, MEM_DEVICE_UNCACHED, MEM_FLAG_UNCACHED));
#endif
	default:
		HIP_RETURN(hipErrorInvalidValue);
	}
}

/* Managed memory may live wholly on the device, so AMD's runtime refuses more than the current
 * device's free memory (hipMemGetInfo's figure) with hipErrorOutOfMemory; exactly all of it is
 * allowed. Pages still appear only when touched (src/memory/register.c). */
static hipError_t managed_fits(size_t size)
{
	struct hip_device *d = hip_device_current();
	size_t free_b = 0, total_b = 0;
	if (!d || mem_get_info(d->gpu, &free_b, &total_b) != 0)
		return hipSuccess; /* malloc_kind reports the missing device */
	if (size > free_b) {
		hip_error_reason("%zu bytes of managed memory is more than the device's %zu free bytes",
				 size, free_b);
		return hipErrorOutOfMemory;
	}
	return hipSuccess;
}

hipError_t hipMallocManaged(void **ptr, size_t size, unsigned int flags)
{
	HIP_RETURN_IF_ERROR(hip_capture_unsafe_check());
	if (!ptr)
		HIP_RETURN(hipErrorInvalidValue);
	if (size == 0 || (flags != hipMemAttachGlobal && flags != hipMemAttachHost))
		HIP_RETURN(hipErrorInvalidValue);
	HIP_RETURN_IF_ERROR(managed_fits(size));
	HIP_RETURN(malloc_kind(ptr, size, MEM_MANAGED, 0));
}

hipError_t hipMallocPitch(void **ptr, size_t *pitch, size_t width, size_t height)
{
	if (!ptr || !pitch)
		HIP_RETURN(hipErrorInvalidValue);
	size_t p = (width + PITCH_ALIGN - 1) & ~(size_t)(PITCH_ALIGN - 1);
	if (p < width || (height && p > SIZE_MAX / height))
		HIP_RETURN(hipErrorOutOfMemory);
	hipError_t err = malloc_kind(ptr, p * height, MEM_DEVICE, 0);
	if (err == hipSuccess)
		*pitch = p;
	HIP_RETURN(err);
}

/* The driver-API form: the element size must be 4, 8 or 16 bytes (CUDA's cuMemAllocPitch). */
hipError_t hipMemAllocPitch(hipDeviceptr_t *dptr, size_t *pitch, size_t widthInBytes,
			    size_t height, unsigned int elementSizeBytes)
{
	if (elementSizeBytes != 4 && elementSizeBytes != 8 && elementSizeBytes != 16)
		HIP_RETURN(hipErrorInvalidValue);
	return hipMallocPitch((void **)dptr, pitch, widthInBytes, height);
}

hipError_t hipMalloc3D(hipPitchedPtr *pitched, hipExtent extent)
{
	if (!pitched)
		HIP_RETURN(hipErrorInvalidValue);
	size_t p = (extent.width + PITCH_ALIGN - 1) & ~(size_t)(PITCH_ALIGN - 1);
	size_t rows = extent.height * extent.depth;
	if ((extent.depth && rows / extent.depth != extent.height) || (rows && p > SIZE_MAX / rows))
		HIP_RETURN(hipErrorOutOfMemory);
	void *ptr = NULL;
	hipError_t err = malloc_kind(&ptr, p * rows, MEM_DEVICE, 0);
	if (err != hipSuccess)
		HIP_RETURN(err);
	pitched->ptr = ptr;
	pitched->pitch = p;
	pitched->xsize = extent.width;
	pitched->ysize = extent.height;
	HIP_RETURN(hipSuccess);
}

/* hipFree waits for the device's work first (CUDA and AMD do: a kernel may still use the memory).
 * An unknown or interior pointer is hipErrorInvalidValue and frees nothing (AMD frees the whole
 * block for an interior pointer; CUDA's answer is the safe one). */
hipError_t hipFree(void *ptr)
{
	if (hip_capture_any())
		HIP_RETURN_IF_ERROR(hip_capture_unsafe_check());
	if (!ptr)
		HIP_RETURN(hipSuccess);
	/* A pointer the address table knows was allocated by an initialised runtime of this process
	 * (a forked child's table starts empty), so only a miss asks why. */
	struct kfd_gpu *gpu;
	if (mem_free_owner(ptr, &gpu) != 0)
		HIP_RETURN(hip_init_error() ?: hipErrorInvalidValue);
	hip_device_sync_owner(gpu);
	if (hip_capture_mem_free_outside(ptr))
		HIP_RETURN(hipSuccess);
	int err = mem_free(ptr);
	HIP_RETURN(err ? hipErrorInvalidValue : hipSuccess);
}

hipError_t hipMemPtrGetInfo(void *ptr, size_t *size)
{
	if (!ptr || !size)
		HIP_RETURN(hipErrorInvalidValue);
	struct mem_info info;
	/* A block hipFreeAsync returned to its pool is still mapped but no longer the program's. */
	if (mem_lookup(ptr, &info) != 0 || (hip_pool_holds_free && hip_pool_holds_free(ptr)))
		HIP_RETURN(hipErrorInvalidValue);
	*size = info.size;
	HIP_RETURN(hipSuccess);
}

/* NULL is an address no allocation holds: hipErrorNotFound like any other (clr, CUDA). */
hipError_t hipMemGetAddressRange(hipDeviceptr_t *base, size_t *size, hipDeviceptr_t ptr)
{
	struct mem_info info;
	if (!ptr || mem_lookup((const void *)ptr, &info) != 0)
		HIP_RETURN(hipErrorNotFound);
	if (base)
		*base = (hipDeviceptr_t)info.base;
	if (size)
		*size = info.size;
	HIP_RETURN(hipSuccess);
}

/* Either output may be NULL: it is then not written, as CUDA answers (cudaMemGetInfo succeeds),
 * and as AMD's tests call it (hipMemGetInfo(&free, nullptr)); AMD's runtime dereferences it. */
hipError_t hipMemGetInfo(size_t *free_bytes, size_t *total_bytes)
{
	struct hip_device *d = hip_device_current();
	if (!d)
		HIP_RETURN(hip_init_error() ?: hipErrorInvalidDevice);
	size_t free_b = 0, total_b = 0;
	int err = mem_get_info(d->gpu, &free_b, &total_b);
	if (err)
		HIP_RETURN(hip_error_from_errno(err));
	if (free_bytes)
		*free_bytes = free_b;
	if (total_bytes)
		*total_bytes = total_b;
	HIP_RETURN(hipSuccess);
}
