// Per-instruction kernels for tests/isa/test_isa_op_vfp.c: the floating-point VALU opcodes of
// the kernel corpus (f16/f32/f64 arithmetic, float compares, conversions, transcendentals,
// rounding, frexp/ldexp, mac/fmac/fmaak, min/max, packed f32, MFMA) and the integer mads that
// came with them. Assembled for gfx90a and gfx942; each kernel names its encoding explicitly
// (_e32, _e64) because the coverage check counts encodings separately.
//
// Frames: T32/T64 of op_frame.inc (denormals on), T32F/T64F below (f32 denormals flushed, as
// kernels built with -fgpu-flush-denormals-to-zero run), and MF (MFMA, full EXEC) below.

.include "op_frame.inc"

// T32 and T64 with MODE.FP_DENORM f32 = 0 (flush f32 inputs and outputs)
.macro T32F name, body:vararg
  KBEGIN \name
  global_load_dword v2, v1, s[4:5]
  global_load_dword v3, v1, s[6:7]
  global_load_dword v4, v1, s[8:9]
  v_mov_b32 v5, 0xdeadbeef
  s_waitcnt vmcnt(0)
  HOLES
  \body
  s_mov_b64 exec, -1
  global_store_dword v1, v5, s[10:11]
  KEND \name, 0
.endm
.macro T64F name, body:vararg
  KBEGIN \name
  global_load_dwordx2 v[2:3], v10, s[4:5]
  global_load_dwordx2 v[4:5], v10, s[6:7]
  global_load_dwordx2 v[6:7], v10, s[8:9]
  v_mov_b32 v8, 0xdeadbeef
  v_mov_b32 v9, 0xdeadbeef
  s_waitcnt vmcnt(0)
  HOLES
  \body
  s_mov_b64 exec, -1
  global_store_dwordx2 v10, v[8:9], s[10:11]
  KEND \name, 0
.endm

// ---- half precision (inputs in the low 16 bits) ----
T32 f_add_f16_e32, v_add_f16_e32 v5, v2, v3
T32 f_add_f16_e64, v_add_f16_e64 v5, v2, v3
T32 f_add_f16_e64_neg, v_add_f16_e64 v5, -v2, |v3|
T32 f_mul_f16_e32, v_mul_f16_e32 v5, v2, v3
T32 f_mul_f16_e64, v_mul_f16_e64 v5, v2, v3

// ---- f32 arithmetic, min/max ----
T32 f_sub_f32_e64, v_sub_f32_e64 v5, v2, v3
T32 f_sub_f32_e64_abs, v_sub_f32_e64 v5, |v2|, -v3
T32 f_min_f32_e64, v_min_f32_e64 v5, v2, v3
T32 f_max_f32_e64, v_max_f32_e64 v5, v2, v3
T32F f_min_f32_e64_ftz, v_min_f32_e64 v5, v2, v3
// min3/max3/med3 are defined through v_min/v_max (same NaN and signed-zero rules)
T32 f_min3_f32, v_min3_f32 v5, v2, v3, v4
T32 f_max3_f32, v_max3_f32 v5, v2, v3, v4
T32 f_med3_f32, v_med3_f32 v5, v2, v3, v4
T32 f_min_f16_e32, v_min_f16_e32 v5, v2, v3
T32 f_max_f16_e32, v_max_f16_e32 v5, v2, v3
T64 f_min_f64, v_min_f64 v[8:9], v[2:3], v[4:5]
T64 f_min_f64_neg, v_min_f64 v[8:9], -v[2:3], v[4:5]
// v_fmaak_f32 is gfx940+ (gfx90a has v_madak_f32)
.if .amdgcn.gfx_generation_minor == 4
T32 f_fmaak_f32, v_fmaak_f32 v5, v2, v3, 0x3fc00000
.endif
.macro B_fmac_f32_e64
  v_mov_b32 v5, v4
  v_fmac_f32_e64 v5, v2, v3
.endm
T32 f_fmac_f32_e64, B_fmac_f32_e64
.macro B_fmac_f64_e64
  v_mov_b32 v8, v6
  v_mov_b32 v9, v7
  v_fmac_f64_e64 v[8:9], v[2:3], v[4:5]
