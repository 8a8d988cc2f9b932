/* Small API calls with no area of their own: hipInitDevice, device symbols, link topology, 3D
 * peer copies, pointer attributes, hipExtHostAlloc, stream ids and stream attributes,
 * hipDeviceGetLuid. (The profiler switches are the timeline trace's: src/trace/timeline.c.)
 *
 * Not here (generated stubs answer hipErrorNotSupported): hipSetValidDevices (clr leaves it
 * unimplemented). CU-masked streams are in stream_cumask.c.
 */
#include <errno.h>

#include "../kfd/kfd.h"
#include "../memory/mem.h"
#include "array.h"
#include "../runtime/error.h"
#include "pointer.h"
#include "../runtime/runtime.h"
#include "symbols.h"

/* ---- hipInitDevice ---------------------------------------------------------------------------- */

/* CUDA's cudaInitDeviceFlagsAreValid: deviceFlags is applied to the device as by
 * hipSetDeviceFlags. */
#define INIT_DEVICE_FLAGS_VALID 0x1u

/* Initialise a device's runtime state without making it current (CUDA's cudaInitDevice). */
hipError_t hipInitDevice(int device, unsigned int deviceFlags, unsigned int flags)
{
	int n = hip_device_count();

	if (n == 0)
		HIP_RETURN(hipErrorNoDevice);
	if (device < 0 || device >= n)
		HIP_RETURN(hipErrorInvalidDevice);
	if (flags & ~INIT_DEVICE_FLAGS_VALID)
		HIP_RETURN(hipErrorInvalidValue);
	if (!hip_device_get(device))
		HIP_RETURN(hipErrorInitializationError);
	if (!(flags & INIT_DEVICE_FLAGS_VALID))
		HIP_RETURN(hipSuccess);
	/* hipSetDeviceFlags works on the current device: switch, apply, switch back. */
	int current;
	HIP_RETURN_IF_ERROR(hipGetDevice(&current));
	HIP_RETURN_IF_ERROR(hipSetDevice(device));
	hipError_t err = hipSetDeviceFlags(deviceFlags);
	hipError_t back = hipSetDevice(current);
	HIP_RETURN(err != hipSuccess ? err : back);
}

/* ---- device symbols --------------------------------------------------------------------------- */

static hipError_t symbol_find(const void *symbol, void **ptr, size_t *size)
{
	if (!symbol)
		return hipErrorInvalidSymbol;
	struct hip_device *d = hip_device_current();
	if (!d)
		return hipErrorNoDevice;
	int err = hip_symbol_lookup(symbol, d, ptr, size);
	if (err == -ENOENT)
		return hipErrorInvalidSymbol;
	if (err == -ENOEXEC)
		return hipErrorNoBinaryForGpu;
	return err ? hip_error_from_errno(err) : hipSuccess;
}

hipError_t hipGetSymbolAddress(void **devPtr, const void *symbol)
{
	if (!devPtr)
		HIP_RETURN(hipErrorInvalidValue);
	void *p = NULL;
	hipError_t err = symbol_find(symbol, &p, NULL);
	if (err == hipSuccess)
		*devPtr = p;
	HIP_RETURN(err);
}

hipError_t hipGetSymbolSize(size_t *size, const void *symbol)
{
	if (!size)
		HIP_RETURN(hipErrorInvalidValue);
	size_t n = 0;
	hipError_t err = symbol_find(symbol, NULL, &n);
	if (err == hipSuccess)
		*size = n;
	HIP_RETURN(err);
}

/* ---- link topology ---------------------------------------------------------------------------- */

/* CRAT io-link types (kfd_crat.h) and the HSA link types ROCr reports for them
 * (hsa_amd_link_info_type_t), which clr's hipExtGetLinkTypeAndHopCount returns. */
#define CRAT_IOLINK_TYPE_HYPERTRANSPORT 1
#define CRAT_IOLINK_TYPE_PCIEXPRESS 2
#define CRAT_IOLINK_TYPE_XGMI 11
#define HSA_LINK_HYPERTRANSPORT 0
#define HSA_LINK_PCIE 2
#define HSA_LINK_XGMI 4

static hipError_t link_type(uint32_t crat, uint32_t *out)
{
	switch (crat) {
	case CRAT_IOLINK_TYPE_HYPERTRANSPORT:
		*out = HSA_LINK_HYPERTRANSPORT;
		return hipSuccess;
	case CRAT_IOLINK_TYPE_PCIEXPRESS:
		*out = HSA_LINK_PCIE;
		return hipSuccess;
	case CRAT_IOLINK_TYPE_XGMI:
		*out = HSA_LINK_XGMI;
		return hipSuccess;
	default:
		return hipErrorInvalidHandle;
	}
}

static const struct kfd_io_link *link_to(const struct kfd_node *from, uint32_t node_to)
{
	for (uint32_t i = 0; i < from->n_io_links; i++)
		if (from->io_links[i].node_to == node_to)
			return &from->io_links[i];
	return NULL;
}

