/* Virtual memory management: hipMemAddressReserve, hipMemCreate, hipMemMap and friends.
 *
 * Objects, all protected by vmm_lock:
 *  - a reservation: a VA range from mem_vmm_reserve(), freed whole by hipMemAddressFree;
 *  - a physical allocation (the hipMemGenericAllocationHandle_t): a mem_phys with a reference
 *    count; hipMemCreate/Import holds one, every mapping holds one (as clr's GenericAllocation
 *    does), so hipMemRelease before hipMemUnmap keeps the memory until the last unmap;
 *  - a mapping: a page range [offset, offset + size) of one physical allocation at a VA inside a
 *    reservation, with the access flags hipMemSetAccess recorded per device.
 *
 * Handles are checked against the live lists, so a released or made-up handle is an error, not a
 * crash. Errors follow clr's hip_vm.cpp where it decides, and CUDA's driver VMM documentation
 * otherwise (where clr is looser: a mapping offset, which clr refuses, works as in CUDA).
 *
 * Granularity: the minimum is ROCr's HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_GRANULE (a 4 KiB
 * page), which clr reports for both options; the recommended one is ROCr's
 * RUNTIME_ALLOC_REC_GRANULE for VRAM (2 MiB, the GPU's large page), as CUDA keeps the two apart.
 *
 * Access: the owning device can use a mapping from hipMemMap on (the memory layer maps it there
 * at once), but hipMemGetAccess reports only what hipMemSetAccess granted, as CUDA does. Every
 * device's access can be set to none, read-only or read-write at any time (src/memory/vmm.c).
 *
 * Sharing: a handle created with hipMemHandleTypePosixFileDescriptor exports a dma-buf
 * descriptor, which hipMemImportFromShareableHandle takes back in this or another process.
 *
 * hipMemGetHandleForAddressRange (a dma-buf for ordinary device memory) lives here too.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../memory/mem.h"
#include "../memory/vmm.h"
#include "../runtime/abi.h"
#include "../runtime/error.h"
#include "../runtime/internal.h"
#include "../runtime/runtime.h"

/* See the file comment: ROCr's RUNTIME_ALLOC_GRANULE and RUNTIME_ALLOC_REC_GRANULE. */
#define VMM_MIN_GRANULE 4096ull
#define VMM_REC_GRANULE (2ull << 20)
#define VMM_MAX_DEVICES 32

struct vmm_alloc {
	struct mem_phys *ph;
	size_t size;
	hipMemAllocationProp prop;
	int refs;                       /* hipMemCreate/Retain + one per mapping (vmm_lock) */
	struct vmm_alloc *next;
};

struct vmm_reservation {
	char *base;
	size_t size;
	struct vmm_reservation *next;
};

struct vmm_mapping {
	char *va;
	size_t size;
	struct vmm_alloc *alloc;
	unsigned char access[VMM_MAX_DEVICES]; /* hipMemAccessFlags per device ordinal */
	bool access_set;                       /* hipMemSetAccess was called on it */
	struct vmm_mapping *next;
};

static pthread_mutex_t vmm_lock = PTHREAD_MUTEX_INITIALIZER;
static struct vmm_alloc *vmm_allocs;             /* live handles (vmm_lock) */
static struct vmm_reservation *vmm_reservations; /* (vmm_lock) */
static struct vmm_mapping *vmm_mappings;         /* (vmm_lock) */

/* ---- lookups (vmm_lock held) ------------------------------------------------------------------ */

static struct vmm_alloc *alloc_find(hipMemGenericAllocationHandle_t h)
{
	for (struct vmm_alloc *a = vmm_allocs; a; a = a->next)
		if ((void *)a == (void *)h)
			return a;
	return NULL;
}

static struct vmm_reservation *reservation_containing(const char *p, size_t size)
{
	for (struct vmm_reservation *r = vmm_reservations; r; r = r->next)
		if (p >= r->base && size <= r->size && (size_t)(p - r->base) <= r->size - size)
			return r;
	return NULL;
}

static struct vmm_mapping *mapping_containing(const char *p)
{
	for (struct vmm_mapping *m = vmm_mappings; m; m = m->next)
		if (p >= m->va && p < m->va + m->size)
			return m;
	return NULL;
}