.endm
T64 f_fmac_f64_e64, B_fmac_f64_e64
// v_mac_f32 (unfused) exists on gfx90a only; gfx940 removed the f32 mad/mac
.if .amdgcn.gfx_generation_minor != 4
.macro B_mac_f32_e32
  v_mov_b32 v5, v4
  v_mac_f32_e32 v5, v2, v3
.endm
.macro B_mac_f32_e64
  v_mov_b32 v5, v4
  v_mac_f32_e64 v5, v2, v3
.endm
T32 f_mac_f32_e32, B_mac_f32_e32
T32 f_mac_f32_e64, B_mac_f32_e64
T32F f_mac_f32_e32_ftz, B_mac_f32_e32
T32 f_madak_f32, v_madak_f32 v5, v2, v3, 0x3fc00000
T32 f_madmk_f32, v_madmk_f32 v5, v2, 0x00400000, v3
.endif

// ---- integer mads and med3 that share the list ----
T32 f_mad_i32_i24, v_mad_i32_i24 v5, v2, v3, v4
T32 f_mad_u32_u24, v_mad_u32_u24 v5, v2, v3, v4
T32 f_med3_i32, v_med3_i32 v5, v2, v3, v4
T32 f_mad_legacy_u16, v_mad_legacy_u16 v5, v2, v3, v4
T64 f_mad_i64_i32, v_mad_i64_i32 v[8:9], s[12:13], v2, v4, v[6:7]

// ---- conversions ----
T32 f_cvt_f16_f32_e64, v_cvt_f16_f32_e64 v5, v2
T32 f_cvt_f32_f16_e64, v_cvt_f32_f16_e64 v5, v2
T32 f_cvt_f32_i32_e64, v_cvt_f32_i32_e64 v5, v2
T32 f_cvt_f32_u32_e32, v_cvt_f32_u32_e32 v5, v2
T32 f_cvt_f32_u32_e64, v_cvt_f32_u32_e64 v5, v2
T32 f_cvt_i32_f32_e64, v_cvt_i32_f32_e64 v5, v2
T32 f_cvt_u32_f32_e64, v_cvt_u32_f32_e64 v5, v2
T32F f_cvt_i32_f32_e64_ftz, v_cvt_i32_f32_e64 v5, v2
// f64 -> 32-bit results: v8 = result, v9 = 0
.macro B_cvt_from64 op
  \op v8, v[2:3]
  v_mov_b32 v9, 0
.endm
T64 f_cvt_f32_f64_e32, B_cvt_from64 v_cvt_f32_f64_e32
T64 f_cvt_f32_f64_e64, B_cvt_from64 v_cvt_f32_f64_e64
T64F f_cvt_f32_f64_e32_ftz, B_cvt_from64 v_cvt_f32_f64_e32
T64 f_cvt_i32_f64_e32, B_cvt_from64 v_cvt_i32_f64_e32
T64 f_cvt_i32_f64_e64, B_cvt_from64 v_cvt_i32_f64_e64
T64 f_cvt_u32_f64_e32, B_cvt_from64 v_cvt_u32_f64_e32
T64 f_cvt_u32_f64_e64, B_cvt_from64 v_cvt_u32_f64_e64
// 32-bit inputs (low dword of a) -> f64
T64 f_cvt_f64_f32_e32, v_cvt_f64_f32_e32 v[8:9], v2
T64 f_cvt_f64_f32_e64, v_cvt_f64_f32_e64 v[8:9], v2
T64F f_cvt_f64_f32_e32_ftz, v_cvt_f64_f32_e32 v[8:9], v2
T64 f_cvt_f64_i32_e64, v_cvt_f64_i32_e64 v[8:9], v2
T64 f_cvt_f64_u32_e32, v_cvt_f64_u32_e32 v[8:9], v2
T64 f_cvt_f64_u32_e64, v_cvt_f64_u32_e64 v[8:9], v2

