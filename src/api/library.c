/*
 * Libraries and kernels (hipLibrary*, hipKernel*), hipModuleEnumerateFunctions, and the entry
 * point queries (hipGetProcAddress, hipGetDriverEntryPoint).
 *
 * A library is a module that is not bound to a context: hipLibraryLoadData/LoadFromFile make a
 * module (copied, parsed and uploaded per device on first use, as every module is), and a kernel
 * handle is that module's function for a name, device independent like every hipFunction_t, so
 * hipKernelGetFunction hands the same handle back (as clr does: its hipKernel_t is the
 * function). Each library keeps the kernels it handed out, so asking twice for a name gives the
 * same handle. Error codes follow clr (hip_library.cpp): a null library is hipErrorInvalidValue
 * for the queries and hipErrorInvalidResourceHandle for unload and the variable queries; JIT
 * options are refused (there is nothing to compile).
 *
 * Managed variables (`__managed__ T x;` compiles to `x`, a pointer, and `x.managed`, the initial
 * value) are bound when the module loads (module.c); hipLibraryGetManaged returns the
 * allocation.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../runtime/error.h"
#include "loader_api.h"
#include "../runtime/runtime.h"

#define HIP_LIBRARY_MAGIC 0x4c494252u /* "LIBR" */

struct lib_kernel {
  char *name;
  hipFunction_t function;
};

struct ihipLibrary_t {
  uint32_t magic;
  hipModule_t module;
  pthread_mutex_t lock; /* protects kernels */
  struct lib_kernel *kernels;
  unsigned nkernels;
  struct ihipLibrary_t *next; /* in libraries; protected by libraries_lock */
};

static pthread_mutex_t libraries_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ihipLibrary_t *libraries;

/* Live libraries: looked up before they are read through (issue 12). */
static struct hip_live_set live_libraries = HIP_LIVE_SET_INIT;

static bool library_valid(const struct ihipLibrary_t *l)
{
  return hip_live_has(&live_libraries, l) && l->magic == HIP_LIBRARY_MAGIC;
}

static hipError_t library_new(hipModule_t module, hipLibrary_t *out)
{
  struct ihipLibrary_t *l = calloc(1, sizeof(*l));
  if (l && hip_live_add(&live_libraries, l)) {
    free(l);
    l = NULL;
  }
  if (!l) {
    hipModuleUnload(module);
    return hipErrorOutOfMemory;
  }
  l->magic = HIP_LIBRARY_MAGIC;
  l->module = module;
  pthread_mutex_init(&l->lock, NULL);
  pthread_mutex_lock(&libraries_lock);
  l->next = libraries;
  libraries = l;
  pthread_mutex_unlock(&libraries_lock);
  *out = l;
  return hipSuccess;
}

hipError_t hipLibraryLoadData(hipLibrary_t *library, const void *code, hipJitOption *jitOptions,
                              void **jitOptionsValues, unsigned int numJitOptions,
                              hipLibraryOption *libraryOptions, void **libraryOptionValues,
                              unsigned int numLibraryOptions)
{
  (void)jitOptions;
  (void)jitOptionsValues;
  (void)libraryOptions; /* the image is copied either way, so "binary is preserved" holds */
  (void)libraryOptionValues;
  (void)numLibraryOptions;
  if (!library || !code || numJitOptions > 0)
    HIP_RETURN(hipErrorInvalidValue);
  hipModule_t m;
  HIP_RETURN_IF_ERROR(hipModuleLoadData(&m, code));
  HIP_RETURN(library_new(m, library));
}

hipError_t hipLibraryLoadFromFile(hipLibrary_t *library, const char *fileName,
                                  hipJitOption *jitOptions, void **jitOptionsValues,
                                  unsigned int numJitOptions, hipLibraryOption *libraryOptions,
                                  void **libraryOptionValues, unsigned int numLibraryOptions)
{
  (void)jitOptions;
  (void)jitOptionsValues;
  (void)libraryOptions;
  (void)libraryOptionValues;
  (void)numLibraryOptions;
  if (!library || !fileName || numJitOptions > 0)
    HIP_RETURN(hipErrorInvalidValue);
  hipModule_t m;
  hipError_t err = hipModuleLoad(&m, fileName);
  if (err == hipErrorFileNotFound)
    err = hipErrorInvalidValue; /* clr checks the file exists first */
  HIP_RETURN_IF_ERROR(err);
  HIP_RETURN(library_new(m, library));
}

