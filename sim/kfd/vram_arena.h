/* The VRAM arena: backing files of VRAM and GTT buffer objects, recycled between BOs so that
 * ALLOC_MEMORY_OF_GPU and FREE_MEMORY_OF_GPU make no system call once the arena is warm
 * (see vram_arena.c for the design). Every function expects sim_drv.lock held. */
#ifndef KFDSIM_VRAM_ARENA_H
#define KFDSIM_VRAM_ARENA_H

#include <stdbool.h>
#include <stdint.h>

struct sim_gpu;

/* At most this many backing files are kept for reuse per process. */
#define SIM_ARENA_KEEP 32

/* One backing file: a memfd of `cap` bytes (cap >= the BO's size) and the driver's shared
 * mapping of all of it. */
struct sim_backing {
  int fd;
  uint8_t *view;
  uint64_t cap;
};

/* A backing for a BO of `size` bytes in `domain` (KFD_IOC_ALLOC_MEM_FLAGS_VRAM or _GTT) of gpu:
 * a recycled one (no system call) or a new memfd. Its pages read as zero. 0 or -errno. */
int sim_arena_get(struct sim_gpu *gpu, uint32_t domain, uint64_t size, struct sim_backing *out);

/* The BO that used b is gone. A backing that may have been written (`touched`) gives its pages
 * back first; it is then kept for the next BO, or released when the arena is full. */
void sim_arena_put(struct sim_gpu *gpu, uint32_t domain, const struct sim_backing *b, bool touched);

/* The BO is being exported as a dma-buf: its file becomes exactly `size` bytes long (an
 * importer learns the size from it) and must never be recycled (sim_arena_release it later). */
int sim_arena_seal(const struct sim_backing *b, uint64_t size);

/* Unmap and close a backing for good. */
void sim_arena_release(const struct sim_backing *b);

/* Process teardown: every kept backing is released. */
void sim_arena_drain(void);

/* Fork child: the kept backings are the parent's; forget them without touching them. */
void sim_arena_reset(void);

#endif
