/* The GLOBAL/FLAT dword direct path (sim/isa/exec_mem_fast.c) against the per-lane path.
 *
 * Two copies of one wave, each with its own GPU memory (four pages at one GPU VA, the third
 * unmapped), LDS and private memory, run the same load or store: one through exec_vmem() (the
 * direct path where it applies), the other through exec_vmem_general(). Registers, memory, LDS,
 * private memory, the return value and any fault (address, direction, pc) must be identical.
 * Lane addresses are consecutive (inside a page, across a page boundary, into the unmapped
 * page), scattered in a page or over all pages, overlapping, in the LDS and private apertures
 * (FLAT), with a 32-bit SADDR offset that wraps; EXEC full, partial, one lane and empty. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "isa/exec_mem_fast.h"
#include "isa/isa_optab.h"

#define PAGES 4
#define HOLE 2                          /* this page does not translate */
#define VA0 0x00007f1200000000ull       /* GPU VA of page 0 (not the host address) */
#define LDS_BYTES 1024
#define PRIV_BYTES 64                   /* per lane */

static uint64_t rng = 0x2545f4914f6cdd1dull;

static uint32_t next_u32(void)
{
  return (uint32_t)(harness_xorshift(&rng) >> 16);
}

static uint64_t next_u64(void)
{
  return (uint64_t)next_u32() << 32 | next_u32();
}

struct copy {
  struct isa_dispatch d;
  struct isa_ctx ctx;
  struct isa_result result;
  struct isa_wg wg;
  struct isa_wave w;
  struct isa_tlb tlb;
  uint32_t (*v)[WAVE_SIZE];
  uint8_t *mem;                        /* PAGES * 4096, page aligned */
  uint8_t lds[LDS_BYTES];
  uint8_t priv[WAVE_SIZE * PRIV_BYTES];
};

static void *translate(void *ctx, uint64_t va, uint64_t len, bool write)
{
  (void)write;
  struct copy *c = ctx;
  if (va < VA0 || va + len < va || va + len > VA0 + PAGES * 4096)
    return NULL;
  uint64_t first = (va - VA0) / 4096, last = (va + len - 1 - VA0) / 4096;
  if (first <= HOLE && last >= HOLE)
    return NULL;
  return c->mem + (va - VA0);
}

static void copy_init(struct copy *c)
{
  memset(c, 0, sizeof(*c));
  c->v = calloc(NUM_VREGS, sizeof(*c->v));
  c->mem = aligned_alloc(4096, PAGES * 4096);
  cr_assert(c->v && c->mem);
  c->d.target = ISA_GFX942;
  c->d.mem_ctx = c;
  c->d.translate = translate;
  c->ctx.d = &c->d;
  c->ctx.target = ISA_GFX942;
  c->ctx.result = &c->result;
  pthread_mutex_init(&c->ctx.lock, NULL);
  pthread_cond_init(&c->ctx.gws_cv, NULL);
  c->wg.lds = c->lds;
  c->wg.lds_size = LDS_BYTES;
  c->wg.nwaves = c->wg.live = 1;
}

/* Fresh state for one case: the wave's TLB emptied, no failure recorded. */
static void copy_reset(struct copy *c)
{
  memset(&c->w, 0, sizeof(c->w));
  memset(&c->result, 0, sizeof(c->result));
  c->ctx.failed = false;
  atomic_store(&c->ctx.abort, false);
  c->w.v = c->v;
  tlb_clear(&c->tlb);
  c->w.tlb = &c->tlb;
  c->w.ctx = &c->ctx;
  c->w.wg = &c->wg;
  c->w.priv = c->priv;
  c->w.priv_bytes = PRIV_BYTES;
  c->w.state = WAVE_RUN;
  c->w.fetch_pc = 0x1000;
}

static void copy_clone(struct copy *dst, const struct copy *src)
{
  memcpy(dst->v, src->v, NUM_VREGS * sizeof(*dst->v));
  memcpy(dst->mem, src->mem, PAGES * 4096);
  memcpy(dst->lds, src->lds, LDS_BYTES);
  memcpy(dst->priv, src->priv, sizeof(dst->priv));
  copy_reset(dst);
  memcpy(dst->w.s, src->w.s, sizeof(dst->w.s));
}

