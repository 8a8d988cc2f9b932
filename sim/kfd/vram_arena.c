/* The VRAM arena: VRAM buffer objects carved out of one sparse file per GPU.
 *
 * A BO with a memfd of its own costs memfd_create, ftruncate and an mmap for the driver's view
 * at ALLOC (about 4 us here), and munmap and close at FREE. Instead, each GPU of the process
 * gets one memfd of SIM_ARENA_VRAM_FACTOR x its VRAM, made at its first VRAM ALLOC and mapped
 * once by the driver (shared, MAP_NORESERVE: untouched VRAM costs nothing; MADV_DONTFORK: a
 * fork child starts its own KFD process and has no business with the parent's VRAM; where it
 * cannot be made, under a tight address-space limit say, every BO has its own file). A BO is
 * a range of that file: ALLOC is a first-fit search of the free ranges, the driver's view is
 * view + offset, and the render-node mmap maps the arena at the BO's offset (memory.c). FREE
 * gives the range back, coalesced with its neighbours. VRAM accounting is memory.c's, as before;
 * a BO the arena cannot hold gets a file of its own, as before.
 *
 * Zeroed pages: a fresh BO reads as zero, so a freed range gives its pages back. A BO never
 * mapped anywhere (GPU page table, render node, driver pointer) cannot have been written and
 * needs nothing. Otherwise lseek(SEEK_DATA) from the range's start tells whether the range holds
 * a page (about 150-300 ns for an untouched 256 MiB range; punching an empty range costs
 * 500-800 ns because it walks every mapping), and only then is [first page, end) punched.
 * Unlike a kernel BO, whose CPU mappings keep its pages alive after FREE, a CPU mapping left
 * behind by the caller (or inherited by a fork child without MADV_DONTFORK) reads zeros after
 * FREE and then the next BO given the range: runtimes unmap or re-reserve before reusing.
 *
 * Export: a dma-buf must be its BO. Our runtime and libhsakmt mmap a dma-buf at offsets from
 * the buffer's start and learn its size from lseek(SEEK_END) or fstat (dma_buf_mmap,
 * dma_buf_llseek); those calls reach the kernel directly, so an fd of the arena (whatever its
 * file position or name says) would map the wrong pages. So the first EXPORT_DMABUF of an arena
 * BO detaches it: a memfd of exactly its size receives a copy of its populated extents, and
 * every mapping of its range in this process (the driver's view and the caller's render-node
 * mappings, found in /proc/self/smaps by the arena's inode) is replaced, at the same address,
 * protection and fork/dump advice, by a mapping of the new file. The driver's pointers and the
 * GPU page tables stay valid; from then on the BO is an ordinary memfd BO. The old range is
 * punched and never handed out again (a mapping created while we looked, by mremap say, could
 * still see it).
 * The GPU is paused around the copy (EXPORT_DMABUF stops every queue between runs of packets,
 * sim/cp/cp_gate.c, as the kernel evicts a process's queues while it moves a BO). Limits: a
 * write by another host thread during the copy can be lost (the kernel would zap the CPU page
 * tables; a user-space driver cannot), and so can a GPU write by a kernel that runs past the
 * pause's timeout. Exports happen at IPC and virtual-memory handle creation, on buffers that
 * are idle in practice.
 *
 * Fork: the child forgets the parent's arenas (sim_arena_reset) and makes its own on its first
 * VRAM ALLOC. Process teardown closes them. All state is protected by sim_drv.lock.
 */
#define _GNU_SOURCE
#include "kfd/uapi.h"   /* first: keeps the raw UAPI linux/types.h out */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "kfd/kfd_priv.h"
#include "kfd/vram_arena.h"

#define ARENA_BIG_ALIGN (2ull << 20)   /* BOs of 2 MiB or more start on a 2 MiB boundary */

struct arena_range {
  uint64_t start, end;
};

struct arena {
  int fd;                     /* -1 until the first VRAM ALLOC of the GPU */
  bool broken;                /* could not be made (address space limits): never retried */
  uint8_t *view;
  uint64_t size;
  dev_t dev;                  /* the file's identity in /proc/self/maps */
  ino_t ino;
  struct arena_range *free;   /* free ranges, sorted by start, never adjacent */
  size_t n_free, cap_free;
};

