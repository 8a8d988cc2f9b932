/* Element-wise kernels in every basic type: f32, f64, f16, int32, uint8, vector types, 2D and
 * 3D index arithmetic, and the type-conversion intrinsics. */
#include "common.h"
#include <hip/hip_fp16.h>

static const int N = 3001;          /* not a multiple of the block: exercises the bounds check */
static const int BLOCK = 256;
static int blocks(int n) { return (n + BLOCK - 1) / BLOCK; }

/* ---- f32 saxpy ---- */
__global__ void saxpy_f32(int n, float a, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
static int test_saxpy_f32() {
  kc_rng r(1);
  std::vector<float> x(N), y(N), out;
  for (int i = 0; i < N; i++) { x[i] = (float)r.uniform(-10, 10); y[i] = (float)r.uniform(-10, 10); }
  kc_buf<float> dx, dy;
  KC_HIP(dx.upload(x));
  KC_HIP(dy.upload(y));
  const float a = 1.75f;
  saxpy_f32<<<blocks(N), BLOCK>>>(N, a, dx.p, dy.p);
  KC_SYNC();
  KC_HIP(dy.download(out));
  for (int i = 0; i < N; i++) {
    /* a*x+y may be contracted to an fma on the device: accept either rounding. */
    float plain = a * x[i] + y[i], fused = std::fma(a, x[i], y[i]);
    KC_EXPECT(out[i] == plain || out[i] == fused, "saxpy_f32[%d] = %.9g, want %.9g (or fused %.9g)",
              i, out[i], plain, fused);
  }
  return KC_OK;
}

/* ---- f64 fused multiply-add and division ---- */
__global__ void dfma_div_f64(int n, const double *a, const double *b, const double *c, double *fma_out,
                             double *div_out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    fma_out[i] = fma(a[i], b[i], c[i]);
    div_out[i] = a[i] / b[i];
  }
}
static int test_dfma_div_f64() {
  kc_rng r(2);
  std::vector<double> a(N), b(N), c(N), f, d;
  for (int i = 0; i < N; i++) {
    a[i] = r.uniform(-1e3, 1e3);
    b[i] = r.uniform(0.5, 100) * (i & 1 ? -1 : 1);
    c[i] = r.uniform(-1e6, 1e6);
  }
  kc_buf<double> da, db, dc, df, dd;
  KC_HIP(da.upload(a));
  KC_HIP(db.upload(b));
  KC_HIP(dc.upload(c));
  KC_HIP(df.alloc(N));
  KC_HIP(dd.alloc(N));
  dfma_div_f64<<<blocks(N), BLOCK>>>(N, da.p, db.p, dc.p, df.p, dd.p);
  KC_SYNC();
  KC_HIP(df.download(f));
  KC_HIP(dd.download(d));
  for (int i = 0; i < N; i++) {
    double wf = std::fma(a[i], b[i], c[i]), wd = a[i] / b[i];
    KC_EXPECT(f[i] == wf, "fma_f64[%d] = %.17g, want %.17g", i, f[i], wf);
    /* IEEE division is correctly rounded in HIP for double */
    KC_EXPECT(d[i] == wd, "div_f64[%d] = %.17g, want %.17g", i, d[i], wd);
  }
  return KC_OK;
}

