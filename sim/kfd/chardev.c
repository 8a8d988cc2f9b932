/* /dev/kfd: the ioctl table by number and the dispatcher, file lifetime, mmap of doorbells,
 * MMIO and the events page, and the small ioctls (version, apertures, policies, clocks).
 *
 * The dispatcher mirrors kfd_chardev.c kfd_ioctl(): the command number indexes the table;
 * direction and the kernel's struct size come from the table, never from the caller; the
 * caller's size (_IOC_SIZE) is what is copied in and out (min/max handling identical: a
 * shorter struct is zero-extended, e.g. libhsakmt 5.2.3's 88-byte CREATE_QUEUE); numbers past
 * the table return -EINVAL, as kfd_chardev.c of the 6.12 series whose interface (1.17) we
 * report does (retcode starts at -EINVAL; later kernels answer -ENOTTY instead);
 * a file used by another process returns -EBADF.
 */
#define _GNU_SOURCE
#include "kfd/uapi.h"   /* first: keeps the raw UAPI linux/types.h out */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "kfd/kfd_priv.h"

struct sim_ioctl_desc {
  unsigned int cmd;     /* the kernel's definition (direction and size) */
  sim_ioctl_fn fn;
  const char *name;
};

#define IOCTL_DEF(ioc, f) [_IOC_NR(ioc)] = { .cmd = ioc, .fn = f, .name = #ioc }

/* amdkfd_ioctls[] of KFD 1.17. Entries without a function exist in the kernel but are not
 * emulated (deprecated debugger calls, SMI events, CRIU, DBG_TRAP): they return -EINVAL as the
 * kernel's "no function" path does, or -ENOSYS where kfdsim simply lacks the feature. */
