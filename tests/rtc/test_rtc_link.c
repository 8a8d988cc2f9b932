/* Relocatable device code: hiprtc with -fgpu-rdc gives bitcode, hiprtcLink* and hipLink* join
 * bitcode (raw, and clang offload bundles as `hipcc -fgpu-rdc -c` writes them) into one code
 * object whose kernels call __device__ functions and read __device__ variables of other inputs.
 * Values are read back from the GPU; every misuse gets its error code. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hip/hip_runtime_api.h>
#include <hip/hiprtc.h>

static const char *lib_src =
    "__device__ int scale(int x) { return 3 * x + 1; }\n"
    "__device__ int bias = 5;\n";

static const char *main_src =
    "extern __device__ int scale(int);\n"
    "extern __device__ int bias;\n"
    "extern __device__ int twice(int);\n" /* from the offload bundle, when it is linked */
    "extern \"C\" __global__ void apply(int *p) { p[threadIdx.x] = scale(threadIdx.x) + bias; }\n"
    "template <int K> __global__ void add_twice(int *p) { p[threadIdx.x] += twice(K); }\n";

/* Compiles `src` with -fgpu-rdc; returns its bitcode (malloc'd) and size. */
static char *rdc_bitcode(const char *src, const char *name_expr, const char **lowered,
                         hiprtcProgram *keep, size_t *size)
{
  hiprtcProgram prog;
  const char *opts[] = {"-fgpu-rdc"};
  cr_assert_eq(hiprtcCreateProgram(&prog, src, "rdc.hip", 0, NULL, NULL), HIPRTC_SUCCESS);
  if (name_expr)
    cr_assert_eq(hiprtcAddNameExpression(prog, name_expr), HIPRTC_SUCCESS);
  hiprtcResult r = hiprtcCompileProgram(prog, 1, opts);
  if (r != HIPRTC_SUCCESS) {
    size_t n = 0;
    hiprtcGetProgramLogSize(prog, &n);
    char *log = malloc(n);
    hiprtcGetProgramLog(prog, log);
    cr_log_error("compile log: %s", log);
    free(log);
  }
  cr_assert_eq(r, HIPRTC_SUCCESS);
  size_t code = 1;
  cr_assert_eq(hiprtcGetCodeSize(prog, &code), HIPRTC_SUCCESS);
  cr_assert_eq(code, 0, "an -fgpu-rdc program has bitcode, no code object");
  cr_assert_eq(hiprtcGetBitcodeSize(prog, size), HIPRTC_SUCCESS);
  cr_assert_gt(*size, 16);
  char *bc = malloc(*size);
  cr_assert_eq(hiprtcGetBitcode(prog, bc), HIPRTC_SUCCESS);
  cr_assert(memcmp(bc, "BC\xc0\xde", 4) == 0, "raw LLVM bitcode");
  if (name_expr)
    cr_assert_eq(hiprtcGetLoweredName(prog, name_expr, lowered), HIPRTC_SUCCESS);
  if (keep)
    *keep = prog;
  else
    hiprtcDestroyProgram(&prog);
  return bc;
}

static char *read_bundle(size_t *size)
{
  FILE *f = fopen(RTC_LINK_BUNDLE, "rb");
  cr_assert_not_null(f, "%s", RTC_LINK_BUNDLE);
  fseek(f, 0, SEEK_END);
  *size = (size_t)ftell(f);
  fseek(f, 0, SEEK_SET);
  char *b = malloc(*size);
  cr_assert_eq(fread(b, 1, *size, f), *size);
  fclose(f);
  return b;
}

/* apply: p[i] = 3i + 1 + 5; then add_twice<4>: p[i] += 8. */
static void run_linked(const void *image, const char *add_twice_name)
{
  hipModule_t m;
  hipFunction_t apply, add;
  int *d, h[64];
  cr_assert_eq(hipModuleLoadData(&m, image), hipSuccess);
  cr_assert_eq(hipModuleGetFunction(&apply, m, "apply"), hipSuccess);
  cr_assert_eq(hipModuleGetFunction(&add, m, add_twice_name), hipSuccess);
  cr_assert_eq(hipMalloc((void **)&d, sizeof(h)), hipSuccess);
  void *args[] = {&d};
  cr_assert_eq(hipModuleLaunchKernel(apply, 1, 1, 1, 64, 1, 1, 0, NULL, args, NULL), hipSuccess);
  cr_assert_eq(hipModuleLaunchKernel(add, 1, 1, 1, 64, 1, 1, 0, NULL, args, NULL), hipSuccess);
  cr_assert_eq(hipMemcpy(h, d, sizeof(h), hipMemcpyDeviceToHost), hipSuccess);
  for (int i = 0; i < 64; i++)
    cr_assert_eq(h[i], 3 * i + 1 + 5 + 8, "lane %d: %d", i, h[i]);
  cr_assert_eq(hipFree(d), hipSuccess);
  cr_assert_eq(hipModuleUnload(m), hipSuccess);
}