static struct arena arenas[SIM_MAX_GPUS];
static bool arenas_ready;

static void arenas_init(void)
{
  if (arenas_ready)
    return;
  for (unsigned i = 0; i < SIM_MAX_GPUS; i++)
    arenas[i] = (struct arena){ .fd = -1 };
  arenas_ready = true;
}

static int arena_create(struct sim_gpu *gpu, struct arena *a)
{
  char name[64];
  struct stat st;
  uint64_t size = SIM_ALIGN(gpu->vram_size * SIM_ARENA_VRAM_FACTOR, ARENA_BIG_ALIGN);
  struct arena_range *fr = malloc(16 * sizeof(*fr));
  if (!fr)
    return -ENOMEM;
  snprintf(name, sizeof(name), "kfdsim-vram-arena:%u", gpu->gpu_id);
  int fd = memfd_create(name, MFD_CLOEXEC);
  if (fd < 0) {
    free(fr);
    return -errno;
  }
  void *p = MAP_FAILED;
  if (!ftruncate(fd, (off_t)size) && !fstat(fd, &st))
    p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, 0);
  if (p == MAP_FAILED) {
    close(fd);
    free(fr);
    return -ENOMEM;
  }
  madvise(p, size, MADV_DONTFORK);
  fr[0] = (struct arena_range){ 0, size };
  *a = (struct arena){ .fd = fd, .view = p, .size = size, .dev = st.st_dev, .ino = st.st_ino,
                       .free = fr, .n_free = 1, .cap_free = 16 };
  return 0;
}

/* ---- free ranges -------------------------------------------------------------------------- */

static void range_remove(struct arena *a, size_t i)
{
  memmove(&a->free[i], &a->free[i + 1], (a->n_free - i - 1) * sizeof(a->free[0]));
  a->n_free--;
}

static int range_insert_at(struct arena *a, size_t i, uint64_t start, uint64_t end)
{
  if (a->n_free == a->cap_free) {
    struct arena_range *r = realloc(a->free, 2 * a->cap_free * sizeof(*r));
    if (!r)
      return -ENOMEM;
    a->free = r;
    a->cap_free *= 2;
  }
  memmove(&a->free[i + 1], &a->free[i], (a->n_free - i) * sizeof(a->free[0]));
  a->free[i] = (struct arena_range){ start, end };
  a->n_free++;
  return 0;
}

/* First fit: the lowest range that holds `size` bytes at the BO's alignment. */
static int range_take(struct arena *a, uint64_t size, uint64_t *off)
{
  uint64_t align = size >= ARENA_BIG_ALIGN ? ARENA_BIG_ALIGN : SIM_PAGE_SIZE;
  for (size_t i = 0; i < a->n_free; i++) {
    struct arena_range r = a->free[i];
    uint64_t at = SIM_ALIGN(r.start, align);
    if (at >= r.end || r.end - at < size)
      continue;
    /* what is left before and after the BO stays free */
    if (at > r.start && at + size < r.end) {
      if (range_insert_at(a, i + 1, at + size, r.end))
        return -ENOMEM;
      a->free[i].end = at;
    } else if (at > r.start) {
      a->free[i].end = at;
    } else if (at + size < r.end) {
      a->free[i].start = at + size;
    } else {
      range_remove(a, i);
    }
    *off = at;
    return 0;
  }
  return -ENOSPC;
}

/* [start, end) is free again, merged with the free ranges it touches. */
static void range_give(struct arena *a, uint64_t start, uint64_t end)
{
  size_t lo = 0, hi = a->n_free;
  while (lo < hi) {   /* i: the first free range after start */
    size_t mid = (lo + hi) / 2;
    if (a->free[mid].start < start)
      lo = mid + 1;
    else
      hi = mid;
  }
  size_t i = lo;
  bool join_prev = i > 0 && a->free[i - 1].end == start;
  bool join_next = i < a->n_free && a->free[i].start == end;
  if (join_prev && join_next) {
    a->free[i - 1].end = a->free[i].end;
    range_remove(a, i);
  } else if (join_prev) {
    a->free[i - 1].end = end;
  } else if (join_next) {
    a->free[i].start = start;
  } else if (range_insert_at(a, i, start, end)) {
    /* no memory for the list: the range is lost to the arena (never a wrong answer) */
  }
}

