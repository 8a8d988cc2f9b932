/* isa_throughput: how fast kfdsim's interpreter executes real kernels.
 *
 * Runs clang-19-compiled kernels (tests/isa/kernels: an FMA loop, a tiled SGEMM, a vector add)
 * through isa_dispatch_run with one host thread and with every core, and reports wave
 * instructions per second and vector lane operations per second. Then large grids of short
 * kernels, where per-workgroup and per-wave costs dominate (a 64M-element vector add in
 * 256-item blocks, the same work as a grid-stride loop, an LDS reduction with s_barrier):
 * milliseconds per dispatch and waves per second; and the time of a one-wave dispatch that does
 * almost nothing (per-dispatch set-up). Output: a table, then one JSON line per
 * measurement: {"name", "median", "p10", "p90", "n", "unit"}.
 *
 * Usage: isa_throughput [kernel-dir [gfx90a|gfx942 [repetitions [only [threads]]]]]
 * `only`: run just the measurements whose name contains this string (for profiling one); with a
 * leading '=', just the one whose name is the rest ("=vadd": not grid_vadd_64M); "" for all.
 * `threads`: the most host threads a measurement uses (default: every core; 1 for
 * instruction counts that do not depend on how the workgroups were shared out).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

#ifndef ISA_BENCH_KERNEL_DIR
#define ISA_BENCH_KERNEL_DIR ISA_TEST_KERNEL_DIR
#endif

struct stat3 {
  double median, p10, p90;
};

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static struct stat3 stats(double *v, int n)
{
  qsort(v, (size_t)n, sizeof(*v), cmp_double);
  struct stat3 s = {v[n / 2], v[n / 10], v[(n * 9) / 10 < n ? (n * 9) / 10 : n - 1]};
  return s;
}

static double now_s(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

struct workload {
  const char *name;
  uint32_t grid, block;
  void *args;
  size_t args_size;
};

struct result_line {
  char name[96];
  struct stat3 s;
  int n;
  const char *unit;
};

static struct result_line lines[64];
static int nlines;
static const char *only;   /* substring filter of measurement names, or NULL */

/* Whether the measurement `name` is wanted (see `only` in the header comment). */
static bool wanted(const char *name)
{
  if (!only)
    return true;
  return only[0] == '=' ? !strcmp(name, only + 1) : strstr(name, only) != NULL;
}

static void record(const char *name, const char *what, unsigned threads, double *v, int n, const char *unit)
{
  struct result_line *r = &lines[nlines++];
  snprintf(r->name, sizeof(r->name), "isa_%s_%s_%ut", name, what, threads);
  r->s = stats(v, n);
  r->n = n;
  r->unit = unit;
}

/* One dispatch of [in] wl on [in] threads host threads: [out] r and its wall time [out] dt in
 * seconds. -1 (reported) when it fails. */
static int timed_run(struct harness *h, const struct workload *wl, const char *label,
                     unsigned threads, struct isa_result *r, double *dt)
{
  h->host_threads = threads;
  struct harness_launch l = {.name = wl->name, .grid = {wl->grid, 1, 1}, .block = {wl->block, 1, 1},
                             .kernarg = wl->args, .kernarg_size = wl->args_size};
  double t0 = now_s();
  if (harness_run(h, &l, r) || r->status != ISA_OK) {
    fprintf(stderr, "isa_throughput: %s failed: %s\n", label, r->message);
    return -1;
  }
  *dt = now_s() - t0;
  return 0;
}

/* One large-grid dispatch, `reps` times: wall milliseconds and waves per second. */
static int measure_grid(struct harness *h, const struct workload *wl, const char *label,
                        unsigned threads, int reps)
{
  double ms[64], wps[64], dt;
  if (!wanted(label))
    return 0;
  for (int i = 0; i < reps; i++) {
    struct isa_result r;
    if (timed_run(h, wl, label, threads, &r, &dt))
      return -1;
    ms[i] = dt * 1e3;
    wps[i] = (double)r.waves_executed / dt;
  }
  record(label, "ms", threads, ms, reps, "ms");
  record(label, "waves", threads, wps, reps, "wave/s");
  return 0;
}

