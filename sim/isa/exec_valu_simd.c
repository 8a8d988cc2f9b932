/* Whole-wave AVX2 handlers for the hottest VALU instructions.
 *
 * exec_valu_fast.c's direct path computes 64 lanes in loops the compiler vectorises, but its
 * handlers still sort out each instruction's class, operation and operand kinds per execution,
 * and its compares and carries go through byte-per-lane arrays. Here each operation has a
 * handler of its own (chosen once per decoded instruction by valu_simd_bind), written with
 * AVX2/FMA intrinsics: eight lanes per vector, a scalar source held broadcast in a register,
 * compare and carry bits taken with movemask, and a partial EXEC applied by masked stores, so
 * the handler is the same straight line whatever EXEC holds.
 *
 * These handlers are bound only when the host CPU has AVX2 and FMA (checked once); otherwise,
 * and for every form not covered here, exec_valu_fast.c's portable path runs. Results are those
 * of exec_valu.c bit for bit: the same IEEE single-precision operations (one rounding each, fma
 * rounding once), f32 only while MODE keeps f32 denormals (the HIP default; exec_valu.c
 * applies a flush), the host's MXCSR (round to nearest, no DAZ/FTZ) as for the rest of the
 * interpreter. Inactive lanes compute on whatever their registers hold and are not stored:
 * none of these operations has a side effect. test_isa_valu_fast runs every bound handler
 * against exec_valu.c on random and edge-value registers with full, partial and empty EXEC.
 */
#include "isa/exec_valu_fast.h"
#include "isa/valu_pair.h"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)

#include <immintrin.h>
#include <stdatomic.h>

#define AVX __attribute__((target("avx2,fma")))
#define INL __attribute__((always_inline)) inline

/* ---- operands ---- */

/* The f32 inline constants 240..248 (0.5, -0.5, 1, -1, 2, -2, 4, -4, 1/(2 pi)) as IEEE single
 * bits, as exec_salu.c gives them to 32-bit operands; the rest of the 16 entries unused. */
static const uint32_t f32_inline[16] = {0x3f000000, 0xbf000000, 0x3f800000, 0xbf800000,
                                        0x40000000, 0xc0000000, 0x40800000, 0xc0800000,
                                        0x3e22f983};

/* A 32-bit scalar source (not a VGPR): an SGPR, the literal, an integer or f32 inline constant,
 * read in place. valu_simd_bind binds no handler with another scalar source (scalar_inline):
 * with no call here, a handler needs no stack frame for one. Handlers are bound only for
 * instructions without 16-bit sources, so a float constant is its f32 value. */
static INL uint32_t scalar_u32(struct isa_wave *w, const struct isa_inst *in, unsigned code)
{
  if (code < 128)
    return w->s[code];
  if (code == OPD_LITERAL)
    return in->literal;
  if (code <= 192)
    return code - 128;
  if (code <= 208)
    return (uint32_t)(192 - (int)code);
  return f32_inline[(code - 240) & 15];
}

/* The scalar sources scalar_u32 reads (SGPRs, the literal, integer and f32 inline constants). */
static bool scalar_inline(const struct isa_inst *in, unsigned code)
{
  return code <= 208 || code == OPD_LITERAL || (code >= 240 && code <= 248 && !in->fp16);
}

/* Bits l..l+7 of a lane mask m (l a multiple of 8, a constant once the loops are unrolled)
 * in the sign bits of eight lanes: each lane shifts its bit to bit 31 (one variable shift; the
 * broadcast of m's half is shared by the steps). A masked store reads only the sign bits. */
static AVX INL __m256i lane_sign8(uint64_t m, unsigned l)
{
  const int b = (int)(l & 31);
  __m256i v = _mm256_set1_epi32((int)(uint32_t)(m >> (l & 32)));
  __m256i n = _mm256_setr_epi32(31 - b, 30 - b, 29 - b, 28 - b, 27 - b, 26 - b, 25 - b, 24 - b);
  return _mm256_sllv_epi32(v, n);
}

/* The same bits as eight lanes of all ones (bit set) or zero. */
static AVX INL __m256i lane_mask8(uint64_t m, unsigned l)
{
  return _mm256_srai_epi32(lane_sign8(m, l), 31);
}

static AVX INL __m256i load8(const uint32_t *p, unsigned l)
{
  return _mm256_loadu_si256((const __m256i *)(p + l));
}

/* Lanes l..l+7 of r into d: all of them (full), or those EXEC enables (a masked store leaves
 * the others' memory untouched). */
static AVX INL void store8(uint32_t *d, unsigned l, __m256i r, uint64_t exec, const bool full)
{
  if (full)
    _mm256_storeu_si256((__m256i *)(d + l), r);
  else
    _mm256_maskstore_epi32((int *)(d + l), lane_sign8(exec, l), r);
}

/* What an operand that is not a register points at (never read: the handlers' operand kinds
 * say which are registers), so that no path of theirs dereferences NULL. */
static const uint32_t no_lanes[WAVE_SIZE];

/* Source i of 32 bits: a VGPR in place, or NULL with its scalar value in *k. */
static INL const uint32_t *src32(struct isa_wave *w, const struct isa_inst *in, int i,
                                 uint32_t *k)
{
  unsigned code = in->src[i];
  *k = 0;
  if (code >= OPD_VGPR)
    return code == OPD_NONE ? NULL : wave_vreg(w, code);
  *k = scalar_u32(w, in, code);
  return NULL;
}

/* ---- 32-bit lane-wise operations ---- */

enum simd_op {
  S_MOV, S_ADD, S_SUB, S_SUBREV, S_AND, S_OR, S_XOR, S_LSHLREV, S_LSHRREV, S_ASHRREV,
  S_MUL_LO, S_MUL_U24, S_MAX_I32, S_MIN_I32, S_MAX_U32, S_MIN_U32, S_ADD3, S_LSHL_ADD,
  S_ADD_LSHL, S_LSHL_OR, S_AND_OR, S_OR3, S_XAD, S_BFI, S_CNDMASK,
  S_ADD_F32, S_SUB_F32, S_SUBREV_F32, S_MUL_F32, S_FMA_F32, S_FMAC_F32, S_FMAMK_F32,
  S_FMAAK_F32, S_CVT_F32_I32,
};

static AVX INL __m256 ps(__m256i x)
{
  return _mm256_castsi256_ps(x);
}

static AVX INL __m256i si(__m256 x)
{
  return _mm256_castps_si256(x);
}

/* The operation on eight lanes: x, y, z are sources 0, 1, 2 (for v_fmac_f32 z is the
 * destination, for v_fmamk_f32 y is the literal and z src1, for v_fmaak_f32 z the literal;
 * for v_cndmask_b32 z holds the select bits in its sign bits). Shift amounts take their low 5 bits, as the ISA. */
static AVX INL __m256i op8(const int op, __m256i x, __m256i y, __m256i z)
{
  const __m256i m5 = _mm256_set1_epi32(31), m24 = _mm256_set1_epi32(0xffffff);
  switch (op) {
  case S_MOV: return x;
  case S_ADD: return _mm256_add_epi32(x, y);
  case S_SUB: return _mm256_sub_epi32(x, y);
  case S_SUBREV: return _mm256_sub_epi32(y, x);
  case S_AND: return _mm256_and_si256(x, y);
  case S_OR: return _mm256_or_si256(x, y);
  case S_XOR: return _mm256_xor_si256(x, y);
  case S_LSHLREV: return _mm256_sllv_epi32(y, _mm256_and_si256(x, m5));
  case S_LSHRREV: return _mm256_srlv_epi32(y, _mm256_and_si256(x, m5));
  case S_ASHRREV: return _mm256_srav_epi32(y, _mm256_and_si256(x, m5));
  case S_MUL_LO: return _mm256_mullo_epi32(x, y);
  case S_MUL_U24: return _mm256_mullo_epi32(_mm256_and_si256(x, m24), _mm256_and_si256(y, m24));
  case S_MAX_I32: return _mm256_max_epi32(x, y);
  case S_MIN_I32: return _mm256_min_epi32(x, y);
  case S_MAX_U32: return _mm256_max_epu32(x, y);
  case S_MIN_U32: return _mm256_min_epu32(x, y);
  case S_ADD3: return _mm256_add_epi32(_mm256_add_epi32(x, y), z);
  case S_LSHL_ADD: return _mm256_add_epi32(_mm256_sllv_epi32(x, _mm256_and_si256(y, m5)), z);
  case S_ADD_LSHL: return _mm256_sllv_epi32(_mm256_add_epi32(x, y), _mm256_and_si256(z, m5));
  case S_LSHL_OR: return _mm256_or_si256(_mm256_sllv_epi32(x, _mm256_and_si256(y, m5)), z);
  case S_AND_OR: return _mm256_or_si256(_mm256_and_si256(x, y), z);
  case S_OR3: return _mm256_or_si256(_mm256_or_si256(x, y), z);
  case S_XAD: return _mm256_add_epi32(_mm256_xor_si256(x, y), z);
  case S_BFI: return _mm256_or_si256(_mm256_and_si256(x, y), _mm256_andnot_si256(x, z));
  case S_CNDMASK: return si(_mm256_blendv_ps(ps(x), ps(y), ps(z)));   /* z's sign bits */
  case S_ADD_F32: return si(_mm256_add_ps(ps(x), ps(y)));
  case S_SUB_F32: return si(_mm256_sub_ps(ps(x), ps(y)));
  case S_SUBREV_F32: return si(_mm256_sub_ps(ps(y), ps(x)));
  case S_MUL_F32: return si(_mm256_mul_ps(ps(x), ps(y)));
  case S_CVT_F32_I32: return si(_mm256_cvtepi32_ps(x));
  default: return si(_mm256_fmadd_ps(ps(x), ps(y), ps(z)));   /* the fma forms */
  }
}

/* Which sources an operation reads: 1 src0 only, 2 src0 and src1, 3 all three. */
static INL int arity(const int op)
{
  return op == S_MOV || op == S_CVT_F32_I32 ? 1 : op >= S_ADD3 && op <= S_BFI ? 3
         : op == S_FMA_F32 || op == S_FMAC_F32 || op == S_FMAMK_F32 || op == S_FMAAK_F32 ||
                   op == S_CNDMASK ? 3 : 2;
}

/* The 64 lanes of `op` into d. Operand i is the VGPR a/b/c or the broadcast ka/kb/kc; `kind`
 * says, as a constant of the caller, which operands are registers (bit i), so that the loop
 * tests nothing per step. For v_cndmask_b32 the third operand is the lane mask `sel`. Every
 * step reads all its inputs before it stores, and lane l reads only lane l, so d may be a
 * source. */
static AVX INL void lanes32(const int op, uint32_t *d, const uint32_t *a, const uint32_t *b,
                            const uint32_t *c, uint32_t ka, uint32_t kb, uint32_t kc,
                            uint64_t exec, uint64_t sel, const int kind, const bool full)
{
  const __m256i kx = _mm256_set1_epi32((int)ka), ky = _mm256_set1_epi32((int)kb),
                kz = _mm256_set1_epi32((int)kc);
#pragma GCC unroll 8
  for (unsigned l = 0; l < WAVE_SIZE; l += 8) {
    __m256i x = kind & 1 ? load8(a, l) : kx;
    __m256i y = arity(op) >= 2 && (kind & 2) ? load8(b, l) : ky;
    __m256i z = op == S_CNDMASK ? lane_sign8(sel, l)
                : arity(op) >= 3 && (kind & 4) ? load8(c, l) : kz;
    store8(d, l, op8(op, x, y, z), exec, full);
  }
}

