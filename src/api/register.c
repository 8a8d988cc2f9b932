/*
 * The compiler ABI: what clang's HIP code generation calls from the program's constructors
 * (__hipRegisterFatBinary, __hipRegisterFunction, __hipRegisterVar, __hipRegisterManagedVar), from
 * its destructors (__hipUnregisterFatBinary) and around every <<<>>> launch
 * (__hipPushCallConfiguration, __hipPopCallConfiguration).
 *
 * Registered functions and variables live in two hash tables keyed by the host address clang
 * gives (the kernel's host stub, the variable's host shadow).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../runtime/error.h"
#include "loader_api.h"
#include "../runtime/runtime.h"
#include "symbols.h"
#include "../memory/mem.h"

/* The wrapper clang emits in section .hipFatBinSegment (CGCUDANV.cpp): magic "HIPF", version 1,
 * the fat binary (a clang offload bundle in .hip_fatbin), an unused pointer. */
struct hip_fatbin_wrapper {
  uint32_t magic;
  uint32_t version;
  const void *binary;
  const void *unused;
};
#define HIP_FATBIN_MAGIC 0x48495046u

/* ---- host address -> entry tables ---- */

struct registered_var {
  const void *host;                 /* the host shadow's address (key) */
  struct ihipModule_t *module;
  char *name;                       /* device symbol name */
  size_t size;
  void *managed;                    /* managed variables: the allocation the shadow points to */
  struct registered_var *next;
};

struct registered_fn {
  const void *host;                 /* host stub (key) */
  struct ihipModuleSymbol_t *function;
  struct registered_fn *next;
};

#define TABLE_BUCKETS 1024
static struct registered_fn *fn_table[TABLE_BUCKETS];
static struct registered_var *var_table[TABLE_BUCKETS];
static pthread_rwlock_t table_lock = PTHREAD_RWLOCK_INITIALIZER; /* protects both tables */

static size_t bucket(const void *p)
{
  uintptr_t v = (uintptr_t)p;
  return (size_t)((v >> 4) ^ (v >> 14)) % TABLE_BUCKETS;
}

/* Launches look the same few stubs up again and again: a small direct-mapped cache shared by all
 * threads keeps the last answers, valid while fn_generation is unchanged. The generation is
 * bumped under the write lock whenever the function table changes, so an answer found before a
 * record is freed (__hipUnregisterFatBinary) is never served after it. Each entry is a seqlock
 * (odd `seq`: being written), so a reader sees a consistent (stub, function, generation) triple
 * with plain loads and no thread-local access; a writer that finds the entry busy just skips
 * filling it. */
#define FN_CACHE_SLOTS 64
struct fn_cache_entry {
  _Atomic unsigned long seq;
  _Atomic(const void *) stub;
  _Atomic(struct ihipModuleSymbol_t *) function;
  _Atomic unsigned long generation;
};
static atomic_ulong fn_generation = 1; /* 1: a zeroed cache entry never matches */
static struct fn_cache_entry fn_cache[FN_CACHE_SLOTS];

static struct fn_cache_entry *fn_cache_slot(const void *stub)
{
  return &fn_cache[((uintptr_t)stub >> 4) % FN_CACHE_SLOTS];
}

static struct ihipModuleSymbol_t *fn_cache_get(const void *stub, unsigned long gen)
{
  struct fn_cache_entry *c = fn_cache_slot(stub);
  unsigned long seq = atomic_load_explicit(&c->seq, memory_order_acquire);
  const void *s = atomic_load_explicit(&c->stub, memory_order_relaxed);
  struct ihipModuleSymbol_t *f = atomic_load_explicit(&c->function, memory_order_relaxed);
  unsigned long g = atomic_load_explicit(&c->generation, memory_order_relaxed);
  atomic_thread_fence(memory_order_acquire);
  if ((seq & 1) || atomic_load_explicit(&c->seq, memory_order_relaxed) != seq)
    return NULL;
  return s == stub && g == gen ? f : NULL;
}

static void fn_cache_put(const void *stub, struct ihipModuleSymbol_t *f, unsigned long gen)
{
  struct fn_cache_entry *c = fn_cache_slot(stub);
  unsigned long seq = atomic_load_explicit(&c->seq, memory_order_relaxed);
  if ((seq & 1) || !atomic_compare_exchange_strong_explicit(&c->seq, &seq, seq + 1,
                                                            memory_order_acquire,
                                                            memory_order_relaxed))
    return; /* another thread is filling it */
  atomic_thread_fence(memory_order_release);
  atomic_store_explicit(&c->stub, stub, memory_order_relaxed);
  atomic_store_explicit(&c->function, f, memory_order_relaxed);
  atomic_store_explicit(&c->generation, gen, memory_order_relaxed);
  atomic_store_explicit(&c->seq, seq + 2, memory_order_release);
}

