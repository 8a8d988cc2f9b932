/* The common VALU instructions on a direct path.
 *
 * Most VALU instructions of compiled HIP code are plain: VOP1, VOP2 or VOP3 without op_sel,
 * output modifiers (clamp, omod), DPP or SDWA, reading and writing 32-bit VGPRs; abs and neg
 * on 32-bit sources (fabs, negation folded into f32 arithmetic) are taken too. For those, exec_valu.c's general path (every source widened into 64-bit lanes,
 * modifiers applied on fetch and write, the store visiting the set bits of EXEC) costs more than
 * the arithmetic. Here a VGPR source is read in place, a scalar source (SGPR, inline constant,
 * literal) is broadcast once, the result is computed for all 64 lanes in straight loops over
 * 32-bit lanes (which the compiler vectorises) and stored under EXEC. Inactive lanes compute on
 * whatever their registers hold and their results are dropped: none of these operations has a
 * side effect, and the host raises no floating-point traps.
 *
 * The results are those of alu() in exec_valu.c, bit for bit: the same host operations in the
 * same order. f32 arithmetic takes this path only while MODE keeps f32 denormals (the HIP
 * default); with denormals flushed exec_valu.c's path applies the flush. tests/isa's
 * per-instruction tests run both paths, and test_isa_valu_fast compares them on random and
 * edge-value registers.
 *
 * Covered: 32-bit integer arithmetic, logic, shifts, bit fields and bit counts; f32 add, sub,
 * mul, fma, min/max, rounding, rcp, sqrt, ldexp, exp, log and conversions to and from integers;
 * carry-out adds and subtracts; v_cndmask_b32; 64-bit shifts, moves and v_mad_u64_u32 /
 * v_mad_i64_i32 / v_lshl_add_u64; f64 add, mul, fma and fmac; v_cmp / v_cmpx of i32, u32, f32
 * and 64-bit integers; v_cmp_class / v_cmpx_class of f32 and f64; v_pk_add/mul/fma_f32 with
 * default operand selection. A wave with 16 or fewer active lanes computes the 32-bit
 * operations and compares on those lanes only (few_run, few_compare).
 *
 * The class of an instruction (fast_static) depends on its decoded fields only, so blocks.c
 * decides it once per decoded instruction (valu_bind) and the run loop calls the bound handler:
 * the commonest classes have handlers of their own, the rest go through exec_valu_bound. As in
 * the general path, which of two NaN inputs an f32 or f64 operation returns is the host
 * compiler's choice (operand order), in either path.
 */
#include "isa/exec_valu_fast.h"
#include "isa/valu_fp.h"

#include <math.h>
#include <string.h>

typedef uint32_t lane32_t[WAVE_SIZE];

#define LANES for (unsigned l = 0; l < WAVE_SIZE; l++)

/* fmaf is a libm call on baseline x86-64; with FMA hardware the loops inline it and vectorise.
 * The two clones give the same results (fma rounds once either way). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__linux__)
#define VALU_FAST_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define VALU_FAST_CLONES
#endif

/* abs/neg bits of the sources (VOP3; exec_valu.c applies whatever is set). */
static unsigned source_mods(const struct isa_inst *in)
{
  return (in->abs | in->neg) & 7;
}

/* `v` into all 64 lanes of `buf`, 16 bytes a store (the baseline target's vector width; the
 * plain loop is not vectorised outside the clones). */
static inline void splat32(uint32_t *buf, uint32_t v)
{
  typedef uint32_t v4u32 __attribute__((vector_size(16)));
  v4u32 x = {v, v, v, v};
#pragma GCC unroll 16
  for (unsigned l = 0; l < WAVE_SIZE; l += 4)
    memcpy(buf + l, &x, sizeof(x));
}

/* A 32-bit scalar source: wave_scalar_src's value, with its two common cases (an SGPR, a
 * literal) read in place. */
static inline uint32_t scalar32(struct isa_wave *w, const struct isa_inst *in, unsigned code)
{
  if (code < 128)
    return w->s[code];
  if (code == OPD_LITERAL)
    return in->literal;
  return (uint32_t)wave_scalar_src(w, in, code, 1);
}

/* Source i as 64 lanes: a VGPR in place, anything else broadcast into `buf`. */
static const uint32_t *source(struct isa_wave *w, const struct isa_inst *in, int i, uint32_t *buf)
{
  unsigned code = in->src[i];
  if (code == OPD_NONE)
    return buf; /* not read by the operation */
  if (!((in->abs | in->neg) >> i & 1)) {
    if (code >= OPD_VGPR)
      return wave_vreg(w, code);
    splat32(buf, scalar32(w, in, code));
    return buf;
  }
  /* abs then neg on the 32-bit value, as exec_valu.c's fetch applies them (only VOP3 sets
   * them; plain_form admits no other modifier) */
  uint32_t keep = in->abs >> i & 1 ? 0x7fffffffu : ~0u;
  uint32_t flip = in->neg >> i & 1 ? 0x80000000u : 0;
  if (code >= OPD_VGPR) {
    const uint32_t *v = wave_vreg(w, code);
    LANES buf[l] = (v[l] & keep) ^ flip;
    return buf;
  }
  splat32(buf, (scalar32(w, in, code) & keep) ^ flip);
  return buf;
}

static void store(struct isa_wave *w, unsigned dst, const uint32_t *r, uint64_t exec)
{
  uint32_t *d = wave_vreg(w, dst);
  if (exec == ~0ull) {
    memcpy(d, r, sizeof(lane32_t));
    return;
  }
  for (uint64_t m = exec; m; m &= m - 1) {
    unsigned l = (unsigned)__builtin_ctzll(m);
    d[l] = r[l];
  }
}

static inline int32_t i24(uint32_t v)
{
  return (int32_t)(v << 8) >> 8;
}

/* Bit-field extracts as exec_valu.c's bfe_u/bfe_i: offset and width 5 bits each, a field
 * reaching bit 31 is a plain shift. */
static inline uint32_t bfe_u32(uint32_t v, uint32_t off, uint32_t wid)
{
  off &= 31;
  wid &= 31;
  if (!wid)
    return 0;
  return off + wid < 32 ? v >> off & ((1u << wid) - 1) : v >> off;
}

static inline uint32_t bfe_i32(uint32_t v, uint32_t off, uint32_t wid)
{
  off &= 31;
  wid &= 31;
  if (!wid)
    return 0;
  if (off + wid < 32)
    return (uint32_t)((int32_t)(v << (32 - off - wid)) >> (32 - wid));
  return (uint32_t)((int32_t)v >> off);
}

/* v_mbcnt_lo/hi: the lanes below lane l inside the low or high 32 bits of the mask. */
static inline uint32_t mbcnt_lo_mask(unsigned l)
{
  return l < 32 ? (1u << l) - 1 : ~0u;
}

static inline uint32_t mbcnt_hi_mask(unsigned l)
{
  return l > 32 ? (1u << (l - 32)) - 1 : 0;
}

/* Integer operations (fast_kind FAST_INT) on lanes 0..n-1 of the arrays: all 64 lanes of a
 * wave (int_op), or the packed active lanes of a wave with few (few_run; not the v_mbcnt
 * forms, which read the lane number). Inlined into both, so that the 64-lane loops keep a
 * constant count to vectorise. */
#undef LANES
#define LANES for (unsigned l = 0; l < n; l++)
static inline __attribute__((always_inline)) void
int_lanes(unsigned op, const uint32_t *restrict a, const uint32_t *restrict b,
          const uint32_t *restrict c, uint32_t *restrict r, const unsigned n)
{
  switch (op) {
  case OP_V_MOV_B32: LANES r[l] = a[l]; return;
  case OP_V_NOT_B32: LANES r[l] = ~a[l]; return;
  case OP_V_ADD_U32: case OP_V_ADD_I32: LANES r[l] = a[l] + b[l]; return;
  case OP_V_SUB_U32: case OP_V_SUB_I32: LANES r[l] = a[l] - b[l]; return;
  case OP_V_SUBREV_U32: LANES r[l] = b[l] - a[l]; return;
  case OP_V_AND_B32: LANES r[l] = a[l] & b[l]; return;
  case OP_V_OR_B32: LANES r[l] = a[l] | b[l]; return;
  case OP_V_XOR_B32: LANES r[l] = a[l] ^ b[l]; return;
  case OP_V_LSHLREV_B32: LANES r[l] = b[l] << (a[l] & 31); return;
  case OP_V_LSHRREV_B32: LANES r[l] = b[l] >> (a[l] & 31); return;
  case OP_V_ASHRREV_I32: LANES r[l] = (uint32_t)((int32_t)b[l] >> (a[l] & 31)); return;
  case OP_V_MUL_LO_U32: LANES r[l] = a[l] * b[l]; return;
  case OP_V_MUL_HI_U32: LANES r[l] = (uint32_t)((uint64_t)a[l] * b[l] >> 32); return;
  case OP_V_MUL_U32_U24: LANES r[l] = (a[l] & 0xffffff) * (b[l] & 0xffffff); return;
  case OP_V_MUL_I32_I24: LANES r[l] = (uint32_t)((int64_t)i24(a[l]) * i24(b[l])); return;
  case OP_V_MAD_U32_U24: LANES r[l] = (a[l] & 0xffffff) * (b[l] & 0xffffff) + c[l]; return;
  case OP_V_MAD_I32_I24: LANES r[l] = (uint32_t)((int64_t)i24(a[l]) * i24(b[l])) + c[l]; return;
  case OP_V_MAX_U32: LANES r[l] = a[l] > b[l] ? a[l] : b[l]; return;
  case OP_V_MIN_U32: LANES r[l] = a[l] < b[l] ? a[l] : b[l]; return;
  case OP_V_MAX_I32: LANES r[l] = (int32_t)a[l] > (int32_t)b[l] ? a[l] : b[l]; return;
  case OP_V_MIN_I32: LANES r[l] = (int32_t)a[l] < (int32_t)b[l] ? a[l] : b[l]; return;
  case OP_V_LSHL_ADD_U32: LANES r[l] = (a[l] << (b[l] & 31)) + c[l]; return;
  case OP_V_ADD_LSHL_U32: LANES r[l] = (a[l] + b[l]) << (c[l] & 31); return;
  case OP_V_ADD3_U32: LANES r[l] = a[l] + b[l] + c[l]; return;
  case OP_V_LSHL_OR_B32: LANES r[l] = (a[l] << (b[l] & 31)) | c[l]; return;
  case OP_V_AND_OR_B32: LANES r[l] = (a[l] & b[l]) | c[l]; return;
  case OP_V_OR3_B32: LANES r[l] = a[l] | b[l] | c[l]; return;
  case OP_V_XAD_U32: LANES r[l] = (a[l] ^ b[l]) + c[l]; return;
  case OP_V_BFI_B32: LANES r[l] = (a[l] & b[l]) | (~a[l] & c[l]); return;
  case OP_V_BFE_U32: LANES r[l] = bfe_u32(a[l], b[l], c[l]); return;
  case OP_V_BFE_I32: LANES r[l] = bfe_i32(a[l], b[l], c[l]); return;
  case OP_V_BFM_B32: LANES r[l] = (uint32_t)(((1ull << (a[l] & 31)) - 1) << (b[l] & 31)); return;
  case OP_V_ALIGNBIT_B32: LANES r[l] = (uint32_t)(((uint64_t)a[l] << 32 | b[l]) >> (c[l] & 31)); return;
  case OP_V_ALIGNBYTE_B32: LANES r[l] = (uint32_t)(((uint64_t)a[l] << 32 | b[l]) >> (8 * (c[l] & 3))); return;
  case OP_V_BCNT_U32_B32: LANES r[l] = bit_count64(a[l]) + b[l]; return;
  case OP_V_MBCNT_LO_U32_B32: LANES r[l] = bit_count64(a[l] & mbcnt_lo_mask(l)) + b[l]; return;
  case OP_V_MBCNT_HI_U32_B32: LANES r[l] = bit_count64(a[l] & mbcnt_hi_mask(l)) + b[l]; return;
  case OP_V_FFBL_B32: LANES r[l] = a[l] ? (uint32_t)__builtin_ctz(a[l]) : ~0u; return;
  case OP_V_FFBH_U32: LANES r[l] = a[l] ? (uint32_t)__builtin_clz(a[l]) : ~0u; return;
  default: return;
  }
}

