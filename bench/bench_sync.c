/* bench_sync: events and streams.
 *   event.record_synchronize   hipEventRecord + hipEventSynchronize on an idle stream
 *   event.query_completed      hipEventQuery on an event that has completed
 *   stream.synchronize_idle    hipStreamSynchronize on a stream with nothing in flight */
#include "bench.h"

enum { BATCH = 1000 };

int main(void) {
  struct bench_hip h;
  bench_hip_open(&h);
  size_t iters = bench_iters(2000);
  struct bench_samples smp = {0};
  BENCH_CHECK(&h, h.Init(0));
  BENCH_CHECK(&h, h.SetDevice(0));

  hipStream_t s;
  hipEvent_t ev;
  BENCH_CHECK(&h, h.StreamCreate(&s));
  BENCH_CHECK(&h, h.EventCreate(&ev));
  bench_table_header("events and streams");

  for (size_t i = 0; i < iters; i++) {
    uint64_t t0 = bench_now_ns();
    BENCH_CHECK(&h, h.EventRecord(ev, s));
    BENCH_CHECK(&h, h.EventSynchronize(ev));
    bench_samples_add(&smp, (double)(bench_now_ns() - t0) / 1000.0);
  }
  bench_report("event.record_synchronize", &smp, "us");

  BENCH_CHECK(&h, h.EventRecord(ev, s));
  BENCH_CHECK(&h, h.EventSynchronize(ev));
  for (size_t i = 0; i < iters / 10 + 1; i++) {
    uint64_t t0 = bench_now_ns();
    for (int j = 0; j < BATCH; j++)
      BENCH_CHECK(&h, h.EventQuery(ev));
    bench_samples_add(&smp, (double)(bench_now_ns() - t0) / BATCH);
  }
  bench_report("event.query_completed", &smp, "ns");

  BENCH_CHECK(&h, h.StreamSynchronize(s));
  for (size_t i = 0; i < iters / 10 + 1; i++) {
    uint64_t t0 = bench_now_ns();
    for (int j = 0; j < BATCH; j++)
      BENCH_CHECK(&h, h.StreamSynchronize(s));
    bench_samples_add(&smp, (double)(bench_now_ns() - t0) / BATCH);
  }
  bench_report("stream.synchronize_idle", &smp, "ns");

  BENCH_CHECK(&h, h.EventDestroy(ev));
  BENCH_CHECK(&h, h.StreamDestroy(s));
  return 0;
}
