/* Per-instruction tests of the memory opcodes: kernels/op_mem.s assembled for gfx90a and gfx942,
 * run on the interpreter. Loads and stores of every width and sign extension through global,
 * flat (also into the LDS and private apertures), MUBUF (range checked; also scratch through the
 * private segment buffer), typed MUBUF/MTBUF formats, LDS (read2/write2/st64, b128) and scratch;
 * s_load_dwordx4; cache write-back/invalidate;
 * every global/flat/LDS atomic with and without a return value, on distinct addresses (exact old
 * and new value per lane) and under contention (the returned olds must form a sequential chain
 * in some order that ends with the memory's final value). The memory instruction always runs
 * under an EXEC mask with holes: disabled lanes must neither touch memory nor their registers.
 * Every expected value is computed here from the ISA guide's definitions. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "op_check.h"

#define BUF 8192u            /* bytes of each of a, b, c, out */
#define NREC 208u            /* num_records of the raw V# in op_mem.s (bytes); see below */
#define SOFF 8u              /* its SOFFSET */
#define IDX_STRIDE 12u       /* the structured V#: stride and records */
#define IDX_NREC 40u

static bool on(unsigned l) { return OP_HOLES >> l & 1; }

struct mem {
  struct op_ctx x;
  uint8_t *a, *b, *c, *out;
};

static uint32_t rng_state;
static uint32_t rnd(void)
{
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 17;
  rng_state ^= rng_state << 5;
  return rng_state;
}

/* op_setup, with 8 KiB buffers in place of its 512-byte ones; out starts as the marker. */
static void mem_open(struct mem *m, enum isa_target t, uint32_t seed)
{
  op_setup(&m->x, "op_mem", t);
  m->x.a = harness_alloc(&m->x.h, BUF);
  m->x.b = harness_alloc(&m->x.h, BUF);
  m->x.c = harness_alloc(&m->x.h, BUF);
  m->x.out = harness_alloc(&m->x.h, BUF);
  cr_assert(m->x.a && m->x.b && m->x.c && m->x.out);
  m->a = (uint8_t *)m->x.a;
  m->b = (uint8_t *)m->x.b;
  m->c = (uint8_t *)m->x.c;
  m->out = (uint8_t *)m->x.out;
  rng_state = seed * 2654435761u + 1;
  for (unsigned i = 0; i < BUF / 4; i++) {
    m->x.a[i] = rnd();
    m->x.c[i] = rnd();
    m->x.out[i] = OP_MARK;
  }
}

static uint32_t rd32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint64_t rd64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static void wr32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static void wr64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

/* ---- loads ---- */

/* S_BUFD: raw buffer with SOFFSET 0, one piece per dword (dwordxN accesses are range checked
 * per dword) */
enum src { S_GLOBAL, S_LDS, S_PRIV, S_BUF, S_BUFIDX, S_BUFD };

struct ld {
  const char *k;
  enum src src;
  unsigned mult, add;  /* b[l] = mult * l + add (mult * (63 - l) + add when rev) */
  bool rev;
  unsigned mod;        /* if nonzero, l % mod replaces l (private memory: 128 bytes a lane) */
  int delta[4];        /* address of each piece relative to b[l] (instruction offsets) */
  unsigned pieces, len;
  bool sext;
};

static unsigned lane_off(unsigned mult, unsigned add, bool rev, unsigned mod, unsigned l)
{
  unsigned i = mod ? l % mod : l;
  return mult * (rev ? (mod ? mod : 64) - 1 - i : i) + add;
}

/* Where lane l's byte at `addr` of the loaded space comes from, or NULL if a buffer access is
 * out of range (the load returns 0). LDS is filled from c; private memory from c + 128*l.
 * Raw buffers: out of range when offset + size passes num_records, SOFFSET not counted. Whether
 * SOFFSET counts is not settled here, so NREC and the lane offsets put the lanes where it would
 * matter (offset + size in (NREC - SOFF, NREC]: lanes 49-51) outside EXEC. */
static const uint8_t *ld_src(const struct mem *m, enum src s, unsigned l, unsigned addr, unsigned len)
{
  switch (s) {
  case S_LDS: return m->c + addr;
  case S_PRIV: return m->c + 128 * l + addr;
  case S_BUF: return addr + len > NREC ? NULL : m->a + SOFF + addr;
  case S_BUFIDX: return l >= IDX_NREC ? NULL : m->a + IDX_STRIDE * l + addr;
  case S_BUFD: return addr + len > NREC ? NULL : m->a + addr;
  default: return m->a + addr;
  }
}

static void check_load(enum isa_target t, const struct ld *s)
{
  struct mem m;
  mem_open(&m, t, 7);
  for (unsigned l = 0; l < 64; l++)
    wr32(m.b + 4 * l, lane_off(s->mult, s->add, s->rev, s->mod, l));
  op_run(&m.x, s->k);
  for (unsigned l = 0; l < 64; l++) {
    uint32_t want[4] = {OP_MARK, OP_MARK, OP_MARK, OP_MARK};
    if (on(l)) {
      uint8_t bytes[16] = {0};
      unsigned n = 0, off = s->src == S_BUFIDX ? 0 : rd32(m.b + 4 * l);
      for (unsigned p = 0; p < s->pieces; p++) {
        const uint8_t *src = ld_src(&m, s->src, l, off + (unsigned)s->delta[p], s->len);
        if (src)
          memcpy(bytes + n, src, s->len);
        n += s->len;
      }
      if (s->len == 1)
        want[0] = s->sext ? (uint32_t)(int32_t)(int8_t)bytes[0] : bytes[0];
      else if (s->len == 2)
        want[0] = s->sext ? (uint32_t)(int32_t)(int16_t)(bytes[0] | bytes[1] << 8) : (uint32_t)(bytes[0] | bytes[1] << 8);
      else
        memcpy(want, bytes, n);
    }
    for (unsigned i = 0; i < 4; i++) {
      uint32_t got = rd32(m.out + 16 * l + 4 * i);
      cr_expect_eq(got, want[i], "%s (%s) lane %u dword %u: got 0x%08x want 0x%08x", s->k,
                   op_target_name(t), l, i, got, want[i]);
    }
  }
  op_close(&m.x);
}

