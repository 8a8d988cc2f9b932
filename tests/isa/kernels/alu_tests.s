// Per-instruction kernels for tests/isa/test_isa_alu.c, assembled for gfx90a and gfx942.
//
// Every kernel has the frame of op_frame.inc. Bodies of more than one instruction are macros
// B_<test>.

.include "op_frame.inc"

T32 t_add_f32, v_add_f32 v5, v2, v3
T32 t_sub_f32, v_sub_f32 v5, v2, v3
T32 t_mul_f32, v_mul_f32 v5, v2, v3
T32 t_fma_f32, v_fma_f32 v5, v2, v3, v4
.macro B_t_fmac_f32
  v_mov_b32 v5, v4
  v_fmac_f32 v5, v2, v3
.endm
T32 t_fmac_f32, B_t_fmac_f32
T32 t_min_f32, v_min_f32 v5, v2, v3
T32 t_max_f32, v_max_f32 v5, v2, v3
T32 t_neg_abs_f32, v_add_f32_e64 v5, -|v2|, |v3|
T32 t_mul_clamp_f32, v_mul_f32_e64 v5, v2, v3 clamp
T32 t_mul_omod2_f32, v_mul_f32_e64 v5, v2, v3 mul:2
T32 t_cvt_i32_f32, v_cvt_i32_f32 v5, v2
T32 t_cvt_u32_f32, v_cvt_u32_f32 v5, v2
T32 t_cvt_f32_i32, v_cvt_f32_i32 v5, v2
T32 t_cvt_f16_f32, v_cvt_f16_f32 v5, v2
T32 t_cvt_f32_f16, v_cvt_f32_f16 v5, v2
T32 t_rcp_f32, v_rcp_f32 v5, v2
T32 t_sqrt_f32, v_sqrt_f32 v5, v2
T32 t_floor_f32, v_floor_f32 v5, v2
T32 t_fract_f32, v_fract_f32 v5, v2
T32 t_ldexp_f32, v_ldexp_f32 v5, v2, v3
T32 t_med3_f32, v_med3_f32 v5, v2, v3, v4
T32 t_add_inline_f32, v_add_f32 v5, 0.5, v2
T32 t_add_literal_f32, v_add_f32 v5, 0x40490fdb, v2
// the mad/fma-with-literal forms differ by target: madmk on gfx90a, fmamk on gfx942
.if .amdgcn.gfx_generation_minor == 4
T32 t_madmk_f32, v_fmamk_f32 v5, v2, 0x3fc00000, v3
.else
T32 t_madmk_f32, v_madmk_f32 v5, v2, 0x3fc00000, v3
.endif
T32 t_add_u32, v_add_u32 v5, v2, v3
T32 t_sub_u32, v_sub_u32 v5, v2, v3
.macro B_t_add_co_u32
  v_add_co_u32 v5, vcc, v2, v3
  v_addc_co_u32 v5, vcc, v5, 0, vcc
.endm
T32 t_add_co_u32, B_t_add_co_u32
T32 t_mul_lo_u32, v_mul_lo_u32 v5, v2, v3
T32 t_mul_hi_u32, v_mul_hi_u32 v5, v2, v3
T32 t_mul_hi_i32, v_mul_hi_i32 v5, v2, v3
T32 t_mul_u32_u24, v_mul_u32_u24 v5, v2, v3
T32 t_min_i32, v_min_i32 v5, v2, v3
T32 t_max_u32, v_max_u32 v5, v2, v3
T32 t_lshlrev_b32, v_lshlrev_b32 v5, v3, v2
T32 t_lshrrev_b32, v_lshrrev_b32 v5, v3, v2
T32 t_ashrrev_i32, v_ashrrev_i32 v5, v3, v2
T32 t_bfe_u32, v_bfe_u32 v5, v2, 3, 7
T32 t_bfe_i32, v_bfe_i32 v5, v2, 5, 9
T32 t_bfi_b32, v_bfi_b32 v5, v2, v3, v4
T32 t_alignbit_b32, v_alignbit_b32 v5, v2, v3, v4
.macro B_t_perm_b32
  s_mov_b32 s15, 0x0c070501
  v_perm_b32 v5, v2, v3, s15
