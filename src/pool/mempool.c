/* The stream-ordered allocator: hipMallocAsync, hipFreeAsync and memory pools.
 *
 * A pool caches device allocations (mem_alloc) of its device. hipFreeAsync does not free: it
 * records an event on the freeing stream and puts the block on the pool's free list. A later
 * allocation of a fitting size takes a free block only when stream order allows it, by AMD's
 * rules (clr Heap::FindMemory, MemoryTimestamp::IsSafeFind):
 *  1. the allocating stream is the stream that freed it: the stream runs in order;
 *  2. hipMemPoolReuseAllowOpportunistic: the free's event has completed.
 * A free still pending on another stream is never handed over: the allocation gets a new block.
 * hipMemPoolReuseAllowInternalDependencies and hipMemPoolReuseFollowEventDependencies are recorded
 * and read back but add no reuse, as in clr (CUDA may make the allocating stream wait instead;
 * AMD's runtime, and programs that rely on a second block while the first is in use, get a new
 * block).
 *
 * Memory goes back to the device in hipMemPoolTrimTo, and when a pool must grow while it holds
 * more than its release threshold: then completed free blocks are released, once the new block
 * is made (so that it never takes over a refused block's address). CUDA releases
 * above the threshold at synchronisation points; this runtime's synchronisation calls do not call
 * into the pool, so it happens at the next allocation instead.
 *
 * Ordering uses only public HIP calls (events) and the runtime contract (hip_stream_resolve).
 * Locks: a pool's lock, then pool_list_lock (pool registry, per-device current pools) or ptr_lock
 * (the table of blocks in use); never the reverse.
 *
 * Pools are shared between processes through POSIX descriptors (see "sharing" below).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../memory/mem.h"
#include "../memory/ipc_handle.h"
#include "../runtime/capture.h"
#include "../runtime/error.h"
#include "../runtime/internal.h"
#include "mempool.h"
#include "../runtime/runtime.h"

#define POOL_MAGIC 0x4c4f4f50u   /* "POOL" */
#define POOL_MAX_DEVICES 32
#define POOL_ALIGN 256u          /* allocation sizes are rounded to this (hipMalloc's alignment) */
#define PTR_BUCKETS 1024u

struct pool_block {
	void *ptr;
	size_t size;                 /* rounded size: what the pool accounts */
	struct hip_pool *pool;
	hipEvent_t freed;            /* recorded by hipFreeAsync; NULL while in use */
	struct hip_stream *freed_on; /* the stream that freed it */
	struct pool_block *next;     /* free list (pool->lock) or pointer table bucket (ptr_lock) */
};

struct hip_pool {
	uint32_t magic;
	int device;
	bool is_default;
	bool imported;               /* hipMemPoolImportFromShareableHandle: no allocations */
	pid_t exporter;              /* imported: the exporting process */
	int share_fd;                /* imported: our copy of the exporter's pidfd, else -1 */
	hipMemPoolProps props;
	pthread_mutex_t lock;        /* protects everything below */
	bool follow_event_deps, opportunistic, internal_deps;
	uint64_t release_threshold;
	uint64_t reserved, reserved_high, used, used_high;
	unsigned char access[POOL_MAX_DEVICES]; /* hipMemAccessFlags per peer device */
	struct pool_block *free_list;
	struct hip_pool *next;       /* registry (pool_list_lock) */
};

static pthread_mutex_t pool_list_lock = PTHREAD_MUTEX_INITIALIZER;
static struct hip_pool *pool_list;                      /* live pools (pool_list_lock) */
static struct hip_pool *default_pools[POOL_MAX_DEVICES]; /* lazy (pool_list_lock) */
static struct hip_pool *current_pools[POOL_MAX_DEVICES]; /* NULL: the default (pool_list_lock) */

static pthread_mutex_t ptr_lock = PTHREAD_MUTEX_INITIALIZER;
static struct pool_block *ptr_table[PTR_BUCKETS];       /* blocks in use, by pointer (ptr_lock) */

/* ---- pointer table ---------------------------------------------------------------------------- */

static unsigned ptr_bucket(const void *p)
{
	return (unsigned)(((uintptr_t)p >> 8) * 0x9e3779b1u) % PTR_BUCKETS;
}

static void ptr_insert(struct pool_block *b)
{
	unsigned h = ptr_bucket(b->ptr);
	pthread_mutex_lock(&ptr_lock);
	b->next = ptr_table[h];
	ptr_table[h] = b;
	pthread_mutex_unlock(&ptr_lock);
}

/* Remove and return the in-use block that starts at p, or NULL. */
static struct pool_block *ptr_remove(const void *p)
{
	unsigned h = ptr_bucket(p);
	struct pool_block *b = NULL;
	pthread_mutex_lock(&ptr_lock);
	for (struct pool_block **pp = &ptr_table[h]; *pp; pp = &(*pp)->next) {
		if ((*pp)->ptr == p) {
			b = *pp;
			*pp = b->next;
			break;
		}
	}
	pthread_mutex_unlock(&ptr_lock);
	return b;
}

/* ---- pools ------------------------------------------------------------------------------------ */

static bool device_valid(int device)
{
	return device >= 0 && device < hip_device_count() && device < POOL_MAX_DEVICES;
}