static const struct sim_ioctl_desc ioctls[] = {
  IOCTL_DEF(AMDKFD_IOC_GET_VERSION, sim_ioctl_get_version),
  IOCTL_DEF(AMDKFD_IOC_CREATE_QUEUE, sim_ioctl_create_queue),
  IOCTL_DEF(AMDKFD_IOC_DESTROY_QUEUE, sim_ioctl_destroy_queue),
  IOCTL_DEF(AMDKFD_IOC_SET_MEMORY_POLICY, sim_ioctl_set_memory_policy),
  IOCTL_DEF(AMDKFD_IOC_GET_CLOCK_COUNTERS, sim_ioctl_get_clock_counters),
  IOCTL_DEF(AMDKFD_IOC_GET_PROCESS_APERTURES, sim_ioctl_get_process_apertures),
  IOCTL_DEF(AMDKFD_IOC_UPDATE_QUEUE, sim_ioctl_update_queue),
  IOCTL_DEF(AMDKFD_IOC_CREATE_EVENT, sim_ioctl_create_event),
  IOCTL_DEF(AMDKFD_IOC_DESTROY_EVENT, sim_ioctl_destroy_event),
  IOCTL_DEF(AMDKFD_IOC_SET_EVENT, sim_ioctl_set_event),
  IOCTL_DEF(AMDKFD_IOC_RESET_EVENT, sim_ioctl_reset_event),
  IOCTL_DEF(AMDKFD_IOC_WAIT_EVENTS, sim_ioctl_wait_events),
  IOCTL_DEF(AMDKFD_IOC_DBG_REGISTER_DEPRECATED, NULL),
  IOCTL_DEF(AMDKFD_IOC_DBG_UNREGISTER_DEPRECATED, NULL),
  IOCTL_DEF(AMDKFD_IOC_DBG_ADDRESS_WATCH_DEPRECATED, NULL),
  IOCTL_DEF(AMDKFD_IOC_DBG_WAVE_CONTROL_DEPRECATED, NULL),
  IOCTL_DEF(AMDKFD_IOC_SET_SCRATCH_BACKING_VA, sim_ioctl_set_scratch_backing_va),
  IOCTL_DEF(AMDKFD_IOC_GET_TILE_CONFIG, sim_ioctl_get_tile_config),
  IOCTL_DEF(AMDKFD_IOC_SET_TRAP_HANDLER, sim_ioctl_set_trap_handler),
  IOCTL_DEF(AMDKFD_IOC_GET_PROCESS_APERTURES_NEW, sim_ioctl_get_process_apertures_new),
  IOCTL_DEF(AMDKFD_IOC_ACQUIRE_VM, sim_ioctl_acquire_vm),
  IOCTL_DEF(AMDKFD_IOC_ALLOC_MEMORY_OF_GPU, sim_ioctl_alloc_memory_of_gpu),
  IOCTL_DEF(AMDKFD_IOC_FREE_MEMORY_OF_GPU, sim_ioctl_free_memory_of_gpu),
  IOCTL_DEF(AMDKFD_IOC_MAP_MEMORY_TO_GPU, sim_ioctl_map_memory_to_gpu),
  IOCTL_DEF(AMDKFD_IOC_UNMAP_MEMORY_FROM_GPU, sim_ioctl_unmap_memory_from_gpu),
  IOCTL_DEF(AMDKFD_IOC_SET_CU_MASK, sim_ioctl_set_cu_mask),
  IOCTL_DEF(AMDKFD_IOC_GET_QUEUE_WAVE_STATE, sim_ioctl_get_queue_wave_state),
  IOCTL_DEF(AMDKFD_IOC_GET_DMABUF_INFO, sim_ioctl_get_dmabuf_info),
  IOCTL_DEF(AMDKFD_IOC_IMPORT_DMABUF, sim_ioctl_import_dmabuf),
  IOCTL_DEF(AMDKFD_IOC_ALLOC_QUEUE_GWS, sim_ioctl_alloc_queue_gws),
  IOCTL_DEF(AMDKFD_IOC_SMI_EVENTS, NULL),
  IOCTL_DEF(AMDKFD_IOC_SVM, sim_ioctl_svm),
  IOCTL_DEF(AMDKFD_IOC_SET_XNACK_MODE, sim_ioctl_set_xnack_mode),
  IOCTL_DEF(AMDKFD_IOC_CRIU_OP, NULL),
  IOCTL_DEF(AMDKFD_IOC_AVAILABLE_MEMORY, sim_ioctl_available_memory),
  IOCTL_DEF(AMDKFD_IOC_EXPORT_DMABUF, sim_ioctl_export_dmabuf),
  IOCTL_DEF(AMDKFD_IOC_RUNTIME_ENABLE, sim_ioctl_runtime_enable),
  IOCTL_DEF(AMDKFD_IOC_DBG_TRAP, NULL),
};

#define N_IOCTLS (sizeof(ioctls) / sizeof(ioctls[0]))
_Static_assert(N_IOCTLS == AMDKFD_COMMAND_END, "ioctl table must cover KFD 1.17");

/* ---- files -------------------------------------------------------------------------------- */

struct sim_file *sim_file_open(enum sim_file_kind kind, uint32_t minor, int *err)
{
  int r = sim_driver_init();
  if (r) {
    *err = -ENODEV;
    return NULL;
  }
  struct sim_gpu *gpu = NULL;
  if (kind == SIM_FILE_RENDER && !(gpu = sim_gpu_by_minor(minor))) {
    *err = -ENODEV;
    return NULL;
  }
  struct sim_file *f = calloc(1, sizeof(*f));
  if (!f) {
    *err = -ENOMEM;
    return NULL;
  }
  f->kind = kind;
  f->minor = minor;
  f->gpu = gpu;
  f->owner = sim_self_pid();
  atomic_init(&f->refs, 1);
  if (kind == SIM_FILE_KFD) {
    pthread_mutex_lock(&sim_drv.lock);
    r = sim_process_attach();
    if (!r)
      sim_drv.kfd_files++;
    pthread_mutex_unlock(&sim_drv.lock);
    if (r) {
      free(f);
      *err = r;
      return NULL;
    }
  }
  if (kind == SIM_FILE_KFD)
    SIM_DBG("open /dev/kfd");
  else
    SIM_DBG("open /dev/dri/renderD%u", minor);
  return f;
}

