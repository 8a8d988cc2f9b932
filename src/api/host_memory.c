/* Host memory visible to the GPU: hipHostMalloc/hipHostAlloc/hipHostFree (pinned system memory)
 * and hipHostRegister/hipHostUnregister (pinning user memory), hipHostGetDevicePointer,
 * hipHostGetFlags.
 *
 * Coherence follows AMD's documented rule: hipHostMallocCoherent gives fine-grained memory,
 * hipHostMallocNonCoherent coarse-grained, hipHostMallocMapped fine-grained; with none of the
 * three, HIP_HOST_COHERENT=1 selects fine-grained and the default is coarse-grained.
 */
#include <errno.h>
#include <stdint.h>

#include "../memory/mem.h"
#include "../runtime/capture.h"
#include "../runtime/error.h"
#include "../runtime/internal.h"

#ifndef hipHostMallocUncached
#define hipHostMallocUncached 0
#endif

/* The flags hipHostMalloc accepts. The caller's flags are stored with the allocation as they
 * were given (mem_set_user_flags) for hipHostGetFlags. */
static const unsigned host_malloc_known = hipHostMallocPortable | hipHostMallocMapped |
					  hipHostMallocWriteCombined | hipHostMallocNumaUser |
					  hipHostMallocCoherent | hipHostMallocNonCoherent |
					  hipHostMallocUncached;

static unsigned host_mem_flags(unsigned flags)
{
	unsigned mf = 0;
	bool coherent;
	if (flags & hipHostMallocCoherent)
		coherent = true;
	else if (flags & hipHostMallocMapped)
		coherent = true;
	else if (flags & hipHostMallocNonCoherent)
		coherent = false;
	else
		coherent = hip_host_coherent_default;
	if (coherent)
		mf |= MEM_FLAG_COHERENT;
	/* Every pinned allocation is mapped to every GPU: HIP has unified addressing, so memory is
	 * "portable" whether or not the flag says so (AMD maps to all devices likewise). */
	mf |= MEM_FLAG_ALL_GPUS;
	if (flags & hipHostMallocWriteCombined)
		mf |= MEM_FLAG_WC;
	if (flags & hipHostMallocNumaUser)
		mf |= MEM_FLAG_NUMA_USER;
	if (flags & hipHostMallocUncached)
		mf |= MEM_FLAG_UNCACHED;
	return mf;
}

hipError_t hipHostMalloc(void **ptr, size_t size, unsigned int flags)
{
	HIP_RETURN_IF_ERROR(hip_capture_unsafe_check());
	if (!ptr)
		HIP_RETURN(hipErrorInvalidValue);
	if ((flags & ~host_malloc_known) ||
	    ((flags & hipHostMallocCoherent) && (flags & hipHostMallocNonCoherent)))
		HIP_RETURN(hipErrorInvalidValue);
	struct hip_device *d = hip_device_current();
	if (!d)
		HIP_RETURN(hip_init_error() ?: hipErrorInvalidDevice);
	if (size == 0) {
		*ptr = NULL;
		HIP_RETURN(hipSuccess);
	}
	/* *ptr is written on success only: a failed call leaves the caller's variable alone. */
	void *p = NULL;
	int err = mem_alloc(d->gpu, size, MEM_HOST_PINNED, host_mem_flags(flags) | MEM_FLAG_USER, &p);
	if (!err)
		err = mem_set_user_flags(p, flags);
	if (err) {
		if (p)
			mem_free(p);
		/* The arguments were checked above: what fails now is the allocation itself (a size
		 * no mapping can hold included), as CUDA and clr report it. */
		HIP_RETURN(err == -ENODEV ? hip_error_from_errno(err) : hipErrorOutOfMemory);
	}
	*ptr = p;
	HIP_RETURN(hipSuccess);
}

hipError_t hipHostAlloc(void **ptr, size_t size, unsigned int flags)
{
	return hipHostMalloc(ptr, size, flags);
}

hipError_t hipMallocHost(void **ptr, size_t size)
{
	return hipHostMalloc(ptr, size, 0);
}

hipError_t hipMemAllocHost(void **ptr, size_t size)
{
	return hipHostMalloc(ptr, size, 0);
}

/* Frees only what hipHostMalloc returned, by its base address; anything else (device memory, a
 * registered range, an interior pointer) is hipErrorInvalidValue. Waits for every device first,
 * as the GPU may still read the memory. */