static void copy_free(struct copy *c)
{
  free(c->v);
  free(c->mem);
  pthread_mutex_destroy(&c->ctx.lock);
  pthread_cond_destroy(&c->ctx.gws_cv);
}

enum { ADDR = 2, DATA = 8, DST = 16, SADDR = 10 };

/* A lane address by pattern p (lane l, access length len). */
static uint64_t lane_va(unsigned p, unsigned l, unsigned len, uint64_t base, bool flat)
{
  switch (p) {
  case 0: /* consecutive from base */
    return base + (uint64_t)l * len;
  case 1: /* scattered in base's page */
    return (base & ~0xfffull) + (next_u32() % (4096 - len + 1));
  case 2: /* scattered over all pages (some in the hole, some past the end) */
    return VA0 + next_u32() % (PAGES * 4096 + 64);
  case 3: /* overlapping: four lanes per address */
    return base + (uint64_t)(l / 4) * len;
  case 4: /* consecutive backwards */
    return base + (uint64_t)(WAVE_SIZE - 1 - l) * len;
  case 5: /* rows of 16 lanes, each row one address (a tile's row broadcast) */
    return base + (uint64_t)(l / 16) * 544;
  case 6: /* rows of 16 lanes, each row consecutive (a tile's rows) */
    return base + (uint64_t)(l / 16) * 608 + (l % 16) * len;
  case 7: { /* the same, rows in pages 0, 1, 3, 0, or (one case in four) 0, 1, 2, 3: the hole */
    static const unsigned pages[2][4] = {{0, 1, 3, 0}, {0, 1, 2, 3}};
    unsigned g = l / 16, hole = (base >> 4) % 4 == 0;
    return VA0 + pages[hole][g] * 4096ull + (base & 0xfc0) + 64 * g + (l % 16) * len;
  }
  default: /* FLAT: LDS or private aperture for some lanes */
    if (!flat || (next_u32() & 1))
      return base + (uint64_t)l * len;
    return next_u32() & 1 ? APERTURE_SHARED_BASE + next_u32() % (LDS_BYTES + 16)
                          : APERTURE_PRIVATE_BASE + next_u32() % (PRIV_BYTES + 16);
  }
}

static void fill_case(struct copy *c, const struct isa_inst *in, unsigned pattern, uint64_t exec)
{
  for (unsigned r = 0; r < 32; r++)
    for (unsigned l = 0; l < WAVE_SIZE; l++)
      c->v[r][l] = next_u32();
  for (unsigned i = 0; i < PAGES * 4096; i++)
    c->mem[i] = (uint8_t)next_u32();
  for (unsigned i = 0; i < LDS_BYTES; i++)
    c->lds[i] = (uint8_t)next_u32();
  for (unsigned i = 0; i < sizeof(c->priv); i++)
    c->priv[i] = (uint8_t)next_u32();
  copy_reset(c);
  const struct mem_op *mo = mem_op_info(in->op);
  unsigned len = 4 * mo->count;
  /* a base near a page boundary half the time, so that blocks cross it */
  unsigned page = next_u32() % PAGES;
  uint64_t base = VA0 + page * 4096ull +
                  (next_u32() & 1 ? 4096 - (next_u32() % 512) : next_u32() % 4096);
  base &= next_u32() % 4 ? ~3ull : ~0ull;   /* mostly dword aligned */
  bool saddr = in->saddr != 0x7f;
  uint64_t sbase = base - (next_u32() % 3 == 0 ? 0xffffff00ull : 0x100ull);   /* 0xffffff00: wraps */
  if (saddr) {
    c->w.s[SADDR] = (uint32_t)sbase;
    c->w.s[SADDR + 1] = (uint32_t)(sbase >> 32);
  }
  for (unsigned l = 0; l < WAVE_SIZE; l++) {
    uint64_t a = lane_va(pattern, l, len, base, in->enc == ENC_FLAT) - (uint64_t)(int64_t)in->offset;
    if (saddr) {
      c->v[ADDR][l] = (uint32_t)(a - sbase);
    } else {
      c->v[ADDR][l] = (uint32_t)a;
      c->v[ADDR + 1][l] = (uint32_t)(a >> 32);
    }
  }
  wave_set_exec(&c->w, exec);
}

