/* Whole HIP kernels (kernels/kernels.hip) compiled by clang++-19 for gfx90a and gfx942 at -O0
 * and -O3, run on the interpreter and compared with results computed here on the CPU. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"

/* Parameters are copied into Criterion's worker processes: no pointers inside. */
struct build {
  enum isa_target target;
  char file[32];
};

static const struct build builds[] = {
  {ISA_GFX90A, "hip_gfx90a_O0.so"}, {ISA_GFX90A, "hip_gfx90a_O3.so"},
  {ISA_GFX942, "hip_gfx942_O0.so"}, {ISA_GFX942, "hip_gfx942_O3.so"},
};

static void open_build(struct harness *h, const struct build *b)
{
  char path[512];
  snprintf(path, sizeof(path), "%s/%s", ISA_TEST_KERNEL_DIR, b->file);
  cr_assert_eq(harness_open(h, path, b->target), 0, "cannot load %s", path);
}

static void launch(struct harness *h, const char *name, uint32_t grid, uint32_t block, const void *args,
                   size_t size, const char *file)
{
  struct harness_launch l = {.name = name, .grid = {grid, 1, 1}, .block = {block, 1, 1},
                             .kernarg = args, .kernarg_size = size};
  struct isa_result r;
  cr_assert_eq(harness_run(h, &l, &r), 0, "%s: kernel %s not found", file, name);
  cr_assert_eq(r.status, ISA_OK, "%s %s: status %d: %s", file, name, r.status, r.message);
  cr_assert_gt(r.instructions_executed, 0);
}

ParameterizedTestParameters(isa_kernels, vadd)
{
  return cr_make_param_array(struct build, builds, sizeof(builds) / sizeof(builds[0]));
}

ParameterizedTest(const struct build *b, isa_kernels, vadd)
{
  struct harness h;
  open_build(&h, b);
  enum { n = 1000 };
  float *x = harness_alloc(&h, 1024 * 4), *y = harness_alloc(&h, 1024 * 4), *z = harness_alloc(&h, 1024 * 4);
  for (int i = 0; i < 1024; i++) { x[i] = (float)i * 0.25f; y[i] = 3.0f - (float)i; z[i] = -1.0f; }
  struct { float *a, *b, *c; int n; } args = {x, y, z, n};
  launch(&h, "vadd", 1024, 256, &args, 28, b->file);
  for (int i = 0; i < 1024; i++)
    cr_expect_eq(z[i], i < n ? x[i] + y[i] : -1.0f, "%s: c[%d] = %g", b->file, i, z[i]);
  harness_close(&h);
}

ParameterizedTestParameters(isa_kernels, grid_stride) { return cr_make_param_array(struct build, builds, 4); }
ParameterizedTest(const struct build *b, isa_kernels, grid_stride)
{
  struct harness h;
  open_build(&h, b);
  enum { n = 3000 };
  double *x = harness_alloc(&h, n * 8), *y = harness_alloc(&h, n * 8), want[n];
  for (int i = 0; i < n; i++) { x[i] = i * 1.5 - 7; y[i] = 1.0 / (i + 1); want[i] = 2.5 * x[i] + y[i] * 0.5; }
  struct { double *x, *y; double alpha; int n; } args = {x, y, 2.5, n};
  launch(&h, "grid_stride", 512, 128, &args, 28, b->file);
  for (int i = 0; i < n; i++)
    cr_expect(fabs(y[i] - want[i]) <= 1e-12 * fabs(want[i]), "%s: y[%d] = %.17g want %.17g", b->file, i, y[i], want[i]);
  harness_close(&h);
}

ParameterizedTestParameters(isa_kernels, lds_reduce) { return cr_make_param_array(struct build, builds, 4); }
ParameterizedTest(const struct build *b, isa_kernels, lds_reduce)
{
  struct harness h;
  open_build(&h, b);
  enum { blocks = 8, bs = 256 };
  int *in = harness_alloc(&h, blocks * bs * 4), *out = harness_alloc(&h, blocks * 4);
  for (int i = 0; i < blocks * bs; i++) in[i] = (i * 37) % 1001 - 500;
  struct { int *in, *out; } args = {in, out};
  launch(&h, "lds_reduce", blocks * bs, bs, &args, 16, b->file);
  for (int k = 0; k < blocks; k++) {
    int s = 0;
    for (int i = 0; i < bs; i++) s += in[k * bs + i];
    cr_expect_eq(out[k], s, "%s: block %d sum %d want %d", b->file, k, out[k], s);
  }
  harness_close(&h);
}

