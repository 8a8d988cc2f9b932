/* Sets of handles the runtime ever handed out (streams, events), so that a made-up handle gets an
 * error rather than a crash. Stream and event objects are recycled, never freed, so a handle once
 * in the set always points to readable memory; whether it is live is a flag in the object.
 * Lookups take no lock: they probe an open-addressed table of atomic slots. Writers serialise on a
 * mutex. A grown table replaces the old one, which is kept (never freed) so a reader still probing
 * it stays safe; the tables double, so the kept ones total less than the current one.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#include "internal.h"

struct handle_table {
	size_t mask;               /* capacity - 1, capacity a power of two */
	size_t used;               /* entries; writers only */
	_Atomic uintptr_t slot[];
};

struct hip_handle_set hip_known_streams = { .lock = PTHREAD_MUTEX_INITIALIZER };
struct hip_handle_set hip_known_events = { .lock = PTHREAD_MUTEX_INITIALIZER };

static size_t hash_ptr(uintptr_t p)
{
	p ^= p >> 33;
	p *= 0xff51afd7ed558ccdull;
	p ^= p >> 33;
	return (size_t)p;
}

static struct handle_table *table_new(size_t capacity)
{
	struct handle_table *t = calloc(1, sizeof(*t) + capacity * sizeof(t->slot[0]));
	if (t)
		t->mask = capacity - 1;
	return t;
}

static void table_put(struct handle_table *t, uintptr_t h)
{
	size_t i = hash_ptr(h) & t->mask;
	for (;;) {
		uintptr_t v = atomic_load_explicit(&t->slot[i], memory_order_relaxed);
		if (v == h)
			return;
		if (v == 0) {
			t->used++;
			atomic_store_explicit(&t->slot[i], h, memory_order_release);
			return;
		}
		i = (i + 1) & t->mask;
	}
}

/* Writers only: copy the entries into a table twice as big and publish it. */
static int table_grow(struct hip_handle_set *set, struct handle_table *old)
{
	size_t cap = old ? (old->mask + 1) * 2 : 64;
	struct handle_table *t = table_new(cap);
	if (!t)
		return -ENOMEM;
	for (size_t i = 0; old && i <= old->mask; i++) {
		uintptr_t v = atomic_load_explicit(&old->slot[i], memory_order_relaxed);
		if (v)
			table_put(t, v);
	}
	atomic_store_explicit(&set->table, t, memory_order_release);
	return 0;
}

int hip_handle_add(struct hip_handle_set *set, const void *h)
{
	int err = 0;
	pthread_mutex_lock(&set->lock);
	struct handle_table *t = atomic_load_explicit(&set->table, memory_order_relaxed);
	if (!t || (t->used + 1) * 2 > t->mask + 1) {
		err = table_grow(set, t);
		t = atomic_load_explicit(&set->table, memory_order_relaxed);
	}
	if (!err)
		table_put(t, (uintptr_t)h);
	pthread_mutex_unlock(&set->lock);
	return err;
}

static bool table_find(struct handle_table *t, uintptr_t h)
{
	size_t i = hash_ptr(h) & t->mask;
	for (size_t n = 0; n <= t->mask; n++) {
		uintptr_t v = atomic_load_explicit(&t->slot[i], memory_order_acquire);
		if (v == h)
			return true;
		if (v == 0)
			return false;
		i = (i + 1) & t->mask;
	}
	return false;
}

bool hip_handle_known_probe(struct hip_handle_set *set, const void *h)
{
	if (!h)
		return false;
	struct handle_table *t = atomic_load_explicit(&set->table, memory_order_acquire);
	if (!t || !table_find(t, (uintptr_t)h))
		return false;
	atomic_store_explicit(&set->recent[((uintptr_t)h >> 4) % HIP_HANDLE_RECENT], (uintptr_t)h,
			      memory_order_relaxed);
	return true;
}
