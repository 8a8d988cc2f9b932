/* The shared per-instruction test frame (op_check.h). */
#include "op_check.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

const uint32_t op_f32_edges[OP_F32_EDGES_N] = {
  0x00000000, 0x80000000, 0x3f800000, 0xbf800000, 0x3f000000, 0x40400000, 0xc0200000,
  0x7149f2ca /* 1e30 */, 0xf149f2ca, 0x7f7fffff /* FLT_MAX */, 0x00800000 /* FLT_MIN */,
  0x000116c2 /* denormal */, 0x800116c2, 0x7f800000, 0xff800000, 0x7fc00000, 0x3fc00000,
  0x42c88000 /* 100.25 */, 0x40e00000, 0xc0f80000, 0x4b800001, 0x3dcccccd, 0x477fe000 /* 65504 */,
  0x477ff000 /* 65520 */, 0x322bcc77 /* 1e-8 */, 0x4f000000 /* 2^31 */, 0xcf000000, 0x4f800000 /* 2^32 */,
  0x3effffff, 0x7f000000, 0x00000001, 0x7fa00000 /* sNaN */,
};

const uint32_t op_i32_edges[OP_I32_EDGES_N] = {
  0, 1, 0xffffffff, 0x7fffffff, 0x80000000, 0xffff, 0x12345678, 31, 32, 5, 0xdeadbeef, 0x00ff00ff,
  3, 0x80000001, 0x10000, 0xfffe, 7, 0x55555555, 0xaaaaaaaa, 100, 0xffffff, 0x1000000, 63, 64,
};

const uint32_t op_f16_edges[OP_F16_EDGES_N] = {
  0x0000, 0xabcd8000, 0x3c00, 0xabcdbc00, 0x3800, 0x12344200, 0xc100, 0x7bff /* 65504 */,
  0x0400 /* min normal */, 0x0001 /* min denormal */, 0xffff03ff, 0x8200, 0x7c00, 0xfc00,
  0x7e00 /* qNaN */, 0x7d00 /* sNaN */, 0x5648, 0x2e66 /* 0.1 */, 0x6400 /* 1024 */, 0x4900,
  0xd3d0, 0x3555, 0x3e00, 0x4d00, 0x0003, 0x8001, 0x57ff, 0xb800,
};

const uint64_t op_f64_edges[OP_F64_EDGES_N] = {
  0x0000000000000000, 0x8000000000000000, 0x3ff0000000000000, 0xbff0000000000000,
  0x4008000000000000, 0x7fefffffffffffff, 0x0010000000000000, 0x000123456789abcd,
  0x800123456789abcd, 0x7ff0000000000000, 0xfff0000000000000, 0x7ff8000000000000,
  0x3fb999999999999a, 0x4059100000000000, 0xc01f000000000000, 0x43e0000000000000,
  0x3fe0000000000000, 0x4340000000000001, 0xc1e0000000000000, 0x3ff8000000000000,
};

const uint64_t op_i64_edges[OP_I64_EDGES_N] = {
  0, 1, ~0ull, 0x7fffffffffffffffull, 0x8000000000000000ull, 0x123456789abcdef0ull, 63, 64, 5,
  0xffffffffull, 0x100000000ull, 0xdeadbeefcafef00dull, 31, 33, 0x8000000000000001ull,
};

