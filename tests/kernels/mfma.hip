/* Matrix cores (MFMA) through clang's builtins, on gfx90a and gfx942: f16, bf16, f32, f64 and
 * int8 variants, one wave each, plus a small GEMM that chains MFMAs over K in several waves.
 *
 * Register layouts (AMD's matrix instruction calculator, gfx9 single-block instructions):
 *   inputs  A[i][k] (B[k][j] alike with j for i): lane = (k / E) * M + i, element k % E of the
 *           lane's operand, where E = K * M / 64 elements per lane;
 *   32-bit outputs, MxN: lane = ((i / 4) % (64 / N)) * N + j, register (i / (4 * 64 / N)) * 4 + i % 4;
 *   64-bit outputs (f64 16x16): lane = (i % 4) * 16 + j, register i / 4.
 * Inputs are small integers, so every product and sum is exact in any order. */
#include "common.h"

typedef _Float16 kc_half4 __attribute__((ext_vector_type(4)));
typedef short kc_short4 __attribute__((ext_vector_type(4)));
typedef float kc_float4 __attribute__((ext_vector_type(4)));
typedef float kc_float16 __attribute__((ext_vector_type(16)));
typedef double kc_double4 __attribute__((ext_vector_type(4)));
typedef int kc_int4 __attribute__((ext_vector_type(4)));

/* Host side of the layouts. */
static int in_lane(int M, int K, int i, int k) { int E = K * M / 64; return (k / E) * M + i; }
static int in_elem(int M, int K, int k) { int E = K * M / 64; return k % E; }
static void out32_pos(int M, int N, int i, int j, int *lane, int *reg) {
  (void)M;
  int per = 64 / N;
  *lane = ((i / 4) % per) * N + j;
  *reg = (i / (4 * per)) * 4 + i % 4;
}

/* ---- f16 32x32x8 and 16x16x16 ---- */
__global__ void mfma_f16_32x32x8(const _Float16 *a, const _Float16 *b, const float *c, float *d) {
  int l = threadIdx.x;
  kc_half4 va, vb;
  for (int e = 0; e < 4; e++) {
    va[e] = a[l * 4 + e];
    vb[e] = b[l * 4 + e];
  }
  kc_float16 acc;
  for (int r = 0; r < 16; r++) acc[r] = c[l * 16 + r];
  acc = __builtin_amdgcn_mfma_f32_32x32x8f16(va, vb, acc, 0, 0, 0);
  for (int r = 0; r < 16; r++) d[l * 16 + r] = acc[r];
}
__global__ void mfma_f16_16x16x16(const _Float16 *a, const _Float16 *b, const float *c, float *d) {
  int l = threadIdx.x;
  kc_half4 va, vb;
  for (int e = 0; e < 4; e++) {
    va[e] = a[l * 4 + e];
    vb[e] = b[l * 4 + e];
  }
  kc_float4 acc;
  for (int r = 0; r < 4; r++) acc[r] = c[l * 4 + r];
  acc = __builtin_amdgcn_mfma_f32_16x16x16f16(va, vb, acc, 0, 0, 0);
  for (int r = 0; r < 4; r++) d[l * 4 + r] = acc[r];
}
/* bf16 operands travel as raw 16-bit patterns (the _1k forms, gfx90a and gfx942) */
__global__ void mfma_bf16_32x32x8(const short *a, const short *b, const float *c, float *d) {
  int l = threadIdx.x;
  kc_short4 va, vb;
  for (int e = 0; e < 4; e++) {
    va[e] = a[l * 4 + e];
    vb[e] = b[l * 4 + e];
  }
  kc_float16 acc;
  for (int r = 0; r < 16; r++) acc[r] = c[l * 16 + r];
  acc = __builtin_amdgcn_mfma_f32_32x32x8bf16_1k(va, vb, acc, 0, 0, 0);
  for (int r = 0; r < 16; r++) d[l * 16 + r] = acc[r];
}

