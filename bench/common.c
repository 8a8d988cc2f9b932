/* bench/common.c: library loading, statistics and output shared by the benchmarks. */
#define _GNU_SOURCE
#include "bench.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void bench_fail(const char *file, int line, const char *call, const char *name, int code) {
  fprintf(stderr, "%s:%d: %s failed: %s (%d)\n", file, line, call, name, code);
  exit(1);
}

static void *bench_sym(void *lib, const char *name) {
  void *p = dlsym(lib, name);
  if (!p) {
    fprintf(stderr, "bench: symbol %s missing from the library under test\n", name);
    exit(1);
  }
  return p;
}

void bench_hip_open(struct bench_hip *h) {
  const char *path = getenv("HIPKFD_BENCH_LIB");
  if (!path || !*path)
    path = "libamdhip64.so";
  memset(h, 0, sizeof(*h));
  uint64_t t0 = bench_now_ns();
  h->lib = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
  h->load_ns = (double)(bench_now_ns() - t0);
  if (!h->lib) {
    fprintf(stderr, "bench: cannot load %s: %s\n", path, dlerror());
    exit(1);
  }
#define SYM(field, name) *(void **)&h->field = bench_sym(h->lib, name)
  SYM(Init, "hipInit");
  SYM(GetDeviceCount, "hipGetDeviceCount");
  SYM(SetDevice, "hipSetDevice");
  SYM(Malloc, "hipMalloc");
  SYM(Free, "hipFree");
  SYM(HostMalloc, "hipHostMalloc");
  SYM(HostFree, "hipHostFree");
  SYM(Memcpy, "hipMemcpy");
  SYM(DeviceSynchronize, "hipDeviceSynchronize");
  SYM(StreamCreate, "hipStreamCreate");
  SYM(StreamDestroy, "hipStreamDestroy");
  SYM(StreamSynchronize, "hipStreamSynchronize");
  SYM(EventCreate, "hipEventCreate");
  SYM(EventDestroy, "hipEventDestroy");
  SYM(EventRecord, "hipEventRecord");
  SYM(EventSynchronize, "hipEventSynchronize");
  SYM(EventQuery, "hipEventQuery");
  SYM(ModuleLoadData, "hipModuleLoadData");
  SYM(ModuleGetFunction, "hipModuleGetFunction");
  SYM(ModuleLaunchKernel, "hipModuleLaunchKernel");
  SYM(LaunchKernel, "hipLaunchKernel");
  SYM(GetErrorName, "hipGetErrorName");
  SYM(RegisterFatBinary, "__hipRegisterFatBinary");
  SYM(RegisterFunction, "__hipRegisterFunction");
#undef SYM
}

/* The wrapper clang emits around a fat binary (magic "HIPF", version 1). */
struct bench_fatbin_wrapper {
  uint32_t magic;
  uint32_t version;
  const void *binary;
  void *reserved;
};

static struct bench_fatbin_wrapper bench_wrapper = {0x48495046u, 1, bench_empty_bundle, NULL};
static char bench_empty_name[] = "bench_empty";
static const char bench_empty_stub = 0; /* any unique host address serves as the stub */

const void *bench_register_empty_kernel(struct bench_hip *h) {
  void **module = h->RegisterFatBinary(&bench_wrapper);
  h->RegisterFunction(module, &bench_empty_stub, bench_empty_name, bench_empty_name,
                      (unsigned)-1, NULL, NULL, NULL, NULL, NULL);
  return &bench_empty_stub;
}

size_t bench_iters(size_t fallback) {
  const char *s = getenv("HIPKFD_BENCH_ITERS");
  long v = s ? atol(s) : 0;
  return v > 0 ? (size_t)v : fallback;
}

void bench_samples_add(struct bench_samples *s, double value) {
  if (s->n == s->cap) {
    s->cap = s->cap ? 2 * s->cap : 256;
    s->v = realloc(s->v, s->cap * sizeof(*s->v));
    if (!s->v) {
      perror("bench");
      exit(1);
    }
  }
  s->v[s->n++] = value;
}

static int bench_cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double bench_quantile(const struct bench_samples *s, double q) {
  size_t i = (size_t)(q * (double)(s->n - 1) + 0.5);
  return s->v[i];
}

void bench_table_header(const char *title) {
  printf("\n%s\n%-44s %14s %14s %14s %8s %s\n", title, "benchmark", "median", "p10", "p90",
         "n", "unit");
}

void bench_report(const char *name, struct bench_samples *s, const char *unit) {
  if (s->n == 0)
    return;
  qsort(s->v, s->n, sizeof(*s->v), bench_cmp);
  double med = bench_quantile(s, 0.5), p10 = bench_quantile(s, 0.1), p90 = bench_quantile(s, 0.9);
  printf("%-44s %14.3f %14.3f %14.3f %8zu %s\n", name, med, p10, p90, s->n, unit);
  printf("{\"name\": \"%s\", \"median\": %.6g, \"p10\": %.6g, \"p90\": %.6g, \"n\": %zu, "
         "\"unit\": \"%s\"}\n", name, med, p10, p90, s->n, unit);
  fflush(stdout);
  free(s->v);
  memset(s, 0, sizeof(*s));
}

void bench_report_note(const char *name, const char *why) {
  printf("%-44s %s\n", name, why);
  printf("{\"name\": \"%s\", \"skipped\": \"%s\"}\n", name, why);
  fflush(stdout);
}
