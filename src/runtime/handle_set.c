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

/* ---- live sets: handles of objects that are freed when destroyed ------------------------------
 * Graphs, nodes, executable graphs, libraries and pools are freed by their destroy call, so their
 * handles leave the set there. Lookups and changes take the set's mutex: these handles are not on
 * a launch's hot path (functions and streams are, and use the lock-free sets above). Linear probing
 * with backward-shift deletion keeps every probe chain unbroken without tombstones.
 */
static size_t live_home(const struct hip_live_set *set, uintptr_t h)
{
	return hash_ptr(h) & (set->cap - 1);
}

/* Index of [in] h in the set, or of the empty slot ending its probe chain. */
static size_t live_slot(const struct hip_live_set *set, uintptr_t h)
{
	size_t i = live_home(set, h);
	while (set->slot[i] && set->slot[i] != h)
		i = (i + 1) & (set->cap - 1);
	return i;
}

static int live_grow(struct hip_live_set *set)
{
	size_t cap = set->cap ? set->cap * 2 : 64;
	uintptr_t *old = set->slot, *slot = calloc(cap, sizeof(*slot));
	size_t old_cap = set->cap;
	if (!slot)
		return -ENOMEM;
	set->slot = slot;
	set->cap = cap;
	for (size_t i = 0; i < old_cap; i++)
		if (old[i])
			set->slot[live_slot(set, old[i])] = old[i];
	free(old);
	return 0;
}

int hip_live_add(struct hip_live_set *set, const void *h)
{
	int err = 0;
	pthread_mutex_lock(&set->lock);
	if ((set->used + 1) * 2 > set->cap)
		err = live_grow(set);
	if (!err) {
		size_t i = live_slot(set, (uintptr_t)h);
		set->used += set->slot[i] == 0;
		set->slot[i] = (uintptr_t)h;
	}
	pthread_mutex_unlock(&set->lock);
	return err;
}

/* Backward-shift deletion: entries after the hole whose home is not between the hole and them
 * move into it, so no lookup stops early at the emptied slot. */
static void live_erase(struct hip_live_set *set, size_t hole)
{
	size_t mask = set->cap - 1;
	set->slot[hole] = 0;
	for (size_t j = (hole + 1) & mask; set->slot[j]; j = (j + 1) & mask) {
		size_t home = live_home(set, set->slot[j]);
		bool stays = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
		if (stays)
			continue;
		set->slot[hole] = set->slot[j];
		set->slot[j] = 0;
		hole = j;
	}
	set->used--;
}

bool hip_live_remove(struct hip_live_set *set, const void *h)
{
	bool found = false;
	pthread_mutex_lock(&set->lock);
	if (h && set->cap) {
		size_t i = live_slot(set, (uintptr_t)h);
		found = set->slot[i] != 0;
		if (found)
			live_erase(set, i);
	}
	pthread_mutex_unlock(&set->lock);
	return found;
}

bool hip_live_has(struct hip_live_set *set, const void *h)
{
	bool found = false;
	pthread_mutex_lock(&set->lock);
	if (h && set->cap)
		found = set->slot[live_slot(set, (uintptr_t)h)] != 0;
	pthread_mutex_unlock(&set->lock);
	return found;
}

void hip_handle_each(struct hip_handle_set *set, void (*fn)(const void *h, void *ctx), void *ctx)
{
	struct handle_table *t = atomic_load_explicit(&set->table, memory_order_acquire);
	for (size_t i = 0; t && i <= t->mask; i++) {
		uintptr_t h = atomic_load_explicit(&t->slot[i], memory_order_acquire);
		if (h)
			fn((const void *)h, ctx);
	}
}
