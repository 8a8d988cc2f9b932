// Per-instruction kernels for the memory opcodes (tests/isa/test_isa_op_mem.c), assembled for
// gfx90a and gfx942.
//
// The kernarg is op_frame.inc's {a, b, c, out} (s[4:5], s[6:7], s[8:9], s[10:11]); the test
// allocates 8 KiB for each. The memory instruction runs under the EXEC mask with holes (HOLES);
// everything around it runs with EXEC = -1. Per family:
//   loads   lane l reads at byte offset b[l] of a (or of LDS / its private memory, filled from
//           c), into v[16:19] preset to 0xdeadbeef; v[16:19] goes to out + 16*l.
//   stores  lane l writes a[4l..4l+3] (v[16:19]; write2: also a + 1024 + 16*l in v[20:23]) at
//           byte offset b[l] of c (or of LDS / private memory, which is then dumped to out).
//   atomics lane l's source is at a + w*l (cmpswap compare: a + 64*w + w*l), its byte offset
//           into the target c at b[l]; the returned value goes to out + w*l. LDS atomics work
//           on a copy of c[0..512) that is copied back to c.
//   typed   buffer_*_format_* / tbuffer_*: as loads and stores, through a V# whose word 3 (format
//           and DST_SEL) the test puts in out[0].
// MUBUF kernels build their V# from a kernarg pointer, except pb_* (gfx90a), which use the
// dispatch's private segment buffer. Flat kernels named d_flat_* / p_flat_* / a_lds_flat_*
// address LDS or private memory through the apertures.
// Registers: v0 lane, v1 = 4*lane, v10 = 8*lane, v11 = 16*lane, v12 = b[l], v[14:15] = the flat
// address of the target + b[l].

.include "op_frame.inc"

// The descriptor: \lds bytes of LDS, \priv bytes of private memory per lane. gfx942 enables
// architected flat scratch; gfx90a the private segment wave offset (as c_flat_private does).
.if .amdgcn.gfx_generation_minor == 4
.macro MEND name, lds=0, priv=0, denorm=3
  s_endpgm
  .rodata
  .p2align 6
  .amdhsa_kernel \name
    .amdhsa_user_sgpr_kernarg_segment_ptr 1
    .amdhsa_group_segment_fixed_size \lds
    .amdhsa_private_segment_fixed_size \priv
    .amdhsa_enable_private_segment 1
    .amdhsa_float_denorm_mode_32 \denorm
    .amdhsa_float_denorm_mode_16_64 3
    .amdhsa_next_free_vgpr 32
    .amdhsa_next_free_sgpr 32
    .amdhsa_accum_offset 32
  .end_amdhsa_kernel
.endm
.else
.macro MEND name, lds=0, priv=0, denorm=3
  s_endpgm
  .rodata
  .p2align 6
  .amdhsa_kernel \name
    .amdhsa_user_sgpr_kernarg_segment_ptr 1
    .amdhsa_group_segment_fixed_size \lds
    .amdhsa_private_segment_fixed_size \priv
    .amdhsa_system_sgpr_private_segment_wavefront_offset 1
    .amdhsa_float_denorm_mode_32 \denorm
    .amdhsa_float_denorm_mode_16_64 3
    .amdhsa_next_free_vgpr 32
    .amdhsa_next_free_sgpr 32
    .amdhsa_accum_offset 32
  .end_amdhsa_kernel
.endm
.endif

.macro MARK4 r0, r1, r2, r3
  v_mov_b32 \r0, 0xdeadbeef
  v_mov_b32 \r1, 0xdeadbeef
  v_mov_b32 \r2, 0xdeadbeef
  v_mov_b32 \r3, 0xdeadbeef
.endm

// v[14:15] = s[\lo:\lo+1] + v12
.macro FLATADDR slo, shi
  v_mov_b32 v15, \shi
  v_add_co_u32 v14, vcc, \slo, v12
  v_addc_co_u32 v15, vcc, 0, v15, vcc
.endm

// ---- global and flat loads ----

