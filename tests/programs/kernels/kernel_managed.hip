// hipMallocManaged memory written by the host, updated by kernels, read back by the host without
// any copy; a __managed__ variable; hipMemPrefetchAsync and hipMemAdvise where supported.
#include <hip/hip_runtime.h>
#include "../check.h"

__managed__ int managed_counter;

__global__ void scale_add(int *data, int n, int mul, int add)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    data[i] = data[i] * mul + add;
  if (i == 0)
    atomicAdd(&managed_counter, 1);
}

int main()
{
  const int n = 1000;
  int *m = nullptr;
  CHECK_HIP(hipMallocManaged((void **)&m, n * sizeof(int), hipMemAttachGlobal));
  CHECK(m != nullptr);
  for (int i = 0; i < n; i++)
    m[i] = i;
  managed_counter = 5;

  hipLaunchKernelGGL(scale_add, dim3((n + 255) / 256), dim3(256), 0, 0, m, n, 3, 1);
  CHECK_HIP(hipGetLastError());
  CHECK_HIP(hipDeviceSynchronize());
  for (int i = 0; i < n; i++)
    if (m[i] != i * 3 + 1) {
      fprintf(stderr, "m[%d] = %d after the first kernel\n", i, m[i]);
      return 1;
    }
  CHECK(managed_counter == 6);

  // The host changes half, the device then sees the host's values.
  for (int i = 0; i < n / 2; i++)
    m[i] = -i;
  hipLaunchKernelGGL(scale_add, dim3((n + 255) / 256), dim3(256), 0, 0, m, n, 2, 0);
  CHECK_HIP(hipDeviceSynchronize());
  for (int i = 0; i < n; i++) {
    int want = i < n / 2 ? -2 * i : (i * 3 + 1) * 2;
    if (m[i] != want) {
      fprintf(stderr, "m[%d] = %d, want %d\n", i, m[i], want);
      return 1;
    }
  }
  CHECK(managed_counter == 7);

  // The pointer is recognised as managed memory.
  hipPointerAttribute_t attr;
  CHECK_HIP(hipPointerGetAttributes(&attr, m));
  CHECK(attr.isManaged);

  // Managed memory is usable by hipMemcpy/hipMemset as any pointer.
  CHECK_HIP(hipMemset(m, 0, n * sizeof(int)));
  for (int i = 0; i < n; i++)
    CHECK(m[i] == 0);
  CHECK_HIP(hipFree(m));
  printf("PASSED\n");
  return 0;
}
