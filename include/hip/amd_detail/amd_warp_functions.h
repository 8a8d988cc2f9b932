/* hipkfd: warp (wavefront) cross-lane functions: vote, ballot, match, shuffle, reduce.
 *
 * Masks are 64-bit on AMD (a wave has up to 64 lanes). Shuffles go through ds_bpermute, which
 * reads a 32-bit value from the lane whose byte address (lane * 4) each lane supplies; wider
 * types move as 32-bit pieces. The _sync variants (on by default as in ROCm 7; define
 * HIP_DISABLE_WARP_SYNC_BUILTINS to drop them) check at compile time that the mask is 64-bit. */
#ifndef HIPKFD_AMD_DETAIL_AMD_WARP_FUNCTIONS_H
#define HIPKFD_AMD_DETAIL_AMD_WARP_FUNCTIONS_H

#include <hip/amd_detail/host_defines.h>
#include <hip/amd_detail/amd_device_functions.h>

#if defined(__HIPKFD_HIP_CLANG__)

#define __HIPKFD_WDEV__ static __device__ inline __attribute__((always_inline))

/* warpSize: 64 on every target hipkfd supports (gfx90a, gfx942); the device pass takes the
 * compiler's value so a wave32 target would get 32. */
#if defined(__AMDGCN_WAVEFRONT_SIZE__)
#define __HIPKFD_WAVE_SIZE __AMDGCN_WAVEFRONT_SIZE__
#elif defined(__AMDGCN_WAVEFRONT_SIZE)
#define __HIPKFD_WAVE_SIZE __AMDGCN_WAVEFRONT_SIZE
#else
#define __HIPKFD_WAVE_SIZE 64
#endif
static constexpr int warpSize = __HIPKFD_WAVE_SIZE;

/* ---- Vote and ballot ---- */
__HIPKFD_WDEV__ unsigned long long __ballot(int predicate) {
#if __HIPKFD_WAVE_SIZE == 64
  return __builtin_amdgcn_ballot_w64(predicate != 0);
#else
  return __builtin_amdgcn_ballot_w32(predicate != 0);
#endif
}
__HIPKFD_WDEV__ unsigned long long __ballot64(int predicate) { return __ballot(predicate); }
__HIPKFD_WDEV__ unsigned long long __activemask(void) { return __ballot(1); }
__HIPKFD_WDEV__ int __all(int predicate) { return __ballot(predicate) == __activemask(); }
__HIPKFD_WDEV__ int __any(int predicate) { return __ballot(predicate) != 0; }

/* ---- Shuffles ----
 * width divides the wave into independent segments of `width` lanes (a power of two). */
__HIPKFD_WDEV__ int __hipkfd_bpermute(int lane, int v) {
  return __builtin_amdgcn_ds_bpermute(lane << 2, v);
}

/* Moving any 4- or 8-byte trivially copyable value between lanes as 32-bit pieces, chosen by
 * size with a specialisation (the headers stay valid C++14). */
template <unsigned int Size> struct __hipkfd_lane_io;
template <> struct __hipkfd_lane_io<4> {
  typedef unsigned int bits_t;
  template <class T> static __device__ inline T bpermute(int lane, T v) {
    return __builtin_bit_cast(T, __hipkfd_bpermute(lane, __builtin_bit_cast(int, v)));
  }
  template <class T> static __device__ inline T readlane(T v, int lane) {
    return __builtin_bit_cast(T, __builtin_amdgcn_readlane(__builtin_bit_cast(int, v), lane));
  }
};
template <> struct __hipkfd_lane_io<8> {
  typedef unsigned long long bits_t;
  struct pair {
    int lo, hi;
  };
  template <class T> static __device__ inline T bpermute(int lane, T v) {
    pair p = __builtin_bit_cast(pair, v);
    p.lo = __hipkfd_bpermute(lane, p.lo);
    p.hi = __hipkfd_bpermute(lane, p.hi);
    return __builtin_bit_cast(T, p);
  }
  template <class T> static __device__ inline T readlane(T v, int lane) {
    pair p = __builtin_bit_cast(pair, v);
    p.lo = __builtin_amdgcn_readlane(p.lo, lane);
    p.hi = __builtin_amdgcn_readlane(p.hi, lane);
    return __builtin_bit_cast(T, p);
  }
};

