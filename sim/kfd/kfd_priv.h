/* kfdsim's emulated amdkfd: state shared by the driver's files (not seen outside sim/kfd).
 *
 * Locking: `sim_drv.lock` (a mutex) serialises every ioctl and mmap, as p->mutex does in
 * amdkfd. Each GPU's page table has its own rwlock because command processor threads translate
 * addresses while ioctls run. Events have their own mutex and condition variable because
 * WAIT_EVENTS sleeps (kfd_events.c: p->event_mutex plus per-event wait queues).
 */
#ifndef KFDSIM_KFD_PRIV_H
#define KFDSIM_KFD_PRIV_H

#include "kfd/uapi.h"
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "kfd/driver.h"
#include "profiles/profiles.h"
#include "sim.h"

#define SIM_MAX_GPUS 8
#define SIM_PAGE_SIZE 4096ull
#define SIM_RENDER_MINOR_BASE 128
#define SIM_DRM_MAJOR 226
#define SIM_KFD_MAJOR 234                 /* amdkfd's major is dynamic; one plausible value */
#define SIM_DOORBELL_SLICE 8192u          /* 1024 doorbells x 8 bytes per process (SOC15) */
#define SIM_SIGNAL_EVENT_LIMIT 4096u      /* KFD_SIGNAL_EVENT_LIMIT */
#define SIM_ALIGN(x, a) (((x) + (a) - 1) & ~((uint64_t)(a) - 1))

/* kfd_priv.h mmap offset encoding on /dev/kfd */
#define SIM_MMAP_TYPE_SHIFT 62
#define SIM_MMAP_TYPE_MASK (0x3ull << SIM_MMAP_TYPE_SHIFT)
#define SIM_MMAP_TYPE_DOORBELL (0x3ull << SIM_MMAP_TYPE_SHIFT)
#define SIM_MMAP_TYPE_EVENTS (0x2ull << SIM_MMAP_TYPE_SHIFT)
#define SIM_MMAP_TYPE_RESERVED_MEM (0x1ull << SIM_MMAP_TYPE_SHIFT)
#define SIM_MMAP_TYPE_MMIO (0x0ull << SIM_MMAP_TYPE_SHIFT)
#define SIM_MMAP_GPU_ID_SHIFT 46
#define SIM_MMAP_GPU_ID_MASK (0xffffull << SIM_MMAP_GPU_ID_SHIFT)
#define SIM_MMAP_GPU_ID(id) ((((uint64_t)(id)) << SIM_MMAP_GPU_ID_SHIFT) & SIM_MMAP_GPU_ID_MASK)
#define SIM_MMAP_GET_GPU_ID(off) (((off) & SIM_MMAP_GPU_ID_MASK) >> SIM_MMAP_GPU_ID_SHIFT)

/* Buffer handles: MAKE_HANDLE(gpu_id, idr_handle) in kfd_priv.h */
#define SIM_HANDLE(gpu_id, idr) (((uint64_t)(gpu_id) << 32) | (idr))
#define SIM_HANDLE_GPU(h) ((uint32_t)((h) >> 32))
#define SIM_HANDLE_IDR(h) ((uint32_t)((h) & 0xffffffffu))

struct sim_bo;

/* One GPU VA -> host range of a GPU page table. */
struct sim_vm_map {
  uint64_t start, end;        /* [start, end) GPU VA */
  uint8_t *host;              /* host address of `start` */
  bool writable;
  bool sys_uc;                /* system memory mapped uncached (sim_gpuvm_sys_uncached) */
  const void *owner;          /* the BO or SVM range that put it there */
};

struct sim_gpuvm {
  pthread_rwlock_t lock;      /* protects maps/n/cap */
  struct sim_vm_map *maps;    /* sorted by start, non-overlapping */
  size_t n, cap;
  _Atomic uint64_t generation; /* bumped whenever a map goes: the translation caches' flush
                                * (memory.c sim_gpuvm_translate) */
};

