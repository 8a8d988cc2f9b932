/* Memory spaces: dynamic shared memory (alone, beside static shared, and large), private
 * arrays that live in scratch, __device__ globals, __constant__ data written with
 * hipMemcpyToSymbol, a statically initialised device pointer (a relocation the loader must
 * apply), hipGetSymbolAddress/hipGetSymbolSize. */
#include "common.h"

/* ---- dynamic shared memory: reverse each block's segment through LDS ---- */
__global__ void dyn_reverse(const int *in, int *out, int per_block) {
  extern __shared__ int dyn[];
  const int *src = in + blockIdx.x * per_block;
  for (int i = threadIdx.x; i < per_block; i += blockDim.x) dyn[i] = src[i];
  __syncthreads();
  for (int i = threadIdx.x; i < per_block; i += blockDim.x) out[blockIdx.x * per_block + i] = dyn[per_block - 1 - i];
}
static int test_dyn_reverse() {
  const int sizes[] = {64, 1000, 4096};
  for (int per_block : sizes) {
    const int nb = 3, n = nb * per_block;
    std::vector<int> in(n), out;
    for (int i = 0; i < n; i++) in[i] = i * 7 - 3;
    kc_buf<int> din, dout;
    KC_HIP(din.upload(in));
    KC_HIP(dout.zero(n));
    dyn_reverse<<<nb, 128, per_block * sizeof(int)>>>(din.p, dout.p, per_block);
    KC_SYNC();
    KC_HIP(dout.download(out));
    for (int b = 0; b < nb; b++)
      for (int i = 0; i < per_block; i++)
        KC_EXPECT(out[b * per_block + i] == in[b * per_block + per_block - 1 - i],
                  "dyn_reverse(%d ints) block %d [%d] = %d, want %d", per_block, b, i, out[b * per_block + i],
                  in[b * per_block + per_block - 1 - i]);
  }
  return KC_OK;
}

/* ---- static and dynamic shared memory in one kernel: the dynamic part starts after the
 * static allocation, so writing one must not clobber the other ---- */
__global__ void static_and_dynamic(const double *in, double *out, int ndyn) {
  __shared__ double stat[128];
  HIP_DYNAMIC_SHARED(double, dynd)
  int t = threadIdx.x;
  stat[t] = in[t] * 2.0;
  for (int i = t; i < ndyn; i += blockDim.x) dynd[i] = -1.0 - i;
  __syncthreads();
  out[t] = stat[127 - t] + dynd[(t * 5) % ndyn];
  if (t == 0) out[128] = dynd[ndyn - 1];
}
static int test_static_and_dynamic() {
  const int ndyn = 300;
  std::vector<double> in(128), out;
  for (int i = 0; i < 128; i++) in[i] = i + 0.25;
  kc_buf<double> din, dout;
  KC_HIP(din.upload(in));
  KC_HIP(dout.zero(129));
  static_and_dynamic<<<1, 128, ndyn * sizeof(double)>>>(din.p, dout.p, ndyn);
  KC_SYNC();
  KC_HIP(dout.download(out));
  for (int t = 0; t < 128; t++) {
    double want = in[127 - t] * 2.0 + (-1.0 - (t * 5) % ndyn);
    KC_EXPECT(out[t] == want, "static+dynamic shared [%d] = %g, want %g", t, out[t], want);
  }
  KC_EXPECT(out[128] == -1.0 - (ndyn - 1), "last dynamic element = %g", out[128]);
  return KC_OK;
}

