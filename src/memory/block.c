/* src/memory/block.c: one kernel allocation: reserve VA, ALLOC_MEMORY_OF_GPU at that VA, mmap
 * the render node over it (GPU VA == CPU VA), MAP_MEMORY_TO_GPU; and the reverse. */
#define _GNU_SOURCE
#include "mem_internal.h"
#include "numa_place.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static pthread_mutex_t block_pool_lock = PTHREAD_MUTEX_INITIALIZER;
static struct mem_block *free_blocks; /* (block_pool_lock) */
static _Atomic uint64_t kernel_allocs;

void mem_stat_count_kernel_alloc(void)
{
  atomic_fetch_add_explicit(&kernel_allocs, 1, memory_order_relaxed);
}

uint64_t mem_stat_kernel_allocs(void)
{
  return atomic_load_explicit(&kernel_allocs, memory_order_relaxed);
}

struct mem_block *mem_block_new(void)
{
  struct mem_block *b;

  mem_table_init_once();
  pthread_mutex_lock(&block_pool_lock);
  b = free_blocks;
  if (b)
    free_blocks = b->next_free;
  pthread_mutex_unlock(&block_pool_lock);
  if (!b) {
    b = calloc(1, sizeof(*b));
    if (!b)
      return NULL;
    pthread_mutex_init(&b->map_lock, NULL);
  }
  atomic_store_explicit(&b->live, false, memory_order_relaxed);
  b->handle = 0;
  b->base = b->reservation = NULL;
  b->gpu_va = 0;
  b->size = b->alloc_size = b->reservation_size = 0;
  b->flags = 0;
  b->user_flags = 0;
  b->nest = 0;
  b->gpu = NULL;
  b->host_visible = false;
  atomic_store_explicit(&b->cpu_pending, false, memory_order_relaxed);
  b->mmap_offset = 0;
  atomic_store_explicit(&b->shared, false, memory_order_relaxed);
  b->user = false;
  b->chunk = NULL;
  b->n_mapped = 0;
  b->next_free = NULL;
  return b;
}

/* Blocks are never freed (see mem_internal.h): a concurrent lock-free lookup may still read it. */
void mem_block_recycle(struct mem_block *b)
{
  atomic_store_explicit(&b->live, false, memory_order_release);
  pthread_mutex_lock(&block_pool_lock);
  b->next_free = free_blocks;
  free_blocks = b;
  pthread_mutex_unlock(&block_pool_lock);
}

/* KFD allocation flags per kind, as libhsakmt fmm.c translates HsaMemFlags: fine-grained memory
 * is COHERENT, VRAM the CPU may map is PUBLIC, NO_SUBSTITUTE forbids falling back to GTT. */
uint32_t mem_kfd_flags(enum mem_kind kind, unsigned flags)
{
  uint32_t f = KFD_IOC_ALLOC_MEM_FLAGS_EXECUTABLE;

  if (!(flags & MEM_FLAG_READ_ONLY))
    f |= KFD_IOC_ALLOC_MEM_FLAGS_WRITABLE;
  switch (kind) {
  case MEM_DEVICE_UNCACHED:
    f |= KFD_IOC_ALLOC_MEM_FLAGS_UNCACHED;
    /* fall through */
  case MEM_DEVICE_FINE:
    f |= KFD_IOC_ALLOC_MEM_FLAGS_COHERENT;
    /* fall through */
  case MEM_DEVICE:
    f |= KFD_IOC_ALLOC_MEM_FLAGS_VRAM | KFD_IOC_ALLOC_MEM_FLAGS_PUBLIC |
         KFD_IOC_ALLOC_MEM_FLAGS_NO_SUBSTITUTE;
    break;
  case MEM_HOST_PINNED:
    f |= KFD_IOC_ALLOC_MEM_FLAGS_GTT;
    break;
  case MEM_HOST_REGISTERED:
    f |= KFD_IOC_ALLOC_MEM_FLAGS_USERPTR;
    break;
  default:
    break;
  }
  if (kind == MEM_HOST_PINNED || kind == MEM_HOST_REGISTERED) {
    if (flags & MEM_FLAG_COHERENT)
      f |= KFD_IOC_ALLOC_MEM_FLAGS_COHERENT;
    /* MEM_FLAG_WC has no KFD equivalent (the CPU mapping of GTT is cached; amdgpu's USWC
     * placement is not reachable through KFD), so it is accepted as a hint and ignored. */
    if (flags & MEM_FLAG_UNCACHED)
      f |= KFD_IOC_ALLOC_MEM_FLAGS_UNCACHED;
  } else if (flags & MEM_FLAG_UNCACHED) {
    f |= KFD_IOC_ALLOC_MEM_FLAGS_UNCACHED | KFD_IOC_ALLOC_MEM_FLAGS_COHERENT;
  }
  return f;
}