/* One hop over a direct GPU-GPU link; otherwise two through a CPU node both GPUs link to, as
 * ROCr builds the path (GPU -> CPU -> GPU). No path: hipErrorInvalidHandle (clr findLinkInfo). */
static hipError_t link_find(const struct kfd_node *a, const struct kfd_node *b, uint32_t *type,
			    uint32_t *hops)
{
	const struct kfd_io_link *l = link_to(a, b->node_id);

	if (l) {
		*hops = 1;
		return link_type(l->type, type);
	}
	for (uint32_t i = 0; i < a->n_io_links; i++) {
		const struct kfd_io_link *up = &a->io_links[i];
		const struct kfd_node *mid = kfd_node_by_id(up->node_to);
		if (mid && mid->gpu_id == 0 && link_to(b, up->node_to)) {
			*hops = 2;
			return link_type(up->type, type);
		}
	}
	return hipErrorInvalidHandle;
}

hipError_t hipExtGetLinkTypeAndHopCount(int device1, int device2, uint32_t *linktype,
					uint32_t *hopcount)
{
	if (!linktype || !hopcount || device1 == device2 || device1 < 0 || device2 < 0)
		HIP_RETURN(hipErrorInvalidValue);
	int n = hip_device_count();
	if (device1 >= n || device2 >= n)
		HIP_RETURN(hipErrorInvalidDevice);
	const struct kfd_node *a = kfd_gpu(device1), *b = kfd_gpu(device2);
	if (!a || !b)
		HIP_RETURN(hipErrorInvalidDevice);
	HIP_RETURN(link_find(a, b, linktype, hopcount));
}

/* ---- 3D peer copies --------------------------------------------------------------------------- */

static hipError_t peer_side(hipArray_t array, hipPos pos, hipPitchedPtr ptr, int device,
			    hipExtent e, struct hip_pitched *out)
{
	if (device < 0 || device >= hip_device_count())
		return hipErrorInvalidDevice;
	if (array) {
		const struct hipArray *a = hip_array_find(array);
		if (!a)
			return hipErrorInvalidValue;
		return hip_array_view(a, pos.x, pos.y, pos.z, e.width, e.height, e.depth, out);
	}
	if (!ptr.ptr)
		return hipErrorInvalidValue;
	if (e.width + pos.x > ptr.pitch)
		return hipErrorInvalidPitchValue;
	size_t rows = ptr.ysize ? ptr.ysize : e.height;
	if (e.depth > 1 && e.height + pos.y > rows)
		return hipErrorInvalidValue;
	out->base = (const char *)ptr.ptr + (pos.z * rows + pos.y) * ptr.pitch + pos.x;
	out->pitch = ptr.pitch;
	out->rows = rows;
	return hipSuccess;
}

/* Copies between devices are ordinary device-to-device copies here: the copy engine reaches a
 * peer's memory by mapping it on demand (peer.c). */
static hipError_t copy_3d_peer(const hipMemcpy3DPeerParms *p, hipStream_t stream, bool async)
{
	struct hip_pitched s, d;
	hipError_t err;

	if (!p)
		return hipErrorInvalidValue;
	const hipExtent e = p->extent;
	err = peer_side(p->srcArray, p->srcPos, p->srcPtr, p->srcDevice, e, &s);
	if (err == hipSuccess)
		err = peer_side(p->dstArray, p->dstPos, p->dstPtr, p->dstDevice, e, &d);
	if (err != hipSuccess || e.width == 0 || e.height == 0 || e.depth == 0)
		return err;
	return hip_pitched_copy(d, s, e.width, e.height, e.depth, hipMemcpyDeviceToDevice, stream,
				async);
}

hipError_t hipMemcpy3DPeer(hipMemcpy3DPeerParms *p)
{
	HIP_RETURN(copy_3d_peer(p, NULL, false));
}

hipError_t hipMemcpy3DPeerAsync(hipMemcpy3DPeerParms *p, hipStream_t stream)
{
	HIP_RETURN(copy_3d_peer(p, stream, true));
}

/* ---- pointer attributes ----------------------------------------------------------------------- */

/* cuPointerGetAttributes' rule (pointer.c): attributes the pointer lacks read as defaults. */
hipError_t hipDrvPointerGetAttributes(unsigned int numAttributes, hipPointer_attribute *attributes,
				      void **data, hipDeviceptr_t ptr)
{
	HIP_RETURN(hip_pointer_get_attributes_drv(numAttributes, attributes, data, ptr));
}

/* Only HIP_POINTER_ATTRIBUTE_SYNC_MEMOPS can be set (CUDA's rule). Its promise, that synchronous
 * copies touching the allocation complete before they return, always holds here: every
 * synchronous copy waits for its engine. */
