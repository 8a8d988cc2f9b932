/* src/kfd/drm_device.h: a GPU's render node as a libdrm_amdgpu device.
 *
 * AMD's stack opens every GPU's render node (the KFD topology's drm_render_minor) with
 * amdgpu_device_initialize() and asks it what KFD does not say: the board's marketing name
 * (libdrm's amdgpu.ids table), engine and memory clocks, VRAM and GTT totals and usage; and it
 * imports dma-bufs there (amdgpu_bo_import) to map them with AMDGPU_GEM_VA. hipkfd does the same.
 *
 * The device is initialised on the very file KFD's ACQUIRE_VM took (kfd_gpu.render_fd): GEM
 * handles belong to one open file, and only mappings in that file's VM reach the compute
 * queues. libdrm_amdgpu is dlopen()ed: when it is absent, or the render node refuses it, every
 * function returns -ENODEV and callers keep their KFD-only path. In a child after fork() the
 * layer stays off (-ENODEV): the inherited descriptors share the parent's DRM file, so any
 * ioctl on them (a GEM_CLOSE, say) would act on the parent's objects.
 */
#ifndef HIPKFD_KFD_DRM_DEVICE_H
#define HIPKFD_KFD_DRM_DEVICE_H

#include <stdint.h>

#include "kfd.h"

/* Fixed facts of a GPU, read once. */
struct kfd_drm_facts {
  char marketing_name[KFD_MARKETING_NAME_MAX]; /* "" when amdgpu.ids has no entry (libdrm's
                                                * generic "AMD Radeon Graphics" included) */
  uint32_t max_engine_clock_khz;  /* amdgpu_gpu_info.max_engine_clk */
  uint32_t max_memory_clock_khz;  /* amdgpu_gpu_info.max_memory_clk */
};

/* Memory heaps as the DRM driver accounts them (amdgpu_query_heap_info). */
struct kfd_drm_heaps {
  uint64_t vram_size, vram_used, vram_max_alloc;
  uint64_t gtt_size, gtt_used;
};

/* [out] out: the facts of GPU [in] n (opens its KFD state with kfd_gpu_open() if needed).
 * Returns 0, or -ENODEV when libdrm_amdgpu or the device is unavailable, or -errno. */
int kfd_drm_facts(const struct kfd_node *n, struct kfd_drm_facts *out);

/* [out] out: VRAM and GTT size and usage of [in] gpu now. Returns 0, -ENODEV or -errno. */
int kfd_drm_heaps(struct kfd_gpu *gpu, struct kfd_drm_heaps *out);

/* amdgpu_bo_import of the dma-buf [in] dmabuf_fd on [in] gpu. [out] handle: its GEM handle in
 * the render file (the same handle for the same buffer, as PRIME import gives); [out] size: the
 * buffer's size (may be NULL). One kfd_drm_bo_release() drops it whatever the import count.
 * Returns 0, -ENODEV (use the raw PRIME path) or -errno. */
int kfd_drm_bo_import(struct kfd_gpu *gpu, int dmabuf_fd, uint32_t *handle, uint64_t *size);

/* amdgpu_bo_free of the buffer kfd_drm_bo_import() gave [in] handle on [in] gpu.
 * Returns 0, or -ENOENT when the handle did not come from it. */
int kfd_drm_bo_release(struct kfd_gpu *gpu, uint32_t handle);

/* Buffers kfd_drm_bo_import() has imported through libdrm in this process (tests and
 * statistics: shows the libdrm path, not the raw PRIME fallback, served them). */
uint64_t kfd_drm_stat_imports(void);

#endif
