/* src/kfd/drm_device.c: libdrm_amdgpu on each GPU's render node (see drm_device.h). */
#define _GNU_SOURCE
#include "drm_device.h"
#include "kfd_internal.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <amdgpu.h>
#include <amdgpu_drm.h>

#define DRM_MAX_GPUS 64
#define GENERIC_NAME "AMD Radeon Graphics"

/* The libdrm_amdgpu entry points used, resolved once by dlopen (the library is optional at run
 * time). Types come from the installed amdgpu.h, so a prototype change breaks the build. */
static struct {
  bool ok;
  __typeof__(amdgpu_device_initialize) *device_initialize;
  __typeof__(amdgpu_get_marketing_name) *get_marketing_name;
  __typeof__(amdgpu_query_gpu_info) *query_gpu_info;
  __typeof__(amdgpu_query_heap_info) *query_heap_info;
  __typeof__(amdgpu_bo_import) *bo_import;
  __typeof__(amdgpu_bo_export) *bo_export;
  __typeof__(amdgpu_bo_free) *bo_free;
} drm;
static pthread_once_t drm_once = PTHREAD_ONCE_INIT;

/* One imported buffer: the handle the caller knows, the libdrm object that owns it. */
struct drm_bo {
  uint32_t handle;
  amdgpu_bo_handle bo;
  struct drm_bo *next;
};

/* Per GPU slot (unfiltered topology order). Every field is protected by drm_lock. */
struct drm_slot {
  bool tried;                   /* device initialisation attempted (it is not retried) */
  amdgpu_device_handle dev;     /* NULL when unavailable */
  bool have_facts;
  struct kfd_drm_facts facts;
  struct drm_bo *bos;           /* live imports */
};
static struct drm_slot slots[DRM_MAX_GPUS];
static pthread_mutex_t drm_lock = PTHREAD_MUTEX_INITIALIZER;
static pid_t drm_pid;           /* process that initialised a device (drm_lock); 0: none yet */
static atomic_uint_fast64_t stat_imports;