VALU_FAST_CLONES
static void int_op(unsigned op, const uint32_t *restrict a, const uint32_t *restrict b,
                   const uint32_t *restrict c, uint32_t *restrict r)
{
  int_lanes(op, a, b, c, r, WAVE_SIZE);
}

/* The rest of the f32 set: kept apart from f32_op so that the common arithmetic does not pay
 * for the library calls' register saves. */
static void f32_lib(unsigned op, const uint32_t *restrict a, const uint32_t *restrict b,
                    uint32_t *restrict r, unsigned n);

/* A library-call operation (exp2f, ldexpf, ...) with 16 or fewer active lanes computes only
 * those lanes: a loop in one lane (hip-tests' stream cases) otherwise pays 64 calls a step. The
 * caller stores only the active lanes when EXEC is not full, so the others' results are unused. */
static void f32_misc(unsigned op, const uint32_t *restrict a, const uint32_t *restrict b,
                     uint32_t *restrict r, uint64_t exec)
{
  if (exec == ~0ull || __builtin_popcountll(exec) > 16) {
    f32_lib(op, a, b, r, WAVE_SIZE);
    return;
  }
  for (uint64_t m = exec; m; m &= m - 1) {
    unsigned l = (unsigned)__builtin_ctzll(m);
    f32_lib(op, a + l, b + l, r + l, 1);
  }
}

#undef LANES
#define LANES for (unsigned l = 0; l < n; l++)
VALU_FAST_CLONES
static void f32_lib(unsigned op, const uint32_t *restrict a, const uint32_t *restrict b,
                    uint32_t *restrict r, unsigned n)
{
  switch (op) {
  case OP_V_MIN_F32: LANES r[l] = bits_f32(fmin_hw(f32_of(a[l]), f32_of(b[l]))); return;
  case OP_V_MAX_F32: LANES r[l] = bits_f32(fmax_hw(f32_of(a[l]), f32_of(b[l]))); return;
  case OP_V_TRUNC_F32: LANES r[l] = bits_f32(truncf(f32_of(a[l]))); return;
  case OP_V_FLOOR_F32: LANES r[l] = bits_f32(floorf(f32_of(a[l]))); return;
  case OP_V_RNDNE_F32: LANES r[l] = bits_f32(nearbyintf(f32_of(a[l]))); return;
  case OP_V_RCP_F32: case OP_V_RCP_IFLAG_F32: LANES r[l] = bits_f32(1.0f / f32_of(a[l])); return;
  case OP_V_SQRT_F32: LANES r[l] = bits_f32(sqrtf(f32_of(a[l]))); return;
  case OP_V_LDEXP_F32: LANES r[l] = bits_f32(ldexpf(f32_of(a[l]), (int32_t)b[l])); return;
  /* v_exp/v_log flush denormals whatever MODE says (exec_valu.c) */
  case OP_V_EXP_F32: LANES r[l] = bits_f32(flush_f32(exp2f(flush_f32(f32_of(a[l]))))); return;
  case OP_V_LOG_F32: LANES r[l] = bits_f32(flush_f32(log2f(flush_f32(f32_of(a[l]))))); return;
  /* float -> integer, saturating, NaN -> 0 (exec_valu.c's cvt_i32/cvt_u32) */
  case OP_V_CVT_I32_F32:
    LANES {
      double d = f32_of(a[l]);
      r[l] = isnan(d) ? 0 : d >= 2147483647.0 ? (uint32_t)INT32_MAX
             : d <= -2147483648.0 ? (uint32_t)INT32_MIN : (uint32_t)(int32_t)d;
    }
    return;
  case OP_V_CVT_U32_F32:
    LANES {
      double d = f32_of(a[l]);
      r[l] = isnan(d) || d <= 0 ? 0 : d >= 4294967295.0 ? UINT32_MAX : (uint32_t)d;
    }
    return;
  default: return;
  }
}
/* f32 arithmetic with denormals kept (the caller checked MODE) on lanes 0..n-1, as
 * int_lanes; false for the operations f32_lib computes. */
static inline __attribute__((always_inline)) bool
f32_lanes(const struct isa_inst *in, const uint32_t *restrict a, const uint32_t *restrict b,
          const uint32_t *restrict c, uint32_t *restrict r, const unsigned n)
{
  float k = f32_of(in->literal);
  switch (in->op) {
  case OP_V_ADD_F32: LANES r[l] = bits_f32(f32_of(a[l]) + f32_of(b[l])); return true;
  case OP_V_SUB_F32: LANES r[l] = bits_f32(f32_of(a[l]) - f32_of(b[l])); return true;
  case OP_V_SUBREV_F32: LANES r[l] = bits_f32(f32_of(b[l]) - f32_of(a[l])); return true;
  case OP_V_MUL_F32: LANES r[l] = bits_f32(f32_of(a[l]) * f32_of(b[l])); return true;
  case OP_V_FMA_F32: case OP_V_FMAC_F32: LANES r[l] = bits_f32(fmaf(f32_of(a[l]), f32_of(b[l]), f32_of(c[l]))); return true;
  case OP_V_FMAMK_F32: LANES r[l] = bits_f32(fmaf(f32_of(a[l]), k, f32_of(b[l]))); return true;
  case OP_V_FMAAK_F32: LANES r[l] = bits_f32(fmaf(f32_of(a[l]), f32_of(b[l]), k)); return true;
  case OP_V_CVT_F32_I32: LANES r[l] = bits_f32((float)(int32_t)a[l]); return true;
  case OP_V_CVT_F32_U32: LANES r[l] = bits_f32((float)a[l]); return true;
  default: return false;
  }
}
#undef LANES
#define LANES for (unsigned l = 0; l < WAVE_SIZE; l++)

VALU_FAST_CLONES
static void f32_op(const struct isa_inst *in, const uint32_t *restrict a,
                   const uint32_t *restrict b, const uint32_t *restrict c, uint32_t *restrict r,
                   uint64_t exec)
{
  if (!f32_lanes(in, a, b, c, r, WAVE_SIZE))
    f32_misc(in->op, a, b, r, exec);
}

/* A lane mask -> 64 lane flags (bytes holding 0 or 1), the inverse of pack(): byte i of the
 * replicated mask keeps bit i, and adding 0x7f carries it into the byte's top bit. */
static void unpack(uint64_t m, uint8_t *restrict bit)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  for (unsigned i = 0; i < WAVE_SIZE / 8; i++) {
    uint64_t x = ((m >> (8 * i)) & 0xff) * 0x0101010101010101ull & 0x8040201008040201ull;
    x = ((x + 0x7f7f7f7f7f7f7f7full) >> 7) & 0x0101010101010101ull;
    memcpy(bit + 8 * i, &x, 8);
  }
#else
  LANES bit[l] = (uint8_t)(m >> l & 1);
#endif
}

static uint64_t pack(const uint8_t *restrict bit);

/* Carry-out adds and subtracts: the carry of the active lanes goes to VCC (VOP2) or the SGPR
 * pair sdst (VOP3); the _ci forms read their carry-in from VCC or src2. */
VALU_FAST_CLONES
static void carry_op(struct isa_wave *w, const struct isa_inst *in, const uint32_t *restrict a,
                     const uint32_t *restrict b, uint32_t *restrict r, uint64_t exec)
{
  bool e64 = in->enc == ENC_VOP3;
  uint64_t cin = 0;
  uint8_t co[WAVE_SIZE], ci[WAVE_SIZE];
  if (in->op == OP_V_ADDC_CO_U32 || in->op == OP_V_SUBB_CO_U32 || in->op == OP_V_SUBBREV_CO_U32)
    cin = e64 ? wave_scalar_src(w, in, in->src[2], 2) : wave_sreg64(w, OPD_VCC);
  unpack(cin, ci);
  switch (in->op) {
  case OP_V_ADD_CO_U32: case OP_V_ADDC_CO_U32:
    LANES { uint64_t s = (uint64_t)a[l] + b[l] + ci[l]; r[l] = (uint32_t)s; co[l] = (uint8_t)(s >> 32); }
    break;
  case OP_V_SUB_CO_U32: case OP_V_SUBB_CO_U32:
    LANES { uint64_t t = (uint64_t)b[l] + ci[l]; r[l] = (uint32_t)(a[l] - t); co[l] = t > a[l]; }
    break;
  default: /* the reversed forms */
    LANES { uint64_t t = (uint64_t)a[l] + ci[l]; r[l] = (uint32_t)(b[l] - t); co[l] = t > b[l]; }
    break;
  }
  wave_set_sreg64(w, e64 ? in->sdst : OPD_VCC, pack(co) & exec);
}

/* ---- 64-bit integer operations: register pairs as 64-bit lanes ---- */

/* Register pairs <-> 64-bit lanes. A pair is two registers (low dwords, high dwords); a
 * 64-bit lane array interleaves them (little-endian hosts). Eight lanes at a time through
 * vector shuffles: the compiler does not vectorise the scalar form of this interleave. */
#if defined(__GNUC__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && \
    (defined(__clang__) || __GNUC__ >= 12)
#define VALU_FAST_VECTORS 1
typedef uint32_t v8u32 __attribute__((vector_size(32)));
typedef uint64_t v4u64 __attribute__((vector_size(32)));
typedef int64_t v4i64 __attribute__((vector_size(32)));

static inline void join64(const uint32_t *restrict lo, const uint32_t *restrict hi,
                          uint64_t *restrict r)
{
  for (unsigned l = 0; l < WAVE_SIZE; l += 8) {
    v8u32 x, y;
    memcpy(&x, lo + l, sizeof(x));
    memcpy(&y, hi + l, sizeof(y));
    v8u32 a = __builtin_shufflevector(x, y, 0, 8, 1, 9, 2, 10, 3, 11);
    v8u32 b = __builtin_shufflevector(x, y, 4, 12, 5, 13, 6, 14, 7, 15);
    memcpy(r + l, &a, sizeof(a));
    memcpy(r + l + 4, &b, sizeof(b));
  }
}

static inline void split64(const uint64_t *restrict r, uint32_t *restrict lo, uint32_t *restrict hi)
{
  for (unsigned l = 0; l < WAVE_SIZE; l += 8) {
    v8u32 x, y;
    memcpy(&x, r + l, sizeof(x));
    memcpy(&y, r + l + 4, sizeof(y));
    v8u32 a = __builtin_shufflevector(x, y, 0, 2, 4, 6, 8, 10, 12, 14);
    v8u32 b = __builtin_shufflevector(x, y, 1, 3, 5, 7, 9, 11, 13, 15);
    memcpy(lo + l, &a, sizeof(a));
    memcpy(hi + l, &b, sizeof(b));
  }
}
#else
static inline void join64(const uint32_t *restrict lo, const uint32_t *restrict hi,
                          uint64_t *restrict r)
{
  LANES r[l] = lo[l] | (uint64_t)hi[l] << 32;
}

static inline void split64(const uint64_t *restrict r, uint32_t *restrict lo, uint32_t *restrict hi)
{
  LANES { lo[l] = (uint32_t)r[l]; hi[l] = (uint32_t)(r[l] >> 32); }
}
#endif

/* Source i widened as exec_valu.c's fetch does: a register pair, or a 32-bit register
 * zero-extended, or a scalar of the operand's width. */
static inline __attribute__((always_inline)) const uint64_t *source64(struct isa_wave *w, const struct isa_inst *in, int i,
                                uint64_t *restrict buf)
{
  unsigned code = in->src[i], width = in->src_w[i] ? in->src_w[i] : 1;
  if (code == OPD_NONE)
    return buf;
  if (code >= OPD_VGPR) {
    const uint32_t *lo = wave_vreg(w, code);
    if (width >= 2)
      join64(lo, wave_vreg(w, code + 1), buf);
    else
      LANES buf[l] = lo[l];
    return buf;
  }
  uint64_t v = wave_scalar_src(w, in, code, width);
  LANES buf[l] = v;
  return buf;
}

static inline __attribute__((always_inline)) void store64(struct isa_wave *w, unsigned dst, const uint64_t *r, uint64_t exec)
{
  uint32_t *restrict lo = wave_vreg(w, dst), *restrict hi = wave_vreg(w, dst + 1);
  if (exec == ~0ull) {
    split64(r, lo, hi);
    return;
  }
  for (uint64_t m = exec; m; m &= m - 1) {
    unsigned l = (unsigned)__builtin_ctzll(m);
    lo[l] = (uint32_t)r[l];
    hi[l] = (uint32_t)(r[l] >> 32);
  }
}

