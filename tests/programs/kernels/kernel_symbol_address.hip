// hipGetSymbolAddress / hipGetSymbolSize on __device__ and __constant__ variables (scalar, array,
// struct): the address is usable by hipMemcpy, hipMemset and as a kernel pointer argument, and a
// kernel that names the variable directly sees the same storage.
#include <hip/hip_runtime.h>
#include <string.h>
#include "../check.h"

struct pair {
  int a;
  double b;
};

__device__ int dev_scalar;
__device__ int dev_array[100];
__device__ struct pair dev_pair;
__constant__ float const_table[32];

// Reads through the names; writes through the name.
__global__ void by_name(int *out)
{
  int i = threadIdx.x;
  out[i] = dev_array[i] + dev_scalar + (int)const_table[i % 32];
  if (i == 0) {
    dev_pair.a += 1;
    dev_pair.b *= 2.0;
  }
}

// Writes through a pointer that the host got from hipGetSymbolAddress.
__global__ void by_pointer(int *arr, int n)
{
  int i = threadIdx.x;
  if (i < n)
    arr[i] = 3 * i;
}

int main()
{
  void *p_scalar = nullptr, *p_array = nullptr, *p_pair = nullptr, *p_const = nullptr;
  size_t s = 0;
  CHECK_HIP(hipGetSymbolAddress(&p_scalar, HIP_SYMBOL(dev_scalar)));
  CHECK_HIP(hipGetSymbolAddress(&p_array, HIP_SYMBOL(dev_array)));
  CHECK_HIP(hipGetSymbolAddress(&p_pair, HIP_SYMBOL(dev_pair)));
  CHECK_HIP(hipGetSymbolAddress(&p_const, HIP_SYMBOL(const_table)));
  CHECK(p_scalar && p_array && p_pair && p_const);
  CHECK(p_scalar != p_array && p_array != p_pair && p_pair != p_const);
  CHECK_HIP(hipGetSymbolSize(&s, HIP_SYMBOL(dev_scalar)));
  CHECK(s == sizeof(int));
  CHECK_HIP(hipGetSymbolSize(&s, HIP_SYMBOL(dev_array)));
  CHECK(s == 100 * sizeof(int));
  CHECK_HIP(hipGetSymbolSize(&s, HIP_SYMBOL(dev_pair)));
  CHECK(s == sizeof(struct pair));
  CHECK_HIP(hipGetSymbolSize(&s, HIP_SYMBOL(const_table)));
  CHECK(s == 32 * sizeof(float));
  // Asking twice gives the same address.
  void *again = nullptr;
  CHECK_HIP(hipGetSymbolAddress(&again, HIP_SYMBOL(dev_array)));
  CHECK(again == p_array);

  // Fill through the addresses with plain memory calls.
  int seven = 7;
  CHECK_HIP(hipMemcpy(p_scalar, &seven, sizeof(int), hipMemcpyHostToDevice));
  hipLaunchKernelGGL(by_pointer, dim3(1), dim3(128), 0, 0, (int *)p_array, 100);
  CHECK_HIP(hipGetLastError());
  float table[32];
  for (int i = 0; i < 32; i++)
    table[i] = (float)(i * 100);
  CHECK_HIP(hipMemcpy(p_const, table, sizeof(table), hipMemcpyHostToDevice));
  struct pair pr = {10, 1.25};
  CHECK_HIP(hipMemcpy(p_pair, &pr, sizeof(pr), hipMemcpyHostToDevice));

  int *out;
  CHECK_HIP(hipMalloc(&out, 100 * sizeof(int)));
  hipLaunchKernelGGL(by_name, dim3(1), dim3(100), 0, 0, out);
  CHECK_HIP(hipGetLastError());
  int h[100];
  CHECK_HIP(hipMemcpy(h, out, sizeof(h), hipMemcpyDeviceToHost));
  for (int i = 0; i < 100; i++)
    if (h[i] != 3 * i + 7 + (i % 32) * 100) {
      fprintf(stderr, "out[%d] = %d\n", i, h[i]);
      return 1;
    }
  // The kernel's writes through the name are visible through the address and through the symbol.
  struct pair back;
  CHECK_HIP(hipMemcpy(&back, p_pair, sizeof(back), hipMemcpyDeviceToHost));
  CHECK(back.a == 11 && back.b == 2.5);
  memset(&back, 0, sizeof(back));
  CHECK_HIP(hipMemcpyFromSymbol(&back, HIP_SYMBOL(dev_pair), sizeof(back), 0,
                                hipMemcpyDeviceToHost));
  CHECK(back.a == 11 && back.b == 2.5);

  // hipMemset on a symbol's address, read back by symbol.
  CHECK_HIP(hipMemset(p_array, 0, 100 * sizeof(int)));
  int arr[100];
  CHECK_HIP(hipMemcpyFromSymbol(arr, HIP_SYMBOL(dev_array), sizeof(arr), 0,
                                hipMemcpyDeviceToHost));
  for (int i = 0; i < 100; i++)
    CHECK(arr[i] == 0);

  // The address belongs to device memory.
  hipPointerAttribute_t a;
  CHECK_HIP(hipPointerGetAttributes(&a, p_array));
  CHECK(a.device == 0);

  // Something that is not a registered symbol.
  int host_var = 0;
  void *bad = nullptr;
  CHECK(hipGetSymbolAddress(&bad, (const void *)&host_var) != hipSuccess);
  CHECK(hipGetSymbolSize(&s, (const void *)&host_var) != hipSuccess);
  (void)hipGetLastError();
  CHECK_HIP(hipFree(out));
  printf("PASSED\n");
  return 0;
}
