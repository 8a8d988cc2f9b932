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

/* One translation for the fields the end of a packet touches (value, mailbox, event id, both
 * timestamps: bytes 8..47), when they sit in one writable mapping, as they always do for a
 * runtime's signals; field by field otherwise, so a fault names the first field that fails. */
int cp_signal_complete(struct sim_gpu *gpu, uint64_t signal_va, uint64_t start, uint64_t end,
                       uint64_t *fault_va)
{
  uint8_t *sig = signal_va & 7 ? NULL
                               : sim_gpuvm_translate(gpu, signal_va + CP_SIGNAL_VALUE_OFF,
                                                     CP_SIGNAL_END_TS_OFF + 8 - CP_SIGNAL_VALUE_OFF,
                                                     true);
  if (!sig) {
    if (cp_signal_timestamp(gpu, signal_va, CP_SIGNAL_START_TS_OFF, start, fault_va) ||
        cp_signal_timestamp(gpu, signal_va, CP_SIGNAL_END_TS_OFF, end, fault_va))
      return -EFAULT;
    return cp_signal_add(gpu, signal_va, -1, fault_va);
  }
  sig -= CP_SIGNAL_VALUE_OFF; /* now the amd_signal_t itself */
  /* Timestamps first: whoever sees the decrement may read them. */
  __atomic_store_n((uint64_t *)(sig + CP_SIGNAL_START_TS_OFF), start, __ATOMIC_RELAXED);
  __atomic_store_n((uint64_t *)(sig + CP_SIGNAL_END_TS_OFF), end, __ATOMIC_RELAXED);
  __atomic_fetch_add((uint64_t *)(sig + CP_SIGNAL_VALUE_OFF), (uint64_t)-1, __ATOMIC_ACQ_REL);
  uint64_t mailbox_va = __atomic_load_n((uint64_t *)(sig + CP_SIGNAL_MAILBOX_OFF), __ATOMIC_RELAXED);
  if (!mailbox_va)
    return 0;
  uint32_t id = __atomic_load_n((uint32_t *)(sig + CP_SIGNAL_EVENT_ID_OFF), __ATOMIC_RELAXED);
  volatile uint32_t *slot = cp_mem_u32(gpu, mailbox_va, true);
  if (!slot) {
    *fault_va = mailbox_va;
    return -EFAULT;
  }
  __atomic_store_n(slot, id, __ATOMIC_RELEASE);
  sim_event_interrupt(gpu, id, 32);
  return 0;
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
