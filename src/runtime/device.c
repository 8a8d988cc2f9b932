/* Devices: the table of visible GPUs, the thread's current device, per-device lazy state, and the
 * device-wide verbs (hipSetDevice, hipDeviceSynchronize, hipDeviceReset, hipSetDeviceFlags). */
#include <errno.h>
#include <stdlib.h>

#include "../kfd/kfd.h"
#include "../memory/mem.h"
#include "error.h"
#include "internal.h"

bool (*hip_pool_holds_free)(const void *ptr);
void (*hip_pool_reset_device)(int device);

static struct hip_device *devices; /* written once by hip_devices_create, then read-only */
static int ndevices;

/* ---- the idle fast path of device-wide waits ---------------------------------------------------
 *
 * A device-wide wait (hipFree, hipDeviceSynchronize) on a device whose streams are all idle should
 * cost a few loads, not the device lock. The streams of the device are the list d->streams,
 * changed only under d->lock; a lock-free reader cannot walk it, so the waits keep a copy of it
 * here (`snap`, at most SNAP_MAX streams) labelled with the list's generation (`gen`), which
 * every change of the list advances under d->lock (hip_device_stream_link/unlink). The fast path:
 * the copy is of the current generation, and every stream in it is known idle
 * (hip_stream_known_idle: all operations it counted are known complete).
 *
 * Why that is enough: work that a wait must cover was enqueued before the wait began (it happens
 * before the wait). So was the creation of its stream, whose link advanced `gen`: the wait's load
 * of `gen` sees that generation or a later one (read-after-write coherence), and a copy labelled
 * with the generation it sees lists that stream. The enqueue's release store of the stream's
 * `submitted` count is seen the same way by hip_stream_known_idle, which then answers idle only
 * once the work is known complete. Work enqueued concurrently with the wait (not before it) may
 * or may not be waited for, as with the lock.
 *
 * The copy is rewritten under d->lock by the locked path (which walks the list anyway) when its
 * generation is stale, seqlock-fashion: snap_gen is set to 0, the entries are written, then
 * snap_gen to the generation. A reader checks snap_gen == gen before reading the entries and
 * snap_gen unchanged after them (an acquire fence between), so it never acts on a copy that was
 * being rewritten. Two copies of one generation hold the same list, so a reader racing with a
 * rewrite of its own generation reads the same values.
 *
 * gen stays 0 until the list is first changed through hip_device_stream_link: a device whose list
 * was built without it has no trustworthy generation, and its waits always take the lock. */
#define SNAP_MAX 8
struct device_streams_seen {
	_Atomic uint64_t gen;           /* list changes so far; written under d->lock */
	_Atomic uint64_t snap_gen;      /* the generation `snap` lists; 0 while rewritten or unset */
	_Atomic unsigned snap_n;
	_Atomic(struct hip_stream *) snap[SNAP_MAX];
};
static struct device_streams_seen *seen; /* one per device, by ordinal */

/* The list of d changed (d->lock held, so writers never race: load and store, no RMW). The
 * fast path reads `gen` without the lock; its release store publishes the list change with it. */
static void streams_changed(struct hip_device *d)
{
	struct device_streams_seen *v = &seen[d->ordinal];
	atomic_store_explicit(&v->gen, atomic_load_explicit(&v->gen, memory_order_relaxed) + 1,
			      memory_order_release);
}

/* hipSetDevice is per thread, as in CUDA and HIP; a thread that never called it uses device 0. */
static HIP_TLS int current_ordinal;
static HIP_TLS bool device_chosen; /* hipSetDevice was called by this thread */

