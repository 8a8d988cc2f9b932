// hipModuleGetTexRef: a texture reference inside a loaded code object (module/tex_module_lib.hip,
// path in HIPKFD_TEX_MODULE), bound with hipTexRefSetArray and sampled by a module kernel.
// On gfx942 binding is refused (hipErrorNotSupported). Prints PASSED when everything matched.
#include <hip/hip_runtime.h>

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
#define EXPECT(cond, ...)                                                                  \
  do {                                                                                     \
    if (!(cond)) {                                                                         \
      if (++failures <= 30) printf(__VA_ARGS__);                                          \
    }                                                                                      \
  } while (0)

int main() {
  const char *path = getenv("HIPKFD_TEX_MODULE");
  if (!path) {
    printf("HIPKFD_TEX_MODULE is not set\n");
    return 1;
  }
  const int W = 16, H = 3;
  hipModule_t mod;
  CHECK(hipModuleLoad(&mod, path));
  textureReference *ref = nullptr, *again = nullptr;
  CHECK(hipModuleGetTexRef(&ref, mod, "mod_tex"));
  CHECK(hipModuleGetTexRef(&again, mod, "mod_tex"));
  EXPECT(ref && ref == again, "one host reference per module texture\n");
  textureReference *none = nullptr;
  hipError_t e = hipModuleGetTexRef(&none, mod, "no_such_texture");
  EXPECT(e != hipSuccess, "unknown texture name accepted\n");
  (void)hipGetLastError();

  hipChannelFormatDesc d = hipCreateChannelDesc(32, 0, 0, 0, hipChannelFormatKindFloat);
  hipArray_t arr;
  CHECK(hipMallocArray(&arr, &d, W, H, 0));
  std::vector<float> h(W * H);
  for (int i = 0; i < W * H; i++) h[i] = 0.25f * i - 1.0f;
  CHECK(hipMemcpy2DToArray(arr, 0, 0, h.data(), W * 4, W * 4, H, hipMemcpyHostToDevice));
  CHECK(hipTexRefSetFormat(ref, HIP_AD_FORMAT_FLOAT, 1));
  CHECK(hipTexRefSetFlags(ref, HIP_TRSF_READ_AS_INTEGER));
  CHECK(hipTexRefSetFilterMode(ref, hipFilterModePoint));
  CHECK(hipTexRefSetAddressMode(ref, 0, hipAddressModeClamp));
  CHECK(hipTexRefSetAddressMode(ref, 1, hipAddressModeClamp));

  hipDeviceProp_t prop;
  CHECK(hipGetDeviceProperties(&prop, 0));
  if (strncmp(prop.gcnArchName, "gfx94", 5) == 0) {
    e = hipTexRefSetArray(ref, arr, HIP_TRSA_OVERRIDE_FORMAT);
    EXPECT(e == hipErrorNotSupported, "gfx942 binding returned %s\n", hipGetErrorName(e));
  } else {
    CHECK(hipTexRefSetArray(ref, arr, HIP_TRSA_OVERRIDE_FORMAT));
    hipFunction_t f;
    CHECK(hipModuleGetFunction(&f, mod, "mod_fetch"));
    float *out;
    CHECK(hipMalloc(&out, W * sizeof(float)));
    struct {
      float *out;
      float y;
    } args = {out, 2.5f};
    size_t size = sizeof(args);
    void *config[] = {HIP_LAUNCH_PARAM_BUFFER_POINTER, &args, HIP_LAUNCH_PARAM_BUFFER_SIZE, &size,
                      HIP_LAUNCH_PARAM_END};
    CHECK(hipModuleLaunchKernel(f, 1, 1, 1, W, 1, 1, 0, nullptr, nullptr, config));
    std::vector<float> got(W);
    CHECK(hipMemcpy(got.data(), out, W * sizeof(float), hipMemcpyDeviceToHost));
    for (int i = 0; i < W; i++) EXPECT(got[i] == h[2 * W + i], "texel %d: %g, want %g\n", i, got[i], h[2 * W + i]);
    CHECK(hipFree(out));
  }
  CHECK(hipFreeArray(arr));
  CHECK(hipModuleUnload(mod));
  if (failures) {
    printf("FAILED: %d mismatches\n", failures);
    return 1;
  }
  printf("PASSED\n");
  return 0;
}
