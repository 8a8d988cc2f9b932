/* The device-wide entry points: hipGetDeviceCount, hipSetDevice, hipGetDevice, hipDeviceGet,
 * hipDeviceSynchronize, hipDeviceReset, hipSetDeviceFlags/hipGetDeviceFlags. The device table
 * they act on is src/runtime/device.c. */
#include <errno.h>
#include <stdlib.h>

#include "../kfd/kfd.h"
#include "../memory/mem.h"
#include "../runtime/error.h"
#include "../runtime/internal.h"
#include "../runtime/capture.h"

hipError_t hipGetDeviceCount(int *count)
{
	if (!count)
		HIP_RETURN(hipErrorInvalidValue);
	*count = hip_device_count();
	HIP_RETURN(*count > 0 ? hipSuccess : hipErrorNoDevice);
}

hipError_t hipSetDevice(int ordinal)
{
	hipError_t err = hip_init_error();
	if (err != hipSuccess)
		HIP_RETURN(err);
	if (ordinal < 0 || ordinal >= hip_device_count())
		HIP_RETURN(hipErrorInvalidDevice);
	hip_device_select(ordinal);
	HIP_RETURN(hip_device_open(hip_device_peek(ordinal)) ? hipErrorInvalidDevice : hipSuccess);
}

/* The devices a thread may use, in order of preference (as clr): the list is checked, and a
 * thread that has not chosen a device with hipSetDevice starts on the first; an empty list keeps
 * the default order. */
hipError_t hipSetValidDevices(int *device_arr, int len)
{
	hipError_t err = hip_init_error();
	if (err != hipSuccess)
		HIP_RETURN(err);
	if (len == 0)
		HIP_RETURN(hipSuccess);
	if (!device_arr || len < 0 || len > hip_device_count())
		HIP_RETURN(hipErrorInvalidValue);
	for (int i = 0; i < len; i++)
		if (device_arr[i] < 0 || device_arr[i] >= hip_device_count())
			HIP_RETURN(hipErrorInvalidDevice);
	hip_device_prefer(device_arr[0]);
	HIP_RETURN(hipSuccess);
}

hipError_t hipGetDevice(int *ordinal)
{
	if (!ordinal)
		HIP_RETURN(hipErrorInvalidValue);
	hipError_t err = hip_init_error();
	if (err != hipSuccess)
		HIP_RETURN(err);
	*ordinal = hip_device_current_ordinal();
	HIP_RETURN(hipSuccess);
}

hipError_t hipDeviceGet(hipDevice_t *device, int ordinal)
{
	if (!device)
		HIP_RETURN(hipErrorInvalidValue);
	hipError_t err = hip_init_error();
	if (err != hipSuccess)
		HIP_RETURN(err);
	if (ordinal < 0 || ordinal >= hip_device_count())
		HIP_RETURN(hipErrorInvalidDevice);
	*device = ordinal;
	HIP_RETURN(hipSuccess);
}

hipError_t hipDeviceSynchronize(void)
{
	HIP_RETURN_IF_ERROR(hip_capture_device_sync_check());
	struct hip_device *d = hip_device_current();
	if (!d)
		HIP_RETURN(hip_init_error() ?: hipErrorInvalidDevice);
	int qerr = hip_device_sync_all(d);
	pthread_mutex_lock(&d->lock);
	for (struct hip_stream *s = d->streams; s && !qerr; s = s->next)
		qerr = hip_stream_error(s);
	pthread_mutex_unlock(&d->lock);
	HIP_RETURN(qerr ? hip_gpu_error(qerr) : hipSuccess);
}

/* Destroys the current device's streams after waiting for them, frees the program's allocations
 * on it (hipMalloc & co., hipHostMalloc; stream-ordered pools keep theirs), returns cached free
 * memory to the kernel and forgets flags and limits. */
hipError_t hipDeviceReset(void)
{
	struct hip_device *d = hip_device_current();
	if (!d)
		HIP_RETURN(hip_init_error() ?: hipErrorInvalidDevice);
	hip_device_sync_all(d);
	hip_device_streams_reset(d);
	/* The program's allocations on the device go (clr: MemObjMap::Purge), with its
	 * stream-ordered pools (clr: Device::Reset deletes them), then cached free chunks and
	 * blocks go back to the kernel. */
	mem_free_user(d->gpu);
	if (hip_pool_reset_device)
		hip_pool_reset_device(d->ordinal);
	mem_trim(d->gpu);
	hip_device_fault_reset(d);
	hip_sticky_error_clear();
	pthread_mutex_lock(&d->lock);
	d->flags = 0;
	for (size_t i = 0; i < sizeof(d->limits) / sizeof(d->limits[0]); i++)
		d->limits[i] = 0;
	pthread_mutex_unlock(&d->lock);
	/* The calling thread starts over too: its last error goes with the state that produced it
	 * (AMD's runtime on kfdsim: hipGetLastError is hipSuccess right after a reset that followed
	 * a failed hipMalloc). Other threads keep theirs, as their own calls set them. */
	hip_tls_last_error = hipSuccess;
	HIP_RETURN(hipSuccess);
}

hipError_t hipSetDeviceFlags(unsigned flags)
{
	const unsigned known = hipDeviceScheduleMask | hipDeviceMapHost | hipDeviceLmemResizeToMax;
	struct hip_device *d = hip_device_peek(hip_device_current_ordinal());
	if (!d)
		HIP_RETURN(hip_init_error() ?: hipErrorInvalidDevice);
	/* The schedule field holds one of Auto/Spin/Yield/BlockingSync, not a combination. */
	unsigned sched = flags & hipDeviceScheduleMask;
	if ((flags & ~known) || (sched != hipDeviceScheduleAuto && sched != hipDeviceScheduleSpin &&
				 sched != hipDeviceScheduleYield &&
				 sched != hipDeviceScheduleBlockingSync))
		HIP_RETURN(hipErrorInvalidValue);
	/* clr keeps (and hipGetDeviceFlags returns) the scheduling bits only. */
	pthread_mutex_lock(&d->lock);
	d->flags = flags & hipDeviceScheduleMask;
	pthread_mutex_unlock(&d->lock);
	HIP_RETURN(hipSuccess);
}

hipError_t hipGetDeviceFlags(unsigned *flags)
{
	if (!flags)
		HIP_RETURN(hipErrorInvalidValue);
	struct hip_device *d = hip_device_peek(hip_device_current_ordinal());
	if (!d)
		HIP_RETURN(hip_init_error() ?: hipErrorInvalidDevice);
	pthread_mutex_lock(&d->lock);
	*flags = d->flags;
	pthread_mutex_unlock(&d->lock);
	HIP_RETURN(hipSuccess);
}
