/* Integer arithmetic the compiler expands into long instruction sequences: 64-bit division and
 * remainder (signed and unsigned, a software routine on gfx9), 32-bit division by runtime and
 * constant divisors, 64-bit multiply/shift/rotate, int<->float conversions in 64 bits, and the
 * bit-manipulation intrinsics. References are written out here on the host, independent of
 * either header's implementation. */
#include "common.h"
#include <climits>
#include <algorithm>

static const int NI = 2048;
static int iblocks(int n) { return (n + 255) / 256; }

/* ---- 64-bit division and remainder ---- */
__global__ void div64(int n, const long long *a, const long long *b, long long *q, long long *r,
                      unsigned long long *uq, unsigned long long *ur) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  long long x = a[i], y = b[i];
  q[i] = x / y;
  r[i] = x % y;
  unsigned long long ux = (unsigned long long)x, uy = (unsigned long long)y;
  uq[i] = ux / uy;
  ur[i] = ux % uy;
}
static int test_div64() {
  kc_rng rng(81);
  std::vector<long long> a(NI), b(NI);
  for (int i = 0; i < NI; i++) {
    a[i] = (long long)rng.next();
    switch (i % 6) {
    case 0: b[i] = (long long)rng.next(); break;                                  /* full 64-bit */
    case 1: b[i] = (long long)(rng.next() >> 33) + 1; break;                      /* fits 31 bits */
    case 2: b[i] = -(long long)(rng.next() >> 40) - 1; break;                     /* negative */
    case 3: b[i] = 1ll << (rng.next() % 62); break;                               /* power of two */
    case 4: b[i] = (i & 8) ? 1 : -1; break;
    default: b[i] = (long long)(rng.next() >> 20) * ((i & 16) ? -1 : 1) + 3; a[i] >>= (i % 40); break;
    }
    if (a[i] == INT64_MIN && b[i] == -1) b[i] = 7;                                 /* overflow: UB */
  }
  kc_buf<long long> da, db, dq, dr;
  kc_buf<unsigned long long> duq, dur;
  KC_HIP(da.upload(a)); KC_HIP(db.upload(b));
  KC_HIP(dq.alloc(NI)); KC_HIP(dr.alloc(NI)); KC_HIP(duq.alloc(NI)); KC_HIP(dur.alloc(NI));
  div64<<<iblocks(NI), 256>>>(NI, da.p, db.p, dq.p, dr.p, duq.p, dur.p);
  KC_SYNC();
  std::vector<long long> q, r;
  std::vector<unsigned long long> uq, ur;
  KC_HIP(dq.download(q)); KC_HIP(dr.download(r)); KC_HIP(duq.download(uq)); KC_HIP(dur.download(ur));
  for (int i = 0; i < NI; i++) {
    unsigned long long ux = (unsigned long long)a[i], uy = (unsigned long long)b[i];
    KC_EXPECT(q[i] == a[i] / b[i], "%lld / %lld = %lld, want %lld", a[i], b[i], q[i], a[i] / b[i]);
    KC_EXPECT(r[i] == a[i] % b[i], "%lld %% %lld = %lld, want %lld", a[i], b[i], r[i], a[i] % b[i]);
    KC_EXPECT(uq[i] == ux / uy, "%llu / %llu (u64) = %llu, want %llu", ux, uy, uq[i], ux / uy);
    KC_EXPECT(ur[i] == ux % uy, "%llu %% %llu (u64) = %llu, want %llu", ux, uy, ur[i], ux % uy);
  }
  return KC_OK;
}

