// Per-instruction kernels for tests/isa/test_isa_op_int.c: the integer VALU (32-, 16- and
// 64-bit, carries and borrows, compares, lane operations, DPP and SDWA forms) and the scalar
// ALU/SOPP opcodes of the kernel corpus, each in exactly the encoding the corpus uses.
//
// Frames (op_frame.inc, plus the ones below):
//   T32  a, b, c in v2, v3, v4; result v5 (lanes outside EXEC keep the marker)
//   T64  a, b, c in v[2:3], v[4:5], v[6:7]; result v[8:9]. The carry and 64-bit compare
//        kernels use it for a 32-bit result in v8 and a flag word in v9.
//   SL   scalar loop: for each lane i, a = s[12:13], b = s[14:15], c = s22 (SCC = c bit 0)
//        read with v_readlane from lane i's inputs; the body leaves its result in s[16:17]
//        (preset to 0x2468ace0_13572468 so stray writes show) and its SCC, which the frame
//        stores as out[i] (64 bits) and c[i] (the SCC, 32 bits).
// Compare kernels turn the mask into a lane value with v_cndmask and add 2 when the mask has a
// bit set outside EXEC (a compare writes 0 for inactive lanes).

.include "op_frame.inc"

// v_or 2 into \dst when \mask has bits outside EXEC (s14-s16 are clobbered)
.macro MASKCHK mask, dst
  s_andn2_b64 s[14:15], \mask, exec
  s_cmp_lg_u64 s[14:15], 0
  s_cselect_b32 s16, 2, 0
  v_or_b32_e32 \dst, s16, \dst
.endm

// ---- 32-bit bitwise, moves, shifts (T32) ----

T32 t_mov_b32_e32, v_mov_b32_e32 v5, v2
T32 t_mov_b32_e32_inl, v_mov_b32_e32 v5, -16
T32 t_mov_b32_e32_lit, v_mov_b32_e32 v5, 0x80000000
.macro B_t_mov_b32_e32_sgpr
  v_readfirstlane_b32 s12, v3
  v_mov_b32_e32 v5, s12
.endm
T32 t_mov_b32_e32_sgpr, B_t_mov_b32_e32_sgpr
T32 t_and_b32_e32, v_and_b32_e32 v5, v2, v3
T32 t_and_b32_e32_lit, v_and_b32_e32 v5, 0xffff, v2
T32 t_and_b32_e64, v_and_b32_e64 v5, v2, v3
T32 t_and_b32_e64_inl, v_and_b32_e64 v5, v2, -16
T32 t_or_b32_e32, v_or_b32_e32 v5, v2, v3
T32 t_or_b32_e64, v_or_b32_e64 v5, v2, v3
T32 t_xor_b32_e32, v_xor_b32_e32 v5, v2, v3
T32 t_xor_b32_e64, v_xor_b32_e64 v5, v2, v3
T32 t_not_b32_e32, v_not_b32_e32 v5, v2
T32 t_lshlrev_b32_e32, v_lshlrev_b32_e32 v5, v3, v2
T32 t_lshlrev_b32_e64, v_lshlrev_b32_e64 v5, v3, v2
T32 t_lshrrev_b32_e64, v_lshrrev_b32_e64 v5, v3, v2
T32 t_ashrrev_i32_e64, v_ashrrev_i32_e64 v5, v3, v2
T32 t_bfrev_b32_e64, v_bfrev_b32_e64 v5, v2
T32 t_ffbh_i32_e32, v_ffbh_i32_e32 v5, v2
T32 t_ffbh_i32_e64, v_ffbh_i32_e64 v5, v2
T32 t_ffbh_u32_e64, v_ffbh_u32_e64 v5, v2
T32 t_ffbl_b32_e32, v_ffbl_b32_e32 v5, v2
T32 t_ffbl_b32_e64, v_ffbl_b32_e64 v5, v2
T32 t_add_lshl_u32, v_add_lshl_u32 v5, v2, v3, v4
T32 t_and_or_b32, v_and_or_b32 v5, v2, v3, v4
T32 t_lshl_or_b32, v_lshl_or_b32 v5, v2, v3, v4
T32 t_or3_b32, v_or3_b32 v5, v2, v3, v4
T32 t_max_i32_e32, v_max_i32_e32 v5, v2, v3
T32 t_min_u32_e32, v_min_u32_e32 v5, v2, v3
T32 t_min_u32_e64, v_min_u32_e64 v5, v2, v3
T32 t_mul_i32_i24_e32, v_mul_i32_i24_e32 v5, v2, v3
T32 t_subrev_u32_e32, v_subrev_u32_e32 v5, v2, v3

// SGPR and constant operands where the corpus has them (the SGPR is b of the first active lane,
// lane 1; the test repeats these with rotated inputs so that it takes many values)
.macro SG32 op, d, s0, s1
  v_readfirstlane_b32 s12, v3
  \op \d, \s0, \s1
