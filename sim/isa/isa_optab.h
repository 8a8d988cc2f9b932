/* The gfx9 opcode tables (generated data, isa_optab.c) and the decoded-instruction form.
 *
 * Encodings and field positions follow the MI200 (CDNA2) and MI300 (CDNA3) ISA guides and
 * LLVM's AMDGPU encoding classes; the tables themselves were read back from llvm-mc-19's
 * disassembler by gen_optab.py, so target differences (an opcode that exists on one target
 * only, a renamed instruction) are rows in the data, not branches in the code.
 */
#ifndef KFDSIM_ISA_OPTAB_H
#define KFDSIM_ISA_OPTAB_H

#include <stddef.h>
#include <stdint.h>

#include "isa/isa.h"
#include "isa/isa_ops.h"

enum isa_enc {
  ENC_SOP2, ENC_SOPK, ENC_SOP1, ENC_SOPC, ENC_SOPP, ENC_SMEM,
  ENC_VOP1, ENC_VOP2, ENC_VOPC, ENC_VOP3, ENC_VOP3P,
  ENC_DS, ENC_FLAT, ENC_SCRATCH, ENC_GLOBAL, ENC_MUBUF, ENC_MTBUF,
  ENC_COUNT
};

struct isa_opinfo {
  uint8_t enc;          /* enum isa_enc */
  uint16_t opcode;      /* opcode number inside the encoding */
  uint16_t op;          /* enum isa_op */
  uint8_t targets;      /* bit 0: gfx90a, bit 1: gfx942 */
  uint8_t dst_w;        /* destination register width in dwords (0: none or not a register) */
  uint8_t src_w[3];     /* source widths in dwords */
  uint8_t vop3b;        /* VOP3B form: bits [14:8] hold an SGPR-pair destination */
};

extern const struct isa_opinfo isa_optab[];
extern const unsigned isa_optab_count;
extern const char *const isa_op_names[ISA_OP_COUNT];

/* Operand codes: 0..255 are the 8-bit scalar source codes of the ISA (SGPRs, VCC, M0, EXEC,
 * inline constants, 255 = literal), 256..511 VGPRs, 512..767 AGPRs. */
enum {
  OPD_VCC = 106, OPD_M0 = 124, OPD_EXEC = 126, OPD_SCC = 253, OPD_LITERAL = 255,
  OPD_VGPR = 256, OPD_AGPR = 512, OPD_NONE = 0xffff,
};

enum isa_dpp_kind { DPP_NONE, DPP_DPP, DPP_SDWA };

struct isa_wave;
struct mem_op;

/* One decoded instruction. Decoded once per PC and cached for the whole dispatch. */
struct isa_inst {
  /* Bound when the instruction enters the decoded-instruction cache (dispatch.c,
   * bind_executor); isa_decode leaves them zero. The executor for this instruction, and for
   * VALU instructions the direct path's class (exec_valu_fast.h, valu_bind). */
  int (*exec)(struct isa_wave *w, const struct isa_inst *in);
  union {
    const struct mem_op *mo;     /* memory instructions bound to a direct path: mem_op_info(op) */
    const struct isa_inst *pair; /* a VALU pair's first instruction: the second (valu_pair.h) */
  };
  uint8_t fast;
  uint16_t op;          /* enum isa_op */
  uint8_t enc;
  uint8_t size;         /* bytes: 4, 8 or 12 */
  uint8_t dst_w, src_w[3];
  uint8_t fp16;         /* 16-bit sources: inline float constants are half precision */
  uint8_t fp64;         /* 64-bit float sources: a 32-bit literal is the high half */
  uint8_t nsrc;
  uint16_t dst, sdst;   /* operand codes (OPD_NONE when absent) */
  uint16_t src[3];
  uint32_t literal;
  /* VOP3 / VOP3P modifiers */
  uint8_t abs, neg, neg_hi, opsel, opsel_hi, clamp, omod;
  /* MAI */
  uint8_t cbsz, abid, blgp;
  /* DPP / SDWA (VOP1, VOP2, VOPC only) */
  uint8_t dpp_kind;
  uint16_t dpp_ctrl;
  uint8_t row_mask, bank_mask, bound_ctrl;
  uint8_t sdwa_dst_sel, sdwa_dst_unused, sdwa_sel[2], sdwa_sext[2];
  /* memory */
  int32_t offset;       /* SMEM/FLAT/MUBUF/DS offset (DS: offset0 | offset1 << 8) */
  uint16_t addr, data0, data1, saddr, soffset, srsrc;
  uint8_t glc, slc, gds, offen, idxen, seg, sve, soe, imm, lds;
  uint8_t sc1;          /* FLAT/MUBUF/MTBUF: SCC on gfx90a, SC1 on gfx942 (cache scope only) */
  uint8_t dfmt, nfmt;   /* MTBUF data and number format */
  int16_t simm16;
};

/* Decode the instruction at `words` (`nwords` readable dwords). Returns 0, or -1 if the words do
 * not form an instruction of `target` (msg then names the reason). */
int isa_decode(enum isa_target target, const uint32_t *words, unsigned nwords,
               struct isa_inst *out, char *msg, size_t msglen);

/* The opcode name of `op`, for messages and tests. */
const char *isa_op_name(unsigned op);

/* The row for (encoding, opcode) on `target`, or NULL. */
const struct isa_opinfo *isa_optab_lookup(enum isa_target target, enum isa_enc enc, unsigned opcode);

#endif
