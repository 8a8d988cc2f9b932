/* src/memory/block_cache.c: freed device blocks kept for the next allocation of the same size.
 *
 * A block too large for the sub-allocator costs an allocation ioctl, a CPU mapping and a GPU
 * mapping to create, and as many calls to free. Programs that free and allocate the same large
 * sizes over and over (per-iteration buffers) pay that each time; keeping the last few freed
 * blocks makes the next allocation of the same page size a lookup. Only plain VRAM blocks
 * mapped to their own GPU alone and never shared through a dma-buf are kept (anything else may
 * be visible to another GPU or process), at most CACHE_ENTRIES of them and a sixteenth of the
 * GPU's VRAM.
 * Cached bytes are free memory as far as hipMemGetInfo is concerned (mem_get_info adds them),
 * and an allocation the device cannot satisfy releases them first (mem.c, suballoc.c).
 * A reused block gets a new allocation id; its contents are whatever the last user left, as for
 * any hipMalloc. A cached block still holds its address range, so its granules in the address
 * table stay pointed at it (not live: lookups find nothing) and a reuse does not rewrite them;
 * a block leaving the cache for the kernel clears them (cache_release). */
#include "mem_internal.h"

#define CACHE_ENTRIES 8

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static struct mem_block *cache[CACHE_ENTRIES]; /* oldest first (cache_lock) */
static unsigned ncached;                        /* (cache_lock) */

static size_t gpu_cached(const struct kfd_gpu *gpu)
{
  size_t bytes = 0;
  for (unsigned i = 0; i < ncached; i++)
    if (!gpu || cache[i]->gpu == gpu)
      bytes += cache[i]->alloc_size;
  return bytes;
}

static size_t cache_budget(const struct kfd_gpu *gpu)
{
  uint64_t vram = gpu->node->vram_size ? gpu->node->vram_size : gpu->node->local_mem_size;
  return (size_t)(vram / 16);
}

/* Set when the block was made and never changed but for `shared`, which turns true (release)
 * where the block starts being reachable beyond its own GPU: no map_lock needed. A peer mapping
 * made while the block is being freed (a program freeing memory another thread still maps) may
 * come too late to be seen; the block is then cached mapped to that peer too, which its release
 * undoes (mapped_ids). */
static bool cacheable(const struct mem_block *b)
{
  return b->kind == MEM_DEVICE && b->flags == 0 && !b->chunk && b->handle &&
         !atomic_load_explicit(&b->shared, memory_order_acquire);
}

/* Remove entry [in] i (cache_lock held). */
static struct mem_block *cache_remove(unsigned i)
{
  struct mem_block *b = cache[i];
  for (unsigned j = i + 1; j < ncached; j++)
    cache[j - 1] = cache[j];
  ncached--;
  return b;
}

/* A block evicted from the cache goes back to the kernel, its table entries first: once its
 * range is unmapped another allocation may take those granules. */
static void cache_release(struct mem_block *b)
{
  mem_table_remove(b);
  mem_block_release(b);
}

bool mem_block_cache_put(struct mem_block *b)
{
  struct mem_block *evict[CACHE_ENTRIES];
  unsigned nevict = 0;

  if (!cacheable(b) || b->alloc_size > cache_budget(b->gpu))
    return false;
  pthread_mutex_lock(&cache_lock);
  /* Make room: the oldest blocks go back to the kernel. */
  while (ncached && (ncached == CACHE_ENTRIES ||
                     gpu_cached(b->gpu) + b->alloc_size > cache_budget(b->gpu)))
    evict[nevict++] = cache_remove(0);
  cache[ncached++] = b;
  pthread_mutex_unlock(&cache_lock);
  for (unsigned i = 0; i < nevict; i++)
    cache_release(evict[i]);
  return true;
}

struct mem_block *mem_block_cache_take(struct kfd_gpu *gpu, size_t size, enum mem_kind kind,
                                       unsigned flags)
{
  size_t alloc_size = (size + MEM_PAGE - 1) & ~(size_t)(MEM_PAGE - 1);
  struct mem_block *b = NULL;

  if (kind != MEM_DEVICE || flags != 0)
    return NULL;
  pthread_mutex_lock(&cache_lock);
  /* The newest first: its pages are the likeliest to be warm. */
  for (unsigned i = ncached; i-- > 0;) {
    if (cache[i]->gpu == gpu && cache[i]->alloc_size == alloc_size) {
      b = cache_remove(i);
      break;
    }
  }
  pthread_mutex_unlock(&cache_lock);
  if (b) {
    b->size = size;
    b->alloc_id = mem_next_alloc_id();
  }
  return b;
}

size_t mem_block_cache_trim(struct kfd_gpu *gpu)
{
  struct mem_block *evict[CACHE_ENTRIES];
  unsigned nevict = 0;
  size_t bytes = 0;

  pthread_mutex_lock(&cache_lock);
  for (unsigned i = 0; i < ncached;) {
    if (!gpu || cache[i]->gpu == gpu)
      evict[nevict++] = cache_remove(i);
    else
      i++;
  }
  pthread_mutex_unlock(&cache_lock);
  for (unsigned i = 0; i < nevict; i++) {
    bytes += evict[i]->alloc_size;
    cache_release(evict[i]);
  }
  return bytes;
}

size_t mem_block_cache_bytes(struct kfd_gpu *gpu)
{
  pthread_mutex_lock(&cache_lock);
  size_t bytes = gpu_cached(gpu);
  pthread_mutex_unlock(&cache_lock);
  return bytes;
}
