// Integer intrinsics, timers, lane id, cross-lane data movement ("Timer functions" and the
// integer intrinsics of HIP's device API).
// EXPECT-ASM: s_memtime|s_getreg_b32
// EXPECT-ASM: s_memrealtime
// EXPECT-ASM: v_bfrev_b32
// EXPECT-ASM: v_bcnt_u32_b32
#include <hip/hip_runtime.h>

__global__ void intrinsics_kernel(const unsigned int *in, unsigned long long *out) {
  unsigned int x = in[threadIdx.x];
  long long start = clock64();
  clock_t c0 = clock();
  long long w = wall_clock64();
  unsigned long long r = __popc(x) + __popcll(0ull + x) + (unsigned)__clz((int)x) +
                         (unsigned)__clzll((long long)x) + (unsigned)__ffs((int)x) +
                         (unsigned)__ffs(x) + (unsigned)__ffsll((long long)x) +
                         (unsigned)__ffsll(0ull + x) + __brev(x) + __brevll(0ull + x) +
                         __byte_perm(x, 0x01234567u, 0x5140u) + (unsigned)__mul24((int)x, 3) +
                         __umul24(x, 5u) + (unsigned)__mulhi((int)x, 7) + __umulhi(x, 9u) +
                         (unsigned long long)__mul64hi((long long)x, 11) +
                         __umul64hi(0ull + x, 13ull) + __funnelshift_l(x, 1u, 3u) +
                         __funnelshift_lc(x, 1u, 40u) + __funnelshift_r(x, 1u, 3u) +
                         __funnelshift_rc(x, 1u, 40u) + (unsigned)__hadd((int)x, 1) +
                         (unsigned)__rhadd((int)x, 1) + __uhadd(x, 1u) + __urhadd(x, 1u) +
                         __sad((int)x, 3, 1u) + __usad(x, 3u, 1u) + __bitextract_u32(x, 4u, 8u) +
                         __bitextract_u64(0ull + x, 4u, 8u) + __bitinsert_u32(x, 5u, 2u, 3u) +
                         __bitinsert_u64(0ull + x, 5ull, 2u, 3u) + __fns32(0ull + x, 0u, 2) +
                         __fns64(0ull + x, 3u, -1) + __lane_id() + __smid() +
                         (unsigned)__hip_ds_bpermute(4, (int)x) + (unsigned)__hip_ds_permute(4, (int)x) +
                         (unsigned)__hip_ds_swizzle((int)x, 0x1f) +
                         (unsigned)__hip_move_dpp((int)x, 0x111, 0xf, 0xf, false) +
                         (unsigned)__hip_ds_bpermutef(4, 1.0f) + __ldg(&in[0]) + __clz(x) +
                         __lastbit_u32_u32(x) + __lastbit_u32_u64(0ull + x);
  __syncwarp();
  __syncwarp(~0ull);
  long long stop = clock64();
  out[threadIdx.x] = r + (unsigned long long)(stop - start) + (unsigned long long)c0 +
                     (unsigned long long)w;
}

int launch(const unsigned int *in, unsigned long long *out) {
  intrinsics_kernel<<<1, 64>>>(in, out);
  return 0;
}
