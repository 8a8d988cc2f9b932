// Kernels loaded through hipLibraryLoadData / hipLibraryLoadFromFile (device-only, built at
// build time): two kernels, a device variable and a managed variable.
#include <hip/hip_runtime.h>

__device__ int lib_counter = 17;
__managed__ int lib_managed = 23;

extern "C" __global__ void lib_scale(float *p, float s, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] *= s;
}

// Adds the managed value and the device variable to every element.
extern "C" __global__ void lib_add_vars(int *p, char pad, double unused)
{
  (void)pad;
  (void)unused;
  p[threadIdx.x] += lib_managed + lib_counter;
}