hipError_t hipHostFree(void *ptr)
{
	HIP_RETURN_IF_ERROR(hip_capture_unsafe_check());
	if (!ptr)
		HIP_RETURN(hipSuccess);
	hipError_t ierr = hip_init_error();
	if (ierr != hipSuccess)
		HIP_RETURN(ierr);
	struct mem_info info;
	if (mem_lookup(ptr, &info) != 0 || info.base != ptr || info.kind != MEM_HOST_PINNED)
		HIP_RETURN(hipErrorInvalidValue);
	for (int i = 0; i < hip_device_count(); i++)
		hip_device_sync_all(hip_device_peek(i));
	HIP_RETURN(mem_free(ptr) ? hipErrorInvalidValue : hipSuccess);
}

hipError_t hipFreeHost(void *ptr)
{
	return hipHostFree(ptr);
}

/* Registering a range again that starts where a live registration starts and is no longer than
 * it succeeds and nests (one more hipHostUnregister is then needed): clr re-registers such a
 * range without complaint (hip_memory.cpp ihipHostRegister), and programs that leak a
 * registration, free the buffer and get the same address back from the heap rely on it. The
 * pages are pinned already, so nothing is lost. Any other overlap (a different start, a longer
 * range) is CUDA's hipErrorHostMemoryAlreadyRegistered: two registrations of one page with
 * different extents cannot both be honoured. The latest registration's flags are kept. */
hipError_t hipHostRegister(void *ptr, size_t size, unsigned int flags)
{
	const unsigned known = hipHostRegisterPortable | hipHostRegisterMapped |
			       hipHostRegisterIoMemory
#ifdef hipHostRegisterReadOnly
			       | hipHostRegisterReadOnly
#endif
		;
	if (!ptr || size == 0 || (flags & ~known))
		HIP_RETURN(hipErrorInvalidValue);
	struct hip_device *d = hip_device_current();
	if (!d)
		HIP_RETURN(hip_init_error() ?: hipErrorInvalidDevice);
	int err = mem_host_register(d->gpu, ptr, size, MEM_FLAG_ALL_GPUS | MEM_FLAG_COHERENT);
	if (!err)
		mem_set_user_flags(ptr, flags); /* cannot fail: ptr starts a live registration */
	if (err == -EEXIST)
		HIP_RETURN(hipErrorHostMemoryAlreadyRegistered);
	if (err == -ENOMEM)
		HIP_RETURN(hipErrorOutOfMemory);
	HIP_RETURN(err ? hipErrorInvalidValue : hipSuccess);
}

hipError_t hipHostUnregister(void *ptr)
{
	if (!ptr)
		HIP_RETURN(hipErrorInvalidValue);
	hipError_t ierr = hip_init_error();
	if (ierr != hipSuccess)
		HIP_RETURN(ierr);
	struct mem_info info;
	if (mem_lookup(ptr, &info) != 0 || info.kind != MEM_HOST_REGISTERED || info.base != ptr)
		HIP_RETURN(hipErrorHostMemoryNotRegistered);
	for (int i = 0; i < hip_device_count(); i++)
		hip_device_sync_all(hip_device_peek(i));
	HIP_RETURN(mem_host_unregister(ptr) ? hipErrorHostMemoryNotRegistered : hipSuccess);
}

hipError_t hipHostGetDevicePointer(void **devPtr, void *hstPtr, unsigned int flags)
{
	if (!devPtr || !hstPtr || flags != 0)
		HIP_RETURN(hipErrorInvalidValue);
	*devPtr = NULL;
	struct mem_info info;
	if (mem_lookup(hstPtr, &info) != 0 ||
	    (info.kind != MEM_HOST_PINNED && info.kind != MEM_HOST_REGISTERED))
		HIP_RETURN(hipErrorInvalidValue);
	/* Registered memory may live at a different GPU address than its CPU address. */
	*devPtr = (void *)(uintptr_t)(info.gpu_va + ((uintptr_t)hstPtr - (uintptr_t)info.base));
	HIP_RETURN(hipSuccess);
}

/* The flags exactly as hipHostMalloc/hipHostAlloc received them (clr answers with the flags it
 * stored at allocation, hip_memory.cpp hipHostGetFlags; CUDA likewise). Any address inside the
 * allocation works, including the device pointer of hipHostGetDevicePointer (the same address).
 * Registered memory is refused as by clr and CUDA: hipHostGetFlags describes hipHostMalloc
 * allocations only. */
hipError_t hipHostGetFlags(unsigned int *flagsPtr, void *hostPtr)
{
	if (!flagsPtr || !hostPtr)
		HIP_RETURN(hipErrorInvalidValue);
	struct mem_info info;
	if (mem_lookup(hostPtr, &info) != 0 || info.kind != MEM_HOST_PINNED)
		HIP_RETURN(hipErrorInvalidValue);
	*flagsPtr = info.user_flags;
	HIP_RETURN(hipSuccess);
}
