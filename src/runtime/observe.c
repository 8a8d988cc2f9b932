/* hipkfd: dispatch of API calls to their observers (see observe.h). */
#include "observe.h"

#include <time.h>

_Atomic unsigned hip_observe_flags;

static const struct hip_api_observer *_Atomic observers[HIP_OBSERVE_KINDS];
static _Atomic uint64_t next_correlation_id = 1;

static unsigned kind_index(enum hip_observer_kind kind)
{
  return (unsigned)__builtin_ctz((unsigned)kind);
}

void hip_observe_register(enum hip_observer_kind kind, const struct hip_api_observer *observer)
{
  atomic_store_explicit(&observers[kind_index(kind)], observer, memory_order_release);
}

void hip_observe_enable(enum hip_observer_kind kind, int on)
{
  if (on)
    atomic_fetch_or_explicit(&hip_observe_flags, (unsigned)kind, memory_order_acq_rel);
  else
    atomic_fetch_and_explicit(&hip_observe_flags, ~(unsigned)kind, memory_order_acq_rel);
}

static uint64_t now_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Observers run in kind order at begin and in reverse order at end, so that an inner observer's
 * time (the log's formatting) does not count in an outer one's span. */
void hip_observe_call_begin(struct hip_api_call *call)
{
  call->correlation_id = atomic_fetch_add_explicit(&next_correlation_id, 1, memory_order_relaxed);
  unsigned flags = atomic_load_explicit(&hip_observe_flags, memory_order_acquire);
  for (unsigned i = 0; i < HIP_OBSERVE_KINDS; i++) {
    const struct hip_api_observer *obs = atomic_load_explicit(&observers[i], memory_order_acquire);
    if ((flags & (1u << i)) && obs && obs->begin)
      obs->begin(call);
  }
  call->begin_ns = now_ns();
}

void hip_observe_call_end(struct hip_api_call *call)
{
  call->end_ns = now_ns();
  unsigned flags = atomic_load_explicit(&hip_observe_flags, memory_order_acquire);
  for (unsigned i = HIP_OBSERVE_KINDS; i-- > 0;) {
    const struct hip_api_observer *obs = atomic_load_explicit(&observers[i], memory_order_acquire);
    if ((flags & (1u << i)) && obs && obs->end)
      obs->end(call);
  }
}