/* ---- 60 KiB of dynamic LDS (more than the 48 KiB default of some APIs, within gfx9's 64) ---- */
__global__ void big_dynamic(unsigned *out, int words) {
  extern __shared__ unsigned big[];
  for (int i = threadIdx.x; i < words; i += blockDim.x) big[i] = (unsigned)i * 2654435761u;
  __syncthreads();
  unsigned acc = 0;
  for (int i = threadIdx.x; i < words; i += blockDim.x) acc += big[words - 1 - i] ^ (unsigned)i;
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}
static int test_big_dynamic() {
  const int words = 60 * 1024 / 4, nt = 256, nb = 2;
  kc_buf<unsigned> dout;
  KC_HIP(dout.zero(nt * nb));
  big_dynamic<<<nb, nt, words * 4>>>(dout.p, words);
  KC_SYNC();
  std::vector<unsigned> out;
  KC_HIP(dout.download(out));
  for (int b = 0; b < nb; b++)
    for (int t = 0; t < nt; t++) {
      unsigned acc = 0;
      for (int i = t; i < words; i += nt) acc += ((unsigned)(words - 1 - i) * 2654435761u) ^ (unsigned)i;
      KC_EXPECT(out[b * nt + t] == acc, "big_dynamic block %d thread %d = %u, want %u", b, t, out[b * nt + t], acc);
    }
  return KC_OK;
}

/* ---- private arrays with data-dependent indices: placed in scratch memory ---- */
__global__ void private_sort(const int *in, int *out, int len) {
  int v[32];
  int base = (blockIdx.x * blockDim.x + threadIdx.x) * 32;
  for (int i = 0; i < 32; i++) v[i] = in[base + i];
  for (int i = 1; i < len; i++) {                   /* insertion sort, runtime bound */
    int x = v[i], j = i - 1;
    while (j >= 0 && v[j] > x) {
      v[j + 1] = v[j];
      j--;
    }
    v[j + 1] = x;
  }
  for (int i = 0; i < 32; i++) out[base + i] = v[i];
}
static int test_private_sort() {
  const int nt = 200;
  kc_rng r(71);
  std::vector<int> in(nt * 32), out;
  for (auto &v : in) v = r.irange(-1000, 1000);
  kc_buf<int> din, dout;
  KC_HIP(din.upload(in));
  KC_HIP(dout.zero(nt * 32));
  private_sort<<<2, 100>>>(din.p, dout.p, 32);
  KC_SYNC();
  KC_HIP(dout.download(out));
  for (int t = 0; t < nt; t++) {
    std::vector<int> want(in.begin() + t * 32, in.begin() + t * 32 + 32);
    for (int i = 1; i < 32; i++)
      for (int j = i; j > 0 && want[j - 1] > want[j]; j--) std::swap(want[j - 1], want[j]);
    for (int i = 0; i < 32; i++)
      KC_EXPECT(out[t * 32 + i] == want[i], "private_sort thread %d [%d] = %d, want %d", t, i, out[t * 32 + i], want[i]);
  }
  return KC_OK;
}

/* ---- a 4 KiB private table per work-item (too big for registers) with random access ---- */
__global__ void private_table(const unsigned *idx, double *out, int steps) {
  double table[512];
  unsigned id = blockIdx.x * blockDim.x + threadIdx.x;
  for (int i = 0; i < 512; i++) table[i] = id * 1000.0 + i;
  double acc = 0;
  unsigned k = idx[id];
  for (int s = 0; s < steps; s++) {
    k = (k * 1103515245u + 12345u) & 511u;
    table[k] += 1.0;
    acc += table[(k * 7) & 511u];
  }
  out[id] = acc;
}
static int test_private_table() {
  const int nt = 128, steps = 200;
  std::vector<unsigned> idx(nt);
  for (int i = 0; i < nt; i++) idx[i] = i * 37u;
  kc_buf<unsigned> didx;
  kc_buf<double> dout;
  KC_HIP(didx.upload(idx));
  KC_HIP(dout.zero(nt));
  private_table<<<2, 64>>>(didx.p, dout.p, steps);
  KC_SYNC();
  std::vector<double> out;
  KC_HIP(dout.download(out));
  std::vector<double> table(512);
  for (int id = 0; id < nt; id++) {
    for (int i = 0; i < 512; i++) table[i] = id * 1000.0 + i;
    double acc = 0;
    unsigned k = idx[id];
    for (int s = 0; s < steps; s++) {
      k = (k * 1103515245u + 12345u) & 511u;
      table[k] += 1.0;
      acc += table[(k * 7) & 511u];
    }
    KC_EXPECT(out[id] == acc, "private_table thread %d = %.17g, want %.17g", id, out[id], acc);
  }
  return KC_OK;
}

