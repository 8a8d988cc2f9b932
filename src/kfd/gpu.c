/* src/kfd/gpu.c: per-GPU state (render node, ACQUIRE_VM, apertures), the doorbell page and the
 * device-file mappings. */
#define _GNU_SOURCE
#include "kfd.h"
#include "kfd_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define MAX_GPUS 64

/* Per-GPU state by slot in the unfiltered GPU list. Published with a release store once fully
 * built; created under gpus_lock. A forked child forgets the parent's (kfd_gpu_forget_all). */
static _Atomic(struct kfd_gpu *) gpu_states[MAX_GPUS];
static pthread_mutex_t gpus_lock = PTHREAD_MUTEX_INITIALIZER;

void kfd_gpu_forget_all(void)
{
  /* The parent's render fds are closed in the child; the structs are leaked on purpose: other
   * layers may still hold pointers, and every use fails cleanly (-EBADF from kfd_ioctl). */
  for (int i = 0; i < MAX_GPUS; i++) {
    struct kfd_gpu *g = atomic_exchange(&gpu_states[i], NULL);
    if (g && g->render_fd >= 0) {
      close(g->render_fd);
      g->render_fd = -1;
    }
  }
  pthread_mutex_init(&gpus_lock, NULL);
}

static int acquire_vm(struct kfd_gpu *g)
{
  struct kfd_ioctl_acquire_vm_args args = {.drm_fd = (uint32_t)g->render_fd, .gpu_id = g->gpu_id};
  return kfd_ioctl(AMDKFD_IOC_ACQUIRE_VM, &args);
}

static int read_apertures(struct kfd_gpu *g)
{
  uint32_t n = (uint32_t)kfd_topology_all_gpu_count();
  struct kfd_process_device_apertures *ap;
  struct kfd_ioctl_get_process_apertures_new_args args = {0};
  int err;

  if (n == 0)
    return -ENODEV;
  ap = calloc(n, sizeof(*ap));
  if (!ap)
    return -ENOMEM;
  args.kfd_process_device_apertures_ptr = (uint64_t)(uintptr_t)ap;
  args.num_of_nodes = n;
  err = kfd_ioctl(AMDKFD_IOC_GET_PROCESS_APERTURES_NEW, &args);
  if (!err) {
    err = -ENODEV;
    for (uint32_t i = 0; i < args.num_of_nodes && i < n; i++) {
      if (ap[i].gpu_id != g->gpu_id)
        continue;
      g->lds_base = ap[i].lds_base;
      g->lds_limit = ap[i].lds_limit;
      g->scratch_base = ap[i].scratch_base;
      g->scratch_limit = ap[i].scratch_limit;
      g->gpuvm_base = ap[i].gpuvm_base;
      g->gpuvm_limit = ap[i].gpuvm_limit;
      err = g->gpuvm_limit > g->gpuvm_base ? 0 : -ENODEV;
      break;
    }
  }
  free(ap);
  return err;
}

static int gpu_build(const struct kfd_node *n, struct kfd_gpu **out)
{
  char path[64];
  struct kfd_gpu *g = calloc(1, sizeof(*g));
  int err;

  if (!g)
    return -ENOMEM;
  g->node = n;
  g->gpu_id = n->gpu_id;
  g->pid = getpid();
  /* gfx9 GPU timestamps (s_memrealtime, CP/SDMA timestamps) count a constant 100 MHz clock
   * (AMDGPUUsage.rst, "s_memrealtime"). */
  g->gpu_clock_hz = 100000000ull;
  pthread_mutex_init(&g->lock, NULL);
  snprintf(path, sizeof(path), "/dev/dri/renderD%u", n->drm_render_minor);
  g->render_fd = open(path, O_RDWR | O_CLOEXEC);
  if (g->render_fd < 0) {
    err = -errno;
    goto fail_free;
  }
  err = acquire_vm(g);
  if (err)
    goto fail_close;
  err = read_apertures(g);
  if (err)
    goto fail_close;
  *out = g;
  return 0;

fail_close:
  close(g->render_fd);
fail_free:
  pthread_mutex_destroy(&g->lock);
  free(g);
  return err;
}

