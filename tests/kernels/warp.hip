/* Wave (warp) cross-lane functions on 64-wide waves: __shfl, __shfl_up, __shfl_down and
 * __shfl_xor with widths, in int, float, double and 64-bit int; __ballot, __any, __all,
 * __popcll, __lane_id, warpSize; __activemask where the header has it (HIP 5.2's lacks it).
 * The references implement HIP's documented lane selection:
 *   __shfl      segment base + (src & (width-1))
 *   __shfl_up   self - delta, or self if that leaves the segment
 *   __shfl_down self + delta, or self if that leaves the segment
 *   __shfl_xor  self ^ mask, or self if that leaves the segment (beyond its end) */
#include "common.h"

#define WAVE 64

static int ref_shfl(int self, int src, int width) { return (src & (width - 1)) + (self & ~(width - 1)); }
static int ref_up(int self, int delta, int width) {
  int i = self - delta;
  return i < (self & ~(width - 1)) ? self : i;
}
static int ref_down(int self, int delta, int width) {
  return ((self & (width - 1)) + delta >= width) ? self : self + delta;
}
static int ref_xor(int self, int mask, int width) {
  int i = self ^ mask;
  return i >= ((self + width) & ~(width - 1)) ? self : i;
}

/* ---- int shuffles of all four kinds, for several widths, in one 2-wave block ---- */
__global__ void shfl_int(const int *in, int *out, int width, int src, int delta, int mask) {
  int t = threadIdx.x, v = in[blockIdx.x * blockDim.x + t];
  int base = (blockIdx.x * blockDim.x + t) * 4;
  out[base] = __shfl(v, src, width);
  out[base + 1] = __shfl_up(v, (unsigned)delta, width);
  out[base + 2] = __shfl_down(v, (unsigned)delta, width);
  out[base + 3] = __shfl_xor(v, mask, width);
}
static int test_shfl_int() {
  const int nthreads = 128;
  std::vector<int> in(nthreads);
  for (int i = 0; i < nthreads; i++) in[i] = i * 1000 + 7;
  kc_buf<int> din, dout;
  KC_HIP(din.upload(in));
  KC_HIP(dout.alloc(4 * nthreads));
  const int widths[] = {64, 32, 16, 8, 2};
  const int cfg[][3] = {{5, 1, 1}, {37, 3, 6}, {63, 17, 31}, {0, 7, 12}};
  for (int w : widths)
    for (auto &c0 : cfg) {
      /* A source lane beyond the width is taken modulo the width by CUDA and hipkfd, but HIP
       * 5.2's header adds it to the segment base unmasked: stay inside the segment. */
      const int c[3] = {c0[0] % w, c0[1], c0[2]};
      shfl_int<<<1, nthreads>>>(din.p, dout.p, w, c[0], c[1], c[2]);
      KC_SYNC();
      std::vector<int> out;
      KC_HIP(dout.download(out));
      for (int t = 0; t < nthreads; t++) {
        int wave = t & ~(WAVE - 1), self = t & (WAVE - 1);
        int want[4] = {in[wave + ref_shfl(self, c[0], w)], in[wave + ref_up(self, c[1], w)],
                       in[wave + ref_down(self, c[1], w)], in[wave + ref_xor(self, c[2], w)]};
        static const char *names[4] = {"__shfl", "__shfl_up", "__shfl_down", "__shfl_xor"};
        for (int k = 0; k < 4; k++)
          KC_EXPECT(out[4 * t + k] == want[k], "%s width %d (src %d delta %d mask %d) thread %d = %d, want %d",
                    names[k], w, c[0], c[1], c[2], t, out[4 * t + k], want[k]);
      }
    }
  return KC_OK;
}