.macro LBEGIN name
  KBEGIN \name
  v_lshlrev_b32 v11, 4, v0
  global_load_dword v12, v1, s[6:7]
  MARK4 v16, v17, v18, v19
  s_waitcnt vmcnt(0)
  FLATADDR s4, s5
  HOLES
.endm
.macro LEND name, lds=0, priv=0
  s_waitcnt vmcnt(0) lgkmcnt(0)
  s_mov_b64 exec, -1
  global_store_dwordx4 v11, v[16:19], s[10:11]
  MEND \name, \lds, \priv
.endm
.macro LD name, inst:vararg
  LBEGIN \name
  \inst
  LEND \name
.endm

LD l_global_ubyte, global_load_ubyte v16, v12, s[4:5] offset:3
LD l_global_ushort, global_load_ushort v16, v12, s[4:5] offset:-2
LD l_global_dwordx3, global_load_dwordx3 v[16:18], v[14:15], off offset:-16
LD l_global_dwordx4, global_load_dwordx4 v[16:19], v12, s[4:5] offset:16
LD l_flat_sbyte, flat_load_sbyte v16, v[14:15]
LD l_flat_ubyte, flat_load_ubyte v16, v[14:15] offset:1
LD l_flat_ushort, flat_load_ushort v16, v[14:15] offset:2
LD l_flat_dwordx2, flat_load_dwordx2 v[16:17], v[14:15]
LD l_flat_dwordx4, flat_load_dwordx4 v[16:19], v[14:15] offset:16

// ---- global and flat stores ----

.macro SBEGIN name
  KBEGIN \name
  v_lshlrev_b32 v11, 4, v0
  global_load_dword v12, v1, s[6:7]
  global_load_dwordx4 v[16:19], v11, s[4:5]
  s_waitcnt vmcnt(0)
  FLATADDR s8, s9
  HOLES
.endm
.macro ST name, inst:vararg
  SBEGIN \name
  \inst
  s_waitcnt vmcnt(0) lgkmcnt(0)
  s_mov_b64 exec, -1
  MEND \name
.endm

ST s_global_byte, global_store_byte v12, v16, s[8:9] offset:1
ST s_global_short, global_store_short v[14:15], v16, off offset:-2
ST s_global_dwordx3, global_store_dwordx3 v12, v[16:18], s[8:9] offset:4
ST s_flat_byte, flat_store_byte v[14:15], v16
ST s_flat_short, flat_store_short v[14:15], v16 offset:2
ST s_flat_dwordx2, flat_store_dwordx2 v[14:15], v[16:17]
ST s_flat_dwordx4, flat_store_dwordx4 v[14:15], v[16:19] offset:16

// ---- MUBUF through a buffer resource built from a kernarg pointer ----
// V# in s[12:15]: base (a for loads, c for stores), stride 0, num_records 208 bytes; s16 = 8 is
// SOFFSET (added to the address, not range checked). Structured form: s[20:23] has stride 12
// and 40 records. Out-of-range loads return 0, out-of-range stores are dropped.

.macro VSHARP slo, shi
  s_mov_b32 s12, \slo
  s_and_b32 s13, \shi, 0xffff
  s_movk_i32 s14, 208
  s_mov_b32 s15, 0x00027000
  s_mov_b32 s16, 8
  s_mov_b32 s24, \slo
  s_and_b32 s25, \shi, 0xffff
  s_or_b32 s25, s25, 0x000c0000
  s_movk_i32 s26, 40
  s_mov_b32 s27, 0x00027000
.endm

.macro BLD name, inst:vararg
  LBEGIN \name
  VSHARP s4, s5
  \inst
  LEND \name
.endm
BLD b_load_dword, buffer_load_dword v16, v12, s[12:15], s16 offen offset:4
BLD b_load_ubyte, buffer_load_ubyte v16, v12, s[12:15], s16 offen offset:5
BLD b_load_dword_idx, buffer_load_dword v16, v0, s[24:27], 0 idxen offset:4
BLD b_load_dwordx4_range, buffer_load_dwordx4 v[16:19], v12, s[12:15], 0 offen offset:4

