/* Memory-operation table built from opcode names, and host-atomic read-modify-write.
 * Several workgroups run at once on different host threads, so every global atomic is a host
 * atomic (a compare-exchange loop where the CPU has no single instruction for it). */
#include "isa/mem_ops.h"
#include "isa/isa_optab.h"
#include "isa/valu_fp.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static struct mem_op tab[ISA_OP_COUNT];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static const struct { const char *s; uint8_t a; uint8_t f; } atomics[] = {
  {"swap", AT_SWAP, 0}, {"cmpswap", AT_CMPSWAP, 0}, {"cmpst", AT_CMPSWAP, 0},
  {"wrxchg", AT_SWAP, 0}, {"add", AT_ADD, 0}, {"sub", AT_SUB, 0}, {"rsub", AT_RSUB, 0},
  {"smin", AT_SMIN, 0}, {"umin", AT_UMIN, 0}, {"smax", AT_SMAX, 0}, {"umax", AT_UMAX, 0},
  {"min", AT_SMIN, 0}, {"max", AT_SMAX, 0},
  {"and", AT_AND, 0}, {"or", AT_OR, 0}, {"xor", AT_XOR, 0}, {"inc", AT_INC, 0},
  {"dec", AT_DEC, 0}, {"mskor", AT_MSKOR, 0},
};

/* Parse the part after the family prefix. */
static void parse_vmem(struct mem_op *m, const char *rest)
{
  if (!strncmp(rest, "load_", 5) || !strncmp(rest, "store_", 6)) {
    bool load = rest[0] == 'l';
    const char *t = rest + (load ? 5 : 6);
    m->kind = load ? MK_LOAD : MK_STORE;
    m->count = 1;
    m->typed = !strncmp(t, "format_", 7);
    if (!strncmp(t, "dwordx", 6)) { m->bytes = 4; m->count = (uint8_t)atoi(t + 6); }
    else if (!strncmp(t, "dword", 5)) m->bytes = 4;
    else if (!strncmp(t, "format_x", 8)) { m->bytes = 4; m->count = (uint8_t)strlen(t + 7); }
    else if (strstr(t, "byte")) { m->bytes = 1; m->sext = t[0] == 's'; }
    else if (strstr(t, "short")) { m->bytes = 2; m->sext = t[0] == 's'; }
    else m->kind = MK_NONE;
    if (strstr(t, "_d16_hi")) m->d16 = 2;
    else if (strstr(t, "_d16")) m->d16 = 1;
    if (strstr(t, "format") && strcmp(t, "format_x") && strncmp(t, "format_x", 8)) m->kind = MK_NONE;
    if (strstr(t, "addtid") || strstr(t, "lds")) m->kind = MK_NONE;
    return;
  }
  if (!strncmp(rest, "atomic_", 7)) {
    const char *t = rest + 7;
    size_t n = strlen(t);
    bool x2 = n > 3 && !strcmp(t + n - 3, "_x2");
    m->kind = MK_ATOMIC;
    m->bytes = x2 ? 8 : 4;
    m->count = 1;
    if (!strncmp(t, "add_f32", 7)) { m->atomic = AT_FADD; m->is_float = 1; }
    else if (!strncmp(t, "add_f64", 7)) { m->atomic = AT_FADD; m->is_float = 1; m->bytes = 8; }
    else if (!strncmp(t, "min_f64", 7)) { m->atomic = AT_FMIN; m->is_float = 1; m->bytes = 8; }
    else if (!strncmp(t, "max_f64", 7)) { m->atomic = AT_FMAX; m->is_float = 1; m->bytes = 8; }
    else if (!strncmp(t, "pk_add_f16", 10)) m->atomic = AT_PK_FADD16;
    else if (!strncmp(t, "pk_add_bf16", 11)) m->atomic = AT_PK_BFADD16;
    else {
      char word[16] = {0};
      size_t wl = strcspn(t, "_");
      if (wl < sizeof(word)) memcpy(word, t, wl);
      for (unsigned i = 0; i < sizeof(atomics) / sizeof(atomics[0]); i++)
        if (!strcmp(word, atomics[i].s)) m->atomic = atomics[i].a;
    }
    if (!m->atomic) m->kind = MK_NONE;
    return;
  }
}

