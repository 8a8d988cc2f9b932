// Kernel-language pieces AMD's HIP headers provide and hip-tests exercise: the packed byte
// arithmetic of the old HC API (__hip_hc_add8pk and friends) and the compile-time checks of
// __launch_bounds__ (negative bounds are errors, as with AMD's compiler).
#include <criterion/criterion.h>
#include <hip/hip_runtime.h>
#include <hip/hiprtc.h>

#include <string>
#include <string.h>

#define HIP_OK(expr) cr_assert_eq((expr), hipSuccess, "%s", #expr)

__global__ void pk8(char4 *out, char4 a, char4 b)
{
  out[0] = __hip_hc_add8pk(a, b);
  out[1] = __hip_hc_sub8pk(a, b);
  out[2] = __hip_hc_mul8pk(a, b);
}

// Runs the three operations on (.w = a, .w = b), with junk in the other lanes of the inputs.
static void run_pk8(signed char a, signed char b, char4 r[3])
{
  char4 *d = nullptr;
  HIP_OK(hipMalloc(&d, 3 * sizeof(char4)));
  HIP_OK(hipMemset(d, 0x5a, 3 * sizeof(char4)));
  pk8<<<1, 1>>>(d, make_char4(7, -3, 99, a), make_char4(-128, 5, 1, b));
  HIP_OK(hipGetLastError());
  HIP_OK(hipMemcpy(r, d, 3 * sizeof(char4), hipMemcpyDeviceToHost));
  HIP_OK(hipFree(d));
}

Test(headers_lang, hc_8pk_wraps_the_w_byte)
{
  // (a, b) and the expected wrapped byte results a+b, a-b, a*b.
  const struct { signed char a, b, sum, diff, prod; } c[] = {
    {-0x70, -0x05, -0x75, -0x6b, 0x30},  // -112-5, -112+5, 560 = 0x230 -> 0x30
    {0x7f, 0x7a, -0x07, 0x05, -0x7a},    // 249 -> -7, 5, 15494 = 0x3c86 -> 0x86
    {0x20, 0x33, 0x53, -0x13, 0x60},     // 0x20 * 0x33 = 0x660 -> 0x60
    {0, 0, 0, 0, 0},
  };
  for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
    char4 r[3];
    run_pk8(c[i].a, c[i].b, r);
    cr_expect_eq(r[0].w, c[i].sum, "case %zu add: %d", i, r[0].w);
    cr_expect_eq(r[1].w, c[i].diff, "case %zu sub: %d", i, r[1].w);
    cr_expect_eq(r[2].w, c[i].prod, "case %zu mul: %d", i, r[2].w);
    for (int k = 0; k < 3; k++)
      cr_expect(r[k].x == 0 && r[k].y == 0 && r[k].z == 0, "case %zu op %d: x,y,z not 0", i, k);
  }
}

// Compiles `src` with hiprtc; returns the result and whether the log holds a compiler error.
static hiprtcResult rtc_compile(const char *src, bool *has_error)
{
  hiprtcProgram p;
  cr_assert_eq(hiprtcCreateProgram(&p, src, "lb.cc", 0, nullptr, nullptr), HIPRTC_SUCCESS);
  hiprtcResult r = hiprtcCompileProgram(p, 0, nullptr);
  size_t n = 0;
  cr_assert_eq(hiprtcGetProgramLogSize(p, &n), HIPRTC_SUCCESS);
  char *log = (char *)calloc(n + 1, 1);
  cr_assert_eq(hiprtcGetProgramLog(p, log), HIPRTC_SUCCESS);
  *has_error = strstr(log, "error:") != nullptr;
  free(log);
  cr_assert_eq(hiprtcDestroyProgram(&p), HIPRTC_SUCCESS);
  return r;
}

