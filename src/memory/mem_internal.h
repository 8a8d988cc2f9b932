/* src/memory: structures shared by the files of this layer only. */
#ifndef HIPKFD_MEM_INTERNAL_H
#define HIPKFD_MEM_INTERNAL_H

#include "mem.h"
#include "kfd/kfd.h"

#include <pthread.h>
#include <stdatomic.h>

#define MEM_PAGE 4096ull
#define MEM_GRANULE_SHIFT 21 /* 2 MiB: the unit of VA reservations and of the address table */
#define MEM_GRANULE (1ull << MEM_GRANULE_SHIFT)
#define MEM_MAX_MAPPED 16

struct mem_chunk;

/* One kernel allocation (ALLOC_MEMORY_OF_GPU) or one registered/managed range. Blocks are
 * type-stable: never returned to malloc, only recycled, so a lock-free reader of the address
 * table that races with a free reads stale but valid memory and rechecks `live`. */
struct mem_block {
  _Atomic bool live;          /* release-stored true once every field below is set */
  uint64_t handle;            /* KFD handle (0 for managed ranges) */
  void *base;                 /* CPU address of the first byte handed out */
  uint64_t gpu_va;            /* GPU VA of base */
  size_t size;                /* bytes requested by the user (the whole chunk for chunks) */
  size_t alloc_size;          /* bytes allocated from the kernel (page multiple) */
  void *reservation;          /* start of the PROT_NONE VA reservation (NULL if none) */
  size_t reservation_size;
  enum mem_kind kind;
  unsigned flags;
  unsigned user_flags;        /* the API's own flags, kept for it (mem_set_user_flags) */
  uint32_t nest;              /* registrations of exactly this range beyond the first */
  struct kfd_gpu *gpu;
  bool host_visible;          /* the CPU may access it (once cpu_pending is cleared) */
  _Atomic bool cpu_pending;   /* host-visible VRAM whose CPU view is not mapped yet */
  bool cpu_mapped;            /* a CPU view was mapped over the reservation at some point */
  uint64_t mmap_offset;       /* render-node offset of the CPU view (for cpu_pending) */
  _Atomic bool shared;        /* reachable beyond its own GPU: mapped to another GPU, or shared
                               * through a dma-buf (mem_ipc_export, mem_ipc_import). Never cached;
                               * set (release) where that starts, so the block cache reads it
                               * without map_lock */
  bool user;                  /* allocated with MEM_FLAG_USER (mem_free_user) */
  uint64_t alloc_id;
  struct mem_chunk *chunk;    /* set when this block backs a sub-allocator chunk */
  pthread_mutex_t map_lock;   /* protects mapped_ids/n_mapped */
  uint32_t mapped_ids[MEM_MAX_MAPPED];
  uint32_t n_mapped;
  struct mem_block *next_free; /* recycling list (block_pool_lock) */
};

/* Sub-allocator chunk: one 2 MiB block cut into equal slots. */
struct mem_chunk {
  struct mem_block *block;
  struct mem_pool *pool;
  uint32_t slot_size, nslots;
  uint32_t slot_shift;         /* log2(slot_size): lookups shift instead of dividing */
  _Atomic uint32_t *slot_len;  /* bytes requested per slot; 0 = free (release/acquire) */
  _Atomic uint64_t *slot_id;   /* alloc id per slot */
  _Atomic uint32_t *slot_uflags; /* user flags per slot (mem_set_user_flags) */
  _Atomic uint8_t *slot_user;  /* 1: the slot holds a MEM_FLAG_USER allocation */
  _Atomic uint8_t *slot_exported; /* SLOT_EXPORTED / SLOT_QUARANTINED (suballoc.c), else 0 */
  uint32_t *free_stack;        /* free slot indices (pool->lock) */
  uint32_t nfree;              /* entries of free_stack (pool->lock) */
  _Atomic uint64_t *freed;     /* bit per slot: freed since the allocator took it back (set
                                * without the lock, taken under it: suballoc.c) */
  uint32_t nwords;             /* words of `freed` */
  uint32_t freed_cursor;       /* word the allocator's last search stopped at (pool->lock) */
  struct mem_chunk *next;      /* pool's chunk list (pool->lock) */
};

struct mem_pool {
  pthread_mutex_t lock;
  struct mem_chunk *chunks;    /* (lock) */
  struct mem_chunk *hint;      /* a chunk with free slots, or NULL (lock) */
  _Atomic uintptr_t recent;    /* the address last freed from the pool (a hint, stored without
                                * the lock): the next allocation reuses it (suballoc.c) */
  uint64_t id_next, id_end;    /* allocation ids reserved for the pool's slots (lock) */
};