// ---- transcendentals ----
T32 f_exp_f32_e32, v_exp_f32_e32 v5, v2
T32 f_exp_f32_e64, v_exp_f32_e64 v5, v2
T32 f_log_f32_e32, v_log_f32_e32 v5, v2
T32 f_log_f32_e64, v_log_f32_e64 v5, v2
T32 f_rcp_f32_e64, v_rcp_f32_e64 v5, v2
T32 f_rcp_iflag_f32_e32, v_rcp_iflag_f32_e32 v5, v2
T32 f_rsq_f32_e32, v_rsq_f32_e32 v5, v2
T32 f_rsq_f32_e64, v_rsq_f32_e64 v5, v2
T32 f_sqrt_f32_e64, v_sqrt_f32_e64 v5, v2
T32 f_sin_f32_e32, v_sin_f32_e32 v5, v2
T32 f_sin_f32_e64, v_sin_f32_e64 v5, v2
T64 f_rcp_f64_e64, v_rcp_f64_e64 v[8:9], v[2:3]
// flush mode: denormal inputs read as zeros, denormal results written as zeros
T32F f_exp_f32_e32_ftz, v_exp_f32_e32 v5, v2
T32F f_log_f32_e32_ftz, v_log_f32_e32 v5, v2
T32F f_rcp_f32_e64_ftz, v_rcp_f32_e64 v5, v2
T32F f_rsq_f32_e32_ftz, v_rsq_f32_e32 v5, v2
T32F f_sqrt_f32_e64_ftz, v_sqrt_f32_e64 v5, v2
T64 f_rsq_f64_e32, v_rsq_f64_e32 v[8:9], v[2:3]
T64 f_rsq_f64_e64, v_rsq_f64_e64 v[8:9], v[2:3]

// ---- rounding ----
T32 f_ceil_f32_e32, v_ceil_f32_e32 v5, v2
T32 f_ceil_f32_e64, v_ceil_f32_e64 v5, v2
T32 f_floor_f32_e64, v_floor_f32_e64 v5, v2
T32 f_fract_f32_e64, v_fract_f32_e64 v5, v2
T32 f_rndne_f32_e32, v_rndne_f32_e32 v5, v2
T32 f_rndne_f32_e64, v_rndne_f32_e64 v5, v2
T32 f_trunc_f32_e32, v_trunc_f32_e32 v5, v2
T32 f_trunc_f32_e64, v_trunc_f32_e64 v5, v2
T32F f_trunc_f32_e32_ftz, v_trunc_f32_e32 v5, v2
T32F f_fract_f32_e64_ftz, v_fract_f32_e64 v5, v2
T64 f_ceil_f64_e32, v_ceil_f64_e32 v[8:9], v[2:3]
T64 f_ceil_f64_e64, v_ceil_f64_e64 v[8:9], v[2:3]
T64 f_floor_f64_e64, v_floor_f64_e64 v[8:9], v[2:3]
T64 f_fract_f64_e32, v_fract_f64_e32 v[8:9], v[2:3]
T64 f_fract_f64_e64, v_fract_f64_e64 v[8:9], v[2:3]
T64 f_rndne_f64_e32, v_rndne_f64_e32 v[8:9], v[2:3]
T64 f_rndne_f64_e64, v_rndne_f64_e64 v[8:9], v[2:3]
T64 f_trunc_f64_e32, v_trunc_f64_e32 v[8:9], v[2:3]
T64 f_trunc_f64_e64, v_trunc_f64_e64 v[8:9], v[2:3]

// ---- frexp / ldexp ----
T32 f_frexp_exp_i32_f32_e32, v_frexp_exp_i32_f32_e32 v5, v2
T32 f_frexp_exp_i32_f32_e64, v_frexp_exp_i32_f32_e64 v5, v2
T32 f_frexp_mant_f32_e32, v_frexp_mant_f32_e32 v5, v2
T32 f_frexp_mant_f32_e64, v_frexp_mant_f32_e64 v5, v2
T32F f_frexp_exp_i32_f32_e32_ftz, v_frexp_exp_i32_f32_e32 v5, v2
T32F f_frexp_mant_f32_e32_ftz, v_frexp_mant_f32_e32 v5, v2
T64 f_frexp_exp_i32_f64_e32, B_cvt_from64 v_frexp_exp_i32_f64_e32
T64 f_frexp_exp_i32_f64_e64, B_cvt_from64 v_frexp_exp_i32_f64_e64
T64 f_frexp_mant_f64_e32, v_frexp_mant_f64_e32 v[8:9], v[2:3]
T64 f_frexp_mant_f64_e64, v_frexp_mant_f64_e64 v[8:9], v[2:3]
T64 f_ldexp_f64, v_ldexp_f64 v[8:9], v[2:3], v4

