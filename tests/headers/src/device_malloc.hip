// Device-side malloc/free (clang's HIP wrapper maps them to ockl's __ockl_dm_alloc/dealloc when
// hip_version.h reports HIP >= 4.5; the runtime provides the heap through a hidden argument) and
// the legacy hipLaunchParm first parameter.
// EXPECT-ASM: hidden_heap_v1
#include <hip/hip_runtime.h>

__global__ void malloc_kernel(int **slots) {
  int *p = (int *)malloc(16 * sizeof(int));
  if (p != nullptr) p[0] = (int)threadIdx.x;
  slots[threadIdx.x] = p;
}

__global__ void free_kernel(int **slots) { free(slots[threadIdx.x]); }

__global__ void legacy_kernel(hipLaunchParm lp, int *out) { out[threadIdx.x] = lp; }

int launch(int **slots, int *out) {
  malloc_kernel<<<1, 64>>>(slots);
  free_kernel<<<1, 64>>>(slots);
  hipLaunchKernelGGL(legacy_kernel, dim3(1), dim3(64), 0, 0, 0, out);
  return 0;
}