/* One test for the 16-bit-input, f32-output instructions; `kind` 0: f16 32x32x8, 1: f16
 * 16x16x16, 2: bf16 32x32x8. */
static uint16_t bf16_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return (uint16_t)(u >> 16);                   /* exact for the small integers used here */
}
static int run_mfma16(int kind) {
  const int M = kind == 1 ? 16 : 32, N = M, K = kind == 1 ? 16 : 8, R = M * N / 64;
  const char *name = kind == 0 ? "mfma_f32_32x32x8f16" : kind == 1 ? "mfma_f32_16x16x16f16" : "mfma_f32_32x32x8bf16_1k";
  kc_rng rng(110 + kind);
  std::vector<int> A(M * K), B(K * N), C(M * N);
  for (auto &v : A) v = rng.irange(-8, 9);
  for (auto &v : B) v = rng.irange(-8, 9);
  for (auto &v : C) v = rng.irange(-100, 100);
  std::vector<uint16_t> a(64 * 4), b(64 * 4);
  std::vector<float> c(64 * R);
  for (int i = 0; i < M; i++)
    for (int k = 0; k < K; k++) {
      uint16_t bits = kind == 2 ? bf16_bits((float)A[i * K + k]) : kc_float_to_half((float)A[i * K + k]);
      a[in_lane(M, K, i, k) * 4 + in_elem(M, K, k)] = bits;
    }
  for (int k = 0; k < K; k++)
    for (int j = 0; j < N; j++) {
      uint16_t bits = kind == 2 ? bf16_bits((float)B[k * N + j]) : kc_float_to_half((float)B[k * N + j]);
      b[in_lane(N, K, j, k) * 4 + in_elem(N, K, k)] = bits;
    }
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      int lane, reg;
      out32_pos(M, N, i, j, &lane, &reg);
      c[lane * R + reg] = (float)C[i * N + j];
    }
  kc_buf<uint16_t> da, db;
  kc_buf<float> dc, dd;
  KC_HIP(da.upload(a));
  KC_HIP(db.upload(b));
  KC_HIP(dc.upload(c));
  KC_HIP(dd.zero(64 * R));
  if (kind == 0)
    mfma_f16_32x32x8<<<1, 64>>>((const _Float16 *)da.p, (const _Float16 *)db.p, dc.p, dd.p);
  else if (kind == 1)
    mfma_f16_16x16x16<<<1, 64>>>((const _Float16 *)da.p, (const _Float16 *)db.p, dc.p, dd.p);
  else
    mfma_bf16_32x32x8<<<1, 64>>>((const short *)da.p, (const short *)db.p, dc.p, dd.p);
  KC_SYNC();
  std::vector<float> d;
  KC_HIP(dd.download(d));
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      int want = C[i * N + j], lane, reg;
      for (int k = 0; k < K; k++) want += A[i * K + k] * B[k * N + j];
      out32_pos(M, N, i, j, &lane, &reg);
      KC_EXPECT(d[lane * R + reg] == (float)want, "%s D[%d][%d] (lane %d reg %d) = %g, want %d", name, i, j, lane, reg,
                d[lane * R + reg], want);
    }
  return KC_OK;
}
static int test_mfma_f16_32x32x8() { return run_mfma16(0); }
static int test_mfma_f16_16x16x16() { return run_mfma16(1); }
static int test_mfma_bf16_32x32x8() { return run_mfma16(2); }

