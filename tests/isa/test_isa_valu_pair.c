/* VALU pairs run as one (sim/isa/valu_pair.h): gfx90a's 64-bit add, v_add_co_u32 then
 * v_addc_co_u32 taking the first's carry. Pairs are decoded from instruction words in every
 * form (VOP2/VOP3 each, the carry in VCC or another SGPR pair, scalar, constant and VGPR
 * sources, a destination that is a source of the second or of itself), run by the pair's
 * executor on one copy of a wave and one instruction after the other by the general path on
 * another: the VGPRs and SGPRs (VCC, EXEC) must be the same, bit for bit, under full, partial
 * and empty EXEC. And the pairs the executor must not take are refused. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "isa/exec_valu_fast.h"
#include "isa/isa_optab.h"
#include "isa/valu_pair.h"

#define VOP2_ADD_CO 0x19u    /* gfx9 VOP2 opcodes; VOP3 adds 0x100 */
#define VOP2_ADDC_CO 0x1cu
#define NREGS 16

static uint64_t rng = 0x2545f4914f6cdd1dull;

static uint32_t next_u32(void)
{
  return (uint32_t)(harness_xorshift(&rng) >> 16);
}

/* Carries are the point: values near 2^32 half the time. */
static uint32_t value(void)
{
  uint32_t r = next_u32();
  return r & 1 ? 0xffffffffu - (next_u32() & 0xff) : next_u32();
}

/* An operand: a VGPR number, or a scalar code (SGPR, VCC, inline constant). */
struct opnd {
  bool vgpr;
  unsigned code;
};

static unsigned code_of(struct opnd o)
{
  return o.vgpr ? 256 + o.code : o.code;
}

/* The decoded and bound instruction of the VOP2 or VOP3b form: dst, carry out, src0, src1,
 * and for the carry-in form (VOP3) the carry-in pair. */
static struct isa_inst make(unsigned vop2_op, bool e64, unsigned dst, unsigned sdst,
                            struct opnd s0, struct opnd s1, unsigned cin)
{
  uint32_t words[2];
  unsigned n;
  if (!e64) {
    cr_assert(s1.vgpr, "VOP2's src1 is a VGPR");
    words[0] = vop2_op << 25 | dst << 17 | s1.code << 9 | code_of(s0);
    n = 1;
  } else {
    words[0] = 0xd0000000u | (0x100u + vop2_op) << 16 | sdst << 8 | dst;
    words[1] = code_of(s0) | code_of(s1) << 9 | cin << 18;
    n = 2;
  }
  struct isa_inst in;
  char msg[128];
  cr_assert_eq(isa_decode(ISA_GFX90A, words, n, &in, msg, sizeof(msg)), 0, "%s", msg);
  in.exec = valu_bind(&in);
  return in;
}

struct wave_copy {
  struct isa_wave w;
  uint32_t (*v)[WAVE_SIZE];
};

static void wave_fill(struct wave_copy *c, uint64_t exec)
{
  memset(&c->w, 0, sizeof(c->w));
  c->v = calloc(NUM_VREGS, sizeof(*c->v));
  cr_assert_not_null(c->v);
  c->w.v = c->v;
  for (unsigned r = 0; r < NREGS; r++)
    for (unsigned l = 0; l < WAVE_SIZE; l++)
      c->v[r][l] = value();
  for (unsigned s = 0; s < 128; s++)
    c->w.s[s] = value();
  wave_set_exec(&c->w, exec);
}

static void wave_clone(struct wave_copy *dst, const struct wave_copy *src)
{
  dst->w = src->w;
  dst->v = calloc(NUM_VREGS, sizeof(*dst->v));
  cr_assert_not_null(dst->v);
  memcpy(dst->v, src->v, NUM_VREGS * sizeof(*dst->v));
  dst->w.v = dst->v;
}

static struct opnd pick_scalar_or_vgpr(bool allow_scalar, unsigned vgpr_choice)
{
  static const unsigned scalars[] = {10, 11, 129, 128, 193, 106};   /* SGPRs, 1, 0, -1, VCC lo */
  if (allow_scalar && next_u32() % 2)
    return (struct opnd){false, scalars[next_u32() % 5]};   /* VCC only where chosen below */
  return (struct opnd){true, vgpr_choice};
}

static uint64_t pick_exec(unsigned e)
{
  switch (e % 4) {
  case 0: return ~0ull;
  case 1: return ((uint64_t)next_u32() << 32 | next_u32());
  case 2: return 0;
  default: return (1ull << (1 + next_u32() % 63)) - 1;
  }
}

