/* Atomics on global and shared (LDS) memory: integer add/sub/min/max/and/or/xor/exch/CAS/
 * inc/dec in 32 and 64 bits, float and double add/min/max, CAS loops, and slot allocation.
 * Inputs are chosen so that the final values do not depend on the order of the operations
 * (floating-point sums stay exact). */
#include "common.h"

#define ABLOCK 256

/* ---- 32-bit integer RMW operations on global counters ---- */
__global__ void int_rmw(const int *in, int *c, unsigned *u) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[i];
  atomicAdd(&c[0], v);
  atomicSub(&c[1], v);
  atomicMin(&c[2], v);
  atomicMax(&c[3], v);
  atomicAnd(&c[4], ~(1 << (i % 31)) | (v & 1));
  atomicOr(&u[0], 1u << (i % 32));
  atomicXor(&u[1], (unsigned)v);
  atomicAdd(&u[2], 3u);
  atomicSub(&u[3], 2u);
  atomicMin(&u[4], (unsigned)v);
  atomicMax(&u[5], (unsigned)v);
}
static int test_int_rmw() {
  const int n = 4 * ABLOCK;
  kc_rng r(41);
  std::vector<int> in(n);
  for (auto &v : in) v = r.irange(-100000, 100000);
  std::vector<int> c = {10, 20, INT32_MAX, INT32_MIN, -1};
  std::vector<unsigned> u = {0, 0x12345678u, 5, 1000000, 0xffffffffu, 0};
  kc_buf<int> din, dc;
  kc_buf<unsigned> du;
  KC_HIP(din.upload(in));
  KC_HIP(dc.upload(c));
  KC_HIP(du.upload(u));
  int_rmw<<<n / ABLOCK, ABLOCK>>>(din.p, dc.p, du.p);
  KC_SYNC();
  std::vector<int> oc;
  std::vector<unsigned> ou;
  KC_HIP(dc.download(oc));
  KC_HIP(du.download(ou));
  for (int i = 0; i < n; i++) {
    int v = in[i];
    c[0] += v;
    c[1] -= v;
    c[2] = v < c[2] ? v : c[2];
    c[3] = v > c[3] ? v : c[3];
    c[4] &= ~(1 << (i % 31)) | (v & 1);
    u[0] |= 1u << (i % 32);
    u[1] ^= (unsigned)v;
    u[2] += 3u;
    u[3] -= 2u;
    u[4] = (unsigned)v < u[4] ? (unsigned)v : u[4];
    u[5] = (unsigned)v > u[5] ? (unsigned)v : u[5];
  }
  static const char *in_names[] = {"atomicAdd", "atomicSub", "atomicMin", "atomicMax", "atomicAnd"};
  static const char *un_names[] = {"atomicOr", "atomicXor", "atomicAdd(u32)", "atomicSub(u32)",
                                   "atomicMin(u32)", "atomicMax(u32)"};
  for (int k = 0; k < 5; k++) KC_EXPECT(oc[k] == c[k], "%s: %d, want %d", in_names[k], oc[k], c[k]);
  for (int k = 0; k < 6; k++) KC_EXPECT(ou[k] == u[k], "%s: 0x%08x, want 0x%08x", un_names[k], ou[k], u[k]);
  return KC_OK;
}

