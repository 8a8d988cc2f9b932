/* bench_launch: what a kernel launch costs the host.
 *   launch.enqueue          one asynchronous hipLaunchKernel of an empty kernel (batches of 256)
 *   launch.roundtrip        hipLaunchKernel + hipStreamSynchronize
 *   launch.back_to_back     N kernels back to back, then one synchronize (per kernel)
 * and the same three through hipModuleLaunchKernel. */
#include "bench.h"

#include <stdio.h>

enum { BATCH = 256, BACK_TO_BACK = 64 };

typedef hipError_t (*launch_fn)(struct bench_hip *h, const void *kernel, hipStream_t s);

static hipError_t launch_runtime(struct bench_hip *h, const void *stub, hipStream_t s) {
  return h->LaunchKernel(stub, (dim3){1, 1, 1}, (dim3){64, 1, 1}, NULL, 0, s);
}

static hipError_t launch_module(struct bench_hip *h, const void *fn, hipStream_t s) {
  return h->ModuleLaunchKernel((hipFunction_t)fn, 1, 1, 1, 64, 1, 1, 0, s, NULL, NULL);
}

static void bench_launch_set(struct bench_hip *h, const char *prefix, launch_fn launch,
                             const void *kernel, hipStream_t s, size_t iters) {
  struct bench_samples smp = {0};
  char name[96];

  for (int i = 0; i < 16; i++) /* warm up: code loaded, queues created */
    BENCH_CHECK(h, launch(h, kernel, s));
  BENCH_CHECK(h, h->StreamSynchronize(s));

  /* One sample per batch; as many samples as the round trip below, so that the median of a
   * figure this short is not the middle of a handful. */
  for (size_t i = 0; i < iters / 8 + 1; i++) {
    uint64_t t0 = bench_now_ns();
    for (int j = 0; j < BATCH; j++)
      BENCH_CHECK(h, launch(h, kernel, s));
    bench_samples_add(&smp, (double)(bench_now_ns() - t0) / BATCH);
    BENCH_CHECK(h, h->StreamSynchronize(s));
  }
  snprintf(name, sizeof(name), "%s.enqueue", prefix);
  bench_report(name, &smp, "ns");

  for (size_t i = 0; i < iters / 8 + 1; i++) {
    uint64_t t0 = bench_now_ns();
    BENCH_CHECK(h, launch(h, kernel, s));
    BENCH_CHECK(h, h->StreamSynchronize(s));
    bench_samples_add(&smp, (double)(bench_now_ns() - t0) / 1000.0);
  }
  snprintf(name, sizeof(name), "%s.roundtrip", prefix);
  bench_report(name, &smp, "us");

  for (size_t i = 0; i < iters / BACK_TO_BACK + 1; i++) {
    uint64_t t0 = bench_now_ns();
    for (int j = 0; j < BACK_TO_BACK; j++)
      BENCH_CHECK(h, launch(h, kernel, s));
    BENCH_CHECK(h, h->StreamSynchronize(s));
    bench_samples_add(&smp, (double)(bench_now_ns() - t0) / 1000.0 / BACK_TO_BACK);
  }
  snprintf(name, sizeof(name), "%s.back_to_back_%d", prefix, BACK_TO_BACK);
  bench_report(name, &smp, "us/kernel");
}

int main(void) {
  struct bench_hip h;
  bench_hip_open(&h);
  size_t iters = bench_iters(2048);
  BENCH_CHECK(&h, h.Init(0));
  BENCH_CHECK(&h, h.SetDevice(0));

  hipStream_t s;
  BENCH_CHECK(&h, h.StreamCreate(&s));
  bench_table_header("launch");

  const void *stub = bench_register_empty_kernel(&h);
  bench_launch_set(&h, "launch", launch_runtime, stub, s, iters);

  hipModule_t mod;
  hipFunction_t fn;
  BENCH_CHECK(&h, h.ModuleLoadData(&mod, bench_empty_bundle));
  BENCH_CHECK(&h, h.ModuleGetFunction(&fn, mod, "bench_empty"));
  bench_launch_set(&h, "module_launch", launch_module, fn, s, iters);

  BENCH_CHECK(&h, h.StreamDestroy(s));
  return 0;
}
