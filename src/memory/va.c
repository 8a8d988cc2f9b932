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

int mem_va_reserve(struct kfd_gpu *gpu, size_t size, size_t align, void **out)
{
  size_t span = size + align;
  uintptr_t raw, start;
  void *p;

  if (!size || (align & (align - 1)) || align < MEM_PAGE)
    return -EINVAL;
  p = mmap(NULL, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED)
    return -ENOMEM;
  raw = (uintptr_t)p;
  start = (raw + align - 1) & ~(uintptr_t)(align - 1);
  /* Trim the unaligned head and the tail so the reservation is exactly [start, start+size). */
  if (start > raw)
    munmap(p, start - raw);
  if (raw + span > start + size)
    munmap((void *)(start + size), raw + span - (start + size));
  if (gpu && (start < gpu->gpuvm_base || start + size - 1 > gpu->gpuvm_limit)) {
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