/* ---- f32 32x32x2 and 16x16x4: one f32 per lane per operand ---- */
__global__ void mfma_f32_32x32x2(const float *a, const float *b, const float *c, float *d) {
  int l = threadIdx.x;
  kc_float16 acc;
  for (int r = 0; r < 16; r++) acc[r] = c[l * 16 + r];
  acc = __builtin_amdgcn_mfma_f32_32x32x2f32(a[l], b[l], acc, 0, 0, 0);
  for (int r = 0; r < 16; r++) d[l * 16 + r] = acc[r];
}
__global__ void mfma_f32_16x16x4(const float *a, const float *b, const float *c, float *d) {
  int l = threadIdx.x;
  kc_float4 acc;
  for (int r = 0; r < 4; r++) acc[r] = c[l * 4 + r];
  acc = __builtin_amdgcn_mfma_f32_16x16x4f32(a[l], b[l], acc, 0, 0, 0);
  for (int r = 0; r < 4; r++) d[l * 4 + r] = acc[r];
}
static int run_mfma_f32(bool big) {
  const int M = big ? 32 : 16, N = M, K = big ? 2 : 4, R = M * N / 64;
  const char *name = big ? "mfma_f32_32x32x2f32" : "mfma_f32_16x16x4f32";
  kc_rng rng(big ? 120 : 121);
  std::vector<float> A(M * K), B(K * N), C(M * N), a(64), b(64), c(64 * R);
  for (auto &v : A) v = (float)rng.irange(-1000, 1000) * 0.5f;
  for (auto &v : B) v = (float)rng.irange(-1000, 1000) * 0.25f;
  for (auto &v : C) v = (float)rng.irange(-100000, 100000);
  for (int i = 0; i < M; i++)
    for (int k = 0; k < K; k++) a[in_lane(M, K, i, k)] = A[i * K + k];
  for (int k = 0; k < K; k++)
    for (int j = 0; j < N; j++) b[in_lane(N, K, j, k)] = B[k * N + j];
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      int lane, reg;
      out32_pos(M, N, i, j, &lane, &reg);
      c[lane * R + reg] = C[i * N + j];
    }
  kc_buf<float> da, db, dc, dd;
  KC_HIP(da.upload(a)); KC_HIP(db.upload(b)); KC_HIP(dc.upload(c)); KC_HIP(dd.zero(64 * R));
  if (big)
    mfma_f32_32x32x2<<<1, 64>>>(da.p, db.p, dc.p, dd.p);
  else
    mfma_f32_16x16x4<<<1, 64>>>(da.p, db.p, dc.p, dd.p);
  KC_SYNC();
  std::vector<float> d;
  KC_HIP(dd.download(d));
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      double want = C[i * N + j];
      for (int k = 0; k < K; k++) want += (double)A[i * K + k] * B[k * N + j];
      int lane, reg;
      out32_pos(M, N, i, j, &lane, &reg);
      KC_EXPECT(d[lane * R + reg] == (float)want, "%s D[%d][%d] = %.9g, want %.9g", name, i, j, d[lane * R + reg], want);
    }
  return KC_OK;
}
static int test_mfma_f32_32x32x2() { return run_mfma_f32(true); }
static int test_mfma_f32_16x16x4() { return run_mfma_f32(false); }