Test(rtc_link, hiprtc_bitcode_and_bundle_linked_and_run, .timeout = 300)
{
  size_t lib_n, main_n, bundle_n;
  const char *add_name = NULL;
  hiprtcProgram main_prog;
  char *lib = rdc_bitcode(lib_src, NULL, NULL, NULL, &lib_n);
  char *mn = rdc_bitcode(main_src, "&add_twice<4>", &add_name, &main_prog, &main_n);
  cr_assert_str_eq(add_name, "_Z9add_twiceILi4EEvPi");
  char *bundle = read_bundle(&bundle_n);

  char info[4096] = "untouched";
  hiprtcJIT_option opts[] = {HIPRTC_JIT_INFO_LOG_BUFFER, HIPRTC_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
                             HIPRTC_JIT_OPTIMIZATION_LEVEL};
  void *vals[] = {info, (void *)(uintptr_t)sizeof(info), (void *)(uintptr_t)2};
  hiprtcLinkState st;
  cr_assert_eq(hiprtcLinkCreate(3, opts, vals, &st), HIPRTC_SUCCESS);
  cr_assert_eq(hiprtcLinkAddData(st, HIPRTC_JIT_INPUT_LLVM_BITCODE, mn, main_n, "main", 0, NULL, NULL),
               HIPRTC_SUCCESS);
  cr_assert_eq(hiprtcLinkAddData(st, HIPRTC_JIT_INPUT_LLVM_BITCODE, lib, lib_n, "lib", 0, NULL, NULL),
               HIPRTC_SUCCESS);
  cr_assert_eq(hiprtcLinkAddFile(st, HIPRTC_JIT_INPUT_LLVM_BUNDLED_BITCODE, RTC_LINK_BUNDLE, 0, NULL,
                                 NULL), HIPRTC_SUCCESS);
  void *image = NULL;
  size_t image_n = 0;
  cr_assert_eq(hiprtcLinkComplete(st, &image, &image_n), HIPRTC_SUCCESS);
  cr_assert_gt(image_n, 64);
  cr_assert(memcmp(image, "\177ELF", 4) == 0);
  cr_assert_str_neq(info, "untouched", "the info log buffer is written");
  run_linked(image, add_name);
  cr_assert_eq(hiprtcLinkDestroy(st), HIPRTC_SUCCESS);
  cr_assert_eq(hiprtcLinkDestroy(st), HIPRTC_ERROR_INVALID_INPUT, "a destroyed state");

  /* the same through hipLink*, the bundle given as data this time */
  hipLinkState_t hst;
  cr_assert_eq(hipLinkCreate(0, NULL, NULL, &hst), hipSuccess);
  cr_assert_eq(hipLinkAddData(hst, hipJitInputLLVMBitcode, mn, main_n, NULL, 0, NULL, NULL), hipSuccess);
  cr_assert_eq(hipLinkAddData(hst, hipJitInputLLVMBitcode, lib, lib_n, NULL, 0, NULL, NULL), hipSuccess);
  cr_assert_eq(hipLinkAddData(hst, hipJitInputLLVMBundledBitcode, bundle, bundle_n, NULL, 0, NULL,
                              NULL), hipSuccess);
  cr_assert_eq(hipLinkComplete(hst, &image, &image_n), hipSuccess);
  run_linked(image, add_name);
  cr_assert_eq(hipLinkDestroy(hst), hipSuccess);

  hiprtcDestroyProgram(&main_prog);
  free(lib);
  free(mn);
  free(bundle);
}