void sim_file_get(struct sim_file *f)
{
  atomic_fetch_add(&f->refs, 1);
}

void sim_file_put(struct sim_file *f)
{
  if (atomic_fetch_sub(&f->refs, 1) != 1)
    return;
  /* amdkfd keeps the process until its mm goes away; closing the last kfd file of the owner
   * does not tear down buffers the process still maps. A render file bound by ACQUIRE_VM is
   * forgotten so that a later ACQUIRE_VM with another file may bind. */
  pthread_mutex_lock(&sim_drv.lock);
  if (f->kind == SIM_FILE_RENDER)
    sim_gem_file_release(f);
  for (uint32_t i = 0; i < sim_drv.n_gpus; i++)
    if (sim_drv.gpus[i].drm_file == f)
      sim_drv.gpus[i].drm_file = NULL;
  if (f->kind == SIM_FILE_KFD && f->owner == sim_self_pid() && sim_drv.pid == sim_self_pid() &&
      sim_drv.kfd_files && --sim_drv.kfd_files == 0)
    sim_process_release();
  pthread_mutex_unlock(&sim_drv.lock);
  free(f);
}

enum sim_file_kind sim_file_kind(const struct sim_file *f)
{
  return f->kind;
}

int sim_file_fstat(const struct sim_file *f, struct stat *st)
{
  char path[40];
  if (f->kind == SIM_FILE_KFD)
    snprintf(path, sizeof(path), "/dev/kfd");
  else
    snprintf(path, sizeof(path), "/dev/dri/renderD%u", f->minor);
  return sim_dev_stat(path, st) == 1 ? 0 : -ENODEV;
}

/* ---- ioctl dispatch -------------------------------------------------------------------------- */

static int kfd_ioctl(struct sim_file *f, unsigned long ucmd, void *arg)
{
  unsigned int nr = _IOC_NR(ucmd);
  const struct sim_ioctl_desc *d = nr < N_IOCTLS ? &ioctls[nr] : NULL;
  if (!d || !d->cmd) {
    /* e.g. ROCm 5.x's IPC_EXPORT_HANDLE (0x81): the DKMS driver's, never upstream's */
    SIM_DBG("ioctl nr 0x%x is not an ioctl of amdkfd 1.17 -> %d", nr, -EINVAL);
    return -EINVAL;
  }
  if (f->owner != sim_self_pid())
    return -EBADF;   /* "Using KFD FD in wrong process" */
  if (!d->fn)
    return -EINVAL;

  unsigned int cmd = d->cmd;
  size_t usize = _IOC_SIZE(ucmd), asize = _IOC_SIZE(cmd);
  if (usize > asize)
    asize = usize;
  unsigned char stack[256], *kdata = stack;
  if (asize > sizeof(stack) && !(kdata = calloc(1, asize)))
    return -ENOMEM;
  memset(kdata, 0, asize);
  int r = 0;
  if (_IOC_DIR(cmd) & _IOC_WRITE)
    r = sim_copy_from_user(kdata, (uintptr_t)arg, usize);
  /* SVM carries nattr attributes after the struct; the caller's size must cover them */
  if (!r && nr == _IOC_NR(AMDKFD_IOC_SVM) &&
      sizeof(struct kfd_ioctl_svm_args) + ((struct kfd_ioctl_svm_args *)kdata)->nattr *
      sizeof(struct kfd_ioctl_svm_attribute) > usize)
    r = -EINVAL;
  if (!r) {
    r = d->fn(kdata);
    SIM_DBG("ioctl %s (size %zu) -> %d", d->name + 11, usize, r);
    if ((_IOC_DIR(cmd) & _IOC_READ) && sim_copy_to_user((uintptr_t)arg, kdata, usize))
      r = -EFAULT;
  }
  if (kdata != stack)
    free(kdata);
  return r;
}