// Compiles `src` with hiprtc and [in] opts; returns the result and how many errors the log holds.
static hiprtcResult rtc_compile_count(const char *src, int nopts, const char **opts, int *errors)
{
  hiprtcProgram p;
  cr_assert_eq(hiprtcCreateProgram(&p, src, "count.cc", 0, nullptr, nullptr), HIPRTC_SUCCESS);
  hiprtcResult r = hiprtcCompileProgram(p, nopts, opts);
  size_t n = 0;
  cr_assert_eq(hiprtcGetProgramLogSize(p, &n), HIPRTC_SUCCESS);
  char *log = (char *)calloc(n + 1, 1);
  cr_assert_eq(hiprtcGetProgramLog(p, log), HIPRTC_SUCCESS);
  *errors = 0;
  for (const char *q = log; (q = strstr(q, "error:")) != nullptr; q++)
    (*errors)++;
  free(log);
  cr_assert_eq(hiprtcDestroyProgram(&p), HIPRTC_SUCCESS);
  return r;
}

// As AMD's hiprtc: programs see __HIPCC_RTC__ and the half/bfloat16/complex headers without an
// include, and the log reports every error (clang stops at 20 unless told otherwise); a user's
// -ferror-limit still wins.
Test(headers_lang, hiprtc_defines_hipcc_rtc_and_reports_every_error)
{
  int errors = -1;
  const char *ok_src =
      "#ifndef __HIPCC_RTC__\n#error no __HIPCC_RTC__\n#endif\n"
      "extern \"C\" __global__ void k(float *p) {\n"
      "  __half h = __float2half(p[0]); hipFloatComplex c = make_hipFloatComplex(1, 2);\n"
      "  p[0] = __half2float(h) + hipCrealf(c);\n}\n";
  cr_assert_eq(rtc_compile_count(ok_src, 0, nullptr, &errors), HIPRTC_SUCCESS);
  cr_assert_eq(errors, 0);
  std::string bad = "extern \"C\" __global__ void k() {\n";
  for (int i = 0; i < 30; i++)
    bad += "  undeclared_" + std::to_string(i) + " = 1;\n";
  bad += "}\n";
  cr_assert_eq(rtc_compile_count(bad.c_str(), 0, nullptr, &errors), HIPRTC_ERROR_COMPILATION);
  cr_assert_eq(errors, 30, "%d errors reported", errors);
  const char *limit[] = {"-ferror-limit=5"};
  cr_assert_eq(rtc_compile_count(bad.c_str(), 1, limit, &errors), HIPRTC_ERROR_COMPILATION);
  cr_assert_leq(errors, 6, "the user's limit applies: %d errors", errors);
}

Test(headers_lang, launch_bounds_rejects_negative_and_non_integer)
{
  const char *bad[] = {
    "__launch_bounds__(-1) __global__ void k(int *p) { *p = 1; }",
    "__launch_bounds__(128, -1) __global__ void k(int *p) { *p = 1; }",
    "__launch_bounds__(0) __global__ void k(int *p) { *p = 1; }",
    "__launch_bounds__(1.5) __global__ void k(int *p) { *p = 1; }",
    "__launch_bounds__(128, 1.5) __global__ void k(int *p) { *p = 1; }",
  };
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    bool err = false;
    cr_expect_eq(rtc_compile(bad[i], &err), HIPRTC_ERROR_COMPILATION, "%s", bad[i]);
    cr_expect(err, "no error in the log of %s", bad[i]);
  }
}

Test(headers_lang, launch_bounds_accepts_valid_and_dependent_bounds)
{
  const char *good =
      "template <int N> __launch_bounds__(N, 2) __global__ void k(int *p) { *p = N; }\n"
      "template __global__ void k<256>(int *);\n"
      "__launch_bounds__(1024) __global__ void j(int *p) { *p = 1; }\n";
  bool err = true;
  cr_expect_eq(rtc_compile(good, &err), HIPRTC_SUCCESS);
  cr_expect(!err, "valid bounds produced a compiler error");
}

template <int N>
__launch_bounds__(N, 1) __global__ void bounded(int *p)
{
  p[threadIdx.x] = N + (int)threadIdx.x;
}

Test(headers_lang, launch_bounded_kernel_runs)
{
  int *d = nullptr, h[128];
  HIP_OK(hipMalloc(&d, sizeof(h)));
  bounded<128><<<1, 128>>>(d);
  HIP_OK(hipGetLastError());
  HIP_OK(hipMemcpy(h, d, sizeof(h), hipMemcpyDeviceToHost));
  for (int i = 0; i < 128; i++)
    cr_expect_eq(h[i], 128 + i);
  HIP_OK(hipFree(d));
}
