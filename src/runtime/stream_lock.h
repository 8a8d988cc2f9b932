/* The stream lock: serialises the enqueues of one stream (submission order is stream order).
 *
 * Most streams are only ever fed by one thread, so the lock is biased: the first thread to take
 * it owns it, and that thread takes and drops it with plain stores of `bias_busy`, no atomic
 * read-modify-write. Each locked instruction waits for the stores before it to leave the core
 * (the previous launch's packet and doorbell, whose cache lines the command processor reads),
 * so the three a launch used to make (lock, claim, unlock) were a quarter of its host cost.
 *
 * The first time another thread takes the lock it revokes the bias, once: it marks the stream
 * REVOKING, makes every thread of the process execute a full memory barrier (membarrier(2)
 * MEMBARRIER_CMD_PRIVATE_EXPEDITED), waits until the owner is out, and marks it SHARED; from then
 * on every thread, owner included, uses the futex lock (`lock`). The owner stores bias_busy and
 * then loads bias_state with only a compiler barrier between; the revoker stores bias_state,
 * runs membarrier, then loads bias_busy. The barrier lands in the owner's instruction stream
 * before, between or after its two accesses, so either the owner sees REVOKING and backs off or
 * the revoker sees it busy and waits (the asymmetric Dekker pattern of userspace RCU).
 *
 * The futex lock (shared mode): held sometimes across a wait (a full ring, a host-side
 * dependency), so contention sleeps in the kernel. The classic three-state word: 0 free, 1 held,
 * 2 held and someone may sleep (the unlocker then wakes one).
 *
 * Where membarrier is not available (registration fails) no stream is ever biased. */
#ifndef HIPKFD_RUNTIME_STREAM_LOCK_H
#define HIPKFD_RUNTIME_STREAM_LOCK_H

#include <stdatomic.h>

#include "runtime.h"

enum { STREAM_LOCK_BIASED, STREAM_LOCK_REVOKING, STREAM_LOCK_SHARED };

/* The calling thread's identity for biased locks: its thread pointer where the compiler reads it
 * in one instruction (unique among live threads; a thread reusing an exited owner's takes over
 * a bias nobody holds), else the address of a thread-local byte. */
#if defined(__has_builtin)
#if __has_builtin(__builtin_thread_pointer) && (defined(__x86_64__) || defined(__aarch64__))
#define STREAM_LOCK_THREAD_POINTER 1
#endif
#endif
#ifndef STREAM_LOCK_THREAD_POINTER
extern _Thread_local char hip_stream_lock_token;
#endif

static inline const void *stream_lock_self(void)
{
#ifdef STREAM_LOCK_THREAD_POINTER
	return __builtin_thread_pointer();
#else
	return &hip_stream_lock_token;
#endif
}

/* Every case but the owner's biased way in and out (stream_lock.c). */
void hip_stream_lock_slow(struct hip_stream *s);
void hip_stream_unlock_shared(struct hip_stream *s);

static inline void stream_lock(struct hip_stream *s)
{
	if (atomic_load_explicit(&s->bias_owner, memory_order_relaxed) == stream_lock_self() &&
	    atomic_load_explicit(&s->bias_state, memory_order_relaxed) == STREAM_LOCK_BIASED) {
		atomic_store_explicit(&s->bias_busy, 1, memory_order_relaxed);
		/* The compiler keeps the store before the load; a revoker's membarrier does so for
		 * the hardware. */
		atomic_signal_fence(memory_order_seq_cst);
		if (atomic_load_explicit(&s->bias_state, memory_order_relaxed) == STREAM_LOCK_BIASED)
			return;
		atomic_store_explicit(&s->bias_busy, 0, memory_order_release);
	}
	hip_stream_lock_slow(s);
}

static inline void stream_unlock(struct hip_stream *s)
{
	if (atomic_load_explicit(&s->bias_busy, memory_order_relaxed) &&
	    atomic_load_explicit(&s->bias_owner, memory_order_relaxed) == stream_lock_self()) {
		atomic_store_explicit(&s->bias_busy, 0, memory_order_release);
		return;
	}
	hip_stream_unlock_shared(s);
}

#endif