static struct ihipModuleSymbol_t *find_function(const void *stub)
{
  struct ihipModuleSymbol_t *f = NULL;
  pthread_rwlock_rdlock(&table_lock);
  for (struct registered_fn *e = fn_table[bucket(stub)]; e; e = e->next) {
    if (e->host == stub) {
      f = e->function;
      break;
    }
  }
  pthread_rwlock_unlock(&table_lock);
  return f;
}

/* Out of line, so the cached path saves no registers. */
static __attribute__((noinline)) struct ihipModuleSymbol_t *
registered_function_slow(const void *stub, unsigned long gen)
{
  struct ihipModuleSymbol_t *f = find_function(stub);
  if (f)
    fn_cache_put(stub, f, gen);
  return f;
}

struct ihipModuleSymbol_t *hip_registered_function(const void *stub)
{
  /* Read before the lookup: a table change after it makes the entry stale at once. */
  unsigned long gen = atomic_load_explicit(&fn_generation, memory_order_acquire);
  struct ihipModuleSymbol_t *f = fn_cache_get(stub, gen);
  return f ? f : registered_function_slow(stub, gen);
}

/* Copies the entry for [in] host out under the lock. */
static bool find_var(const void *host, struct registered_var *out)
{
  bool found = false;
  pthread_rwlock_rdlock(&table_lock);
  for (struct registered_var *e = var_table[bucket(host)]; e; e = e->next) {
    if (e->host == host) {
      *out = *e;
      found = true;
      break;
    }
  }
  pthread_rwlock_unlock(&table_lock);
  return found;
}

/* ---- readable extent of a pointer ---- */

/* How many bytes from [in] p are mapped readable, from /proc/self/maps (adjacent readable
 * mappings are joined). __hipRegisterFatBinary and hipModuleLoadData get no size, so this
 * bounds what a corrupt header could make the parser read. 0 if p is not mapped. */
size_t hip_readable_extent(const void *p)
{
  FILE *f = fopen("/proc/self/maps", "re");
  uintptr_t addr = (uintptr_t)p, end = 0;
  char line[512];

  if (!f)
    return 0;
  while (fgets(line, sizeof(line), f)) {
    uintptr_t lo, hi;
    char perms[8];
    if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR " %7s", &lo, &hi, perms) != 3)
      continue;
    if (perms[0] != 'r') {
      if (end)
        break;
      continue;
    }
    if (end ? lo == end : (addr >= lo && addr < hi))
      end = hi;
    else if (end)
      break;
  }
  fclose(f);
  return end ? end - addr : 0;
}

/* ---- registration ---- */

void **__hipRegisterFatBinary(const void *data)
{
  const struct hip_fatbin_wrapper *w = data;
  struct ihipModule_t *m;
  size_t limit, size;

  if (!w || w->magic != HIP_FATBIN_MAGIC || w->version != 1 || !w->binary)
    return NULL;
  limit = hip_readable_extent(w->binary);
  if (!limit || loader_bundle_size(w->binary, limit, &size))
    return NULL;
  /* The bundle stays in the program's image: no copy. */
  if (hip_module_create(w->binary, size, false, true, &m))
    return NULL;
  return (void **)m;
}

void __hipRegisterFunction(void **modules, const void *hostFunction, char *deviceFunction,
                           const char *deviceName, unsigned int threadLimit, void *tid, void *bid,
                           dim3 *blockDim, dim3 *gridDim, int *wSize)
{
  struct ihipModule_t *m = (struct ihipModule_t *)modules;
  struct ihipModuleSymbol_t *f;
  struct registered_fn *e;
  (void)deviceFunction;
  (void)threadLimit;
  (void)tid;
  (void)bid;
  (void)blockDim;
  (void)gridDim;
  (void)wSize;

  if (!hip_module_valid(m) || !hostFunction || !deviceName)
    return;
  if (hip_function_create(m, deviceName, hostFunction, &f))
    return;
  if (!(e = malloc(sizeof(*e))))
    return;
  e->host = hostFunction;
  e->function = f;
  pthread_rwlock_wrlock(&table_lock);
  e->next = fn_table[bucket(hostFunction)];
  fn_table[bucket(hostFunction)] = e;
  atomic_fetch_add_explicit(&fn_generation, 1, memory_order_release);
  pthread_rwlock_unlock(&table_lock);
}