/* ---- 32-bit division: runtime divisors, and constants the compiler turns into mul_hi ---- */
__global__ void div32(int n, const unsigned *a, const unsigned *b, unsigned *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned x = a[i], y = b[i];
  int sx = (int)x, sy = (int)y;
  out[6 * i] = x / y;
  out[6 * i + 1] = x % y;
  out[6 * i + 2] = (unsigned)(sx / sy);
  out[6 * i + 3] = (unsigned)(sx % sy);
  out[6 * i + 4] = x / 7u + x % 1000u;
  out[6 * i + 5] = (unsigned)(sx / -13 + sx % 10);
}
static int test_div32() {
  kc_rng rng(82);
  std::vector<unsigned> a(NI), b(NI), out;
  for (int i = 0; i < NI; i++) {
    a[i] = (unsigned)rng.next();
    b[i] = (i % 3 == 0) ? (unsigned)rng.next() : (unsigned)(rng.next() % 5000) + 1;
    if (b[i] == 0) b[i] = 3;
    if ((int)a[i] == INT32_MIN && (int)b[i] == -1) b[i] = 5;
  }
  kc_buf<unsigned> da, db, dout;
  KC_HIP(da.upload(a)); KC_HIP(db.upload(b)); KC_HIP(dout.alloc(6 * NI));
  div32<<<iblocks(NI), 256>>>(NI, da.p, db.p, dout.p);
  KC_SYNC();
  KC_HIP(dout.download(out));
  for (int i = 0; i < NI; i++) {
    unsigned x = a[i], y = b[i];
    int sx = (int)x, sy = (int)y;
    unsigned want[6] = {x / y, x % y, (unsigned)(sx / sy), (unsigned)(sx % sy), x / 7u + x % 1000u,
                        (unsigned)(sx / -13 + sx % 10)};
    static const char *names[6] = {"u32 /", "u32 %", "i32 /", "i32 %", "u32 / 7 + % 1000", "i32 / -13 + % 10"};
    for (int k = 0; k < 6; k++)
      KC_EXPECT(out[6 * i + k] == want[k], "%s of (0x%08x, 0x%08x) = 0x%08x, want 0x%08x", names[k], x, y,
                out[6 * i + k], want[k]);
  }
  return KC_OK;
}

/* ---- 64-bit multiply, variable shifts and rotates, high halves ---- */
__global__ void mul_shift64(int n, const unsigned long long *a, const unsigned long long *b, unsigned long long *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned long long x = a[i], y = b[i];
  unsigned s = (unsigned)(y & 63);
  out[6 * i] = x * y;
  out[6 * i + 1] = x << s;
  out[6 * i + 2] = x >> s;
  out[6 * i + 3] = (unsigned long long)((long long)x >> s);
  out[6 * i + 4] = s ? (x << s) | (x >> (64 - s)) : x;
  out[6 * i + 5] = __umul64hi(x, y) ^ (unsigned long long)__mul64hi((long long)x, (long long)y);
}
static unsigned long long umulhi64(unsigned long long x, unsigned long long y) {
  return (unsigned long long)(((unsigned __int128)x * y) >> 64);
}
static long long mulhi64(long long x, long long y) { return (long long)(((__int128)x * y) >> 64); }
static int test_mul_shift64() {
  kc_rng rng(83);
  std::vector<unsigned long long> a(NI), b(NI), out;
  for (int i = 0; i < NI; i++) {
    a[i] = rng.next();
    b[i] = rng.next();
  }
  kc_buf<unsigned long long> da, db, dout;
  KC_HIP(da.upload(a)); KC_HIP(db.upload(b)); KC_HIP(dout.alloc(6 * NI));
  mul_shift64<<<iblocks(NI), 256>>>(NI, da.p, db.p, dout.p);
  KC_SYNC();
  KC_HIP(dout.download(out));
  for (int i = 0; i < NI; i++) {
    unsigned long long x = a[i], y = b[i];
    unsigned s = (unsigned)(y & 63);
    unsigned long long want[6] = {x * y, x << s, x >> s, (unsigned long long)((long long)x >> s),
                                  s ? (x << s) | (x >> (64 - s)) : x,
                                  umulhi64(x, y) ^ (unsigned long long)mulhi64((long long)x, (long long)y)};
    static const char *names[6] = {"mul", "shl", "lshr", "ashr", "rotl", "umul64hi^mul64hi"};
    for (int k = 0; k < 6; k++)
      KC_EXPECT(out[6 * i + k] == want[k], "%s(0x%016llx, 0x%016llx) = 0x%016llx, want 0x%016llx", names[k], x, y,
                out[6 * i + k], want[k]);
  }
  return KC_OK;
}

