/* src/memory/va.c: reserving GPU virtual address ranges.
 *
 * The GPUVM aperture of a gfx9 dGPU covers the user half of the CPU address space
 * (GET_PROCESS_APERTURES_NEW), so a range reserved in the CPU address space with a PROT_NONE
 * mapping is free in the GPU VM too: that is what lets GPU VA == CPU VA (libhsakmt fmm.c does
 * the same for its SVM apertures). */
#define _GNU_SOURCE
#include "mem_internal.h"

#include <errno.h>
#include <sys/mman.h>

static bool in_aperture(const struct kfd_gpu *gpu, uintptr_t start, size_t size)
{
  return !gpu || (start >= gpu->gpuvm_base && start + size - 1 <= gpu->gpuvm_limit);
}

int mem_va_reserve(struct kfd_gpu *gpu, size_t size, size_t align, void **out)
{
  size_t span = size + align;
  uintptr_t raw, start;
  void *p;

  if (!size || (align & (align - 1)) || align < MEM_PAGE || span < size)
    return -EINVAL;
  p = mmap(NULL, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p != MAP_FAILED && !in_aperture(gpu, (uintptr_t)p, span)) {
    /* The kernel picked an address the GPU VM cannot reach: ask again near the middle of the
     * aperture (a hint, not MAP_FIXED, so nothing of ours is ever replaced). */
    munmap(p, span);
    void *hint = (void *)(uintptr_t)(gpu->gpuvm_base + (gpu->gpuvm_limit - gpu->gpuvm_base) / 2);
    p = mmap(hint, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  }
  if (p == MAP_FAILED)
    return -ENOMEM;
  raw = (uintptr_t)p;
  start = (raw + align - 1) & ~(uintptr_t)(align - 1);
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

void mem_va_release(void *p, size_t size)
{
  if (p && size)
    munmap(p, size);
}
