/* The decoder against LLVM.
 *
 * every_instruction_clang_emits: every instruction llvm-objdump-19 printed for the test code
 * objects (clang-19 -O0/-O3 HIP kernels and the llvm-mc-19 per-instruction kernels, both targets)
 * must decode to LLVM's mnemonic, with each printed register operand in the right field.
 *
 * every_opcode_llvm_knows: for every opcode llvm-mc-19 decodes on gfx90a and gfx942, instances
 * with representative operands (written by gen_decode_opcodes.py at build time, assembled by
 * llvm-mc-19 and printed back by its disassembler) must decode to LLVM's mnemonic with every
 * decoder field equal to what LLVM printed: registers, literals, modifiers, DPP/SDWA controls,
 * offsets and cache bits. Opcodes kfdsim does not model (image atomics, packed image loads) must
 * be rejected. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isa/isa_optab.h"
#include "isa/image.h"

/* MIMG instructions have no table op (sim/isa/image.h): their name comes from the MIMG opcode. */
static const char *decoded_name(const struct isa_inst *in)
{
  return in->enc == ENC_MIMG ? isa_mimg_name((unsigned)in->simm16) : isa_op_name(in->op);
}

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
    cr_expect_str_eq(decoded_name(&in), want, "0x%08x: decoded %s, LLVM says %s", c->words[0],
                     decoded_name(&in), c->name);
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

/* ---- every opcode: the cases of gen_decode_opcodes.py ---- */

/* The decoder fields a case can name, in the generator's FIELDS order. */
static const char *const field_names[] = {
  "dst", "sdst", "src0", "src1", "src2", "addr", "data0", "data1", "saddr", "srsrc", "soffset",
  "literal", "abs", "neg", "neg_hi", "opsel", "opsel_hi", "opsel_hi2", "clamp", "omod", "cbsz",
  "abid", "blgp", "dpp_kind", "dpp_ctrl", "row_mask", "bank_mask", "bound_ctrl", "sdwa_dst_sel",
  "sdwa_dst_unused", "sdwa_sel0", "sdwa_sel1", "sdwa_sext0", "sdwa_sext1", "offset", "glc", "slc",
  "sc1", "gds", "offen", "idxen", "lds", "sve", "simm16", "dfmt", "nfmt", "dst_w", "src0_w",
  "src1_w", "src2_w", "fp16",
};

static int field_index(const char *name)
{
  for (unsigned i = 0; i < sizeof(field_names) / sizeof(field_names[0]); i++)
    if (!strcmp(field_names[i], name))
      return (int)i;
  return -1;
}

static long long field_value(const struct isa_inst *in, int f)
{
  switch (f) {
  case 0: return in->dst;
  case 1: return in->sdst;
  case 2: return in->src[0];
  case 3: return in->src[1];
  case 4: return in->src[2];
  case 5: return in->addr;
  case 6: return in->data0;
  case 7: return in->data1;
  case 8: return in->saddr;
  case 9: return in->srsrc;
  case 10: return in->soffset;
  case 11: return in->literal;
  case 12: return in->abs;
  case 13: return in->neg;
  case 14: return in->neg_hi;
  case 15: return in->opsel;
  case 16: return in->opsel_hi;
  case 17: return in->opsel_hi & 3;   /* two-source VOP3P: the bits of the printed sources */
  case 18: return in->clamp;
  case 19: return in->omod;
  case 20: return in->cbsz;
  case 21: return in->abid;
  case 22: return in->blgp;
  case 23: return in->dpp_kind;
  case 24: return in->dpp_ctrl;
  case 25: return in->row_mask;
  case 26: return in->bank_mask;
  case 27: return in->bound_ctrl;
  case 28: return in->sdwa_dst_sel;
  case 29: return in->sdwa_dst_unused;
  case 30: return in->sdwa_sel[0];
  case 31: return in->sdwa_sel[1];
  case 32: return in->sdwa_sext[0];
  case 33: return in->sdwa_sext[1];
  case 34: return in->offset;
  case 35: return in->glc;
  case 36: return in->slc;
  case 37: return in->sc1;
  case 38: return in->gds;
  case 39: return in->offen;
  case 40: return in->idxen;
  case 41: return in->lds;
  case 42: return in->sve;
  case 43: return in->simm16;
  case 44: return in->dfmt;
  case 45: return in->nfmt;
  case 46: return in->dst_w;
  case 47: return in->src_w[0];
  case 48: return in->src_w[1];
  case 49: return in->src_w[2];
  case 50: return in->fp16;
  }
  return -1;
}

