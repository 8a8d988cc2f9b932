/* Image (MIMG) instructions: the texture model of the interpreter (typed buffer loads, which
 * tex1Dfetch on linear memory compiles to, are exec_mem.c's).
 *
 * decode_mimg.c turns an MIMG instruction into a struct isa_inst; exec_image.c runs it against
 * the image resource (T#) and sampler (S#) in SGPRs, with the gfx9 descriptor layouts of the
 * MI200 ISA guide ("Image Resource", "Image Sampler") that ROCr's image manager
 * (hsa-runtime/image/resource_ai.h) and Mesa's radeonsi also write. Only linear (SW_MODE 0)
 * images are modelled: the runtime that builds the descriptors lays images out row-major.
 *
 * MIMG has no row in the generated opcode tables (isa_optab.c), so a decoded MIMG instruction
 * carries enc == ENC_MIMG, op == OP_INVALID and its 7-bit MIMG opcode in simm16; the fields the
 * shared struct has no room for are packed into `offset` (MIMG_* below).
 */
#ifndef KFDSIM_ISA_IMAGE_H
#define KFDSIM_ISA_IMAGE_H

#include "isa/isa_optab.h"

struct isa_wave;

/* The encoding value of MIMG instructions: one past the table-driven encodings. */
#define ENC_MIMG ((uint8_t)ENC_COUNT)

/* MIMG opcodes of gfx90a (llvm-mc-19 -mcpu=gfx90a disassembly; gfx942 has no MIMG). */
enum mimg_op {
  MIMG_LOAD = 0x00, MIMG_LOAD_MIP = 0x01, MIMG_STORE = 0x08, MIMG_STORE_MIP = 0x09,
  MIMG_GET_RESINFO = 0x0e, MIMG_SAMPLE = 0x20,
};

/* Fields packed into isa_inst.offset for MIMG. */
#define MIMG_DMASK(in) ((unsigned)(in)->offset & 0xf)
#define MIMG_UNORM(in) ((unsigned)(in)->offset >> 4 & 1)
#define MIMG_DA(in) ((unsigned)(in)->offset >> 5 & 1)
#define MIMG_A16(in) ((unsigned)(in)->offset >> 6 & 1)
#define MIMG_LWE(in) ((unsigned)(in)->offset >> 7 & 1)
#define MIMG_D16(in) ((unsigned)(in)->offset >> 8 & 1)
#define MIMG_TFE(in) ((unsigned)(in)->offset >> 9 & 1)

/* Decode the MIMG instruction at words[0..nwords) (words[0] >> 26 == 0x3c). 0 or -1 with msg. */
int isa_decode_mimg(enum isa_target target, const uint32_t *words, unsigned nwords,
                    struct isa_inst *in, char *msg, size_t msglen);

/* The name of an MIMG opcode ("image_sample"), or NULL if kfdsim does not model it. */
const char *isa_mimg_name(unsigned opcode);

/* Run a decoded MIMG instruction. 0, or -1 when the wave stopped (the failure is recorded). */
int exec_image(struct isa_wave *w, const struct isa_inst *in);

#endif
