/* hipkfd runtime objects shared by the layers above src/runtime: devices and streams.
 *
 * The contract (RUNTIME_CONTRACT.md): the loader's hipLaunchKernel resolves a hipStream_t with
 * hip_stream_resolve(), then enqueues its packet with hip_stream_dispatch(), which applies the null
 * stream's legacy synchronisation and any pending hipStreamWaitEvent before the dispatch.
 *
 * Lifetime: devices live until exit (hipDeviceReset destroys their user streams, never the struct).
 * Streams created by hipStreamCreate live until hipStreamDestroy (the object is then recycled and
 * its handle answers "invalid"); the null stream lives as long as its device, a per-thread stream
 * until its thread exits.
 *
 * After fork(): the parent's GPU state is unusable in the child (amdkfd copies no GPU mapping);
 * every API call in the child answers hipErrorNotInitialized (init.c) instead of touching it.
 */
#ifndef HIPKFD_RUNTIME_RUNTIME_H
#define HIPKFD_RUNTIME_RUNTIME_H

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
struct hip_fence;

/* Per-device tables (modules, printf buffers) have this many slots, by ordinal. */
#define HIP_MAX_DEVICES 64

/* One visible GPU. `ordinal` is its index after HIP_VISIBLE_DEVICES/ROCR_VISIBLE_DEVICES. */
struct hip_device {
	int ordinal;
	const struct kfd_node *node;    /* topology facts; set at init, never changes */
	struct kfd_gpu *gpu;            /* lazy (kfd_gpu_open); set once under lock */
	struct hip_stream *null_stream; /* lazy; set once under lock */
	_Atomic bool opened;            /* gpu and null_stream are ready (release after setting them) */
	pthread_mutex_t lock;           /* protects lazy state, `streams`, `flags`, `limits`, peers */
	struct hip_stream *streams;     /* every live stream of this device (list by `next`) */
	unsigned flags;                 /* hipSetDeviceFlags value */
	size_t limits[8];               /* hipDeviceSetLimit values, by hipLimit_t */
	uint32_t peers;                 /* bit n: peer access to device n enabled */
	struct sdma_queue *sdma;        /* lazy, for copies and fills; protected by sdma_lock */
	void *staging;                  /* pinned bounce buffer for pageable copies; sdma_lock */
	pthread_mutex_t sdma_lock;      /* serialises use of `sdma` and `staging` */
	struct hip_fence *fence_free;   /* recycled fences; protected by fence_lock */
	struct hip_fence *fence_parked; /* unreferenced but still pending; protected by fence_lock */
	pthread_mutex_t fence_lock;
	void *loader_state;             /* owned by the loader (code objects loaded on this device) */
	_Atomic uint32_t fault_epoch;   /* +1 at each hipDeviceReset that ended a fault: queues made
					 * before it (the streams' are replaced) may be stopped */
};

/* A stream. Fields are private to src/runtime/stream*.c; the launch path uses the functions below. */
#define HIP_STREAM_MAX_WAITS 32
struct hip_stream_callbacks;
struct hip_gpu_read;
struct hip_stream {
	struct hip_device *device;      /* set at creation, never changes */
	unsigned flags;                 /* hipStreamDefault / hipStreamNonBlocking */
	int priority;                   /* hipStreamCreateWithPriority value */
	bool is_null;                   /* the device's legacy null stream */
	bool is_per_thread;             /* hipStreamPerThread of some thread */
	_Atomic bool live;              /* created and not destroyed (objects are recycled) */
	struct hip_stream *next_free;   /* in the recycled-stream list (stream.c) */
	/* The stream lock (stream_lock.h): serialises enqueues, so that submission order is
	 * stream order. Biased to its first thread until another one takes it. */
	_Atomic(const void *) bias_owner; /* the owning thread's token, NULL before the first lock */
	_Atomic int bias_state;         /* STREAM_LOCK_BIASED, _REVOKING or _SHARED */
	_Atomic int bias_busy;          /* the owner holds it (written by the owner only) */
	_Atomic int lock;               /* the futex word of the shared mode: 0 free, 1 held, 2 held
					 * with sleepers */
	struct aql_queue *queue;        /* lazy; protected by lock */
	struct hip_fence *waits[HIP_STREAM_MAX_WAITS]; /* hipStreamWaitEvent; protected by lock */
	int nwaits;                     /* written under lock (atomic stores: copy.c reads it
					 * without the lock) */
	_Atomic int tail_lock;          /* spin lock (held for a few instructions): protects tail,
					 * tail_on_queue (taken inside lock or alone) */
	struct hip_fence *tail;         /* the last enqueued work, NULL when none; written under
					 * tail_lock (atomic stores: stream.c reads it without the
					 * lock where the rules at the top of stream.c allow) */
	bool tail_on_queue;             /* tail came from `queue` (a barrier bit orders after it);
					 * as tail */
	_Atomic uint64_t submitted;     /* operations enqueued so far (written under lock) */
	_Atomic uint64_t launches;      /* kernels enqueued without a completion signal (written
					 * under lock; stream.c stream_cover) */
	_Atomic uint64_t covered;       /* the value of `launches` the tail covers (written under
					 * tail_lock; read without it as a hint) */
	_Atomic uint64_t done_seq;      /* operations known complete: idle when == submitted */
	struct hip_stream *next;        /* in device->streams; protected by device->lock */
	struct hip_stream_callbacks *callbacks; /* host-callback worker (stream_callback.c), lazy */
	struct hip_gpu_read *gpu_reads; /* fences barrier packets of `queue` may still read, in
					 * packet order (stream_gpu_reads.c); protected by lock */
	unsigned n_gpu_reads, cap_gpu_reads;
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
 * pending event waits). The packet carries no completion signal (stream.c covers kernels with a
 * marker when a fence is needed). Returns 0 or -errno (-EFAULT when the queue already faulted). */
int hip_stream_dispatch(struct hip_stream *s, const struct aql_dispatch *d);

/* GPU address of the stream's amd_queue_t (a kernel's hidden queue_ptr), creating the stream's AQL
 * queue if it does not exist yet. 0 if it cannot be created. */
uint64_t hip_stream_queue_va(struct hip_stream *s);

/* Wait until every piece of work enqueued so far on `s` has completed (and its host callbacks have
 * run). Returns 0 or -errno (-EFAULT / -EIO for a queue error). */
int hip_stream_sync(struct hip_stream *s);

/* Wait for every stream of the device (hipDeviceSynchronize). 0, or the -errno of the first
 * wait that failed (a queue error: then the context's sticky error is set). */
int hip_device_sync_all(struct hip_device *d);

#endif /* HIPKFD_RUNTIME_RUNTIME_H */
