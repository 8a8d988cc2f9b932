/*
 * Modules: hipModuleLoad/LoadData/LoadDataEx/Unload/GetFunction/GetGlobal, and the per-device
 * lazy load that registered fat binaries share.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../runtime/error.h"
#include "loader_api.h"
#include "../runtime/runtime.h"
#include "../kfd/kfd.h"

struct hip_handle_set hip_known_modules = { .lock = PTHREAD_MUTEX_INITIALIZER };
struct hip_handle_set hip_known_functions = { .lock = PTHREAD_MUTEX_INITIALIZER };

bool hip_module_valid(const struct ihipModule_t *m)
{
  return hip_handle_known(&hip_known_modules, m) && m->magic == HIP_MODULE_MAGIC;
}

/* Unloaded modules and their functions are not freed but kept for reuse, magic cleared: a stale
 * hipModule_t or hipFunction_t (a second hipModuleUnload, a launch after unload) then reads
 * memory that is still ours and fails its magic check, instead of reading freed memory. A reused
 * object is a new module or function, as a reused address would be. */
static pthread_mutex_t recycle_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ihipModule_t *free_modules;         /* linked through `functions` */
static struct ihipModuleSymbol_t *free_functions; /* linked through `next` */

static struct ihipModule_t *module_obtain(void)
{
  pthread_mutex_lock(&recycle_lock);
  struct ihipModule_t *m = free_modules;
  if (m)
    free_modules = (struct ihipModule_t *)m->functions;
  pthread_mutex_unlock(&recycle_lock);
  if (!m)
    return calloc(1, sizeof(*m));
  memset(m, 0, sizeof(*m));
  return m;
}

static void module_retire(struct ihipModule_t *m)
{
  m->magic = 0;
  pthread_mutex_lock(&recycle_lock);
  m->functions = (struct ihipModuleSymbol_t *)free_modules;
  free_modules = m;
  pthread_mutex_unlock(&recycle_lock);
}

static struct ihipModuleSymbol_t *function_obtain(void)
{
  pthread_mutex_lock(&recycle_lock);
  struct ihipModuleSymbol_t *f = free_functions;
  if (f)
    free_functions = f->next;
  pthread_mutex_unlock(&recycle_lock);
  if (!f)
    return calloc(1, sizeof(*f));
  memset(f, 0, sizeof(*f));
  return f;
}

static void function_retire(struct ihipModuleSymbol_t *f)
{
  f->magic = 0;
  pthread_mutex_lock(&recycle_lock);
  f->next = free_functions;
  free_functions = f;
  pthread_mutex_unlock(&recycle_lock);
}


int hip_module_create(const void *data, size_t size, bool copy, bool registered,
                      struct ihipModule_t **out)
{
  struct ihipModule_t *m = module_obtain();
  if (!m)
    return -ENOMEM;
  if (hip_handle_add(&hip_known_modules, m)) {
    module_retire(m);
    return -ENOMEM;
  }
  if (copy) {
    m->owned = malloc(size);
    if (!m->owned) {
      module_retire(m);
      return -ENOMEM;
    }
    memcpy(m->owned, data, size);
    data = m->owned;
  }
  m->magic = HIP_MODULE_MAGIC;
  m->data = data;
  m->size = size;
  m->registered = registered;
  pthread_mutex_init(&m->lock, NULL);
  *out = m;
  return 0;
}

void hip_module_destroy(struct ihipModule_t *m)
{
  if (!m)
    return;
  for (int i = 0; i < HIP_MODULE_MAX_DEVICES; i++) {
    loader_unload(m->dev[i].image);
    loader_code_object_close(m->dev[i].co);
  }
  for (struct ihipModuleSymbol_t *f = m->functions, *next; f; f = next) {
    next = f->next;
    f->magic = 0;
    struct hip_kernel_slot *slots = atomic_load_explicit(&f->resolved, memory_order_relaxed);
    for (int i = 0; slots && i < HIP_MODULE_MAX_DEVICES; i++)
      hip_launch_plan_free(atomic_load_explicit(&slots[i].plan, memory_order_relaxed));
    free(slots);
    free(f->name);
    function_retire(f);
  }
  for (unsigned i = 0; i < m->nmanaged; i++) {
    (void)hipFree(m->managed[i].ptr);
    free(m->managed[i].name);
  }
  free(m->managed);
  pthread_mutex_destroy(&m->lock);
  free(m->owned);
  module_retire(m);
}

