// Second test corpus: kernels that pull in the device libraries (ocml math), matrix cores,
// LDS atomics, cross-lane builtins, dynamic register indexing and the GWS grid barrier.
#include "prelude.h"

extern "C" __device__ float __ocml_sin_f32(float);
extern "C" __device__ float __ocml_exp_f32(float);
extern "C" __device__ float __ocml_log_f32(float);
extern "C" __device__ float __ocml_pow_f32(float, float);
extern "C" __device__ double __ocml_sqrt_f64(double);
extern "C" __device__ double __ocml_exp_f64(double);
extern "C" __device__ float __ocml_fmod_f32(float, float);

extern "C" __global__ void math(const float *x, float *out, double *dout, int n) {
  int i = bid_x() * bdim_x() + tid_x();
  if (i >= n) return;
  float v = x[i];
  out[5 * i + 0] = __ocml_sin_f32(v);
  out[5 * i + 1] = __ocml_exp_f32(v * 0.25f);
  out[5 * i + 2] = __ocml_log_f32(v * v + 1.0f);
  out[5 * i + 3] = __ocml_pow_f32(v * v + 0.5f, 0.75f);
  out[5 * i + 4] = v / (v * v - 3.0f);
  dout[2 * i + 0] = __ocml_sqrt_f64((double)v * v + 2.0);
  dout[2 * i + 1] = __ocml_exp_f64((double)v * 0.125);
}

typedef float float16_t __attribute__((ext_vector_type(16)));
typedef float float4_t __attribute__((ext_vector_type(4)));
typedef _Float16 half4_t __attribute__((ext_vector_type(4)));

// One 32x32 tile: C = A(32x8, f16) * B(8x32, f16), layouts as the ISA guide documents them.
extern "C" __global__ void mfma_f16(const _Float16 *A, const _Float16 *B, float *C) {
  int l = tid_x();
  half4_t a, b;
  for (int j = 0; j < 4; j++) {
    a[j] = A[(l % 32) * 8 + (l / 32) * 4 + j];   // row l%32, k = 4*(l/32)+j
    b[j] = B[((l / 32) * 4 + j) * 32 + l % 32];  // k = 4*(l/32)+j, column l%32
  }
  float16_t acc = {};
  acc = __builtin_amdgcn_mfma_f32_32x32x8f16(a, b, acc, 0, 0, 0);
  for (int r = 0; r < 16; r++)
    C[(8 * (r / 4) + 4 * (l / 32) + r % 4) * 32 + l % 32] = acc[r];
}

// 16x16x4 f32: C = A(16x4) * B(4x16)
extern "C" __global__ void mfma_f32(const float *A, const float *B, float *C) {
  int l = tid_x();
  float a = A[(l % 16) * 4 + l / 16];
  float b = B[(l / 16) * 16 + l % 16];
  float4_t acc = {};
  acc = __builtin_amdgcn_mfma_f32_16x16x4f32(a, b, acc, 0, 0, 0);
  for (int r = 0; r < 4; r++)
    C[(4 * (l / 16) + r) * 16 + l % 16] = acc[r];
}

// 16x16x4 f64: C = A(16x4) * B(4x16). 64-bit results are one row per register pair: row i in
// lanes 16 * (i % 4) .. + 15, pair i / 4.
typedef double double4_t __attribute__((ext_vector_type(4)));
extern "C" __global__ void mfma_f64(const double *A, const double *B, double *C) {
  int l = tid_x();
  double a = A[(l % 16) * 4 + l / 16];
  double b = B[(l / 16) * 16 + l % 16];
  double4_t acc = {};
  acc = __builtin_amdgcn_mfma_f64_16x16x4f64(a, b, acc, 0, 0, 0);
  for (int r = 0; r < 4; r++)
    C[(4 * r + l / 16) * 16 + l % 16] = acc[r];
}

extern "C" __global__ void lds_atomics(const int *in, int *out) {
  __shared__ int hist[16];
  __shared__ unsigned mx;
  int t = tid_x();
  if (t < 16) hist[t] = 0;
  if (t == 0) mx = 0;
  syncthreads();
  __hip_atomic_fetch_add(&hist[in[t] & 15], 1, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);
  __hip_atomic_fetch_max(&mx, (unsigned)in[t], __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);
  syncthreads();
  if (t < 16) out[bid_x() * 17 + t] = hist[t];
  if (t == 0) out[bid_x() * 17 + 16] = (int)mx;
}

extern "C" __global__ void cross_lane(const int *in, int *out) {
  int t = tid_x();
  int v = in[t];
  // DPP row_shr:1 via the builtin (ctrl 0x111), rows of 16, bound_ctrl: zero at row start
  int shr = __builtin_amdgcn_update_dpp(0, v, 0x111, 0xf, 0xf, true);
  // xor-4 swizzle (bitmask mode: and 0x1f, or 0, xor 4)
  int sw = __builtin_amdgcn_ds_swizzle(v, (4 << 10) | 0x1f);
  int lane = __builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0u));
  out[3 * t + 0] = shr;
  out[3 * t + 1] = sw;
  out[3 * t + 2] = lane;
}

// A per-lane array indexed by a runtime value: register indexing at -O3, scratch at -O0.
extern "C" __global__ void dyn_index(const int *idx, int *out) {
  int t = tid_x();
  int r[8];
  for (int i = 0; i < 8; i++) r[i] = t * 10 + i;
  int k = idx[t] & 7;
  r[k] += 1000;
  out[t] = r[(k + 3) & 7] + r[k];
}

// Grid barrier through GWS (what cooperative groups' grid.sync() does): every workgroup adds
// its id, waits for all, then reads the total.
extern "C" __global__ void gws_sync(int *sum, int *seen, int nblocks) {
  int t = tid_x();
  if (t == 0) {
    __hip_atomic_fetch_add(sum, bid_x() + 1, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
    __builtin_amdgcn_fence(__ATOMIC_RELEASE, "agent");
    if (bid_x() == 0) __builtin_amdgcn_ds_gws_init(nblocks - 1, 0);
    __builtin_amdgcn_ds_gws_barrier(nblocks - 1, 0);
    __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "agent");
    seen[bid_x()] = __hip_atomic_load(sum, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  }
}

// The device library's grid barrier (what cooperative groups' grid.sync() calls): a workgroup
// barrier, one work-item per workgroup at ds_gws_barrier, another workgroup barrier. Every
// work-item then reads a value another workgroup wrote before the barrier.
extern "C" __device__ void __ockl_grid_sync(void);
extern "C" __global__ void ockl_grid(int *data, int *out, int n) {
  int rank = bid_x() * bdim_x() + tid_x();
  data[rank] = rank * 2 + 1;
  __ockl_grid_sync();
  out[rank] = data[(rank + bdim_x()) % n];
}

// Several grid barriers in a row: a workgroup released by one barrier may reach the next
// before the others have woken from the first. Each round every work-item adds its rank to a
// running value read from a neighbour workgroup.
extern "C" __global__ void ockl_grid_rounds(int *data, int *out, int n, int rounds) {
  int rank = bid_x() * bdim_x() + tid_x();
  int acc = 0;
  for (int r = 0; r < rounds; r++) {
    data[rank] = rank + r;
    __ockl_grid_sync();
    acc += data[(rank + bdim_x()) % n];
    __ockl_grid_sync();
  }
  out[rank] = acc;
}
