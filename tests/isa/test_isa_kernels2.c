/* HIP kernels built with the device libraries (kernels/kernels2.hip): ocml math, MFMA on both
 * targets, LDS atomics, DPP/swizzle/mbcnt, dynamic register indexing, and the GWS grid barrier
 * across more workgroups than host threads. Results are compared with CPU computations. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"

struct build {
  enum isa_target target;
  char file[32];
};

static const struct build builds[] = {
  {ISA_GFX90A, "hip2_gfx90a_O0.so"}, {ISA_GFX90A, "hip2_gfx90a_O3.so"},
  {ISA_GFX942, "hip2_gfx942_O0.so"}, {ISA_GFX942, "hip2_gfx942_O3.so"},
};
#define NB (sizeof(builds) / sizeof(builds[0]))

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
}

static bool close_f(double got, double want, double rel)
{
  if (isnan(want)) return isnan(got);
  if (isinf(want)) return got == want;
  return fabs(got - want) <= rel * (fabs(want) + 1e-30) || fabs(got - want) < 1e-30;
}

ParameterizedTestParameters(isa_kernels2, math) { return cr_make_param_array(struct build, builds, NB); }
ParameterizedTest(const struct build *b, isa_kernels2, math)
{
  struct harness h;
  open_build(&h, b);
  enum { n = 200 };
  float *x = harness_alloc(&h, n * 4), *o = harness_alloc(&h, n * 5 * 4);
  double *d = harness_alloc(&h, n * 2 * 8);
  for (int i = 0; i < n; i++) x[i] = (float)(i - 100) * 0.173f;
  x[7] = 0.0f; x[8] = -0.0f; x[9] = 1e-20f; x[10] = 3.0e5f; x[11] = sqrtf(3.0f);
  struct { float *x, *o; double *d; int n; } args = {x, o, d, n};
  launch(&h, "math", 256, 64, &args, 28, b->file);
  for (int i = 0; i < n; i++) {
    float v = x[i];
    cr_expect(close_f(o[5 * i + 0], sinf(v), 2e-6) || fabs(o[5 * i + 0] - sinf(v)) < 1e-6, "%s sin(%g) = %.9g want %.9g", b->file, v, o[5 * i], sinf(v));
    cr_expect(close_f(o[5 * i + 1], expf(v * 0.25f), 4e-7), "%s exp(%g) = %.9g", b->file, v * 0.25f, o[5 * i + 1]);
    cr_expect(close_f(o[5 * i + 2], logf(fmaf(v, v, 1.0f)), 4e-7) || fabs(o[5 * i + 2] - logf(fmaf(v, v, 1.0f))) < 1e-7, "%s log = %.9g want %.9g", b->file, o[5 * i + 2], logf(fmaf(v, v, 1.0f)));
    cr_expect(close_f(o[5 * i + 3], powf(fmaf(v, v, 0.5f), 0.75f), 4e-7), "%s pow = %.9g want %.9g", b->file, o[5 * i + 3], powf(fmaf(v, v, 0.5f), 0.75f));
    float q = v / fmaf(v, v, -3.0f);   /* HIP contracts v*v-3 into one fma */
    cr_expect(o[5 * i + 4] == q || (isnan(q) && isnan(o[5 * i + 4])), "%s %g / %g = %.9g want %.9g (division must be correctly rounded)", b->file, v, fmaf(v, v, -3.0f), o[5 * i + 4], q);
    cr_expect(d[2 * i] == sqrt(fma((double)v, v, 2.0)), "%s sqrt = %.17g want %.17g", b->file, d[2 * i], sqrt(fma((double)v, v, 2.0)));
    cr_expect(close_f(d[2 * i + 1], exp((double)v * 0.125), 1e-15), "%s exp64 = %.17g", b->file, d[2 * i + 1]);
  }
  harness_close(&h);
}

static float h2f(uint16_t h)
{
  int e = h >> 10 & 0x1f, m = h & 0x3ff;
  float v = e == 0 ? ldexpf((float)m, -24) : ldexpf((float)(m | 0x400), e - 25);
  return (h >> 15) ? -v : v;
}