static const struct ld loads[] = {
  {"l_global_ubyte", S_GLOBAL, 3, 0, false, 0, {3, 0}, 1, 1, false},
  {"l_global_ushort", S_GLOBAL, 6, 2, false, 0, {-2, 0}, 1, 2, false},
  {"l_global_dwordx3", S_GLOBAL, 12, 16, false, 0, {-16, 0}, 1, 12, false},
  {"l_global_dwordx4", S_GLOBAL, 16, 0, true, 0, {16, 0}, 1, 16, false},
  {"l_flat_sbyte", S_GLOBAL, 5, 1, false, 0, {0, 0}, 1, 1, true},
  {"l_flat_ubyte", S_GLOBAL, 7, 0, false, 0, {1, 0}, 1, 1, false},
  {"l_flat_ushort", S_GLOBAL, 4, 2, false, 0, {2, 0}, 1, 2, false},
  {"l_flat_dwordx2", S_GLOBAL, 8, 0, true, 0, {0, 0}, 1, 8, false},
  {"l_flat_dwordx4", S_GLOBAL, 32, 0, false, 0, {16, 0}, 1, 16, false},
  /* raw buffer: lanes whose offset + size passes num_records read 0 */
  {"b_load_dword", S_BUF, 4, 0, false, 0, {4, 0}, 1, 4, false},
  {"b_load_ubyte", S_BUF, 4, 0, false, 0, {5, 0}, 1, 1, false},
  {"b_load_dword_idx", S_BUFIDX, 0, 0, false, 0, {4, 0}, 1, 4, false},
  /* lanes 13-15 straddle num_records: their first 1, 2, 3 dwords are in range */
  {"b_load_dwordx4_range", S_BUFD, 4, 0, true, 0, {4, 8, 12, 16}, 4, 4, false},
  {"d_read_b32", S_LDS, 12, 0, false, 0, {4, 0}, 1, 4, false},
  {"d_read_b64", S_LDS, 8, 0, true, 0, {8, 0}, 1, 8, false},
  {"d_read_b128", S_LDS, 16, 0, false, 0, {16, 0}, 1, 16, false},
  {"d_read2_b32", S_LDS, 4, 0, true, 0, {4, 28}, 2, 4, false},
  {"d_read2_b64", S_LDS, 8, 0, false, 0, {24, 8}, 2, 8, false},
  {"d_read2st64_b32", S_LDS, 4, 0, false, 0, {2 * 256, 5 * 256}, 2, 4, false},
  {"d_read2st64_b64", S_LDS, 8, 0, true, 0, {1 * 512, 4 * 512}, 2, 8, false},
  {"d_flat_load_dwordx2", S_LDS, 8, 0, true, 0, {8, 0}, 1, 8, false},
  {"d_flat_load_sbyte", S_LDS, 5, 0, false, 0, {3, 0}, 1, 1, true},
  /* scratch: vaddr forms, and the SADDR form (s17 = 24, so every lane reads offset 28) */
  {"p_load_dwordx2", S_PRIV, 8, 0, false, 8, {8, 0}, 1, 8, false},
  {"p_load_dwordx3", S_PRIV, 0, 0, false, 0, {28, 0}, 1, 12, false},
  {"p_load_dwordx4", S_PRIV, 16, 0, true, 7, {16, 0}, 1, 16, false},
  {"p_flat_load_dwordx4", S_PRIV, 16, 0, false, 7, {16, 0}, 1, 16, false},
};

static void all_loads(enum isa_target t)
{
  for (unsigned i = 0; i < OP_N(loads); i++)
    check_load(t, &loads[i]);
}
Test(isa_op_mem, loads_gfx90a) { all_loads(ISA_GFX90A); }
Test(isa_op_mem, loads_gfx942) { all_loads(ISA_GFX942); }

/* ---- stores ---- */

struct st {
  const char *k;
  enum src dst;        /* S_GLOBAL/S_BUF*: into c; S_LDS/S_PRIV: dumped to out */
  unsigned mult, add;
  bool rev;
  unsigned mod;
  int delta[4];
  unsigned pieces, len;
};

static void check_store(enum isa_target t, const struct st *s)
{
  struct mem m;
  mem_open(&m, t, 11);
  for (unsigned l = 0; l < 64; l++)
    wr32(m.b + 4 * l, lane_off(s->mult, s->add, s->rev, s->mod, l));
  /* the expected image: c before the kernel, with every enabled lane's bytes written */
  static uint8_t img[BUF];
  memcpy(img, m.c, BUF);
  op_run(&m.x, s->k);
  for (unsigned l = 0; l < 64; l++) {
    if (!on(l))
      continue;
    unsigned off = s->dst == S_BUFIDX ? 0 : rd32(m.b + 4 * l);
    for (unsigned p = 0; p < s->pieces; p++) {
      const uint8_t *data = s->dst == S_BUFD ? m.a + 16 * l + 4 * p : m.a + (p ? 1024 : 0) + 16 * l;
      unsigned addr = off + (unsigned)s->delta[p];
      uint8_t *dst;
      switch (s->dst) {
      case S_PRIV: dst = img + 128 * l + addr; break;
      case S_BUF: dst = addr + s->len > NREC ? NULL : img + SOFF + addr; break;
      case S_BUFIDX: dst = l >= IDX_NREC ? NULL : img + IDX_STRIDE * l + addr; break;
      case S_BUFD: dst = addr + s->len > NREC ? NULL : img + addr; break;
      default: dst = img + addr; break;
      }
      if (dst)
        memcpy(dst, data, s->len);
    }
  }
  const uint8_t *got = s->dst == S_LDS || s->dst == S_PRIV ? m.out : m.c;
  for (unsigned i = 0; i < BUF; i++)
    if (got[i] != img[i]) {
      cr_expect_eq(got[i], img[i], "%s (%s) byte %u (lane %u's area): got 0x%02x want 0x%02x",
                   s->k, op_target_name(t), i, i / 128, got[i], img[i]);
      break;
    }
  op_close(&m.x);
}

