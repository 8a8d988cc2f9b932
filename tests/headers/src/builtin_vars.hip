// Index built-ins, warpSize, qualifiers, launch syntax (HIP C++ language extensions:
// "HIP qualifiers", "Built-in constants", "Calling __global__ functions").
// EXPECT-ASM: \.amdhsa_kernel .*index_kernel
// EXPECT-ASM: \.amdhsa_next_free_vgpr
#include <hip/hip_runtime.h>

__device__ int device_counter;
__constant__ float scale_table[16];
__managed__ int managed_flag;

__device__ __noinline__ unsigned int linear_id() {
  return (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
}
__host__ __device__ __forceinline__ constexpr int round_up(int n, int m) { return (n + m - 1) / m * m; }

__global__ void __launch_bounds__(256) index_kernel(unsigned int *out) {
  const unsigned int gid = threadIdx.x + blockIdx.x * blockDim.x;
  dim3 b = blockDim;
  dim3 g = gridDim;
  uint3 t = threadIdx;
  uint3 bi = blockIdx;
  out[gid] = linear_id() + b.x * g.y + t.z + bi.y + warpSize + round_up(3, 4) +
             hipThreadIdx_y + hipBlockIdx_z + hipBlockDim_y + hipGridDim_z;
  out[gid] += (unsigned int)(scale_table[gid % 16] * 2.0f) + device_counter + managed_flag;
}

__global__ void __launch_bounds__(128, 2) bounded_kernel(float *__restrict__ out) {
  out[threadIdx.x] = (float)threadIdx.x;
}

extern __shared__ float dynamic_smem[];
__global__ void dynamic_shared_kernel(float *out) {
  dynamic_smem[threadIdx.x] = (float)threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = dynamic_smem[blockDim.x - 1 - threadIdx.x];
}

__global__ void hip_dynamic_shared_kernel(int *out) {
  HIP_DYNAMIC_SHARED(int, buf)
  buf[threadIdx.x] = 1;
  __syncthreads();
  out[threadIdx.x] = buf[0];
}

template <typename T, int N> __global__ void template_kernel(T *out) { out[threadIdx.x] = (T)N; }

__global__ void no_arg_kernel() {}

int launch_all(unsigned int *u, float *f, int *i, hipStream_t stream) {
  index_kernel<<<dim3(4, 2, 1), dim3(64, 2, 2)>>>(u);
  bounded_kernel<<<1, 128, 0, stream>>>(f);
  dynamic_shared_kernel<<<1, 64, 64 * sizeof(float), stream>>>(f);
  hipLaunchKernelGGL(hip_dynamic_shared_kernel, dim3(1), dim3(64), 64 * sizeof(int), stream, i);
  hipLaunchKernelGGL(HIP_KERNEL_NAME(template_kernel<int, 3>), dim3(1), dim3(32), 0, 0, i);
  template_kernel<float, 2><<<1, 32>>>(f);
  hipLaunchKernelGGL(no_arg_kernel, dim3(1), dim3(1), 0, 0);
  return round_up(5, 4);
}