int mem_open_gpus(struct kfd_gpu **out, int cap)
{
  int n = 0;
  for (int i = 0; i < kfd_gpu_count() && n < cap; i++) {
    struct kfd_gpu *g = kfd_gpu_state(kfd_gpu(i));
    if (g)
      out[n++] = g;
  }
  return n;
}

/* Map b to gpu (idempotent). Takes b->map_lock. */
int mem_block_map(struct mem_block *b, struct kfd_gpu *gpu)
{
  int err = 0;

  pthread_mutex_lock(&b->map_lock);
  for (uint32_t i = 0; i < b->n_mapped; i++)
    if (b->mapped_ids[i] == gpu->gpu_id)
      goto out;
  if (b->n_mapped == MEM_MAX_MAPPED) {
    err = -ENOSPC;
    goto out;
  }
  err = kfd_map_memory(b->handle, &gpu->gpu_id, 1);
  if (!err)
    b->mapped_ids[b->n_mapped++] = gpu->gpu_id;
  if (!err && gpu != b->gpu)
    atomic_store_explicit(&b->shared, true, memory_order_release);
out:
  pthread_mutex_unlock(&b->map_lock);
  return err;
}

static int map_initial(struct mem_block *b, struct kfd_gpu *gpu, unsigned flags)
{
  struct kfd_gpu *gpus[MEM_MAX_MAPPED];
  uint32_t ids[MEM_MAX_MAPPED];
  int n = 0, err;

  if (flags & MEM_FLAG_ALL_GPUS)
    n = mem_open_gpus(gpus, MEM_MAX_MAPPED);
  ids[0] = gpu->gpu_id;
  uint32_t count = 1;
  for (int i = 0; i < n; i++)
    if (gpus[i]->gpu_id != gpu->gpu_id)
      ids[count++] = gpus[i]->gpu_id;
  /* One ioctl for all devices: the kernel maps them in order and reports n_success. */
  err = kfd_map_memory(b->handle, ids, count);
  if (err)
    return err;
  pthread_mutex_lock(&b->map_lock);
  memcpy(b->mapped_ids, ids, count * sizeof(ids[0]));
  b->n_mapped = count;
  if (count > 1)
    atomic_store_explicit(&b->shared, true, memory_order_release);
  pthread_mutex_unlock(&b->map_lock);
  return 0;
}

static bool kind_is_host_visible(enum mem_kind kind)
{
  return kind == MEM_DEVICE || kind == MEM_DEVICE_FINE || kind == MEM_DEVICE_UNCACHED ||
         kind == MEM_HOST_PINNED;
}

/* Plain coarse-grained VRAM gets its CPU view when the runtime first needs it (mem_lookup_host):
 * a mapping is a system call the allocation then does not pay, and the HIP model gives the host
 * no access to hipMalloc memory (CUDA's neither). Fine-grained VRAM (which hosts poll), the
 * runtime's own allocations (MEM_FLAG_NO_SUBALLOC, MEM_FLAG_EXEC: queues, code) and chunks of
 * small allocations (suballoc.c) are mapped at once. */
static bool cpu_view_deferred(enum mem_kind kind, unsigned flags)
{
  return kind == MEM_DEVICE && flags == 0;
}

bool mem_block_cpu_view(struct mem_block *b)
{
  if (!atomic_load_explicit(&b->cpu_pending, memory_order_acquire))
    return b->host_visible;
  pthread_mutex_lock(&b->map_lock);
  if (atomic_load_explicit(&b->cpu_pending, memory_order_relaxed)) {
    b->host_visible = kfd_mmap_render(b->gpu, b->base, b->alloc_size, b->mmap_offset,
                                      !(b->flags & MEM_FLAG_READ_ONLY)) == 0;
    atomic_store_explicit(&b->cpu_pending, false, memory_order_release);
  }
  pthread_mutex_unlock(&b->map_lock);
  return b->host_visible;
}