#define MANAGED_SUFFIX ".managed"

/* The module's allocation for managed variable [in] name, made from [in] init (the initial value
 * in a device image) on first use. Called with m->lock held. */
static int managed_of(struct ihipModule_t *m, const char *name, const void *init, size_t size,
                      void **ptr)
{
  for (unsigned i = 0; i < m->nmanaged; i++)
    if (strcmp(m->managed[i].name, name) == 0) {
      *ptr = m->managed[i].ptr;
      return 0;
    }
  struct module_managed *v = realloc(m->managed, sizeof(*v) * (m->nmanaged + 1));
  if (!v)
    return -ENOMEM;
  m->managed = v;
  v += m->nmanaged;
  *v = (struct module_managed){.name = strdup(name), .size = size};
  if (!v->name)
    return -ENOMEM;
  if (hipMallocManaged(&v->ptr, size ? size : 1, hipMemAttachGlobal) != hipSuccess ||
      hipMemcpy(v->ptr, init, size, hipMemcpyDeviceToHost) != hipSuccess) {
    (void)hipFree(v->ptr);
    free(v->name);
    return -ENOMEM;
  }
  m->nmanaged++;
  *ptr = v->ptr;
  return 0;
}

/* Points every `<v>` of a `<v>.managed` pair in a freshly loaded image at the module's managed
 * allocation for it (the compiler emits the pair for `__managed__ T v`; the code reads v's value
 * as the address). Loaded modules only: registered ones are bound by register.c. */
static int module_bind_managed(struct ihipModule_t *m, struct module_device *md)
{
  const size_t sl = strlen(MANAGED_SUFFIX);
  for (uint32_t i = 0; i < md->co->nvariables; i++) {
    const struct loader_variable *init = &md->co->variables[i];
    size_t n = strlen(init->name);
    if (n <= sl || strcmp(init->name + n - sl, MANAGED_SUFFIX) != 0)
      continue;
    char name[256];
    if (n - sl >= sizeof(name))
      continue;
    memcpy(name, init->name, n - sl);
    name[n - sl] = 0;
    const struct loader_variable *slot = loader_find_variable(md->co, name);
    if (!slot || slot->size != sizeof(void *))
      continue;
    void *ptr;
    int err = managed_of(m, name, loader_variable_address(md->image, init), init->size, &ptr);
    if (err)
      return err;
    if (hipMemcpy(loader_variable_address(md->image, slot), &ptr, sizeof(ptr),
                  hipMemcpyHostToDevice) != hipSuccess)
      return -EIO;
  }
  return 0;
}

int hip_module_managed(struct ihipModule_t *m, const char *name, void **ptr, size_t *size)
{
  int err = -ENOENT;
  pthread_mutex_lock(&m->lock);
  for (unsigned i = 0; i < m->nmanaged; i++)
    if (strcmp(m->managed[i].name, name) == 0) {
      *ptr = m->managed[i].ptr;
      *size = m->managed[i].size;
      err = 0;
    }
  pthread_mutex_unlock(&m->lock);
  return err;
}