static void compare(const struct copy *a, const struct copy *b, const struct isa_inst *in,
                    int rca, int rcb, unsigned pattern, uint64_t exec)
{
  const char *name = isa_op_name(in->op);
  cr_assert_eq(rca, rcb, "%s pattern %u exec %llx: return %d vs %d", name, pattern,
               (unsigned long long)exec, rca, rcb);
  cr_assert_eq(a->result.status, b->result.status, "%s pattern %u: status", name, pattern);
  cr_assert_eq(a->result.fault_va, b->result.fault_va, "%s pattern %u: fault va %llx vs %llx",
               name, pattern, (unsigned long long)a->result.fault_va,
               (unsigned long long)b->result.fault_va);
  cr_assert_eq(a->result.fault_write, b->result.fault_write, "%s: fault direction", name);
  cr_assert_eq(a->result.pc, b->result.pc, "%s: fault pc", name);
  cr_assert_eq(a->w.state, b->w.state, "%s: wave state", name);
  cr_assert(!memcmp(a->v, b->v, 32 * sizeof(*a->v)), "%s pattern %u exec %llx: registers differ",
            name, pattern, (unsigned long long)exec);
  cr_assert(!memcmp(a->mem, b->mem, PAGES * 4096), "%s pattern %u exec %llx: memory differs",
            name, pattern, (unsigned long long)exec);
  cr_assert(!memcmp(a->lds, b->lds, LDS_BYTES), "%s: LDS differs", name);
  cr_assert(!memcmp(a->priv, b->priv, sizeof(a->priv)), "%s: private memory differs", name);
}

Test(isa_mem_fast, same_results_as_the_per_lane_path)
{
  static const unsigned ops[] = {
      OP_GLOBAL_LOAD_DWORD, OP_GLOBAL_LOAD_DWORDX2, OP_GLOBAL_LOAD_DWORDX3,
      OP_GLOBAL_LOAD_DWORDX4, OP_GLOBAL_STORE_DWORD, OP_GLOBAL_STORE_DWORDX2,
      OP_GLOBAL_STORE_DWORDX3, OP_GLOBAL_STORE_DWORDX4, OP_FLAT_LOAD_DWORD,
      OP_FLAT_LOAD_DWORDX2, OP_FLAT_LOAD_DWORDX3, OP_FLAT_LOAD_DWORDX4, OP_FLAT_STORE_DWORD,
      OP_FLAT_STORE_DWORDX2, OP_FLAT_STORE_DWORDX3, OP_FLAT_STORE_DWORDX4};
  static struct copy a, b, c;
  copy_init(&a);
  copy_init(&b);
  copy_init(&c);
  unsigned faults = 0, blocks = 0, direct = 0;
  for (unsigned o = 0; o < sizeof(ops) / sizeof(ops[0]); o++) {
    bool flat = !strncmp(isa_op_name(ops[o]), "flat_", 5);
    bool store = strstr(isa_op_name(ops[o]), "store") != NULL;
    for (unsigned pattern = 0; pattern < 9; pattern++)
      for (unsigned e = 0; e < 5; e++)
        for (unsigned rep = 0; rep < 40; rep++) {
          uint64_t exec = e == 0 || e == 4 ? ~0ull : e == 1 ? next_u64() : e == 2 ? 1ull << (next_u32() % 64) : 0;
          struct isa_inst in;
          memset(&in, 0, sizeof(in));
          in.op = (uint16_t)ops[o];
          in.enc = flat ? ENC_FLAT : ENC_GLOBAL;
          in.size = 8;
          in.addr = OPD_VGPR + ADDR;
          in.dst = store ? OPD_NONE : OPD_VGPR + DST;
          in.data0 = OPD_VGPR + DATA;
          in.saddr = !flat && (rep & 1) ? SADDR : 0x7f;
          in.offset = flat ? (int32_t)(next_u32() % 4096) : (int32_t)(next_u32() % 8192) - 4096;
          fill_case(&a, &in, pattern, exec);
          copy_clone(&b, &a);
          copy_clone(&c, &a);
          /* the direct path alone where it applies, as exec_vmem() takes it */
          int rca = flat_dwords_direct(&a.w, &in, mem_op_info(in.op), exec, in.saddr != 0x7f);
          if (rca == 1)
            rca = exec_vmem_general(&a.w, &in);
          else
            direct++;
          int rcb = exec_vmem_general(&b.w, &in);
          compare(&a, &b, &in, rca, rcb, pattern, exec);
          /* and the executor dispatch.c binds at decode */
          struct isa_inst bound = in;
          int rcc = vmem_bind(&bound)(&c.w, &bound);
          compare(&c, &b, &in, rcc, rcb, pattern, exec);
          faults += a.result.status == ISA_PAGE_FAULT;
          blocks += pattern == 0 && exec == ~0ull && rca == 0;
        }
  }
  /* the cases reached both outcomes (and the block copy), not just one */
  cr_assert_gt(faults, 100, "only %u cases faulted", faults);
  cr_assert_gt(blocks, 100, "only %u block copies", blocks);
  cr_assert_gt(direct, 1000, "the direct path took only %u cases", direct);
  /* and exec_vmem() gives the same as both */
  struct isa_inst in;
  memset(&in, 0, sizeof(in));
  in.op = OP_GLOBAL_LOAD_DWORDX2;
  in.enc = ENC_GLOBAL;
  in.addr = OPD_VGPR + ADDR;
  in.dst = OPD_VGPR + DST;
  in.saddr = 0x7f;
  fill_case(&a, &in, 0, ~0ull);
  copy_clone(&b, &a);
  compare(&a, &b, &in, exec_vmem(&a.w, &in), exec_vmem_general(&b.w, &in), 0, ~0ull);
  copy_free(&a);
  copy_free(&b);
  copy_free(&c);
}