static const struct st stores[] = {
  {"s_global_byte", S_GLOBAL, 3, 0, false, 0, {1, 0}, 1, 1},
  {"s_global_short", S_GLOBAL, 4, 4, false, 0, {-2, 0}, 1, 2},
  {"s_global_dwordx3", S_GLOBAL, 12, 0, true, 0, {4, 0}, 1, 12},
  {"s_flat_byte", S_GLOBAL, 5, 0, false, 0, {0, 0}, 1, 1},
  {"s_flat_short", S_GLOBAL, 4, 0, false, 0, {2, 0}, 1, 2},
  {"s_flat_dwordx2", S_GLOBAL, 8, 0, true, 0, {0, 0}, 1, 8},
  {"s_flat_dwordx4", S_GLOBAL, 16, 0, false, 0, {16, 0}, 1, 16},
  /* raw buffer: lanes past num_records are dropped */
  {"b_store_byte", S_BUF, 4, 0, false, 0, {1, 0}, 1, 1},
  {"b_store_short", S_BUF, 4, 0, false, 0, {2, 0}, 1, 2},
  {"b_store_dword", S_BUF, 4, 0, false, 0, {4, 0}, 1, 4},
  {"b_store_dword_idx", S_BUFIDX, 0, 0, false, 0, {4, 0}, 1, 4},
  /* lane 38's second dword is past num_records */
  {"b_store_dwordx2_range", S_BUFD, 8, 0, true, 0, {4, 8}, 2, 4},
  {"d_write_b32", S_LDS, 12, 0, false, 0, {4, 0}, 1, 4},
  {"d_write_b64", S_LDS, 8, 0, true, 0, {8, 0}, 1, 8},
  {"d_write_b128", S_LDS, 16, 0, false, 0, {16, 0}, 1, 16},
  {"d_write2_b64", S_LDS, 32, 0, false, 0, {8, 24}, 2, 8},
  {"d_write2st64_b32", S_LDS, 4, 0, true, 0, {3 * 256, 1 * 256}, 2, 4},
  {"d_flat_store_dwordx4", S_LDS, 32, 0, true, 0, {16, 0}, 1, 16},
  /* scratch: s17 = 24 in the SADDR form, so every lane writes its offset 32 */
  {"p_store_dword", S_PRIV, 4, 0, false, 16, {4, 0}, 1, 4},
  {"p_store_dwordx2", S_PRIV, 0, 0, false, 0, {32, 0}, 1, 8},
  {"p_store_dwordx3", S_PRIV, 4, 0, true, 8, {12, 0}, 1, 12},
  {"p_store_dwordx4", S_PRIV, 16, 0, false, 6, {16, 0}, 1, 16},
  {"p_flat_store_short", S_PRIV, 2, 0, true, 30, {6, 0}, 1, 2},
};

static void all_stores(enum isa_target t)
{
  for (unsigned i = 0; i < OP_N(stores); i++)
    check_store(t, &stores[i]);
}
Test(isa_op_mem, stores_gfx90a) { all_stores(ISA_GFX90A); }
Test(isa_op_mem, stores_gfx942) { all_stores(ISA_GFX942); }

/* MUBUF scratch through the dispatch's private segment buffer V# (s[0:3]), as hipcc's gfx90a
 * code spills: SOFFSET is wave-scaled (s22 = 8*64, s23 = 32*64 stand for per-lane offsets 8
 * and 32), VADDR (b[l] = 4*(l % 16)) and the immediate are per lane. Lane l's private bytes
 * start as c + 128*l. */
static void private_buffer(enum isa_target t)
{
  struct mem m;
  mem_open(&m, t, 19);
  for (unsigned l = 0; l < 64; l++)
    wr32(m.b + 4 * l, 4 * (l % 16));
  static uint8_t img[BUF];
  memcpy(img, m.c, BUF);
  op_run(&m.x, "pb_store");
  for (unsigned l = 0; l < 64; l++) {
    if (!on(l))
      continue;
    uint8_t *p = img + 128 * l;
    unsigned off = rd32(m.b + 4 * l);
    memcpy(p + 8 + 4, m.a + 16 * l, 4);          /* buffer_store_dword v16, s22 offset:4 */
    memcpy(p + off + 2, m.a + 16 * l + 4, 2);    /* buffer_store_short v17, offen offset:2 */
    memcpy(p + 32 + off + 1, m.a + 16 * l + 8, 1); /* buffer_store_byte v18, offen s23 offset:1 */
  }
  for (unsigned i = 0; i < BUF; i++)
    if (m.out[i] != img[i]) {
      cr_expect_eq(m.out[i], img[i], "pb_store (%s) byte %u (lane %u): got 0x%02x want 0x%02x",
                   op_target_name(t), i, i / 128, m.out[i], img[i]);
      break;
    }
  op_close(&m.x);

  mem_open(&m, t, 23);
  for (unsigned l = 0; l < 64; l++)
    wr32(m.b + 4 * l, 4 * (l % 16));
  op_run(&m.x, "pb_load");
  for (unsigned l = 0; l < 64; l++) {
    const uint8_t *p = m.c + 128 * l;
    unsigned off = rd32(m.b + 4 * l);
    uint32_t want[4] = {rd32(p + 12), p[off + 3], rd32(p + 32 + off + 8), OP_MARK};
    for (unsigned i = 0; i < 4; i++) {
      uint32_t got = rd32(m.out + 16 * l + 4 * i), w = on(l) ? want[i] : OP_MARK;
      cr_expect_eq(got, w, "pb_load (%s) lane %u dword %u: got 0x%08x want 0x%08x",
                   op_target_name(t), l, i, got, w);
    }
  }
  op_close(&m.x);
}
/* gfx942 has architected flat scratch and no private segment buffer: scratch_* cover it. */
Test(isa_op_mem, private_buffer_gfx90a) { private_buffer(ISA_GFX90A); }

/* buffer_wbl2 / buffer_invl2 / buffer_wbinvl1_vol (gfx90a), buffer_wbl2 / buffer_inv (gfx942)
 * between a store and a load of the same address. */
static void cache_ops(enum isa_target t)
{
  struct mem m;
  mem_open(&m, t, 3);
  static uint32_t c0[64];
  memcpy(c0, m.c, sizeof(c0));
  op_run(&m.x, "b_cache_ops");
  for (unsigned l = 0; l < 64; l++) {
    uint32_t a = rd32(m.a + 4 * l);
    cr_expect_eq(rd32(m.out + 4 * l), on(l) ? a : OP_MARK, "lane %u", l);
    cr_expect_eq(rd32(m.c + 4 * l), on(l) ? a : c0[l], "lane %u", l);
  }
  op_close(&m.x);
}
Test(isa_op_mem, cache_ops_gfx90a) { cache_ops(ISA_GFX90A); }
Test(isa_op_mem, cache_ops_gfx942) { cache_ops(ISA_GFX942); }

static void s_load(enum isa_target t)
{
  struct mem m;
  mem_open(&m, t, 5);
  op_run(&m.x, "m_s_load_dwordx4");
  for (unsigned l = 0; l < 64; l++)
    for (unsigned i = 0; i < 8; i++) {
      uint32_t want = rd32(m.a + (i < 4 ? 0x10 + 4 * i : 0x24 + 4 * (i - 4)));
      cr_expect_eq(rd32(m.out + 32 * l + 4 * i), want, "lane %u dword %u", l, i);
    }
  op_close(&m.x);
}
Test(isa_op_mem, s_load_dwordx4_gfx90a) { s_load(ISA_GFX90A); }
Test(isa_op_mem, s_load_dwordx4_gfx942) { s_load(ISA_GFX942); }

