/* src/kfd/queue_ioctl.c: CREATE/DESTROY_QUEUE, scratch, clock counters, runtime enable. */
#include "kfd.h"

#include <errno.h>

int kfd_create_queue(struct kfd_gpu *gpu, struct kfd_ioctl_create_queue_args *args)
{
  if (!gpu || !args)
    return -EINVAL;
  args->gpu_id = gpu->gpu_id;
  return kfd_ioctl(AMDKFD_IOC_CREATE_QUEUE, args);
}

int kfd_set_cu_mask(uint32_t queue_id, const uint32_t *mask, uint32_t nbits)
{
  struct kfd_ioctl_set_cu_mask_args args = {
    .queue_id = queue_id,
    .num_cu_mask = nbits,
    .cu_mask_ptr = (uint64_t)(uintptr_t)mask,
  };
  /* kfd_chardev.c: the count is in bits and a multiple of 32. */
  if (!mask || !nbits || nbits % 32)
    return -EINVAL;
  return kfd_ioctl(AMDKFD_IOC_SET_CU_MASK, &args);
}

int kfd_destroy_queue(uint32_t queue_id)
{
  struct kfd_ioctl_destroy_queue_args args = {.queue_id = queue_id};
  return kfd_ioctl(AMDKFD_IOC_DESTROY_QUEUE, &args);
}

int kfd_clock_counters(struct kfd_gpu *gpu, uint64_t *gpu_ticks, uint64_t *cpu_ns,
                       uint64_t *system_ns, uint64_t *freq)
{
  struct kfd_ioctl_get_clock_counters_args args = {.gpu_id = gpu ? gpu->gpu_id : 0};
  int err;

  if (!gpu)
    return -EINVAL;
  err = kfd_ioctl(AMDKFD_IOC_GET_CLOCK_COUNTERS, &args);
  if (err)
    return err;
  if (gpu_ticks)
    *gpu_ticks = args.gpu_clock_counter;
  if (cpu_ns)
    *cpu_ns = args.cpu_clock_counter;
  if (system_ns)
    *system_ns = args.system_clock_counter;
  if (freq)
    *freq = args.system_clock_freq;
  return 0;
}

int kfd_set_scratch_backing_va(struct kfd_gpu *gpu, uint64_t va)
{
  struct kfd_ioctl_set_scratch_backing_va_args args = {.va_addr = va, .gpu_id = gpu ? gpu->gpu_id : 0};
  if (!gpu)
    return -EINVAL;
  return kfd_ioctl(AMDKFD_IOC_SET_SCRATCH_BACKING_VA, &args);
}

int kfd_runtime_enable(uint64_t r_debug, bool enable)
{
  struct kfd_ioctl_runtime_enable_args args = {
    .r_debug = r_debug,
    .mode_mask = enable ? KFD_RUNTIME_ENABLE_MODE_ENABLE_MASK : 0,
  };
  if (!kfd_version_at_least(1, 13))
    return -ENOSYS;
  return kfd_ioctl(AMDKFD_IOC_RUNTIME_ENABLE, &args);
}

int kfd_xnack_mode(bool *enabled)
{
  struct kfd_ioctl_set_xnack_mode_args args = {.xnack_enabled = -1};
  int err;

  if (!enabled)
    return -EINVAL;
  if (!kfd_version_at_least(1, 6))
    return -ENOSYS;
  err = kfd_ioctl(AMDKFD_IOC_SET_XNACK_MODE, &args);
  if (!err)
    *enabled = args.xnack_enabled > 0;
  return err;
}

int kfd_set_xnack_mode(bool enable)
{
  struct kfd_ioctl_set_xnack_mode_args args = {.xnack_enabled = enable ? 1 : 0};

  if (!kfd_version_at_least(1, 6))
    return -ENOSYS;
  return kfd_ioctl(AMDKFD_IOC_SET_XNACK_MODE, &args);
}