static void add_var(struct ihipModule_t *m, const void *host, const char *name, size_t size,
                    void *managed)
{
  struct registered_var *e = calloc(1, sizeof(*e));
  if (!e || !(e->name = strdup(name))) {
    free(e);
    return;
  }
  e->host = host;
  e->module = m;
  e->size = size;
  e->managed = managed;
  pthread_rwlock_wrlock(&table_lock);
  e->next = var_table[bucket(host)];
  var_table[bucket(host)] = e;
  pthread_rwlock_unlock(&table_lock);
}

void __hipRegisterVar(void **modules, void *var, char *hostVar, char *deviceVar, int ext,
                      size_t size, int constant, int global)
{
  struct ihipModule_t *m = (struct ihipModule_t *)modules;
  (void)hostVar;
  (void)ext;
  (void)constant;
  (void)global;
  if (hip_module_valid(m) && var && deviceVar)
    add_var(m, var, deviceVar, size, NULL);
}

/* Managed variables (clang lowers `__managed__ T x` to a device variable `x` holding a T*, and a
 * host shadow pointer): the runtime allocates managed memory holding the initial value, points
 * the host shadow at it, and stores the same address into the device variable on each device
 * the module is loaded on (hip_registered_vars_bind). */
/* Managed memory for a __managed__ variable: SVM when the driver offers it, else coherent host
 * memory mapped to every GPU (what HIP falls back to without XNACK: both sides see one copy). */
static int managed_alloc(size_t size, void **out)
{
  if (mem_alloc(NULL, size, MEM_MANAGED, 0, out) == 0)
    return 0;
  struct hip_device *d = hip_device_get(0);
  if (!d || !d->gpu)
    return -ENODEV;
  return mem_alloc(d->gpu, size, MEM_HOST_PINNED, MEM_FLAG_COHERENT | MEM_FLAG_ALL_GPUS, out);
}

void __hipRegisterManagedVar(void *hipModule, void **pointer, void *init_value, const char *name,
                             size_t size, unsigned align)
{
  struct ihipModule_t *m = hipModule;
  void *p;
  (void)align; /* both kinds of allocation are page-aligned */

  if (!hip_module_valid(m) || !pointer || !name || !size)
    return;
  /* Allocated now, as AMD's runtime does: host code may touch the variable before any launch. */
  if (managed_alloc(size, &p))
    return;
  if (init_value)
    memcpy(p, init_value, size);
  *pointer = p;
  add_var(m, pointer, name, size, p);
}

int hip_registered_vars_bind(struct ihipModule_t *m, const struct loader_code_object *co,
                             const struct loader_image *img)
{
  int err = 0;
  pthread_rwlock_rdlock(&table_lock);
  for (size_t b = 0; b < TABLE_BUCKETS; b++) {
    for (struct registered_var *e = var_table[b]; e; e = e->next) {
      if (e->module != m || !e->managed)
        continue;
      const struct loader_variable *v = loader_find_variable(co, e->name);
      if (!v || v->size < sizeof(void *)) {
        err = -ENOEXEC;
        continue;
      }
      memcpy(loader_variable_address(img, v), &e->managed, sizeof(void *));
    }
  }
  pthread_rwlock_unlock(&table_lock);
  return err;
}

void __hipUnregisterFatBinary(void **modules)
{
  struct ihipModule_t *m = (struct ihipModule_t *)modules;
  if (!hip_module_valid(m))
    return;
  pthread_rwlock_wrlock(&table_lock);
  for (size_t b = 0; b < TABLE_BUCKETS; b++) {
    for (struct registered_fn **pp = &fn_table[b], *e; (e = *pp);) {
      if (e->function->module == m) {
        *pp = e->next;
        free(e);
        atomic_fetch_add_explicit(&fn_generation, 1, memory_order_release);
      } else {
        pp = &e->next;
      }
    }
    for (struct registered_var **pp = &var_table[b], *e; (e = *pp);) {
      if (e->module == m) {
        *pp = e->next;
        if (e->managed)
          mem_free(e->managed);
        free(e->name);
        free(e);
      } else {
        pp = &e->next;
      }
    }
  }
  pthread_rwlock_unlock(&table_lock);
  /* Kernels may still be running this module's code: the compiler's destructor runs at exit,
   * where a program may leave work in flight, even a kernel that never ends. Waiting could hang
   * the exit forever, and freeing the code under a running kernel would fault it, so the device
   * images stay loaded (their memory goes with the process, or is reused by nobody after a
   * dlclose) and only the host-side records are released. */
  for (int i = 0; i < HIP_MODULE_MAX_DEVICES; i++)
    m->dev[i].image = NULL;
  hip_module_destroy(m);
}

/* ---- symbols (src/api/symbols.h) ---- */