/* ---- float, double and long long shuffles (64-bit values move as two dwords) ---- */
__global__ void shfl_wide(const double *d, const long long *l, const float *f, double *od, long long *ol,
                          float *of) {
  int t = threadIdx.x;
  od[t] = __shfl_down(d[t], 5u, 64);
  ol[t] = __shfl_xor(l[t], 9, 64);
  of[t] = __shfl_up(f[t], 2u, 32);
}
static int test_shfl_wide() {
  const int n = 64;
  std::vector<double> d(n);
  std::vector<long long> l(n);
  std::vector<float> f(n);
  for (int i = 0; i < n; i++) {
    d[i] = 1.0 / (i + 3) + 1e15 * i;
    l[i] = (long long)i * 0x100000001ll - 0x7000000000000000ll;
    f[i] = 1.5f * i - 20.0f;
  }
  kc_buf<double> dd, dod;
  kc_buf<long long> dl, dol;
  kc_buf<float> df, dof;
  KC_HIP(dd.upload(d)); KC_HIP(dl.upload(l)); KC_HIP(df.upload(f));
  KC_HIP(dod.alloc(n)); KC_HIP(dol.alloc(n)); KC_HIP(dof.alloc(n));
  shfl_wide<<<1, n>>>(dd.p, dl.p, df.p, dod.p, dol.p, dof.p);
  KC_SYNC();
  std::vector<double> od;
  std::vector<long long> ol;
  std::vector<float> of;
  KC_HIP(dod.download(od)); KC_HIP(dol.download(ol)); KC_HIP(dof.download(of));
  for (int t = 0; t < n; t++) {
    KC_EXPECT(od[t] == d[ref_down(t, 5, 64)], "__shfl_down(double) lane %d = %.17g, want %.17g", t, od[t],
              d[ref_down(t, 5, 64)]);
    KC_EXPECT(ol[t] == l[ref_xor(t, 9, 64)], "__shfl_xor(long long) lane %d = %lld, want %lld", t, ol[t],
              l[ref_xor(t, 9, 64)]);
    KC_EXPECT(of[t] == f[ref_up(t, 2, 32)], "__shfl_up(float, width 32) lane %d = %g, want %g", t, of[t],
              f[ref_up(t, 2, 32)]);
  }
  return KC_OK;
}

/* ---- butterfly reduction with __shfl_xor: every lane ends with the wave's total ---- */
__global__ void xor_allreduce(const double *in, double *out) {
  double v = in[blockIdx.x * blockDim.x + threadIdx.x];
  for (int m = 32; m > 0; m >>= 1) v += __shfl_xor(v, m);
  out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}
static int test_xor_allreduce() {
  const int n = 256;
  std::vector<double> in(n), out;
  for (int i = 0; i < n; i++) in[i] = (double)((i * 37) % 101) - 50.0;   /* exact sums */
  kc_buf<double> din, dout;
  KC_HIP(din.upload(in));
  KC_HIP(dout.alloc(n));
  xor_allreduce<<<2, 128>>>(din.p, dout.p);
  KC_SYNC();
  KC_HIP(dout.download(out));
  for (int w = 0; w < n / WAVE; w++) {
    double want = 0;
    for (int i = 0; i < WAVE; i++) want += in[w * WAVE + i];
    for (int i = 0; i < WAVE; i++)
      KC_EXPECT(out[w * WAVE + i] == want, "wave %d lane %d total = %g, want %g", w, i, out[w * WAVE + i], want);
  }
  return KC_OK;
}

/* ---- __shfl_down tree: lane 0 gets the wave maximum ---- */
__global__ void wave_max(const int *in, int *out) {
  int v = in[blockIdx.x * blockDim.x + threadIdx.x];
  for (int d = 32; d > 0; d >>= 1) v = max(v, __shfl_down(v, (unsigned)d));
  if ((threadIdx.x & 63) == 0) out[(blockIdx.x * blockDim.x + threadIdx.x) / 64] = v;
}
static int test_wave_max() {
  const int n = 512;
  kc_rng r(31);
  std::vector<int> in(n), out;
  for (auto &v : in) v = r.irange(-100000, 100000);
  kc_buf<int> din, dout;
  KC_HIP(din.upload(in));
  KC_HIP(dout.alloc(n / WAVE));
  wave_max<<<2, 256>>>(din.p, dout.p);
  KC_SYNC();
  KC_HIP(dout.download(out));
  for (int w = 0; w < n / WAVE; w++) {
    int want = INT32_MIN;
    for (int i = 0; i < WAVE; i++) want = in[w * WAVE + i] > want ? in[w * WAVE + i] : want;
    KC_EXPECT(out[w] == want, "wave %d max = %d, want %d", w, out[w], want);
  }
  return KC_OK;
}

