/* The VRAM arena: the backing files of VRAM and GTT buffer objects, kept and reused.
 *
 * A BO's memory is a memfd (memory.c): it costs nothing until touched, the driver reads and
 * writes it through its own shared mapping (the "view"), user space maps it through the render
 * node, and the memfd itself is the BO's dma-buf. Making one takes memfd_create, ftruncate and
 * mmap (about 4 us here), and releasing it munmap and close: the whole cost of ALLOC and FREE.
 * So a freed BO's file is not closed but kept, its pages given back, for the next BO of about
 * the same size on the same GPU and domain. Once warm, ALLOC and FREE make no system call; FREE
 * of a BO that was mapped makes one cheap one (below).
 *
 * Why files are recycled whole rather than carved out of one big file per GPU: a dma-buf must
 * behave as one, in this process and in an importer with its own kfdsim. Our runtime and
 * libhsakmt mmap a dma-buf at offsets relative to the buffer's start and learn its size from
 * lseek(SEEK_END) or fstat (src/memory/ipc.c, vmm.c; dma_buf_mmap, dma_buf_llseek). A range of a
 * shared file cannot be handed out as a file of its own, and the pages of one shmem file cannot
 * be moved into another without a copy that races with the GPU and CPU writers. A whole file per
 * BO keeps those semantics for free: exporting only trims the file to the BO's size.
 *
 * Capacity: a new file is made `cap` bytes long, `size` rounded up to a power of two (at least
 * ARENA_MIN_CAP); a kept file serves any later BO with size <= cap <= 2 x that rounding. The
 * spare capacity costs address space only: files are sparse and the view is MAP_NORESERVE.
 *
 * Giving pages back: a kept file must read as zero again (a fresh BO of kfdsim always has, and
 * a kept file must not pin memory). A BO that was never mapped anywhere (GPU page table, render
 * node mmap, queue, event page, export) cannot have been written and needs nothing. Otherwise
 * lseek(SEEK_DATA) asks the file whether it holds any page (about 150-300 ns for an untouched
 * 256 MiB BO here, half or less of what punching an empty range costs), and only then are the
 * pages from the first one on punched out (fallocate PUNCH_HOLE, which also zaps every mapping
 * of them, the driver's view and any user mapping left behind).
 *
 * Exported BOs: their files are trimmed to the BO's size (sim_arena_seal) and never come back
 * to the arena: an importer may keep mapping them after the exporter frees the BO, exactly as a
 * dma-buf keeps its pages alive. memory.c closes them at FREE as before.
 *
 * Bounds: at most ARENA_KEEP files are kept per process (each holds a descriptor and a view);
 * a FREE that finds the arena full releases its file as before. Process teardown drains the
 * arena. After fork the child forgets the parent's kept files (they hold the parent's BOs'
 * former pages, and the parent may reuse them); the views are MADV_DONTFORK, so the child does
 * not even see them. Protected by sim_drv.lock, like every BO.
 */
#define _GNU_SOURCE
#include "kfd/uapi.h"   /* first: keeps the raw UAPI linux/types.h out */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kfd/kfd_priv.h"
#include "kfd/vram_arena.h"

#define ARENA_KEEP SIM_ARENA_KEEP
#define ARENA_MIN_CAP (64ull << 10)

struct arena_slot {
  struct sim_gpu *gpu;
  uint32_t domain;
  struct sim_backing b;
};

/* kept backings, in no order; protected by sim_drv.lock */
static struct arena_slot kept[ARENA_KEEP];
static unsigned n_kept;

static uint64_t arena_cap(uint64_t size)
{
  uint64_t cap = ARENA_MIN_CAP;
  while (cap < size)
    cap <<= 1;
  return cap;
}

/* The smallest kept backing of (gpu, domain) that fits size without wasting more than twice the
 * capacity a new one would get; -1 if none. */
static int arena_find(const struct sim_gpu *gpu, uint32_t domain, uint64_t size)
{
  uint64_t limit = 2 * arena_cap(size);
  int best = -1;
  for (unsigned i = 0; i < n_kept; i++) {
    const struct arena_slot *s = &kept[i];
    if (s->gpu != gpu || s->domain != domain || s->b.cap < size || s->b.cap > limit)
      continue;
    if (best < 0 || s->b.cap < kept[best].b.cap)
      best = (int)i;
  }
  return best;
}

/* A new backing; its name is how dmabuf_identify (memory.c) recognises an exported BO. */
static int arena_create(const struct sim_gpu *gpu, uint32_t domain, uint64_t size,
                        struct sim_backing *out)
{
  char name[64];
  uint64_t cap = arena_cap(size);
  snprintf(name, sizeof(name), "kfdsim-bo:%u:%x", gpu->gpu_id, domain);
  int fd = memfd_create(name, MFD_CLOEXEC);
  if (fd < 0)
    return -errno;
  if (ftruncate(fd, (off_t)cap)) {
    int e = -errno;
    close(fd);
    return e == -EFBIG || e == -EINVAL ? -ENOMEM : e;
  }
  void *p = mmap(NULL, cap, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, 0);
  if (p == MAP_FAILED) {
    close(fd);
    return -ENOMEM;
  }
  /* a fork child has no business with the parent's VRAM (it starts its own KFD process) */
  madvise(p, cap, MADV_DONTFORK);
  *out = (struct sim_backing){ .fd = fd, .view = p, .cap = cap };
  return 0;
}

int sim_arena_get(struct sim_gpu *gpu, uint32_t domain, uint64_t size, struct sim_backing *out)
{
  int i = arena_find(gpu, domain, size);
  if (i < 0)
    return arena_create(gpu, domain, size, out);
  *out = kept[i].b;
  kept[i] = kept[--n_kept];
  return 0;
}

void sim_arena_release(const struct sim_backing *b)
{
  munmap(b->view, b->cap);
  close(b->fd);
}

/* Every page of the file back to the system, so that it reads as zero again. */
static int arena_scrub(const struct sim_backing *b)
{
  off_t first = lseek(b->fd, 0, SEEK_DATA);
  if (first < 0 && errno == ENXIO)
    return 0;   /* no page from offset 0 on: nothing was written */
  if (first < 0)
    first = 0;  /* cannot tell: punch it all */
  if ((uint64_t)first >= b->cap)
    return 0;
  return fallocate(b->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, first,
                   (off_t)(b->cap - (uint64_t)first)) ? -errno : 0;
}

void sim_arena_put(struct sim_gpu *gpu, uint32_t domain, const struct sim_backing *b, bool touched)
{
  if (n_kept == ARENA_KEEP || (touched && arena_scrub(b))) {
    sim_arena_release(b);
    return;
  }
  kept[n_kept++] = (struct arena_slot){ .gpu = gpu, .domain = domain, .b = *b };
}

int sim_arena_seal(const struct sim_backing *b, uint64_t size)
{
  return ftruncate(b->fd, (off_t)size) ? -errno : 0;
}

void sim_arena_drain(void)
{
  while (n_kept)
    sim_arena_release(&kept[--n_kept].b);
}

void sim_arena_reset(void)
{
  n_kept = 0;
}
