/* hipkfd runtime objects shared by the src/api files: devices and streams.
 *
 * The contract (RUNTIME_CONTRACT.md): the loader's hipLaunchKernel resolves a hipStream_t with
 * hip_stream_resolve(), then enqueues its packet with hip_stream_dispatch(), which applies the null
 * stream's legacy synchronisation and any pending hipStreamWaitEvent before the dispatch.
 *
 * Lifetime: devices live until exit (hipDeviceReset destroys their streams and memory, never the
 * struct). Streams created by hipStreamCreate live until hipStreamDestroy; the null stream and the
 * per-thread streams live as long as their device.
 *
 * After fork(): the child has no GPU state (kfd_open reopens); the runtime does not support using a
 * parent's streams or memory in the child, as with AMD's runtime.
 */
#ifndef HIPKFD_API_RUNTIME_H
#define HIPKFD_API_RUNTIME_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hip/hip_runtime_api.h>

struct kfd_node;
struct kfd_gpu;
struct aql_queue;
struct aql_dispatch;
struct sdma_queue;
struct signal;
struct hip_stream;

/* One visible GPU. `ordinal` is its index after HIP_VISIBLE_DEVICES/ROCR_VISIBLE_DEVICES. */
struct hip_device {
	int ordinal;
	const struct kfd_node *node;    /* topology facts; set at init, never changes */
	struct kfd_gpu *gpu;            /* lazy (kfd_gpu_open); NULL until first use; protected by lock */
	struct hip_stream *null_stream; /* lazy; protected by lock */
	struct sdma_queue *sdma;        /* lazy, for copies and fills; protected by sdma_lock */
	pthread_mutex_t sdma_lock;      /* serialises submissions to `sdma` */
	pthread_mutex_t lock;           /* protects lazy state, the stream list and `flags` */
	struct hip_stream *streams;     /* every live stream of this device (list by `next`) */
	unsigned flags;                 /* hipSetDeviceFlags value */
	size_t limits[8];               /* hipDeviceGetLimit values, by hipLimit_t */
	atomic_bool initialised;        /* gpu and null_stream ready (acquire/release with lock) */
	void *loader_state;             /* owned by the loader (code objects loaded on this device) */
};

/* A stream. All fields are private to src/api/stream*.c except as noted. */
struct hip_stream {
	struct hip_device *device;      /* set at creation, never changes */
	struct aql_queue *queue;        /* the AQL queue kernels and barriers go to */
	unsigned flags;                 /* hipStreamDefault / hipStreamNonBlocking */
	int priority;                   /* hipStreamCreateWithPriority value */
	bool is_null;                   /* the device's legacy null stream */
	bool is_per_thread;             /* hipStreamPerThread of some thread */
	pthread_mutex_t lock;           /* serialises enqueues on this stream (order = submission order) */
	struct signal *last;            /* completion signal of the last enqueued work; protected by lock */
	uint64_t last_seq;              /* submissions so far; protected by lock */
	atomic_uint_fast64_t done_seq;  /* submissions known complete (fast idle check, no syscall) */
	struct hip_stream *next;        /* in device->streams; protected by device->lock */
	void *callbacks;                /* host-callback worker state (stream_callback.c) */
	void *waits;                    /* pending event waits before the next submission */
};

/* Once per process: topology, HIP_VISIBLE_DEVICES/ROCR_VISIBLE_DEVICES, HIPKFD_LOG. Returns 0 or
 * -errno (-ENODEV when no GPU is visible). Thread-safe; later calls return the first result. */
int hip_runtime_init(void);

/* Number of visible GPUs (0 when none or when init failed). Calls hip_runtime_init(). */
int hip_device_count(void);

/* The device with this ordinal, its GPU state opened lazily (kfd_gpu_open, null stream).
 * NULL for a bad ordinal or when opening fails. */
struct hip_device *hip_device_get(int ordinal);

/* The calling thread's current device (hipSetDevice; device 0 by default), opened lazily. NULL if
 * there is no GPU. */
struct hip_device *hip_device_current(void);

/* [in] s: a hipStream_t from the user. NULL or hipStreamLegacy -> the current device's null stream;
 * hipStreamPerThread -> the calling thread's per-thread stream on the current device; a stream
 * that was never created or already destroyed -> NULL. */
struct hip_stream *hip_stream_resolve(hipStream_t s);

/* The device a stream belongs to. */
struct hip_device *hip_stream_device(struct hip_stream *s);

/* Enqueue a kernel dispatch in stream order (after the null stream's legacy synchronisation and
 * pending event waits). The packet's completion signal is the stream's. Returns 0 or -errno
 * (-EFAULT when the queue already faulted). */
int hip_stream_dispatch(struct hip_stream *s, const struct aql_dispatch *d);

/* Wait until every piece of work enqueued so far on `s` has completed (and its host callbacks have
 * run). Returns 0 or -errno (-EFAULT / -EIO for a queue error). */
int hip_stream_sync(struct hip_stream *s);

/* Wait for every stream of the device (hipDeviceSynchronize). */
void hip_device_sync_all(struct hip_device *d);

#endif /* HIPKFD_API_RUNTIME_H */