.endm
T32 t_and_b32_e64_s, SG32 v_and_b32_e64, v5, v2, s12
T32 t_xor_b32_e64_s, SG32 v_xor_b32_e64, v5, s12, v2
T32 t_min_u32_e64_s, SG32 v_min_u32_e64, v5, v2, s12
T32 t_lshlrev_b32_e64_s, SG32 v_lshlrev_b32_e64, v5, s12, v2
T32 t_lshlrev_b32_e64_1, v_lshlrev_b32_e64 v5, v3, 1

// ---- 16-bit (the high halves of the inputs carry junk; gfx9 zeroes the result's high half) ----
T32 t_add_u16_e32, v_add_u16_e32 v5, v2, v3
T32 t_sub_u16_e32, v_sub_u16_e32 v5, v2, v3
T32 t_mul_lo_u16_e32, v_mul_lo_u16_e32 v5, v2, v3
T32 t_lshlrev_b16_e32, v_lshlrev_b16_e32 v5, v3, v2
T32 t_lshrrev_b16_e32, v_lshrrev_b16_e32 v5, v3, v2
T32 t_add_u16_e32_k, v_add_u16_e32 v5, 7, v2

// ---- SDWA (v5 holds the marker before the instruction: UNUSED_PRESERVE keeps its bits) ----
T32 t_or_b32_sdwa, v_or_b32_sdwa v5, v2, v3 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_0 src1_sel:DWORD
T32 t_or_b32_sdwa_sext, v_or_b32_sdwa v5, sext(v2), v3 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:BYTE_3 src1_sel:WORD_1
T32 t_lshlrev_b32_sdwa, v_lshlrev_b32_sdwa v5, v3, v2 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:DWORD src1_sel:BYTE_0
T32 t_lshlrev_b32_sdwa_b2, v_lshlrev_b32_sdwa v5, v3, v2 dst_sel:BYTE_2 dst_unused:UNUSED_SEXT src0_sel:BYTE_1 src1_sel:DWORD
T32 t_mul_lo_u16_sdwa, v_mul_lo_u16_sdwa v5, v2, v3 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1 src1_sel:DWORD
.macro B_t_mul_lo_u16_sdwa_s
  v_readfirstlane_b32 s12, v3
  v_mul_lo_u16_sdwa v5, v2, s12 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:BYTE_0 src1_sel:DWORD
.endm
T32 t_mul_lo_u16_sdwa_s, B_t_mul_lo_u16_sdwa_s

// ---- DPP: a source lane outside the row or outside EXEC is invalid; without bound_ctrl the
// destination lane is not written, with bound_ctrl:1 the source reads 0 ----
T32 t_and_b32_dpp_shl1, v_and_b32_dpp v5, v2, v3 row_shl:1 row_mask:0xf bank_mask:0xf
T32 t_and_b32_dpp_mirror, v_and_b32_dpp v5, v2, v3 row_mirror row_mask:0xf bank_mask:0xf
T32 t_or_b32_dpp_shl2, v_or_b32_dpp v5, v2, v3 row_shl:2 row_mask:0xf bank_mask:0xf bound_ctrl:1
T32 t_or_b32_dpp_masks, v_or_b32_dpp v5, v2, v3 row_mirror row_mask:0x5 bank_mask:0xa bound_ctrl:1

// ---- carries and borrows (T64 frame, 32-bit operands in v2, v4, v6; v8 = result, v9 = carry
// out | 2 if the carry mask has bits outside EXEC). Carry in = bit 0 of c. ----
.macro CIN_VCC
  v_and_b32_e32 v11, 1, v6
  v_cmp_ne_u32_e32 vcc, 0, v11
.endm
.macro CO_VCC op
  s_mov_b64 vcc, -1
  \op v8, vcc, v2, v4
  v_cndmask_b32_e64 v9, 0, 1, vcc
  MASKCHK vcc, v9
.endm
.macro CI_VCC op
  CIN_VCC
  \op v8, vcc, v2, v4, vcc
  v_cndmask_b32_e64 v9, 0, 1, vcc
  MASKCHK vcc, v9
.endm
.macro CO_E64 op
  s_mov_b64 s[12:13], -1
  \op v8, s[12:13], v2, v4
  v_cndmask_b32_e64 v9, 0, 1, s[12:13]
  MASKCHK s[12:13], v9
.endm
.macro CI_E64 op
  v_and_b32_e32 v11, 1, v6
  v_cmp_ne_u32_e64 s[18:19], 0, v11
  s_mov_b64 s[12:13], -1
  \op v8, s[12:13], v2, v4, s[18:19]
  v_cndmask_b32_e64 v9, 0, 1, s[12:13]
  MASKCHK s[12:13], v9
.endm
T64 t_addc_co_u32_e32, CI_VCC v_addc_co_u32_e32
// the constant and SGPR forms of the corpus: src0 = 0, or an SGPR (a or b of lane 1)
.macro B_t_addc_co_u32_e32_0
  CIN_VCC
  v_addc_co_u32_e32 v8, vcc, 0, v4, vcc
  v_cndmask_b32_e64 v9, 0, 1, vcc
  MASKCHK vcc, v9