/* LDS lane addresses by pattern p: consecutive (some near the end, running out), scattered in
 * the LDS, scattered a little past it, overlapping, and around the 32-bit wrap. */
static uint32_t ds_lane_addr(unsigned p, unsigned l, unsigned len, uint32_t base)
{
  switch (p) {
  case 0: return base + l * len;
  case 1: return next_u32() % (LDS_BYTES - len + 1);
  case 2: return next_u32() % (LDS_BYTES + 32);
  case 3: return base + (l / 8) * len;
  case 4: return base + (l / 16) * 64;                   /* rows of 16 lanes at one address */
  case 5: return base + (l / 16) * 256 + (l % 16) * len; /* rows of 16 consecutive lanes */
  case 6: return (l / 16) * 64 + (l % 16) * len;         /* every row the same 16 lanes */
  default: return 0xfffffff0u + l * len;
  }
}

/* A DS instruction `op` addressed by VGPR ADDR, its data in DATA (and DATA + 2), loading into
 * VGPR `dst` (no destination for stores). */
static struct isa_inst ds_inst(unsigned op, unsigned dst)
{
  struct isa_inst in;
  memset(&in, 0, sizeof(in));
  in.op = (uint16_t)op;
  in.enc = ENC_DS;
  in.size = 8;
  in.addr = OPD_VGPR + ADDR;
  in.dst = mem_op_info(op)->kind == MK_STORE ? OPD_NONE : OPD_VGPR + dst;
  in.data0 = OPD_VGPR + DATA;
  in.data1 = OPD_VGPR + DATA + 2;
  return in;
}

