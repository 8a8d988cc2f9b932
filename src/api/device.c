/* Devices: the table of visible GPUs, the thread's current device, per-device lazy state, and the
 * device-wide verbs (hipSetDevice, hipDeviceSynchronize, hipDeviceReset, hipSetDeviceFlags). */
#include <errno.h>
#include <stdlib.h>

#include "../kfd/kfd.h"
#include "../memory/mem.h"
#include "capture.h"
#include "error.h"
#include "internal.h"
#include "mempool.h"

static struct hip_device *devices; /* written once by hip_devices_create, then read-only */
static int ndevices;

/* hipSetDevice is per thread, as in CUDA and HIP; a thread that never called it uses device 0. */
static HIP_TLS int current_ordinal;
static HIP_TLS bool device_chosen; /* hipSetDevice was called by this thread */

int hip_devices_create(void)
{
	int n = kfd_gpu_count();
	if (n <= 0)
		return -ENODEV;
	devices = calloc((size_t)n, sizeof(*devices));
	if (!devices)
		return -ENOMEM;
	for (int i = 0; i < n; i++) {
		struct hip_device *d = &devices[i];
		d->ordinal = i;
		d->node = kfd_gpu(i);
		pthread_mutex_init(&d->lock, NULL);
		pthread_mutex_init(&d->sdma_lock, NULL);
		pthread_mutex_init(&d->fence_lock, NULL);
		if (!d->node)
			return -ENODEV;
	}
	ndevices = n;
	return 0;
}

int hip_device_count(void)
{
	return hip_runtime_init() == 0 ? ndevices : 0;
}

struct hip_device *hip_device_peek(int ordinal)
{
	if (hip_runtime_init() != 0 || ordinal < 0 || ordinal >= ndevices)
		return NULL;
	return &devices[ordinal];
}

/* First use of a device: open its GPU (VM, apertures, doorbells) and create its null stream.
 * Double-checked: the acquire load pairs with the release store after both are set. */
int hip_device_open(struct hip_device *d)
{
	int err = 0;

	if (atomic_load_explicit(&d->opened, memory_order_acquire))
		return 0;
	pthread_mutex_lock(&d->lock);
	if (atomic_load_explicit(&d->opened, memory_order_relaxed))
		goto out;
	if (!d->gpu) {
		err = kfd_gpu_open(d->node, &d->gpu);
		if (err)
			goto out;
	}
	pthread_mutex_unlock(&d->lock);
	/* hip_stream_create takes d->lock to link the stream: create outside, publish inside. */
	struct hip_stream *null_stream;
	err = hip_stream_create(d, 0, 0, &null_stream);
	pthread_mutex_lock(&d->lock);
	if (err)
		goto out;
	null_stream->is_null = true;
	if (d->null_stream) {
		pthread_mutex_unlock(&d->lock);
		hip_stream_destroy(null_stream);
		pthread_mutex_lock(&d->lock);
	} else {
		d->null_stream = null_stream;
	}
	atomic_store_explicit(&d->opened, true, memory_order_release);
out:
	pthread_mutex_unlock(&d->lock);
	if (err)
		hip_log(1, "device %d: open failed (%d)", d->ordinal, err);
	return err;
}

struct hip_device *hip_device_get(int ordinal)
{
	struct hip_device *d = hip_device_peek(ordinal);
	if (!d || hip_device_open(d) != 0)
		return NULL;
	return d;
}

struct hip_device *hip_device_of_gpu(const struct kfd_gpu *gpu)
{
	for (int i = 0; gpu && i < ndevices; i++)
		if (devices[i].node == gpu->node)
			return &devices[i];
	return NULL;
}

int hip_device_current_ordinal(void)
{
	return current_ordinal;
}

struct hip_device *hip_device_current(void)
{
	return hip_device_get(current_ordinal);
}

bool hip_device_blocking(const struct hip_device *d)
{
	return (d->flags & hipDeviceScheduleMask) == hipDeviceScheduleBlockingSync;
}

/* Waits for the last work of every stream of the device. Tails are collected under the device
 * lock (an idle stream costs two loads) and waited for without it. The null
 * stream's tail already orders after every blocking stream; non-blocking streams need their own. */