/* ---- 64-bit integer RMW operations ---- */
__global__ void u64_rmw(const unsigned long long *in, unsigned long long *c) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned long long v = in[i];
  atomicAdd(&c[0], v);
  atomicMin(&c[1], v);
  atomicMax(&c[2], v);
  atomicAnd(&c[3], v | 0xff00ff00ff00ff00ull);
  atomicOr(&c[4], v & 0x8000000100000001ull);
  atomicXor(&c[5], v);
}
static int test_u64_rmw() {
  const int n = 3 * ABLOCK;
  kc_rng r(42);
  std::vector<unsigned long long> in(n);
  for (auto &v : in) v = r.next();
  std::vector<unsigned long long> c = {1, ~0ull, 0, ~0ull, 0, 0xdeadbeefcafef00dull};
  kc_buf<unsigned long long> din, dc;
  KC_HIP(din.upload(in));
  KC_HIP(dc.upload(c));
  u64_rmw<<<n / ABLOCK, ABLOCK>>>(din.p, dc.p);
  KC_SYNC();
  std::vector<unsigned long long> oc;
  KC_HIP(dc.download(oc));
  for (auto v : in) {
    c[0] += v;
    c[1] = v < c[1] ? v : c[1];
    c[2] = v > c[2] ? v : c[2];
    c[3] &= v | 0xff00ff00ff00ff00ull;
    c[4] |= v & 0x8000000100000001ull;
    c[5] ^= v;
  }
  static const char *names[] = {"atomicAdd", "atomicMin", "atomicMax", "atomicAnd", "atomicOr", "atomicXor"};
  for (int k = 0; k < 6; k++)
    KC_EXPECT(oc[k] == c[k], "%s(u64): 0x%016llx, want 0x%016llx", names[k], oc[k], c[k]);
  return KC_OK;
}

/* ---- slot allocation: out[atomicAdd(counter, 1)] = id makes a permutation ---- */
__global__ void slot_alloc(unsigned *counter, unsigned *out) {
  unsigned id = blockIdx.x * blockDim.x + threadIdx.x;
  if (id % 3 != 1) {                       /* divergent: only some lanes allocate */
    unsigned slot = atomicAdd(counter, 1u);
    out[slot] = id;
  }
}
static int test_slot_alloc() {
  const int n = 5 * ABLOCK;
  kc_buf<unsigned> dcount, dout;
  KC_HIP(dcount.zero(1));
  KC_HIP(dout.zero(n));
  slot_alloc<<<n / ABLOCK, ABLOCK>>>(dcount.p, dout.p);
  KC_SYNC();
  std::vector<unsigned> count, out;
  KC_HIP(dcount.download(count));
  KC_HIP(dout.download(out));
  unsigned want = 0;
  for (int i = 0; i < n; i++) want += i % 3 != 1;
  KC_EXPECT(count[0] == want, "counter = %u, want %u", count[0], want);
  std::vector<int> seen(n, 0);
  for (unsigned s = 0; s < want; s++) {
    KC_EXPECT(out[s] < (unsigned)n && out[s] % 3 != 1, "slot %u holds id %u", s, out[s]);
    KC_EXPECT(!seen[out[s]]++, "id %u got two slots", out[s]);
  }
  return KC_OK;
}

/* ---- atomicExch chain and atomicCAS increment loop ---- */
__global__ void exch_cas(unsigned *exch_slot, unsigned *olds, unsigned long long *cas_counter) {
  unsigned id = blockIdx.x * blockDim.x + threadIdx.x;
  olds[id] = atomicExch(exch_slot, id + 1);
  /* increment by (id & 7) + 1 through a compare-and-swap retry loop */
  unsigned long long old = *cas_counter, assumed;
  do {
    assumed = old;
    old = atomicCAS(cas_counter, assumed, assumed + (id & 7) + 1);
  } while (old != assumed);
}
static int test_exch_cas() {
  const int n = 2 * ABLOCK;
  kc_buf<unsigned> dslot, dolds;
  kc_buf<unsigned long long> dcas;
  KC_HIP(dslot.zero(1));
  KC_HIP(dolds.zero(n));
  KC_HIP(dcas.upload(std::vector<unsigned long long>{1ull << 40}));
  exch_cas<<<n / ABLOCK, ABLOCK>>>(dslot.p, dolds.p, dcas.p);
  KC_SYNC();
  std::vector<unsigned> slot, olds;
  std::vector<unsigned long long> cas;
  KC_HIP(dslot.download(slot));
  KC_HIP(dolds.download(olds));
  KC_HIP(dcas.download(cas));
  /* The exchanged values form one chain: {olds} + {final} == {0} + {1..n}. */
  std::vector<int> seen(n + 1, 0);
  seen[slot[0]]++;
  for (int i = 0; i < n; i++) {
    KC_EXPECT(olds[i] <= (unsigned)n, "atomicExch returned %u", olds[i]);
    seen[olds[i]]++;
  }
  for (int v = 0; v <= n; v++) KC_EXPECT(seen[v] == 1, "atomicExch value %d seen %d times", v, seen[v]);
  unsigned long long want = 1ull << 40;
  for (int i = 0; i < n; i++) want += (i & 7) + 1;
  KC_EXPECT(cas[0] == want, "atomicCAS loop counter = %llu, want %llu", cas[0], want);
  return KC_OK;
}