template <class T>
__HIPKFD_WDEV__ T __hipkfd_shuffle_from(int lane, T var) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "shuffles move 32- or 64-bit values");
  return __hipkfd_lane_io<sizeof(T)>::bpermute(lane, var);
}

/* Source lane formulas (CUDA semantics):
 *   __shfl      segment base + (srcLane mod width)
 *   __shfl_up   self - delta, or self if that leaves the segment
 *   __shfl_down self + delta, or self if that leaves the segment
 *   __shfl_xor  self ^ laneMask, or self if that lands in a later segment */
__HIPKFD_WDEV__ int __hipkfd_lane_shfl(int src_lane, int width) {
  int self = (int)__lane_id();
  return (self & ~(width - 1)) + (src_lane & (width - 1));
}
__HIPKFD_WDEV__ int __hipkfd_lane_up(unsigned int delta, int width) {
  int self = (int)__lane_id();
  int src = self - (int)delta;
  return src < (self & ~(width - 1)) ? self : src;
}
__HIPKFD_WDEV__ int __hipkfd_lane_down(unsigned int delta, int width) {
  int self = (int)__lane_id();
  return (self & (width - 1)) + (int)delta >= width ? self : self + (int)delta;
}
__HIPKFD_WDEV__ int __hipkfd_lane_xor(int lane_mask, int width) {
  int self = (int)__lane_id();
  int src = self ^ lane_mask;
  return src >= ((self + width) & ~(width - 1)) ? self : src;
}

#define __HIPKFD_SHFL_TYPES(X)                                                             \
  X(int) X(unsigned int) X(float) X(double) X(long) X(unsigned long) X(long long)          \
  X(unsigned long long)

#define __HIPKFD_SHFL_DECL(T)                                                              \
  __HIPKFD_WDEV__ T __shfl(T var, int src_lane, int width = warpSize) {                    \
    return __hipkfd_shuffle_from(__hipkfd_lane_shfl(src_lane, width), var);                \
  }                                                                                       \
  __HIPKFD_WDEV__ T __shfl_up(T var, unsigned int delta, int width = warpSize) {           \
    return __hipkfd_shuffle_from(__hipkfd_lane_up(delta, width), var);                     \
  }                                                                                       \
  __HIPKFD_WDEV__ T __shfl_down(T var, unsigned int delta, int width = warpSize) {         \
    return __hipkfd_shuffle_from(__hipkfd_lane_down(delta, width), var);                   \
  }                                                                                       \
  __HIPKFD_WDEV__ T __shfl_xor(T var, int lane_mask, int width = warpSize) {               \
    return __hipkfd_shuffle_from(__hipkfd_lane_xor(lane_mask, width), var);                \
  }
__HIPKFD_SHFL_TYPES(__HIPKFD_SHFL_DECL)

/* ---- Match ---- */
/* Values compare by their bits (as the hardware would compare registers). */
template <class T>
__HIPKFD_WDEV__ typename __hipkfd_lane_io<sizeof(T)>::bits_t __hipkfd_bits(T v) {
  return __builtin_bit_cast(typename __hipkfd_lane_io<sizeof(T)>::bits_t, v);
}
/*
 * Lanes are grouped by value one distinct value per iteration: the lowest unresolved lane
 * broadcasts its value, the lanes holding it take the ballot as their answer. The loop count is
 * the number of distinct values among the active lanes. */
template <class T>
__HIPKFD_WDEV__ unsigned long long __hipkfd_match_any(T value) {
  unsigned long long remaining = __activemask();
  unsigned long long result = 0;
  while (remaining != 0) {
    int leader = __builtin_ctzll(remaining);
    T lv = __hipkfd_shuffle_from(leader, value);
    unsigned long long same = __ballot(__hipkfd_bits(lv) == __hipkfd_bits(value));
    if (__hipkfd_bits(lv) == __hipkfd_bits(value)) result = same;
    remaining &= ~same;
  }
  return result;
}
template <class T>
__HIPKFD_WDEV__ unsigned long long __hipkfd_match_all(T value, int *pred) {
  unsigned long long active = __activemask();
  T lv = __hipkfd_shuffle_from(__builtin_ctzll(active), value);
  unsigned long long same = __ballot(__hipkfd_bits(lv) == __hipkfd_bits(value));
  *pred = same == active;
  return same == active ? active : 0ull;
}