static bool mapping_overlaps(const char *p, size_t size)
{
	for (struct vmm_mapping *m = vmm_mappings; m; m = m->next)
		if (p < m->va + m->size && m->va < p + size)
			return true;
	return false;
}

/* Drop one reference; the last one frees the physical memory. */
static void alloc_put(struct vmm_alloc *a)
{
	if (--a->refs > 0)
		return;
	for (struct vmm_alloc **pp = &vmm_allocs; *pp; pp = &(*pp)->next) {
		if (*pp == a) {
			*pp = a->next;
			break;
		}
	}
	mem_vmm_destroy(a->ph);
	free(a);
}

static bool device_location_valid(const hipMemLocation *loc)
{
	return loc->type == hipMemLocationTypeDevice && loc->id >= 0 && loc->id < hip_device_count() &&
	       loc->id < VMM_MAX_DEVICES;
}

/* The GPU state of a device ordinal, opened if needed. */
static struct kfd_gpu *device_gpu(int ordinal)
{
	struct hip_device *d = hip_device_get(ordinal);
	return d ? d->gpu : NULL;
}

/* Work already queued may still use a range about to be unmapped or narrowed: wait for every
 * device first, as hipFree does (clr orders the unmap after the null stream's work). */
static void devices_idle(void)
{
	for (int i = 0; i < hip_device_count(); i++) {
		struct hip_device *d = hip_device_peek(i);
		if (d)
			hip_device_sync_all(d);
	}
}

static hipError_t no_device_error(void)
{
	return hip_device_count() > 0 ? hipSuccess : hipErrorNoDevice;
}

/* ---- granularity and reservations ------------------------------------------------------------- */

hipError_t hipMemGetAllocationGranularity(size_t *granularity, const hipMemAllocationProp *caller,
					  hipMemAllocationGranularity_flags option)
{
	HIP_RETURN_IF_ERROR(no_device_error());
	hipMemAllocationProp own;
	const hipMemAllocationProp *prop = caller ? (hip_abi_alloc_prop_in(caller, &own), &own) : NULL;
	if (!granularity || !prop || prop->type != hipMemAllocationTypePinned ||
	    !device_location_valid(&prop->location) ||
	    (option != hipMemAllocationGranularityMinimum &&
	     option != hipMemAllocationGranularityRecommended))
		HIP_RETURN(hipErrorInvalidValue);
	*granularity = option == hipMemAllocationGranularityMinimum ? VMM_MIN_GRANULE : VMM_REC_GRANULE;
	HIP_RETURN(hipSuccess);
}

/* `addr` is a hint (CUDA and clr may return another address); the memory layer places ranges in
 * the GPUVM aperture itself, so the hint is not used. */
hipError_t hipMemAddressReserve(void **ptr, size_t size, size_t alignment, void *addr,
				unsigned long long flags)
{
	(void)addr;
	if (!ptr || flags != 0)
		HIP_RETURN(hipErrorInvalidValue);
	*ptr = NULL;
	HIP_RETURN_IF_ERROR(no_device_error());
	/* clr: a size that is not a granule multiple or an alignment that is not a power of two is an
	 * allocation error, not an invalid value. */
	if (size == 0 || size % VMM_MIN_GRANULE || (alignment & (alignment - 1)))
		HIP_RETURN(hipErrorMemoryAllocation);
	struct vmm_reservation *r = calloc(1, sizeof(*r));
	if (!r)
		HIP_RETURN(hipErrorOutOfMemory);
	struct kfd_gpu *gpu = device_gpu(0);
	void *va = NULL;
	int err = gpu ? mem_vmm_reserve(gpu, size, alignment, &va) : -ENODEV;
	if (err) {
		free(r);
		HIP_RETURN(err == -ENODEV ? hipErrorNoDevice : hipErrorOutOfMemory);
	}
	r->base = va;
	r->size = size;
	pthread_mutex_lock(&vmm_lock);
	r->next = vmm_reservations;
	vmm_reservations = r;
	pthread_mutex_unlock(&vmm_lock);
	*ptr = va;
	HIP_RETURN(hipSuccess);
}

/* CUDA: the whole reserved range is freed at once, and every mapping in it must be unmapped
 * first. */
