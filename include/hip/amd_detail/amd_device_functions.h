/* hipkfd: HIP built-in device functions other than atomics and warp cross-lane functions:
 * fences, block synchronisation, integer intrinsics, timers, lane id, device printf/assert/abort.
 * Each maps onto a clang AMDGPU builtin or an ockl device-library function. */
#ifndef HIPKFD_AMD_DETAIL_AMD_DEVICE_FUNCTIONS_H
#define HIPKFD_AMD_DETAIL_AMD_DEVICE_FUNCTIONS_H

#include <hip/amd_detail/host_defines.h>
#include <hip/amd_detail/device_library_decls.h>
#include <hip/amd_detail/amd_hip_vector_types.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#if defined(__HIPKFD_HIP_CLANG__)

#define __HIPKFD_DEV__ static __device__ inline __attribute__((always_inline))
/* The integer intrinsics are plain arithmetic, so they are also host functions: host code can
 * share them, and tests check their values on the CPU. */
#define __HIPKFD_HD__ static __host__ __device__ inline __attribute__((always_inline))

/* ---- Memory fences (HIP C++ language extensions, "Memory fence instructions") ----
 * Sequentially consistent fences at the three HIP scopes: work-group, agent (device), system. */
__HIPKFD_DEV__ void __threadfence_block(void) { __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, "workgroup"); }
__HIPKFD_DEV__ void __threadfence(void) { __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, "agent"); }
__HIPKFD_DEV__ void __threadfence_system(void) { __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, ""); }

/* ---- Block synchronisation ----
 * s_barrier alone orders execution, not memory: the release fence before it makes this
 * thread's writes visible to the work-group, the acquire fence after it makes the others'
 * writes visible to this thread (the implicit __threadfence_block the HIP docs promise). */
__HIPKFD_DEV__ void __syncthreads(void) {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}
/* The predicate forms reduce over the whole block in LDS (ockl's work-group reductions hold
 * the barriers themselves); fences give the same memory ordering as __syncthreads. */
__HIPKFD_DEV__ int __syncthreads_count(int predicate) {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  int n = __ockl_wgred_add_i32(predicate != 0);
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
  return n;
}
__HIPKFD_DEV__ int __syncthreads_and(int predicate) {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  int r = __ockl_wgred_and_i32(predicate != 0);
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
  return r;
}
__HIPKFD_DEV__ int __syncthreads_or(int predicate) {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  int r = __ockl_wgred_or_i32(predicate != 0);
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
  return r;
}

/* ---- Integer intrinsics ---- */
__HIPKFD_HD__ unsigned int __popc(unsigned int x) { return __builtin_popcount(x); }
__HIPKFD_HD__ unsigned int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
/* Leading zeros of 0 is the width (CUDA semantics), which the plain builtins leave undefined. */
__HIPKFD_HD__ int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned int)x); }
/* One signature only, as in AMD's header: a second (unsigned) overload would make calls with
 * short or float arguments ambiguous. */
__HIPKFD_HD__ int __clzll(long long x) {
  return x == 0 ? 64 : __builtin_clzll((unsigned long long)x);
}
/* Position of the least significant set bit, 1-based; 0 when no bit is set. */
__HIPKFD_HD__ int __ffs(int x) { return __builtin_ffs(x); }
__HIPKFD_HD__ int __ffs(unsigned int x) { return __builtin_ffs((int)x); }
__HIPKFD_HD__ int __ffsll(long long x) { return __builtin_ffsll(x); }
__HIPKFD_HD__ int __ffsll(unsigned long long x) { return __builtin_ffsll((long long)x); }
__HIPKFD_HD__ int __ffsll(long x) { return __builtin_ffsll((long long)x); }
__HIPKFD_HD__ int __ffsll(unsigned long x) { return __builtin_ffsll((long long)x); }
/* Index of the least significant set bit, 0-based; 0xffffffff (-1) when no bit is set: __ffs
 * without its +1 (the HIP-Clang extension the kernel-language page describes). */
