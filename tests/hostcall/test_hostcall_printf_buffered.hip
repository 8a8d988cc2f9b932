// Buffered device printf (-mprintf-kind=buffered): the runtime fills hidden_printf_buffer and
// prints the frames when the kernel is done, in order, with hostcall printf's formatting.
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <hip/hip_runtime.h>

#define HIP_OK(expr) cr_assert_eq((expr), hipSuccess, "%s", #expr)

__global__ void print_values(int *ret, const char *dyn)
{
  const char *null_str = nullptr;
  ret[0] = printf("int %d uint %u hex %x long %ld\n", -42, 42u, 0xbeef, -5000000000l);
  ret[1] = printf("float %.3f double %e char %c\n", 1.5f, -123.456, 'z');
  ret[2] = printf("const %s dyn %s end\n", "abc", dyn);
  ret[3] = printf("width [%5d] [%-5d] [%05d] star [%*d]\n", 7, 7, 7, 4, 9);
  ret[4] = printf("ptr %p null [%s]\n", (void *)0x1234, null_str);
  ret[5] = printf(dyn); // a format that is not a constant travels inline
}

__global__ void print_ordered(int base)
{
  // One thread: the frames are printed in the order they were reserved.
  for (int i = 0; i < 3; i++)
    printf("line %d\n", base + i);
}

static void redirect(void) { cr_redirect_stdout(); }

Test(printf_buffered, values_and_return_codes, .init = redirect)
{
  int *ret = nullptr, h[6];
  char *dyn = nullptr;
  const char text[] = "runtime text\n";
  HIP_OK(hipMalloc(&ret, sizeof(h)));
  HIP_OK(hipMalloc(&dyn, sizeof(text)));
  HIP_OK(hipMemcpy(dyn, text, sizeof(text), hipMemcpyHostToDevice));
  print_values<<<1, 1>>>(ret, dyn);
  HIP_OK(hipGetLastError());
  HIP_OK(hipMemcpy(h, ret, sizeof(h), hipMemcpyDeviceToHost));
  for (int i = 0; i < 6; i++)
    cr_assert_eq(h[i], 0, "printf %d returned %d (buffered printf returns 0)", i, h[i]);
  fflush(stdout);
  cr_assert_stdout_eq_str("int -42 uint 42 hex beef long -5000000000\n"
                          "float 1.500 double -1.234560e+02 char z\n"
                          "const abc dyn runtime text\n end\n"
                          "width [    7] [7    ] [00007] star [   9]\n"
                          "ptr 0x1234 null []\n"
                          "runtime text\n");
  HIP_OK(hipFree(ret));
  HIP_OK(hipFree(dyn));
}

Test(printf_buffered, buffer_emptied_between_kernels, .init = redirect)
{
  hipStream_t s;
  HIP_OK(hipStreamCreate(&s));
  print_ordered<<<1, 1, 0, s>>>(10);
  print_ordered<<<1, 1>>>(20);
  print_ordered<<<1, 1, 0, s>>>(30);
  HIP_OK(hipDeviceSynchronize());
  fflush(stdout);
  cr_assert_stdout_eq_str("line 10\nline 11\nline 12\nline 20\nline 21\nline 22\n"
                          "line 30\nline 31\nline 32\n");
  HIP_OK(hipStreamDestroy(s));
}
