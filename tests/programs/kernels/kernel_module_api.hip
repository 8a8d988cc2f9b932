// The module API on a code object written at build time (path in HIPKFD_PROG_MODULE): hipModuleLoad
// and hipModuleLoadData (the same image read into memory), hipModuleGetFunction,
// hipModuleLaunchKernel with kernelParams and with `extra`, hipModuleGetGlobal,
// hipFuncGetAttribute, hipModuleUnload, and the errors for missing names.
#include <hip/hip_runtime.h>
#include <string.h>
#include "../check.h"

static void *read_file(const char *path, size_t *size)
{
  FILE *f = fopen(path, "rb");
  CHECK(f != nullptr);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  CHECK(n > 0);
  void *buf = malloc((size_t)n);
  CHECK(fread(buf, 1, (size_t)n, f) == (size_t)n);
  fclose(f);
  *size = (size_t)n;
  return buf;
}

static int run_scale(hipModule_t mod, int expect_bias)
{
  hipFunction_t fn;
  CHECK_HIP(hipModuleGetFunction(&fn, mod, "mod_scale"));
  const int n = 300;
  int h[n], back[n];
  for (int i = 0; i < n; i++)
    h[i] = i - 100;
  int *in, *out;
  CHECK_HIP(hipMalloc(&in, sizeof(h)));
  CHECK_HIP(hipMalloc(&out, sizeof(h)));
  CHECK_HIP(hipMemcpy(in, h, sizeof(h), hipMemcpyHostToDevice));
  int scale = 3, count = n;
  void *params[] = {&in, &out, &scale, &count};
  CHECK_HIP(hipModuleLaunchKernel(fn, (n + 63) / 64, 1, 1, 64, 1, 1, 0, 0, params, nullptr));
  CHECK_HIP(hipMemcpy(back, out, sizeof(back), hipMemcpyDeviceToHost));
  for (int i = 0; i < n; i++)
    if (back[i] != h[i] * 3 + expect_bias) {
      fprintf(stderr, "mod_scale[%d] = %d, want %d\n", i, back[i], h[i] * 3 + expect_bias);
      return 1;
    }
  CHECK_HIP(hipFree(in));
  CHECK_HIP(hipFree(out));
  return 0;
}

static int run_mixed_extra(hipModule_t mod)
{
  hipFunction_t fn;
  CHECK_HIP(hipModuleGetFunction(&fn, mod, "mod_mixed"));
  float *out;
  CHECK_HIP(hipMalloc(&out, 16 * sizeof(float)));
  // The kernarg layout of (float*, char, double, int): 0, 8, 16, 24; 28 bytes padded to 32.
  struct {
    float *out;
    char c;
    double d;
    int k;
  } args;
  memset(&args, 0, sizeof(args));
  args.out = out;
  args.c = 7;
  args.d = 2.5;
  args.k = 4;
  size_t size = sizeof(args);
  void *extra[] = {HIP_LAUNCH_PARAM_BUFFER_POINTER, &args, HIP_LAUNCH_PARAM_BUFFER_SIZE, &size,
                   HIP_LAUNCH_PARAM_END};
  CHECK_HIP(hipModuleLaunchKernel(fn, 1, 1, 1, 64, 1, 1, 0, 0, nullptr, extra));
  float back[16];
  CHECK_HIP(hipMemcpy(back, out, sizeof(back), hipMemcpyDeviceToHost));
  for (int i = 0; i < 16; i++)
    if (back[i] != 7.0f + 10.0f + (float)i * 0.25f) {
      fprintf(stderr, "mod_mixed[%d] = %f\n", i, back[i]);
      return 1;
    }
  // Both kernelParams and extra, or neither, are refused.
  void *params[] = {&out};
  CHECK(hipModuleLaunchKernel(fn, 1, 1, 1, 64, 1, 1, 0, 0, params, extra) != hipSuccess);
  (void)hipGetLastError();
  CHECK_HIP(hipFree(out));
  return 0;
}

int main()
{
  const char *path = getenv("HIPKFD_PROG_MODULE");
  if (!path) {
    fprintf(stderr, "HIPKFD_PROG_MODULE is not set\n");
    return 1;
  }
  // hipModuleLoad from the file.
  hipModule_t mod;
  CHECK_HIP(hipModuleLoad(&mod, path));
  hipDeviceptr_t gptr;
  size_t gsize = 0;
  CHECK_HIP(hipModuleGetGlobal(&gptr, &gsize, mod, "module_bias"));
  CHECK(gsize == sizeof(int));
  int bias = 0;
  CHECK_HIP(hipMemcpyDtoH(&bias, gptr, sizeof(int)));
  CHECK(bias == 5);
  if (run_scale(mod, 5))
    return 1;
  // Change the global, the kernel sees it.
  bias = -20;
  CHECK_HIP(hipMemcpyHtoD(gptr, &bias, sizeof(int)));
  if (run_scale(mod, -20))
    return 1;

  float table[16];
  for (int i = 0; i < 16; i++)
    table[i] = 0.25f * i;
  CHECK_HIP(hipModuleGetGlobal(&gptr, &gsize, mod, "module_table"));
  CHECK(gsize == sizeof(table));
  CHECK_HIP(hipMemcpyHtoD(gptr, table, sizeof(table)));
  if (run_mixed_extra(mod))
    return 1;

  hipFunction_t fn;
  int regs = -1, maxthreads = 0;
  CHECK_HIP(hipModuleGetFunction(&fn, mod, "mod_scale"));
  CHECK_HIP(hipFuncGetAttribute(&maxthreads, HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, fn));
  CHECK(maxthreads > 0 && maxthreads <= 1024);
  CHECK_HIP(hipFuncGetAttribute(&regs, HIP_FUNC_ATTRIBUTE_NUM_REGS, fn));
  CHECK(regs > 0);

  // Missing names.
  EXPECT_HIP(hipModuleGetFunction(&fn, mod, "no_such_kernel"), hipErrorNotFound);
  EXPECT_HIP(hipModuleGetGlobal(&gptr, &gsize, mod, "no_such_global"), hipErrorNotFound);
  (void)hipGetLastError();
  CHECK_HIP(hipModuleUnload(mod));

  // hipModuleLoadData from memory: a fresh module with fresh globals.
  size_t size = 0;
  void *image = read_file(path, &size);
  hipModule_t mod2;
  CHECK_HIP(hipModuleLoadData(&mod2, image));
  if (run_scale(mod2, 5))
    return 1;
  CHECK_HIP(hipModuleUnload(mod2));
  free(image);

  // Bad images and paths.
  hipModule_t bad;
  CHECK(hipModuleLoad(&bad, "/nonexistent/module.co") != hipSuccess);
  static const char junk[64] = "this is not a code object";
  CHECK(hipModuleLoadData(&bad, junk) != hipSuccess);
  (void)hipGetLastError();
  printf("PASSED\n");
  return 0;
}
