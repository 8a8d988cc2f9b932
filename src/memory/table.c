/* src/memory/table.c: the address -> allocation table.
 *
 * Runtime-owned blocks (device and pinned allocations, sub-allocator chunks) start on a 2 MiB
 * granule and own every granule of their reservation, so a two-level radix table indexed by
 * address >> 21 finds them with two acquire loads and no lock (mem_table_find_block, inline in
 * mem_internal.h). Leaves are allocated on demand with a CAS and never freed. A granule points
 * at a block while the block holds the reservation: while it is live, and while it waits in the
 * block cache (not live: lookups find nothing there).
 *
 * Registered host memory and managed ranges start anywhere (user addresses), so they live in a
 * sorted array under a rwlock; lookups only take that lock while such ranges exist. */
#include "mem_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define LEAF_BITS MEM_TABLE_LEAF_BITS
#define TOP_BITS MEM_TABLE_TOP_BITS
#define LEAF_SIZE (1u << LEAF_BITS)

_Atomic(mem_table_slot *) mem_table_top[1u << TOP_BITS]; /* leaves by granule >> LEAF_BITS */
static _Atomic uint64_t alloc_ids = 1;

uint64_t mem_next_alloc_id(void)
{
  return atomic_fetch_add_explicit(&alloc_ids, 1, memory_order_relaxed);
}

uint64_t mem_next_alloc_ids(uint64_t n)
{
  return atomic_fetch_add_explicit(&alloc_ids, n, memory_order_relaxed);
}

static mem_table_slot *leaf_for(uint64_t granule, bool create)
{
  uint64_t t = granule >> LEAF_BITS;
  mem_table_slot *leaf;

  if (t >= (1u << TOP_BITS))
    return NULL;
  leaf = atomic_load_explicit(&mem_table_top[t], memory_order_acquire);
  if (leaf || !create)
    return leaf;
  mem_table_slot *fresh = calloc(LEAF_SIZE, sizeof(mem_table_slot));
  if (!fresh)
    return NULL;
  mem_table_slot *expected = NULL;
  if (!atomic_compare_exchange_strong_explicit(&mem_table_top[t], &expected, fresh,
                                               memory_order_acq_rel, memory_order_acquire)) {
    free(fresh);
    return expected;
  }
  return fresh;
}

/* Point every granule of b's reservation at [in] value. Granules sharing a leaf are stored
 * through one leaf lookup (a 256 MiB block spans 128 granules of one leaf). A missing leaf when
 * clearing means nothing was stored there. */
static int set_range(struct mem_block *b, struct mem_block *value, bool create)
{
  uint64_t g = (uint64_t)(uintptr_t)b->reservation >> MEM_GRANULE_SHIFT;
  uint64_t last = ((uint64_t)(uintptr_t)b->reservation + b->reservation_size - 1) >> MEM_GRANULE_SHIFT;

  while (g <= last) {
    uint64_t leaf_last = g | (LEAF_SIZE - 1);
    uint64_t end = leaf_last < last ? leaf_last : last;
    mem_table_slot *leaf = leaf_for(g, create);
    if (!leaf && create)
      return -ENOMEM;
    for (; leaf && g <= end; g++)
      atomic_store_explicit(&leaf[g & (LEAF_SIZE - 1)], value, memory_order_release);
    g = end + 1;
  }
  return 0;
}

int mem_table_insert(struct mem_block *b)
{
  int err;

  if (!b->reservation || ((uintptr_t)b->reservation & (MEM_GRANULE - 1)))
    return -EINVAL;
  err = set_range(b, b, true);
  if (err)
    set_range(b, NULL, false);
  return err;
}

void mem_table_remove(struct mem_block *b)
{
  set_range(b, NULL, false);
}

/* ---- registered and managed ranges ------------------------------------------------------- */

static pthread_rwlock_t ranges_lock = PTHREAD_RWLOCK_INITIALIZER;
static struct mem_block **ranges;     /* sorted by base (ranges_lock) */
static size_t n_ranges, cap_ranges;   /* (ranges_lock) */
static _Atomic size_t ranges_published; /* n_ranges, readable without the lock */