hipError_t hipMemAddressFree(void *ptr, size_t size)
{
	if (!ptr || size == 0)
		HIP_RETURN(hipErrorInvalidValue);
	pthread_mutex_lock(&vmm_lock);
	struct vmm_reservation **pp = &vmm_reservations;
	while (*pp && ((*pp)->base != ptr || (*pp)->size != size))
		pp = &(*pp)->next;
	struct vmm_reservation *r = *pp;
	hipError_t herr = hipSuccess;
	if (!r || mapping_overlaps(ptr, size)) {
		herr = hipErrorInvalidValue;
	} else {
		int err = mem_vmm_release(ptr, size);
		if (err)
			herr = hip_error_from_errno(err);
		else
			*pp = r->next;
	}
	pthread_mutex_unlock(&vmm_lock);
	if (herr == hipSuccess)
		free(r);
	HIP_RETURN(herr);
}

/* ---- physical allocations --------------------------------------------------------------------- */

hipError_t hipMemCreate(hipMemGenericAllocationHandle_t *handle, size_t size,
			const hipMemAllocationProp *caller, unsigned long long flags)
{
	HIP_RETURN_IF_ERROR(no_device_error());
	hipMemAllocationProp own;
	const hipMemAllocationProp *prop = caller ? (hip_abi_alloc_prop_in(caller, &own), &own) : NULL;
	if (!handle || size == 0 || flags != 0 || !prop || prop->type != hipMemAllocationTypePinned ||
	    !device_location_valid(&prop->location))
		HIP_RETURN(hipErrorInvalidValue);
	*handle = NULL;
	/* clr: POSIX descriptors are the only OS handles on Linux. */
	if (prop->requestedHandleType != hipMemHandleTypeNone &&
	    prop->requestedHandleType != hipMemHandleTypePosixFileDescriptor)
		HIP_RETURN(hipErrorNotSupported);
	if (size % VMM_MIN_GRANULE)
		HIP_RETURN(hipErrorInvalidValue);
	struct kfd_gpu *gpu = device_gpu(prop->location.id);
	if (!gpu)
		HIP_RETURN(hipErrorInvalidDevice);
	struct vmm_alloc *a = calloc(1, sizeof(*a));
	if (!a)
		HIP_RETURN(hipErrorOutOfMemory);
	int err = mem_vmm_create(gpu, size, &a->ph);
	if (err) {
		free(a);
		HIP_RETURN(err == -ENOMEM ? hipErrorOutOfMemory : hip_error_from_errno(err));
	}
	a->size = size;
	a->prop = *prop;
	a->refs = 1;
	pthread_mutex_lock(&vmm_lock);
	a->next = vmm_allocs;
	vmm_allocs = a;
	pthread_mutex_unlock(&vmm_lock);
	*handle = (hipMemGenericAllocationHandle_t)a;
	HIP_RETURN(hipSuccess);
}

hipError_t hipMemRelease(hipMemGenericAllocationHandle_t handle)
{
	if (!handle)
		HIP_RETURN(hipErrorInvalidValue);
	pthread_mutex_lock(&vmm_lock);
	struct vmm_alloc *a = alloc_find(handle);
	if (a)
		alloc_put(a);
	pthread_mutex_unlock(&vmm_lock);
	HIP_RETURN(a ? hipSuccess : hipErrorInvalidValue);
}

hipError_t hipMemGetAllocationPropertiesFromHandle(hipMemAllocationProp *prop,
						   hipMemGenericAllocationHandle_t handle)
{
	if (!prop || !handle)
		HIP_RETURN(hipErrorInvalidValue);
	pthread_mutex_lock(&vmm_lock);
	struct vmm_alloc *a = alloc_find(handle);
	if (a)
		hip_abi_alloc_prop_out(&a->prop, prop);
	pthread_mutex_unlock(&vmm_lock);
	HIP_RETURN(a ? hipSuccess : hipErrorInvalidValue);
}

/* CUDA: the handle of the allocation mapped at `addr` (any address inside the mapping), with a
 * new reference that hipMemRelease drops. */
hipError_t hipMemRetainAllocationHandle(hipMemGenericAllocationHandle_t *handle, void *addr)
{
	if (!handle || !addr)
		HIP_RETURN(hipErrorInvalidValue);
	pthread_mutex_lock(&vmm_lock);
	struct vmm_mapping *m = mapping_containing(addr);
	if (m) {
		m->alloc->refs++;
		*handle = (hipMemGenericAllocationHandle_t)m->alloc;
	}
	pthread_mutex_unlock(&vmm_lock);
	HIP_RETURN(m ? hipSuccess : hipErrorInvalidValue);
}

