/* Shared-memory (LDS) reductions and scans with __syncthreads: tree reductions in f32, f64 and
 * int, a two-pass reduction, the wave-synchronous last-wave unrolling, block scans, and the
 * predicate forms __syncthreads_count/and/or. The CPU references follow the same summation tree,
 * so floating-point results must match exactly. */
#include "common.h"

#define RBLOCK 256

/* The tree a block uses: stride halves from RBLOCK/2 to 1, partner at tid + stride. */
template <class T> static T tree_reduce_host(const T *v) {
  T s[RBLOCK];
  for (int i = 0; i < RBLOCK; i++) s[i] = v[i];
  for (int stride = RBLOCK / 2; stride > 0; stride >>= 1)
    for (int t = 0; t < stride; t++) s[t] = s[t] + s[t + stride];
  return s[0];
}

template <class T> __global__ void block_sum(const T *in, T *out) {
  __shared__ T s[RBLOCK];
  unsigned t = threadIdx.x;
  s[t] = in[blockIdx.x * RBLOCK + t];
  __syncthreads();
  for (unsigned stride = RBLOCK / 2; stride > 0; stride >>= 1) {
    if (t < stride) s[t] = s[t] + s[t + stride];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = s[0];
}

template <class T> static int run_block_sum(const char *what, double lo, double hi) {
  const int nb = 12;
  kc_rng r(21);
  std::vector<T> in(nb * RBLOCK);
  for (auto &v : in) v = (T)r.uniform(lo, hi);
  kc_buf<T> din, dout;
  KC_HIP(din.upload(in));
  KC_HIP(dout.zero(nb));
  block_sum<T><<<nb, RBLOCK>>>(din.p, dout.p);
  KC_SYNC();
  std::vector<T> out;
  KC_HIP(dout.download(out));
  for (int b = 0; b < nb; b++) {
    T want = tree_reduce_host(&in[b * RBLOCK]);
    KC_EXPECT(out[b] == want, "%s block %d: sum = %.17g, want %.17g", what, b, (double)out[b], (double)want);
  }
  return KC_OK;
}
static int test_block_sum_f32() { return run_block_sum<float>("block_sum<float>", -100, 100); }
static int test_block_sum_f64() { return run_block_sum<double>("block_sum<double>", -1e10, 1e10); }

/* ---- int min, max and sum in one pass, three shared arrays ---- */
__global__ void block_minmaxsum(const int *in, int *out) {
  __shared__ int smin[RBLOCK], smax[RBLOCK];
  __shared__ long long ssum[RBLOCK];
  unsigned t = threadIdx.x;
  int v = in[blockIdx.x * RBLOCK + t];
  smin[t] = v;
  smax[t] = v;
  ssum[t] = v;
  __syncthreads();
  for (unsigned stride = RBLOCK / 2; stride > 0; stride >>= 1) {
    if (t < stride) {
      smin[t] = min(smin[t], smin[t + stride]);
      smax[t] = max(smax[t], smax[t + stride]);
      ssum[t] += ssum[t + stride];
    }
    __syncthreads();
  }
  if (t == 0) {
    out[3 * blockIdx.x] = smin[0];
    out[3 * blockIdx.x + 1] = smax[0];
    out[3 * blockIdx.x + 2] = (int)(ssum[0] % 1000003);
  }
}
static int test_block_minmaxsum() {
  const int nb = 9;
  kc_rng r(22);
  std::vector<int> in(nb * RBLOCK), out;
  for (auto &v : in) v = r.irange(-2000000000, 2000000000);
  kc_buf<int> din, dout;
  KC_HIP(din.upload(in));
  KC_HIP(dout.zero(3 * nb));
  block_minmaxsum<<<nb, RBLOCK>>>(din.p, dout.p);
  KC_SYNC();
  KC_HIP(dout.download(out));
  for (int b = 0; b < nb; b++) {
    int mn = INT32_MAX, mx = INT32_MIN;
    long long sum = 0;
    for (int i = 0; i < RBLOCK; i++) {
      int v = in[b * RBLOCK + i];
      mn = v < mn ? v : mn;
      mx = v > mx ? v : mx;
      sum += v;
    }
    KC_EXPECT(out[3 * b] == mn, "block %d min = %d, want %d", b, out[3 * b], mn);
    KC_EXPECT(out[3 * b + 1] == mx, "block %d max = %d, want %d", b, out[3 * b + 1], mx);
    KC_EXPECT(out[3 * b + 2] == (int)(sum % 1000003), "block %d sum%%p = %d, want %d", b, out[3 * b + 2],
              (int)(sum % 1000003));
  }
  return KC_OK;
}

/* ---- two passes: per-block partials, then one block reduces the partials ---- */
__global__ void partial_sums(int n, const unsigned *in, unsigned long long *partial) {
  __shared__ unsigned long long s[RBLOCK];
  unsigned t = threadIdx.x;
  unsigned long long acc = 0;
  for (int i = blockIdx.x * RBLOCK + t; i < n; i += RBLOCK * gridDim.x) acc += in[i];
  s[t] = acc;
  __syncthreads();
  for (unsigned stride = RBLOCK / 2; stride > 0; stride >>= 1) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0) partial[blockIdx.x] = s[0];
}
__global__ void final_sum(int n, const unsigned long long *partial, unsigned long long *out) {
  __shared__ unsigned long long s[RBLOCK];
  unsigned t = threadIdx.x;
  s[t] = t < (unsigned)n ? partial[t] : 0;
  __syncthreads();
  for (unsigned stride = RBLOCK / 2; stride > 0; stride >>= 1) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0) *out = s[0];
}
static int test_two_pass_sum() {
  const int n = 40000, nb = 20;
  kc_rng r(23);
  std::vector<unsigned> in(n);
  unsigned long long want = 0;
  for (auto &v : in) { v = (unsigned)r.next(); want += v; }
  kc_buf<unsigned> din;
  kc_buf<unsigned long long> dpart, dout;
  KC_HIP(din.upload(in));
  KC_HIP(dpart.zero(nb));
  KC_HIP(dout.zero(1));
  partial_sums<<<nb, RBLOCK>>>(n, din.p, dpart.p);
  KC_HIP(hipGetLastError());
  final_sum<<<1, RBLOCK>>>(nb, dpart.p, dout.p);
  KC_SYNC();
  std::vector<unsigned long long> out;
  KC_HIP(dout.download(out));
  KC_EXPECT(out[0] == want, "two-pass sum = %llu, want %llu", out[0], want);
  return KC_OK;
}

