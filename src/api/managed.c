/* Managed-memory hints and queries: hipMemAdvise(_v2), hipMemPrefetchAsync(_v2),
 * hipMemRangeGetAttribute(s), hipStreamAttachMemAsync.
 *
 * hipMallocManaged memory is an SVM range (src/memory/register.c), so the hints are SVM
 * attributes set and read with AMDKFD_IOC_SVM, as ROCr's hsa_amd_svm_attributes_set/get do for
 * clr (rocdevice.cpp SetSvmAttributes/GetSvmAttributes):
 *   ReadMostly         -> flag KFD_IOCTL_SVM_FLAG_GPU_READ_MOSTLY
 *   PreferredLocation  -> KFD_IOCTL_SVM_ATTR_PREFERRED_LOC (gpu_id; 0 = system memory)
 *   AccessedBy         -> KFD_IOCTL_SVM_ATTR_ACCESS_IN_PLACE (unset: ACCESS, may migrate)
 *   CoarseGrain        -> flag KFD_IOCTL_SVM_FLAG_COHERENT cleared (unset: set again)
 *   prefetch           -> KFD_IOCTL_SVM_ATTR_PREFETCH_LOC (the kernel migrates in the ioctl)
 * Managed allocations and plain system memory (HMM: malloc, aligned_alloc) are accepted; other
 * HIP allocations are hipErrorInvalidValue, as clr answers. The kernel works on whole pages: a range is widened to the pages it touches.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../kfd/kfd.h"
#include "../memory/mem.h"
#include "../runtime/error.h"
#include "../memory/managed_cpu_access.h"
#include "../runtime/runtime.h"

/* A page-aligned SVM range. */
struct svm_span {
	uint64_t start;
	uint64_t size;
	uint64_t alloc_id;  /* the managed allocation's */
};

/* Every page of [start, start + size) is mapped in this process: mincore() fails with ENOMEM
 * on a hole. Checked here so that a wild pointer is hipErrorInvalidValue, not a kernel error. */
static bool system_range_mapped(uint64_t start, uint64_t size)
{
	unsigned char vec[64];
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);

	for (uint64_t at = start; at < start + size;) {
		uint64_t n = (start + size - at) / page;
		n = n > sizeof(vec) ? sizeof(vec) : n;
		if (mincore((void *)(uintptr_t)at, n * page, vec) != 0)
			return false;
		at += n * page;
	}
	return true;
}

/* The page-aligned SVM range covering [ptr, ptr + count): inside one managed allocation, or
 * plain system memory that no HIP allocation holds. */
static hipError_t managed_span(const void *ptr, size_t count, struct svm_span *out)
{
	struct mem_info info;

	if (!ptr || count == 0 || (uintptr_t)ptr + count < (uintptr_t)ptr)
		return hipErrorInvalidValue;
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t first = (uint64_t)(uintptr_t)ptr & ~(page - 1);
	uint64_t end = ((uint64_t)(uintptr_t)ptr + count + page - 1) & ~(page - 1);
	if (mem_lookup(ptr, &info) != 0) {
		/* Memory no HIP allocation holds (malloc, aligned_alloc, mmap): under HMM the kernel's
		 * SVM manages any mapped range of the process, so the hints apply to it as to managed
		 * memory (AMD 5.2.3 accepts hipMemAdvise on aligned_alloc memory the same way). A range
		 * with an unmapped page is refused by the kernel (-EFAULT: hipErrorInvalidValue). */
		if (!system_range_mapped(first, end - first))
			return hipErrorInvalidValue;
		*out = (struct svm_span){first, end - first, 0};
		return hipSuccess;
	}
	if (info.kind != MEM_MANAGED)
		return hipErrorInvalidValue;
	size_t off = (size_t)((const char *)ptr - (const char *)info.base);
	if (off > info.size || count > info.size - off)
		return hipErrorInvalidValue;
	*out = (struct svm_span){first, end - first, info.alloc_id};
	return hipSuccess;
}

/* The KFD gpu_id of device [in] ordinal, 0 (system memory) for hipCpuDeviceId, or 0 with
 * *err = hipErrorInvalidDevice. */
