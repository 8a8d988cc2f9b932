/* kfdsim_idle: what an idle process costs. Run it on kfdsim (`kfdsim -- kfdsim_idle`, or with
 * LD_PRELOAD=libkfdsim.so): the command processors' doorbell watchers and queue workers must
 * sleep when nothing is submitted. Reports the process's CPU time per wall-clock second, in
 * percent of one core, over 1-second windows (HIPKFD_BENCH_ITERS windows, default 5):
 *   idle.after_init     hipInit + hipSetDevice + hipMalloc, nothing submitted yet
 *   idle.with_queues    after copies both ways and an event on a stream, so the runtime has
 *                       created its AQL and SDMA queues
 * The target on kfdsim is under 2% of one core. */
#include <string.h>

#include "bench.h"

enum { COPY_BYTES = 1 << 20 };

static uint64_t cpu_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Sleep through `windows` one-second windows and sample CPU% per window. */
static void measure_idle(const char *name, size_t windows)
{
  struct bench_samples smp = {0};
  for (size_t i = 0; i < windows; i++) {
    uint64_t c0 = cpu_ns(), t0 = bench_now_ns();
    struct timespec one = {.tv_sec = 1, .tv_nsec = 0};
    while (nanosleep(&one, &one))
      ;
    uint64_t c1 = cpu_ns(), t1 = bench_now_ns();
    bench_samples_add(&smp, 100.0 * (double)(c1 - c0) / (double)(t1 - t0));
  }
  bench_report(name, &smp, "%core");
}

int main(void)
{
  struct bench_hip h;
  bench_hip_open(&h);
  size_t windows = bench_iters(5);
  BENCH_CHECK(&h, h.Init(0));
  BENCH_CHECK(&h, h.SetDevice(0));
  void *dev, *host;
  BENCH_CHECK(&h, h.Malloc(&dev, COPY_BYTES));
  BENCH_CHECK(&h, h.HostMalloc(&host, COPY_BYTES, 0));
  memset(host, 0x5a, COPY_BYTES);
  bench_table_header("idle process CPU (run on kfdsim)");
  measure_idle("idle.after_init", windows);

  hipStream_t s;
  hipEvent_t ev;
  BENCH_CHECK(&h, h.StreamCreate(&s));
  BENCH_CHECK(&h, h.EventCreate(&ev));
  BENCH_CHECK(&h, h.Memcpy(dev, host, COPY_BYTES, hipMemcpyHostToDevice));
  BENCH_CHECK(&h, h.Memcpy(host, dev, COPY_BYTES, hipMemcpyDeviceToHost));
  BENCH_CHECK(&h, h.EventRecord(ev, s));
  BENCH_CHECK(&h, h.EventSynchronize(ev));
  measure_idle("idle.with_queues", windows);

  BENCH_CHECK(&h, h.EventDestroy(ev));
  BENCH_CHECK(&h, h.StreamDestroy(s));
  BENCH_CHECK(&h, h.HostFree(host));
  BENCH_CHECK(&h, h.Free(dev));
  return 0;
}