/* v_mad_u64_u32 / v_mad_i64_i32 report the overflow of the 64-bit sum in sdst. */
static uint64_t mad64(unsigned op, const uint64_t *restrict a, const uint64_t *restrict b,
                      const uint64_t *restrict c, uint64_t *restrict r)
{
  uint8_t ovf[WAVE_SIZE];
  uint64_t out = 0;
  if (op == OP_V_MAD_U64_U32) {
    LANES {
      unsigned __int128 p = (unsigned __int128)((uint64_t)(uint32_t)a[l] * (uint32_t)b[l]) + c[l];
      r[l] = (uint64_t)p;
      ovf[l] = (p >> 64) != 0;
    }
  } else {
    LANES {
      __int128 p = (__int128)((int64_t)(int32_t)a[l] * (int32_t)b[l]) + (int64_t)c[l];
      r[l] = (uint64_t)p;
      ovf[l] = p != (__int128)(int64_t)r[l];
    }
  }
  LANES out |= (uint64_t)ovf[l] << l;
  return out;
}

#ifdef VALU_FAST_VECTORS
/* A 64-bit source read eight lanes at a time: a register pair, a 32-bit register
 * (zero-extended) or a scalar (`lo` NULL). */
struct src64 {
  const uint32_t *lo, *hi;
  uint64_t k;
};

static inline struct src64 src64_of(struct isa_wave *w, const struct isa_inst *in, int i)
{
  struct src64 s = {NULL, NULL, 0};
  unsigned code = in->src[i], width = in->src_w[i] ? in->src_w[i] : 1;
  if (code == OPD_NONE)
    return s;   /* not read by the operation */
  if (code >= OPD_VGPR) {
    s.lo = wave_vreg(w, code);
    s.hi = width >= 2 ? wave_vreg(w, code + 1) : NULL;
    return s;
  }
  s.k = wave_scalar_src(w, in, code, width);
  return s;
}

/* Lanes l..l+7 of s as two vectors of four 64-bit lanes. */
static inline __attribute__((always_inline)) void src64_load8(const struct src64 *s, unsigned l, v4u64 *a, v4u64 *b)
{
  if (!s->lo) {
    *a = *b = (v4u64){s->k, s->k, s->k, s->k};
    return;
  }
  v8u32 x, y = {0, 0, 0, 0, 0, 0, 0, 0};
  memcpy(&x, s->lo + l, sizeof(x));
  if (s->hi)
    memcpy(&y, s->hi + l, sizeof(y));
  *a = (v4u64)__builtin_shufflevector(x, y, 0, 8, 1, 9, 2, 10, 3, 11);
  *b = (v4u64)__builtin_shufflevector(x, y, 4, 12, 5, 13, 6, 14, 7, 15);
}

/* The shifts, moves and v_lshl_add_u64 with every lane active, eight lanes at a time from the
 * registers to the registers (no 64-bit lane arrays in between). Lanes are independent, so a
 * destination that overlaps a source is read before it is written, chunk by chunk. One loop
 * per operation: the operation is not decided again for every chunk. */
#define INT64_CHUNKS(EXPR)                                                                 \
  for (unsigned l = 0; l < WAVE_SIZE; l += 8) {                                            \
    v4u64 a0, a1, b0, b1, c0, c1;                                                          \
    src64_load8(&sa, l, &a0, &a1);                                                         \
    src64_load8(&sb, l, &b0, &b1);                                                         \
    src64_load8(&sc, l, &c0, &c1);                                                         \
    v4u64 r0, r1;                                                                          \
    { v4u64 a = a0, b = b0, c = c0; (void)a; (void)b; (void)c; r0 = (EXPR); }              \
    { v4u64 a = a1, b = b1, c = c1; (void)a; (void)b; (void)c; r1 = (EXPR); }              \
    v8u32 x = (v8u32)r0, y = (v8u32)r1;                                                    \
    v8u32 rl = __builtin_shufflevector(x, y, 0, 2, 4, 6, 8, 10, 12, 14);                   \
    v8u32 rh = __builtin_shufflevector(x, y, 1, 3, 5, 7, 9, 11, 13, 15);                   \
    memcpy(lo + l, &rl, sizeof(rl));                                                       \
    memcpy(hi + l, &rh, sizeof(rh));                                                       \
  }

VALU_FAST_CLONES
static void int64_all_lanes(struct isa_wave *w, const struct isa_inst *in)
{
  struct src64 sa = src64_of(w, in, 0), sb = src64_of(w, in, 1);
  struct src64 sc = in->enc == ENC_VOP3 ? src64_of(w, in, 2) : (struct src64){NULL, NULL, 0};
  uint32_t *lo = wave_vreg(w, in->dst), *hi = wave_vreg(w, in->dst + 1);
  switch (in->op) {
  case OP_V_MOV_B64: INT64_CHUNKS(a); return;
  case OP_V_LSHLREV_B64: INT64_CHUNKS(b << (a & 63)); return;
  case OP_V_LSHRREV_B64: INT64_CHUNKS(b >> (a & 63)); return;
  case OP_V_ASHRREV_I64: INT64_CHUNKS((v4u64)((v4i64)b >> (v4i64)(a & 63))); return;
  default: INT64_CHUNKS((a << (b & 7)) + c); return;   /* v_lshl_add_u64 */
  }
}
#undef INT64_CHUNKS
#endif

#ifdef VALU_FAST_VECTORS
/* ---- 64-bit left shifts by a wave-uniform amount, on the dword halves ---- */

/* A 64-bit source: a register pair's low and high dwords (lo non-NULL), or a scalar k (64 bits
 * wide, as source64 reads it). */
struct pair_src {
  const uint32_t *lo, *hi;
  uint64_t k;
};

static struct pair_src pair_source(struct isa_wave *w, const struct isa_inst *in, int i)
{
  unsigned code = in->src[i];
  if (code >= OPD_VGPR)
    return (struct pair_src){wave_vreg(w, code), wave_vreg(w, code + 1), 0};
  return (struct pair_src){NULL, NULL, wave_scalar_src(w, in, code, 2)};
}

/* Lanes l..l+7 of p as low and high dwords; `vgpr`: whether p is a register pair (p->lo
 * non-NULL), a constant of the caller. */
static inline __attribute__((always_inline)) void pair_load8k(const struct pair_src *p, unsigned l,
                                                              v8u32 *lo, v8u32 *hi, const bool vgpr)
{
  if (vgpr) {
    memcpy(lo, p->lo + l, sizeof(*lo));
    memcpy(hi, p->hi + l, sizeof(*hi));
    return;
  }
  uint32_t a = (uint32_t)p->k, b = (uint32_t)(p->k >> 32);
  *lo = (v8u32){a, a, a, a, a, a, a, a};
  *hi = (v8u32){b, b, b, b, b, b, b, b};
}

/* (x << s) + y for lanes l..l+7, with how the shift splits (`kind`: 0 for s == 0, 1 for
 * s < 32, 2 for s >= 32), whether x is a register pair (xv) and the addend's kind (yk: none,
 * a register pair, a scalar) as constants of the caller, so that each of shl64_add's loops
 * tests nothing per step. A scalar operand comes broadcast (kxl..kyh), once per loop: read
 * through its struct in the loop, it would be read again after every store. */
static inline __attribute__((always_inline)) void
shl64_add8(uint32_t *rlo, uint32_t *rhi, const uint32_t *xlo, const uint32_t *xhi,
           const uint32_t *ylo, const uint32_t *yhi, const v8u32 *kx, const v8u32 *ky, unsigned s,
           unsigned l, const int kind, const bool xv, const int yk)
{
  v8u32 xl = kx[0], xh = kx[1], sl, sh;
  if (xv) {
    memcpy(&xl, xlo + l, sizeof(xl));
    memcpy(&xh, xhi + l, sizeof(xh));
  }
  if (kind == 0) {
    sl = xl;
    sh = xh;
  } else if (kind == 1) {
    sl = xl << s;
    sh = (xh << s) | (xl >> (32 - s));
  } else {
    sl = xl ^ xl;
    sh = xl << (s - 32);
  }
  if (yk) {
    v8u32 yl = ky[0], yh = ky[1];
    if (yk == 1) {
      memcpy(&yl, ylo + l, sizeof(yl));
      memcpy(&yh, yhi + l, sizeof(yh));
    }
    v8u32 rl = sl + yl;
    sh = sh + yh - (v8u32)(rl < sl);   /* the carry: a true compare is all ones (-1) */
    sl = rl;
  }
  memcpy(rlo + l, &sl, sizeof(sl));
  memcpy(rhi + l, &sh, sizeof(sh));
}

/* One loop of shl64_add for a shift kind, a source kind (XV) and an addend kind (YK). */
#define SHL64_LOOP(KIND, XV, YK)                                                            \
  do {                                                                                      \
    for (unsigned l = 0; l < WAVE_SIZE; l += 8)                                             \
      shl64_add8(rlo, rhi, xlo, xhi, ylo, yhi, kx, ky, s, l, KIND, XV, YK);                 \
  } while (0)

/* (x << s) + y for 64 lanes of 64-bit values held as low and high dwords (y NULL: no addend),
 * s in 0..63: the same bits as the 64-bit operations. Eight lanes a step, every input of a
 * step read before its results are stored, so the result may overwrite a source. (By
 * pointer: a 32-byte vector passed by value would have an ABI that depends on AVX.) The
 * shift's kind and the operands' kinds are decided once, outside the loops. */
VALU_FAST_CLONES
static void shl64_add(uint32_t *rlo, uint32_t *rhi, const struct pair_src *x, unsigned s,
                      const struct pair_src *y)
{
  int kind = s == 0 ? 0 : s < 32 ? 1 : 2;
  int yk = !y ? 0 : y->lo ? 1 : 2;
  const uint32_t *xlo = x->lo, *xhi = x->hi, *ylo = y ? y->lo : NULL, *yhi = y ? y->hi : NULL;
  v8u32 kx[2], ky[2];
  pair_load8k(x, 0, &kx[0], &kx[1], false);
  if (y)
    pair_load8k(y, 0, &ky[0], &ky[1], false);
  else
    ky[0] = ky[1] = kx[0] ^ kx[0];
  switch (kind * 6 + (x->lo ? 3 : 0) + yk) {
  case 0: SHL64_LOOP(0, 0, 0); return;
  case 1: SHL64_LOOP(0, 0, 1); return;
  case 2: SHL64_LOOP(0, 0, 2); return;
  case 3: SHL64_LOOP(0, 1, 0); return;
  case 4: SHL64_LOOP(0, 1, 1); return;
  case 5: SHL64_LOOP(0, 1, 2); return;
  case 6: SHL64_LOOP(1, 0, 0); return;
  case 7: SHL64_LOOP(1, 0, 1); return;
  case 8: SHL64_LOOP(1, 0, 2); return;
  case 9: SHL64_LOOP(1, 1, 0); return;
  case 10: SHL64_LOOP(1, 1, 1); return;
  case 11: SHL64_LOOP(1, 1, 2); return;
  case 12: SHL64_LOOP(2, 0, 0); return;
  case 13: SHL64_LOOP(2, 0, 1); return;
  case 14: SHL64_LOOP(2, 0, 2); return;
  case 15: SHL64_LOOP(2, 1, 0); return;
  case 16: SHL64_LOOP(2, 1, 1); return;
  default: SHL64_LOOP(2, 1, 2); return;
  }
}
#undef SHL64_LOOP

/* v_lshlrev_b64 with a scalar shift amount and v_lshl_add_u64 with a scalar shift: the
 * commonest 64-bit VALU operations of address arithmetic. Returns 1 for any other form. */
static int shift64_uniform(struct isa_wave *w, const struct isa_inst *in, uint64_t exec)
{
  int k = in->op == OP_V_LSHLREV_B64 ? 0 : in->op == OP_V_LSHL_ADD_U64 ? 1 : -1;
  if (k < 0 || in->src[k] >= OPD_VGPR)
    return 1;
  uint32_t tmp[2][WAVE_SIZE];
  unsigned s = (unsigned)wave_scalar_src(w, in, in->src[k], 1) & (k ? 7 : 63);
  struct pair_src x = pair_source(w, in, k ? 0 : 1), y;
  if (k)
    y = pair_source(w, in, 2);
  uint32_t *dlo = wave_vreg(w, in->dst), *dhi = wave_vreg(w, in->dst + 1);
  if (exec == ~0ull) {
    shl64_add(dlo, dhi, &x, s, k ? &y : NULL);
    return 0;
  }
  shl64_add(tmp[0], tmp[1], &x, s, k ? &y : NULL);
  store(w, in->dst, tmp[0], exec);
  store(w, in->dst + 1, tmp[1], exec);
  return 0;
}
#endif