/* ---- f32 division and sqrt are correctly rounded by default (no fast-math) ---- */
__global__ void div_sqrt_f32(int n, const float *a, const float *b, float *q, float *s) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    q[i] = a[i] / b[i];
    s[i] = sqrtf(b[i]);
  }
}
static int test_div_sqrt_f32() {
  kc_rng r(3);
  std::vector<float> a(N), b(N), q, s;
  for (int i = 0; i < N; i++) {
    a[i] = (float)r.uniform(-1e4, 1e4);
    b[i] = (float)r.uniform(1e-3, 1e5);
  }
  b[0] = 0x1p-130f;          /* a subnormal divisor and sqrt argument */
  a[1] = 0x1p-140f;          /* a subnormal dividend */
  kc_buf<float> da, db, dq, ds;
  KC_HIP(da.upload(a));
  KC_HIP(db.upload(b));
  KC_HIP(dq.alloc(N));
  KC_HIP(ds.alloc(N));
  div_sqrt_f32<<<blocks(N), BLOCK>>>(N, da.p, db.p, dq.p, ds.p);
  KC_SYNC();
  KC_HIP(dq.download(q));
  KC_HIP(ds.download(s));
  for (int i = 0; i < N; i++) {
    float wq = a[i] / b[i], ws = std::sqrt(b[i]);
    KC_EXPECT(q[i] == wq, "div_f32[%d]: %a / %a = %a, want %a", i, a[i], b[i], q[i], wq);
    KC_EXPECT(s[i] == ws, "sqrtf[%d]: sqrt(%a) = %a, want %a", i, b[i], s[i], ws);
  }
  return KC_OK;
}

/* ---- int32 arithmetic, shifts, bitwise, division by a runtime divisor ---- */
__global__ void int_ops(int n, const int *a, const int *b, int *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int x = a[i], y = b[i];
  /* wrapping arithmetic in unsigned; division, remainder and >> on signed values */
  unsigned v = ((unsigned)x * (unsigned)y) ^ ((unsigned)x >> 3);
  v += (unsigned)y << 2;
  v -= (unsigned)(x / y);
  v += (unsigned)(x % y);
  v ^= (unsigned)(x >> 5);           /* arithmetic shift of a negative value */
  v += (x < y) ? (unsigned)(x & y) : (unsigned)(x | y);
  out[i] = (int)v;
}
static int int_ops_ref(int x, int y) {
  unsigned v = ((unsigned)x * (unsigned)y) ^ ((unsigned)x >> 3);
  v += (unsigned)y << 2;
  v -= (unsigned)(x / y);
  v += (unsigned)(x % y);
  v ^= (unsigned)(x >> 5);
  v += (x < y) ? (unsigned)(x & y) : (unsigned)(x | y);
  return (int)v;
}
static int test_int_ops() {
  kc_rng r(4);
  std::vector<int> a(N), b(N), out;
  for (int i = 0; i < N; i++) {
    a[i] = r.irange(-1000000, 1000000);
    b[i] = r.irange(1, 5000) * ((i % 3) ? 1 : -1);
  }
  kc_buf<int> da, db, dout;
  KC_HIP(da.upload(a));
  KC_HIP(db.upload(b));
  KC_HIP(dout.alloc(N));
  int_ops<<<blocks(N), BLOCK>>>(N, da.p, db.p, dout.p);
  KC_SYNC();
  KC_HIP(dout.download(out));
  for (int i = 0; i < N; i++)
    KC_EXPECT(out[i] == int_ops_ref(a[i], b[i]), "int_ops[%d] (a=%d b=%d) = %d, want %d", i, a[i],
              b[i], out[i], int_ops_ref(a[i], b[i]));
  return KC_OK;
}