/* ---- __device__ globals: written by one kernel, read by the next and by the host ---- */
__device__ int g_counter;
__device__ float g_table[256];
__device__ unsigned long long g_init[4] = {1, 22, 333, 4444};   /* initialised in the code object */

__global__ void globals_write(float scale) {
  int t = threadIdx.x;
  g_table[t] = g_table[t] * scale + (float)t;
  atomicAdd(&g_counter, 1);
  if (t < 4) g_init[t] += 5;
}
__global__ void globals_read(float *out, int *counter_out) {
  int t = threadIdx.x;
  out[t] = g_table[255 - t];
  if (t == 0) *counter_out = g_counter;
}
static int test_device_globals() {
  std::vector<float> table(256);
  for (int i = 0; i < 256; i++) table[i] = 0.5f * i;
  int seven = 7;
  KC_HIP(hipMemcpyToSymbol((const void *)&g_table, table.data(), 256 * sizeof(float), 0, hipMemcpyHostToDevice));
  KC_HIP(hipMemcpyToSymbol((const void *)&g_counter, &seven, sizeof(int), 0, hipMemcpyHostToDevice));
  globals_write<<<1, 256>>>(3.0f);
  KC_HIP(hipGetLastError());
  kc_buf<float> dout;
  kc_buf<int> dcount;
  KC_HIP(dout.zero(256));
  KC_HIP(dcount.zero(1));
  globals_read<<<1, 256>>>(dout.p, dcount.p);
  KC_SYNC();
  std::vector<float> out;
  std::vector<int> count;
  KC_HIP(dout.download(out));
  KC_HIP(dcount.download(count));
  for (int t = 0; t < 256; t++) {
    float want = table[255 - t] * 3.0f + (float)(255 - t);
    KC_EXPECT(out[t] == want, "g_table[%d] read back %g, want %g", 255 - t, out[t], want);
  }
  KC_EXPECT(count[0] == 7 + 256, "g_counter = %d, want %d", count[0], 7 + 256);
  unsigned long long init[4];
  KC_HIP(hipMemcpyFromSymbol(init, (const void *)&g_init, sizeof(init), 0, hipMemcpyDeviceToHost));
  const unsigned long long want_init[4] = {6, 27, 338, 4449};
  for (int i = 0; i < 4; i++)
    KC_EXPECT(init[i] == want_init[i], "g_init[%d] = %llu, want %llu (static initialiser + 5)", i, init[i], want_init[i]);
  /* the symbol's address and size, used as an ordinary device pointer */
  void *addr = nullptr;
  size_t size = 0;
  KC_HIP(hipGetSymbolAddress(&addr, (const void *)&g_table));
  KC_HIP(hipGetSymbolSize(&size, (const void *)&g_table));
  KC_EXPECT(size == 256 * sizeof(float), "hipGetSymbolSize(g_table) = %zu", size);
  float probe[2];
  KC_HIP(hipMemcpy(probe, (float *)addr + 10, sizeof(probe), hipMemcpyDeviceToHost));
  KC_EXPECT(probe[0] == table[10] * 3.0f + 10.0f && probe[1] == table[11] * 3.0f + 11.0f,
            "g_table through hipGetSymbolAddress = %g %g", probe[0], probe[1]);
  return KC_OK;
}

/* ---- __constant__ memory: coefficients copied with hipMemcpyToSymbol (with an offset), and
 * a statically initialised constant table ---- */
__constant__ float c_poly[8];
__constant__ int c_lut[16] = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3};

