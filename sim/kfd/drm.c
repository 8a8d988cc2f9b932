/* The render node /dev/dri/renderD<128+i>: what libdrm_amdgpu's amdgpu_device_initialize()
 * asks (DRM_IOCTL_VERSION, AMDGPU_INFO_DEV_INFO, the GB_ADDR_CONFIG register) plus the memory
 * queries, answered as amdgpu_kms.c amdgpu_info_ioctl() would for this board. Buffer objects
 * are mapped through the render node at the offsets ALLOC_MEMORY_OF_GPU returned (memory.c).
 * PRIME_FD_TO_HANDLE, GEM_CLOSE and AMDGPU_GEM_VA (page ranges of a dma-buf mapped at any VA,
 * what ROCr's hsa_amd_vmem_map uses) are dispatched to memory.c. */
#define _GNU_SOURCE
#include "kfd/uapi.h"   /* first: keeps the raw UAPI linux/types.h out */
#include <errno.h>
#include <string.h>
#include <time.h>

#include "kfd/kfd_priv.h"

#define DRM_TYPE 'd'
#define KMS_MAJOR 3
#define KMS_MINOR 59
#define GB_ADDR_CONFIG_REG 0x263e

/* drm_copy_field: copy what fits, report the full length */
static int copy_field(char *buf, __kernel_size_t *len, const char *value)
{
  size_t n = strlen(value), room = *len;
  *len = n;
  return room ? sim_copy_to_user((uintptr_t)buf, value, n < room ? n : room) : 0;
}

static int drm_version(struct drm_version *v)
{
  v->version_major = KMS_MAJOR;
  v->version_minor = KMS_MINOR;
  v->version_patchlevel = 0;
  int r = copy_field(v->name, &v->name_len, "amdgpu");
  if (!r)
    r = copy_field(v->date, &v->date_len, "20150101");
  if (!r)
    r = copy_field(v->desc, &v->desc_len, "AMD GPU");
  return r;
}

static void dev_info(const struct sim_gpu *g, struct drm_amdgpu_info_device *d)
{
  const struct sim_profile *p = g->prof;
  uint32_t cus = sim_profile_cu_count(p);
  memset(d, 0, sizeof(*d));
  d->device_id = p->device_id;
  d->chip_rev = 1;
  d->external_rev = 0x3c + p->pci_rev;
  d->pci_rev = p->pci_rev;
  d->family = p->family_id;
  d->num_shader_engines = p->array_count * p->num_xcc / p->simd_arrays_per_engine;
  d->num_shader_arrays_per_engine = p->simd_arrays_per_engine;
  d->gpu_counter_freq = 100000;                      /* kHz */
  d->max_engine_clock = p->max_engine_clk_fcompute * 1000ull;
  d->max_memory_clock = p->mem_clk_max * 1000ull;
  d->cu_active_number = cus;
  d->cu_ao_mask = 0xffffffff;
  /* active CUs per SE/SH, the first four shader engines as the UAPI has room for */
  uint32_t per_sh = cus / (p->array_count * p->num_xcc);
  for (int se = 0; se < 4; se++)
    d->cu_bitmap[se][0] = per_sh >= 32 ? 0xffffffffu : (1u << per_sh) - 1;
  d->num_rb_pipes = 0;
  d->num_hw_gfx_contexts = 0;
  d->pcie_gen = 4;
  d->virtual_address_offset = 1ull << 16;            /* AMDGPU_VA_RESERVED_BOTTOM */
  d->virtual_address_max = 1ull << 47;               /* AMDGPU_GMC_HOLE_START */
  d->virtual_address_alignment = 4096;
  d->pte_fragment_size = 2u << 20;
  d->gart_page_size = 4096;
  d->vram_type = p->vram_type;
  d->vram_bit_width = p->vram_width;
  d->wave_front_size = p->wave_front_size;
  d->num_shader_visible_vgprs = 512;
  d->num_cu_per_sh = p->cu_per_simd_array;
  d->num_tcc_blocks = 16;
  d->pcie_num_lanes = 16;
  d->high_va_offset = 0xffff800000000000ull;         /* AMDGPU_GMC_HOLE_END */
  d->high_va_max = 0xffff800000000000ull | ((1ull << 47) - 1);
  d->min_engine_clock = 500000;
  d->min_memory_clock = p->mem_clk_max * 1000ull;
  d->tcp_cache_size = p->l1_kb;
  d->gl2c_cache_size = p->l2_kb * p->num_xcc;
  d->mall_size = (uint64_t)p->l3_kb * 1024;
}

static int copy_out(const struct drm_amdgpu_info *req, const void *src, size_t size)
{
  if (!req->return_pointer || !req->return_size)
    return -EINVAL;
  return sim_copy_to_user(req->return_pointer, src, req->return_size < size ? req->return_size : size);
}

/* amdgpu_kms.c AMDGPU_INFO_SENSOR: clocks in MHz. The emulated GPU never throttles, so the
 * current clocks are the profile's peak ones (the same values DEV_INFO and the topology give). */
static int sensor(const struct sim_gpu *g, const struct drm_amdgpu_info *req)
{
  uint32_t v;
  switch (req->sensor_info.type) {
  case AMDGPU_INFO_SENSOR_GFX_SCLK:
  case AMDGPU_INFO_SENSOR_STABLE_PSTATE_GFX_SCLK:
    v = g->prof->max_engine_clk_fcompute;
    break;
  case AMDGPU_INFO_SENSOR_GFX_MCLK:
  case AMDGPU_INFO_SENSOR_STABLE_PSTATE_GFX_MCLK:
    v = g->prof->mem_clk_max;
    break;
  default:
    return -EINVAL;    /* temperatures, power, load: nothing to measure */
  }
  return copy_out(req, &v, sizeof(v));
}