/* ---- f16 add, mul, fma through the half intrinsics ---- */
__global__ void half_ops(int n, const __half *a, const __half *b, __half *sum, __half *prod,
                         __half *fused) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    sum[i] = __hadd(a[i], b[i]);
    prod[i] = __hmul(a[i], b[i]);
    fused[i] = __hfma(a[i], b[i], a[i]);
  }
}
static int test_half_ops() {
  kc_rng r(5);
  std::vector<uint16_t> a(N), b(N), s, p, f;
  for (int i = 0; i < N; i++) {
    a[i] = kc_float_to_half((float)r.uniform(-60, 60));
    b[i] = kc_float_to_half((float)r.uniform(-60, 60));
  }
  kc_buf<uint16_t> da, db, ds, dp, df;
  KC_HIP(da.upload(a));
  KC_HIP(db.upload(b));
  KC_HIP(ds.alloc(N));
  KC_HIP(dp.alloc(N));
  KC_HIP(df.alloc(N));
  half_ops<<<blocks(N), BLOCK>>>(N, (const __half *)da.p, (const __half *)db.p, (__half *)ds.p,
                                 (__half *)dp.p, (__half *)df.p);
  KC_SYNC();
  KC_HIP(ds.download(s));
  KC_HIP(dp.download(p));
  KC_HIP(df.download(f));
  for (int i = 0; i < N; i++) {
    float x = kc_half_to_float(a[i]), y = kc_half_to_float(b[i]);
    /* float (and double for the fma) hold the exact result or round it harmlessly: a single
     * rounding to half afterwards is the correctly rounded f16 result. */
    uint16_t ws = kc_float_to_half(x + y), wp = kc_float_to_half(x * y);
    uint16_t wf = kc_float_to_half((float)((double)x * y + x));
    KC_EXPECT(s[i] == ws, "__hadd[%d] %g + %g = 0x%04x, want 0x%04x", i, x, y, s[i], ws);
    KC_EXPECT(p[i] == wp, "__hmul[%d] %g * %g = 0x%04x, want 0x%04x", i, x, y, p[i], wp);
    KC_EXPECT(f[i] == wf, "__hfma[%d] %g * %g + %g = 0x%04x, want 0x%04x", i, x, y, x, f[i], wf);
  }
  return KC_OK;
}

/* ---- float4 vector type: loads, stores, component-wise arithmetic ---- */
__global__ void float4_madd(int n, const float4 *a, const float4 *b, float4 *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float4 x = a[i], y = b[i];
    float4 r;
    r.x = x.x * y.w + 1.0f;
    r.y = x.y - y.z;
    r.z = x.z * 2.0f + y.y * 0.5f;
    r.w = x.w + y.x;
    out[i] = r;
  }
}
static int test_float4_madd() {
  const int n = 1000;
  kc_rng r(6);
  std::vector<float> a(4 * n), b(4 * n), out;
  for (int i = 0; i < 4 * n; i++) { a[i] = (float)r.irange(-1000, 1000); b[i] = (float)r.irange(-1000, 1000); }
  kc_buf<float> da, db, dout;
  KC_HIP(da.upload(a));
  KC_HIP(db.upload(b));
  KC_HIP(dout.alloc(4 * n));
  float4_madd<<<blocks(n), BLOCK>>>(n, (const float4 *)da.p, (const float4 *)db.p, (float4 *)dout.p);
  KC_SYNC();
  KC_HIP(dout.download(out));
  for (int i = 0; i < n; i++) {
    const float *x = &a[4 * i], *y = &b[4 * i];
    float want[4] = {x[0] * y[3] + 1.0f, x[1] - y[2], x[2] * 2.0f + y[1] * 0.5f, x[3] + y[0]};
    for (int c = 0; c < 4; c++)
      KC_EXPECT(out[4 * i + c] == want[c], "float4_madd[%d].%c = %g, want %g", i, "xyzw"[c],
                out[4 * i + c], want[c]);
  }
  return KC_OK;
}

/* ---- 2D grid: matrix add with row/column from blockIdx.y/threadIdx.y ---- */
__global__ void matrix_add_2d(int rows, int cols, int pitch, const float *a, const float *b, float *c) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < rows && col < cols) c[row * pitch + col] = a[row * pitch + col] - 2.0f * b[row * pitch + col];
}
static int test_matrix_add_2d() {
  const int rows = 45, cols = 70, pitch = 72;
  kc_rng r(7);
  std::vector<float> a(rows * pitch), b(rows * pitch), c(rows * pitch, -1.0f), out;
  for (size_t i = 0; i < a.size(); i++) { a[i] = (float)r.irange(-500, 500); b[i] = (float)r.irange(-500, 500); }
  kc_buf<float> da, db, dc;
  KC_HIP(da.upload(a));
  KC_HIP(db.upload(b));
  KC_HIP(dc.upload(c));
  dim3 block(16, 8), grid((cols + 15) / 16, (rows + 7) / 8);
  matrix_add_2d<<<grid, block>>>(rows, cols, pitch, da.p, db.p, dc.p);
  KC_SYNC();
  KC_HIP(dc.download(out));
  for (int y = 0; y < rows; y++)
    for (int x = 0; x < pitch; x++) {
      int i = y * pitch + x;
      float want = x < cols ? a[i] - 2.0f * b[i] : -1.0f;   /* the pitch padding is untouched */
      KC_EXPECT(out[i] == want, "matrix_add_2d[%d][%d] = %g, want %g", y, x, out[i], want);
    }
  return KC_OK;
}