/* ---- typed buffer access (buffer_*_format_*, tbuffer_*) ---- */

#define T_NREC 836u   /* num_records of op_mem.s's TVSHARP; lane l's element is at 16*l */

/* gfx9 data formats (llvm-mc-19 BUF_DATA_FORMAT_* values): components, bits per component */
static const struct { unsigned comps, bits; } t_dfmt[16] = {
  [1] = {1, 8}, [2] = {1, 16}, [3] = {2, 8}, [4] = {1, 32}, [5] = {2, 16},
  [10] = {4, 8}, [11] = {2, 32}, [12] = {4, 16}, [13] = {3, 32}, [14] = {4, 32},
};
enum { T_UNORM, T_SNORM, T_USCALED, T_SSCALED, T_UINT, T_SINT, T_FLOAT = 7 };

/* What the interpreter models (it refuses the rest): no 8-bit floats, no normalized or scaled
 * 32-bit components; stores also no scaled or narrow integer formats. */
static bool t_modelled(unsigned dfmt, unsigned nfmt, bool store)
{
  unsigned bits = t_dfmt[dfmt].bits;
  if (!t_dfmt[dfmt].comps || nfmt == 6 || (nfmt == T_FLOAT && bits == 8) || (bits == 32 && nfmt <= T_SSCALED))
    return false;
  if (store && (nfmt == T_USCALED || nfmt == T_SSCALED || ((nfmt == T_UINT || nfmt == T_SINT) && bits < 32)))
    return false;
  return true;
}

/* memory component -> register (UNORM r/(2^n-1), SNORM s/(2^(n-1)-1) clamped at -1) */
static uint32_t t_load_comp(uint32_t r, unsigned bits, unsigned nfmt)
{
  double umax = bits == 32 ? 4294967295.0 : (double)((1u << bits) - 1);
  int64_t sv = (int64_t)r - ((bits < 32 && r >> (bits - 1)) ? (int64_t)1 << bits : 0);
  if (bits == 32) sv = (int32_t)r;
  switch (nfmt) {
  case T_UNORM: return op_u((float)(r / umax));
  case T_SNORM: { double v = sv / floor(umax / 2); return op_u((float)(v < -1 ? -1 : v)); }
  case T_USCALED: return op_u((float)r);
  case T_SSCALED: return op_u((float)sv);
  case T_SINT: return (uint32_t)sv;
  case T_FLOAT: return bits == 16 ? op_u(op_h2f((uint16_t)r)) : r;
  default: return r;
  }
}

/* register -> memory component: clamp, scale, round to nearest even; NaN stores 0 */
static uint32_t t_store_comp(uint32_t v, unsigned bits, unsigned nfmt)
{
  float f = op_f(v);
  double umax = bits == 32 ? 4294967295.0 : (double)((1u << bits) - 1);
  switch (nfmt) {
  case T_UNORM: return isnan(f) ? 0 : (uint32_t)nearbyint(fmin(fmax(f, 0.0), 1.0) * umax);
  case T_SNORM:
    return isnan(f) ? 0 : (uint32_t)(int32_t)nearbyint(fmin(fmax(f, -1.0), 1.0) * floor(umax / 2)) & (uint32_t)umax;
  case T_FLOAT: return bits == 16 ? op_f2h(f) : v;
  default: return v;
  }
}

static bool t_nan(uint32_t r, unsigned bits)
{
  return bits == 16 ? (r & 0x7c00) == 0x7c00 && (r & 0x3ff) : isnan(op_f(r));
}

struct ty {
  const char *k;
  unsigned dfmt, nfmt, count;
  bool store;
  bool vsharp;   /* buffer_*_format_*: the format comes from the V# (out[0]) */
  unsigned dst_sel;   /* V# DST_SEL_X/Y/Z/W (0: the identity x, y, z, w) */
};

#define T_IDENTITY (4u | 5u << 3 | 6u << 6 | 7u << 9)

static void check_typed(enum isa_target t, const struct ty *y)
{
  struct mem m;
  mem_open(&m, t, 29 + y->dfmt * 8 + y->nfmt);
  unsigned comps = t_dfmt[y->dfmt].comps, bits = t_dfmt[y->dfmt].bits, esz = comps * bits / 8;
  for (unsigned l = 0; l < 64; l++)
    wr32(m.b + 4 * l, 16 * l);
  /* edge components: lane 1 bytes, lane 2 halves, lane 3 words; stores get floats instead */
  static const uint8_t e8[16] = {0x00, 0xff, 0x80, 0x7f, 0x81, 0x01, 0xfe, 0x40,
                                 0x7f, 0x80, 0x00, 0xff, 0x3c, 0xc0, 0x01, 0x81};
  static const uint16_t e16[8] = {0x8000, 0x7fff, 0x7c00, 0x7e00, 0x0001, 0x8001, 0xffff, 0x3c00};
  static const uint32_t e32[4] = {0x80000000, 0x7fffffff, 0xffffffff, 0x7fc00000};
  memcpy(m.a + 16, e8, 16);
  memcpy(m.a + 32, e16, 16);
  memcpy(m.a + 48, e32, 16);
  if (y->store) {
    static const float in_range[] = {0.0f, 1.0f, -1.0f, 0.5f, -0.5f, 0.25f, 1.0f / 255, 0.5f / 255,
                                     -0.5f / 127, 0.333f, -0.7f, 0.999f, 1e-3f, 2.0f, -3.0f, 0.75f};
    for (unsigned i = 0; i < 256; i++)
      wr32(m.a + 4 * i, i % 2 ? op_f32_edges[(i / 2) % OP_F32_EDGES_N] : op_u(in_range[(i / 2) % OP_N(in_range)]));
  }
  unsigned dsel = y->dst_sel ? y->dst_sel : T_IDENTITY;
  m.x.out[0] = dsel | (y->vsharp ? y->dfmt << 15 | y->nfmt << 12 : 0);
  static uint8_t img[BUF];
  memcpy(img, m.c, BUF);
  op_run(&m.x, y->k);
  for (unsigned l = 0; l < 64; l++) {
    bool in = 16 * l + esz <= T_NREC;   /* typed accesses are range checked all or nothing */
    if (y->store) {
      if (!on(l) || !in)
        continue;
      for (unsigned i = 0; i < comps; i++) {
        uint32_t r = t_store_comp(rd32(m.a + 16 * l + 4 * i), bits, y->nfmt);
        memcpy(img + 16 * l + i * bits / 8, &r, bits / 8);
      }
      continue;
    }
    for (unsigned i = 0; i < 4; i++) {
      uint32_t want = OP_MARK;
      if (on(l) && i < y->count) {
        bool is_int = y->nfmt == T_UINT || y->nfmt == T_SINT;
        uint32_t one = is_int ? 1 : 0x3f800000, sel = dsel >> (3 * i) & 7, c = sel - 4, r = 0;
        if (sel >= 4 && c < comps)
          memcpy(&r, m.a + 16 * l + c * bits / 8, bits / 8);
        if (sel == 1)
          want = one;                    /* SEL_1, in range or not */
        else if (sel == 0 || !in)
          want = 0;
        else
          want = c < comps ? t_load_comp(r, bits, y->nfmt) : c < 3 ? 0 : one;
      }
      uint32_t got = rd32(m.out + 16 * l + 4 * i);
      bool ok = got == want || (y->nfmt == T_FLOAT && want != OP_MARK && isnan(op_f(want)) && isnan(op_f(got)));
      cr_expect(ok, "%s (%s) dfmt %u nfmt %u lane %u dword %u: got 0x%08x want 0x%08x", y->k,
                op_target_name(t), y->dfmt, y->nfmt, l, i, got, want);
    }
  }
  if (y->store)
    for (unsigned i = 0; i < BUF; i += bits / 8) {
      uint32_t got = 0, want = 0;
      memcpy(&got, m.c + i, bits / 8);
      memcpy(&want, img + i, bits / 8);
      bool ok = got == want || (y->nfmt == T_FLOAT && i < 16 * 64 && t_nan(got, bits) && t_nan(want, bits));
      if (!ok) {
        cr_expect(ok, "%s (%s) dfmt %u nfmt %u byte %u (lane %u): got 0x%x want 0x%x", y->k,
                  op_target_name(t), y->dfmt, y->nfmt, i, i / 16, got, want);
        break;
      }
    }
  op_close(&m.x);
}