.macro BST name, inst:vararg
  SBEGIN \name
  VSHARP s8, s9
  \inst
  s_waitcnt vmcnt(0)
  s_mov_b64 exec, -1
  MEND \name
.endm
BST b_store_byte, buffer_store_byte v16, v12, s[12:15], s16 offen offset:1
BST b_store_short, buffer_store_short v16, v12, s[12:15], s16 offen offset:2
BST b_store_dword, buffer_store_dword v16, v12, s[12:15], s16 offen offset:4
BST b_store_dword_idx, buffer_store_dword v16, v0, s[24:27], 0 idxen offset:4
BST b_store_dwordx2_range, buffer_store_dwordx2 v[16:17], v12, s[12:15], 0 offen offset:4

// Cache maintenance: store a[l] to c[l], write back / invalidate, read c[l] back into out[l]
// (the interpreter has no caches: the data must simply stay coherent and the wave go on).
.macro CACHEOPS
.if .amdgcn.gfx_generation_minor == 4
  buffer_wbl2 sc0 sc1
  s_waitcnt vmcnt(0)
  buffer_inv sc0 sc1
.else
  buffer_wbl2
  s_waitcnt vmcnt(0)
  buffer_invl2
  buffer_wbinvl1_vol
.endif
.endm
  KBEGIN b_cache_ops
  global_load_dword v2, v1, s[4:5]
  v_mov_b32 v5, 0xdeadbeef
  s_waitcnt vmcnt(0)
  HOLES
  global_store_dword v1, v2, s[8:9]
  s_waitcnt vmcnt(0)
  CACHEOPS
  global_load_dword v5, v1, s[8:9]
  s_waitcnt vmcnt(0)
  s_mov_b64 exec, -1
  global_store_dword v1, v5, s[10:11]
  MEND b_cache_ops

// ---- LDS reads and writes (8 KiB; lane l fills and dumps bytes [128l, 128l+128)) ----

// LDS <- c (every lane its 128 bytes)
// v[14:15] = the flat address of offset b[l] in the LDS or private aperture (the aperture base
// has zero low bits)
.macro APERTURE src
  s_mov_b64 s[18:19], \src
  v_mov_b32 v14, v12
  v_mov_b32 v15, s19
.endm

.macro LDS_FILL
  v_lshlrev_b32 v28, 7, v0
  .irp k, 0, 16, 32, 48, 64, 80, 96, 112
  global_load_dwordx4 v[24:27], v28, s[8:9] offset:\k
  s_waitcnt vmcnt(0)
  ds_write_b128 v28, v[24:27] offset:\k
  .endr
  s_waitcnt lgkmcnt(0)
.endm
// out <- LDS
.macro LDS_DUMP
  v_lshlrev_b32 v28, 7, v0
  .irp k, 0, 16, 32, 48, 64, 80, 96, 112
  ds_read_b128 v[24:27], v28 offset:\k
  s_waitcnt lgkmcnt(0)
  global_store_dwordx4 v28, v[24:27], s[10:11] offset:\k
  .endr
  s_waitcnt vmcnt(0)
.endm

.macro DLD name, inst:vararg
  LBEGIN \name
  s_mov_b64 exec, -1
  LDS_FILL
  APERTURE src_shared_base
  HOLES
  \inst
  LEND \name, 8192
.endm
DLD d_read_b32, ds_read_b32 v16, v12 offset:4
DLD d_read_b64, ds_read_b64 v[16:17], v12 offset:8
DLD d_read_b128, ds_read_b128 v[16:19], v12 offset:16
DLD d_read2_b32, ds_read2_b32 v[16:17], v12 offset0:1 offset1:7
DLD d_read2_b64, ds_read2_b64 v[16:19], v12 offset0:3 offset1:1
DLD d_read2st64_b32, ds_read2st64_b32 v[16:17], v12 offset0:2 offset1:5
DLD d_read2st64_b64, ds_read2st64_b64 v[16:19], v12 offset0:1 offset1:4
// flat instructions whose address falls in the LDS aperture reach LDS
DLD d_flat_load_dwordx2, flat_load_dwordx2 v[16:17], v[14:15] offset:8
DLD d_flat_load_sbyte, flat_load_sbyte v16, v[14:15] offset:3