#define __HIPKFD_MATCH_DECL(T)                                                             \
  __HIPKFD_WDEV__ unsigned long long __match_any(T value) { return __hipkfd_match_any(value); } \
  __HIPKFD_WDEV__ unsigned long long __match_all(T value, int *pred) {                     \
    return __hipkfd_match_all(value, pred);                                               \
  }
__HIPKFD_SHFL_TYPES(__HIPKFD_MATCH_DECL)

#if !defined(HIP_DISABLE_WARP_SYNC_BUILTINS)
/* The mask names the participating lanes; every one of them must be active and make the same
 * call. A lane outside the mask reads no other lane's value. */
#define __HIPKFD_CHECK_MASK(MaskT)                                                         \
  static_assert(sizeof(MaskT) == 8 && __is_integral(MaskT),                               \
                "The mask of a HIP warp _sync function must be a 64-bit integer")

/* Waits for the lanes of the mask and orders their memory accesses (lanes of a wave run in
 * lockstep; the fences give the ordering __syncwarp promises). */
template <class MaskT>
__HIPKFD_WDEV__ void __syncwarp(MaskT mask) {
  __HIPKFD_CHECK_MASK(MaskT);
  (void)mask;
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "wavefront");
  __builtin_amdgcn_wave_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "wavefront");
}
__HIPKFD_WDEV__ void __syncwarp() { __syncwarp(~0ull); }

template <class MaskT>
__HIPKFD_WDEV__ unsigned long long __ballot_sync(MaskT mask, int predicate) {
  __HIPKFD_CHECK_MASK(MaskT);
  return __ballot(predicate) & (unsigned long long)mask;
}
template <class MaskT>
__HIPKFD_WDEV__ int __all_sync(MaskT mask, int predicate) {
  __HIPKFD_CHECK_MASK(MaskT);
  unsigned long long m = (unsigned long long)mask & __activemask();
  return (__ballot(predicate) & m) == m;
}
template <class MaskT>
__HIPKFD_WDEV__ int __any_sync(MaskT mask, int predicate) {
  __HIPKFD_CHECK_MASK(MaskT);
  return (__ballot(predicate) & (unsigned long long)mask) != 0;
}
template <class MaskT, class T>
__HIPKFD_WDEV__ unsigned long long __match_any_sync(MaskT mask, T value) {
  __HIPKFD_CHECK_MASK(MaskT);
  return __match_any(value) & (unsigned long long)mask;
}
template <class MaskT, class T>
__HIPKFD_WDEV__ unsigned long long __match_all_sync(MaskT mask, T value, int *pred) {
  __HIPKFD_CHECK_MASK(MaskT);
  unsigned long long m = (unsigned long long)mask;
  unsigned long long same = __match_any(value) & m;
  *pred = same == m;
  return same == m ? m : 0ull;
}
template <class MaskT, class T>
__HIPKFD_WDEV__ T __shfl_sync(MaskT mask, T var, int src_lane, int width = warpSize) {
  __HIPKFD_CHECK_MASK(MaskT);
  (void)mask;
  return __shfl(var, src_lane, width);
}
template <class MaskT, class T>
__HIPKFD_WDEV__ T __shfl_up_sync(MaskT mask, T var, unsigned int delta, int width = warpSize) {
  __HIPKFD_CHECK_MASK(MaskT);
  (void)mask;
  return __shfl_up(var, delta, width);
}
template <class MaskT, class T>
__HIPKFD_WDEV__ T __shfl_down_sync(MaskT mask, T var, unsigned int delta, int width = warpSize) {
  __HIPKFD_CHECK_MASK(MaskT);
  (void)mask;
  return __shfl_down(var, delta, width);
}
template <class MaskT, class T>
__HIPKFD_WDEV__ T __shfl_xor_sync(MaskT mask, T var, int lane_mask, int width = warpSize) {
  __HIPKFD_CHECK_MASK(MaskT);
  (void)mask;
  return __shfl_xor(var, lane_mask, width);
}

