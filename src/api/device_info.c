/* Device queries beyond the properties struct: name, total memory, PCI bus id, UUID, compute
 * capability, limits, cache and shared-memory configuration. */
#include <stdio.h>
#include <string.h>

#include "../kfd/kfd.h"
#include "device_props.h"
#include "../runtime/error.h"
#include "../runtime/internal.h"
#include "../hostcall/printf_buffer.h"

static struct hip_device *device_arg(int device, hipError_t *err)
{
	struct hip_device *d = hip_device_peek(device);
	*err = d ? hipSuccess : (hip_init_error() ?: hipErrorInvalidDevice);
	return d;
}

hipError_t hipDeviceGetName(char *name, int len, hipDevice_t device)
{
	hipError_t err;
	if (!name || len <= 0)
		HIP_RETURN(hipErrorInvalidValue);
	struct hip_device *d = device_arg(device, &err);
	if (!d)
		HIP_RETURN(err);
	const struct kfd_node *n = d->node;
	hip_device_name(n, name, (size_t)len);
	HIP_RETURN(hipSuccess);
}

hipError_t hipDeviceTotalMem(size_t *bytes, hipDevice_t device)
{
	hipError_t err;
	if (!bytes)
		HIP_RETURN(hipErrorInvalidValue);
	struct hip_device *d = device_arg(device, &err);
	if (!d)
		HIP_RETURN(err);
	*bytes = hip_device_total_mem(d->node);
	HIP_RETURN(hipSuccess);
}

hipError_t hipDeviceComputeCapability(int *major, int *minor, hipDevice_t device)
{
	hipError_t err;
	if (!major || !minor)
		HIP_RETURN(hipErrorInvalidValue);
	struct hip_device *d = device_arg(device, &err);
	if (!d)
		HIP_RETURN(err);
	*major = (int)d->node->gfx_major;
	*minor = (int)d->node->gfx_minor;
	HIP_RETURN(hipSuccess);
}

hipError_t hipDeviceGetUuid(hipUUID *uuid, hipDevice_t device)
{
	hipError_t err;
	if (!uuid)
		HIP_RETURN(hipErrorInvalidValue);
	struct hip_device *d = device_arg(device, &err);
	if (!d)
		HIP_RETURN(err);
	char hex[17];
	snprintf(hex, sizeof(hex), "%016llx", (unsigned long long)d->node->unique_id);
	memcpy(uuid->bytes, hex, 16);
	HIP_RETURN(hipSuccess);
}

/* "dddd:bb:dd.f", the format AMD's and CUDA's runtimes use. A buffer shorter than the 13 bytes it
 * takes gets hipErrorInvalidValue (after a truncated copy, as AMD does). */
hipError_t hipDeviceGetPCIBusId(char *pciBusId, int len, int device)
{
	hipError_t err;
	struct hip_device *d = device_arg(device, &err);
	if (!d)
		HIP_RETURN(err);
	if (!pciBusId || len <= 0)
		HIP_RETURN(hipErrorInvalidValue);
	const struct kfd_node *n = d->node;
	snprintf(pciBusId, (size_t)len, "%04x:%02x:%02x.%x", n->domain, (n->location_id >> 8) & 0xff,
		 (n->location_id >> 3) & 0x1f, n->location_id & 0x7);
	HIP_RETURN(len <= 12 ? hipErrorInvalidValue : hipSuccess);
}

hipError_t hipDeviceGetByPCIBusId(int *device, const char *pciBusId)
{
	if (!device || !pciBusId)
		HIP_RETURN(hipErrorInvalidValue);
	hipError_t ierr = hip_init_error();
	if (ierr != hipSuccess)
		HIP_RETURN(ierr);
	unsigned domain, bus, dev, fn = 0;
	int got = sscanf(pciBusId, "%x:%x:%x.%x", &domain, &bus, &dev, &fn);
	if (got < 3)
		HIP_RETURN(hipErrorInvalidValue);
	for (int i = 0; i < hip_device_count(); i++) {
		const struct kfd_node *n = hip_device_peek(i)->node;
		if (n->domain == domain && ((n->location_id >> 8) & 0xff) == bus &&
		    ((n->location_id >> 3) & 0x1f) == dev) {
			*device = i;
			HIP_RETURN(hipSuccess);
		}
	}
	HIP_RETURN(hipErrorInvalidValue);
}

/* ---- limits ----------------------------------------------------------------------------------- */

/* Defaults: 1 KiB of stack per work-item and a 4 MiB device heap for malloc, as AMD's runtime
 * sets them; a 4 MiB buffered-printf buffer, the size printf_buffer.c makes (clr: 4096 bytes
 * per work-item of a 1024-thread group). The loader reads d->limits when it sizes scratch. */
#define DEFAULT_STACK_SIZE 1024u
#define DEFAULT_HEAP_SIZE (4u * 1024u * 1024u)
#define DEFAULT_PRINTF_FIFO HIP_PRINTF_BUFFER_DEFAULT
/* The largest per-work-item scratch a gfx9 dispatch can have (the AQL private_segment_size is
 * limited by the wave's scratch size: COMPUTE_TMPRING_SIZE.WAVESIZE of 13 bits in 1 KiB units
 * over 64 lanes). */