static struct hip_pool *pool_new(int device, const hipMemPoolProps *props, bool is_default)
{
	struct hip_pool *p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->magic = POOL_MAGIC;
	p->device = device;
	p->is_default = is_default;
	p->props = *props;
	p->share_fd = -1;
	pthread_mutex_init(&p->lock, NULL);
	/* CUDA's defaults: every reuse policy on, release threshold 0. */
	p->follow_event_deps = p->opportunistic = p->internal_deps = true;
	return p;
}

/* pool_list_lock held. */
static bool pool_known_locked(const struct hip_pool *p)
{
	for (struct hip_pool *q = pool_list; q; q = q->next)
		if (q == p)
			return true;
	return false;
}

static struct hip_pool *pool_of(hipMemPool_t h)
{
	struct hip_pool *p = (struct hip_pool *)h;
	pthread_mutex_lock(&pool_list_lock);
	bool ok = p && pool_known_locked(p);
	pthread_mutex_unlock(&pool_list_lock);
	return ok ? p : NULL;
}

/* The device's default pool, created on first use. NULL only when out of memory. */
static struct hip_pool *default_pool(int device)
{
	pthread_mutex_lock(&pool_list_lock);
	struct hip_pool *p = default_pools[device];
	if (!p) {
		hipMemPoolProps props;
		memset(&props, 0, sizeof(props));
		props.allocType = hipMemAllocationTypePinned;
		props.location.type = hipMemLocationTypeDevice;
		props.location.id = device;
		p = pool_new(device, &props, true);
		if (p) {
			p->next = pool_list;
			pool_list = p;
			default_pools[device] = p;
		}
	}
	pthread_mutex_unlock(&pool_list_lock);
	return p;
}

static struct hip_pool *current_pool(int device)
{
	pthread_mutex_lock(&pool_list_lock);
	struct hip_pool *p = current_pools[device];
	pthread_mutex_unlock(&pool_list_lock);
	return p ? p : default_pool(device);
}

/* ---- events on a stream's device -------------------------------------------------------------- */

/* hipEventRecord wants an event of the stream's device; events are created on the current one. */
static hipError_t record_free_event(struct hip_stream *s, hipStream_t stream, hipEvent_t *out)
{
	int old, dev = hip_stream_device(s)->ordinal;
	hipError_t err = hipGetDevice(&old);
	if (err != hipSuccess)
		return err;
	if (old != dev && (err = hipSetDevice(dev)) != hipSuccess)
		return err;
	err = hipEventCreateWithFlags(out, hipEventDisableTiming);
	if (err == hipSuccess) {
		err = hipEventRecord(*out, stream);
		if (err != hipSuccess)
			hipEventDestroy(*out);
	}
	if (old != dev)
		hipSetDevice(old);
	return err;
}

/* ---- allocation ------------------------------------------------------------------------------- */

/* Release a free block to the device. pool->lock held. */
static void block_release(struct hip_pool *p, struct pool_block *b)
{
	mem_free(b->ptr);
	if (b->freed)
		hipEventDestroy(b->freed);
	p->reserved -= b->size;
	free(b);
}

static bool block_free_done(struct pool_block *b)
{
	return hipEventQuery(b->freed) == hipSuccess;
}

/* Release completed free blocks while the pool holds more than `keep` bytes. pool->lock held. */
static void pool_trim_locked(struct hip_pool *p, uint64_t keep)
{
	for (struct pool_block **pp = &p->free_list; *pp && p->reserved > keep;) {
		struct pool_block *b = *pp;
		if (!block_free_done(b)) {
			pp = &b->next;
			continue;
		}
		*pp = b->next;
		block_release(p, b);
	}
}

/* A free block that `s` may use now under the pool's reuse rules, unlinked from the free list.
 * pool->lock held. */
static struct pool_block *pool_take_free(struct hip_pool *p, size_t size, struct hip_stream *s)
{
	for (int pass = 0; pass < 2; pass++) {
		for (struct pool_block **pp = &p->free_list; *pp; pp = &(*pp)->next) {
			struct pool_block *b = *pp;
			/* Fitting sizes only: at most twice the request, so a small request does not
			 * pin a large block. */
			if (b->size < size || b->size / 2 > size)
				continue;
			bool ok;
			if (pass == 0)
				ok = b->freed_on == s;
			else
				ok = p->opportunistic && block_free_done(b);
			if (!ok)
				continue;
			*pp = b->next;
			hipEventDestroy(b->freed);
			b->freed = NULL;
			b->freed_on = NULL;
			return b;
		}
	}
	return NULL;
}

static void account_used(struct hip_pool *p, struct pool_block *b)
{
	p->used += b->size;
	if (p->used > p->used_high)
		p->used_high = p->used;
}

/* A new block from the device, releasing completed free blocks first when the pool is above its
 * release threshold, and all of them when the device is out of memory. pool->lock held. */
