// Minimal reproducer of the -O0 device printf hang on kfdsim (tests/amd/FINDINGS.md).
// argv[1] is a sequence of steps, each followed by hipDeviceSynchronize:
//   l  an -O0 kernel with a local array on the null stream
//   S  the same kernel on a new stream, then hipStreamDestroy
//   p  device printf from two workgroups on the null stream
// "ppp", "lp", "Sp", "llp", "SSp" pass; "lSp" never returns from the last step: both waves
// wait for the hostcall reply after raising the hostcall doorbell's interrupt.
#include <hip/hip_runtime.h>

#include <stdio.h>

__global__ void say(int tag)
{
  if (threadIdx.x < 1)
    printf("hello %d %d\n", (int)blockIdx.x, tag);
}

__global__ void local_array(int *out, int k)
{
  int a[64];
  for (int i = 0; i < 64; i++)
    a[i] = i * k;
  out[threadIdx.x] = a[(threadIdx.x + k) & 63];
}

int main(int argc, char **argv)
{
  int *d;
  if (hipMalloc((void **)&d, 4096) != hipSuccess)
    return 1;
  const char *seq = argc > 1 ? argv[1] : "lSp";
  for (int i = 0; seq[i]; i++) {
    hipStream_t s = 0;
    if (seq[i] == 'S') {
      if (hipStreamCreate(&s) != hipSuccess)
        return 1;
      hipLaunchKernelGGL(local_array, dim3(1), dim3(64), 0, s, d, 3);
      if (hipStreamSynchronize(s) != hipSuccess || hipStreamDestroy(s) != hipSuccess)
        return 1;
    } else if (seq[i] == 'l') {
      hipLaunchKernelGGL(local_array, dim3(1), dim3(64), 0, 0, d, 3);
    } else {
      hipLaunchKernelGGL(say, dim3(2), dim3(64), 0, 0, i);
    }
    hipError_t e = hipDeviceSynchronize();
    fprintf(stderr, "step %d '%c': %s\n", i, seq[i], hipGetErrorString(e));
    if (e != hipSuccess)
      return 1;
  }
  printf("PASSED\n");
  return 0;
}