.endm
T64 t_addc_co_u32_e32_0, B_t_addc_co_u32_e32_0
.macro B_t_subbrev_co_u32_e32_0
  CIN_VCC
  v_subbrev_co_u32_e32 v8, vcc, 0, v4, vcc
  v_cndmask_b32_e64 v9, 0, 1, vcc
  MASKCHK vcc, v9
.endm
T64 t_subbrev_co_u32_e32_0, B_t_subbrev_co_u32_e32_0
.macro B_t_subbrev_co_u32_e64_0
  v_and_b32_e32 v11, 1, v6
  v_cmp_ne_u32_e64 s[18:19], 0, v11
  s_mov_b64 s[12:13], -1
  v_subbrev_co_u32_e64 v8, s[12:13], 0, v4, s[18:19]
  v_cndmask_b32_e64 v9, 0, 1, s[12:13]
  MASKCHK s[12:13], v9
.endm
T64 t_subbrev_co_u32_e64_0, B_t_subbrev_co_u32_e64_0
.macro B_t_subrev_co_u32_e32_s
  v_readfirstlane_b32 s18, v2
  s_mov_b64 vcc, -1
  v_subrev_co_u32_e32 v8, vcc, s18, v4
  v_cndmask_b32_e64 v9, 0, 1, vcc
  MASKCHK vcc, v9
.endm
T64 t_subrev_co_u32_e32_s, B_t_subrev_co_u32_e32_s
.macro B_t_sub_co_u32_e64_s
  v_readfirstlane_b32 s18, v4
  s_mov_b64 s[12:13], -1
  v_sub_co_u32_e64 v8, s[12:13], v2, s18
  v_cndmask_b32_e64 v9, 0, 1, s[12:13]
  MASKCHK s[12:13], v9
.endm
T64 t_sub_co_u32_e64_s, B_t_sub_co_u32_e64_s
T64 t_sub_co_u32_e32, CO_VCC v_sub_co_u32_e32
T64 t_sub_co_u32_e64, CO_E64 v_sub_co_u32_e64
T64 t_subrev_co_u32_e32, CO_VCC v_subrev_co_u32_e32
T64 t_subb_co_u32_e32, CI_VCC v_subb_co_u32_e32
T64 t_subb_co_u32_e64, CI_E64 v_subb_co_u32_e64
T64 t_subbrev_co_u32_e32, CI_VCC v_subbrev_co_u32_e32
T64 t_subbrev_co_u32_e64, CI_E64 v_subbrev_co_u32_e64

// ---- integer compares: v5 = the lane's bit, | 2 if the mask has bits outside EXEC ----
.macro VC32 op
  s_mov_b64 vcc, -1
  \op vcc, v2, v3
  v_cndmask_b32_e64 v5, 0, 1, vcc
  MASKCHK vcc, v5
.endm
.macro VC64 op
  s_mov_b64 s[12:13], -1
  \op s[12:13], v2, v3
  v_cndmask_b32_e64 v5, 0, 1, s[12:13]
  MASKCHK s[12:13], v5
.endm
T32 t_cmp_eq_u32_e32, VC32 v_cmp_eq_u32_e32
T32 t_cmp_eq_u32_e64, VC64 v_cmp_eq_u32_e64
T32 t_cmp_ne_u32_e32, VC32 v_cmp_ne_u32_e32
T32 t_cmp_ne_u32_e64, VC64 v_cmp_ne_u32_e64
T32 t_cmp_ge_i32_e64, VC64 v_cmp_ge_i32_e64
T32 t_cmp_ge_u32_e32, VC32 v_cmp_ge_u32_e32
T32 t_cmp_ge_u32_e64, VC64 v_cmp_ge_u32_e64
T32 t_cmp_gt_i32_e32, VC32 v_cmp_gt_i32_e32
T32 t_cmp_gt_i32_e64, VC64 v_cmp_gt_i32_e64
T32 t_cmp_gt_u32_e32, VC32 v_cmp_gt_u32_e32
T32 t_cmp_gt_u32_e64, VC64 v_cmp_gt_u32_e64
T32 t_cmp_le_i32_e32, VC32 v_cmp_le_i32_e32
T32 t_cmp_le_i32_e64, VC64 v_cmp_le_i32_e64
T32 t_cmp_le_u32_e32, VC32 v_cmp_le_u32_e32
T32 t_cmp_le_u32_e64, VC64 v_cmp_le_u32_e64
T32 t_cmp_lt_i32_e64, VC64 v_cmp_lt_i32_e64
T32 t_cmp_lt_u32_e32, VC32 v_cmp_lt_u32_e32
T32 t_cmp_lt_u32_e64, VC64 v_cmp_lt_u32_e64
T32 t_cmp_eq_u16_e32, VC32 v_cmp_eq_u16_e32
T32 t_cmp_eq_u16_e64, VC64 v_cmp_eq_u16_e64
T32 t_cmp_gt_u16_e32, VC32 v_cmp_gt_u16_e32
T32 t_cmp_ne_u16_e32, VC32 v_cmp_ne_u16_e32
T32 t_cmp_ne_u16_e64, VC64 v_cmp_ne_u16_e64
// an SGPR and an inline-constant operand, as the corpus has them
.macro B_t_cmp_eq_u32_e64_s
  v_readfirstlane_b32 s18, v2
  s_mov_b64 s[12:13], -1
  v_cmp_eq_u32_e64 s[12:13], s18, v2
  v_cndmask_b32_e64 v5, 0, 1, s[12:13]
  MASKCHK s[12:13], v5
