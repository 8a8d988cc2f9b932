/* MIMG decoding (image.h).
 *
 * gfx9 MIMG, two dwords (MI200 ISA guide, "MIMG"; checked with llvm-mc-19 -show-encoding):
 *   word 0: DMASK [11:8], UNORM [12], GLC [13], DA [14], A16 [15], ACC [16] (gfx90a: VDATA is
 *           an AGPR; TFE on earlier chips), LWE [17], OP [24:18], SLC [25], 0x3c in [31:26];
 *   word 1: VADDR [7:0], VDATA [15:8], SRSRC [20:16] and SSAMP [25:21] (in units of 4 SGPRs),
 *           D16 [31].
 * gfx942 has no image instructions at all (llvm-mc-19: "instruction not supported").
 */
#include "isa/image.h"

#include <stdio.h>
#include <string.h>

const char *isa_mimg_name(unsigned opcode)
{
  switch (opcode) {
  case MIMG_LOAD: return "image_load";
  case MIMG_LOAD_MIP: return "image_load_mip";
  case MIMG_STORE: return "image_store";
  case MIMG_STORE_MIP: return "image_store_mip";
  case MIMG_GET_RESINFO: return "image_get_resinfo";
  case MIMG_SAMPLE: return "image_sample";
  }
  return NULL;
}

int isa_decode_mimg(enum isa_target target, const uint32_t *words, unsigned nwords,
                    struct isa_inst *in, char *msg, size_t msglen)
{
  uint32_t w = words[0];
  unsigned opcode = w >> 18 & 0x7f;
  if (target == ISA_GFX942 || !isa_mimg_name(opcode)) {
    snprintf(msg, msglen, "MIMG opcode %u is not an image instruction kfdsim models on %s", opcode,
             target == ISA_GFX942 ? "gfx942" : "gfx90a");
    return -1;
  }
  if (nwords < 2) {
    snprintf(msg, msglen, "%s: instruction truncated", isa_mimg_name(opcode));
    return -1;
  }
  uint32_t x = words[1];
  uint16_t reg_base = (w >> 16 & 1) ? OPD_AGPR : OPD_VGPR;
  in->enc = ENC_MIMG;
  in->op = OP_INVALID;
  in->simm16 = (int16_t)opcode;
  in->size = 8;
  in->glc = w >> 13 & 1;
  in->slc = w >> 25 & 1;
  in->offset = (int32_t)((w >> 8 & 0xf) | (w >> 12 & 1) << 4 | (w >> 14 & 1) << 5 |
                         (w >> 15 & 1) << 6 | (w >> 17 & 1) << 7 | (x >> 31 & 1) << 8);
  in->addr = (uint16_t)(OPD_VGPR + (x & 0xff));
  in->data0 = (uint16_t)(reg_base + (x >> 8 & 0xff));
  in->dst = in->data0;
  in->srsrc = (uint16_t)((x >> 16 & 0x1f) << 2);
  in->saddr = (uint16_t)((x >> 21 & 0x1f) << 2);
  return 0;
}