/* ---- 3D grid: every built-in index variable ---- */
__global__ void index_3d(unsigned *out) {
  unsigned bx = blockIdx.x, by = blockIdx.y, bz = blockIdx.z;
  unsigned tx = threadIdx.x, ty = threadIdx.y, tz = threadIdx.z;
  unsigned block = (bz * gridDim.y + by) * gridDim.x + bx;
  unsigned thread = (tz * blockDim.y + ty) * blockDim.x + tx;
  unsigned nthreads = blockDim.x * blockDim.y * blockDim.z;
  unsigned id = block * nthreads + thread;
  out[id] = (bx << 24) | (by << 18) | (bz << 14) | (tx << 8) | (ty << 4) | tz;
}
static int test_index_3d() {
  dim3 grid(3, 4, 2), block(8, 4, 3);
  int total = 3 * 4 * 2 * 8 * 4 * 3;
  kc_buf<unsigned> d;
  KC_HIP(d.zero(total));
  index_3d<<<grid, block>>>(d.p);
  KC_SYNC();
  std::vector<unsigned> out;
  KC_HIP(d.download(out));
  int id = 0;
  for (unsigned bz = 0; bz < 2; bz++)
    for (unsigned by = 0; by < 4; by++)
      for (unsigned bx = 0; bx < 3; bx++)
        for (unsigned tz = 0; tz < 3; tz++)
          for (unsigned ty = 0; ty < 4; ty++)
            for (unsigned tx = 0; tx < 8; tx++, id++) {
              unsigned want = (bx << 24) | (by << 18) | (bz << 14) | (tx << 8) | (ty << 4) | tz;
              KC_EXPECT(out[id] == want,
                        "index_3d[%d] = 0x%08x, want 0x%08x (block %u,%u,%u thread %u,%u,%u)", id,
                        out[id], want, bx, by, bz, tx, ty, tz);
            }
  return KC_OK;
}

/* ---- uint8 and int16 narrow loads and stores with saturation ---- */
__global__ void to_u8_i16(int n, const float *in, unsigned char *u8, short *i16) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = in[i];
    int q = (int)floorf(v * 255.0f + 0.5f);
    u8[i] = (unsigned char)(q < 0 ? 0 : q > 255 ? 255 : q);
    int s = (int)(v * 40000.0f);
    i16[i] = (short)(s < -32768 ? -32768 : s > 32767 ? 32767 : s);
  }
}
static int test_to_u8_i16() {
  kc_rng r(8);
  std::vector<float> in(N);
  for (int i = 0; i < N; i++) in[i] = (float)r.irange(-1230, 1230) / 1024.0f;  /* v*255+0.5 exact */
  kc_buf<float> din;
  kc_buf<unsigned char> du8;
  kc_buf<short> di16;
  KC_HIP(din.upload(in));
  KC_HIP(du8.alloc(N));
  KC_HIP(di16.alloc(N));
  to_u8_i16<<<blocks(N), BLOCK>>>(N, din.p, du8.p, di16.p);
  KC_SYNC();
  std::vector<unsigned char> u8;
  std::vector<short> i16;
  KC_HIP(du8.download(u8));
  KC_HIP(di16.download(i16));
  for (int i = 0; i < N; i++) {
    int q = (int)std::floor(in[i] * 255.0f + 0.5f);
    unsigned char wu = (unsigned char)(q < 0 ? 0 : q > 255 ? 255 : q);
    int s = (int)(in[i] * 40000.0f);
    short ws = (short)(s < -32768 ? -32768 : s > 32767 ? 32767 : s);
    KC_EXPECT(u8[i] == wu, "u8[%d] from %g = %u, want %u", i, in[i], u8[i], wu);
    KC_EXPECT(i16[i] == ws, "i16[%d] from %g = %d, want %d", i, in[i], i16[i], ws);
  }
  return KC_OK;
}