Test(isa_mem_fast, lds_same_results_as_the_per_lane_path)
{
  static const unsigned ops[] = {OP_DS_READ_B32, OP_DS_READ_B64, OP_DS_READ_B96, OP_DS_READ_B128,
                                 OP_DS_WRITE_B32, OP_DS_WRITE_B64, OP_DS_WRITE_B96,
                                 OP_DS_WRITE_B128, OP_DS_READ_U8, OP_DS_WRITE_B16,
                                 OP_DS_READ2_B32, OP_DS_READ2_B64, OP_DS_READ2ST64_B32,
                                 OP_DS_WRITE2_B32, OP_DS_WRITE2_B64, OP_DS_WRITE2ST64_B64};
  static struct copy a, b, c;
  copy_init(&a);
  copy_init(&b);
  copy_init(&c);
  unsigned faults = 0, direct = 0;
  for (unsigned o = 0; o < sizeof(ops) / sizeof(ops[0]); o++) {
    const struct mem_op *mo = mem_op_info(ops[o]);
    unsigned len = mo->bytes * mo->count;
    for (unsigned pattern = 0; pattern < 8; pattern++)
      for (unsigned e = 0; e < 5; e++)
        for (unsigned rep = 0; rep < 50; rep++) {
          /* all lanes, random lanes, one lane, or the lanes below a random one */
          uint64_t exec = e < 2    ? ~0ull
                          : e == 2 ? next_u64()
                          : e == 3 ? 1ull << (next_u32() % 64)
                                   : (1ull << (1 + next_u32() % 63)) - 1;
          struct isa_inst in = ds_inst(ops[o], DST);
          /* read2/write2: two 8-bit element offsets, the second often overlapping the first */
          in.offset = (int32_t)(mo->two_addr ? next_u32() % 0x10000 & (rep % 2 ? 0x0f0f : 0xffff)
                                             : rep % 3 == 0 ? next_u32() % 64 : 0);
          fill_case(&a, &in, 0, exec);
          uint32_t base = next_u32() % 2 ? next_u32() % (LDS_BYTES - WAVE_SIZE * len + 1)
                                         : LDS_BYTES - WAVE_SIZE * len + next_u32() % 64;
          for (unsigned l = 0; l < WAVE_SIZE; l++)
            a.v[ADDR][l] = ds_lane_addr(pattern, l, len, base) - (uint32_t)in.offset;
          /* inactive lanes' addresses as an address computed under the same EXEC leaves them:
           * anything */
          for (unsigned l = 0; e == 4 && rep % 2 && l < WAVE_SIZE; l++)
            if (!(exec >> l & 1))
              a.v[ADDR][l] = next_u32();
          copy_clone(&b, &a);
          copy_clone(&c, &a);
          int rca = ds_dwords_direct(&a.w, &in, mo, exec);
          if (rca == 1)
            rca = exec_ds_general(&a.w, &in);
          else
            direct++;
          int rcb = exec_ds_general(&b.w, &in);
          compare(&a, &b, &in, rca, rcb, pattern, exec);
          struct isa_inst bound = in;
          int rcc = ds_bind(&bound)(&c.w, &bound);
          compare(&c, &b, &in, rcc, rcb, pattern, exec);
          faults += a.result.status == ISA_PAGE_FAULT;
        }
  }
  cr_assert_gt(faults, 50, "only %u cases faulted", faults);
  cr_assert_gt(direct, 1000, "the direct path took only %u cases", direct);
  /* exec_ds() itself */
  struct isa_inst in;
  memset(&in, 0, sizeof(in));
  in.op = OP_DS_READ_B64;
  in.enc = ENC_DS;
  in.addr = OPD_VGPR + ADDR;
  in.dst = OPD_VGPR + DST;
  fill_case(&a, &in, 0, ~0ull);
  for (unsigned l = 0; l < WAVE_SIZE; l++)
    a.v[ADDR][l] = 8 * l;
  copy_clone(&b, &a);
  compare(&a, &b, &in, exec_ds(&a.w, &in), exec_ds_general(&b.w, &in), 0, ~0ull);
  copy_free(&a);
  copy_free(&b);
  copy_free(&c);
}

/* The shapes of a tree reduction's LDS accesses (ds_read/write_b32, and the b64/b128 blocks):
 * all 64 lanes or a prefix of EXEC (1, 31, 32, 33, 63 lanes) or one lane, at consecutive
 * addresses ending exactly at the end of the LDS, one dword past it, inside it, wrapping at
 * 2^32, or consecutive but for one active lane; inactive lanes' addresses random. The
 * executor ds_bind gives against exec_ds_general: registers, LDS and any fault the same. */