/* Picks, parses and uploads the code object for [in] d. Called with m->lock held. */
static int module_load_device(struct ihipModule_t *m, struct hip_device *d, struct module_device *md)
{
  char isa[64];
  const void *elf;
  size_t elf_size;
  void *decompressed;
  int err;

  err = loader_isa_name(d->node->gfx_target_version, d->node->sramecc, d->node->xnack, isa,
                        sizeof(isa));
  if (err)
    return err;
  err = loader_bundle_find(m->data, m->size, isa, &elf, &elf_size, &decompressed);
  if (err == -ENOENT && hip_log_level >= 1) {
    char has[128];
    loader_bundle_describe(m->data, m->size, has, sizeof(has));
    hip_error_reason("no code object for %s in the image (has %s)", isa, has);
  }
  if (err)
    return err;
  err = loader_code_object_open(elf, elf_size, &md->co);
  free(decompressed); /* the code object keeps its own copy */
  if (err)
    return err;

  /* A bare ELF was not matched by the bundle reader: check its ISA here. */
  struct loader_isa dev_isa;
  loader_isa_parse(isa, &dev_isa);
  if (!loader_isa_compatible(&md->co->isa, &dev_isa)) {
    hip_error_reason("the code object is not for %s", isa);
    err = -ENOENT;
    goto fail_co;
  }
  err = loader_load(d->gpu, md->co, &md->image);
  if (err)
    goto fail_co;
  if (m->registered ? (err = hip_registered_vars_bind(m, md->co, md->image))
                    : (err = module_bind_managed(m, md))) {
    loader_unload(md->image);
    md->image = NULL;
    goto fail_co;
  }
  return 0;

fail_co:
  loader_code_object_close(md->co);
  md->co = NULL;
  return err;
}

int hip_module_on_device(struct ihipModule_t *m, struct hip_device *d, struct module_device **state)
{
  if (d->ordinal < 0 || d->ordinal >= HIP_MODULE_MAX_DEVICES || !d->gpu)
    return -ENODEV;
  struct module_device *md = &m->dev[d->ordinal];
  pthread_mutex_lock(&m->lock);
  if (md->state == 0) {
    int err = module_load_device(m, d, md);
    md->state = err ? err : 1;
  }
  int result = md->state < 0 ? md->state : 0;
  pthread_mutex_unlock(&m->lock);
  *state = md;
  return result;
}

/* The slow path: load the module on [in] d if needed, find the kernel by name and fill the
 * function's slot for d (under the module lock, so racing resolvers fill it once). */
static int function_resolve_slow(struct ihipModuleSymbol_t *f, struct hip_device *d,
                                 struct hip_kernel_ref *out)
{
  struct module_device *md;
  int err = hip_module_on_device(f->module, d, &md);
  if (err)
    return err;
  const struct loader_kernel *k = loader_find_kernel(md->co, f->name);
  if (!k)
    return -ESRCH;
  out->kernel = k;
  out->co = md->co;
  out->kernel_object = loader_kernel_object(md->image, k);
  pthread_mutex_lock(&f->module->lock);
  struct hip_kernel_slot *slots = atomic_load_explicit(&f->resolved, memory_order_relaxed);
  if (!slots && (slots = calloc(HIP_MODULE_MAX_DEVICES, sizeof(*slots))))
    atomic_store_explicit(&f->resolved, slots, memory_order_release);
  /* Without memory for the slots the launch still goes ahead, by the slow path each time. */
  if (slots && !atomic_load_explicit(&slots[d->ordinal].ready, memory_order_relaxed)) {
    slots[d->ordinal].ref = *out;
    atomic_store_explicit(&slots[d->ordinal].ready, 1, memory_order_release);
  }
  pthread_mutex_unlock(&f->module->lock);
  return 0;
}

int hip_function_resolve(struct ihipModuleSymbol_t *f, struct hip_device *d, struct hip_kernel_ref *out)
{
  /* hip_module_on_device rejects ordinals outside the slots. */
  const struct hip_kernel_slot *slots = atomic_load_explicit(&f->resolved, memory_order_acquire);
  if (slots && d->ordinal >= 0 && d->ordinal < HIP_MODULE_MAX_DEVICES &&
      atomic_load_explicit(&slots[d->ordinal].ready, memory_order_acquire)) {
    *out = slots[d->ordinal].ref;
    return 0;
  }
  return function_resolve_slow(f, d, out);
}