struct sim_gpu {
  uint32_t index;             /* 0-based; sysfs node index + 1 */
  uint32_t gpu_id;
  uint32_t render_minor;
  uint32_t location_id;
  uint64_t unique_id;
  uint64_t vram_size;
  const struct sim_profile *prof;
  /* queue sizes the kernel derives from the node properties (kfd_queue_ctx_save_restore_size) */
  uint32_t ctl_stack_size, cwsr_size, debug_memory_size, eop_buffer_size;
  /* per-process state (one process per address space): protected by sim_drv.lock */
  uint64_t vram_used;         /* this process's VRAM (sim_vram_used: the node's) */
  uint64_t gtt_used;          /* this process's GTT BOs allocated through KFD */
  bool vm_acquired;
  struct sim_file *drm_file;  /* the render file ACQUIRE_VM bound (not refcounted) */
  uint64_t scratch_va, tba, tma;
  int doorbell_fd;
  uint8_t *doorbells;         /* the process doorbell slice (SIM_DOORBELL_SLICE bytes) */
  int mmio_fd;
  uint8_t *mmio;              /* the MMIO remap page */
  struct sim_gpuvm vm;
};

struct sim_file {
  enum sim_file_kind kind;
  uint32_t minor;             /* render nodes */
  struct sim_gpu *gpu;        /* render nodes */
  pid_t owner;                /* /dev/kfd: the process that opened it */
  atomic_int refs;
};

struct sim_driver {
  pthread_mutex_t lock;
  bool ready;
  pid_t pid;                  /* process that built this state (fork detection) */
  const struct sim_profile *prof;
  uint32_t n_gpus;
  struct sim_gpu gpus[SIM_MAX_GPUS];
  char sysfs_root[256];
  pid_t sysfs_owner;
  bool log;
  /* the KFD process (created on first /dev/kfd open in this process) */
  bool process_open;
  uint32_t kfd_files;         /* open /dev/kfd files of this process */
  bool xnack;
  bool runtime_enabled;
  uint64_t next_mmap_offset;  /* render-node offsets handed out for BOs */
};

extern struct sim_driver sim_drv;

/* device.c */
struct sim_gpu *sim_gpu_by_id(uint32_t gpu_id);
struct sim_gpu *sim_gpu_by_minor(uint32_t minor);
int sim_process_attach(void);   /* creates the KFD process state for this process */
/* VRAM of `g` charged to this process (ALLOC of VRAM): -ENOMEM when the GPU has less free, on
 * the whole node when processes share one (node.h). Called with sim_drv.lock held. */
int sim_vram_charge(struct sim_gpu *g, uint64_t size);
void sim_vram_uncharge(struct sim_gpu *g, uint64_t size);
/* VRAM of `g` in use: this process's, or the node's. */
uint64_t sim_vram_used(struct sim_gpu *g);
/* getpid(), remembered (glibc no longer caches it, and every ioctl, mmap and user copy asks);
 * a fork child forgets the parent's. */
pid_t sim_self_pid(void);

/* sysfs.c */
int sim_sysfs_build(void);
void sim_sysfs_remove(void);
uint32_t sim_host_cpu_mhz(void);

/* gpuvm (memory.c) */
int sim_vm_insert(struct sim_gpu *gpu, uint64_t start, uint64_t len, uint8_t *host, bool writable,
                  const void *owner);
/* sim_vm_insert for a map whose PTEs carry MTYPE UC on system memory (sys_uc). */
int sim_vm_insert_uc(struct sim_gpu *gpu, uint64_t start, uint64_t len, uint8_t *host,
                     bool writable, bool sys_uc, const void *owner);
void sim_vm_remove_owner(struct sim_gpu *gpu, const void *owner);
bool sim_vm_lookup(struct sim_gpu *gpu, uint64_t va, struct sim_vm_map *out);
void sim_vm_reset(struct sim_gpu *gpu);