/* ---- conversions between 64-bit integers and floating point ---- */
__global__ void convert64(int n, const long long *a, const double *d, double *o_d, float *o_f, long long *o_l,
                          unsigned long long *o_u) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  o_d[2 * i] = (double)a[i];
  o_d[2 * i + 1] = (double)(unsigned long long)a[i];
  o_f[2 * i] = (float)a[i];
  o_f[2 * i + 1] = (float)(unsigned long long)a[i];
  o_l[i] = (long long)d[i];
  o_u[i] = (unsigned long long)fabs(d[i]);
}
static int test_convert64() {
  kc_rng rng(84);
  std::vector<long long> a(NI);
  std::vector<double> d(NI);
  for (int i = 0; i < NI; i++) {
    a[i] = (long long)rng.next() >> (i % 63);
    d[i] = rng.uniform(-9.2e18, 9.2e18) / (double)(1ull << (i % 60));
  }
  kc_buf<long long> da, dl;
  kc_buf<double> dd, dod;
  kc_buf<float> dof;
  kc_buf<unsigned long long> du;
  KC_HIP(da.upload(a)); KC_HIP(dd.upload(d));
  KC_HIP(dod.alloc(2 * NI)); KC_HIP(dof.alloc(2 * NI)); KC_HIP(dl.alloc(NI)); KC_HIP(du.alloc(NI));
  convert64<<<iblocks(NI), 256>>>(NI, da.p, dd.p, dod.p, dof.p, dl.p, du.p);
  KC_SYNC();
  std::vector<double> od;
  std::vector<float> of;
  std::vector<long long> ol;
  std::vector<unsigned long long> ou;
  KC_HIP(dod.download(od)); KC_HIP(dof.download(of)); KC_HIP(dl.download(ol)); KC_HIP(du.download(ou));
  for (int i = 0; i < NI; i++) {
    unsigned long long ua = (unsigned long long)a[i];
    KC_EXPECT(od[2 * i] == (double)a[i], "(double)%lld = %.17g, want %.17g", a[i], od[2 * i], (double)a[i]);
    KC_EXPECT(od[2 * i + 1] == (double)ua, "(double)%lluull = %.17g, want %.17g", ua, od[2 * i + 1], (double)ua);
    KC_EXPECT(of[2 * i] == (float)a[i], "(float)%lld = %.9g, want %.9g", a[i], of[2 * i], (float)a[i]);
    KC_EXPECT(of[2 * i + 1] == (float)ua, "(float)%lluull = %.9g, want %.9g", ua, of[2 * i + 1], (float)ua);
    KC_EXPECT(ol[i] == (long long)d[i], "(long long)%.17g = %lld, want %lld", d[i], ol[i], (long long)d[i]);
    KC_EXPECT(ou[i] == (unsigned long long)std::fabs(d[i]), "(unsigned long long)|%.17g| = %llu", d[i], ou[i]);
  }
  return KC_OK;
}