/* First index whose base is > p. */
static size_t upper_bound(uintptr_t p)
{
  size_t lo = 0, hi = n_ranges;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if ((uintptr_t)ranges[mid]->base <= p)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

static bool overlaps(const struct mem_block *b, uintptr_t start, size_t len)
{
  uintptr_t bs = (uintptr_t)b->base;
  return start < bs + b->size && bs < start + len;
}

int mem_ranges_insert(struct mem_block *b)
{
  size_t i;
  int err = 0;

  pthread_rwlock_wrlock(&ranges_lock);
  i = upper_bound((uintptr_t)b->base);
  if ((i > 0 && overlaps(ranges[i - 1], (uintptr_t)b->base, b->size)) ||
      (i < n_ranges && overlaps(ranges[i], (uintptr_t)b->base, b->size))) {
    err = -EEXIST;
    goto out;
  }
  if (n_ranges == cap_ranges) {
    size_t cap = cap_ranges ? cap_ranges * 2 : 64;
    struct mem_block **grown = realloc(ranges, cap * sizeof(*grown));
    if (!grown) {
      err = -ENOMEM;
      goto out;
    }
    ranges = grown;
    cap_ranges = cap;
  }
  memmove(&ranges[i + 1], &ranges[i], (n_ranges - i) * sizeof(*ranges));
  ranges[i] = b;
  n_ranges++;
  atomic_store_explicit(&ranges_published, n_ranges, memory_order_release);
out:
  pthread_rwlock_unlock(&ranges_lock);
  return err;
}

struct mem_block *mem_ranges_remove(const void *p)
{
  struct mem_block *b = NULL;
  size_t i;

  pthread_rwlock_wrlock(&ranges_lock);
  i = upper_bound((uintptr_t)p);
  if (i > 0 && ranges[i - 1]->base == p) {
    b = ranges[i - 1];
    memmove(&ranges[i - 1], &ranges[i], (n_ranges - i) * sizeof(*ranges));
    n_ranges--;
    atomic_store_explicit(&ranges_published, n_ranges, memory_order_release);
  }
  pthread_rwlock_unlock(&ranges_lock);
  return b;
}

/* The range containing p (len 1), or with len > 1 any range overlapping [p, p+len) (sets
 * *overlap). Returns NULL if none. The block stays valid after the lock is dropped (type-stable). */
struct mem_block *mem_ranges_find(const void *p, size_t len, bool *overlap)
{
  struct mem_block *b = NULL;
  size_t i;

  if (overlap)
    *overlap = false;
  if (!atomic_load_explicit(&ranges_published, memory_order_acquire))
    return NULL;
  pthread_rwlock_rdlock(&ranges_lock);
  i = upper_bound((uintptr_t)p + (len ? len - 1 : 0));
  if (i > 0 && overlaps(ranges[i - 1], (uintptr_t)p, len ? len : 1)) {
    b = ranges[i - 1];
    if (overlap)
      *overlap = true;
  }
  pthread_rwlock_unlock(&ranges_lock);
  return b;
}

struct mem_block *mem_ranges_find_alias(const void *p)
{
  struct mem_block *b = NULL;

  if (!atomic_load_explicit(&ranges_published, memory_order_acquire))
    return NULL;
  pthread_rwlock_rdlock(&ranges_lock);
  for (size_t i = 0; i < n_ranges && !b; i++) {
    struct mem_block *r = ranges[i];
    if (r->reservation && (uintptr_t)p >= (uintptr_t)r->reservation &&
        (uintptr_t)p - (uintptr_t)r->reservation < r->reservation_size)
      b = r;
  }
  pthread_rwlock_unlock(&ranges_lock);
  return b;
}

void mem_table_foreach(void (*fn)(struct mem_block *b, void *arg), void *arg)
{
  struct mem_block *last = NULL;

  for (size_t t = 0; t < (1u << TOP_BITS); t++) {
    mem_table_slot *leaf = atomic_load_explicit(&mem_table_top[t], memory_order_acquire);
    if (!leaf)
      continue;
    for (size_t i = 0; i < LEAF_SIZE; i++) {
      struct mem_block *b = atomic_load_explicit(&leaf[i], memory_order_acquire);
      /* A block owns consecutive granules: report it once. */
      if (b && b != last)
        fn(b, arg);
      last = b;
    }
  }
}

/* After fork() the child has a new GPU VM and none of the parent's device mappings (they are
 * MADV_DONTFORK): forget every entry so the child's own allocations and registrations of the
 * same addresses start clean. Runs in the single-threaded child, so no reader can race. */
static void table_atfork_child(void)
{
  for (size_t t = 0; t < (1u << TOP_BITS); t++) {
    mem_table_slot *leaf = atomic_load_explicit(&mem_table_top[t], memory_order_relaxed);
    if (leaf)
      for (size_t i = 0; i < LEAF_SIZE; i++)
        atomic_store_explicit(&leaf[i], NULL, memory_order_relaxed);
  }
  pthread_rwlock_init(&ranges_lock, NULL);
  n_ranges = 0;
  atomic_store_explicit(&ranges_published, 0, memory_order_relaxed);
  mem_va_atfork_child();
}

static pthread_once_t table_once = PTHREAD_ONCE_INIT;

static void table_register_atfork(void)
{
  pthread_atfork(NULL, NULL, table_atfork_child);
}

void mem_table_init_once(void)
{
  pthread_once(&table_once, table_register_atfork);
}
