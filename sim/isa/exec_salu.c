/* Scalar ALU (SOP1, SOP2, SOPC, SOPK, SOPP) and scalar memory (SMEM).
 * Semantics: MI200/MI300 ISA guides, "Scalar ALU Operations" and "Scalar Memory Operations".
 */
#include "isa/wave.h"

#include <pthread.h>
#include <time.h>

/* Float inline constants 240..247 (0.5, -0.5, 1, -1, 2, -2, 4, -4) and 248 (1/(2*pi)). */
static const uint32_t inline_f32[9] = {0x3f000000, 0xbf000000, 0x3f800000, 0xbf800000, 0x40000000,
                                       0xc0000000, 0x40800000, 0xc0800000, 0x3e22f983};
static const uint64_t inline_f64[9] = {0x3fe0000000000000, 0xbfe0000000000000, 0x3ff0000000000000,
                                       0xbff0000000000000, 0x4000000000000000, 0xc000000000000000,
                                       0x4010000000000000, 0xc010000000000000, 0x3fc45f306dc9c882};
static const uint16_t inline_f16[9] = {0x3800, 0xb800, 0x3c00, 0xbc00, 0x4000,
                                       0xc000, 0x4400, 0xc400, 0x3118};

/* wave_scalar_src (wave.h) of a code that is no SGPR */
uint64_t wave_scalar_src_other(struct isa_wave *w, const struct isa_inst *in, unsigned code,
                               unsigned width)
{
  if (code < 128)
    return wave_scalar_src(w, in, code, width);
  if (code <= 192)
    return code - 128;
  if (code <= 208) {
    int64_t v = -(int64_t)(code - 192);
    return width >= 2 ? (uint64_t)v : (uint32_t)v;
  }
  if (code >= 240 && code <= 248) {
    if (width >= 2)
      return inline_f64[code - 240];
    return in->fp16 ? inline_f16[code - 240] : inline_f32[code - 240];
  }
  switch (code) {
  case 235: return width >= 2 ? APERTURE_SHARED_BASE : APERTURE_SHARED_BASE >> 32;
  case 236: return width >= 2 ? APERTURE_SHARED_BASE + APERTURE_SIZE - 1 : (APERTURE_SHARED_BASE + APERTURE_SIZE - 1) >> 32;
  case 237: return width >= 2 ? APERTURE_PRIVATE_BASE : APERTURE_PRIVATE_BASE >> 32;
  case 238: return width >= 2 ? APERTURE_PRIVATE_BASE + APERTURE_SIZE - 1 : (APERTURE_PRIVATE_BASE + APERTURE_SIZE - 1) >> 32;
  case 251: return wave_sreg64(w, OPD_VCC) == 0;
  case 252: return wave_exec(w) == 0;
  case 253: return w->scc;
  case OPD_LITERAL:
    /* A 32-bit literal feeding a 64-bit float operand is its high half; integers zero-extend. */
    return (width >= 2 && in->fp64) ? (uint64_t)in->literal << 32 : in->literal;
  }
  return 0;
}

static void sdst_write(struct isa_wave *w, unsigned code, uint64_t v, unsigned width)
{
  if (code >= 128)
    return;
  w->s[code] = (uint32_t)v;
  if (width >= 2 && code + 1 < 128)
    w->s[code + 1] = (uint32_t)(v >> 32);
}

static uint32_t bfe32(uint32_t v, uint32_t ctl, bool sign)
{
  uint32_t off = ctl & 31, wid = ctl >> 16 & 0x7f;
  if (!wid)
    return 0;
  if (off + wid < 32) {
    uint32_t r = (v >> off) & ((1u << wid) - 1);
    if (sign && (r >> (wid - 1) & 1))
      r |= ~0u << wid;
    return r;
  }
  return sign ? (uint32_t)((int32_t)v >> off) : v >> off;
}

static uint64_t bfe64(uint64_t v, uint32_t ctl, bool sign)
{
  uint32_t off = ctl & 63, wid = ctl >> 16 & 0x7f;
  if (!wid)
    return 0;
  if (off + wid < 64) {
    uint64_t r = (v >> off) & ((1ull << wid) - 1);
    if (sign && (r >> (wid - 1) & 1))
      r |= ~0ull << wid;
    return r;
  }
  return sign ? (uint64_t)((int64_t)v >> off) : v >> off;
}

