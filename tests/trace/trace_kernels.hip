// Kernels for tests/trace, loaded with hipModuleLoad.
#include <hip/hip_runtime.h>

// p[i] += 1 for i < n.
extern "C" __global__ void add_one(int *p, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] += 1;
}

// p[i] = 2 * p[i], with a block of LDS the trace must report.
extern "C" __global__ void twice_lds(int *p, int n)
{
  __shared__ int tile[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x] = i < n ? p[i] : 0;
  __syncthreads();
  if (i < n)
    p[i] = 2 * tile[threadIdx.x];
}
