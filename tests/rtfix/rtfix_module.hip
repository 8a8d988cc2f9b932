// A small module for tests/rtfix, loaded with hipModuleLoad.
#include <hip/hip_runtime.h>

extern "C" __global__ void add_one(int *p) { p[threadIdx.x] += 1; }
