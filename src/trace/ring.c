/* hipkfd: per-thread rings of timeline records (trace.h).
 *
 * Each host thread appends to its own ring, so recording takes no lock and touches no line
 * another thread writes: claim the slot at head % size, fill it, publish head + 1 (release).
 * A reader (the file writer) loads head (acquire) and reads the last `size` records. Rings are
 * never freed: a thread's records outlive it and are written with the rest. A ring that wraps
 * overwrites its oldest records (counted as lost); a reader racing with a writer that wraps may
 * read one torn record, which is why the file is written after recording stopped. */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../runtime/error.h"
#include "trace.h"

#define RING_RECORDS 16384u /* per thread: ~3.4 MB of address space, touched as used */

struct trace_ring {
	struct trace_ring *next;   /* in `rings`; written once before the ring is published */
	_Atomic uint64_t head;     /* records committed so far; written by the owner only */
	struct trace_rec rec[RING_RECORDS];
};

static _Atomic(struct trace_ring *) rings;
static HIP_TLS struct trace_ring *my_ring;
static HIP_TLS uint32_t my_tid;

uint32_t trace_thread_id(void)
{
	if (!my_tid)
		my_tid = (uint32_t)syscall(SYS_gettid);
	return my_tid;
}

/* Make the calling thread's ring and publish it on the list (a lock-free push). */
static struct trace_ring *ring_create(void)
{
	struct trace_ring *r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	struct trace_ring *old = atomic_load_explicit(&rings, memory_order_relaxed);
	do
		r->next = old;
	while (!atomic_compare_exchange_weak_explicit(&rings, &old, r, memory_order_release,
						      memory_order_relaxed));
	return r;
}

struct trace_rec *trace_ring_append(void)
{
	struct trace_ring *r = my_ring;
	if (__builtin_expect(!r, 0) && !(r = my_ring = ring_create()))
		return NULL;
	uint64_t h = atomic_load_explicit(&r->head, memory_order_relaxed);
	return &r->rec[h % RING_RECORDS];
}

void trace_ring_commit(void)
{
	struct trace_ring *r = my_ring;
	uint64_t h = atomic_load_explicit(&r->head, memory_order_relaxed);
	/* Release: the record's fields are visible to a reader that sees the new head. */
	atomic_store_explicit(&r->head, h + 1, memory_order_release);
}

void trace_rings_each(void (*fn)(const struct trace_rec *r, void *arg), void *arg)
{
	for (struct trace_ring *r = atomic_load_explicit(&rings, memory_order_acquire); r;
	     r = r->next) {
		uint64_t h = atomic_load_explicit(&r->head, memory_order_acquire);
		for (uint64_t i = h > RING_RECORDS ? h - RING_RECORDS : 0; i < h; i++)
			fn(&r->rec[i % RING_RECORDS], arg);
	}
}

uint64_t trace_rings_lost(void)
{
	uint64_t lost = 0;
	for (struct trace_ring *r = atomic_load_explicit(&rings, memory_order_acquire); r;
	     r = r->next) {
		uint64_t h = atomic_load_explicit(&r->head, memory_order_acquire);
		lost += h > RING_RECORDS ? h - RING_RECORDS : 0;
	}
	return lost;
}