int hip_symbol_lookup(const void *host_symbol, struct hip_device *d, void **dev_ptr, size_t *size)
{
  struct registered_var v;
  struct module_device *md;

  if (!host_symbol || !d)
    return -EINVAL;
  if (!find_var(host_symbol, &v))
    return -ENOENT;
  int err = hip_module_on_device(v.module, d, &md);
  if (err)
    return err;
  const struct loader_variable *lv = loader_find_variable(md->co, v.name);
  if (!lv)
    return -ENOENT;
  if (dev_ptr)
    *dev_ptr = loader_variable_address(md->image, lv);
  if (size)
    *size = lv->size;
  return 0;
}

/* ---- <<<>>> configuration: a per-thread stack ---- */

struct call_config {
  dim3 grid, block;
  size_t shared;
  hipStream_t stream;
};

#define CALL_STACK_DEPTH 16
/* The innermost configuration is kept apart: a <<<>>> launch pushes and pops one level and
 * touches no array. Outer levels spill to call_outer. */
static HIP_TLS struct call_config call_top;
static HIP_TLS int call_depth;
static __thread struct call_config call_outer[CALL_STACK_DEPTH - 1];

hipError_t __hipPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem, hipStream_t stream)
{
  if (call_depth == CALL_STACK_DEPTH)
    HIP_RETURN(hipErrorInvalidConfiguration);
  if (call_depth > 0)
    call_outer[call_depth - 1] = call_top;
  call_top = (struct call_config){gridDim, blockDim, sharedMem, stream};
  call_depth++;
  return hipSuccess;
}

hipError_t __hipPopCallConfiguration(dim3 *gridDim, dim3 *blockDim, size_t *sharedMem, hipStream_t *stream)
{
  if (call_depth == 0)
    HIP_RETURN(hipErrorInvalidConfiguration);
  struct call_config c = call_top;
  if (--call_depth > 0)
    call_top = call_outer[call_depth - 1];
  if (gridDim)
    *gridDim = c.grid;
  if (blockDim)
    *blockDim = c.block;
  if (sharedMem)
    *sharedMem = c.shared;
  if (stream)
    *stream = c.stream;
  return hipSuccess;
}

hipError_t hipGetFuncBySymbol(hipFunction_t *functionPtr, const void *symbolPtr)
{
  if (!functionPtr || !symbolPtr)
    HIP_RETURN(hipErrorInvalidValue);
  struct ihipModuleSymbol_t *f = hip_registered_function(symbolPtr);
  if (!f)
    HIP_RETURN(hipErrorInvalidDeviceFunction);
  *functionPtr = f;
  HIP_RETURN(hipSuccess);
}

/* ---- the legacy launch ABI: hipConfigureCall, hipSetupArgument, hipLaunchByPtr ---- */

/* Arguments staged by hipSetupArgument at their kernarg offsets, for the innermost
 * configuration (clr keeps them with the configuration too). */
#define LEGACY_ARG_BYTES 4096
static __thread uint8_t legacy_args[LEGACY_ARG_BYTES];
static __thread size_t legacy_args_size;

hipError_t hipConfigureCall(dim3 gridDim, dim3 blockDim, size_t sharedMem, hipStream_t stream)
{
  legacy_args_size = 0;
  return __hipPushCallConfiguration(gridDim, blockDim, sharedMem, stream);
}

hipError_t hipSetupArgument(const void *arg, size_t size, size_t offset)
{
  if (!arg || offset > LEGACY_ARG_BYTES || size > LEGACY_ARG_BYTES - offset)
    HIP_RETURN(hipErrorInvalidValue);
  memcpy(legacy_args + offset, arg, size);
  if (offset + size > legacy_args_size)
    legacy_args_size = offset + size;
  HIP_RETURN(hipSuccess);
}

hipError_t hipLaunchByPtr(const void *func)
{
  struct call_config c;
  if (__hipPopCallConfiguration(&c.grid, &c.block, &c.shared, &c.stream) != hipSuccess)
    HIP_RETURN(hipErrorInvalidConfiguration);
  struct ihipModuleSymbol_t *f = func ? hip_registered_function(func) : NULL;
  if (!f)
    HIP_RETURN(hipErrorInvalidDeviceFunction);
  if (c.shared > UINT32_MAX)
    HIP_RETURN(hipErrorInvalidValue);
  struct hip_launch l = {.function = f, .grid = c.grid, .block = c.block,
                         .shared_mem = (uint32_t)c.shared, .stream = c.stream,
                         .arg_buffer = legacy_args_size ? legacy_args : NULL,
                         .arg_buffer_size = legacy_args_size};
  legacy_args_size = 0;
  HIP_RETURN(hip_launch(&l));
}
