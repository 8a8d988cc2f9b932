// Surface objects end to end: kernels write hipArray texels with surf*Dwrite (image_store) and
// read them back with surf*Dread (image_load); the host checks the array bytes and the values
// read, including out-of-range accesses (writes dropped, reads zero). Float surfaces run with
// both compilers; integer surfaces only with hipkfd's headers, whose writes move integers as
// integers (AMD 5.2.3's headers convert them to float first, which image_store then stores as
// bits: not a behaviour worth testing). On gfx942 surfaces are refused (hipErrorNotSupported).
#include <hip/hip_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#pragma clang diagnostic ignored "-Wdeprecated-declarations"

#define CHECK(x)                                                                           \
  do {                                                                                     \
    hipError_t e_ = (x);                                                                   \
    if (e_ != hipSuccess) {                                                                \
      printf("%s:%d: %s -> %s\n", __FILE__, __LINE__, #x, hipGetErrorName(e_));           \
      exit(1);                                                                             \
    }                                                                                      \
  } while (0)

static int failures;
#define EXPECT(cond, ...)                                                                  \
  do {                                                                                     \
    if (!(cond)) {                                                                         \
      if (++failures <= 30) printf(__VA_ARGS__);                                          \
    }                                                                                      \
  } while (0)
#define EXPECT_ERR(call, want)                                                             \
  do {                                                                                     \
    hipError_t got_ = (call);                                                              \
    (void)hipGetLastError();                                                               \
    EXPECT(got_ == (want), "%s:%d: %s returned %s, expected %s\n", __FILE__, __LINE__,     \
           #call, hipGetErrorName(got_), hipGetErrorName(want));                           \
  } while (0)

static const int W = 19, H = 6;

__device__ float4 pattern(int x, int y) { return make_float4(x + 0.25f, -y, x * y * 0.5f, 1000.0f + x - y); }

// Writes every texel of a W x H float4 surface, one more beyond the right edge (dropped).
__global__ void k_write_f4(hipSurfaceObject_t s) {
  int x = threadIdx.x, y = blockIdx.x;
  surf2Dwrite(pattern(x, y), s, x * (int)sizeof(float4), y);
  if (x == 0) surf2Dwrite(make_float4(-1, -1, -1, -1), s, W * (int)sizeof(float4), y);
}

// Reads texel (x + 1, y): the last column reads beyond the edge and gets zeros. Adds 1 to .x
// and writes it back to the texel read from a scalar float surface.
__global__ void k_read_f4(hipSurfaceObject_t s, float4 *out, hipSurfaceObject_t f1) {
  int x = threadIdx.x, y = blockIdx.x;
  float4 v;
  surf2Dread(&v, s, (x + 1) * (int)sizeof(float4), y);
  out[y * W + x] = v;
  float f;
  surf2Dread(&f, f1, x * 4, y);
  surf2Dwrite(f + 1.0f, f1, x * 4, y);
}

#if defined(__HIPKFD_HIP_CLANG__)
// Integer surfaces: uchar4 2D, short2 3D, int 2D layered.
__global__ void k_int(hipSurfaceObject_t u8, hipSurfaceObject_t s16, hipSurfaceObject_t i32, int *ok) {
  int x = threadIdx.x, y = blockIdx.x;
  surf2Dwrite(make_uchar4(x, y, 200 + x, 255 - y), u8, x * 4, y);
  for (int z = 0; z < 3; z++) surf3Dwrite(make_short2(-x - 100 * z, y * 1000), s16, x * 4, y, z);
  for (int l = 0; l < 2; l++) surf2DLayeredwrite(-1000000 * l + x * 7 - y, i32, x * 4, y, l);
  __syncthreads();
  uchar4 a;
  surf2Dread(&a, u8, x * 4, y);
  short2 b;
  surf3Dread(&b, s16, x * 4, y, 2);
  int c;
  surf2DLayeredread(&c, i32, x * 4, y, 1);
  int d;
  surf2DLayeredread(&d, i32, (x + W) * 4, y, 1);  // beyond the edge: zero
  ok[y * W + x] = a.x == x && a.y == y && a.z == (unsigned char)(200 + x) && a.w == 255 - y &&
                  b.x == -x - 200 && b.y == (short)(y * 1000) && c == -1000000 + x * 7 - y && d == 0;
}
#endif

static hipArray_t make_array(int bits, int nch, hipChannelFormatKind k, int depth, unsigned flags) {
  hipChannelFormatDesc d = hipCreateChannelDesc(bits, nch > 1 ? bits : 0, nch > 2 ? bits : 0, nch > 3 ? bits : 0, k);
  hipArray_t a;
  if (depth)
    CHECK(hipMalloc3DArray(&a, &d, make_hipExtent(W, H, depth), flags));
  else
    CHECK(hipMallocArray(&a, &d, W, H, flags));
  return a;
}

static hipSurfaceObject_t make_surf(hipArray_t a) {
  hipResourceDesc r;
  memset(&r, 0, sizeof(r));
  r.resType = hipResourceTypeArray;
  r.res.array.array = a;
  hipSurfaceObject_t s;
  CHECK(hipCreateSurfaceObject(&s, &r));
  return s;
}

int main() {
  hipDeviceProp_t prop;
  CHECK(hipGetDeviceProperties(&prop, 0));
  hipArray_t a4 = make_array(32, 4, hipChannelFormatKindFloat, 0, hipArraySurfaceLoadStore);
  hipResourceDesc r;
  memset(&r, 0, sizeof(r));
  r.resType = hipResourceTypeArray;
  r.res.array.array = a4;
  hipSurfaceObject_t s4;
  if (strncmp(prop.gcnArchName, "gfx94", 5) == 0) {
    EXPECT_ERR(hipCreateSurfaceObject(&s4, &r), hipErrorNotSupported);
    CHECK(hipFreeArray(a4));
    printf(failures ? "FAILED\n" : "PASSED\n");
    return failures != 0;
  }

  // Errors (clr's checks).
  EXPECT_ERR(hipCreateSurfaceObject(nullptr, &r), hipErrorInvalidValue);
  EXPECT_ERR(hipCreateSurfaceObject(&s4, nullptr), hipErrorInvalidValue);
  hipResourceDesc rb = r;
  rb.res.array.array = nullptr;
  EXPECT_ERR(hipCreateSurfaceObject(&s4, &rb), hipErrorInvalidValue);
  rb = r;
  rb.resType = hipResourceTypeLinear;
  EXPECT_ERR(hipCreateSurfaceObject(&s4, &rb), hipErrorInvalidValue);
  hipArray_t gather = make_array(32, 1, hipChannelFormatKindFloat, 0, hipArrayTextureGather);
  rb = r;
  rb.res.array.array = gather;
  EXPECT_ERR(hipCreateSurfaceObject(&s4, &rb), hipErrorInvalidValue);
  CHECK(hipFreeArray(gather));
  EXPECT_ERR(hipDestroySurfaceObject(nullptr), hipSuccess);

  // float4 and float surfaces.
  s4 = make_surf(a4);
  hipArray_t a1 = make_array(32, 1, hipChannelFormatKindFloat, 0, 0);
  std::vector<float> f1(W * H);
  for (int i = 0; i < W * H; i++) f1[i] = i * 0.5f - 7;
  CHECK(hipMemcpyToArray(a1, 0, 0, f1.data(), f1.size() * 4, hipMemcpyHostToDevice));
  hipSurfaceObject_t s1 = make_surf(a1);
  float4 *dout;
  CHECK(hipMalloc(&dout, W * H * sizeof(float4)));
  hipLaunchKernelGGL(k_write_f4, dim3(H), dim3(W), 0, 0, s4);
  hipLaunchKernelGGL(k_read_f4, dim3(H), dim3(W), 0, 0, s4, dout, s1);
  CHECK(hipGetLastError());
  std::vector<float4> arr(W * H), got(W * H);
  std::vector<float> g1(W * H);
  CHECK(hipMemcpyFromArray(arr.data(), a4, 0, 0, arr.size() * sizeof(float4), hipMemcpyDeviceToHost));
  CHECK(hipMemcpy(got.data(), dout, got.size() * sizeof(float4), hipMemcpyDeviceToHost));
  CHECK(hipMemcpyFromArray(g1.data(), a1, 0, 0, g1.size() * 4, hipMemcpyDeviceToHost));
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      float4 want = make_float4(x + 0.25f, -y, x * y * 0.5f, 1000.0f + x - y);
      float4 a = arr[y * W + x];
      EXPECT(a.x == want.x && a.y == want.y && a.z == want.z && a.w == want.w, "float4 texel (%d,%d) = %g %g %g %g\n",
             x, y, a.x, a.y, a.z, a.w);
      float4 g = got[y * W + x];
      float4 wr = x + 1 < W ? make_float4(x + 1.25f, -y, (x + 1) * y * 0.5f, 1000.0f + x + 1 - y) : make_float4(0, 0, 0, 0);
      EXPECT(g.x == wr.x && g.y == wr.y && g.z == wr.z && g.w == wr.w, "surf2Dread (%d,%d) = %g %g %g %g\n", x + 1, y,
             g.x, g.y, g.z, g.w);
      EXPECT(g1[y * W + x] == f1[y * W + x] + 1.0f, "float texel (%d,%d) = %g\n", x, y, g1[y * W + x]);
    }
  CHECK(hipDestroySurfaceObject(s4));
  CHECK(hipDestroySurfaceObject(s1));
  EXPECT_ERR(hipDestroySurfaceObject(s1), hipErrorInvalidValue);
  CHECK(hipFreeArray(a4));
  CHECK(hipFreeArray(a1));
  CHECK(hipFree(dout));

#if defined(__HIPKFD_HIP_CLANG__)
  hipArray_t u8 = make_array(8, 4, hipChannelFormatKindUnsigned, 0, 0);
  hipArray_t s16 = make_array(16, 2, hipChannelFormatKindSigned, 3, hipArraySurfaceLoadStore);
  hipArray_t i32 = make_array(32, 1, hipChannelFormatKindSigned, 2, hipArrayLayered | hipArraySurfaceLoadStore);
  hipSurfaceObject_t su8 = make_surf(u8), ss16 = make_surf(s16), si32 = make_surf(i32);
  int *dok;
  CHECK(hipMalloc(&dok, W * H * sizeof(int)));
  hipLaunchKernelGGL(k_int, dim3(H), dim3(W), 0, 0, su8, ss16, si32, dok);
  CHECK(hipGetLastError());
  std::vector<int> ok(W * H);
  CHECK(hipMemcpy(ok.data(), dok, ok.size() * sizeof(int), hipMemcpyDeviceToHost));
  std::vector<uint8_t> b8(W * H * 4);
  std::vector<int16_t> b16(W * H * 3 * 2);
  CHECK(hipMemcpyFromArray(b8.data(), u8, 0, 0, b8.size(), hipMemcpyDeviceToHost));
  CHECK(hipMemcpyFromArray(b16.data(), s16, 0, 0, b16.size() * 2, hipMemcpyDeviceToHost));
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      EXPECT(ok[y * W + x], "integer surface read back at (%d,%d)\n", x, y);
      const uint8_t *p = &b8[(y * W + x) * 4];
      EXPECT(p[0] == x && p[1] == y && p[2] == (uint8_t)(200 + x) && p[3] == 255 - y, "uchar4 texel (%d,%d)\n", x, y);
      for (int z = 0; z < 3; z++) {
        const int16_t *q = &b16[((z * H + y) * W + x) * 2];
        EXPECT(q[0] == -x - 100 * z && q[1] == (int16_t)(y * 1000), "short2 texel (%d,%d,%d)\n", x, y, z);
      }
    }
  CHECK(hipDestroySurfaceObject(su8));
  CHECK(hipDestroySurfaceObject(ss16));
  CHECK(hipDestroySurfaceObject(si32));
  CHECK(hipFreeArray(u8));
  CHECK(hipFreeArray(s16));
  CHECK(hipFreeArray(i32));
  CHECK(hipFree(dok));
#endif

  if (failures) {
    printf("FAILED: %d mismatches\n", failures);
    return 1;
  }
  printf("PASSED\n");
  return 0;
}
