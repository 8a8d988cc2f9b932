// Warp cross-lane functions: vote, ballot, active mask, match, shuffles with widths for every
// documented type, _sync variants, warp reductions ("Warp cross-lane functions").
// EXPECT-ASM: ds_bpermute_b32
// EXPECT-ASM: v_readlane_b32
// EXPECT-ASM: v_mbcnt_hi_u32_b32
#include <hip/hip_runtime.h>

template <class T> __device__ T shuffles(T v) {
  T r = __shfl(v, 5) + __shfl(v, 3, 16) + __shfl_up(v, 1u) + __shfl_up(v, 2u, 8) +
        __shfl_down(v, 1u) + __shfl_down(v, 4u, 32) + __shfl_xor(v, 1) + __shfl_xor(v, 7, 8);
  r += __shfl_sync(~0ull, v, 2) + __shfl_up_sync(~0ull, v, 1u) + __shfl_down_sync(~0ull, v, 1u, 16) +
       __shfl_xor_sync(~0ull, v, 3);
  return r;
}

__global__ void warp_kernel(const int *in, long long *out) {
  const int lane = (int)__lane_id();
  int v = in[threadIdx.x];
  unsigned long long b = __ballot(v > 0) ^ __activemask() ^ __ballot64(lane & 1);
  int votes = __all(v > -100) + __any(v == 7);
  votes += __all_sync(~0ull, v > 0) + __any_sync(0xffffull, v < 0);
  b ^= __ballot_sync(~0ull, v & 1);
  long long s = shuffles(v) + shuffles(0u + v) + (long long)shuffles((float)v) +
                (long long)shuffles((double)v) + shuffles((long long)v) +
                (long long)shuffles((unsigned long long)v) + shuffles((long)v) +
                (long long)shuffles((unsigned long)v);
  int pred = 0;
  b ^= __match_any(v) ^ __match_all(v, &pred) ^ __match_any((float)v) ^ __match_any((double)v);
  b ^= __match_any_sync(~0ull, (long long)v) ^ __match_all_sync(~0ull, v, &pred);
  s += __reduce_add_sync(~0ull, v) + __reduce_min_sync(~0ull, v) + __reduce_max_sync(~0ull, v);
  s += __reduce_add_sync(0xffull, 1u) + __reduce_and_sync(~0ull, 7u) + __reduce_or_sync(~0ull, 1u) +
       __reduce_xor_sync(~0ull, (unsigned)v);
  s += (long long)__reduce_add_sync(~0ull, 1.5f) + (long long)__reduce_max_sync(~0ull, 2.5) +
       __reduce_add_sync(~0ull, (long long)v) + (long long)__reduce_or_sync(~0ull, 3ull);
  out[threadIdx.x] = s + (long long)b + votes + pred + lane + warpSize;
}

int launch(const int *in, long long *out) {
  warp_kernel<<<1, 128>>>(in, out);
  return 0;
}
