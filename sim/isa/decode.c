/* The gfx9 decoder: instruction words -> struct isa_inst, driven by the generated tables.
 *
 * Field positions are those of the MI200/MI300 ISA guides ("Microcode Formats"); each one was
 * checked against llvm-mc-19: tests/isa/test_isa_decode.c compares every field of every opcode
 * with LLVM's own reading (gen_decode_opcodes.py). Only the encoding prefix and
 * the operand fields live here; which opcode number means what is data (isa_optab.c).
 */
#include "isa/isa_optab.h"
#include "isa/image.h"   /* MIMG: decode_mimg.c (textures) */

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define MAX_OPCODES 1024

/* lut[target][enc][opcode] = row index + 1 (0 = no such instruction on the target). */
static uint16_t lut[2][ENC_COUNT][MAX_OPCODES];
static uint8_t op_fp16[ISA_OP_COUNT], op_fp64[ISA_OP_COUNT];
static pthread_once_t lut_once = PTHREAD_ONCE_INIT;

/* Does the op read 16-bit sources? Then inline float constants are half precision (ISA guide,
 * "Inline constants"). The source type is the last type suffix of the name (v_cvt_f32_f16
 * reads f16; v_cvt_f16_f32 reads f32); packed f16 ops read 16-bit halves. Packed 16-bit
 * integer pairs (v_pk_add_u16, v_dot2_i32_i16, v_sat_pk_u8_i16) are one 32-bit operand whose
 * inline float constants are 32-bit: llvm-mc-19 encodes 0x3f000000 as the inline 0.5 there, not
 * 0x3800 (test_isa_decode probes this per opcode). For ops that mix types (v_cmp_class_f16's
 * mask, the f32 accumulator of v_dot2_f32_f16 and the f16 MFMAs) the flag describes src0. */
static uint8_t name_reads_16bit(const char *n)
{
  const char *last = strrchr(n, '_');
  if (!last)
    return 0;
  bool int16 = !strcmp(last, "_i16") || !strcmp(last, "_u16") || !strcmp(last, "_b16");
  bool packed = strstr(n, "_pk_") || !strncmp(n, "v_dot2", 6);
  if (packed && int16)
    return 0;
  if (!strncmp(n, "v_pk_", 5))
    return strstr(n, "f16") != NULL;
  return int16 || !strcmp(last, "_f16") || !strcmp(last, "_bf16");
}

static void build_lut(void)
{
  for (unsigned i = 0; i < isa_optab_count; i++) {
    const struct isa_opinfo *r = &isa_optab[i];
    for (int t = 0; t < 2; t++)
      if (r->targets >> t & 1)
        lut[t][r->enc][r->opcode] = (uint16_t)(i + 1);
  }
  for (unsigned op = 1; op < ISA_OP_COUNT; op++)
  {
    op_fp16[op] = name_reads_16bit(isa_op_names[op]);
    const char *last = strrchr(isa_op_names[op], '_');
    op_fp64[op] = last && !strcmp(last, "_f64");
  }
}

const char *isa_op_name(unsigned op)
{
  return op < ISA_OP_COUNT && isa_op_names[op] ? isa_op_names[op] : "<invalid>";
}

const struct isa_opinfo *isa_optab_lookup(enum isa_target target, enum isa_enc enc, unsigned opcode)
{
  pthread_once(&lut_once, build_lut);
  if (enc >= ENC_COUNT || opcode >= MAX_OPCODES)
    return NULL;
  uint16_t idx = lut[target == ISA_GFX942][enc][opcode];
  return idx ? &isa_optab[idx - 1] : NULL;
}

static int32_t sext(uint32_t v, unsigned bits)
{
  uint32_t m = 1u << (bits - 1);
  v &= (m << 1) - 1;
  return (int32_t)((v ^ m) - m);
}