static int pool_grow(struct hip_pool *p, size_t size, struct pool_block **out)
{
	struct hip_device *d = hip_device_get(p->device);
	if (!d || !d->gpu)
		return -ENODEV;
	if (p->props.maxSize && p->reserved + size > p->props.maxSize)
		pool_trim_locked(p, p->props.maxSize - size);
	if (p->props.maxSize && p->reserved + size > p->props.maxSize)
		return -ENOMEM;
	struct pool_block *b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	int err = mem_alloc(d->gpu, size, MEM_DEVICE, 0, &b->ptr);
	if (err == -ENOMEM) {
		pool_trim_locked(p, 0);
		err = mem_alloc(d->gpu, size, MEM_DEVICE, 0, &b->ptr);
	}
	if (err) {
		free(b);
		return err;
	}
	/* Peers that were granted access to the pool see new blocks too. */
	for (int i = 0; i < POOL_MAX_DEVICES; i++) {
		struct hip_device *peer = p->access[i] ? hip_device_get(i) : NULL;
		if (peer && peer->gpu)
			mem_map_to_gpu(b->ptr, peer->gpu);
	}
	b->size = size;
	b->pool = p;
	p->reserved += size;
	if (p->reserved > p->reserved_high)
		p->reserved_high = p->reserved;
	/* Above the release threshold, completed free blocks go back only now that the new block
	 * exists: released first, the device would hand their address straight back, and a block
	 * that the reuse rules refused (another stream's free, opportunistic reuse off) would come
	 * back under the same pointer. */
	if (p->reserved > p->release_threshold)
		pool_trim_locked(p, p->release_threshold);
	*out = b;
	return 0;
}

static hipError_t pool_alloc(struct hip_pool *p, size_t size, hipStream_t stream, void **out)
{
	struct hip_stream *s = hip_stream_resolve(stream);
	if (!s)
		return hipErrorInvalidValue;
	size_t rounded = (size + POOL_ALIGN - 1) & ~(size_t)(POOL_ALIGN - 1);
	/* An allocation that was attempted and failed stores NULL, as clr's hipMallocAsync assigns
	 * the pool's answer; argument errors before this point leave *out alone. */
	if (rounded < size) {
		*out = NULL;
		return hipErrorOutOfMemory;
	}
	pthread_mutex_lock(&p->lock);
	struct pool_block *b = pool_take_free(p, rounded, s);
	int err = b ? 0 : pool_grow(p, rounded, &b);
	if (!err)
		account_used(p, b);
	pthread_mutex_unlock(&p->lock);
	if (err) {
		*out = NULL;
		return err == -ENOMEM ? hipErrorOutOfMemory : hip_error_from_errno(err);
	}
	ptr_insert(b);
	*out = b->ptr;
	return hipSuccess;
}

/* Checks the arguments; *dev_ptr is not written (a failed call leaves it as it was, issue 13
 * item 5), so a caller whose *done is set stores the NULL of a zero-byte request itself. */
static hipError_t malloc_async_args(void **dev_ptr, size_t size, hipStream_t stream, bool *done)
{
	*done = true;
	if (!dev_ptr)
		return hipErrorInvalidValue;
	if (hip_device_count() == 0)
		return hipErrorNoDevice;
	if (!hip_stream_resolve(stream))
		return hip_stream_invalid_error(stream);
	/* clr and CUDA: a zero-byte request gives NULL and success. */
	*done = size == 0;
	return hipSuccess;
}

hipError_t hipMallocAsync(void **dev_ptr, size_t size, hipStream_t stream)
{
	bool done;
	HIP_RETURN_IF_ERROR(malloc_async_args(dev_ptr, size, stream, &done));
	if (done) {
		*dev_ptr = NULL;
		HIP_RETURN(hipSuccess);
	}
	if (hip_capture_active(stream))
		HIP_RETURN(hip_capture_malloc(stream, dev_ptr, size));
	struct hip_pool *p = current_pool(hip_stream_device(hip_stream_resolve(stream))->ordinal);
	if (!p)
		HIP_RETURN(hipErrorOutOfMemory);
	HIP_RETURN(pool_alloc(p, size, stream, dev_ptr));
}

hipError_t hipMallocFromPoolAsync(void **dev_ptr, size_t size, hipMemPool_t mem_pool, hipStream_t stream)
{
	bool done;
	if (!mem_pool)
		HIP_RETURN(hipErrorInvalidValue);
	HIP_RETURN_IF_ERROR(malloc_async_args(dev_ptr, size, stream, &done));
	struct hip_pool *p = pool_of(mem_pool);
	if (!p || p->imported)
		HIP_RETURN(hipErrorInvalidValue);
	if (done) {
		*dev_ptr = NULL;
		HIP_RETURN(hipSuccess);
	}
	HIP_RETURN(pool_alloc(p, size, stream, dev_ptr));
}

struct pool_import;
static struct pool_import *import_remove(const void *ptr);
static hipError_t free_imported(struct pool_import *im, struct hip_stream *s);

/* [in] ptr sits in a pool's free list: it was freed already and the pool still owns it. */
static bool pool_holds_freed(const void *ptr)
{
	bool found = false;
	pthread_mutex_lock(&pool_list_lock);
	for (struct hip_pool *p = pool_list; p && !found; p = p->next) {
		pthread_mutex_lock(&p->lock);
		for (struct pool_block *b = p->free_list; b && !found; b = b->next)
			found = b->ptr == ptr;
		pthread_mutex_unlock(&p->lock);
	}
	pthread_mutex_unlock(&pool_list_lock);
	return found;
}

bool hip_mempool_holds_free(const void *ptr)
{
	uintptr_t a = (uintptr_t)ptr;
	bool found = false;
	pthread_mutex_lock(&pool_list_lock);
	for (struct hip_pool *p = pool_list; p && !found; p = p->next) {
		pthread_mutex_lock(&p->lock);
		for (struct pool_block *b = p->free_list; b && !found; b = b->next)
			found = a >= (uintptr_t)b->ptr && a - (uintptr_t)b->ptr < b->size;
		pthread_mutex_unlock(&p->lock);
	}
	pthread_mutex_unlock(&pool_list_lock);
	return found;
}