/* ---- mapping ---------------------------------------------------------------------------------- */

static hipError_t map_locked(char *va, size_t size, size_t offset, struct vmm_alloc *a)
{
	if (!reservation_containing(va, size) || mapping_overlaps(va, size))
		return hipErrorInvalidValue;
	if (offset > a->size || size > a->size - offset)
		return hipErrorInvalidValue;
	struct vmm_mapping *m = calloc(1, sizeof(*m));
	if (!m)
		return hipErrorOutOfMemory;
	int err = mem_vmm_map(va, size, a->ph, offset);
	if (err) {
		free(m);
		return err == -EINVAL || err == -EEXIST ? hipErrorInvalidValue
		       : err == -ENOMEM ? hipErrorOutOfMemory : hipErrorMapFailed;
	}
	m->va = va;
	m->size = size;
	m->alloc = a;
	a->refs++;
	m->next = vmm_mappings;
	vmm_mappings = m;
	return hipSuccess;
}

hipError_t hipMemMap(void *ptr, size_t size, size_t offset, hipMemGenericAllocationHandle_t handle,
		     unsigned long long flags)
{
	/* CUDA: va, size and offset are multiples of the minimum granularity, and the range lies
	 * inside the allocation (clr refuses every offset but 0). */
	if (!ptr || !handle || size == 0 || flags != 0)
		HIP_RETURN(hipErrorInvalidValue);
	if ((uintptr_t)ptr % VMM_MIN_GRANULE || size % VMM_MIN_GRANULE || offset % VMM_MIN_GRANULE)
		HIP_RETURN(hipErrorInvalidValue);
	pthread_mutex_lock(&vmm_lock);
	struct vmm_alloc *a = alloc_find(handle);
	hipError_t herr = a ? map_locked(ptr, size, offset, a) : hipErrorInvalidValue;
	pthread_mutex_unlock(&vmm_lock);
	HIP_RETURN(herr);
}

static void mapping_unlink(struct vmm_mapping *m)
{
	for (struct vmm_mapping **pp = &vmm_mappings; *pp; pp = &(*pp)->next) {
		if (*pp == m) {
			*pp = m->next;
			return;
		}
	}
}

/* Every mapping touched by [p, p + size) must lie inside it entirely (CUDA: partial unmaps are
 * invalid); the range must hold at least one mapping. */
static bool unmap_range_valid(const char *p, size_t size)
{
	bool any = false;
	for (struct vmm_mapping *m = vmm_mappings; m; m = m->next) {
		if (!(p < m->va + m->size && m->va < p + size))
			continue;
		if (m->va < p || m->va + m->size > p + size)
			return false;
		any = true;
	}
	return any;
}

hipError_t hipMemUnmap(void *ptr, size_t size)
{
	char *p = ptr;

	if (!ptr || size == 0)
		HIP_RETURN(hipErrorInvalidValue);
	devices_idle();
	pthread_mutex_lock(&vmm_lock);
	hipError_t herr = unmap_range_valid(p, size) ? hipSuccess : hipErrorInvalidValue;
	for (struct vmm_mapping *m = vmm_mappings, *next; herr == hipSuccess && m; m = next) {
		next = m->next;
		if (m->va < p || m->va >= p + size)
			continue;
		int err = mem_vmm_unmap(m->va, m->size);
		if (err) {
			herr = hip_error_from_errno(err);
			break;
		}
		mapping_unlink(m);
		alloc_put(m->alloc);
		free(m);
	}
	pthread_mutex_unlock(&vmm_lock);
	HIP_RETURN(herr);
}

hipError_t hipMemMapArrayAsync(hipArrayMapInfo *mapInfoList, unsigned int count, hipStream_t stream)
{
	(void)stream;
	if (!mapInfoList || count == 0)
		HIP_RETURN(hipErrorInvalidValue);
	/* No sparse or mipmapped arrays in this runtime. */
	HIP_RETURN(hipErrorNotSupported);
}

/* ---- access ----------------------------------------------------------------------------------- */