Test(isa_mem_fast, lds_prefix_and_block_shapes)
{
  static const unsigned ops[] = {OP_DS_READ_B32, OP_DS_WRITE_B32, OP_DS_READ_B64,
                                 OP_DS_WRITE_B64, OP_DS_READ_B128, OP_DS_WRITE_B128};
  static const unsigned lanes[] = {64, 1, 31, 32, 33, 63};
  static struct copy a, b, c;
  copy_init(&a);
  copy_init(&b);
  copy_init(&c);
  unsigned faults = 0, clean = 0;
  for (unsigned o = 0; o < sizeof(ops) / sizeof(ops[0]); o++) {
    const struct mem_op *mo = mem_op_info(ops[o]);
    uint32_t len = mo->bytes * mo->count;
    for (unsigned e = 0; e < sizeof(lanes) / sizeof(lanes[0]) + 1; e++)
      for (unsigned shape = 0; shape < 5; shape++)
        for (unsigned rep = 0; rep < 12; rep++) {
          /* e past the table: one lane, anywhere */
          unsigned n = e < sizeof(lanes) / sizeof(lanes[0]) ? lanes[e] : 1;
          unsigned first = e < sizeof(lanes) / sizeof(lanes[0]) ? 0 : next_u32() % WAVE_SIZE;
          uint64_t exec = (n == 64 ? ~0ull : (1ull << n) - 1) << first;
          struct isa_inst in = ds_inst(ops[o], rep % 4 ? DST : ADDR);
          in.offset = (int32_t)(rep % 3 ? 0 : 4 * (next_u32() % 16));
          fill_case(&c, &in, 0, exec);
          /* the active lanes' span ends at the LDS end (shape 0), a dword past it (1), inside
           * it (2, 4: one active lane off its step), or wraps past 2^32 (3) */
          uint32_t span = n * len, at = shape == 0   ? LDS_BYTES - span
                                        : shape == 1 ? LDS_BYTES - span + 4
                                        : shape == 3 ? 0u - span / 2
                                                     : next_u32() % (LDS_BYTES - span + 1) & ~3u;
          for (unsigned l = 0; l < WAVE_SIZE; l++)
            c.v[ADDR][l] = exec >> l & 1 ? at + (l - first) * len - (uint32_t)in.offset
                                         : next_u32();
          if (shape == 4)
            c.v[ADDR][first + next_u32() % n] += rep % 2 ? 4 : 1;
          copy_clone(&b, &c);
          copy_clone(&a, &c);
          struct isa_inst bound = in;
          int rcc = ds_bind(&bound)(&c.w, &bound);
          int rcb = exec_ds_general(&b.w, &in);
          compare(&c, &b, &in, rcc, rcb, shape, exec);
          /* and the portable executor, which a host without AVX2 binds */
          bound = in;
          bound.mo = mo;
          compare(&a, &b, &in, ds_dwords_bind_for(&bound, false)(&a.w, &bound), rcb, shape, exec);
          faults += b.result.status == ISA_PAGE_FAULT;
          clean += b.result.status != ISA_PAGE_FAULT;
        }
  }
  cr_assert_gt(faults, 100, "only %u cases faulted", faults);
  cr_assert_gt(clean, 500, "only %u cases ran without a fault", clean);
  copy_free(&a);
  copy_free(&b);
  copy_free(&c);
}

/* A load whose destination is its own address register: every lane's address is read before
 * a register is written, on the bound executors' block, gather and LDS paths alike. */
Test(isa_mem_fast, loads_into_their_address_register)
{
  static struct copy a, b;
  copy_init(&a);
  copy_init(&b);
  static const unsigned gops[] = {OP_GLOBAL_LOAD_DWORD, OP_GLOBAL_LOAD_DWORDX2,
                                  OP_GLOBAL_LOAD_DWORDX4};
  for (unsigned o = 0; o < 3; o++)
    for (unsigned pattern = 0; pattern < 2; pattern++)
      for (unsigned rep = 0; rep < 20; rep++) {
        struct isa_inst in;
        memset(&in, 0, sizeof(in));
        in.op = (uint16_t)gops[o];
        in.enc = ENC_GLOBAL;
        in.size = 8;
        in.addr = in.dst = OPD_VGPR + ADDR;
        in.saddr = rep & 1 ? SADDR : 0x7f;
        fill_case(&a, &in, pattern, ~0ull);
        copy_clone(&b, &a);
        struct isa_inst bound = in;
        compare(&a, &b, &in, vmem_bind(&bound)(&a.w, &bound), exec_vmem_general(&b.w, &in),
                pattern, ~0ull);
      }
  static const unsigned dops[] = {OP_DS_READ_B32, OP_DS_READ_B64, OP_DS_READ_B128,
                                  OP_DS_READ2_B32, OP_DS_READ2ST64_B32};
  for (unsigned o = 0; o < 5; o++)
    for (unsigned rep = 0; rep < 20; rep++) {
      const struct mem_op *mo = mem_op_info(dops[o]);
      unsigned len = mo->bytes * mo->count;
      struct isa_inst in;
      memset(&in, 0, sizeof(in));
      in.op = (uint16_t)dops[o];
      in.enc = ENC_DS;
      in.size = 8;
      /* the address register first, in the middle or last of the destinations */
      in.dst = OPD_VGPR + ADDR - rep % 3;
      in.addr = OPD_VGPR + ADDR;
      in.offset = mo->two_addr ? 0x0201 : 0;
      fill_case(&a, &in, 0, ~0ull);
      for (unsigned l = 0; l < WAVE_SIZE; l++)
        a.v[ADDR][l] = rep & 1 ? l * len : next_u32() % (LDS_BYTES / 4 - len);
      copy_clone(&b, &a);
      struct isa_inst bound = in;
      int rca = ds_bind(&bound)(&a.w, &bound);
      compare(&a, &b, &in, rca, exec_ds_general(&b.w, &in), 0, ~0ull);
      cr_assert_eq(rca, 0, "%s: no fault", isa_op_name(in.op));
    }
  copy_free(&a);
  copy_free(&b);
}