.macro DST name, inst:vararg
  SBEGIN \name
  s_mov_b64 exec, -1
  v_add_u32 v21, 0x400, v11
  global_load_dwordx4 v[20:23], v21, s[4:5]
  s_waitcnt vmcnt(0)
  s_mov_b64 exec, -1
  LDS_FILL
  APERTURE src_shared_base
  HOLES
  \inst
  s_waitcnt vmcnt(0) lgkmcnt(0)
  s_mov_b64 exec, -1
  LDS_DUMP
  MEND \name, 8192
.endm
DST d_write_b32, ds_write_b32 v12, v16 offset:4
DST d_write_b64, ds_write_b64 v12, v[16:17] offset:8
DST d_write_b128, ds_write_b128 v12, v[16:19] offset:16
DST d_write2_b64, ds_write2_b64 v12, v[16:17], v[20:21] offset0:1 offset1:3
DST d_write2st64_b32, ds_write2st64_b32 v12, v16, v20 offset0:3 offset1:1
DST d_flat_store_dwordx4, flat_store_dwordx4 v[14:15], v[16:19] offset:16

// ---- scratch (private memory: 128 bytes per lane, filled from c + 128*l, dumped to out) ----

.macro PRIV_FILL
  v_lshlrev_b32 v28, 7, v0
  v_mov_b32 v13, 0
  .irp k, 0, 16, 32, 48, 64, 80, 96, 112
  global_load_dwordx4 v[24:27], v28, s[8:9] offset:\k
  s_waitcnt vmcnt(0)
  scratch_store_dwordx4 v13, v[24:27], off offset:\k
  .endr
  s_waitcnt vmcnt(0)
.endm
.macro PRIV_DUMP
  v_lshlrev_b32 v28, 7, v0
  v_mov_b32 v13, 0
  .irp k, 0, 16, 32, 48, 64, 80, 96, 112
  scratch_load_dwordx4 v[24:27], v13, off offset:\k
  s_waitcnt vmcnt(0)
  global_store_dwordx4 v28, v[24:27], s[10:11] offset:\k
  .endr
  s_waitcnt vmcnt(0)
.endm

.macro PLD name, inst:vararg
  LBEGIN \name
  s_mov_b64 exec, -1
  PRIV_FILL
  s_mov_b32 s17, 24
  APERTURE src_private_base
  HOLES
  \inst
  LEND \name, 0, 128
.endm
PLD p_load_dwordx2, scratch_load_dwordx2 v[16:17], v12, off offset:8
PLD p_load_dwordx3, scratch_load_dwordx3 v[16:18], off, s17 offset:4
PLD p_load_dwordx4, scratch_load_dwordx4 v[16:19], v12, off offset:16
// flat instructions in the private aperture reach the lane's private memory
PLD p_flat_load_dwordx4, flat_load_dwordx4 v[16:19], v[14:15] offset:16

.macro PST name, inst:vararg
  SBEGIN \name
  s_mov_b64 exec, -1
  PRIV_FILL
  s_mov_b32 s17, 24
  APERTURE src_private_base
  HOLES
  \inst
  s_waitcnt vmcnt(0)
  s_mov_b64 exec, -1
  PRIV_DUMP
  MEND \name, 0, 128
.endm
PST p_store_dword, scratch_store_dword v12, v16, off offset:4
PST p_store_dwordx2, scratch_store_dwordx2 off, v[16:17], s17 offset:8
PST p_store_dwordx3, scratch_store_dwordx3 v12, v[16:18], off offset:12
PST p_store_dwordx4, scratch_store_dwordx4 v12, v[16:19], off offset:16
PST p_flat_store_short, flat_store_short v[14:15], v16 offset:6

