// Kernels for tests/greenctx, loaded with hipModuleLoad.
#include <hip/hip_runtime.h>

// out[i] = 3 * i, after `rounds` dependent updates whose result is folded in through `zero`
// (always 0, unknown to the compiler, so the loop stays): the writer is still busy when a
// consumer that failed to wait for it would start.
extern "C" __global__ void produce(int *out, int n, int rounds, unsigned zero)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  unsigned v = (unsigned)i;
  for (int r = 0; r < rounds; r++)
    v = v * 1103515245u + 12345u;
  out[i] = 3 * i + (int)(v & zero);
}

// out[i] = in[i] + 1.
extern "C" __global__ void consume(int *out, const int *in, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i] + 1;
}
