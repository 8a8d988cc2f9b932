/* Grid-stride loops: fewer threads than elements, so each work-item loops with a stride of the
 * whole grid; plus one launch with more blocks than gridDim.x = 65535 (the CUDA limit HIP lifts). */
#include "common.h"

/* ---- fill: out[i] = f(i) over a 1D array much larger than the grid ---- */
__global__ void fill_gridstride(unsigned n, unsigned *out) {
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    out[i] = i * 2654435761u + 17u;
}
static int test_fill_gridstride() {
  const unsigned n = 100003;
  kc_buf<unsigned> d;
  KC_HIP(d.zero(n));
  fill_gridstride<<<6, 128>>>(n, d.p);
  KC_SYNC();
  std::vector<unsigned> out;
  KC_HIP(d.download(out));
  for (unsigned i = 0; i < n; i++)
    KC_EXPECT(out[i] == i * 2654435761u + 17u, "fill[%u] = %u, want %u", i, out[i], i * 2654435761u + 17u);
  return KC_OK;
}

/* ---- gather through a permutation, grid-stride, 64-bit elements ---- */
__global__ void gather_gridstride(int n, const long long *in, const int *perm, long long *out) {
  int stride = blockDim.x * gridDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) out[i] = in[perm[i]] * 3 - i;
}
static int test_gather_gridstride() {
  const int n = 20000;
  std::vector<long long> in(n);
  std::vector<int> perm(n);
  for (int i = 0; i < n; i++) {
    in[i] = (long long)i * 1000003ll - 7000000000ll;
    perm[i] = (int)(((long long)i * 7919) % n);      /* 7919 is prime, coprime with n */
  }
  kc_buf<long long> din, dout;
  kc_buf<int> dperm;
  KC_HIP(din.upload(in));
  KC_HIP(dperm.upload(perm));
  KC_HIP(dout.alloc(n));
  gather_gridstride<<<5, 192>>>(n, din.p, dperm.p, dout.p);
  KC_SYNC();
  std::vector<long long> out;
  KC_HIP(dout.download(out));
  for (int i = 0; i < n; i++) {
    long long want = in[perm[i]] * 3 - i;
    KC_EXPECT(out[i] == want, "gather[%d] = %lld, want %lld", i, out[i], want);
  }
  return KC_OK;
}

/* ---- per-thread partial sums in a grid-stride loop, combined with one atomic per thread ---- */
__global__ void sum_gridstride(int n, const int *in, unsigned long long *total, int *partials) {
  long long acc = 0;
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  for (int i = tid; i < n; i += blockDim.x * gridDim.x) acc += in[i];
  partials[tid] = (int)acc;
  atomicAdd(total, (unsigned long long)acc);
}
static int test_sum_gridstride() {
  const int n = 50000, grid = 4, block = 64;
  kc_rng r(11);
  std::vector<int> in(n);
  for (int i = 0; i < n; i++) in[i] = r.irange(-100000, 100000);
  kc_buf<int> din, dpart;
  kc_buf<unsigned long long> dtotal;
  KC_HIP(din.upload(in));
  KC_HIP(dpart.zero(grid * block));
  KC_HIP(dtotal.zero(1));
  sum_gridstride<<<grid, block>>>(n, din.p, dtotal.p, dpart.p);
  KC_SYNC();
  std::vector<unsigned long long> total;
  std::vector<int> part;
  KC_HIP(dtotal.download(total));
  KC_HIP(dpart.download(part));
  long long want_total = 0;
  for (int t = 0; t < grid * block; t++) {
    long long acc = 0;
    for (int i = t; i < n; i += grid * block) acc += in[i];
    want_total += acc;
    KC_EXPECT(part[t] == (int)acc, "partial[%d] = %d, want %lld", t, part[t], acc);
  }
  KC_EXPECT((long long)total[0] == want_total, "total = %lld, want %lld", (long long)total[0], want_total);
  return KC_OK;
}