.endm
T32 t_perm_b32, B_t_perm_b32
T32 t_add3_u32, v_add3_u32 v5, v2, v3, v4
T32 t_lshl_add_u32, v_lshl_add_u32 v5, v2, 3, v3
T32 t_xad_u32, v_xad_u32 v5, v2, v3, v4
T32 t_bcnt_u32, v_bcnt_u32_b32 v5, v2, v3
T32 t_ffbh_u32, v_ffbh_u32 v5, v2
T32 t_bfrev_b32, v_bfrev_b32 v5, v2
.macro B_t_cndmask
  v_cmp_lt_i32 vcc, v2, v3
  v_cndmask_b32 v5, v4, v2, vcc
.endm
T32 t_cndmask, B_t_cndmask
.macro B_t_cmp_class
  v_mov_b32 v6, 0x3f0
  v_cmp_class_f32 vcc, v2, v6
  v_cndmask_b32 v5, 0, 1, vcc
.endm
T32 t_cmp_class, B_t_cmp_class
.macro B_t_cmp_nge_f32
  v_cmp_nge_f32_e64 s[12:13], v2, v3
  v_cndmask_b32_e64 v5, 0, 1, s[12:13]
.endm
T32 t_cmp_nge_f32, B_t_cmp_nge_f32
.macro B_t_mbcnt
  v_mbcnt_lo_u32_b32 v5, -1, 0
  v_mbcnt_hi_u32_b32 v5, -1, v5
.endm
T32 t_mbcnt, B_t_mbcnt
.macro B_t_readfirstlane
  v_readfirstlane_b32 s12, v2
  v_mov_b32 v5, s12
.endm
T32 t_readfirstlane, B_t_readfirstlane
.macro B_t_dpp_row_shr1
  v_mov_b32 v5, 0
  v_mov_b32_dpp v5, v2 row_shr:1 row_mask:0xf bank_mask:0xf
.endm
T32 t_dpp_row_shr1, B_t_dpp_row_shr1
T32 t_dpp_quad_perm, v_add_u32_dpp v5, v2, v3 quad_perm:[3,2,1,0] row_mask:0xf bank_mask:0xf bound_ctrl:0
T32 t_sdwa_byte1, v_add_u32_sdwa v5, v2, v3 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:BYTE_1 src1_sel:WORD_0
.macro B_t_sdwa_sext
  v_mov_b32_sdwa v5, v2 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:BYTE_0
  v_mov_b32_sdwa v5, sext(v2) dst_sel:WORD_0 dst_unused:UNUSED_PRESERVE src0_sel:BYTE_2
.endm
T32 t_sdwa_sext, B_t_sdwa_sext
T32 t_pk_add_f16, v_pk_add_f16 v5, v2, v3
T32 t_pk_fma_f16_opsel, v_pk_fma_f16 v5, v2, v3, v4 op_sel:[1,0,0] op_sel_hi:[0,1,1]
// float inline constants in packed operands, as clang emits them for `h2 + 1.0h` and `1.0f - x`
T32 t_pk_add_f16_const, v_pk_add_f16 v5, v2, 1.0 op_sel_hi:[1,0]
T64 t_pk_add_f32_const, v_pk_add_f32 v[8:9], v[2:3], 1.0 op_sel_hi:[1,0] neg_lo:[1,0] neg_hi:[1,0]
T32 t_dot2_f32_f16_const, v_dot2_f32_f16 v5, v2, v3, 1.0
T32 t_fma_mix, v_fma_mix_f32 v5, v2, v3, v4 op_sel_hi:[1,1,0]
T32 t_dot2_f32_f16, v_dot2_f32_f16 v5, v2, v3, v4
.macro B_t_swizzle_rev
  ds_swizzle_b32 v5, v2 offset:swizzle(REVERSE,8)
  s_waitcnt lgkmcnt(0)
.endm
T32 t_swizzle_rev, B_t_swizzle_rev
.macro B_t_bpermute
  v_add_u32 v6, 1, v0
  v_lshlrev_b32 v6, 2, v6
  ds_bpermute_b32 v5, v6, v2
  s_waitcnt lgkmcnt(0)
.endm
T32 t_bpermute, B_t_bpermute

T64 t_add_f64, v_add_f64 v[8:9], v[2:3], v[4:5]
T64 t_mul_f64, v_mul_f64 v[8:9], v[2:3], v[4:5]
T64 t_fma_f64, v_fma_f64 v[8:9], v[2:3], v[4:5], v[6:7]
T64 t_max_f64, v_max_f64 v[8:9], v[2:3], v[4:5]
.macro B_t_fmac_lit_f64
  v_mov_b32 v8, v6
  v_mov_b32 v9, v7
  v_fmac_f64 v[8:9], 0x40080000, v[2:3]
