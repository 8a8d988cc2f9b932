/* The stream lock (src/api/stream_lock.h): biased to its first thread, revoked for good when a
 * second thread takes it. Exclusion is checked with a counter every holder increments without
 * atomics and a flag that says someone is inside, across hundreds of revocations that race with
 * the owner's own locking. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "runtime/stream_lock.h"

/* Each locker runs for a while rather than a count, so that the threads overlap in time even on
 * a loaded machine with few cores. */
enum { ROUNDS = 40, RUN_NS = 5000000 };

struct shared {
	struct hip_stream *s;
	pthread_barrier_t start;
	long counter;            /* incremented under the lock only */
	atomic_long done;        /* increments made, counted outside the lock */
	atomic_int inside;       /* holders right now */
	atomic_int overlaps;     /* times a holder found another one inside */
};

static struct hip_stream *new_stream(void)
{
	struct hip_stream *s = calloc(1, sizeof(*s));
	cr_assert_not_null(s);
	atomic_init(&s->bias_state, STREAM_LOCK_BIASED);
	return s;
}

static void critical_section(struct shared *sh)
{
	if (atomic_fetch_add_explicit(&sh->inside, 1, memory_order_relaxed) != 0)
		atomic_fetch_add_explicit(&sh->overlaps, 1, memory_order_relaxed);
	long v = sh->counter;
	atomic_signal_fence(memory_order_seq_cst); /* a plain read-modify-write, not one instruction */
	sh->counter = v + 1;
	atomic_fetch_sub_explicit(&sh->inside, 1, memory_order_relaxed);
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void *locker(void *arg)
{
	struct shared *sh = arg;
	pthread_barrier_wait(&sh->start);
	uint64_t end = now_ns() + RUN_NS;
	long n = 0;
	do {
		for (int i = 0; i < 64; i++, n++) {
			stream_lock(sh->s);
			critical_section(sh);
			stream_unlock(sh->s);
		}
	} while (now_ns() < end);
	atomic_fetch_add(&sh->done, n);
	return NULL;
}

Test(stream_lock, one_thread_stays_biased)
{
	struct hip_stream *s = new_stream();
	struct shared sh = {.s = s};
	for (int i = 0; i < 1000; i++) {
		stream_lock(s);
		critical_section(&sh);
		stream_unlock(s);
	}
	cr_assert_eq(sh.counter, 1000);
	cr_assert_eq(atomic_load(&s->bias_state), STREAM_LOCK_BIASED);
	cr_assert_eq(atomic_load(&s->bias_owner), stream_lock_self());
	cr_assert_eq(atomic_load(&s->bias_busy), 0);
	cr_assert_eq(atomic_load(&s->lock), 0, "the futex word is never touched while biased");
	free(s);
}

/* The owner takes the bias, then both threads hammer the lock: the second thread's first lock
 * revokes the bias while the owner may be inside. */
Test(stream_lock, exclusion_across_revocation)
{
	for (int r = 0; r < ROUNDS; r++) {
		struct hip_stream *s = new_stream();
		struct shared sh = {.s = s};
		pthread_t t;
		pthread_barrier_init(&sh.start, NULL, 2);
		stream_lock(s); /* this thread owns the bias */
		stream_unlock(s);
		cr_assert_eq(pthread_create(&t, NULL, locker, &sh), 0);
		locker(&sh);
		pthread_join(t, NULL);
		pthread_barrier_destroy(&sh.start);
		cr_assert_eq(atomic_load(&sh.overlaps), 0, "round %d: two holders at once", r);
		cr_assert_eq(sh.counter, atomic_load(&sh.done), "round %d: lost increments", r);
		cr_assert_eq(atomic_load(&s->bias_state), STREAM_LOCK_SHARED);
		cr_assert_eq(atomic_load(&s->lock), 0, "round %d: left held", r);
		free(s);
	}
}

/* Two threads race for the bias of a fresh lock: one gets it, the other revokes it. */
Test(stream_lock, race_for_a_fresh_lock)
{
	for (int r = 0; r < ROUNDS; r++) {
		struct hip_stream *s = new_stream();
		struct shared sh = {.s = s};
		pthread_t t[3];
		pthread_barrier_init(&sh.start, NULL, 3);
		for (int i = 0; i < 3; i++)
			cr_assert_eq(pthread_create(&t[i], NULL, locker, &sh), 0);
		for (int i = 0; i < 3; i++)
			pthread_join(t[i], NULL);
		pthread_barrier_destroy(&sh.start);
		cr_assert_eq(atomic_load(&sh.overlaps), 0, "round %d: two holders at once", r);
		cr_assert_eq(sh.counter, atomic_load(&sh.done), "round %d: lost increments", r);
		free(s);
	}
}

/* After a revocation the former owner still locks (through the futex word), and a thread that
 * only ever used the shared mode can hold the lock while the former owner waits for it. */
static void *hold_then_release(void *arg)
{
	struct shared *sh = arg;
	stream_lock(sh->s);
	pthread_barrier_wait(&sh->start); /* the main thread now tries to lock */
	for (volatile int i = 0; i < 2000000; i++)
		;
	critical_section(sh);
	stream_unlock(sh->s);
	return NULL;
}

Test(stream_lock, former_owner_waits_in_shared_mode)
{
	struct hip_stream *s = new_stream();
	struct shared sh = {.s = s};
	pthread_t t;
	pthread_barrier_init(&sh.start, NULL, 2);
	stream_lock(s);
	stream_unlock(s);
	cr_assert_eq(pthread_create(&t, NULL, hold_then_release, &sh), 0);
	pthread_barrier_wait(&sh.start);
	stream_lock(s); /* waits until the other thread is done */
	cr_assert_eq(sh.counter, 1, "entered while the other thread held the lock");
	critical_section(&sh);
	stream_unlock(s);
	pthread_join(t, NULL);
	cr_assert_eq(sh.counter, 2);
	cr_assert_eq(atomic_load(&s->bias_state), STREAM_LOCK_SHARED);
	pthread_barrier_destroy(&sh.start);
	free(s);
}