static int measure(struct harness *h, const struct workload *wl, unsigned threads, int reps)
{
  double ips[64], lops[64], count[64], dt;
  if (!wanted(wl->name))
    return 0;
  for (int i = 0; i < reps; i++) {
    struct isa_result r;
    if (timed_run(h, wl, wl->name, threads, &r, &dt))
      return -1;
    ips[i] = (double)r.instructions_executed / dt;
    lops[i] = (double)r.lane_ops / dt;
    count[i] = (double)r.lane_ops;
  }
  record(wl->name, "wave_insts", threads, ips, reps, "inst/s");
  record(wl->name, "lane_ops", threads, lops, reps, "op/s");
  /* per dispatch: host instructions (callgrind) over this give the cost of a lane operation */
  if (threads == 1)
    record(wl->name, "lane_ops_per_dispatch", threads, count, reps, "op");
  return 0;
}

/* The cost of a dispatch that does almost nothing: one wave of vadd with n = 0 (it reads its
 * arguments, finds no element and ends), 1000 dispatches a sample: microseconds each. */
static int measure_dispatch(struct harness *h, float *a, int reps)
{
  enum { N = 1000 };
  const char *label = "dispatch_1wave";
  if (!wanted(label))
    return 0;
  struct { float *a, *b, *c; int n; } args = {a, a, a, 0};
  const struct workload wl = {"vadd", 64, 64, &args, 28};
  double us[64];
  for (int i = 0; i < reps; i++) {
    double total = 0, dt;
    for (int j = 0; j < N; j++) {
      struct isa_result r;
      if (timed_run(h, &wl, label, 1, &r, &dt))
        return -1;
      total += dt;
    }
    us[i] = total / N * 1e6;
  }
  record(label, "us", 1, us, reps, "us");
  return 0;
}

/* Large grids of short kernels: 64M floats (768 MiB in three arrays). */
static int large_grids(struct harness *h, unsigned cores, int reps)
{
  enum { N = 64 << 20, RB = 1 << 16 };
  const char *labels[] = {"grid_vadd_64M", "grid_stride_32M", "grid_lds_reduce_64K"};
  bool any = false;
  for (size_t i = 0; i < sizeof(labels) / sizeof(labels[0]); i++)
    any |= wanted(labels[i]);
  if (!any)
    return 0;   /* filtered out: skip filling 768 MiB */
  float *a = harness_alloc(h, (size_t)N * 4), *b = harness_alloc(h, (size_t)N * 4);
  float *c = harness_alloc(h, (size_t)N * 4);
  int *rin = harness_alloc(h, (size_t)RB * 256 * 4), *rout = harness_alloc(h, (size_t)RB * 4);
  if (!a || !b || !c || !rin || !rout) {
    fprintf(stderr, "isa_throughput: out of memory for the large grids\n");
    return -1;
  }
  for (size_t i = 0; i < N; i++) {
    a[i] = (float)(i & 1023);
    b[i] = 2.0f;
  }
  for (size_t i = 0; i < (size_t)RB * 256; i++)
    rin[i] = (int)(i & 7);
  struct { float *a, *b, *c; int n; } vadd_args = {a, b, c, N};
  struct { const double *x; double *y; double alpha; int n; } gs_args = {(double *)a, (double *)c, 2.0, N / 2};
  struct { int *in, *out; } red_args = {rin, rout};
  const struct workload wls[] = {
    {"vadd", N, 256, &vadd_args, 28},
    {"grid_stride", 1024 * 256, 256, &gs_args, 28},
    {"lds_reduce", RB * 256, 256, &red_args, sizeof(red_args)},
  };
  for (size_t i = 0; i < sizeof(wls) / sizeof(wls[0]); i++) {
    if (measure_grid(h, &wls[i], labels[i], 1, reps))
      return -1;
    if (cores > 1 && measure_grid(h, &wls[i], labels[i], cores, reps))
      return -1;
    /* result checks, so that a fast wrong interpreter does not pass for a fast one (the
     * grid-stride kernel overwrites c next) */
    for (size_t j = 0; i == 0 && wanted(labels[0]) && j < N; j += N / 64 + 1)
      if (c[j] != (float)(j & 1023) + 2.0f) {
        fprintf(stderr, "isa_throughput: vadd element %zu is %g\n", j, (double)c[j]);
        return -1;
      }
  }
  for (size_t g = 0; wanted(labels[2]) && g < RB; g += RB / 16)
    if (rout[g] != 256 / 8 * 28) {
      fprintf(stderr, "isa_throughput: lds_reduce block %zu gave %d, expected %d\n", g, rout[g], 256 / 8 * 28);
      return -1;
    }
  return 0;
}