float op_f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
uint32_t op_u(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
double op_d(uint64_t u) { double d; memcpy(&d, &u, 8); return d; }
uint64_t op_ud(double d) { uint64_t u; memcpy(&u, &d, 8); return u; }

float op_h2f(uint16_t h)
{
  int e = h >> 10 & 0x1f, m = h & 0x3ff;
  float v = e == 0 ? ldexpf((float)m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexpf((float)(m | 0x400), e - 25);
  return (h >> 15) ? -v : v;
}

uint16_t op_f2h(float f)
{
  /* round to nearest even by scaling into the half grid */
  if (isnan(f))
    return 0x7e00;
  uint16_t s = signbit(f) ? 0x8000 : 0;
  float a = fabsf(f);
  if (a >= 65520.0f)
    return s | 0x7c00;
  if (a < ldexpf(1, -14))
    return s | (uint16_t)nearbyintf(a * ldexpf(1, 24));
  int e;
  frexpf(a, &e);                            /* a = m * 2^e, m in [0.5,1) */
  float q = nearbyintf(ldexpf(a, 11 - e));  /* 11 significant bits */
  if (q >= 2048) {
    q /= 2;
    e++;
  }
  return s | (uint16_t)((e + 14) << 10) | ((uint16_t)q & 0x3ff);
}

const char *op_target_name(enum isa_target t) { return t == ISA_GFX942 ? "gfx942" : "gfx90a"; }

void op_setup(struct op_ctx *x, const char *file, enum isa_target t)
{
  char path[512];
  snprintf(path, sizeof(path), "%s/%s_%s.so", ISA_TEST_KERNEL_DIR, file, op_target_name(t));
  cr_assert_eq(harness_open(&x->h, path, t), 0, "cannot load %s", path);
  x->a = harness_alloc(&x->h, 64 * 8);
  x->b = harness_alloc(&x->h, 64 * 8);
  x->c = harness_alloc(&x->h, 64 * 8);
  x->out = harness_alloc(&x->h, 64 * 8);
}

void op_run(struct op_ctx *x, const char *kernel)
{
  void *args[4] = {x->a, x->b, x->c, x->out};
  struct harness_launch l = {.name = kernel, .grid = {64, 1, 1}, .block = {64, 1, 1},
                             .kernarg = args, .kernarg_size = sizeof(args)};
  struct isa_result r;
  cr_assert_eq(harness_run(&x->h, &l, &r), 0, "kernel %s not found", kernel);
  cr_assert_eq(r.status, ISA_OK, "%s: status %d: %s", kernel, r.status, r.message);
}

void op_close(struct op_ctx *x) { harness_close(&x->h); }

static bool nan16(uint32_t h) { return (h & 0x7c00) == 0x7c00 && (h & 0x3ff); }

bool op_same(uint32_t got, uint32_t want, enum op_cmp how)
{
  switch (how) {
  case FP32:
    return got == want || (isnan(op_f(got)) && isnan(op_f(want)));
  case FP16:
    return got == want || (nan16(got) && nan16(want) && (got >> 16) == (want >> 16));
  case PK16:
    return op_same(got & 0xffff, want & 0xffff, FP16) && op_same(got >> 16, want >> 16, FP16);
  case LO16:
    return op_same(got & 0xffff, want & 0xffff, FP16);
  case LO16B:
    return (got & 0xffff) == (want & 0xffff);
  case BITS:
  default:
    return got == want;
  }
}

void op_check32(const char *file, enum isa_target t, const char *kernel, const uint32_t *set,
                size_t n, op_ref32 ref, enum op_cmp how)
{
  struct op_ctx x;
  op_setup(&x, file, t);
  for (unsigned l = 0; l < 64; l++) {
    x.a[l] = set[l % n];
    x.b[l] = set[(l * 7 + 3) % n];
    x.c[l] = set[(l * 5 + 11) % n];
  }
  op_run(&x, kernel);
  for (unsigned l = 0; l < 64; l++) {
    bool on = OP_HOLES >> l & 1;
    uint32_t want = on ? ref(x.a[l], x.b[l], x.c[l], l, x.a) : OP_MARK;
    uint32_t got = x.out[l];
    cr_expect(on ? op_same(got, want, how) : got == want,
              "%s (%s) lane %u: a=0x%08x b=0x%08x c=0x%08x: got 0x%08x want 0x%08x", kernel,
              op_target_name(t), l, x.a[l], x.b[l], x.c[l], got, want);
  }
  op_close(&x);
}

void op_check64(const char *file, enum isa_target t, const char *kernel, const uint64_t *set,
                size_t n, op_ref64 ref, bool fp)
{
  struct op_ctx x;
  op_setup(&x, file, t);
  uint64_t *a = (uint64_t *)x.a, *b = (uint64_t *)x.b, *c = (uint64_t *)x.c, *o = (uint64_t *)x.out;
  for (unsigned l = 0; l < 64; l++) {
    a[l] = set[l % n];
    b[l] = set[(l * 7 + 3) % n];
    c[l] = set[(l * 5 + 11) % n];
  }
  op_run(&x, kernel);
  for (unsigned l = 0; l < 64; l++) {
    bool on = OP_HOLES >> l & 1;
    uint64_t want = on ? ref(a[l], b[l], c[l], l) : ((uint64_t)OP_MARK << 32 | OP_MARK);
    bool ok = o[l] == want || (fp && on && isnan(op_d(o[l])) && isnan(op_d(want)));
    cr_expect(ok, "%s (%s) lane %u: a=0x%016llx b=0x%016llx c=0x%016llx: got 0x%016llx want 0x%016llx",
              kernel, op_target_name(t), l, (unsigned long long)a[l], (unsigned long long)b[l],
              (unsigned long long)c[l], (unsigned long long)o[l], (unsigned long long)want);
  }
  op_close(&x);
}