.endm
T32 t_cmp_eq_u32_e64_s, B_t_cmp_eq_u32_e64_s
.macro B_t_cmp_ne_u16_e64_s
  v_readfirstlane_b32 s18, v2
  s_mov_b64 s[12:13], -1
  v_cmp_ne_u16_e64 s[12:13], v3, s18
  v_cndmask_b32_e64 v5, 0, 1, s[12:13]
  MASKCHK s[12:13], v5
.endm
T32 t_cmp_ne_u16_e64_s, B_t_cmp_ne_u16_e64_s

// 64-bit compares (T64): v8 = the lane's bit | 2, v9 = 0
.macro VC64_32 op
  s_mov_b64 vcc, -1
  \op vcc, v[2:3], v[4:5]
  v_cndmask_b32_e64 v8, 0, 1, vcc
  v_mov_b32_e32 v9, 0
  MASKCHK vcc, v8
.endm
.macro VC64_64 op
  s_mov_b64 s[12:13], -1
  \op s[12:13], v[2:3], v[4:5]
  v_cndmask_b32_e64 v8, 0, 1, s[12:13]
  v_mov_b32_e32 v9, 0
  MASKCHK s[12:13], v8
.endm
T64 t_cmp_eq_u64_e32, VC64_32 v_cmp_eq_u64_e32
T64 t_cmp_eq_u64_e64, VC64_64 v_cmp_eq_u64_e64
T64 t_cmp_ne_u64_e32, VC64_32 v_cmp_ne_u64_e32
T64 t_cmp_ne_u64_e64, VC64_64 v_cmp_ne_u64_e64
T64 t_cmp_ge_i64_e64, VC64_64 v_cmp_ge_i64_e64
T64 t_cmp_gt_i64_e32, VC64_32 v_cmp_gt_i64_e32
T64 t_cmp_gt_i64_e64, VC64_64 v_cmp_gt_i64_e64
T64 t_cmp_gt_u64_e32, VC64_32 v_cmp_gt_u64_e32
T64 t_cmp_gt_u64_e64, VC64_64 v_cmp_gt_u64_e64
T64 t_cmp_le_i64_e64, VC64_64 v_cmp_le_i64_e64
T64 t_cmp_lt_i64_e32, VC64_32 v_cmp_lt_i64_e32
T64 t_cmp_lt_i64_e64, VC64_64 v_cmp_lt_i64_e64
T64 t_cmp_lt_u64_e64, VC64_64 v_cmp_lt_u64_e64
.macro B_t_cmp_eq_u64_e64_s
  v_readfirstlane_b32 s16, v2
  v_readfirstlane_b32 s17, v3
  s_mov_b64 s[12:13], -1
  v_cmp_eq_u64_e64 s[12:13], v[2:3], s[16:17]
  v_cndmask_b32_e64 v8, 0, 1, s[12:13]
  v_mov_b32_e32 v9, 0
  MASKCHK s[12:13], v8
.endm
T64 t_cmp_eq_u64_e64_s, B_t_cmp_eq_u64_e64_s

// ---- 64-bit VALU ----
T64 t_lshrrev_b64, v_lshrrev_b64 v[8:9], v4, v[2:3]
.macro B_t_lshrrev_b64_s
  v_readfirstlane_b32 s12, v4
  v_lshrrev_b64 v[8:9], s12, v[2:3]
.endm
T64 t_lshrrev_b64_s, B_t_lshrrev_b64_s
.if .amdgcn.gfx_generation_minor == 4
T64 t_mov_b64_e32, v_mov_b64_e32 v[8:9], v[2:3]
T64 t_mov_b64_e32_inl, v_mov_b64_e32 v[8:9], -16
// the shift amount is 0..4 (the only ones the hardware supports)
T64 t_lshl_add_u64_0, v_lshl_add_u64 v[8:9], v[2:3], 0, v[4:5]
T64 t_lshl_add_u64_1, v_lshl_add_u64 v[8:9], v[2:3], 1, v[4:5]
T64 t_lshl_add_u64_4, v_lshl_add_u64 v[8:9], v[2:3], 4, v[4:5]
.macro B_t_lshl_add_u64_s
  s_mov_b32 s12, 3
  v_lshl_add_u64 v[8:9], v[2:3], s12, v[4:5]
.endm
T64 t_lshl_add_u64_s, B_t_lshl_add_u64_s
.endif

// ---- lane operations ----
// v_readlane with an SGPR lane select (bits 5:0: 127 - i selects lane 63 - i) for every lane,
// collected with v_writelane under the EXEC mask with holes (both ignore EXEC)
.macro B_t_readlane_s
  s_mov_b32 s18, 0
