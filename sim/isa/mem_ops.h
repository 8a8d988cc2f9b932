/* Memory-operation descriptions for VMEM (FLAT/GLOBAL/SCRATCH/MUBUF) and DS, built once from the
 * opcode names of the generated table: "global_load_sshort", "flat_atomic_cmpswap_x2",
 * "ds_read2st64_b64" all spell out their kind, width and signedness. */
#ifndef KFDSIM_ISA_MEM_OPS_H
#define KFDSIM_ISA_MEM_OPS_H

#include <stdbool.h>
#include <stdint.h>

enum mem_kind { MK_NONE, MK_LOAD, MK_STORE, MK_ATOMIC, MK_NOP };

enum atomic_op {
  AT_NONE, AT_SWAP, AT_CMPSWAP, AT_ADD, AT_SUB, AT_RSUB, AT_SMIN, AT_UMIN, AT_SMAX, AT_UMAX,
  AT_AND, AT_OR, AT_XOR, AT_INC, AT_DEC, AT_FADD, AT_FMIN, AT_FMAX, AT_PK_FADD16, AT_PK_BFADD16,
  AT_MSKOR,
  /* f32 add under a MODE that flushes denormals: inputs and output, the output only, the
   * inputs only (MODE.FP_DENORM single-precision values 0, 1, 2) */
  AT_FADD_FTZ, AT_FADD_FTZ_OUT, AT_FADD_FTZ_IN,
};

struct mem_op {
  uint8_t kind;       /* enum mem_kind */
  uint8_t bytes;      /* per element: 1, 2, 4, 8 (dwordxN: 4 with count N) */
  uint8_t count;      /* elements */
  uint8_t sext;       /* sign-extending sub-dword load */
  uint8_t d16;        /* 1: writes the low half, 2: the high half (loads); 2: stores the high half */
  uint8_t atomic;     /* enum atomic_op */
  uint8_t is_float;   /* fmin/fmax/fadd on f32/f64 */
  uint8_t two_addr;   /* DS read2/write2: 1, st64: 2 */
  uint8_t ret;        /* DS: the _rtn form returns the old value */
  uint8_t typed;      /* buffer_{load,store}_format_*: data converted by a buffer format */
};

/* The description of `op` (zeroed if it is not a memory instruction). */
const struct mem_op *mem_op_info(unsigned op);

/* Atomic read-modify-write of 4 or 8 bytes at host address `p`; returns the old value.
 * `cmp` is the compare value for AT_CMPSWAP and the mask for AT_MSKOR. */
uint64_t mem_atomic(void *p, unsigned bytes, enum atomic_op a, uint64_t src, uint64_t cmp);

/* Typed buffer data (buffer_*_format_*, tbuffer_*): gfx9 DATA_FORMAT (4 bits) and NUM_FORMAT
 * (3 bits) of the V# word 3 or of the MTBUF instruction. */
enum buf_nfmt { NF_UNORM, NF_SNORM, NF_USCALED, NF_SSCALED, NF_UINT, NF_SINT, NF_RSVD, NF_FLOAT };

struct buf_format {
  uint8_t comps;   /* components in memory */
  uint8_t bits;    /* bits per component: 8, 16 or 32 */
  uint8_t nfmt;    /* enum buf_nfmt */
};

/* The element layout of (dfmt, nfmt), or false if the interpreter does not model it: the packed
 * 10/11-bit formats, 8-bit floats, normalized or scaled 32-bit components, and for stores the
 * conversions whose rounding or saturation it does not know (scaled, narrow integers). */
bool buf_format_get(unsigned dfmt, unsigned nfmt, bool store, struct buf_format *f);
/* One element at `elem` -> `count` register values; components the format lacks read as
 * 0, 0, 0 and 1 (1.0 for float-valued formats) for x, y, z, w. */
void buf_format_load(const uint8_t *elem, const struct buf_format *f, unsigned count, uint32_t *out);
/* f->comps register values -> one element at `elem`. */
void buf_format_store(uint8_t *elem, const struct buf_format *f, const uint32_t *in);

#endif
