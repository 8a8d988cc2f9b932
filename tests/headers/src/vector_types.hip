// Vector types char1 ... double4, make_* functions, operators, layout ("Vector types").
// EXPECT-ASM: \.amdhsa_kernel .*vector_kernel
#include <hip/hip_runtime.h>

#define LAYOUT(base, T)                                                                  \
  static_assert(sizeof(base##1) == sizeof(T) && alignof(base##1) == sizeof(T), #base "1"); \
  static_assert(sizeof(base##2) == 2 * sizeof(T) && alignof(base##2) == 2 * sizeof(T), #base "2"); \
  static_assert(sizeof(base##3) == 3 * sizeof(T) && alignof(base##3) == alignof(T), #base "3"); \
  static_assert(sizeof(base##4) == 4 * sizeof(T) && alignof(base##4) == 4 * sizeof(T), #base "4");
LAYOUT(char, signed char)
LAYOUT(uchar, unsigned char)
LAYOUT(short, short)
LAYOUT(ushort, unsigned short)
LAYOUT(int, int)
LAYOUT(uint, unsigned int)
LAYOUT(long, long)
LAYOUT(ulong, unsigned long)
LAYOUT(longlong, long long)
LAYOUT(ulonglong, unsigned long long)
LAYOUT(float, float)
LAYOUT(double, double)

template <class V> __host__ __device__ V arith(V a, V b) {
  V r = a + b - a * b / (b + b);
  r += a;
  r -= b;
  r *= 2;
  r = r + 1;
  r = 3 - r;
  r = -r;
  ++r;
  r--;
  return r;
}
template <class V> __host__ __device__ V bits(V a, V b) {
  V r = (a & b) | (a ^ b);
  r = r % (b + 1) + (a << 1) + (a >> 1) + ~a;
  r |= 1;
  r &= 0x7f;
  r ^= 3;
  r <<= 1;
  r >>= 1;
  return r;
}

__global__ void vector_kernel(float4 *f4, int3 *i3, double2 *d2, uchar4 *c4, ulonglong2 *u2) {
  float4 a = make_float4(1.0f, 2.0f, 3.0f, 4.0f);
  f4[threadIdx.x] = arith(f4[threadIdx.x], a);
  i3[threadIdx.x] = bits(i3[threadIdx.x], make_int3(1, 2, 3)) + arith(make_int3(4, 5, 6), i3[0]);
  d2[threadIdx.x] = arith(d2[threadIdx.x], make_double2(0.5, 0.25));
  c4[threadIdx.x] = bits(c4[threadIdx.x], make_uchar4(1, 2, 3, 4));
  u2[threadIdx.x] = bits(u2[threadIdx.x], make_ulonglong2(5, 6));
  if (f4[0] == a || f4[1] != a) f4[2] = float4(0.0f);
  char1 c1 = make_char1(1);
  short2 s2 = make_short2(1, 2);
  ushort3 us3 = make_ushort3(1, 2, 3);
  long4 l4 = make_long4(1, 2, 3, 4);
  ulong1 ul1 = make_ulong1(1);
  longlong3 ll3 = make_longlong3(1, 2, 3);
  uint2 ui2 = make_uint2(1, 2);
  double3 dd3 = make_double3(1, 2, 3);
  float1 ff1 = make_float1(1.0f);
  f4[3].x = c1.x + s2.y + us3.z + l4.w + ul1.x + ll3.z + ui2.y + dd3.z + ff1.x;
}

int host_side() {
  float4 a = arith(make_float4(1, 2, 3, 4), make_float4(4, 3, 2, 1));
  int4 b = bits(make_int4(1, 2, 3, 4), make_int4(4, 3, 2, 1));
  hipChannelFormatDesc f4 = hipCreateChannelDesc<float4>();
  hipChannelFormatDesc u1 = hipCreateChannelDesc<unsigned char>();
  hipChannelFormatDesc h2 = hipCreateChannelDescHalf2();
  return (int)a.x + b.w + f4.w + u1.x + h2.y;
}

int launch(float4 *f4, int3 *i3, double2 *d2, uchar4 *c4, ulonglong2 *u2) {
  vector_kernel<<<1, 64>>>(f4, i3, d2, c4, u2);
  return host_side();
}
