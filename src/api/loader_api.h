/*
 * Modules and functions as the API layer sees them (private to register.c, module.c, launch.c,
 * occupancy.c, hostcall.c).
 *
 * A module is one fat binary or code object: registered by the compiler (__hipRegisterFatBinary)
 * or loaded by the user (hipModuleLoad*). It is parsed and uploaded per device lazily, on the
 * first launch or symbol use on that device. A function is one kernel name in a module, device
 * independent: launching it resolves the stream's device's loaded kernel.
 */
#ifndef HIPKFD_API_LOADER_API_H
#define HIPKFD_API_LOADER_API_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hip/hip_runtime_api.h>

#include "../runtime/internal.h"

#include "../loader/loader.h"
#include "../runtime/runtime.h"

struct hip_device;
struct hip_stream;

#define HIP_MODULE_MAX_DEVICES HIP_MAX_DEVICES
#define HIP_MODULE_MAGIC 0x4d4f444cu   /* "MODL": catches stale or foreign hipModule_t */
#define HIP_FUNCTION_MAGIC 0x46554e43u /* "FUNC" */

/* One module's state on one device. */
struct module_device {
  int state;                        /* 0 not tried, 1 loaded, <0 the -errno of the failed load */
  struct loader_code_object *co;    /* owned */
  struct loader_image *image;       /* owned */
};

/* A __managed__ variable of a loaded module: one managed allocation shared by every device's
 * copy of the code (clr's DynCO::initDynManagedVars). */
struct module_managed {
  char *name;                       /* the variable holding the pointer (`<v>` of `<v>.managed`) */
  void *ptr;
  size_t size;
};

struct ihipModule_t {
  uint32_t magic;
  const void *data;                 /* fat binary / bundle / ELF bytes */
  size_t size;
  void *owned;                      /* our copy of data, when we made one (hipModuleLoad*) */
  bool registered;                  /* from __hipRegisterFatBinary */
  pthread_mutex_t lock;             /* protects dev[] and functions */
  struct module_device dev[HIP_MODULE_MAX_DEVICES];
  struct ihipModuleSymbol_t *functions; /* every function handed out (freed with the module) */
  struct module_managed *managed;   /* loaded modules' managed variables; protected by lock */
  unsigned nmanaged;
};

/* The resolved kernel of a function on one device. */
struct hip_kernel_ref {
  const struct loader_kernel *kernel;
  const struct loader_code_object *co;
  uint64_t kernel_object;
};

/* A function's kernel on one device, filled on its first resolution there. A module's code object
 * and image on a device never change while the module lives (they are loaded once and freed only
 * with the module, which frees its functions too), so the slot never goes stale: hipModuleUnload
 * and __hipUnregisterFatBinary free the function with it, and a reloaded module makes new
 * functions. ready is stored with release after ref, read with acquire before it. */
struct hip_launch_plan; /* launch.c: the kernel's kernarg image on the device, built on first launch */
struct hip_kernel_slot {
  struct hip_kernel_ref ref;
  atomic_uint ready;
  _Atomic(struct hip_launch_plan *) plan;
};

struct ihipModuleSymbol_t {
  uint32_t magic;
  struct ihipModule_t *module;
  char *name;                       /* the kernel's .name (mangled) */
  const void *host_stub;            /* for registered functions, else NULL */
  int max_dynamic_shared;           /* hipFuncAttributeMaxDynamicSharedMemorySize */
  int preferred_carveout;           /* hipFuncAttributePreferredSharedMemoryCarveout */
  struct ihipModuleSymbol_t *next;  /* in module->functions; protected by module->lock */
  /* HIP_MODULE_MAX_DEVICES slots by device ordinal, allocated on the first resolution (libraries
   * register thousands of kernels that are never launched); stored with release. */
  _Atomic(struct hip_kernel_slot *) resolved;
};

/* ---- module.c ---- */

/* Makes a module over [in] data of [in] size (copied when [in] copy). */
int hip_module_create(const void *data, size_t size, bool copy, bool registered,
                      struct ihipModule_t **out);
void hip_module_destroy(struct ihipModule_t *m);

/* Loads [in] m on [in] d if not yet done. Returns 0 or -errno (-ENOENT: no code object for the
 * device's ISA). [out] state: the module's per-device state. */
int hip_module_on_device(struct ihipModule_t *m, struct hip_device *d, struct module_device **state);