VALU_FAST_CLONES
static void int64_op(struct isa_wave *w, const struct isa_inst *in, uint64_t exec)
{
#ifdef VALU_FAST_VECTORS
  if (!shift64_uniform(w, in, exec))
    return;
  if (exec == ~0ull && in->op != OP_V_MAD_U64_U32 && in->op != OP_V_MAD_I64_I32) {
    int64_all_lanes(w, in);
    return;
  }
#endif
  uint64_t buf[3][WAVE_SIZE], r[WAVE_SIZE];
  const uint64_t *restrict a = source64(w, in, 0, buf[0]);
  const uint64_t *restrict b = source64(w, in, 1, buf[1]);
  const uint64_t *restrict c = in->enc == ENC_VOP3 ? source64(w, in, 2, buf[2]) : buf[2];
  switch (in->op) {
  case OP_V_MOV_B64: LANES r[l] = a[l]; break;
  case OP_V_LSHLREV_B64: LANES r[l] = b[l] << (a[l] & 63); break;
  case OP_V_LSHRREV_B64: LANES r[l] = b[l] >> (a[l] & 63); break;
  case OP_V_ASHRREV_I64: LANES r[l] = (uint64_t)((int64_t)b[l] >> (a[l] & 63)); break;
  case OP_V_LSHL_ADD_U64: LANES r[l] = (a[l] << (b[l] & 7)) + c[l]; break;
  default: /* v_mad_u64_u32, v_mad_i64_i32 */
    wave_set_sreg64(w, in->sdst, mad64(in->op, a, b, c, r) & exec);
    break;
  }
  store64(w, in->dst, r, exec);
}

/* ---- f64 add, mul and fma ---- */

/* exec_valu.c's alu() applies no denormal mode to these (MODE's f64 denormals are the HIP
 * default, and the host keeps them): the host operations are the results. */
VALU_FAST_CLONES
static void f64_lanes(unsigned op, const uint64_t *restrict a, const uint64_t *restrict b,
                      const uint64_t *restrict c, uint64_t *restrict r)
{
  switch (op) {
  case OP_V_ADD_F64: LANES r[l] = bits_f64(f64_of(a[l]) + f64_of(b[l])); return;
  case OP_V_MUL_F64: LANES r[l] = bits_f64(f64_of(a[l]) * f64_of(b[l])); return;
  default: LANES r[l] = bits_f64(fma(f64_of(a[l]), f64_of(b[l]), f64_of(c[l]))); return;
  }
}

/* v_add_f64, v_mul_f64, v_fma_f64 and v_fmac_f64 (which accumulates into its destination).
 * Cloned as a whole: the register-pair shuffles need AVX2 to stay in registers. */
VALU_FAST_CLONES
static void f64_op(struct isa_wave *w, const struct isa_inst *in, uint64_t exec)
{
  uint64_t buf[3][WAVE_SIZE], r[WAVE_SIZE];
  const uint64_t *a = source64(w, in, 0, buf[0]), *b = source64(w, in, 1, buf[1]);
  const uint64_t *c = buf[2];
  if (in->op == OP_V_FMAC_F64) {
    join64(wave_vreg(w, in->dst), wave_vreg(w, in->dst + 1), buf[2]);
  } else if (in->op == OP_V_FMA_F64) {
    c = source64(w, in, 2, buf[2]);
  }
  f64_lanes(in->op, a, b, c, r);
  store64(w, in->dst, r, exec);
}

/* ---- v_cvt_f64_f32 and v_cvt_f32_f64 ----
 *
 * HIP code turns a float into a double and back around every double constant (x * 5.34f
 * without the f). exec_valu.c converts on the host, flushing f32 denormals when MODE says so;
 * fast_run sends that mode there, so these are the host's conversions (round to nearest
 * even, the host's and the default MODE's rounding). */
static bool cvt64_plain(const struct isa_inst *in)
{
  bool widen = in->op == OP_V_CVT_F64_F32;
  if (!widen && in->op != OP_V_CVT_F32_F64)
    return false;
  return in->dst_w == (widen ? 2 : 1) && in->src_w[0] == (widen ? 1 : 2) &&
         in->src[0] != OPD_NONE && in->dst >= OPD_VGPR && in->dst != OPD_NONE &&
         !source_mods(in);
}

VALU_FAST_CLONES
static void cvt64_op(struct isa_wave *w, const struct isa_inst *in, uint64_t exec)
{
  if (in->op == OP_V_CVT_F64_F32) {
    uint32_t buf[WAVE_SIZE];
    uint64_t r[WAVE_SIZE];
    const uint32_t *a = source(w, in, 0, buf);
    LANES r[l] = bits_f64((double)f32_of(a[l]));
    store64(w, in->dst, r, exec);
    return;
  }
  uint64_t buf[WAVE_SIZE];
  uint32_t tmp[WAVE_SIZE];
  const uint64_t *a = source64(w, in, 0, buf);   /* a copy: the destination may overlap it */
  /* With every lane active, straight into the register with full-width vector stores (the
   * next instruction's loads are forwarded from them, not from a copy's narrower ones). */
  uint32_t *r = exec == ~0ull ? wave_vreg(w, in->dst) : tmp;
  LANES r[l] = (uint32_t)bits_f32((float)f64_of(a[l]));
  if (r == tmp)
    store(w, in->dst, r, exec);
}

/* ---- compares (v_cmp, v_cmpx) of 32-bit integers and f32 ---- */

/* 64 lane flags (bytes holding 0 or 1) -> a lane mask. Eight at a time: the multiply moves
 * byte i's bit to bit 56 + i without carries between the partial products. */
static uint64_t pack(const uint8_t *restrict bit)
{
  uint64_t m = 0;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  for (unsigned i = 0; i < WAVE_SIZE / 8; i++) {
    uint64_t x;
    memcpy(&x, bit + 8 * i, 8);
    m |= ((x * 0x0102040810204080ull) >> 56) << (8 * i);
  }
#else
  LANES m |= (uint64_t)bit[l] << l;
#endif
  return m;
}

/* The v_cmp predicates (valu_cmp_lookup's numbers) on lanes 0..n-1, each lane's result a
 * byte t[l] of 0 or 1: all 64 lanes (cmp_i32, cmp_f32, which pack them into a mask) or the
 * packed active lanes of a wave with few (few_compare). */
#undef LANES
#define LANES for (unsigned l = 0; l < n; l++)
static inline __attribute__((always_inline)) void
cmp_i32_lanes(unsigned pred, bool sign, const uint32_t *restrict a, const uint32_t *restrict b,
              uint8_t *restrict t, const unsigned n)
{
  switch (pred) {
  case 0: LANES t[l] = 0; return;
  case 1: if (sign) LANES t[l] = (int32_t)a[l] < (int32_t)b[l]; else LANES t[l] = a[l] < b[l]; return;
  case 2: LANES t[l] = a[l] == b[l]; return;
  case 3: if (sign) LANES t[l] = (int32_t)a[l] <= (int32_t)b[l]; else LANES t[l] = a[l] <= b[l]; return;
  case 4: if (sign) LANES t[l] = (int32_t)a[l] > (int32_t)b[l]; else LANES t[l] = a[l] > b[l]; return;
  case 5: LANES t[l] = a[l] != b[l]; return;
  case 6: if (sign) LANES t[l] = (int32_t)a[l] >= (int32_t)b[l]; else LANES t[l] = a[l] >= b[l]; return;
  default: LANES t[l] = 1; return;
  }
}

static inline __attribute__((always_inline)) void
cmp_f32_lanes(unsigned pred, const float *restrict a, const float *restrict b,
              uint8_t *restrict t, const unsigned n)
{
  switch (pred) {
  case 0: LANES t[l] = 0; return;
  case 1: LANES t[l] = a[l] < b[l]; return;
  case 2: LANES t[l] = a[l] == b[l]; return;
  case 3: LANES t[l] = a[l] <= b[l]; return;
  case 4: LANES t[l] = a[l] > b[l]; return;
  case 5: LANES t[l] = a[l] < b[l] || a[l] > b[l]; return;
  case 6: LANES t[l] = a[l] >= b[l]; return;
  case 7: LANES t[l] = !(isnan(a[l]) || isnan(b[l])); return;
  case 8: LANES t[l] = isnan(a[l]) || isnan(b[l]); return;
  case 9: LANES t[l] = !(a[l] >= b[l]); return;
  case 10: LANES t[l] = !(a[l] < b[l] || a[l] > b[l]); return;
  case 11: LANES t[l] = !(a[l] > b[l]); return;
  case 12: LANES t[l] = !(a[l] <= b[l]); return;
  case 13: LANES t[l] = !(a[l] == b[l]); return;
  case 14: LANES t[l] = !(a[l] < b[l]); return;
  default: LANES t[l] = 1; return;
  }
}
#undef LANES
#define LANES for (unsigned l = 0; l < WAVE_SIZE; l++)

VALU_FAST_CLONES
static uint64_t cmp_i32(unsigned pred, bool sign, const uint32_t *restrict a,
                        const uint32_t *restrict b)
{
  if (pred == 0 || pred > 6)
    return pred ? ~0ull : 0;
  uint8_t t[WAVE_SIZE];
  cmp_i32_lanes(pred, sign, a, b, t, WAVE_SIZE);
  return pack(t);
}

VALU_FAST_CLONES
static uint64_t cmp_f32(unsigned pred, const uint32_t *restrict ab, const uint32_t *restrict bb)
{
  if (pred == 0 || pred > 14)
    return pred ? ~0ull : 0;
  uint8_t t[WAVE_SIZE];
  float a[WAVE_SIZE], b[WAVE_SIZE];
  memcpy(a, ab, sizeof(a));
  memcpy(b, bb, sizeof(b));
  cmp_f32_lanes(pred, a, b, t, WAVE_SIZE);
  return pack(t);
}

VALU_FAST_CLONES
static uint64_t cmp_i64(unsigned pred, bool sign, const uint64_t *restrict a,
                        const uint64_t *restrict b)
{
  uint8_t t[WAVE_SIZE];
  switch (pred) {
  case 0: return 0;
  case 1: if (sign) LANES t[l] = (int64_t)a[l] < (int64_t)b[l]; else LANES t[l] = a[l] < b[l]; break;
  case 2: LANES t[l] = a[l] == b[l]; break;
  case 3: if (sign) LANES t[l] = (int64_t)a[l] <= (int64_t)b[l]; else LANES t[l] = a[l] <= b[l]; break;
  case 4: if (sign) LANES t[l] = (int64_t)a[l] > (int64_t)b[l]; else LANES t[l] = a[l] > b[l]; break;
  case 5: LANES t[l] = a[l] != b[l]; break;
  case 6: if (sign) LANES t[l] = (int64_t)a[l] >= (int64_t)b[l]; else LANES t[l] = a[l] >= b[l]; break;
  default: return ~0ull;
  }
  return pack(t);
}

/* ---- waves with few active lanes ----
 *
 * A wave with 16 or fewer active lanes (a loop run by one lane, a tail) pays for 64 on the
 * paths above: a scalar operand broadcast into 64 lanes, abs/neg applied to 64, the operation
 * computed for 64. Here the active lanes' operands are packed (lane[j] is the j-th active
 * lane), a scalar operand is read once, the operation runs on the packed lanes through the
 * same lane functions (int_lanes, f32_lanes, f32_lib, the compare bodies) and each result goes
 * back to its lane: the same host operations on the same values, so the same bits. Cloned
 * as the 64-lane functions, so that fmaf is one instruction where the host has FMA. */
#define FEW_LANES 16

struct few {
  unsigned n;
  uint8_t lane[FEW_LANES];
};

/* The active lanes of exec in order, when there are at most FEW_LANES of them. (Counted by
 * visiting them, not with a popcount: without POPCNT in the baseline target that is a library
 * call.) */