static uint32_t location_id(int ordinal, hipError_t *err)
{
	*err = hipSuccess;
	if (ordinal == hipCpuDeviceId)
		return KFD_IOCTL_SVM_LOCATION_SYSMEM;
	if (ordinal < 0 || ordinal >= hip_device_count() || !kfd_gpu(ordinal)) {
		*err = hipErrorInvalidDevice;
		return 0;
	}
	return kfd_gpu(ordinal)->gpu_id;
}

/* A location the kernel reported, as a device ordinal (hipCpuDeviceId for system memory,
 * hipInvalidDeviceId when undefined or mixed over the range). */
static int location_ordinal(uint32_t id)
{
	if (id == KFD_IOCTL_SVM_LOCATION_SYSMEM)
		return hipCpuDeviceId;
	for (int i = 0; i < hip_device_count(); i++)
		if (kfd_gpu(i) && kfd_gpu(i)->gpu_id == id)
			return i;
	return hipInvalidDeviceId;
}

static hipError_t svm_set(const struct svm_span *sp, uint32_t type, uint32_t value)
{
	struct kfd_ioctl_svm_attribute a = {type, value};
	int err = kfd_svm(KFD_IOCTL_SVM_OP_SET_ATTR, sp->start, sp->size, &a, 1);

	return err ? hip_error_from_errno(err) : hipSuccess;
}

static bool advice_known(hipMemoryAdvise advice)
{
	return (advice >= hipMemAdviseSetReadMostly && advice <= hipMemAdviseUnsetAccessedBy) ||
	       advice == hipMemAdviseSetCoarseGrain || advice == hipMemAdviseUnsetCoarseGrain;
}

/* The advice is checked before the device: an unknown advice is hipErrorInvalidValue whatever
 * the device argument holds (clr's order). The device is then checked for every advice, also
 * those that do not use it (read-mostly, coarse grain, unset preferred location): AMD's runtime
 * refuses an ordinal that is neither a device nor hipCpuDeviceId whatever the advice. */
static hipError_t advise(const void *ptr, size_t count, hipMemoryAdvise advice, int device)
{
	struct svm_span sp;
	hipError_t err = advice_known(advice) ? managed_span(ptr, count, &sp) : hipErrorInvalidValue;

	if (err != hipSuccess)
		return err;
	uint32_t id = location_id(device, &err);
	if (err != hipSuccess)
		return err;
	switch (advice) {
	case hipMemAdviseSetReadMostly:
		return svm_set(&sp, KFD_IOCTL_SVM_ATTR_SET_FLAGS, KFD_IOCTL_SVM_FLAG_GPU_READ_MOSTLY);
	case hipMemAdviseUnsetReadMostly:
		return svm_set(&sp, KFD_IOCTL_SVM_ATTR_CLR_FLAGS, KFD_IOCTL_SVM_FLAG_GPU_READ_MOSTLY);
	case hipMemAdviseSetCoarseGrain:
		return svm_set(&sp, KFD_IOCTL_SVM_ATTR_CLR_FLAGS, KFD_IOCTL_SVM_FLAG_COHERENT);
	case hipMemAdviseUnsetCoarseGrain:
		return svm_set(&sp, KFD_IOCTL_SVM_ATTR_SET_FLAGS, KFD_IOCTL_SVM_FLAG_COHERENT);
	case hipMemAdviseUnsetPreferredLocation:
		return svm_set(&sp, KFD_IOCTL_SVM_ATTR_PREFERRED_LOC, KFD_IOCTL_SVM_LOCATION_UNDEFINED);
	default:
		break;
	}
	switch (advice) {
	case hipMemAdviseSetPreferredLocation:
		return svm_set(&sp, KFD_IOCTL_SVM_ATTR_PREFERRED_LOC, id);
	case hipMemAdviseSetAccessedBy:
	case hipMemAdviseUnsetAccessedBy:
		/* The CPU always reaches managed memory (KFD_IOCTL_SVM_FLAG_HOST_ACCESS); the advice
		 * is only recorded, to be reported (managed_cpu_access.c). */
		if (device == hipCpuDeviceId)
			return managed_cpu_access_set(sp.alloc_id, sp.start, sp.start + sp.size,
						      advice == hipMemAdviseSetAccessedBy)
				       ? hipErrorOutOfMemory : hipSuccess;
		return svm_set(&sp, advice == hipMemAdviseSetAccessedBy ?
				      KFD_IOCTL_SVM_ATTR_ACCESS_IN_PLACE : KFD_IOCTL_SVM_ATTR_ACCESS,
			       id);
	default:
		return hipErrorInvalidValue;
	}
}

