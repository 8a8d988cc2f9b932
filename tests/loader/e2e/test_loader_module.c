/* hipModule*: loading code objects and bundles written at build time, launching through
 * kernelParams and `extra`, globals, and the errors for bad images. */
#include <criterion/criterion.h>
#include <hip/hip_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HIP_OK(expr) cr_assert_eq((expr), hipSuccess, "%s", #expr)

static void *read_all(const char *path, size_t *size)
{
  FILE *f = fopen(path, "rb");
  cr_assert_not_null(f, "%s", path);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  void *p = malloc((size_t)n);
  cr_assert_eq(fread(p, 1, (size_t)n, f), (size_t)n);
  fclose(f);
  *size = (size_t)n;
  return p;
}

static void run_axpy(hipModule_t m, bool use_extra)
{
  hipFunction_t f;
  HIP_OK(hipModuleGetFunction(&f, m, "axpy"));
  const int n = 300;
  float hx[300], hy[300];
  for (int i = 0; i < n; i++) {
    hx[i] = (float)i;
    hy[i] = 1.0f;
  }
  float *x, *y;
  HIP_OK(hipMalloc((void **)&x, sizeof(hx)));
  HIP_OK(hipMalloc((void **)&y, sizeof(hy)));
  HIP_OK(hipMemcpy(x, hx, sizeof(hx), hipMemcpyHostToDevice));
  HIP_OK(hipMemcpy(y, hy, sizeof(hy), hipMemcpyHostToDevice));
  float a = 2.0f;
  int nn = n;
  if (use_extra) {
    struct { float a; int pad; const float *x; float *y; int n; } packed = {a, 0, x, y, nn};
    size_t size = sizeof(packed);
    void *extra[] = {HIP_LAUNCH_PARAM_BUFFER_POINTER, &packed, HIP_LAUNCH_PARAM_BUFFER_SIZE, &size,
                     HIP_LAUNCH_PARAM_END};
    HIP_OK(hipModuleLaunchKernel(f, 5, 1, 1, 64, 1, 1, 0, NULL, NULL, extra));
  } else {
    void *params[] = {&a, &x, &y, &nn};
    HIP_OK(hipModuleLaunchKernel(f, 5, 1, 1, 64, 1, 1, 0, NULL, params, NULL));
  }
  HIP_OK(hipDeviceSynchronize());
  HIP_OK(hipMemcpy(hy, y, sizeof(hy), hipMemcpyDeviceToHost));
  for (int i = 0; i < n; i++)
    cr_assert_float_eq(hy[i], 2.0f * i + 2.0f, 0.0f, "y[%d] = %f", i, hy[i]);
  HIP_OK(hipFree(x));
  HIP_OK(hipFree(y));
}

Test(module, load_code_object_file)
{
  hipModule_t m;
  HIP_OK(hipModuleLoad(&m, MODULE_DIR "/module_kernels_gfx942.hsaco"));
  run_axpy(m, false);
  run_axpy(m, true);
  const char *name = hipKernelNameRef(NULL);
  cr_assert_null(name);
  HIP_OK(hipModuleUnload(m));
}

Test(module, load_bundle_file_and_globals)
{
  hipModule_t m;
  HIP_OK(hipModuleLoad(&m, MODULE_DIR "/module_kernels.bundle"));
  hipDeviceptr_t p;
  size_t size;
  HIP_OK(hipModuleGetGlobal(&p, &size, m, "module_scale"));
  cr_assert_eq(size, 4 * sizeof(float));
  float scale[4];
  HIP_OK(hipMemcpy(scale, p, sizeof(scale), hipMemcpyDeviceToHost));
  cr_assert_float_eq(scale[3], 4.0f, 0.0f);
  unsigned count;
  HIP_OK(hipModuleGetFunctionCount(&count, m));
  cr_assert_eq(count, 2);
  run_axpy(m, false);
  HIP_OK(hipModuleUnload(m));
}