hipError_t hipLibraryUnload(hipLibrary_t library)
{
  pthread_mutex_lock(&libraries_lock);
  struct ihipLibrary_t **p = &libraries;
  while (*p && *p != library)
    p = &(*p)->next;
  if (!*p || !library_valid(library)) {
    pthread_mutex_unlock(&libraries_lock);
    HIP_RETURN(hipErrorInvalidResourceHandle);
  }
  *p = library->next;
  library->magic = 0;
  hip_live_remove(&live_libraries, library);
  pthread_mutex_unlock(&libraries_lock);

  hipError_t err = hipModuleUnload(library->module); /* waits for its kernels, frees functions */
  for (unsigned i = 0; i < library->nkernels; i++)
    free(library->kernels[i].name);
  free(library->kernels);
  pthread_mutex_destroy(&library->lock);
  free(library);
  HIP_RETURN(err);
}

/* The library's code object on the current device (loaded on first use). */
static hipError_t library_code(hipLibrary_t library, struct hip_device **dev,
                               struct module_device **md)
{
  if (!library_valid(library))
    return hipErrorInvalidResourceHandle;
  struct hip_device *d = hip_device_current();
  if (!d)
    return hipErrorNoDevice;
  int err = hip_module_on_device(library->module, d, md);
  if (err)
    return err == -ENOENT ? hipErrorNoBinaryForGpu : hipErrorInvalidImage;
  if (dev)
    *dev = d;
  return hipSuccess;
}

/* The kernel handle for [in] name, made on first request. Caller holds library->lock. */
static hipError_t kernel_locked(hipLibrary_t library, const char *name, hipKernel_t *out)
{
  for (unsigned i = 0; i < library->nkernels; i++)
    if (strcmp(library->kernels[i].name, name) == 0) {
      *out = (hipKernel_t)library->kernels[i].function;
      return hipSuccess;
    }
  hipFunction_t f;
  hipError_t err = hipModuleGetFunction(&f, library->module, name);
  if (err != hipSuccess)
    return err;
  struct lib_kernel *k = realloc(library->kernels, sizeof(*k) * (library->nkernels + 1));
  if (!k)
    return hipErrorOutOfMemory;
  library->kernels = k;
  if (!(k[library->nkernels].name = strdup(name)))
    return hipErrorOutOfMemory;
  k[library->nkernels++].function = f;
  *out = (hipKernel_t)f;
  return hipSuccess;
}

hipError_t hipLibraryGetKernel(hipKernel_t *pKernel, hipLibrary_t library, const char *name)
{
  if (!pKernel || !library || !name)
    HIP_RETURN(hipErrorInvalidValue);
  struct module_device *md;
  HIP_RETURN_IF_ERROR(library_code(library, NULL, &md));
  pthread_mutex_lock(&library->lock);
  hipError_t err = kernel_locked(library, name, pKernel);
  pthread_mutex_unlock(&library->lock);
  HIP_RETURN(err);
}

hipError_t hipLibraryGetKernelCount(unsigned int *count, hipLibrary_t library)
{
  if (!count || !library)
    HIP_RETURN(hipErrorInvalidValue);
  struct module_device *md;
  HIP_RETURN_IF_ERROR(library_code(library, NULL, &md));
  *count = md->co->nkernels;
  HIP_RETURN(hipSuccess);
}

hipError_t hipLibraryEnumerateKernels(hipKernel_t *kernels, unsigned int numKernels,
                                      hipLibrary_t library)
{
  if (!kernels || numKernels == 0 || !library)
    HIP_RETURN(hipErrorInvalidValue);
  struct module_device *md;
  HIP_RETURN_IF_ERROR(library_code(library, NULL, &md));
  unsigned n = numKernels < md->co->nkernels ? numKernels : md->co->nkernels;
  hipError_t err = hipSuccess;
  pthread_mutex_lock(&library->lock);
  for (unsigned i = 0; i < n && err == hipSuccess; i++)
    err = kernel_locked(library, md->co->kernels[i].name, &kernels[i]);
  pthread_mutex_unlock(&library->lock);
  HIP_RETURN(err);
}