/* The ordinal a hipMemLocation names (devices and the host only). */
static hipError_t location_to_ordinal(hipMemLocation loc, int *ordinal)
{
	if (loc.type == hipMemLocationTypeDevice) {
		*ordinal = loc.id;
		return hipSuccess;
	}
	if (loc.type == hipMemLocationTypeHost) {
		*ordinal = hipCpuDeviceId;
		return hipSuccess;
	}
	return hipErrorInvalidValue;
}

hipError_t hipMemAdvise(const void *dev_ptr, size_t count, hipMemoryAdvise advice, int device)
{
	HIP_RETURN(advise(dev_ptr, count, advice, device));
}

hipError_t hipMemAdvise_v2(const void *dev_ptr, size_t count, hipMemoryAdvise advice,
			   hipMemLocation location)
{
	int ordinal;

	HIP_RETURN_IF_ERROR(location_to_ordinal(location, &ordinal));
	HIP_RETURN(advise(dev_ptr, count, advice, ordinal));
}

/* ---- prefetch --------------------------------------------------------------------------------- */

struct prefetch {
	struct svm_span span;
	uint32_t loc;
};

/* Runs on the stream's callback worker once earlier work completed. A failure cannot be
 * reported any more; a prefetch is a hint, and the data stays correct wherever it lives. */
static void prefetch_run(void *arg)
{
	struct prefetch *p = arg;

	(void)svm_set(&p->span, KFD_IOCTL_SVM_ATTR_PREFETCH_LOC, p->loc);
	free(p);
}

static hipError_t prefetch(const void *ptr, size_t count, int device, hipStream_t stream)
{
	struct prefetch *p = malloc(sizeof(*p));
	hipError_t err;

	if (!p)
		return hipErrorOutOfMemory;
	err = managed_span(ptr, count, &p->span);
	if (err == hipSuccess)
		p->loc = location_id(device, &err);
	if (err != hipSuccess) {
		free(p);
		return err;
	}
	/* In stream order: the migration must not overtake work that still uses the pages. A stream
	 * with nothing pending has no such work, so the range is migrated before returning and
	 * hipMemRangeGetAttribute sees the new location at once, as with clr (whose prefetch
	 * command runs straight away on an idle queue). Another thread enqueuing meanwhile only
	 * reorders a hint. */
	if (hipStreamQuery(stream) == hipSuccess) {
		prefetch_run(p);
		return hipSuccess;
	}
	err = hipLaunchHostFunc(stream, prefetch_run, p);
	if (err != hipSuccess)
		free(p);
	return err;
}

hipError_t hipMemPrefetchAsync(const void *dev_ptr, size_t count, int device, hipStream_t stream)
{
	HIP_RETURN(prefetch(dev_ptr, count, device, stream));
}

hipError_t hipMemPrefetchAsync_v2(const void *dev_ptr, size_t count, hipMemLocation location,
				  unsigned int flags, hipStream_t stream)
{
	int ordinal;

	if (flags != 0)
		HIP_RETURN(hipErrorInvalidValue);
	HIP_RETURN_IF_ERROR(location_to_ordinal(location, &ordinal));
	HIP_RETURN(prefetch(dev_ptr, count, ordinal, stream));
}

/* ---- range attributes ------------------------------------------------------------------------- */