int sim_file_ioctl(struct sim_file *f, unsigned long cmd, void *arg)
{
  if (f->kind == SIM_FILE_RENDER)
    return sim_drm_ioctl(f, cmd, arg);
  return kfd_ioctl(f, cmd, arg);
}

/* ---- mmap of /dev/kfd (kfd_chardev.c kfd_mmap) ------------------------------------------------ */

static void *map_shared_fd(void *addr, size_t len, int prot, int flags, int fd, int *err)
{
  void *p = mmap(addr, len, prot, (flags & ~MAP_ANONYMOUS & ~MAP_PRIVATE) | MAP_SHARED, fd, 0);
  if (p == MAP_FAILED)
    *err = -errno;
  return p;
}

void *sim_file_mmap(struct sim_file *f, void *addr, size_t len, int prot, int flags,
                    uint64_t offset, int *err)
{
  if (f->kind == SIM_FILE_RENDER)
    return sim_render_mmap(f, addr, len, prot, flags, offset, err);
  if (f->owner != sim_self_pid()) {
    *err = -EINVAL;    /* kfd_get_process(current) fails in a child */
    return MAP_FAILED;
  }
  void *p = MAP_FAILED;
  pthread_mutex_lock(&sim_drv.lock);
  struct sim_gpu *g = sim_gpu_by_id((uint32_t)SIM_MMAP_GET_GPU_ID(offset));
  switch (offset & SIM_MMAP_TYPE_MASK) {
  case SIM_MMAP_TYPE_DOORBELL:
    /* kfd_doorbell_mmap: exactly the process doorbell slice */
    if (!g || len != SIM_DOORBELL_SLICE || g->doorbell_fd < 0)
      *err = -EINVAL;
    else
      p = map_shared_fd(addr, len, prot, flags, g->doorbell_fd, err);
    break;
  case SIM_MMAP_TYPE_EVENTS:
    pthread_mutex_unlock(&sim_drv.lock);
    return sim_events_mmap(addr, len, prot, flags, err);
  case SIM_MMAP_TYPE_MMIO:
    /* kfd_mmio_mmap: one page, never executable */
    if (!g || len != SIM_PAGE_SIZE || (prot & PROT_EXEC) || g->mmio_fd < 0)
      *err = -EINVAL;
    else
      p = map_shared_fd(addr, len, prot, flags, g->mmio_fd, err);
    break;
  default:
    *err = -EFAULT;    /* KFD_MMAP_TYPE_RESERVED_MEM is APU-only */
    break;
  }
  pthread_mutex_unlock(&sim_drv.lock);
  return p;
}

/* ---- small ioctls ------------------------------------------------------------------------------- */

int sim_ioctl_get_version(void *arg)
{
  struct kfd_ioctl_get_version_args *a = arg;
  a->major_version = KFD_IOCTL_MAJOR_VERSION;
  a->minor_version = KFD_IOCTL_MINOR_VERSION;
  return 0;
}

/* kfd_flat_memory.c kfd_init_apertures_v9: LDS at 1 << 48, scratch at 2 << 48 (4 GiB each),
 * GPUVM from AMDGPU_VA_RESERVED_BOTTOM to the 47-bit hole. */
static void fill_apertures(const struct sim_gpu *g, struct kfd_process_device_apertures *pa)
{
  memset(pa, 0, sizeof(*pa));
  pa->lds_base = 1ull << 48;
  pa->lds_limit = pa->lds_base | 0xffffffffull;
  pa->scratch_base = 2ull << 48;
  pa->scratch_limit = pa->scratch_base | 0xffffffffull;
  pa->gpuvm_base = 1ull << 16;
  pa->gpuvm_limit = (1ull << 47) - 1;
  pa->gpu_id = g->gpu_id;
}

