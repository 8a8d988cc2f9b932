// Values of the header functions that also run on the host (integer intrinsics, half and
// bfloat16 conversions and rounding, vector operators, complex arithmetic), checked on the CPU
// against values worked out by hand from the CUDA/HIP definitions. Built by clang-19 in HIP mode
// (for _Float16 and the __host__ __device__ qualifiers); no GPU involved.
#include <hip/hip_bf16.h>
#include <hip/hip_bfloat16.h>
#include <hip/hip_complex.h>
#include <hip/hip_fp16.h>
#include <hip/hip_runtime.h>

#include <cstdio>

static int failures = 0;
#define EXPECT_EQ(actual, expected)                                                     \
  do {                                                                                  \
    unsigned long long a_ = (unsigned long long)(actual);                               \
    unsigned long long e_ = (unsigned long long)(expected);                             \
    if (a_ != e_) {                                                                     \
      std::printf("FAIL %s:%d: %s = 0x%llx, expected 0x%llx\n", __FILE__, __LINE__, #actual, a_, e_); \
      ++failures;                                                                       \
    }                                                                                   \
  } while (0)

static void integer_intrinsics() {
  EXPECT_EQ(__popc(0xF0F0u), 8);
  EXPECT_EQ(__popcll(~0ull), 64);
  EXPECT_EQ(__clz(1), 31);
  EXPECT_EQ(__clz(0), 32);
  EXPECT_EQ(__clz(-1), 0);
  EXPECT_EQ(__clz(0x00010000u), 15u);
  EXPECT_EQ(__lastbit_u32_u32(8u), 3u);
  EXPECT_EQ(__lastbit_u32_u32(0u), 0xFFFFFFFFu);
  EXPECT_EQ(__lastbit_u32_u64(1ull << 40), 40u);
  EXPECT_EQ(__clzll(1), 63);
  EXPECT_EQ(__clzll(0), 64);
  EXPECT_EQ(__ffs(0), 0);
  EXPECT_EQ(__ffs(8), 4);
  EXPECT_EQ(__ffsll(1ll << 40), 41);
  EXPECT_EQ(__brev(1u), 0x80000000u);
  EXPECT_EQ(__brevll(1ull), 0x8000000000000000ull);
  // selector nibbles 0,4,1,5 (low to high): x.byte0, y.byte0, x.byte1, y.byte1
  EXPECT_EQ(__byte_perm(0x33221100u, 0x77665544u, 0x5140u), 0x55114400u);
  EXPECT_EQ(__byte_perm(0x33221100u, 0x77665544u, 0x7654u), 0x77665544u);
  EXPECT_EQ(__mul24(0x00800000, 2), -16777216); // bit 23 is the sign of a 24-bit operand
  EXPECT_EQ(__mul24(0x7f000003, 5), 15);        // bits above 23 are ignored
  EXPECT_EQ(__umul24(0x01000003u, 5u), 15u);
  EXPECT_EQ(__umulhi(0xFFFFFFFFu, 2u), 1u);
  EXPECT_EQ(__mulhi(-1, 1), -1);
  EXPECT_EQ(__umul64hi(~0ull, 2ull), 1ull);
  EXPECT_EQ(__mul64hi(-1ll, 1ll), -1ll);
  EXPECT_EQ(__funnelshift_l(0x80000000u, 0x1u, 1u), 0x3u);
  EXPECT_EQ(__funnelshift_l(0x80000000u, 0x1u, 33u), 0x3u); // shift taken modulo 32
  EXPECT_EQ(__funnelshift_lc(0x80000000u, 0x1u, 40u), 0x80000000u); // clamped to 32
  EXPECT_EQ(__funnelshift_r(0x1u, 0x2u, 4u), 0x20000000u);
  EXPECT_EQ(__funnelshift_rc(0x1u, 0x2u, 40u), 0x2u);
  EXPECT_EQ(__hadd(-3, 2), -1);
  EXPECT_EQ(__rhadd(1, 2), 2);
  EXPECT_EQ(__hadd(0x7fffffff, 0x7fffffff), 0x7fffffff); // no intermediate overflow
  EXPECT_EQ(__uhadd(0xFFFFFFFFu, 1u), 0x80000000u);
  EXPECT_EQ(__urhadd(0xFFFFFFFFu, 0xFFFFFFFFu), 0xFFFFFFFFu);
  EXPECT_EQ(__sad(3, 10, 1u), 8u);
  EXPECT_EQ(__usad(10u, 3u, 0u), 7u);
  EXPECT_EQ(__bitextract_u32(0xABCD1234u, 8u, 8u), 0x12u);
  EXPECT_EQ(__bitextract_u64(0xABCD123400000000ull, 40u, 8u), 0x12ull);
  EXPECT_EQ(__bitinsert_u32(0xFFFFFFFFu, 0u, 4u, 8u), 0xFFFFF00Fu);
  EXPECT_EQ(__bitinsert_u64(0ull, 0xFFull, 60u, 4u), 0xF000000000000000ull);
  EXPECT_EQ(__fns32(0x16ull, 0u, 1), 1u); // 0b10110
  EXPECT_EQ(__fns32(0x16ull, 0u, 3), 4u);
  EXPECT_EQ(__fns32(0x16ull, 0u, 4), 0xFFFFFFFFu);
  EXPECT_EQ(__fns32(0x16ull, 4u, -1), 4u);
  EXPECT_EQ(__fns32(0x16ull, 3u, -1), 2u);
  EXPECT_EQ(__fns32(0x16ull, 3u, -3), 0xFFFFFFFFu);
  EXPECT_EQ(__fns32(0x16ull, 2u, 0), 2u);
  EXPECT_EQ(__fns32(0x16ull, 3u, 0), 0xFFFFFFFFu);
  EXPECT_EQ(__fns64(1ull << 63, 10u, 1), 63u);
}

static void half_precision() {
  EXPECT_EQ(__half_as_ushort(__float2half(1.0f)), 0x3C00);
  EXPECT_EQ(__half_as_ushort(__float2half(-2.0f)), 0xC000);
  EXPECT_EQ(__half_as_ushort(__float2half(70000.0f)), 0x7C00); // overflow rounds to infinity
  EXPECT_EQ(__hisinf(__float2half(70000.0f)), 1);
  EXPECT_EQ(__half2float(__ushort_as_half(0x7BFF)), 65504);
  EXPECT_EQ(__half_as_ushort(__float2half_ru(1.0001f)), 0x3C01);
  EXPECT_EQ(__half_as_ushort(__float2half_rd(1.0001f)), 0x3C00);
  EXPECT_EQ(__half_as_ushort(__float2half_rz(1.0001f)), 0x3C00);
  EXPECT_EQ(__half_as_ushort(__float2half_rz(-1.0001f)), 0xBC00);
  EXPECT_EQ(__half_as_ushort(__float2half_rd(-1.0001f)), 0xBC01);
  EXPECT_EQ(__half_as_ushort(__float2half_ru(1.0f)), 0x3C00); // exact values do not move
  __half a = __float2half(1.5f), b = __float2half(2.0f);
  EXPECT_EQ(__half_as_ushort(__hmul(a, b)), 0x4200); // 3.0
  EXPECT_EQ(__half_as_ushort(__hfma(a, b, a)), 0x4480); // 4.5
  EXPECT_EQ(__half_as_ushort(__hadd_sat(a, b)), 0x3C00); // saturates to 1.0
  EXPECT_EQ(__hlt(a, b), 1);
  EXPECT_EQ(__hgtu(__ushort_as_half(0x7E00), a), 1); // unordered compare with NaN
  EXPECT_EQ(__hgt(__ushort_as_half(0x7E00), a), 0);
  EXPECT_EQ(__half2int_rn(__float2half(2.5f)), 2); // ties to even
  EXPECT_EQ(__half2int_rz(__float2half(-2.5f)), -2);
  __half2 v = __floats2half2_rn(1.0f, -1.0f);
  v = __hadd2(v, v);
  EXPECT_EQ(__half_as_ushort(__low2half(v)), 0x4000);
  EXPECT_EQ(__half_as_ushort(__high2half(v)), 0xC000);
}

static void bfloat16() {
  EXPECT_EQ(__bfloat16_as_ushort(__float2bfloat16(1.0f)), 0x3F80);
  // exactly half way: round to the even neighbour
  EXPECT_EQ(__bfloat16_as_ushort(__float2bfloat16(__builtin_bit_cast(float, 0x3F808000u))), 0x3F80);
  EXPECT_EQ(__bfloat16_as_ushort(__float2bfloat16(__builtin_bit_cast(float, 0x3F818000u))), 0x3F82);
  EXPECT_EQ(__bfloat16_as_ushort(__float2bfloat16(__builtin_bit_cast(float, 0x3F808001u))), 0x3F81);
  EXPECT_EQ(__hisnan(__float2bfloat16(__builtin_bit_cast(float, 0x7F800001u))), 1); // NaN stays NaN
  EXPECT_EQ(__bfloat16_as_ushort(__float2bfloat16_rz(__builtin_bit_cast(float, 0x3F81FFFFu))), 0x3F81);
  EXPECT_EQ(__bfloat162float(__hmul(__float2bfloat16(3.0f), __float2bfloat16(0.5f))) == 1.5f, 1);
  hip_bfloat16 t(__builtin_bit_cast(float, 0x3F81FFFFu), hip_bfloat16::truncate);
  EXPECT_EQ(t.data, 0x3F81);
  hip_bfloat16 r(__builtin_bit_cast(float, 0x3F81FFFFu));
  EXPECT_EQ(r.data, 0x3F82);
  EXPECT_EQ((int)float(hip_bfloat16(2.0f) * hip_bfloat16(3.0f)), 6);
}

static void vectors_and_complex() {
  int4 i = make_int4(1, 2, 3, 4) * 3 + make_int4(1, 1, 1, 1);
  EXPECT_EQ(i.x, 4);
  EXPECT_EQ(i.w, 13);
  uint2 u = (make_uint2(0xF0u, 0x0Fu) | 0x100u) >> 4;
  EXPECT_EQ(u.x, 0x1Fu);
  EXPECT_EQ(u.y, 0x10u);
  float3 f = -make_float3(1.0f, 2.0f, 3.0f) / 2.0f;
  EXPECT_EQ(f.z == -1.5f, 1);
  EXPECT_EQ(make_double2(1, 2) == make_double2(1, 2), 1);
  EXPECT_EQ(make_double2(1, 2) != make_double2(1, 3), 1);
  hipFloatComplex z = hipCmulf(make_hipFloatComplex(1, 2), make_hipFloatComplex(3, 4)); // -5+10i
  EXPECT_EQ(hipCrealf(z) == -5.0f && hipCimagf(z) == 10.0f, 1);
  hipDoubleComplex q = hipCdiv(make_hipDoubleComplex(-5, 10), make_hipDoubleComplex(3, 4)); // 1+2i
  EXPECT_EQ(hipCreal(q) == 1.0 && hipCimag(q) == 2.0, 1);
  hipDoubleComplex m = hipCfma(make_hipDoubleComplex(1, 2), make_hipDoubleComplex(3, 4),
                               make_hipDoubleComplex(1, 1)); // -4+11i
  EXPECT_EQ(hipCreal(m) == -4.0 && hipCimag(m) == 11.0, 1);
  EXPECT_EQ(hipCabs(make_hipDoubleComplex(3, 4)) == 5.0, 1);
}

int main() {
  integer_intrinsics();
  half_precision();
  bfloat16();
  vectors_and_complex();
  if (failures != 0) {
    std::printf("host_semantics: %d failures\n", failures);
    return 1;
  }
  std::printf("host_semantics: all checks passed\n");
  return 0;
}
