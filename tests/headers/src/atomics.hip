// Atomic functions at device, block and system scope, safe/unsafe floating-point atomics
// ("Atomic functions").
// EXPECT-ASM: global_atomic_add_f32|flat_atomic_add_f32
// EXPECT-ASM: global_atomic_add_f64|flat_atomic_add_f64
// EXPECT-ASM: _atomic_cmpswap
// EXPECT-ASM: _atomic_inc
// EXPECT-ASM: _atomic_dec
// EXPECT-ASM: _atomic_smax_x2|_atomic_umax_x2
#include <hip/hip_runtime.h>

template <class T> __device__ T integer_ops(T *p, T v) {
  T r = atomicAdd(p, v) + atomicSub(p, v) + atomicExch(p, v) + atomicMin(p, v) + atomicMax(p, v) +
        atomicCAS(p, v, (T)(v + 1)) + atomicAnd(p, v) + atomicOr(p, v) + atomicXor(p, v);
  r += atomicAdd_system(p, v) + atomicSub_system(p, v) + atomicExch_system(p, v) +
       atomicMin_system(p, v) + atomicMax_system(p, v) + atomicCAS_system(p, v, v) +
       atomicAnd_system(p, v) + atomicOr_system(p, v) + atomicXor_system(p, v);
  r += atomicAdd_block(p, v) + atomicSub_block(p, v) + atomicExch_block(p, v) +
       atomicMin_block(p, v) + atomicMax_block(p, v) + atomicCAS_block(p, v, v) +
       atomicAnd_block(p, v) + atomicOr_block(p, v) + atomicXor_block(p, v);
  return r;
}

template <class T> __device__ T float_ops(T *p, T v) {
  T r = atomicAdd(p, v) + atomicSub(p, v) + atomicExch(p, v) + atomicMin(p, v) + atomicMax(p, v) +
        atomicCAS(p, v, v + 1);
  r += atomicAdd_system(p, v) + atomicAdd_block(p, v) + atomicMax_system(p, v) +
       atomicMin_block(p, v);
  r += unsafeAtomicAdd(p, v) + safeAtomicAdd(p, v) + unsafeAtomicMax(p, v) + safeAtomicMin(p, v);
  return r;
}

__global__ void atomic_kernel(int *i, unsigned int *u, unsigned long *ul, long long *ll,
                              unsigned long long *ull, float *f, double *d, long long *out) {
  __shared__ float lds_f[64];
  __shared__ unsigned int lds_u[64];
  lds_f[threadIdx.x % 64] = 0.0f;
  lds_u[threadIdx.x % 64] = 0u;
  __syncthreads();
  long long r = integer_ops(i, (int)threadIdx.x) + integer_ops(u, threadIdx.x) +
                (long long)integer_ops(ul, (unsigned long)threadIdx.x) +
                integer_ops((long *)ll, (long)threadIdx.x) +
                integer_ops(ll, (long long)threadIdx.x) +
                (long long)integer_ops(ull, (unsigned long long)threadIdx.x);
  r += (long long)float_ops(f, 1.0f) + (long long)float_ops(d, 2.0);
  r += atomicInc(u, 17u) + atomicDec(u, 17u) + atomicInc_system(u, 3u) + atomicDec_block(u, 3u);
  r += (long long)unsafeAtomicAdd(&lds_f[threadIdx.x % 4], 1.0f) + atomicAdd(&lds_u[0], 1u);
  atomicAddNoRet(f, 1.0f);
  __syncthreads();
  out[threadIdx.x] = r + (long long)lds_f[0] + lds_u[0];
}

int launch(int *i, unsigned int *u, unsigned long *ul, long long *ll, unsigned long long *ull,
           float *f, double *d, long long *out) {
  atomic_kernel<<<2, 64>>>(i, u, ul, ll, ull, f, d, out);
  return 0;
}