/* ---- atomicInc / atomicDec wrap-around ---- */
__global__ void inc_dec(unsigned *c, unsigned *olds) {
  unsigned id = threadIdx.x;
  olds[id] = atomicInc(&c[0], 9u);         /* counts 0..9 then wraps to 0 */
  atomicDec(&c[1], 6u);                    /* from 2: 1, 0, then wraps to 6 ... */
}
static int test_inc_dec() {
  const int n = 100;
  kc_buf<unsigned> dc, dolds;
  KC_HIP(dc.upload(std::vector<unsigned>{0, 2}));
  KC_HIP(dolds.zero(n));
  inc_dec<<<1, n>>>(dc.p, dolds.p);
  KC_SYNC();
  std::vector<unsigned> c, olds;
  KC_HIP(dc.download(c));
  KC_HIP(dolds.download(olds));
  unsigned inc = 0, dec = 2;
  std::vector<int> hist(10, 0);
  for (int i = 0; i < n; i++) {
    inc = inc >= 9u ? 0 : inc + 1;
    dec = (dec == 0 || dec > 6u) ? 6u : dec - 1;
    KC_EXPECT(olds[i] <= 9u, "atomicInc returned %u > limit 9", olds[i]);
    hist[olds[i]]++;
  }
  for (int v = 0; v < 10; v++) KC_EXPECT(hist[v] == 10, "atomicInc returned %d %d times, want 10", v, hist[v]);
  KC_EXPECT(c[0] == inc, "atomicInc final = %u, want %u", c[0], inc);
  KC_EXPECT(c[1] == dec, "atomicDec final = %u, want %u", c[1], dec);
  return KC_OK;
}

