/* src/kfd/event_ioctl.c: CREATE/DESTROY/SET/RESET_EVENT and WAIT_EVENTS (kfd_events.c). */
#include "kfd.h"

#include <errno.h>

int kfd_create_event(uint32_t type, bool auto_reset, uint32_t node_id, uint64_t event_page_handle,
                     uint32_t *event_id, uint32_t *slot, uint64_t *page_offset)
{
  /* event_page_offset is an input on the first signal event of a dGPU process: the handle of
   * the user-allocated events page (kfd_chardev.c kfd_ioctl_create_event()). */
  struct kfd_ioctl_create_event_args args = {
    .event_page_offset = event_page_handle,
    .event_type = type,
    .auto_reset = auto_reset ? 1 : 0,
    .node_id = node_id,
  };
  int err = kfd_ioctl(AMDKFD_IOC_CREATE_EVENT, &args);

  if (err)
    return err;
  if (event_id)
    *event_id = args.event_id;
  if (slot)
    *slot = args.event_slot_index;
  if (page_offset)
    *page_offset = args.event_page_offset;
  return 0;
}

int kfd_destroy_event(uint32_t event_id)
{
  struct kfd_ioctl_destroy_event_args args = {.event_id = event_id};
  return kfd_ioctl(AMDKFD_IOC_DESTROY_EVENT, &args);
}

int kfd_set_event(uint32_t event_id)
{
  struct kfd_ioctl_set_event_args args = {.event_id = event_id};
  return kfd_ioctl(AMDKFD_IOC_SET_EVENT, &args);
}

int kfd_reset_event(uint32_t event_id)
{
  struct kfd_ioctl_reset_event_args args = {.event_id = event_id};
  return kfd_ioctl(AMDKFD_IOC_RESET_EVENT, &args);
}

int kfd_wait_events(struct kfd_event_data *data, uint32_t n, bool wait_all, uint32_t timeout_ms,
                    uint32_t *result)
{
  struct kfd_ioctl_wait_events_args args = {
    .events_ptr = (uint64_t)(uintptr_t)data,
    .num_events = n,
    .wait_for_all = wait_all ? 1 : 0,
    .timeout = timeout_ms,
  };
  int err;

  if (!data || !n)
    return -EINVAL;
  err = kfd_ioctl(AMDKFD_IOC_WAIT_EVENTS, &args);
  if (err)
    return err;
  if (result)
    *result = args.wait_result;
  return 0;
}