// ---- compares: v5 = the lane's bit, plus 2 if the mask has a bit outside EXEC ----
.macro C32E32 op
  \op vcc, v2, v3
  v_cndmask_b32_e64 v5, 0, 1, vcc
  s_andn2_b64 s[14:15], vcc, exec
  s_cselect_b32 s16, 2, 0
  v_or_b32_e32 v5, s16, v5
.endm
.macro C32E64 op
  \op s[12:13], v2, v3
  v_cndmask_b32_e64 v5, 0, 1, s[12:13]
  s_andn2_b64 s[14:15], s[12:13], exec
  s_cselect_b32 s16, 2, 0
  v_or_b32_e32 v5, s16, v5
.endm
.macro C64E32 op
  \op vcc, v[2:3], v[4:5]
  v_cndmask_b32_e64 v8, 0, 1, vcc
  s_andn2_b64 s[14:15], vcc, exec
  s_cselect_b32 s16, 2, 0
  v_or_b32_e32 v8, s16, v8
  v_mov_b32 v9, 0
.endm
.macro C64E64 op
  \op s[12:13], v[2:3], v[4:5]
  v_cndmask_b32_e64 v8, 0, 1, s[12:13]
  s_andn2_b64 s[14:15], s[12:13], exec
  s_cselect_b32 s16, 2, 0
  v_or_b32_e32 v8, s16, v8
  v_mov_b32 v9, 0
.endm
// v_cmp_class_f64: the class mask is the low dword of b (v4)
.macro C64CLS op
  \op s[12:13], v[2:3], v4
  v_cndmask_b32_e64 v8, 0, 1, s[12:13]
  s_andn2_b64 s[14:15], s[12:13], exec
  s_cselect_b32 s16, 2, 0
  v_or_b32_e32 v8, s16, v8
  v_mov_b32 v9, 0
.endm
.macro C64CLS32 op
  \op vcc, v[2:3], v4
  v_cndmask_b32_e64 v8, 0, 1, vcc
  s_andn2_b64 s[14:15], vcc, exec
  s_cselect_b32 s16, 2, 0
  v_or_b32_e32 v8, s16, v8
  v_mov_b32 v9, 0
.endm

.irp p, eq, ge, gt, le, lt, neq, nge, ngt, nle, nlt, o, u
T32 f_cmp_\p\()_f32_e32, C32E32 v_cmp_\p\()_f32_e32
T32 f_cmp_\p\()_f32_e64, C32E64 v_cmp_\p\()_f32_e64
T64 f_cmp_\p\()_f64_e32, C64E32 v_cmp_\p\()_f64_e32
T64 f_cmp_\p\()_f64_e64, C64E64 v_cmp_\p\()_f64_e64
.endr
T32 f_cmp_nlg_f32_e64, C32E64 v_cmp_nlg_f32_e64
T64 f_cmp_nlg_f64_e64, C64E64 v_cmp_nlg_f64_e64
T32F f_cmp_lt_f32_e32_ftz, C32E32 v_cmp_lt_f32_e32
T32 f_cmp_class_f32_e64, C32E64 v_cmp_class_f32_e64
T64 f_cmp_class_f64_e32, C64CLS32 v_cmp_class_f64_e32
T64 f_cmp_class_f64_e64, C64CLS v_cmp_class_f64_e64

// SGPR operands and source modifiers, the forms compiled code uses (ocml's isinf/isfinite
// tests compare |x| with an SGPR holding +inf; class masks come from SGPRs)
.macro MASK32 m
  v_cndmask_b32_e64 v5, 0, 1, \m
  s_andn2_b64 s[14:15], \m, exec
  s_cselect_b32 s16, 2, 0
  v_or_b32_e32 v5, s16, v5
.endm
.macro MASK64 m
  v_cndmask_b32_e64 v8, 0, 1, \m
  s_andn2_b64 s[14:15], \m, exec
  s_cselect_b32 s16, 2, 0
  v_or_b32_e32 v8, s16, v8
  v_mov_b32 v9, 0
.endm
.macro B_cmp_lt_abs_inf
  s_mov_b32 s17, 0x7f800000
  v_cmp_lt_f32_e64 s[12:13], |v2|, s17
  MASK32 s[12:13]