static enum isa_enc classify(uint32_t w)
{
  if ((w >> 31) == 0) {
    uint32_t p = w >> 25;
    return p == 0x3f ? ENC_VOP1 : p == 0x3e ? ENC_VOPC : ENC_VOP2;
  }
  switch (w >> 23) {
  case 0x17d: return ENC_SOP1;
  case 0x17e: return ENC_SOPC;
  case 0x17f: return ENC_SOPP;
  case 0x1a7: return ENC_VOP3P;
  }
  if ((w >> 28) == 0xb)
    return ENC_SOPK;
  if ((w >> 30) == 2)
    return ENC_SOP2;
  switch (w >> 26) {
  case 0x30: return ENC_SMEM;
  case 0x34: return ENC_VOP3;
  case 0x36: return ENC_DS;
  case 0x37: return ENC_FLAT;   /* refined by the SEG field */
  case 0x38: return ENC_MUBUF;
  case 0x3a: return ENC_MTBUF;
  }
  return ENC_COUNT;
}

static unsigned opcode_of(enum isa_enc e, uint32_t w)
{
  switch (e) {
  case ENC_SOP2: return w >> 23 & 0x7f;
  case ENC_SOPK: return w >> 23 & 0x1f;
  case ENC_SOP1: return w >> 8 & 0xff;
  case ENC_SOPC: case ENC_SOPP: return w >> 16 & 0x7f;
  case ENC_SMEM: return w >> 18 & 0xff;
  case ENC_VOP1: return w >> 9 & 0xff;
  case ENC_VOP2: return w >> 25 & 0x3f;
  case ENC_VOPC: return w >> 17 & 0xff;
  case ENC_VOP3: return w >> 16 & 0x3ff;
  case ENC_VOP3P: return w >> 16 & 0x7f;
  case ENC_DS: return w >> 17 & 0xff;
  case ENC_FLAT: case ENC_SCRATCH: case ENC_GLOBAL: case ENC_MUBUF: return w >> 18 & 0x7f;
  case ENC_MTBUF: return w >> 15 & 0xf;
  default: return 0;
  }
}

static void decode_dpp(struct isa_inst *in, uint32_t x)
{
  in->dpp_kind = DPP_DPP;
  in->src[0] = (uint16_t)(OPD_VGPR + (x & 0xff));
  in->dpp_ctrl = x >> 8 & 0x1ff;
  in->bound_ctrl = x >> 19 & 1;
  in->neg |= (x >> 20 & 1) | (x >> 22 & 1) << 1;
  in->abs |= (x >> 21 & 1) | (x >> 23 & 1) << 1;
  in->bank_mask = x >> 24 & 0xf;
  in->row_mask = x >> 28 & 0xf;
}

static void decode_sdwa(struct isa_inst *in, uint32_t x)
{
  in->dpp_kind = DPP_SDWA;
  in->src[0] = (uint16_t)((x >> 23 & 1) ? (x & 0xff) : OPD_VGPR + (x & 0xff));
  if (in->enc == ENC_VOPC) {
    /* VOPC SDWA: bit 15 selects an explicit SGPR destination in [14:8], else VCC. */
    in->dst = (x >> 15 & 1) ? (uint16_t)(x >> 8 & 0x7f) : OPD_VCC;
  } else {
    in->sdwa_dst_sel = x >> 8 & 7;
    in->sdwa_dst_unused = x >> 11 & 3;
    in->clamp = x >> 13 & 1;
    in->omod = x >> 14 & 3;
  }
  in->sdwa_sel[0] = x >> 16 & 7;
  in->sdwa_sext[0] = x >> 19 & 1;
  in->neg |= (x >> 20 & 1) | (x >> 28 & 1) << 1;
  in->abs |= (x >> 21 & 1) | (x >> 29 & 1) << 1;
  in->sdwa_sel[1] = x >> 24 & 7;
  in->sdwa_sext[1] = x >> 27 & 1;
  if (x >> 31 & 1)
    in->src[1] = (uint16_t)(in->src[1] - OPD_VGPR);
}