struct opcode_run {
  unsigned cases, rejected, fields, failures;
};

/* Report at most this many mismatches in full; the count says the rest. */
#define MAX_REPORTED 60
#define MISMATCH(run, ...)                       \
  do {                                           \
    if ((run)->failures++ < MAX_REPORTED)        \
      cr_log_error(__VA_ARGS__);                 \
  } while (0)

/* One "case" line: target, LLVM mnemonic (or "-"), comma-separated hex words, field=value... */
static void run_case(struct opcode_run *run, char *line)
{
  char *save = NULL;
  strtok_r(line, " \n", &save);
  const char *tname = strtok_r(NULL, " \n", &save);
  const char *name = strtok_r(NULL, " \n", &save);
  char *hex = strtok_r(NULL, " \n", &save);
  cr_assert(tname && name && hex, "malformed case line");
  enum isa_target t = !strcmp(tname, "gfx942") ? ISA_GFX942 : ISA_GFX90A;
  uint32_t words[3] = {0};
  unsigned nwords = 0;
  for (char *s2 = NULL, *w = strtok_r(hex, ",", &s2); w && nwords < 3; w = strtok_r(NULL, ",", &s2))
    words[nwords++] = (uint32_t)strtoul(w, NULL, 16);
  struct isa_inst in;
  char msg[128], want[64];
  int rc = isa_decode(t, words, nwords, &in, msg, sizeof(msg));
  run->cases++;
  if (!strcmp(name, "-")) {
    run->rejected++;
    if (rc == 0)
      MISMATCH(run, "%s 0x%08x: decoded as %s, but kfdsim must reject this opcode", tname, words[0],
               decoded_name(&in));
    return;
  }
  if (rc) {
    MISMATCH(run, "%s %s 0x%08x: %s", tname, name, words[0], msg);
    return;
  }
  base_name(name, want, sizeof(want));
  if (strcmp(decoded_name(&in), want))
    MISMATCH(run, "%s 0x%08x: decoded %s, LLVM says %s", tname, words[0], decoded_name(&in), name);
  if (in.size != 4 * nwords)
    MISMATCH(run, "%s %s 0x%08x: size %u, LLVM used %u words", tname, name, words[0], in.size, nwords);
  for (char *kv = strtok_r(NULL, " \n", &save); kv; kv = strtok_r(NULL, " \n", &save)) {
    char *eq = strchr(kv, '=');
    cr_assert(eq, "malformed field %s", kv);
    *eq = 0;
    int f = field_index(kv);
    cr_assert_geq(f, 0, "unknown field %s", kv);
    long long expect = strtoll(eq + 1, NULL, 10), got = field_value(&in, f);
    run->fields++;
    if (got != expect)
      MISMATCH(run, "%s %s (%08x %08x %08x): %s decoded as %lld, LLVM printed %lld", tname, name,
               words[0], words[1], words[2], kv, got, expect);
  }
}

Test(isa_decode, every_opcode_llvm_knows)
{
  FILE *f = fopen(ISA_DECODE_OPCODES_FILE, "r");
  cr_assert(f, "cannot open %s (generated by gen_decode_opcodes.py)", ISA_DECODE_OPCODES_FILE);
  struct opcode_run run = {0};
  unsigned uncovered = 0, errors = 0;
  char line[1024];
  while (fgets(line, sizeof(line), f)) {
    if (!strncmp(line, "case ", 5)) {
      run_case(&run, line);
    } else if (!strncmp(line, "summary ", 8)) {
      line[strcspn(line, "\n")] = 0;
      cr_log_info("%s", line + 8);
      printf("test_isa_decode: %s\n", line + 8);
    } else if (!strncmp(line, "error ", 6)) {
      errors++;
      cr_log_error("gen_decode_opcodes.py could not generate: %s", line + 6);
    } else if (!strncmp(line, "uncovered ", 10)) {
      uncovered++;
      cr_log_error("opcode neither covered nor excluded: %s", line + 10);
    }
  }
  fclose(f);
  printf("test_isa_decode: %u cases (%u must be rejected), %u fields compared, %u mismatches\n",
         run.cases, run.rejected, run.fields, run.failures);
  cr_expect_gt(run.cases, 20000u, "too few cases (%u): the generator found few opcodes", run.cases);
  cr_expect_eq(errors, 0u, "the generator failed for %u targets", errors);
  cr_expect_eq(uncovered, 0u, "%u opcodes have no case and no exclusion", uncovered);
  cr_expect_eq(run.failures, 0u, "%u mismatches between kfdsim's decoder and LLVM", run.failures);
}