/* ---- bit intrinsics ---- */
__global__ void bit_intrinsics(int n, const unsigned *a, const unsigned long long *b, unsigned *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned x = a[i];
  unsigned long long y = b[i];
  unsigned *o = out + 12 * i;
  o[0] = __popc(x);
  o[1] = __popcll(y);
  o[2] = (unsigned)__clz((int)x);
  o[3] = (unsigned)__clzll((long long)y);
  o[4] = (unsigned)__ffs((int)x);
  o[5] = (unsigned)__ffsll((long long)y);
  o[6] = __brev(x);
  o[7] = (unsigned)(__brevll(y) >> 17);
  o[8] = __umulhi(x, (unsigned)y);
  o[9] = (unsigned)__mulhi((int)x, (int)(y >> 32));
  o[10] = (unsigned)__mul24((int)x, (int)(y >> 40)) + __umul24(x, (unsigned)y);
  o[11] = __byte_perm(x, (unsigned)y, 0x7531u) ^ __funnelshift_l(x, (unsigned)(y >> 32), (unsigned)(y & 31));
}
static int test_bit_intrinsics() {
  kc_rng rng(85);
  std::vector<unsigned> a(NI), out;
  std::vector<unsigned long long> b(NI);
  for (int i = 0; i < NI; i++) {
    a[i] = (unsigned)rng.next() >> (i % 33 == 32 ? 0 : i % 33);
    b[i] = rng.next() >> (i % 65 == 64 ? 0 : i % 65);
    if (i % 97 == 0) { a[i] = 0; b[i] = 0; }                 /* zero inputs: clz, ffs edge */
  }
  kc_buf<unsigned> da, dout;
  kc_buf<unsigned long long> db;
  KC_HIP(da.upload(a)); KC_HIP(db.upload(b)); KC_HIP(dout.alloc(12 * NI));
  bit_intrinsics<<<iblocks(NI), 256>>>(NI, da.p, db.p, dout.p);
  KC_SYNC();
  KC_HIP(dout.download(out));
  for (int i = 0; i < NI; i++) {
    unsigned x = a[i];
    unsigned long long y = b[i];
    unsigned want[12];
    want[0] = (unsigned)__builtin_popcount(x);
    want[1] = (unsigned)__builtin_popcountll(y);
    want[2] = x ? (unsigned)__builtin_clz(x) : 32u;
    want[3] = y ? (unsigned)__builtin_clzll(y) : 64u;
    want[4] = (unsigned)__builtin_ffs((int)x);
    want[5] = (unsigned)__builtin_ffsll((long long)y);
    unsigned rx = 0;
    for (int k = 0; k < 32; k++) rx |= ((x >> k) & 1u) << (31 - k);
    want[6] = rx;
    unsigned long long ry = 0;
    for (int k = 0; k < 64; k++) ry |= ((y >> k) & 1ull) << (63 - k);
    want[7] = (unsigned)(ry >> 17);
    want[8] = (unsigned)(((unsigned long long)x * (unsigned)y) >> 32);
    want[9] = (unsigned)(int)(((long long)(int)x * (long long)(int)(y >> 32)) >> 32);
    int x24 = (int)(x << 8) >> 8, y24 = (int)((unsigned)(y >> 40) << 8) >> 8;
    want[10] = (unsigned)(x24 * y24) + (x & 0xffffffu) * ((unsigned)y & 0xffffffu);
    unsigned long long bytes = ((unsigned long long)(unsigned)y << 32) | x;
    unsigned perm = 0;
    for (int k = 0; k < 4; k++) perm |= (unsigned)((bytes >> (8 * ((0x7531u >> (4 * k)) & 7u))) & 0xffu) << (8 * k);
    unsigned long long fv = ((unsigned long long)(unsigned)(y >> 32) << 32) | x;
    want[11] = perm ^ (unsigned)((fv << (y & 31)) >> 32);
    static const char *names[12] = {"__popc", "__popcll", "__clz", "__clzll", "__ffs", "__ffsll", "__brev",
                                    "__brevll>>17", "__umulhi", "__mulhi", "__mul24+__umul24",
                                    "__byte_perm^__funnelshift_l"};
    for (int k = 0; k < 12; k++)
      KC_EXPECT(out[12 * i + k] == want[k], "%s(0x%08x, 0x%016llx) = 0x%08x, want 0x%08x", names[k], x, y,
                out[12 * i + k], want[k]);
  }
  return KC_OK;
}

/* ---- integer min/max/abs in 64 bits, and 128-bit accumulation via carries ---- */
__global__ void wide_accumulate(int n, const long long *a, long long *out) {
  /* one thread sums n values into a 128-bit (hi, lo) pair with explicit carries */
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  unsigned long long lo = 0;
  long long hi = 0, mn = LLONG_MAX, mx = LLONG_MIN, absmax = 0;
  for (int i = 0; i < n; i++) {
    long long v = a[i];
    unsigned long long nlo = lo + (unsigned long long)v;
    hi += (v < 0 ? -1 : 0) + (nlo < lo ? 1 : 0);
    lo = nlo;
    mn = min(mn, v);
    mx = max(mx, v);
    absmax = max(absmax, llabs(v));
  }
  out[0] = (long long)lo;
  out[1] = hi;
  out[2] = mn;
  out[3] = mx;
  out[4] = absmax;
}
static int test_wide_accumulate() {
  const int n = 500;
  kc_rng rng(86);
  std::vector<long long> a(n), out;
  for (auto &v : a) v = (long long)(rng.next() >> 1) * ((rng.next() & 1) ? -1 : 1);
  kc_buf<long long> da, dout;
  KC_HIP(da.upload(a));
  KC_HIP(dout.zero(5));
  wide_accumulate<<<1, 64>>>(n, da.p, dout.p);
  KC_SYNC();
  KC_HIP(dout.download(out));
  __int128 sum = 0;
  long long mn = LLONG_MAX, mx = LLONG_MIN, absmax = 0;
  for (auto v : a) {
    sum += v;
    mn = v < mn ? v : mn;
    mx = v > mx ? v : mx;
    absmax = std::max(absmax, v < 0 ? -v : v);
  }
  KC_EXPECT((unsigned long long)out[0] == (unsigned long long)sum && out[1] == (long long)(sum >> 64),
            "128-bit sum = 0x%016llx%016llx, want 0x%016llx%016llx", (unsigned long long)out[1],
            (unsigned long long)out[0], (unsigned long long)(sum >> 64), (unsigned long long)sum);
  KC_EXPECT(out[2] == mn && out[3] == mx && out[4] == absmax, "min/max/|max| = %lld %lld %lld, want %lld %lld %lld",
            out[2], out[3], out[4], mn, mx, absmax);
  return KC_OK;
}

