/* src/memory/suballoc.c: small allocations carved from cached chunks.
 *
 * Size classes are powers of two from 256 B to 1 MiB. Each (GPU, kind, coherence, class) has a
 * pool: a mutex and a list of chunks, each chunk one kernel allocation cut into equal slots
 * with a stack of free slot indices. mem_alloc() of a small size is a pool lock and a pop, not
 * an ioctl; mem_free() a push. Chunks stay cached when empty (mem_trim() returns them, and so
 * does a block allocation that finds the device full: mem.c).
 *
 * Chunk size: a pool's first chunk is 2 MiB; each further one doubles, up to 32 MiB and at most
 * CHUNK_MAX_SLOTS slots. A fixed 2 MiB chunk made every other 1 MiB allocation a kernel
 * allocation; growing geometrically makes n allocations of a class cost O(log n) kernel
 * allocations while the unused part of a pool stays below what it already holds in use.
 *
 * Frees take no lock: a free clears the slot's length, then sets the slot's bit in its chunk's
 * `freed` bitmap with one atomic OR, whose old value also turns away a second free of the slot
 * racing with it (the bit was set already). The allocator (under the pool lock) takes freed
 * slots back onto the chunk's free_stack when the stack runs out, a bitmap word at a time with
 * one exchange. Until then a freed slot is counted nowhere, so a chunk counts as empty (trim,
 * cached bytes) only once its freed slots are taken in; a free still between clearing the length
 * and setting its bit keeps the chunk (its slot is counted nowhere yet).
 *
 * The slot freed last is handed out first (its memory is the likeliest to be warm, and a program
 * that frees and allocates the same size gets its address back): a free leaves its address in
 * the pool's `recent`, and the allocator claims that slot's bit if it is still set.
 *
 * IPC (ipc.c): device slots are at least a page, so that the pages of a slot hold that slot
 * only and an importer can be given exactly them. A slot that was exported is quarantined when
 * freed: its length is cleared (lookups and frees no longer find it) but its bit is never set, so
 * it is not handed out again while an importer may still map it. */
#include "mem_internal.h"
#include "ipc_record.h"

#include <errno.h>
#include <stdlib.h>

#define MIN_CLASS_SHIFT 8   /* 256 B: keeps every slot 256-byte aligned */
#define MAX_CLASS_SHIFT 20  /* 1 MiB */
#define N_CLASSES (MAX_CLASS_SHIFT - MIN_CLASS_SHIFT + 1)
#define N_SUBKINDS 4        /* MEM_DEVICE .. MEM_HOST_PINNED */
#define CHUNK_MIN MEM_GRANULE
#define CHUNK_MAX_SHIFT 4          /* 2 MiB << 4 = 32 MiB */
#define CHUNK_MAX_SLOTS 8192u      /* bounds the per-chunk slot arrays (host memory) */
#define DEVICE_MIN_SLOT 4096u      /* MEM_PAGE: device slots never share a page (ipc.c) */
#define SLOT_EXPORTED 1u           /* slot_exported: an IPC handle names the slot */
#define SLOT_QUARANTINED 2u        /* slot_exported: freed after its export, never reused */

struct mem_gpu_pools {
  struct mem_pool pools[N_SUBKINDS][2][N_CLASSES];
};

bool mem_suballoc_fits(size_t size, enum mem_kind kind, unsigned flags)
{
  /* Host chunks are always mapped to every open GPU, so MEM_FLAG_ALL_GPUS is satisfied too. */
  unsigned allowed = MEM_FLAG_COHERENT | (kind == MEM_HOST_PINNED ? MEM_FLAG_ALL_GPUS : 0u);
  return size && size <= (1u << MAX_CLASS_SHIFT) && kind <= MEM_HOST_PINNED && !(flags & ~allowed);
}

/* The class of [in] size (1 <= size <= 1 MiB): log2 of the smallest power of two >= size, less
 * MIN_CLASS_SHIFT, and 0 below 256 B. */
static unsigned class_of(size_t size)
{
  unsigned shift = size > 1 ? 64u - (unsigned)__builtin_clzll((unsigned long long)size - 1) : 0u;
  return shift > MIN_CLASS_SHIFT ? shift - MIN_CLASS_SHIFT : 0u;
}

