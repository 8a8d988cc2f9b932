/* src/queues/fault.c: the process's GPU fault state (fault.h). */
#include "fault.h"
#include "signal.h"

#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#define QUEUE_POLL_INTERVAL_NS 1000000ull

static _Atomic int fault_err;              /* latched: 0, -EFAULT or -EIO */
static _Atomic uint64_t queues_polled_ns;  /* when the queue list was last walked */

int queues_fault_known(void)
{
  return atomic_load_explicit(&fault_err, memory_order_acquire);
}

/* Walking the queue list takes its lock: a poller in a tight loop (a full ring, a query loop)
 * walks it at most once per QUEUE_POLL_INTERVAL_NS, whichever thread does it. */
static bool queues_poll_due(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  uint64_t now = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
  uint64_t last = atomic_load_explicit(&queues_polled_ns, memory_order_relaxed);
  if (last && now - last < QUEUE_POLL_INTERVAL_NS)
    return false;
  return atomic_compare_exchange_strong_explicit(&queues_polled_ns, &last, now,
                                                 memory_order_relaxed, memory_order_relaxed);
}

int queues_fault_poll(void)
{
  int err = queues_fault_known();
  if (err)
    return err;
  if (queues_poll_due())
    err = aql_queues_error();
  if (!err)
    err = event_exception_seen(); /* rate-limited by itself */
  if (!err)
    return 0;
  int expected = 0;
  atomic_compare_exchange_strong_explicit(&fault_err, &expected, err, memory_order_acq_rel,
                                          memory_order_acquire);
  return queues_fault_known();
}

void queues_fault_forget(void)
{
  event_exceptions_forget();
  aql_queues_forget_stopped();
  atomic_store_explicit(&queues_polled_ns, 0, memory_order_relaxed);
  atomic_store_explicit(&fault_err, 0, memory_order_release);
}
