// Texture objects end to end: every element format (8/16/32-bit signed and unsigned integers,
// 16/32-bit floats) with 1, 2 and 4 channels, both read modes, point and linear filtering, the
// four address modes, normalized and unnormalized coordinates, over hipArray (1D, 2D, 3D,
// layered), pitch2D and linear memory. Every fetched value is compared with a CPU model of the
// sampling rules (CUDA/HIP semantics: texel-centre linear filtering, wrap/mirror only with
// normalized coordinates, border colour transparent black as AMD programs it). Coordinates are
// chosen with fractions in 1/8 steps so the hardware's 8-bit subtexel precision is exact.
//
// On a device without image instructions (gfx942) the runtime must refuse texture objects with
// hipErrorNotSupported; the program checks that instead. Prints PASSED when everything matched.
#include <hip/hip_runtime.h>

// hipMemcpyToArray uploads arrays of any dimension as their row-major bytes.
#pragma clang diagnostic ignored "-Wdeprecated-declarations"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CHECK(x)                                                                           \
  do {                                                                                     \
    hipError_t e_ = (x);                                                                   \
    if (e_ != hipSuccess) {                                                                \
      printf("%s:%d: %s -> %s\n", __FILE__, __LINE__, #x, hipGetErrorName(e_));           \
      exit(1);                                                                             \
    }                                                                                      \
  } while (0)

static int failures;
static long checks;
#define EXPECT(cond, ...)                                                                  \
  do {                                                                                     \
    checks++;                                                                              \
    if (!(cond)) {                                                                         \
      if (++failures <= 30) printf(__VA_ARGS__);                                          \
    }                                                                                      \
  } while (0)

#define EXPECT_ERR(call, want)                                                             \
  do {                                                                                     \
    hipError_t got_ = (call);                                                              \
    (void)hipGetLastError(); /* the expected error must not fail later launch checks */     \
    EXPECT(got_ == (want), "%s:%d: %s returned %s, expected %s\n", __FILE__, __LINE__,     \
           #call, hipGetErrorName(got_), hipGetErrorName(want));                           \
  } while (0)

// ---- device side ----

enum Fetch { F_FETCH1D, F_1D, F_2D, F_3D, F_1DL, F_2DL };

__global__ void k_sample(hipTextureObject_t t, int how, const float4 *c, float4 *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float4 p = c[i], r;
  switch (how) {
  case F_FETCH1D: r = tex1Dfetch<float4>(t, (int)p.x); break;
  case F_1D: r = tex1D<float4>(t, p.x); break;
  case F_2D: r = tex2D<float4>(t, p.x, p.y); break;
  case F_3D: r = tex3D<float4>(t, p.x, p.y, p.z); break;
  case F_1DL: r = tex1DLayered<float4>(t, p.x, (int)p.y); break;
  default: r = tex2DLayered<float4>(t, p.x, p.y, (int)p.z); break;
  }
  out[i] = r;
}

// Typed results: the same texel through narrower return types.
__global__ void k_typed(hipTextureObject_t u8x4, hipTextureObject_t s32, hipTextureObject_t s16x2,
                        hipTextureObject_t f32, hipTextureObject_t lin_s8x4, uchar4 *o_u8,
                        int *o_s32, short2 *o_s16, float *o_f32, char4 *o_s8) {
  int i = threadIdx.x;
  o_u8[i] = tex2D<uchar4>(u8x4, i + 0.5f, 1.5f);
  o_s32[i] = tex2D<int>(s32, i + 0.5f, 0.5f);
  o_s16[i] = tex2D<short2>(s16x2, i + 0.5f, 0.5f);
  tex2D(&o_f32[i], f32, i + 0.5f, 0.5f);
  o_s8[i] = tex1Dfetch<char4>(lin_s8x4, i);
}

// ---- host model ----

struct Fmt {
  int bits;
  hipChannelFormatKind kind;
  const char *name;
};
static const Fmt kFormats[] = {
    {8, hipChannelFormatKindUnsigned, "u8"},   {8, hipChannelFormatKindSigned, "s8"},
    {16, hipChannelFormatKindUnsigned, "u16"}, {16, hipChannelFormatKindSigned, "s16"},
    {32, hipChannelFormatKindUnsigned, "u32"}, {32, hipChannelFormatKindSigned, "s32"},
    {16, hipChannelFormatKindFloat, "f16"},    {32, hipChannelFormatKindFloat, "f32"},
};

static uint32_t f2u(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static float u2f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

static float half_to_float(uint16_t h) {
  int s = h >> 15, e = h >> 10 & 31, m = h & 1023;
  float v = e == 0 ? std::ldexp((float)m, -24) : e == 31 ? INFINITY : std::ldexp((float)(m | 1024), e - 25);
  return s ? -v : v;
}
// Exact for the values used here (multiples of 1/8 below 1024 in magnitude).
static uint16_t float_to_half(float f) {
  uint16_t s = f < 0 ? 0x8000 : 0;
  f = std::fabs(f);
  if (f == 0) return s;
  int e;
  float m = std::frexp(f, &e);  // f = m * 2^e, m in [0.5, 1)
  return (uint16_t)(s | (e + 14) << 10 | ((uint32_t)(m * 2048) & 1023));
}

struct Tex {
  Fmt f;
  int nch, w, h, d;  // d: depth or layers (1 when unused)
  std::vector<uint8_t> data;
  int es() const { return f.bits / 8 * nch; }
  uint8_t *at(int x, int y, int z) { return &data[(((size_t)z * h + y) * w + x) * es()]; }
};

static uint32_t rng_state = 12345;
static uint32_t rnd() { rng_state = rng_state * 1103515245u + 12345u; return rng_state >> 8; }

static void fill(Tex &t) {
  t.data.resize((size_t)t.w * t.h * t.d * t.es());
  for (size_t i = 0; i < t.data.size(); i += t.f.bits / 8) {
    uint32_t v = rnd() ^ rnd() << 16;
    if (t.f.kind == hipChannelFormatKindFloat) {
      float x = (float)((int)(rnd() % 2001) - 1000) / 8.0f;
      if (t.f.bits == 16) { uint16_t hb = float_to_half(x); memcpy(&t.data[i], &hb, 2); }
      else memcpy(&t.data[i], &x, 4);
    } else {
      memcpy(&t.data[i], &v, t.f.bits / 8);
    }
  }
}

struct Mode {
  hipTextureReadMode read;
  hipTextureFilterMode filter;
  hipTextureAddressMode addr;
  bool norm;
};

static bool int_result(const Fmt &f, hipTextureReadMode rm) {
  if (f.kind == hipChannelFormatKindFloat) return false;
  return rm == hipReadModeElementType || f.bits == 32;
}

// The 32-bit register value of one stored channel.
static uint32_t chan(const Fmt &f, const uint8_t *p, hipTextureReadMode rm) {
  uint32_t raw = 0;
  memcpy(&raw, p, f.bits / 8);
  if (f.kind == hipChannelFormatKindFloat) return f.bits == 16 ? f2u(half_to_float((uint16_t)raw)) : raw;
  int32_t s = f.bits == 32 ? (int32_t)raw : (int32_t)(raw << (32 - f.bits)) >> (32 - f.bits);
  if (int_result(f, rm)) return f.kind == hipChannelFormatKindSigned ? (uint32_t)s : raw;
  double max = std::ldexp(1.0, f.bits) - 1;
  if (f.kind == hipChannelFormatKindUnsigned) return f2u((float)(raw / max));
  double v = s / std::floor(max / 2);
  return f2u((float)(v < -1 ? -1 : v));
}

static void texel(Tex &t, int x, int y, int z, hipTextureReadMode rm, uint32_t out[4]) {
  bool ir = int_result(t.f, rm);
  out[0] = out[1] = out[2] = 0;
  out[3] = ir ? 1 : f2u(1.0f);
  for (int c = 0; c < t.nch; c++) out[c] = chan(t.f, t.at(x, y, z) + c * (t.f.bits / 8), rm);
}

// Texel index i on an axis of n texels; false when it falls on the border.
static bool address(long i, int n, hipTextureAddressMode m, bool norm, int *out) {
  if (!norm && (m == hipAddressModeWrap || m == hipAddressModeMirror)) m = hipAddressModeClamp;
  switch (m) {
  case hipAddressModeWrap: i %= n; if (i < 0) i += n; break;
  case hipAddressModeMirror: { long p = 2L * n; i %= p; if (i < 0) i += p; if (i >= n) i = p - 1 - i; break; }
  case hipAddressModeClamp: i = i < 0 ? 0 : i >= n ? n - 1 : i; break;
  default: if (i < 0 || i >= n) return false;
  }
  *out = (int)i;
  return true;
}

// dims: filtered axes (1..3); layered: the coordinate after them is a layer.
static void ref_sample(Tex &t, int dims, bool layered, const Mode &m, const float *c, uint32_t out[4]) {
  int size[3] = {t.w, t.h, t.d};
  bool ir = int_result(t.f, m.read);
  bool lin = m.filter == hipFilterModeLinear && !ir;
  long idx[3][2] = {{0}};
  double wt[3][2] = {{1, 0}, {1, 0}, {1, 0}};
  int nt[3] = {1, 1, 1};
  for (int a = 0; a < dims; a++) {
    // Texel-space coordinates carry 8 fractional bits (the subtexel precision CUDA documents).
    double x = std::nearbyint((m.norm ? (double)c[a] * size[a] : c[a]) * 256.0) / 256.0;
    if (lin) {
      x -= 0.5;
      double f0 = std::floor(x);
      idx[a][0] = (long)f0; idx[a][1] = (long)f0 + 1;
      wt[a][0] = 1 - (x - f0); wt[a][1] = x - f0;
      nt[a] = 2;
    } else {
      idx[a][0] = (long)std::floor(x);
    }
  }
  int layer = 0;
  if (layered) {
    int nl = dims == 1 ? t.h : t.d;
    layer = (int)std::floor(c[dims] + 0.5f);
    layer = layer < 0 ? 0 : layer >= nl ? nl - 1 : layer;
  }
  double acc[4] = {0, 0, 0, 0};
  for (int k = 0; k < nt[2]; k++)
    for (int j = 0; j < nt[1]; j++)
      for (int i = 0; i < nt[0]; i++) {
        int x = 0, y = 0, z = 0;
        uint32_t v[4] = {0, 0, 0, 0};
        bool in = address(idx[0][i], size[0], m.addr, m.norm, &x) &&
                  (dims < 2 || address(idx[1][j], size[1], m.addr, m.norm, &y)) &&
                  (dims < 3 || address(idx[2][k], size[2], m.addr, m.norm, &z));
        if (layered) (dims == 1 ? y : z) = layer;
        if (in) texel(t, x, y, z, m.read, v);
        if (ir) { memcpy(out, v, 16); return; }
        for (int q = 0; q < 4; q++) acc[q] += wt[0][i] * wt[1][j] * wt[2][k] * u2f(v[q]);
      }
  for (int q = 0; q < 4; q++) out[q] = f2u((float)acc[q]);
}

// ---- running a case ----

static hipChannelFormatDesc desc_of(const Tex &t) {
  int b = t.f.bits;
  return hipCreateChannelDesc(b, t.nch > 1 ? b : 0, t.nch > 2 ? b : 0, t.nch > 3 ? b : 0, t.f.kind);
}

static hipTextureDesc tex_desc(const Mode &m) {
  hipTextureDesc d;
  memset(&d, 0, sizeof(d));
  d.addressMode[0] = d.addressMode[1] = d.addressMode[2] = m.addr;
  d.filterMode = m.filter;
  d.readMode = m.read;
  d.normalizedCoords = m.norm;
  return d;
}

static bool same(uint32_t got, uint32_t want, bool ir) {
  if (ir || got == want) return got == want;
  float g = u2f(got), w = u2f(want);
  return std::fabs(g - w) <= 1e-5f * (1.0f + std::fabs(w));
}

static void run(hipTextureObject_t obj, Tex &t, int how, int dims, bool layered, const Mode &m,
                const std::vector<float4> &coords, const char *what) {
  int n = (int)coords.size();
  float4 *dc, *dout;
  CHECK(hipMalloc(&dc, n * sizeof(float4)));
  CHECK(hipMalloc(&dout, n * sizeof(float4)));
  CHECK(hipMemcpy(dc, coords.data(), n * sizeof(float4), hipMemcpyHostToDevice));
  hipLaunchKernelGGL(k_sample, dim3((n + 63) / 64), dim3(64), 0, 0, obj, how, dc, dout, n);
  CHECK(hipGetLastError());
  std::vector<float4> got(n);
  CHECK(hipMemcpy(got.data(), dout, n * sizeof(float4), hipMemcpyDeviceToHost));
  bool ir = int_result(t.f, m.read);
  for (int i = 0; i < n; i++) {
    uint32_t want[4], g[4];
    float c[4] = {coords[i].x, coords[i].y, coords[i].z, coords[i].w};
    if (how == F_FETCH1D) {
      int x = (int)c[0];
      if (x >= 0 && x < t.w) {
        texel(t, x, 0, 0, m.read, want);
      } else {
        // Out of range: zeros through the descriptor's DST_SEL, whose w is the constant 1
        // for one- and two-channel formats.
        memset(want, 0, sizeof(want));
        if (t.nch < 4) want[3] = int_result(t.f, m.read) ? 1 : f2u(1.0f);
      }
    } else {
      ref_sample(t, dims, layered, m, c, want);
    }
    memcpy(g, &got[i], 16);
    for (int q = 0; q < 4; q++)
      EXPECT(same(g[q], want[q], ir), "%s %s x%d: coord (%g, %g, %g) channel %d: got 0x%08x (%g), want 0x%08x (%g)\n",
             what, t.f.name, t.nch, c[0], c[1], c[2], q, g[q], u2f(g[q]), want[q], u2f(want[q]));
  }
  CHECK(hipFree(dc));
  CHECK(hipFree(dout));
}

// Coordinates of an axis of n texels: texel centres, 1/8 offsets, and outside the image.
static std::vector<float> axis_coords(int n, bool norm) {
  std::vector<float> v;
  for (float x = -2.125f; x < n + 2.5f; x += n > 8 ? 0.875f : 0.625f) v.push_back(norm ? x / n : x);
  return v;
}

static hipArray_t make_array(Tex &t, unsigned flags, int kind) {
  hipArray_t a;
  hipChannelFormatDesc d = desc_of(t);
  if (kind == 1) {
    CHECK(hipMallocArray(&a, &d, t.w, 0, flags));
  } else if (kind == 2) {
    CHECK(hipMallocArray(&a, &d, t.w, t.h, flags));
  } else {
    CHECK(hipMalloc3DArray(&a, &d, make_hipExtent(t.w, kind == 4 ? 0 : t.h, t.d), flags));
  }
  // The array's bytes in row-major order (hipMemcpy3D to arrays is not implemented in hipkfd).
  CHECK(hipMemcpyToArray(a, 0, 0, t.data.data(), t.data.size(), hipMemcpyHostToDevice));
  return a;
}

static hipTextureObject_t make_tex(hipArray_t a, const Mode &m) {
  hipResourceDesc r;
  memset(&r, 0, sizeof(r));
  r.resType = hipResourceTypeArray;
  r.res.array.array = a;
  hipTextureDesc d = tex_desc(m);
  hipTextureObject_t o;
  CHECK(hipCreateTextureObject(&o, &r, &d, nullptr));
  return o;
}

// Every format and channel count through a 2D array, element-type reads, point sampling,
// unnormalized coordinates; integer formats also read as normalized floats.
static void test_formats_2d() {
  for (const Fmt &f : kFormats)
    for (int nch : {1, 2, 4}) {
      Tex t{f, nch, 13, 7, 1, {}};
      fill(t);
      hipArray_t a = make_array(t, 0, 2);
      for (hipTextureReadMode rm : {hipReadModeElementType, hipReadModeNormalizedFloat}) {
        if (rm == hipReadModeNormalizedFloat && f.kind == hipChannelFormatKindFloat) continue;
        for (hipTextureFilterMode fm : {hipFilterModePoint, hipFilterModeLinear}) {
          Mode m{rm, fm, hipAddressModeClamp, false};
          if (fm == hipFilterModeLinear && int_result(f, rm)) continue;
          hipTextureObject_t o = make_tex(a, m);
          std::vector<float4> c;
          for (float y : axis_coords(t.h, false))
            for (float x : axis_coords(t.w, false)) c.push_back(make_float4(x, y, 0, 0));
          run(o, t, F_2D, 2, false, m, c, rm == hipReadModeElementType ? "2D element" : "2D normalized");
          CHECK(hipDestroyTextureObject(o));
        }
      }
      CHECK(hipFreeArray(a));
    }
}

// The address modes with normalized coordinates (and wrap/mirror falling back to clamp with
// unnormalized ones), point and linear, on 1D, 2D and layered images.
static void test_address_modes() {
  Fmt f32 = kFormats[7], u8 = kFormats[0];
  Tex t2{f32, 2, 16, 8, 1, {}};
  fill(t2);
  Tex t1{u8, 4, 8, 1, 1, {}};
  fill(t1);
  hipArray_t a2 = make_array(t2, 0, 2), a1 = make_array(t1, 0, 1);
  for (hipTextureAddressMode am : {hipAddressModeWrap, hipAddressModeClamp, hipAddressModeMirror, hipAddressModeBorder})
    for (hipTextureFilterMode fm : {hipFilterModePoint, hipFilterModeLinear})
      for (bool norm : {true, false}) {
        Mode m{hipReadModeElementType, fm, am, norm};
        hipTextureObject_t o = make_tex(a2, m);
        std::vector<float4> c;
        for (float y : axis_coords(t2.h, norm))
          for (float x : axis_coords(t2.w, norm)) c.push_back(make_float4(x, y, 0, 0));
        run(o, t2, F_2D, 2, false, m, c, "2D address");
        CHECK(hipDestroyTextureObject(o));

        Mode m1{hipReadModeNormalizedFloat, fm, am, norm};
        o = make_tex(a1, m1);
        c.clear();
        for (float x : axis_coords(t1.w, norm)) c.push_back(make_float4(x, 0, 0, 0));
        run(o, t1, F_1D, 1, false, m1, c, "1D address");
        CHECK(hipDestroyTextureObject(o));
      }
  CHECK(hipFreeArray(a2));
  CHECK(hipFreeArray(a1));
}

// 3D arrays (point; linear is refused on gfx90a as by AMD) and layered 1D/2D arrays.
static void test_3d_layered() {
  Tex t3{kFormats[2], 2, 5, 4, 3, {}};
  fill(t3);
  hipArray_t a3 = make_array(t3, 0, 3);
  for (bool norm : {false, true}) {
    Mode m{hipReadModeNormalizedFloat, hipFilterModePoint, norm ? hipAddressModeWrap : hipAddressModeClamp, norm};
    hipTextureObject_t o = make_tex(a3, m);
    std::vector<float4> c;
    for (float z : axis_coords(t3.d, norm))
      for (float y : axis_coords(t3.h, norm))
        for (float x : axis_coords(t3.w, norm)) c.push_back(make_float4(x, y, z, 0));
    run(o, t3, F_3D, 3, false, m, c, "3D");
    CHECK(hipDestroyTextureObject(o));
  }
  hipResourceDesc r;
  memset(&r, 0, sizeof(r));
  r.resType = hipResourceTypeArray;
  r.res.array.array = a3;
  hipTextureDesc d = tex_desc(Mode{hipReadModeNormalizedFloat, hipFilterModeLinear, hipAddressModeClamp, false});
  hipTextureObject_t o;
  EXPECT_ERR(hipCreateTextureObject(&o, &r, &d, nullptr), hipErrorNotSupported);
  CHECK(hipFreeArray(a3));

  // 2D layered: 6 x 5, 3 layers; 1D layered: 9 texels, 4 layers (t.h holds the layers).
  Tex tl{kFormats[7], 4, 6, 5, 3, {}};
  fill(tl);
  hipArray_t al = make_array(tl, hipArrayLayered, 3);
  Tex t1l{kFormats[6], 1, 9, 4, 1, {}};
  fill(t1l);
  hipArray_t a1l;
  hipChannelFormatDesc cd = desc_of(t1l);
  CHECK(hipMalloc3DArray(&a1l, &cd, make_hipExtent(t1l.w, 0, t1l.h), hipArrayLayered));
  CHECK(hipMemcpyToArray(a1l, 0, 0, t1l.data.data(), t1l.data.size(), hipMemcpyHostToDevice));
  for (hipTextureFilterMode fm : {hipFilterModePoint, hipFilterModeLinear}) {
    Mode m{hipReadModeElementType, fm, hipAddressModeBorder, false};
    hipTextureObject_t o2 = make_tex(al, m);
    std::vector<float4> c;
    for (float l : {-1.0f, 0.0f, 1.0f, 2.0f, 5.0f})
      for (float y : axis_coords(tl.h, false))
        for (float x : axis_coords(tl.w, false)) c.push_back(make_float4(x, y, l, 0));
    run(o2, tl, F_2DL, 2, true, m, c, "2D layered");
    CHECK(hipDestroyTextureObject(o2));
    hipTextureObject_t o1 = make_tex(a1l, m);
    c.clear();
    for (float l : {-1.0f, 0.0f, 1.0f, 3.0f, 4.0f})
      for (float x : axis_coords(t1l.w, false)) c.push_back(make_float4(x, l, 0, 0));
    run(o1, t1l, F_1DL, 1, true, m, c, "1D layered");
    CHECK(hipDestroyTextureObject(o1));
  }
  CHECK(hipFreeArray(al));
  CHECK(hipFreeArray(a1l));
}

// Linear memory through tex1Dfetch (typed buffer loads), every format; pitch2D memory through
// tex2D with linear filtering.
static void test_linear_pitch() {
  for (const Fmt &f : kFormats)
    for (int nch : {1, 2, 4}) {
      Tex t{f, nch, 37, 1, 1, {}};
      fill(t);
      void *mem;
      CHECK(hipMalloc(&mem, t.data.size()));
      CHECK(hipMemcpy(mem, t.data.data(), t.data.size(), hipMemcpyHostToDevice));
      for (hipTextureReadMode rm : {hipReadModeElementType, hipReadModeNormalizedFloat}) {
        hipResourceDesc r;
        memset(&r, 0, sizeof(r));
        r.resType = hipResourceTypeLinear;
        r.res.linear.devPtr = mem;
        r.res.linear.desc = desc_of(t);
        r.res.linear.sizeInBytes = t.data.size();
        Mode m{rm, hipFilterModePoint, hipAddressModeClamp, false};
        hipTextureDesc d = tex_desc(m);
        hipTextureObject_t o;
        CHECK(hipCreateTextureObject(&o, &r, &d, nullptr));
        std::vector<float4> c;
        for (int x = -3; x < t.w + 3; x++) c.push_back(make_float4((float)x, 0, 0, 0));
        run(o, t, F_FETCH1D, 1, false, m, c, "linear fetch");
        CHECK(hipDestroyTextureObject(o));
      }
      CHECK(hipFree(mem));
    }

  Tex t{kFormats[3], 2, 21, 6, 1, {}};
  fill(t);
  void *mem;
  size_t pitch;
  CHECK(hipMallocPitch(&mem, &pitch, t.w * t.es(), t.h));
  CHECK(hipMemcpy2D(mem, pitch, t.data.data(), t.w * t.es(), t.w * t.es(), t.h, hipMemcpyHostToDevice));
  hipResourceDesc r;
  memset(&r, 0, sizeof(r));
  r.resType = hipResourceTypePitch2D;
  r.res.pitch2D.devPtr = mem;
  r.res.pitch2D.desc = desc_of(t);
  r.res.pitch2D.width = t.w;
  r.res.pitch2D.height = t.h;
  r.res.pitch2D.pitchInBytes = pitch;
  for (bool norm : {false, true}) {
    Mode m{hipReadModeNormalizedFloat, hipFilterModeLinear, norm ? hipAddressModeMirror : hipAddressModeClamp, norm};
    hipTextureDesc d = tex_desc(m);
    hipTextureObject_t o;
    CHECK(hipCreateTextureObject(&o, &r, &d, nullptr));
    std::vector<float4> c;
    for (float y : {-0.5f, 0.5f, 1.625f, 3.0f, 5.875f, 7.0f})
      for (float x : {-1.0f, 0.5f, 3.25f, 10.0f, 20.5f, 22.125f})
        c.push_back(norm ? make_float4(x / t.w, y / t.h, 0, 0) : make_float4(x, y, 0, 0));
    run(o, t, F_2D, 2, false, m, c, "pitch2D");
    CHECK(hipDestroyTextureObject(o));
  }
  CHECK(hipFree(mem));
}

// Narrow return types: the texture unit's 32-bit values converted to the requested type.
static void test_typed() {
  Tex u8{kFormats[0], 4, 8, 2, 1, {}}, s32{kFormats[5], 1, 8, 1, 1, {}}, s16{kFormats[3], 2, 8, 1, 1, {}},
      f32{kFormats[7], 1, 8, 1, 1, {}}, s8{kFormats[1], 4, 8, 1, 1, {}};
  for (Tex *t : {&u8, &s32, &s16, &f32, &s8}) fill(*t);
  Mode m{hipReadModeElementType, hipFilterModePoint, hipAddressModeClamp, false};
  hipArray_t a[4] = {make_array(u8, 0, 2), make_array(s32, 0, 2), make_array(s16, 0, 2), make_array(f32, 0, 2)};
  hipTextureObject_t o[5];
  for (int i = 0; i < 4; i++) o[i] = make_tex(a[i], m);
  void *lin;
  CHECK(hipMalloc(&lin, s8.data.size()));
  CHECK(hipMemcpy(lin, s8.data.data(), s8.data.size(), hipMemcpyHostToDevice));
  hipResourceDesc r;
  memset(&r, 0, sizeof(r));
  r.resType = hipResourceTypeLinear;
  r.res.linear.devPtr = lin;
  r.res.linear.desc = desc_of(s8);
  r.res.linear.sizeInBytes = s8.data.size();
  hipTextureDesc d = tex_desc(m);
  CHECK(hipCreateTextureObject(&o[4], &r, &d, nullptr));
  uchar4 *du8; int *ds32; short2 *ds16; float *df32; char4 *ds8;
  CHECK(hipMalloc(&du8, 8 * sizeof(uchar4)));
  CHECK(hipMalloc(&ds32, 8 * sizeof(int)));
  CHECK(hipMalloc(&ds16, 8 * sizeof(short2)));
  CHECK(hipMalloc(&df32, 8 * sizeof(float)));
  CHECK(hipMalloc(&ds8, 8 * sizeof(char4)));
  hipLaunchKernelGGL(k_typed, dim3(1), dim3(8), 0, 0, o[0], o[1], o[2], o[3], o[4], du8, ds32, ds16, df32, ds8);
  CHECK(hipGetLastError());
  uchar4 hu8[8]; int hs32[8]; short2 hs16[8]; float hf32[8]; char4 hs8[8];
  CHECK(hipMemcpy(hu8, du8, sizeof(hu8), hipMemcpyDeviceToHost));
  CHECK(hipMemcpy(hs32, ds32, sizeof(hs32), hipMemcpyDeviceToHost));
  CHECK(hipMemcpy(hs16, ds16, sizeof(hs16), hipMemcpyDeviceToHost));
  CHECK(hipMemcpy(hf32, df32, sizeof(hf32), hipMemcpyDeviceToHost));
  CHECK(hipMemcpy(hs8, ds8, sizeof(hs8), hipMemcpyDeviceToHost));
  for (int i = 0; i < 8; i++) {
    EXPECT(memcmp(&hu8[i], u8.at(i, 1, 0), 4) == 0, "tex2D<uchar4> texel %d\n", i);
    EXPECT(memcmp(&hs32[i], s32.at(i, 0, 0), 4) == 0, "tex2D<int> texel %d\n", i);
    EXPECT(memcmp(&hs16[i], s16.at(i, 0, 0), 4) == 0, "tex2D<short2> texel %d\n", i);
    EXPECT(memcmp(&hf32[i], f32.at(i, 0, 0), 4) == 0, "tex2D(float *) texel %d\n", i);
    EXPECT(memcmp(&hs8[i], s8.at(i, 0, 0), 4) == 0, "tex1Dfetch<char4> element %d\n", i);
  }
  for (hipTextureObject_t x : o) CHECK(hipDestroyTextureObject(x));
  for (hipArray_t x : a) CHECK(hipFreeArray(x));
  CHECK(hipFree(lin));
  CHECK(hipFree(du8)); CHECK(hipFree(ds32)); CHECK(hipFree(ds16)); CHECK(hipFree(df32)); CHECK(hipFree(ds8));
}

// Descriptor queries, the driver-API twins and the errors AMD's runtime returns.
static void test_api() {
  Tex t{kFormats[7], 1, 16, 16, 1, {}};
  fill(t);
  hipArray_t a = make_array(t, 0, 2);
  hipResourceDesc r;
  memset(&r, 0, sizeof(r));
  r.resType = hipResourceTypeArray;
  r.res.array.array = a;
  Mode m{hipReadModeElementType, hipFilterModeLinear, hipAddressModeWrap, true};
  hipTextureDesc d = tex_desc(m);
  d.borderColor[2] = 0.5f;
  hipTextureObject_t o;
  EXPECT_ERR(hipCreateTextureObject(nullptr, &r, &d, nullptr), hipErrorInvalidValue);
  EXPECT_ERR(hipCreateTextureObject(&o, nullptr, &d, nullptr), hipErrorInvalidValue);
  EXPECT_ERR(hipCreateTextureObject(&o, &r, nullptr, nullptr), hipErrorInvalidValue);
  hipTextureDesc bad = d;
  bad.maxAnisotropy = 4;
  EXPECT_ERR(hipCreateTextureObject(&o, &r, &bad, nullptr), hipErrorNotSupported);
  bad = d;
  bad.mipmapLevelBias = 1.0f;
  EXPECT_ERR(hipCreateTextureObject(&o, &r, &bad, nullptr), hipErrorNotSupported);
  hipResourceDesc rb = r;
  rb.res.array.array = nullptr;
  EXPECT_ERR(hipCreateTextureObject(&o, &rb, &d, nullptr), hipErrorInvalidValue);
  rb.resType = (hipResourceType)9;
  EXPECT_ERR(hipCreateTextureObject(&o, &rb, &d, nullptr), hipErrorInvalidValue);
  void *mem;
  CHECK(hipMalloc(&mem, 4096));
  memset(&rb, 0, sizeof(rb));
  rb.resType = hipResourceTypeLinear;
  rb.res.linear.devPtr = (char *)mem + 4;  // not aligned to textureAlignment (256)
  rb.res.linear.desc = hipCreateChannelDesc(32, 0, 0, 0, hipChannelFormatKindFloat);
  rb.res.linear.sizeInBytes = 1024;
  EXPECT_ERR(hipCreateTextureObject(&o, &rb, &d, nullptr), hipErrorInvalidValue);
  rb.res.linear.devPtr = mem;
  rb.res.linear.desc = hipCreateChannelDesc(24, 0, 0, 0, hipChannelFormatKindFloat);
  EXPECT_ERR(hipCreateTextureObject(&o, &rb, &d, nullptr), hipErrorInvalidValue);
  memset(&rb, 0, sizeof(rb));
  rb.resType = hipResourceTypePitch2D;
  rb.res.pitch2D.devPtr = mem;
  rb.res.pitch2D.desc = hipCreateChannelDesc(32, 0, 0, 0, hipChannelFormatKindFloat);
  rb.res.pitch2D.width = 8;
  rb.res.pitch2D.height = 4;
  rb.res.pitch2D.pitchInBytes = 100;  // not a multiple of texturePitchAlignment (256)
  EXPECT_ERR(hipCreateTextureObject(&o, &rb, &d, nullptr), hipErrorInvalidValue);
  // sRGB: a buffer read cannot degamma, so linear memory is refused as AMD refuses it
  // (hipErrorInvalidValue, which programs take as "skip"); images do not model it.
  bad = d;
  bad.sRGB = 1;
  memset(&rb, 0, sizeof(rb));
  rb.resType = hipResourceTypeLinear;
  rb.res.linear.devPtr = mem;
  rb.res.linear.desc = hipCreateChannelDesc(8, 8, 8, 8, hipChannelFormatKindUnsigned);
  rb.res.linear.sizeInBytes = 1024;
  o = (hipTextureObject_t)0x5e5e;
  EXPECT_ERR(hipCreateTextureObject(&o, &rb, &bad, nullptr), hipErrorInvalidValue);
  EXPECT(o == (hipTextureObject_t)0x5e5e, "failed sRGB create wrote its output\n");
  EXPECT_ERR(hipCreateTextureObject(&o, &r, &bad, nullptr), hipErrorNotSupported);

  CHECK(hipCreateTextureObject(&o, &r, &d, nullptr));
  hipResourceDesc gr;
  hipTextureDesc gt;
  hipResourceViewDesc gv;
  CHECK(hipGetTextureObjectResourceDesc(&gr, o));
  EXPECT(gr.resType == hipResourceTypeArray && gr.res.array.array == a, "resource desc round trip\n");
  CHECK(hipGetTextureObjectTextureDesc(&gt, o));
  EXPECT(memcmp(&gt, &d, sizeof(d)) == 0, "texture desc round trip\n");
  CHECK(hipGetTextureObjectResourceViewDesc(&gv, o));
  EXPECT(gv.format == hipResViewFormatNone, "empty view desc\n");
  EXPECT_ERR(hipGetTextureObjectResourceDesc(nullptr, o), hipErrorInvalidValue);
  EXPECT_ERR(hipGetTextureObjectTextureDesc(&gt, nullptr), hipErrorInvalidValue);
  HIP_TEXTURE_DESC dt;
  HIP_RESOURCE_DESC dr;
  CHECK(hipTexObjectGetTextureDesc(&dt, o));
  EXPECT(dt.flags == (HIP_TRSF_READ_AS_INTEGER | HIP_TRSF_NORMALIZED_COORDINATES) &&
             dt.filterMode == HIP_TR_FILTER_MODE_LINEAR && dt.addressMode[1] == HIP_TR_ADDRESS_MODE_WRAP,
         "driver texture desc flags 0x%x\n", dt.flags);
  CHECK(hipTexObjectGetResourceDesc(&dr, o));
  EXPECT(dr.resType == HIP_RESOURCE_TYPE_ARRAY && dr.res.array.hArray == a, "driver resource desc\n");
  CHECK(hipDestroyTextureObject(o));
  EXPECT_ERR(hipDestroyTextureObject(nullptr), hipSuccess);

  // hipTexObjectCreate over linear memory, read back through the runtime-API query.
  memset(&dr, 0, sizeof(dr));
  dr.resType = HIP_RESOURCE_TYPE_LINEAR;
  dr.res.linear.devPtr = (hipDeviceptr_t)mem;
  dr.res.linear.format = HIP_AD_FORMAT_SIGNED_INT16;
  dr.res.linear.numChannels = 2;
  dr.res.linear.sizeInBytes = 4096;
  memset(&dt, 0, sizeof(dt));
  dt.flags = HIP_TRSF_READ_AS_INTEGER;
  CHECK(hipTexObjectCreate(&o, &dr, &dt, nullptr));
  CHECK(hipGetTextureObjectResourceDesc(&gr, o));
  EXPECT(gr.resType == hipResourceTypeLinear && gr.res.linear.desc.x == 16 && gr.res.linear.desc.y == 16 &&
             gr.res.linear.desc.z == 0 && gr.res.linear.desc.f == hipChannelFormatKindSigned &&
             gr.res.linear.sizeInBytes == 4096,
         "hipTexObjectCreate linear desc\n");
  CHECK(hipGetTextureObjectTextureDesc(&gt, o));
  EXPECT(gt.readMode == hipReadModeElementType && gt.normalizedCoords == 0, "hipTexObjectCreate read mode\n");
  CHECK(hipTexObjectDestroy(o));
  EXPECT_ERR(hipTexObjectCreate(&o, nullptr, &dt, nullptr), hipErrorInvalidValue);
  CHECK(hipFree(mem));
  CHECK(hipFreeArray(a));
}

int main() {
  hipDeviceProp_t prop;
  CHECK(hipGetDeviceProperties(&prop, 0));
  if (strncmp(prop.gcnArchName, "gfx94", 5) == 0) {
    // No image instructions: every texture object creation is refused.
    float *mem;
    CHECK(hipMalloc(&mem, 1024));
    hipResourceDesc r;
    memset(&r, 0, sizeof(r));
    r.resType = hipResourceTypeLinear;
    r.res.linear.devPtr = mem;
    r.res.linear.desc = hipCreateChannelDesc(32, 0, 0, 0, hipChannelFormatKindFloat);
    r.res.linear.sizeInBytes = 1024;
    hipTextureDesc d;
    memset(&d, 0, sizeof(d));
    hipTextureObject_t o;
    EXPECT_ERR(hipCreateTextureObject(&o, &r, &d, nullptr), hipErrorNotSupported);
    CHECK(hipFree(mem));
  } else {
    test_api();
    test_typed();
    test_formats_2d();
    test_address_modes();
    test_3d_layered();
    test_linear_pitch();
  }
  if (failures) {
    printf("FAILED: %d mismatches\n", failures);
    return 1;
  }
  printf("%ld values and results checked\nPASSED\n", checks);
  return 0;
}