.endm
.macro B_cmp_nlt_abs_inf
  s_mov_b32 s17, 0x7f800000
  v_cmp_nlt_f32_e64 s[12:13], |v2|, s17
  MASK32 s[12:13]
.endm
.macro B_cmp_class_vcc_sgpr
  s_mov_b32 s17, 0x264
  v_cmp_class_f32_e64 vcc, v2, s17
  MASK32 vcc
.endm
.macro B_cmp_class64_sgpr
  s_mov_b32 s17, 0x90
  v_cmp_class_f64_e64 s[12:13], v[2:3], s17
  MASK64 s[12:13]
.endm
.macro B_cmp_lt64_sgpr
  s_mov_b32 s18, 0
  s_mov_b32 s19, 0x3ff00000
  v_cmp_lt_f64_e64 s[12:13], v[2:3], s[18:19]
  MASK64 s[12:13]
.endm
.macro B_fmac_sgpr
  v_mov_b32 v5, v4
  s_mov_b32 s17, 0xc0400000
  v_fmac_f32_e64 v5, v2, s17
.endm
.macro B_fmac64_sgpr
  v_mov_b32 v8, v6
  v_mov_b32 v9, v7
  s_mov_b32 s18, 0
  s_mov_b32 s19, 0xbfe00000
  v_fmac_f64_e64 v[8:9], v[2:3], s[18:19]
.endm
.macro B_sub_sgpr
  s_mov_b32 s17, 0x7149f2ca
  v_sub_f32_e64 v5, s17, v2
.endm
T32 f_cmp_lt_f32_e64_abs_sgpr, B_cmp_lt_abs_inf
T32 f_cmp_nlt_f32_e64_abs_sgpr, B_cmp_nlt_abs_inf
T32 f_cmp_class_f32_e64_vcc_sgpr, B_cmp_class_vcc_sgpr
T64 f_cmp_class_f64_e64_sgpr, B_cmp_class64_sgpr
T64 f_cmp_lt_f64_e64_sgpr, B_cmp_lt64_sgpr
T32 f_fmac_f32_e64_sgpr, B_fmac_sgpr
T64 f_fmac_f64_e64_sgpr, B_fmac64_sgpr
T32 f_sub_f32_e64_sgpr, B_sub_sgpr

// ---- packed f32 (register pairs: low element in the even register) ----
T64 f_pk_add_f32, v_pk_add_f32 v[8:9], v[2:3], v[4:5]
T64 f_pk_add_f32_sel, v_pk_add_f32 v[8:9], v[2:3], v[4:5] op_sel:[1,0] op_sel_hi:[0,1] neg_lo:[0,1]
T64 f_pk_mul_f32, v_pk_mul_f32 v[8:9], v[2:3], v[4:5]
T64 f_pk_mul_f32_sel, v_pk_mul_f32 v[8:9], v[2:3], v[4:5] op_sel:[0,1] op_sel_hi:[1,0] neg_hi:[1,0]
T64 f_pk_fma_f32, v_pk_fma_f32 v[8:9], v[2:3], v[4:5], v[6:7]
T64 f_pk_fma_f32_sel, v_pk_fma_f32 v[8:9], v[2:3], v[4:5], v[6:7] op_sel:[0,0,1] op_sel_hi:[1,1,0]
T64F f_pk_fma_f32_ftz, v_pk_fma_f32 v[8:9], v[2:3], v[4:5], v[6:7]
T64F f_pk_mul_f32_ftz, v_pk_mul_f32 v[8:9], v[2:3], v[4:5]
T64 f_pk_mov_b32, v_pk_mov_b32 v[8:9], v[2:3], v[4:5] op_sel:[0,1]
T64 f_pk_mov_b32_sel, v_pk_mov_b32 v[8:9], v[2:3], v[4:5] op_sel:[1,0]

// ---- MFMA: A = a[] (2 dwords a lane), B = b[] (2 dwords a lane), C = c[] register-major
// (c[reg * 64 + lane], 16 registers), D stored the same way to out[]. EXEC is all ones: the
// matrix spans the whole wave. ----
.macro MF name, op, d=48
  .text
  .globl \name
  .p2align 8
  .type \name,@function
