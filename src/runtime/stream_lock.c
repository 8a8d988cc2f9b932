/* The stream lock's slow paths: taking the bias, revoking it, the futex lock (stream_lock.h). */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <linux/membarrier.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "stream_lock.h"

#ifndef STREAM_LOCK_THREAD_POINTER
_Thread_local char hip_stream_lock_token;
#endif

/* The process that registered for expedited membarriers (registration is per address space: a
 * fork child registers again), 0 before any. */
static _Atomic pid_t bias_pid;

/* May streams be biased in this process? Registers on first use. */
static bool bias_ready(void)
{
	pid_t pid = getpid();
	if (atomic_load_explicit(&bias_pid, memory_order_acquire) == pid)
		return true;
	if (syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) != 0)
		return false;
	atomic_store_explicit(&bias_pid, pid, memory_order_release);
	return true;
}

/* A full memory barrier in every running thread of the process. It cannot fail once
 * bias_ready() registered; if it does anyway (a fork child that never registered), the owner is
 * a thread of the parent, which does not exist here. */
static void barrier_all_threads(void)
{
	if (syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) != 0 && bias_ready())
		syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0);
}

/* Back off in a wait for another thread: spin, then yield, then sleep 50 us at a time (the owner
 * may hold the lock across a long wait of its own). */
static void backoff(unsigned *n)
{
	if (*n < 64) {
#if defined(__x86_64__) || defined(__i386__)
		__builtin_ia32_pause();
#endif
	} else if (*n < 128) {
		sched_yield();
	} else {
		struct timespec ts = {0, 50000};
		nanosleep(&ts, NULL);
	}
	(*n)++;
}

/* The owner's way in (stream_lock's fast path, from the slow path): false when a revocation has
 * begun. */
static bool bias_enter(struct hip_stream *s)
{
	atomic_store_explicit(&s->bias_busy, 1, memory_order_relaxed);
	atomic_signal_fence(memory_order_seq_cst);
	if (atomic_load_explicit(&s->bias_state, memory_order_relaxed) == STREAM_LOCK_BIASED)
		return true;
	atomic_store_explicit(&s->bias_busy, 0, memory_order_release);
	return false;
}

/* End the bias of [in] s for good (stream_lock.h). The barrier is made even when no owner is
 * seen: a thread may be taking the bias right now. */
static void bias_revoke(struct hip_stream *s)
{
	int expected = STREAM_LOCK_BIASED;
	if (!atomic_compare_exchange_strong(&s->bias_state, &expected, STREAM_LOCK_REVOKING))
		return; /* another thread is revoking: wait for SHARED with everyone else */
	barrier_all_threads();
	for (unsigned n = 0; atomic_load_explicit(&s->bias_busy, memory_order_acquire);)
		backoff(&n);
	atomic_store_explicit(&s->bias_state, STREAM_LOCK_SHARED, memory_order_release);
}

static void futex_lock(struct hip_stream *s)
{
	int c = 0;
	if (atomic_compare_exchange_strong_explicit(&s->lock, &c, 1, memory_order_acquire,
						    memory_order_relaxed))
		return;
	if (c != 2)
		c = atomic_exchange_explicit(&s->lock, 2, memory_order_acquire);
	while (c != 0) {
		syscall(SYS_futex, &s->lock, FUTEX_WAIT_PRIVATE, 2, NULL, NULL, 0);
		c = atomic_exchange_explicit(&s->lock, 2, memory_order_acquire);
	}
}

void hip_stream_lock_slow(struct hip_stream *s)
{
	const void *me = stream_lock_self();
	if (atomic_load_explicit(&s->bias_state, memory_order_acquire) == STREAM_LOCK_BIASED) {
		const void *owner = NULL;
		bool mine = bias_ready() &&
			    (atomic_compare_exchange_strong(&s->bias_owner, &owner, me) || owner == me);
		if (mine && bias_enter(s))
			return;
		if (!mine)
			bias_revoke(s);
	}
	for (unsigned n = 0;
	     atomic_load_explicit(&s->bias_state, memory_order_acquire) != STREAM_LOCK_SHARED;)
		backoff(&n);
	futex_lock(s);
}

void hip_stream_unlock_shared(struct hip_stream *s)
{
	if (atomic_exchange_explicit(&s->lock, 0, memory_order_release) == 2)
		syscall(SYS_futex, &s->lock, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}