static inline bool few_lanes(uint64_t exec, struct few *f)
{
  if (exec == ~0ull)
    return false;
  unsigned n = 0;
  for (uint64_t m = exec; m; m &= m - 1) {
    if (n == FEW_LANES)
      return false;
    f->lane[n++] = (uint8_t)__builtin_ctzll(m);
  }
  f->n = n;
  return true;
}

/* Source i in the packed lanes, abs then neg applied as source() applies them (none set for
 * the unmodified forms: the values are the register's or the scalar's). */
static inline __attribute__((always_inline)) void
few_source(struct isa_wave *w, const struct isa_inst *in, int i, const struct few *f,
           uint32_t *restrict out, const unsigned n)
{
  unsigned code = in->src[i];
  if (code == OPD_NONE)
    return;   /* not read by the operation */
  uint32_t keep = in->abs >> i & 1 ? 0x7fffffffu : ~0u;
  uint32_t flip = in->neg >> i & 1 ? 0x80000000u : 0;
  if (code >= OPD_VGPR) {
    const uint32_t *v = wave_vreg(w, code);
    for (unsigned j = 0; j < n; j++)
      out[j] = (v[f->lane[j]] & keep) ^ flip;
    return;
  }
  uint32_t k = (scalar32(w, in, code) & keep) ^ flip;
  for (unsigned j = 0; j < n; j++)
    out[j] = k;
}

/* Whether few_run computes `in` of class `kind`: the lane-wise 32-bit classes, except the
 * v_mbcnt forms (their result depends on the lane number, which the packed lanes lose). */
static bool few_kind(const struct isa_inst *in, enum fast_kind kind)
{
  if (kind == FAST_INT)
    return in->op != OP_V_MBCNT_LO_U32_B32 && in->op != OP_V_MBCNT_HI_U32_B32;
  return kind == FAST_F32 || kind == FAST_CNDMASK;
}

/* fast_run's FAST_INT / FAST_F32 / FAST_CNDMASK work on the lanes of f (few_kind). Every
 * source is packed before the destination is written, so a destination that is a source reads
 * its old values. */
static inline __attribute__((always_inline)) void
few_run_n(struct isa_wave *w, const struct isa_inst *in, enum fast_kind kind, const struct few *f,
          const unsigned n)
{
  /* c and r zeroed: not every operation reads src2 or writes every lane's result (an
   * operation outside int_lanes' set leaves r as it is), and nothing unset is stored */
  uint32_t a[FEW_LANES], b[FEW_LANES], c[FEW_LANES] = {0}, r[FEW_LANES] = {0};
  bool e64 = in->enc == ENC_VOP3;
  uint32_t *d = wave_vreg(w, in->dst);
  few_source(w, in, 0, f, a, n);
  few_source(w, in, 1, f, b, n);
  if (kind == FAST_CNDMASK) {
    uint64_t sel = e64 ? wave_scalar_src(w, in, in->src[2], 2) : wave_sreg64(w, OPD_VCC);
    for (unsigned j = 0; j < n; j++)
      r[j] = (sel >> f->lane[j] & 1) ? b[j] : a[j];
  } else if (kind == FAST_F32) {
    if (in->op == OP_V_FMAC_F32) {   /* accumulates into its destination */
      for (unsigned j = 0; j < n; j++)
        c[j] = d[f->lane[j]];
    } else if (e64) {
      few_source(w, in, 2, f, c, n);
    }
    if (!f32_lanes(in, a, b, c, r, n))
      f32_lib(in->op, a, b, r, n);
  } else {
    if (e64)
      few_source(w, in, 2, f, c, n);
    int_lanes(in->op, a, b, c, r, n);
  }
  for (unsigned j = 0; j < n; j++)
    d[f->lane[j]] = r[j];
}

/* One active lane (a loop in one lane: the commonest case) with the count a constant, so that
 * the lane loops above compile to straight lines. */
VALU_FAST_CLONES
static void few_run(struct isa_wave *w, const struct isa_inst *in, enum fast_kind kind,
                    const struct few *f)
{
  if (f->n == 1)
    few_run_n(w, in, kind, f, 1);
  else
    few_run_n(w, in, kind, f, f->n);
}

/* A v_cmp of i32, u32 or f32 (f32 denormals kept: the caller checked MODE) on the lanes of f:
 * the lane mask, 0 in the inactive lanes. */
static inline __attribute__((always_inline)) uint64_t
few_compare_n(struct isa_wave *w, const struct isa_inst *in, unsigned type, unsigned pred,
              const struct few *f, const unsigned n)
{
  uint32_t a[FEW_LANES], b[FEW_LANES];
  uint8_t t[FEW_LANES];
  few_source(w, in, 0, f, a, n);
  few_source(w, in, 1, f, b, n);
  if (type == CT_F32) {
    float x[FEW_LANES], y[FEW_LANES];
    memcpy(x, a, sizeof(x));
    memcpy(y, b, sizeof(y));
    cmp_f32_lanes(pred, x, y, t, n);
  } else {
    cmp_i32_lanes(pred, type == CT_I32, a, b, t, n);
  }
  uint64_t res = 0;
  for (unsigned j = 0; j < n; j++)
    res |= (uint64_t)t[j] << f->lane[j];
  return res;
}

/* As few_run: one active lane with the count a constant. */
VALU_FAST_CLONES
static uint64_t few_compare(struct isa_wave *w, const struct isa_inst *in, unsigned type,
                            unsigned pred, const struct few *f)
{
  if (f->n == 1)
    return few_compare_n(w, in, type, pred, f, 1);
  return few_compare_n(w, in, type, pred, f, f->n);
}

/* ---- v_cmp_class_f32 / f64 ---- */

static bool class_op(unsigned op)
{
  return op == OP_V_CMP_CLASS_F32 || op == OP_V_CMPX_CLASS_F32 || op == OP_V_CMP_CLASS_F64 ||
         op == OP_V_CMPX_CLASS_F64;
}

static bool class_f64(unsigned op)
{
  return op == OP_V_CMP_CLASS_F64 || op == OP_V_CMPX_CLASS_F64;
}

/* The forms class_run takes: VOPC or VOP3 (fast_static has turned away DPP, SDWA, op_sel,
 * clamp and omod), src0 of its type's width, a 32-bit class mask. */
static bool class_form(const struct isa_inst *in)
{
  unsigned w0 = in->src_w[0] ? in->src_w[0] : 1;
  return class_op(in->op) && w0 == (class_f64(in->op) ? 2u : 1u) && in->src_w[1] <= 1 &&
         in->src[0] != OPD_NONE && in->src[1] != OPD_NONE &&
         (in->enc == ENC_VOPC || in->enc == ENC_VOP3);
}

/* The class mask bit that value v (mbits of mantissa, ebits of exponent, then the sign) tests
 * (ISA guide, V_CMP_CLASS): 0 signaling NaN, 1 quiet NaN (the mantissa's top bit set),
 * 2 -inf, 3 -normal, 4 -denormal, 5 -0, 6 +0, 7 +denormal, 8 +normal, 9 +inf. exec_valu.c's
 * fclass from the host's classification; the same classes from the bits. */
static inline unsigned class_bit(uint64_t v, const unsigned mbits, const unsigned ebits)
{
  uint64_t mant = v & ((1ull << mbits) - 1), exp = v >> mbits & ((1ull << ebits) - 1);
  bool neg = v >> (mbits + ebits) & 1;
  if (exp == (1ull << ebits) - 1)
    return mant ? (unsigned)(mant >> (mbits - 1)) : neg ? 2 : 9;
  if (exp == 0)
    return mant ? (neg ? 4u : 7u) : (neg ? 5u : 6u);
  return neg ? 3 : 8;
}

/* The lane mask of a class_form instruction under exec: each active lane's value (abs then neg
 * on its sign bit, as exec_valu.c's fetch) tested against its lane's class mask. A scalar
 * operand is read once, as fetch reads it (wave_scalar_src at the operand's width). */
static inline __attribute__((always_inline)) uint64_t
class_lanes_t(struct isa_wave *w, const struct isa_inst *in, uint64_t exec, const bool f64)
{
  unsigned c0 = in->src[0], c1 = in->src[1];
  const uint32_t *lo = NULL, *hi = NULL, *mv = NULL;
  uint64_t k = 0, sign = f64 ? 1ull << 63 : 1ull << 31;
  uint32_t km = 0;
  if (c0 >= OPD_VGPR) {
    lo = wave_vreg(w, c0);
    hi = f64 ? wave_vreg(w, c0 + 1) : NULL;
  } else {
    k = wave_scalar_src(w, in, c0, f64 ? 2 : 1);
  }
  if (c1 >= OPD_VGPR)
    mv = wave_vreg(w, c1);
  else
    km = (uint32_t)wave_scalar_src(w, in, c1, 1);
  uint64_t keep = in->abs & 1 ? ~sign : ~0ull, flip = in->neg & 1 ? sign : 0;
  uint64_t res = 0;
  for (uint64_t m = exec; m; m &= m - 1) {
    unsigned l = (unsigned)__builtin_ctzll(m);
    uint64_t v = lo ? lo[l] | (hi ? (uint64_t)hi[l] << 32 : 0) : k;
    v = (v & keep) ^ flip;
    unsigned bit = f64 ? class_bit(v, 52, 11) : class_bit((uint32_t)v, 23, 8);
    uint32_t mask = mv ? mv[l] : km;
    res |= (uint64_t)(mask >> bit & 1) << l;
  }
  return res;
}

/* class_bit for an f32 value in 32-bit arithmetic, selects rather than branches, so that
 * class32_wave's loop vectorises. */
static inline uint32_t class_bit32(uint32_t x)
{
  uint32_t e = x >> 23 & 0xff, m = x & 0x7fffff, s = x >> 31;
  uint32_t special = m ? m >> 22 : 9 - 7 * s;   /* exponent all ones: NaN, or inf (9, 2) */
  uint32_t small = m ? 7 - 3 * s : 6 - s;       /* exponent zero: denormal (7, 4) or 0 (6, 5) */
  uint32_t normal = 8 - 5 * s;                  /* 8, 3 */
  return e == 0xff ? special : e == 0 ? small : normal;
}

/* v_cmp_class_f32 over 64 lanes (src0 values v with abs/neg as keep/flip, class masks mv),
 * packed into a lane mask: a wave with many active lanes (math library code in every lane). */
VALU_FAST_CLONES
static uint64_t class32_wave(const uint32_t *restrict v, uint32_t keep, uint32_t flip,
                             const uint32_t *restrict mv)
{
  uint8_t t[WAVE_SIZE];
  LANES t[l] = (uint8_t)(mv[l] >> class_bit32((v[l] & keep) ^ flip) & 1);
  return pack(t);
}

/* class_lanes_t with the type a constant (the f32 form is the common one); an f32 class with
 * more than FEW_LANES active lanes through class32_wave, its scalar operands broadcast. */
static uint64_t class_lanes(struct isa_wave *w, const struct isa_inst *in, uint64_t exec)
{
  if (class_f64(in->op))
    return class_lanes_t(w, in, exec, true);
  struct few f;
  if (few_lanes(exec, &f))
    return class_lanes_t(w, in, exec, false);
  lane32_t buf[2];
  unsigned c0 = in->src[0], c1 = in->src[1];
  const uint32_t *v = buf[0], *mv = buf[1];
  if (c0 >= OPD_VGPR)
    v = wave_vreg(w, c0);
  else
    splat32(buf[0], (uint32_t)wave_scalar_src(w, in, c0, 1));
  if (c1 >= OPD_VGPR)
    mv = wave_vreg(w, c1);
  else
    splat32(buf[1], (uint32_t)wave_scalar_src(w, in, c1, 1));
  uint32_t keep = in->abs & 1 ? 0x7fffffffu : ~0u, flip = in->neg & 1 ? 0x80000000u : 0;
  return class32_wave(v, keep, flip, mv) & exec;
}

/* A class_form instruction: the mask to VCC (VOPC) or the VOP3 destination, and to EXEC for
 * v_cmpx. */
static void class_run(struct isa_wave *w, const struct isa_inst *in)
{
  uint64_t res = class_lanes(w, in, wave_exec(w));
  wave_set_sreg64(w, in->enc == ENC_VOP3 ? in->dst : OPD_VCC, res);
  if (in->op == OP_V_CMPX_CLASS_F32 || in->op == OP_V_CMPX_CLASS_F64)
    wave_set_exec(w, res);
}

/* The bound executor of a class_form instruction (math library code tests for NaN, infinity
 * and denormals with it around nearly every f32 call). */