int hip_devices_create(void)
{
	int n = kfd_gpu_count();
	if (n <= 0)
		return -ENODEV;
	devices = calloc((size_t)n, sizeof(*devices));
	seen = calloc((size_t)n, sizeof(*seen));
	if (!devices || !seen) {
		free(devices);
		free(seen);
		devices = NULL;
		seen = NULL;
		return -ENOMEM;
	}
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

void hip_device_select(int ordinal)
{
	current_ordinal = ordinal;
	device_chosen = true;
}

void hip_device_prefer(int ordinal)
{
	if (!device_chosen)
		current_ordinal = ordinal;
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

void hip_device_stream_link(struct hip_device *d, struct hip_stream *s)
{
	pthread_mutex_lock(&d->lock);
	s->next = d->streams;
	d->streams = s;
	streams_changed(d);
	pthread_mutex_unlock(&d->lock);
}

void hip_device_stream_unlink(struct hip_device *d, struct hip_stream *s)
{
	pthread_mutex_lock(&d->lock);
	for (struct hip_stream **pp = &d->streams; *pp; pp = &(*pp)->next) {
		if (*pp == s) {
			*pp = s->next;
			break;
		}
	}
	if (d->null_stream == s)
		d->null_stream = NULL;
	streams_changed(d);
	pthread_mutex_unlock(&d->lock);
}

/* Every stream of d is known idle, decided without the lock (see the top of the file); false
 * when that cannot be told. */
static inline __attribute__((always_inline)) bool streams_known_idle(struct hip_device *d)
{
	struct device_streams_seen *v = &seen[d->ordinal];
	uint64_t gen = atomic_load_explicit(&v->gen, memory_order_acquire);
	uint64_t snap_gen = atomic_load_explicit(&v->snap_gen, memory_order_acquire);
	if (snap_gen != gen || !gen)
		return false;
	unsigned n = atomic_load_explicit(&v->snap_n, memory_order_relaxed); /* <= SNAP_MAX */
	for (unsigned i = 0; i < n; i++) {
		struct hip_stream *s = atomic_load_explicit(&v->snap[i], memory_order_relaxed);
		if (!hip_stream_known_idle(s))
			return false;
	}
	/* The entries were read before this fence: if a rewrite stored any of them, the load below
	 * sees its snap_gen = 0 or the new generation. */
	atomic_thread_fence(memory_order_acquire);
	return atomic_load_explicit(&v->snap_gen, memory_order_relaxed) == snap_gen;
}

/* Record [in] list, the n streams of d (d->lock held), if the copy is stale. */
static void streams_snapshot(struct hip_device *d, struct hip_stream *const list[], unsigned n)
{
	struct device_streams_seen *v = &seen[d->ordinal];
	uint64_t gen = atomic_load_explicit(&v->gen, memory_order_relaxed);
	if (!gen || n > SNAP_MAX || atomic_load_explicit(&v->snap_gen, memory_order_relaxed) == gen)
		return;
	atomic_store_explicit(&v->snap_gen, 0, memory_order_relaxed);
	/* Orders the 0 before the entries: a reader that sees a new entry then sees the 0 (or the
	 * final generation, which is stored after every entry). */
	atomic_thread_fence(memory_order_release);
	for (unsigned i = 0; i < n; i++)
		atomic_store_explicit(&v->snap[i], list[i], memory_order_relaxed);
	atomic_store_explicit(&v->snap_n, n, memory_order_relaxed);
	atomic_store_explicit(&v->snap_gen, gen, memory_order_release);
}

/* Waits for the last work of every stream of the device. Tails are collected under the device
 * lock (an idle stream costs two loads) and waited for without it. The null
 * stream's tail already orders after every blocking stream; non-blocking streams need their own. */
int hip_device_sync_all(struct hip_device *d)
{
	return hip_device_sync_streams(d, false);
}

int hip_device_sync_owner(const struct kfd_gpu *gpu)
{
	int err = 0;
	for (int i = 0; i < ndevices && !err; i++) {
		struct hip_device *d = &devices[i];
		/* d->gpu is read once `opened` (stored after it) says it is set; a device not opened
		 * has no streams. */
		if (atomic_load_explicit(&d->opened, memory_order_acquire) && (!gpu || d->gpu == gpu) &&
		    !streams_known_idle(d))
			err = hip_device_sync_streams(d, false);
	}
	return err;
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

int hip_device_sync_streams(struct hip_device *d, bool blocking_only)
{
	enum { BATCH = 32 };
	int err = 0;
	if (!d || !atomic_load_explicit(&d->opened, memory_order_acquire))
		return 0;
	if (streams_known_idle(d))
		return 0;
	bool more = true;
	/* A failed wait ends it: the stream it waited for never turns idle, so another round would
	 * find it again (a failed context fails every wait alike). */
	while (more && !err) {
		struct hip_fence *tails[BATCH];
		struct hip_stream *list[SNAP_MAX];
		unsigned nlist = 0;
		int n = 0;
		more = false;
		pthread_mutex_lock(&d->lock);
		for (struct hip_stream *s = d->streams; s; s = s->next) {
			if (nlist < SNAP_MAX)
				list[nlist] = s;
			nlist++;
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
		if (!more)
			streams_snapshot(d, list, nlist);
		pthread_mutex_unlock(&d->lock);
		for (int i = 0; i < n; i++) {
			int e = err ? 0 : hip_fence_wait(tails[i], hip_device_blocking(d));
			if (e)
				err = e;
			hip_fence_put(tails[i]);
		}
	}
	return err;
}