/* ---- __ballot, __popcll, __any, __all; the last wave of the block is partial (200 = 3*64+8) ---- */
__global__ void vote(const int *in, unsigned long long *ballots, int *flags) {
  int t = threadIdx.x;
  int v = in[t];
  unsigned long long b = __ballot(v & 1);
  int any = __any(v > 90);
  int all = __all(v >= 0);
  if ((t & 63) == 0) {
    ballots[t / 64] = b;
    flags[3 * (t / 64)] = any;
    flags[3 * (t / 64) + 1] = all;
    flags[3 * (t / 64) + 2] = (int)__popcll(b);
  }
}
static int test_vote() {
  const int n = 200, nw = 4;
  kc_rng r(32);
  std::vector<int> in(n);
  for (auto &v : in) v = r.irange(0, 90);
  in[70] = 95;          /* wave 1: any */
  in[130] = -1;         /* wave 2: not all */
  in[199] = 99;         /* wave 3 (partial): any */
  kc_buf<int> din, dflags;
  kc_buf<unsigned long long> dball;
  KC_HIP(din.upload(in));
  KC_HIP(dflags.zero(3 * nw));
  KC_HIP(dball.zero(nw));
  vote<<<1, n>>>(din.p, dball.p, dflags.p);
  KC_SYNC();
  std::vector<unsigned long long> ball;
  std::vector<int> flags;
  KC_HIP(dball.download(ball));
  KC_HIP(dflags.download(flags));
  for (int w = 0; w < nw; w++) {
    unsigned long long want = 0;
    int any = 0, all = 1;
    for (int l = 0; l < WAVE && w * WAVE + l < n; l++) {
      int v = in[w * WAVE + l];
      if (v & 1) want |= 1ull << l;
      any |= v > 90;
      all &= v >= 0;
    }
    KC_EXPECT(ball[w] == want, "wave %d __ballot = 0x%016llx, want 0x%016llx", w, ball[w], want);
    KC_EXPECT((flags[3 * w] != 0) == (any != 0), "wave %d __any = %d, want %d", w,
              flags[3 * w], any);
    KC_EXPECT((flags[3 * w + 1] != 0) == (all != 0), "wave %d __all = %d, want %d", w, flags[3 * w + 1], all);
    KC_EXPECT(flags[3 * w + 2] == __builtin_popcountll(want), "wave %d __popcll = %d, want %d", w,
              flags[3 * w + 2], __builtin_popcountll(want));
  }
  return KC_OK;
}

/* ---- __lane_id and warpSize, and a ballot inside a divergent branch ---- */
__global__ void lanes(int *lane, int *wsize, unsigned long long *divergent) {
  int t = threadIdx.x;
  lane[t] = (int)__lane_id();
  wsize[t] = warpSize;
  if (t % 3 == 0) {
    unsigned long long b = __ballot(1);   /* only the lanes inside the branch vote */
    divergent[t / 64] = b;              /* every voter writes the same value */
  }
}
static int test_lanes() {
  const int n = 192;
  kc_buf<int> dl, dw;
  kc_buf<unsigned long long> dd;
  KC_HIP(dl.zero(n)); KC_HIP(dw.zero(n)); KC_HIP(dd.zero(3));
  lanes<<<1, n>>>(dl.p, dw.p, dd.p);
  KC_SYNC();
  std::vector<int> l, w;
  std::vector<unsigned long long> d;
  KC_HIP(dl.download(l)); KC_HIP(dw.download(w)); KC_HIP(dd.download(d));
  for (int t = 0; t < n; t++) {
    KC_EXPECT(l[t] == t % 64, "__lane_id() of thread %d = %d", t, l[t]);
    KC_EXPECT(w[t] == 64, "warpSize = %d, want 64", w[t]);
  }
  for (int wv = 0; wv < 3; wv++) {
    unsigned long long want = 0;
    for (int i = 0; i < 64; i++)
      if ((wv * 64 + i) % 3 == 0) want |= 1ull << i;
    KC_EXPECT(d[wv] == want, "divergent __ballot wave %d = 0x%016llx, want 0x%016llx", wv, d[wv], want);
  }
  return KC_OK;
}

#if defined(__HIPKFD__)
/* ---- __activemask (not in HIP 5.2's headers) in nested divergence ---- */
__global__ void activemask(unsigned long long *out) {
  int t = threadIdx.x;
  if (t & 1) {
    if (t < 40) out[t] = __activemask();
  } else {
    out[t] = __activemask();
  }
}
static int test_activemask() {
  kc_buf<unsigned long long> d;
  KC_HIP(d.zero(64));
  activemask<<<1, 64>>>(d.p);
  KC_SYNC();
  std::vector<unsigned long long> out;
  KC_HIP(d.download(out));
  unsigned long long odd_low = 0, even = 0;
  for (int i = 0; i < 64; i++) {
    if ((i & 1) && i < 40) odd_low |= 1ull << i;
    if (!(i & 1)) even |= 1ull << i;
  }
  for (int t = 0; t < 64; t++) {
    unsigned long long want = (t & 1) ? (t < 40 ? odd_low : 0) : even;
    KC_EXPECT(out[t] == want, "__activemask() thread %d = 0x%016llx, want 0x%016llx", t, out[t], want);
  }
  return KC_OK;
}
#endif

static const kc_test tests[] = {
    {"shfl_int", test_shfl_int},
    {"shfl_wide", test_shfl_wide},
    {"xor_allreduce", test_xor_allreduce},
    {"wave_max", test_wave_max},
    {"vote", test_vote},
    {"lanes", test_lanes},
#if defined(__HIPKFD__)
    {"activemask", test_activemask},
#endif
};
KC_MAIN("warp", tests)