__HIPKFD_HD__ unsigned int __lastbit_u32_u32(unsigned int x) {
  return x == 0 ? 0xffffffffu : (unsigned int)__builtin_ctz(x);
}
__HIPKFD_HD__ unsigned int __lastbit_u32_u64(unsigned long long x) {
  return x == 0 ? 0xffffffffu : (unsigned int)__builtin_ctzll(x);
}
__HIPKFD_HD__ unsigned int __brev(unsigned int x) { return __builtin_bitreverse32(x); }
__HIPKFD_HD__ unsigned long long __brevll(unsigned long long x) {
  return __builtin_bitreverse64(x);
}
/* Byte s of the 8-byte value {y,x} selected by each nibble of s (low three bits). */
__HIPKFD_HD__ unsigned int __byte_perm(unsigned int x, unsigned int y, unsigned int s) {
  unsigned long long v = ((unsigned long long)y << 32) | x;
  unsigned int r = 0;
  for (int i = 0; i < 4; ++i) {
    unsigned int sel = (s >> (4 * i)) & 7u;
    r |= (unsigned int)((v >> (8 * sel)) & 0xffu) << (8 * i);
  }
  return r;
}
/* 24-bit multiplies: the operands' low 24 bits, sign-extended for the signed form. */
__HIPKFD_HD__ int __mul24(int x, int y) {
  return ((x << 8) >> 8) * ((y << 8) >> 8);
}
__HIPKFD_HD__ unsigned int __umul24(unsigned int x, unsigned int y) {
  return (x & 0xffffffu) * (y & 0xffffffu);
}
__HIPKFD_HD__ int __mulhi(int x, int y) { return (int)(((long long)x * y) >> 32); }
__HIPKFD_HD__ unsigned int __umulhi(unsigned int x, unsigned int y) {
  return (unsigned int)(((unsigned long long)x * y) >> 32);
}
__HIPKFD_HD__ long long __mul64hi(long long x, long long y) {
  return (long long)(((__int128)x * y) >> 64);
}
__HIPKFD_HD__ unsigned long long __umul64hi(unsigned long long x, unsigned long long y) {
  return (unsigned long long)(((unsigned __int128)x * y) >> 64);
}
/* Funnel shifts of the 64-bit value {hi,lo}: _l/_r wrap the shift modulo 32, _lc/_rc clamp it
 * to 32. */
__HIPKFD_HD__ unsigned int __funnelshift_l(unsigned int lo, unsigned int hi, unsigned int s) {
  unsigned long long v = ((unsigned long long)hi << 32) | lo;
  return (unsigned int)((v << (s & 31u)) >> 32);
}
__HIPKFD_HD__ unsigned int __funnelshift_lc(unsigned int lo, unsigned int hi, unsigned int s) {
  unsigned long long v = ((unsigned long long)hi << 32) | lo;
  return (unsigned int)((v << (s > 32u ? 32u : s)) >> 32);
}
__HIPKFD_HD__ unsigned int __funnelshift_r(unsigned int lo, unsigned int hi, unsigned int s) {
  unsigned long long v = ((unsigned long long)hi << 32) | lo;
  return (unsigned int)(v >> (s & 31u));
}
__HIPKFD_HD__ unsigned int __funnelshift_rc(unsigned int lo, unsigned int hi, unsigned int s) {
  unsigned long long v = ((unsigned long long)hi << 32) | lo;
  return (unsigned int)(v >> (s > 32u ? 32u : s));
}
/* Halving adds without intermediate overflow; the r forms round up. */
__HIPKFD_HD__ int __hadd(int x, int y) { return (int)(((long long)x + y) >> 1); }
__HIPKFD_HD__ int __rhadd(int x, int y) { return (int)(((long long)x + y + 1) >> 1); }
__HIPKFD_HD__ unsigned int __uhadd(unsigned int x, unsigned int y) {
  return (unsigned int)(((unsigned long long)x + y) >> 1);
}
__HIPKFD_HD__ unsigned int __urhadd(unsigned int x, unsigned int y) {
  return (unsigned int)(((unsigned long long)x + y + 1) >> 1);
}
/* |x - y| + z. */
__HIPKFD_HD__ unsigned int __sad(int x, int y, unsigned int z) {
  return (x > y ? (unsigned int)x - (unsigned int)y : (unsigned int)y - (unsigned int)x) + z;
}
__HIPKFD_HD__ unsigned int __usad(unsigned int x, unsigned int y, unsigned int z) {
  return (x > y ? x - y : y - x) + z;
}
/* AMD bit-field intrinsics: extract `width` bits at `offset`; insert `width` low bits of src1
 * into src0 at `offset` (offset and width taken modulo the type width, as v_bfe/v_bfi do). */