static int amdgpu_info(struct sim_gpu *g, struct drm_amdgpu_info *req)
{
  switch (req->query) {
  case AMDGPU_INFO_ACCEL_WORKING: {
    uint32_t working = 1;
    return copy_out(req, &working, sizeof(working));
  }
  case AMDGPU_INFO_DEV_INFO: {
    struct drm_amdgpu_info_device d;
    dev_info(g, &d);
    return copy_out(req, &d, sizeof(d));
  }
  case AMDGPU_INFO_READ_MMR_REG: {
    /* only GB_ADDR_CONFIG is on the allow list of gfx9 registers kfdsim knows */
    if (req->read_mmr_reg.count != 1 || req->read_mmr_reg.dword_offset != GB_ADDR_CONFIG_REG)
      return -EINVAL;
    uint32_t v = g->prof->gb_addr_config;
    return copy_out(req, &v, sizeof(v));
  }
  case AMDGPU_INFO_VRAM_GTT: {
    struct drm_amdgpu_info_vram_gtt v = { .vram_size = g->vram_size,
                                          .vram_cpu_accessible_size = g->vram_size,
                                          .gtt_size = g->vram_size };
    return copy_out(req, &v, sizeof(v));
  }
  case AMDGPU_INFO_MEMORY: {
    struct drm_amdgpu_memory_info m;
    memset(&m, 0, sizeof(m));
    m.vram.total_heap_size = m.cpu_accessible_vram.total_heap_size = g->vram_size;
    m.vram.usable_heap_size = m.cpu_accessible_vram.usable_heap_size = g->vram_size;
    uint64_t used = sim_vram_used(g);
    m.vram.heap_usage = m.cpu_accessible_vram.heap_usage = used;
    m.vram.max_allocation = m.cpu_accessible_vram.max_allocation = g->vram_size - used;
    m.gtt.total_heap_size = m.gtt.usable_heap_size = g->vram_size;
    m.gtt.max_allocation = g->gtt_used < g->vram_size ? g->vram_size - g->gtt_used : 0;
    m.gtt.heap_usage = g->gtt_used;
    return copy_out(req, &m, sizeof(m));
  }
  case AMDGPU_INFO_VRAM_USAGE:
  case AMDGPU_INFO_VIS_VRAM_USAGE: {
    uint64_t used = sim_vram_used(g);
    return copy_out(req, &used, sizeof(used));
  }
  case AMDGPU_INFO_GTT_USAGE: {
    uint64_t used = g->gtt_used;
    return copy_out(req, &used, sizeof(used));
  }
  case AMDGPU_INFO_SENSOR:
    return sensor(g, req);
  case AMDGPU_INFO_TIMESTAMP: {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    uint64_t t = ((uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec) / 10;
    return copy_out(req, &t, sizeof(t));
  }
  default:
    return -EINVAL;
  }
}

/* The buffer-sharing ioctls ROCr's virtual-memory API uses (memory.c): copy in, run, copy back
 * the outputs (drm_ioctl copies by the size the command number encodes). */
static int gem_ioctl(struct sim_file *f, unsigned long cmd, void *arg, size_t size)
{
  union {
    struct drm_prime_handle prime;
    struct drm_gem_close close;
    struct drm_amdgpu_gem_va va;
  } u;
  if (_IOC_SIZE(cmd) != size)
    return -EINVAL;
  int r = sim_copy_from_user(&u, (uintptr_t)arg, size);
  if (r)
    return r;
  if (_IOC_NR(cmd) == _IOC_NR(DRM_IOCTL_PRIME_FD_TO_HANDLE)) {
    r = sim_gem_prime_import(f, &u.prime);
    return r ? r : sim_copy_to_user((uintptr_t)arg, &u.prime, size);
  }
  if (_IOC_NR(cmd) == _IOC_NR(DRM_IOCTL_GEM_CLOSE))
    return sim_gem_close(f, &u.close);
  return sim_gem_va(f, &u.va);
}

int sim_drm_ioctl(struct sim_file *f, unsigned long cmd, void *arg)
{
  if (_IOC_TYPE(cmd) != DRM_TYPE)
    return -ENOTTY;
  if (_IOC_NR(cmd) == _IOC_NR(DRM_IOCTL_VERSION)) {
    struct drm_version v;
    int r = sim_copy_from_user(&v, (uintptr_t)arg, sizeof(v));
    if (!r)
      r = drm_version(&v);
    if (!r)
      r = sim_copy_to_user((uintptr_t)arg, &v, sizeof(v));
    return r;
  }
  if (_IOC_NR(cmd) == DRM_COMMAND_BASE + DRM_AMDGPU_INFO) {
    struct drm_amdgpu_info req;
    int r = sim_copy_from_user(&req, (uintptr_t)arg, sizeof(req));
    if (r)
      return r;
    pthread_mutex_lock(&sim_drv.lock);
    r = amdgpu_info(f->gpu, &req);
    pthread_mutex_unlock(&sim_drv.lock);
    return r;
  }
  if (_IOC_NR(cmd) == _IOC_NR(DRM_IOCTL_PRIME_FD_TO_HANDLE))
    return gem_ioctl(f, cmd, arg, sizeof(struct drm_prime_handle));
  if (_IOC_NR(cmd) == _IOC_NR(DRM_IOCTL_GEM_CLOSE))
    return gem_ioctl(f, cmd, arg, sizeof(struct drm_gem_close));
  if (_IOC_NR(cmd) == DRM_COMMAND_BASE + DRM_AMDGPU_GEM_VA)
    return gem_ioctl(f, cmd, arg, sizeof(struct drm_amdgpu_gem_va));
  SIM_DBG("render ioctl 0x%lx not emulated", cmd);
  return -EINVAL;
}