/* DS names: ds_<op>[_rtn]_<type>, ds_read*, ds_write*. */
static void parse_ds(struct mem_op *m, const char *t)
{
  size_t n = strlen(t);
  bool is64 = (n > 4 && (!strcmp(t + n - 4, "_b64") || !strcmp(t + n - 4, "_u64") ||
                         !strcmp(t + n - 4, "_i64") || !strcmp(t + n - 4, "_f64")));
  m->count = 1;
  if (!strncmp(t, "read", 4) || !strncmp(t, "write", 5)) {
    bool rd = t[0] == 'r';
    const char *u = t + (rd ? 4 : 5);
    if (!strncmp(u, "2st64", 5)) { m->two_addr = 2; u += 5; }
    else if (u[0] == '2') { m->two_addr = 1; u += 1; }
    if (u[0] != '_') return;
    u++;
    m->kind = rd ? MK_LOAD : MK_STORE;
    if (!strncmp(u, "b128", 4)) { m->bytes = 4; m->count = 4; }
    else if (!strncmp(u, "b96", 3)) { m->bytes = 4; m->count = 3; }
    else if (!strncmp(u, "b64", 3)) { m->bytes = 8; }
    else if (!strncmp(u, "b32", 3)) m->bytes = 4;
    else if (!strncmp(u, "b16", 3) || !strncmp(u, "u16", 3) || !strncmp(u, "i16", 3)) { m->bytes = 2; m->sext = u[0] == 'i'; }
    else if (!strncmp(u, "b8", 2) || !strncmp(u, "u8", 2) || !strncmp(u, "i8", 2)) { m->bytes = 1; m->sext = u[0] == 'i'; }
    else m->kind = MK_NONE;
    if (strstr(u, "_d16_hi")) m->d16 = 2;
    else if (strstr(u, "_d16")) m->d16 = 1;
    return;
  }
  char word[16] = {0};
  size_t wl = strcspn(t, "_");
  if (wl >= sizeof(word)) return;
  memcpy(word, t, wl);
  m->ret = strstr(t, "_rtn_") != NULL;
  m->bytes = is64 ? 8 : 4;
  bool fl = n > 4 && (!strcmp(t + n - 4, "_f32") || !strcmp(t + n - 4, "_f64"));
  if (!strcmp(word, "wrxchg2") || !strcmp(word, "wrxchg2st64") || !strcmp(word, "condxchg32")) return;
  for (unsigned i = 0; i < sizeof(atomics) / sizeof(atomics[0]); i++)
    if (!strcmp(word, atomics[i].s)) m->atomic = atomics[i].a;
  if (!m->atomic) return;
  if (fl) {
    m->is_float = 1;
    if (m->atomic == AT_ADD) m->atomic = AT_FADD;
    else if (m->atomic == AT_SMIN) m->atomic = AT_FMIN;
    else if (m->atomic == AT_SMAX) m->atomic = AT_FMAX;
    else if (m->atomic != AT_CMPSWAP) m->atomic = AT_NONE;
    if (!m->atomic) return;
  }
  if (strstr(t, "_u32") || strstr(t, "_u64")) {
    if (m->atomic == AT_SMIN) m->atomic = AT_UMIN;
    if (m->atomic == AT_SMAX) m->atomic = AT_UMAX;
  }
  m->kind = MK_ATOMIC;
}

static void build(void)
{
  for (unsigned op = 1; op < ISA_OP_COUNT; op++) {
    const char *n = isa_op_names[op];
    struct mem_op *m = &tab[op];
    if (!strncmp(n, "flat_", 5)) parse_vmem(m, n + 5);
    else if (!strncmp(n, "global_", 7)) parse_vmem(m, n + 7);
    else if (!strncmp(n, "tbuffer_", 8)) parse_vmem(m, n + 8);
    else if (!strncmp(n, "scratch_", 8)) parse_vmem(m, n + 8);
    else if (!strncmp(n, "buffer_", 7)) {
      parse_vmem(m, n + 7);
      if (!m->kind && (strstr(n, "wb") || strstr(n, "inv")))
        m->kind = MK_NOP;   /* buffer_wbl2, buffer_invl2, buffer_wbinvl1(_vol), buffer_inv */
    } else if (!strncmp(n, "ds_", 3)) parse_ds(m, n + 3);
  }
}

const struct mem_op *mem_op_info(unsigned op)
{
  pthread_once(&once, build);
  return &tab[op < ISA_OP_COUNT ? op : 0];
}