Test(module, load_data_compressed_and_partial_groups)
{
  size_t size;
  void *image = read_all(MODULE_DIR "/module_kernels.ccob", &size);
  hipModule_t m;
  HIP_OK(hipModuleLoadData(&m, image));
  free(image); /* the module keeps its own copy */
  hipFunction_t f;
  HIP_OK(hipModuleGetFunction(&f, m, "count_items"));
  int *out;
  HIP_OK(hipMalloc((void **)&out, 4 * sizeof(int)));
  HIP_OK(hipMemset(out, 0, 4 * sizeof(int)));
  /* The grid counts work-items here. HIP kernels are built for uniform work-groups, so a partial
   * last group (100 items in groups of 64) is refused, as AMD's runtime does. */
  void *params[] = {&out};
  cr_assert_eq(hipExtModuleLaunchKernel(f, 100, 1, 1, 64, 1, 1, 0, NULL, params, NULL, NULL, NULL, 0),
               hipErrorInvalidValue);
  HIP_OK(hipExtModuleLaunchKernel(f, 192, 1, 1, 64, 1, 1, 0, NULL, params, NULL, NULL, NULL, 0));
  HIP_OK(hipDeviceSynchronize());
  int r[4];
  HIP_OK(hipMemcpy(r, out, sizeof(r), hipMemcpyDeviceToHost));
  cr_assert_eq(r[0], 192);
  cr_assert_eq(r[1], 3);
  cr_assert_eq(r[2], 64);
  cr_assert_eq(r[3], 5);
  HIP_OK(hipFree(out));
  HIP_OK(hipModuleUnload(m));
}

Test(module, errors)
{
  hipModule_t m;
  hipFunction_t f;
  cr_assert_eq(hipModuleLoad(&m, MODULE_DIR "/does-not-exist.hsaco"), hipErrorFileNotFound);
  cr_assert_eq(hipModuleLoad(&m, ""), hipErrorInvalidValue);
  cr_assert_eq(hipModuleLoad(&m, MODULE_DIR "/module_kernels_gfx90a.hsaco"), hipErrorNoBinaryForGpu);
  static const char garbage[256] = "this is not a code object";
  cr_assert_eq(hipModuleLoadData(&m, garbage), hipErrorInvalidImage);
  {
    char path[] = "/tmp/hipkfd-not-a-code-object-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    cr_assert_eq(write(fd, garbage, sizeof(garbage)), (ssize_t)sizeof(garbage));
    close(fd);
    cr_assert_eq(hipModuleLoad(&m, path), hipErrorInvalidImage, "a file that is no code object");
    unlink(path);
  }
  cr_assert_eq(hipModuleLoad(NULL, MODULE_DIR "/module_kernels.bundle"), hipErrorInvalidValue);

  HIP_OK(hipModuleLoad(&m, MODULE_DIR "/module_kernels_gfx942.hsaco"));
  cr_assert_eq(hipModuleGetFunction(&f, m, "no_such_kernel"), hipErrorNotFound);
  hipDeviceptr_t p;
  size_t size;
  cr_assert_eq(hipModuleGetGlobal(&p, &size, m, "no_such_global"), hipErrorNotFound);
  cr_assert_eq(hipModuleGetGlobal(&p, &size, m, ""), hipErrorInvalidValue);
  HIP_OK(hipModuleGetFunction(&f, m, "axpy"));
  int dummy = 0;
  void *params[] = {&dummy, &dummy, &dummy, &dummy};
  void *extra[] = {HIP_LAUNCH_PARAM_END};
  cr_assert_eq(hipModuleLaunchKernel(f, 1, 1, 1, 64, 1, 1, 0, NULL, params, extra), hipErrorInvalidValue);
  cr_assert_eq(hipModuleLaunchKernel(f, 1, 1, 1, 2048, 1, 1, 0, NULL, params, NULL), hipErrorInvalidValue);
  cr_assert_eq(hipModuleLaunchKernel(f, 0, 1, 1, 64, 1, 1, 0, NULL, params, NULL), hipErrorInvalidValue);
  cr_assert_eq(hipModuleLaunchKernel(NULL, 1, 1, 1, 64, 1, 1, 0, NULL, params, NULL),
               hipErrorInvalidResourceHandle);
  HIP_LAUNCH_CONFIG cfg = {0};
  cfg.gridDimX = cfg.gridDimY = cfg.gridDimZ = 1;
  cfg.blockDimX = 4096;
  cfg.blockDimY = cfg.blockDimZ = 1;
  cr_assert_eq(hipDrvLaunchKernelEx(&cfg, f, params, NULL), hipErrorInvalidValue);
  int blocks;
  HIP_OK(hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, f, 64, 0));
  cr_assert(blocks >= 1 && blocks <= 32);
  HIP_OK(hipModuleUnload(m));
  cr_assert_eq(hipModuleUnload(NULL), hipErrorInvalidResourceHandle);
}