__global__ void constant_poly(int n, const float *x, float *y, int *lut_out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i], acc = 0.0f;
  for (int k = 7; k >= 0; k--) acc = acc * v + c_poly[k];
  y[i] = acc;
  lut_out[i] = c_lut[i & 15] * c_lut[(i >> 4) & 15];
}
static int test_constant_memory() {
  const int n = 1000;
  /* small dyadic values: Horner's rule is exact, fused or not */
  float poly[8] = {1.0f, -0.5f, 0.25f, 2.0f, -1.0f, 0.125f, 0.0f, 0.5f};
  KC_HIP(hipMemcpyToSymbol((const void *)&c_poly, poly, 4 * sizeof(float), 0, hipMemcpyHostToDevice));
  KC_HIP(hipMemcpyToSymbol((const void *)&c_poly, poly + 4, 4 * sizeof(float), 4 * sizeof(float),
                           hipMemcpyHostToDevice));
  std::vector<float> x(n);
  for (int i = 0; i < n; i++) x[i] = (float)((i % 17) - 8) * 0.25f;
  kc_buf<float> dx, dy;
  kc_buf<int> dl;
  KC_HIP(dx.upload(x));
  KC_HIP(dy.zero(n));
  KC_HIP(dl.zero(n));
  constant_poly<<<(n + 255) / 256, 256>>>(n, dx.p, dy.p, dl.p);
  KC_SYNC();
  std::vector<float> y;
  std::vector<int> l;
  KC_HIP(dy.download(y));
  KC_HIP(dl.download(l));
  static const int lut[16] = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3};
  for (int i = 0; i < n; i++) {
    double acc = 0;
    for (int k = 7; k >= 0; k--) acc = acc * x[i] + poly[k];
    KC_EXPECT(y[i] == (float)acc, "constant poly(%g) = %.9g, want %.9g", x[i], y[i], (double)acc);
    KC_EXPECT(l[i] == lut[i & 15] * lut[(i >> 4) & 15], "c_lut product [%d] = %d", i, l[i]);
  }
  return KC_OK;
}

/* ---- a device pointer initialised with another global's address: R_AMDGPU_ABS64 ---- */
__device__ int g_target[4] = {10, 20, 30, 40};
__device__ int *g_ptr = &g_target[1];
__device__ int *g_ptrs[3] = {&g_target[3], &g_target[0], &g_target[2]};

__global__ void relocated_pointers(int *out) {
  out[0] = *g_ptr;
  out[1] = *g_ptrs[0];
  out[2] = *g_ptrs[1];
  out[3] = *g_ptrs[2];
  g_ptr[1] = 99;                 /* writes g_target[2] */
  out[4] = g_target[2];
}
static int test_relocated_pointers() {
  kc_buf<int> dout;
  KC_HIP(dout.zero(5));
  relocated_pointers<<<1, 1>>>(dout.p);
  KC_SYNC();
  std::vector<int> out;
  KC_HIP(dout.download(out));
  const int want[5] = {20, 40, 10, 30, 99};
  for (int i = 0; i < 5; i++) KC_EXPECT(out[i] == want[i], "relocated pointer read %d = %d, want %d", i, out[i], want[i]);
  /* the host sees the pointer value the loader wrote: the address of g_target[1] */
  void *target = nullptr;
  int *ptr_value = nullptr;
  KC_HIP(hipGetSymbolAddress(&target, (const void *)&g_target));
  KC_HIP(hipMemcpyFromSymbol(&ptr_value, (const void *)&g_ptr, sizeof(ptr_value), 0, hipMemcpyDeviceToHost));
  KC_EXPECT(ptr_value == (int *)target + 1, "g_ptr = %p, want &g_target[1] = %p", (void *)ptr_value,
            (void *)((int *)target + 1));
  return KC_OK;
}

static const kc_test tests[] = {
    {"dyn_reverse", test_dyn_reverse},
    {"static_and_dynamic", test_static_and_dynamic},
    {"big_dynamic", test_big_dynamic},
    {"private_sort", test_private_sort},
    {"private_table", test_private_table},
    {"device_globals", test_device_globals},
    {"constant_memory", test_constant_memory},
    {"relocated_pointers", test_relocated_pointers},
};
KC_MAIN("memory", tests)