.endm
T64 t_fmac_lit_f64, B_t_fmac_lit_f64
T64 t_add_neg_f64, v_add_f64 v[8:9], -v[2:3], -4.0
T64 t_rcp_f64, v_rcp_f64 v[8:9], v[2:3]
T64 t_floor_f64, v_floor_f64 v[8:9], v[2:3]
T64 t_lshlrev_b64, v_lshlrev_b64 v[8:9], v4, v[2:3]
T64 t_ashrrev_i64, v_ashrrev_i64 v[8:9], v4, v[2:3]
T64 t_mad_u64_u32, v_mad_u64_u32 v[8:9], s[12:13], v2, v4, v[6:7]
T64 t_cvt_f64_i32, v_cvt_f64_i32 v[8:9], v2
.macro B_t_cmp_u64
  v_cmp_lt_u64 vcc, v[2:3], v[4:5]
  v_cndmask_b32 v8, 0, 1, vcc
  v_mov_b32 v9, 0
.endm
T64 t_cmp_u64, B_t_cmp_u64
.macro B_t_div_f64_seq
  v_div_scale_f64 v[12:13], s[12:13], v[4:5], v[4:5], v[2:3]
  v_rcp_f64 v[14:15], v[12:13]
  v_fma_f64 v[16:17], -v[12:13], v[14:15], 1.0
  v_fma_f64 v[14:15], v[14:15], v[16:17], v[14:15]
  v_fma_f64 v[16:17], -v[12:13], v[14:15], 1.0
  v_fma_f64 v[14:15], v[14:15], v[16:17], v[14:15]
  v_div_scale_f64 v[16:17], vcc, v[2:3], v[4:5], v[2:3]
  v_mul_f64 v[18:19], v[16:17], v[14:15]
  v_fma_f64 v[12:13], -v[12:13], v[18:19], v[16:17]
  v_div_fmas_f64 v[12:13], v[12:13], v[14:15], v[18:19]
  v_div_fixup_f64 v[8:9], v[12:13], v[4:5], v[2:3]
.endm
T64 t_div_f64_seq, B_t_div_f64_seq

// Scalar ALU: s_* results moved to v5 (uniform: lane values a[0], b[0])
.macro S32 name, body:vararg
  KBEGIN \name
  s_load_dword s12, s[4:5], 0x0
  s_load_dword s13, s[6:7], 0x0
  v_mov_b32 v5, 0xdeadbeef
  s_waitcnt lgkmcnt(0)
  \body
  HOLES
  v_mov_b32 v5, s14
  s_mov_b64 exec, -1
  global_store_dword v1, v5, s[10:11]
  KEND \name
.endm

.macro B_s_add_scc
  s_add_u32 s14, s12, s13
  s_cselect_b32 s15, 1, 0
  s_lshl_b32 s15, s15, 31
  s_or_b32 s14, s14, s15
.endm
S32 s_add_scc, B_s_add_scc
S32 s_sub_i32, s_sub_i32 s14, s12, s13
S32 s_mul_hi_u32, s_mul_hi_u32 s14, s12, s13
S32 s_bfe_u32, s_bfe_u32 s14, s12, 0x80004
S32 s_ff1, s_ff1_i32_b32 s14, s12
S32 s_flbit, s_flbit_i32_b32 s14, s12
S32 s_bcnt1, s_bcnt1_i32_b32 s14, s12
S32 s_ashr, s_ashr_i32 s14, s12, s13
S32 s_min_i32, s_min_i32 s14, s12, s13
.macro B_s_cmp_branch
  s_mov_b32 s14, 1
  s_cmp_lt_i32 s12, s13
  s_cbranch_scc1 1f
  s_mov_b32 s14, 2
  1:
  s_nop 0
.endm
S32 s_cmp_branch, B_s_cmp_branch
S32 s_getreg_mode, s_getreg_b32 s14, hwreg(HW_REG_MODE, 0, 8)
.macro B_s_setreg_roundtrip
  s_setreg_b32 hwreg(HW_REG_MODE, 0, 4), s12
  s_getreg_b32 s14, hwreg(HW_REG_MODE, 0, 4)
.endm
S32 s_setreg_roundtrip, B_s_setreg_roundtrip

