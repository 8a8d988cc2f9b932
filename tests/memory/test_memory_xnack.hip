// HSA_XNACK, as ROCr reads it at start-up: 1 turns recoverable page faults on for the process, and
// kernels then use plain system memory (malloc, aligned_alloc) that a hint or prefetch made an
// SVM range; 0 leaves such memory out of the GPU's reach (a fault). Each Test runs in its own process
// (Criterion), which sets the variable before its first HIP call.
#include <criterion/criterion.h>
#include <hip/hip_runtime.h>

#include <stdlib.h>

#define HIP_OK(expr) cr_assert_eq((expr), hipSuccess, "%s", #expr)

enum { N = 4096 };

__global__ void add_ten(int *p, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] += 10;
}

static int *filled(int v)
{
  int *p = static_cast<int *>(aligned_alloc(4096, N * sizeof(int)));
  cr_assert_not_null(p);
  for (int i = 0; i < N; i++)
    p[i] = v + i;
  return p;
}

Test(memory_xnack, on_kernels_use_aligned_alloc_memory_with_hints)
{
  setenv("HSA_XNACK", "1", 1);
  int *p = filled(100);
  hipStream_t s;
  HIP_OK(hipStreamCreate(&s));
  HIP_OK(hipMemAdvise(p, N * sizeof(int), hipMemAdviseSetPreferredLocation, 0));
  HIP_OK(hipMemPrefetchAsync(p, N * sizeof(int), 0, s));
  HIP_OK(hipStreamSynchronize(s));
  add_ten<<<N / 64, 64, 0, s>>>(p, N);
  HIP_OK(hipStreamSynchronize(s));
  for (int i = 0; i < N; i++)
    cr_assert_eq(p[i], 110 + i, "element %d: %d", i, p[i]);
  HIP_OK(hipStreamDestroy(s));
  free(p);
}

// A prefetch alone (no preferred location) makes malloc memory an SVM range the GPU reaches.
// (Memory with no SVM call at all would need kfdsim to create ranges on a GPU page fault, as
// amdkfd's svm_range_restore_pages does; kfdsim does not, so that is not tested here.)
Test(memory_xnack, on_kernels_use_prefetched_malloc_memory)
{
  setenv("HSA_XNACK", "1", 1);
  int *p = static_cast<int *>(malloc(N * sizeof(int)));
  cr_assert_not_null(p);
  for (int i = 0; i < N; i++)
    p[i] = -i;
  HIP_OK(hipMemPrefetchAsync(p, N * sizeof(int), 0, nullptr));
  add_ten<<<N / 64, 64>>>(p, N);
  HIP_OK(hipDeviceSynchronize());
  for (int i = 0; i < N; i++)
    cr_assert_eq(p[i], 10 - i, "element %d: %d", i, p[i]);
  free(p);
}

Test(memory_xnack, off_system_memory_faults)
{
  setenv("HSA_XNACK", "0", 1);
  int *p = filled(0);
  add_ten<<<N / 64, 64>>>(p, N);
  hipError_t e = hipDeviceSynchronize();
  cr_assert_eq(e, hipErrorIllegalAddress, "got %s", hipGetErrorName(e));
  cr_assert_eq(p[0], 0); // the GPU never wrote it
  free(p);
}