.Lrl\@:
  s_sub_u32 s19, 0x7f, s18
  v_readlane_b32 s12, v2, s19
  s_mov_b32 m0, s18
  v_writelane_b32 v6, s12, m0
  s_add_u32 s18, s18, 1
  s_cmp_lt_u32 s18, 64
  s_cbranch_scc1 .Lrl\@
  v_mov_b32_e32 v5, v6
.endm
T32 t_readlane_s, B_t_readlane_s
// immediate lane selects: odd lanes get lane 63's a, even lanes lane 0's (lane 0 is off)
.macro B_t_readlane_i
  v_readlane_b32 s12, v2, 0
  v_readlane_b32 s13, v2, 63
  v_mov_b32_e32 v6, s12
  v_mov_b32_e32 v7, s13
  s_mov_b32 vcc_lo, 0xaaaaaaaa
  s_mov_b32 vcc_hi, 0xaaaaaaaa
  v_cndmask_b32_e32 v5, v6, v7, vcc
.endm
T32 t_readlane_i, B_t_readlane_i
// v_writelane writes its lane whatever EXEC says: lanes 0 and 20 are off, 5 and 63 on
.macro B_t_writelane
  v_mov_b32_e32 v5, v2
  v_readfirstlane_b32 s12, v3
  v_writelane_b32 v5, s12, 0
  s_movk_i32 m0, 0x45
  v_writelane_b32 v5, s12, m0
  v_writelane_b32 v5, -7, 20
  s_mov_b32 s14, 0x80000000
  v_writelane_b32 v5, s14, 63
.endm
T32 t_writelane, B_t_writelane

// accumulation registers: a1 = c in every lane, then a in the EXEC lanes; read back under
// EXEC (a) and under ~EXEC (c)
.macro KEND_ACC name
  s_endpgm
  .rodata
  .p2align 6
  .amdhsa_kernel \name
    .amdhsa_user_sgpr_kernarg_segment_ptr 1
    .amdhsa_next_free_vgpr 32
    .amdhsa_next_free_sgpr 24
    .amdhsa_accum_offset 24
  .end_amdhsa_kernel
.endm
  KBEGIN t_accvgpr
  global_load_dword v2, v1, s[4:5]
  global_load_dword v3, v1, s[6:7]
  global_load_dword v4, v1, s[8:9]
  v_mov_b32 v5, 0xdeadbeef
  s_waitcnt vmcnt(0)
  v_accvgpr_write_b32 a1, v4
  HOLES
  v_accvgpr_write_b32 a1, v2
  v_accvgpr_read_b32 v5, a1
  s_not_b64 exec, s[20:21]
  v_accvgpr_read_b32 v5, a1
  s_mov_b64 exec, -1
  global_store_dword v1, v5, s[10:11]
  KEND_ACC t_accvgpr

// ---- VGPR indexing mode: M0[7:0] offsets the enabled VGPR operands ----
// v11..v14 = a, b, c, lane; s12 = b of the first active lane & 3
//   src0 indexed:  v6 = v[11 + s12]
//   dst indexed:   v[15 + s12] = v6 + 1 (v15..v18 preset to 0), read back as v15|v16|v17|v18
//   src1 indexed, src0 an SGPR (never indexed): v7 = s13 + v[11 + s12]
//   after s_set_gpr_idx_off: v_mov v8, v11 is plain
// v5 = (v6 ^ (v15|v16|v17|v18) ^ v7 ^ v8)
.macro B_t_gpr_idx
  v_mov_b32_e32 v11, v2
  v_mov_b32_e32 v12, v3
  v_mov_b32_e32 v13, v4
  v_mov_b32_e32 v14, v0
  v_mov_b32_e32 v15, 0
  v_mov_b32_e32 v16, 0
  v_mov_b32_e32 v17, 0
  v_mov_b32_e32 v18, 0
  v_readfirstlane_b32 s12, v3
  s_and_b32 s12, s12, 3
  s_set_gpr_idx_on s12, gpr_idx(SRC0)
  v_mov_b32_e32 v6, v11
  s_set_gpr_idx_off
  v_add_u32_e32 v19, 1, v6
  s_set_gpr_idx_on s12, gpr_idx(DST)
  v_mov_b32_e32 v15, v19
  s_set_gpr_idx_off
  s_mov_b32 s13, 0x1000
  s_set_gpr_idx_on s12, gpr_idx(SRC1)
  v_add_u32_e32 v7, s13, v11
  s_set_gpr_idx_off
  v_mov_b32_e32 v8, v11
  v_or3_b32 v9, v15, v16, v17
  v_or_b32_e32 v9, v9, v18
  v_xor_b32_e32 v5, v6, v9
  v_xor_b32_e32 v5, v5, v7
  v_xor_b32_e32 v5, v5, v8
.endm
T32 t_gpr_idx, B_t_gpr_idx

// ---- control flow: s_getpc/s_swappc/s_setpc and EXEC branches, observed per lane ----
// a call through s_swappc_b64 to a block that sets v5 = a ^ b and returns with s_setpc_b64;
// the return address must be .Lret, and s_getpc must give the address of the next
// instruction. Any mismatch adds 0x10000 / 0x20000 to v5.
.macro B_t_swappc
  s_getpc_b64 s[12:13]
