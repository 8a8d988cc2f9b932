/* Matrix fused multiply-add (MFMA, the MAI instructions) of gfx90a and gfx942.
 *
 * Shapes come from the opcode name (v_mfma_<out>_<M>x<N>x<K>[_<blocks>b]<in>). Operand layouts
 * follow the CDNA2/CDNA3 ISA guides ("Dependent Matrix Operations", the register layouts the AMD
 * matrix instruction calculator prints): lane i + M*g of A holds row i, k-group or block g, each
 * lane packing `kpl` consecutive k values; B is the same with columns; D/C hold for M = 32 rows
 * 8*(r/4) + 4*(lane/32) + r%4 of block r/16, for M = 16 rows 4*(lane/16) + r%4 of block r/4, and
 * for M = 4 row r of block lane/4; the column is lane % N.
 */
#include "isa/wave.h"
#include "isa/valu_fp.h"

#include <stdlib.h>

enum mtype { MT_F32, MT_XF32, MT_F16, MT_BF16, MT_I8, MT_F64, MT_FP8, MT_BF8 };

struct mfma_shape {
  unsigned m, n, k, kpl, blocks;
  enum mtype in_a, in_b;
  bool out_int, out_f64;
};

static int parse_type(const char *t, enum mtype *ty)
{
  if (!strncmp(t, "xf32", 4)) *ty = MT_XF32;
  else if (!strncmp(t, "f32", 3)) *ty = MT_F32;
  else if (!strncmp(t, "f16", 3)) *ty = MT_F16;
  else if (!strncmp(t, "bf16", 4)) *ty = MT_BF16;
  else if (!strncmp(t, "i8", 2)) *ty = MT_I8;
  else if (!strncmp(t, "f64", 3)) *ty = MT_F64;
  else if (!strncmp(t, "fp8", 3)) *ty = MT_FP8;
  else if (!strncmp(t, "bf8", 3)) *ty = MT_BF8;
  else return -1;
  return 0;
}

static int parse_shape(const char *name, struct mfma_shape *s)
{
  memset(s, 0, sizeof(*s));
  if (strncmp(name, "v_mfma_", 7))
    return -1;
  const char *p = name + 7;
  s->out_int = !strncmp(p, "i32", 3);
  s->out_f64 = !strncmp(p, "f64", 3);
  p += 4;
  char *e;
  s->m = (unsigned)strtoul(p, &e, 10);
  if (*e != 'x') return -1;
  s->n = (unsigned)strtoul(e + 1, &e, 10);
  if (*e != 'x') return -1;
  s->k = (unsigned)strtoul(e + 1, &e, 10);
  if (*e == '_') e++;
  /* gfx942 names carry the block count ("_4b_", "_16b_"); it is recomputed below */
  if (e[0] >= '0' && e[0] <= '9') {
    while (*e && *e != '_') e++;
    if (*e == '_') e++;
  }
  if (parse_type(e, &s->in_a)) return -1;
  s->in_b = s->in_a;
  const char *second = strchr(e, '_');
  if ((s->in_a == MT_FP8 || s->in_a == MT_BF8) && second && parse_type(second + 1, &s->in_b))
    return -1;
  bool bf16_1k = s->in_a == MT_BF16 && (strstr(name, "_1k") || e[-1] == '_');
  switch (s->in_a) {
  case MT_F32: case MT_F64: s->kpl = 1; break;
  case MT_XF32: s->kpl = 2; break;
  case MT_F16: s->kpl = 4; break;
  case MT_BF16: s->kpl = bf16_1k ? 4 : 2; break;
  case MT_I8: s->kpl = ((s->m == 32 && s->k == 16) || (s->m == 16 && s->k == 32)) ? 8 : 4; break;
  default: s->kpl = 8; break;
  }
  if (!s->m || s->m != s->n || !s->k || 64 % s->m)
    return -1;
  s->blocks = (64 / s->m) * s->kpl / s->k;
  if (!s->blocks || (s->blocks > 1 && s->k != s->kpl))
    return -1;
  if (s->out_f64 && s->m != 16)
    return -1;   /* the 4x4 f64 layout is not modelled */
  return 0;
}

static double fp8_value(uint8_t v, bool bf8)
{
  /* OCP-style FNUZ formats of gfx942: fp8 E4M3 (bias 8), bf8 E5M2 (bias 16); 0x80 is NaN */
  if (v == 0x80) return NAN;
  int sign = v >> 7;
  int eb = bf8 ? 5 : 4, mb = bf8 ? 2 : 3, bias = bf8 ? 16 : 8;
  int e = v >> mb & ((1 << eb) - 1), m = v & ((1 << mb) - 1);
  double r = e ? ldexp(1.0 + m / (double)(1 << mb), e - bias) : ldexp(m / (double)(1 << mb), 1 - bias);
  return sign ? -r : r;
}