void hip_device_sync_all(struct hip_device *d)
{
	hip_device_sync_streams(d, false);
}

bool hip_device_blocking_streams_idle(struct hip_device *d)
{
	bool idle = true;
	if (!d || !atomic_load_explicit(&d->opened, memory_order_acquire))
		return true;
	pthread_mutex_lock(&d->lock);
	for (struct hip_stream *s = d->streams; s && idle; s = s->next)
		if (!s->is_null && !(s->flags & hipStreamNonBlocking))
			idle = hip_stream_known_idle(s) || hip_stream_idle(s);
	pthread_mutex_unlock(&d->lock);
	return idle;
}

void hip_device_sync_streams(struct hip_device *d, bool blocking_only)
{
	enum { BATCH = 32 };
	if (!d || !atomic_load_explicit(&d->opened, memory_order_acquire))
		return;
	bool more = true;
	while (more) {
		struct hip_fence *tails[BATCH];
		int n = 0;
		more = false;
		pthread_mutex_lock(&d->lock);
		for (struct hip_stream *s = d->streams; s; s = s->next) {
			if (blocking_only && !s->is_null && (s->flags & hipStreamNonBlocking))
				continue;
			if (hip_stream_known_idle(s) || hip_stream_idle(s)) /* marks completed streams
									     * idle: the loop ends */
				continue;
			if (n == BATCH) {
				more = true;
				break;
			}
			tails[n++] = hip_stream_tail(s);
		}
		pthread_mutex_unlock(&d->lock);
		for (int i = 0; i < n; i++) {
			hip_fence_wait(tails[i], hip_device_blocking(d));
			hip_fence_put(tails[i]);
		}
	}
}

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
	if (ordinal < 0 || ordinal >= ndevices)
		HIP_RETURN(hipErrorInvalidDevice);
	current_ordinal = ordinal;
	device_chosen = true;
	HIP_RETURN(hip_device_open(&devices[ordinal]) ? hipErrorInvalidDevice : hipSuccess);
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
	if (!device_arr || len < 0 || len > ndevices)
		HIP_RETURN(hipErrorInvalidValue);
	for (int i = 0; i < len; i++)
		if (device_arr[i] < 0 || device_arr[i] >= ndevices)
			HIP_RETURN(hipErrorInvalidDevice);
	if (!device_chosen)
		current_ordinal = device_arr[0];
	HIP_RETURN(hipSuccess);
}

hipError_t hipGetDevice(int *ordinal)
{
	if (!ordinal)
		HIP_RETURN(hipErrorInvalidValue);
	hipError_t err = hip_init_error();
	if (err != hipSuccess)
		HIP_RETURN(err);
	*ordinal = current_ordinal;
	HIP_RETURN(hipSuccess);
}

hipError_t hipDeviceGet(hipDevice_t *device, int ordinal)
{
	if (!device)
		HIP_RETURN(hipErrorInvalidValue);
	hipError_t err = hip_init_error();
	if (err != hipSuccess)
		HIP_RETURN(err);
	if (ordinal < 0 || ordinal >= ndevices)
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
	hip_device_sync_all(d);
	int qerr = 0;
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
	hip_mempool_reset_device(d->ordinal);
	mem_trim(d->gpu);
	hip_sticky_error_clear();
	pthread_mutex_lock(&d->lock);
	d->flags = 0;
	for (size_t i = 0; i < sizeof(d->limits) / sizeof(d->limits[0]); i++)
		d->limits[i] = 0;
	pthread_mutex_unlock(&d->lock);
	HIP_RETURN(hipSuccess);
}

hipError_t hipSetDeviceFlags(unsigned flags)
{
	const unsigned known = hipDeviceScheduleMask | hipDeviceMapHost | hipDeviceLmemResizeToMax;
	struct hip_device *d = hip_device_peek(current_ordinal);
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
	struct hip_device *d = hip_device_peek(current_ordinal);
	if (!d)
		HIP_RETURN(hip_init_error() ?: hipErrorInvalidDevice);
	pthread_mutex_lock(&d->lock);
	*flags = d->flags;
	pthread_mutex_unlock(&d->lock);
	HIP_RETURN(hipSuccess);
}
