#include "prelude.h"
extern "C" __global__ void vadd(const float *a, const float *b, float *c, int n) {
  int i = bid_x() * bdim_x() + tid_x();
  if (i < n) c[i] = a[i] + b[i];
}
extern "C" __global__ void grid_stride(const double *x, double *y, double alpha, int n) {
  for (int i = bid_x() * bdim_x() + tid_x(); i < n; i += bdim_x() * gdim_x())
    y[i] = alpha * x[i] + y[i] * 0.5;
}
extern "C" __global__ void lds_reduce(const int *in, int *out) {
  __shared__ int s[256];
  int t = tid_x();
  s[t] = in[bid_x() * bdim_x() + t];
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  syncthreads();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
  for (int st = bdim_x() / 2; st > 0; st >>= 1) {
    if (t < st) s[t] += s[t + st];
    __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
    syncthreads();
    __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
  }
  if (t == 0) out[bid_x()] = s[0];
}
extern "C" __global__ void shuffles(const int *in, int *out, unsigned long long *ballots) {
  int t = tid_x();
  int v = in[t];
  int up = __builtin_amdgcn_ds_bpermute(((t + 1) & 63) << 2, v);
  unsigned long long b = __builtin_amdgcn_uicmp(v & 1, 0, 33);
  out[t] = up + __builtin_amdgcn_readfirstlane(v);
  if (t == 0) ballots[0] = b;
}
extern "C" __global__ void atomics(int *counter, unsigned *mx, float *fsum, unsigned long long *u64) {
  int t = bid_x() * bdim_x() + tid_x();
  __hip_atomic_fetch_add(counter, 1, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  __hip_atomic_fetch_max(mx, (unsigned)t, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  __hip_atomic_fetch_add(fsum, 1.0f, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  unsigned long long old = __hip_atomic_fetch_add(u64, 3ull, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  if (old == 0xffffffffull) counter[1] = 7;
}
__device__ __attribute__((noinline)) int walk(int *a, int n, int k) {
  int s = 0;
  for (int i = 0; i < n; i++) s += a[(i * k) % n];
  return s;
}
extern "C" __global__ void scratch_use(const int *in, int *out, int n) {
  int a[32];
  int t = bid_x() * bdim_x() + tid_x();
  for (int i = 0; i < 32; i++) a[i] = in[t] * i + (i ^ t);
  out[t] = walk(a, n, in[t] & 31);
}
extern "C" __global__ void div64(const long long *a, const long long *b, long long *q, unsigned long long *r) {
  int t = bid_x() * bdim_x() + tid_x();
  q[t] = a[t] / b[t];
  r[t] = (unsigned long long)a[t] % (unsigned long long)b[t];
}
extern "C" __global__ void sgemm(int M, int N, int K, float alpha, const float *A, const float *B, float beta, float *C) {
  __shared__ float As[16][16], Bs[16][16];
  int tx = tid_x() & 15, ty = tid_x() >> 4;
  int row = bid_x() / ((N + 15) / 16) * 16 + ty, col = bid_x() % ((N + 15) / 16) * 16 + tx;
  float acc = 0.0f;
  for (int k0 = 0; k0 < K; k0 += 16) {
    As[ty][tx] = (row < M && k0 + tx < K) ? A[row * K + k0 + tx] : 0.0f;
    Bs[ty][tx] = (col < N && k0 + ty < K) ? B[(k0 + ty) * N + col] : 0.0f;
    syncthreads();
    for (int k = 0; k < 16; k++) acc += As[ty][k] * Bs[k][tx];
    syncthreads();
  }
  if (row < M && col < N) C[row * N + col] = alpha * acc + beta * C[row * N + col];
}
// Arithmetic-bound loop for bench/isa_throughput (also decoded by the decoder test).
extern "C" __global__ void alu_loop(float *out, int iters) {
  float a = tid_x() * 0.001f, b = 1.0001f, c = 0.5f;
  for (int i = 0; i < iters; i++) {
    a = a * b + c;
    c = c * 0.999f + a * 1e-6f;
  }
  out[bid_x() * bdim_x() + tid_x()] = a + c;
}