/* hipFreeAsync of memory that no pool handed out: clr frees it at once after the stream's work
 * (an unconditional wait); so does this. */
static hipError_t free_foreign(void *dev_ptr, struct hip_stream *s)
{
	int err = hip_stream_sync(s);
	if (err)
		return hip_error_from_errno(err);
	return hipFree(dev_ptr);
}

hipError_t hipFreeAsync(void *dev_ptr, hipStream_t stream)
{
	if (!dev_ptr)
		HIP_RETURN(hipErrorInvalidValue);
	if (hip_capture_active(stream))
		HIP_RETURN(hip_capture_free(stream, dev_ptr));
	struct hip_stream *s = hip_stream_resolve(stream);
	if (!s)
		HIP_RETURN(hip_stream_invalid_error(stream));
	struct pool_block *b = ptr_remove(dev_ptr);
	if (!b) {
		/* freed twice: the pool keeps the memory for reuse, so hipFree must not release it */
		if (pool_holds_freed(dev_ptr))
			HIP_RETURN(hipErrorInvalidValue);
		struct pool_import *im = import_remove(dev_ptr);
		HIP_RETURN(im ? free_imported(im, s) : free_foreign(dev_ptr, s));
	}
	hipEvent_t ev;
	hipError_t err = record_free_event(s, stream, &ev);
	if (err != hipSuccess) {
		ptr_insert(b);
		HIP_RETURN(err);
	}
	struct hip_pool *p = b->pool;
	pthread_mutex_lock(&p->lock);
	b->freed = ev;
	b->freed_on = s;
	p->used -= b->size;
	pthread_mutex_lock(&pool_list_lock);
	bool destroyed = !pool_known_locked(p);
	pthread_mutex_unlock(&pool_list_lock);
	if (destroyed) {
		/* The pool was destroyed while this block was out: it goes back after its free. */
		hipEventSynchronize(ev);
		block_release(p, b);
	} else {
		b->next = p->free_list;
		p->free_list = b;
	}
	bool last = destroyed && p->reserved == 0;
	pthread_mutex_unlock(&p->lock);
	if (last)
		free(p);
	HIP_RETURN(hipSuccess);
}

/* ---- pool objects ----------------------------------------------------------------------------- */

hipError_t hipDeviceGetDefaultMemPool(hipMemPool_t *mem_pool, int device)
{
	if (!mem_pool)
		HIP_RETURN(hipErrorInvalidValue);
	if (!device_valid(device))
		HIP_RETURN(hip_device_count() == 0 ? hipErrorNoDevice : hipErrorInvalidDevice);
	struct hip_pool *p = default_pool(device);
	if (!p)
		HIP_RETURN(hipErrorOutOfMemory);
	*mem_pool = (hipMemPool_t)p;
	HIP_RETURN(hipSuccess);
}

hipError_t hipDeviceGetMemPool(hipMemPool_t *mem_pool, int device)
{
	if (!mem_pool || !device_valid(device))
		HIP_RETURN(hipErrorInvalidValue);
	struct hip_pool *p = current_pool(device);
	if (!p)
		HIP_RETURN(hipErrorOutOfMemory);
	*mem_pool = (hipMemPool_t)p;
	HIP_RETURN(hipSuccess);
}

hipError_t hipDeviceSetMemPool(int device, hipMemPool_t mem_pool)
{
	if (!mem_pool || !device_valid(device))
		HIP_RETURN(hipErrorInvalidValue);
	struct hip_pool *p = pool_of(mem_pool);
	if (!p)
		HIP_RETURN(hipErrorInvalidValue);
	if (p->imported)
		HIP_RETURN(hipErrorInvalidValue); /* nothing can be allocated from an imported pool */
	if (p->device != device)
		HIP_RETURN(hipErrorInvalidDevice);
	pthread_mutex_lock(&pool_list_lock);
	current_pools[device] = p;
	pthread_mutex_unlock(&pool_list_lock);
	HIP_RETURN(hipSuccess);
}

hipError_t hipMemPoolCreate(hipMemPool_t *mem_pool, const hipMemPoolProps *props)
{
	if (!mem_pool || !props)
		HIP_RETURN(hipErrorInvalidValue);
	if (props->allocType != hipMemAllocationTypePinned ||
	    props->location.type != hipMemLocationTypeDevice || !device_valid(props->location.id))
		HIP_RETURN(hipErrorInvalidValue);
	if (props->handleTypes != hipMemHandleTypeNone &&
	    props->handleTypes != hipMemHandleTypePosixFileDescriptor)
		HIP_RETURN(hipErrorInvalidValue);
	struct hip_pool *p = pool_new(props->location.id, props, false);
	if (!p)
		HIP_RETURN(hipErrorOutOfMemory);
	pthread_mutex_lock(&pool_list_lock);
	p->next = pool_list;
	pool_list = p;
	pthread_mutex_unlock(&pool_list_lock);
	*mem_pool = (hipMemPool_t)p;
	HIP_RETURN(hipSuccess);
}