/* Element j of a lane's source value (1 or 2 dwords). */
static double elem(uint64_t v, enum mtype t, unsigned j)
{
  switch (t) {
  case MT_F32: return f32_of(v);
  case MT_XF32: return f32_of(v >> (32 * j));
  case MT_F16: return f16_to_f32((uint16_t)(v >> (16 * j)));
  case MT_BF16: return bf16_to_f32((uint16_t)(v >> (16 * j)));
  case MT_I8: return (int8_t)(v >> (8 * j));
  case MT_F64: return f64_of(v);
  case MT_FP8: return fp8_value((uint8_t)(v >> (8 * j)), false);
  case MT_BF8: return fp8_value((uint8_t)(v >> (8 * j)), true);
  }
  return 0;
}

static unsigned src_dwords(const struct mfma_shape *s, enum mtype t)
{
  switch (t) {
  case MT_F32: return 1;
  case MT_BF16: return s->kpl == 2 ? 1 : 2;
  case MT_I8: return s->kpl == 8 ? 2 : 1;
  default: return 2;
  }
}

static uint64_t read_src(struct isa_wave *w, const struct isa_inst *in, int i, unsigned l, unsigned dw)
{
  unsigned code = in->src[i];
  if (code < OPD_VGPR)
    return wave_scalar_src(w, in, code, dw);
  uint64_t v = wave_vreg(w, code)[l];
  if (dw == 2)
    v |= (uint64_t)wave_vreg(w, code + 1)[l] << 32;
  return v;
}

/* D/C element (block b, row i, column n) -> (register, lane) */
static void d_pos(const struct mfma_shape *s, unsigned b, unsigned i, unsigned n, unsigned *reg, unsigned *lane)
{
  if (s->m == 32) {
    *lane = n + 32 * (i / 4 % 2);
    *reg = b * 16 + (i / 8) * 4 + i % 4;
  } else if (s->m == 16 && s->out_f64) {
    /* 64-bit outputs are one row per register pair: row i in lanes 16 * (i % 4), pair i / 4
     * (AMD's matrix instruction calculator; 32-bit outputs group four rows per lane range) */
    *lane = n + 16 * (i % 4);
    *reg = b * 4 + i / 4;
  } else if (s->m == 16) {
    *lane = n + 16 * (i / 4);
    *reg = b * 4 + i % 4;
  } else {
    *lane = n + 4 * b;
    *reg = i;
  }
}

int exec_mfma(struct isa_wave *w, const struct isa_inst *in)
{
  struct mfma_shape s;
  const char *name = isa_op_name(in->op);
  if (parse_shape(name, &s) || in->cbsz || in->abid || in->blgp)
    return exec_illegal(w, in);   /* sparse smfmac, broadcast modifiers: not modelled */
  /* MFMA reads and writes every lane: the matrix spans the whole wave regardless of EXEC. */
  unsigned dwa = src_dwords(&s, s.in_a), dwb = src_dwords(&s, s.in_b);
  static _Thread_local double A[64][8], B[64][8];
  for (unsigned l = 0; l < WAVE_SIZE; l++) {
    uint64_t va = read_src(w, in, 0, l, dwa), vb = read_src(w, in, 1, l, dwb);
    for (unsigned j = 0; j < s.kpl; j++) {
      A[l][j] = elem(va, s.in_a, j);
      B[l][j] = elem(vb, s.in_b, j);
    }
  }
  unsigned outw = s.out_f64 ? 2 : 1;
  unsigned nregs = s.m * s.n * s.blocks / 64 * outw;
  static _Thread_local uint32_t D[64][WAVE_SIZE];
  if (nregs > 64)
    return exec_illegal(w, in);
  for (unsigned b = 0; b < s.blocks; b++)
    for (unsigned i = 0; i < s.m; i++)
      for (unsigned n = 0; n < s.n; n++) {
        unsigned reg, lane;
        d_pos(&s, b, i, n, &reg, &lane);
        double acc = 0;
        int64_t iacc = 0;
        for (unsigned k = 0; k < s.k; k++) {
          unsigned g = b + k / s.kpl, j = k % s.kpl;
          double p = A[i + s.m * g][j] * B[n + s.n * g][j];
          if (s.out_int) iacc += (int64_t)p;
          else acc += p;
        }
        reg *= outw;
        uint64_t c = read_src(w, in, 2, lane, outw) ;
        if (in->src[2] >= OPD_VGPR) {
          c = wave_vreg(w, in->src[2] + reg)[lane];
          if (outw == 2) c |= (uint64_t)wave_vreg(w, in->src[2] + reg + 1)[lane] << 32;
        }
        if (s.out_f64) {
          uint64_t r = bits_f64(f64_of(c) + acc);
          D[reg][lane] = (uint32_t)r;
          D[reg + 1][lane] = (uint32_t)(r >> 32);
        } else if (s.out_int) {
          D[reg][lane] = (uint32_t)((int32_t)c + (int32_t)iacc);
        } else {
          D[reg][lane] = bits_f32((float)((double)f32_of(c) + acc));
        }
      }
  for (unsigned r = 0; r < nregs; r++)
    memcpy(wave_vreg(w, in->dst + r), D[r], sizeof(D[r]));
  return 0;
}