.Lgp\@:
  s_getpc_b64 s[16:17]
  s_sub_u32 s18, s16, s12
  s_cmp_eq_u32 s18, 4
  s_cselect_b32 s19, 0, 0x10000
  s_add_u32 s12, s12, (.Lfn\@ - .Lgp\@)
  s_addc_u32 s13, s13, 0
  s_swappc_b64 s[14:15], s[12:13]
.Lret\@:
  s_sub_u32 s18, s14, s12
  s_cmp_eq_u32 s18, (.Lret\@ - .Lfn\@)
  s_cselect_b32 s18, 0, 0x20000
  s_or_b32 s19, s19, s18
  v_add_u32_e32 v5, s19, v5
  s_branch .Lend\@
  v_mov_b32_e32 v5, 0
.Lfn\@:
  v_xor_b32_e32 v5, v2, v3
  s_setpc_b64 s[14:15]
  v_mov_b32_e32 v5, 1
.Lend\@:
.endm
T32 t_swappc, B_t_swappc

// if (a < b) v5 = b - a else v5 = a ^ c, in the compiler's shape: s_and_saveexec,
// s_xor (else lanes), s_cbranch_execz around each side, s_or_saveexec / s_xor exec for else,
// s_or_b64 to join. s16 counts the sides that were entered (1 each), added to v5 lanes.
.macro B_t_if_else
  s_mov_b32 s16, 0
  v_cmp_lt_i32_e64 s[12:13], v2, v3
  s_and_saveexec_b64 s[14:15], s[12:13]
  s_xor_b64 s[14:15], exec, s[14:15]
  s_cbranch_execz .Lelse\@
  v_sub_u32_e32 v5, v3, v2
  s_add_u32 s16, s16, 1
.Lelse\@:
  s_or_saveexec_b64 s[14:15], s[14:15]
  s_xor_b64 exec, exec, s[14:15]
  s_cbranch_execz .Ljoin\@
  v_xor_b32_e32 v5, v2, v4
  s_add_u32 s16, s16, 0x100
.Ljoin\@:
  s_or_b64 exec, exec, s[14:15]
  v_add_u32_e32 v5, s16, v5
.endm
T32 t_if_else, B_t_if_else
// the same with a condition no lane meets (a > 0xffffffff unsigned): the then side is skipped
// by s_cbranch_execz, so s16 only counts the else side
.macro B_t_if_none
  s_mov_b32 s16, 0
  v_cmp_gt_u32_e64 s[12:13], v2, -1
  s_and_saveexec_b64 s[14:15], s[12:13]
  s_xor_b64 s[14:15], exec, s[14:15]
  s_cbranch_execz .Lelse\@
  v_sub_u32_e32 v5, v3, v2
  s_add_u32 s16, s16, 1
.Lelse\@:
  s_or_saveexec_b64 s[14:15], s[14:15]
  s_xor_b64 exec, exec, s[14:15]
  s_cbranch_execz .Ljoin\@
  v_xor_b32_e32 v5, v2, v4
  s_add_u32 s16, s16, 0x100
.Ljoin\@:
  s_or_b64 exec, exec, s[14:15]
  v_add_u32_e32 v5, s16, v5
.endm
T32 t_if_none, B_t_if_none
// a loop with lane-dependent trip counts (v2 & 7 iterations, at least one): each pass
// v5 += b; lanes drop out with s_andn2_b64 exec; s_cbranch_execnz repeats while any remain
.macro B_t_loop
  v_and_b32_e32 v6, 7, v2
  v_mov_b32_e32 v5, 0
  s_mov_b64 s[12:13], 0
.Lloop\@:
  v_add_u32_e32 v5, v5, v3
  v_subrev_u32_e32 v6, 1, v6
  v_cmp_ge_i32_e32 vcc, 0, v6
  s_or_b64 s[12:13], vcc, s[12:13]
  s_andn2_b64 exec, exec, s[12:13]
  s_cbranch_execnz .Lloop\@
  s_or_b64 exec, exec, s[12:13]
.endm
T32 t_loop, B_t_loop
// s_andn2_saveexec_b64 with 0 switches every lane off (and saves EXEC); s_xor_saveexec_b64
// with -1 inverts EXEC, so the lanes outside the mask get v5 = 7 and the others keep a
.macro B_t_saveexec_misc
  v_mov_b32_e32 v5, v2
  s_andn2_saveexec_b64 s[12:13], 0
  s_mov_b64 exec, s[12:13]
  s_xor_saveexec_b64 s[14:15], -1
  v_mov_b32_e32 v5, 7
  s_mov_b64 exec, s[14:15]
.endm
T32 t_saveexec_misc, B_t_saveexec_misc
// s_sleep and s_barrier (one wave: it passes) leave the data path alone
.macro B_t_sleep
  s_sleep 1
  v_xor_b32_e32 v5, v2, v3
  s_barrier
  s_sleep 0
.endm
T32 t_sleep, B_t_sleep

