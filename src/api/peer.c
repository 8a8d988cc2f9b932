/* Peer access between GPUs and peer copies.
 *
 * Whether two GPUs can reach each other comes from the KFD topology's io_links/p2p_links. Enabling
 * peer access records the permission; copies map the peer's allocation to the copying GPU on
 * demand (mem_map_to_gpu). Mapping every existing allocation of the peer for kernels is not done
 * here yet: the memory layer has no per-device enumeration (see the report).
 */
#include <errno.h>

#include "../kfd/kfd.h"
#include "../runtime/error.h"
#include "../runtime/internal.h"
#include "memcpy.h"

hipError_t hipDeviceCanAccessPeer(int *canAccessPeer, int deviceId, int peerDeviceId)
{
	if (!canAccessPeer)
		HIP_RETURN(hipErrorInvalidValue);
	struct hip_device *d = hip_device_peek(deviceId), *p = hip_device_peek(peerDeviceId);
	if (!d || !p)
		HIP_RETURN(hip_init_error() ?: hipErrorInvalidDevice);
	/* A device is not its own peer (CUDA and AMD answer 0). */
	*canAccessPeer = d != p && kfd_node_can_access_peer(d->node, p->node);
	HIP_RETURN(hipSuccess);
}

hipError_t hipDeviceEnablePeerAccess(int peerDeviceId, unsigned int flags)
{
	if (flags != 0)
		HIP_RETURN(hipErrorInvalidValue);
	struct hip_device *d = hip_device_current();
	struct hip_device *p = hip_device_peek(peerDeviceId);
	if (!d || !p || p == d)
		HIP_RETURN(hip_init_error() ?: hipErrorInvalidDevice);
	if (!kfd_node_can_access_peer(d->node, p->node))
		HIP_RETURN(hipErrorPeerAccessUnsupported);
	if (hip_device_open(p) != 0)
		HIP_RETURN(hipErrorInvalidDevice);
	hipError_t res = hipSuccess;
	pthread_mutex_lock(&d->lock);
	if (d->peers & (1u << p->ordinal))
		res = hipErrorPeerAccessAlreadyEnabled;
	else
		d->peers |= 1u << p->ordinal;
	pthread_mutex_unlock(&d->lock);
	HIP_RETURN(res);
}

hipError_t hipDeviceDisablePeerAccess(int peerDeviceId)
{
	struct hip_device *d = hip_device_current();
	struct hip_device *p = hip_device_peek(peerDeviceId);
	if (!d || !p || p == d)
		HIP_RETURN(hip_init_error() ?: hipErrorInvalidDevice);
	hipError_t res = hipSuccess;
	pthread_mutex_lock(&d->lock);
	if (!(d->peers & (1u << p->ordinal)))
		res = hipErrorPeerAccessNotEnabled;
	else
		d->peers &= ~(1u << p->ordinal);
	pthread_mutex_unlock(&d->lock);
	HIP_RETURN(res);
}


static hipError_t copy_peer(void *dst, int dstDevice, const void *src, int srcDevice, size_t size,
			    hipStream_t stream, bool async)
{
	if (!hip_device_peek(dstDevice) || !hip_device_peek(srcDevice))
		return hip_init_error() ?: hipErrorInvalidDevice;
	if (size == 0)
		return hipSuccess;
	if (!dst || !src)
		return hipErrorInvalidValue;
	/* The address table knows which GPU owns each side: the copy infers the rest. */
	return hip_memcpy_common(dst, src, size, hipMemcpyDeviceToDevice, stream, async);
}

hipError_t hipMemcpyPeer(void *dst, int dstDeviceId, const void *src, int srcDeviceId,
			 size_t sizeBytes)
{
	HIP_RETURN(copy_peer(dst, dstDeviceId, src, srcDeviceId, sizeBytes, NULL, false));
}

hipError_t hipMemcpyPeerAsync(void *dst, int dstDeviceId, const void *src, int srcDevice,
			      size_t sizeBytes, hipStream_t stream)
{
	HIP_RETURN(copy_peer(dst, dstDeviceId, src, srcDevice, sizeBytes, stream, true));
}

/* Peer attributes from the topology link between the two GPUs. The performance rank is the link
 * weight order AMD reports (0 for the best link); native atomics need an XGMI link (CRAT
 * io-link type 11), which carries them, while PCIe peer atomics are not guaranteed. */
hipError_t hipDeviceGetP2PAttribute(int *value, hipDeviceP2PAttr attr, int srcDevice,
				    int dstDevice)
{
	if (!value)
		HIP_RETURN(hipErrorInvalidValue);
	struct hip_device *s = hip_device_peek(srcDevice), *d = hip_device_peek(dstDevice);
	if (!s || !d)
		HIP_RETURN(hip_init_error() ?: hipErrorInvalidDevice);
	if (s == d)
		HIP_RETURN(hipErrorInvalidDevice);
	bool linked = kfd_node_can_access_peer(s->node, d->node);
	bool xgmi = false;
	for (uint32_t i = 0; i < s->node->n_io_links && i < KFD_MAX_IO_LINKS; i++) {
		const struct kfd_io_link *l = &s->node->io_links[i];
		if (l->node_to == d->node->node_id && l->type == 11)
			xgmi = true;
	}
	switch (attr) {
	case hipDevP2PAttrPerformanceRank:
		*value = 0;
		break;
	case hipDevP2PAttrAccessSupported:
		*value = linked;
		break;
	case hipDevP2PAttrNativeAtomicSupported:
		*value = linked && xgmi;
		break;
	case hipDevP2PAttrHipArrayAccessSupported:
		*value = 0; /* no hipArray support in hipkfd */
		break;
	default:
		HIP_RETURN(hipErrorInvalidValue);
	}
	HIP_RETURN(hipSuccess);
}