hipError_t hipLibraryGetGlobal(void **dptr, size_t *bytes, hipLibrary_t library, const char *name)
{
  if ((!dptr && !bytes) || !name)
    HIP_RETURN(hipErrorInvalidValue);
  if (!library_valid(library))
    HIP_RETURN(hipErrorInvalidResourceHandle);
  HIP_RETURN(hipModuleGetGlobal((hipDeviceptr_t *)dptr, bytes, library->module, name));
}

hipError_t hipLibraryGetManaged(void **dptr, size_t *bytes, hipLibrary_t library, const char *name)
{
  if ((!dptr && !bytes) || !name)
    HIP_RETURN(hipErrorInvalidValue);
  struct module_device *md;
  HIP_RETURN_IF_ERROR(library_code(library, NULL, &md));
  void *ptr;
  size_t size;
  if (hip_module_managed(library->module, name, &ptr, &size))
    HIP_RETURN(hipErrorNotFound);
  if (dptr)
    *dptr = ptr;
  if (bytes)
    *bytes = size;
  HIP_RETURN(hipSuccess);
}

/* ---- kernels ---- */

static struct ihipModuleSymbol_t *kernel_function(hipKernel_t kernel)
{
  struct ihipModuleSymbol_t *f = (struct ihipModuleSymbol_t *)kernel;
  return hip_function_valid(f) ? f : NULL;
}

hipError_t hipKernelGetFunction(hipFunction_t *pFunc, hipKernel_t kernel)
{
  if (!pFunc)
    HIP_RETURN(hipErrorInvalidValue);
  struct ihipModuleSymbol_t *f = kernel_function(kernel);
  if (!f)
    HIP_RETURN(hipErrorInvalidHandle);
  *pFunc = f;
  HIP_RETURN(hipSuccess);
}

hipError_t hipKernelGetLibrary(hipLibrary_t *library, hipKernel_t kernel)
{
  if (!library)
    HIP_RETURN(hipErrorInvalidValue);
  struct ihipModuleSymbol_t *f = kernel_function(kernel);
  if (!f)
    HIP_RETURN(hipErrorInvalidHandle);
  pthread_mutex_lock(&libraries_lock);
  struct ihipLibrary_t *l = libraries;
  while (l && l->module != f->module)
    l = l->next;
  pthread_mutex_unlock(&libraries_lock);
  if (!l)
    HIP_RETURN(hipErrorInvalidHandle); /* a module's function, not a library's kernel */
  *library = l;
  HIP_RETURN(hipSuccess);
}

hipError_t hipKernelGetName(const char **name, hipKernel_t kernel)
{
  if (!name)
    HIP_RETURN(hipErrorInvalidValue);
  struct ihipModuleSymbol_t *f = kernel_function(kernel);
  if (!f)
    HIP_RETURN(hipErrorInvalidHandle);
  *name = f->name;
  HIP_RETURN(hipSuccess);
}

hipError_t hipKernelGetParamInfo(hipKernel_t kernel, size_t paramIndex, size_t *paramOffset,
                                 size_t *paramSize)
{
  struct ihipModuleSymbol_t *f = kernel_function(kernel);
  if (!f)
    HIP_RETURN(hipErrorInvalidHandle);
  if (!paramOffset && !paramSize)
    HIP_RETURN(hipErrorInvalidValue);
  struct hip_device *d = hip_device_current();
  if (!d)
    HIP_RETURN(hipErrorNoDevice);
  struct hip_kernel_ref ref;
  int err = hip_function_resolve(f, d, &ref);
  if (err)
    HIP_RETURN(err == -ENOENT ? hipErrorNoBinaryForGpu : hipErrorInvalidDeviceFunction);
  if (paramIndex >= ref.kernel->nexplicit)
    HIP_RETURN(hipErrorInvalidValue);
  if (paramOffset)
    *paramOffset = ref.kernel->args[paramIndex].offset;
  if (paramSize)
    *paramSize = ref.kernel->args[paramIndex].size;
  HIP_RETURN(hipSuccess);
}

