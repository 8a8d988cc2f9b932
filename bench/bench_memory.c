/* bench_memory: allocation and copy costs.
 *   malloc.<size> / free.<size>      hipMalloc and hipFree of 4 KiB, 1 MiB and 256 MiB
 *   memcpy.<dir>.<mem>.<size>        hipMemcpy latency, 4 B and 4 KiB, pageable and pinned host memory
 *   bandwidth.<dir>.<mem>.256MiB     hipMemcpy bandwidth of 256 MiB */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void bench_alloc(struct bench_hip *h, size_t size, const char *label, size_t iters) {
  struct bench_samples m = {0}, f = {0};
  char name[64];
  void **ptrs = calloc(iters, sizeof(*ptrs));
  for (size_t i = 0; i < iters; i++) {
    uint64_t t0 = bench_now_ns();
    BENCH_CHECK(h, h->Malloc(&ptrs[i], size));
    bench_samples_add(&m, (double)(bench_now_ns() - t0));
  }
  for (size_t i = 0; i < iters; i++) {
    uint64_t t0 = bench_now_ns();
    BENCH_CHECK(h, h->Free(ptrs[i]));
    bench_samples_add(&f, (double)(bench_now_ns() - t0));
  }
  free(ptrs);
  snprintf(name, sizeof(name), "malloc.%s", label);
  bench_report(name, &m, "ns");
  snprintf(name, sizeof(name), "free.%s", label);
  bench_report(name, &f, "ns");
}

static void bench_copy_latency(struct bench_hip *h, void *dev, void *host, size_t size,
                               const char *mem, const char *label, size_t iters) {
  struct bench_samples smp = {0};
  char name[64];
  for (int dir = 0; dir < 2; dir++) {
    for (size_t i = 0; i < iters; i++) {
      uint64_t t0 = bench_now_ns();
      if (dir == 0)
        BENCH_CHECK(h, h->Memcpy(dev, host, size, hipMemcpyHostToDevice));
      else
        BENCH_CHECK(h, h->Memcpy(host, dev, size, hipMemcpyDeviceToHost));
      bench_samples_add(&smp, (double)(bench_now_ns() - t0) / 1000.0);
    }
    snprintf(name, sizeof(name), "memcpy.%s.%s.%s", dir ? "d2h" : "h2d", mem, label);
    bench_report(name, &smp, "us");
  }
}

static void bench_bandwidth(struct bench_hip *h, void *dev, void *host, size_t size,
                            const char *mem, size_t iters) {
  struct bench_samples smp = {0};
  char name[64];
  for (int dir = 0; dir < 2; dir++) {
    for (size_t i = 0; i < iters; i++) {
      uint64_t t0 = bench_now_ns();
      if (dir == 0)
        BENCH_CHECK(h, h->Memcpy(dev, host, size, hipMemcpyHostToDevice));
      else
        BENCH_CHECK(h, h->Memcpy(host, dev, size, hipMemcpyDeviceToHost));
      bench_samples_add(&smp, (double)size / (double)(bench_now_ns() - t0)); /* bytes/ns = GB/s */
    }
    snprintf(name, sizeof(name), "bandwidth.%s.%s.256MiB", dir ? "d2h" : "h2d", mem);
    bench_report(name, &smp, "GB/s");
  }
}

int main(void) {
  struct bench_hip h;
  bench_hip_open(&h);
  size_t iters = bench_iters(1000);
  BENCH_CHECK(&h, h.Init(0));
  BENCH_CHECK(&h, h.SetDevice(0));
  bench_table_header("memory");

  bench_alloc(&h, 4096, "4KiB", iters);
  bench_alloc(&h, 1 << 20, "1MiB", iters / 10 + 1);
  bench_alloc(&h, 256u << 20, "256MiB", 8);

  const size_t big = 256u << 20;
  void *dev, *pinned, *pageable = malloc(big);
  BENCH_CHECK(&h, h.Malloc(&dev, big));
  BENCH_CHECK(&h, h.HostMalloc(&pinned, big, 0));
  memset(pageable, 1, big);
  memset(pinned, 2, big);

  bench_copy_latency(&h, dev, pageable, 4, "pageable", "4B", iters);
  bench_copy_latency(&h, dev, pinned, 4, "pinned", "4B", iters);
  bench_copy_latency(&h, dev, pageable, 4096, "pageable", "4KiB", iters);
  bench_copy_latency(&h, dev, pinned, 4096, "pinned", "4KiB", iters);
  size_t bw_iters = bench_iters(5) < 5 ? bench_iters(5) : 5;
  bench_bandwidth(&h, dev, pageable, big, "pageable", bw_iters);
  bench_bandwidth(&h, dev, pinned, big, "pinned", bw_iters);

  BENCH_CHECK(&h, h.Free(dev));
  BENCH_CHECK(&h, h.HostFree(pinned));
  free(pageable);
  return 0;
}
