// A small module for tests/api/test_api_clr_edges.hip, loaded with hipModuleLoad.
#include <hip/hip_runtime.h>

extern "C" __global__ void add_one(int *p) { p[threadIdx.x] += 1; }

__managed__ int counter = 10;
__device__ int plain_global = 5;

extern "C" __global__ void bump_counter() { counter += 1; plain_global += 2; }