/* Ids are reserved for a pool this many at a time: the global counter is an atomic
 * read-modify-write per reservation, not per allocation. Ids stay unique and never reused; the
 * gaps a pool leaves do not matter. */
#define POOL_ID_BATCH 64

/* A fresh allocation id for a slot of [in] pool (pool->lock held). */
static uint64_t pool_next_id(struct mem_pool *pool)
{
  if (pool->id_next == pool->id_end) {
    pool->id_next = mem_next_alloc_ids(POOL_ID_BATCH);
    pool->id_end = pool->id_next + POOL_ID_BATCH;
  }
  return pool->id_next++;
}

/* Host chunks of the other GPUs are mapped to every GPU open when they were made; map them to
 * a GPU that starts allocating later too, so a signal or pinned buffer created for one device
 * stays reachable from every device. */
static void map_foreign_host_chunks(struct kfd_gpu *gpu)
{
  struct kfd_gpu *gpus[MEM_MAX_MAPPED];
  int n = mem_open_gpus(gpus, MEM_MAX_MAPPED);

  for (int g = 0; g < n; g++) {
    struct mem_gpu_pools *other;
    if (gpus[g] == gpu)
      continue;
    other = __atomic_load_n((struct mem_gpu_pools **)&gpus[g]->mem_state, __ATOMIC_ACQUIRE);
    if (!other)
      continue;
    for (int co = 0; co < 2; co++)
      for (int s = 0; s < N_CLASSES; s++) {
        struct mem_pool *pool = &other->pools[MEM_HOST_PINNED][co][s];
        pthread_mutex_lock(&pool->lock);
        for (struct mem_chunk *c = pool->chunks; c; c = c->next)
          mem_block_map(c->block, gpu);
        pthread_mutex_unlock(&pool->lock);
      }
  }
}

static struct mem_gpu_pools *gpu_pools(struct kfd_gpu *gpu)
{
  struct mem_gpu_pools *p = __atomic_load_n((struct mem_gpu_pools **)&gpu->mem_state, __ATOMIC_ACQUIRE);
  struct mem_gpu_pools *expected = NULL;

  if (p)
    return p;
  p = calloc(1, sizeof(*p));
  if (!p)
    return NULL;
  for (int k = 0; k < N_SUBKINDS; k++)
    for (int c = 0; c < 2; c++)
      for (int s = 0; s < N_CLASSES; s++)
        pthread_mutex_init(&p->pools[k][c][s].lock, NULL);
  if (!__atomic_compare_exchange_n((struct mem_gpu_pools **)&gpu->mem_state, &expected, p, false,
                                   __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
    free(p);
    return expected;
  }
  map_foreign_host_chunks(gpu);
  return p;
}

/* A new chunk for pool (pool->lock held: chunk creation is rare, and holding the lock keeps
 * two threads from both allocating one). */
/* The size of the next chunk of pool: 2 MiB doubled per chunk the pool already has. */
static size_t chunk_size_next(const struct mem_pool *pool, uint32_t slot_size)
{
  unsigned n = 0;
  for (const struct mem_chunk *c = pool->chunks; c && n < CHUNK_MAX_SHIFT; c = c->next)
    n++;
  size_t size = (size_t)CHUNK_MIN << n;
  while (size > CHUNK_MIN && size / slot_size > CHUNK_MAX_SLOTS)
    size >>= 1;
  return size;
}

static int chunk_new_sized(struct kfd_gpu *gpu, struct mem_pool *pool, enum mem_kind kind,
                           unsigned flags, uint32_t slot_size, size_t size,
                           struct mem_chunk **out)
{
  struct mem_chunk *c = calloc(1, sizeof(*c));
  int err;