ParameterizedTestParameters(isa_kernels, shuffles) { return cr_make_param_array(struct build, builds, 4); }
ParameterizedTest(const struct build *b, isa_kernels, shuffles)
{
  struct harness h;
  open_build(&h, b);
  int *in = harness_alloc(&h, 64 * 4), *out = harness_alloc(&h, 64 * 4);
  unsigned long long *ballot = harness_alloc(&h, 8);
  unsigned long long want_ballot = 0;
  for (int i = 0; i < 64; i++) {
    in[i] = i * i * 3 + 1;
    if (in[i] & 1) want_ballot |= 1ull << i;
  }
  struct { int *in, *out; unsigned long long *ballots; } args = {in, out, ballot};
  launch(&h, "shuffles", 64, 64, &args, 24, b->file);
  for (int i = 0; i < 64; i++)
    cr_expect_eq(out[i], in[(i + 1) & 63] + in[0], "%s: out[%d]", b->file, i);
  cr_expect_eq(*ballot, want_ballot, "%s: ballot 0x%llx want 0x%llx", b->file, *ballot, want_ballot);
  harness_close(&h);
}

ParameterizedTestParameters(isa_kernels, atomics) { return cr_make_param_array(struct build, builds, 4); }
ParameterizedTest(const struct build *b, isa_kernels, atomics)
{
  struct harness h;
  open_build(&h, b);
  enum { blocks = 16, bs = 256, total = blocks * bs };
  int *counter = harness_alloc(&h, 8);
  unsigned *mx = harness_alloc(&h, 4);
  float *fsum = harness_alloc(&h, 4);
  unsigned long long *u64 = harness_alloc(&h, 8);
  *u64 = 0xffffffffull - 3 * 7;   /* exactly one thread sees old == 0xffffffff */
  struct { int *c; unsigned *m; float *f; unsigned long long *u; } args = {counter, mx, fsum, u64};
  launch(&h, "atomics", total, bs, &args, 32, b->file);
  cr_expect_eq(counter[0], total, "%s: counter %d", b->file, counter[0]);
  cr_expect_eq(*mx, total - 1u, "%s: max %u", b->file, *mx);
  cr_expect_eq(*fsum, (float)total, "%s: float sum %g", b->file, *fsum);
  cr_expect_eq(*u64, 0xffffffffull - 21 + 3ull * total, "%s: u64 0x%llx", b->file, *u64);
  cr_expect_eq(counter[1], 7, "%s: returned old value never matched (counter[1] = %d)", b->file, counter[1]);
  harness_close(&h);
}

static int walk_ref(const int *a, int n, int k)
{
  int s = 0;
  for (int i = 0; i < n; i++) s += a[(i * k) % n];
  return s;
}

ParameterizedTestParameters(isa_kernels, scratch) { return cr_make_param_array(struct build, builds, 4); }
ParameterizedTest(const struct build *b, isa_kernels, scratch)
{
  struct harness h;
  open_build(&h, b);
  enum { total = 256 };
  int *in = harness_alloc(&h, total * 4), *out = harness_alloc(&h, total * 4);
  for (int t = 0; t < total; t++) in[t] = t * 13 + 5;
  struct { int *in, *out; int n; } args = {in, out, 32};
  launch(&h, "scratch_use", total, 128, &args, 20, b->file);
  for (int t = 0; t < total; t++) {
    int a[32];
    for (int i = 0; i < 32; i++) a[i] = in[t] * i + (i ^ t);
    cr_expect_eq(out[t], walk_ref(a, 32, in[t] & 31), "%s: out[%d]", b->file, t);
  }
  harness_close(&h);
}