/* Scratch through the private segment buffer (buffer_load/store_dword to _dwordx4, offen or
 * not): the executor vmem_bind gives against exec_vmem_general, with lane offsets inside the
 * lane's private memory, partly past its end, wrapping in 32 bits, and a base and SOFFSET that
 * move them; EXEC full, partial, one lane and empty. */
Test(isa_mem_fast, scratch_dwords_same_results_as_the_per_lane_path)
{
  static const unsigned ops[] = {OP_BUFFER_LOAD_DWORD,   OP_BUFFER_LOAD_DWORDX2,
                                 OP_BUFFER_LOAD_DWORDX3,  OP_BUFFER_LOAD_DWORDX4,
                                 OP_BUFFER_STORE_DWORD,  OP_BUFFER_STORE_DWORDX2,
                                 OP_BUFFER_STORE_DWORDX3, OP_BUFFER_STORE_DWORDX4};
  enum { RSRC = 4, SOFF = 12 };
  static struct copy b, c;
  copy_init(&b);
  copy_init(&c);
  unsigned faults = 0, clean = 0;
  for (unsigned o = 0; o < sizeof(ops) / sizeof(ops[0]); o++) {
    const struct mem_op *mo = mem_op_info(ops[o]);
    for (unsigned pattern = 0; pattern < 4; pattern++)
      for (unsigned e = 0; e < 5; e++)
        for (unsigned rep = 0; rep < 40; rep++) {
          uint64_t exec = e < 2 ? ~0ull : e == 2 ? next_u64() : e == 3 ? 1ull << (next_u32() % 64) : 0;
          struct isa_inst in;
          memset(&in, 0, sizeof(in));
          in.op = (uint16_t)ops[o];
          in.enc = ENC_MUBUF;
          in.size = 8;
          in.addr = OPD_VGPR + ADDR;
          in.dst = mo->kind == MK_STORE ? OPD_NONE : OPD_VGPR + (rep % 5 ? DST : ADDR);
          in.data0 = OPD_VGPR + DATA;
          in.saddr = 0x7f;
          in.srsrc = RSRC;
          in.soffset = SOFF;
          in.offen = pattern != 3;
          in.offset = (int32_t)(next_u32() % 16);
          fill_case(&c, &in, 0, exec);
          uint64_t vsharp = PRIVATE_VSHARP_BASE + (rep % 4 ? 0 : next_u32() % 8);
          c.w.s[RSRC] = (uint32_t)vsharp;
          c.w.s[RSRC + 1] = (uint32_t)(vsharp >> 32);
          c.w.s[RSRC + 2] = 0xffffffffu;
          c.w.s[RSRC + 3] = 0x00027000u;
          c.w.s[SOFF] = (rep % 3 ? next_u32() % 4 : next_u32() % 32) * WAVE_SIZE * 4;
          for (unsigned l = 0; l < WAVE_SIZE; l++)
            c.v[ADDR][l] = pattern == 0   ? (l % 8) * 4
                           : pattern == 1 ? next_u32() % (PRIV_BYTES + 8)
                                          : 0xfffffff0u + 4 * (next_u32() % 8);
          copy_clone(&b, &c);
          struct isa_inst bound = in;
          int rcc = vmem_bind(&bound)(&c.w, &bound);
          int rcb = exec_vmem_general(&b.w, &in);
          compare(&c, &b, &in, rcc, rcb, pattern, exec);
          faults += b.result.status == ISA_PAGE_FAULT;
          clean += b.result.status != ISA_PAGE_FAULT && exec;
        }
  }
  cr_assert_gt(faults, 100, "only %u cases faulted", faults);
  cr_assert_gt(clean, 1000, "only %u cases ran without a fault", clean);
  copy_free(&b);
  copy_free(&c);
}