// f32 division as clang emits it (denormals on): div_scale, rcp, fma refinement, div_fmas, div_fixup
.macro B_t_div_f32_seq
  v_div_scale_f32 v6, s[16:17], v3, v3, v2
  v_rcp_f32 v7, v6
  v_fma_f32 v8, -v6, v7, 1.0
  v_fmac_f32 v7, v8, v7
  v_div_scale_f32 v9, vcc, v2, v3, v2
  v_mul_f32 v8, v9, v7
  v_fma_f32 v11, -v6, v8, v9
  v_fmac_f32 v8, v11, v7
  v_fma_f32 v6, -v6, v8, v9
  v_div_fmas_f32 v6, v6, v7, v8
  v_div_fixup_f32 v5, v6, v3, v2
.endm
T32 t_div_f32_seq, B_t_div_f32_seq

// ---- control kernels for test_isa_control.c: messages, traps, faults, timers ----
.macro CBEGIN name
  .text
  .globl \name
  .p2align 8
  .type \name,@function
\name:
  s_load_dwordx8 s[4:11], s[0:1], 0x0
  v_and_b32 v0, 0x3ff, v0
  v_lshlrev_b32 v1, 2, v0
  s_waitcnt lgkmcnt(0)
.endm

// s_sendmsg MSG_INTERRUPT with M0 = a[0] (the hostcall doorbell of printf/assert)
CBEGIN c_sendmsg
  s_load_dword s12, s[4:5], 0x0
  s_waitcnt lgkmcnt(0)
  s_mov_b32 m0, s12
  s_sendmsg sendmsg(MSG_INTERRUPT)
  v_mov_b32 v2, 1
  global_store_dword v1, v2, s[10:11]
KEND c_sendmsg

// s_trap 2: what llvm.trap (device-side abort) compiles to
CBEGIN c_trap
  s_trap 2
  v_mov_b32 v2, 1
  global_store_dword v1, v2, s[10:11]
KEND c_trap

// an encoding no gfx9 target has, after one valid store
CBEGIN c_illegal
  v_mov_b32 v2, 7
  global_store_dword v1, v2, s[10:11]
  .long 0xffffffff
  s_endpgm
KEND c_illegal

// a load from the address in a[0..1] (the test passes an unmapped one)
CBEGIN c_fault_load
  s_load_dwordx2 s[12:13], s[4:5], 0x0
  s_waitcnt lgkmcnt(0)
  v_mov_b32 v2, s12
  v_mov_b32 v3, s13
  flat_load_dword v4, v[2:3]
  s_waitcnt vmcnt(0)
  global_store_dword v1, v4, s[10:11]
KEND c_fault_load

// s_memrealtime twice: the second value is not smaller than the first
CBEGIN c_memrealtime
  s_memrealtime s[12:13]
  s_waitcnt lgkmcnt(0)
  s_nop 7
  s_memrealtime s[14:15]
  s_waitcnt lgkmcnt(0)
  v_mov_b32 v2, s12
  v_mov_b32 v3, s13
  v_mov_b32 v4, s14
  v_mov_b32 v5, s15
  v_mov_b32 v6, 0
  global_store_dwordx4 v6, v[2:5], s[10:11]
KEND c_memrealtime

// EXEC changed in the middle of straight-line code, by a VALU compare, a SALU move and a VALU
// read into exec_lo: each vector instruction counts the lanes active when it starts
// (test_isa_control.c, lane_ops_follow_exec). v2 per lane: 15 (lanes 0-1), 7 (2-7), 5 (8-15), 4.
CBEGIN c_exec_steps
  v_mov_b32 v2, 0
  v_mov_b32 v3, 3
  v_cmpx_gt_u32 vcc, 16, v0
  v_add_u32 v2, 1, v2
  s_mov_b32 exec_lo, 0xff
  v_add_u32 v2, 2, v2
  v_readfirstlane_b32 exec_lo, v3
  v_add_u32 v2, 8, v2
  s_mov_b64 exec, -1
  v_add_u32 v2, 4, v2
  global_store_dword v1, v2, s[10:11]
KEND c_exec_steps

// EXEC written inside straight-line runs and inside a loop that branches to itself: a loop
// body halving nothing but its top lane each turn (s_lshr_b64 exec), then EXEC restored and a
// scalar instruction before the last vector add. Lane l adds 1 per turn it was active (lanes
// 61..63 drop out after 3, 2, 1 turns) and 5 at the end.
CBEGIN c_exec_in_loop
  v_mov_b32 v2, 0
  s_mov_b32 s16, 0
