/* src/kfd/memory_ioctl.c: ALLOC/FREE/MAP/UNMAP_MEMORY, available memory, SVM, dma-buf. */
#include "kfd.h"

#include <errno.h>
#include <sys/ioctl.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

int kfd_alloc_memory(struct kfd_gpu *gpu, uint64_t va, uint64_t size, uint32_t flags,
                     uint64_t host_addr, uint64_t *handle, uint64_t *mmap_offset)
{
  struct kfd_ioctl_alloc_memory_of_gpu_args args = {
    .va_addr = va,
    .size = size,
    /* For USERPTR the kernel reads the CPU address from mmap_offset (kfd_chardev.c). */
    .mmap_offset = host_addr,
    .gpu_id = gpu ? gpu->gpu_id : 0,
    .flags = flags,
  };
  int err;

  if (!gpu || !size || !handle)
    return -EINVAL;
  err = kfd_ioctl(AMDKFD_IOC_ALLOC_MEMORY_OF_GPU, &args);
  if (err)
    return err;
  *handle = args.handle;
  if (mmap_offset)
    *mmap_offset = args.mmap_offset;
  return 0;
}

int kfd_free_memory(uint64_t handle)
{
  struct kfd_ioctl_free_memory_of_gpu_args args = {.handle = handle};
  return kfd_ioctl(AMDKFD_IOC_FREE_MEMORY_OF_GPU, &args);
}

/* MAP_MEMORY_TO_GPU and UNMAP_MEMORY_FROM_GPU take the same argument block (kfd_ioctl.h: "same
 * arguments as for mapping"), so one wrapper serves both requests. n_success starts at 0;
 * kfd_ioctl() restarts with the same block after EINTR, so the kernel skips the devices it already
 * handled. Fewer than n devices done without an error is -EIO. */
_Static_assert(sizeof(struct kfd_ioctl_map_memory_to_gpu_args) ==
                   sizeof(struct kfd_ioctl_unmap_memory_from_gpu_args) &&
               offsetof(struct kfd_ioctl_map_memory_to_gpu_args, n_success) ==
                   offsetof(struct kfd_ioctl_unmap_memory_from_gpu_args, n_success),
               "map and unmap share one argument layout");

static int map_ioctl(unsigned long request, uint64_t handle, const uint32_t *gpu_ids, uint32_t n)
{
  struct kfd_ioctl_map_memory_to_gpu_args args = {
    .handle = handle,
    .device_ids_array_ptr = (uint64_t)(uintptr_t)gpu_ids,
    .n_devices = n,
    .n_success = 0,
  };
  int err;

  if (!gpu_ids || !n)
    return -EINVAL;
  err = kfd_ioctl(request, &args);
  if (!err && args.n_success != n)
    return -EIO;
  return err;
}

int kfd_map_memory(uint64_t handle, const uint32_t *gpu_ids, uint32_t n)
{
  return map_ioctl(AMDKFD_IOC_MAP_MEMORY_TO_GPU, handle, gpu_ids, n);
}

int kfd_unmap_memory(uint64_t handle, const uint32_t *gpu_ids, uint32_t n)
{
  return map_ioctl(AMDKFD_IOC_UNMAP_MEMORY_FROM_GPU, handle, gpu_ids, n);
}

int kfd_available_memory(struct kfd_gpu *gpu, uint64_t *bytes)
{
  struct kfd_ioctl_get_available_memory_args args = {.gpu_id = gpu ? gpu->gpu_id : 0};
  int err;

  if (!gpu || !bytes)
    return -EINVAL;
  if (!kfd_version_at_least(1, 9))
    return -ENOSYS;
  err = kfd_ioctl(AMDKFD_IOC_AVAILABLE_MEMORY, &args);
  if (!err)
    *bytes = args.available;
  return err;
}

int kfd_svm(uint32_t op, uint64_t start, uint64_t size, struct kfd_ioctl_svm_attribute *attrs,
            uint32_t nattr)
{
  struct kfd_ioctl_svm_args *args;
  size_t bytes = sizeof(*args) + nattr * sizeof(*attrs);
  int err;

  if (!kfd_version_at_least(1, 6))
    return -ENOSYS;
  if (nattr && !attrs)
    return -EINVAL;
  /* The attributes follow the fixed part in one block (flexible array member). */
  if (nattr > 64)
    return -E2BIG;
  args = calloc(1, bytes);
  if (!args)
    return -ENOMEM;
  args->start_addr = start;
  args->size = size;
  args->op = op;
  args->nattr = nattr;
  for (uint32_t i = 0; i < nattr; i++)
    args->attrs[i] = attrs[i];
  /* The attributes are part of the argument block the kernel copies: its size is encoded in
   * the request (kfd_chardev.c kfd_ioctl() copies _IOC_SIZE(cmd) bytes; libhsakmt svm.c adds
   * the attribute bytes to AMDKFD_IOC_SVM the same way). */
  err = kfd_ioctl(AMDKFD_IOC_SVM + ((unsigned long)(nattr * sizeof(*attrs)) << _IOC_SIZESHIFT), args);
  for (uint32_t i = 0; !err && i < nattr; i++)
    attrs[i] = args->attrs[i];
  free(args);
  return err;
}

int kfd_export_dmabuf(uint64_t handle, int *fd)
{
  struct kfd_ioctl_export_dmabuf_args args = {.handle = handle, .flags = O_CLOEXEC | O_RDWR};
  int err;

  if (!fd)
    return -EINVAL;
  if (!kfd_version_at_least(1, 12))
    return -ENOSYS;
  err = kfd_ioctl(AMDKFD_IOC_EXPORT_DMABUF, &args);
  if (!err)
    *fd = (int)args.dmabuf_fd;
  return err;
}

int kfd_import_dmabuf(struct kfd_gpu *gpu, int dmabuf_fd, uint64_t va, uint64_t *handle)
{
  struct kfd_ioctl_import_dmabuf_args args = {
    .va_addr = va,
    .gpu_id = gpu ? gpu->gpu_id : 0,
    .dmabuf_fd = (uint32_t)dmabuf_fd,
  };
  int err;

  if (!gpu || !handle || dmabuf_fd < 0)
    return -EINVAL;
  err = kfd_ioctl(AMDKFD_IOC_IMPORT_DMABUF, &args);
  if (!err)
    *handle = args.handle;
  return err;
}
