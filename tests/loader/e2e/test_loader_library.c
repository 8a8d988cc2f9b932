/* hipLibrary* and hipKernel*: a library loaded from memory and from a file, kernels by name and
 * enumerated, parameter layout, attributes, globals and managed variables, the entry-point
 * queries, and the errors for bad handles. */
#include <criterion/criterion.h>
#include <hip/hip_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HIP_OK(expr) cr_assert_eq((expr), hipSuccess, "%s", #expr)
#define LIB_FILE LIBRARY_DIR "/library_kernels.bundle"

static void *read_all(const char *path)
{
  FILE *f = fopen(path, "rb");
  cr_assert_not_null(f, "%s", path);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  void *p = malloc((size_t)n);
  cr_assert_eq(fread(p, 1, (size_t)n, f), (size_t)n);
  fclose(f);
  return p;
}

static void scale_with(hipKernel_t k)
{
  hipFunction_t f;
  HIP_OK(hipKernelGetFunction(&f, k));
  float h[100], *d;
  for (int i = 0; i < 100; i++)
    h[i] = (float)i;
  HIP_OK(hipMalloc((void **)&d, sizeof(h)));
  HIP_OK(hipMemcpy(d, h, sizeof(h), hipMemcpyHostToDevice));
  float s = 3.0f;
  int n = 100;
  void *args[] = {&d, &s, &n};
  HIP_OK(hipModuleLaunchKernel(f, 2, 1, 1, 64, 1, 1, 0, NULL, args, NULL));
  HIP_OK(hipMemcpy(h, d, sizeof(h), hipMemcpyDeviceToHost));
  for (int i = 0; i < 100; i++)
    cr_assert_eq(h[i], 3.0f * (float)i);
  HIP_OK(hipFree(d));
}

Test(library, load_data_get_kernel_launch)
{
  void *image = read_all(LIB_FILE);
  hipLibrary_t lib;
  HIP_OK(hipLibraryLoadData(&lib, image, NULL, NULL, 0, NULL, NULL, 0));
  memset(image, 0, 64); /* the library keeps its own copy */
  free(image);
  hipKernel_t k, again;
  HIP_OK(hipLibraryGetKernel(&k, lib, "lib_scale"));
  HIP_OK(hipLibraryGetKernel(&again, lib, "lib_scale"));
  cr_assert_eq(k, again, "one handle per name");
  const char *name;
  HIP_OK(hipKernelGetName(&name, k));
  cr_assert_str_eq(name, "lib_scale");
  hipLibrary_t owner;
  HIP_OK(hipKernelGetLibrary(&owner, k));
  cr_assert_eq(owner, lib);
  scale_with(k);
  cr_assert_eq(hipLibraryGetKernel(&k, lib, "no_such_kernel"), hipErrorNotFound);
  HIP_OK(hipLibraryUnload(lib));
  cr_assert_eq(hipLibraryUnload(lib), hipErrorInvalidResourceHandle);
}

Test(library, enumerate_and_param_info)
{
  hipLibrary_t lib;
  HIP_OK(hipLibraryLoadFromFile(&lib, LIB_FILE, NULL, NULL, 0, NULL, NULL, 0));
  unsigned count = 0;
  HIP_OK(hipLibraryGetKernelCount(&count, lib));
  cr_assert_eq(count, 2);
  hipKernel_t ks[4] = {0};
  HIP_OK(hipLibraryEnumerateKernels(ks, 4, lib));
  cr_assert_not_null(ks[0]);
  cr_assert_not_null(ks[1]);
  cr_assert_null(ks[2]);
  hipKernel_t add = NULL;
  for (int i = 0; i < 2; i++) {
    const char *n;
    HIP_OK(hipKernelGetName(&n, ks[i]));
    if (!strcmp(n, "lib_add_vars"))
      add = ks[i];
  }
  cr_assert_not_null(add);
  /* (int *p, char pad, double unused): offsets 0, 8, 16 */
  size_t off, size;
  HIP_OK(hipKernelGetParamInfo(add, 0, &off, &size));
  cr_assert(off == 0 && size == 8, "p at %zu size %zu", off, size);
  HIP_OK(hipKernelGetParamInfo(add, 1, &off, &size));
  cr_assert(off == 8 && size == 1, "pad at %zu size %zu", off, size);
  HIP_OK(hipKernelGetParamInfo(add, 2, &off, &size));
  cr_assert(off == 16 && size == 8, "unused at %zu size %zu", off, size);
  cr_assert_eq(hipKernelGetParamInfo(add, 3, &off, &size), hipErrorInvalidValue);
  int v = 0;
  HIP_OK(hipKernelGetAttribute(&v, HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, add, 0));
  cr_assert_eq(v, 1024);
  HIP_OK(hipKernelSetAttribute(HIP_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 4096, add, 0));
  cr_assert_eq(hipKernelSetAttribute(HIP_FUNC_ATTRIBUTE_NUM_REGS, 4, add, 0), hipErrorInvalidValue);
  cr_assert_eq(hipKernelGetAttribute(&v, HIP_FUNC_ATTRIBUTE_NUM_REGS, add, 99), hipErrorInvalidDevice);
  HIP_OK(hipLibraryUnload(lib));
}