.Lc_exec_loop:
  v_add_u32 v2, 1, v2
  s_add_u32 s16, s16, 1
  s_lshr_b64 exec, exec, 1
  s_cmp_lt_u32 s16, 4
  s_cbranch_scc1 .Lc_exec_loop
  s_mov_b64 exec, -1
  s_mov_b32 s17, 5
  v_add_u32 v2, s17, v2
  global_store_dword v1, v2, s[10:11]
KEND c_exec_in_loop

// Long loops (320,010 instructions a wave): time slices end inside straight-line runs and
// resume there. The first loop has s_nop / s_waitcnt and a compare with a literal, the second
// a compare fused with its branch. v2 = 6 x 30000 + 20000; s_getpc_b64 twice in a row give
// PCs 4 apart (s14 - s12 added too).
CBEGIN c_long_loops
  s_mov_b32 s16, 0
  v_mov_b32 v2, 0
.Lc_long_loop1:
  v_add_u32 v2, 1, v2
  s_nop 0
  v_add_u32 v2, 2, v2
  s_waitcnt lgkmcnt(0)
  s_add_u32 s16, s16, 1
  v_add_u32 v2, 3, v2
  s_cmp_lt_u32 s16, 30000
  s_cbranch_scc1 .Lc_long_loop1
  s_mov_b32 s17, 0
  s_mov_b32 s18, 20000
.Lc_long_loop2:
  s_add_u32 s17, s17, 1
  v_add_u32 v2, 1, v2
  s_cmp_lg_u32 s17, s18
  s_cbranch_scc1 .Lc_long_loop2
  s_getpc_b64 s[12:13]
  s_getpc_b64 s[14:15]
  s_sub_u32 s14, s14, s12
  v_add_u32 v2, s14, v2
  global_store_dword v1, v2, s[10:11]
KEND c_long_loops

// The scalar operations run by operand-specialised handlers (exec_salu_fast.c): each 32-bit
// SOP2 with an SGPR and an inline constant, an SGPR and a literal, two SGPRs and a constant
// first; each compare with an SGPR and a constant, two SGPRs, and fused with its branch;
// s_abs_i32.
// Result and SCC of each go to out[2i], out[2i+1] (test_isa_control.c, salu_forms); SCC is 1
// before each SOP2, so s_addc_u32 adds it and s_cselect_b32 picks its first source.
.macro SF op, a, b
  s_cmp_eq_u32 s12, s12
  \op s14, \a, \b
  s_cselect_b32 s15, 1, 0
  v_mov_b32 v2, s14
  v_mov_b32 v3, s15
  global_store_dwordx2 v4, v[2:3], s[10:11] offset:SFSLOT*8
  .set SFSLOT, SFSLOT+1
.endm
.macro SC op, a, b
  \op \a, \b
  s_cselect_b32 s15, 1, 0
  v_mov_b32 v2, 0
  v_mov_b32 v3, s15
  global_store_dwordx2 v4, v[2:3], s[10:11] offset:SFSLOT*8
  .set SFSLOT, SFSLOT+1
.endm
.macro SB op, a, b
  s_mov_b32 s15, 0
  \op \a, \b
  s_cbranch_scc0 .Lsb\@
  s_mov_b32 s15, 1
.Lsb\@:
  v_mov_b32 v2, 0
  v_mov_b32 v3, s15
  global_store_dwordx2 v4, v[2:3], s[10:11] offset:SFSLOT*8
  .set SFSLOT, SFSLOT+1
.endm
.macro SA src
  s_cmp_eq_u32 s12, s12
  s_abs_i32 s14, \src
  s_cselect_b32 s15, 1, 0
  v_mov_b32 v2, s14
  v_mov_b32 v3, s15
  global_store_dwordx2 v4, v[2:3], s[10:11] offset:SFSLOT*8
  .set SFSLOT, SFSLOT+1