/* CUDA: a pool with allocations still outstanding is destroyed "when they are freed". Its object
 * stays alive (unreachable as a handle); hipFreeAsync still finds its blocks by pointer, releases
 * them after their free and the object with the last one. */
hipError_t hipMemPoolDestroy(hipMemPool_t mem_pool)
{
	if (!mem_pool)
		HIP_RETURN(hipErrorInvalidValue);
	pthread_mutex_lock(&pool_list_lock);
	struct hip_pool *p = (struct hip_pool *)mem_pool;
	bool ok = pool_known_locked(p) && !p->is_default;
	if (ok) {
		for (struct hip_pool **pp = &pool_list; *pp; pp = &(*pp)->next) {
			if (*pp == p) {
				*pp = p->next;
				break;
			}
		}
		if (current_pools[p->device] == p)
			current_pools[p->device] = NULL;
	}
	pthread_mutex_unlock(&pool_list_lock);
	if (!ok)
		HIP_RETURN(hipErrorInvalidValue);
	pthread_mutex_lock(&p->lock);
	for (struct pool_block *b = p->free_list; b; b = b->next)
		hipEventSynchronize(b->freed);
	pool_trim_locked(p, 0);
	bool empty = p->used == 0;
	pthread_mutex_unlock(&p->lock);
	if (p->share_fd >= 0)
		close(p->share_fd);
	p->share_fd = -1;
	if (empty) {
		pthread_mutex_destroy(&p->lock);
		free(p);
	}
	HIP_RETURN(hipSuccess);
}

hipError_t hipMemPoolTrimTo(hipMemPool_t mem_pool, size_t min_bytes_to_hold)
{
	struct hip_pool *p = pool_of(mem_pool);
	if (!p)
		HIP_RETURN(hipErrorInvalidValue);
	pthread_mutex_lock(&p->lock);
	pool_trim_locked(p, min_bytes_to_hold);
	pthread_mutex_unlock(&p->lock);
	HIP_RETURN(hipSuccess);
}

/* ---- attributes ------------------------------------------------------------------------------- */

static bool *reuse_flag(struct hip_pool *p, hipMemPoolAttr attr)
{
	switch (attr) {
	case hipMemPoolReuseFollowEventDependencies:
		return &p->follow_event_deps;
	case hipMemPoolReuseAllowOpportunistic:
		return &p->opportunistic;
	case hipMemPoolReuseAllowInternalDependencies:
		return &p->internal_deps;
	default:
		return NULL;
	}
}

/* Reuse flags are ints; the rest are uint64_t. The high watermarks may only be reset (to 0, which
 * restarts them from the current value); the current values are read-only. */
static hipError_t pool_set_locked(struct hip_pool *p, hipMemPoolAttr attr, const void *value)
{
	bool *flag = reuse_flag(p, attr);
	if (flag) {
		*flag = *(const int *)value != 0;
		return hipSuccess;
	}
	uint64_t v = *(const uint64_t *)value;
	switch (attr) {
	case hipMemPoolAttrReleaseThreshold:
		p->release_threshold = v;
		return hipSuccess;
	case hipMemPoolAttrReservedMemHigh:
		if (v != 0)
			return hipErrorInvalidValue;
		p->reserved_high = p->reserved;
		return hipSuccess;
	case hipMemPoolAttrUsedMemHigh:
		if (v != 0)
			return hipErrorInvalidValue;
		p->used_high = p->used;
		return hipSuccess;
	default:
		return hipErrorInvalidValue;
	}
}

static hipError_t pool_get_locked(struct hip_pool *p, hipMemPoolAttr attr, void *value)
{
	bool *flag = reuse_flag(p, attr);
	if (flag) {
		*(int *)value = *flag;
		return hipSuccess;
	}
	uint64_t v;
	switch (attr) {
	case hipMemPoolAttrReleaseThreshold: v = p->release_threshold; break;
	case hipMemPoolAttrReservedMemCurrent: v = p->reserved; break;
	case hipMemPoolAttrReservedMemHigh: v = p->reserved_high; break;
	case hipMemPoolAttrUsedMemCurrent: v = p->used; break;
	case hipMemPoolAttrUsedMemHigh: v = p->used_high; break;
	default: return hipErrorInvalidValue;
	}
	*(uint64_t *)value = v;
	return hipSuccess;
}

hipError_t hipMemPoolSetAttribute(hipMemPool_t mem_pool, hipMemPoolAttr attr, void *value)
{
	struct hip_pool *p = pool_of(mem_pool);
	if (!p || !value)
		HIP_RETURN(hipErrorInvalidValue);
	pthread_mutex_lock(&p->lock);
	hipError_t err = pool_set_locked(p, attr, value);
	pthread_mutex_unlock(&p->lock);
	HIP_RETURN(err);
}

hipError_t hipMemPoolGetAttribute(hipMemPool_t mem_pool, hipMemPoolAttr attr, void *value)
{
	struct hip_pool *p = pool_of(mem_pool);
	if (!p || !value)
		HIP_RETURN(hipErrorInvalidValue);
	pthread_mutex_lock(&p->lock);
	hipError_t err = pool_get_locked(p, attr, value);
	pthread_mutex_unlock(&p->lock);
	HIP_RETURN(err);
}

/* ---- access ----------------------------------------------------------------------------------- */