/* Scalar and 32-bit vector encodings: one dword plus an optional literal or DPP/SDWA dword. */
static int decode_short(struct isa_inst *in, uint32_t w)
{
  switch (in->enc) {
  case ENC_SOP2:
    in->dst = w >> 16 & 0x7f; in->src[0] = w & 0xff; in->src[1] = w >> 8 & 0xff; in->nsrc = 2;
    break;
  case ENC_SOPK:
    in->dst = w >> 16 & 0x7f; in->simm16 = (int16_t)(w & 0xffff);
    break;
  case ENC_SOP1:
    in->dst = w >> 16 & 0x7f; in->src[0] = w & 0xff; in->nsrc = 1;
    break;
  case ENC_SOPC:
    in->src[0] = w & 0xff; in->src[1] = w >> 8 & 0xff; in->nsrc = 2;
    break;
  case ENC_SOPP:
    in->simm16 = (int16_t)(w & 0xffff);
    break;
  case ENC_VOP1:
    in->dst = (uint16_t)(OPD_VGPR + (w >> 17 & 0xff)); in->src[0] = w & 0x1ff; in->nsrc = 1;
    break;
  case ENC_VOP2:
    in->dst = (uint16_t)(OPD_VGPR + (w >> 17 & 0xff)); in->src[0] = w & 0x1ff;
    in->src[1] = (uint16_t)(OPD_VGPR + (w >> 9 & 0xff)); in->nsrc = 2;
    break;
  case ENC_VOPC:
    /* the result is a lane mask: VCC, or with SDWA an explicit SGPR pair */
    in->dst = OPD_VCC; in->dst_w = 2; in->src[0] = w & 0x1ff;
    in->src[1] = (uint16_t)(OPD_VGPR + (w >> 9 & 0xff)); in->nsrc = 2;
    break;
  default:
    return -1;
  }
  return 0;
}

static void decode_vop3(struct isa_inst *in, const struct isa_opinfo *r, uint32_t w, uint32_t x)
{
  in->dst = w & 0xff;
  /* VOP3 opcodes below 0x100 are VOPC compares: their destination is an SGPR mask, as is
   * that of v_readlane/v_readfirstlane. */
  if (r->opcode >= 0x100 && r->op != OP_V_READLANE_B32 && r->op != OP_V_READFIRSTLANE_B32)
    in->dst = (uint16_t)(in->dst + OPD_VGPR);
  in->clamp = w >> 15 & 1;
  if (r->vop3b) {
    in->sdst = w >> 8 & 0x7f;
  } else {
    in->opsel = w >> 11 & 0xf;
    in->abs = w >> 8 & 7;
  }
  in->src[0] = x & 0x1ff;
  in->src[1] = x >> 9 & 0x1ff;
  in->src[2] = x >> 18 & 0x1ff;
  in->omod = x >> 27 & 3;
  in->neg = x >> 29 & 7;
}

static void decode_vop3p(struct isa_inst *in, uint32_t w, uint32_t x)
{
  in->dst = (uint16_t)(OPD_VGPR + (w & 0xff));
  in->src[0] = x & 0x1ff;
  in->src[1] = x >> 9 & 0x1ff;
  in->src[2] = x >> 18 & 0x1ff;
  const char *n = isa_op_name(in->op);
  if (!strncmp(n, "v_mfma", 6) || !strncmp(n, "v_smfmac", 8)) {
    /* MAI form: ACC_CD puts dst/src2 in AGPRs, ACC bits put src0/src1 in AGPRs. */
    unsigned acc_cd = w >> 15 & 1, acc = x >> 27 & 3;
    bool sparse = n[2] == 's';   /* v_smfmac */
    in->cbsz = w >> 8 & 7;
    in->abid = w >> 11 & 0xf;
    in->blgp = x >> 29 & 7;
    if (acc_cd) {
      in->dst = (uint16_t)(in->dst + (OPD_AGPR - OPD_VGPR));
      /* v_smfmac accumulates into its destination; SRC2 is the sparsity index, always a VGPR */
      if (in->src[2] >= OPD_VGPR && !sparse)
        in->src[2] = (uint16_t)(in->src[2] + (OPD_AGPR - OPD_VGPR));
    }
    for (int i = 0; i < 2; i++)
      if ((acc >> i & 1) && in->src[i] >= OPD_VGPR)
        in->src[i] = (uint16_t)(in->src[i] + (OPD_AGPR - OPD_VGPR));
    return;
  }
  in->clamp = w >> 15 & 1;
  in->opsel = w >> 11 & 7;
  in->neg_hi = w >> 8 & 7;
  in->opsel_hi = (uint8_t)((x >> 27 & 3) | (w >> 14 & 1) << 2);
  in->neg = x >> 29 & 7;
  if (in->op == OP_V_ACCVGPR_WRITE_B32 || in->op == OP_V_ACCVGPR_MOV_B32)
    in->dst = (uint16_t)(in->dst + (OPD_AGPR - OPD_VGPR));
  if ((in->op == OP_V_ACCVGPR_READ_B32 || in->op == OP_V_ACCVGPR_MOV_B32) && in->src[0] >= OPD_VGPR)
    in->src[0] = (uint16_t)(in->src[0] + (OPD_AGPR - OPD_VGPR));
}