static int valu_cmp_class(struct isa_wave *w, const struct isa_inst *in)
{
  if (w->gpr_idx >> 31)
    return exec_valu_general(w, in);   /* VGPR indexing: exec_valu.c relocates the operands */
  class_run(w, in);
  return 0;
}

/* v_cmp/v_cmpx of 64-bit integers: register pairs or 64-bit scalars (cloned for the pair
 * shuffles, as f64_op). */
VALU_FAST_CLONES
static uint64_t compare64(struct isa_wave *w, const struct isa_inst *in, unsigned type,
                          unsigned pred)
{
  uint64_t buf[2][WAVE_SIZE];
  const uint64_t *a = source64(w, in, 0, buf[0]), *b = source64(w, in, 1, buf[1]);
  return cmp_i64(pred, type == CT_I64, a, b);
}

/* Returns 1 when the compare is not one of ours (16-bit, f64, class, flushed f32). */
static int compare(struct isa_wave *w, const struct isa_inst *in)
{
  unsigned type, pred;
  bool x;
  if (class_op(in->op)) {
    if (!class_form(in))
      return 1;
    class_run(w, in);
    return 0;
  }
  if (!valu_cmp_lookup(in->op, &type, &pred, &x))
    return 1;
  bool wide = type == CT_I64 || type == CT_U64;
  if (wide ? in->src_w[0] != 2 || in->src_w[1] != 2 || source_mods(in)
           : in->src_w[0] > 1 || in->src_w[1] > 1)
    return 1;
  if (!wide && type != CT_I32 && type != CT_U32 && !(type == CT_F32 && (w->mode >> 4 & 3)))
    return 1;
  uint64_t res;
  struct few f;
  if (wide) {
    res = compare64(w, in, type, pred);
  } else if (few_lanes(wave_exec(w), &f)) {
    res = few_compare(w, in, type, pred, &f);
  } else {
    lane32_t buf[2];
    const uint32_t *a = source(w, in, 0, buf[0]), *b = source(w, in, 1, buf[1]);
    res = type == CT_F32 ? cmp_f32(pred, a, b) : cmp_i32(pred, type == CT_I32, a, b);
  }
  res &= wave_exec(w);
  wave_set_sreg64(w, in->enc == ENC_VOP3 ? in->dst : OPD_VCC, res);
  if (x)
    wave_set_exec(w, res);
  return 0;
}

/* ---- packed f32 (VOP3P v_pk_add/mul/fma_f32) with default operand selection ---- */

VALU_FAST_CLONES
static void pk_f32_lanes(unsigned op, const uint32_t *const restrict lo[3],
                         const uint32_t *const restrict hi[3], uint32_t *restrict rlo,
                         uint32_t *restrict rhi)
{
  switch (op) {
  case OP_V_PK_ADD_F32:
    LANES { rlo[l] = bits_f32(f32_of(lo[0][l]) + f32_of(lo[1][l])); rhi[l] = bits_f32(f32_of(hi[0][l]) + f32_of(hi[1][l])); }
    break;
  case OP_V_PK_MUL_F32:
    LANES { rlo[l] = bits_f32(f32_of(lo[0][l]) * f32_of(lo[1][l])); rhi[l] = bits_f32(f32_of(hi[0][l]) * f32_of(hi[1][l])); }
    break;
  default:
    LANES {
      rlo[l] = bits_f32(fmaf(f32_of(lo[0][l]), f32_of(lo[1][l]), f32_of(lo[2][l])));
      rhi[l] = bits_f32(fmaf(f32_of(hi[0][l]), f32_of(hi[1][l]), f32_of(hi[2][l])));
    }
    break;
  }
}

/* v_pk_add_f32 (mul false) or v_pk_mul_f32 with every lane active, straight to the
 * destination pair: eight lanes a step, each step's inputs (both halves of both sources) read
 * before its results are stored, so a destination pair that is, or overlaps, a source pair
 * reads the old values as through pk_f32_lanes' temporaries. The same IEEE operations. */
VALU_FAST_CLONES
static void pk_f32_whole(bool mul, uint32_t *rlo, uint32_t *rhi, const uint32_t *const lo[3],
                         const uint32_t *const hi[3])
{
  typedef float f32x8 __attribute__((vector_size(32)));
  for (unsigned l = 0; l < WAVE_SIZE; l += 8) {
    f32x8 a0, b0, a1, b1;
    memcpy(&a0, lo[0] + l, sizeof(a0));
    memcpy(&b0, lo[1] + l, sizeof(b0));
    memcpy(&a1, hi[0] + l, sizeof(a1));
    memcpy(&b1, hi[1] + l, sizeof(b1));
    f32x8 r0 = mul ? a0 * b0 : a0 + b0, r1 = mul ? a1 * b1 : a1 + b1;
    memcpy(rlo + l, &r0, sizeof(r0));
    memcpy(rhi + l, &r1, sizeof(r1));
  }
}

/* Each half of the result from the same half of every source (op_sel 0, op_sel_hi 1), no
 * negation, VGPR sources only (a scalar or constant operand has its own packing rules, kept in
 * exec_valu.c), f32 denormals kept. Returns 1 otherwise. */
static int pk_f32(struct isa_wave *w, const struct isa_inst *in)
{
  unsigned n = in->op == OP_V_PK_FMA_F32 ? 3 : 2, all = (1u << n) - 1;
  if ((in->op != OP_V_PK_ADD_F32 && in->op != OP_V_PK_MUL_F32 && in->op != OP_V_PK_FMA_F32) ||
      in->neg || in->neg_hi || in->clamp || (in->opsel & all) || (in->opsel_hi & all) != all ||
      !(w->mode >> 4 & 3) || (w->gpr_idx >> 31) || in->dst < OPD_VGPR || in->dst == OPD_NONE)
    return 1;
  const uint32_t *lo[3] = {NULL, NULL, NULL}, *hi[3] = {NULL, NULL, NULL};
  for (unsigned i = 0; i < n; i++) {
    if (in->src[i] < OPD_VGPR || in->src[i] == OPD_NONE)
      return 1;
    lo[i] = wave_vreg(w, in->src[i]);
    hi[i] = wave_vreg(w, in->src[i] + 1);
  }
  uint64_t exec = wave_exec(w);
  if (exec == ~0ull && n == 2) {
    pk_f32_whole(in->op == OP_V_PK_MUL_F32, wave_vreg(w, in->dst), wave_vreg(w, in->dst + 1),
                 lo, hi);
    return 0;
  }
  lane32_t rlo, rhi;
  pk_f32_lanes(in->op, lo, hi, rlo, rhi);
  store(w, in->dst, rlo, exec);
  store(w, in->dst + 1, rhi, exec);
  return 0;
}

/* v_add/mul/fma/fmac_f64 without modifiers, every source 64 bits wide. */
static bool f64_plain(const struct isa_inst *in)
{
  if (in->op != OP_V_ADD_F64 && in->op != OP_V_MUL_F64 && in->op != OP_V_FMA_F64 &&
      in->op != OP_V_FMAC_F64)
    return false;
  unsigned n = in->op == OP_V_FMA_F64 ? 3 : 2;
  for (unsigned i = 0; i < n; i++)
    if (in->src_w[i] != 2 || in->src[i] == OPD_NONE)
      return false;
  return in->dst_w == 2 && in->dst >= OPD_VGPR && in->dst != OPD_NONE && !source_mods(in);
}

static enum fast_kind fast_kind(unsigned op)
{
  switch (op) {
  case OP_V_MOV_B32: case OP_V_NOT_B32: case OP_V_ADD_U32: case OP_V_ADD_I32:
  case OP_V_SUB_U32: case OP_V_SUB_I32: case OP_V_SUBREV_U32: case OP_V_AND_B32:
  case OP_V_OR_B32: case OP_V_XOR_B32: case OP_V_LSHLREV_B32: case OP_V_LSHRREV_B32:
  case OP_V_ASHRREV_I32: case OP_V_MUL_LO_U32: case OP_V_MUL_HI_U32: case OP_V_MUL_U32_U24:
  case OP_V_MUL_I32_I24: case OP_V_MAD_U32_U24: case OP_V_MAD_I32_I24: case OP_V_MAX_U32:
  case OP_V_MIN_U32: case OP_V_MAX_I32: case OP_V_MIN_I32: case OP_V_LSHL_ADD_U32:
  case OP_V_ADD_LSHL_U32: case OP_V_ADD3_U32: case OP_V_LSHL_OR_B32: case OP_V_AND_OR_B32:
  case OP_V_OR3_B32: case OP_V_XAD_U32: case OP_V_BFI_B32: case OP_V_BFE_U32:
  case OP_V_BFE_I32: case OP_V_BFM_B32: case OP_V_ALIGNBIT_B32: case OP_V_ALIGNBYTE_B32:
  case OP_V_BCNT_U32_B32: case OP_V_MBCNT_LO_U32_B32: case OP_V_MBCNT_HI_U32_B32:
  case OP_V_FFBL_B32: case OP_V_FFBH_U32:
    return FAST_INT;
  case OP_V_ADD_F32: case OP_V_SUB_F32: case OP_V_SUBREV_F32: case OP_V_MUL_F32:
  case OP_V_FMA_F32: case OP_V_FMAC_F32: case OP_V_FMAMK_F32: case OP_V_FMAAK_F32:
  case OP_V_CVT_F32_I32: case OP_V_CVT_F32_U32: case OP_V_MIN_F32: case OP_V_MAX_F32:
  case OP_V_TRUNC_F32: case OP_V_FLOOR_F32: case OP_V_RNDNE_F32: case OP_V_RCP_F32:
  case OP_V_RCP_IFLAG_F32: case OP_V_SQRT_F32: case OP_V_LDEXP_F32: case OP_V_EXP_F32:
  case OP_V_LOG_F32: case OP_V_CVT_I32_F32: case OP_V_CVT_U32_F32:
    return FAST_F32;
  case OP_V_ADD_CO_U32: case OP_V_SUB_CO_U32: case OP_V_SUBREV_CO_U32:
  case OP_V_ADDC_CO_U32: case OP_V_SUBB_CO_U32: case OP_V_SUBBREV_CO_U32:
    return FAST_CARRY;
  case OP_V_CNDMASK_B32:
    return FAST_CNDMASK;
  case OP_V_MOV_B64: case OP_V_LSHLREV_B64: case OP_V_LSHRREV_B64: case OP_V_ASHRREV_I64:
  case OP_V_LSHL_ADD_U64: case OP_V_MAD_U64_U32: case OP_V_MAD_I64_I32:
    return FAST_INT64;
  default:
    return FAST_NONE;
  }
}

/* The direct path's class of `in` from its decoded fields alone: FAST_NONE when only
 * exec_valu.c's path can run it. What depends on the wave (MODE, VGPR indexing, EXEC) is
 * checked by fast_run. */
static enum fast_kind fast_static(const struct isa_inst *in)
{
  if (in->enc == ENC_VOP3P)
    return FAST_PK;
  if (in->dpp_kind != DPP_NONE || in->fp16)
    return FAST_NONE;
  if (in->enc == ENC_VOP3 ? (in->opsel | in->clamp | in->omod) != 0
                          : in->enc != ENC_VOP1 && in->enc != ENC_VOP2 && in->enc != ENC_VOPC)
    return FAST_NONE;   /* abs and neg: see source_mods */
  if (class_op(in->op))
    return class_form(in) ? FAST_CMP : FAST_NONE;
  if (cvt64_plain(in))
    return FAST_CVT64;
  if (in->fp64)
    return f64_plain(in) ? FAST_F64 : FAST_NONE;
  enum fast_kind kind = fast_kind(in->op);
  if (kind == FAST_NONE)
    return in->enc == ENC_VOPC || in->enc == ENC_VOP3 ? FAST_CMP : FAST_NONE;
  if (in->dst < OPD_VGPR || in->dst == OPD_NONE)
    return FAST_NONE;
  /* abs/neg only where source() reads the operand: not the 64-bit lanes, the carry-in, the
   * select mask or v_fmac's accumulator */
  unsigned mods = source_mods(in);
  if (mods && (kind == FAST_INT64 || kind == FAST_CARRY ||
               ((mods & 4) && (kind == FAST_CNDMASK || in->op == OP_V_FMAC_F32))))
    return FAST_NONE;
  if (kind == FAST_INT64)
    return kind;
  if (in->dst_w > 1 || in->src_w[0] > 1 || in->src_w[1] > 1)
    return FAST_NONE;
  /* src2 is a 64-bit lane mask (carry-in, select) for the carry and select forms */
  if (kind == FAST_INT && in->src_w[2] > 1)
    return FAST_NONE;
  return kind;
}

