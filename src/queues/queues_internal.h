/* src/queues: helpers shared by the files of this layer only. */
#ifndef HIPKFD_QUEUES_INTERNAL_H
#define HIPKFD_QUEUES_INTERNAL_H

#include "amd_abi.h"
#include "signal.h"
#include "kfd/kfd.h"

#include <stdatomic.h>

struct signal_pool;

struct signal {
  struct amd_signal *abi;       /* in host-coherent memory mapped to the GPUs */
  struct kfd_gpu *gpu;
  uint32_t event_id;            /* 0 = no KFD event */
  _Atomic uint32_t waiters;     /* threads sleeping in WAIT_EVENTS on it */
  _Atomic uint64_t last_age;    /* KFD 1.14 event age seen by the last wait */
  struct signal_pool *pool;
  struct signal *next_free;     /* pool free list */
};

/* event.c: signal events with their mailbox in the process events page. */
int event_signal_create(struct kfd_gpu *gpu, uint32_t *event_id, uint64_t *mailbox_va);
void event_signal_destroy(uint32_t event_id);
/* Map the events page (if it exists yet) to gpu: every engine that completes signals writes
 * mailboxes in it, whichever GPU the signal was made for. */
int event_page_map(struct kfd_gpu *gpu);
int event_memory_init(void);
/* The same without asking the driver: only a fault some poll already saw (one load). */
extern _Atomic bool event_fault_seen;
extern uint32_t event_fault_gpu_id;   /* valid once event_fault_seen (release/acquire) */
static inline bool event_memory_fault_known_on(uint32_t gpu_id)
{
  return atomic_load_explicit(&event_fault_seen, memory_order_acquire) &&
         (event_fault_gpu_id == gpu_id || event_fault_gpu_id == 0);
}

/* signal.c */
int signal_wait_event(struct signal *s, uint32_t timeout_ms);

#endif
