// Half-precision, bfloat16 and math-constant pieces AMD's headers provide: __half2 built from a
// scalar and its increment/decrement and ordering, the unordered packed comparisons, the
// NaN-propagating max/min, __clamp_01, __hisinf2, amd_mixed_dot, the cache-hinted loads,
// hip_bfloat16::round_to_bfloat16 and the head/tail math constants; and the headers a hiprtc
// program (__HIPCC_RTC__) sees without including them.
#include <criterion/criterion.h>
#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>
#include <hip/hip_bfloat16.h>
#include <hip/hip_math_constants.h>
#include <hip/hiprtc.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define HIP_OK(expr) cr_assert_eq((expr), hipSuccess, "%s", #expr)

enum { NCHECK = 24 };

// Each check writes 1 when it holds; the host reports the index of any that does not.
__global__ void half_checks(float *r, const __half2 *in)
{
  __half2 g = 0;                        // scalar splat
  r[0] = __low2float(g) == 0.0f && __high2float(g) == 0.0f;
  g = __half2{3, 4};
  g += 2;                               // scalar broadcast through the vector conversion
  r[1] = __hbeq2(g, __half2{5, 6});
  g++;
  r[2] = __hbeq2(g, __half2{6, 7});
  --g;
  r[3] = __hbeq2(g, __half2{5, 6});
  // Ordering as AMD defines it: < in both lanes; >= is "not <".
  r[4] = __half2{4, 7} < __half2{5, 8};
  r[5] = !(__half2{4, 9} < __half2{5, 8});
  r[6] = __half2{5, 8} >= __half2{2, 10};
  r[7] = !(__half2{3, 8} > __half2{2, 8});
  // Unordered comparisons: true where either operand is NaN.
  __half2 nan2 = in[0];                 // (NaN, 1)
  r[8] = __hbequ2(nan2, __half2{7, 1});
  r[9] = !__hbeq2(nan2, __half2{7, 1});
  __half2 lt = __hltu2(nan2, __half2{0, 0});
  r[10] = __low2float(lt) == 1.0f && __high2float(lt) == 0.0f;
  // NaN-propagating max/min against the number-preferring ones.
  __half n = __low2half(nan2), two = 2.0f;
  r[11] = __hisnan(__hmax_nan(n, two)) && __hisnan(__hmin_nan(two, n));
  r[12] = __heq(__hmax(n, two), two);
  r[13] = __heq(__hmax_nan(__half(1.5f), two), two) && __heq(__hmin_nan(__half(1.5f), two), __half(1.5f));
  r[14] = __heq(__clamp_01(__half(2.2f)), 1) && __heq(__clamp_01(__half(-2.2f)), 0) &&
          __heq(__clamp_01(__half(0.25f)), __half(0.25f));
  __half2 inf = __hisinf2(in[1]);       // (inf, 3)
  r[15] = __low2float(inf) == 1.0f && __high2float(inf) == 0.0f;
  r[16] = amd_mixed_dot(__half2{1, 3}, __half2{3, 3}, 2.0f, false) == 14.0f;
  r[17] = __hbeq2(__ldcg(in + 1), in[1]) && __heq(__ldcs(&two), two) && __ldca(&r[0]) == r[0];
  r[18] = hip_bfloat16::round_to_bfloat16(11.3f).data == 16693;
  r[19] = hip_bfloat16::round_to_bfloat16(11.3f, hip_bfloat16::truncate).data == 16692;
  r[20] = HIP_PI_HI == HIP_PI && HIP_PI_LO > 1.2e-16 && HIP_PI_LO < 1.3e-16;
  r[21] = HIP_LN2_X_1024 == 1024 * HIP_LN2;
  r[22] = HIP_SQRT_2PI == HIP_SQRT_2PI_HI;
  r[23] = 1;
}

Test(headers_half, device_half_bfloat16_constants)
{
  float *d = nullptr, h[NCHECK];
  __half2 *in = nullptr;
  __half2 hin[2] = {__half2{__half(NAN), __half(1.0f)}, __half2{__half(INFINITY), __half(3.0f)}};
  HIP_OK(hipMalloc(&d, sizeof(h)));
  HIP_OK(hipMalloc(&in, sizeof(hin)));
  HIP_OK(hipMemcpy(in, hin, sizeof(hin), hipMemcpyHostToDevice));
  HIP_OK(hipMemset(d, 0, sizeof(h)));
  half_checks<<<1, 1>>>(d, in);
  HIP_OK(hipGetLastError());
  HIP_OK(hipMemcpy(h, d, sizeof(h), hipMemcpyDeviceToHost));
  for (int i = 0; i < NCHECK; i++)
    cr_expect_eq(h[i], 1.0f, "check %d: %g", i, h[i]);
  HIP_OK(hipFree(d));
  HIP_OK(hipFree(in));
}

Test(headers_half, math_constants_on_host)
{
  // sqrt(2 pi) = 2.50662827463100050241...: the correctly rounded double.
  cr_expect_eq(HIP_SQRT_2PI, 2.5066282746310007e+0);
  cr_expect(fabs((HIP_PI_HI + HIP_PI_LO) - HIP_PI) < 2e-16);
  cr_expect_eq(HIP_LG2_X_1075, 1075 * HIP_LG2);
}

// Compiles `src` with hiprtc and the given options; returns the result.
static hiprtcResult rtc_compile(const char *src, int nopt, const char **opts, bool *log_error)
{
  hiprtcProgram p;
  cr_assert_eq(hiprtcCreateProgram(&p, src, "h.cc", 0, nullptr, nullptr), HIPRTC_SUCCESS);
  hiprtcResult r = hiprtcCompileProgram(p, nopt, opts);
  size_t n = 0;
  cr_assert_eq(hiprtcGetProgramLogSize(p, &n), HIPRTC_SUCCESS);
  char *log = (char *)calloc(n + 1, 1);
  cr_assert_eq(hiprtcGetProgramLog(p, log), HIPRTC_SUCCESS);
  *log_error = strstr(log, "error:") != nullptr;
  free(log);
  cr_assert_eq(hiprtcDestroyProgram(&p), HIPRTC_SUCCESS);
  return r;
}

// With __HIPCC_RTC__ (which hiprtc defines, as AMD's does) the runtime header brings in half
// precision, hip_bfloat16, complex numbers, math constants and cooperative groups.
Test(headers_half, rtc_program_sees_the_builtin_headers)
{
  const char *src =
      "extern \"C\" __global__ void k(float *r) {\n"
      "  __half2 h = __half2{1, 2}; h += 1;\n"
      "  hipFloatComplex c = make_hipFloatComplex(1.0f, 2.0f);\n"
      "  r[0] = __low2float(h) + hipCrealf(c) + (float)hip_bfloat16(2.0f) + (float)HIP_PI_HI;\n"
      "  r[1] = cooperative_groups::this_thread_block().size();\n"
      "}\n";
  const char *opts[] = {"-D__HIPCC_RTC__"};
  bool err = true;
  cr_expect_eq(rtc_compile(src, 1, opts, &err), HIPRTC_SUCCESS);
  cr_expect(!err, "the builtin headers are not all visible");
}
