/* Stream capture as the entry points see it: the hooks the launch, copy, fill, host-function and
 * event entry points call so that work sent to a capturing stream becomes graph nodes instead of
 * running.
 *
 * The pattern at the top of an entry point (after argument checks, before the stream is used):
 *
 *     if (hip_capture_active(stream))
 *       return hip_capture_kernel(stream, ...);
 *
 * hip_capture_active() is one relaxed atomic load while no capture exists anywhere in the
 * process, so the latency-critical paths pay nothing else. It is true when [in] stream is
 * capturing, and also when [in] stream is the legacy null stream while a blocking stream
 * (flags without hipStreamNonBlocking) is capturing: the hook then returns
 * hipErrorStreamCaptureImplicit and invalidates that capture, as CUDA does for work that would
 * make the legacy stream synchronise with a capturing stream.
 *
 * Captured operations follow CUDA's semantics: each new node depends on the stream's current
 * dependency set, which then becomes that node alone; hipEventRecord in a capturing stream
 * remembers the set and hipStreamWaitEvent on that event merges it into the waiting stream (which
 * joins the capture if it was not capturing: fork and join across streams).
 */
#ifndef HIPKFD_RUNTIME_CAPTURE_H
#define HIPKFD_RUNTIME_CAPTURE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include <hip/hip_runtime_api.h>

/* The graph layer (src/graph/capture.c) sits above the entry points and this layer (a graph
 * launch replays its nodes through them), so the entry points reach it only through this table,
 * which it installs when the library is loaded (hip_capture_install). Until then, and in a build
 * without the graph layer, the table answers "nothing is capturing". The hooks below are
 * out-of-line trampolines into the table (capture.c), so a call site costs what a direct call
 * did; they run only while a capture exists, or for the checks of calls that are rare. */

struct ihipGraph;

struct hip_capture_ops {
  bool (*lookup)(hipStream_t stream);
  hipError_t (*kernel)(hipStream_t stream, const void *stub, hipFunction_t fn, dim3 grid,
                       dim3 block, void **args, void **extra, size_t shmem);
  hipError_t (*memcpy)(hipStream_t stream, void *dst, const void *src, size_t size,
                       hipMemcpyKind kind);
  hipError_t (*memcpy3d)(hipStream_t stream, const hipMemcpy3DParms *p);
  hipError_t (*memset)(hipStream_t stream, void *dst, size_t pitch, unsigned value, unsigned esize,
                       size_t width, size_t height);
  hipError_t (*host_func)(hipStream_t stream, hipHostFn_t fn, void *user_data);
  hipError_t (*malloc)(hipStream_t stream, void **ptr, size_t size);
  hipError_t (*free)(hipStream_t stream, void *ptr);
  hipError_t (*graph)(hipStream_t stream, const struct ihipGraph *g);
  bool (*event_record)(hipEvent_t event, hipStream_t stream, unsigned flags, hipError_t *err);
  bool (*wait_event)(hipStream_t stream, hipEvent_t event, unsigned flags, hipError_t *err);
  hipError_t (*sync_check)(hipStream_t stream);
  hipError_t (*unsafe_check)(void);
  hipError_t (*device_sync_check)(void);
  hipError_t (*event_check)(hipEvent_t event);
  void (*stream_destroyed)(hipStream_t stream);
  void (*event_destroyed)(hipEvent_t event);
  bool (*mem_free_outside)(void *ptr);
};

extern const struct hip_capture_ops *hip_capture_ops;
void hip_capture_install(const struct hip_capture_ops *ops);

/* Streams taking part in a capture, process-wide. Written by the graph layer under its lock. */
extern _Atomic int hip_capture_streams;
/* Graph allocations alive (graph memory nodes), process-wide: hipFree asks the graph layer about
 * a pointer only while there are some. Written by src/graph/graph_mem.c. */
extern _Atomic unsigned hip_graph_mem_count;

/* Slow path of hip_capture_active(). */
bool hip_capture_lookup(hipStream_t stream);

/* Any capture in progress anywhere in the process. */
static inline bool hip_capture_any(void)
{
  return atomic_load_explicit(&hip_capture_streams, memory_order_relaxed) != 0;
}

/* [in] stream is capturing (or is the legacy stream while a blocking stream captures). */
static inline bool hip_capture_active(hipStream_t stream)
{
  return hip_capture_any() && hip_capture_lookup(stream);
}

/* A kernel launch: [in] stub (a registered host stub) or [in] fn (hipModuleLaunchKernel's
 * function; stub NULL); arguments as kernelParams [in] args or as [in] extra (one of them). */
hipError_t hip_capture_kernel(hipStream_t stream, const void *stub, hipFunction_t fn, dim3 grid,
                              dim3 block, void **args, void **extra, size_t shmem);

