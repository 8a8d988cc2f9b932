/* The VRAM arena: one sparse file per GPU from which VRAM buffer objects are carved, so that
 * ALLOC_MEMORY_OF_GPU and FREE_MEMORY_OF_GPU of VRAM make no system call (see vram_arena.c).
 * Every function expects sim_drv.lock held. */
#ifndef KFDSIM_VRAM_ARENA_H
#define KFDSIM_VRAM_ARENA_H

#include <stdbool.h>
#include <stdint.h>

struct sim_gpu;

/* The arena is this many times the GPU's VRAM: room for alignment and for the ranges exported
 * BOs leave behind (never reused). */
#define SIM_ARENA_VRAM_FACTOR 2

/* A range of `size` bytes (page aligned) of gpu's arena, created on first use: its offset in
 * the arena file `*fd`, and the driver's view of it `*host`. Its pages read as zero.
 * -ENOSPC when the arena has no such range (the caller falls back to a file of its own). */
int sim_arena_alloc(struct sim_gpu *gpu, uint64_t size, uint64_t *off, int *fd, uint8_t **host);

/* The BO at [off, off + size) is gone: its range is free again. `touched`: it was mapped
 * somewhere and may hold written pages, which go back to the system first. */
void sim_arena_free(struct sim_gpu *gpu, uint64_t off, uint64_t size, bool touched);

/* Export: the BO at [off, off + size) moves out of the arena into a memfd of its own named
 * `name` and exactly `size` bytes long (a dma-buf is its BO: mmap offsets and size). Its bytes
 * are copied and every mapping of the range, the driver's view included, is remapped onto the
 * new file at the same address. The range is never reused. The new file in *fd_out. */
int sim_arena_detach(struct sim_gpu *gpu, uint64_t off, uint64_t size, const char *name,
                     int *fd_out);

/* A detached BO is freed: the driver's view of its old range maps the arena again (the file of
 * its own lives on while an importer holds it). */
void sim_arena_detached_free(struct sim_gpu *gpu, uint64_t off, uint64_t size);

/* Process teardown (every BO already freed): the arenas are unmapped and closed. */
void sim_arena_drain(void);

/* Fork child: the arenas are the parent's; forget them without touching them. */
void sim_arena_reset(void);

#endif
