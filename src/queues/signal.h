/* src/queues: signals.
 *
 * A signal is an amd_signal_t (the ABI the command processor and kernels read: amd_hsa_signal.h)
 * in host-coherent memory the GPU can write, plus, when `interrupt` is set, a KFD signal event
 * whose mailbox slot (in the process events page) the CP writes before raising the interrupt.
 * Packets carry signal_gpu_va() as their completion_signal.
 *
 * Signals are recycled through a per-GPU pool: signal_create() after warm-up is neither an
 * ioctl nor a lock (a lock-free free list). signal_load() is one acquire load.
 */
#ifndef HIPKFD_SIGNAL_H
#define HIPKFD_SIGNAL_H

#include <stdbool.h>
#include <stdint.h>

struct kfd_gpu;
struct signal;

/* Create a signal with [in] initial value. [in] interrupt: give it a KFD event so waits can
 * sleep (and the CP raises an interrupt on completion). [out] out. Returns 0 or -errno. */
int signal_create(struct kfd_gpu *gpu, int64_t initial, bool interrupt, struct signal **out);

/* Return [in] s to its pool. The caller guarantees no packet still references it. */
void signal_destroy(struct signal *s);

/* The current value (acquire load). */
int64_t signal_load(const struct signal *s);

/* Store [in] value (release store) and wake waiters: sets the KFD event if one is attached. */
void signal_store(struct signal *s, int64_t value);

/* Atomically add [in] delta (acq_rel); returns the previous value. Wakes waiters. */
int64_t signal_add(struct signal *s, int64_t delta);

/* Wait until the value is < [in] value. [in] timeout_ns: UINT64_MAX waits forever. [in] blocking:
 * sleep in WAIT_EVENTS after a short spin (if the signal has an event); when false, spin for the
 * spin budget then sleep anyway. Returns 0 when satisfied, -ETIMEDOUT, or -errno. */
int signal_wait_lt(struct signal *s, int64_t value, uint64_t timeout_ns, bool blocking);

/* Look at [in] s's event once with a zero timeout (a WAIT_EVENTS that never sleeps; nothing for
 * a signal without an event). For a thread polling the value itself for a while (a query loop):
 * under kfdsim, WAIT_EVENTS is where the emulated driver prompts its command processors, which
 * otherwise notice a doorbell rung while they slept only at their next poll (100 us to 10 ms).
 * signal_wait_lt does it by itself. Returns 0 or -errno. */
int signal_poke(struct signal *s);

/* The address a packet's completion_signal / dep_signal holds (GPU VA of the amd_signal_t). */
uint64_t signal_gpu_va(const struct signal *s);

/* The amd_signal_t's start_ts / end_ts (GPU ticks written by the CP for profiled dispatches).
 * [out] start, end. Returns 0, or -EAGAIN if the CP has not written them (end == 0). */
int signal_timestamps(const struct signal *s, uint64_t *start, uint64_t *end);

/* Convert GPU counter [in] ticks of [in] gpu to ns. */
uint64_t kfd_gpu_ticks_to_ns(struct kfd_gpu *gpu, uint64_t ticks);

/* The KFD event id of [in] s, or 0 if it has none. */
uint32_t signal_event_id(const struct signal *s);

/* ---- KFD events (src/queues/event.c) ------------------------------------------------------- */

/* Wait on the process memory-exception event (GPU page faults). [in] timeout_ms.
 * [out] va, [out] gpu_id of the fault (may be NULL). Returns 0 when a fault was reported,
 * -ETIMEDOUT, or -errno. */
int event_wait_memory_fault(uint32_t timeout_ms, uint64_t *va, uint32_t *gpu_id);
/* The driver's reason for the fault event_wait_memory_fault reported, in words; NULL before one. */
const char *event_memory_fault_reason(void);

/* Nonzero once any GPU page fault has been reported to this process (cheap, no syscall after
 * the first fault was seen; polls the event with a zero timeout otherwise). */
bool event_memory_fault_seen(void);
/* A memory fault was reported on the GPU with KFD id [in] gpu_id (or on an unnamed GPU). */
bool event_memory_fault_on(uint32_t gpu_id);
/* The same, asking the driver now rather than at most once per millisecond: for a queue known to
 * have stopped, whose cause is wanted. */
bool event_memory_fault_now(uint32_t gpu_id);

/* What the process's exception events say (polled at most once per millisecond): -EFAULT after
 * a GPU page fault, -EIO after a hardware exception (a GPU reset after a hang), else 0. */
int event_exception_seen(void);

/* Forget the exceptions seen so far (hipDeviceReset): the events are destroyed, and made anew
 * by the next poll or queue. */
void event_exceptions_forget(void);

#endif
