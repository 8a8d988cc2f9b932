// Device-library pieces AMD's headers provide that hip-tests' deviceLib and math areas use:
// integer amd_mixed_dot, packed half/bfloat16 unsafeAtomicAdd, one __clz signature (short and float arguments are not ambiguous),
// the `data` views of __half2 and __half2_raw, half operators as hidden friends (a class that
// converts to __half and float keeps the built-in float operators), and the allocation
// templates taking pointers to volatile.
#include <criterion/criterion.h>
#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>
#include <hip/hip_bf16.h>
#include <type_traits>

#define HIP_OK(expr) cr_assert_eq((expr), hipSuccess, "%s", #expr)

enum { NCHECK = 10 };

// Converts to __half, __half2 and float, like hip-tests' math helper: -x and x - y must pick
// the float operators rather than be ambiguous with the half ones.
struct to_half {
  __half v;
  __host__ __device__ operator __half() const { return v; }
  __host__ __device__ operator __half2() const { return __half2(v, v); }
  __host__ __device__ operator float() const { return __half2float(v); }
};

__global__ void devlib_checks(float *r)
{
  r[0] = amd_mixed_dot(make_short2(2, -3), make_short2(4, 5), 1, false) == 2 * 4 - 3 * 5 + 1;
  r[1] = amd_mixed_dot(make_ushort2(2, 3), make_ushort2(4, 5), 1u, false) == 2u * 4 + 3 * 5 + 1;
  r[2] = amd_mixed_dot(make_char4(1, -2, 3, -4), make_char4(5, 6, 7, 8), 10, false) ==
         5 - 12 + 21 - 32 + 10;
  r[3] = amd_mixed_dot(make_uchar4(1, 2, 3, 4), make_uchar4(5, 6, 7, 8), 0u, false) == 70u;
  // Eight signed 4-bit lanes: 0x00000021 holds (1, 2, 0 ...), 0x000000f3 holds (3, -1, 0 ...).
  r[4] = amd_mixed_dot(0x21, 0xf3, 0, false) == 1 * 3 + 2 * -1;
  r[5] = amd_mixed_dot(0x21u, 0x43u, 5u, false) == 1u * 3 + 2 * 4 + 5;
  short s = 1;
  float f = 2.0f;
  r[6] = __clz(s) == 31 && __clz(f) == 30;  // f converts to int 2
  __half2 h = __half2(__half(1.5f), __half(-2.0f));
  r[7] = h.data.x == (_Float16)1.5f && h.data.y == (_Float16)-2.0f;
  __half2_raw raw = h;
  r[8] = raw.data.y == (_Float16)-2.0f && raw.x == __half_as_ushort(__half(1.5f));
  to_half t{__half(3.0f)};
  float neg = -t, diff = t - t;
  r[9] = neg == -3.0f && diff == 0.0f;
}

Test(headers_devlib, dot_clz_half_views_on_device)
{
  float *d = nullptr, h[NCHECK];
  HIP_OK(hipMalloc(&d, sizeof(h)));
  HIP_OK(hipMemset(d, 0, sizeof(h)));
  devlib_checks<<<1, 1>>>(d);
  HIP_OK(hipGetLastError());
  HIP_OK(hipMemcpy(h, d, sizeof(h), hipMemcpyDeviceToHost));
  for (int i = 0; i < NCHECK; i++)
    cr_expect_eq(h[i], 1.0f, "check %d: %g", i, h[i]);
  HIP_OK(hipFree(d));
}

Test(headers_devlib, host_views_and_operators)
{
  to_half t{__half(2.5f)};
  float neg = -t;
  cr_expect_eq(neg, -2.5f);
  __half2 h = __half2(__half(0.5f), __half(4.0f));
  cr_expect(h.data.y == (_Float16)4.0f);
  __half2 s = h + h;
  cr_expect_eq(__high2float(s), 8.0f);
  cr_expect(__half(1.0f) < __half(2.0f));
}

Test(headers_devlib, volatile_pointer_allocation)
{
  volatile int *p = nullptr;
  HIP_OK(hipHostMalloc(&p, sizeof(int)));
  *p = 7;
  cr_expect_eq(*p, 7);
  HIP_OK(hipHostFree((void *)p));
  volatile int *d = nullptr;
  HIP_OK(hipMalloc(&d, sizeof(int)));
  cr_expect_neq((void *)d, nullptr);
  HIP_OK(hipFree((void *)d));
}

// Every thread adds (1, 0.5) to one __half2 and (2, 0.25) to one __hip_bfloat162.
__global__ void packed_atomic_add(__half2 *h, __hip_bfloat162 *b, __half2 *old_h)
{
  __half2 o = unsafeAtomicAdd(h, __half2(__half(1.0f), __half(0.5f)));
  unsafeAtomicAdd(b, __hip_bfloat162(__hip_bfloat16(2.0f), __hip_bfloat16(0.25f)));
  if (blockIdx.x == 0 && threadIdx.x == 0)
    *old_h = +o;
}

Test(headers_devlib, packed_unsafe_atomic_add)
{
  __half2 *h = nullptr, *old_h = nullptr, hh, ho;
  __hip_bfloat162 *b = nullptr, bb;
  HIP_OK(hipMalloc(&h, sizeof(*h)));
  HIP_OK(hipMalloc(&old_h, sizeof(*old_h)));
  HIP_OK(hipMalloc(&b, sizeof(*b)));
  HIP_OK(hipMemset(h, 0, sizeof(*h)));
  HIP_OK(hipMemset(b, 0, sizeof(*b)));
  packed_atomic_add<<<2, 64>>>(h, b, old_h);
  HIP_OK(hipGetLastError());
  HIP_OK(hipMemcpy(&hh, h, sizeof(hh), hipMemcpyDeviceToHost));
  HIP_OK(hipMemcpy(&ho, old_h, sizeof(ho), hipMemcpyDeviceToHost));
  HIP_OK(hipMemcpy(&bb, b, sizeof(bb), hipMemcpyDeviceToHost));
  // 128 additions, all exact in both formats.
  cr_expect_eq(__low2float(hh), 128.0f);
  cr_expect_eq(__high2float(hh), 64.0f);
  cr_expect_eq((float)bb.x, 256.0f);
  cr_expect_eq((float)bb.y, 32.0f);
  // The returned old value is one of the 128 partial sums.
  float lo = __low2float(ho);
  cr_expect(lo >= 0.0f && lo <= 127.0f && 2.0f * __high2float(ho) == lo, "old (%g, %g)", lo,
            __high2float(ho));
  HIP_OK(hipFree(h));
  HIP_OK(hipFree(old_h));
  HIP_OK(hipFree(b));
}

Test(headers_devlib, half_from_long_and_volatile_raw)
{
  static_assert(std::is_constructible<__half, long>::value, "__half(long)");
  static_assert(std::is_constructible<__half, unsigned long>::value, "__half(unsigned long)");
  static_assert(std::is_assignable<__half &, volatile __half_raw &>::value, "volatile lvalue");
  static_assert(std::is_assignable<__half &, volatile __half_raw &&>::value, "volatile rvalue");
  __half h = (long)-3;
  cr_expect_eq(__half2float(h), -3.0f);
  h = (unsigned long)5;
  cr_expect_eq(__half2float(h), 5.0f);
  volatile __half_raw r;
  r.x = 0x3c00;  // 1.0
  h = r;
  cr_expect_eq(__half2float(h), 1.0f);
}