static uint64_t apply(enum atomic_op a, unsigned bytes, uint64_t old, uint64_t src, uint64_t cmp)
{
  bool b8 = bytes == 8;
  uint64_t mask = b8 ? ~0ull : 0xffffffffull;
  int64_t so = b8 ? (int64_t)old : (int32_t)old, ss = b8 ? (int64_t)src : (int32_t)src;
  switch (a) {
  case AT_SWAP: return src;
  case AT_CMPSWAP: return old == cmp ? src : old;
  case AT_ADD: return (old + src) & mask;
  case AT_SUB: return (old - src) & mask;
  case AT_RSUB: return (src - old) & mask;
  case AT_SMIN: return (uint64_t)(so < ss ? so : ss) & mask;
  case AT_SMAX: return (uint64_t)(so > ss ? so : ss) & mask;
  case AT_UMIN: return old < src ? old : src;
  case AT_UMAX: return old > src ? old : src;
  case AT_AND: return old & src;
  case AT_OR: return old | src;
  case AT_XOR: return old ^ src;
  case AT_MSKOR: return (old & ~cmp) | src;
  case AT_INC: return old >= src ? 0 : old + 1;
  case AT_DEC: return (old == 0 || old > src) ? src : old - 1;
  case AT_FADD:
    return b8 ? bits_f64(f64_of(old) + f64_of(src)) : bits_f32(f32_of(old) + f32_of(src));
  case AT_FADD_FTZ: case AT_FADD_FTZ_OUT: case AT_FADD_FTZ_IN: {
    bool in = a != AT_FADD_FTZ_OUT, out = a != AT_FADD_FTZ_IN;
    float x = f32_of((uint32_t)old), y = f32_of((uint32_t)src);
    if (in) {
      x = flush_f32(x);
      y = flush_f32(y);
    }
    float r = x + y;
    return bits_f32(out ? flush_f32(r) : r);
  }
  case AT_FMIN:
    return b8 ? bits_f64(fmin(f64_of(old), f64_of(src))) : bits_f32(fminf(f32_of(old), f32_of(src)));
  case AT_FMAX:
    return b8 ? bits_f64(fmax(f64_of(old), f64_of(src))) : bits_f32(fmaxf(f32_of(old), f32_of(src)));
  case AT_PK_FADD16: {
    uint32_t r = 0;
    for (int h = 0; h < 2; h++)
      r |= (uint32_t)f32_to_f16(f16_to_f32((uint16_t)(old >> (16 * h))) + f16_to_f32((uint16_t)(src >> (16 * h)))) << (16 * h);
    return r;
  }
  case AT_PK_BFADD16: {
    uint32_t r = 0;
    for (int h = 0; h < 2; h++)
      r |= (uint32_t)f32_to_bf16(bf16_to_f32((uint16_t)(old >> (16 * h))) + bf16_to_f32((uint16_t)(src >> (16 * h)))) << (16 * h);
    return r;
  }
  default:
    return old;
  }
}

