/* The hipStream* entry points: create, destroy, synchronise, query, flags and priority. */
#include <errno.h>

#include "../runtime/capture.h"
#include "../runtime/error.h"
#include "../runtime/internal.h"

/* A GPU-side failure seen by a wait: a memory fault on a queue poisons the process as in AMD's
 * runtime (hipErrorIllegalAddress, sticky), any other queue error is a launch failure. */
/* HIP's stream priorities (hip::Stream::Priority in AMD's runtime): -1 high, 0 normal, 1 low. */
#define PRIORITY_HIGH (-1)
#define PRIORITY_LOW 1

static hipError_t stream_create(hipStream_t *out, unsigned flags, int priority)
{
	if (!out)
		return hipErrorInvalidValue;
	if (flags & ~(unsigned)hipStreamNonBlocking)
		return hipErrorInvalidValue;
	struct hip_device *d = hip_device_current();
	if (!d)
		return hip_init_error() ?: hipErrorInvalidDevice;
	/* Out-of-range priorities are clamped, as AMD's runtime does. */
	if (priority < PRIORITY_HIGH)
		priority = PRIORITY_HIGH;
	if (priority > PRIORITY_LOW)
		priority = PRIORITY_LOW;
	struct hip_stream *s;
	int err = hip_stream_create(d, flags, priority, &s);
	if (err)
		return hip_error_from_errno(err);
	*out = (hipStream_t)s;
	return hipSuccess;
}

hipError_t hipStreamCreate(hipStream_t *stream)
{
	HIP_RETURN(stream_create(stream, hipStreamDefault, 0));
}

hipError_t hipStreamCreateWithFlags(hipStream_t *stream, unsigned int flags)
{
	HIP_RETURN(stream_create(stream, flags, 0));
}

hipError_t hipStreamCreateWithPriority(hipStream_t *stream, unsigned int flags, int priority)
{
	HIP_RETURN(stream_create(stream, flags, priority));
}

hipError_t hipDeviceGetStreamPriorityRange(int *leastPriority, int *greatestPriority)
{
	if (leastPriority)
		*leastPriority = PRIORITY_LOW;
	if (greatestPriority)
		*greatestPriority = PRIORITY_HIGH;
	HIP_RETURN(hipSuccess);
}

hipError_t hipStreamDestroy(hipStream_t stream)
{
	if (stream == NULL)
		HIP_RETURN(hipErrorInvalidHandle);
	if (stream == hipStreamPerThread || stream == hipStreamLegacy)
		HIP_RETURN(hipErrorInvalidResourceHandle);
	if (!hip_stream_valid(stream))
		HIP_RETURN(hipErrorContextIsDestroyed); /* clr hip::isValid, for any unknown handle */
	struct hip_stream *s = (struct hip_stream *)stream;
	if (s->is_null || s->is_per_thread)
		HIP_RETURN(hipErrorInvalidResourceHandle);
	hip_capture_stream_destroyed(stream);
	hip_stream_destroy(s);
	HIP_RETURN(hipSuccess);
}

/* The legacy null stream that blocking stream [in] s implicitly waits for, when it may still have
 * work (clr makes a blocking stream wait for it before a query or a synchronize); else NULL. */
static struct hip_stream *null_stream_ahead(const struct hip_stream *s)
{
	struct hip_stream *ns = __atomic_load_n(&s->device->null_stream, __ATOMIC_ACQUIRE);
	if (s->is_null || (s->flags & hipStreamNonBlocking) || !ns || hip_stream_known_idle(ns))
		return NULL;
	return ns;
}

hipError_t hipStreamSynchronize(hipStream_t stream)
{
	if (hip_capture_any())
		HIP_RETURN_IF_ERROR(hip_capture_sync_check(stream));
	hipError_t herr;
	struct hip_stream *s = hip_stream_from_api_live(stream, &herr);
	if (!s)
		HIP_RETURN(herr);
	/* A blocking stream waits for the legacy null stream's earlier work, so synchronizing one
	 * waits for that work too. */
	struct hip_stream *ns = null_stream_ahead(s);
	if (ns) {
		int nerr = hip_stream_sync(ns);
		if (nerr)
			HIP_RETURN(hip_gpu_error(nerr));
	}
	/* Idle fast path (hip_stream_sync's own first check, inline); the null stream must also
	 * look at the blocking streams. */
	if (!s->is_null && hip_stream_known_idle(s))
		HIP_RETURN(hipSuccess);
	/* The legacy null stream synchronises with every blocking stream of its device. */
	int err = s->is_null ? hip_device_sync_streams(s->device, true) : 0;
	if (!err)
		err = hip_stream_sync(s);
	HIP_RETURN(err ? hip_gpu_error(err) : hipSuccess);
}