/* Runs `in` of class `kind` (fast_static) unless the wave's state sends it to the general
 * path (returns 1). */
static int fast_run(struct isa_wave *w, const struct isa_inst *in, enum fast_kind kind)
{
  if (w->gpr_idx >> 31)
    return 1;   /* VGPR indexing: exec_valu.c relocates the operands */
  switch (kind) {
  case FAST_NONE: return 1;
  case FAST_PK: return pk_f32(w, in);
  case FAST_CMP: return compare(w, in);
  case FAST_INT64: int64_op(w, in, wave_exec(w)); return 0;
  case FAST_F64: f64_op(w, in, wave_exec(w)); return 0;
  case FAST_CVT64:
    if (!(w->mode >> 4 & 3))
      return 1; /* f32 denormals flushed: exec_valu.c applies MODE */
    cvt64_op(w, in, wave_exec(w));
    return 0;
  case FAST_F32:
    if (!(w->mode >> 4 & 3))
      return 1; /* f32 denormals flushed: exec_valu.c applies MODE */
    break;
  default: break;
  }
  uint64_t exec = wave_exec(w);
  struct few f;
  if (few_kind(in, kind) && few_lanes(exec, &f)) {
    few_run(w, in, kind, &f);
    return 0;
  }
  bool e64 = in->enc == ENC_VOP3;
  lane32_t buf[3], tmp;
  const uint32_t *a = source(w, in, 0, buf[0]), *b = source(w, in, 1, buf[1]);
  const uint32_t *c = buf[2];
  /* With every lane active the result goes straight to the destination: every operation
   * here is lane-wise (lane l reads only lane l of its sources, and reads it before it writes
   * lane l), so a destination that is also a source is still read correctly. */
  uint32_t *d = wave_vreg(w, in->dst), *r = exec == ~0ull ? d : tmp;
  switch (kind) {
  case FAST_CARRY:
    carry_op(w, in, a, b, r, exec);
    break;
  case FAST_CNDMASK: {
    uint64_t sel = e64 ? wave_scalar_src(w, in, in->src[2], 2) : wave_sreg64(w, OPD_VCC);
    LANES r[l] = (sel >> l & 1) ? b[l] : a[l];
    break;
  }
  case FAST_F32:
    /* v_fmac_f32 accumulates into its destination */
    c = in->op == OP_V_FMAC_F32 ? d : e64 ? source(w, in, 2, buf[2]) : c;
    f32_op(in, a, b, c, r, exec);
    break;
  default:
    if (e64)
      c = source(w, in, 2, buf[2]);
    int_op(in->op, a, b, c, r);
    break;
  }
  if (r != d)
    store(w, in->dst, r, exec);
  return 0;
}

int exec_valu_fast(struct isa_wave *w, const struct isa_inst *in)
{
  return fast_run(w, in, fast_static(in));
}

int exec_valu_bound(struct isa_wave *w, const struct isa_inst *in)
{
  if (!fast_run(w, in, (enum fast_kind)in->fast))
    return 0;
  return exec_valu_general(w, in);
}

/* ---- the commonest classes without source modifiers, bound to handlers of their own ---- */

/* Source i without modifiers: a VGPR in place, anything else broadcast into `buf`. */
static inline __attribute__((always_inline)) const uint32_t *
source_plain(struct isa_wave *w, const struct isa_inst *in, int i, uint32_t *buf)
{
  unsigned code = in->src[i];
  if (code >= OPD_VGPR)
    return code == OPD_NONE ? buf : wave_vreg(w, code);
  splat32(buf, scalar32(w, in, code));
  return buf;
}

/* fast_run's FAST_INT and FAST_F32 work for an instruction without abs/neg. */
static inline __attribute__((always_inline)) int lanes32(struct isa_wave *w,
                                                         const struct isa_inst *in, bool f32)
{
  uint64_t exec = wave_exec(w);
  struct few f;
  enum fast_kind kind = f32 ? FAST_F32 : FAST_INT;
  if (few_kind(in, kind) && few_lanes(exec, &f)) {
    few_run(w, in, kind, &f);
    return 0;
  }
  lane32_t buf[3], tmp;
  const uint32_t *a = source_plain(w, in, 0, buf[0]), *b = source_plain(w, in, 1, buf[1]);
  const uint32_t *c = buf[2];
  uint32_t *d = wave_vreg(w, in->dst), *r = exec == ~0ull ? d : tmp;   /* as in fast_run */
  if (in->enc == ENC_VOP3)
    c = source_plain(w, in, 2, buf[2]);
  if (f32) {
    if (in->op == OP_V_FMAC_F32)
      c = d;
    f32_op(in, a, b, c, r, exec);
  } else {
    int_op(in->op, a, b, c, r);
  }
  if (r != d)
    store(w, in->dst, r, exec);
  return 0;
}

static int valu_f32_plain(struct isa_wave *w, const struct isa_inst *in)
{
  if ((w->gpr_idx >> 31) || !(w->mode >> 4 & 3))
    return exec_valu_general(w, in);
  return lanes32(w, in, true);
}

static int valu_int_plain(struct isa_wave *w, const struct isa_inst *in)
{
  if (w->gpr_idx >> 31)
    return exec_valu_general(w, in);
  return lanes32(w, in, false);
}

/* ---- VOP2 f32 arithmetic with every lane active ---- */

typedef float v8f32 __attribute__((vector_size(32)));

/* v_add/sub/subrev/mul_f32 of 64 lanes into d, eight lanes a step in vector registers (each
 * step reads its lanes of both sources before it writes them, so d may be a source). a NULL:
 * src0 is ka in every lane. The same IEEE operations, in the same operand order, as f32_op. */
#define F32_STEPS(EXPR)                                                                    \
  for (unsigned l = 0; l < WAVE_SIZE; l += 8) {                                            \
    v8f32 x = kx, y;                                                                       \
    if (a)                                                                                 \
      memcpy(&x, a + l, sizeof(x));                                                        \
    memcpy(&y, b + l, sizeof(y));                                                          \
    v8f32 r = (EXPR);                                                                      \
    memcpy(d + l, &r, sizeof(r));                                                          \
  }

VALU_FAST_CLONES
static void f32_vop2_lanes(unsigned op, uint32_t *d, const uint32_t *a, const float *ka,
                           const uint32_t *b)
{
  v8f32 kx = {*ka, *ka, *ka, *ka, *ka, *ka, *ka, *ka};
  switch (op) {
  case OP_V_ADD_F32: F32_STEPS(x + y); return;
  case OP_V_SUB_F32: F32_STEPS(x - y); return;
  case OP_V_SUBREV_F32: F32_STEPS(y - x); return;
  default: F32_STEPS(x * y); return;   /* v_mul_f32 */
  }
}
#undef F32_STEPS

static int valu_f32_plain(struct isa_wave *w, const struct isa_inst *in);

/* The VOP2 forms of f32_vop2_lanes' operations and of v_fmac/fmamk/fmaak_f32 (src1 a VGPR,
 * src0 anything): with every lane
 * active, f32 denormals kept and no VGPR indexing, src0 is read in place or as one scalar and
 * the lanes go straight to the destination; otherwise valu_f32_plain's path. */
static int valu_f32_vop2(struct isa_wave *w, const struct isa_inst *in)
{
  if ((w->gpr_idx >> 31) || !(w->mode >> 4 & 3) || wave_exec(w) != ~0ull)
    return valu_f32_plain(w, in);
  unsigned code = in->src[0];
  const uint32_t *a = code >= OPD_VGPR ? wave_vreg(w, code) : NULL;
  uint32_t *d = wave_vreg(w, in->dst);
  const uint32_t *b = wave_vreg(w, in->src[1]);
  uint32_t kbits = a ? 0 : scalar32(w, in, code);
  float ka = f32_of(kbits);
  switch (in->op) {
  case OP_V_ADD_F32: case OP_V_SUB_F32: case OP_V_SUBREV_F32: case OP_V_MUL_F32:
    f32_vop2_lanes(in->op, d, a, &ka, b);
    return 0;
  default: {   /* the fma forms: f32_op's lane loops, src0 broadcast when it is a scalar */
    lane32_t buf;
    if (!a) {
      splat32(buf, kbits);
      a = buf;
    }
    /* v_fmac_f32 accumulates into its destination (lanes32 passes the same): lane l of c is
     * read before lane l of d is written */
    const uint32_t *c = in->op == OP_V_FMAC_F32 ? d : buf;
    f32_op(in, a, b, c, d, ~0ull);
    return 0;
  }
  }
}

#ifdef VALU_FAST_VECTORS
/* ---- VOP2 32-bit integer arithmetic with every lane active ---- */

typedef int32_t v8i32 __attribute__((vector_size(32)));

/* int_op's VOP2 operations of 64 lanes into d, eight lanes a step in vector registers, src0 a
 * VGPR (a) or one scalar held in a register (ka; a NULL): no broadcast buffer, no switch per
 * operation inside the loop. Each step reads its lanes of both sources before it writes them,
 * so d may be a source. The same operations as int_op. */
#define INT_STEPS(EXPR)                                                                    \
  for (unsigned l = 0; l < WAVE_SIZE; l += 8) {                                            \
    v8u32 x = kx, y;                                                                       \
    if (a)                                                                                 \
      memcpy(&x, a + l, sizeof(x));                                                        \
    memcpy(&y, b + l, sizeof(y));                                                          \
    v8u32 r = (EXPR);                                                                      \
    memcpy(d + l, &r, sizeof(r));                                                          \
  }                                                                                        \
  return

VALU_FAST_CLONES
static void int_vop2_lanes(unsigned op, uint32_t *d, const uint32_t *a, uint32_t ka,
                           const uint32_t *b)
{
  const v8u32 kx = {ka, ka, ka, ka, ka, ka, ka, ka}, m24 = (v8u32){0, 0, 0, 0, 0, 0, 0, 0} + 0xffffff;
  switch (op) {
  case OP_V_ADD_U32: case OP_V_ADD_I32: INT_STEPS(x + y);
  case OP_V_SUB_U32: case OP_V_SUB_I32: INT_STEPS(x - y);
  case OP_V_SUBREV_U32: INT_STEPS(y - x);
  case OP_V_AND_B32: INT_STEPS(x & y);
  case OP_V_OR_B32: INT_STEPS(x | y);
  case OP_V_XOR_B32: INT_STEPS(x ^ y);
  case OP_V_LSHLREV_B32: INT_STEPS(y << (x & 31));
  case OP_V_LSHRREV_B32: INT_STEPS(y >> (x & 31));
  case OP_V_ASHRREV_I32: INT_STEPS((v8u32)((v8i32)y >> (v8i32)(x & 31)));
  default: INT_STEPS((x & m24) * (y & m24));   /* v_mul_u32_u24 */
  }
}
#undef INT_STEPS

/* The VOP2 forms int_vop2_lanes computes: src1 a VGPR, src0 anything. */
static bool int_vop2_form(const struct isa_inst *in)
{
  switch (in->op) {
  case OP_V_ADD_U32: case OP_V_ADD_I32: case OP_V_SUB_U32: case OP_V_SUB_I32:
  case OP_V_SUBREV_U32: case OP_V_AND_B32: case OP_V_OR_B32: case OP_V_XOR_B32:
  case OP_V_LSHLREV_B32: case OP_V_LSHRREV_B32: case OP_V_ASHRREV_I32: case OP_V_MUL_U32_U24:
    return in->enc == ENC_VOP2 && in->src[1] >= OPD_VGPR && in->src[1] != OPD_NONE &&
           in->src[0] != OPD_NONE;
  default:
    return false;
  }
}

/* int_vop2_form instructions: with every lane active and no VGPR indexing straight to the
 * destination, src0 read in place or as one scalar; otherwise valu_int_plain's path. */
static int valu_int_vop2(struct isa_wave *w, const struct isa_inst *in)
{
  if ((w->gpr_idx >> 31) || wave_exec(w) != ~0ull)
    return valu_int_plain(w, in);
  unsigned code = in->src[0];
  const uint32_t *a = code >= OPD_VGPR ? wave_vreg(w, code) : NULL;
  uint32_t ka = a ? 0 : scalar32(w, in, code);
  int_vop2_lanes(in->op, wave_vreg(w, in->dst), a, ka, wave_vreg(w, in->src[1]));
  return 0;
}
#endif