static const struct ty mtbuf[] = {
  {"t_load_8888_unorm", 10, T_UNORM, 4, false, false, 0},
  {"t_load_1616_snorm", 5, T_SNORM, 2, false, false, 0},
  {"t_load_16_float_xyzw", 2, T_FLOAT, 4, false, false, 0},
  {"t_load_323232_sint", 13, T_SINT, 3, false, false, 0},
  {"t_load_88_sscaled", 3, T_SSCALED, 2, false, false, 0},
  {"t_load_16161616_uint_x", 12, T_UINT, 1, false, false, 0},
  {"t_store_8888_unorm", 10, T_UNORM, 4, true, false, 0},
  {"t_store_1616_snorm", 5, T_SNORM, 2, true, false, 0},
  {"t_store_16_float", 2, T_FLOAT, 1, true, false, 0},
  {"t_store_323232_float", 13, T_FLOAT, 3, true, false, 0},
  /* DST_SEL swizzles: x <- w (a default 1 here), y <- 1, z <- 0, w <- x; and y <- x, x <- y */
  {"t_load_1616_snorm", 5, T_SNORM, 2, false, false, 5u | 4u << 3},
  {"y_load_xyzw", 10, T_UINT, 4, false, true, 7u | 1u << 3 | 0u << 6 | 4u << 9},
  {"y_load_xyzw", 12, T_FLOAT, 4, false, true, 6u | 1u << 3 | 5u << 6 | 4u << 9},
};

/* Every modelled (data format, number format) through buffer_load_format_{x,xy,xyz,xyzw} and
 * buffer_store_format_*, the tbuffer kernels, and the refusal of an unmodelled format. */
static void typed(enum isa_target t)
{
  static const char *ld[4] = {"y_load_x", "y_load_xy", "y_load_xyz", "y_load_xyzw"};
  static const char *st[4] = {"y_store_x", "y_store_xy", "y_store_xyz", "y_store_xyzw"};
  for (unsigned d = 0; d < 16; d++)
    for (unsigned n = 0; n < 8; n++)
      for (unsigned c = 1; c <= 4; c++) {
        if (t_modelled(d, n, false)) {
          struct ty y = {ld[c - 1], d, n, c, false, true, 0};
          check_typed(t, &y);
        }
        if (t_modelled(d, n, true) && c >= t_dfmt[d].comps) {
          struct ty y = {st[c - 1], d, n, c, true, true, 0};
          check_typed(t, &y);
        }
      }
  for (unsigned i = 0; i < OP_N(mtbuf); i++)
    check_typed(t, &mtbuf[i]);
  struct mem m;
  mem_open(&m, t, 31);
  void *args[4] = {m.a, m.b, m.c, m.out};
  struct harness_launch hl = {.name = "t_store_8_uint", .grid = {64, 1, 1}, .block = {64, 1, 1},
                              .kernarg = args, .kernarg_size = sizeof(args)};
  struct isa_result r;
  cr_assert_eq(harness_run(&m.x.h, &hl, &r), 0);
  cr_expect_eq(r.status, ISA_ILLEGAL_INSTR, "an 8-bit UINT typed store is not modelled: status %d", r.status);
  op_close(&m.x);
}
Test(isa_op_mem, typed_buffer_gfx90a) { typed(ISA_GFX90A); }
Test(isa_op_mem, typed_buffer_gfx942) { typed(ISA_GFX942); }

/* ---- atomics ---- */

enum rop { R_ADD, R_SUB, R_AND, R_OR, R_XOR, R_SMAX, R_SMIN, R_UMAX, R_UMIN, R_SWAP, R_CMPSWAP,
           R_INC, R_DEC, R_FADD };

struct at {
  const char *k;
  enum rop op;
  unsigned w;          /* bytes */
  bool ret;
  bool ftz_maybe;      /* global/flat f32 add: on gfx90a, flushing denormals is accepted too */
  bool ftz;            /* the reference flushes f32 denormals (set while trying that variant) */
};

static float flush32(float f) { return fpclassify(f) == FP_SUBNORMAL ? copysignf(0.0f, f) : f; }

/* f32 add with denormal inputs and outputs flushed to signed zero, or IEEE. ds_add_f32 follows
 * MODE (denormals on in these kernels); the f64 adds keep denormals. For the global/flat f32
 * add the sources disagree on gfx90a: LLVM notes (llvm-project PR 96443, which added
 * FeatureMemoryAtomicFAddF32DenormalSupport for gfx940) that the gfx90a programming guide says
 * it always flushes while the instruction documentation says it does not; gfx942 keeps
 * denormals. So gfx90a accepts either result (struct at.ftz_maybe). */
static uint32_t ref_fadd32(uint32_t a, uint32_t b, bool ftz)
{
  if (!ftz)
    return op_u(op_f(a) + op_f(b));
  return op_u(flush32(flush32(op_f(a)) + flush32(op_f(b))));
}