Test(isa_valu_pair, add64_pairs_match_the_two_instructions_in_sequence)
{
  struct isa_inst probe1 = make(VOP2_ADD_CO, false, 5, 0, (struct opnd){false, 10},
                                (struct opnd){true, 1}, 0);
  struct isa_inst probe2 = make(VOP2_ADDC_CO, false, 6, 0, (struct opnd){false, 11},
                                (struct opnd){true, 2}, 0);
  if (!valu_pair_bind(&probe1, &probe2))
    cr_skip_test("no pair executors on this host (they need AVX2 and FMA, and GCC)");
  unsigned paired = 0;
  for (unsigned rep = 0; rep < 4000; rep++) {
    bool e1 = next_u32() & 1, e2 = next_u32() & 1;
    /* the carry pair: VCC for VOP2; for VOP3 VCC or s[20:21] */
    unsigned x = e1 && (next_u32() & 1) ? 20 : OPD_VCC;
    if (!e1 || !e2)
      x = OPD_VCC;
    unsigned d1 = next_u32() % 3 ? 5 : 1;                    /* sometimes its own source */
    struct opnd a = pick_scalar_or_vgpr(true, 1), b = pick_scalar_or_vgpr(e1, 2);
    /* the second's sources: sometimes the first's destination */
    struct opnd c = pick_scalar_or_vgpr(true, next_u32() % 3 ? 3 : d1);
    struct opnd d = pick_scalar_or_vgpr(e2, next_u32() % 3 ? 4 : d1);
    unsigned d2 = next_u32() % 4 ? 6 : next_u32() & 1 ? d1 : 3;
    unsigned y = e2 && (next_u32() & 1) ? 22 : x;
    struct isa_inst i1 = make(VOP2_ADD_CO, e1, d1, x, a, b, 0);
    struct isa_inst i2 = make(VOP2_ADDC_CO, e2, d2, y, c, d, x);
    isa_exec_fn f = valu_pair_bind(&i1, &i2);
    cr_assert_not_null(f, "rep %u: a pair of the covered forms was refused", rep);
    paired++;
    i1.exec = f;
    i1.pair = &i2;
    i2.exec = valu_pair_second;
    struct wave_copy p, s;
    wave_fill(&p, pick_exec(rep));
    wave_clone(&s, &p);
    cr_assert_eq(i1.exec(&p.w, &i1), 0);
    cr_assert_eq(i2.exec(&p.w, &i2), 0);
    cr_assert_eq(exec_valu_general(&s.w, &i1), 0);
    cr_assert_eq(exec_valu_general(&s.w, &i2), 0);
    for (unsigned r = 0; r < NREGS; r++)
      cr_assert_arr_eq(p.v[r], s.v[r], sizeof(p.v[r]), "rep %u v%u", rep, r);
    cr_assert_arr_eq(p.w.s, s.w.s, sizeof(p.w.s), "rep %u SGPRs", rep);
    free(p.v);
    free(s.v);
  }
  cr_expect_eq(paired, 4000);
}

Test(isa_valu_pair, pairs_the_executor_must_not_take_are_refused)
{
  struct opnd s10 = {false, 10}, v1 = {true, 1}, v2 = {true, 2};
  struct isa_inst add = make(VOP2_ADD_CO, true, 5, 20, s10, v1, 0);
  struct isa_inst addc = make(VOP2_ADDC_CO, true, 6, 22, s10, v2, 20);
  if (!valu_pair_bind(&add, &addc))
    cr_skip_test("no pair executors on this host");
  /* the carry-in is another pair than the first's carry out */
  struct isa_inst other = make(VOP2_ADDC_CO, true, 6, 22, s10, v2, 24);
  cr_expect_null(valu_pair_bind(&add, &other));
  /* the second reads the carry pair as a source too */
  struct isa_inst reads = make(VOP2_ADDC_CO, true, 6, 22, (struct opnd){false, 21}, v2, 20);
  cr_expect_null(valu_pair_bind(&add, &reads));
  /* the carry goes to EXEC: the second's lanes would change */
  struct isa_inst to_exec = make(VOP2_ADD_CO, true, 5, OPD_EXEC, s10, v1, 0);
  struct isa_inst from_exec = make(VOP2_ADDC_CO, true, 6, 22, s10, v2, OPD_EXEC);
  cr_expect_null(valu_pair_bind(&to_exec, &from_exec));
  /* not the pair: the same instruction twice, or in the other order */
  cr_expect_null(valu_pair_bind(&add, &add));
  cr_expect_null(valu_pair_bind(&addc, &add));
}