.endm
CBEGIN c_salu_forms
  s_load_dwordx2 s[12:13], s[4:5], 0x0
  v_mov_b32 v4, 0
  s_waitcnt lgkmcnt(0)
  .set SFSLOT, 0
  SF s_add_u32, s12, -7
  SF s_add_u32, s12, 0x12345678
  SF s_add_u32, s12, s13
  SF s_add_u32, 9, s12
  SF s_addc_u32, s12, -7
  SF s_addc_u32, s12, 0x12345678
  SF s_addc_u32, s12, s13
  SF s_addc_u32, 9, s12
  SF s_sub_u32, s12, -7
  SF s_sub_u32, s12, 0x12345678
  SF s_sub_u32, s12, s13
  SF s_sub_u32, 9, s12
  SF s_add_i32, s12, -7
  SF s_add_i32, s12, 0x12345678
  SF s_add_i32, s12, s13
  SF s_add_i32, 9, s12
  SF s_sub_i32, s12, -7
  SF s_sub_i32, s12, 0x12345678
  SF s_sub_i32, s12, s13
  SF s_sub_i32, 9, s12
  SF s_mul_i32, s12, -7
  SF s_mul_i32, s12, 0x12345678
  SF s_mul_i32, s12, s13
  SF s_mul_i32, 9, s12
  SF s_and_b32, s12, -7
  SF s_and_b32, s12, 0x12345678
  SF s_and_b32, s12, s13
  SF s_and_b32, 9, s12
  SF s_or_b32, s12, -7
  SF s_or_b32, s12, 0x12345678
  SF s_or_b32, s12, s13
  SF s_or_b32, 9, s12
  SF s_xor_b32, s12, -7
  SF s_xor_b32, s12, 0x12345678
  SF s_xor_b32, s12, s13
  SF s_xor_b32, 9, s12
  SF s_lshl_b32, s12, -7
  SF s_lshl_b32, s12, 0x12345678
  SF s_lshl_b32, s12, s13
  SF s_lshl_b32, 9, s12
  SF s_lshr_b32, s12, -7
  SF s_lshr_b32, s12, 0x12345678
  SF s_lshr_b32, s12, s13
  SF s_lshr_b32, 9, s12
  SF s_ashr_i32, s12, -7
  SF s_ashr_i32, s12, 0x12345678
  SF s_ashr_i32, s12, s13
  SF s_ashr_i32, 9, s12
  SF s_cselect_b32, s12, -7
  SF s_cselect_b32, s12, 0x12345678
  SF s_cselect_b32, s12, s13
  SF s_cselect_b32, 9, s12
  SF s_mul_hi_u32, s12, -7
  SF s_mul_hi_u32, s12, 0x12345678
  SF s_mul_hi_u32, s12, s13
  SF s_mul_hi_u32, 9, s12
  SF s_min_i32, s12, -7
  SF s_min_i32, s12, 0x12345678
  SF s_min_i32, s12, s13
  SF s_min_i32, 9, s12
  SF s_min_u32, s12, -7
  SF s_min_u32, s12, 0x12345678
  SF s_min_u32, s12, s13
  SF s_min_u32, 9, s12
  SF s_max_i32, s12, -7
  SF s_max_i32, s12, 0x12345678
  SF s_max_i32, s12, s13
  SF s_max_i32, 9, s12
  SF s_max_u32, s12, -7
  SF s_max_u32, s12, 0x12345678
  SF s_max_u32, s12, s13
  SF s_max_u32, 9, s12
  SF s_andn2_b32, s12, -7
  SF s_andn2_b32, s12, 0x12345678
  SF s_andn2_b32, s12, s13
  SF s_andn2_b32, 9, s12
  SF s_lshl1_add_u32, s12, -7
  SF s_lshl1_add_u32, s12, 0x12345678
  SF s_lshl1_add_u32, s12, s13
  SF s_lshl1_add_u32, 9, s12
  SF s_lshl2_add_u32, s12, -7
  SF s_lshl2_add_u32, s12, 0x12345678
  SF s_lshl2_add_u32, s12, s13
  SF s_lshl2_add_u32, 9, s12
  SC s_cmp_eq_u32, s12, -7
  SC s_cmp_eq_u32, s12, s13
  SB s_cmp_eq_u32, s12, 3
  SB s_cmp_eq_u32, s12, s13
  SC s_cmp_lg_u32, s12, -7
  SC s_cmp_lg_u32, s12, s13
  SB s_cmp_lg_u32, s12, 3
  SB s_cmp_lg_u32, s12, s13
  SC s_cmp_gt_i32, s12, -7
  SC s_cmp_gt_i32, s12, s13
  SB s_cmp_gt_i32, s12, 3
  SB s_cmp_gt_i32, s12, s13
  SC s_cmp_ge_i32, s12, -7
  SC s_cmp_ge_i32, s12, s13
  SB s_cmp_ge_i32, s12, 3
  SB s_cmp_ge_i32, s12, s13
  SC s_cmp_lt_i32, s12, -7
  SC s_cmp_lt_i32, s12, s13
  SB s_cmp_lt_i32, s12, 3
  SB s_cmp_lt_i32, s12, s13
  SC s_cmp_le_i32, s12, -7
  SC s_cmp_le_i32, s12, s13
  SB s_cmp_le_i32, s12, 3
  SB s_cmp_le_i32, s12, s13
  SC s_cmp_gt_u32, s12, -7
  SC s_cmp_gt_u32, s12, s13
  SB s_cmp_gt_u32, s12, 3
  SB s_cmp_gt_u32, s12, s13
  SC s_cmp_ge_u32, s12, -7
  SC s_cmp_ge_u32, s12, s13
  SB s_cmp_ge_u32, s12, 3
  SB s_cmp_ge_u32, s12, s13
  SC s_cmp_lt_u32, s12, -7
  SC s_cmp_lt_u32, s12, s13
  SB s_cmp_lt_u32, s12, 3
  SB s_cmp_lt_u32, s12, s13
  SC s_cmp_le_u32, s12, -7
  SC s_cmp_le_u32, s12, s13
  SB s_cmp_le_u32, s12, 3
  SB s_cmp_le_u32, s12, s13
  SA s12
  SA s13