static uint64_t ref_apply(const struct at *s, uint64_t old, uint64_t src, uint64_t cmp)
{
  bool b8 = s->w == 8;
  uint64_t mask = b8 ? ~0ull : 0xffffffffull;
  old &= mask;
  src &= mask;
  cmp &= mask;
  int64_t so = b8 ? (int64_t)old : (int32_t)old, ss = b8 ? (int64_t)src : (int32_t)src;
  switch (s->op) {
  case R_ADD: return (old + src) & mask;
  case R_SUB: return (old - src) & mask;
  case R_AND: return old & src;
  case R_OR: return old | src;
  case R_XOR: return old ^ src;
  case R_SMAX: return so >= ss ? old : src;
  case R_SMIN: return so <= ss ? old : src;
  case R_UMAX: return old >= src ? old : src;
  case R_UMIN: return old <= src ? old : src;
  case R_SWAP: return src;
  case R_CMPSWAP: return old == cmp ? src : old;
  /* ISA guide: INC: tmp = MEM; MEM = (tmp >= DATA) ? 0 : tmp + 1.
   *            DEC: tmp = MEM; MEM = (tmp == 0 || tmp > DATA) ? DATA : tmp - 1. */
  case R_INC: return old >= src ? 0 : old + 1;
  case R_DEC: return old == 0 || old > src ? src : old - 1;
  case R_FADD: return b8 ? op_ud(op_d(old) + op_d(src)) : ref_fadd32((uint32_t)old, (uint32_t)src, s->ftz);
  }
  return old;
}

/* Equal values; for the float add any NaN matches any NaN (the payload is not promised). */
static bool same(const struct at *s, uint64_t x, uint64_t y)
{
  if (s->w == 4) {
    x &= 0xffffffff;
    y &= 0xffffffff;
  }
  if (x == y)
    return true;
  if (s->op != R_FADD)
    return false;
  return s->w == 8 ? isnan(op_d(x)) && isnan(op_d(y)) : isnan(op_f((uint32_t)x)) && isnan(op_f((uint32_t)y));
}

static uint64_t wmask(const struct at *s) { return s->w == 8 ? ~0ull : 0xffffffffull; }
static uint64_t ld_w(const uint8_t *p, unsigned w) { return w == 8 ? rd64(p) : rd32(p); }
static void st_w(uint8_t *p, unsigned w, uint64_t v)
{
  if (w == 8) wr64(p, v);
  else wr32(p, (uint32_t)v);
}

/* The lanes of one address under contention: is there an order in which each lane's returned
 * old value is the memory value left by the previous one, ending at `final`? Depth-first, trying
 * lanes in order first (the interpreter's order), with a budget against pathological inputs. */
struct chain {
  const struct at *s;
  const unsigned *lanes;
  unsigned n;
  const uint64_t *old, *src, *cmp;
  uint64_t final;
  bool used[64];
  long budget;
};

static bool chain_from(struct chain *c, uint64_t cur, unsigned depth)
{
  if (depth == c->n)
    return same(c->s, cur, c->final);
  if (--c->budget < 0)
    return false;
  for (unsigned i = 0; i < c->n; i++) {
    unsigned l = c->lanes[i];
    if (c->used[i] || !same(c->s, c->old[l], cur))
      continue;
    c->used[i] = true;
    if (chain_from(c, ref_apply(c->s, c->old[l], c->src[l], c->cmp[l]), depth + 1))
      return true;
    c->used[i] = false;
  }
  return false;
}

static const uint64_t *set_for(const struct at *s, size_t *n)
{
  static uint64_t i32[OP_I32_EDGES_N], f32[OP_F32_EDGES_N];
  if (s->op == R_FADD && s->w == 8) { *n = OP_F64_EDGES_N; return op_f64_edges; }
  if (s->w == 8) { *n = OP_I64_EDGES_N; return op_i64_edges; }
  if (s->op == R_FADD) {
    for (unsigned i = 0; i < OP_F32_EDGES_N; i++) f32[i] = op_f32_edges[i];
    *n = OP_F32_EDGES_N;
    return f32;
  }
  for (unsigned i = 0; i < OP_I32_EDGES_N; i++) i32[i] = op_i32_edges[i];
  *n = OP_I32_EDGES_N;
  return i32;
}

/* Where the kernel finds lane l's source and compare values, and puts its returned value. */
static uint8_t *src_at(struct mem *m, const struct at *s, unsigned l) { return m->a + s->w * l; }
static uint8_t *cmp_at(struct mem *m, const struct at *s, unsigned l) { return m->a + 64 * s->w + s->w * l; }

/* Distinct addresses: lane l works on c + w*l; exact old and new values per lane. Lanes 1-6
 * carry the inc/dec wrap cases (old == src, old > src, old == 0, old < src, all ones, zero). */
static void atomic_distinct(enum isa_target t, const struct at *s)
{
  struct mem m;
  mem_open(&m, t, 13);
  size_t n;
  const uint64_t *set = set_for(s, &n);
  uint64_t init[64];
  static const uint64_t wrap[6][2] = {{5, 5}, {6, 5}, {0, 5}, {4, 5}, {~0ull, ~0ull}, {0, 0}};
  /* float add: zero plus a denormal, two denormals, signed zeros, a normal cancelled down to a
   * denormal result */
  static const uint64_t fwrap32[6][2] = {{0, 0x000116c2}, {0x000116c2, 0x000116c2},
                                         {0x80000000, 0x800116c2}, {0, 0x80000000},
                                         {0x80000000, 0x80000000}, {0x00800000, 0x80400000}};
  static const uint64_t fwrap64[6][2] = {{0, 0x000123456789abcd}, {0x000123456789abcd, 0x000123456789abcd},
                                         {0x8000000000000000, 0x800123456789abcd}, {0, 0x8000000000000000},
                                         {0x8000000000000000, 0x8000000000000000},
                                         {0x0010000000000000, 0x8008000000000000}};
  for (unsigned l = 0; l < 64; l++) {
    uint64_t src = set[l % n];
    init[l] = set[(l * 7 + 3) % n];
    if (l >= 1 && l <= 6) {
      const uint64_t(*w)[2] = s->op != R_FADD ? wrap : s->w == 8 ? fwrap64 : fwrap32;
      init[l] = w[l - 1][0] & wmask(s);
      src = w[l - 1][1];
    }
    uint64_t cmp = l % 3 == 0 ? init[l] : set[(l * 5 + 11) % n];
    st_w(src_at(&m, s, l), s->w, src);
    st_w(cmp_at(&m, s, l), s->w, cmp);
    st_w(m.c + s->w * l, s->w, init[l]);
    wr32(m.b + 4 * l, s->w * l);
  }
  op_run(&m.x, s->k);
  uint64_t mark = s->w == 8 ? (uint64_t)OP_MARK << 32 | OP_MARK : OP_MARK;
  for (unsigned l = 0; l < 64; l++) {
    uint64_t src = ld_w(src_at(&m, s, l), s->w), cmp = ld_w(cmp_at(&m, s, l), s->w);
    uint64_t want_mem = on(l) ? ref_apply(s, init[l], src, cmp) : init[l];
    uint64_t want_ret = on(l) && s->ret ? init[l] : mark;
    uint64_t got_mem = ld_w(m.c + s->w * l, s->w), got_ret = ld_w(m.out + s->w * l, s->w);
    struct at flushing = *s;
    flushing.ftz = true;
    bool alt = s->ftz_maybe && t == ISA_GFX90A && on(l) &&
               same(s, got_mem, ref_apply(&flushing, init[l], src, cmp));
    cr_expect(on(l) ? same(s, got_mem, want_mem) || alt : got_mem == want_mem,
              "%s (%s) lane %u: old 0x%llx src 0x%llx cmp 0x%llx: memory 0x%llx want 0x%llx", s->k,
              op_target_name(t), l, (unsigned long long)init[l], (unsigned long long)src,
              (unsigned long long)cmp, (unsigned long long)got_mem, (unsigned long long)want_mem);
    cr_expect_eq(got_ret, want_ret, "%s (%s) lane %u: returned 0x%llx want 0x%llx", s->k,
                 op_target_name(t), l, (unsigned long long)got_ret, (unsigned long long)want_ret);
  }
  op_close(&m.x);
}