/* ---- allocation ----------------------------------------------------------------------------- */

int sim_arena_alloc(struct sim_gpu *gpu, uint64_t size, uint64_t *off, int *fd, uint8_t **host)
{
  arenas_init();
  struct arena *a = &arenas[gpu->index];
  if (a->fd < 0 && !a->broken && arena_create(gpu, a))
    a->broken = true;
  if (a->fd < 0)
    return -ENOSPC;
  int r = range_take(a, size, off);
  if (r)
    return r;
  *fd = a->fd;
  *host = a->view + *off;
  return 0;
}

/* Pages of [off, off + size) go back to the system, so that the range reads as zero again. */
static void arena_scrub(struct arena *a, uint64_t off, uint64_t size)
{
  off_t first = lseek(a->fd, (off_t)off, SEEK_DATA);
  if (first < 0 && errno == ENXIO)
    return;      /* no page at or after off */
  if (first < 0)
    first = (off_t)off;   /* cannot tell: punch it all */
  if ((uint64_t)first >= off + size)
    return;      /* the first page is another BO's */
  fallocate(a->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, first,
            (off_t)(off + size - (uint64_t)first));
}

void sim_arena_free(struct sim_gpu *gpu, uint64_t off, uint64_t size, bool touched)
{
  struct arena *a = &arenas[gpu->index];
  if (touched)
    arena_scrub(a, off, size);
  range_give(a, off, off + size);
}

/* ---- export: detaching a BO into a file of its own ---------------------------------------- */

/* Copy the populated extents of the arena's [off, off + size) to fd at offset 0. */
static int copy_extents(const struct arena *a, uint64_t off, uint64_t size, int fd)
{
  uint64_t pos = off, end = off + size;
  while (pos < end) {
    off_t d = lseek(a->fd, (off_t)pos, SEEK_DATA);
    if (d < 0)
      return errno == ENXIO ? 0 : -errno;
    if ((uint64_t)d >= end)
      return 0;
    off_t h = lseek(a->fd, d, SEEK_HOLE);
    uint64_t stop = h < 0 || (uint64_t)h > end ? end : (uint64_t)h;
    for (uint64_t at = (uint64_t)d; at < stop;) {
      ssize_t n = pwrite(fd, a->view + at, stop - at, (off_t)(at - off));
      if (n <= 0)
        return n < 0 ? -errno : -EIO;
      at += (uint64_t)n;
    }
    pos = stop;
  }
  return 0;
}

struct arena_vma {
  uintptr_t addr;             /* where the part of the range starts in memory */
  uint64_t len, file_off;     /* its length, and its offset in the arena file */
  int prot;
  bool dontfork, dontdump;    /* the advice the mapping carried (VmFlags dc, dd) */
};

/* The VmFlags line of /proc/self/smaps: the advice a replacement mapping must carry again. */
static void vma_advice(struct arena_vma *v, const char *line)
{
  v->dontfork = strstr(line, " dc") != NULL;
  v->dontdump = strstr(line, " dd") != NULL;
}

/* The shared mappings of the arena file that overlap [off, off + size), clipped to it, with
 * their protection and advice (/proc/self/smaps: a header line, then fields, then VmFlags). */
