/* src/memory/va.c: reserving GPU virtual address ranges.
 *
 * The GPUVM aperture of a gfx9 dGPU covers the user half of the CPU address space
 * (GET_PROCESS_APERTURES_NEW), so a range reserved in the CPU address space with a PROT_NONE
 * mapping is free in the GPU VM too: that is what lets GPU VA == CPU VA.
 *
 * Ranges are carved from large PROT_NONE regions reserved ahead of use (libhsakmt fmm.c reserves
 * its SVM apertures the same way), so an allocation costs no mmap of its own: a region is one
 * system call for many allocations. Free ranges are kept per region, sorted and coalesced, and
 * handed out first fit in whole 2 MiB granules (the address table's unit). A range goes back
 * PROT_NONE when released (something may have been mapped over it), unless its owner says
 * nothing ever was (mem_va_release_unmapped). If no region can be reserved (an address-space
 * limit, a tool that refuses large mappings), a range is reserved on its own as before. */
#define _GNU_SOURCE
#include "mem_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define REGION_SIZE (16ull << 30) /* a region is address space only: PROT_NONE, NORESERVE */
#define MAP_RESERVE (MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE)

struct va_extent {
  uintptr_t start;
  size_t size;
};

struct va_region {
  uintptr_t start;
  size_t size;
  struct va_extent *free; /* sorted by start, never adjacent (coalesced) */
  size_t nfree, cap;
  struct va_region *next;
};

static pthread_mutex_t heap_lock = PTHREAD_MUTEX_INITIALIZER;
static struct va_region *regions; /* (heap_lock) */

static bool in_aperture(const struct kfd_gpu *gpu, uintptr_t start, size_t size)
{
  return !gpu || (start >= gpu->gpuvm_base && start + size - 1 <= gpu->gpuvm_limit);
}

static uintptr_t align_up(uintptr_t v, size_t align)
{
  return (v + align - 1) & ~(uintptr_t)(align - 1);
}

/* Reserve [in] size bytes aligned to [in] align with their own mapping; [out] out. */
static int reserve_alone(struct kfd_gpu *gpu, size_t size, size_t align, void **out)
{
  size_t span = size + align;
  uintptr_t raw, start;
  void *p;

  if (span < size)
    return -EINVAL;
  p = mmap(NULL, span, PROT_NONE, MAP_RESERVE, -1, 0);
  if (p != MAP_FAILED && !in_aperture(gpu, (uintptr_t)p, span)) {
    /* The kernel picked an address the GPU VM cannot reach: ask again near the middle of the
     * aperture (a hint, not MAP_FIXED, so nothing of ours is ever replaced). */
    munmap(p, span);
    void *hint = (void *)(uintptr_t)(gpu->gpuvm_base + (gpu->gpuvm_limit - gpu->gpuvm_base) / 2);
    p = mmap(hint, span, PROT_NONE, MAP_RESERVE, -1, 0);
  }
  if (p == MAP_FAILED)
    return -ENOMEM;
  raw = (uintptr_t)p;
  start = align_up(raw, align);
  /* Trim the unaligned head and the tail so the reservation is exactly [start, start+size). */
  if (start > raw)
    munmap(p, start - raw);
  if (raw + span > start + size)
    munmap((void *)(start + size), raw + span - (start + size));
  if (!in_aperture(gpu, start, size)) {
    munmap((void *)start, size);
    return -ENOMEM;
  }
  madvise((void *)start, size, MADV_DONTFORK);
  *out = (void *)start;
  return 0;
}

/* A new region of at least [in] size bytes (heap_lock held). NULL if none can be reserved. */
static struct va_region *region_new(struct kfd_gpu *gpu, size_t size)
{
  struct va_region *r = calloc(1, sizeof(*r));
  void *p;

  if (!r)
    return NULL;
  r->size = size > REGION_SIZE ? align_up(size, MEM_GRANULE) : REGION_SIZE;
  r->cap = 16;
  r->free = malloc(r->cap * sizeof(*r->free));
  if (!r->free || reserve_alone(gpu, r->size, MEM_GRANULE, &p)) {
    free(r->free);
    free(r);
    return NULL;
  }
  r->start = (uintptr_t)p;
  r->free[0] = (struct va_extent){r->start, r->size};
  r->nfree = 1;
  r->next = regions;
  regions = r;
  return r;
}

/* Carve [in] size aligned to [in] align from r, first fit; 0 if nothing fits (heap_lock held). */
static uintptr_t region_carve(struct va_region *r, size_t size, size_t align)
{
  for (size_t i = 0; i < r->nfree; i++) {
    struct va_extent e = r->free[i];
    uintptr_t a = align_up(e.start, align);
    if (a < e.start || a - e.start > e.size || e.size - (a - e.start) < size)
      continue;
    uintptr_t tail = a + size, end = e.start + e.size;
    if (a > e.start && tail < end) { /* splits in two: needs one more slot */
      if (r->nfree == r->cap) {
        struct va_extent *n = realloc(r->free, 2 * r->cap * sizeof(*n));
        if (!n)
          return 0;
        r->free = n;
        r->cap *= 2;
      }
      memmove(&r->free[i + 2], &r->free[i + 1], (r->nfree - i - 1) * sizeof(*r->free));
      r->free[i] = (struct va_extent){e.start, a - e.start};
      r->free[i + 1] = (struct va_extent){tail, end - tail};
      r->nfree++;
    } else if (a > e.start) {
      r->free[i].size = a - e.start;
    } else if (tail < end) {
      r->free[i] = (struct va_extent){tail, end - tail};
    } else {
      memmove(&r->free[i], &r->free[i + 1], (r->nfree - i - 1) * sizeof(*r->free));
      r->nfree--;
    }
    return a;
  }
  return 0;
}

