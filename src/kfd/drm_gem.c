/* src/kfd/drm_gem.c: PRIME import, GEM_CLOSE and AMDGPU_GEM_VA on a GPU's render node (see
 * drm_gem.h). Structures from libdrm's copies of the DRM UAPI (drm.h, amdgpu_drm.h). */
#include "drm_gem.h"
#include "drm_device.h"

#include <errno.h>
#include <sys/ioctl.h>
#include <libdrm/drm.h>
#include <libdrm/amdgpu_drm.h>

/* drmIoctl's loop: the DRM core restarts interrupted ioctls with the same argument block. */
static int render_ioctl(struct kfd_gpu *gpu, unsigned long req, void *arg)
{
  int r;

  if (!gpu || gpu->render_fd < 0)
    return -EBADF;
  do {
    r = ioctl(gpu->render_fd, req, arg);
  } while (r == -1 && (errno == EINTR || errno == EAGAIN));
  return r == -1 ? -errno : 0;
}

int kfd_gem_import_dmabuf(struct kfd_gpu *gpu, int dmabuf_fd, uint32_t *handle)
{
  struct drm_prime_handle args = {.fd = dmabuf_fd};
  int err;

  if (!handle || dmabuf_fd < 0)
    return -EINVAL;
  /* libdrm_amdgpu's import where it works (as ROCr's hsa_amd_vmem_import_shareable_handle);
   * the raw PRIME ioctl when libdrm is absent or refused the device. */
  err = kfd_drm_bo_import(gpu, dmabuf_fd, handle, NULL);
  if (err != -ENODEV)
    return err;
  err = render_ioctl(gpu, DRM_IOCTL_PRIME_FD_TO_HANDLE, &args);
  if (!err)
    *handle = args.handle;
  return err;
}

int kfd_gem_close(struct kfd_gpu *gpu, uint32_t handle)
{
  struct drm_gem_close args = {.handle = handle};

  /* A buffer libdrm imported is closed by libdrm, so its handle table forgets it too. */
  if (kfd_drm_bo_release(gpu, handle) == 0)
    return 0;
  return render_ioctl(gpu, DRM_IOCTL_GEM_CLOSE, &args);
}

int kfd_gem_va_map(struct kfd_gpu *gpu, uint32_t handle, uint64_t va, uint64_t offset,
                   uint64_t size, bool writable)
{
  struct drm_amdgpu_gem_va args = {
    .handle = handle,
    .operation = AMDGPU_VA_OP_MAP,
    .flags = AMDGPU_VM_PAGE_READABLE | AMDGPU_VM_PAGE_EXECUTABLE |
             (writable ? AMDGPU_VM_PAGE_WRITEABLE : 0),
    .va_address = va,
    .offset_in_bo = offset,
    .map_size = size,
  };

  return render_ioctl(gpu, DRM_IOCTL_AMDGPU_GEM_VA, &args);
}

int kfd_gem_va_unmap(struct kfd_gpu *gpu, uint32_t handle, uint64_t va, uint64_t size)
{
  struct drm_amdgpu_gem_va args = {
    .handle = handle,
    .operation = AMDGPU_VA_OP_UNMAP,
    .va_address = va,
    .map_size = size,
  };

  return render_ioctl(gpu, DRM_IOCTL_AMDGPU_GEM_VA, &args);
}