// ---- s_load_dwordx4: immediate and SGPR offsets; every lane stores the 8 dwords ----
  KBEGIN m_s_load_dwordx4
  s_movk_i32 s22, 0x24
  s_load_dwordx4 s[12:15], s[4:5], 0x10
  s_load_dwordx4 s[16:19], s[4:5], s22
  v_lshlrev_b32 v11, 5, v0
  s_waitcnt lgkmcnt(0)
  v_mov_b32 v16, s12
  v_mov_b32 v17, s13
  v_mov_b32 v18, s14
  v_mov_b32 v19, s15
  v_mov_b32 v20, s16
  v_mov_b32 v21, s17
  v_mov_b32 v22, s18
  v_mov_b32 v23, s19
  global_store_dwordx4 v11, v[16:19], s[10:11]
  global_store_dwordx4 v11, v[20:23], s[10:11] offset:16
  MEND m_s_load_dwordx4

// ---- atomics ----

.macro ABEGIN name, w
  KBEGIN \name
.if \w == 4
  global_load_dword v2, v1, s[4:5]
  global_load_dword v3, v1, s[4:5] offset:256
  v_mov_b32 v5, 0xdeadbeef
.else
  global_load_dwordx2 v[2:3], v10, s[4:5]
  global_load_dwordx2 v[4:5], v10, s[4:5] offset:512
  v_mov_b32 v8, 0xdeadbeef
  v_mov_b32 v9, 0xdeadbeef
.endif
  global_load_dword v12, v1, s[6:7]
  s_waitcnt vmcnt(0)
  FLATADDR s8, s9
  HOLES
.endm
.macro AEND name, w, lds=0, denorm=3
  s_waitcnt vmcnt(0) lgkmcnt(0)
  s_mov_b64 exec, -1
  // the no-return forms encode VDST 0: recompute the output addresses from v0, so a stray
  // write of the old value to v0 sends the results astray
  v_lshlrev_b32 v1, 2, v0
  v_lshlrev_b32 v10, 3, v0
.if \w == 4
  global_store_dword v1, v5, s[10:11]
.else
  global_store_dwordx2 v10, v[8:9], s[10:11]
.endif
  MEND \name, \lds, 0, \denorm
.endm

// A global and a flat atomic, each with a return (glc; sc0 on gfx942) and without.
.macro GA op, w, data
  ABEGIN a_global_\op, \w
.if \w == 4
  .if .amdgcn.gfx_generation_minor == 4
  global_atomic_\op v5, v12, \data, s[8:9] sc0
  .else
  global_atomic_\op v5, v12, \data, s[8:9] glc
  .endif
.else
  .if .amdgcn.gfx_generation_minor == 4
  global_atomic_\op v[8:9], v12, \data, s[8:9] sc0
  .else
  global_atomic_\op v[8:9], v12, \data, s[8:9] glc
  .endif
.endif
  AEND a_global_\op, \w
  ABEGIN a_global_\op\()_nr, \w
  global_atomic_\op v12, \data, s[8:9]
  AEND a_global_\op\()_nr, \w
.endm
.macro FA op, w, data
  ABEGIN a_flat_\op, \w
.if \w == 4
  .if .amdgcn.gfx_generation_minor == 4
  flat_atomic_\op v5, v[14:15], \data sc0
  .else
  flat_atomic_\op v5, v[14:15], \data glc
  .endif
.else
  .if .amdgcn.gfx_generation_minor == 4
  flat_atomic_\op v[8:9], v[14:15], \data sc0
  .else
  flat_atomic_\op v[8:9], v[14:15], \data glc
  .endif
.endif
  AEND a_flat_\op, \w
  ABEGIN a_flat_\op\()_nr, \w
  flat_atomic_\op v[14:15], \data
  AEND a_flat_\op\()_nr, \w
.endm

.irp op, add, sub, and, or, xor, smax, smin, umax, umin, swap, inc, dec, add_f32
  GA \op, 4, v2