KEND c_salu_forms

// flat access to the private aperture: store lane id to private offset 16, read it back through
// scratch_load (both reach the same per-lane private memory)
CBEGIN c_flat_private
  s_mov_b64 s[12:13], src_private_base
  v_mov_b32 v2, 16
  v_mov_b32 v3, s13
  v_add_u32 v4, 100, v0
  flat_store_dword v[2:3], v4
  s_waitcnt vmcnt(0) lgkmcnt(0)
  v_mov_b32 v5, 0
  v_mov_b32 v6, 0
  scratch_load_dword v5, v6, off offset:16
  s_waitcnt vmcnt(0)
  global_store_dword v1, v5, s[10:11]
  s_endpgm
  .rodata
  .p2align 6
.macro PRIV_KD private_directive
  .amdhsa_kernel c_flat_private
    .amdhsa_user_sgpr_kernarg_segment_ptr 1
    .amdhsa_private_segment_fixed_size 64
    \private_directive 1
    .amdhsa_next_free_vgpr 24
    .amdhsa_next_free_sgpr 24
    .amdhsa_accum_offset 24
  .end_amdhsa_kernel
.endm
// architected flat scratch (gfx942) and the wave-offset SGPR (gfx90a) enable private memory
.if .amdgcn.gfx_generation_minor == 4
  PRIV_KD .amdhsa_enable_private_segment
.else
  PRIV_KD .amdhsa_system_sgpr_private_segment_wavefront_offset
.endif

// Cancellation: every workgroup stores 1 to out[0], then loops forever (an infinite device loop).
  .text
  .globl c_spin
  .p2align 8
  .type c_spin,@function
c_spin:
  s_load_dwordx8 s[4:11], s[0:1], 0x0
  v_mov_b32 v1, 0
  v_mov_b32 v2, 1
  s_waitcnt lgkmcnt(0)
  global_store_dword v1, v2, s[10:11]
  s_waitcnt vmcnt(0)
.Lc_spin_loop:
  s_nop 0
  s_branch .Lc_spin_loop
  .rodata
  .p2align 6
  .amdhsa_kernel c_spin
    .amdhsa_user_sgpr_kernarg_segment_ptr 1
    .amdhsa_next_free_vgpr 24
    .amdhsa_next_free_sgpr 24
    .amdhsa_accum_offset 24
  .end_amdhsa_kernel

// Cancellation at a grid barrier: workgroup 0 waits at ds_gws_barrier for two waves while
// workgroup 1 stores 1 to out[0] and loops forever, so the barrier is never released.
  .text
  .globl c_gws_spin
  .p2align 8
  .type c_gws_spin,@function
c_gws_spin:
  s_load_dwordx8 s[4:11], s[0:1], 0x0
  s_waitcnt lgkmcnt(0)
  s_cmp_eq_u32 s2, 0
  s_cbranch_scc0 .Lc_gws_other
  v_mov_b32 v2, 1
  s_mov_b32 m0, 0
  ds_gws_barrier v2 gds
  s_waitcnt lgkmcnt(0)
  s_endpgm
.Lc_gws_other:
  v_mov_b32 v1, 0
  v_mov_b32 v2, 1
  global_store_dword v1, v2, s[10:11]
  s_waitcnt vmcnt(0)