ParameterizedTestParameters(isa_kernels, div64) { return cr_make_param_array(struct build, builds, 4); }
ParameterizedTest(const struct build *b, isa_kernels, div64)
{
  struct harness h;
  open_build(&h, b);
  enum { total = 64 };
  static const long long nums[] = {0, 1, -1, 7, -7, 1000000007LL, INT64_MAX, INT64_MIN, 0x123456789abcdefLL,
                                   -0x7edcba9876543210LL, 42, 99999999999LL, -3, 65536};
  static const long long dens[] = {1, -1, 3, -3, 7, 1000, 0x100000000LL, -0x100000001LL, INT64_MAX, 2, 13, 255};
  long long *a = harness_alloc(&h, total * 8), *d = harness_alloc(&h, total * 8), *q = harness_alloc(&h, total * 8);
  unsigned long long *r = harness_alloc(&h, total * 8);
  for (int i = 0; i < total; i++) {
    a[i] = nums[i % 14];
    d[i] = dens[(i * 5) % 12];
    if (a[i] == INT64_MIN && d[i] == -1) d[i] = 3;
  }
  struct { long long *a, *b, *q; unsigned long long *r; } args = {a, d, q, r};
  launch(&h, "div64", total, 64, &args, 32, b->file);
  for (int i = 0; i < total; i++) {
    cr_expect_eq(q[i], a[i] / d[i], "%s: %lld / %lld = %lld", b->file, a[i], d[i], q[i]);
    cr_expect_eq(r[i], (unsigned long long)a[i] % (unsigned long long)d[i], "%s: %lld %% %lld", b->file, a[i], d[i]);
  }
  harness_close(&h);
}

ParameterizedTestParameters(isa_kernels, sgemm) { return cr_make_param_array(struct build, builds, 4); }
ParameterizedTest(const struct build *b, isa_kernels, sgemm)
{
  struct harness h;
  open_build(&h, b);
  enum { M = 40, N = 36, K = 44 };
  float *A = harness_alloc(&h, M * K * 4), *B = harness_alloc(&h, K * N * 4), *C = harness_alloc(&h, M * N * 4);
  float want[M * N];
  for (int i = 0; i < M * K; i++) A[i] = (float)((i * 7) % 23 - 11) / 8.0f;
  for (int i = 0; i < K * N; i++) B[i] = (float)((i * 5) % 19 - 9) / 4.0f;
  for (int i = 0; i < M * N; i++) C[i] = (float)(i % 7);
  for (int r = 0; r < M; r++)
    for (int c = 0; c < N; c++) {
      double acc = 0;
      for (int k = 0; k < K; k++) acc += (double)A[r * K + k] * B[k * N + c];
      want[r * N + c] = (float)(1.5 * acc + 0.5 * C[r * N + c]);
    }
  struct { int m, n, k; float alpha; const float *a, *b; float beta; float *c; } args = {M, N, K, 1.5f, A, B, 0.5f, C};
  unsigned blocks = ((M + 15) / 16) * ((N + 15) / 16);
  launch(&h, "sgemm", blocks * 256, 256, &args, sizeof(args), b->file);
  for (int i = 0; i < M * N; i++)
    cr_expect(fabsf(C[i] - want[i]) <= 1e-5f * (1 + fabsf(want[i])), "%s: C[%d] = %g want %g", b->file, i, C[i], want[i]);
  harness_close(&h);
}

/* Faults: a store through a pointer outside the registered buffers ends the dispatch with a
 * page fault naming the address; the host survives. */
ParameterizedTestParameters(isa_kernels, page_fault) { return cr_make_param_array(struct build, builds, 4); }
ParameterizedTest(const struct build *b, isa_kernels, page_fault)
{
  struct harness h;
  open_build(&h, b);
  float *x = harness_alloc(&h, 256 * 4), *y = harness_alloc(&h, 256 * 4);
  float *bad = (float *)(uintptr_t)0x7000deadb000ull;
  struct { float *a, *b, *c; int n; } args = {x, y, bad, 256};
  struct harness_launch l = {.name = "vadd", .grid = {256, 1, 1}, .block = {64, 1, 1}, .kernarg = &args, .kernarg_size = 28};
  struct isa_result r;
  cr_assert_eq(harness_run(&h, &l, &r), 0);
  cr_expect_eq(r.status, ISA_PAGE_FAULT, "%s: status %d (%s)", b->file, r.status, r.message);
  cr_expect(r.fault_va >= 0x7000deadb000ull && r.fault_va < 0x7000deadb000ull + 1024, "fault va 0x%llx",
            (unsigned long long)r.fault_va);
  cr_expect(r.fault_write);
  cr_expect_neq(r.pc, 0);
  harness_close(&h);
}
