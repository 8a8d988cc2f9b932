// Device printf (hostcall), assert and abort.
// EXPECT-ASM: s_trap 2
// EXPECT-ASM: hidden_hostcall_buffer
#include <hip/hip_runtime.h>
#include <cassert>
#include <cstdio>

__global__ void printf_kernel(const int *in, float f, const char *name) {
  printf("thread %d value %d float %f name %s\n", (int)threadIdx.x, in[threadIdx.x], f, name);
  printf("constant string only\n");
  assert(in[threadIdx.x] >= 0);
  if (in[threadIdx.x] == -42) abort();
}

int launch(const int *in, const char *name) {
  printf_kernel<<<1, 64>>>(in, 2.5f, name);
  return 0;
}