static hipError_t svm_get(const struct svm_span *sp, struct kfd_ioctl_svm_attribute *a, uint32_t n)
{
	int err = kfd_svm(KFD_IOCTL_SVM_OP_GET_ATTR, sp->start, sp->size, a, n);

	return err ? hip_error_from_errno(err) : hipSuccess;
}

static hipError_t get_one_int(const struct svm_span *sp, uint32_t type, uint32_t *value)
{
	struct kfd_ioctl_svm_attribute a = {type, 0};
	hipError_t err = svm_get(sp, &a, 1);

	*value = a.value;
	return err;
}

/* AccessedBy: the devices with in-place access (hipCpuDeviceId first when the CPU was advised
 * for the whole range), then hipInvalidDeviceId in the rest. */
static hipError_t accessed_by(const struct svm_span *sp, int *out, size_t slots)
{
	size_t used = 0;

	if (managed_cpu_access_covers(sp->alloc_id, sp->start, sp->start + sp->size))
		out[used++] = hipCpuDeviceId;
	for (int i = 0; i < hip_device_count() && used < slots; i++) {
		if (!kfd_gpu(i))
			continue;
		struct kfd_ioctl_svm_attribute a = {KFD_IOCTL_SVM_ATTR_ACCESS_IN_PLACE,
						    kfd_gpu(i)->gpu_id};
		hipError_t err = svm_get(sp, &a, 1);
		if (err != hipSuccess)
			return err;
		if (a.type == KFD_IOCTL_SVM_ATTR_ACCESS_IN_PLACE)
			out[used++] = i;
	}
	while (used < slots)
		out[used++] = hipInvalidDeviceId;
	return hipSuccess;
}

static hipError_t coherency(const struct svm_span *sp, int *out)
{
	struct kfd_ioctl_svm_attribute a[2] = {{KFD_IOCTL_SVM_ATTR_SET_FLAGS, 0},
					       {KFD_IOCTL_SVM_ATTR_CLR_FLAGS, 0}};
	hipError_t err = svm_get(sp, a, 2);

	if (err != hipSuccess)
		return err;
	/* SET_FLAGS answers the flags set on every page, CLR_FLAGS those clear on every page. */
	if (a[0].value & KFD_IOCTL_SVM_FLAG_COHERENT)
		*out = hipMemRangeCoherencyModeFineGrain;
	else if (a[1].value & KFD_IOCTL_SVM_FLAG_COHERENT)
		*out = hipMemRangeCoherencyModeCoarseGrain;
	else
		*out = hipMemRangeCoherencyModeIndeterminate;
	return hipSuccess;
}

static hipError_t range_attribute(void *data, size_t data_size, hipMemRangeAttribute attribute,
				  const struct svm_span *sp)
{
	uint32_t v;
	hipError_t err;

	if (!data)
		return hipErrorInvalidValue;
	if (attribute == hipMemRangeAttributeAccessedBy) {
		if (data_size == 0 || data_size % sizeof(int))
			return hipErrorInvalidValue;
		return accessed_by(sp, data, data_size / sizeof(int));
	}
	/* Every other attribute is one 32-bit integer (CUDA requires data_size == 4). */
	if (data_size != sizeof(int))
		return hipErrorInvalidValue;
	int *out = data;
	switch (attribute) {
	case hipMemRangeAttributeReadMostly:
		err = get_one_int(sp, KFD_IOCTL_SVM_ATTR_SET_FLAGS, &v);
		*out = err == hipSuccess && (v & KFD_IOCTL_SVM_FLAG_GPU_READ_MOSTLY);
		return err;
	case hipMemRangeAttributePreferredLocation:
		err = get_one_int(sp, KFD_IOCTL_SVM_ATTR_PREFERRED_LOC, &v);
		*out = location_ordinal(v);
		return err;
	case hipMemRangeAttributeLastPrefetchLocation:
		err = get_one_int(sp, KFD_IOCTL_SVM_ATTR_PREFETCH_LOC, &v);
		*out = location_ordinal(v);
		return err;
	case hipMemRangeAttributeCoherencyMode:
		return coherency(sp, out);
	default:
		return hipErrorInvalidValue;
	}
}