#define MAX_STACK_SIZE ((8192u * 1024u) / 64u)

size_t hip_device_limit(struct hip_device *d, enum hipLimit_t limit)
{
	size_t v = 0;
	/* Once the printf buffer exists its size is the answer (it outlives hipDeviceReset). */
	if (limit == hipLimitPrintfFifoSize && (v = hip_printf_buffer_size(d)) != 0)
		return v;
	if ((unsigned)limit < sizeof(d->limits) / sizeof(d->limits[0])) {
		pthread_mutex_lock(&d->lock);
		v = d->limits[limit];
		pthread_mutex_unlock(&d->lock);
	}
	if (v)
		return v;
	switch (limit) {
	case hipLimitStackSize:
		return DEFAULT_STACK_SIZE;
	case hipLimitMallocHeapSize:
		return DEFAULT_HEAP_SIZE;
	case hipLimitPrintfFifoSize:
		return DEFAULT_PRINTF_FIFO;
	default:
		return 0;
	}
}

hipError_t hipDeviceGetLimit(size_t *pValue, enum hipLimit_t limit)
{
	if (!pValue)
		HIP_RETURN(hipErrorInvalidValue);
	struct hip_device *d = hip_device_peek(hip_device_current_ordinal());
	if (!d)
		HIP_RETURN(hip_init_error() ?: hipErrorInvalidDevice);
	switch (limit) {
	case hipLimitStackSize:
	case hipLimitMallocHeapSize:
	case hipLimitPrintfFifoSize:
		*pValue = hip_device_limit(d, limit);
		HIP_RETURN(hipSuccess);
	default:
		/* clr: values past the enum are invalid, others (negative ones too) unsupported */
		HIP_RETURN((int)limit >= (int)hipLimitRange ? hipErrorInvalidValue
							    : hipErrorUnsupportedLimit);
	}
}

hipError_t hipDeviceSetLimit(enum hipLimit_t limit, size_t value)
{
	struct hip_device *d = hip_device_peek(hip_device_current_ordinal());
	if (!d)
		HIP_RETURN(hip_init_error() ?: hipErrorInvalidDevice);
	switch (limit) {
	case hipLimitStackSize:
		if (value > MAX_STACK_SIZE)
			HIP_RETURN(hipErrorInvalidValue);
		break;
	case hipLimitMallocHeapSize:
		if (value == 0)
			HIP_RETURN(hipErrorInvalidValue);
		break;
	case hipLimitPrintfFifoSize:
		/* CUDA: set before the first kernel that uses printf, else cudaErrorInvalidValue. */
		if (value == 0 || hip_printf_buffer_set_size(d, value) != 0)
			HIP_RETURN(hipErrorInvalidValue);
		HIP_RETURN(hipSuccess);
	default:
		/* clr: values past the enum are invalid, others (negative ones too) unsupported */
		HIP_RETURN((int)limit >= (int)hipLimitRange ? hipErrorInvalidValue
							    : hipErrorUnsupportedLimit);
	}
	pthread_mutex_lock(&d->lock);
	d->limits[limit] = value;
	pthread_mutex_unlock(&d->lock);
	HIP_RETURN(hipSuccess);
}

/* ---- cache and shared-memory configuration: fixed on AMD GPUs ----------------------------------- */

hipError_t hipDeviceGetCacheConfig(hipFuncCache_t *cacheConfig)
{
	if (!cacheConfig)
		HIP_RETURN(hipErrorInvalidValue);
	*cacheConfig = hipFuncCachePreferNone;
	HIP_RETURN(hipSuccess);
}

/* The L1/LDS split is fixed on AMD GPUs: clr checks the value and succeeds without effect, and
 * hipDeviceGetCacheConfig always answers PreferNone (so AMD lists hip-tests'
 * Unit_hipDeviceGetCacheConfig_Positive_Basic/_Threaded, which expect the value set, as failing
 * on its own runtime). */
hipError_t hipDeviceSetCacheConfig(hipFuncCache_t cacheConfig)
{
	if (cacheConfig != hipFuncCachePreferNone && cacheConfig != hipFuncCachePreferShared &&
	    cacheConfig != hipFuncCachePreferL1 && cacheConfig != hipFuncCachePreferEqual)
		HIP_RETURN(hipErrorInvalidValue);
	HIP_RETURN(hipSuccess);
}

hipError_t hipDeviceGetSharedMemConfig(hipSharedMemConfig *pConfig)
{
	if (!pConfig)
		HIP_RETURN(hipErrorInvalidValue);
	*pConfig = hipSharedMemBankSizeFourByte;
	HIP_RETURN(hipSuccess);
}

hipError_t hipDeviceSetSharedMemConfig(hipSharedMemConfig config)
{
	if (config != hipSharedMemBankSizeDefault && config != hipSharedMemBankSizeFourByte &&
	    config != hipSharedMemBankSizeEightByte)
		HIP_RETURN(hipErrorInvalidValue);
	HIP_RETURN(hipSuccess); /* 4-byte banks on gfx9; clr accepts the request without effect */
}
