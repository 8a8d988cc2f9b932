/* The GPU-hang report of kfdsim's driver (sim/kfd/events.c sim_event_gpu_hang), white box: as
 * kfd_signal_reset_event() after a hang, every hardware-exception event is set and WAIT_EVENTS
 * hands back its kfd_hsa_hw_exception_data (reset cause GPU hang, memory lost, the GPU's id);
 * memory-exception events are left alone (the kernel raises those only for an ECC reset). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "kfd/uapi.h"
#include "kfd/kfd_priv.h"

static uint32_t create_event(uint32_t type)
{
  struct kfd_ioctl_create_event_args a;
  memset(&a, 0, sizeof(a));
  a.event_type = type;
  a.auto_reset = 1;
  cr_assert_eq(sim_ioctl_create_event(&a), 0);
  return a.event_id;
}

/* WAIT_EVENTS on one event without waiting: the wait result, and the event's data. */
static uint32_t poll_event(uint32_t id, struct kfd_event_data *data)
{
  memset(data, 0, sizeof(*data));
  data->event_id = id;
  struct kfd_ioctl_wait_events_args w;
  memset(&w, 0, sizeof(w));
  w.events_ptr = (uint64_t)(uintptr_t)data;
  w.num_events = 1;
  w.timeout = 0;
  sim_ioctl_wait_events(&w);
  return w.wait_result;
}

Test(sim_hang_event, a_hang_sets_the_hardware_exception_events)
{
  sim_events_reset();
  uint32_t hw = create_event(KFD_IOC_EVENT_HW_EXCEPTION);
  uint32_t mem = create_event(KFD_IOC_EVENT_MEMORY);
  struct kfd_event_data d;
  cr_assert_eq(poll_event(hw, &d), KFD_IOC_WAIT_RESULT_TIMEOUT, "set before any hang");

  struct sim_gpu *gpu = calloc(1, sizeof(*gpu));
  cr_assert_not_null(gpu);
  gpu->gpu_id = 0x5eed;
  sim_event_gpu_hang(gpu);

  cr_assert_eq(poll_event(hw, &d), KFD_IOC_WAIT_RESULT_COMPLETE);
  cr_assert_eq(d.hw_exception_data.reset_cause, KFD_HW_EXCEPTION_GPU_HANG);
  cr_assert_eq(d.hw_exception_data.reset_type, KFD_HW_EXCEPTION_WHOLE_GPU_RESET);
  cr_assert_eq(d.hw_exception_data.memory_lost, 1);
  cr_assert_eq(d.hw_exception_data.gpu_id, 0x5eed);
  cr_assert_eq(poll_event(hw, &d), KFD_IOC_WAIT_RESULT_TIMEOUT, "the wait did not reset the auto-reset event");
  cr_assert_eq(poll_event(mem, &d), KFD_IOC_WAIT_RESULT_TIMEOUT, "a hang raised a memory event");
  free(gpu);
}