static bool f32_vop2_form(const struct isa_inst *in)
{
  switch (in->op) {
  case OP_V_ADD_F32: case OP_V_SUB_F32: case OP_V_SUBREV_F32: case OP_V_MUL_F32:
  case OP_V_FMAC_F32: case OP_V_FMAMK_F32: case OP_V_FMAAK_F32:
    return in->enc == ENC_VOP2 && in->src[1] >= OPD_VGPR && in->src[1] != OPD_NONE &&
           in->src[0] != OPD_NONE;
  default:
    return false;
  }
}

/* v_mov_b32 without modifiers (a FAST_INT instruction): the source's lanes copied straight to
 * the destination's under EXEC, the same values as lanes32's copy through int_op. */
static int valu_mov_b32(struct isa_wave *w, const struct isa_inst *in)
{
  if (w->gpr_idx >> 31)
    return exec_valu_general(w, in);
  uint64_t exec = wave_exec(w);
  uint32_t *d = wave_vreg(w, in->dst);
  unsigned code = in->src[0];
  if (code >= OPD_VGPR) {
    const uint32_t *a = wave_vreg(w, code);
    if (exec == ~0ull) {
      memmove(d, a, sizeof(lane32_t));   /* v_mov_b32 vN, vN: the same register */
      return 0;
    }
    for (uint64_t m = exec; m; m &= m - 1) {
      unsigned l = (unsigned)__builtin_ctzll(m);
      d[l] = a[l];
    }
    return 0;
  }
  uint32_t k = scalar32(w, in, code);
  if (exec == ~0ull) {
    splat32(d, k);
    return 0;
  }
  for (uint64_t m = exec; m; m &= m - 1)
    d[__builtin_ctzll(m)] = k;
  return 0;
}

/* v_cmp_{lt,eq,le,gt,ne,ge}_{i32,u32} without modifiers (bounds checks, the commonest
 * compares): bound per predicate and signedness, so that neither the compare table
 * (valu_cmp_lookup) nor fast_run's class switch is consulted per execution. The same bits as
 * compare(): the lanes' results under EXEC to VCC (VOPC) or the VOP3 destination. */
static inline __attribute__((always_inline)) int cmp32_run(struct isa_wave *w,
                                                           const struct isa_inst *in,
                                                           unsigned pred, bool sign)
{
  if (w->gpr_idx >> 31)
    return exec_valu_bound(w, in);
  uint64_t exec = wave_exec(w), res;
  struct few f;
  if (few_lanes(exec, &f)) {
    res = few_compare(w, in, sign ? CT_I32 : CT_U32, pred, &f);
  } else {
    lane32_t buf[2];
    const uint32_t *a = source_plain(w, in, 0, buf[0]), *b = source_plain(w, in, 1, buf[1]);
    res = cmp_i32(pred, sign, a, b) & exec;
  }
  wave_set_sreg64(w, in->enc == ENC_VOP3 ? in->dst : OPD_VCC, res);
  return 0;
}

#define CMP32_HANDLER(P, S)                                                                 \
  static int valu_cmp32_##P##_##S(struct isa_wave *w, const struct isa_inst *in)            \
  {                                                                                         \
    return cmp32_run(w, in, P, S);                                                          \
  }
#define CMP32_HANDLERS(P) CMP32_HANDLER(P, 0) CMP32_HANDLER(P, 1)
CMP32_HANDLERS(1) CMP32_HANDLERS(2) CMP32_HANDLERS(3)
CMP32_HANDLERS(4) CMP32_HANDLERS(5) CMP32_HANDLERS(6)
#undef CMP32_HANDLERS
#undef CMP32_HANDLER

/* [signed][predicate]: predicates 1..6 as valu_cmp_lookup numbers them (lt eq le gt ne ge) */
static const valu_exec_fn cmp32_handlers[2][7] = {
  {NULL, valu_cmp32_1_0, valu_cmp32_2_0, valu_cmp32_3_0, valu_cmp32_4_0, valu_cmp32_5_0,
   valu_cmp32_6_0},
  {NULL, valu_cmp32_1_1, valu_cmp32_2_1, valu_cmp32_3_1, valu_cmp32_4_1, valu_cmp32_5_1,
   valu_cmp32_6_1},
};

/* The bound compare handler of `in` (a FAST_CMP instruction without modifiers), or NULL: v_cmpx
 * (it also writes EXEC), the other types and predicates keep exec_valu_bound. */
static valu_exec_fn cmp32_bind(const struct isa_inst *in)
{
  unsigned type, pred;
  bool x;
  if (!valu_cmp_lookup(in->op, &type, &pred, &x) || x || (type != CT_I32 && type != CT_U32) ||
      pred < 1 || pred > 6 || in->src_w[0] > 1 || in->src_w[1] > 1 || in->nsrc < 2)
    return NULL;
  return cmp32_handlers[type == CT_I32][pred];
}

#ifdef VALU_FAST_VECTORS
/* v_lshlrev_b64 and v_lshl_add_u64 whose shift is a scalar (address arithmetic): straight to
 * shift64_uniform; with VGPR indexing, or if that declines, exec_valu_bound's path. */
static int valu_shift64(struct isa_wave *w, const struct isa_inst *in)
{
  if (!(w->gpr_idx >> 31) && !shift64_uniform(w, in, wave_exec(w)))
    return 0;
  return exec_valu_bound(w, in);
}

/* k + y on 64 lanes of 64-bit values held as low and high dwords, k a wave-uniform value; eight
 * lanes a step, each step's inputs read before its results are stored (the destination may be
 * the source pair, or overlap it), so the same bits as shl64_add with a zero shift. */
VALU_FAST_CLONES
static void add64_uniform(uint32_t *rlo, uint32_t *rhi, uint64_t k, const uint32_t *ylo,
                          const uint32_t *yhi)
{
  uint32_t a = (uint32_t)k, b = (uint32_t)(k >> 32);
  const v8u32 kl = {a, a, a, a, a, a, a, a}, kh = {b, b, b, b, b, b, b, b};
  for (unsigned l = 0; l < WAVE_SIZE; l += 8) {
    v8u32 yl, yh;
    memcpy(&yl, ylo + l, sizeof(yl));
    memcpy(&yh, yhi + l, sizeof(yh));
    v8u32 rl = yl + kl;
    yh = yh + kh - (v8u32)(rl < yl);   /* the carry: a true compare is all ones (-1) */
    memcpy(rlo + l, &rl, sizeof(rl));
    memcpy(rhi + l, &yh, sizeof(yh));
  }
}

/* x << s on 64 lanes of 64-bit values held as low and high dwords, s in 1..31; eight lanes a
 * step, as add64_uniform (the destination may be the source pair). */
VALU_FAST_CLONES
static void shl64_small(uint32_t *rlo, uint32_t *rhi, const uint32_t *xlo, const uint32_t *xhi,
                        unsigned s)
{
  for (unsigned l = 0; l < WAVE_SIZE; l += 8) {
    v8u32 xl, xh;
    memcpy(&xl, xlo + l, sizeof(xl));
    memcpy(&xh, xhi + l, sizeof(xh));
    xh = (xh << s) | (xl >> (32 - s));
    xl = xl << s;
    memcpy(rlo + l, &xl, sizeof(xl));
    memcpy(rhi + l, &xh, sizeof(xh));
  }
}

/* v_lshlrev_b64 vD, k, vX with an inline constant k in 1..31 (an index scaled to a byte
 * offset): with every lane active straight to the destination; otherwise valu_shift64's
 * path. */
static int valu_shl64_small(struct isa_wave *w, const struct isa_inst *in)
{
  if ((w->gpr_idx >> 31) || wave_exec(w) != ~0ull)
    return valu_shift64(w, in);
  unsigned x = in->src[1];
  shl64_small(wave_vreg(w, in->dst), wave_vreg(w, in->dst + 1), wave_vreg(w, x),
              wave_vreg(w, x + 1), in->src[0] - 128u);
  return 0;
}

/* v_lshl_add_u64 vD, sBase, 0, vOffset: a scalar base plus per-lane offsets, how clang forms
 * the address of nearly every global access. With every lane active straight to the
 * destination, no operand kinds to sort out per execution; otherwise valu_shift64's path. */
static int valu_add64_uniform(struct isa_wave *w, const struct isa_inst *in)
{
  if ((w->gpr_idx >> 31) || wave_exec(w) != ~0ull)
    return valu_shift64(w, in);
  unsigned y = in->src[2];
  add64_uniform(wave_vreg(w, in->dst), wave_vreg(w, in->dst + 1),
                wave_scalar_src(w, in, in->src[0], 2), wave_vreg(w, y), wave_vreg(w, y + 1));
  return 0;
}
#endif

/* A FAST_INT / FAST_F32 / FAST_CNDMASK instruction with abs/neg (math library code negates
 * f32 operands of fma and takes |x| for its range checks): with few active lanes straight to
 * few_run, without exec_valu_bound's class switch; otherwise exec_valu_bound's path. */
static int valu_lanes_mods(struct isa_wave *w, const struct isa_inst *in)
{
  enum fast_kind kind = (enum fast_kind)in->fast;
  struct few f;
  if (!(w->gpr_idx >> 31) && (kind != FAST_F32 || (w->mode >> 4 & 3)) &&
      few_lanes(wave_exec(w), &f)) {
    few_run(w, in, kind, &f);
    return 0;
  }
  return exec_valu_bound(w, in);
}

/* A v_cmp/v_cmpx with abs/neg (|x| compared against infinity or a threshold): compare()
 * without exec_valu_bound's class switch; the general path for what compare() declines. */
static int valu_cmp_mods(struct isa_wave *w, const struct isa_inst *in)
{
  if (!(w->gpr_idx >> 31) && !compare(w, in))
    return 0;
  return exec_valu_general(w, in);
}

valu_exec_fn valu_bind(struct isa_inst *in)
{
  in->fast = (uint8_t)fast_static(in);
  if (in->fast == FAST_CMP && class_op(in->op))
    return valu_cmp_class;
  valu_exec_fn simd = valu_simd_bind(in);   /* AVX2 hosts: exec_valu_simd.c */
  if (simd)
    return simd;
  bool mods = source_mods(in) != 0;
  if (in->fast == FAST_INT && !mods && in->op == OP_V_MOV_B32)
    return valu_mov_b32;
  if (in->fast == FAST_F32 && !mods && f32_vop2_form(in))
    return valu_f32_vop2;
#ifdef VALU_FAST_VECTORS
  /* inline constant 0 (code 128) as the shift, a scalar base and a VGPR pair of offsets */
  if (in->fast == FAST_INT64 && !mods && in->op == OP_V_LSHL_ADD_U64 && in->src[1] == 128 &&
      in->src[0] < OPD_VGPR && in->src[2] >= OPD_VGPR && in->src[2] != OPD_NONE)
    return valu_add64_uniform;
  /* inline constants 1..31 (codes 129..159) as the shift of a VGPR pair */
  if (in->fast == FAST_INT64 && !mods && in->op == OP_V_LSHLREV_B64 && in->src[0] >= 129 &&
      in->src[0] <= 159 && in->src[1] >= OPD_VGPR && in->src[1] != OPD_NONE)
    return valu_shl64_small;
  if (in->fast == FAST_INT64 && ((in->op == OP_V_LSHLREV_B64 && in->src[0] < OPD_VGPR) ||
                                 (in->op == OP_V_LSHL_ADD_U64 && in->src[1] < OPD_VGPR)))
    return valu_shift64;
#endif
  valu_exec_fn cmp = in->fast == FAST_CMP && !mods ? cmp32_bind(in) : NULL;
  if (cmp)
    return cmp;
  if (in->fast == FAST_F32 && !mods)
    return valu_f32_plain;
#ifdef VALU_FAST_VECTORS
  if (in->fast == FAST_INT && !mods && int_vop2_form(in))
    return valu_int_vop2;
#endif
  if (in->fast == FAST_INT && !mods)
    return valu_int_plain;
  if (mods && few_kind(in, (enum fast_kind)in->fast))
    return valu_lanes_mods;
  if (mods && in->fast == FAST_CMP)
    return valu_cmp_mods;
  return in->fast ? exec_valu_bound : exec_valu_general;
}