\name:
  s_load_dwordx8 s[4:11], s[0:1], 0x0
  v_and_b32 v0, 0x3ff, v0
  v_lshlrev_b32 v1, 2, v0
  v_lshlrev_b32 v10, 3, v0
  s_waitcnt lgkmcnt(0)
  global_load_dwordx2 v[2:3], v10, s[4:5]
  global_load_dwordx2 v[4:5], v10, s[6:7]
  .irp r, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15
    global_load_dword v[32 + \r], v1, s[8:9] offset:256*\r
  .endr
  s_waitcnt vmcnt(0)
  \op
  s_nop 7
  s_nop 7
  s_nop 7
  .irp r, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15
    global_store_dword v1, v[\d + \r], s[10:11] offset:256*\r
  .endr
  s_endpgm
  .rodata
  .p2align 6
  .amdhsa_kernel \name
    .amdhsa_user_sgpr_kernarg_segment_ptr 1
    .amdhsa_float_denorm_mode_32 3
    .amdhsa_float_denorm_mode_16_64 3
    .amdhsa_next_free_vgpr 64
    .amdhsa_next_free_sgpr 24
    .amdhsa_accum_offset 64
  .end_amdhsa_kernel
.endm

// D in v[48:63], C in v[32:47]; every kernel stores 16 registers (unused ones hold junk the
// test ignores). The *_acc kernels accumulate in place (D = C = v[32:47]), as compiled loops do.
.if .amdgcn.gfx_generation_minor == 4
MF m_f32_16x16x4_f32, "v_mfma_f32_16x16x4_f32 v[48:51], v2, v4, v[32:35]"
MF m_f32_32x32x2_f32, "v_mfma_f32_32x32x2_f32 v[48:63], v2, v4, v[32:47]"
MF m_f32_16x16x16_f16, "v_mfma_f32_16x16x16_f16 v[48:51], v[2:3], v[4:5], v[32:35]"
MF m_f32_32x32x8_f16, "v_mfma_f32_32x32x8_f16 v[48:63], v[2:3], v[4:5], v[32:47]"
MF m_f32_32x32x8_bf16, "v_mfma_f32_32x32x8_bf16 v[48:63], v[2:3], v[4:5], v[32:47]"
MF m_f64_16x16x4_f64, "v_mfma_f64_16x16x4_f64 v[48:55], v[2:3], v[4:5], v[32:39]"
MF m_i32_16x16x32_i8, "v_mfma_i32_16x16x32_i8 v[48:51], v[2:3], v[4:5], v[32:35]"
MF m_f32_32x32x8_f16_acc, "v_mfma_f32_32x32x8_f16 v[32:47], v[2:3], v[4:5], v[32:47]", 32
MF m_f64_16x16x4_f64_acc, "v_mfma_f64_16x16x4_f64 v[32:39], v[2:3], v[4:5], v[32:39]", 32
.else
MF m_f32_16x16x4_f32, "v_mfma_f32_16x16x4f32 v[48:51], v2, v4, v[32:35]"
MF m_f32_32x32x2_f32, "v_mfma_f32_32x32x2f32 v[48:63], v2, v4, v[32:47]"
MF m_f32_16x16x16_f16, "v_mfma_f32_16x16x16f16 v[48:51], v[2:3], v[4:5], v[32:35]"
MF m_f32_32x32x8_f16, "v_mfma_f32_32x32x8f16 v[48:63], v[2:3], v[4:5], v[32:47]"
MF m_f32_32x32x8_bf16, "v_mfma_f32_32x32x8bf16_1k v[48:63], v[2:3], v[4:5], v[32:47]"
MF m_f64_16x16x4_f64, "v_mfma_f64_16x16x4f64 v[48:55], v[2:3], v[4:5], v[32:39]"
MF m_i32_16x16x16_i8, "v_mfma_i32_16x16x16i8 v[48:51], v2, v4, v[32:35]"
MF m_f32_32x32x8_f16_acc, "v_mfma_f32_32x32x8f16 v[32:47], v[2:3], v[4:5], v[32:47]", 32
MF m_f64_16x16x4_f64_acc, "v_mfma_f64_16x16x4f64 v[32:39], v[2:3], v[4:5], v[32:39]", 32
.endif