/* Lanes i < k of a group of eight as all ones (0 <= k <= 8). */
static AVX INL __m256i first8(unsigned k)
{
  return _mm256_cmpgt_epi32(_mm256_set1_epi32((int)k), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

/* EXEC the n lowest lanes (2 <= n <= 63: `if (tid < stride)` in a tree reduction): the groups
 * of eight those lanes are in, whole groups stored in full and the last one under a mask built
 * from n; the groups past it neither computed nor stored (lanes32 with a partial EXEC does all
 * eight). The same operation per lane as lanes32, so the same bits. */
static AVX INL void lanes32_first(const int op, uint32_t *d, const uint32_t *a, const uint32_t *b,
                                  const uint32_t *c, uint32_t ka, uint32_t kb, uint32_t kc,
                                  unsigned n, uint64_t sel, const int kind)
{
  const __m256i kx = _mm256_set1_epi32((int)ka), ky = _mm256_set1_epi32((int)kb),
                kz = _mm256_set1_epi32((int)kc);
#pragma GCC unroll 8
  for (unsigned l = 0; l < WAVE_SIZE; l += 8) {
    if (l >= n)
      break;
    __m256i x = kind & 1 ? load8(a, l) : kx;
    __m256i y = arity(op) >= 2 && (kind & 2) ? load8(b, l) : ky;
    __m256i z = op == S_CNDMASK ? lane_sign8(sel, l)
                : arity(op) >= 3 && (kind & 4) ? load8(c, l) : kz;
    __m256i r = op8(op, x, y, z);
    if (l + 8 <= n)
      _mm256_storeu_si256((__m256i *)(d + l), r);
    else
      _mm256_maskstore_epi32((int *)(d + l), first8(n - l), r);
  }
}

/* One active lane l (a loop that one lane runs, hip-tests' stream cases): that lane alone,
 * its operands broadcast through the same op8, so the same bits as lanes32; the other lanes
 * untouched. About a tenth of the eight-lane steps over all 64 with masked stores. */
static AVX INL void lane1_32(const int op, uint32_t *d, const uint32_t *a, const uint32_t *b,
                             const uint32_t *c, uint32_t ka, uint32_t kb, uint32_t kc,
                             unsigned l, uint64_t sel, const int kind)
{
  __m256i x = _mm256_set1_epi32((int)(kind & 1 ? a[l] : ka));
  __m256i y = _mm256_set1_epi32((int)(arity(op) >= 2 && (kind & 2) ? b[l] : kb));
  __m256i z = op == S_CNDMASK ? _mm256_set1_epi32(sel >> l & 1 ? -1 : 0)
              : _mm256_set1_epi32((int)(arity(op) >= 3 && (kind & 4) ? c[l] : kc));
  d[l] = (uint32_t)_mm256_cvtsi256_si32(op8(op, x, y, z));
}

/* The operand kind of a 32-bit operation's instruction, decided at bind time: bit i set when
 * lanes32's operand i is a register. For v_fmac_f32 the third operand is the destination (a
 * register), for v_fmamk_f32 the second is the literal and the third src1, for v_fmaak_f32
 * the third is the literal; v_cndmask_b32's third is the select mask. Bits of operands the
 * operation does not read are clear. */
static bool is_vgpr(const struct isa_inst *in, int i)
{
  return in->src[i] >= OPD_VGPR && in->src[i] != OPD_NONE;
}

static int kind_of(const struct isa_inst *in, int op)
{
  int n = arity(op), kind = is_vgpr(in, 0);
  if (n >= 2)
    kind |= is_vgpr(in, 1) << 1;
  if (n >= 3)
    kind |= is_vgpr(in, 2) << 2;
  if (op == S_FMAC_F32)
    kind |= 4;
  else if (op == S_FMAMK_F32)
    kind = (kind & 1) | is_vgpr(in, 1) << 2;
  else if (op == S_FMAAK_F32 || op == S_CNDMASK)
    kind &= 3;
  return kind;
}

/* Operand i of a bound handler: its VGPR when `vgpr` (a constant of the handler), else its
 * scalar value in *k and no_lanes (never read). */
static INL const uint32_t *operand(struct isa_wave *w, const struct isa_inst *in, int i,
                                   const bool vgpr, uint32_t *k)
{
  *k = 0;
  if (vgpr)
    return wave_vreg(w, in->src[i]);
  *k = scalar_u32(w, in, in->src[i]);
  return no_lanes;
}

/* One handler of `op` for operand kind `kind` (kind_of): the wave state the direct path
 * needs (no VGPR indexing; for f32, denormals kept), else exec_valu_bound's path; then the
 * operands, read without sorting out their kinds again, and one straight loop. */
static AVX INL int run32(struct isa_wave *w, const struct isa_inst *in, const int op,
                         const bool f32, const int kind)
{
  if ((w->gpr_idx >> 31) || (f32 && !(w->mode >> 4 & 3)))
    return exec_valu_bound(w, in);
  const uint32_t *a, *b = no_lanes, *c = no_lanes;
  uint32_t ka, kb = 0, kc = 0;
  uint32_t *d = wave_vreg(w, in->dst);
  uint64_t sel = 0;
  a = operand(w, in, 0, kind & 1, &ka);
  if (op == S_FMAMK_F32) {   /* src0 * K + src1 */
    kb = in->literal;
    c = operand(w, in, 1, kind & 4, &kc);
  } else if (arity(op) >= 2) {
    b = operand(w, in, 1, kind & 2, &kb);
  }
  if (op == S_FMAC_F32)
    c = d;
  else if (op == S_FMAAK_F32)   /* src0 * src1 + K */
    kc = in->literal;
  else if (op == S_CNDMASK)
    sel = in->enc == ENC_VOP3 ? wave_scalar_src(w, in, in->src[2], 2) : wave_sreg64(w, OPD_VCC);
  else if (op != S_FMAMK_F32 && arity(op) == 3)
    c = operand(w, in, 2, kind & 4, &kc);
  uint64_t exec = wave_exec(w);
  if (exec == ~0ull)
    lanes32(op, d, a, b, c, ka, kb, kc, exec, sel, kind, true);
  else if (exec && !(exec & (exec - 1)))
    lane1_32(op, d, a, b, c, ka, kb, kc, (unsigned)__builtin_ctzll(exec), sel, kind);
  else if (exec && !(exec & (exec + 1)))
    lanes32_first(op, d, a, b, c, ka, kb, kc, (unsigned)__builtin_popcountll(exec), sel, kind);
  else
    lanes32(op, d, a, b, c, ka, kb, kc, exec, sel, kind, false);
  return 0;
}

/* simd_NAME[kind]: the handlers of one operation, one per operand kind. */
#define H32K(NAME, OP, F32, K)                                                                static AVX int simd_##NAME##_##K(struct isa_wave *w, const struct isa_inst *in)             {                                                                                             return run32(w, in, OP, F32, K);                                                          }
#define H32(NAME, OP, F32)                                                                    H32K(NAME, OP, F32, 0) H32K(NAME, OP, F32, 1) H32K(NAME, OP, F32, 2)                        H32K(NAME, OP, F32, 3) H32K(NAME, OP, F32, 4) H32K(NAME, OP, F32, 5)                        H32K(NAME, OP, F32, 6) H32K(NAME, OP, F32, 7)                                               static const valu_exec_fn simd_##NAME[8] = {                                                  simd_##NAME##_0, simd_##NAME##_1, simd_##NAME##_2, simd_##NAME##_3,                         simd_##NAME##_4, simd_##NAME##_5, simd_##NAME##_6, simd_##NAME##_7};
H32(mov, S_MOV, false)
H32(add, S_ADD, false)
H32(sub, S_SUB, false)
H32(subrev, S_SUBREV, false)
H32(and, S_AND, false)
H32(or, S_OR, false)
H32(xor, S_XOR, false)
H32(lshlrev, S_LSHLREV, false)
H32(lshrrev, S_LSHRREV, false)
H32(ashrrev, S_ASHRREV, false)
H32(mul_lo, S_MUL_LO, false)
H32(mul_u24, S_MUL_U24, false)
H32(max_i32, S_MAX_I32, false)
H32(min_i32, S_MIN_I32, false)
H32(max_u32, S_MAX_U32, false)
H32(min_u32, S_MIN_U32, false)
H32(add3, S_ADD3, false)
H32(lshl_add, S_LSHL_ADD, false)
H32(add_lshl, S_ADD_LSHL, false)
H32(lshl_or, S_LSHL_OR, false)
H32(and_or, S_AND_OR, false)
H32(or3, S_OR3, false)
H32(xad, S_XAD, false)
H32(bfi, S_BFI, false)
H32(cndmask, S_CNDMASK, false)
H32(add_f32, S_ADD_F32, true)
H32(sub_f32, S_SUB_F32, true)
H32(subrev_f32, S_SUBREV_F32, true)
H32(mul_f32, S_MUL_F32, true)
H32(fma_f32, S_FMA_F32, true)
H32(fmac_f32, S_FMAC_F32, true)
H32(fmamk_f32, S_FMAMK_F32, true)
H32(fmaak_f32, S_FMAAK_F32, true)
H32(cvt_f32_i32, S_CVT_F32_I32, true)
#undef H32
#undef H32K

/* The handler of a FAST_INT / FAST_F32 / FAST_CNDMASK instruction without source modifiers,
 * or NULL. */
static valu_exec_fn lanes_handler(const struct isa_inst *in)
{
  const valu_exec_fn *h;
  int op;
  switch (in->op) {
  case OP_V_MOV_B32: h = simd_mov; op = S_MOV; break;
  case OP_V_ADD_U32: case OP_V_ADD_I32: h = simd_add; op = S_ADD; break;
  case OP_V_SUB_U32: case OP_V_SUB_I32: h = simd_sub; op = S_SUB; break;
  case OP_V_SUBREV_U32: h = simd_subrev; op = S_SUBREV; break;
  case OP_V_AND_B32: h = simd_and; op = S_AND; break;
  case OP_V_OR_B32: h = simd_or; op = S_OR; break;
  case OP_V_XOR_B32: h = simd_xor; op = S_XOR; break;
  case OP_V_LSHLREV_B32: h = simd_lshlrev; op = S_LSHLREV; break;
  case OP_V_LSHRREV_B32: h = simd_lshrrev; op = S_LSHRREV; break;
  case OP_V_ASHRREV_I32: h = simd_ashrrev; op = S_ASHRREV; break;
  case OP_V_MUL_LO_U32: h = simd_mul_lo; op = S_MUL_LO; break;
  case OP_V_MUL_U32_U24: h = simd_mul_u24; op = S_MUL_U24; break;
  case OP_V_MAX_I32: h = simd_max_i32; op = S_MAX_I32; break;
  case OP_V_MIN_I32: h = simd_min_i32; op = S_MIN_I32; break;
  case OP_V_MAX_U32: h = simd_max_u32; op = S_MAX_U32; break;
  case OP_V_MIN_U32: h = simd_min_u32; op = S_MIN_U32; break;
  case OP_V_ADD3_U32: h = simd_add3; op = S_ADD3; break;
  case OP_V_LSHL_ADD_U32: h = simd_lshl_add; op = S_LSHL_ADD; break;
  case OP_V_ADD_LSHL_U32: h = simd_add_lshl; op = S_ADD_LSHL; break;
  case OP_V_LSHL_OR_B32: h = simd_lshl_or; op = S_LSHL_OR; break;
  case OP_V_AND_OR_B32: h = simd_and_or; op = S_AND_OR; break;
  case OP_V_OR3_B32: h = simd_or3; op = S_OR3; break;
  case OP_V_XAD_U32: h = simd_xad; op = S_XAD; break;
  case OP_V_BFI_B32: h = simd_bfi; op = S_BFI; break;
  case OP_V_CNDMASK_B32: h = simd_cndmask; op = S_CNDMASK; break;
  case OP_V_ADD_F32: h = simd_add_f32; op = S_ADD_F32; break;
  case OP_V_SUB_F32: h = simd_sub_f32; op = S_SUB_F32; break;
  case OP_V_SUBREV_F32: h = simd_subrev_f32; op = S_SUBREV_F32; break;
  case OP_V_MUL_F32: h = simd_mul_f32; op = S_MUL_F32; break;
  case OP_V_FMA_F32: h = simd_fma_f32; op = S_FMA_F32; break;
  case OP_V_FMAC_F32: h = simd_fmac_f32; op = S_FMAC_F32; break;
  case OP_V_FMAMK_F32: h = simd_fmamk_f32; op = S_FMAMK_F32; break;
  case OP_V_FMAAK_F32: h = simd_fmaak_f32; op = S_FMAAK_F32; break;
  case OP_V_CVT_F32_I32: h = simd_cvt_f32_i32; op = S_CVT_F32_I32; break;
  default: return NULL;
  }
  /* every operand the operation reads must be there (a VGPR or a scalar code) */
  int n = op == S_FMAMK_F32 || op == S_FMAAK_F32 || op == S_FMAC_F32 || op == S_CNDMASK
              ? 2 : arity(op);
  for (int i = 0; i < n; i++)
    if (in->src[i] == OPD_NONE)
      return NULL;
  return h[kind_of(in, op)];
}

/* ---- carry-out adds and subtracts ---- */

static AVX INL unsigned bits8(__m256i m)
{
  return (unsigned)_mm256_movemask_ps(ps(m));
}

enum carry_kind { C_ADD, C_SUB, C_SUBREV };

/* v_add_co/v_sub_co/v_subrev_co_u32 and their carry-in forms (cin: the carry-in mask, 0 for
 * the plain forms): the sum or difference of the lanes into d under EXEC, and the carry or
 * borrow of every lane (exec_valu.c keeps those of the active lanes). a - b - c borrows when
 * b + c > a: when b > a, or b == a with a carry in. Operands as lanes32's (`vk`: which are
 * VGPRs, a constant of the caller). */
static AVX INL uint64_t carry_lanes(const int kind, uint32_t *d, const uint32_t *pa,
                                    const uint32_t *pb, uint32_t ka, uint32_t kb, uint64_t cin,
                                    uint64_t exec, const int vk, const bool with_cin,
                                    const bool full)
{
  const __m256i k0 = _mm256_set1_epi32((int)ka), k1 = _mm256_set1_epi32((int)kb);
  uint64_t out = 0;
#pragma GCC unroll 8
  for (unsigned l = 0; l < WAVE_SIZE; l += 8) {
    __m256i a = vk & 1 ? load8(pa, l) : k0, b = vk & 2 ? load8(pb, l) : k1;
    if (kind == C_SUBREV) {
      __m256i t = a;
      a = b;
      b = t;
    }
    /* c: -1 in the lanes with a carry in */
    __m256i c = with_cin ? lane_mask8(cin, l) : _mm256_setzero_si256(), r, nc;
    /* nc: the lanes without a carry out (x >= y unsigned: max(x, y) == x), inverted once at
     * the end */
    if (kind == C_ADD) {
      __m256i s = _mm256_add_epi32(a, b);
      r = _mm256_sub_epi32(s, c);
      nc = _mm256_cmpeq_epi32(_mm256_max_epu32(s, a), s);
      if (with_cin)
        nc = _mm256_and_si256(nc, _mm256_cmpeq_epi32(_mm256_max_epu32(r, s), r));
    } else {
      r = _mm256_add_epi32(_mm256_sub_epi32(a, b), c);
      nc = _mm256_cmpeq_epi32(_mm256_max_epu32(a, b), a);
      if (with_cin)
        nc = _mm256_andnot_si256(_mm256_and_si256(_mm256_cmpeq_epi32(a, b), c), nc);
    }
    store8(d, l, r, exec, full);
    out |= (uint64_t)bits8(nc) << l;
  }
  return ~out;
}

/* The carry goes to VCC (VOP2) or the SGPR pair sdst (VOP3); the carry-in forms read theirs
 * from VCC or src2. `vk`: which of src0 and src1 are VGPRs (decided at bind time). */
static AVX INL int run_carry(struct isa_wave *w, const struct isa_inst *in, const int kind,
                             const bool with_cin, const int vk)
{
  if (w->gpr_idx >> 31)
    return exec_valu_bound(w, in);
  bool e64 = in->enc == ENC_VOP3;
  uint32_t ka, kb;
  const uint32_t *pa = operand(w, in, 0, vk & 1, &ka), *pb = operand(w, in, 1, vk & 2, &kb);
  uint64_t cin = 0, exec = wave_exec(w), co;
  if (with_cin)
    cin = e64 ? wave_scalar_src(w, in, in->src[2], 2) : wave_sreg64(w, OPD_VCC);
  uint32_t *d = wave_vreg(w, in->dst);
  if (exec == ~0ull)
    co = carry_lanes(kind, d, pa, pb, ka, kb, cin, exec, vk, with_cin, true);
  else
    co = carry_lanes(kind, d, pa, pb, ka, kb, cin, exec, vk, with_cin, false);
  wave_set_sreg64(w, e64 ? in->sdst : OPD_VCC, co & exec);
  return 0;
}

#define HCARRYK(NAME, KIND, CIN, VK)                                                          static AVX int simd_##NAME##_##VK(struct isa_wave *w, const struct isa_inst *in)            {                                                                                             return run_carry(w, in, KIND, CIN, VK);                                                   }
#define HCARRY(NAME, KIND, CIN)                                                               HCARRYK(NAME, KIND, CIN, 0) HCARRYK(NAME, KIND, CIN, 1) HCARRYK(NAME, KIND, CIN, 2)         HCARRYK(NAME, KIND, CIN, 3)                                                                 static const valu_exec_fn simd_##NAME[4] = {simd_##NAME##_0, simd_##NAME##_1,                                                           simd_##NAME##_2, simd_##NAME##_3};
HCARRY(add_co, C_ADD, false)
HCARRY(addc_co, C_ADD, true)
HCARRY(sub_co, C_SUB, false)
HCARRY(subb_co, C_SUB, true)
HCARRY(subrev_co, C_SUBREV, false)
HCARRY(subbrev_co, C_SUBREV, true)
#undef HCARRY
#undef HCARRYK

/* ---- v_add_co_u32 then v_addc_co_u32 (valu_pair.h) ----
 *
 * Per eight lanes: the first's sum and carries, its stores, then the second's sources (read
 * after those stores, so a source that is the first's destination has its new value in the
 * active lanes) with the first's carries as its carry-in. The operations are lane-wise, so
 * step after step this is the first on all lanes and then the second. The carry-in of an
 * inactive lane differs from X's (0 there) but only its unstored result sees it. `vk`: bits
 * 0-1 the first's src0/src1 are VGPRs, bits 2-3 the second's. */
static AVX INL uint64_t add64_pair_lanes(uint32_t *dlo, uint32_t *dhi, const uint32_t *pa,
                                         const uint32_t *pb, const uint32_t *pc,
                                         const uint32_t *pd, const uint32_t k[4],
                                         uint64_t exec, const int vk, const bool full,
                                         uint64_t *carry1)
{
  const __m256i ka = _mm256_set1_epi32((int)k[0]), kb = _mm256_set1_epi32((int)k[1]),
                kc = _mm256_set1_epi32((int)k[2]), kd = _mm256_set1_epi32((int)k[3]);
  uint64_t out1 = 0, out2 = 0;
#pragma GCC unroll 8
  for (unsigned l = 0; l < WAVE_SIZE; l += 8) {
    __m256i a = vk & 1 ? load8(pa, l) : ka, b = vk & 2 ? load8(pb, l) : kb;
    __m256i s = _mm256_add_epi32(a, b);
    __m256i nc1 = _mm256_cmpeq_epi32(_mm256_max_epu32(s, a), s);   /* no carry out */
    store8(dlo, l, s, exec, full);
    __m256i c = vk & 4 ? load8(pc, l) : kc, d = vk & 8 ? load8(pd, l) : kd;
    __m256i t = _mm256_add_epi32(c, d);
    /* + 1 where the first carried: - (-1), the carry mask being the inverse of nc1 */
    __m256i r = _mm256_sub_epi32(t, _mm256_xor_si256(nc1, _mm256_set1_epi32(-1)));
    __m256i nc2 = _mm256_and_si256(_mm256_cmpeq_epi32(_mm256_max_epu32(t, c), t),
                                   _mm256_cmpeq_epi32(_mm256_max_epu32(r, t), r));
    store8(dhi, l, r, exec, full);
    out1 |= (uint64_t)bits8(nc1) << l;
    out2 |= (uint64_t)bits8(nc2) << l;
  }
  *carry1 = ~out1;
  return ~out2;
}

static AVX INL int run_add64_pair(struct isa_wave *w, const struct isa_inst *in, const int vk)
{
  const struct isa_inst *in2 = in->pair;
  if (w->gpr_idx >> 31) {   /* VGPR indexing: each on its own path */
    int r = exec_valu_bound(w, in);
    return r ? r : exec_valu_bound(w, in2);
  }
  uint32_t k[4];
  /* the second's scalar sources are not the first's carry pair (valu_pair_bind), so reading
   * them now reads what the second would */
  const uint32_t *pa = operand(w, in, 0, vk & 1, &k[0]), *pb = operand(w, in, 1, vk & 2, &k[1]);
  const uint32_t *pc = operand(w, in2, 0, vk & 4, &k[2]), *pd = operand(w, in2, 1, vk & 8, &k[3]);
  uint32_t *dlo = wave_vreg(w, in->dst), *dhi = wave_vreg(w, in2->dst);
  uint64_t exec = wave_exec(w), c1, c2;
  if (exec == ~0ull)
    c2 = add64_pair_lanes(dlo, dhi, pa, pb, pc, pd, k, exec, vk, true, &c1);
  else
    c2 = add64_pair_lanes(dlo, dhi, pa, pb, pc, pd, k, exec, vk, false, &c1);
  /* the first's carries, then the second's (which may go to the same pair) */
  wave_set_sreg64(w, in->enc == ENC_VOP3 ? in->sdst : OPD_VCC, c1 & exec);
  wave_set_sreg64(w, in2->enc == ENC_VOP3 ? in2->sdst : OPD_VCC, c2 & exec);
  return 0;
}

#define HPAIR(VK)                                                                             \
  static AVX int simd_add64_pair_##VK(struct isa_wave *w, const struct isa_inst *in)          \
  {                                                                                           \
    return run_add64_pair(w, in, VK);                                                         \
  }
HPAIR(0) HPAIR(1) HPAIR(2) HPAIR(3) HPAIR(4) HPAIR(5) HPAIR(6) HPAIR(7)
HPAIR(8) HPAIR(9) HPAIR(10) HPAIR(11) HPAIR(12) HPAIR(13) HPAIR(14) HPAIR(15)
#undef HPAIR

/* Whether scalar source i of `in` reads a dword of the SGPR pair x. */
static bool reads_pair(const struct isa_inst *in, int i, unsigned x)
{
  return !is_vgpr(in, i) && (in->src[i] == x || in->src[i] == x + 1);
}

valu_exec_fn valu_pair_bind(const struct isa_inst *first, const struct isa_inst *second)
{
  static const valu_exec_fn pair[16] = {
      simd_add64_pair_0,  simd_add64_pair_1,  simd_add64_pair_2,  simd_add64_pair_3,
      simd_add64_pair_4,  simd_add64_pair_5,  simd_add64_pair_6,  simd_add64_pair_7,
      simd_add64_pair_8,  simd_add64_pair_9,  simd_add64_pair_10, simd_add64_pair_11,
      simd_add64_pair_12, simd_add64_pair_13, simd_add64_pair_14, simd_add64_pair_15};
  if (first->op != OP_V_ADD_CO_U32 || second->op != OP_V_ADDC_CO_U32)
    return NULL;
  int vk1 = is_vgpr(first, 0) | is_vgpr(first, 1) << 1;
  int vk2 = is_vgpr(second, 0) | is_vgpr(second, 1) << 1;
  /* both bound to their own handlers: the forms, sources and modifiers those take */
  if (first->exec != simd_add_co[vk1] || second->exec != simd_addc_co[vk2])
    return NULL;
  unsigned x = first->enc == ENC_VOP3 ? first->sdst : OPD_VCC;
  unsigned cin = second->enc == ENC_VOP3 ? second->src[2] : OPD_VCC;
  /* the carry goes through an SGPR pair that is not EXEC (which would change the second's
   * lanes) and that the second reads only as its carry-in */
  if (cin != x || x + 1 >= OPD_EXEC || reads_pair(second, 0, x) || reads_pair(second, 1, x))
    return NULL;
  return pair[vk1 | vk2 << 2];
}

int valu_pair_second(struct isa_wave *w, const struct isa_inst *in)
{
  (void)w;
  (void)in;
  return 0;
}

static valu_exec_fn carry_handler(const struct isa_inst *in)
{
  if (in->src[0] == OPD_NONE || in->src[1] == OPD_NONE)
    return NULL;
  int vk = is_vgpr(in, 0) | is_vgpr(in, 1) << 1;
  switch (in->op) {
  case OP_V_ADD_CO_U32: return simd_add_co[vk];
  case OP_V_ADDC_CO_U32: return simd_addc_co[vk];
  case OP_V_SUB_CO_U32: return simd_sub_co[vk];
  case OP_V_SUBB_CO_U32: return simd_subb_co[vk];
  case OP_V_SUBREV_CO_U32: return simd_subrev_co[vk];
  case OP_V_SUBBREV_CO_U32: return simd_subbrev_co[vk];
  default: return NULL;
  }
}

/* ---- compares of 32-bit integers and f32 ---- */

/* Predicate numbers as valu_cmp_lookup gives them. Integer: 1 lt, 2 eq, 3 le, 4 gt, 5 ne,
 * 6 ge. Each is computed as a base compare (gt or eq, operands possibly swapped) whose bits
 * are inverted for le, ne and ge. */
static AVX INL __m256i icmp8(const int pred, const bool sign, __m256i a, __m256i b)
{
  const __m256i flip = _mm256_set1_epi32(INT32_MIN);
  if (!sign && pred != 2 && pred != 5) {   /* unsigned order as signed order of x ^ 2^31 */
    a = _mm256_xor_si256(a, flip);
    b = _mm256_xor_si256(b, flip);
  }
  switch (pred) {
  case 1: case 6: return _mm256_cmpgt_epi32(b, a);   /* lt; ge inverted */
  case 2: case 5: return _mm256_cmpeq_epi32(a, b);   /* eq; ne inverted */
  default: return _mm256_cmpgt_epi32(a, b);          /* gt; le inverted */
  }
}

/* f32 predicates 1..14 (lt eq le gt lg ge o u nge nlg ngt nle neq nlt) as _mm256_cmp_ps
 * predicates: ordered and quiet for the first seven (false on a NaN), unordered for the
 * negated ones (true on a NaN); neither raises anything the host traps. */
static AVX INL __m256i fcmp8(const int pred, __m256i a, __m256i b)
{
  __m256 x = ps(a), y = ps(b);
  switch (pred) {
  case 1: return si(_mm256_cmp_ps(x, y, _CMP_LT_OQ));
  case 2: return si(_mm256_cmp_ps(x, y, _CMP_EQ_OQ));
  case 3: return si(_mm256_cmp_ps(x, y, _CMP_LE_OQ));
  case 4: return si(_mm256_cmp_ps(x, y, _CMP_GT_OQ));
  case 5: return si(_mm256_cmp_ps(x, y, _CMP_NEQ_OQ));
  case 6: return si(_mm256_cmp_ps(x, y, _CMP_GE_OQ));
  case 7: return si(_mm256_cmp_ps(x, y, _CMP_ORD_Q));
  case 8: return si(_mm256_cmp_ps(x, y, _CMP_UNORD_Q));
  case 9: return si(_mm256_cmp_ps(x, y, _CMP_NGE_UQ));
  case 10: return si(_mm256_cmp_ps(x, y, _CMP_EQ_UQ));
  case 11: return si(_mm256_cmp_ps(x, y, _CMP_NGT_UQ));
  case 12: return si(_mm256_cmp_ps(x, y, _CMP_NLE_UQ));
  case 13: return si(_mm256_cmp_ps(x, y, _CMP_NEQ_UQ));
  default: return si(_mm256_cmp_ps(x, y, _CMP_NLT_UQ));
  }
}

/* The lane mask of 64 lanes' compare results (all ones or zero per lane, eight lanes a
 * vector): packed to bytes with saturation (all ones stays all ones) and one byte movemask per
 * 32 lanes, where a movemask per eight lanes took a shift and an or each to place. The packs
 * work within 128-bit halves, so the bytes come out as dwords of four lanes in the order
 * (0 4 1 5 2 6 3 7) of c[0..3]'s quarters; one dword permute puts them back in lane order. */
static AVX INL uint64_t mask64(const __m256i c[8])
{
  const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
  __m256i lo = _mm256_packs_epi16(_mm256_packs_epi32(c[0], c[1]), _mm256_packs_epi32(c[2], c[3]));
  __m256i hi = _mm256_packs_epi16(_mm256_packs_epi32(c[4], c[5]), _mm256_packs_epi32(c[6], c[7]));
  lo = _mm256_permutevar8x32_epi32(lo, order);
  hi = _mm256_permutevar8x32_epi32(hi, order);
  return (uint64_t)(uint32_t)_mm256_movemask_epi8(lo) |
         (uint64_t)(uint32_t)_mm256_movemask_epi8(hi) << 32;
}

/* The 64 result bits of a compare, operands as lanes32's (vk: which are VGPRs). */
static AVX INL uint64_t cmp_lanes(const int pred, const int type, const uint32_t *const p[2],
                                  const uint32_t k[2], const int vk)
{
  const __m256i k0 = _mm256_set1_epi32((int)k[0]), k1 = _mm256_set1_epi32((int)k[1]);
  __m256i t[8];
#pragma GCC unroll 8
  for (unsigned l = 0; l < WAVE_SIZE; l += 8) {
    __m256i a = vk & 1 ? load8(p[0], l) : k0, b = vk & 2 ? load8(p[1], l) : k1;
    t[l / 8] = type == CT_F32 ? fcmp8(pred, a, b) : icmp8(pred, type == CT_I32, a, b);
  }
  uint64_t out = mask64(t);
  if (type != CT_F32 && (pred == 3 || pred == 5 || pred == 6))
    out = ~out;
  return out;
}

/* One active lane's compare (a loop that one lane runs): its operands broadcast through the
 * same compare as cmp_lanes, so the same answer; 1 or 0. */
static AVX INL uint64_t cmp_lane1(const int pred, const int type, uint32_t a, uint32_t b)
{
  __m256i x = _mm256_set1_epi32((int)a), y = _mm256_set1_epi32((int)b);
  __m256i t = type == CT_F32 ? fcmp8(pred, x, y) : icmp8(pred, type == CT_I32, x, y);
  uint64_t bit = bits8(t) & 1;
  if (type != CT_F32 && (pred == 3 || pred == 5 || pred == 6))
    bit ^= 1;
  return bit;
}

/* As exec_valu_fast.c's compare(): the result under EXEC to VCC (VOPC) or the VOP3
 * destination, and to EXEC for v_cmpx. */
static AVX INL int run_cmp(struct isa_wave *w, const struct isa_inst *in, const int pred,
                           const int type, const bool x)
{
  if ((w->gpr_idx >> 31) || (type == CT_F32 && !(w->mode >> 4 & 3)))
    return exec_valu_bound(w, in);
  const uint32_t *p[2];
  uint32_t k[2];
  p[0] = src32(w, in, 0, &k[0]);
  p[1] = src32(w, in, 1, &k[1]);
  uint64_t res, exec = wave_exec(w);
  const uint32_t *q[2] = {p[0] ? p[0] : no_lanes, p[1] ? p[1] : no_lanes};
  if (exec && !(exec & (exec - 1))) {
    unsigned l = (unsigned)__builtin_ctzll(exec);
    res = cmp_lane1(pred, type, p[0] ? p[0][l] : k[0], p[1] ? p[1][l] : k[1]) << l;
  } else {
    switch ((p[0] != NULL) | (p[1] != NULL) << 1) {
    case 0: res = cmp_lanes(pred, type, q, k, 0); break;
    case 1: res = cmp_lanes(pred, type, q, k, 1); break;
    case 2: res = cmp_lanes(pred, type, q, k, 2); break;
    default: res = cmp_lanes(pred, type, q, k, 3); break;
    }
  }
  res &= exec;
  wave_set_sreg64(w, in->enc == ENC_VOP3 ? in->dst : OPD_VCC, res);
  if (x)
    wave_set_exec(w, res);
  return 0;
}

/* An integer compare bound per operand kind (vk: bit i set when source i is a VGPR, decided
 * at bind time; at least one is). The common loop forms (`v_cmp_gt_u32 vcc, s4, v0`: a bound
 * in an SGPR or constant against the lane id) read the scalar in place and broadcast it once;
 * no sorting out of the operands per execution, EXEC read once. The same compares and lane
 * masks as run_cmp. */
static AVX INL int run_icmp(struct isa_wave *w, const struct isa_inst *in, const int pred,
                            const int type, const bool x, const int vk)
{
  if (w->gpr_idx >> 31)
    return exec_valu_bound(w, in);
  const uint32_t *p[2];
  uint32_t k[2];
  p[0] = operand(w, in, 0, vk & 1, &k[0]);
  p[1] = operand(w, in, 1, vk & 2, &k[1]);
  uint64_t res, exec = wave_exec(w);
  if (exec && !(exec & (exec - 1))) {
    unsigned l = (unsigned)__builtin_ctzll(exec);
    res = cmp_lane1(pred, type, vk & 1 ? p[0][l] : k[0], vk & 2 ? p[1][l] : k[1]) << l;
  } else {
    res = cmp_lanes(pred, type, p, k, vk) & exec;
  }
  wave_set_sreg64(w, in->enc == ENC_VOP3 ? in->dst : OPD_VCC, res);
  if (x)
    wave_set_exec(w, res);
  return 0;
}

#define HICMP(P, T, X, VK)                                                                  \
  static AVX int simd_icmp_##P##_##T##_##X##_##VK(struct isa_wave *w,                       \
                                                  const struct isa_inst *in)                \
  {                                                                                         \
    return run_icmp(w, in, P, T, X, VK);                                                    \
  }
#define HICMP_K(P, T, X) HICMP(P, T, X, 1) HICMP(P, T, X, 2) HICMP(P, T, X, 3)
#define HICMP_P(P) HICMP_K(P, CT_I32, 0) HICMP_K(P, CT_I32, 1) HICMP_K(P, CT_U32, 0)         \
  HICMP_K(P, CT_U32, 1)
HICMP_P(1) HICMP_P(2) HICMP_P(3) HICMP_P(4) HICMP_P(5) HICMP_P(6)
#undef HICMP_P
#undef HICMP_K
#undef HICMP

#define HCMP(P, T, X)                                                                       \
  static AVX int simd_cmp_##P##_##T##_##X(struct isa_wave *w, const struct isa_inst *in)    \
  {                                                                                         \
    return run_cmp(w, in, P, T, X);                                                         \
  }
#define HCMP_INT(P) HCMP(P, CT_I32, 0) HCMP(P, CT_I32, 1) HCMP(P, CT_U32, 0) HCMP(P, CT_U32, 1)
#define HCMP_F32(P) HCMP(P, CT_F32, 0) HCMP(P, CT_F32, 1)
HCMP_INT(1) HCMP_INT(2) HCMP_INT(3) HCMP_INT(4) HCMP_INT(5) HCMP_INT(6)
HCMP_F32(1) HCMP_F32(2) HCMP_F32(3) HCMP_F32(4) HCMP_F32(5) HCMP_F32(6) HCMP_F32(7)
HCMP_F32(8) HCMP_F32(9) HCMP_F32(10) HCMP_F32(11) HCMP_F32(12) HCMP_F32(13) HCMP_F32(14)
#undef HCMP_F32
#undef HCMP_INT
#undef HCMP

#define ROW_INT(T, X)                                                                       \
  {NULL, simd_cmp_1_##T##_##X, simd_cmp_2_##T##_##X, simd_cmp_3_##T##_##X,                   \
   simd_cmp_4_##T##_##X, simd_cmp_5_##T##_##X, simd_cmp_6_##T##_##X}
#define ROW_F32(X)                                                                          \
  {NULL, simd_cmp_1_CT_F32_##X, simd_cmp_2_CT_F32_##X, simd_cmp_3_CT_F32_##X,              \
   simd_cmp_4_CT_F32_##X, simd_cmp_5_CT_F32_##X, simd_cmp_6_CT_F32_##X,                    \
   simd_cmp_7_CT_F32_##X, simd_cmp_8_CT_F32_##X, simd_cmp_9_CT_F32_##X,                    \
   simd_cmp_10_CT_F32_##X, simd_cmp_11_CT_F32_##X, simd_cmp_12_CT_F32_##X,                 \
   simd_cmp_13_CT_F32_##X, simd_cmp_14_CT_F32_##X}
/* [type: i32, u32, f32][v_cmpx][predicate] */
static const valu_exec_fn cmp_handlers[3][2][15] = {
  {ROW_INT(CT_I32, 0), ROW_INT(CT_I32, 1)},
  {ROW_INT(CT_U32, 0), ROW_INT(CT_U32, 1)},
  {ROW_F32(0), ROW_F32(1)},
};
#undef ROW_F32
#undef ROW_INT

/* [u32][v_cmpx][predicate][vk - 1]: the integer compares with a VGPR source */
#define KINDS(P, T, X)                                                                      \
  {simd_icmp_##P##_##T##_##X##_1, simd_icmp_##P##_##T##_##X##_2,                             \
   simd_icmp_##P##_##T##_##X##_3}
#define ROW_K(T, X)                                                                         \
  {{NULL, NULL, NULL}, KINDS(1, T, X), KINDS(2, T, X), KINDS(3, T, X), KINDS(4, T, X),      \
   KINDS(5, T, X), KINDS(6, T, X)}
static const valu_exec_fn icmp_handlers[2][2][7][3] = {
  {ROW_K(CT_I32, 0), ROW_K(CT_I32, 1)},
  {ROW_K(CT_U32, 0), ROW_K(CT_U32, 1)},
};
#undef ROW_K
#undef KINDS

/* The compare handler of a FAST_CMP instruction without source modifiers, or NULL. */
static valu_exec_fn cmp_handler(const struct isa_inst *in)
{
  unsigned type, pred;
  bool x;
  if (!valu_cmp_lookup(in->op, &type, &pred, &x) || in->src_w[0] > 1 || in->src_w[1] > 1 ||
      in->nsrc < 2 || in->src[0] == OPD_NONE || in->src[1] == OPD_NONE)
    return NULL;
  if (type == CT_I64 || type == CT_U64)
    return NULL;   /* cmp64_handler's */
  int t = type == CT_I32 ? 0 : type == CT_U32 ? 1 : type == CT_F32 ? 2 : -1;
  if (t < 0 || pred < 1 || pred > (t == 2 ? 14u : 6u))
    return NULL;
  int vk = is_vgpr(in, 0) | is_vgpr(in, 1) << 1;
  if (t < 2 && vk)
    return icmp_handlers[t][x][pred][vk - 1];
  return cmp_handlers[t][x][pred];
}

/* ---- v_pk_mov_b32 ---- */

/* A 64-bit source of v_pk_mov_b32: a VGPR pair (lo, hi), or the value exec_valu.c's fetch
 * gives a scalar operand (k). Inline float constants read as f32 values there, not as the f64
 * constants a 64-bit fetch gives: those instructions keep the general path. */
static INL bool pair_src(struct isa_wave *w, const struct isa_inst *in, int i,
                         const uint32_t **lo, const uint32_t **hi, uint64_t *k)
{
  unsigned code = in->src[i];
  *lo = *hi = NULL;
  *k = 0;
  if (code == OPD_NONE || (code >= 240 && code <= 248))
    return false;
  if (code >= OPD_VGPR) {
    *lo = wave_vreg(w, code);
    *hi = wave_vreg(w, code + 1);
    return true;
  }
  *k = wave_scalar_src(w, in, code, 2);
  return true;
}

/* d.lo = op_sel[0] ? src0.hi : src0.lo, d.hi = op_sel[1] ? src1.hi : src1.lo (the bits
 * unchanged; op_sel_hi and neg do not apply). Both halves of a step are read before either is
 * stored, so the destination pair may overlap a source pair by one register (or be one);
 * with a partial EXEC both halves are masked stores. */
static AVX INL void pk_mov_lanes(uint32_t *dlo, uint32_t *dhi, const uint32_t *x,
                                 const uint32_t *y, __m256i kx, __m256i ky, uint64_t exec,
                                 const int vk, const bool full)
{
#pragma GCC unroll 8
  for (unsigned l = 0; l < WAVE_SIZE; l += 8) {
    __m256i a = vk & 1 ? load8(x, l) : kx, b = vk & 2 ? load8(y, l) : ky;
    store8(dlo, l, a, exec, full);
    store8(dhi, l, b, exec, full);
  }
}

static AVX int simd_pk_mov(struct isa_wave *w, const struct isa_inst *in)
{
  const uint32_t *lo0, *hi0, *lo1, *hi1;
  uint64_t k0, k1;
  if ((w->gpr_idx >> 31) || !pair_src(w, in, 0, &lo0, &hi0, &k0) ||
      !pair_src(w, in, 1, &lo1, &hi1, &k1))
    return exec_valu_general(w, in);
  const uint32_t *x = in->opsel & 1 ? hi0 : lo0, *y = in->opsel & 2 ? hi1 : lo1;
  __m256i kx = _mm256_set1_epi32((int)(uint32_t)(in->opsel & 1 ? k0 >> 32 : k0));
  __m256i ky = _mm256_set1_epi32((int)(uint32_t)(in->opsel & 2 ? k1 >> 32 : k1));
  uint32_t *dlo = wave_vreg(w, in->dst), *dhi = wave_vreg(w, in->dst + 1);
  uint64_t exec = wave_exec(w);
  int vk = (x != NULL) | (y != NULL) << 1;
  bool full = exec == ~0ull;
  x = x ? x : no_lanes;
  y = y ? y : no_lanes;
  switch (vk * 2 + full) {
  case 0: pk_mov_lanes(dlo, dhi, x, y, kx, ky, exec, 0, false); break;
  case 1: pk_mov_lanes(dlo, dhi, x, y, kx, ky, exec, 0, true); break;
  case 2: pk_mov_lanes(dlo, dhi, x, y, kx, ky, exec, 1, false); break;
  case 3: pk_mov_lanes(dlo, dhi, x, y, kx, ky, exec, 1, true); break;
  case 4: pk_mov_lanes(dlo, dhi, x, y, kx, ky, exec, 2, false); break;
  case 5: pk_mov_lanes(dlo, dhi, x, y, kx, ky, exec, 2, true); break;
  case 6: pk_mov_lanes(dlo, dhi, x, y, kx, ky, exec, 3, false); break;
  default: pk_mov_lanes(dlo, dhi, x, y, kx, ky, exec, 3, true); break;
  }
  return 0;
}

/* ---- 64-bit shifts and adds on register pairs (address arithmetic) ---- */

/* A 64-bit operand of a bound handler: a VGPR pair (lo, hi) when `vgpr`, else the scalar's
 * 64 bits (as exec_valu_fast.c's pair_source reads them) broadcast, lo and hi no_lanes. */
struct pair {
  const uint32_t *lo, *hi;
  uint64_t k;
};

static INL struct pair pair_operand(struct isa_wave *w, const struct isa_inst *in, int i,
                                    const bool vgpr)
{
  if (vgpr)
    return (struct pair){wave_vreg(w, in->src[i]), wave_vreg(w, in->src[i] + 1), 0};
  unsigned code = in->src[i];
  if (code < 127)   /* an SGPR pair (or VCC, EXEC...) read in place */
    return (struct pair){no_lanes, no_lanes, (uint64_t)w->s[code] | (uint64_t)w->s[code + 1] << 32};
  return (struct pair){no_lanes, no_lanes, wave_scalar_src(w, in, code, 2)};
}

/* Lanes l..l+7 of a pair operand as low and high dwords. */
static AVX INL void pair_load8(const struct pair *p, unsigned l, __m256i klo, __m256i khi,
                               const bool vgpr, __m256i *lo, __m256i *hi)
{
  *lo = vgpr ? load8(p->lo, l) : klo;
  *hi = vgpr ? load8(p->hi, l) : khi;
}

/* (x << s) + y on 64 lanes of 64-bit values held as low and high dwords, s in 0..63, into the
 * pair (dlo, dhi). The high dword gathers xh << s, xl >> (32 - s) and xl << (s - 32): the
 * AVX2 shifts give 0 for a count above 31, and a negative count (as a 64-bit unsigned one) is
 * above 31, so each term is right or 0 for every s (`wide`: s may exceed 31, else the third
 * term is left out). y's low add carries into the high dword when the sum is below yl.
 * `kind`: bit 0 x is a pair of VGPRs, bit 1 y is (bit 2: there is a y at all), bit 3 s may
 * not be 0 (else no shifting). Each step reads its inputs before it stores, so the
 * destination may be, or overlap, a source pair. */
static AVX INL void shl_add64(uint32_t *dlo, uint32_t *dhi, const struct pair *x, unsigned s,
                              const struct pair *y, uint64_t exec, const int kind,
                              const bool wide, const bool full)
{
  const __m256i xkl = _mm256_set1_epi32((int)(uint32_t)x->k),
                xkh = _mm256_set1_epi32((int)(uint32_t)(x->k >> 32)),
                ykl = _mm256_set1_epi32((int)(uint32_t)y->k),
                ykh = _mm256_set1_epi32((int)(uint32_t)(y->k >> 32)),
                ones = _mm256_set1_epi32(-1);
  const __m128i cs = _mm_cvtsi64_si128((long long)s),
                cr = _mm_cvtsi64_si128((long long)(32 - (int64_t)s)),
                cw = _mm_cvtsi64_si128((long long)((int64_t)s - 32));
#pragma GCC unroll 8
  for (unsigned l = 0; l < WAVE_SIZE; l += 8) {
    __m256i xl, xh, yl, yh;
    pair_load8(x, l, xkl, xkh, kind & 1, &xl, &xh);
    if (kind & 8) {
      __m256i h = _mm256_or_si256(_mm256_sll_epi32(xh, cs), _mm256_srl_epi32(xl, cr));
      if (wide)
        h = _mm256_or_si256(h, _mm256_sll_epi32(xl, cw));
      xh = h;
      xl = _mm256_sll_epi32(xl, cs);
    }
    if (kind & 4) {
      pair_load8(y, l, ykl, ykh, kind & 2, &yl, &yh);
      __m256i rl = _mm256_add_epi32(xl, yl);
      __m256i nocarry = _mm256_cmpeq_epi32(_mm256_max_epu32(rl, yl), rl);
      xh = _mm256_sub_epi32(_mm256_add_epi32(_mm256_add_epi32(xh, yh), nocarry), ones);
      xl = rl;
    }
    store8(dlo, l, xl, exec, full);
    store8(dhi, l, xh, exec, full);
  }
}

/* v_lshl_add_u64 vD, x, s, y with a scalar s (an inline constant: the ISA takes its low 3
 * bits) and v_lshlrev_b64 vD, s, x with a scalar s (6 bits), bound per operand kind. */
static AVX INL int run_shl_add64(struct isa_wave *w, const struct isa_inst *in, const int kind)
{
  if (w->gpr_idx >> 31)
    return exec_valu_bound(w, in);
  bool add = kind & 4;
  struct pair x = pair_operand(w, in, add ? 0 : 1, kind & 1), y = {no_lanes, no_lanes, 0};
  unsigned s = 0;
  if (kind & 8)
    s = scalar_u32(w, in, in->src[add ? 1 : 0]) & (add ? 7u : 63u);
  if (add)
    y = pair_operand(w, in, 2, kind & 2);
  uint32_t *dlo = wave_vreg(w, in->dst), *dhi = wave_vreg(w, in->dst + 1);
  uint64_t exec = wave_exec(w);
  if (exec == ~0ull)
    shl_add64(dlo, dhi, &x, s, &y, exec, kind, !add, true);
  else
    shl_add64(dlo, dhi, &x, s, &y, exec, kind, !add, false);
  return 0;
}

#define H64(K)                                                                              \
  static AVX int simd_shl_add64_##K(struct isa_wave *w, const struct isa_inst *in)          \
  {                                                                                         \
    return run_shl_add64(w, in, K);                                                         \
  }
/* v_lshl_add_u64: kinds 4..7 (no shift) and 12..15; v_lshlrev_b64: 8 and 9 */
H64(4) H64(5) H64(6) H64(7) H64(8) H64(9) H64(12) H64(13) H64(14) H64(15)
#undef H64

static valu_exec_fn shift64_handler(const struct isa_inst *in)
{
  static const valu_exec_fn add[8] = {simd_shl_add64_4,  simd_shl_add64_5,  simd_shl_add64_6,
                                      simd_shl_add64_7,  simd_shl_add64_12, simd_shl_add64_13,
                                      simd_shl_add64_14, simd_shl_add64_15};
  if (in->op == OP_V_LSHL_ADD_U64 && in->src[1] < OPD_VGPR && in->src[0] != OPD_NONE &&
      in->src[2] != OPD_NONE)
    return add[is_vgpr(in, 0) | is_vgpr(in, 2) << 1 | (in->src[1] != 128) << 2];
  if (in->op == OP_V_LSHLREV_B64 && in->src[0] < OPD_VGPR && in->src[1] != OPD_NONE)
    return is_vgpr(in, 1) ? simd_shl_add64_9 : simd_shl_add64_8;
  return NULL;
}

/* ---- v_mad_u64_u32 / v_mad_i64_i32 ---- */

/* a * b + c on 64 lanes: a, b 32-bit (operands as lanes32's), c a 64-bit pair operand; the
 * 64-bit results into the pair (dlo, dhi) under EXEC, and the lanes whose sum overflowed
 * (unsigned: the sum below the product; signed: the sum's sign differs from both addends').
 * The products come four at a time from the even dwords (vpmuludq / vpmuldq), the odd lanes
 * shifted down first; the 64-bit lanes are put back together as dwords with blends. Inputs of
 * a step are read before its stores (the destination may overlap c). `vk`: bit 0 a, bit 1 b,
 * bit 2 c is a VGPR operand. */
static AVX INL uint64_t mad64_lanes(const bool sign, uint32_t *dlo, uint32_t *dhi,
                                    const uint32_t *pa, const uint32_t *pb, uint32_t ka,
                                    uint32_t kb, const struct pair *c, uint64_t exec,
                                    const int vk, const bool full)
{
  const __m256i kx = _mm256_set1_epi32((int)ka), ky = _mm256_set1_epi32((int)kb),
                kcl = _mm256_set1_epi32((int)(uint32_t)c->k),
                kch = _mm256_set1_epi32((int)(uint32_t)(c->k >> 32)),
                top = _mm256_set1_epi64x(INT64_MIN), zero = _mm256_setzero_si256();
  uint64_t out = 0;
#pragma GCC unroll 8
  for (unsigned l = 0; l < WAVE_SIZE; l += 8) {
    __m256i a = vk & 1 ? load8(pa, l) : kx, b = vk & 2 ? load8(pb, l) : ky, cl, ch;
    pair_load8(c, l, kcl, kch, vk & 4, &cl, &ch);
    __m256i ao = _mm256_srli_epi64(a, 32), bo = _mm256_srli_epi64(b, 32);
    __m256i pe = sign ? _mm256_mul_epi32(a, b) : _mm256_mul_epu32(a, b);
    __m256i po = sign ? _mm256_mul_epi32(ao, bo) : _mm256_mul_epu32(ao, bo);
    __m256i ce = _mm256_blend_epi32(cl, _mm256_slli_epi64(ch, 32), 0xaa);
    __m256i co = _mm256_blend_epi32(_mm256_srli_epi64(cl, 32), ch, 0xaa);
    __m256i se = _mm256_add_epi64(pe, ce), so = _mm256_add_epi64(po, co), ve, vo;
    if (sign) {   /* (p ^ s) & (c ^ s) has its sign bit set */
      ve = _mm256_cmpgt_epi64(zero, _mm256_and_si256(_mm256_xor_si256(pe, se),
                                                     _mm256_xor_si256(ce, se)));
      vo = _mm256_cmpgt_epi64(zero, _mm256_and_si256(_mm256_xor_si256(po, so),
                                                     _mm256_xor_si256(co, so)));
    } else {      /* s < p, unsigned: as signed after flipping the top bits */
      ve = _mm256_cmpgt_epi64(_mm256_xor_si256(pe, top), _mm256_xor_si256(se, top));
      vo = _mm256_cmpgt_epi64(_mm256_xor_si256(po, top), _mm256_xor_si256(so, top));
    }
    store8(dlo, l, _mm256_blend_epi32(se, _mm256_slli_epi64(so, 32), 0xaa), exec, full);
    store8(dhi, l, _mm256_blend_epi32(_mm256_srli_epi64(se, 32), so, 0xaa), exec, full);
    out |= (uint64_t)bits8(_mm256_blend_epi32(ve, vo, 0xaa)) << l;
  }
  return out;
}

static AVX INL int run_mad64(struct isa_wave *w, const struct isa_inst *in, const bool sign,
                             const int vk)
{
  if (w->gpr_idx >> 31)
    return exec_valu_bound(w, in);
  uint32_t ka, kb;
  const uint32_t *pa = operand(w, in, 0, vk & 1, &ka), *pb = operand(w, in, 1, vk & 2, &kb);
  struct pair c = pair_operand(w, in, 2, vk & 4);
  uint32_t *dlo = wave_vreg(w, in->dst), *dhi = wave_vreg(w, in->dst + 1);
  uint64_t exec = wave_exec(w), ovf;
  if (exec == ~0ull)
    ovf = mad64_lanes(sign, dlo, dhi, pa, pb, ka, kb, &c, exec, vk, true);
  else
    ovf = mad64_lanes(sign, dlo, dhi, pa, pb, ka, kb, &c, exec, vk, false);
  wave_set_sreg64(w, in->sdst, ovf & exec);
  return 0;
}

#define HMADK(S, VK)                                                                        \
  static AVX int simd_mad64_##S##_##VK(struct isa_wave *w, const struct isa_inst *in)       \
  {                                                                                         \
    return run_mad64(w, in, S, VK);                                                         \
  }
#define HMAD(S)                                                                             \
  HMADK(S, 0) HMADK(S, 1) HMADK(S, 2) HMADK(S, 3) HMADK(S, 4) HMADK(S, 5) HMADK(S, 6)       \
  HMADK(S, 7)
HMAD(0) HMAD(1)
#undef HMAD
#undef HMADK

/* [signed][operand kind] */
static const valu_exec_fn mad64_handlers[2][8] = {
  {simd_mad64_0_0, simd_mad64_0_1, simd_mad64_0_2, simd_mad64_0_3, simd_mad64_0_4,
   simd_mad64_0_5, simd_mad64_0_6, simd_mad64_0_7},
  {simd_mad64_1_0, simd_mad64_1_1, simd_mad64_1_2, simd_mad64_1_3, simd_mad64_1_4,
   simd_mad64_1_5, simd_mad64_1_6, simd_mad64_1_7},
};

/* v_mad_u64_u32 / v_mad_i64_i32 (FAST_INT64) with 32-bit src0/src1 and a 64-bit src2. */
static valu_exec_fn mad64_handler(const struct isa_inst *in)
{
  if ((in->op != OP_V_MAD_U64_U32 && in->op != OP_V_MAD_I64_I32) || in->src_w[0] > 1 ||
      in->src_w[1] > 1 || in->src_w[2] != 2 || in->src[0] == OPD_NONE ||
      in->src[1] == OPD_NONE || in->src[2] == OPD_NONE)
    return NULL;
  return mad64_handlers[in->op == OP_V_MAD_I64_I32]
                       [is_vgpr(in, 0) | is_vgpr(in, 1) << 1 | is_vgpr(in, 2) << 2];
}

/* ---- compares of 64-bit integers (register pairs or 64-bit scalars) ---- */

/* x < y on 64-bit lanes held as low and high dwords: the high dwords decide (signed or not),
 * and when they are equal the low ones (unsigned); likewise x > y and x == y. Predicates as
 * icmp8's (le, ne, ge: the inverted gt, eq, lt). */
static AVX INL __m256i icmp64_8(const int pred, const bool sign, __m256i al, __m256i ah,
                                __m256i bl, __m256i bh)
{
  const __m256i flip = _mm256_set1_epi32(INT32_MIN);
  __m256i heq = _mm256_cmpeq_epi32(ah, bh);
  if (pred == 2 || pred == 5)
    return _mm256_and_si256(heq, _mm256_cmpeq_epi32(al, bl));
  if (!sign) {
    ah = _mm256_xor_si256(ah, flip);
    bh = _mm256_xor_si256(bh, flip);
  }
  al = _mm256_xor_si256(al, flip);
  bl = _mm256_xor_si256(bl, flip);
  if (pred == 1 || pred == 6)   /* lt; ge inverted */
    return _mm256_or_si256(_mm256_cmpgt_epi32(bh, ah),
                           _mm256_and_si256(heq, _mm256_cmpgt_epi32(bl, al)));
  return _mm256_or_si256(_mm256_cmpgt_epi32(ah, bh),   /* gt; le inverted */
                         _mm256_and_si256(heq, _mm256_cmpgt_epi32(al, bl)));
}

static AVX INL uint64_t cmp64_lanes(const int pred, const bool sign, const struct pair *a,
                                    const struct pair *b, const int vk)
{
  const __m256i akl = _mm256_set1_epi32((int)(uint32_t)a->k),
                akh = _mm256_set1_epi32((int)(uint32_t)(a->k >> 32)),
                bkl = _mm256_set1_epi32((int)(uint32_t)b->k),
                bkh = _mm256_set1_epi32((int)(uint32_t)(b->k >> 32));
  uint64_t out = 0;
#pragma GCC unroll 8
  for (unsigned l = 0; l < WAVE_SIZE; l += 8) {
    __m256i al, ah, bl, bh;
    pair_load8(a, l, akl, akh, vk & 1, &al, &ah);
    pair_load8(b, l, bkl, bkh, vk & 2, &bl, &bh);
    out |= (uint64_t)bits8(icmp64_8(pred, sign, al, ah, bl, bh)) << l;
  }
  return pred == 3 || pred == 5 || pred == 6 ? ~out : out;
}

static AVX INL int run_cmp64(struct isa_wave *w, const struct isa_inst *in, const int pred,
                             const bool sign, const bool x)
{
  if (w->gpr_idx >> 31)
    return exec_valu_bound(w, in);
  int vk = is_vgpr(in, 0) | is_vgpr(in, 1) << 1;
  uint64_t res;
  switch (vk) {
  case 0: { struct pair a = pair_operand(w, in, 0, false), b = pair_operand(w, in, 1, false);
            res = cmp64_lanes(pred, sign, &a, &b, 0); break; }
  case 1: { struct pair a = pair_operand(w, in, 0, true), b = pair_operand(w, in, 1, false);
            res = cmp64_lanes(pred, sign, &a, &b, 1); break; }
  case 2: { struct pair a = pair_operand(w, in, 0, false), b = pair_operand(w, in, 1, true);
            res = cmp64_lanes(pred, sign, &a, &b, 2); break; }
  default: { struct pair a = pair_operand(w, in, 0, true), b = pair_operand(w, in, 1, true);
             res = cmp64_lanes(pred, sign, &a, &b, 3); break; }
  }
  res &= wave_exec(w);
  wave_set_sreg64(w, in->enc == ENC_VOP3 ? in->dst : OPD_VCC, res);
  if (x)
    wave_set_exec(w, res);
  return 0;
}

#define HCMP64(P, S, X)                                                                       static AVX int simd_cmp64_##P##_##S##_##X(struct isa_wave *w, const struct isa_inst *in)    {                                                                                             return run_cmp64(w, in, P, S, X);                                                         }
#define HCMP64_P(P) HCMP64(P, 0, 0) HCMP64(P, 0, 1) HCMP64(P, 1, 0) HCMP64(P, 1, 1)
HCMP64_P(1) HCMP64_P(2) HCMP64_P(3) HCMP64_P(4) HCMP64_P(5) HCMP64_P(6)
#undef HCMP64_P
#undef HCMP64

#define ROW64(S, X)                                                                           {NULL, simd_cmp64_1_##S##_##X, simd_cmp64_2_##S##_##X, simd_cmp64_3_##S##_##X,                simd_cmp64_4_##S##_##X, simd_cmp64_5_##S##_##X, simd_cmp64_6_##S##_##X}
/* [signed][v_cmpx][predicate] */
static const valu_exec_fn cmp64_handlers[2][2][7] = {
  {ROW64(0, 0), ROW64(0, 1)},
  {ROW64(1, 0), ROW64(1, 1)},
};
#undef ROW64

/* The handler of a v_cmp/v_cmpx of 64-bit integers with 64-bit sources, or NULL (as
 * exec_valu_fast.c's compare() takes them). */
static valu_exec_fn cmp64_handler(const struct isa_inst *in)
{
  unsigned type, pred;
  bool x;
  if (!valu_cmp_lookup(in->op, &type, &pred, &x) || (type != CT_I64 && type != CT_U64) ||
      in->src_w[0] != 2 || in->src_w[1] != 2 || pred < 1 || pred > 6 ||
      in->src[0] == OPD_NONE || in->src[1] == OPD_NONE)
    return NULL;
  return cmp64_handlers[type == CT_I64][x][pred];
}

/* ---- packed f32 (v_pk_add/mul/fma_f32) ---- */

/* Each half of the result from the same half of every source (op_sel 0, op_sel_hi 1), no
 * negation or clamp, VGPR pairs only: exec_valu_fast.c's pk_f32 forms. Both halves of a step
 * are read before either is stored (the destination pair may overlap a source pair). */
static AVX INL void pk_f32_lanes(const int op, uint32_t *dlo, uint32_t *dhi,
                                 const uint32_t *const lo[3], const uint32_t *const hi[3],
                                 uint64_t exec, const bool full)
{
#pragma GCC unroll 8
  for (unsigned l = 0; l < WAVE_SIZE; l += 8) {
    __m256 a0 = ps(load8(lo[0], l)), b0 = ps(load8(lo[1], l));
    __m256 a1 = ps(load8(hi[0], l)), b1 = ps(load8(hi[1], l)), r0, r1;
    if (op == OP_V_PK_ADD_F32) {
      r0 = _mm256_add_ps(a0, b0);
      r1 = _mm256_add_ps(a1, b1);
    } else if (op == OP_V_PK_MUL_F32) {
      r0 = _mm256_mul_ps(a0, b0);
      r1 = _mm256_mul_ps(a1, b1);
    } else {
      r0 = _mm256_fmadd_ps(a0, b0, ps(load8(lo[2], l)));
      r1 = _mm256_fmadd_ps(a1, b1, ps(load8(hi[2], l)));
    }
    store8(dlo, l, si(r0), exec, full);
    store8(dhi, l, si(r1), exec, full);
  }
}

static AVX INL int run_pk_f32(struct isa_wave *w, const struct isa_inst *in, const int op)
{
  if ((w->gpr_idx >> 31) || !(w->mode >> 4 & 3))
    return exec_valu_general(w, in);
  unsigned n = op == OP_V_PK_FMA_F32 ? 3 : 2;
  const uint32_t *lo[3] = {no_lanes, no_lanes, no_lanes}, *hi[3] = {no_lanes, no_lanes, no_lanes};
  for (unsigned i = 0; i < n; i++) {
    lo[i] = wave_vreg(w, in->src[i]);
    hi[i] = wave_vreg(w, in->src[i] + 1);
  }
  uint32_t *dlo = wave_vreg(w, in->dst), *dhi = wave_vreg(w, in->dst + 1);
  uint64_t exec = wave_exec(w);
  if (exec == ~0ull)
    pk_f32_lanes(op, dlo, dhi, lo, hi, exec, true);
  else
    pk_f32_lanes(op, dlo, dhi, lo, hi, exec, false);
  return 0;
}

static AVX int simd_pk_add_f32(struct isa_wave *w, const struct isa_inst *in)
{
  return run_pk_f32(w, in, OP_V_PK_ADD_F32);
}

static AVX int simd_pk_mul_f32(struct isa_wave *w, const struct isa_inst *in)
{
  return run_pk_f32(w, in, OP_V_PK_MUL_F32);
}

static AVX int simd_pk_fma_f32(struct isa_wave *w, const struct isa_inst *in)
{
  return run_pk_f32(w, in, OP_V_PK_FMA_F32);
}

static valu_exec_fn pk_f32_handler(const struct isa_inst *in)
{
  unsigned n = in->op == OP_V_PK_FMA_F32 ? 3 : 2, all = (1u << n) - 1;
  if ((in->op != OP_V_PK_ADD_F32 && in->op != OP_V_PK_MUL_F32 && in->op != OP_V_PK_FMA_F32) ||
      in->neg || in->neg_hi || in->clamp || (in->opsel & all) || (in->opsel_hi & all) != all ||
      in->dst < OPD_VGPR || in->dst == OPD_NONE)
    return NULL;
  for (unsigned i = 0; i < n; i++)
    if (!is_vgpr(in, (int)i))
      return NULL;
  return in->op == OP_V_PK_ADD_F32 ? simd_pk_add_f32
         : in->op == OP_V_PK_MUL_F32 ? simd_pk_mul_f32 : simd_pk_fma_f32;
}

/* ---- binding ---- */

static bool host_has_avx2_fma(void)
{
  /* atomic: workers bind instructions concurrently; each computes the same answer */
  static atomic_int has = -1;
  int h = atomic_load_explicit(&has, memory_order_relaxed);
  if (h < 0) {
    __builtin_cpu_init();
    h = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    atomic_store_explicit(&has, h, memory_order_relaxed);
  }
  return h > 0;
}

/* v_pk_mov_b32 as the assembler and compilers emit it: no clamp; the destination a VGPR pair. */
static bool pk_mov_form(const struct isa_inst *in)
{
  return in->op == OP_V_PK_MOV_B32 && in->enc == ENC_VOP3P && !in->clamp &&
         in->dst >= OPD_VGPR && in->dst != OPD_NONE;
}

/* ---- f64 add, mul and fma; v_cvt_f64_f32 and v_cvt_f32_f64 ----
 *
 * Doubles live in register pairs, low dwords in one VGPR and high dwords in the next. Eight
 * lanes are unpacked into two vectors of four doubles, lanes (0, 1, 4, 5) and (2, 3, 6, 7), the
 * operation runs on them, and f64_store8 undoes the unpacking; no buffer in between, where
 * exec_valu_fast.c's path joins each operand into a buffer and splits the result out of one.
 * The host's double operations are the results there too (MODE's f64 denormals are kept). */

static AVX INL void f64_load8(const struct pair *p, unsigned l, __m256i klo, __m256i khi,
                              const bool vgpr, __m256d *x0, __m256d *x1)
{
  __m256i lo, hi;
  pair_load8(p, l, klo, khi, vgpr, &lo, &hi);
  *x0 = _mm256_castsi256_pd(_mm256_unpacklo_epi32(lo, hi));
  *x1 = _mm256_castsi256_pd(_mm256_unpackhi_epi32(lo, hi));
}

/* Lanes l..l+7 from two vectors in f64_load8's order into the pair (dlo, dhi). */
static AVX INL void f64_store8(uint32_t *dlo, uint32_t *dhi, unsigned l, __m256d r0, __m256d r1,
                               uint64_t exec, const bool full)
{
  /* per 128 bits: (lo0 hi0 lo1 hi1) -> (lo0 lo1 hi0 hi1), then the halves paired up */
  __m256i t0 = _mm256_shuffle_epi32(_mm256_castpd_si256(r0), _MM_SHUFFLE(3, 1, 2, 0));
  __m256i t1 = _mm256_shuffle_epi32(_mm256_castpd_si256(r1), _MM_SHUFFLE(3, 1, 2, 0));
  store8(dlo, l, _mm256_unpacklo_epi64(t0, t1), exec, full);
  store8(dhi, l, _mm256_unpackhi_epi64(t0, t1), exec, full);
}

enum { F64_ADD, F64_MUL, F64_FMA, F64_FMAC };

static AVX INL __m256d f64_apply(const int op, __m256d a, __m256d b, __m256d c)
{
  switch (op) {
  case F64_ADD: return _mm256_add_pd(a, b);
  case F64_MUL: return _mm256_mul_pd(a, b);
  default: return _mm256_fmadd_pd(a, b, c);
  }
}

static AVX INL void f64_lanes8(const int op, uint32_t *dlo, uint32_t *dhi, const struct pair *a,
                               const struct pair *b, const struct pair *c, uint64_t exec,
                               const int vk, const bool full)
{
  const __m256i kal = _mm256_set1_epi32((int)(uint32_t)a->k),
                kah = _mm256_set1_epi32((int)(uint32_t)(a->k >> 32)),
                kbl = _mm256_set1_epi32((int)(uint32_t)b->k),
                kbh = _mm256_set1_epi32((int)(uint32_t)(b->k >> 32)),
                kcl = _mm256_set1_epi32((int)(uint32_t)c->k),
                kch = _mm256_set1_epi32((int)(uint32_t)(c->k >> 32));
  for (unsigned l = 0; l < WAVE_SIZE; l += 8) {
    __m256d a0, a1, b0, b1, c0 = _mm256_setzero_pd(), c1 = c0;
    f64_load8(a, l, kal, kah, vk & 1, &a0, &a1);
    f64_load8(b, l, kbl, kbh, vk & 2, &b0, &b1);
    if (op >= F64_FMA)
      f64_load8(c, l, kcl, kch, op == F64_FMAC || (vk & 4), &c0, &c1);
    f64_store8(dlo, dhi, l, f64_apply(op, a0, b0, c0), f64_apply(op, a1, b1, c1), exec, full);
  }
}

static AVX INL int run_f64(struct isa_wave *w, const struct isa_inst *in, const int op,
                           const int vk)
{
  if (w->gpr_idx >> 31)
    return exec_valu_bound(w, in);
  struct pair a = pair_operand(w, in, 0, vk & 1), b = pair_operand(w, in, 1, vk & 2);
  struct pair c = {no_lanes, no_lanes, 0};
  uint32_t *dlo = wave_vreg(w, in->dst), *dhi = wave_vreg(w, in->dst + 1);
  if (op == F64_FMA)
    c = pair_operand(w, in, 2, vk & 4);
  else if (op == F64_FMAC)   /* accumulates into its destination */
    c = (struct pair){dlo, dhi, 0};
  uint64_t exec = wave_exec(w);
  if (exec == ~0ull)
    f64_lanes8(op, dlo, dhi, &a, &b, &c, exec, vk, true);
  else
    f64_lanes8(op, dlo, dhi, &a, &b, &c, exec, vk, false);
  return 0;
}

#define HF64(OP, VK)                                                                          static AVX int simd_f64_##OP##_##VK(struct isa_wave *w, const struct isa_inst *in)          {                                                                                             return run_f64(w, in, OP, VK);                                                            }
#define HF64_4(OP) HF64(OP, 0) HF64(OP, 1) HF64(OP, 2) HF64(OP, 3)
HF64_4(F64_ADD) HF64_4(F64_MUL) HF64_4(F64_FMAC) HF64_4(F64_FMA)
HF64(F64_FMA, 4) HF64(F64_FMA, 5) HF64(F64_FMA, 6) HF64(F64_FMA, 7)
#undef HF64_4
#undef HF64

/* v_cvt_f64_f32 (widen) and v_cvt_f32_f64 from a VGPR (vk 1) or a scalar; f32 denormals
 * flushed by MODE go to exec_valu_bound's path, which applies it. */
static AVX INL int run_cvt64(struct isa_wave *w, const struct isa_inst *in, const bool widen,
                             const int vk)
{
  if ((w->gpr_idx >> 31) || !(w->mode >> 4 & 3))
    return exec_valu_bound(w, in);
  uint64_t exec = wave_exec(w);
  bool full = exec == ~0ull;
  /* (0 1 4 5 2 3 6 7): f64_load8's order to lane order and back (it is its own inverse) */
  const __m256i order = _mm256_setr_epi32(0, 1, 4, 5, 2, 3, 6, 7);
  if (widen) {
    uint32_t k;
    const uint32_t *a = operand(w, in, 0, vk & 1, &k);
    uint32_t *dlo = wave_vreg(w, in->dst), *dhi = wave_vreg(w, in->dst + 1);
    for (unsigned l = 0; l < WAVE_SIZE; l += 8) {
      __m256i f = vk & 1 ? load8(a, l) : _mm256_set1_epi32((int)k);
      __m256 g = _mm256_castsi256_ps(_mm256_permutevar8x32_epi32(f, order));
      __m256d r0 = _mm256_cvtps_pd(_mm256_castps256_ps128(g));
      __m256d r1 = _mm256_cvtps_pd(_mm256_extractf128_ps(g, 1));
      if (full)
        f64_store8(dlo, dhi, l, r0, r1, exec, true);
      else
        f64_store8(dlo, dhi, l, r0, r1, exec, false);
    }
    return 0;
  }
  struct pair a = pair_operand(w, in, 0, vk & 1);
  const __m256i kl = _mm256_set1_epi32((int)(uint32_t)a.k),
                kh = _mm256_set1_epi32((int)(uint32_t)(a.k >> 32));
  uint32_t *d = wave_vreg(w, in->dst);
  for (unsigned l = 0; l < WAVE_SIZE; l += 8) {
    __m256d x0, x1;
    f64_load8(&a, l, kl, kh, vk & 1, &x0, &x1);
    __m256 g = _mm256_set_m128(_mm256_cvtpd_ps(x1), _mm256_cvtpd_ps(x0));
    __m256i r = _mm256_permutevar8x32_epi32(_mm256_castps_si256(g), order);
    if (full)
      store8(d, l, r, exec, true);
    else
      store8(d, l, r, exec, false);
  }
  return 0;
}

#define HCVT(W, VK)                                                                           static AVX int simd_cvt64_##W##_##VK(struct isa_wave *w, const struct isa_inst *in)         {                                                                                             return run_cvt64(w, in, W, VK);                                                           }
HCVT(0, 0) HCVT(0, 1) HCVT(1, 0) HCVT(1, 1)
#undef HCVT

/* FAST_F64 (exec_valu_fast.c's f64_plain: pairs, a VGPR destination, no modifiers) and
 * FAST_CVT64, by operation and operand kind. */
static valu_exec_fn f64_handler(const struct isa_inst *in)
{
  static const valu_exec_fn add[4] = {simd_f64_F64_ADD_0, simd_f64_F64_ADD_1,
                                      simd_f64_F64_ADD_2, simd_f64_F64_ADD_3};
  static const valu_exec_fn mul[4] = {simd_f64_F64_MUL_0, simd_f64_F64_MUL_1,
                                      simd_f64_F64_MUL_2, simd_f64_F64_MUL_3};
  static const valu_exec_fn fmac[4] = {simd_f64_F64_FMAC_0, simd_f64_F64_FMAC_1,
                                       simd_f64_F64_FMAC_2, simd_f64_F64_FMAC_3};
  static const valu_exec_fn fma[8] = {simd_f64_F64_FMA_0, simd_f64_F64_FMA_1,
                                      simd_f64_F64_FMA_2, simd_f64_F64_FMA_3,
                                      simd_f64_F64_FMA_4, simd_f64_F64_FMA_5,
                                      simd_f64_F64_FMA_6, simd_f64_F64_FMA_7};
  int vk = is_vgpr(in, 0) | is_vgpr(in, 1) << 1;
  switch (in->op) {
  case OP_V_ADD_F64: return add[vk];
  case OP_V_MUL_F64: return mul[vk];
  case OP_V_FMAC_F64: return fmac[vk];
  case OP_V_FMA_F64: return fma[vk | is_vgpr(in, 2) << 2];
  case OP_V_CVT_F64_F32: return is_vgpr(in, 0) ? simd_cvt64_1_1 : simd_cvt64_1_0;
  case OP_V_CVT_F32_F64: return is_vgpr(in, 0) ? simd_cvt64_0_1 : simd_cvt64_0_0;
  default: return NULL;
  }
}

valu_exec_fn valu_simd_bind(const struct isa_inst *in)
{
  if (!host_has_avx2_fma())
    return NULL;
  for (int i = 0; i < 3; i++)
    if (in->src[i] < OPD_VGPR && !scalar_inline(in, in->src[i]))
      return NULL;   /* a special register as a source: exec_valu_fast.c's path */
  if (pk_mov_form(in))
    return simd_pk_mov;
  if ((in->abs | in->neg) & 7)
    return NULL;   /* source modifiers: exec_valu_fast.c's path */
  switch (in->fast) {
  case FAST_PK: return pk_f32_handler(in);
  case FAST_INT64: { valu_exec_fn h = shift64_handler(in); return h ? h : mad64_handler(in); }
  case FAST_INT: case FAST_F32: case FAST_CNDMASK: return lanes_handler(in);
  case FAST_CARRY: return carry_handler(in);
  case FAST_CMP: { valu_exec_fn h = cmp_handler(in); return h ? h : cmp64_handler(in); }
  case FAST_F64: case FAST_CVT64: return f64_handler(in);
  default: return NULL;
  }
}

#else

valu_exec_fn valu_simd_bind(const struct isa_inst *in)
{
  (void)in;
  return NULL;
}

valu_exec_fn valu_pair_bind(const struct isa_inst *first, const struct isa_inst *second)
{
  (void)first;
  (void)second;
  return NULL;
}

int valu_pair_second(struct isa_wave *w, const struct isa_inst *in)
{
  (void)w;
  (void)in;
  return 0;
}

#endif
