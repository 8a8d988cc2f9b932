// Device code loaded at run time by kernel_module_api.hip through the module API. Built as a
// device-only offload bundle (gfx90a + gfx942) by tests/programs/CMakeLists.txt.
#include <hip/hip_runtime.h>

__device__ int module_bias = 5;
__device__ float module_table[16];

// out[i] = in[i] * scale + module_bias
extern "C" __global__ void mod_scale(const int *in, int *out, int scale, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i] * scale + module_bias;
}

// A mixed argument list (pointer, char, double, int) to check kernarg alignment through `extra`.
extern "C" __global__ void mod_mixed(float *out, char c, double d, int k)
{
  int i = threadIdx.x;
  if (i < 16)
    out[i] = (float)c + (float)d * k + module_table[i];
}