.Lc_gws_loop:
  s_branch .Lc_gws_loop
  .rodata
  .p2align 6
  .amdhsa_kernel c_gws_spin
    .amdhsa_user_sgpr_kernarg_segment_ptr 1
    .amdhsa_system_sgpr_workgroup_id_x 1
    .amdhsa_next_free_vgpr 24
    .amdhsa_next_free_sgpr 24
    .amdhsa_accum_offset 24
  .end_amdhsa_kernel

// Half precision VOP1/VOP2/VOP3 (inputs are halves in the low 16 bits; results are compared on
// the low 16 bits)
T32 t_div_fixup_f16, v_div_fixup_f16 v5, v2, v3, v4
// clang-19's half division: q = a * rcp(b) rounded to half, then fixed up
.macro B_t_div_f16_seq
  v_cvt_f32_f16_e32 v6, v3
  v_rcp_f32_e32 v6, v6
  v_mov_b32 v5, 0
  v_fma_mixlo_f16 v5, v2, v6, 0 op_sel_hi:[1,0,0]
  v_div_fixup_f16 v5, v5, v3, v2
.endm
T32 t_div_f16_seq, B_t_div_f16_seq
T32 t_med3_f16, v_med3_f16 v5, v2, v3, v4
T32 t_min3_f16, v_min3_f16 v5, v2, v3, v4
T32 t_max3_f16, v_max3_f16 v5, v2, v3, v4
T32 t_frexp_mant_f16, v_frexp_mant_f16 v5, v2
T32 t_frexp_exp_i16_f16, v_frexp_exp_i16_f16 v5, v2
T32 t_rcp_f16, v_rcp_f16 v5, v2
T32 t_sqrt_f16, v_sqrt_f16 v5, v2
T32 t_ldexp_f16, v_ldexp_f16 v5, v2, v3
T32 t_fract_f16, v_fract_f16 v5, v2
T32 t_rndne_f16, v_rndne_f16 v5, v2
T32 t_trunc_f16, v_trunc_f16 v5, v2
T32 t_fma_f16, v_fma_f16 v5, v2, v3, v4
T32 t_mad_f16, v_mad_f16 v5, v2, v3, v4
T32 t_cvt_norm_i16_f16, v_cvt_norm_i16_f16 v5, v2
T32 t_cvt_pknorm_u16_f16, v_cvt_pknorm_u16_f16 v5, v2, v3
T32 t_cvt_i16_f16, v_cvt_i16_f16 v5, v2
.macro B_t_cmp_class_f16
  v_cmp_class_f16 vcc, v2, v3
  v_cndmask_b32 v5, 0, 1, vcc
.endm
T32 t_cmp_class_f16, B_t_cmp_class_f16
.macro B_t_dot2c_f32_f16
  v_mov_b32 v5, v4
  v_dot2c_f32_f16 v5, v2, v3
.endm
T32 t_dot2c_f32_f16, B_t_dot2c_f32_f16
T32 t_med3_i16, v_med3_i16 v5, v2, v3, v4
T32 t_sad_u16, v_sad_u16 v5, v2, v3, v4
// v_trig_preop_f64: the segment is the low dword of the second input (v4)
T64 t_trig_preop_f64, v_trig_preop_f64 v[8:9], v[2:3], v4

// The VOP3 clamp bit on integer adds and subtracts saturates
T32 t_add_u32_clamp, v_add_u32_e64 v5, v2, v3 clamp
T32 t_sub_u32_clamp, v_sub_u32_e64 v5, v2, v3 clamp
T32 t_add_i32_clamp, v_add_i32 v5, v2, v3 clamp
T32 t_sub_i32_clamp, v_sub_i32 v5, v2, v3 clamp
T32 t_add_u16_clamp, v_add_u16_e64 v5, v2, v3 clamp
T32 t_sub_i16_clamp, v_sub_i16 v5, v2, v3 clamp
T32 t_add_co_u32_clamp, v_add_co_u32_e64 v5, s[12:13], v2, v3 clamp
// ockl's __ockl_clz_u64 as clang-15 compiles it: 64 for a zero input
.macro B_t_clz64
  v_ffbh_u32 v6, v2
  v_add_u32_e64 v6, v6, 32 clamp
  v_ffbh_u32 v7, v3
  v_min3_u32 v5, v6, v7, 64
.endm
T32 t_clz64, B_t_clz64