uint64_t mem_atomic(void *p, unsigned bytes, enum atomic_op a, uint64_t src, uint64_t cmp)
{
  if (bytes == 8) {
    uint64_t *q = p;
    switch (a) {
    case AT_ADD: return __atomic_fetch_add(q, src, __ATOMIC_SEQ_CST);
    case AT_SWAP: return __atomic_exchange_n(q, src, __ATOMIC_SEQ_CST);
    default: break;
    }
    uint64_t old = __atomic_load_n(q, __ATOMIC_SEQ_CST);
    for (;;) {
      uint64_t nv = apply(a, 8, old, src, cmp);
      if (a == AT_CMPSWAP && old != cmp)
        return old;
      if (__atomic_compare_exchange_n(q, &old, nv, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
        return old;
    }
  }
  uint32_t *q = p;
  uint32_t s32 = (uint32_t)src;
  switch (a) {
  case AT_ADD: return __atomic_fetch_add(q, s32, __ATOMIC_SEQ_CST);
  case AT_SUB: return __atomic_fetch_sub(q, s32, __ATOMIC_SEQ_CST);
  case AT_AND: return __atomic_fetch_and(q, s32, __ATOMIC_SEQ_CST);
  case AT_OR: return __atomic_fetch_or(q, s32, __ATOMIC_SEQ_CST);
  case AT_XOR: return __atomic_fetch_xor(q, s32, __ATOMIC_SEQ_CST);
  case AT_SWAP: return __atomic_exchange_n(q, s32, __ATOMIC_SEQ_CST);
  default: break;
  }
  uint32_t old = __atomic_load_n(q, __ATOMIC_SEQ_CST);
  for (;;) {
    if (a == AT_CMPSWAP && old != (uint32_t)cmp)
      return old;
    uint32_t nv = (uint32_t)apply(a, 4, old, s32, (uint32_t)cmp);
    if (__atomic_compare_exchange_n(q, &old, nv, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
      return old;
  }
}

/* ---- typed buffer formats ---- */

/* gfx9 DATA_FORMAT values (llvm-mc-19's BUF_DATA_FORMAT_* encodings): components x bits */
static const struct { uint8_t comps, bits; } dfmts[16] = {
  [1] = {1, 8}, [2] = {1, 16}, [3] = {2, 8}, [4] = {1, 32}, [5] = {2, 16},
  [10] = {4, 8}, [11] = {2, 32}, [12] = {4, 16}, [13] = {3, 32}, [14] = {4, 32},
};

bool buf_format_get(unsigned dfmt, unsigned nfmt, bool store, struct buf_format *f)
{
  if (dfmt > 15 || nfmt > 7 || !dfmts[dfmt].comps || nfmt == NF_RSVD)
    return false;
  f->comps = dfmts[dfmt].comps;
  f->bits = dfmts[dfmt].bits;
  f->nfmt = (uint8_t)nfmt;
  if (nfmt == NF_FLOAT && f->bits == 8)
    return false;
  if (f->bits == 32 && nfmt <= NF_SSCALED)
    return false;
  if (store && (nfmt == NF_USCALED || nfmt == NF_SSCALED))
    return false;
  if (store && (nfmt == NF_UINT || nfmt == NF_SINT) && f->bits < 32)
    return false;
  return true;
}

static uint32_t comp_raw(const uint8_t *elem, unsigned bits, unsigned i)
{
  uint32_t r = 0;
  memcpy(&r, elem + i * bits / 8, bits / 8);
  return r;
}

/* Memory component -> register value (ISA guide "Buffer Instructions", number formats:
 * UNORM r / (2^n - 1), SNORM max(s / (2^(n-1) - 1), -1), SCALED the integer as a float). */
static uint32_t comp_load(uint32_t r, unsigned bits, unsigned nfmt)
{
  uint32_t umax = bits == 32 ? 0xffffffffu : (1u << bits) - 1;
  int32_t s = bits == 32 ? (int32_t)r : (int32_t)(r << (32 - bits)) >> (32 - bits);
  switch (nfmt) {
  case NF_UNORM: return bits_f32((float)r / (float)umax);
  case NF_SNORM: {
    float v = (float)s / (float)(umax >> 1);
    return bits_f32(v < -1.0f ? -1.0f : v);
  }
  case NF_USCALED: return bits_f32((float)r);
  case NF_SSCALED: return bits_f32((float)s);
  case NF_SINT: return (uint32_t)s;
  case NF_FLOAT: return bits == 16 ? bits_f32(f16_to_f32((uint16_t)r)) : r;
  default: return r;
  }
}

void buf_format_load(const uint8_t *elem, const struct buf_format *f, unsigned count, uint32_t *out)
{
  bool is_int = f->nfmt == NF_UINT || f->nfmt == NF_SINT;
  for (unsigned i = 0; i < count; i++) {
    if (i < f->comps)
      out[i] = comp_load(comp_raw(elem, f->bits, i), f->bits, f->nfmt);
    else
      out[i] = i < 3 ? 0 : is_int ? 1 : 0x3f800000u;
  }
}

/* Register value -> memory component: floats to UNORM/SNORM clamp to the range (NaN to 0),
 * scale and round to nearest even (the D3D conversion rules GPUs follow); 16-bit floats round
 * to nearest even. */
static uint32_t comp_store(uint32_t v, unsigned bits, unsigned nfmt)
{
  uint32_t mask = bits == 32 ? 0xffffffffu : (1u << bits) - 1;
  float f = f32_of(v);
  switch (nfmt) {
  /* the products are exact in double (24-bit significand times at most 16 bits) */
  case NF_UNORM: {
    if (isnan(f)) return 0;
    double d = f < 0.0f ? 0.0 : f > 1.0f ? 1.0 : (double)f;
    return (uint32_t)nearbyint(d * mask);
  }
  case NF_SNORM: {
    if (isnan(f)) return 0;
    double d = f < -1.0f ? -1.0 : f > 1.0f ? 1.0 : (double)f;
    return (uint32_t)(int32_t)nearbyint(d * (mask >> 1)) & mask;
  }
  case NF_FLOAT: return bits == 16 ? f32_to_f16(f) : v;
  default: return v & mask;
  }
}

void buf_format_store(uint8_t *elem, const struct buf_format *f, const uint32_t *in)
{
  for (unsigned i = 0; i < f->comps; i++) {
    uint32_t r = comp_store(in[i], f->bits, f->nfmt);
    memcpy(elem + i * f->bits / 8, &r, f->bits / 8);
  }
}