/* ---- HIP's type-conversion and reinterpretation intrinsics (AMD's amd_device_functions.h
 * declares them; KC_HAVE_CONV_INTRINSICS is set by CMake when hipkfd's headers compile a
 * probe that uses them). ---- */
#if !defined(__HIPKFD__) || defined(KC_HAVE_CONV_INTRINSICS)
__global__ void conversions(int n, const float *in, int *rn, int *rz, int *ru, int *rd, int *bits,
                            float *back) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = in[i];
    rn[i] = __float2int_rn(v);
    rz[i] = __float2int_rz(v);
    ru[i] = __float2int_ru(v);
    rd[i] = __float2int_rd(v);
    bits[i] = __float_as_int(v);
    back[i] = __int_as_float(bits[i] ^ (int)0x80000000);
  }
}
static int test_conversions() {
  const int n = 1024;
  kc_rng r(9);
  std::vector<float> in(n);
  for (int i = 0; i < n; i++) in[i] = (float)r.uniform(-1000, 1000);
  in[0] = 2.5f; in[1] = -2.5f; in[2] = 3.5f; in[3] = -0.5f;   /* ties: nearest even */
  kc_buf<float> din, dback;
  kc_buf<int> drn, drz, dru, drd, dbits;
  KC_HIP(din.upload(in));
  KC_HIP(drn.alloc(n)); KC_HIP(drz.alloc(n)); KC_HIP(dru.alloc(n)); KC_HIP(drd.alloc(n));
  KC_HIP(dbits.alloc(n)); KC_HIP(dback.alloc(n));
  conversions<<<blocks(n), BLOCK>>>(n, din.p, drn.p, drz.p, dru.p, drd.p, dbits.p, dback.p);
  KC_SYNC();
  std::vector<int> rn, rz, ru, rd, bits;
  std::vector<float> back;
  KC_HIP(drn.download(rn)); KC_HIP(drz.download(rz)); KC_HIP(dru.download(ru));
  KC_HIP(drd.download(rd)); KC_HIP(dbits.download(bits)); KC_HIP(dback.download(back));
  for (int i = 0; i < n; i++) {
    float v = in[i];
    int wbits;
    memcpy(&wbits, &v, 4);
    KC_EXPECT(rn[i] == (int)std::nearbyint(v), "__float2int_rn(%g) = %d", v, rn[i]);
    KC_EXPECT(rz[i] == (int)std::trunc(v), "__float2int_rz(%g) = %d", v, rz[i]);
    KC_EXPECT(ru[i] == (int)std::ceil(v), "__float2int_ru(%g) = %d", v, ru[i]);
    KC_EXPECT(rd[i] == (int)std::floor(v), "__float2int_rd(%g) = %d", v, rd[i]);
    KC_EXPECT(bits[i] == wbits, "__float_as_int(%g) = 0x%08x, want 0x%08x", v, bits[i], wbits);
    KC_EXPECT(back[i] == -v, "__int_as_float(sign flip of %g) = %g", v, back[i]);
  }
  return KC_OK;
}
#endif

static const kc_test tests[] = {
    {"saxpy_f32", test_saxpy_f32},
    {"dfma_div_f64", test_dfma_div_f64},
    {"div_sqrt_f32", test_div_sqrt_f32},
    {"int_ops", test_int_ops},
    {"half_ops", test_half_ops},
    {"float4_madd", test_float4_madd},
    {"matrix_add_2d", test_matrix_add_2d},
    {"index_3d", test_index_3d},
    {"to_u8_i16", test_to_u8_i16},
#if !defined(__HIPKFD__) || defined(KC_HAVE_CONV_INTRINSICS)
    {"conversions", test_conversions},
#endif
};
KC_MAIN("elementwise", tests)