static void decode_mem(struct isa_inst *in, enum isa_target t, uint32_t w, uint32_t x)
{
  uint16_t reg_base;
  switch (in->enc) {
  case ENC_SMEM:
    in->dst = w >> 6 & 0x7f;
    in->addr = (uint16_t)((w & 0x3f) << 1);
    in->glc = w >> 16 & 1;
    in->imm = w >> 17 & 1;
    in->soe = w >> 14 & 1;
    in->offset = sext(x & 0x1fffff, 21);
    in->soffset = in->soe ? (uint16_t)(x >> 25) : (in->imm ? OPD_NONE : (uint16_t)(x & 0x7f));
    if (!in->imm)
      in->offset = 0;
    break;
  case ENC_DS:
    reg_base = (w >> 25 & 1) ? OPD_AGPR : OPD_VGPR;
    in->offset = (int32_t)(w & 0xffff);
    in->gds = w >> 16 & 1;
    in->addr = (uint16_t)(OPD_VGPR + (x & 0xff));
    /* The GWS instructions carry their data VGPR in the ADDR field, and ACC applies to it. */
    if (in->op == OP_DS_GWS_INIT || in->op == OP_DS_GWS_BARRIER || in->op == OP_DS_GWS_SEMA_BR)
      in->addr = (uint16_t)(reg_base + (x & 0xff));
    in->data0 = (uint16_t)(reg_base + (x >> 8 & 0xff));
    in->data1 = (uint16_t)(reg_base + (x >> 16 & 0xff));
    in->dst = (uint16_t)(reg_base + (x >> 24 & 0xff));
    break;
  case ENC_FLAT: case ENC_SCRATCH: case ENC_GLOBAL:
    reg_base = (x >> 23 & 1) ? OPD_AGPR : OPD_VGPR;
    in->seg = w >> 14 & 3;
    in->offset = in->seg == 0 ? (int32_t)(w & 0xfff) : sext(w & 0x1fff, 13);
    /* gfx942 scratch: bit 13 is SVE (a VGPR address is present); on gfx90a it is LDS. */
    if (t == ISA_GFX942 && in->seg == 1)
      in->sve = w >> 13 & 1;
    else
      in->lds = w >> 13 & 1;
    in->glc = w >> 16 & 1;
    in->slc = w >> 17 & 1;
    in->sc1 = w >> 25 & 1;
    in->addr = (uint16_t)(OPD_VGPR + (x & 0xff));
    in->data0 = (uint16_t)(reg_base + (x >> 8 & 0xff));
    in->saddr = x >> 16 & 0x7f;
    in->dst = (uint16_t)(reg_base + (x >> 24 & 0xff));
    break;
  case ENC_MUBUF: case ENC_MTBUF:
    reg_base = (x >> 23 & 1) ? OPD_AGPR : OPD_VGPR;
    in->offset = (int32_t)(w & 0xfff);
    in->offen = w >> 12 & 1;
    in->idxen = w >> 13 & 1;
    in->glc = w >> 14 & 1;
    if (in->enc == ENC_MUBUF) {
      in->sc1 = w >> 15 & 1;
      in->lds = w >> 16 & 1;
      in->slc = w >> 17 & 1;
    } else {
      /* MTBUF: the format sits where MUBUF keeps LDS/SLC; SLC (NT) and SCC (SC1) move to the
       * second dword. */
      in->dfmt = w >> 19 & 0xf;
      in->nfmt = w >> 23 & 7;
      in->sc1 = x >> 21 & 1;
      in->slc = x >> 22 & 1;
    }
    in->addr = (uint16_t)(OPD_VGPR + (x & 0xff));
    in->data0 = (uint16_t)(reg_base + (x >> 8 & 0xff));
    in->dst = in->data0;
    in->srsrc = (uint16_t)((x >> 16 & 0x1f) << 2);
    in->soffset = x >> 24 & 0xff;
    break;
  default:
    break;
  }
}