/* ---- float and double add/min/max on global memory ---- */
__global__ void fp_global(const float *f, const double *d, float *fo, double *dout) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  atomicAdd(&fo[0], f[i]);
  atomicAdd(&dout[0], d[i]);
  atomicMin(&fo[1], f[i]);
  atomicMax(&fo[2], f[i]);
  atomicMin(&dout[1], d[i]);
  atomicMax(&dout[2], d[i]);
  atomicSub(&dout[3], d[i]);
}
static int test_fp_global() {
  const int n = 4 * ABLOCK;
  kc_rng r(43);
  std::vector<float> f(n);
  std::vector<double> d(n);
  for (int i = 0; i < n; i++) {
    f[i] = (float)r.irange(-2000, 2000) * 0.5f;     /* sums of halves stay exact in float */
    d[i] = (double)r.irange(-1000000, 1000000) * 0.125;
  }
  kc_buf<float> df, dfo;
  kc_buf<double> dd, ddo;
  KC_HIP(df.upload(f));
  KC_HIP(dd.upload(d));
  KC_HIP(dfo.upload(std::vector<float>{0.25f, 1e30f, -1e30f}));
  KC_HIP(ddo.upload(std::vector<double>{-0.5, 1e300, -1e300, 100.0}));
  fp_global<<<n / ABLOCK, ABLOCK>>>(df.p, dd.p, dfo.p, ddo.p);
  KC_SYNC();
  std::vector<float> fo;
  std::vector<double> dout;
  KC_HIP(dfo.download(fo));
  KC_HIP(ddo.download(dout));
  float fs = 0.25f, fmn = 1e30f, fmx = -1e30f;
  double ds = -0.5, dmn = 1e300, dmx = -1e300, dsub = 100.0;
  for (int i = 0; i < n; i++) {
    fs += f[i];
    fmn = f[i] < fmn ? f[i] : fmn;
    fmx = f[i] > fmx ? f[i] : fmx;
    ds += d[i];
    dmn = d[i] < dmn ? d[i] : dmn;
    dmx = d[i] > dmx ? d[i] : dmx;
    dsub -= d[i];
  }
  KC_EXPECT(fo[0] == fs, "atomicAdd(float) = %.9g, want %.9g", fo[0], fs);
  KC_EXPECT(fo[1] == fmn, "atomicMin(float) = %g, want %g", fo[1], fmn);
  KC_EXPECT(fo[2] == fmx, "atomicMax(float) = %g, want %g", fo[2], fmx);
  KC_EXPECT(dout[0] == ds, "atomicAdd(double) = %.17g, want %.17g", dout[0], ds);
  KC_EXPECT(dout[1] == dmn, "atomicMin(double) = %.17g, want %.17g", dout[1], dmn);
  KC_EXPECT(dout[2] == dmx, "atomicMax(double) = %.17g, want %.17g", dout[2], dmx);
  KC_EXPECT(dout[3] == dsub, "atomicSub(double) = %.17g, want %.17g", dout[3], dsub);
  return KC_OK;
}

/* ---- shared-memory histogram: LDS atomics, then one global atomic per bin per block ---- */
__global__ void shared_histogram(int n, const unsigned char *in, unsigned *bins) {
  __shared__ unsigned local[32];
  if (threadIdx.x < 32) local[threadIdx.x] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&local[in[i] % 32], 1u);
  __syncthreads();
  if (threadIdx.x < 32) atomicAdd(&bins[threadIdx.x], local[threadIdx.x]);
}
static int test_shared_histogram() {
  const int n = 20000;
  kc_rng r(44);
  std::vector<unsigned char> in(n);
  for (auto &v : in) v = (unsigned char)(r.next() % 200);
  kc_buf<unsigned char> din;
  kc_buf<unsigned> dbins;
  KC_HIP(din.upload(in));
  KC_HIP(dbins.zero(32));
  shared_histogram<<<4, ABLOCK>>>(n, din.p, dbins.p);
  KC_SYNC();
  std::vector<unsigned> bins, want(32, 0);
  KC_HIP(dbins.download(bins));
  for (auto v : in) want[v % 32]++;
  for (int b = 0; b < 32; b++) KC_EXPECT(bins[b] == want[b], "bin %d = %u, want %u", b, bins[b], want[b]);
  return KC_OK;
}