static int find_mappings(const struct arena *a, uint64_t off, uint64_t size, struct arena_vma **out,
                         size_t *n_out)
{
  FILE *f = fopen("/proc/self/smaps", "re");
  if (!f)
    return -errno;
  struct arena_vma *v = NULL;
  size_t n = 0, cap = 0;
  char *line = NULL;
  size_t line_cap = 0;
  int r = 0;
  bool pending = false;       /* v[n - 1] waits for its VmFlags line */
  while (!r && getline(&line, &line_cap, f) > 0) {
    unsigned long start, end, foff, ino;
    unsigned maj, min;
    char perms[8];
    if (pending && !strncmp(line, "VmFlags:", 8)) {
      vma_advice(&v[n - 1], line + 8);
      pending = false;
      continue;
    }
    if (sscanf(line, "%lx-%lx %7s %lx %x:%x %lu", &start, &end, perms, &foff, &maj, &min,
               &ino) != 7)
      continue;
    pending = false;
    if (ino != a->ino || makedev(maj, min) != a->dev || perms[3] != 's')
      continue;
    uint64_t lo = foff > off ? foff : off;
    uint64_t hi = foff + (end - start) < off + size ? foff + (end - start) : off + size;
    if (lo >= hi)
      continue;
    if (n == cap) {
      struct arena_vma *nv = realloc(v, (cap ? cap * 2 : 8) * sizeof(*nv));
      if (!nv) {
        r = -ENOMEM;
        break;
      }
      v = nv;
      cap = cap ? cap * 2 : 8;
    }
    v[n++] = (struct arena_vma){
      .addr = start + (lo - foff), .len = hi - lo, .file_off = lo,
      .prot = (perms[0] == 'r' ? PROT_READ : 0) | (perms[1] == 'w' ? PROT_WRITE : 0) |
              (perms[2] == 'x' ? PROT_EXEC : 0) };
    pending = true;
  }
  free(line);
  fclose(f);
  if (r) {
    free(v);
    return r;
  }
  *out = v;
  *n_out = n;
  return 0;
}

/* Point the listed mappings at `fd` (file offsets relative to `base`) at the same addresses,
 * with the same protection and advice. */
static int remap_all(const struct arena_vma *v, size_t n, int fd, uint64_t base)
{
  for (size_t i = 0; i < n; i++) {
    void *p = mmap((void *)v[i].addr, v[i].len, v[i].prot, MAP_SHARED | MAP_FIXED | MAP_NORESERVE,
                   fd, (off_t)(v[i].file_off - base));
    if (p == MAP_FAILED)
      return -errno;
    if (v[i].dontfork)
      madvise(p, v[i].len, MADV_DONTFORK);
    if (v[i].dontdump)
      madvise(p, v[i].len, MADV_DONTDUMP);
  }
  return 0;
}

int sim_arena_detach(struct sim_gpu *gpu, uint64_t off, uint64_t size, const char *name,
                     int *fd_out)
{
  struct arena *a = &arenas[gpu->index];
  struct arena_vma *v = NULL;
  size_t n = 0;
  int fd = memfd_create(name, MFD_CLOEXEC);
  if (fd < 0)
    return -errno;
  int r = ftruncate(fd, (off_t)size) ? -errno : 0;
  if (!r)
    r = find_mappings(a, off, size, &v, &n);
  if (!r)
    r = copy_extents(a, off, size, fd);
  if (!r && (r = remap_all(v, n, fd, off)))
    remap_all(v, n, a->fd, 0);   /* undo: every mapping back on the arena */
  free(v);
  if (r) {
    close(fd);
    return r;
  }
  /* the old pages have no mapping left: give them back; the range itself is never reused */
  fallocate(a->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)off, (off_t)size);
  *fd_out = fd;
  return 0;
}

void sim_arena_detached_free(struct sim_gpu *gpu, uint64_t off, uint64_t size)
{
  struct arena *a = &arenas[gpu->index];
  if (mmap(a->view + off, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED | MAP_NORESERVE,
           a->fd, (off_t)off) != MAP_FAILED)
    madvise(a->view + off, size, MADV_DONTFORK);
}

/* ---- process lifetime ------------------------------------------------------------------------ */

void sim_arena_drain(void)
{
  arenas_init();
  for (unsigned i = 0; i < SIM_MAX_GPUS; i++) {
    struct arena *a = &arenas[i];
    if (a->fd < 0)
      continue;
    munmap(a->view, a->size);
    close(a->fd);
    free(a->free);
    *a = (struct arena){ .fd = -1 };
  }
}

void sim_arena_reset(void)
{
  arenas_ready = false;   /* the parent's files, views and lists: abandoned, not freed */
  arenas_init();
}
