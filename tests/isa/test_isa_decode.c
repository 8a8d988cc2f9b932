/* The decoder against LLVM: every instruction llvm-objdump-19 printed for the test code objects
 * (clang-19 -O0/-O3 HIP kernels and the llvm-mc-19 per-instruction kernels, both targets) must
 * decode to LLVM's mnemonic, with each printed register operand in the right field. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "isa/isa_optab.h"

struct decode_case {
  enum isa_target target;
  unsigned nwords;
  uint32_t words[3];
  const char *name;
  unsigned nroles;
  struct { int role; int code; } roles[6];
};

#include "decode_cases.h"

enum { R_DST, R_SDST, R_SRC0, R_SRC1, R_SRC2, R_ADDR, R_DATA0, R_DATA1, R_SADDR, R_SRSRC, R_SOFFSET, R_SBASE };

static int field(const struct isa_inst *in, int role)
{
  switch (role) {
  case R_DST: return in->dst;
  case R_SDST: return in->sdst;
  case R_SRC0: return in->src[0];
  case R_SRC1: return in->src[1];
  case R_SRC2: return in->src[2];
  case R_ADDR: return in->addr;
  case R_DATA0: return in->data0;
  case R_DATA1: return in->data1;
  case R_SADDR: return in->saddr;
  case R_SRSRC: return in->srsrc;
  case R_SOFFSET: return in->soffset;
  case R_SBASE: return in->addr;
  }
  return -1;
}

/* LLVM prints _e32/_e64/_dpp/_sdwa to show the encoding; the opcode name omits it. */
static void base_name(const char *n, char *out, size_t len)
{
  snprintf(out, len, "%s", n);
  static const char *const sfx[] = {"_e32", "_e64", "_dpp", "_sdwa"};
  size_t l = strlen(out);
  for (int i = 0; i < 4; i++) {
    size_t s = strlen(sfx[i]);
    if (l > s && !strcmp(out + l - s, sfx[i]))
      out[l - s] = 0;
  }
}

Test(isa_decode, every_instruction_clang_emits)
{
  size_t n = sizeof(decode_cases) / sizeof(decode_cases[0]);
  cr_assert_gt(n, 200, "too few decoder cases (%zu): the corpus did not disassemble", n);
  unsigned checked_ops = 0;
  for (size_t i = 0; i < n; i++) {
    const struct decode_case *c = &decode_cases[i];
    struct isa_inst in;
    char msg[128], want[64];
    int rc = isa_decode(c->target, c->words, c->nwords, &in, msg, sizeof(msg));
    cr_expect_eq(rc, 0, "%s (0x%08x): %s", c->name, c->words[0], msg);
    if (rc)
      continue;
    base_name(c->name, want, sizeof(want));
    cr_expect_str_eq(isa_op_name(in.op), want, "0x%08x: decoded %s, LLVM says %s", c->words[0],
                     isa_op_name(in.op), c->name);
    cr_expect_eq(in.size, 4 * c->nwords, "%s: size %u, LLVM used %u words", c->name, in.size, c->nwords);
    for (unsigned r = 0; r < c->nroles; r++) {
      cr_expect_eq(field(&in, c->roles[r].role), c->roles[r].code,
                   "%s (0x%08x %08x): operand role %d decoded as %d, LLVM printed %d", c->name,
                   c->words[0], c->nwords > 1 ? c->words[1] : 0, c->roles[r].role,
                   field(&in, c->roles[r].role), c->roles[r].code);
      checked_ops++;
    }
  }
  cr_log_info("%zu instructions, %u operands checked", n, checked_ops);
}

/* Every opcode of both targets' tables decodes back to itself from a synthesized word. */
Test(isa_decode, tables_are_consistent)
{
  for (unsigned i = 0; i < isa_optab_count; i++) {
    const struct isa_opinfo *r = &isa_optab[i];
    for (int t = 0; t < 2; t++) {
      if (!(r->targets >> t & 1))
        continue;
      const struct isa_opinfo *got = isa_optab_lookup(t ? ISA_GFX942 : ISA_GFX90A, r->enc, r->opcode);
      cr_expect(got && got->op == r->op, "table row %u (%s) not found by lookup", i, isa_op_name(r->op));
    }
  }
}

Test(isa_decode, rejects_garbage)
{
  uint32_t w[2] = {0xffffffff, 0};
  struct isa_inst in;
  char msg[128];
  cr_expect_neq(isa_decode(ISA_GFX90A, w, 2, &in, msg, sizeof(msg)), 0);
  /* v_mov_b64 exists on gfx942 only */
  uint32_t mov64[1] = {0x7e007002};
  cr_expect_eq(isa_decode(ISA_GFX942, mov64, 1, &in, msg, sizeof(msg)), 0, "%s", msg);
  cr_expect_str_eq(isa_op_name(in.op), "v_mov_b64");
  cr_expect_neq(isa_decode(ISA_GFX90A, mov64, 1, &in, msg, sizeof(msg)), 0);
  /* a 64-bit encoding cut off after its first word */
  uint32_t vop3[1] = {0xd1190001};
  cr_expect_neq(isa_decode(ISA_GFX90A, vop3, 1, &in, msg, sizeof(msg)), 0);
}