static hipError_t access_check(const hipMemAccessDesc *desc, size_t count)
{
	for (size_t i = 0; i < count; i++) {
		if (!device_location_valid(&desc[i].location))
			return hipErrorInvalidValue;
		if (desc[i].flags != hipMemAccessFlagsProtNone && desc[i].flags != hipMemAccessFlagsProtRead &&
		    desc[i].flags != hipMemAccessFlagsProtReadWrite)
			return hipErrorInvalidValue;
	}
	return hipSuccess;
}

/* Any device's access may change at any time; the memory layer maps, remaps read-only or
 * unmaps the mapping on that GPU. */
static hipError_t access_apply(struct vmm_mapping *m, const hipMemAccessDesc *d)
{
	int dev = d->location.id;
	struct kfd_gpu *gpu = device_gpu(dev);
	int err = gpu ? mem_vmm_access(m->va, gpu, (enum mem_vmm_prot)d->flags) : -ENODEV;

	if (err)
		return err == -ENODEV ? hipErrorInvalidDevice : hip_error_from_errno(err);
	m->access[dev] = (unsigned char)d->flags;
	m->access_set = true;
	return hipSuccess;
}

hipError_t hipMemSetAccess(void *ptr, size_t size, const hipMemAccessDesc *desc, size_t count)
{
	char *p = ptr;

	if (!ptr || size == 0 || !desc || count == 0)
		HIP_RETURN(hipErrorInvalidValue);
	HIP_RETURN_IF_ERROR(access_check(desc, count));
	devices_idle();
	pthread_mutex_lock(&vmm_lock);
	/* CUDA: the whole range must be mapped; it may span several mappings. Checked before any
	 * change, so a failed call changes nothing. */
	hipError_t herr = hipSuccess;
	for (char *q = p; q < p + size && herr == hipSuccess;) {
		struct vmm_mapping *m = mapping_containing(q);
		if (!m)
			herr = hipErrorInvalidValue;
		else
			q = m->va + m->size;
	}
	for (char *q = p; q < p + size && herr == hipSuccess;) {
		struct vmm_mapping *m = mapping_containing(q);
		for (size_t i = 0; i < count && herr == hipSuccess; i++)
			herr = access_apply(m, &desc[i]);
		q = m->va + m->size;
	}
	pthread_mutex_unlock(&vmm_lock);
	HIP_RETURN(herr);
}

hipError_t hipMemGetAccess(unsigned long long *flags, const hipMemLocation *location, void *ptr)
{
	if (!flags || !location || !ptr || !device_location_valid(location))
		HIP_RETURN(hipErrorInvalidValue);
	pthread_mutex_lock(&vmm_lock);
	struct vmm_mapping *m = mapping_containing(ptr);
	if (m)
		*flags = m->access[location->id];
	pthread_mutex_unlock(&vmm_lock);
	HIP_RETURN(m ? hipSuccess : hipErrorInvalidValue);
}

static int vmm_access_of(const void *ptr, int ordinal)
{
	int access = -1;
	if (ordinal < 0 || ordinal >= VMM_MAX_DEVICES)
		return -1;
	pthread_mutex_lock(&vmm_lock);
	struct vmm_mapping *m = mapping_containing((void *)ptr);
	/* A mapping no hipMemSetAccess narrowed yet (or external memory) is as mapped: read-write
	 * for its device. */
	if (m)
		access = m->access_set ? (int)m->access[ordinal] : hipMemAccessFlagsProtReadWrite;
	pthread_mutex_unlock(&vmm_lock);
	return access;
}

/* ---- sharing ---------------------------------------------------------------------------------- */

/* clr writes the descriptor as an int at shareableHandle (rocdevice.cpp
 * ExportShareableVMMHandle); CUDA does the same for POSIX descriptors. The handle type must be the
 * one the allocation was created with. */
hipError_t hipMemExportToShareableHandle(void *shareableHandle, hipMemGenericAllocationHandle_t handle,
					 hipMemAllocationHandleType handleType, unsigned long long flags)
{
	int fd = -1, err = -EINVAL;

	if (flags != 0 || !handle || !shareableHandle)
		HIP_RETURN(hipErrorInvalidValue);
	pthread_mutex_lock(&vmm_lock);
	struct vmm_alloc *a = alloc_find(handle);
	if (a && handleType == hipMemHandleTypePosixFileDescriptor &&
	    a->prop.requestedHandleType == handleType)
		err = mem_vmm_export(a->ph, &fd);
	pthread_mutex_unlock(&vmm_lock);
	if (err)
		HIP_RETURN(err == -EINVAL ? hipErrorInvalidValue : hip_error_from_errno(err));
	*(int *)shareableHandle = fd;
	HIP_RETURN(hipSuccess);
}