int hip_function_create(struct ihipModule_t *m, const char *name, const void *host_stub,
                        struct ihipModuleSymbol_t **out)
{
  struct ihipModuleSymbol_t *f = function_obtain();
  if (!f)
    return -ENOMEM;
  if (hip_handle_add(&hip_known_functions, f) || !(f->name = strdup(name))) {
    function_retire(f);
    return -ENOMEM;
  }
  f->magic = HIP_FUNCTION_MAGIC;
  f->module = m;
  f->host_stub = host_stub;
  pthread_mutex_lock(&m->lock);
  f->next = m->functions;
  m->functions = f;
  pthread_mutex_unlock(&m->lock);
  *out = f;
  return 0;
}

/* ---- file loading ---- */

static int read_file(const char *path, void **data, size_t *size)
{
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  struct stat st;
  int err = 0;

  if (fd < 0)
    return -errno;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return -EINVAL;
  }
  if (st.st_size <= 0) {
    close(fd);
    return -ENOEXEC; /* an empty file holds no code object: an invalid image, as in clr */
  }
  char *buf = malloc((size_t)st.st_size);
  if (!buf) {
    close(fd);
    return -ENOMEM;
  }
  size_t done = 0;
  while (done < (size_t)st.st_size) {
    ssize_t n = read(fd, buf + done, (size_t)st.st_size - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      err = n < 0 ? -errno : -EIO;
      break;
    }
    done += (size_t)n;
  }
  close(fd);
  if (err) {
    free(buf);
    return err;
  }
  *data = buf;
  *size = done;
  return 0;
}

/* A module is accepted only if the current device can run it: load it there now, as AMD's
 * runtime does, so errors surface at hipModuleLoad rather than at the first launch. */
static hipError_t module_load_checked(struct ihipModule_t *m, hipModule_t *out)
{
  struct hip_device *d = hip_device_current();
  struct module_device *md;
  if (!d) {
    hip_module_destroy(m);
    return hipErrorNoDevice;
  }
  int err = hip_module_on_device(m, d, &md);
  if (err) {
    hip_module_destroy(m);
    /* not a bundle or code object at all: an invalid image, as clr reports it */
    return err == -ENOENT ? hipErrorNoBinaryForGpu
           : err == -ENOEXEC || err == -EINVAL ? hipErrorInvalidImage
           : hip_error_from_errno(err);
  }
  *out = m;
  return hipSuccess;
}

hipError_t hipModuleLoad(hipModule_t *module, const char *fname)
{
  void *data = NULL;
  size_t size = 0;
  struct ihipModule_t *m;

  if (!module || !fname || !*fname)
    HIP_RETURN(hipErrorInvalidValue); /* clr: an empty name is a bad value, not a missing file */
  int err = read_file(fname, &data, &size);
  if (err)
    HIP_RETURN(err == -ENOENT    ? hipErrorFileNotFound
               : err == -ENOEXEC ? hipErrorInvalidImage
                                 : hipErrorInvalidValue);
  err = hip_module_create(data, size, false, false, &m);
  if (err) {
    free(data);
    HIP_RETURN(hipErrorOutOfMemory);
  }
  m->owned = data;
  HIP_RETURN(module_load_checked(m, module));
}

/* The size of an in-memory image the caller gives without one: bounded by its own headers. */
static int image_size(const void *image, size_t *size)
{
  /* hipModuleLoadData has no size parameter: read the bundle or ELF headers, bounded by the
   * mapping the image lives in so a corrupt header cannot make us read past it. */
  size_t limit = hip_readable_extent(image);
  return limit ? loader_bundle_size(image, limit, size) : -EFAULT;
}