/* Unfinished work is hipErrorNotReady, unless the context failed: then it never finishes, and a
 * program polling the query must hear so. */
static hipError_t not_ready(void)
{
	int err = hip_fault_poll();
	return err ? hip_gpu_error(err) : hipErrorNotReady;
}

hipError_t hipStreamSynchronize_spt(hipStream_t stream)
{
	return hipStreamSynchronize(stream ? stream : hipStreamPerThread);
}

hipError_t hipStreamQuery(hipStream_t stream)
{
	HIP_RETURN_IF_ERROR(hip_capture_sync_check(stream));
	hipError_t herr;
	struct hip_stream *s = hip_stream_from_api_live(stream, &herr);
	if (!s)
		HIP_RETURN(herr);
	/* The legacy null stream waits for the blocking streams before its own work, so it is not
	 * idle while they are not (clr: getStream(nullptr, wait) before the query). */
	if (s->is_null && !hip_device_blocking_streams_idle(s->device))
		HIP_RETURN(not_ready());
	/* And a blocking stream waits for the null stream. */
	struct hip_stream *ns = null_stream_ahead(s);
	if (ns && !hip_stream_idle(ns))
		HIP_RETURN(not_ready());
	if (hip_stream_known_idle(s))
		HIP_RETURN(hipSuccess);
	int err = hip_stream_error(s);
	if (err)
		HIP_RETURN(hip_gpu_error(err));
	HIP_RETURN(hip_stream_idle(s) ? hipSuccess : not_ready());
}

hipError_t hipStreamQuery_spt(hipStream_t stream)
{
	return hipStreamQuery(stream ? stream : hipStreamPerThread);
}

hipError_t hipStreamGetFlags(hipStream_t stream, unsigned int *flags)
{
	/* AMD answers hipErrorInvalidValue for the null stream here (it has no flags object). */
	if (!flags || stream == NULL)
		HIP_RETURN(hipErrorInvalidValue);
	hipError_t herr;
	struct hip_stream *s = hip_stream_from_api_live(stream, &herr);
	if (!s)
		HIP_RETURN(herr);
	*flags = s->flags;
	HIP_RETURN(hipSuccess);
}

hipError_t hipStreamGetFlags_spt(hipStream_t stream, unsigned int *flags)
{
	return hipStreamGetFlags(stream ? stream : hipStreamPerThread, flags);
}

hipError_t hipStreamGetPriority(hipStream_t stream, int *priority)
{
	if (!priority)
		HIP_RETURN(hipErrorInvalidValue);
	hipError_t herr;
	struct hip_stream *s = hip_stream_from_api_live(stream, &herr);
	if (!s)
		HIP_RETURN(herr);
	*priority = s->priority;
	HIP_RETURN(hipSuccess);
}

hipError_t hipStreamGetPriority_spt(hipStream_t stream, int *priority)
{
	return hipStreamGetPriority(stream ? stream : hipStreamPerThread, priority);
}

hipError_t hipStreamGetDevice(hipStream_t stream, hipDevice_t *device)
{
	if (!device)
		HIP_RETURN(hipErrorInvalidValue);
	hipError_t herr;
	struct hip_stream *s = hip_stream_from_api_live(stream, &herr);
	if (!s)
		HIP_RETURN(herr);
	*device = s->device->ordinal;
	HIP_RETURN(hipSuccess);
}

/* AMD extension: the stream's device ordinal, or -1 for an invalid stream. */
int hipGetStreamDeviceId(hipStream_t stream)
{
	struct hip_stream *s = hip_stream_resolve(stream);
	return s ? s->device->ordinal : -1;
}