__HIPKFD_HD__ unsigned int __bitextract_u32(unsigned int src0, unsigned int offset,
                                             unsigned int width) {
  offset &= 31u;
  width &= 31u;
  return width == 0 ? 0u : (src0 << (32u - offset - width)) >> (32u - width);
}
__HIPKFD_HD__ unsigned long long __bitextract_u64(unsigned long long src0, unsigned int offset,
                                                   unsigned int width) {
  offset &= 63u;
  width &= 63u;
  return width == 0 ? 0ull : (src0 << (64u - offset - width)) >> (64u - width);
}
__HIPKFD_HD__ unsigned int __bitinsert_u32(unsigned int src0, unsigned int src1,
                                            unsigned int offset, unsigned int width) {
  offset &= 31u;
  width &= 31u;
  unsigned int mask = ((1u << width) - 1u) << offset;
  return (src0 & ~mask) | ((src1 << offset) & mask);
}
__HIPKFD_HD__ unsigned long long __bitinsert_u64(unsigned long long src0, unsigned long long src1,
                                                  unsigned int offset, unsigned int width) {
  offset &= 63u;
  width &= 63u;
  unsigned long long mask = ((1ull << width) - 1ull) << offset;
  return (src0 & ~mask) | ((src1 << offset) & mask);
}
/* Find the n-th set bit of mask counting from `base` (forward for n > 0, backward for n < 0);
 * 0xffffffff when there is none (CUDA __fns semantics). */
__HIPKFD_HD__ unsigned int __fns64(unsigned long long mask, unsigned int base, int offset) {
  if (base > 63u) return 0xffffffffu;
  if (offset == 0) return (mask >> base) & 1ull ? base : 0xffffffffu;
  if (offset > 0) {
    unsigned long long m = base == 0 ? mask : mask & ~((1ull << base) - 1ull);
    for (int k = 1; m != 0; ++k, m &= m - 1)
      if (k == offset) return (unsigned int)__builtin_ctzll(m);
  } else {
    unsigned long long m = base == 63u ? mask : mask & ((2ull << base) - 1ull);
    for (int k = -1; m != 0; --k) {
      unsigned int top = 63u - (unsigned int)__builtin_clzll(m);
      if (k == offset) return top;
      m &= ~(1ull << top);
    }
  }
  return 0xffffffffu;
}
__HIPKFD_HD__ unsigned int __fns32(unsigned long long mask, unsigned int base, int offset) {
  return __fns64(mask & 0xffffffffull, base, offset);
}
__HIPKFD_HD__ unsigned int __fns(unsigned int mask, unsigned int base, int offset) {
  return __fns32(mask, base, offset);
}

/* ---- Lane and wave ---- */
/* The lane number within the wave: mbcnt counts the set mask bits below this lane. */
__HIPKFD_DEV__ unsigned int __lane_id(void) {
  return __builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0u));
}
__HIPKFD_DEV__ unsigned int __smid(void) {
  /* HW_ID register: CU_ID bits 11:8, SH_ID bit 12, SE_ID bits 14:13 (gfx9 hwreg 4). */
  unsigned int hw = __builtin_amdgcn_s_getreg((4) | (0 << 6) | ((32 - 1) << 11));
  return ((hw >> 8) & 0xfu) | (((hw >> 12) & 1u) << 4) | (((hw >> 13) & 3u) << 5);
}

/* ---- Timers ("Timer functions") ----
 * clock64: the shader cycle counter (s_memtime on gfx9), rate varies with the clock.
 * wall_clock64: the constant-rate real-time counter (s_memrealtime); its rate is
 * hipDeviceAttributeWallClockRate. */
__HIPKFD_DEV__ long long int __clock64(void) { return (long long int)__builtin_readcyclecounter(); }
__HIPKFD_DEV__ long long int __clock(void) { return __clock64(); }
__HIPKFD_DEV__ long long int clock64(void) { return __clock64(); }
__HIPKFD_DEV__ clock_t clock(void) { return (clock_t)__clock64(); }
__HIPKFD_DEV__ long long int wall_clock64(void) {
  return (long long int)__builtin_amdgcn_s_memrealtime();
}

/* ---- Cached loads ---- */
template <class T> __HIPKFD_DEV__ T __ldg(const T *ptr) { return *ptr; }
/* CUDA's other cache-hinted loads (cache global, cache all, streaming, last use, volatile):
 * plain loads here too, as in AMD's headers. */
template <class T> __HIPKFD_DEV__ T __ldcg(const T *ptr) { return *ptr; }
template <class T> __HIPKFD_DEV__ T __ldca(const T *ptr) { return *ptr; }
template <class T> __HIPKFD_DEV__ T __ldcs(const T *ptr) { return *ptr; }
template <class T> __HIPKFD_DEV__ T __ldlu(const T *ptr) { return *ptr; }
template <class T> __HIPKFD_DEV__ T __ldcv(const T *ptr) { return *ptr; }