/* Values whose sum is exact in any order (so a no-return float add has one right answer). */
static const double order_free[] = {1.0, 2.0, -3.0, 0.5, 0.25, 0.0, -0.0, 100.25, 7.0, -15.5};

/* Contention: lane l works on c + w*(l % 3). With a return value the olds must chain (see
 * struct chain). Without, the final value is checked against an order-independent fold: the
 * data makes it so (float add: exact sums plus infinities/NaN; inc/dec: one limit per address),
 * and swap/cmpswap must leave some enabled lane's source (or the initial value). */
static void atomic_contention(enum isa_target t, const struct at *s)
{
  struct mem m;
  mem_open(&m, t, 17);
  size_t n;
  const uint64_t *set = set_for(s, &n);
  uint64_t init[3], src[64], cmp[64], old[64];
  bool fixed = !s->ret && (s->op == R_FADD || s->op == R_INC || s->op == R_DEC);
  for (unsigned k = 0; k < 3; k++)
    init[k] = set[(k * 5 + 2) % n];
  if (fixed && s->op == R_FADD) {
    double i3[3] = {-0.0, 1.5, 3.0};
    for (unsigned k = 0; k < 3; k++)
      init[k] = s->w == 8 ? op_ud(i3[k]) : op_u((float)i3[k]);
  } else if (fixed) {
    static const uint64_t i3[3] = {990, 7, 0xfffffff0};
    memcpy(init, i3, sizeof(init));
  }
  for (unsigned l = 0; l < 64; l++) {
    unsigned k = l % 3;
    src[l] = set[l % n];
    cmp[l] = l % 4 == 0 ? init[k] : src[l - 1];
    if (fixed && s->op == R_FADD) {
      double v = order_free[l % OP_N(order_free)];
      if (l == 0) v = -INFINITY;     /* lane 0 is disabled: would turn address 0 into -inf */
      if (l == 4 || l == 7) v = INFINITY;
      if (l == 8) v = NAN;
      src[l] = s->w == 8 ? op_ud(v) : op_u((float)v);
    } else if (fixed) {
      static const uint64_t lim[3] = {1000, 0, 0xffffffff};
      src[l] = lim[k];
    }
    st_w(src_at(&m, s, l), s->w, src[l]);
    st_w(cmp_at(&m, s, l), s->w, cmp[l]);
    wr32(m.b + 4 * l, s->w * k);
  }
  for (unsigned k = 0; k < 3; k++)
    st_w(m.c + s->w * k, s->w, init[k]);
  op_run(&m.x, s->k);
  uint64_t mark = s->w == 8 ? (uint64_t)OP_MARK << 32 | OP_MARK : OP_MARK;
  for (unsigned l = 0; l < 64; l++) {
    old[l] = ld_w(m.out + s->w * l, s->w);
    if (!on(l) || !s->ret)
      cr_expect_eq(old[l], mark, "%s (%s) lane %u: returned 0x%llx, must be untouched", s->k,
                   op_target_name(t), l, (unsigned long long)old[l]);
  }
  for (unsigned k = 0; k < 3; k++) {
    unsigned lanes[64], nl = 0;
    for (unsigned l = k; l < 64; l += 3)
      if (on(l))
        lanes[nl++] = l;
    uint64_t final = ld_w(m.c + s->w * k, s->w);
    if (s->ret) {
      struct chain c = {.s = s, .lanes = lanes, .n = nl, .old = old, .src = src, .cmp = cmp,
                        .final = final, .budget = 1000000};
      bool ok = chain_from(&c, init[k], 0);
      struct at flushing = *s;
      flushing.ftz = true;
      if (!ok && s->ftz_maybe && t == ISA_GFX90A) {
        memset(c.used, 0, sizeof(c.used));
        c.s = &flushing;
        c.budget = 1000000;
        ok = chain_from(&c, init[k], 0);
      }
      cr_expect(ok, "%s (%s) address %u: the returned values and the final "
                "value 0x%llx are no sequential order of the %u enabled lanes", s->k,
                op_target_name(t), k, (unsigned long long)final, nl);
      continue;
    }
    if (s->op == R_SWAP || s->op == R_CMPSWAP) {
      bool found = s->op == R_CMPSWAP && final == init[k];
      for (unsigned i = 0; i < nl; i++)
        found |= final == (src[lanes[i]] & wmask(s));
      cr_expect(found, "%s (%s) address %u: final 0x%llx is no lane's source", s->k,
                op_target_name(t), k, (unsigned long long)final);
      continue;
    }
    uint64_t v = init[k];
    for (unsigned i = 0; i < nl; i++)
      v = ref_apply(s, v, src[lanes[i]], cmp[lanes[i]]);
    cr_expect(same(s, final, v), "%s (%s) address %u: final 0x%llx want 0x%llx", s->k,
              op_target_name(t), k, (unsigned long long)final, (unsigned long long)v);
  }
  op_close(&m.x);
}