/* Runs [in] op with [in] dev as the calling thread's device, then restores the previous one. */
static hipError_t on_device(hipDevice_t dev, hipError_t (*op)(void *), void *arg)
{
  int prev;
  hipError_t err = hipGetDevice(&prev);
  if (err != hipSuccess)
    return err;
  if (dev != prev && (err = hipSetDevice(dev)) != hipSuccess)
    return err == hipErrorInvalidDevice ? hipErrorInvalidDevice : err;
  err = op(arg);
  if (dev != prev)
    hipSetDevice(prev);
  return err;
}

struct attr_call {
  int *value;
  hipFunction_attribute attrib;
  struct ihipModuleSymbol_t *f;
};

static hipError_t get_attr(void *p)
{
  struct attr_call *c = p;
  return hipFuncGetAttribute(c->value, c->attrib, c->f);
}

hipError_t hipKernelGetAttribute(int *pi, hipFunction_attribute attrib, hipKernel_t kernel,
                                 hipDevice_t dev)
{
  if (!pi)
    HIP_RETURN(hipErrorInvalidValue);
  struct ihipModuleSymbol_t *f = kernel_function(kernel);
  if (!f)
    HIP_RETURN(hipErrorInvalidHandle);
  struct attr_call c = {pi, attrib, f};
  HIP_RETURN(on_device(dev, get_attr, &c));
}

struct set_call {
  hipFunction_attribute attrib;
  int value;
  struct ihipModuleSymbol_t *f;
};

/* The settable attributes, with hipFuncSetAttribute's limits. */
static hipError_t set_attr(void *p)
{
  struct set_call *c = p;
  int max_dyn = 0;
  hipError_t err = hipFuncGetAttribute(&max_dyn, HIP_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, c->f);
  if (err != hipSuccess)
    return err;
  switch (c->attrib) {
  case HIP_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
    if (c->value < 0 || c->value > max_dyn)
      return hipErrorInvalidValue;
    c->f->max_dynamic_shared = c->value;
    return hipSuccess;
  case HIP_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
    if (c->value < -1 || c->value > 100)
      return hipErrorInvalidValue;
    c->f->preferred_carveout = c->value;
    return hipSuccess;
  default:
    return hipErrorInvalidValue; /* the other attributes are read-only */
  }
}

hipError_t hipKernelSetAttribute(hipFunction_attribute attrib, int value, hipKernel_t kernel,
                                 hipDevice_t dev)
{
  struct ihipModuleSymbol_t *f = kernel_function(kernel);
  if (!f)
    HIP_RETURN(hipErrorInvalidHandle);
  struct set_call c = {attrib, value, f};
  HIP_RETURN(on_device(dev, set_attr, &c));
}

hipError_t hipModuleEnumerateFunctions(hipFunction_t *functions, unsigned int numFunctions,
                                       hipModule_t mod)
{
  if (!functions || numFunctions == 0)
    HIP_RETURN(hipErrorInvalidValue);
  if (!hip_module_valid(mod))
    HIP_RETURN(hipErrorInvalidResourceHandle);
  unsigned count = 0;
  HIP_RETURN_IF_ERROR(hipModuleGetFunctionCount(&count, mod));
  struct module_device *md;
  struct hip_device *d = hip_device_current();
  if (!d || hip_module_on_device(mod, d, &md))
    HIP_RETURN(hipErrorInvalidImage);
  unsigned n = numFunctions < count ? numFunctions : count;
  for (unsigned i = 0; i < n; i++)
    if (hip_function_create(mod, md->co->kernels[i].name, NULL, &functions[i]))
      HIP_RETURN(hipErrorOutOfMemory);
  HIP_RETURN(hipSuccess);
}

/* ---- entry points ---- */

/* This library's own handle, for dlsym (not RTLD_DEFAULT: another libamdhip64 or a program's
 * own definitions must not answer for us). */
