/* isa_throughput: how fast kfdsim's interpreter executes real kernels.
 *
 * Runs clang-19-compiled kernels (tests/isa/kernels: an FMA loop, a tiled SGEMM, a vector add)
 * through isa_dispatch_run with one host thread and with every core, and reports wave
 * instructions per second and vector lane operations per second. Output: a table, then one JSON
 * line per measurement: {"name", "median", "p10", "p90", "n", "unit"}.
 *
 * Usage: isa_throughput [kernel-dir [gfx90a|gfx942 [repetitions]]]
 */
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

static void record(const char *name, const char *what, unsigned threads, double *v, int n, const char *unit)
{
  struct result_line *r = &lines[nlines++];
  snprintf(r->name, sizeof(r->name), "isa_%s_%s_%ut", name, what, threads);
  r->s = stats(v, n);
  r->n = n;
  r->unit = unit;
}

static int measure(struct harness *h, const struct workload *wl, unsigned threads, int reps)
{
  double ips[64], lops[64];
  h->host_threads = threads;
  struct harness_launch l = {.name = wl->name, .grid = {wl->grid, 1, 1}, .block = {wl->block, 1, 1},
                             .kernarg = wl->args, .kernarg_size = wl->args_size};
  for (int i = 0; i < reps; i++) {
    struct isa_result r;
    double t0 = now_s();
    if (harness_run(h, &l, &r) || r.status != ISA_OK) {
      fprintf(stderr, "isa_throughput: %s failed: %s\n", wl->name, r.message);
      return -1;
    }
    double dt = now_s() - t0;
    ips[i] = (double)r.instructions_executed / dt;
    lops[i] = (double)r.lane_ops / dt;
  }
  record(wl->name, "wave_insts", threads, ips, reps, "inst/s");
  record(wl->name, "lane_ops", threads, lops, reps, "op/s");
  return 0;
}

int main(int argc, char **argv)
{
  const char *dir = argc > 1 ? argv[1] : ISA_BENCH_KERNEL_DIR;
  const char *arch = argc > 2 ? argv[2] : "gfx942";
  int reps = argc > 3 ? atoi(argv[3]) : 7;
  if (reps < 1 || reps > 64)
    reps = 7;
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
  for (size_t i = 0; i < sizeof(wls) / sizeof(wls[0]); i++) {
    if (measure(&h, &wls[i], 1, reps))
      return 1;
    if (cores > 1 && measure(&h, &wls[i], cores, reps))
      return 1;
  }
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