/* ---- histogram: grid-stride over bytes, global atomic increments ---- */
__global__ void histogram_gridstride(int n, const unsigned char *in, unsigned *bins) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&bins[in[i] & 63], 1u);
}
static int test_histogram_gridstride() {
  const int n = 30000;
  kc_rng r(12);
  std::vector<unsigned char> in(n);
  for (int i = 0; i < n; i++) in[i] = (unsigned char)(r.next() >> 56) % ((i % 5) ? 64 : 9);
  kc_buf<unsigned char> din;
  kc_buf<unsigned> dbins;
  KC_HIP(din.upload(in));
  KC_HIP(dbins.zero(64));
  histogram_gridstride<<<3, 256>>>(n, din.p, dbins.p);
  KC_SYNC();
  std::vector<unsigned> bins, want(64, 0);
  KC_HIP(dbins.download(bins));
  for (int i = 0; i < n; i++) want[in[i] & 63]++;
  for (int b = 0; b < 64; b++) KC_EXPECT(bins[b] == want[b], "bin %d = %u, want %u", b, bins[b], want[b]);
  return KC_OK;
}

/* ---- 2D grid-stride over a matrix (both dimensions loop) ---- */
__global__ void transpose_gridstride_2d(int rows, int cols, const float *in, float *out) {
  for (int y = blockIdx.y * blockDim.y + threadIdx.y; y < rows; y += blockDim.y * gridDim.y)
    for (int x = blockIdx.x * blockDim.x + threadIdx.x; x < cols; x += blockDim.x * gridDim.x)
      out[x * rows + y] = in[y * cols + x] + 0.5f;
}
static int test_transpose_gridstride_2d() {
  const int rows = 123, cols = 77;
  std::vector<float> in(rows * cols);
  for (int i = 0; i < rows * cols; i++) in[i] = (float)(i % 1009) - 300.0f;
  kc_buf<float> din, dout;
  KC_HIP(din.upload(in));
  KC_HIP(dout.zero(rows * cols));
  transpose_gridstride_2d<<<dim3(2, 3), dim3(16, 8)>>>(rows, cols, din.p, dout.p);
  KC_SYNC();
  std::vector<float> out;
  KC_HIP(dout.download(out));
  for (int y = 0; y < rows; y++)
    for (int x = 0; x < cols; x++)
      KC_EXPECT(out[x * rows + y] == in[y * cols + x] + 0.5f, "transpose[%d][%d] = %g, want %g", x, y,
                out[x * rows + y], in[y * cols + x] + 0.5f);
  return KC_OK;
}

/* ---- more than 65535 blocks in x: one thin wave per block, block ids above 16 bits ---- */
__global__ void many_blocks(unsigned *out) {
  unsigned b = blockIdx.x;
  if (threadIdx.x == 0) out[b] = b ^ 0xA5A5u;
  if (threadIdx.x == 1) atomicAdd(&out[gridDim.x], 1u);
}
static int test_many_blocks() {
  const unsigned grid = 70001;
  kc_buf<unsigned> d;
  KC_HIP(d.zero(grid + 1));
  many_blocks<<<grid, 2>>>(d.p);
  KC_SYNC();
  std::vector<unsigned> out;
  KC_HIP(d.download(out));
  for (unsigned b = 0; b < grid; b++)
    KC_EXPECT(out[b] == (b ^ 0xA5A5u), "block %u wrote %u, want %u", b, out[b], b ^ 0xA5A5u);
  KC_EXPECT(out[grid] == grid, "block counter = %u, want %u", out[grid], grid);
  return KC_OK;
}

static const kc_test tests[] = {
    {"fill_gridstride", test_fill_gridstride},
    {"gather_gridstride", test_gather_gridstride},
    {"sum_gridstride", test_sum_gridstride},
    {"histogram_gridstride", test_histogram_gridstride},
    {"transpose_gridstride_2d", test_transpose_gridstride_2d},
    {"many_blocks", test_many_blocks},
};
KC_MAIN("gridstride", tests)
