// hipLimitPrintfFifoSize against the buffered-printf buffer (-mprintf-kind=buffered): the
// buffer is made with the size set before the first such kernel, a printf that no longer fits
// fails (returns -1) instead of writing past it, hipDeviceGetLimit answers the buffer's real
// size, and the size cannot change once the buffer exists (CUDA: cudaErrorInvalidValue).
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <hip/hip_runtime.h>
#include <stdio.h>
#include <string.h>

#define HIP_OK(expr) cr_assert_eq((expr), hipSuccess, "%s", #expr)

__global__ void print_many(int n, int *ok)
{
  int good = 0;
  for (int i = 0; i < n; i++)
    good += printf("v %d\n", i) == 0;
  *ok = good;
}

static void redirect(void) { cr_redirect_stdout(); }

// Lines on the redirected stdout, each "v <i>\n" with i counting up from 0.
static int count_lines(void)
{
  FILE *f = cr_get_redirected_stdout();
  char line[64];
  int n = 0;
  while (fgets(line, sizeof(line), f)) {
    int v = -1;
    cr_assert_eq(sscanf(line, "v %d", &v), 1, "unexpected line '%s'", line);
    cr_assert_eq(v, n, "line %d says %d", n, v);
    n++;
  }
  return n;
}

Test(printf_limit, small_buffer_holds_what_fits, .init = redirect)
{
  const int calls = 1000;
  int *ok = nullptr, h_ok = -1;
  size_t v = 0;
  HIP_OK(hipDeviceSetLimit(hipLimitPrintfFifoSize, 4096));
  HIP_OK(hipMalloc(&ok, sizeof(int)));
  print_many<<<1, 1>>>(calls, ok);
  HIP_OK(hipGetLastError());
  HIP_OK(hipMemcpy(&h_ok, ok, sizeof(int), hipMemcpyDeviceToHost));
  fflush(stdout);
  // Each frame is at least a 4-byte control word, an 8-byte format hash and an 8-byte argument:
  // 4096 bytes hold fewer than 1000 of them, but some.
  cr_assert(h_ok > 0 && h_ok < calls && h_ok * 20 <= 4096, "%d printf calls fitted", h_ok);
  cr_assert_eq(count_lines(), h_ok, "every accepted printf printed, nothing else");
  HIP_OK(hipDeviceGetLimit(&v, hipLimitPrintfFifoSize));
  cr_assert_eq(v, 4096u);
  HIP_OK(hipFree(ok));
}

Test(printf_limit, size_fixed_once_the_buffer_exists, .init = redirect)
{
  int *ok = nullptr, h_ok = -1;
  size_t v = 0;
  HIP_OK(hipMalloc(&ok, sizeof(int)));
  print_many<<<1, 1>>>(3, ok);
  HIP_OK(hipMemcpy(&h_ok, ok, sizeof(int), hipMemcpyDeviceToHost));
  cr_assert_eq(h_ok, 3);
  HIP_OK(hipDeviceGetLimit(&v, hipLimitPrintfFifoSize));
  cr_assert_eq(v, (size_t)4 << 20, "the default buffer is 4 MiB");
  cr_assert_eq(hipDeviceSetLimit(hipLimitPrintfFifoSize, (size_t)8 << 20), hipErrorInvalidValue);
  HIP_OK(hipDeviceSetLimit(hipLimitPrintfFifoSize, (size_t)4 << 20)); // the same size is fine
  HIP_OK(hipDeviceGetLimit(&v, hipLimitPrintfFifoSize));
  cr_assert_eq(v, (size_t)4 << 20);
  // The buffer outlives hipDeviceReset, so the answer stays its size.
  HIP_OK(hipDeviceReset());
  HIP_OK(hipDeviceGetLimit(&v, hipLimitPrintfFifoSize));
  cr_assert_eq(v, (size_t)4 << 20);
  HIP_OK(hipMalloc(&ok, sizeof(int)));
  print_many<<<1, 1>>>(2, ok);
  HIP_OK(hipMemcpy(&h_ok, ok, sizeof(int), hipMemcpyDeviceToHost));
  cr_assert_eq(h_ok, 2);
  fflush(stdout);
  cr_assert_stdout_eq_str("v 0\nv 1\nv 2\nv 0\nv 1\n", "both kernels' lines, across the reset");
  HIP_OK(hipFree(ok));
}