/* ---- f64 16x16x4: its own output layout ---- */
__global__ void mfma_f64_16x16x4(const double *a, const double *b, const double *c, double *d) {
  int l = threadIdx.x;
  kc_double4 acc;
  for (int r = 0; r < 4; r++) acc[r] = c[l * 4 + r];
  acc = __builtin_amdgcn_mfma_f64_16x16x4f64(a[l], b[l], acc, 0, 0, 0);
  for (int r = 0; r < 4; r++) d[l * 4 + r] = acc[r];
}
static int test_mfma_f64_16x16x4() {
  const int M = 16, N = 16, K = 4;
  kc_rng rng(130);
  std::vector<double> A(M * K), B(K * N), C(M * N), a(64), b(64), c(256);
  for (auto &v : A) v = (double)rng.irange(-(1 << 20), 1 << 20) * 0.125;
  for (auto &v : B) v = (double)rng.irange(-(1 << 20), 1 << 20);
  for (auto &v : C) v = (double)rng.irange(-(1 << 30), 1 << 30);
  for (int i = 0; i < M; i++)
    for (int k = 0; k < K; k++) a[k * 16 + i] = A[i * K + k];
  for (int k = 0; k < K; k++)
    for (int j = 0; j < N; j++) b[k * 16 + j] = B[k * N + j];
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) c[((i % 4) * 16 + j) * 4 + i / 4] = C[i * N + j];
  kc_buf<double> da, db, dc, dd;
  KC_HIP(da.upload(a)); KC_HIP(db.upload(b)); KC_HIP(dc.upload(c)); KC_HIP(dd.zero(256));
  mfma_f64_16x16x4<<<1, 64>>>(da.p, db.p, dc.p, dd.p);
  KC_SYNC();
  std::vector<double> d;
  KC_HIP(dd.download(d));
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      double want = C[i * N + j];
      for (int k = 0; k < K; k++) want += A[i * K + k] * B[k * N + j];
      int lane = (i % 4) * 16 + j, reg = i / 4;
      KC_EXPECT(d[lane * 4 + reg] == want, "mfma_f64_16x16x4f64 D[%d][%d] (lane %d reg %d) = %.17g, want %.17g", i, j,
                lane, reg, d[lane * 4 + reg], want);
    }
  return KC_OK;
}

/* ---- int8 16x16xK: 16x16x16i8 on gfx90a (4 bytes per lane), 16x16x32_i8 on gfx942
 * (8 bytes per lane); the host picks K from the device's architecture ---- */
__global__ void mfma_i8_16x16(const long long *a, const long long *b, const int *c, int *d) {
#if defined(__gfx940__) || defined(__gfx941__) || defined(__gfx942__)
  int l = threadIdx.x;
  kc_int4 acc;
  for (int r = 0; r < 4; r++) acc[r] = c[l * 4 + r];
  acc = __builtin_amdgcn_mfma_i32_16x16x32_i8(a[l], b[l], acc, 0, 0, 0);
  for (int r = 0; r < 4; r++) d[l * 4 + r] = acc[r];
#else
  int l = threadIdx.x;
  kc_int4 acc;
  for (int r = 0; r < 4; r++) acc[r] = c[l * 4 + r];
  acc = __builtin_amdgcn_mfma_i32_16x16x16i8((int)a[l], (int)b[l], acc, 0, 0, 0);
  for (int r = 0; r < 4; r++) d[l * 4 + r] = acc[r];
#endif
}
static int test_mfma_i8_16x16() {
  hipDeviceProp_t prop;
  KC_HIP(hipGetDeviceProperties(&prop, 0));
  bool gfx94 = strncmp(prop.gcnArchName, "gfx94", 5) == 0;
  const int M = 16, N = 16, K = gfx94 ? 32 : 16, E = K * M / 64;
  kc_rng rng(140);
  std::vector<int> A(M * K), B(K * N), C(M * N);
  for (auto &v : A) v = rng.irange(-128, 128);
  for (auto &v : B) v = rng.irange(-128, 128);
  for (auto &v : C) v = rng.irange(-1000000, 1000000);
  std::vector<long long> a(64, 0), b(64, 0);
  std::vector<int> c(256);
  for (int i = 0; i < M; i++)
    for (int k = 0; k < K; k++)
      a[(k / E) * M + i] |= (long long)(unsigned long long)(uint8_t)A[i * K + k] << (8 * (k % E));
  for (int k = 0; k < K; k++)
    for (int j = 0; j < N; j++)
      b[(k / E) * N + j] |= (long long)(unsigned long long)(uint8_t)B[k * N + j] << (8 * (k % E));
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      int lane, reg;
      out32_pos(M, N, i, j, &lane, &reg);
      c[lane * 4 + reg] = C[i * N + j];
    }
  kc_buf<long long> da, db;
  kc_buf<int> dc, dd;
  KC_HIP(da.upload(a)); KC_HIP(db.upload(b)); KC_HIP(dc.upload(c)); KC_HIP(dd.zero(256));
  mfma_i8_16x16<<<1, 64>>>(da.p, db.p, dc.p, dd.p);
  KC_SYNC();
  std::vector<int> d;
  KC_HIP(dd.download(d));
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      int want = C[i * N + j], lane, reg;
      for (int k = 0; k < K; k++) want += A[i * K + k] * B[k * N + j];
      out32_pos(M, N, i, j, &lane, &reg);
      KC_EXPECT(d[lane * 4 + reg] == want, "mfma_i32_16x16x%di8 (%s) D[%d][%d] = %d, want %d", K, prop.gcnArchName, i, j,
                d[lane * 4 + reg], want);
    }
  return KC_OK;
}