static void drm_load(void)
{
  void *h = dlopen("libdrm_amdgpu.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!h)
    return;
  drm.device_initialize = (__typeof__(drm.device_initialize))dlsym(h, "amdgpu_device_initialize");
  drm.get_marketing_name = (__typeof__(drm.get_marketing_name))dlsym(h, "amdgpu_get_marketing_name");
  drm.query_gpu_info = (__typeof__(drm.query_gpu_info))dlsym(h, "amdgpu_query_gpu_info");
  drm.query_heap_info = (__typeof__(drm.query_heap_info))dlsym(h, "amdgpu_query_heap_info");
  drm.bo_import = (__typeof__(drm.bo_import))dlsym(h, "amdgpu_bo_import");
  drm.bo_export = (__typeof__(drm.bo_export))dlsym(h, "amdgpu_bo_export");
  drm.bo_free = (__typeof__(drm.bo_free))dlsym(h, "amdgpu_bo_free");
  drm.ok = drm.device_initialize && drm.get_marketing_name && drm.query_gpu_info &&
           drm.query_heap_info && drm.bo_import && drm.bo_export && drm.bo_free;
  /* The handle stays open for the life of the process: devices and buffers point into it. */
}

/* The amdgpu device of [in] gpu, initialised on its KFD render file the first time.
 * drm_lock held. NULL when libdrm, the device, or this process (a forked child) cannot use it. */
static struct drm_slot *slot_device(struct kfd_gpu *gpu)
{
  int i = gpu ? kfd_topology_gpu_slot(gpu->node) : -1;
  uint32_t major, minor;

  pthread_once(&drm_once, drm_load);
  if (!drm.ok || i < 0 || i >= DRM_MAX_GPUS)
    return NULL;
  if (drm_pid && drm_pid != getpid())
    return NULL;
  struct drm_slot *s = &slots[i];
  if (!s->tried) {
    s->tried = true;
    if (gpu->render_fd >= 0 && drm.device_initialize(gpu->render_fd, &major, &minor, &s->dev) != 0)
      s->dev = NULL;
    if (s->dev)
      drm_pid = getpid();
  }
  return s->dev ? s : NULL;
}

static void read_facts(struct drm_slot *s)
{
  struct amdgpu_gpu_info info;
  const char *name = drm.get_marketing_name(s->dev);

  memset(&s->facts, 0, sizeof(s->facts));
  /* For a device id amdgpu.ids lacks, libdrm (2.4.114, measured with kfdsim's MI300X id 0x74a1)
   * answers a generic "AMD Radeon Graphics": that names no board, so report none. */
  if (name && strcmp(name, GENERIC_NAME) != 0)
    strncpy(s->facts.marketing_name, name, sizeof(s->facts.marketing_name) - 1);
  if (drm.query_gpu_info(s->dev, &info) == 0) {
    s->facts.max_engine_clock_khz = (uint32_t)info.max_engine_clk;
    s->facts.max_memory_clock_khz = (uint32_t)info.max_memory_clk;
  }
  s->have_facts = true;
}

int kfd_drm_facts(const struct kfd_node *n, struct kfd_drm_facts *out)
{
  struct kfd_gpu *gpu;
  int err;

  if (!n || !out)
    return -EINVAL;
  err = kfd_gpu_open(n, &gpu);
  if (err)
    return err;
  pthread_mutex_lock(&drm_lock);
  struct drm_slot *s = slot_device(gpu);
  if (s && !s->have_facts)
    read_facts(s);
  if (s)
    *out = s->facts;
  pthread_mutex_unlock(&drm_lock);
  return s ? 0 : -ENODEV;
}

int kfd_drm_heaps(struct kfd_gpu *gpu, struct kfd_drm_heaps *out)
{
  struct amdgpu_heap_info vram, gtt;
  int err = -ENODEV;

  if (!gpu || !out)
    return -EINVAL;
  pthread_mutex_lock(&drm_lock);
  struct drm_slot *s = slot_device(gpu);
  if (s) {
    err = drm.query_heap_info(s->dev, AMDGPU_GEM_DOMAIN_VRAM, 0, &vram);
    if (!err)
      err = drm.query_heap_info(s->dev, AMDGPU_GEM_DOMAIN_GTT, 0, &gtt);
  }
  pthread_mutex_unlock(&drm_lock);
  if (err)
    return err;
  *out = (struct kfd_drm_heaps){
    .vram_size = vram.heap_size, .vram_used = vram.heap_usage,
    .vram_max_alloc = vram.max_allocation, .gtt_size = gtt.heap_size, .gtt_used = gtt.heap_usage,
  };
  return 0;
}

static struct drm_bo **bo_find(struct drm_slot *s, uint32_t handle)
{
  struct drm_bo **pp = &s->bos;
  while (*pp && (*pp)->handle != handle)
    pp = &(*pp)->next;
  return pp;
}

/* Keep the new import, or drop its extra reference when the buffer is already ours: libdrm
 * returns the same object for the same GEM handle with its count raised. drm_lock held. */
static int bo_keep(struct drm_slot *s, amdgpu_bo_handle bo, uint32_t handle)
{
  if (*bo_find(s, handle)) {
    drm.bo_free(bo);
    return 0;
  }
  struct drm_bo *b = calloc(1, sizeof(*b));
  if (!b) {
    drm.bo_free(bo);
    return -ENOMEM;
  }
  *b = (struct drm_bo){ .handle = handle, .bo = bo, .next = s->bos };
  s->bos = b;
  return 0;
}

int kfd_drm_bo_import(struct kfd_gpu *gpu, int dmabuf_fd, uint32_t *handle, uint64_t *size)
{
  struct amdgpu_bo_import_result r = {0};
  uint32_t h = 0;
  int err = -ENODEV;

  if (!gpu || !handle || dmabuf_fd < 0)
    return -EINVAL;
  pthread_mutex_lock(&drm_lock);
  struct drm_slot *s = slot_device(gpu);
  if (s)
    err = drm.bo_import(s->dev, amdgpu_bo_handle_type_dma_buf_fd, (uint32_t)dmabuf_fd, &r);
  /* The KMS handle is the GEM handle in the device's file: the one AMDGPU_GEM_VA takes. */
  if (!err && (err = drm.bo_export(r.buf_handle, amdgpu_bo_handle_type_kms, &h)) != 0)
    drm.bo_free(r.buf_handle);
  if (!err)
    err = bo_keep(s, r.buf_handle, h);
  pthread_mutex_unlock(&drm_lock);
  if (!err)
    atomic_fetch_add_explicit(&stat_imports, 1, memory_order_relaxed);
  if (err)
    return err;
  *handle = h;
  if (size)
    *size = r.alloc_size;
  return 0;
}

int kfd_drm_bo_release(struct kfd_gpu *gpu, uint32_t handle)
{
  int err = -ENOENT;
  int i = gpu ? kfd_topology_gpu_slot(gpu->node) : -1;

  if (i < 0 || i >= DRM_MAX_GPUS)
    return -ENOENT;
  pthread_mutex_lock(&drm_lock);
  struct drm_bo **pp = bo_find(&slots[i], handle);
  struct drm_bo *b = *pp;
  if (b && (!drm_pid || drm_pid == getpid())) {
    *pp = b->next;
    err = drm.bo_free(b->bo);   /* the last reference: libdrm closes the GEM handle */
    free(b);
  }
  pthread_mutex_unlock(&drm_lock);
  return err;
}

uint64_t kfd_drm_stat_imports(void)
{
  return atomic_load_explicit(&stat_imports, memory_order_relaxed);
}
