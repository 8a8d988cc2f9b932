/* src/queues: signals: values, waits, wake-ups from another thread, the pool. */
#include "lowlevel.h"
#include "queues/signal.h"

#include <errno.h>
#include <pthread.h>
#include <unistd.h>

Test(signal, load_store_add)
{
  struct kfd_gpu *gpu = ll_gpu();
  struct signal *s = NULL;

  cr_assert_eq(signal_create(gpu, 5, false, &s), 0);
  cr_assert_eq(signal_load(s), 5);
  signal_store(s, -3);
  cr_assert_eq(signal_load(s), -3);
  cr_assert_eq(signal_add(s, 10), -3);
  cr_assert_eq(signal_load(s), 7);
  cr_assert_neq(signal_gpu_va(s), 0u);
  cr_assert_eq(signal_gpu_va(s) % 64, 0u, "amd_signal_t is 64-byte aligned");
  cr_assert_eq(signal_event_id(s), 0u);
  signal_destroy(s);
}

Test(signal, wait_times_out_when_unsatisfied)
{
  struct kfd_gpu *gpu = ll_gpu();
  struct signal *s = NULL;

  cr_assert_eq(signal_create(gpu, 1, true, &s), 0);
  cr_assert_neq(signal_event_id(s), 0u);
  cr_assert_eq(signal_wait_lt(s, 1, 0, false), -ETIMEDOUT);
  cr_assert_eq(signal_wait_lt(s, 1, 2000000, true), -ETIMEDOUT);
  cr_assert_eq(signal_wait_lt(s, 2, 0, true), 0);
  signal_destroy(s);
}

static void *complete_later(void *arg)
{
  usleep(20000);
  signal_store(arg, 0);
  return NULL;
}

static void wait_woken(bool interrupt)
{
  struct kfd_gpu *gpu = ll_gpu();
  struct signal *s = NULL;
  pthread_t t;

  cr_assert_eq(signal_create(gpu, 1, interrupt, &s), 0);
  cr_assert_eq(pthread_create(&t, NULL, complete_later, s), 0);
  cr_assert_eq(signal_wait_lt(s, 1, UINT64_MAX, true), 0);
  cr_assert_eq(signal_load(s), 0);
  pthread_join(t, NULL);
  signal_destroy(s);
}

Test(signal, blocking_wait_wakes_on_store) { wait_woken(true); }
Test(signal, polling_wait_sees_store) { wait_woken(false); }

Test(signal, pool_recycles)
{
  struct kfd_gpu *gpu = ll_gpu();
  struct signal *a = NULL, *b = NULL;

  cr_assert_eq(signal_create(gpu, 0, true, &a), 0);
  signal_destroy(a);
  cr_assert_eq(signal_create(gpu, 9, true, &b), 0);
  cr_assert_eq(b, a, "a destroyed signal is handed out again");
  cr_assert_eq(signal_load(b), 9);
  signal_destroy(b);
}