/* The coherency mode of memory that is not managed, from its kind: what clr answers for a
 * hipMalloc pointer (coarse-grained) and for fine-grained allocations. Other attributes describe
 * managed ranges only. */
static hipError_t unmanaged_coherency(void *data, size_t data_size, const void *ptr, size_t count)
{
	struct mem_info info;

	if (!data || !ptr || count == 0 || data_size != sizeof(int))
		return hipErrorInvalidValue;
	if (mem_lookup(ptr, &info) != 0 || info.kind == MEM_MANAGED)
		return hipErrorInvalidValue;
	size_t off = (size_t)((const char *)ptr - (const char *)info.base);
	if (count > info.size - off)
		return hipErrorInvalidValue;
	bool fine;
	switch (info.kind) {
	case MEM_DEVICE:
		fine = false;
		break;
	case MEM_HOST_PINNED:
		fine = (info.flags & MEM_FLAG_COHERENT) != 0;
		break;
	default: /* fine-grained VRAM, uncached VRAM, registered memory (mapped coherent) */
		fine = true;
		break;
	}
	*(int *)data = fine ? hipMemRangeCoherencyModeFineGrain : hipMemRangeCoherencyModeCoarseGrain;
	return hipSuccess;
}

static bool is_managed(const void *ptr)
{
	struct mem_info info;
	return ptr && mem_lookup(ptr, &info) == 0 && info.kind == MEM_MANAGED;
}

hipError_t hipMemRangeGetAttribute(void *data, size_t data_size, hipMemRangeAttribute attribute,
				   const void *dev_ptr, size_t count)
{
	struct svm_span sp;

	if (attribute == hipMemRangeAttributeCoherencyMode && dev_ptr && !is_managed(dev_ptr))
		HIP_RETURN(unmanaged_coherency(data, data_size, dev_ptr, count));
	HIP_RETURN_IF_ERROR(managed_span(dev_ptr, count, &sp));
	HIP_RETURN(range_attribute(data, data_size, attribute, &sp));
}

hipError_t hipMemRangeGetAttributes(void **data, size_t *data_sizes,
				    hipMemRangeAttribute *attributes, size_t num_attributes,
				    const void *dev_ptr, size_t count)
{
	struct svm_span sp;

	if (!data || !data_sizes || !attributes || num_attributes == 0)
		HIP_RETURN(hipErrorInvalidValue);
	HIP_RETURN_IF_ERROR(managed_span(dev_ptr, count, &sp));
	for (size_t i = 0; i < num_attributes; i++)
		HIP_RETURN_IF_ERROR(range_attribute(data[i], data_sizes[i], attributes[i], &sp));
	HIP_RETURN(hipSuccess);
}

/* ---- stream attachment ------------------------------------------------------------------------ */

/* An SVM range is reachable from every GPU queue and the CPU at all times, so attaching memory to
 * a stream changes no visibility: as clr does, the call validates and succeeds. */
hipError_t hipStreamAttachMemAsync(hipStream_t stream, void *dev_ptr, size_t length,
				   unsigned int flags)
{
	struct mem_info info;
	int priority;

	if (flags != hipMemAttachGlobal && flags != hipMemAttachHost && flags != hipMemAttachSingle)
		HIP_RETURN(hipErrorInvalidValue);
	/* CUDA's rule: memory attached to a single stream cannot name the legacy null stream. */
	if (flags == hipMemAttachSingle && (stream == NULL || stream == hipStreamLegacy))
		HIP_RETURN(hipErrorInvalidValue);
	if (!dev_ptr || mem_lookup(dev_ptr, &info) != 0 || info.kind != MEM_MANAGED)
		HIP_RETURN(hipErrorInvalidValue);
	/* CUDA: for managed allocations, length is 0 (the whole allocation) or its size. */
	if (length != 0 && (dev_ptr != info.base || length != info.size))
		HIP_RETURN(hipErrorInvalidValue);
	/* The stream must be valid (the null stream included). */
	HIP_RETURN(hipStreamGetPriority(stream, &priority));
}