Test(library, globals_and_managed)
{
  hipLibrary_t lib;
  HIP_OK(hipLibraryLoadFromFile(&lib, LIB_FILE, NULL, NULL, 0, NULL, NULL, 0));
  void *counter;
  size_t bytes;
  HIP_OK(hipLibraryGetGlobal(&counter, &bytes, lib, "lib_counter"));
  cr_assert_eq(bytes, sizeof(int));
  int value = 0;
  HIP_OK(hipMemcpy(&value, counter, sizeof(int), hipMemcpyDeviceToHost));
  cr_assert_eq(value, 17);
  int *managed;
  HIP_OK(hipLibraryGetManaged((void **)&managed, &bytes, lib, "lib_managed"));
  cr_assert_eq(bytes, sizeof(int));
  cr_assert_eq(*managed, 23, "managed memory starts with the initial value");
  *managed = 100; /* written by the host, read by the kernel */
  hipKernel_t k;
  HIP_OK(hipLibraryGetKernel(&k, lib, "lib_add_vars"));
  hipFunction_t f;
  HIP_OK(hipKernelGetFunction(&f, k));
  int h[64] = {0}, *d;
  HIP_OK(hipMalloc((void **)&d, sizeof(h)));
  HIP_OK(hipMemcpy(d, h, sizeof(h), hipMemcpyHostToDevice));
  char pad = 0;
  double unused = 0;
  void *args[] = {&d, &pad, &unused};
  HIP_OK(hipModuleLaunchKernel(f, 1, 1, 1, 64, 1, 1, 0, NULL, args, NULL));
  HIP_OK(hipMemcpy(h, d, sizeof(h), hipMemcpyDeviceToHost));
  for (int i = 0; i < 64; i++)
    cr_assert_eq(h[i], 117, "lane %d: %d", i, h[i]);
  cr_assert_eq(hipLibraryGetGlobal(&counter, &bytes, lib, "nothing"), hipErrorNotFound);
  cr_assert_eq(hipLibraryGetManaged((void **)&managed, &bytes, lib, "lib_counter"), hipErrorNotFound);
  HIP_OK(hipFree(d));
  HIP_OK(hipLibraryUnload(lib));
}

Test(library, bad_arguments)
{
  hipLibrary_t lib;
  hipKernel_t k;
  unsigned count;
  hipJitOption opt = hipJitOptionMaxRegisters;
  void *optv = NULL;
  cr_assert_eq(hipLibraryLoadData(NULL, "x", NULL, NULL, 0, NULL, NULL, 0), hipErrorInvalidValue);
  cr_assert_eq(hipLibraryLoadData(&lib, NULL, NULL, NULL, 0, NULL, NULL, 0), hipErrorInvalidValue);
  cr_assert_eq(hipLibraryLoadFromFile(&lib, LIB_FILE, &opt, &optv, 1, NULL, NULL, 0), hipErrorInvalidValue);
  cr_assert_eq(hipLibraryLoadFromFile(&lib, "/nonexistent.co", NULL, NULL, 0, NULL, NULL, 0),
               hipErrorInvalidValue);
  cr_assert_eq(hipLibraryGetKernel(&k, NULL, "lib_scale"), hipErrorInvalidValue);
  cr_assert_eq(hipLibraryGetKernelCount(&count, NULL), hipErrorInvalidValue);
  cr_assert_eq(hipLibraryUnload(NULL), hipErrorInvalidResourceHandle);
  hipFunction_t f;
  cr_assert_eq(hipKernelGetFunction(&f, (hipKernel_t)&count), hipErrorInvalidHandle);
}

Test(library, proc_address)
{
  void *p = NULL;
  hipDriverProcAddressQueryResult st = HIP_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  HIP_OK(hipGetProcAddress("hipMalloc", &p, 700, HIP_GET_PROC_ADDRESS_DEFAULT, &st));
  cr_assert_eq(st, HIP_GET_PROC_ADDRESS_SUCCESS);
  hipError_t (*my_malloc)(void **, size_t) = (hipError_t (*)(void **, size_t))p;
  void *mem;
  HIP_OK(my_malloc(&mem, 256));
  HIP_OK(hipFree(mem));
  HIP_OK(hipGetProcAddress("hipStreamSynchronize", &p, 700, HIP_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, &st));
  void *spt = NULL;
  HIP_OK(hipGetProcAddress("hipStreamSynchronize_spt", &spt, 700, 0, &st));
  cr_assert_eq(p, spt, "per-thread flag gives the _spt entry point");
  cr_assert_eq(hipGetProcAddress("hipNoSuchFunction", &p, 700, 0, &st), hipErrorInvalidValue);
  cr_assert_eq(st, HIP_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
  cr_assert_eq(hipGetProcAddress("hipMalloc", &p, 700, 7, &st), hipErrorInvalidValue);
  hipDriverEntryPointQueryResult est;
  HIP_OK(hipGetDriverEntryPoint("hipFree", &p, 0, &est));
  cr_assert_eq(est, hipDriverEntryPointSuccess);
}

/* A __managed__ variable of a code object loaded with hipModuleLoad is usable at once: the
 * module allocates it and binds it at load (clr's initDynManagedVars). */
Test(library, module_managed_variable_bound_at_load)
{
  hipModule_t m;
  HIP_OK(hipModuleLoad(&m, LIB_FILE));
  hipFunction_t f;
  HIP_OK(hipModuleGetFunction(&f, m, "lib_add_vars"));
  int h[64] = {0}, *d;
  HIP_OK(hipMalloc((void **)&d, sizeof(h)));
  HIP_OK(hipMemcpy(d, h, sizeof(h), hipMemcpyHostToDevice));
  char pad = 0;
  double unused = 0;
  void *args[] = {&d, &pad, &unused};
  HIP_OK(hipModuleLaunchKernel(f, 1, 1, 1, 64, 1, 1, 0, NULL, args, NULL));
  HIP_OK(hipMemcpy(h, d, sizeof(h), hipMemcpyDeviceToHost));
  for (int i = 0; i < 64; i++)
    cr_assert_eq(h[i], 23 + 17, "lane %d: %d", i, h[i]);
  HIP_OK(hipFree(d));
  HIP_OK(hipModuleUnload(m));
}