.endr
GA cmpswap, 4, v[2:3]
.irp op, add_x2, sub_x2, and_x2, or_x2, xor_x2, umax_x2, umin_x2, add_f64
  GA \op, 8, v[2:3]
.endr
GA cmpswap_x2, 8, v[2:5]

.irp op, add, and, or, xor, smax, smin, umax, umin, swap, inc, dec
  FA \op, 4, v2
.endr
FA cmpswap, 4, v[2:3]
.irp op, add_x2, and_x2, or_x2, xor_x2, umax_x2, umin_x2, add_f64
  FA \op, 8, v[2:3]
.endr
FA cmpswap_x2, 8, v[2:5]
// flat_atomic_add_f32 exists on gfx942 only
.if .amdgcn.gfx_generation_minor == 4
FA add_f32, 4, v2
.endif

// LDS atomics on a copy of c[0..512)
.macro LDSA name, w, inst:vararg
  LDSAM \name, \w, 3, \inst
.endm
.macro LDSAM name, w, denorm, inst:vararg
  ABEGIN \name, \w
  s_mov_b64 exec, -1
  global_load_dwordx2 v[16:17], v10, s[8:9]
  s_waitcnt vmcnt(0)
  ds_write_b64 v10, v[16:17]
  s_waitcnt lgkmcnt(0)
  APERTURE src_shared_base
  HOLES
  \inst
  s_waitcnt lgkmcnt(0)
  s_mov_b64 exec, -1
  ds_read_b64 v[16:17], v10
  s_waitcnt lgkmcnt(0)
  global_store_dwordx2 v10, v[16:17], s[8:9]
  AEND \name, \w, 512, \denorm
.endm
LDSA a_ds_add_u32, 4, ds_add_u32 v12, v2
LDSA a_ds_add_rtn_u32, 4, ds_add_rtn_u32 v5, v12, v2
LDSA a_ds_and_b32, 4, ds_and_b32 v12, v2
LDSA a_ds_and_rtn_b32, 4, ds_and_rtn_b32 v5, v12, v2
LDSA a_ds_or_b32, 4, ds_or_b32 v12, v2
LDSA a_ds_or_rtn_b32, 4, ds_or_rtn_b32 v5, v12, v2
LDSA a_ds_max_i32, 4, ds_max_i32 v12, v2
LDSA a_ds_max_rtn_i32, 4, ds_max_rtn_i32 v5, v12, v2
LDSA a_ds_min_i32, 4, ds_min_i32 v12, v2
LDSA a_ds_min_rtn_i32, 4, ds_min_rtn_i32 v5, v12, v2
LDSA a_ds_add_f32, 4, ds_add_f32 v12, v2
LDSA a_ds_add_rtn_f32, 4, ds_add_rtn_f32 v5, v12, v2
// ds_add_f32 follows MODE's f32 denormal setting: here it flushes
LDSAM a_ds_add_rtn_f32_ftz, 4, 0, ds_add_rtn_f32 v5, v12, v2
LDSA a_ds_add_u64, 8, ds_add_u64 v12, v[2:3]
LDSA a_ds_add_rtn_u64, 8, ds_add_rtn_u64 v[8:9], v12, v[2:3]
LDSA a_ds_add_f64, 8, ds_add_f64 v12, v[2:3]
LDSA a_ds_add_rtn_f64, 8, ds_add_rtn_f64 v[8:9], v12, v[2:3]
// ds_cmpst: DATA0 is the compare value, DATA1 the new one
LDSA a_ds_cmpst_rtn_b64, 8, ds_cmpst_rtn_b64 v[8:9], v12, v[4:5], v[2:3]
// flat atomics in the LDS aperture
.if .amdgcn.gfx_generation_minor == 4
LDSA a_lds_flat_add, 4, flat_atomic_add v5, v[14:15], v2 sc0
LDSA a_lds_flat_cmpswap_x2, 8, flat_atomic_cmpswap_x2 v[8:9], v[14:15], v[2:5] sc0
.else
LDSA a_lds_flat_add, 4, flat_atomic_add v5, v[14:15], v2 glc
LDSA a_lds_flat_cmpswap_x2, 8, flat_atomic_cmpswap_x2 v[8:9], v[14:15], v[2:5] glc
.endif
LDSA a_lds_flat_umax_nr, 4, flat_atomic_umax v[14:15], v2