int sim_ioctl_get_process_apertures(void *arg)
{
  struct kfd_ioctl_get_process_apertures_args *a = arg;
  uint32_t n = 0;
  pthread_mutex_lock(&sim_drv.lock);
  for (; n < sim_drv.n_gpus && n < NUM_OF_SUPPORTED_GPUS; n++)
    fill_apertures(&sim_drv.gpus[n], &a->process_apertures[n]);
  pthread_mutex_unlock(&sim_drv.lock);
  a->num_of_nodes = n;
  return 0;
}

int sim_ioctl_get_process_apertures_new(void *arg)
{
  struct kfd_ioctl_get_process_apertures_new_args *a = arg;
  if (a->num_of_nodes == 0) {
    a->num_of_nodes = sim_drv.n_gpus;    /* the caller asks how many to allocate */
    return 0;
  }
  struct kfd_process_device_apertures out[SIM_MAX_GPUS];
  uint32_t n = a->num_of_nodes < sim_drv.n_gpus ? a->num_of_nodes : sim_drv.n_gpus;
  for (uint32_t i = 0; i < n; i++)
    fill_apertures(&sim_drv.gpus[i], &out[i]);
  a->num_of_nodes = n;
  return sim_copy_to_user(a->kfd_process_device_apertures_ptr, out, n * sizeof(out[0]));
}

int sim_ioctl_acquire_vm(void *arg)
{
  struct kfd_ioctl_acquire_vm_args *a = arg;
  struct sim_file *drm = sim_fd_file((int)a->drm_fd);
  int r = 0;
  pthread_mutex_lock(&sim_drv.lock);
  struct sim_gpu *g = sim_gpu_by_id(a->gpu_id);
  if (!g)
    r = -EINVAL;
  else if (!drm)
    r = -EINVAL;   /* fget() of a non-file, or not a DRM file: amdgpu_amdkfd_gpuvm_acquire_process_vm */
  else if (drm->kind != SIM_FILE_RENDER || drm->gpu != g)
    r = -EINVAL;
  else if (g->drm_file)
    r = g->drm_file == drm ? 0 : -EBUSY;
  else {
    g->drm_file = drm;
    g->vm_acquired = true;
  }
  pthread_mutex_unlock(&sim_drv.lock);
  return r;
}

/* kfd_process_device_data_by_id + kfd_bind_process_to_device: -EINVAL for an unknown id,
 * -ENODEV before ACQUIRE_VM. */
static int bound_gpu(uint32_t gpu_id, struct sim_gpu **out)
{
  struct sim_gpu *g = sim_gpu_by_id(gpu_id);
  if (!g)
    return -EINVAL;
  if (!g->vm_acquired)
    return -ENODEV;
  *out = g;
  return 0;
}

int sim_ioctl_set_memory_policy(void *arg)
{
  struct kfd_ioctl_set_memory_policy_args *a = arg;
  struct sim_gpu *g;
  if (a->default_policy != KFD_IOC_CACHE_POLICY_COHERENT &&
      a->default_policy != KFD_IOC_CACHE_POLICY_NONCOHERENT)
    return -EINVAL;
  if (a->alternate_policy != KFD_IOC_CACHE_POLICY_COHERENT &&
      a->alternate_policy != KFD_IOC_CACHE_POLICY_NONCOHERENT)
    return -EINVAL;
  pthread_mutex_lock(&sim_drv.lock);
  int r = bound_gpu(a->gpu_id, &g);
  pthread_mutex_unlock(&sim_drv.lock);
  return r;   /* gfx9 has no APE1 aperture: the policy is accepted and has no effect */
}