// two waves of one workgroup: each lane stores its a to LDS, s_barrier, then reads the other
// wave's value at the same lane (out[i] = a[i ^ 64])
  .text
  .globl t_barrier2
  .p2align 8
  .type t_barrier2,@function
t_barrier2:
  s_load_dwordx8 s[4:11], s[0:1], 0x0
  v_and_b32 v0, 0x3ff, v0
  v_lshlrev_b32 v1, 2, v0
  s_waitcnt lgkmcnt(0)
  global_load_dword v2, v1, s[4:5]
  s_waitcnt vmcnt(0)
  // wave 1 first spins a little so that wave 0 reaches the barrier first
  v_cmp_gt_u32_e32 vcc, 64, v0
  s_cbranch_vccnz .Lb2_store
  s_sleep 2
  s_sleep 2
.Lb2_store:
  ds_write_b32 v1, v2
  s_waitcnt lgkmcnt(0)
  s_barrier
  v_xor_b32_e32 v3, 0x100, v1
  ds_read_b32 v4, v3
  s_waitcnt lgkmcnt(0)
  global_store_dword v1, v4, s[10:11]
  s_endpgm
  .rodata
  .p2align 6
  .amdhsa_kernel t_barrier2
    .amdhsa_user_sgpr_kernarg_segment_ptr 1
    .amdhsa_group_segment_fixed_size 512
    .amdhsa_next_free_vgpr 24
    .amdhsa_next_free_sgpr 24
    .amdhsa_accum_offset 24
  .end_amdhsa_kernel

// Three waves; the third ends before any barrier, so the other two meet without it (ISA
// guide: waves that have ended no longer count). Three barriers: swap halves through the LDS,
// wait until both have read, swap back: out[i] = a[i] only if every barrier held.
  .text
  .globl t_barrier_exit
  .p2align 8
  .type t_barrier_exit,@function
t_barrier_exit:
  s_load_dwordx8 s[4:11], s[0:1], 0x0
  v_and_b32 v0, 0x3ff, v0
  v_lshlrev_b32 v1, 2, v0
  v_cmp_gt_u32_e32 vcc, 128, v0
  s_cbranch_vccz .Lbx_end
  s_waitcnt lgkmcnt(0)
  global_load_dword v2, v1, s[4:5]
  s_waitcnt vmcnt(0)
  ds_write_b32 v1, v2
  s_waitcnt lgkmcnt(0)
  s_barrier
  v_xor_b32_e32 v3, 0x100, v1
  ds_read_b32 v4, v3
  s_waitcnt lgkmcnt(0)
  s_barrier
  ds_write_b32 v1, v4
  s_waitcnt lgkmcnt(0)
  s_barrier
  ds_read_b32 v5, v3
  s_waitcnt lgkmcnt(0)
  global_store_dword v1, v5, s[10:11]
.Lbx_end:
  s_endpgm
  .rodata
  .p2align 6
  .amdhsa_kernel t_barrier_exit
    .amdhsa_user_sgpr_kernarg_segment_ptr 1
    .amdhsa_group_segment_fixed_size 1024
    .amdhsa_next_free_vgpr 24
    .amdhsa_next_free_sgpr 24
    .amdhsa_accum_offset 24
  .end_amdhsa_kernel

// ---- scalar ALU: the SL loop frame ----
.macro SL name, body:vararg
  KBEGIN \name
  global_load_dwordx2 v[2:3], v10, s[4:5]
  global_load_dwordx2 v[4:5], v10, s[6:7]
  global_load_dwordx2 v[6:7], v10, s[8:9]
  v_mov_b32 v8, 0xdeadbeef
  v_mov_b32 v9, 0xdeadbeef
  s_waitcnt vmcnt(0)
  s_mov_b32 s18, 0
.Lsl\@:
  v_readlane_b32 s12, v2, s18
  v_readlane_b32 s13, v3, s18
  v_readlane_b32 s14, v4, s18
  v_readlane_b32 s15, v5, s18
  v_readlane_b32 s22, v6, s18
  s_mov_b32 s16, 0x13572468
  s_mov_b32 s17, 0x2468ace0
  s_bitcmp1_b32 s22, 0
  \body
  s_cselect_b32 s19, 1, 0
  s_mov_b32 m0, s18
  v_writelane_b32 v12, s16, m0
  v_writelane_b32 v13, s17, m0
  v_writelane_b32 v14, s19, m0
  s_add_u32 s18, s18, 1
  s_cmp_lt_u32 s18, 64
  s_cbranch_scc1 .Lsl\@
  HOLES
  v_mov_b32 v8, v12
  v_mov_b32 v9, v13
  s_mov_b64 exec, -1
  global_store_dwordx2 v10, v[8:9], s[10:11]
  global_store_dword v1, v14, s[8:9]
  KEND \name
.endm

SL s_mov_b32, s_mov_b32 s16, s12
.macro B_s_mov_b32_k
  s_mov_b32 s16, -16
  s_mov_b32 s17, 0x80000000