int mem_block_alloc(struct kfd_gpu *gpu, size_t size, enum mem_kind kind, unsigned flags,
                    struct mem_block **out)
{
  size_t alloc_size = (size + MEM_PAGE - 1) & ~(size_t)(MEM_PAGE - 1);
  size_t reserve = (alloc_size + MEM_GRANULE - 1) & ~(size_t)(MEM_GRANULE - 1);
  uint64_t mmap_offset = 0;
  struct mem_block *b;
  void *va;
  int err;

  if (!gpu || !size || alloc_size < size)
    return -EINVAL;
  b = mem_block_new();
  if (!b)
    return -ENOMEM;
  err = mem_va_reserve(gpu, reserve, MEM_GRANULE, &va);
  if (err)
    goto fail_block;
  err = kfd_alloc_memory(gpu, (uint64_t)(uintptr_t)va, alloc_size, mem_kfd_flags(kind, flags), 0,
                         &b->handle, &mmap_offset);
  if (err)
    goto fail_va;
  mem_stat_count_kernel_alloc();
  /* GPU VA == CPU VA: map the BO's CPU view over the same reserved range (fmm.c
   * fmm_map_to_cpu). VRAM the CPU cannot reach (small BAR) keeps the PROT_NONE reservation. */
  if (kind_is_host_visible(kind) && cpu_view_deferred(kind, flags)) {
    b->host_visible = true;
    b->mmap_offset = mmap_offset;
    atomic_store_explicit(&b->cpu_pending, true, memory_order_relaxed);
  } else if (kind_is_host_visible(kind)) {
    b->host_visible = kfd_mmap_render(gpu, va, alloc_size, mmap_offset,
                                      !(flags & MEM_FLAG_READ_ONLY)) == 0;
  }
  if (kind == MEM_HOST_PINNED && !b->host_visible) {
    err = -ENOMEM;
    goto fail_free;
  }
  /* Before the first touch, so the pages come from the node the policy names. */
  if (kind == MEM_HOST_PINNED)
    mem_numa_place(va, alloc_size, gpu->node, (flags & MEM_FLAG_NUMA_USER) != 0);
  b->base = va;
  b->gpu_va = (uint64_t)(uintptr_t)va;
  b->size = size;
  b->alloc_size = alloc_size;
  b->reservation = va;
  b->reservation_size = reserve;
  b->kind = kind;
  b->flags = flags;
  b->gpu = gpu;
  b->alloc_id = mem_next_alloc_id();
  err = map_initial(b, gpu, flags);
  if (err)
    goto fail_free;
  *out = b;
  return 0;

fail_free:
  kfd_free_memory(b->handle);
fail_va:
  if (atomic_load_explicit(&b->cpu_pending, memory_order_relaxed) || !b->host_visible)
    mem_va_release_unmapped(va, reserve);
  else
    mem_va_release(va, reserve);
fail_block:
  mem_block_recycle(b);
  return err;
}

/* Unmap from every GPU (the kernel refuses to free a BO still mapped: -EBUSY in
 * amdgpu_amdkfd_gpuvm_free_memory_of_gpu), drop the CPU view and the reservation, free. */
int mem_block_release(struct mem_block *b)
{
  int err = 0;

  pthread_mutex_lock(&b->map_lock);
  if (b->n_mapped && b->handle)
    err = kfd_unmap_memory(b->handle, b->mapped_ids, b->n_mapped);
  b->n_mapped = 0;
  /* A deferred CPU view never mapped stays so (mem_block_cpu_view takes map_lock): its range
   * holds only the PROT_NONE reservation. */
  bool never_mapped = atomic_exchange_explicit(&b->cpu_pending, false, memory_order_relaxed);
  pthread_mutex_unlock(&b->map_lock);
  /* The buffer goes before its address range: once the range is unmapped another thread may
   * get it from mmap and allocate a buffer there, which the kernel refuses (-EINVAL: the GPU VA
   * is still taken) while this one exists (libhsakmt fmm.c frees in the same order). */
  if (b->handle) {
    int e = kfd_free_memory(b->handle);
    if (!err)
      err = e;
  }
  if (b->reservation && never_mapped)
    mem_va_release_unmapped(b->reservation, b->reservation_size);
  else if (b->reservation)
    mem_va_release(b->reservation, b->reservation_size);
  mem_block_recycle(b);
  return err;
}