hipError_t hipPointerSetAttribute(const void *value, hipPointer_attribute attribute,
				  hipDeviceptr_t ptr)
{
	struct mem_info info;

	if (!value || !ptr || attribute != HIP_POINTER_ATTRIBUTE_SYNC_MEMOPS)
		HIP_RETURN(hipErrorInvalidValue);
	/* clr's order and codes: the value must be 0 or 1, then memory the runtime does not know
	 * (a host variable, a freed pointer) is hipErrorInvalidDevicePointer. */
	unsigned v = *(const unsigned *)value;
	if (v > 1)
		HIP_RETURN(hipErrorInvalidValue);
	if (mem_lookup(ptr, &info) != 0)
		HIP_RETURN(hipErrorInvalidDevicePointer);
	HIP_RETURN(hipSuccess);
}

/* ---- host allocation -------------------------------------------------------------------------- */

/* The hipExtHostAlloc* flags have the values of the hipHostMalloc* flags they extend. */
hipError_t hipExtHostAlloc(void **ptr, size_t size, unsigned int flags)
{
	HIP_RETURN(hipHostMalloc(ptr, size, flags));
}

/* ---- streams ---------------------------------------------------------------------------------- */

/* The runtime object behind a handle, or NULL with the error of the handle. */
static struct hip_stream *stream_of(hipStream_t stream, hipError_t *err)
{
	int priority;

	/* hipStreamGetPriority gives the answer the stream API gives for a bad or destroyed handle
	 * (and accepts the null stream, which hipStreamGetFlags does not). */
	*err = hipStreamGetPriority(stream, &priority);
	if (*err != hipSuccess)
		return NULL;
	struct hip_stream *s = hip_stream_resolve(stream);
	if (!s)
		*err = hipErrorInvalidHandle;
	return s;
}

/* The id is the runtime object's address: unique among live streams (stream objects are
 * recycled, so a destroyed stream's id may come back for a new one). */
hipError_t hipStreamGetId(hipStream_t stream, unsigned long long *streamId)
{
	hipError_t err;

	if (!streamId)
		HIP_RETURN(hipErrorInvalidValue);
	struct hip_stream *s = stream_of(stream, &err);
	if (!s)
		HIP_RETURN(err);
	*streamId = (unsigned long long)(uintptr_t)s;
	HIP_RETURN(hipSuccess);
}

/* Supported: priority (fixed when the stream's queue is created, so setting it to anything else
 * is not supported) and the synchronisation policy (waits here follow hipSetDeviceFlags, which is
 * hipSyncPolicyAuto). Others: hipErrorNotSupported. */
hipError_t hipStreamGetAttribute(hipStream_t stream, hipStreamAttrID attr,
				 hipStreamAttrValue *value_out)
{
	hipError_t err;

	if (!value_out)
		HIP_RETURN(hipErrorInvalidValue);
	if (!stream_of(stream, &err))
		HIP_RETURN(err);
	switch (attr) {
	case hipStreamAttributePriority:
		HIP_RETURN(hipStreamGetPriority(stream, &value_out->priority));
	case hipStreamAttributeSynchronizationPolicy:
		value_out->syncPolicy = hipSyncPolicyAuto;
		HIP_RETURN(hipSuccess);
	default:
		HIP_RETURN(hipErrorNotSupported);
	}
}

hipError_t hipStreamSetAttribute(hipStream_t stream, hipStreamAttrID attr,
				 const hipStreamAttrValue *value)
{
	hipError_t err;
	int priority;

	if (!value)
		HIP_RETURN(hipErrorInvalidValue);
	if (!stream_of(stream, &err))
		HIP_RETURN(err);
	switch (attr) {
	case hipStreamAttributePriority:
		HIP_RETURN_IF_ERROR(hipStreamGetPriority(stream, &priority));
		HIP_RETURN(value->priority == priority ? hipSuccess : hipErrorNotSupported);
	case hipStreamAttributeSynchronizationPolicy:
		if (value->syncPolicy < hipSyncPolicyAuto ||
		    value->syncPolicy > hipSyncPolicyBlockingSync)
			HIP_RETURN(hipErrorInvalidValue);
		HIP_RETURN(value->syncPolicy == hipSyncPolicyAuto ? hipSuccess
								  : hipErrorNotSupported);
	default:
		HIP_RETURN(hipErrorNotSupported);
	}
}

/* The attributes that can differ between two streams are their priorities. */
hipError_t hipStreamCopyAttributes(hipStream_t dst, hipStream_t src)
{
	hipError_t err;
	int pd, ps;

	if (!stream_of(dst, &err) || !stream_of(src, &err))
		HIP_RETURN(err);
	HIP_RETURN_IF_ERROR(hipStreamGetPriority(src, &ps));
	HIP_RETURN_IF_ERROR(hipStreamGetPriority(dst, &pd));
	HIP_RETURN(ps == pd ? hipSuccess : hipErrorNotSupported);
}

/* ---- LUID ------------------------------------------------------------------------------------- */

/* A LUID is a Windows adapter id; clr answers hipErrorNotSupported on Linux. */
hipError_t hipDeviceGetLuid(char *luid, unsigned int *deviceNodeMask, hipDevice_t device)
{
	(void)luid;
	(void)deviceNodeMask;
	(void)device;
	HIP_RETURN(hipErrorNotSupported);
}