// ---- MUBUF scratch through the private segment buffer (what hipcc's gfx90a code does) ----
// s[0:3] is the V# the dispatch provides, s[4:5] the kernarg pointer. SOFFSET is wave-scaled (a
// per-lane byte offset times 64, like LLVM's stack and frame pointers s32/s33). Lane l's 128
// private bytes are filled from c + 128*l; the stores' test dumps them to out + 128*l.
.if .amdgcn.gfx_generation_minor != 4
.macro PBBEGIN name
  .text
  .globl \name
  .p2align 8
  .type \name,@function
\name:
  s_load_dwordx8 s[8:15], s[4:5], 0x0        // a, b, c, out
  v_and_b32 v0, 0x3ff, v0
  v_lshlrev_b32 v1, 2, v0
  v_lshlrev_b32 v11, 4, v0
  v_lshlrev_b32 v28, 7, v0
  s_waitcnt lgkmcnt(0)
  global_load_dword v12, v1, s[10:11]
  global_load_dwordx4 v[16:19], v11, s[8:9]
  .irp k, 0, 4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 44, 48, 52, 56, 60, 64, 68, 72, 76, 80, 84, 88, 92, 96, 100, 104, 108, 112, 116, 120, 124
  global_load_dword v24, v28, s[12:13] offset:\k
  s_waitcnt vmcnt(0)
  buffer_store_dword v24, off, s[0:3], 0 offset:\k
  .endr
  s_waitcnt vmcnt(0)
  s_movk_i32 s22, 8 * 64
  s_movk_i32 s23, 32 * 64
.endm
.macro PBEND name
  s_endpgm
  .rodata
  .p2align 6
  .amdhsa_kernel \name
    .amdhsa_user_sgpr_private_segment_buffer 1
    .amdhsa_user_sgpr_kernarg_segment_ptr 1
    .amdhsa_private_segment_fixed_size 128
    .amdhsa_system_sgpr_private_segment_wavefront_offset 1
    .amdhsa_next_free_vgpr 32
    .amdhsa_next_free_sgpr 32
    .amdhsa_accum_offset 32
  .end_amdhsa_kernel
.endm

  PBBEGIN pb_store
  HOLES
  buffer_store_dword v16, off, s[0:3], s22 offset:4
  buffer_store_short v17, v12, s[0:3], 0 offen offset:2
  buffer_store_byte v18, v12, s[0:3], s23 offen offset:1
  s_waitcnt vmcnt(0)
  s_mov_b64 exec, -1
  .irp k, 0, 4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 44, 48, 52, 56, 60, 64, 68, 72, 76, 80, 84, 88, 92, 96, 100, 104, 108, 112, 116, 120, 124
  buffer_load_dword v24, off, s[0:3], 0 offset:\k
  s_waitcnt vmcnt(0)
  global_store_dword v28, v24, s[14:15] offset:\k
  .endr
  PBEND pb_store

  PBBEGIN pb_load
  MARK4 v16, v17, v18, v19
  HOLES
  buffer_load_dword v16, off, s[0:3], s22 offset:4
  buffer_load_ubyte v17, v12, s[0:3], 0 offen offset:3
  buffer_load_dword v18, v12, s[0:3], s23 offen offset:8
  s_waitcnt vmcnt(0)
  s_mov_b64 exec, -1
  global_store_dwordx4 v11, v[16:19], s[14:15]
  PBEND pb_load
.endif