/* ---- the classic last-wave unrolling: no barrier below 64 active work-items, which is safe
 * on AMD GPUs because one wave of 64 executes in lockstep (volatile keeps the LDS accesses) ---- */
__device__ void wave_reduce(volatile int *s, unsigned t) {
  s[t] += s[t + 32];
  s[t] += s[t + 16];
  s[t] += s[t + 8];
  s[t] += s[t + 4];
  s[t] += s[t + 2];
  s[t] += s[t + 1];
}
__global__ void unrolled_sum(const int *in, int *out) {
  __shared__ int s[RBLOCK + 64];
  unsigned t = threadIdx.x;
  s[t] = in[blockIdx.x * RBLOCK + t];
  if (t < 64) s[RBLOCK + t] = 0;
  __syncthreads();
  for (unsigned stride = RBLOCK / 2; stride > 32; stride >>= 1) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t < 32) wave_reduce(s, t);
  if (t == 0) out[blockIdx.x] = s[0];
}
static int test_unrolled_sum() {
  const int nb = 7;
  kc_rng r(24);
  std::vector<int> in(nb * RBLOCK), out;
  for (auto &v : in) v = r.irange(-1000, 1000);
  kc_buf<int> din, dout;
  KC_HIP(din.upload(in));
  KC_HIP(dout.zero(nb));
  unrolled_sum<<<nb, RBLOCK>>>(din.p, dout.p);
  KC_SYNC();
  KC_HIP(dout.download(out));
  for (int b = 0; b < nb; b++) {
    int want = 0;
    for (int i = 0; i < RBLOCK; i++) want += in[b * RBLOCK + i];
    KC_EXPECT(out[b] == want, "unrolled block %d = %d, want %d", b, out[b], want);
  }
  return KC_OK;
}