ParameterizedTestParameters(isa_kernels2, mfma_f16) { return cr_make_param_array(struct build, builds, NB); }
ParameterizedTest(const struct build *b, isa_kernels2, mfma_f16)
{
  struct harness h;
  open_build(&h, b);
  uint16_t *A = harness_alloc(&h, 32 * 8 * 2), *B = harness_alloc(&h, 8 * 32 * 2);
  float *C = harness_alloc(&h, 32 * 32 * 4);
  /* small integers in half precision: products and sums are exact */
  static const uint16_t vals[] = {0x3c00, 0x4000, 0xbc00, 0x4200, 0x0000, 0xc000, 0x3800, 0x4400};
  for (int i = 0; i < 256; i++) { A[i] = vals[(i * 3) % 8]; B[i] = vals[(i * 5 + 1) % 8]; }
  struct { void *a, *b; float *c; } args = {A, B, C};
  launch(&h, "mfma_f16", 64, 64, &args, 24, b->file);
  for (int r = 0; r < 32; r++)
    for (int c = 0; c < 32; c++) {
      float want = 0;
      for (int k = 0; k < 8; k++) want += h2f(A[r * 8 + k]) * h2f(B[k * 32 + c]);
      cr_expect_eq(C[r * 32 + c], want, "%s C[%d][%d] = %g want %g", b->file, r, c, C[r * 32 + c], want);
    }
  harness_close(&h);
}

ParameterizedTestParameters(isa_kernels2, mfma_f32) { return cr_make_param_array(struct build, builds, NB); }
ParameterizedTest(const struct build *b, isa_kernels2, mfma_f32)
{
  struct harness h;
  open_build(&h, b);
  float *A = harness_alloc(&h, 16 * 4 * 4), *B = harness_alloc(&h, 4 * 16 * 4), *C = harness_alloc(&h, 16 * 16 * 4);
  for (int i = 0; i < 64; i++) { A[i] = (float)(i % 7) - 3.0f; B[i] = (float)(i % 5) * 0.5f; }
  struct { float *a, *b, *c; } args = {A, B, C};
  launch(&h, "mfma_f32", 64, 64, &args, 24, b->file);
  for (int r = 0; r < 16; r++)
    for (int c = 0; c < 16; c++) {
      float want = 0;
      for (int k = 0; k < 4; k++) want += A[r * 4 + k] * B[k * 16 + c];
      cr_expect_eq(C[r * 16 + c], want, "%s C[%d][%d] = %g want %g", b->file, r, c, C[r * 16 + c], want);
    }
  harness_close(&h);
}

ParameterizedTestParameters(isa_kernels2, mfma_f64) { return cr_make_param_array(struct build, builds, NB); }
ParameterizedTest(const struct build *b, isa_kernels2, mfma_f64)
{
  struct harness h;
  open_build(&h, b);
  double *A = harness_alloc(&h, 16 * 4 * 8), *B = harness_alloc(&h, 4 * 16 * 8), *C = harness_alloc(&h, 16 * 16 * 8);
  for (int i = 0; i < 64; i++) { A[i] = (double)(i % 7) - 3.0 + i * 0.125; B[i] = (double)(i % 5) * 0.5 - i; }
  struct { double *a, *b, *c; } args = {A, B, C};
  launch(&h, "mfma_f64", 64, 64, &args, 24, b->file);
  for (int r = 0; r < 16; r++)
    for (int c = 0; c < 16; c++) {
      double want = 0;
      for (int k = 0; k < 4; k++) want += A[r * 4 + k] * B[k * 16 + c];
      cr_expect(fabs(C[r * 16 + c] - want) <= 1e-12 * (fabs(want) + 1), "%s C[%d][%d] = %g want %g",
                b->file, r, c, C[r * 16 + c], want);
    }
  harness_close(&h);
}