/* ---- a 64x64x64 f16 GEMM: four waves, each owns a 32x32 tile of C and chains eight
 * 32x32x8 MFMAs over K, loading its operands straight from row-major memory ---- */
__global__ void mfma_gemm_f16(int n, const _Float16 *A, const _Float16 *B, float *C) {
  int wave = threadIdx.x / 64, l = threadIdx.x % 64;
  int row0 = (wave / 2) * 32, col0 = (wave % 2) * 32;
  kc_float16 acc;
  for (int r = 0; r < 16; r++) acc[r] = 0.0f;
  for (int k0 = 0; k0 < n; k0 += 8) {
    kc_half4 va, vb;
    for (int e = 0; e < 4; e++) {
      int k = k0 + (l / 32) * 4 + e;
      va[e] = A[(row0 + l % 32) * n + k];
      vb[e] = B[k * n + col0 + l % 32];
    }
    acc = __builtin_amdgcn_mfma_f32_32x32x8f16(va, vb, acc, 0, 0, 0);
  }
  for (int r = 0; r < 16; r++) {
    int i = (r / 4) * 8 + (l / 32) * 4 + r % 4;
    C[(row0 + i) * n + col0 + l % 32] = acc[r];
  }
}
static int test_mfma_gemm_f16() {
  const int n = 64;
  kc_rng rng(150);
  std::vector<int> A(n * n), B(n * n);
  std::vector<uint16_t> a(n * n), b(n * n);
  for (int i = 0; i < n * n; i++) {
    A[i] = rng.irange(-16, 17);
    B[i] = rng.irange(-16, 17);
    a[i] = kc_float_to_half((float)A[i]);
    b[i] = kc_float_to_half((float)B[i]);
  }
  kc_buf<uint16_t> da, db;
  kc_buf<float> dc;
  KC_HIP(da.upload(a)); KC_HIP(db.upload(b)); KC_HIP(dc.zero(n * n));
  mfma_gemm_f16<<<1, 256>>>(n, (const _Float16 *)da.p, (const _Float16 *)db.p, dc.p);
  KC_SYNC();
  std::vector<float> c;
  KC_HIP(dc.download(c));
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      int want = 0;
      for (int k = 0; k < n; k++) want += A[i * n + k] * B[k * n + j];
      KC_EXPECT(c[i * n + j] == (float)want, "mfma gemm C[%d][%d] = %g, want %d", i, j, c[i * n + j], want);
    }
  return KC_OK;
}

static const kc_test tests[] = {
    {"mfma_f16_32x32x8", test_mfma_f16_32x32x8},
    {"mfma_f16_16x16x16", test_mfma_f16_16x16x16},
    {"mfma_bf16_32x32x8", test_mfma_bf16_32x32x8},
    {"mfma_f32_32x32x2", test_mfma_f32_32x32x2},
    {"mfma_f32_16x16x4", test_mfma_f32_16x16x4},
    {"mfma_f64_16x16x4", test_mfma_f64_16x16x4},
    {"mfma_i8_16x16", test_mfma_i8_16x16},
    {"mfma_gemm_f16", test_mfma_gemm_f16},
};
KC_MAIN("mfma", tests)