/* ---- inclusive scan (Hillis-Steele, double-buffered) per block ---- */
__global__ void block_scan(const int *in, int *out) {
  __shared__ int buf[2][RBLOCK];
  unsigned t = threadIdx.x;
  int cur = 0;
  buf[cur][t] = in[blockIdx.x * RBLOCK + t];
  __syncthreads();
  for (unsigned off = 1; off < RBLOCK; off <<= 1) {
    int v = buf[cur][t];
    if (t >= off) v += buf[cur][t - off];
    buf[1 - cur][t] = v;
    cur = 1 - cur;
    __syncthreads();
  }
  out[blockIdx.x * RBLOCK + t] = buf[cur][t];
}
static int test_block_scan() {
  const int nb = 5;
  kc_rng r(25);
  std::vector<int> in(nb * RBLOCK), out;
  for (auto &v : in) v = r.irange(-50, 100);
  kc_buf<int> din, dout;
  KC_HIP(din.upload(in));
  KC_HIP(dout.zero(nb * RBLOCK));
  block_scan<<<nb, RBLOCK>>>(din.p, dout.p);
  KC_SYNC();
  KC_HIP(dout.download(out));
  for (int b = 0; b < nb; b++) {
    int acc = 0;
    for (int i = 0; i < RBLOCK; i++) {
      acc += in[b * RBLOCK + i];
      KC_EXPECT(out[b * RBLOCK + i] == acc, "scan block %d [%d] = %d, want %d", b, i, out[b * RBLOCK + i], acc);
    }
  }
  return KC_OK;
}

/* ---- __syncthreads_count / _and / _or over a block of 4 waves ---- */
__global__ void sync_predicates(const int *in, int *out) {
  int v = in[blockIdx.x * blockDim.x + threadIdx.x];
  int count = __syncthreads_count(v > 0);
  int all = __syncthreads_and(v > -1000);
  int any = __syncthreads_or(v == 12345);
  if (threadIdx.x == 5) {
    out[3 * blockIdx.x] = count;
    out[3 * blockIdx.x + 1] = all != 0;
    out[3 * blockIdx.x + 2] = any != 0;
  }
}
static int test_sync_predicates() {
  const int nb = 4;
  kc_rng r(26);
  std::vector<int> in(nb * RBLOCK), out;
  for (auto &v : in) v = r.irange(-999, 1000);
  in[0 * RBLOCK + 200] = 12345;               /* block 0: any */
  in[1 * RBLOCK + 17] = -5000;                /* block 1: not all */
  in[3 * RBLOCK + 255] = 12345;               /* block 3: any, set by the last work-item */
  kc_buf<int> din, dout;
  KC_HIP(din.upload(in));
  KC_HIP(dout.zero(3 * nb));
  sync_predicates<<<nb, RBLOCK>>>(din.p, dout.p);
  KC_SYNC();
  KC_HIP(dout.download(out));
  for (int b = 0; b < nb; b++) {
    int count = 0, all = 1, any = 0;
    for (int i = 0; i < RBLOCK; i++) {
      int v = in[b * RBLOCK + i];
      count += v > 0;
      all &= v > -1000;
      any |= v == 12345;
    }
    KC_EXPECT(out[3 * b] == count, "block %d __syncthreads_count = %d, want %d", b, out[3 * b], count);
    KC_EXPECT(out[3 * b + 1] == all, "block %d __syncthreads_and = %d, want %d", b, out[3 * b + 1], all);
    KC_EXPECT(out[3 * b + 2] == any, "block %d __syncthreads_or = %d, want %d", b, out[3 * b + 2], any);
  }
  return KC_OK;
}

static const kc_test tests[] = {
    {"block_sum_f32", test_block_sum_f32},
    {"block_sum_f64", test_block_sum_f64},
    {"block_minmaxsum", test_block_minmaxsum},
    {"two_pass_sum", test_two_pass_sum},
    {"unrolled_sum", test_unrolled_sum},
    {"block_scan", test_block_scan},
    {"sync_predicates", test_sync_predicates},
};
KC_MAIN("reduction", tests)