/* block.c */
struct mem_block *mem_block_new(void);
void mem_block_recycle(struct mem_block *b);
uint32_t mem_kfd_flags(enum mem_kind kind, unsigned flags);
int mem_block_alloc(struct kfd_gpu *gpu, size_t size, enum mem_kind kind, unsigned flags,
                    struct mem_block **out);
int mem_block_map(struct mem_block *b, struct kfd_gpu *gpu);
int mem_block_release(struct mem_block *b);
/* Map b's CPU view if that was deferred (mem_block_alloc maps plain VRAM lazily). Returns false
 * if the CPU cannot reach it. Cheap when already mapped. */
bool mem_block_cpu_view(struct mem_block *b);
void mem_stat_count_kernel_alloc(void);

/* va.c */
int mem_va_reserve(struct kfd_gpu *gpu, size_t size, size_t align, void **out);
void mem_va_release(void *p, size_t size);           /* the range may have mappings over it */
void mem_va_release_unmapped(void *p, size_t size);  /* nothing was ever mapped over it */
void mem_va_atfork_child(void);

/* table.c: granule table for runtime-owned blocks; range list for registered/managed. */
int mem_table_insert(struct mem_block *b);
void mem_table_remove(struct mem_block *b);

/* The granule table's two levels (table.c), visible for the inline lookup below: every free and
 * lookup starts with it. Hidden: accessed directly, not through the GOT. */
#define MEM_TABLE_LEAF_BITS 13
#define MEM_TABLE_TOP_BITS 14 /* 48-bit user addresses: 48 - 21 = 27 bits of granule index */
typedef _Atomic(struct mem_block *) mem_table_slot;
extern _Atomic(mem_table_slot *) mem_table_top[1u << MEM_TABLE_TOP_BITS]
    __attribute__((visibility("hidden")));

/* The live runtime-owned block whose reservation holds [in] p, or NULL. Two acquire loads to
 * reach it (leaves are published by a release CAS and never freed), one for `live`. */
static inline struct mem_block *mem_table_find_block(const void *p)
{
  uint64_t g = (uint64_t)(uintptr_t)p >> MEM_GRANULE_SHIFT;
  uint64_t t = g >> MEM_TABLE_LEAF_BITS;
  if (t >= (1u << MEM_TABLE_TOP_BITS))
    return NULL;
  mem_table_slot *leaf = atomic_load_explicit(&mem_table_top[t], memory_order_acquire);
  if (!leaf)
    return NULL;
  struct mem_block *b = atomic_load_explicit(&leaf[g & ((1u << MEM_TABLE_LEAF_BITS) - 1)],
                                             memory_order_acquire);
  if (!b || !atomic_load_explicit(&b->live, memory_order_acquire))
    return NULL;
  return b;
}
int mem_ranges_insert(struct mem_block *b);
struct mem_block *mem_ranges_remove(const void *p);
struct mem_block *mem_ranges_find(const void *p, size_t len, bool *overlap);
/* The registered block whose separate GPU VA range (a registration sharing a page with another,
 * register.c) holds [in] p, or NULL. A linear scan: such aliases are rare. */
struct mem_block *mem_ranges_find_alias(const void *p);
uint64_t mem_next_alloc_id(void);
uint64_t mem_next_alloc_ids(uint64_t n); /* the first of n consecutive fresh ids */
/* Call [in] fn once for every block in the granule table (live or not: fn checks). Not safe
 * against concurrent inserts of new leaves' blocks being missed; meant for hipDeviceReset. */
void mem_table_foreach(void (*fn)(struct mem_block *b, void *arg), void *arg);
void mem_table_init_once(void); /* registers the fork handler of the table */

/* suballoc.c */
int mem_suballoc(struct kfd_gpu *gpu, size_t size, enum mem_kind kind, unsigned flags, bool user,
                 void **out);
int mem_suballoc_free(struct mem_block *b, const void *p);
bool mem_suballoc_fits(size_t size, enum mem_kind kind, unsigned flags);
size_t mem_suballoc_trim(struct kfd_gpu *gpu);
/* Mark the slot at [in] base of chunk block [in] b exported (its free then quarantines it), if it
 * still holds allocation [in] alloc_id: 0, else -ENOENT. */
int mem_suballoc_mark_exported(struct mem_block *b, const void *base, uint64_t alloc_id);

/* block_cache.c */
bool mem_block_cache_put(struct mem_block *b);
struct mem_block *mem_block_cache_take(struct kfd_gpu *gpu, size_t size, enum mem_kind kind,
                                       unsigned flags);
size_t mem_block_cache_trim(struct kfd_gpu *gpu);
size_t mem_block_cache_bytes(struct kfd_gpu *gpu);

/* All GPUs whose state is open (for MEM_FLAG_ALL_GPUS). Returns the count. */
int mem_open_gpus(struct kfd_gpu **out, int cap);

#endif