/* hipMemcpyAsync and friends (1D). */
hipError_t hip_capture_memcpy(hipStream_t stream, void *dst, const void *src, size_t size,
                              hipMemcpyKind kind);

/* hipMemcpy2DAsync / hipMemcpy3DAsync (2D callers fill a 3D block with depth 1). */
hipError_t hip_capture_memcpy3d(hipStream_t stream, const hipMemcpy3DParms *p);

/* hipMemset*Async: [in] height rows of [in] width elements of [in] esize (1, 2 or 4) bytes,
 * [in] pitch bytes apart (pitch ignored when height is 1). */
hipError_t hip_capture_memset(hipStream_t stream, void *dst, size_t pitch, unsigned value,
                              unsigned esize, size_t width, size_t height);

/* hipLaunchHostFunc (and hipStreamAddCallback through a host node). */
hipError_t hip_capture_host_func(hipStream_t stream, hipHostFn_t fn, void *user_data);

/* hipMallocAsync: a memory-allocation node; [out] ptr is its (fixed) address. */
hipError_t hip_capture_malloc(hipStream_t stream, void **ptr, size_t size);

/* hipFreeAsync of memory allocated earlier in the same capture: a memory-free node. */
hipError_t hip_capture_free(hipStream_t stream, void *ptr);

/* hipGraphLaunch into a capturing stream: [in] g is embedded as a child graph node. */
hipError_t hip_capture_graph(hipStream_t stream, const struct ihipGraph *g);

/* hipEventRecord / hipEventRecordWithFlags. Returns true when the call was handled here (the
 * stream is capturing), with the result in [out] err; false when the caller records normally
 * (this also forgets a capture-time record of [in] event). */
bool hip_capture_event_record(hipEvent_t event, hipStream_t stream, unsigned flags,
                              hipError_t *err);

/* hipStreamWaitEvent. Returns true when handled here (the stream is capturing or the event was
 * recorded in a capture), with the result in [out] err. */
bool hip_capture_wait_event(hipStream_t stream, hipEvent_t event, unsigned flags, hipError_t *err);

/* hipStreamSynchronize, hipStreamQuery and synchronous copies/fills on [in] stream:
 * hipErrorStreamCaptureUnsupported (and the capture is invalidated) if it is capturing;
 * hipErrorStreamCaptureImplicit if it is the legacy stream while a blocking stream captures;
 * for another stream that is not capturing, the rule of hip_capture_unsafe_check() (clr). */
hipError_t hip_capture_sync_check(hipStream_t stream);

/* Calls CUDA calls "potentially unsafe" during capture (hipMalloc, hipFree, hipHostMalloc,
 * hipHostFree, hipMallocManaged, hipDeviceSynchronize, synchronous hipMemcpy/hipMemset, ...):
 * hipErrorStreamCaptureUnsupported according to the thread's capture mode
 * (hipThreadExchangeStreamCaptureMode): Global: this thread has a non-relaxed capture or any
 * thread has a global one; ThreadLocal: this thread has a non-relaxed capture; Relaxed: never.
 * This thread's offending captures are invalidated. */
hipError_t hip_capture_unsafe_check(void);

/* hipDeviceSynchronize: it would wait for every capturing stream, which is illegal in every
 * capture mode (clr's CHECK_SUPPORTED_DURING_CAPTURE, CUDA): hipErrorStreamCaptureUnsupported
 * while any capture is in progress in any thread, and all of them are invalidated. */
hipError_t hip_capture_device_sync_check(void);

/* hipEventSynchronize / hipEventQuery / hipEventElapsedTime: hipErrorCapturedEvent if [in] event
 * was last recorded in a capture still in progress. */
hipError_t hip_capture_event_check(hipEvent_t event);

/* hipStreamDestroy of [in] stream: forgets its capture state (the capture is invalidated). */
void hip_capture_stream_destroyed(hipStream_t stream);

/* hipEventDestroy of [in] event: forgets its capture-time record. */
void hip_capture_event_destroyed(hipEvent_t event);

/* For hipFree (and so hipFreeAsync of memory not from a pool), after its device wait and before
 * the memory is released: when [in] ptr is the address of a graph allocation
 * (hipGraphAddMemAllocNode, a captured hipMallocAsync), marks it freed in CUDA's sense and returns
 * true, and the caller returns hipSuccess without releasing anything; the graphs keep the memory
 * mapped and allocate it again at their next launch. False for any other pointer. */
static inline bool hip_capture_mem_free_outside(void *ptr)
{
  return ptr && atomic_load_explicit(&hip_graph_mem_count, memory_order_relaxed) &&
         hip_capture_ops->mem_free_outside(ptr);
}

#endif