/* Resolves [in] f on [in] d. Returns 0 or -errno (-ENOENT no code object, -ESRCH no such kernel). */
int hip_function_resolve(struct ihipModuleSymbol_t *f, struct hip_device *d, struct hip_kernel_ref *out);

/* The slot of [in] f on the device of [in] ordinal when it is already resolved there, else NULL
 * (no lock; inline for launches). */
static inline struct hip_kernel_slot *hip_function_slot(struct ihipModuleSymbol_t *f, int ordinal)
{
  struct hip_kernel_slot *slots = atomic_load_explicit(&f->resolved, memory_order_acquire);
  if (slots && ordinal >= 0 && ordinal < HIP_MODULE_MAX_DEVICES &&
      atomic_load_explicit(&slots[ordinal].ready, memory_order_acquire))
    return &slots[ordinal];
  return NULL;
}

/* A new function for kernel [in] name of [in] m (not checked against any device). */
int hip_function_create(struct ihipModule_t *m, const char *name, const void *host_stub,
                        struct ihipModuleSymbol_t **out);

bool hip_module_valid(const struct ihipModule_t *m);
/* The managed allocation of __managed__ variable [in] name of loaded module [in] m (made when
 * the module was first loaded on a device). 0 or -ENOENT. */
int hip_module_managed(struct ihipModule_t *m, const char *name, void **ptr, size_t *size);

/* Every module and function object ever handed out (module.c). They are recycled, never freed, so
 * a handle found in its set points to readable memory and its magic tells whether it is live; a
 * handle not found is never read through (issue 12). Lock-free: a launch looks its function up. */
extern struct hip_handle_set hip_known_modules, hip_known_functions;

static inline bool hip_function_valid(const struct ihipModuleSymbol_t *f)
{
  return hip_handle_known(&hip_known_functions, f) && f->magic == HIP_FUNCTION_MAGIC;
}

/* ---- register.c ---- */

/* The function registered for host stub [in] stub, or NULL. */
struct ihipModuleSymbol_t *hip_registered_function(const void *stub);

/* Stores the managed variables' addresses into their device variables in a freshly loaded image
 * of registered module [in] m. Returns 0 or -ENOEXEC (a variable missing from the code object). */
int hip_registered_vars_bind(struct ihipModule_t *m, const struct loader_code_object *co,
                             const struct loader_image *img);

/* Bytes readable from [in] p (joined readable mappings of /proc/self/maps), 0 if unmapped. */
size_t hip_readable_extent(const void *p);

/* ---- launch.c ---- */

struct hip_launch {
  struct ihipModuleSymbol_t *function;
  dim3 grid;                        /* in blocks */
  dim3 block;
  uint32_t shared_mem;
  hipStream_t stream;
  void **args;                      /* kernelParams, or NULL */
  const void *arg_buffer;           /* `extra` HIP_LAUNCH_PARAM_BUFFER_POINTER, or NULL */
  size_t arg_buffer_size;
  bool cooperative;
  bool grid_in_workitems;           /* hipExtModuleLaunchKernel: grid counts work-items */
};

/* Validates and dispatches. Returns a hipError_t (not yet recorded as last error). */
hipError_t hip_launch(const struct hip_launch *l);

/* Prepares [in] l (its stream is not used) for device [in] d without submitting it: [out] out
 * gets the dispatch packet's fields, [out] kernarg (AQL_KERNARG_SLOT_SIZE bytes, 64-byte
 * aligned) the whole kernarg block with the hidden queue_ptr set to [in] queue_va, [out]
 * image_size its size (a multiple of 64). Outputs untouched on error. hipErrorNotSupported for a
 * launch that must be made at submission (cooperative, buffered printf, dynamic stack); else the
 * errors hip_launch gives. */
struct aql_dispatch;
hipError_t hip_launch_prepare(const struct hip_launch *l, struct hip_device *d, uint64_t queue_va,
                              uint8_t *kernarg, struct aql_dispatch *out, uint32_t *image_size);

/* Frees a plan of a hip_kernel_slot (hip_module_destroy). NULL is a no-op. */
void hip_launch_plan_free(struct hip_launch_plan *p);

/* ---- occupancy.c ---- */

/* Blocks of [in] block_size threads using [in] dyn_lds bytes that fit on one CU at once.
 * Returns 0 or -errno. */
int hip_occupancy_blocks_per_cu(const struct hip_device *d, const struct loader_kernel *k,
                                uint32_t block_size, size_t dyn_lds, int *blocks);

#endif
