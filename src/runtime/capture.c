/* The capture hook table the entry points call through (capture.h), and its answers before the
 * graph layer installs its own: nothing is capturing, every check passes. */
#include "capture.h"

_Atomic int hip_capture_streams;
_Atomic unsigned hip_graph_mem_count;

static bool none_lookup(hipStream_t stream)
{
  (void)stream;
  return false;
}

static hipError_t none_check(void)
{
  return hipSuccess;
}

static hipError_t none_stream_check(hipStream_t stream)
{
  (void)stream;
  return hipSuccess;
}

static hipError_t none_event_check(hipEvent_t event)
{
  (void)event;
  return hipSuccess;
}

static bool none_event_record(hipEvent_t event, hipStream_t stream, unsigned flags,
                              hipError_t *err)
{
  (void)event, (void)stream, (void)flags, (void)err;
  return false;
}

static bool none_wait_event(hipStream_t stream, hipEvent_t event, unsigned flags, hipError_t *err)
{
  (void)event, (void)stream, (void)flags, (void)err;
  return false;
}

static void none_stream_destroyed(hipStream_t stream)
{
  (void)stream;
}

static void none_event_destroyed(hipEvent_t event)
{
  (void)event;
}

static bool none_mem_free_outside(void *ptr)
{
  (void)ptr;
  return false;
}

/* The enqueue hooks (kernel, memcpy, ...) run only after lookup answered true: never here. */
static const struct hip_capture_ops no_capture = {
    .lookup = none_lookup,
    .event_record = none_event_record,
    .wait_event = none_wait_event,
    .sync_check = none_stream_check,
    .unsafe_check = none_check,
    .device_sync_check = none_check,
    .event_check = none_event_check,
    .stream_destroyed = none_stream_destroyed,
    .event_destroyed = none_event_destroyed,
    .mem_free_outside = none_mem_free_outside,
};

const struct hip_capture_ops *hip_capture_ops = &no_capture;

void hip_capture_install(const struct hip_capture_ops *ops)
{
  hip_capture_ops = ops;
}

/* ---- the hooks of capture.h: each forwards to the installed table ---- */

bool hip_capture_lookup(hipStream_t stream)
{
  return hip_capture_ops->lookup(stream);
}

hipError_t hip_capture_kernel(hipStream_t stream, const void *stub, hipFunction_t fn, dim3 grid,
                              dim3 block, void **args, void **extra, size_t shmem)
{
  return hip_capture_ops->kernel(stream, stub, fn, grid, block, args, extra, shmem);
}

hipError_t hip_capture_memcpy(hipStream_t stream, void *dst, const void *src, size_t size,
                              hipMemcpyKind kind)
{
  return hip_capture_ops->memcpy(stream, dst, src, size, kind);
}

hipError_t hip_capture_memcpy3d(hipStream_t stream, const hipMemcpy3DParms *p)
{
  return hip_capture_ops->memcpy3d(stream, p);
}

hipError_t hip_capture_memset(hipStream_t stream, void *dst, size_t pitch, unsigned value,
                              unsigned esize, size_t width, size_t height)
{
  return hip_capture_ops->memset(stream, dst, pitch, value, esize, width, height);
}

hipError_t hip_capture_host_func(hipStream_t stream, hipHostFn_t fn, void *user_data)
{
  return hip_capture_ops->host_func(stream, fn, user_data);
}

hipError_t hip_capture_malloc(hipStream_t stream, void **ptr, size_t size)
{
  return hip_capture_ops->malloc(stream, ptr, size);
}

hipError_t hip_capture_free(hipStream_t stream, void *ptr)
{
  return hip_capture_ops->free(stream, ptr);
}

hipError_t hip_capture_graph(hipStream_t stream, const struct ihipGraph *g)
{
  return hip_capture_ops->graph(stream, g);
}

bool hip_capture_event_record(hipEvent_t event, hipStream_t stream, unsigned flags, hipError_t *err)
{
  return hip_capture_ops->event_record(event, stream, flags, err);
}

bool hip_capture_wait_event(hipStream_t stream, hipEvent_t event, unsigned flags, hipError_t *err)
{
  return hip_capture_ops->wait_event(stream, event, flags, err);
}

hipError_t hip_capture_sync_check(hipStream_t stream)
{
  return hip_capture_ops->sync_check(stream);
}

hipError_t hip_capture_unsafe_check(void)
{
  return hip_capture_ops->unsafe_check();
}

hipError_t hip_capture_device_sync_check(void)
{
  return hip_capture_ops->device_sync_check();
}

hipError_t hip_capture_event_check(hipEvent_t event)
{
  return hip_capture_ops->event_check(event);
}

void hip_capture_stream_destroyed(hipStream_t stream)
{
  hip_capture_ops->stream_destroyed(stream);
}

void hip_capture_event_destroyed(hipEvent_t event)
{
  hip_capture_ops->event_destroyed(event);
}