static uint64_t clock_ns(clockid_t id)
{
  struct timespec ts;
  clock_gettime(id, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int sim_ioctl_get_clock_counters(void *arg)
{
  struct kfd_ioctl_get_clock_counters_args *a = arg;
  /* the GPU counter is the command processors' clock (sim/cp/clock.c), 100 MHz */
  a->gpu_clock_counter = sim_gpu_by_id(a->gpu_id) ? sim_gpu_clock_counter() : 0;
  a->cpu_clock_counter = clock_ns(CLOCK_MONOTONIC_RAW);
  a->system_clock_counter = clock_ns(CLOCK_BOOTTIME);
  a->system_clock_freq = 1000000000ull;
  return 0;
}

int sim_ioctl_set_scratch_backing_va(void *arg)
{
  struct kfd_ioctl_set_scratch_backing_va_args *a = arg;
  struct sim_gpu *g;
  pthread_mutex_lock(&sim_drv.lock);
  int r = bound_gpu(a->gpu_id, &g);
  if (!r)
    g->scratch_va = a->va_addr;
  pthread_mutex_unlock(&sim_drv.lock);
  return r;
}

int sim_ioctl_set_trap_handler(void *arg)
{
  struct kfd_ioctl_set_trap_handler_args *a = arg;
  struct sim_gpu *g;
  pthread_mutex_lock(&sim_drv.lock);
  int r = bound_gpu(a->gpu_id, &g);
  if (!r) {
    g->tba = a->tba_addr;
    g->tma = a->tma_addr;
  }
  pthread_mutex_unlock(&sim_drv.lock);
  return r;
}

int sim_ioctl_get_tile_config(void *arg)
{
  struct kfd_ioctl_get_tile_config_args *a = arg;
  struct sim_gpu *g = sim_gpu_by_id(a->gpu_id);
  if (!g)
    return -EINVAL;
  /* gfx9 has no tiling tables: 32 tile and 16 macro-tile modes, all zero */
  a->gb_addr_config = g->prof->gb_addr_config;
  a->num_banks = 0;
  a->num_ranks = 0;
  if (a->num_tile_configs > 32)
    a->num_tile_configs = 32;
  if (a->num_macro_tile_configs > 16)
    a->num_macro_tile_configs = 16;
  static const uint32_t zeros[32];
  if (sim_copy_to_user(a->tile_config_ptr, zeros, a->num_tile_configs * 4ull) ||
      sim_copy_to_user(a->macro_tile_config_ptr, zeros, a->num_macro_tile_configs * 4ull))
    return -EFAULT;
  return 0;
}

int sim_ioctl_set_xnack_mode(void *arg)
{
  struct kfd_ioctl_set_xnack_mode_args *a = arg;
  int r = 0;
  pthread_mutex_lock(&sim_drv.lock);
  if (a->xnack_enabled >= 0) {
    if (sim_queue_count())
      r = -EBUSY;     /* "User queues already created" */
    else
      sim_drv.xnack = a->xnack_enabled != 0;   /* gfx90a and gfx942 support both modes */
  } else {
    a->xnack_enabled = sim_drv.xnack;
  }
  pthread_mutex_unlock(&sim_drv.lock);
  return r;
}

int sim_ioctl_available_memory(void *arg)
{
  struct kfd_ioctl_get_available_memory_args *a = arg;
  pthread_mutex_lock(&sim_drv.lock);
  struct sim_gpu *g = sim_gpu_by_id(a->gpu_id);
  if (g)
    a->available = g->vram_size - sim_vram_used(g);
  pthread_mutex_unlock(&sim_drv.lock);
  return g ? 0 : -EINVAL;
}

int sim_ioctl_runtime_enable(void *arg)
{
  struct kfd_ioctl_runtime_enable_args *a = arg;
  int r = 0;
  pthread_mutex_lock(&sim_drv.lock);
  if (a->mode_mask & KFD_RUNTIME_ENABLE_MODE_ENABLE_MASK) {
    if (sim_drv.runtime_enabled)
      r = -EBUSY;       /* "runtime enable call already pending" */
    else if (sim_queue_count())
      r = -EEXIST;      /* "user queues already active prior to call" */
    else
      sim_drv.runtime_enabled = true;
  } else {
    sim_drv.runtime_enabled = false;
  }
  a->capabilities_mask = 0;
  pthread_mutex_unlock(&sim_drv.lock);
  return r;
}

