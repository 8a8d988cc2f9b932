/* amd_signal_t (amd_hsa_signal.h facts: value at +8, event_mailbox_ptr at +16, event_id at +24,
 * start_ts at +32, end_ts at +40), updated the way the CP's end-of-pipe does: change the value,
 * then, for an interrupt signal, write event_id into the mailbox and raise an interrupt carrying
 * it (kfd_int_process_v9.c: CP end-of-pipe interrupts carry all 32 bits of the event id). */
#include <errno.h>

#include "cp_internal.h"

bool cp_signal_load(struct sim_gpu *gpu, uint64_t signal_va, int64_t *value)
{
  volatile uint64_t *v = cp_mem_u64(gpu, signal_va + CP_SIGNAL_VALUE_OFF, false);
  if (!v)
    return false;
  *value = (int64_t)__atomic_load_n(v, __ATOMIC_ACQUIRE);
  return true;
}

static int signal_raise(struct sim_gpu *gpu, uint64_t signal_va, uint64_t *fault_va)
{
  volatile uint64_t *mailbox = cp_mem_u64(gpu, signal_va + CP_SIGNAL_MAILBOX_OFF, false);
  volatile uint32_t *event_id = cp_mem_u32(gpu, signal_va + CP_SIGNAL_EVENT_ID_OFF, false);
  if (!mailbox || !event_id) {
    *fault_va = signal_va;
    return -EFAULT;
  }
  uint64_t mailbox_va = *mailbox;
  if (!mailbox_va)
    return 0;
  uint32_t id = *event_id;
  volatile uint32_t *slot = cp_mem_u32(gpu, mailbox_va, true);
  if (!slot) {
    *fault_va = mailbox_va;
    return -EFAULT;
  }
  /* The mailbox write is visible before the interrupt, as the CP orders them. */
  __atomic_store_n(slot, id, __ATOMIC_RELEASE);
  sim_event_interrupt(gpu, id, 32);
  return 0;
}

int cp_signal_add(struct sim_gpu *gpu, uint64_t signal_va, int64_t delta, uint64_t *fault_va)
{
  volatile uint64_t *v = cp_mem_u64(gpu, signal_va + CP_SIGNAL_VALUE_OFF, true);
  if (!v) {
    *fault_va = signal_va + CP_SIGNAL_VALUE_OFF;
    return -EFAULT;
  }
  /* Release: everything the packet wrote is visible to whoever sees the new value. */
  __atomic_fetch_add(v, (uint64_t)delta, __ATOMIC_ACQ_REL);
  return signal_raise(gpu, signal_va, fault_va);
}

int cp_signal_store(struct sim_gpu *gpu, uint64_t signal_va, int64_t value, uint64_t *fault_va)
{
  volatile uint64_t *v = cp_mem_u64(gpu, signal_va + CP_SIGNAL_VALUE_OFF, true);
  if (!v) {
    *fault_va = signal_va + CP_SIGNAL_VALUE_OFF;
    return -EFAULT;
  }
  __atomic_store_n(v, (uint64_t)value, __ATOMIC_RELEASE);
  return signal_raise(gpu, signal_va, fault_va);
}

int cp_signal_timestamp(struct sim_gpu *gpu, uint64_t signal_va, unsigned off, uint64_t ticks,
                        uint64_t *fault_va)
{
  volatile uint64_t *ts = cp_mem_u64(gpu, signal_va + off, true);
  if (!ts) {
    *fault_va = signal_va + off;
    return -EFAULT;
  }
  __atomic_store_n(ts, ticks, __ATOMIC_RELAXED);
  return 0;
}
