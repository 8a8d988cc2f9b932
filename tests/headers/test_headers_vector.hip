// HIP vector types as AMD's headers define them: comparison with a scalar, negation only for
// signed elements, no bitwise operators on floating-point vectors, and the short unsigned type
// names (uchar, ushort, uint, ulong, ullong) of the kernel language.
#include <criterion/criterion.h>
#include <hip/hip_runtime.h>
#include <hip/hiprtc.h>
#include <stdlib.h>
#include <string.h>
#include <type_traits>

#define HIP_OK(expr) cr_assert_eq((expr), hipSuccess, "%s", #expr)

// Comparisons of a vector with a scalar, evaluated on the device: bit i of the result is
// test i. uchar is one of the kernel-language names under test.
__global__ void compare_scalar(uint *out, int4 v, uchar4 u)
{
  uint r = 0;
  r |= (uint)(int4(7, 7, 7, 7) == 7) << 0;
  r |= (uint)(v == 7) << 1;          // v is (7, 7, 7, 8): not all lanes equal
  r |= (uint)(v != 7) << 2;
  r |= (uint)(7 == int4(7)) << 3;
  r |= (uint)(u == (uchar)200) << 4; // u is (200, 200, 200, 200)
  r |= (uint)((uchar)1 != u) << 5;
  *out = r;
}

Test(headers_vector, compare_with_scalar_on_device)
{
  uint *d = nullptr, h = 0;
  HIP_OK(hipMalloc(&d, sizeof(uint)));
  compare_scalar<<<1, 1>>>(d, make_int4(7, 7, 7, 8), make_uchar4(200, 200, 200, 200));
  HIP_OK(hipGetLastError());
  HIP_OK(hipMemcpy(&h, d, sizeof(h), hipMemcpyDeviceToHost));
  HIP_OK(hipFree(d));
  cr_expect_eq(h, 0x3du, "bits 0x%x (want all but bit 1)", h);
}

Test(headers_vector, compare_with_scalar_on_host)
{
  short2 s = make_short2(-3, -3);
  cr_expect(s == (short)-3);
  cr_expect(!(s != (short)-3));
  cr_expect(make_float3(1.5f, 1.5f, 2.0f) != 1.5f);
  cr_expect(2.0 == make_double1(2.0));
}

Test(headers_vector, binary_operators_with_scalar_still_work)
{
  uint2 a = make_uint2(7, 12);
  uint2 r = a % 5u;
  cr_expect(r.x == 2 && r.y == 2);
  r = a << 1u;
  cr_expect(r.x == 14 && r.y == 24);
  r = a ^ 1u;
  cr_expect(r.x == 6 && r.y == 13);
  a += 1u;
  a *= 2u;
  cr_expect(a.x == 16 && a.y == 26);
  a %= make_uint2(5, 5);  // vector right-hand side: allowed
  cr_expect(a.x == 1 && a.y == 1);
  int2 n = -make_int2(3, -4);
  cr_expect(n.x == -3 && n.y == 4);
  float2 f = -make_float2(1.0f, -2.0f);
  cr_expect(f.x == -1.0f && f.y == 2.0f);
}

Test(headers_vector, value_type_and_any_scalar_splat)
{
  static_assert(std::is_same<uint2::value_type, unsigned int>::value, "uint2::value_type");
  static_assert(std::is_same<double3::value_type, double>::value, "double3::value_type");
  constexpr uint2 u{-2};  // converted as by static_cast: no narrowing error
  cr_expect(u.x == 0xfffffffeu && u.y == 0xfffffffeu);
  constexpr float4 f{3};
  cr_expect(f.x == 3.0f && f.w == 3.0f);
  uchar4 c{~1};
  cr_expect(c.x == 0xfe && c.w == 0xfe);
}

// Compiles `src` with hiprtc (no error limit); returns how many "error:" lines the log holds.
static int rtc_errors(const char *src, hiprtcResult *res)
{
  hiprtcProgram p;
  const char *opts[] = {"-ferror-limit=0"};
  cr_assert_eq(hiprtcCreateProgram(&p, src, "v.cc", 0, nullptr, nullptr), HIPRTC_SUCCESS);
  *res = hiprtcCompileProgram(p, 1, opts);
  size_t n = 0;
  cr_assert_eq(hiprtcGetProgramLogSize(p, &n), HIPRTC_SUCCESS);
  char *log = (char *)calloc(n + 1, 1);
  cr_assert_eq(hiprtcGetProgramLog(p, log), HIPRTC_SUCCESS);
  int count = 0;
  for (const char *q = strstr(log, "error:"); q; q = strstr(q + 1, "error:"))
    count++;
  free(log);
  cr_assert_eq(hiprtcDestroyProgram(&p), HIPRTC_SUCCESS);
  return count;
}

Test(headers_vector, rejected_forms_do_not_compile)
{
  // One rejected statement per line, each in device code: 5 errors.
  const char *src =
      "__global__ void k(uint2 *u, float2 *f) {\n"
      "  *u = -*u;\n"             // unsigned negation
      "  ulong1 l = make_ulong1(1); l = -l;\n"
      "  *f = ~*f;\n"             // bitwise operators on floating-point vectors
      "  *f = *f | *f;\n"
      "  *f %= *f;\n"
      "}\n";
  hiprtcResult r;
  cr_expect_eq(rtc_errors(src, &r), 5);
  cr_expect_eq(r, HIPRTC_ERROR_COMPILATION);
}

Test(headers_vector, accepted_forms_compile)
{
  const char *src =
      "__global__ void k(uint2 *u, int2 *i, ullong *q, ushort *s) {\n"
      "  *u = *u % 3u; *u = *u << 1u; *u += 2u; *u %= *u; *u %= 3u; *u <<= 1u;\n"
      "  *i = -*i; *i = ~*i; *i >>= *i;\n"
      "  *q = (ullong)*s + (uchar)1;\n"
      "  if (*i == 3 || 4 != *i) *q = 0;\n"
      "}\n";
  hiprtcResult r;
  cr_expect_eq(rtc_errors(src, &r), 0);
  cr_expect_eq(r, HIPRTC_SUCCESS);
}