hipError_t hipModuleLoadData(hipModule_t *module, const void *image)
{
  struct ihipModule_t *m;
  size_t size;

  if (!module || !image)
    HIP_RETURN(hipErrorInvalidValue);
  if (image_size(image, &size))
    HIP_RETURN(hipErrorInvalidImage);
  if (hip_module_create(image, size, true, false, &m))
    HIP_RETURN(hipErrorOutOfMemory);
  HIP_RETURN(module_load_checked(m, module));
}

hipError_t hipModuleLoadDataEx(hipModule_t *module, const void *image, unsigned int numOptions,
                               hipJitOption *options, void **optionValues)
{
  /* JIT options do not apply to finished code objects; AMD ignores them too. */
  (void)numOptions;
  (void)options;
  (void)optionValues;
  return hipModuleLoadData(module, image);
}

hipError_t hipModuleUnload(hipModule_t module)
{
  /* clr (PlatformState::UnloadModule): NULL is an invalid handle; a module it did not load, or
   * already unloaded, is not found (a second hipModuleUnload of the same handle). The modules of
   * registered fat binaries are not hipModuleLoad's either. */
  if (!module)
    HIP_RETURN(hipErrorInvalidResourceHandle);
  if (!hip_module_valid(module) || module->registered)
    HIP_RETURN(hipErrorNotFound);
  /* Kernels of this module may still run: wait for every device it was loaded on. */
  for (int i = 0; i < HIP_MODULE_MAX_DEVICES; i++) {
    if (module->dev[i].image) {
      struct hip_device *d = hip_device_get(i);
      if (d)
        hip_device_sync_all(d);
    }
  }
  hip_module_destroy(module);
  HIP_RETURN(hipSuccess);
}

hipError_t hipModuleGetFunction(hipFunction_t *function, hipModule_t module, const char *kname)
{
  struct module_device *md;
  struct hip_device *d;

  if (!function || !kname)
    HIP_RETURN(hipErrorInvalidValue);
  if (!hip_module_valid(module))
    HIP_RETURN(hipErrorInvalidResourceHandle);
  if (!(d = hip_device_current()))
    HIP_RETURN(hipErrorNoDevice);
  int err = hip_module_on_device(module, d, &md);
  if (err)
    HIP_RETURN(err == -ENOENT ? hipErrorNoBinaryForGpu : hipErrorInvalidImage);
  if (!loader_find_kernel(md->co, kname))
    HIP_RETURN(hipErrorNotFound);
  if (hip_function_create(module, kname, NULL, function))
    HIP_RETURN(hipErrorOutOfMemory);
  HIP_RETURN(hipSuccess);
}

hipError_t hipModuleGetGlobal(hipDeviceptr_t *dptr, size_t *bytes, hipModule_t hmod, const char *name)
{
  struct module_device *md;
  struct hip_device *d;

  if (!name || !*name || (!dptr && !bytes))
    HIP_RETURN(hipErrorInvalidValue);
  if (!hip_module_valid(hmod))
    HIP_RETURN(hipErrorInvalidResourceHandle);
  if (!(d = hip_device_current()))
    HIP_RETURN(hipErrorNoDevice);
  int err = hip_module_on_device(hmod, d, &md);
  if (err)
    HIP_RETURN(err == -ENOENT ? hipErrorNoBinaryForGpu : hipErrorInvalidImage);
  /* A __managed__ variable: its symbol holds a pointer to the managed allocation; clr's
   * DynCO::getGlobalVar hands out the allocation itself and its size (the variable's). */
  void *managed;
  size_t managed_size;
  if (hip_module_managed(hmod, name, &managed, &managed_size) == 0) {
    if (dptr)
      *dptr = managed;
    if (bytes)
      *bytes = managed_size;
    HIP_RETURN(hipSuccess);
  }
  const struct loader_variable *v = loader_find_variable(md->co, name);
  if (!v)
    HIP_RETURN(hipErrorNotFound);
  if (dptr)
    *dptr = loader_variable_address(md->image, v);
  if (bytes)
    *bytes = v->size;
  HIP_RETURN(hipSuccess);
}