/* Give [start, start+size) back to r, merging with its neighbours (heap_lock held). */
static int region_return(struct va_region *r, uintptr_t start, size_t size)
{
  size_t i = 0;

  while (i < r->nfree && r->free[i].start < start)
    i++;
  bool join_prev = i > 0 && r->free[i - 1].start + r->free[i - 1].size == start;
  bool join_next = i < r->nfree && start + size == r->free[i].start;
  if (join_prev && join_next) {
    r->free[i - 1].size += size + r->free[i].size;
    memmove(&r->free[i], &r->free[i + 1], (r->nfree - i - 1) * sizeof(*r->free));
    r->nfree--;
  } else if (join_prev) {
    r->free[i - 1].size += size;
  } else if (join_next) {
    r->free[i].start = start;
    r->free[i].size += size;
  } else {
    if (r->nfree == r->cap) {
      struct va_extent *n = realloc(r->free, 2 * r->cap * sizeof(*n));
      if (!n)
        return -ENOMEM;
      r->free = n;
      r->cap *= 2;
    }
    memmove(&r->free[i + 1], &r->free[i], (r->nfree - i) * sizeof(*r->free));
    r->free[i] = (struct va_extent){start, size};
    r->nfree++;
  }
  return 0;
}

static struct va_region *region_of(uintptr_t p)
{
  for (struct va_region *r = regions; r; r = r->next)
    if (p >= r->start && p - r->start < r->size)
      return r;
  return NULL;
}

int mem_va_reserve(struct kfd_gpu *gpu, size_t size, size_t align, void **out)
{
  uintptr_t a = 0;

  if (!size || (align & (align - 1)) || align < MEM_PAGE)
    return -EINVAL;
  size_t want = align_up(size, MEM_GRANULE);
  if (want < size)
    return -EINVAL;
  if (align < MEM_GRANULE)
    align = MEM_GRANULE;
  pthread_mutex_lock(&heap_lock);
  for (struct va_region *r = regions; r && !a; r = r->next)
    if (in_aperture(gpu, r->start, r->size))
      a = region_carve(r, want, align);
  if (!a) {
    struct va_region *r = region_new(gpu, want + align);
    if (r)
      a = region_carve(r, want, align);
  }
  pthread_mutex_unlock(&heap_lock);
  if (!a)
    return reserve_alone(gpu, size, align, out);
  *out = (void *)a;
  return 0;
}

static void release(void *p, size_t size, bool remap)
{
  uintptr_t start = (uintptr_t)p;
  size_t want = align_up(size, MEM_GRANULE);

  if (!p || !size)
    return;
  pthread_mutex_lock(&heap_lock);
  struct va_region *r = region_of(start);
  pthread_mutex_unlock(&heap_lock); /* regions are never removed (but by fork, in the child) */
  if (!r) {
    munmap(p, size);
    return;
  }
  /* Back to a plain reservation before anyone else can be given it. */
  if (remap)
    mmap(p, want, PROT_NONE, MAP_RESERVE | MAP_FIXED, -1, 0);
  pthread_mutex_lock(&heap_lock);
  region_return(r, start, want); /* on -ENOMEM the range stays reserved, unused */
  pthread_mutex_unlock(&heap_lock);
}

void mem_va_release(void *p, size_t size)
{
  release(p, size, true);
}

void mem_va_release_unmapped(void *p, size_t size)
{
  release(p, size, false);
}

/* Whether [in] size bytes at [in] p (at least one) touch address space reserved for GPU
 * allocations: there, an address outside every live allocation is a PROT_NONE reservation (a
 * freed block, a gap between blocks), never host memory, and the CPU touching it faults. Ranges
 * reserved on their own (reserve_alone) are not seen. */
bool mem_va_reserved(const void *p, size_t size)
{
  uintptr_t start = (uintptr_t)p;
  uintptr_t last = size ? start + size - 1 : start;
  bool hit = false;
  if (last < start)
    last = UINTPTR_MAX;
  pthread_mutex_lock(&heap_lock);
  for (struct va_region *r = regions; r && !hit; r = r->next)
    hit = start <= r->start + (r->size - 1) && last >= r->start;
  pthread_mutex_unlock(&heap_lock);
  return hit;
}

/* The child of a fork() has none of the regions (MADV_DONTFORK): it starts with an empty heap.
 * Runs in the single-threaded child. The parent's bookkeeping is left allocated. */
void mem_va_atfork_child(void)
{
  pthread_mutex_init(&heap_lock, NULL);
  regions = NULL;
}