/* memory.c: buffer objects */
struct sim_bo *sim_bo_lookup(uint64_t handle);
struct sim_bo *sim_queue_buffer_get(struct sim_gpu *gpu, uint64_t va, uint64_t size);
void sim_queue_buffer_put(struct sim_bo *bo);
bool sim_svm_covers(struct sim_gpu *gpu, uint64_t va, uint64_t size);
void *sim_bo_host(struct sim_bo *bo, uint64_t *size);
void *sim_render_mmap(struct sim_file *f, void *addr, size_t len, int prot, int flags,
                      uint64_t offset, int *err);
void sim_memory_reset(void);
void sim_memory_release(void);
void sim_events_release(void);
void sim_svm_release(void);
void sim_queues_release(void);
void sim_process_release(void);
int sim_gpu_doorbells(struct sim_gpu *g);

/* events.c */
int sim_events_set_page(void *page, uint64_t size);
void *sim_events_mmap(void *addr, size_t len, int prot, int flags, int *err);
void sim_events_reset(void);
bool sim_svm_overlaps(uint64_t start, uint64_t size);
void sim_svm_reset(void);
void sim_queues_reset(void);
uint32_t sim_queue_count(void);

/* ioctl handlers: (arg) -> 0 or -errno; arg is the kernel-side copy */
typedef int (*sim_ioctl_fn)(void *arg);
int sim_ioctl_get_version(void *arg);
int sim_ioctl_create_queue(void *arg);
int sim_ioctl_destroy_queue(void *arg);
int sim_ioctl_set_memory_policy(void *arg);
int sim_ioctl_get_clock_counters(void *arg);
int sim_ioctl_get_process_apertures(void *arg);
int sim_ioctl_update_queue(void *arg);
int sim_ioctl_create_event(void *arg);
int sim_ioctl_destroy_event(void *arg);
int sim_ioctl_set_event(void *arg);
int sim_ioctl_reset_event(void *arg);
int sim_ioctl_wait_events(void *arg);
int sim_ioctl_set_scratch_backing_va(void *arg);
int sim_ioctl_get_tile_config(void *arg);
int sim_ioctl_set_trap_handler(void *arg);
int sim_ioctl_get_process_apertures_new(void *arg);
int sim_ioctl_acquire_vm(void *arg);
int sim_ioctl_alloc_memory_of_gpu(void *arg);
int sim_ioctl_free_memory_of_gpu(void *arg);
int sim_ioctl_map_memory_to_gpu(void *arg);
int sim_ioctl_unmap_memory_from_gpu(void *arg);
int sim_ioctl_set_cu_mask(void *arg);
int sim_ioctl_get_queue_wave_state(void *arg);
int sim_ioctl_get_dmabuf_info(void *arg);
int sim_ioctl_import_dmabuf(void *arg);
int sim_ioctl_alloc_queue_gws(void *arg);
int sim_ioctl_svm(void *arg);
int sim_ioctl_set_xnack_mode(void *arg);
int sim_ioctl_available_memory(void *arg);
int sim_ioctl_export_dmabuf(void *arg);
int sim_ioctl_runtime_enable(void *arg);

/* memory.c: GEM objects of render files (DRM PRIME import, GEM_CLOSE, AMDGPU_GEM_VA) */
int sim_gem_prime_import(struct sim_file *f, struct drm_prime_handle *a);
int sim_gem_close(struct sim_file *f, const struct drm_gem_close *a);
int sim_gem_va(struct sim_file *f, struct drm_amdgpu_gem_va *a);
/* The last reference of render file f went (drm_gem_release): its handles and their mappings go.
 * Called with sim_drv.lock held. */
void sim_gem_file_release(struct sim_file *f);

/* drm.c: render node ioctls */
int sim_drm_ioctl(struct sim_file *f, unsigned long cmd, void *arg);

/* uaccess.c: -EFAULT instead of a crash for bad user pointers */
int sim_copy_from_user(void *dst, uint64_t src, size_t n);
int sim_copy_to_user(uint64_t dst, const void *src, size_t n);

/* log helpers */
#define SIM_DBG(...) do { if (sim_drv.log) sim_log(__VA_ARGS__); } while (0)

#endif
