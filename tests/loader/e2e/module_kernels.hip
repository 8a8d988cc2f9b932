// Kernels loaded with hipModuleLoad* (compiled device-only at build time).
#include <hip/hip_runtime.h>

__device__ int module_counter = 5;
__device__ float module_scale[4] = {1.0f, 2.0f, 3.0f, 4.0f};

extern "C" __global__ void axpy(float a, const float *x, float *y, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i] * module_scale[1];
}

// Records the geometry a partial last work-group sees (hipExtModuleLaunchKernel).
extern "C" __global__ void count_items(int *out)
{
  atomicAdd(&out[0], 1);
  if (threadIdx.x == 0)
    atomicAdd(&out[1], 1);
  if (blockIdx.x == gridDim.x - 1 && threadIdx.x == 0)
    out[2] = blockDim.x;
  out[3] = module_counter;
}
