/* GPU memory as the command processors reach it: every access goes through the GPU's page table
 * (sim_gpuvm_translate), because GPU VA is not always CPU VA. sim_gpuvm_translate only answers
 * for ranges inside one mapping, so long accesses are tried in large pieces first and retried
 * page by page when a piece straddles two mappings; a page that still does not translate is a
 * GPU page fault at that page. */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cp_internal.h"

#define CP_PAGE 4096ull
#define CP_CHUNK (2ull << 20) /* first try: up to 2 MiB, stopping at 2 MiB boundaries */

static uint64_t min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }

/* Bytes from va to the next `align` boundary (align is a power of two). */
static uint64_t to_boundary(uint64_t va, uint64_t align) { return align - (va & (align - 1)); }

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14 */
#endif
#define CP_PREFAULT_MIN (256ull << 10)

/* Before a large write into GPU memory: VRAM and GTT objects are memfd pages that the kernel
 * allocates and zeroes on first touch, one page fault per 4 KiB. When the piece's first page
 * is not resident yet (a fresh allocation), have the kernel populate the whole piece in one
 * call instead (measured here: 256 MiB first touch 0.20 s -> 0.14 s of CPU). Resident memory
 * costs one mincore() per piece. Failures are ignored: the copy faults the pages in anyway. */
static void prefault_for_write(void *dst, uint64_t n)
{
  if (n < CP_PREFAULT_MIN)
    return;
  uintptr_t page = (uintptr_t)CP_PAGE;
  uintptr_t start = ((uintptr_t)dst + page - 1) & ~(page - 1);
  uintptr_t end = ((uintptr_t)dst + n) & ~(page - 1);
  if (end <= start)
    return;
  unsigned char resident = 0;
  if (mincore((void *)start, page, &resident) == 0 && (resident & 1))
    return;
  madvise((void *)start, end - start, MADV_POPULATE_WRITE);
}

/* Host pointer for [va, va + *len), shrinking *len to a page-bounded piece when the long piece
 * does not translate. NULL when even one page does not: a fault at va's page. */
static void *translate_piece(struct sim_gpu *gpu, uint64_t va, uint64_t *len, bool write)
{
  void *p = sim_gpuvm_translate(gpu, va, *len, write);
  if (p)
    return p;
  uint64_t small = min_u64(*len, to_boundary(va, CP_PAGE));
  if (small == *len)
    return NULL;
  *len = small;
  return sim_gpuvm_translate(gpu, va, small, write);
}

int cp_mem_read(struct sim_gpu *gpu, uint64_t va, void *dst, uint64_t len, uint64_t *fault_va)
{
  uint8_t *out = dst;
  while (len) {
    uint64_t n = min_u64(len, to_boundary(va, CP_CHUNK));
    const void *src = translate_piece(gpu, va, &n, false);
    if (!src) {
      *fault_va = va;
      return -EFAULT;
    }
    memcpy(out, src, n);
    out += n;
    va += n;
    len -= n;
  }
  return 0;
}

int cp_mem_write(struct sim_gpu *gpu, uint64_t va, const void *src, uint64_t len,
                 uint64_t *fault_va)
{
  const uint8_t *in = src;
  while (len) {
    uint64_t n = min_u64(len, to_boundary(va, CP_CHUNK));
    void *dst = translate_piece(gpu, va, &n, true);
    if (!dst) {
      *fault_va = va;
      return -EFAULT;
    }
    prefault_for_write(dst, n);
    memcpy(dst, in, n);
    in += n;
    va += n;
    len -= n;
  }
  return 0;
}

int cp_mem_copy(struct sim_gpu *gpu, uint64_t dst_va, uint64_t src_va, uint64_t len,
                uint64_t *fault_va, bool *fault_write)
{
  while (len) {
    /* A piece ends where either side may cross into another mapping. */
    uint64_t n = min_u64(len, min_u64(to_boundary(src_va, CP_CHUNK), to_boundary(dst_va, CP_CHUNK)));
    uint64_t ns = n, nd = n;
    const void *src = translate_piece(gpu, src_va, &ns, false);
    if (!src) {
      *fault_va = src_va;
      *fault_write = false;
      return -EFAULT;
    }
    void *dst = translate_piece(gpu, dst_va, &nd, true);
    if (!dst) {
      *fault_va = dst_va;
      *fault_write = true;
      return -EFAULT;
    }
    n = min_u64(ns, nd);
    prefault_for_write(dst, n);
    /* memmove: source and destination may be the same memory object seen twice. */
    memmove(dst, src, n);
    src_va += n;
    dst_va += n;
    len -= n;
  }
  return 0;
}

/* Write n bytes of a period-`elem` pattern starting at phase `phase`: seed one period, then
 * double the filled prefix (a whole number of periods) until it covers n. */
static void fill_pattern(uint8_t *dst, uint64_t n, const uint8_t bytes[8], unsigned elem,
                         unsigned phase)
{
  uint64_t seeded = min_u64(n, elem);
  for (uint64_t i = 0; i < seeded; i++)
    dst[i] = bytes[(phase + i) % elem];
  while (seeded < n) {
    uint64_t step = min_u64(seeded, n - seeded);
    memcpy(dst + seeded, dst, step);
    seeded += step;
  }
}

int cp_mem_fill(struct sim_gpu *gpu, uint64_t dst_va, uint64_t pattern, unsigned elem,
                uint64_t len, uint64_t *fault_va)
{
  uint8_t bytes[8];
  for (unsigned i = 0; i < 8; i++)
    bytes[i] = (uint8_t)(pattern >> (8 * (i % elem)));
  uint64_t done = 0;
  while (done < len) {
    uint64_t va = dst_va + done;
    uint64_t n = min_u64(len - done, to_boundary(va, CP_CHUNK));
    uint8_t *dst = translate_piece(gpu, va, &n, true);
    if (!dst) {
      *fault_va = va;
      return -EFAULT;
    }
    prefault_for_write(dst, n);
    if (elem == 1)
      memset(dst, bytes[0], n);
    else
      fill_pattern(dst, n, bytes, elem, done % elem);
    done += n;
  }
  return 0;
}

volatile uint32_t *cp_mem_u32(struct sim_gpu *gpu, uint64_t va, bool write)
{
  if (va & 3)
    return NULL;
  return sim_gpuvm_translate(gpu, va, 4, write);
}

volatile uint64_t *cp_mem_u64(struct sim_gpu *gpu, uint64_t va, bool write)
{
  if (va & 7)
    return NULL;
  return sim_gpuvm_translate(gpu, va, 8, write);
}
