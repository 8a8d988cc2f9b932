/* src/kfd/drm_gem.h: the render-node buffer ioctls ROCr's virtual-memory API relies on.
 *
 * ACQUIRE_VM makes KFD use the render file's GPU VM, so a mapping made on the render node with
 * DRM_IOCTL_AMDGPU_GEM_VA is seen by the GPU's compute queues as well. Unlike KFD's
 * IMPORT_DMABUF (one whole buffer at one VA, fixed when imported) it maps any page range of a
 * buffer at any VA, with its own access flags, and can be undone per GPU: what hipMemMap with an
 * offset and hipMemSetAccess need (ROCr's hsa_amd_vmem_map / hsa_amd_vmem_set_access do the
 * same through libdrm's amdgpu_bo_import and amdgpu_bo_va_op). */
#ifndef HIPKFD_KFD_DRM_GEM_H
#define HIPKFD_KFD_DRM_GEM_H

#include <stdbool.h>
#include <stdint.h>

#include "kfd.h"

/* DRM_IOCTL_PRIME_FD_TO_HANDLE of [in] dmabuf_fd on gpu's render node. [out] handle: the GEM
 * handle. Importing the same dma-buf twice through one render file gives the same handle (and
 * one GEM_CLOSE drops it). Returns 0 or -errno. */
int kfd_gem_import_dmabuf(struct kfd_gpu *gpu, int dmabuf_fd, uint32_t *handle);

/* DRM_IOCTL_GEM_CLOSE of [in] handle; the kernel also removes its GEM_VA mappings.
 * Returns 0 or -errno. */
int kfd_gem_close(struct kfd_gpu *gpu, uint32_t handle);

/* AMDGPU_GEM_VA MAP of [in] size bytes at [in] offset of GEM [in] handle at GPU [in] va, readable
 * and executable, writable when [in] writable. All three page aligned. Returns 0 or -errno. */
int kfd_gem_va_map(struct kfd_gpu *gpu, uint32_t handle, uint64_t va, uint64_t offset,
                   uint64_t size, bool writable);

/* AMDGPU_GEM_VA UNMAP of the mapping of [in] handle that starts at [in] va. Returns 0/-errno. */
int kfd_gem_va_unmap(struct kfd_gpu *gpu, uint32_t handle, uint64_t va, uint64_t size);

#endif