/* ---- Cross-lane data movement (AMD extensions) ---- */
__HIPKFD_DEV__ int __hip_ds_bpermute(int index, int src) {
  return __builtin_amdgcn_ds_bpermute(index, src);
}
__HIPKFD_DEV__ float __hip_ds_bpermutef(int index, float src) {
  return __builtin_bit_cast(float, __builtin_amdgcn_ds_bpermute(index, __builtin_bit_cast(int, src)));
}
__HIPKFD_DEV__ int __hip_ds_permute(int index, int src) {
  return __builtin_amdgcn_ds_permute(index, src);
}
__HIPKFD_DEV__ float __hip_ds_permutef(int index, float src) {
  return __builtin_bit_cast(float, __builtin_amdgcn_ds_permute(index, __builtin_bit_cast(int, src)));
}
/* The swizzle pattern and DPP controls are instruction immediates: macros keep them constant. */
#define __hip_ds_swizzle(src, pattern) __builtin_amdgcn_ds_swizzle((src), (pattern))
#define __hip_ds_swizzlef(src, pattern) \
  __builtin_bit_cast(float, __builtin_amdgcn_ds_swizzle(__builtin_bit_cast(int, (float)(src)), (pattern)))
#define __hip_move_dpp(src, dpp_ctrl, row_mask, bank_mask, bound_ctrl) \
  __builtin_amdgcn_mov_dpp((src), (dpp_ctrl), (row_mask), (bank_mask), (bound_ctrl))

/* ---- Device printf ----
 * A __device__ declaration of the C library's printf: clang recognises it as the printf
 * builtin and lowers each device call to ockl's hostcall printf (__ockl_printf_begin,
 * __ockl_printf_append_string_n, __ockl_printf_append_args), serviced by the runtime. */
extern "C" __device__ int printf(const char *format, ...);

/* ---- Device-side termination ----
 * abort/__trap end the wave with s_trap 2, which the runtime reports as a kernel fault. */
__HIPKFD_DEV__ void __trap(void) { __builtin_trap(); }
extern "C" __device__ __attribute__((weak, noreturn)) inline void abort(void) noexcept {
  __builtin_trap();
}

/* strlen has no device definition in the device libraries. */
__HIPKFD_DEV__ uint64_t __hipkfd_strlen(const char *s) {
  uint64_t n = 0;
  while (s[n] != 0) ++n;
  return n;
}

/* glibc's assert() calls __assert_fail. On the device it writes the failure to the host's
 * stderr through ockl's hostcall printf, then traps. */
extern "C" __device__ __attribute__((weak, noinline)) inline void __assert_fail(
    const char *assertion, const char *file, unsigned int line, const char *function) noexcept {
  uint64_t msg = __ockl_fprintf_stderr_begin();
  /* Format: "%s:%u: %s: Device-side assertion `%s' failed.\n", sent as pieces: the format
   * string first, then each argument, as the hostcall printf protocol expects. */
  static const char fmt[] = "%s:%u: %s: Device-side assertion `%s' failed.\n";
  msg = __ockl_printf_append_string_n(msg, fmt, sizeof(fmt), 0);
  msg = __ockl_printf_append_string_n(msg, file, __hipkfd_strlen(file) + 1, 0);
  msg = __ockl_printf_append_args(msg, 1, line, 0, 0, 0, 0, 0, 0, 0);
  msg = __ockl_printf_append_string_n(msg, function, __hipkfd_strlen(function) + 1, 0);
  msg = __ockl_printf_append_string_n(msg, assertion, __hipkfd_strlen(assertion) + 1, 1);
  (void)msg;
  __builtin_trap();
}
extern "C" __device__ __attribute__((weak, noinline)) inline void __assertfail(
    const char *assertion, const char *file, unsigned int line, const char *function,
    size_t charsize) noexcept {
  (void)charsize;
  __assert_fail(assertion, file, line, function);
}

/* ---- Packed byte arithmetic of the old HC API (__hip_hc_add8pk, _sub8pk, _mul8pk) ----
 * AMD's versions work on the .w bytes only: the result's .w is the low byte of the wrapped
 * sum, difference or product of the two .w bytes (the low byte of an integer sum, difference
 * or product depends only on the operands' low bytes). Lanes x, y and z are returned as 0.
 * The parameters are exactly char4: no scalar or other vector converts to it implicitly. */