// ---- typed buffer access: buffer_*_format_* (format in the V#) and tbuffer_* (format in the
// instruction). V# in s[28:31]: base a (loads) or c (stores), stride 0, num_records 836 bytes
// (lane l's element is at offset 16*l: lane 52's element straddles num_records unless it has
// at most 4 bytes), word 3 = out[0] as the test set it (DATA_FORMAT [18:15], NUM_FORMAT [14:12]).
.macro TVSHARP slo, shi
  s_load_dword s31, s[10:11], 0x0
  s_mov_b32 s28, \slo
  s_and_b32 s29, \shi, 0xffff
  s_movk_i32 s30, 836
  s_waitcnt lgkmcnt(0)
.endm
.macro TLD name, inst:vararg
  LBEGIN \name
  TVSHARP s4, s5
  \inst
  LEND \name
.endm
.macro TST name, inst:vararg
  SBEGIN \name
  TVSHARP s8, s9
  \inst
  s_waitcnt vmcnt(0)
  s_mov_b64 exec, -1
  MEND \name
.endm
TLD y_load_x, buffer_load_format_x v16, v12, s[28:31], 0 offen
TLD y_load_xy, buffer_load_format_xy v[16:17], v12, s[28:31], 0 offen
TLD y_load_xyz, buffer_load_format_xyz v[16:18], v12, s[28:31], 0 offen
TLD y_load_xyzw, buffer_load_format_xyzw v[16:19], v12, s[28:31], 0 offen
TST y_store_x, buffer_store_format_x v16, v12, s[28:31], 0 offen
TST y_store_xy, buffer_store_format_xy v[16:17], v12, s[28:31], 0 offen
TST y_store_xyz, buffer_store_format_xyz v[16:18], v12, s[28:31], 0 offen
TST y_store_xyzw, buffer_store_format_xyzw v[16:19], v12, s[28:31], 0 offen
TLD t_load_8888_unorm, tbuffer_load_format_xyzw v[16:19], v12, s[28:31], 0 format:[BUF_DATA_FORMAT_8_8_8_8,BUF_NUM_FORMAT_UNORM] offen
TLD t_load_1616_snorm, tbuffer_load_format_xy v[16:17], v12, s[28:31], 0 format:[BUF_DATA_FORMAT_16_16,BUF_NUM_FORMAT_SNORM] offen
TLD t_load_16_float_xyzw, tbuffer_load_format_xyzw v[16:19], v12, s[28:31], 0 format:[BUF_DATA_FORMAT_16,BUF_NUM_FORMAT_FLOAT] offen
TLD t_load_323232_sint, tbuffer_load_format_xyz v[16:18], v12, s[28:31], 0 format:[BUF_DATA_FORMAT_32_32_32,BUF_NUM_FORMAT_SINT] offen
TLD t_load_88_sscaled, tbuffer_load_format_xy v[16:17], v12, s[28:31], 0 format:[BUF_DATA_FORMAT_8_8,BUF_NUM_FORMAT_SSCALED] offen
TLD t_load_16161616_uint_x, tbuffer_load_format_x v16, v12, s[28:31], 0 format:[BUF_DATA_FORMAT_16_16_16_16,BUF_NUM_FORMAT_UINT] offen
TST t_store_8888_unorm, tbuffer_store_format_xyzw v[16:19], v12, s[28:31], 0 format:[BUF_DATA_FORMAT_8_8_8_8,BUF_NUM_FORMAT_UNORM] offen
TST t_store_1616_snorm, tbuffer_store_format_xy v[16:17], v12, s[28:31], 0 format:[BUF_DATA_FORMAT_16_16,BUF_NUM_FORMAT_SNORM] offen
TST t_store_16_float, tbuffer_store_format_x v16, v12, s[28:31], 0 format:[BUF_DATA_FORMAT_16,BUF_NUM_FORMAT_FLOAT] offen
TST t_store_323232_float, tbuffer_store_format_xyz v[16:18], v12, s[28:31], 0 format:[BUF_DATA_FORMAT_32_32_32,BUF_NUM_FORMAT_FLOAT] offen
// an unmodelled format must end the dispatch as an illegal instruction, never guess
TST t_store_8_uint, tbuffer_store_format_x v16, v12, s[28:31], 0 format:[BUF_DATA_FORMAT_8,BUF_NUM_FORMAT_UINT] offen
