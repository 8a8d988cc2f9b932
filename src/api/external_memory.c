/* External memory: hipImportExternalMemory of an opaque POSIX descriptor (a dma-buf, e.g. one
 * exported by hipMemExportToShareableHandle or a Vulkan driver's opaque fd), mapped buffers and
 * hipDestroyExternalMemory.
 *
 * As in clr (hip_memory.cpp, amd::ExternalBuffer), an import maps the whole buffer once, at an
 * address of its own, for the importing (current) device; hipExternalMemoryGetMappedBuffer hands
 * out addresses inside that mapping. The mapping is the virtual-memory layer's (src/memory/vmm.c):
 * the dma-buf is mapped with AMDGPU_GEM_VA on the GPU and mmapped for the CPU.
 *
 * Lifetime: buffers stay valid until hipDestroyExternalMemory, which unmaps everything. (clr also
 * keeps the memory until each buffer is hipFree'd; here hipFree of a buffer address is answered
 * hipErrorInvalidValue, as for any address it did not allocate.) The caller's descriptor is not
 * consumed (clr does not close it either; CUDA takes ownership): the import keeps a duplicate.
 *
 * Other handle types (Win32, D3D, NvSciBuf) have no meaning on Linux: hipErrorNotSupported. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "../memory/mem.h"
#include "../memory/vmm.h"
#include "../runtime/error.h"
#include "../runtime/internal.h"
#include "../runtime/runtime.h"

struct ext_mem {
	struct mem_phys *ph;
	void *va;                      /* the whole buffer, mapped at import */
	size_t size;                   /* what the importer declared (<= the mapping) */
	size_t mapped;                 /* page-rounded size of the mapping and its reservation */
	unsigned buffers;              /* hipExternalMemoryGetMappedBuffer calls (ext_lock) */
	struct ext_mem *next;
};

static pthread_mutex_t ext_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ext_mem *ext_mems; /* live imports (ext_lock) */

static struct ext_mem *ext_find(const void *handle)
{
	for (struct ext_mem *e = ext_mems; e; e = e->next)
		if ((const void *)e == handle)
			return e;
	return NULL;
}

/* Reserve, map the whole dma-buf read-write for its device. */
static int ext_map(struct kfd_gpu *gpu, struct ext_mem *e)
{
	int err;

	e->mapped = mem_vmm_size(e->ph);
	err = mem_vmm_reserve(gpu, e->mapped, 0, &e->va);
	if (err)
		return err;
	err = mem_vmm_map(e->va, e->mapped, e->ph, 0);
	if (err) {
		mem_vmm_release(e->va, e->mapped);
		e->va = NULL;
	}
	return err;
}

static void ext_unmap(struct ext_mem *e)
{
	mem_vmm_unmap(e->va, e->mapped);
	mem_vmm_release(e->va, e->mapped);
}

hipError_t hipImportExternalMemory(hipExternalMemory_t *extMem_out,
				   const hipExternalMemoryHandleDesc *memHandleDesc)
{
	const hipExternalMemoryHandleDesc *d = memHandleDesc;

	/* clr's checks first: NULLs, flags other than Dedicated, a zero size, an unknown type. */
	if (!extMem_out || !d || (d->flags != 0 && d->flags != hipExternalMemoryDedicated) ||
	    d->size == 0)
		HIP_RETURN(hipErrorInvalidValue);
	if (d->type < hipExternalMemoryHandleTypeOpaqueFd || d->type > hipExternalMemoryHandleTypeNvSciBuf)
		HIP_RETURN(hipErrorInvalidValue);
	if (d->type != hipExternalMemoryHandleTypeOpaqueFd)
		HIP_RETURN(hipErrorNotSupported);
	if (d->handle.fd < 0)
		HIP_RETURN(hipErrorInvalidValue);
	*extMem_out = NULL;
	if (hip_device_count() == 0)
		HIP_RETURN(hipErrorNoDevice);
	struct hip_device *dev = hip_device_current();
	if (!dev || !dev->gpu)
		HIP_RETURN(hipErrorInvalidDevice);
	struct ext_mem *e = calloc(1, sizeof(*e));
	if (!e)
		HIP_RETURN(hipErrorOutOfMemory);
	int err = mem_vmm_import(dev->gpu, d->handle.fd, &e->ph);
	if (err) {
		free(e);
		HIP_RETURN(err == -ENOMEM ? hipErrorOutOfMemory : hipErrorInvalidValue);
	}
	/* The declared size may not exceed the buffer. */
	if (d->size > mem_vmm_size(e->ph)) {
		mem_vmm_destroy(e->ph);
		free(e);
		HIP_RETURN(hipErrorInvalidValue);
	}
	e->size = d->size;
	err = ext_map(dev->gpu, e);
	if (err) {
		mem_vmm_destroy(e->ph);
		free(e);
		HIP_RETURN(err == -ENOMEM ? hipErrorOutOfMemory : hipErrorMapFailed);
	}
	pthread_mutex_lock(&ext_lock);
	e->next = ext_mems;
	ext_mems = e;
	pthread_mutex_unlock(&ext_lock);
	*extMem_out = (hipExternalMemory_t)e;
	HIP_RETURN(hipSuccess);
}

/* clr: the range [offset, offset + size) must lie inside the imported size; flags must be 0. */
hipError_t hipExternalMemoryGetMappedBuffer(void **devPtr, hipExternalMemory_t extMem,
					    const hipExternalMemoryBufferDesc *bufferDesc)
{
	const hipExternalMemoryBufferDesc *b = bufferDesc;

	if (!devPtr || !extMem || !b || b->flags != 0)
		HIP_RETURN(hipErrorInvalidValue);
	hipError_t herr = hipErrorInvalidValue;
	pthread_mutex_lock(&ext_lock);
	struct ext_mem *e = ext_find(extMem);
	if (e && b->offset <= e->size && b->size <= e->size - b->offset) {
		*devPtr = (char *)e->va + b->offset;
		e->buffers++;
		herr = hipSuccess;
	}
	pthread_mutex_unlock(&ext_lock);
	HIP_RETURN(herr);
}

hipError_t hipDestroyExternalMemory(hipExternalMemory_t extMem)
{
	if (!extMem)
		HIP_RETURN(hipErrorInvalidValue);
	pthread_mutex_lock(&ext_lock);
	struct ext_mem **pp = &ext_mems;
	while (*pp && *pp != (struct ext_mem *)extMem)
		pp = &(*pp)->next;
	struct ext_mem *e = *pp;
	if (e)
		*pp = e->next;
	pthread_mutex_unlock(&ext_lock);
	if (!e)
		HIP_RETURN(hipErrorInvalidValue);
	/* Work queued on the mapping must finish before it goes (as hipFree waits). */
	for (int i = 0; i < hip_device_count(); i++) {
		struct hip_device *d = hip_device_peek(i);
		if (d)
			hip_device_sync_all(d);
	}
	ext_unmap(e);
	mem_vmm_destroy(e->ph);
	free(e);
	HIP_RETURN(hipSuccess);
}