static void *self;
static pthread_once_t self_once = PTHREAD_ONCE_INIT;

static void open_self(void)
{
  Dl_info info;
  if (dladdr((void *)&hipGetProcAddress, &info) && info.dli_fname)
    self = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
}

static void *self_handle(void)
{
  pthread_once(&self_once, open_self);
  return self;
}

/* Looks [in] symbol up among our exports, preferring its _spt variant when [in] spt. The two
 * names whose layout changed in HIP 6 resolve to the R0600 versions for hipVersion >= 600. */
static hipError_t lookup(const char *symbol, bool spt, int hip_version, void **pfn)
{
  char name[256];
  if (!strcmp(symbol, "hipGetDeviceProperties") || !strcmp(symbol, "hipChooseDevice")) {
    snprintf(name, sizeof(name), "%s%s", symbol, hip_version >= 600 ? "R0600" : "");
    spt = false;
  } else if (snprintf(name, sizeof(name), "%s%s", symbol, spt ? "_spt" : "") >= (int)sizeof(name)) {
    return hipErrorInvalidValue;
  }
  void *h = self_handle();
  if (!h)
    return hipErrorInvalidValue;
  *pfn = dlsym(h, name);
  if (!*pfn && spt)
    *pfn = dlsym(h, symbol);
  return *pfn ? hipSuccess : hipErrorInvalidValue;
}

static hipError_t proc_address(const char *symbol, void **pfn, int hipVersion, uint64_t flags,
                               hipDriverProcAddressQueryResult *status)
{
  if (!symbol || !*symbol || !pfn)
    return hipErrorInvalidValue;
  if (flags != HIP_GET_PROC_ADDRESS_DEFAULT && flags != HIP_GET_PROC_ADDRESS_LEGACY_STREAM &&
      flags != HIP_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM)
    return hipErrorInvalidValue;
  hipError_t err = lookup(symbol, flags == HIP_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM,
                          hipVersion, pfn);
  if (status)
    *status = err == hipSuccess ? HIP_GET_PROC_ADDRESS_SUCCESS : HIP_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  return err;
}

hipError_t hipGetProcAddress(const char *symbol, void **pfn, int hipVersion, uint64_t flags,
                             hipDriverProcAddressQueryResult *symbolStatus)
{
  HIP_RETURN(proc_address(symbol, pfn, hipVersion, flags, symbolStatus));
}

hipError_t hipGetProcAddress_spt(const char *symbol, void **pfn, int hipVersion, uint64_t flags,
                                 hipDriverProcAddressQueryResult *symbolStatus)
{
  if (flags == HIP_GET_PROC_ADDRESS_DEFAULT)
    flags = HIP_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM;
  HIP_RETURN(proc_address(symbol, pfn, hipVersion, flags, symbolStatus));
}

/* hipGetDriverEntryPoint: the CUDA-runtime-style twin; flags 0 default, 1 legacy stream, 2
 * per-thread default stream (hipEnableDefault, hipEnableLegacyStream,
 * hipEnablePerThreadDefaultStream). */
static hipError_t entry_point(const char *symbol, void **funcPtr, unsigned long long flags,
                              hipDriverEntryPointQueryResult *status)
{
  if (!symbol || !*symbol || !funcPtr || flags > 2)
    return hipErrorInvalidValue;
  hipError_t err = lookup(symbol, flags == 2, HIP_VERSION_MAJOR * 100 + HIP_VERSION_MINOR, funcPtr);
  if (status)
    *status = err == hipSuccess ? hipDriverEntryPointSuccess : hipDriverEntryPointSymbolNotFound;
  return err;
}

hipError_t hipGetDriverEntryPoint(const char *symbol, void **funcPtr, unsigned long long flags,
                                  hipDriverEntryPointQueryResult *status)
{
  HIP_RETURN(entry_point(symbol, funcPtr, flags, status));
}

hipError_t hipGetDriverEntryPoint_spt(const char *symbol, void **funcPtr, unsigned long long flags,
                                      hipDriverEntryPointQueryResult *status)
{
  HIP_RETURN(entry_point(symbol, funcPtr, flags == 0 ? 2 : flags, status));
}
