/* The execution gate: lets the driver stop the GPU between runs of packets.
 *
 * The real driver can stop a process's queues (evict them, unmap their MQDs) while it moves
 * memory; kfdsim's one such move is an arena BO detached at its first dma-buf export
 * (sim/kfd/vram_arena.c), which copies the BO and must not race with the GPU writing it.
 * Queue workers pass the gate around each run of packets (cp_gate_enter/leave); the driver asks
 * for a pause, which waits until no worker is inside a run and holds new runs at the gate until
 * it resumes. A run that does not end (a kernel spinning on memory only the host will write)
 * cannot be waited for: the pause gives up after a timeout and reports it.
 *
 * Dekker-style: a worker announces itself (running++) then checks for a pause; the driver
 * announces the pause then checks for runners; both are sequentially consistent, so one of the
 * two always sees the other. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <time.h>

#include "cp/cp_internal.h"

static atomic_uint gate_pauses;  /* pauses requested and not yet resumed */
static atomic_uint gate_running; /* workers inside a run */
static pthread_mutex_t gate_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate_cond = PTHREAD_COND_INITIALIZER;

static void gate_broadcast(void)
{
  pthread_mutex_lock(&gate_lock);
  pthread_cond_broadcast(&gate_cond);
  pthread_mutex_unlock(&gate_lock);
}

void cp_gate_enter(void)
{
  for (;;) {
    atomic_fetch_add(&gate_running, 1);
    if (!atomic_load(&gate_pauses))
      return;
    /* A pause is on: step back out (waking the driver if we were the last) and wait. */
    if (atomic_fetch_sub(&gate_running, 1) == 1)
      gate_broadcast();
    pthread_mutex_lock(&gate_lock);
    while (atomic_load(&gate_pauses))
      pthread_cond_wait(&gate_cond, &gate_lock);
    pthread_mutex_unlock(&gate_lock);
  }
}

void cp_gate_leave(void)
{
  if (atomic_fetch_sub(&gate_running, 1) == 1 && atomic_load(&gate_pauses))
    gate_broadcast();
}

bool sim_cp_pause(uint64_t timeout_ns)
{
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  until.tv_sec += (time_t)(timeout_ns / 1000000000ull);
  until.tv_nsec += (long)(timeout_ns % 1000000000ull);
  if (until.tv_nsec >= 1000000000L) {
    until.tv_sec++;
    until.tv_nsec -= 1000000000L;
  }
  atomic_fetch_add(&gate_pauses, 1);
  pthread_mutex_lock(&gate_lock);
  while (atomic_load(&gate_running))
    if (pthread_cond_timedwait(&gate_cond, &gate_lock, &until) == ETIMEDOUT)
      break;
  bool quiet = atomic_load(&gate_running) == 0;
  pthread_mutex_unlock(&gate_lock);
  return quiet;
}

void cp_gate_atfork_child(void)
{
  atomic_store(&gate_running, 0);
  atomic_store(&gate_pauses, 0);
  pthread_mutex_init(&gate_lock, NULL);
  pthread_cond_init(&gate_cond, NULL);
}

void sim_cp_resume(void)
{
  atomic_fetch_sub(&gate_pauses, 1);
  gate_broadcast();
}