/* ---- Warp reductions ----
 * The lanes of the mask are visited in order with v_readlane, which reads a lane's register
 * regardless of the exec mask; the mask is uniform across the participants, so the loop is
 * uniform too. Types: int, unsigned int, and (superset of HIP_ENABLE_EXTRA_WARP_SYNC_TYPES)
 * long long, unsigned long long, float, double. */
template <class T>
__HIPKFD_WDEV__ T __hipkfd_readlane(T v, int lane) {
  return __hipkfd_lane_io<sizeof(T)>::readlane(v, lane);
}
template <class T, class Op>
__HIPKFD_WDEV__ T __hipkfd_reduce(unsigned long long mask, T var, Op op) {
  unsigned long long m = __builtin_amdgcn_readfirstlane((int)mask) & 0xffffffffull;
  m |= (unsigned long long)(unsigned int)__builtin_amdgcn_readfirstlane((int)(mask >> 32)) << 32;
  if (m == 0) return var;
  int first = __builtin_ctzll(m);
  T acc = __hipkfd_readlane(var, first);
  for (m &= m - 1; m != 0; m &= m - 1) acc = op(acc, __hipkfd_readlane(var, __builtin_ctzll(m)));
  return acc;
}
struct __hipkfd_red_add { template <class T> __device__ T operator()(T a, T b) const { return a + b; } };
struct __hipkfd_red_min { template <class T> __device__ T operator()(T a, T b) const { return b < a ? b : a; } };
struct __hipkfd_red_max { template <class T> __device__ T operator()(T a, T b) const { return b > a ? b : a; } };
struct __hipkfd_red_and { template <class T> __device__ T operator()(T a, T b) const { return a & b; } };
struct __hipkfd_red_or { template <class T> __device__ T operator()(T a, T b) const { return a | b; } };
struct __hipkfd_red_xor { template <class T> __device__ T operator()(T a, T b) const { return a ^ b; } };

#define __HIPKFD_REDUCE_DECL(name, op, T)                                                  \
  template <class MaskT> __HIPKFD_WDEV__ T name(MaskT mask, T var) {                       \
    __HIPKFD_CHECK_MASK(MaskT);                                                           \
    return __hipkfd_reduce((unsigned long long)mask, var, op());                          \
  }
#define __HIPKFD_REDUCE_ARITH(T)                                                           \
  __HIPKFD_REDUCE_DECL(__reduce_add_sync, __hipkfd_red_add, T)                             \
  __HIPKFD_REDUCE_DECL(__reduce_min_sync, __hipkfd_red_min, T)                             \
  __HIPKFD_REDUCE_DECL(__reduce_max_sync, __hipkfd_red_max, T)
#define __HIPKFD_REDUCE_LOGIC(T)                                                           \
  __HIPKFD_REDUCE_DECL(__reduce_and_sync, __hipkfd_red_and, T)                             \
  __HIPKFD_REDUCE_DECL(__reduce_or_sync, __hipkfd_red_or, T)                               \
  __HIPKFD_REDUCE_DECL(__reduce_xor_sync, __hipkfd_red_xor, T)
__HIPKFD_REDUCE_ARITH(int)
__HIPKFD_REDUCE_ARITH(unsigned int)
__HIPKFD_REDUCE_ARITH(long long)
__HIPKFD_REDUCE_ARITH(unsigned long long)
__HIPKFD_REDUCE_ARITH(float)
__HIPKFD_REDUCE_ARITH(double)
__HIPKFD_REDUCE_LOGIC(int)
__HIPKFD_REDUCE_LOGIC(unsigned int)
__HIPKFD_REDUCE_LOGIC(long long)
__HIPKFD_REDUCE_LOGIC(unsigned long long)
#endif /* HIP_DISABLE_WARP_SYNC_BUILTINS */

#endif /* __HIPKFD_HIP_CLANG__ */
#endif /* HIPKFD_AMD_DETAIL_AMD_WARP_FUNCTIONS_H */