int main(int argc, char **argv)
{
  const char *dir = argc > 1 ? argv[1] : ISA_BENCH_KERNEL_DIR;
  const char *arch = argc > 2 ? argv[2] : "gfx942";
  int reps = argc > 3 ? atoi(argv[3]) : 7;
  if (reps < 1 || reps > 64)
    reps = 7;
  only = argc > 4 && argv[4][0] ? argv[4] : NULL;
  enum isa_target t = strcmp(arch, "gfx90a") ? ISA_GFX942 : ISA_GFX90A;
  char path[1024];
  snprintf(path, sizeof(path), "%s/hip_%s_O3.so", dir, arch);
  struct harness h;
  if (harness_open(&h, path, t)) {
    fprintf(stderr, "isa_throughput: cannot load %s\n", path);
    return 1;
  }
  enum { n = 1 << 20, M = 128 };
  float *out = harness_alloc(&h, 64 * 1024 * 4);
  struct { float *out; int iters; } loop_args = {out, 200};
  float *a = harness_alloc(&h, n * 4), *b = harness_alloc(&h, n * 4), *c = harness_alloc(&h, n * 4);
  float *A = harness_alloc(&h, M * M * 4), *B = harness_alloc(&h, M * M * 4), *C = harness_alloc(&h, M * M * 4);
  if (!out || !a || !b || !c || !A || !B || !C) {
    fprintf(stderr, "isa_throughput: out of memory\n");
    return 1;
  }
  for (int i = 0; i < n; i++) { a[i] = (float)i; b[i] = 1.0f; }
  for (int i = 0; i < M * M; i++) { A[i] = (float)(i % 13); B[i] = (float)(i % 7); }
  struct { float *a, *b, *c; int n; } vadd_args = {a, b, c, n};
  struct { int m, n, k; float alpha; float *a, *b; float beta; float *c; } gemm_args = {M, M, M, 1.0f, A, B, 0.0f, C};
  const struct workload wls[] = {
    {"alu_loop", 64 * 1024, 256, &loop_args, sizeof(loop_args)},
    {"sgemm", (M / 16) * (M / 16) * 256, 256, &gemm_args, sizeof(gemm_args)},
    {"vadd", n, 256, &vadd_args, 28},
  };
  unsigned cores = (unsigned)sysconf(_SC_NPROCESSORS_ONLN);
  if (argc > 5 && atoi(argv[5]) >= 1 && (unsigned)atoi(argv[5]) < cores)
    cores = (unsigned)atoi(argv[5]);
  for (size_t i = 0; i < sizeof(wls) / sizeof(wls[0]); i++) {
    if (measure(&h, &wls[i], 1, reps))
      return 1;
    if (cores > 1 && measure(&h, &wls[i], cores, reps))
      return 1;
  }
  if (measure_dispatch(&h, a, reps) || large_grids(&h, cores, reps))
    return 1;
  printf("%-40s %14s %14s %14s %4s %s\n", "name", "median", "p10", "p90", "n", "unit");
  for (int i = 0; i < nlines; i++)
    printf("%-40s %14.4g %14.4g %14.4g %4d %s\n", lines[i].name, lines[i].s.median, lines[i].s.p10,
           lines[i].s.p90, lines[i].n, lines[i].unit);
  for (int i = 0; i < nlines; i++)
    printf("{\"name\": \"%s\", \"median\": %.6g, \"p10\": %.6g, \"p90\": %.6g, \"n\": %d, \"unit\": \"%s\"}\n",
           lines[i].name, lines[i].s.median, lines[i].s.p10, lines[i].s.p90, lines[i].n, lines[i].unit);
  harness_close(&h);
  return 0;
}