/* Grant a peer device access to every block of the pool (in use or free). pool->lock held. */
static int pool_map_peer(struct hip_pool *p, struct kfd_gpu *gpu)
{
	int err = 0;
	for (struct pool_block *b = p->free_list; b && !err; b = b->next)
		err = mem_map_to_gpu(b->ptr, gpu);
	pthread_mutex_lock(&ptr_lock);
	for (unsigned h = 0; h < PTR_BUCKETS && !err; h++)
		for (struct pool_block *b = ptr_table[h]; b && !err; b = b->next)
			if (b->pool == p)
				err = mem_map_to_gpu(b->ptr, gpu);
	pthread_mutex_unlock(&ptr_lock);
	return err;
}

/* The owning device always has read-write access; a peer's access, once granted, stays mapped
 * (the memory layer has no per-GPU unmap), so taking it away is hipErrorNotSupported. A device
 * location with an ordinal no device has is hipErrorInvalidDevice (clr, CUDA); a bad location
 * type or flags hipErrorInvalidValue. */
static hipError_t pool_access_one(struct hip_pool *p, const hipMemAccessDesc *d)
{
	int dev = d->location.id;
	if (d->location.type != hipMemLocationTypeDevice)
		return hipErrorInvalidValue;
	if (!device_valid(dev))
		return hipErrorInvalidDevice; /* before the flags, in clr's order */
	if ((unsigned)d->flags > hipMemAccessFlagsProtReadWrite || d->flags == 2)
		return hipErrorInvalidValue;
	if (dev == p->device)
		return d->flags == hipMemAccessFlagsProtReadWrite ? hipSuccess : hipErrorInvalidDevice;
	if (d->flags == hipMemAccessFlagsProtNone)
		return p->access[dev] ? hipErrorNotSupported : hipSuccess;
	if (!p->access[dev]) {
		struct hip_device *peer = hip_device_get(dev);
		int err = peer && peer->gpu ? pool_map_peer(p, peer->gpu) : -ENODEV;
		if (err)
			return hip_error_from_errno(err);
	}
	p->access[dev] = (unsigned char)d->flags;
	return hipSuccess;
}

hipError_t hipMemPoolSetAccess(hipMemPool_t mem_pool, const hipMemAccessDesc *desc_list, size_t count)
{
	struct hip_pool *p = pool_of(mem_pool);
	if (!p || !desc_list)
		HIP_RETURN(hipErrorInvalidValue);
	hipError_t err = hipSuccess;
	pthread_mutex_lock(&p->lock);
	for (size_t i = 0; i < count && err == hipSuccess; i++)
		err = pool_access_one(p, &desc_list[i]);
	pthread_mutex_unlock(&p->lock);
	HIP_RETURN(err);
}

hipError_t hipMemPoolGetAccess(hipMemAccessFlags *flags, hipMemPool_t mem_pool, hipMemLocation *location)
{
	struct hip_pool *p = pool_of(mem_pool);
	if (!p || !flags || !location || location->type != hipMemLocationTypeDevice ||
	    !device_valid(location->id))
		HIP_RETURN(hipErrorInvalidValue);
	pthread_mutex_lock(&p->lock);
	*flags = location->id == p->device ? hipMemAccessFlagsProtReadWrite
					   : (hipMemAccessFlags)p->access[location->id];
	pthread_mutex_unlock(&p->lock);
	HIP_RETURN(hipSuccess);
}

/* ---- sharing between processes ---------------------------------------------------------------
 *
 * A pool created with hipMemHandleTypePosixFileDescriptor exports a pidfd of this process as its
 * shareable handle: the importing process receives it the way CUDA's POSIX-fd handles travel (a
 * unix socket) and records the exporter's pid from it. A pointer's export data is the IPC memory
 * handle of the allocation (ipc.c: the dma-buf descriptor the importer fetches with
 * pidfd_getfd), and hipMemPoolImportPointer checks it names the pool's exporter. The importer
 * gives an imported pointer back with hipFreeAsync (after the stream's work), before the exporter
 * frees it, as CUDA requires. */

/* ipc.c: the exporting pid recorded in an IPC memory handle, or -1 for a malformed handle. */

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

struct pool_import {
	void *ptr;
	struct hip_pool *pool;
	struct pool_import *next;
};

static struct pool_import *pool_imports; /* imported pointers (ptr_lock) */

static struct pool_import *import_remove(const void *ptr)
{
	struct pool_import *im = NULL;
	pthread_mutex_lock(&ptr_lock);
	for (struct pool_import **pp = &pool_imports; *pp; pp = &(*pp)->next) {
		if ((*pp)->ptr == ptr) {
			im = *pp;
			*pp = im->next;
			break;
		}
	}
	pthread_mutex_unlock(&ptr_lock);
	return im;
}

/* The pid a pidfd refers to, from /proc/self/fdinfo ("Pid:" line); -1 if fd is no pidfd. */
static pid_t pidfd_pid(int fd)
{
	char path[64], line[128];
	pid_t pid = -1;
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	FILE *f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Pid: %d", &pid) == 1)
			break;
	fclose(f);
	return pid;
}