int kfd_gpu_open(const struct kfd_node *n, struct kfd_gpu **out)
{
  struct kfd_gpu *g;
  int slot, err;

  if (!out)
    return -EINVAL;
  *out = NULL;
  slot = n ? kfd_topology_gpu_slot(n) : -1;
  if (slot < 0 || slot >= MAX_GPUS)
    return -ENODEV;
  g = atomic_load_explicit(&gpu_states[slot], memory_order_acquire);
  if (g) {
    *out = g;
    return 0;
  }
  err = kfd_open();
  if (err)
    return err;
  pthread_mutex_lock(&gpus_lock);
  g = atomic_load_explicit(&gpu_states[slot], memory_order_relaxed);
  if (!g) {
    err = gpu_build(n, &g);
    if (!err)
      atomic_store_explicit(&gpu_states[slot], g, memory_order_release);
  }
  pthread_mutex_unlock(&gpus_lock);
  *out = err ? NULL : g;
  return err;
}

struct kfd_gpu *kfd_gpu_state(const struct kfd_node *n)
{
  int slot = n ? kfd_topology_gpu_slot(n) : -1;
  if (slot < 0 || slot >= MAX_GPUS)
    return NULL;
  return atomic_load_explicit(&gpu_states[slot], memory_order_acquire);
}

int kfd_gpu_doorbell(struct kfd_gpu *gpu, uint64_t doorbell_offset, volatile uint64_t **out)
{
  size_t page;
  uint64_t base, in_page;
  int err = 0;

  if (!gpu || !out)
    return -EINVAL;
  /* 1024 doorbells per process and GPU (libhsakmt queues.c DOORBELLS_PAGE_SIZE). From SOC15
   * (gfx9) on, the offset KFD returns carries the queue's byte offset inside that page in its
   * low bits; the rest is the mmap offset of the page (kfd_chardev.c create_queue). */
  page = 1024u * gpu->node->doorbell_size;
  base = doorbell_offset & ~(uint64_t)(page - 1);
  in_page = doorbell_offset & (page - 1);
  pthread_mutex_lock(&gpu->lock);
  if (!gpu->doorbell_page) {
    void *p;
    err = kfd_mmap_kfd(page, base, &p);
    if (!err) {
      gpu->doorbell_page = p;
      gpu->doorbell_mmap_offset = base;
      gpu->doorbell_page_size = page;
    }
  } else if (gpu->doorbell_mmap_offset != base) {
    err = -EINVAL; /* one doorbell page per process and GPU */
  }
  pthread_mutex_unlock(&gpu->lock);
  if (err)
    return err;
  *out = (volatile uint64_t *)((char *)gpu->doorbell_page + in_page);
  return 0;
}

int kfd_mmap_render(struct kfd_gpu *gpu, void *addr, size_t size, uint64_t mmap_offset,
                    bool writable)
{
  int prot = PROT_READ | (writable ? PROT_WRITE : 0);
  void *p;

  if (!gpu || gpu->render_fd < 0 || !size)
    return -EINVAL;
  p = mmap(addr, size, prot, MAP_SHARED | MAP_FIXED, gpu->render_fd, (off_t)mmap_offset);
  if (p == MAP_FAILED)
    return -errno;
  /* A child must not inherit device mappings of a VM that is not its own (libhsakmt fmm.c
   * does the same). */
  madvise(p, size, MADV_DONTFORK);
  return 0;
}

int kfd_mmap_kfd(size_t size, uint64_t offset, void **out)
{
  int fd = kfd_fd();
  void *p;

  if (fd < 0)
    return fd;
  p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)offset);
  if (p == MAP_FAILED)
    return -errno;
  madvise(p, size, MADV_DONTFORK);
  *out = p;
  return 0;
}