/* name, op, width; every entry has a _nr twin without the return value */
static const struct at atomics[] = {
  {"a_global_add", R_ADD, 4, true, false, false}, {"a_global_sub", R_SUB, 4, true, false, false},
  {"a_global_and", R_AND, 4, true, false, false}, {"a_global_or", R_OR, 4, true, false, false},
  {"a_global_xor", R_XOR, 4, true, false, false}, {"a_global_smax", R_SMAX, 4, true, false, false},
  {"a_global_smin", R_SMIN, 4, true, false, false}, {"a_global_umax", R_UMAX, 4, true, false, false},
  {"a_global_umin", R_UMIN, 4, true, false, false}, {"a_global_swap", R_SWAP, 4, true, false, false},
  {"a_global_inc", R_INC, 4, true, false, false}, {"a_global_dec", R_DEC, 4, true, false, false},
  {"a_global_add_f32", R_FADD, 4, true, true, false}, {"a_global_cmpswap", R_CMPSWAP, 4, true, false, false},
  {"a_global_add_x2", R_ADD, 8, true, false, false}, {"a_global_sub_x2", R_SUB, 8, true, false, false},
  {"a_global_and_x2", R_AND, 8, true, false, false}, {"a_global_or_x2", R_OR, 8, true, false, false},
  {"a_global_xor_x2", R_XOR, 8, true, false, false}, {"a_global_umax_x2", R_UMAX, 8, true, false, false},
  {"a_global_umin_x2", R_UMIN, 8, true, false, false}, {"a_global_add_f64", R_FADD, 8, true, false, false},
  {"a_global_cmpswap_x2", R_CMPSWAP, 8, true, false, false},
  {"a_flat_add", R_ADD, 4, true, false, false}, {"a_flat_and", R_AND, 4, true, false, false},
  {"a_flat_or", R_OR, 4, true, false, false}, {"a_flat_xor", R_XOR, 4, true, false, false},
  {"a_flat_smax", R_SMAX, 4, true, false, false}, {"a_flat_smin", R_SMIN, 4, true, false, false},
  {"a_flat_umax", R_UMAX, 4, true, false, false}, {"a_flat_umin", R_UMIN, 4, true, false, false},
  {"a_flat_swap", R_SWAP, 4, true, false, false}, {"a_flat_inc", R_INC, 4, true, false, false},
  {"a_flat_dec", R_DEC, 4, true, false, false}, {"a_flat_cmpswap", R_CMPSWAP, 4, true, false, false},
  {"a_flat_add_x2", R_ADD, 8, true, false, false}, {"a_flat_and_x2", R_AND, 8, true, false, false},
  {"a_flat_or_x2", R_OR, 8, true, false, false}, {"a_flat_xor_x2", R_XOR, 8, true, false, false},
  {"a_flat_umax_x2", R_UMAX, 8, true, false, false}, {"a_flat_umin_x2", R_UMIN, 8, true, false, false},
  {"a_flat_add_f64", R_FADD, 8, true, false, false}, {"a_flat_cmpswap_x2", R_CMPSWAP, 8, true, false, false},
};

/* LDS: the no-return forms are separate opcodes (ds_add_u32 / ds_add_rtn_u32) */
static const struct at ds_atomics[] = {
  {"a_ds_add_u32", R_ADD, 4, false, false, false}, {"a_ds_add_rtn_u32", R_ADD, 4, true, false, false},
  {"a_ds_and_b32", R_AND, 4, false, false, false}, {"a_ds_and_rtn_b32", R_AND, 4, true, false, false},
  {"a_ds_or_b32", R_OR, 4, false, false, false}, {"a_ds_or_rtn_b32", R_OR, 4, true, false, false},
  {"a_ds_max_i32", R_SMAX, 4, false, false, false}, {"a_ds_max_rtn_i32", R_SMAX, 4, true, false, false},
  {"a_ds_min_i32", R_SMIN, 4, false, false, false}, {"a_ds_min_rtn_i32", R_SMIN, 4, true, false, false},
  {"a_ds_add_f32", R_FADD, 4, false, false, false}, {"a_ds_add_rtn_f32", R_FADD, 4, true, false, false},
  {"a_ds_add_rtn_f32_ftz", R_FADD, 4, true, false, true},  /* kernel with MODE f32 denormals off */
  {"a_ds_add_u64", R_ADD, 8, false, false, false}, {"a_ds_add_rtn_u64", R_ADD, 8, true, false, false},
  {"a_ds_add_f64", R_FADD, 8, false, false, false}, {"a_ds_add_rtn_f64", R_FADD, 8, true, false, false},
  {"a_ds_cmpst_rtn_b64", R_CMPSWAP, 8, true, false, false},
  /* flat atomics whose address is in the LDS aperture */
  {"a_lds_flat_add", R_ADD, 4, true, false, false},
  {"a_lds_flat_cmpswap_x2", R_CMPSWAP, 8, true, false, false},
  {"a_lds_flat_umax_nr", R_UMAX, 4, false, false, false},
};

static void both_modes(enum isa_target t, const struct at *s)
{
  atomic_distinct(t, s);
  atomic_contention(t, s);
}

static void global_flat_atomics(enum isa_target t, bool flat)
{
  for (unsigned i = 0; i < OP_N(atomics); i++) {
    if ((strncmp(atomics[i].k, "a_flat_", 7) == 0) != flat)
      continue;
    struct at s = atomics[i];
    both_modes(t, &s);
    char nr[64];
    snprintf(nr, sizeof(nr), "%s_nr", s.k);
    s.k = nr;
    s.ret = false;
    both_modes(t, &s);
  }
  /* flat_atomic_add_f32 is a gfx942 instruction */
  if (flat && t == ISA_GFX942) {
    struct at s = {"a_flat_add_f32", R_FADD, 4, true, true, false};
    both_modes(t, &s);
    s.k = "a_flat_add_f32_nr";
    s.ret = false;
    both_modes(t, &s);
  }
}
Test(isa_op_mem, global_atomics_gfx90a) { global_flat_atomics(ISA_GFX90A, false); }
Test(isa_op_mem, global_atomics_gfx942) { global_flat_atomics(ISA_GFX942, false); }
Test(isa_op_mem, flat_atomics_gfx90a) { global_flat_atomics(ISA_GFX90A, true); }
Test(isa_op_mem, flat_atomics_gfx942) { global_flat_atomics(ISA_GFX942, true); }

static void lds_atomics(enum isa_target t)
{
  for (unsigned i = 0; i < OP_N(ds_atomics); i++)
    both_modes(t, &ds_atomics[i]);
}
Test(isa_op_mem, lds_atomics_gfx90a) { lds_atomics(ISA_GFX90A); }
Test(isa_op_mem, lds_atomics_gfx942) { lds_atomics(ISA_GFX942); }
