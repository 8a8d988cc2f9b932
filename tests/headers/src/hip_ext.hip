// hip_ext.h: hipExtLaunchKernelGGL and hipExtModuleLaunchKernel declarations.
// EXPECT-ASM: \.amdhsa_kernel .*ext_kernel
#include <hip/hip_ext.h>
#include <hip/hip_runtime.h>

__global__ void ext_kernel(float *out, int n, double scale) {
  if ((int)threadIdx.x < n) out[threadIdx.x] = (float)(threadIdx.x * scale);
}

int launch(float *out, hipStream_t stream, hipEvent_t start, hipEvent_t stop) {
  hipExtLaunchKernelGGL(ext_kernel, dim3(1), dim3(64), 0, stream, start, stop, 0, out, 64, 2);
  hipError_t (*fn)(hipFunction_t, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t,
                   size_t, hipStream_t, void **, void **, hipEvent_t, hipEvent_t, uint32_t) =
      hipExtModuleLaunchKernel;
  return fn != nullptr;
}