.endm
SL s_mov_b32_k, B_s_mov_b32_k
SL s_mov_b64, s_mov_b64 s[16:17], s[12:13]
SL s_mov_b64_k, s_mov_b64 s[16:17], -16
.macro B_s_movk_i32
  s_movk_i32 s16, 0x8000
  s_movk_i32 s17, 0x7fff
.endm
SL s_movk_i32, B_s_movk_i32
SL s_abs_i32, s_abs_i32 s16, s12
SL s_add_i32, s_add_i32 s16, s12, s14
SL s_addc_u32, s_addc_u32 s16, s12, s14
SL s_sub_u32, s_sub_u32 s16, s12, s14
SL s_subb_u32, s_subb_u32 s16, s12, s14
.macro ADDK k
  s_mov_b32 s16, s12
  s_addk_i32 s16, \k
.endm
SL s_addk_i32_m, ADDK 0x8000
SL s_addk_i32_p, ADDK 0x7fff
SL s_addk_i32_1, ADDK 1
SL s_mul_i32, s_mul_i32 s16, s12, s14
SL s_max_i32, s_max_i32 s16, s12, s14
SL s_max_u32, s_max_u32 s16, s12, s14
SL s_min_u32, s_min_u32 s16, s12, s14
SL s_and_b32, s_and_b32 s16, s12, s14
SL s_xor_b32, s_xor_b32 s16, s12, s14
SL s_and_b64, s_and_b64 s[16:17], s[12:13], s[14:15]
SL s_andn2_b64, s_andn2_b64 s[16:17], s[12:13], s[14:15]
SL s_or_b64, s_or_b64 s[16:17], s[12:13], s[14:15]
SL s_xor_b64, s_xor_b64 s[16:17], s[12:13], s[14:15]
SL s_lshr_b32, s_lshr_b32 s16, s12, s14
SL s_lshl_b64, s_lshl_b64 s[16:17], s[12:13], s14
SL s_lshr_b64, s_lshr_b64 s[16:17], s[12:13], s14
SL s_bfe_i32, s_bfe_i32 s16, s12, s14
SL s_brev_b32, s_brev_b32 s16, s12
SL s_sext_i32_i8, s_sext_i32_i8 s16, s12
SL s_bcnt1_i32_b64, s_bcnt1_i32_b64 s16, s[12:13]
SL s_ff1_i32_b64, s_ff1_i32_b64 s16, s[12:13]
SL s_cselect_b64, s_cselect_b64 s[16:17], s[12:13], s[14:15]
SL s_bitcmp1_b32, s_bitcmp1_b32 s12, s14
SL s_cmp_eq_u64, s_cmp_eq_u64 s[12:13], s[14:15]
SL s_cmp_lg_u64, s_cmp_lg_u64 s[12:13], s[14:15]
SL s_cmp_ge_i32, s_cmp_ge_i32 s12, s14
SL s_cmp_ge_u32, s_cmp_ge_u32 s12, s14
SL s_cmp_gt_i32, s_cmp_gt_i32 s12, s14
SL s_cmp_gt_u32, s_cmp_gt_u32 s12, s14
SL s_cmp_lg_u32, s_cmp_lg_u32 s12, s14
SL s_cmp_lt_u32, s_cmp_lt_u32 s12, s14
SL s_cmpk_eq_i32_a, s_cmpk_eq_i32 s12, 0x20f
SL s_cmpk_eq_i32_m, s_cmpk_eq_i32 s12, 0x8000
SL s_cmpk_eq_i32_f, s_cmpk_eq_i32 s12, 0xffff

// saveexec: EXEC = b, then op with a; result = the new EXEC (xor 4 if the saved copy is not
// b), SCC = new EXEC != 0
.macro SAVEEXEC op
  s_mov_b64 exec, s[14:15]
  \op s[16:17], s[12:13]
  s_cselect_b32 s23, 1, 0
  s_cmp_eq_u64 s[16:17], s[14:15]
  s_cselect_b32 s22, 0, 4
  s_mov_b64 s[16:17], exec
  s_mov_b64 exec, -1
  s_xor_b32 s16, s16, s22
  s_cmp_lg_u32 s23, 0
.endm
SL s_and_saveexec_b64, SAVEEXEC s_and_saveexec_b64
SL s_andn2_saveexec_b64, SAVEEXEC s_andn2_saveexec_b64
SL s_or_saveexec_b64, SAVEEXEC s_or_saveexec_b64
SL s_xor_saveexec_b64, SAVEEXEC s_xor_saveexec_b64

// branches on EXEC / VCC = a (all 64 bits): result 1 when taken, 2 when not; SCC untouched
.macro BRANCH reg, op
  s_mov_b64 \reg, s[12:13]
  s_mov_b32 s16, 1
  \op .Lbr\@
  s_mov_b32 s16, 2
.Lbr\@:
  s_mov_b64 exec, -1
.endm
SL s_cbranch_execz, BRANCH exec, s_cbranch_execz
SL s_cbranch_execnz, BRANCH exec, s_cbranch_execnz
SL s_cbranch_vccz, BRANCH vcc, s_cbranch_vccz
SL s_cbranch_vccnz, BRANCH vcc, s_cbranch_vccnz