/* The descriptor behind osHandle. clr reads an int at osHandle (rocdevice.cpp
 * ImportShareableHSAHandle), CUDA takes the descriptor itself cast to a pointer. No object lives
 * in the first page of the address space, so a value below 4096 is CUDA's form and anything else
 * clr's. */
static int shareable_fd(const void *osHandle)
{
	uintptr_t v = (uintptr_t)osHandle;

	return v < 4096 ? (int)v : *(const int *)osHandle;
}

/* clr: the new handle belongs to the current device, with that device's properties. The
 * descriptor stays the caller's (the allocation keeps its own duplicate). */
hipError_t hipMemImportFromShareableHandle(hipMemGenericAllocationHandle_t *handle, void *osHandle,
					   hipMemAllocationHandleType shHandleType)
{
	if (!handle || !osHandle || shHandleType != hipMemHandleTypePosixFileDescriptor)
		HIP_RETURN(hipErrorInvalidValue);
	*handle = NULL;
	HIP_RETURN_IF_ERROR(no_device_error());
	struct hip_device *d = hip_device_current();
	struct kfd_gpu *gpu = d ? device_gpu(d->ordinal) : NULL;
	if (!gpu)
		HIP_RETURN(hipErrorInvalidDevice);
	struct vmm_alloc *a = calloc(1, sizeof(*a));
	if (!a)
		HIP_RETURN(hipErrorOutOfMemory);
	int err = mem_vmm_import(gpu, shareable_fd(osHandle), &a->ph);
	if (err) {
		free(a);
		HIP_RETURN(err == -ENOMEM ? hipErrorOutOfMemory : hipErrorInvalidValue);
	}
	a->size = mem_vmm_size(a->ph);
	a->prop.type = hipMemAllocationTypePinned;
	a->prop.requestedHandleType = shHandleType;
	a->prop.location.type = hipMemLocationTypeDevice;
	a->prop.location.id = d->ordinal;
	a->refs = 1;
	pthread_mutex_lock(&vmm_lock);
	a->next = vmm_allocs;
	vmm_allocs = a;
	pthread_mutex_unlock(&vmm_lock);
	*handle = (hipMemGenericAllocationHandle_t)a;
	HIP_RETURN(hipSuccess);
}

/* CUDA's cuMemGetHandleForAddressRange: a dma-buf descriptor (the caller owns it) for a range of
 * device memory. The dma-buf of a KFD allocation always starts at the allocation, so the range must
 * start where a kernel allocation starts (hipMalloc'd memory big enough not to be sub-allocated);
 * another start is hipErrorNotSupported. */
hipError_t hipMemGetHandleForAddressRange(void *handle, hipDeviceptr_t dptr, size_t size,
					  hipMemRangeHandleType handleType, unsigned long long flags)
{
	struct mem_info mi;
	uint64_t offset;
	size_t buf_size;
	int fd;

	if (!handle || !dptr || size == 0 || flags != 0 || handleType != hipMemRangeHandleTypeDmaBufFd)
		HIP_RETURN(hipErrorInvalidValue);
	/* CUDA: the range is host-page aligned. */
	if ((uintptr_t)dptr % 4096 || size % 4096)
		HIP_RETURN(hipErrorInvalidValue);
	if (mem_lookup(dptr, &mi) != 0 || (size_t)((char *)dptr - (char *)mi.base) > mi.size ||
	    size > mi.size - (size_t)((char *)dptr - (char *)mi.base))
		HIP_RETURN(hipErrorInvalidValue);
	int err = mem_ipc_export(dptr, &fd, &offset, &buf_size);
	if (err)
		HIP_RETURN(err == -EINVAL || err == -ENOENT ? hipErrorInvalidValue : hip_error_from_errno(err));
	if (offset != 0) {
		close(fd);
		HIP_RETURN(hipErrorNotSupported);
	}
	*(int *)handle = fd;
	HIP_RETURN(hipSuccess);
}

/* The copy engine (runtime/copy.c) checks hipMemSetAccess rights through this query. */
__attribute__((constructor)) static void vmm_install_access_query(void)
{
	hip_vmm_access_of = vmm_access_of;
}
