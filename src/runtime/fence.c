/* Fences: reference-counted completion signals that streams and events share.
 *
 * A fence's signal starts at 1; the CP decrements an AQL packet's completion signal when the packet
 * completes (HSA rule), SDMA's fence and the host store 0. Fences go back to a per-device free list
 * instead of being destroyed, so creating one for every kernel launch costs no ioctl.
 */
#include <errno.h>
#include <stdlib.h>

#include "../queues/aql.h"
#include "../queues/signal.h"
#include "internal.h"

/* ThreadSanitizer (cmake/ThreadSanitizer.cmake) sees no access of the GPU's, nor of kfdsim's
 * (not instrumented): ordering that goes through the GPU is invisible to it. The one case where
 * that hides a real happens-before between two host threads: a fence one thread completes on
 * the host (a callback, a deferred copy, a host-stamped record) that a barrier packet waits for,
 * and a later fence of that queue that another thread then sees complete. One sync object
 * stands for the GPU: completing a fence on the host releases to it, seeing a fence complete
 * acquires from it. No code in other builds. */
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#include <sanitizer/tsan_interface.h>
static char gpu_order;
#define GPU_ORDER_RELEASE() __tsan_release(&gpu_order)
#define GPU_ORDER_ACQUIRE() __tsan_acquire(&gpu_order)
#endif
#endif
#ifndef GPU_ORDER_RELEASE
#define GPU_ORDER_RELEASE() ((void)0)
#define GPU_ORDER_ACQUIRE() ((void)0)
#endif

/* How long one signal_wait_lt call may sleep before we look again. A host store (hip_fence_signal)
 * may not raise the signal's KFD event, so a sleeper must wake up to notice it. */
#define FENCE_WAIT_SLICE_NS (1000 * 1000ull)

/* Move parked fences whose work completed to the free list. fence_lock held. */
static void unpark_done(struct hip_device *d)
{
	struct hip_fence **pp = &d->fence_parked;
	while (*pp) {
		struct hip_fence *f = *pp;
		if (hip_fence_done(f)) {
			*pp = f->next_free;
			f->next_free = d->fence_free;
			d->fence_free = f;
		} else {
			pp = &f->next_free;
		}
	}
}

int hip_fence_create(struct hip_device *d, struct hip_fence **out)
{
	struct hip_fence *f;

	*out = NULL;
	pthread_mutex_lock(&d->fence_lock);
	/* Scanning the parked list costs a signal load per entry: do it only when the free list is
	 * empty, so a long list of pending fences is walked once per refill, not once per fence. */
	if (!d->fence_free)
		unpark_done(d);
	f = d->fence_free;
	if (f)
		d->fence_free = f->next_free;
	pthread_mutex_unlock(&d->fence_lock);

	if (!f) {
		f = calloc(1, sizeof(*f));
		if (!f)
			return -ENOMEM;
		int err = signal_create(d->gpu, 1, true, &f->sig);
		if (err) {
			free(f);
			return err;
		}
		f->device = d;
		f->sig_va = signal_gpu_va(f->sig);
	} else {
		signal_store(f->sig, 1);
	}
	atomic_store_explicit(&f->done, false, memory_order_relaxed);
	f->timestamped = false;
	f->host_stamped = false;
	f->queue = NULL;
	f->next_free = NULL;
	atomic_store_explicit(&f->refs, 1, memory_order_release);
	*out = f;
	return 0;
}

struct hip_fence *hip_fence_get(struct hip_fence *f)
{
	if (f)
		atomic_fetch_add_explicit(&f->refs, 1, memory_order_relaxed);
	return f;
}

void hip_fence_put(struct hip_fence *f)
{
	if (!f || atomic_fetch_sub_explicit(&f->refs, 1, memory_order_acq_rel) != 1)
		return;
	/* The last reference: nobody can wait on it any more, but the GPU may still decrement the
	 * signal if the work has not completed (an event destroyed while pending). Recycling it then
	 * would let the late decrement corrupt the next user: park it until it is done. */
	struct hip_device *d = f->device;
	bool done = hip_fence_done(f);
	pthread_mutex_lock(&d->fence_lock);
	if (done) {
		f->next_free = d->fence_free;
		d->fence_free = f;
	} else {
		f->next_free = d->fence_parked;
		d->fence_parked = f;
	}
	pthread_mutex_unlock(&d->fence_lock);
}

bool hip_fence_done(struct hip_fence *f)
{
	if (!f || atomic_load_explicit(&f->done, memory_order_acquire))
		return true;
	/* signal_load has acquire semantics: data the work wrote is visible once we see 0. */
	if (signal_load(f->sig) > 0)
		return false;
	GPU_ORDER_ACQUIRE();
	atomic_store_explicit(&f->done, true, memory_order_release);
	return true;
}

HIP_TLS struct hip_fence *hip_callback_fence;

/* Why [in] f, whose wait made no progress for a slice, may never complete: its own queue stopped
 * on an error, or the context failed elsewhere (a queue its work waits for, an SDMA engine, a
 * GPU reset: fault.c). 0 while it may still complete. */
static int fence_stalled(struct hip_fence *f)
{
	int err = f->queue ? hip_fault_note(aql_queue_error(f->queue)) : 0;
	return err ? err : hip_fault_poll();
}

int hip_fence_wait(struct hip_fence *f, bool blocking)
{
	if (f && f == hip_callback_fence)
		return 0; /* a callback waiting for itself: see internal.h */
	if (hip_fence_done(f))
		return 0;
	/* In a failed context nothing is waited for any more. */
	int err = hip_fault_known();
	if (err)
		return err;
	for (unsigned slice = 0; !hip_fence_done(f); slice++) {
		/* Work still running after the first slice is long: later slices spin only briefly
		 * before they sleep, so a long wait leaves the CPU to whoever completes the work. */
		err = signal_wait_lt(f->sig, 1, FENCE_WAIT_SLICE_NS, blocking || slice > 0);
		if (err && err != -ETIMEDOUT && err != -ETIME)
			return err;
		if (err && (err = fence_stalled(f)))
			return err;
	}
	return 0;
}

void hip_fence_signal(struct hip_fence *f)
{
	GPU_ORDER_RELEASE();
	signal_store(f->sig, 0);
	atomic_store_explicit(&f->done, true, memory_order_release);
}
