// hipMemcpyToSymbol / hipMemcpyFromSymbol on __device__ and __constant__ variables, read and
// written by a kernel in between.
#include <hip/hip_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK_HIP(call)                                                                      \
  do {                                                                                       \
    hipError_t e_ = (call);                                                                  \
    if (e_ != hipSuccess) {                                                                  \
      fprintf(stderr, "%s:%d: %s -> %d\n", __FILE__, __LINE__, #call, (int)e_);              \
      exit(1);                                                                               \
    }                                                                                        \
  } while (0)

__constant__ int coeff[4];
__device__ int table[64];

__global__ void apply(void)
{
  int i = threadIdx.x;
  table[i] = table[i] * coeff[i % 4] + coeff[3];
}

int main()
{
  int c[4] = {2, 3, 4, 100};
  int t[64], back[64];
  for (int i = 0; i < 64; i++)
    t[i] = i;
  CHECK_HIP(hipMemcpyToSymbol(HIP_SYMBOL(coeff), c, sizeof(c), 0, hipMemcpyHostToDevice));
  CHECK_HIP(hipMemcpyToSymbol(HIP_SYMBOL(table), t, sizeof(t), 0, hipMemcpyHostToDevice));
  hipLaunchKernelGGL(apply, dim3(1), dim3(64), 0, 0);
  CHECK_HIP(hipGetLastError());
  CHECK_HIP(hipMemcpyFromSymbol(back, HIP_SYMBOL(table), sizeof(back), 0,
                                hipMemcpyDeviceToHost));
  for (int i = 0; i < 64; i++)
    if (back[i] != i * c[i % 4] + c[3]) {
      fprintf(stderr, "table[%d] = %d\n", i, back[i]);
      return 1;
    }
  // A partial copy at an offset, asynchronously.
  int two[2] = {-1, -2};
  CHECK_HIP(hipMemcpyToSymbolAsync(HIP_SYMBOL(table), two, sizeof(two), 8 * sizeof(int),
                                   hipMemcpyHostToDevice, 0));
  CHECK_HIP(hipMemcpyFromSymbolAsync(back, HIP_SYMBOL(table), 4 * sizeof(int), 7 * sizeof(int),
                                     hipMemcpyDeviceToHost, 0));
  CHECK_HIP(hipDeviceSynchronize());
  // back[0] is table[7], untouched by the partial copy: 7 * coeff[7 % 4] + coeff[3].
  if (back[0] != 7 * c[3] + c[3] || back[1] != -1 || back[2] != -2) {
    fprintf(stderr, "offset copy: %d %d %d\n", back[0], back[1], back[2]);
    return 1;
  }
  // Copying past the end of the variable is refused.
  if (hipMemcpyToSymbol(HIP_SYMBOL(coeff), c, sizeof(c), 4, hipMemcpyHostToDevice) ==
      hipSuccess) {
    fprintf(stderr, "copy past the end accepted\n");
    return 1;
  }
  printf("PASSED\n");
  return 0;
}