/* ---- saturating add/sub: clang lowers __builtin_elementwise_{add,sub}_sat to the VOP3 integer
 * forms with the clamp bit (v_add_u32 ... clamp, v_sub_u32 ... clamp, v_add_i32 ... clamp), the
 * same instructions ockl's __ockl_clz_u64 relies on ---- */
#if __has_builtin(__builtin_elementwise_add_sat) && __has_builtin(__builtin_elementwise_sub_sat)
#define KC_HAVE_SAT 1
__global__ void saturating(int n, const unsigned *a, const unsigned *b, unsigned *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned x = a[i], y = b[i];
  out[4 * i] = __builtin_elementwise_add_sat(x, y);
  out[4 * i + 1] = __builtin_elementwise_sub_sat(x, y);
  out[4 * i + 2] = (unsigned)__builtin_elementwise_add_sat((int)x, (int)y);
  out[4 * i + 3] = (unsigned)__builtin_elementwise_sub_sat((int)x, (int)y);
}
static int test_saturating() {
  kc_rng rng(87);
  std::vector<unsigned> a(NI), b(NI), out;
  for (int i = 0; i < NI; i++) {
    a[i] = (unsigned)rng.next();
    b[i] = (unsigned)rng.next() >> (i % 32);
  }
  a[0] = 0xffffffffu; b[0] = 32;             /* the __clzll(0) case: ffbh(0) + 32, saturated */
  a[1] = 0x7fffffffu; b[1] = 1;
  a[2] = 0x80000000u; b[2] = 1;
  kc_buf<unsigned> da, db, dout;
  KC_HIP(da.upload(a)); KC_HIP(db.upload(b)); KC_HIP(dout.alloc(4 * NI));
  saturating<<<iblocks(NI), 256>>>(NI, da.p, db.p, dout.p);
  KC_SYNC();
  KC_HIP(dout.download(out));
  for (int i = 0; i < NI; i++) {
    unsigned x = a[i], y = b[i];
    long long sa = (long long)(int)x + (int)y, ss = (long long)(int)x - (int)y;
    unsigned want[4] = {x + y < x ? 0xffffffffu : x + y, x < y ? 0u : x - y,
                        (unsigned)(int)(sa > INT32_MAX ? INT32_MAX : sa < INT32_MIN ? INT32_MIN : sa),
                        (unsigned)(int)(ss > INT32_MAX ? INT32_MAX : ss < INT32_MIN ? INT32_MIN : ss)};
    static const char *names[4] = {"add_sat(u32)", "sub_sat(u32)", "add_sat(i32)", "sub_sat(i32)"};
    for (int k = 0; k < 4; k++)
      KC_EXPECT(out[4 * i + k] == want[k], "%s(0x%08x, 0x%08x) = 0x%08x, want 0x%08x", names[k], x, y,
                out[4 * i + k], want[k]);
  }
  return KC_OK;
}
#endif

static const kc_test tests[] = {
    {"div64", test_div64},
    {"div32", test_div32},
    {"mul_shift64", test_mul_shift64},
    {"convert64", test_convert64},
    {"bit_intrinsics", test_bit_intrinsics},
    {"wide_accumulate", test_wide_accumulate},
#ifdef KC_HAVE_SAT
    {"saturating", test_saturating},
#endif
};
KC_MAIN("integer", tests)