/* ---- LDS float/double add, int min/max, 64-bit add and CAS ---- */
__global__ void shared_mixed(const float *f, const double *d, const int *v, float *fo, double *dout, int *io,
                             unsigned long long *uo) {
  __shared__ float sf;
  __shared__ double sd;
  __shared__ int smin, smax;
  __shared__ unsigned long long su, scas;
  unsigned t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  if (t == 0) {
    sf = 0.0f;
    sd = 1.0;
    smin = INT32_MAX;
    smax = INT32_MIN;
    su = 0;
    scas = 0;
  }
  __syncthreads();
  atomicAdd(&sf, f[i]);
  atomicAdd(&sd, d[i]);
  atomicMin(&smin, v[i]);
  atomicMax(&smax, v[i]);
  atomicAdd(&su, (unsigned long long)v[i] << 20);
  unsigned long long old = scas, assumed;
  do {
    assumed = old;
    old = atomicCAS(&scas, assumed, assumed * 3 + 1);   /* order-dependent value, count is not */
  } while (old != assumed);
  __syncthreads();
  if (t == 0) {
    fo[blockIdx.x] = sf;
    dout[blockIdx.x] = sd;
    io[2 * blockIdx.x] = smin;
    io[2 * blockIdx.x + 1] = smax;
    uo[2 * blockIdx.x] = su;
    uo[2 * blockIdx.x + 1] = scas;
  }
}
static int test_shared_mixed() {
  const int nb = 3, n = nb * ABLOCK;
  kc_rng r(45);
  std::vector<float> f(n);
  std::vector<double> d(n);
  std::vector<int> v(n);
  for (int i = 0; i < n; i++) {
    f[i] = (float)r.irange(-100, 100) * 0.25f;
    d[i] = (double)r.irange(-(1 << 30), 1 << 30) * 0.5;
    v[i] = r.irange(-5000000, 5000000);
  }
  kc_buf<float> df, dfo;
  kc_buf<double> dd, ddo;
  kc_buf<int> dv, dio;
  kc_buf<unsigned long long> duo;
  KC_HIP(df.upload(f)); KC_HIP(dd.upload(d)); KC_HIP(dv.upload(v));
  KC_HIP(dfo.zero(nb)); KC_HIP(ddo.zero(nb)); KC_HIP(dio.zero(2 * nb)); KC_HIP(duo.zero(2 * nb));
  shared_mixed<<<nb, ABLOCK>>>(df.p, dd.p, dv.p, dfo.p, ddo.p, dio.p, duo.p);
  KC_SYNC();
  std::vector<float> fo;
  std::vector<double> dout;
  std::vector<int> io;
  std::vector<unsigned long long> uo;
  KC_HIP(dfo.download(fo)); KC_HIP(ddo.download(dout)); KC_HIP(dio.download(io)); KC_HIP(duo.download(uo));
  for (int b = 0; b < nb; b++) {
    float fs = 0;
    double ds = 1.0;
    int mn = INT32_MAX, mx = INT32_MIN;
    unsigned long long us = 0, cas = 0;
    for (int t = 0; t < ABLOCK; t++) {
      int i = b * ABLOCK + t;
      fs += f[i];
      ds += d[i];
      mn = v[i] < mn ? v[i] : mn;
      mx = v[i] > mx ? v[i] : mx;
      us += (unsigned long long)v[i] << 20;
      cas = cas * 3 + 1;
    }
    KC_EXPECT(fo[b] == fs, "block %d shared atomicAdd(float) = %g, want %g", b, fo[b], fs);
    KC_EXPECT(dout[b] == ds, "block %d shared atomicAdd(double) = %.17g, want %.17g", b, dout[b], ds);
    KC_EXPECT(io[2 * b] == mn, "block %d shared atomicMin = %d, want %d", b, io[2 * b], mn);
    KC_EXPECT(io[2 * b + 1] == mx, "block %d shared atomicMax = %d, want %d", b, io[2 * b + 1], mx);
    KC_EXPECT(uo[2 * b] == us, "block %d shared atomicAdd(u64) = 0x%llx, want 0x%llx", b, uo[2 * b], us);
    KC_EXPECT(uo[2 * b + 1] == cas, "block %d shared atomicCAS(u64) chain = 0x%llx, want 0x%llx", b,
              uo[2 * b + 1], cas);
  }
  return KC_OK;
}

static const kc_test tests[] = {
    {"int_rmw", test_int_rmw},
    {"u64_rmw", test_u64_rmw},
    {"slot_alloc", test_slot_alloc},
    {"exch_cas", test_exch_cas},
    {"inc_dec", test_inc_dec},
    {"fp_global", test_fp_global},
    {"shared_histogram", test_shared_histogram},
    {"shared_mixed", test_shared_mixed},
};
KC_MAIN("atomics", tests)