static int needs_literal(const struct isa_inst *in)
{
  for (int i = 0; i < 3; i++)
    if (in->src[i] == OPD_LITERAL)
      return 1;
  return 0;
}

int isa_decode(enum isa_target target, const uint32_t *words, unsigned nwords,
               struct isa_inst *in, char *msg, size_t msglen)
{
  memset(in, 0, sizeof(*in));
  in->dst = in->sdst = in->src[0] = in->src[1] = in->src[2] = OPD_NONE;
  in->saddr = in->soffset = OPD_NONE;
  if (nwords < 1)
    return -1;
  uint32_t w = words[0];
  if ((w >> 26) == 0x3c)   /* MIMG: decode_mimg.c (textures) */
    return isa_decode_mimg(target, words, nwords, in, msg, msglen);
  enum isa_enc e = classify(w);
  if (e == ENC_FLAT) /* SEG: 0 flat, 1 scratch, 2 global, 3 reserved */
    e = (w >> 14 & 3) == 3 ? ENC_COUNT : (enum isa_enc)(ENC_FLAT + (w >> 14 & 3));
  if (e >= ENC_COUNT) {
    snprintf(msg, msglen, "undecodable instruction word 0x%08x", w);
    return -1;
  }
  unsigned opcode = opcode_of(e, w);
  const struct isa_opinfo *r = isa_optab_lookup(target, e, opcode);
  if (!r) {
    snprintf(msg, msglen, "no opcode %u in encoding %d on %s (word 0x%08x)", opcode, (int)e,
             target == ISA_GFX942 ? "gfx942" : "gfx90a", w);
    return -1;
  }
  in->op = r->op;
  in->enc = (uint8_t)e;
  in->dst_w = r->dst_w;
  memcpy(in->src_w, r->src_w, 3);
  in->fp16 = op_fp16[r->op];
  in->fp64 = op_fp64[r->op];
  in->size = 4;
  int wide = e >= ENC_SMEM && e != ENC_VOP1 && e != ENC_VOP2 && e != ENC_VOPC;
  if (wide) {
    if (nwords < 2)
      goto truncated;
    in->size = 8;
    if (e == ENC_VOP3)
      decode_vop3(in, r, w, words[1]);
    else if (e == ENC_VOP3P)
      decode_vop3p(in, w, words[1]);
    else
      decode_mem(in, target, w, words[1]);
    in->nsrc = 3;
    return 0;
  }
  decode_short(in, w);
  if (in->op == OP_S_SETREG_IMM32_B32) {
    if (nwords < 2)
      goto truncated;
    in->literal = words[1];
    in->size = 8;
  } else if ((e == ENC_VOP1 || e == ENC_VOP2 || e == ENC_VOPC) && (in->src[0] == 250 || in->src[0] == 249)) {
    if (nwords < 2)
      goto truncated;
    in->size = 8;
    if (in->src[0] == 250)
      decode_dpp(in, words[1]);
    else
      decode_sdwa(in, words[1]);
  } else if (needs_literal(in) || in->op == OP_V_MADMK_F32 || in->op == OP_V_MADAK_F32 ||
             in->op == OP_V_FMAMK_F32 || in->op == OP_V_FMAAK_F32 || in->op == OP_V_MADMK_F16 ||
             in->op == OP_V_MADAK_F16) {
    if (nwords < 2)
      goto truncated;
    in->literal = words[1];
    in->size = 8;
  }
  if (in->op == OP_V_READFIRSTLANE_B32 && in->dst >= OPD_VGPR)
    in->dst = (uint16_t)(in->dst - OPD_VGPR);   /* the destination is an SGPR */
  if (in->op == OP_V_ACCVGPR_MOV_B32) {
    /* VOP1 on gfx90a/gfx942: AGPR to AGPR (its fields name accumulation registers) */
    in->dst = (uint16_t)(in->dst + (OPD_AGPR - OPD_VGPR));
    if (in->src[0] >= OPD_VGPR && in->src[0] < OPD_AGPR)
      in->src[0] = (uint16_t)(in->src[0] + (OPD_AGPR - OPD_VGPR));
  }
  return 0;
truncated:
  snprintf(msg, msglen, "%s: instruction truncated", isa_op_name(in->op));
  return -1;
}