ParameterizedTestParameters(isa_kernels2, lds_atomics) { return cr_make_param_array(struct build, builds, NB); }
ParameterizedTest(const struct build *b, isa_kernels2, lds_atomics)
{
  struct harness h;
  open_build(&h, b);
  enum { blocks = 4, bs = 256 };
  int *in = harness_alloc(&h, blocks * bs * 4), *out = harness_alloc(&h, blocks * 17 * 4);
  for (int i = 0; i < blocks * bs; i++) in[i] = (i * 2654435761u) >> 7 & 0xffff;
  struct { int *in, *out; } args = {in, out};
  /* every block reads in[0..255] (the kernel indexes by thread id only) */
  launch(&h, "lds_atomics", blocks * bs, bs, &args, 16, b->file);
  int hist[16] = {0}, mx = 0;
  for (int t = 0; t < bs; t++) { hist[in[t] & 15]++; if (in[t] > mx) mx = in[t]; }
  for (int k = 0; k < blocks; k++) {
    for (int j = 0; j < 16; j++)
      cr_expect_eq(out[k * 17 + j], hist[j], "%s block %d bin %d: %d want %d", b->file, k, j, out[k * 17 + j], hist[j]);
    cr_expect_eq(out[k * 17 + 16], mx, "%s block %d max", b->file, k);
  }
  harness_close(&h);
}

ParameterizedTestParameters(isa_kernels2, cross_lane) { return cr_make_param_array(struct build, builds, NB); }
ParameterizedTest(const struct build *b, isa_kernels2, cross_lane)
{
  struct harness h;
  open_build(&h, b);
  int *in = harness_alloc(&h, 64 * 4), *out = harness_alloc(&h, 64 * 3 * 4);
  for (int i = 0; i < 64; i++) in[i] = i * 7 + 100;
  struct { int *in, *out; } args = {in, out};
  launch(&h, "cross_lane", 64, 64, &args, 16, b->file);
  for (int l = 0; l < 64; l++) {
    cr_expect_eq(out[3 * l], (l & 15) ? in[l - 1] : 0, "%s dpp lane %d", b->file, l);
    cr_expect_eq(out[3 * l + 1], in[l ^ 4], "%s swizzle lane %d", b->file, l);
    cr_expect_eq(out[3 * l + 2], l, "%s mbcnt lane %d", b->file, l);
  }
  harness_close(&h);
}

ParameterizedTestParameters(isa_kernels2, dyn_index) { return cr_make_param_array(struct build, builds, NB); }
ParameterizedTest(const struct build *b, isa_kernels2, dyn_index)
{
  struct harness h;
  open_build(&h, b);
  int *idx = harness_alloc(&h, 128 * 4), *out = harness_alloc(&h, 128 * 4);
  for (int i = 0; i < 128; i++) idx[i] = (i * 5 + 3) % 11;
  struct { int *idx, *out; } args = {idx, out};
  launch(&h, "dyn_index", 128, 128, &args, 16, b->file);
  for (int t = 0; t < 128; t++) {
    int r[8];
    for (int i = 0; i < 8; i++) r[i] = t * 10 + i;
    int k = idx[t] & 7;
    r[k] += 1000;
    cr_expect_eq(out[t], r[(k + 3) & 7] + r[k], "%s lane %d: %d", b->file, t, out[t]);
  }
  harness_close(&h);
}

/* 12 workgroups on 2 host threads: the barrier only completes if the interpreter keeps every
 * workgroup resident, as a cooperative launch requires. */
ParameterizedTestParameters(isa_kernels2, gws_grid_barrier) { return cr_make_param_array(struct build, builds, NB); }
ParameterizedTest(const struct build *b, isa_kernels2, gws_grid_barrier)
{
  struct harness h;
  open_build(&h, b);
  enum { nblocks = 12 };
  int *sum = harness_alloc(&h, 4), *seen = harness_alloc(&h, nblocks * 4);
  struct { int *sum, *seen; int n; } args = {sum, seen, nblocks};
  launch(&h, "gws_sync", nblocks * 64, 64, &args, 20, b->file);
  for (int k = 0; k < nblocks; k++)
    cr_expect_eq(seen[k], nblocks * (nblocks + 1) / 2, "%s block %d saw %d before the barrier released", b->file, k, seen[k]);
  harness_close(&h);
}