hipError_t hipMemPoolExportToShareableHandle(void *shared_handle, hipMemPool_t mem_pool,
					     hipMemAllocationHandleType handle_type, unsigned int flags)
{
	struct hip_pool *p = pool_of(mem_pool);
	if (!p || !shared_handle || flags != 0)
		HIP_RETURN(hipErrorInvalidValue);
	if (handle_type != hipMemHandleTypePosixFileDescriptor || p->imported ||
	    !(p->props.handleTypes & hipMemHandleTypePosixFileDescriptor))
		HIP_RETURN(hipErrorInvalidValue);
	int fd = (int)syscall(SYS_pidfd_open, getpid(), 0);
	if (fd < 0)
		HIP_RETURN(errno == ENOSYS ? hipErrorNotSupported : hip_error_from_errno(-errno));
	*(int *)shared_handle = fd;
	HIP_RETURN(hipSuccess);
}

hipError_t hipMemPoolImportFromShareableHandle(hipMemPool_t *mem_pool, void *shared_handle,
					       hipMemAllocationHandleType handle_type, unsigned int flags)
{
	if (!mem_pool || !shared_handle || flags != 0 ||
	    handle_type != hipMemHandleTypePosixFileDescriptor)
		HIP_RETURN(hipErrorInvalidValue);
	*mem_pool = NULL;
	/* CUDA passes a POSIX descriptor by value in the pointer. */
	int fd = (int)(intptr_t)shared_handle;
	pid_t pid = pidfd_pid(fd);
	if (pid <= 0 || pid == getpid())
		HIP_RETURN(hipErrorInvalidValue);
	struct hip_device *d = hip_device_current();
	if (!d)
		HIP_RETURN(hipErrorNoDevice);
	hipMemPoolProps props;
	memset(&props, 0, sizeof(props));
	props.allocType = hipMemAllocationTypePinned;
	props.handleTypes = hipMemHandleTypePosixFileDescriptor;
	props.location.type = hipMemLocationTypeDevice;
	props.location.id = d->ordinal;
	struct hip_pool *p = pool_new(d->ordinal, &props, false);
	if (!p)
		HIP_RETURN(hipErrorOutOfMemory);
	p->imported = true;
	p->exporter = pid;
	p->share_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	pthread_mutex_lock(&pool_list_lock);
	p->next = pool_list;
	pool_list = p;
	pthread_mutex_unlock(&pool_list_lock);
	*mem_pool = (hipMemPool_t)p;
	HIP_RETURN(hipSuccess);
}

/* The pool that handed out the live allocation at ptr, or NULL. */
static struct hip_pool *pool_owning(const void *ptr)
{
	struct hip_pool *p = NULL;
	pthread_mutex_lock(&ptr_lock);
	for (struct pool_block *b = ptr_table[ptr_bucket(ptr)]; b; b = b->next)
		if (b->ptr == ptr)
			p = b->pool;
	pthread_mutex_unlock(&ptr_lock);
	return p;
}

hipError_t hipMemPoolExportPointer(hipMemPoolPtrExportData *export_data, void *ptr)
{
	if (!export_data || !ptr)
		HIP_RETURN(hipErrorInvalidValue);
	struct hip_pool *p = pool_owning(ptr);
	if (!p || !(p->props.handleTypes & hipMemHandleTypePosixFileDescriptor))
		HIP_RETURN(hipErrorInvalidValue);
	hipIpcMemHandle_t h;
	_Static_assert(sizeof(h) == sizeof(*export_data), "export data holds an IPC handle");
	hipError_t err = hipIpcGetMemHandle(&h, ptr);
	if (err == hipSuccess)
		memcpy(export_data, &h, sizeof(h));
	HIP_RETURN(err);
}

hipError_t hipMemPoolImportPointer(void **ptr, hipMemPool_t mem_pool, hipMemPoolPtrExportData *export_data)
{
	if (!ptr || !mem_pool || !export_data)
		HIP_RETURN(hipErrorInvalidValue);
	struct hip_pool *p = pool_of(mem_pool);
	hipIpcMemHandle_t h;
	memcpy(&h, export_data, sizeof(h));
	if (!p || !p->imported || ipc_handle_pid(&h) != p->exporter)
		HIP_RETURN(hipErrorInvalidValue);
	struct pool_import *im = calloc(1, sizeof(*im));
	if (!im)
		HIP_RETURN(hipErrorOutOfMemory);
	hipError_t err = hipIpcOpenMemHandle(&im->ptr, h, hipIpcMemLazyEnablePeerAccess);
	if (err != hipSuccess) {
		free(im);
		HIP_RETURN(err);
	}
	im->pool = p;
	pthread_mutex_lock(&ptr_lock);
	im->next = pool_imports;
	pool_imports = im;
	pthread_mutex_unlock(&ptr_lock);
	*ptr = im->ptr;
	HIP_RETURN(hipSuccess);
}

/* hipFreeAsync of an imported pointer: the mapping goes after the stream's work. */
static hipError_t free_imported(struct pool_import *im, struct hip_stream *s)
{
	int err = hip_stream_sync(s);
	hipError_t herr = hipIpcCloseMemHandle(im->ptr);
	free(im);
	return err ? hip_error_from_errno(err) : herr;
}

/* ---- hipMem*MemPool by location (HIP 7) -------------------------------------------------------- */

static hipError_t location_device(const hipMemLocation *location, hipMemAllocationType type, int *dev)
{
	if (!location || type != hipMemAllocationTypePinned)
		return hipErrorInvalidValue;
	/* Host (and NUMA) pools are not provided by this runtime. */
	if (location->type == hipMemLocationTypeHost || location->type == hipMemLocationTypeHostNuma ||
	    location->type == hipMemLocationTypeHostNumaCurrent)
		return hipErrorNotSupported;
	if (location->type != hipMemLocationTypeDevice || !device_valid(location->id))
		return hipErrorInvalidValue;
	*dev = location->id;
	return hipSuccess;
}