static uint64_t now_ns(clockid_t id)
{
  struct timespec ts;
  clock_gettime(id, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* HW registers for s_getreg/s_setreg (ISA guide "Hardware Registers"; gfx90a/gfx940 ids). */
enum { HW_MODE = 1, HW_STATUS = 2, HW_TRAPSTS = 3, HW_HW_ID = 4, HW_GPR_ALLOC = 5,
       HW_LDS_ALLOC = 6, HW_IB_STS = 7, HW_SH_MEM_BASES = 15, HW_XCC_ID = 20 };

static uint32_t hwreg_read(struct isa_wave *w, unsigned id)
{
  switch (id) {
  case HW_MODE: return w->mode;
  case HW_STATUS:
    return w->scc | (wave_exec(w) == 0) << 9 | (wave_sreg64(w, OPD_VCC) == 0) << 10 | 1u << 16;
  case HW_TRAPSTS: return w->trapsts;
  case HW_HW_ID: return (w->id & 0xf) | (w->wg->id[0] & 0xf) << 16;
  case HW_LDS_ALLOC: return (w->wg->lds_size + 511) / 512 << 12;
  case HW_SH_MEM_BASES:
    return (uint32_t)(APERTURE_SHARED_BASE >> 48) << 16 | (uint32_t)(APERTURE_PRIVATE_BASE >> 48);
  default: return 0;
  }
}

static void hwreg_write(struct isa_wave *w, unsigned id, uint32_t v, uint32_t mask)
{
  if (id == HW_MODE)
    w->mode = (w->mode & ~mask) | (v & mask);
  else if (id == HW_TRAPSTS)
    w->trapsts = (w->trapsts & ~mask) | (v & mask);
  /* other registers are read-only for a shader or not modelled: writes are dropped */
}

static int setreg(struct isa_wave *w, uint16_t simm, uint32_t v)
{
  unsigned id = simm & 63, off = simm >> 6 & 31, size = (simm >> 11 & 31) + 1;
  uint32_t mask = (size >= 32 ? ~0u : ((1u << size) - 1)) << off;
  hwreg_write(w, id, v << off, mask);
  return 0;
}

static int sopp(struct isa_wave *w, const struct isa_inst *in)
{
  struct isa_ctx *c = w->ctx;
  uint64_t target = w->pc + (int64_t)in->simm16 * 4;
  switch (in->op) {
  case OP_S_NOP: case OP_S_WAITCNT: case OP_S_SETPRIO: case OP_S_ICACHE_INV:
  case OP_S_INCPERFLEVEL: case OP_S_DECPERFLEVEL: case OP_S_TTRACEDATA: case OP_S_SETKILL:
  case OP_S_WAKEUP:
    return 0;  /* in-order execution: counters and hints have nothing to wait for */
  case OP_S_SLEEP:
    /* a wave sleeps while it polls memory another wave or the host must change (hostcall,
     * spin locks): give up the host thread's time slice instead of spinning through it */
    w->yield = true;
    return 0;
  case OP_S_ENDPGM: case OP_S_ENDPGM_SAVED:
    w->state = WAVE_DONE;
    return 0;
  case OP_S_BRANCH: w->pc = target; return 0;
  case OP_S_CBRANCH_SCC0: if (!w->scc) w->pc = target; return 0;
  case OP_S_CBRANCH_SCC1: if (w->scc) w->pc = target; return 0;
  case OP_S_CBRANCH_VCCZ: if (!wave_sreg64(w, OPD_VCC)) w->pc = target; return 0;
  case OP_S_CBRANCH_VCCNZ: if (wave_sreg64(w, OPD_VCC)) w->pc = target; return 0;
  case OP_S_CBRANCH_EXECZ: if (!wave_exec(w)) w->pc = target; return 0;
  case OP_S_CBRANCH_EXECNZ: if (wave_exec(w)) w->pc = target; return 0;
  case OP_S_CBRANCH_CDBGSYS: case OP_S_CBRANCH_CDBGUSER: case OP_S_CBRANCH_CDBGSYS_OR_USER:
  case OP_S_CBRANCH_CDBGSYS_AND_USER:
    return 0;  /* no debugger attached: never taken */
  case OP_S_BARRIER:
    wave_barrier_arrive(w);
    return 0;
  case OP_S_SENDMSG: case OP_S_SENDMSGHALT:
    if (c->d->sendmsg)
      c->d->sendmsg(c->d->msg_ctx, (uint32_t)(in->simm16 & 0xffff), w->s[OPD_M0]);
    if (in->op == OP_S_SENDMSGHALT)
      w->state = WAVE_DONE;
    return 0;
  case OP_S_TRAP:
    wave_fail(w, ISA_TRAP, "s_trap %u at pc 0x%llx (device-side abort or trap)",
              (unsigned)(in->simm16 & 0xff), (unsigned long long)wave_cur_pc(w));
    return -1;
  case OP_S_SETHALT:
    if (in->simm16 & 1) {
      wave_fail(w, ISA_TRAP, "s_sethalt at pc 0x%llx", (unsigned long long)wave_cur_pc(w));
      return -1;
    }
    return 0;
  case OP_S_SET_GPR_IDX_OFF:
    w->gpr_idx = 0;
    return 0;
  case OP_S_SET_GPR_IDX_MODE:
    w->s[OPD_M0] = (w->s[OPD_M0] & ~0xf000u) | (uint32_t)(in->simm16 & 0xf) << 12;
    return 0;
  default:
    return exec_illegal(w, in);
  }
}

static int sopk(struct isa_wave *w, const struct isa_inst *in)
{
  int32_t k = in->simm16;
  uint32_t d = in->dst < 128 ? w->s[in->dst] : 0;
  uint16_t uk = (uint16_t)in->simm16;
  switch (in->op) {
  case OP_S_MOVK_I32: sdst_write(w, in->dst, (uint32_t)k, 1); return 0;
  case OP_S_CMOVK_I32: if (w->scc) sdst_write(w, in->dst, (uint32_t)k, 1); return 0;
  case OP_S_ADDK_I32: {
    int32_t r = (int32_t)((uint32_t)d + (uint32_t)k);
    w->scc = ((int32_t)d >= 0) == (k >= 0) && ((int32_t)d >= 0) != (r >= 0);
    sdst_write(w, in->dst, (uint32_t)r, 1);
    return 0;
  }
  case OP_S_MULK_I32: sdst_write(w, in->dst, (uint32_t)((int32_t)d * k), 1); return 0;
  case OP_S_CMPK_EQ_I32: w->scc = (int32_t)d == k; return 0;
  case OP_S_CMPK_LG_I32: w->scc = (int32_t)d != k; return 0;
  case OP_S_CMPK_GT_I32: w->scc = (int32_t)d > k; return 0;
  case OP_S_CMPK_GE_I32: w->scc = (int32_t)d >= k; return 0;
  case OP_S_CMPK_LT_I32: w->scc = (int32_t)d < k; return 0;
  case OP_S_CMPK_LE_I32: w->scc = (int32_t)d <= k; return 0;
  case OP_S_CMPK_EQ_U32: w->scc = d == uk; return 0;
  case OP_S_CMPK_LG_U32: w->scc = d != uk; return 0;
  case OP_S_CMPK_GT_U32: w->scc = d > uk; return 0;
  case OP_S_CMPK_GE_U32: w->scc = d >= uk; return 0;
  case OP_S_CMPK_LT_U32: w->scc = d < uk; return 0;
  case OP_S_CMPK_LE_U32: w->scc = d <= uk; return 0;
  case OP_S_GETREG_B32: {
    unsigned id = uk & 63, off = uk >> 6 & 31, size = (uk >> 11 & 31) + 1;
    uint32_t v = hwreg_read(w, id) >> off;
    if (size < 32)
      v &= (1u << size) - 1;
    sdst_write(w, in->dst, v, 1);
    return 0;
  }
  case OP_S_SETREG_B32: return setreg(w, uk, d);
  case OP_S_SETREG_IMM32_B32: return setreg(w, uk, in->literal);
  case OP_S_CALL_B64:
    sdst_write(w, in->dst, w->pc, 2);
    w->pc += (int64_t)k * 4;
    return 0;
  default:
    return exec_illegal(w, in);
  }
}

static int sopc(struct isa_wave *w, const struct isa_inst *in)
{
  uint64_t a = wave_scalar_src(w, in, in->src[0], in->src_w[0]);
  uint64_t b = wave_scalar_src(w, in, in->src[1], in->src_w[1]);
  uint32_t a32 = (uint32_t)a, b32 = (uint32_t)b;
  int32_t ai = (int32_t)a32, bi = (int32_t)b32;
  switch (in->op) {
  case OP_S_CMP_EQ_I32: case OP_S_CMP_EQ_U32: w->scc = a32 == b32; return 0;
  case OP_S_CMP_LG_I32: case OP_S_CMP_LG_U32: w->scc = a32 != b32; return 0;
  case OP_S_CMP_GT_I32: w->scc = ai > bi; return 0;
  case OP_S_CMP_GE_I32: w->scc = ai >= bi; return 0;
  case OP_S_CMP_LT_I32: w->scc = ai < bi; return 0;
  case OP_S_CMP_LE_I32: w->scc = ai <= bi; return 0;
  case OP_S_CMP_GT_U32: w->scc = a32 > b32; return 0;
  case OP_S_CMP_GE_U32: w->scc = a32 >= b32; return 0;
  case OP_S_CMP_LT_U32: w->scc = a32 < b32; return 0;
  case OP_S_CMP_LE_U32: w->scc = a32 <= b32; return 0;
  case OP_S_CMP_EQ_U64: w->scc = a == b; return 0;
  case OP_S_CMP_LG_U64: w->scc = a != b; return 0;
  case OP_S_BITCMP0_B32: w->scc = !(a32 >> (b32 & 31) & 1); return 0;
  case OP_S_BITCMP1_B32: w->scc = a32 >> (b32 & 31) & 1; return 0;
  case OP_S_BITCMP0_B64: w->scc = !(a >> (b32 & 63) & 1); return 0;
  case OP_S_BITCMP1_B64: w->scc = a >> (b32 & 63) & 1; return 0;
  case OP_S_SET_GPR_IDX_ON:
    /* M0[7:0] = the index, M0[15:12] = the SSRC1 field read as an immediate (enables for
     * src0/src1/src2/dst), and indexing is switched on (ISA guide, s_set_gpr_idx_on). */
    w->s[OPD_M0] = (w->s[OPD_M0] & ~0xf0ffu) | (a32 & 0xff) | (uint32_t)(in->src[1] & 0xf) << 12;
    w->gpr_idx = 1u << 31;
    return 0;
  default:
    return exec_illegal(w, in);
  }
}

static int sop1(struct isa_wave *w, const struct isa_inst *in)
{
  unsigned sw = in->src_w[0] ? in->src_w[0] : 1;
  uint64_t a = wave_scalar_src(w, in, in->src[0], sw);
  uint32_t a32 = (uint32_t)a;
  uint64_t exec = wave_exec(w), r;
  switch (in->op) {
  case OP_S_MOV_B32: sdst_write(w, in->dst, a32, 1); return 0;
  case OP_S_MOV_B64: sdst_write(w, in->dst, a, 2); return 0;
  case OP_S_CMOV_B32: if (w->scc) sdst_write(w, in->dst, a32, 1); return 0;
  case OP_S_CMOV_B64: if (w->scc) sdst_write(w, in->dst, a, 2); return 0;
  case OP_S_NOT_B32: r = ~a32 & 0xffffffffu; w->scc = r != 0; sdst_write(w, in->dst, r, 1); return 0;
  case OP_S_NOT_B64: r = ~a; w->scc = r != 0; sdst_write(w, in->dst, r, 2); return 0;
  case OP_S_WQM_B32: case OP_S_WQM_B64: {
    r = 0;
    for (int q = 0; q < 64; q += 4)
      if (a >> q & 0xf)
        r |= 0xfull << q;
    if (in->op == OP_S_WQM_B32)
      r &= 0xffffffffu;
    w->scc = r != 0;
    sdst_write(w, in->dst, r, in->op == OP_S_WQM_B64 ? 2 : 1);
    return 0;
  }
  case OP_S_BREV_B32: {
    uint32_t v = 0;
    for (int i = 0; i < 32; i++) v |= (a32 >> i & 1) << (31 - i);
    sdst_write(w, in->dst, v, 1);
    return 0;
  }
  case OP_S_BREV_B64: {
    uint64_t v = 0;
    for (int i = 0; i < 64; i++) v |= (a >> i & 1) << (63 - i);
    sdst_write(w, in->dst, v, 2);
    return 0;
  }
  case OP_S_BCNT0_I32_B32: r = 32 - bit_count64(a32); w->scc = r != 0; sdst_write(w, in->dst, r, 1); return 0;
  case OP_S_BCNT0_I32_B64: r = 64 - bit_count64(a); w->scc = r != 0; sdst_write(w, in->dst, r, 1); return 0;
  case OP_S_BCNT1_I32_B32: r = bit_count64(a32); w->scc = r != 0; sdst_write(w, in->dst, r, 1); return 0;
  case OP_S_BCNT1_I32_B64: r = bit_count64(a); w->scc = r != 0; sdst_write(w, in->dst, r, 1); return 0;
  case OP_S_FF0_I32_B32: sdst_write(w, in->dst, ~a32 ? (uint32_t)__builtin_ctz(~a32) : ~0u, 1); return 0;
  case OP_S_FF0_I32_B64: sdst_write(w, in->dst, ~a ? (uint32_t)__builtin_ctzll(~a) : ~0u, 1); return 0;
  case OP_S_FF1_I32_B32: sdst_write(w, in->dst, a32 ? (uint32_t)__builtin_ctz(a32) : ~0u, 1); return 0;
  case OP_S_FF1_I32_B64: sdst_write(w, in->dst, a ? (uint32_t)__builtin_ctzll(a) : ~0u, 1); return 0;
  case OP_S_FLBIT_I32_B32: sdst_write(w, in->dst, a32 ? (uint32_t)__builtin_clz(a32) : ~0u, 1); return 0;
  case OP_S_FLBIT_I32_B64: sdst_write(w, in->dst, a ? (uint32_t)__builtin_clzll(a) : ~0u, 1); return 0;
  case OP_S_FLBIT_I32: {
    uint32_t v = (int32_t)a32 < 0 ? ~a32 : a32;
    sdst_write(w, in->dst, v ? (uint32_t)__builtin_clz(v) : ~0u, 1);
    return 0;
  }
  case OP_S_FLBIT_I32_I64: {
    uint64_t v = (int64_t)a < 0 ? ~a : a;
    sdst_write(w, in->dst, v ? (uint32_t)__builtin_clzll(v) : ~0u, 1);
    return 0;
  }
  case OP_S_SEXT_I32_I8: sdst_write(w, in->dst, (uint32_t)(int32_t)(int8_t)a32, 1); return 0;
  case OP_S_SEXT_I32_I16: sdst_write(w, in->dst, (uint32_t)(int32_t)(int16_t)a32, 1); return 0;
  case OP_S_BITSET0_B32: sdst_write(w, in->dst, w->s[in->dst & 127] & ~(1u << (a32 & 31)), 1); return 0;
  case OP_S_BITSET1_B32: sdst_write(w, in->dst, w->s[in->dst & 127] | (1u << (a32 & 31)), 1); return 0;
  case OP_S_BITSET0_B64: sdst_write(w, in->dst, wave_sreg64(w, in->dst) & ~(1ull << (a32 & 63)), 2); return 0;
  case OP_S_BITSET1_B64: sdst_write(w, in->dst, wave_sreg64(w, in->dst) | (1ull << (a32 & 63)), 2); return 0;
  case OP_S_GETPC_B64: sdst_write(w, in->dst, w->pc, 2); return 0;
  case OP_S_SETPC_B64: w->pc = a; return 0;
  case OP_S_SWAPPC_B64: sdst_write(w, in->dst, w->pc, 2); w->pc = a; return 0;
  case OP_S_ABS_I32: {
    int32_t v = (int32_t)a32;
    r = (uint32_t)(v < 0 ? -(int64_t)v : v);
    w->scc = (uint32_t)r != 0;
    sdst_write(w, in->dst, r, 1);
    return 0;
  }
  case OP_S_QUADMASK_B32: case OP_S_QUADMASK_B64: {
    r = 0;
    for (int q = 0; q < (in->op == OP_S_QUADMASK_B64 ? 16 : 8); q++)
      if (a >> (4 * q) & 0xf)
        r |= 1ull << q;
    w->scc = r != 0;
    sdst_write(w, in->dst, r, in->op == OP_S_QUADMASK_B64 ? 2 : 1);
    return 0;
  }
  case OP_S_MOVRELS_B32: sdst_write(w, in->dst, w->s[(in->src[0] + w->s[OPD_M0]) & 127], 1); return 0;
  case OP_S_MOVRELS_B64: sdst_write(w, in->dst, wave_sreg64(w, (in->src[0] + w->s[OPD_M0]) & 127), 2); return 0;
  case OP_S_MOVRELD_B32: sdst_write(w, (in->dst + w->s[OPD_M0]) & 127, a32, 1); return 0;
  case OP_S_MOVRELD_B64: sdst_write(w, (in->dst + w->s[OPD_M0]) & 127, a, 2); return 0;
  case OP_S_SET_GPR_IDX_IDX:
    w->s[OPD_M0] = (w->s[OPD_M0] & ~0xffu) | (a32 & 0xff);
    return 0;
  case OP_S_BITREPLICATE_B64_B32: {
    uint64_t v = 0;
    for (int i = 0; i < 32; i++) v |= (uint64_t)(a32 >> i & 1) * (3ull << (2 * i));
    sdst_write(w, in->dst, v, 2);
    return 0;
  }
  /* saveexec family: D = EXEC; EXEC = f(S0, EXEC); SCC = EXEC != 0 */
  case OP_S_AND_SAVEEXEC_B64: r = a & exec; goto saveexec;
  case OP_S_OR_SAVEEXEC_B64: r = a | exec; goto saveexec;
  case OP_S_XOR_SAVEEXEC_B64: r = a ^ exec; goto saveexec;
  case OP_S_ANDN2_SAVEEXEC_B64: r = a & ~exec; goto saveexec;
  case OP_S_ORN2_SAVEEXEC_B64: r = a | ~exec; goto saveexec;
  case OP_S_NAND_SAVEEXEC_B64: r = ~(a & exec); goto saveexec;
  case OP_S_NOR_SAVEEXEC_B64: r = ~(a | exec); goto saveexec;
  case OP_S_XNOR_SAVEEXEC_B64: r = ~(a ^ exec); goto saveexec;
  case OP_S_ANDN1_SAVEEXEC_B64: r = ~a & exec; goto saveexec;
  case OP_S_ORN1_SAVEEXEC_B64: r = ~a | exec; goto saveexec;
  case OP_S_ANDN1_WREXEC_B64:
    r = ~a & exec; wave_set_exec(w, r); w->scc = r != 0; sdst_write(w, in->dst, r, 2); return 0;
  case OP_S_ANDN2_WREXEC_B64:
    r = a & ~exec; wave_set_exec(w, r); w->scc = r != 0; sdst_write(w, in->dst, r, 2); return 0;
  default:
    return exec_illegal(w, in);
  }
saveexec:
  sdst_write(w, in->dst, exec, 2);
  wave_set_exec(w, r);
  w->scc = r != 0;
  return 0;
}

static int sop2(struct isa_wave *w, const struct isa_inst *in)
{
  uint64_t a = wave_scalar_src(w, in, in->src[0], in->src_w[0] ? in->src_w[0] : 1);
  uint64_t b = wave_scalar_src(w, in, in->src[1], in->src_w[1] ? in->src_w[1] : 1);
  uint32_t a32 = (uint32_t)a, b32 = (uint32_t)b;
  int32_t ai = (int32_t)a32, bi = (int32_t)b32;
  uint64_t r;
  switch (in->op) {
  case OP_S_ADD_U32: r = (uint64_t)a32 + b32; w->scc = r >> 32; goto w32;
  case OP_S_SUB_U32: r = (uint32_t)(a32 - b32); w->scc = b32 > a32; goto w32;
  case OP_S_ADDC_U32: r = (uint64_t)a32 + b32 + w->scc; w->scc = r >> 32; goto w32;
  case OP_S_SUBB_U32: r = (uint32_t)(a32 - b32 - w->scc); w->scc = (uint64_t)b32 + w->scc > a32; goto w32;
  case OP_S_ADD_I32: {
    int32_t s = (int32_t)(a32 + b32);
    w->scc = (ai >= 0) == (bi >= 0) && (s >= 0) != (ai >= 0);
    r = (uint32_t)s;
    goto w32;
  }
  case OP_S_SUB_I32: {
    int32_t s = (int32_t)(a32 - b32);
    w->scc = (ai >= 0) != (bi >= 0) && (s >= 0) != (ai >= 0);
    r = (uint32_t)s;
    goto w32;
  }
  case OP_S_MIN_I32: w->scc = ai < bi; r = (uint32_t)(ai < bi ? ai : bi); goto w32;
  case OP_S_MIN_U32: w->scc = a32 < b32; r = a32 < b32 ? a32 : b32; goto w32;
  case OP_S_MAX_I32: w->scc = ai > bi; r = (uint32_t)(ai > bi ? ai : bi); goto w32;
  case OP_S_MAX_U32: w->scc = a32 > b32; r = a32 > b32 ? a32 : b32; goto w32;
  case OP_S_CSELECT_B32: sdst_write(w, in->dst, w->scc ? a32 : b32, 1); return 0;
  case OP_S_CSELECT_B64: sdst_write(w, in->dst, w->scc ? a : b, 2); return 0;
  case OP_S_AND_B32: r = a32 & b32; goto w32s;
  case OP_S_OR_B32: r = a32 | b32; goto w32s;
  case OP_S_XOR_B32: r = a32 ^ b32; goto w32s;
  case OP_S_ANDN2_B32: r = a32 & ~b32; goto w32s;
  case OP_S_ORN2_B32: r = (a32 | ~b32) & 0xffffffffu; goto w32s;
  case OP_S_NAND_B32: r = ~(a32 & b32) & 0xffffffffu; goto w32s;
  case OP_S_NOR_B32: r = ~(a32 | b32) & 0xffffffffu; goto w32s;
  case OP_S_XNOR_B32: r = ~(a32 ^ b32) & 0xffffffffu; goto w32s;
  case OP_S_AND_B64: r = a & b; goto w64s;
  case OP_S_OR_B64: r = a | b; goto w64s;
  case OP_S_XOR_B64: r = a ^ b; goto w64s;
  case OP_S_ANDN2_B64: r = a & ~b; goto w64s;
  case OP_S_ORN2_B64: r = a | ~b; goto w64s;
  case OP_S_NAND_B64: r = ~(a & b); goto w64s;
  case OP_S_NOR_B64: r = ~(a | b); goto w64s;
  case OP_S_XNOR_B64: r = ~(a ^ b); goto w64s;
  case OP_S_LSHL_B32: r = (uint32_t)(a32 << (b32 & 31)); goto w32s;
  case OP_S_LSHR_B32: r = a32 >> (b32 & 31); goto w32s;
  case OP_S_ASHR_I32: r = (uint32_t)(ai >> (b32 & 31)); goto w32s;
  case OP_S_LSHL_B64: r = a << (b32 & 63); goto w64s;
  case OP_S_LSHR_B64: r = a >> (b32 & 63); goto w64s;
  case OP_S_ASHR_I64: r = (uint64_t)((int64_t)a >> (b32 & 63)); goto w64s;
  case OP_S_BFM_B32: sdst_write(w, in->dst, ((1u << (a32 & 31)) - 1) << (b32 & 31), 1); return 0;
  case OP_S_BFM_B64: sdst_write(w, in->dst, ((1ull << (a32 & 63)) - 1) << (b32 & 63), 2); return 0;
  case OP_S_MUL_I32: sdst_write(w, in->dst, a32 * b32, 1); return 0;
  case OP_S_MUL_HI_U32: sdst_write(w, in->dst, (uint32_t)((uint64_t)a32 * b32 >> 32), 1); return 0;
  case OP_S_MUL_HI_I32: sdst_write(w, in->dst, (uint32_t)((int64_t)ai * bi >> 32), 1); return 0;
  case OP_S_BFE_U32: r = bfe32(a32, b32, false); goto w32s;
  case OP_S_BFE_I32: r = bfe32(a32, b32, true); goto w32s;
  case OP_S_BFE_U64: r = bfe64(a, b32, false); goto w64s;
  case OP_S_BFE_I64: r = bfe64(a, b32, true); goto w64s;
  case OP_S_ABSDIFF_I32: {
    int64_t d = (int64_t)ai - bi;
    r = (uint32_t)(d < 0 ? -d : d);
    goto w32s;
  }
  case OP_S_LSHL1_ADD_U32: case OP_S_LSHL2_ADD_U32: case OP_S_LSHL3_ADD_U32: case OP_S_LSHL4_ADD_U32: {
    unsigned sh = in->op == OP_S_LSHL1_ADD_U32 ? 1 : in->op == OP_S_LSHL2_ADD_U32 ? 2
                : in->op == OP_S_LSHL3_ADD_U32 ? 3 : 4;
    r = ((uint64_t)a32 << sh) + b32;
    w->scc = r >> 32 != 0;
    goto w32;
  }
  case OP_S_PACK_LL_B32_B16: sdst_write(w, in->dst, (a32 & 0xffff) | b32 << 16, 1); return 0;
  case OP_S_PACK_LH_B32_B16: sdst_write(w, in->dst, (a32 & 0xffff) | (b32 & 0xffff0000u), 1); return 0;
  case OP_S_PACK_HH_B32_B16: sdst_write(w, in->dst, a32 >> 16 | (b32 & 0xffff0000u), 1); return 0;
  case OP_S_CBRANCH_G_FORK: case OP_S_RFE_RESTORE_B64:
  default:
    return exec_illegal(w, in);
  }
w32s:
  w->scc = (uint32_t)r != 0;
w32:
  sdst_write(w, in->dst, (uint32_t)r, 1);
  return 0;
w64s:
  w->scc = r != 0;
  sdst_write(w, in->dst, r, 2);
  return 0;
}

int exec_salu(struct isa_wave *w, const struct isa_inst *in)
{
  switch (in->enc) {
  case ENC_SOPP: return sopp(w, in);
  case ENC_SOPK: return sopk(w, in);
  case ENC_SOPC: return sopc(w, in);
  case ENC_SOP1: return sop1(w, in);
  default: return sop2(w, in);
  }
}

/* ---- SMEM ---- */

static unsigned smem_dwords(unsigned op)
{
  switch (op) {
  case OP_S_LOAD_DWORDX2: case OP_S_BUFFER_LOAD_DWORDX2: case OP_S_STORE_DWORDX2: case OP_S_BUFFER_STORE_DWORDX2: return 2;
  case OP_S_LOAD_DWORDX4: case OP_S_BUFFER_LOAD_DWORDX4: case OP_S_STORE_DWORDX4: case OP_S_BUFFER_STORE_DWORDX4: return 4;
  case OP_S_LOAD_DWORDX8: case OP_S_BUFFER_LOAD_DWORDX8: return 8;
  case OP_S_LOAD_DWORDX16: case OP_S_BUFFER_LOAD_DWORDX16: return 16;
  default: return 1;
  }
}

/* Scalar memory kinds, classified once from the opcode names (s_load_*, s_buffer_load_*,
 * s_store_*, s_buffer_store_*); s_atomic_* and s_scratch_* are not modelled. */
enum { SMEM_LOAD = 1, SMEM_STORE = 2, SMEM_BUFFER = 4 };
static uint8_t smem_kind[ISA_OP_COUNT];
static pthread_once_t smem_once = PTHREAD_ONCE_INIT;

static void smem_init(void)
{
  for (unsigned op = 1; op < ISA_OP_COUNT; op++) {
    const char *n = isa_op_names[op];
    const char *t = !strncmp(n, "s_buffer_", 9) ? n + 9 : !strncmp(n, "s_", 2) ? n + 2 : NULL;
    if (!t)
      continue;
    uint8_t k = t != n + 2 ? SMEM_BUFFER : 0;
    if (!strncmp(t, "load_dword", 10))
      smem_kind[op] = k | SMEM_LOAD;
    else if (!strncmp(t, "store_dword", 11))
      smem_kind[op] = k | SMEM_STORE;
  }
}

/* The n dwords at va to the SGPRs from in->dst (a load), or from them to memory (a store). */
static int smem_move(struct isa_wave *w, const struct isa_inst *in, uint64_t va, unsigned n,
                     bool store)
{
  const struct isa_ctx *c = w->ctx;
  uint32_t *p;
  if (!store && va - c->karg_va < c->karg_len && c->karg_len - (va - c->karg_va) >= n * 4)
    p = (uint32_t *)(uintptr_t)(c->karg_host + (va - c->karg_va));   /* read only */
  else
    p = wave_mem(w, va, n * 4, store);
  if (!p)
    return -1;
  for (unsigned i = 0; i < n; i++) {
    if (in->dst + i >= 128)
      break;
    if (store)
      memcpy((uint8_t *)p + 4 * i, &w->s[in->dst + i], 4);
    else
      memcpy(&w->s[in->dst + i], (uint8_t *)p + 4 * i, 4);
  }
  return 0;
}

/* A wave that keeps reading the clock is likely waiting for time to pass (a clock64() delay
 * loop): after CLOCK_READS_PER_SLICE reads its time slice ends, so the workgroups taking turns
 * (dispatch.c, wave_polled) each get round again soon. Long slices made every round of 64
 * waiting workgroups take seconds on a loaded 2-core machine, well past the delay itself. */
#define CLOCK_READS_PER_SLICE 64

static void clock_read(struct isa_wave *w)
{
  if (++w->clock_reads >= CLOCK_READS_PER_SLICE)
    w->yield = true;
}

int exec_smem(struct isa_wave *w, const struct isa_inst *in)
{
  switch (in->op) {
  case OP_S_DCACHE_WB: case OP_S_DCACHE_INV: case OP_S_DCACHE_DISCARD: case OP_S_DCACHE_DISCARD_X2:
  case OP_S_ATC_PROBE: case OP_S_ATC_PROBE_BUFFER:
    return 0;  /* the interpreter has no scalar cache */
  case OP_S_MEMTIME: {
    clock_read(w);
    /* The shader clock (clock64() in HIP): ticks of the engine clock the device reports as its
     * clock rate, so a kernel that spins clockRate * 1000 ticks spins one second. */
    uint64_t ns = now_ns(CLOCK_MONOTONIC), mhz = w->ctx->d->shader_clock_mhz;
    if (!mhz)
      mhz = 1000;
    sdst_write(w, in->dst, (uint64_t)((unsigned __int128)ns * mhz / 1000), 2);
    return 0;
  }
  case OP_S_MEMREALTIME:
    clock_read(w);
    /* the "REFCLK" counter runs at 100 MHz on MI200/MI300 */
    sdst_write(w, in->dst, now_ns(CLOCK_MONOTONIC) / 10, 2);
    return 0;
  default:
    break;
  }
  pthread_once(&smem_once, smem_init);
  uint8_t kind = smem_kind[in->op];
  bool buffer = kind & SMEM_BUFFER, store = kind & SMEM_STORE;
  if (!(kind & (SMEM_LOAD | SMEM_STORE)))
    return exec_illegal(w, in);
  uint64_t base = wave_sreg64(w, in->addr);
  if (buffer)
    base &= 0xffffffffffffull;   /* V#: 48-bit base address */
  uint64_t off = (uint64_t)(int64_t)in->offset;
  if (in->soffset != OPD_NONE)
    off += w->s[in->soffset & 127];
  uint64_t va = base + off;
  if (!buffer)
    va &= ~3ull;  /* scalar loads ignore the two low address bits */
  return smem_move(w, in, va, smem_dwords(in->op), store);
}

/* s_load_dword..x16 (not the buffer forms): exec_smem's path without classifying the opcode
 * again, one handler per dword count N (smem_bind; in->fast holds N for smem_move). The kernel
 * arguments into SGPRs that all exist (most waves' first loads) are copied with one
 * fixed-size memcpy (a few moves): smem_move's kernarg case without its per-dword checks. */
static inline int smem_load_n(struct isa_wave *w, const struct isa_inst *in, unsigned n)
{
  uint64_t off = (uint64_t)(int64_t)in->offset;
  if (in->soffset != OPD_NONE)
    off += w->s[in->soffset & 127];
  uint64_t va = (wave_sreg64(w, in->addr) + off) & ~3ull;
  const struct isa_ctx *c = w->ctx;
  uint64_t rel = va - c->karg_va;
  if (rel < c->karg_len && c->karg_len - rel >= n * 4u && in->dst + n <= 128) {
    memcpy(&w->s[in->dst], c->karg_host + rel, 4 * n);
    return 0;
  }
  return smem_move(w, in, va, n, false);
}

#define SMEM_LOAD(N)                                                        \
  static int smem_load_##N(struct isa_wave *w, const struct isa_inst *in)   \
  {                                                                         \
    return smem_load_n(w, in, N);                                           \
  }
SMEM_LOAD(1)
SMEM_LOAD(2)
SMEM_LOAD(4)
SMEM_LOAD(8)
SMEM_LOAD(16)
#undef SMEM_LOAD

isa_exec_fn smem_bind(struct isa_inst *in)
{
  pthread_once(&smem_once, smem_init);
  if (smem_kind[in->op] != SMEM_LOAD)
    return exec_smem;
  in->fast = (uint8_t)smem_dwords(in->op);
  switch (in->fast) {
  case 1: return smem_load_1;
  case 2: return smem_load_2;
  case 4: return smem_load_4;
  case 8: return smem_load_8;
  case 16: return smem_load_16;
  default: return exec_smem;
  }
}