  if (!c)
    return -ENOMEM;
  c->slot_size = slot_size;
  c->slot_shift = (uint32_t)__builtin_ctz(slot_size);
  c->nslots = (uint32_t)(size / slot_size);
  c->pool = pool;
  c->slot_len = calloc(c->nslots, sizeof(*c->slot_len));
  c->slot_id = calloc(c->nslots, sizeof(*c->slot_id));
  c->slot_uflags = calloc(c->nslots, sizeof(*c->slot_uflags));
  c->slot_user = calloc(c->nslots, sizeof(*c->slot_user));
  c->slot_exported = calloc(c->nslots, sizeof(*c->slot_exported));
  c->free_stack = malloc(c->nslots * sizeof(*c->free_stack));
  c->nwords = (c->nslots + 63) / 64;
  c->freed = calloc(c->nwords, sizeof(*c->freed));
  if (!c->slot_len || !c->slot_id || !c->slot_uflags || !c->slot_user || !c->slot_exported ||
      !c->free_stack || !c->freed) {
    err = -ENOMEM;
    goto fail;
  }
  err = mem_block_alloc(gpu, size, kind, flags, &c->block);
  if (err)
    goto fail;
  /* Chunks hold many small allocations and are mapped for the CPU at once (block.c defers it
   * only for allocations of their own). */
  mem_block_cpu_view(c->block);
  c->block->chunk = c;
  for (uint32_t i = 0; i < c->nslots; i++)
    c->free_stack[i] = c->nslots - 1 - i; /* pop order: slot 0 first */
  c->nfree = c->nslots;
  err = mem_table_insert(c->block);
  if (err) {
    mem_block_release(c->block);
    goto fail;
  }
  atomic_store_explicit(&c->block->live, true, memory_order_release);
  c->next = pool->chunks;
  pool->chunks = c;
  *out = c;
  return 0;
fail:
  free(c->slot_len);
  free((void *)c->slot_id);
  free((void *)c->slot_uflags);
  free((void *)c->slot_user);
  free((void *)c->slot_exported);
  free(c->free_stack);
  free((void *)c->freed);
  free(c);
  return err;
}

/* A grown chunk that does not fit the device falls back to the 2 MiB one. */
static int chunk_new(struct kfd_gpu *gpu, struct mem_pool *pool, enum mem_kind kind,
                     unsigned flags, uint32_t slot_size, struct mem_chunk **out)
{
  size_t size = chunk_size_next(pool, slot_size);
  int err = chunk_new_sized(gpu, pool, kind, flags, slot_size, size, out);
  if (err == -ENOMEM && mem_block_cache_trim(gpu))
    err = chunk_new_sized(gpu, pool, kind, flags, slot_size, size, out);
  if (err == -ENOMEM && size > CHUNK_MIN)
    err = chunk_new_sized(gpu, pool, kind, flags, slot_size, CHUNK_MIN, out);
  return err;
}

/* Take freed slots onto c's free stack (pool->lock held): those of the first bitmap word that
 * has any, searching from where the last search stopped, or of every word when [in] all. The
 * acquire exchange pairs with the frees' release ORs: a slot's cleared length is seen before the
 * slot is handed out again (and given its new length). */
static void chunk_take_freed(struct mem_chunk *c, bool all)
{
  for (uint32_t n = 0; n < c->nwords; n++) {
    uint32_t w = c->freed_cursor;
    if (atomic_load_explicit(&c->freed[w], memory_order_relaxed)) {
      uint64_t bits = atomic_exchange_explicit(&c->freed[w], 0, memory_order_acquire);
      for (; bits; bits &= bits - 1)
        c->free_stack[c->nfree++] = w * 64 + (uint32_t)__builtin_ctzll(bits);
      if (!all)
        return;
    }
    c->freed_cursor = w + 1 == c->nwords ? 0 : w + 1;
  }
}

/* c has a free slot, counting the returned ones (pool->lock held). */
static bool chunk_has_free(struct mem_chunk *c)
{
  if (!c->nfree)
    chunk_take_freed(c, false);
  return c->nfree != 0;
}

/* Every slot of c is free (pool->lock held). */
static bool chunk_empty(struct mem_chunk *c)
{
  chunk_take_freed(c, true);
  return c->nfree == c->nslots;
}

/* The slot last freed from [in] pool, claimed from its chunk's bitmap (pool->lock held), or
 * false. `recent` is a hint that racing frees overwrite: the bit decides whether the slot is
 * free, and the chunk must be a live one of this pool (a trimmed chunk's granules are gone). */
static bool claim_recent(struct mem_pool *pool, struct mem_chunk **out, uint32_t *slot)
{
  uintptr_t p = atomic_load_explicit(&pool->recent, memory_order_relaxed);
  if (!p)
    return false;
  atomic_store_explicit(&pool->recent, 0, memory_order_relaxed);
  struct mem_block *b = mem_table_find_block((const void *)p);
  if (!b || !b->chunk || b->chunk->pool != pool)
    return false;
  struct mem_chunk *c = b->chunk;
  uint32_t s = (uint32_t)((p - (uintptr_t)b->base) >> c->slot_shift);
  uint64_t bit = 1ull << (s & 63);
  /* Acquire: pairs with the free's release OR, as chunk_take_freed's exchange does. */
  if (!(atomic_fetch_and_explicit(&c->freed[s >> 6], ~bit, memory_order_acquire) & bit))
    return false;
  *out = c;
  *slot = s;
  return true;
}

/* A free slot of [in] pool (pool->lock held): from the chunk that last had some, else the first
 * chunk with any, else a new chunk. [out] out, slot. 0 or -errno. */
static int pool_take_slot(struct kfd_gpu *gpu, struct mem_pool *pool, enum mem_kind kind,
                          unsigned flags, unsigned cls, struct mem_chunk **out, uint32_t *slot)
{
  struct mem_chunk *c = pool->hint;
  int err = 0;

  if (!c || !chunk_has_free(c)) {
    for (c = pool->chunks; c && !chunk_has_free(c); c = c->next)
      ;
    if (!c) {
      unsigned chunk_flags = flags & MEM_FLAG_COHERENT;
      if (kind == MEM_HOST_PINNED)
        chunk_flags |= MEM_FLAG_ALL_GPUS;
      err = chunk_new(gpu, pool, kind, chunk_flags, 1u << (cls + MIN_CLASS_SHIFT), &c);
    }
    pool->hint = c;
  }
  if (err)
    return err;
  *slot = c->free_stack[--c->nfree];
  *out = c;
  return 0;
}

int mem_suballoc(struct kfd_gpu *gpu, size_t size, enum mem_kind kind, unsigned flags, bool user,
                 void **out)
{
  struct mem_gpu_pools *pools = gpu_pools(gpu);
  unsigned cls = class_of(kind <= MEM_DEVICE_UNCACHED && size < DEVICE_MIN_SLOT ? DEVICE_MIN_SLOT : size);
  struct mem_pool *pool;
  struct mem_chunk *c;
  uint32_t slot;
  int err = 0;

  if (!pools)
    return -ENOMEM;
  pool = &pools->pools[kind][(flags & MEM_FLAG_COHERENT) ? 1 : 0][cls];
  pthread_mutex_lock(&pool->lock);
  if (!claim_recent(pool, &c, &slot))
    err = pool_take_slot(gpu, pool, kind, flags, cls, &c, &slot);
  if (!err) {
    atomic_store_explicit(&c->slot_id[slot], pool_next_id(pool), memory_order_relaxed);
    atomic_store_explicit(&c->slot_uflags[slot], 0, memory_order_relaxed);
    atomic_store_explicit(&c->slot_user[slot], user, memory_order_relaxed);
    /* Publishes the slot to lock-free mem_lookup() readers. */
    atomic_store_explicit(&c->slot_len[slot], (uint32_t)size, memory_order_release);
    *out = (char *)c->block->base + (size_t)slot * c->slot_size;
  }
  pthread_mutex_unlock(&pool->lock);
  return err;
}

/* The free of an exported slot: the slot stays taken for good, the export record goes. Returns
 * 1 if the slot turned out not to be exported after all (an export that found it freed took its
 * mark back: a plain free), else 0 or -EINVAL (a racing free quarantined it first). */
static int slot_quarantine(struct mem_chunk *c, uint32_t slot, const void *p)
{
  uint8_t expected = SLOT_EXPORTED;
  if (!atomic_compare_exchange_strong(&c->slot_exported[slot], &expected, SLOT_QUARANTINED))
    return expected == 0 ? 1 : -EINVAL;
  ipc_record_retire(p, atomic_load_explicit(&c->slot_id[slot], memory_order_relaxed));
  return 0;
}

int mem_suballoc_mark_exported(struct mem_block *b, const void *base, uint64_t alloc_id)
{
  struct mem_chunk *c = b->chunk;
  size_t off = (size_t)((const char *)base - (const char *)b->base);
  uint32_t slot = (uint32_t)(off >> c->slot_shift);

  if ((off & (c->slot_size - 1)) || slot >= c->nslots)
    return -ENOENT;
  uint8_t expected = 0;
  if (!atomic_compare_exchange_strong(&c->slot_exported[slot], &expected, SLOT_EXPORTED))
    return expected == SLOT_EXPORTED ? 0 : -ENOENT;
  /* The mark first, then the check (see mem_suballoc_free). A slot found freed (or reused) is
   * unmarked again: its free did not see the mark, or the slot is another allocation's now. */
  if (atomic_load_explicit(&c->slot_len[slot], memory_order_seq_cst) &&
      atomic_load_explicit(&c->slot_id[slot], memory_order_relaxed) == alloc_id)
    return 0;
  expected = SLOT_EXPORTED;
  atomic_compare_exchange_strong(&c->slot_exported[slot], &expected, 0);
  return -ENOENT;
}

int mem_suballoc_free(struct mem_block *b, const void *p)
{
  struct mem_chunk *c = b->chunk;
  size_t off = (size_t)((const char *)p - (const char *)b->base);
  uint32_t slot, len;

  if (off & (c->slot_size - 1))
    return -EINVAL; /* interior pointer */
  slot = (uint32_t)(off >> c->slot_shift);
  if (slot >= c->nslots)
    return -EINVAL;
  len = atomic_load_explicit(&c->slot_len[slot], memory_order_acquire);
  if (!len)
    return -EINVAL; /* not allocated: a double free */
  /* The length is cleared first: once the bit is set the allocator may hand the slot out again
   * and store its new length, which this store must not land after. The release OR orders it
   * before the allocator's acquire exchange that takes the bit. */
  atomic_store_explicit(&c->slot_len[slot], 0, memory_order_seq_cst);
  /* After the length is cleared, sequentially consistent: an export racing with this free either
   * sees the length gone or its mark is seen here (mem_suballoc_mark_exported). */
  if (atomic_load_explicit(&c->slot_exported[slot], memory_order_seq_cst)) {
    int q = slot_quarantine(c, slot, p);
    if (q <= 0)
      return q;
  }
  uint64_t bit = 1ull << (slot & 63);
  if (atomic_fetch_or_explicit(&c->freed[slot >> 6], bit, memory_order_release) & bit)
    return -EINVAL; /* a racing free of the same slot set it first */
  atomic_store_explicit(&c->pool->recent, (uintptr_t)p, memory_order_relaxed);
  return 0;
}

/* Release empty chunks of every pool of gpu. */
size_t mem_suballoc_trim(struct kfd_gpu *gpu)
{
  struct mem_gpu_pools *pools = gpu ? __atomic_load_n((struct mem_gpu_pools **)&gpu->mem_state,
                                                      __ATOMIC_ACQUIRE) : NULL;
  size_t released = 0;

  if (!pools)
    return 0;
  for (int k = 0; k < N_SUBKINDS; k++)
    for (int co = 0; co < 2; co++)
      for (int s = 0; s < N_CLASSES; s++) {
        struct mem_pool *pool = &pools->pools[k][co][s];
        pthread_mutex_lock(&pool->lock);
        struct mem_chunk **link = &pool->chunks;
        while (*link) {
          struct mem_chunk *c = *link;
          if (!chunk_empty(c)) {
            link = &c->next;
            continue;
          }
          *link = c->next;
          mem_table_remove(c->block);
          atomic_store_explicit(&c->block->live, false, memory_order_release);
          released += c->block->alloc_size;
          mem_block_release(c->block);
          /* The slot arrays may still be read by a racing lookup that found the block before
           * it was removed, and `freed` written by a racing double free; they are leaked
           * rather than freed (trim is rare). */
          free(c->free_stack);
          c->free_stack = NULL;
        }
        pool->hint = NULL;
        pthread_mutex_unlock(&pool->lock);
      }
  return released;
}