hipError_t hipMemGetDefaultMemPool(hipMemPool_t *memPool, hipMemLocation *location, hipMemAllocationType type)
{
	int dev;
	if (!memPool)
		HIP_RETURN(hipErrorInvalidValue);
	HIP_RETURN_IF_ERROR(location_device(location, type, &dev));
	struct hip_pool *p = default_pool(dev);
	if (!p)
		HIP_RETURN(hipErrorOutOfMemory);
	*memPool = (hipMemPool_t)p;
	HIP_RETURN(hipSuccess);
}

hipError_t hipMemGetMemPool(hipMemPool_t *memPool, hipMemLocation *location, hipMemAllocationType type)
{
	int dev;
	if (!memPool)
		HIP_RETURN(hipErrorInvalidValue);
	HIP_RETURN_IF_ERROR(location_device(location, type, &dev));
	struct hip_pool *p = current_pool(dev);
	if (!p)
		HIP_RETURN(hipErrorOutOfMemory);
	*memPool = (hipMemPool_t)p;
	HIP_RETURN(hipSuccess);
}

hipError_t hipMemSetMemPool(hipMemLocation *location, hipMemAllocationType type, hipMemPool_t pool)
{
	int dev;
	HIP_RETURN_IF_ERROR(location_device(location, type, &dev));
	HIP_RETURN(hipDeviceSetMemPool(dev, pool));
}

/* ---- device reset ----------------------------------------------------------------------------- */

/* Unlink from the pointer table every block in use from a pool of [in] device, into a list.
 * ptr_lock held. */
static struct pool_block *take_device_blocks_locked(int device)
{
	struct pool_block *taken = NULL;
	for (unsigned h = 0; h < PTR_BUCKETS; h++) {
		for (struct pool_block **pp = &ptr_table[h]; *pp;) {
			struct pool_block *b = *pp;
			if (b->pool->device != device) {
				pp = &b->next;
				continue;
			}
			*pp = b->next;
			b->next = taken;
			taken = b;
		}
	}
	return taken;
}

/* The same for imported pointers of the device's imported pools. ptr_lock held. */
static struct pool_import *take_device_imports_locked(int device)
{
	struct pool_import *taken = NULL;
	for (struct pool_import **pp = &pool_imports; *pp;) {
		struct pool_import *im = *pp;
		if (im->pool->device != device) {
			pp = &im->next;
			continue;
		}
		*pp = im->next;
		im->next = taken;
		taken = im;
	}
	return taken;
}

/* A pool object without registry entry, blocks or descriptor left. */
static void pool_delete(struct hip_pool *p)
{
	if (p->share_fd >= 0)
		close(p->share_fd);
	pthread_mutex_destroy(&p->lock);
	free(p);
}

void hip_mempool_reset_device(int device)
{
	if (device < 0 || device >= POOL_MAX_DEVICES)
		return;
	struct hip_pool *gone = NULL;
	pthread_mutex_lock(&pool_list_lock);
	for (struct hip_pool **pp = &pool_list; *pp;) {
		struct hip_pool *p = *pp;
		if (p->device != device) {
			pp = &p->next;
			continue;
		}
		*pp = p->next;
		p->next = gone;
		gone = p;
	}
	default_pools[device] = NULL;
	current_pools[device] = NULL;
	pthread_mutex_unlock(&pool_list_lock);

	pthread_mutex_lock(&ptr_lock);
	struct pool_block *used = take_device_blocks_locked(device);
	struct pool_import *imports = take_device_imports_locked(device);
	pthread_mutex_unlock(&ptr_lock);
	while (imports) {
		struct pool_import *im = imports;
		imports = im->next;
		(void)hipIpcCloseMemHandle(im->ptr);
		free(im);
	}
	/* Blocks in use, also those of pools destroyed while they were out: no longer registered,
	 * such a pool goes with its last block, as in hipFreeAsync. */
	while (used) {
		struct pool_block *b = used;
		struct hip_pool *p = b->pool;
		used = b->next;
		bool orphan = true;
		for (struct hip_pool *q = gone; q && orphan; q = q->next)
			orphan = q != p;
		pthread_mutex_lock(&p->lock);
		p->used -= b->size;
		block_release(p, b);
		bool last = orphan && p->reserved == 0;
		pthread_mutex_unlock(&p->lock);
		if (last)
			pool_delete(p);
	}
	/* The registered pools: their free blocks (the device's work is complete), then the
	 * objects. */
	while (gone) {
		struct hip_pool *p = gone;
		gone = p->next;
		pthread_mutex_lock(&p->lock);
		while (p->free_list) {
			struct pool_block *b = p->free_list;
			p->free_list = b->next;
			block_release(p, b);
		}
		pthread_mutex_unlock(&p->lock);
		pool_delete(p);
	}
}

/* The entry points below this layer reach the pools through these (runtime/internal.h). */
__attribute__((constructor)) static void mempool_install(void)
{
	hip_pool_holds_free = hip_mempool_holds_free;
	hip_pool_reset_device = hip_mempool_reset_device;
}