__HIPKFD_DEV__ char4 __hip_hc_add8pk(char4 a, char4 b) {
  return char4(0, 0, 0, (signed char)(unsigned char)((unsigned)a.w + (unsigned)b.w));
}
__HIPKFD_DEV__ char4 __hip_hc_sub8pk(char4 a, char4 b) {
  return char4(0, 0, 0, (signed char)(unsigned char)((unsigned)a.w - (unsigned)b.w));
}
__HIPKFD_DEV__ char4 __hip_hc_mul8pk(char4 a, char4 b) {
  return char4(0, 0, 0, (signed char)(unsigned char)((unsigned)a.w * (unsigned)b.w));
}

/* ---- Integer dot products (amd_mixed_dot): c plus the sum of the lane products, one
 * v_dot2/v_dot4/v_dot8 instruction through ockl; `saturate` is the instruction's clamp bit.
 * ockl takes the lanes as clang vectors. */
typedef short __hipkfd_s16x2 __attribute__((ext_vector_type(2)));
typedef unsigned short __hipkfd_u16x2 __attribute__((ext_vector_type(2)));
typedef signed char __hipkfd_s8x4 __attribute__((ext_vector_type(4)));
typedef unsigned char __hipkfd_u8x4 __attribute__((ext_vector_type(4)));
extern "C" __device__ int __ockl_sdot2(__hipkfd_s16x2 a, __hipkfd_s16x2 b, int c, bool s);
extern "C" __device__ unsigned int __ockl_udot2(__hipkfd_u16x2 a, __hipkfd_u16x2 b, unsigned int c, bool s);
extern "C" __device__ int __ockl_sdot4(__hipkfd_s8x4 a, __hipkfd_s8x4 b, int c, bool s);
extern "C" __device__ unsigned int __ockl_udot4(__hipkfd_u8x4 a, __hipkfd_u8x4 b, unsigned int c, bool s);
extern "C" __device__ int __ockl_sdot8(int a, int b, int c, bool s);
extern "C" __device__ unsigned int __ockl_udot8(unsigned int a, unsigned int b, unsigned int c, bool s);
__HIPKFD_DEV__ int amd_mixed_dot(short2 a, short2 b, int c, bool saturate) {
  return __ockl_sdot2((__hipkfd_s16x2){a.x, a.y}, (__hipkfd_s16x2){b.x, b.y}, c, saturate);
}
__HIPKFD_DEV__ unsigned int amd_mixed_dot(ushort2 a, ushort2 b, unsigned int c, bool saturate) {
  return __ockl_udot2((__hipkfd_u16x2){a.x, a.y}, (__hipkfd_u16x2){b.x, b.y}, c, saturate);
}
__HIPKFD_DEV__ int amd_mixed_dot(char4 a, char4 b, int c, bool saturate) {
  return __ockl_sdot4((__hipkfd_s8x4){a.x, a.y, a.z, a.w}, (__hipkfd_s8x4){b.x, b.y, b.z, b.w}, c,
                      saturate);
}
__HIPKFD_DEV__ unsigned int amd_mixed_dot(uchar4 a, uchar4 b, unsigned int c, bool saturate) {
  return __ockl_udot4((__hipkfd_u8x4){a.x, a.y, a.z, a.w}, (__hipkfd_u8x4){b.x, b.y, b.z, b.w}, c,
                      saturate);
}
/* The int forms hold eight 4-bit lanes each. */
__HIPKFD_DEV__ int amd_mixed_dot(int a, int b, int c, bool saturate) { return __ockl_sdot8(a, b, c, saturate); }
__HIPKFD_DEV__ unsigned int amd_mixed_dot(unsigned int a, unsigned int b, unsigned int c, bool saturate) {
  return __ockl_udot8(a, b, c, saturate);
}

/* memcpy and memset in device code (AMD's header provides them; C's are host functions).
 * Byte loops: the compiler widens them where alignment allows. */
static inline __device__ void *memcpy(void *dst, const void *src, size_t size) {
  unsigned char *d = (unsigned char *)dst;
  const unsigned char *s = (const unsigned char *)src;
  for (size_t i = 0; i < size; ++i)
    d[i] = s[i];
  return dst;
}
static inline __device__ void *memset(void *ptr, int val, size_t size) {
  unsigned char *p = (unsigned char *)ptr;
  for (size_t i = 0; i < size; ++i)
    p[i] = (unsigned char)val;
  return ptr;
}

#endif /* __HIPKFD_HIP_CLANG__ */
#endif /* HIPKFD_AMD_DETAIL_AMD_DEVICE_FUNCTIONS_H */