Test(rtc_link, unresolved_symbol_fails_the_link_with_a_log, .timeout = 300)
{
  size_t main_n;
  char *mn = rdc_bitcode(main_src, NULL, NULL, NULL, &main_n);
  char err[4096] = "";
  hiprtcJIT_option opts[] = {HIPRTC_JIT_ERROR_LOG_BUFFER, HIPRTC_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *vals[] = {err, (void *)(uintptr_t)sizeof(err)};
  hiprtcLinkState st;
  cr_assert_eq(hiprtcLinkCreate(2, opts, vals, &st), HIPRTC_SUCCESS);
  cr_assert_eq(hiprtcLinkAddData(st, HIPRTC_JIT_INPUT_LLVM_BITCODE, mn, main_n, NULL, 0, NULL, NULL),
               HIPRTC_SUCCESS);
  void *image = NULL;
  size_t n = 0;
  cr_assert_eq(hiprtcLinkComplete(st, &image, &n), HIPRTC_ERROR_LINKING);
  cr_assert(strstr(err, "scale") || strstr(err, "bias"), "error log names a missing symbol: %s", err);
  cr_assert_eq(hiprtcLinkDestroy(st), HIPRTC_SUCCESS);
  free(mn);
}

Test(rtc_link, misuse_gets_error_codes)
{
  hiprtcProgram prog;
  size_t n;
  char junk[64] = "not bitcode at all";
  cr_assert_eq(hiprtcCreateProgram(&prog, "__global__ void k() {}\n", NULL, 0, NULL, NULL),
               HIPRTC_SUCCESS);
  cr_assert_eq(hiprtcGetBitcodeSize(prog, &n), HIPRTC_ERROR_INVALID_PROGRAM, "not compiled");
  cr_assert_eq(hiprtcGetBitcodeSize(prog, NULL), HIPRTC_ERROR_INVALID_INPUT);
  cr_assert_eq(hiprtcGetBitcode(NULL, junk), HIPRTC_ERROR_INVALID_PROGRAM);
  hiprtcDestroyProgram(&prog);

  hiprtcLinkState st;
  cr_assert_eq(hiprtcLinkCreate(0, NULL, NULL, NULL), HIPRTC_ERROR_INVALID_INPUT);
  cr_assert_eq(hiprtcLinkCreate(1, NULL, NULL, &st), HIPRTC_ERROR_INVALID_INPUT);
  cr_assert_eq(hiprtcLinkCreate(0, NULL, NULL, &st), HIPRTC_SUCCESS);
  cr_assert_eq(hiprtcLinkAddData(st, HIPRTC_JIT_INPUT_LLVM_BITCODE, NULL, 4, NULL, 0, NULL, NULL),
               HIPRTC_ERROR_INVALID_INPUT);
  cr_assert_eq(hiprtcLinkAddData(st, HIPRTC_JIT_INPUT_PTX, junk, sizeof(junk), NULL, 0, NULL, NULL),
               HIPRTC_ERROR_INVALID_INPUT, "CUDA input kinds");
  cr_assert_eq(hiprtcLinkAddData(st, HIPRTC_JIT_INPUT_LLVM_BITCODE, junk, sizeof(junk), NULL, 0,
                                 NULL, NULL), HIPRTC_ERROR_PROGRAM_CREATION_FAILURE);
  cr_assert_eq(hiprtcLinkAddFile(st, HIPRTC_JIT_INPUT_LLVM_BITCODE, "/nonexistent/x.bc", 0, NULL,
                                 NULL), HIPRTC_ERROR_PROGRAM_CREATION_FAILURE);
  void *image;
  cr_assert_eq(hiprtcLinkComplete(st, &image, NULL), HIPRTC_ERROR_INVALID_INPUT);
  cr_assert_eq(hiprtcLinkComplete(st, &image, &n), HIPRTC_ERROR_LINKING, "nothing to link");
  cr_assert_eq(hiprtcLinkDestroy(st), HIPRTC_SUCCESS);
  cr_assert_eq(hiprtcLinkAddData(st, HIPRTC_JIT_INPUT_LLVM_BITCODE, junk, 4, NULL, 0, NULL, NULL),
               HIPRTC_ERROR_INVALID_INPUT, "a destroyed state is not dereferenced");
  cr_assert_str_eq(hiprtcGetErrorString(HIPRTC_ERROR_LINKING), "HIPRTC_ERROR_LINKING");

  hipLinkState_t hst;
  hipJitOption cuda_only = hipJitOptionInfoLogBuffer;
  void *val = junk;
  cr_assert_eq(hipLinkCreate(0, NULL, NULL, NULL), hipErrorInvalidValue);
  cr_assert_eq(hipLinkCreate(1, &cuda_only, &val, &hst), hipErrorInvalidValue);
  cr_assert_eq(hipLinkCreate(0, NULL, NULL, &hst), hipSuccess);
  cr_assert_eq(hipLinkAddData(hst, hipJitInputLLVMBitcode, NULL, 0, NULL, 0, NULL, NULL),
               hipErrorInvalidImage);
  cr_assert_eq(hipLinkAddData(hst, hipJitInputPtx, junk, 4, NULL, 0, NULL, NULL), hipErrorInvalidValue);
  cr_assert_eq(hipLinkAddData(hst, hipJitInputSpirv, junk, 4, NULL, 0, NULL, NULL), hipErrorNotSupported);
  cr_assert_eq(hipLinkAddData((hipLinkState_t)junk, hipJitInputLLVMBitcode, junk, 4, NULL, 0, NULL,
                              NULL), hipErrorInvalidHandle);
  cr_assert_eq(hipLinkAddFile(NULL, hipJitInputLLVMBitcode, "x.bc", 0, NULL, NULL), hipErrorInvalidHandle);
  cr_assert_eq(hipLinkComplete(hst, NULL, &n), hipErrorInvalidValue);
  cr_assert_eq(hipLinkDestroy(hst), hipSuccess);
  cr_assert_eq(hipLinkDestroy(hst), hipErrorInvalidValue);
}
