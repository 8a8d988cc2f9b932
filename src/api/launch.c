/*
 * Kernel launches: hipLaunchKernel and its variants all come to hip_launch(), which resolves the
 * function on the stream's device, validates the configuration as AMD's runtime does
 * (clr hip_module.cpp, ihipLaunchKernel_validate), lays out the kernarg block from the kernel's
 * metadata (explicit arguments, then the hidden ones of code object v4/v5) and hands an AQL
 * dispatch to the stream (hip_stream_dispatch).
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "../runtime/activity.h"
#include "../runtime/capture.h"
#include "../hostcall/device_heap.h"
#include "../runtime/error.h"
#include "../runtime/internal.h"
#include "launch_multi.h"
#include "../hostcall/hostcall.h"
#include "../hostcall/printf_buffer.h"
#include "loader_api.h"
#include "../runtime/runtime.h"
#include "../kfd/kfd.h"
#include "../queues/aql.h"

/* Device limits every gfx9 part shares (AMDGPUUsage; hipDeviceProp_t.maxThreadsPerBlock). */
#define MAX_WORKGROUP_SIZE 1024u
/* The stack a kernel with a dynamic stack gets when hipLimitStackSize was not set (clr's
 * default). */
#define DEFAULT_STACK_SIZE 1024u

/* ---- launch plans -------------------------------------------------------------------------------
 *
 * A kernel's kernarg block is mostly the same from one launch to the next: padding, the hidden
 * arguments that are 0 in HIP, the apertures, the hostcall buffer and heap of the device. The
 * first launch of a function on a device builds a plan: an image of the whole block with those
 * constant values in place and zeros elsewhere, plus the short list of hidden arguments that
 * depend on the launch (grid, block, dynamic LDS, queue, cooperative sync). A launch copies the
 * image straight into the queue's kernarg slot and patches the explicit and per-launch values. */

/* Per-launch hidden values, indexed by the plan's `what`. */
enum launch_value {
  LV_BLOCK_COUNT_X, LV_BLOCK_COUNT_Y, LV_BLOCK_COUNT_Z,
  LV_GROUP_SIZE_X, LV_GROUP_SIZE_Y, LV_GROUP_SIZE_Z,
  LV_REMAINDER_X, LV_REMAINDER_Y, LV_REMAINDER_Z,
  LV_DYNAMIC_LDS, LV_QUEUE_PTR, LV_MULTIGRID_SYNC,
  LV_COUNT,
  /* Plan entries only: x, y, z of one kind in consecutive slots (COV5 lays them out so), written
   * with one store each. */
  LV_BLOCK_COUNT_XYZ = LV_COUNT, LV_GROUP_SIZE_XYZ, LV_REMAINDER_XYZ
};

struct plan_arg {
  uint32_t offset;
  uint8_t size;   /* bytes written: min(metadata size, 8) */
  uint8_t what;   /* enum launch_value */
};

struct hip_launch_plan {
  uint32_t image_size;     /* the kernarg block's size rounded up to 64: the image is copied in
                            * whole lines */
  uint32_t ndyn;
  uint32_t nalways;        /* dyn[0..nalways) always written; the rest (remainders and the
                            * multigrid argument, 0 in the image) only for a grid counted in
                            * work-items or a cooperative launch */
  bool multigrid;          /* has a hidden_multigrid_sync_arg (set per cooperative launch) */
  bool printf_buffer;      /* has a hidden_printf_buffer: buffered printf (printf_buffer.c) */
  /* The checks of validate() folded into limits, for launch_fits: */
  bool fast;               /* kernarg block within the queue's limits, private segment fixed (no
                            * dynamic stack), no printf buffer: a launch that fits needs nothing
                            * but the plan */
  uint32_t max_threads;    /* work-items per group: the device's and the kernel's bounds */
  uint32_t lds_free;       /* dynamic LDS a launch may add to the kernel's own */
  uint8_t *image;          /* image_size bytes, after dyn[] in the same allocation */
  struct plan_arg dyn[];
};

static void put(uint8_t *kernarg, uint32_t offset, uint32_t size, uint64_t value)
{
  /* Little-endian: the low `size` bytes of value. Sizes are bounded by the metadata check. */
  memcpy(kernarg + offset, &value, size < 8 ? size : 8);
}

static int plan_value(enum loader_arg_kind kind)
{
  switch (kind) {
  case LOADER_ARG_HIDDEN_BLOCK_COUNT_X: return LV_BLOCK_COUNT_X;
  case LOADER_ARG_HIDDEN_BLOCK_COUNT_Y: return LV_BLOCK_COUNT_Y;
  case LOADER_ARG_HIDDEN_BLOCK_COUNT_Z: return LV_BLOCK_COUNT_Z;
  case LOADER_ARG_HIDDEN_GROUP_SIZE_X: return LV_GROUP_SIZE_X;
  case LOADER_ARG_HIDDEN_GROUP_SIZE_Y: return LV_GROUP_SIZE_Y;
  case LOADER_ARG_HIDDEN_GROUP_SIZE_Z: return LV_GROUP_SIZE_Z;
  case LOADER_ARG_HIDDEN_REMAINDER_X: return LV_REMAINDER_X;
  case LOADER_ARG_HIDDEN_REMAINDER_Y: return LV_REMAINDER_Y;
  case LOADER_ARG_HIDDEN_REMAINDER_Z: return LV_REMAINDER_Z;
  case LOADER_ARG_HIDDEN_DYNAMIC_LDS_SIZE: return LV_DYNAMIC_LDS;
  case LOADER_ARG_HIDDEN_QUEUE_PTR: return LV_QUEUE_PTR;
  case LOADER_ARG_HIDDEN_MULTIGRID_SYNC_ARG: return LV_MULTIGRID_SYNC;
  default: return -1;
  }
}

/* The value of a hidden argument that is the same for every launch on [in] d (AMDGPUUsage "Code
 * Object V5 Metadata", and V4's hidden_* kinds). Global offsets are 0 in HIP; HIP printf uses
 * hostcall, or with -mprintf-kind=buffered the printf buffer; no device-side enqueue (default
 * queue, completion action). The hostcall buffer, the printf buffer and the heap are made on the
 * first launch of a kernel that names them and live as long as the device. */
static int plan_constant(struct hip_device *d, enum loader_arg_kind kind, uint64_t *value)
{
  *value = 0;
  switch (kind) {
  case LOADER_ARG_HIDDEN_GRID_DIMS:
    *value = 3; /* HIP dispatches are always 3-dimensional (clr's NDRange of 3) */
    return 0;
  /* Apertures: the high 32 bits of the flat address of each (AMDGPUUsage, hidden_*_base). */
  case LOADER_ARG_HIDDEN_PRIVATE_BASE:
    *value = (uint32_t)(d->gpu->scratch_base >> 32);
    return 0;
  case LOADER_ARG_HIDDEN_SHARED_BASE:
    *value = (uint32_t)(d->gpu->lds_base >> 32);
    return 0;
  case LOADER_ARG_HIDDEN_HOSTCALL_BUFFER:
    return hip_hostcall_buffer(d, value);
  case LOADER_ARG_HIDDEN_PRINTF_BUFFER:
    return hip_printf_buffer(d, value);
  case LOADER_ARG_HIDDEN_HEAP_V1:
    return hip_device_heap(d, value);
  default:
    return 0;
  }
}

static struct plan_arg *plan_find(struct hip_launch_plan *p, int what)
{
  for (uint32_t i = 0; i < p->ndyn; i++)
    if (p->dyn[i].what == what)
      return &p->dyn[i];
  return NULL;
}

static void plan_drop(struct hip_launch_plan *p, struct plan_arg *a)
{
  *a = p->dyn[--p->ndyn];
}

/* Replace the x, y, z entries of kind [in] x (each [in] size bytes) by one [in] xyz entry when
 * they lie back to back. */
static void plan_merge(struct hip_launch_plan *p, int x, uint8_t size, int xyz)
{
  struct plan_arg *ax = plan_find(p, x), *ay = plan_find(p, x + 1), *az = plan_find(p, x + 2);
  if (!ax || !ay || !az || ax->size != size || ay->size != size || az->size != size ||
      ay->offset != ax->offset + size || az->offset != ax->offset + 2u * size)
    return;
  ax->what = (uint8_t)xyz;
  /* Drop the higher of the two first: plan_drop moves the last entry into the hole. */
  struct plan_arg *hi = ay > az ? ay : az, *lo = ay > az ? az : ay;
  plan_drop(p, hi);
  plan_drop(p, lo);
}

static bool plan_optional(int what)
{
  return what == LV_MULTIGRID_SYNC || what == LV_REMAINDER_XYZ ||
         (what >= LV_REMAINDER_X && what <= LV_REMAINDER_Z);
}

/* The always-written entries first. */
static void plan_order(struct hip_launch_plan *p)
{
  uint32_t n = 0;
  for (uint32_t i = 0; i < p->ndyn; i++) {
    if (plan_optional(p->dyn[i].what))
      continue;
    struct plan_arg t = p->dyn[n];
    p->dyn[n++] = p->dyn[i];
    p->dyn[i] = t;
  }
  p->nalways = n;
}

static bool kernarg_layout_ok(const struct loader_kernel *k)
{
  /* The dispatch is marked checked: what the queue layer would reject is rejected here. */
  return k->kernarg_segment_size <= AQL_KERNARG_SLOT_SIZE && k->kernarg_segment_align <= 64 &&
         !(k->kernarg_segment_align & (k->kernarg_segment_align - 1));
}

/* validate()'s limits that depend only on the kernel and the device. */
static void plan_limits(struct hip_launch_plan *p, const struct loader_kernel *k,
                        const struct hip_device *d)
{
  uint32_t lds_limit = d->node->lds_size_in_kb * 1024u;
  p->max_threads = k->max_flat_workgroup_size < MAX_WORKGROUP_SIZE ? k->max_flat_workgroup_size
                                                                    : MAX_WORKGROUP_SIZE;
  p->lds_free = k->group_segment_fixed_size <= lds_limit ? lds_limit - k->group_segment_fixed_size : 0;
  p->fast = kernarg_layout_ok(k) && !k->uses_dynamic_stack && !p->printf_buffer &&
            k->group_segment_fixed_size <= lds_limit;
}

static int plan_build(const struct loader_kernel *k, struct hip_device *d,
                      struct hip_launch_plan **out)
{
  uint32_t nhidden = k->nargs - k->nexplicit;
  size_t head = sizeof(struct hip_launch_plan) + nhidden * sizeof(struct plan_arg);
  uint32_t image_size = (k->kernarg_segment_size + 63u) & ~63u;
  struct hip_launch_plan *p = calloc(1, head + image_size);

  *out = NULL;
  if (!p)
    return -ENOMEM;
  p->image_size = image_size;
  p->image = (uint8_t *)p + head;
  for (uint32_t i = k->nexplicit; i < k->nargs; i++) {
    const struct loader_kernel_arg *a = &k->args[i];
    int what = plan_value(a->kind);
    if (what >= 0) {
      p->dyn[p->ndyn++] = (struct plan_arg){a->offset, (uint8_t)(a->size < 8 ? a->size : 8),
                                             (uint8_t)what};
      p->multigrid |= what == LV_MULTIGRID_SYNC;
      continue;
    }
    uint64_t value;
    p->printf_buffer |= a->kind == LOADER_ARG_HIDDEN_PRINTF_BUFFER;
    int err = plan_constant(d, a->kind, &value);
    if (err) {
      free(p);
      return err;
    }
    put(p->image, a->offset, a->size, value);
  }
  plan_limits(p, k, d);
  plan_merge(p, LV_BLOCK_COUNT_X, 4, LV_BLOCK_COUNT_XYZ);
  plan_merge(p, LV_GROUP_SIZE_X, 2, LV_GROUP_SIZE_XYZ);
  plan_merge(p, LV_REMAINDER_X, 2, LV_REMAINDER_XYZ);
  plan_order(p);
  *out = p;
  return 0;
}

/* The plan of [in] ref's kernel on [in] d: the slot's, built on first use. A plan built by a
 * racing thread wins the slot; ours is dropped. [out] owned: set when the plan is not cached (no
 * slot) and the caller must free it. */
static int plan_get(struct hip_kernel_slot *slot, const struct loader_kernel *k,
                    struct hip_device *d, struct hip_launch_plan **out, bool *owned)
{
  struct hip_launch_plan *p = slot ? atomic_load_explicit(&slot->plan, memory_order_acquire) : NULL;
  *owned = false;
  if (p) {
    *out = p;
    return 0;
  }
  int err = plan_build(k, d, &p);
  if (err)
    return err;
  if (!slot) {
    *owned = true;
  } else {
    struct hip_launch_plan *expected = NULL;
    if (!atomic_compare_exchange_strong_explicit(&slot->plan, &expected, p, memory_order_acq_rel,
                                                 memory_order_acquire)) {
      free(p);
      p = expected;
    }
  }
  *out = p;
  return 0;
}

void hip_launch_plan_free(struct hip_launch_plan *p)
{
  free(p);
}

/* ---- one launch ---- */

/* Global size in work-items per dimension, with overflow checks (AQL grid sizes are u32). */
static hipError_t global_size(const struct hip_launch *l, uint32_t global[3])
{
  uint64_t g[3];
  if (l->grid_in_workitems) {
    g[0] = l->grid.x, g[1] = l->grid.y, g[2] = l->grid.z;
    if (!l->block.x || !l->block.y || !l->block.z)
      return hipErrorInvalidConfiguration;
  } else {
    /* 32 x 32 bits cannot overflow 64; a product is 0 exactly when a factor is. */
    g[0] = (uint64_t)l->grid.x * l->block.x;
    g[1] = (uint64_t)l->grid.y * l->block.y;
    g[2] = (uint64_t)l->grid.z * l->block.z;
  }
  if (!g[0] || !g[1] || !g[2] || (g[0] | g[1] | g[2]) > UINT32_MAX)
    return hipErrorInvalidConfiguration;
  global[0] = (uint32_t)g[0], global[1] = (uint32_t)g[1], global[2] = (uint32_t)g[2];
  return hipSuccess;
}

/* The values of the per-launch hidden arguments. */
struct launch_values {
  const struct hip_launch *l;
  const uint32_t *global;
  uint64_t queue_va;
  uint64_t multigrid;
};

/* Dimension [in] i of what a hidden argument of kind [in] base (an _X kind) holds. A grid given
 * in blocks covers the global size exactly: no division and no remainder on the common path. */
static uint32_t dim_value(int base, int i, const struct launch_values *lv)
{
  const struct hip_launch *l = lv->l;
  const uint32_t grid[3] = {l->grid.x, l->grid.y, l->grid.z};
  const uint32_t block[3] = {l->block.x, l->block.y, l->block.z};
  switch (base) {
  case LV_GROUP_SIZE_X:
    return (uint16_t)block[i];
  case LV_BLOCK_COUNT_X:
    if (!l->grid_in_workitems)
      return grid[i];
    return lv->global[i] / block[i] + (lv->global[i] % block[i] != 0);
  default: /* LV_REMAINDER_X */
    return l->grid_in_workitems ? (uint16_t)(lv->global[i] % block[i]) : 0;
  }
}

static uint64_t launch_value(int what, const struct launch_values *lv)
{
  switch (what) {
  case LV_DYNAMIC_LDS: return lv->l->shared_mem;
  case LV_QUEUE_PTR: return lv->queue_va;
  case LV_MULTIGRID_SYNC: return lv->multigrid;
  case LV_BLOCK_COUNT_X: case LV_BLOCK_COUNT_Y: case LV_BLOCK_COUNT_Z:
    return dim_value(LV_BLOCK_COUNT_X, what - LV_BLOCK_COUNT_X, lv);
  case LV_GROUP_SIZE_X: case LV_GROUP_SIZE_Y: case LV_GROUP_SIZE_Z:
    return dim_value(LV_GROUP_SIZE_X, what - LV_GROUP_SIZE_X, lv);
  default:
    return dim_value(LV_REMAINDER_X, what - LV_REMAINDER_X, lv);
  }
}

/* Configuration checks that need the kernel and the device (clr ihipLaunchKernel_validate). */
static hipError_t validate(const struct hip_launch *l, const uint32_t global[3],
                           struct hip_device *d, const struct loader_kernel *k)
{
  uint64_t threads = (uint64_t)l->block.x * l->block.y * l->block.z;
  uint64_t lds_limit = (uint64_t)d->node->lds_size_in_kb * 1024;
  if (threads > MAX_WORKGROUP_SIZE)
    return hipErrorInvalidConfiguration;
  if (l->shared_mem > lds_limit || k->group_segment_fixed_size + (uint64_t)l->shared_mem > lds_limit)
    return hipErrorInvalidValue;
  if (threads > k->max_flat_workgroup_size)
    return hipErrorLaunchFailure; /* larger than the kernel's launch bounds, as clr answers */
  if (!kernarg_layout_ok(k))
    return hipErrorInvalidValue;
  /* A kernel compiled for uniform work-groups (HIP's default) computes blockDim without the
   * remainder: a partial last group would run with the wrong size (clr rejects it too). Only a
   * grid counted in work-items can leave one. */
  if (k->uniform_work_group_size && l->grid_in_workitems &&
      (global[0] % l->block.x || global[1] % l->block.y || global[2] % l->block.z))
    return hipErrorInvalidValue;
  if (l->cooperative) {
    int per_cu = 0;
    uint64_t blocks = (uint64_t)l->grid.x * l->grid.y * l->grid.z;
    if (hip_occupancy_blocks_per_cu(d, k, (uint32_t)threads, l->shared_mem, &per_cu))
      return hipErrorInvalidValue;
    /* Every block must be resident at once for a grid barrier to complete. */
    if (blocks > (uint64_t)per_cu * d->node->cu_count)
      return hipErrorCooperativeLaunchTooLarge;
  }
  return hipSuccess;
}

static uint32_t private_size(const struct hip_device *d, const struct loader_kernel *k)
{
  uint32_t size = k->private_segment_fixed_size;
  if (k->uses_dynamic_stack) {
    size_t limit = d->limits[hipLimitStackSize];
    uint32_t stack = limit ? (uint32_t)(limit > UINT32_MAX ? UINT32_MAX : limit) : DEFAULT_STACK_SIZE;
    if (stack > size)
      size = stack;
  }
  return size;
}

/* The dispatch packet's fields of a checked launch (global_size and validate passed: 3 dims,
 * none 0, kernarg size and alignment), for the launch path and for a prepared graph launch. */
static inline __attribute__((always_inline)) struct aql_dispatch
dispatch_of(const struct hip_kernel_ref *ref, const struct hip_launch *l, const uint32_t global[3],
            const struct hip_device *d)
{
  const struct loader_kernel *k = ref->kernel;
  return (struct aql_dispatch){
    .kernel_object = ref->kernel_object,
    .kernarg_size = k->kernarg_segment_size,
    .kernarg_align = k->kernarg_segment_align < 16 ? 16 : k->kernarg_segment_align,
    .grid = {global[0], global[1], global[2]},
    .block = {(uint16_t)l->block.x, (uint16_t)l->block.y, (uint16_t)l->block.z},
    .dims = 3,
    .group_segment_size = k->group_segment_fixed_size + l->shared_mem,
    .private_segment_size = private_size(d, k),
    .checked = true,
  };
}

/* The explicit arguments must all be readable before a queue slot is claimed (nothing may fail
 * once it is). */
static hipError_t check_explicit(const struct loader_kernel *k, const struct hip_launch *l)
{
  if (k->nexplicit == 0)
    return hipSuccess;
  if (l->args) {
    for (uint32_t i = 0; i < k->nexplicit; i++)
      if (!l->args[i])
        return hipErrorInvalidValue;
    return hipSuccess;
  }
  if (!l->arg_buffer || !l->arg_buffer_size)
    return hipErrorInvalidValue;
  return hipSuccess;
}

/* The explicit arguments: from kernelParams (one pointer per parameter) or from the packed
 * `extra` buffer (copied where each parameter lies fully inside it, as clr does). */
static void fill_explicit(uint8_t *kernarg, const struct loader_kernel *k,
                          const struct hip_launch *l)
{
  if (l->args) {
    for (uint32_t i = 0; i < k->nexplicit; i++)
      memcpy(kernarg + k->args[i].offset, l->args[i], k->args[i].size);
    return;
  }
  for (uint32_t i = 0; i < k->nexplicit; i++) {
    const struct loader_kernel_arg *a = &k->args[i];
    if ((size_t)a->offset + a->size <= l->arg_buffer_size)
      memcpy(kernarg + a->offset, (const uint8_t *)l->arg_buffer + a->offset, a->size);
  }
}

/* The image into a kernarg slot, padding included (the slot holds AQL_KERNARG_SLOT_SIZE >=
 * image_size bytes, validate() saw to it), in fixed 64-byte pieces the compiler inlines: a call to
 * memcpy for a few hundred bytes costs as much as the copy. */
static inline void image_copy(uint8_t *kernarg, const struct hip_launch_plan *p)
{
  for (uint32_t off = 0; off < p->image_size; off += 64)
    memcpy(kernarg + off, p->image + off, 64);
}

static void fill_dynamic(uint8_t *kernarg, const struct hip_launch_plan *p,
                         const struct launch_values *lv, bool all)
{
  uint32_t n = all ? p->ndyn : p->nalways;
  for (uint32_t i = 0; i < n; i++) {
    const struct plan_arg *a = &p->dyn[i];
    uint8_t *dst = kernarg + a->offset;
    switch (a->what) {
    case LV_BLOCK_COUNT_XYZ: {
      uint32_t x[3] = {dim_value(LV_BLOCK_COUNT_X, 0, lv), dim_value(LV_BLOCK_COUNT_X, 1, lv),
                       dim_value(LV_BLOCK_COUNT_X, 2, lv)};
      memcpy(dst, x, sizeof(x));
      continue;
    }
    case LV_GROUP_SIZE_XYZ:
    case LV_REMAINDER_XYZ: {
      int base = a->what == LV_GROUP_SIZE_XYZ ? LV_GROUP_SIZE_X : LV_REMAINDER_X;
      uint16_t x[3] = {(uint16_t)dim_value(base, 0, lv), (uint16_t)dim_value(base, 1, lv),
                       (uint16_t)dim_value(base, 2, lv)};
      memcpy(dst, x, sizeof(x));
      continue;
    }
    default:
      break;
    }
    uint64_t value = launch_value(a->what, lv);
    switch (a->size) {
    case 2: { uint16_t x = (uint16_t)value; memcpy(dst, &x, 2); break; }
    case 4: { uint32_t x = (uint32_t)value; memcpy(dst, &x, 4); break; }
    case 8: memcpy(dst, &value, 8); break;
    default: memcpy(dst, &value, a->size); break;
    }
  }
}

/* The kernel slot of [in] f on [in] d, resolving it on first use. [out] ref. Returns a hipError_t;
 * *slot may be NULL (no memory for the slots: the launch goes ahead uncached). */
static hipError_t kernel_slot(struct ihipModuleSymbol_t *f, struct hip_device *d,
                              struct hip_kernel_slot **slot, struct hip_kernel_ref *ref)
{
  *slot = hip_function_slot(f, d->ordinal);
  if (*slot) {
    *ref = (*slot)->ref;
    return hipSuccess;
  }
  int err = hip_function_resolve(f, d, ref);
  if (err == -ENOENT)
    return hipErrorNoBinaryForGpu;
  if (err == -ESRCH)
    return hipErrorInvalidDeviceFunction;
  if (err)
    return err == -ENOEXEC ? hipErrorInvalidImage : hip_error_from_errno(err);
  *slot = hip_function_slot(f, d->ordinal);
  return hipSuccess;
}

/* Does launch [in] l pass every check of global_size, validate and check_explicit with plan [in]
 * p? A launch in blocks, not cooperative, within the plan's limits: the common case, decided
 * without the kernel's metadata. [out] global as global_size. False sends the launch through the
 * full checks, which find the error if there is one. */
static inline __attribute__((always_inline)) bool
launch_fits(const struct hip_launch *l, const struct hip_launch_plan *p, const struct loader_kernel *k,
            uint32_t global[3])
{
  uint64_t threads = (uint64_t)l->block.x * l->block.y * l->block.z;
  uint64_t g0 = (uint64_t)l->grid.x * l->block.x, g1 = (uint64_t)l->grid.y * l->block.y,
           g2 = (uint64_t)l->grid.z * l->block.z;
  if (!p->fast || l->grid_in_workitems || l->cooperative || !threads || threads > p->max_threads ||
      l->shared_mem > p->lds_free || !g0 || !g1 || !g2 || (g0 | g1 | g2) > UINT32_MAX)
    return false;
  if (k->nexplicit && check_explicit(k, l) != hipSuccess)
    return false;
  global[0] = (uint32_t)g0, global[1] = (uint32_t)g1, global[2] = (uint32_t)g2;
  return true;
}

/* Inlined into hip_launch, its only caller: a call boundary costs a launch a dozen instructions. */
static inline __attribute__((always_inline)) hipError_t
launch_on(const struct hip_launch *l, struct hip_stream *s, struct hip_device *d,
          const struct hip_kernel_ref *ref, const struct hip_launch_plan *p, const uint32_t global[3],
          uint64_t group_va)
{
  const struct loader_kernel *k = ref->kernel;
  struct launch_values lv = {.l = l, .global = global, .multigrid = group_va};
  struct hip_stream_dispatch x;

  if (p->multigrid && l->cooperative && !group_va) {
    int err = hip_multigrid_sync_arg(d, (uint64_t)global[0] * global[1] * global[2],
                                     &lv.multigrid);
    if (err)
      return hip_error_from_errno(err);
  }
  struct aql_dispatch disp = dispatch_of(ref, l, global, d);
  int err = hip_stream_dispatch_reserve(s, &disp, &x);
  if (err)
    return hip_gpu_error(err); /* a queue stopped by a fault: the sticky error */
  uint8_t *kernarg = x.slot.kernarg;
  lv.queue_va = x.slot.queue_va;
  image_copy(kernarg, p);
  if (k->nexplicit)
    fill_explicit(kernarg, k, l);
  fill_dynamic(kernarg, p, &lv, l->grid_in_workitems || l->cooperative);
  /* A recorder (src/trace) wants the CP's timestamps of this kernel: it supplies the signal. */
  const struct hip_activity_ops *act = hip_activity();
  if (__builtin_expect(act != NULL, 0))
    x.completion_va = act->kernel(s, &disp, k->name);
  hip_stream_dispatch_commit(s, &disp, &x);
  return hipSuccess;
}

/* [in] group_va: the multigrid info block of a multi-device cooperative launch, or 0 (a
 * single-device cooperative launch gets its own from hip_multigrid_sync_arg). [in] s: l->stream
 * already resolved by the caller, or NULL. */
static inline __attribute__((always_inline)) hipError_t
launch_common(const struct hip_launch *l, struct hip_stream *s, uint64_t group_va, bool check_only)
{
  struct hip_kernel_slot *slot;
  struct hip_kernel_ref ref;
  struct hip_launch_plan *p;
  uint32_t global[3];
  bool owned;
  hipError_t e;

  if (!hip_function_valid(l->function))
    return hipErrorInvalidDeviceFunction;
  if (l->args && l->arg_buffer)
    return hipErrorInvalidValue;
  if (!s && !(s = hip_stream_resolve_inline(l->stream)))
    return hipErrorContextIsDestroyed;
  struct hip_device *d = s->device;
  /* A kernel launched before on this device with a launch that fits its plan: no more checks. */
  slot = hip_function_slot(l->function, d->ordinal);
  p = slot ? atomic_load_explicit(&slot->plan, memory_order_acquire) : NULL;
  if (p && !check_only && !group_va && launch_fits(l, p, slot->ref.kernel, global))
    return launch_on(l, s, d, &slot->ref, p, global, 0);
  if ((e = global_size(l, global)))
    return e;
  if ((e = kernel_slot(l->function, d, &slot, &ref)))
    return e;
  if (!ref.kernel_object)
    return hipErrorInvalidValue;
  const struct loader_kernel *k = ref.kernel;
  if ((e = validate(l, global, d, k)) || (e = check_explicit(k, l)))
    return e;
  if (check_only)
    return hipSuccess;
  int err = plan_get(slot, k, d, &p, &owned);
  if (err)
    return hip_error_from_errno(err);
  /* Buffered printf: the device's one buffer is emptied after each such kernel, so these kernels
   * run one at a time per device and the launch waits for its kernel (as clr does). Not for a
   * grid of a multi-device launch: waiting for it before its sibling grids are dispatched would
   * leave it at the multi-grid barrier forever; its frames stay in the buffer until the next
   * buffered-printf launch on the device prints them. */
  bool buffered = p->printf_buffer && !group_va;
  if (buffered)
    hip_printf_buffer_begin(d);
  e = launch_on(l, s, d, &ref, p, global, group_va);
  if (owned)
    free(p);
  if (buffered)
    hip_printf_buffer_end(d, s, e == hipSuccess ? ref.co : NULL);
  return e;
}

/* hip_launch on [in] s, the live stream l->stream names, or NULL to resolve it. The one copy of
 * the launch path that hip_launch and the module launches share. */
static __attribute__((noinline)) hipError_t launch_on_stream(const struct hip_launch *l,
                                                             struct hip_stream *s)
{
  return launch_common(l, s, 0, false);
}

hipError_t hip_launch(const struct hip_launch *l)
{
  return launch_on_stream(l, NULL);
}

hipError_t hip_launch_check(const struct hip_launch *l)
{
  return launch_common(l, NULL, 0, true);
}

hipError_t hip_launch_multigrid(const struct hip_launch *l, uint64_t group_va)
{
  return launch_common(l, NULL, group_va, false);
}

/* ---- prepared launches (graphs) ---- */

/* Everything launch_common does up to the queue slot, with the kernarg block written into the
 * caller's [out] kernarg instead: a launch that can be prepared needs nothing at submission but
 * the queue address its hidden queue_ptr names ([in] queue_va) and a place for its packet. Not
 * for launches whose block depends on the submission (cooperative: a multigrid block per launch;
 * buffered printf: the device's buffer is drained after each such kernel) nor for kernels with a
 * dynamic stack (the stack limit may change): those answer hipErrorNotSupported. */
hipError_t hip_launch_prepare(const struct hip_launch *l, struct hip_device *d, uint64_t queue_va,
                              uint8_t *kernarg, struct aql_dispatch *out, uint32_t *image_size)
{
  struct hip_kernel_slot *slot;
  struct hip_kernel_ref ref;
  struct hip_launch_plan *p;
  uint32_t global[3];
  bool owned;
  hipError_t e;

  if (!hip_function_valid(l->function) || l->cooperative)
    return l->cooperative ? hipErrorNotSupported : hipErrorInvalidDeviceFunction;
  if (l->args && l->arg_buffer)
    return hipErrorInvalidValue;
  if ((e = global_size(l, global)) || (e = kernel_slot(l->function, d, &slot, &ref)))
    return e;
  if (!ref.kernel_object)
    return hipErrorInvalidValue;
  const struct loader_kernel *k = ref.kernel;
  if ((e = validate(l, global, d, k)) || (e = check_explicit(k, l)))
    return e;
  if (k->uses_dynamic_stack)
    return hipErrorNotSupported;
  int err = plan_get(slot, k, d, &p, &owned);
  if (err)
    return hip_error_from_errno(err);
  if (p->printf_buffer || p->multigrid || p->image_size > AQL_KERNARG_SLOT_SIZE) {
    e = hipErrorNotSupported;
  } else {
    struct launch_values lv = {.l = l, .global = global, .queue_va = queue_va};
    image_copy(kernarg, p);
    if (k->nexplicit)
      fill_explicit(kernarg, k, l);
    fill_dynamic(kernarg, p, &lv, true);
    *image_size = p->image_size;
    *out = dispatch_of(&ref, l, global, d);
  }
  if (owned)
    free(p);
  return e;
}

/* ---- entry points ---- */

static hipError_t launch_stub(const void *func, dim3 grid, dim3 block, void **args, size_t shmem,
                              hipStream_t stream, bool cooperative)
{
  if (!func)
    return hipErrorInvalidDeviceFunction;
  struct ihipModuleSymbol_t *f = hip_registered_function(func);
  if (!f)
    return hipErrorInvalidDeviceFunction;
  if (shmem > UINT32_MAX)
    return hipErrorInvalidValue;
  if (hip_capture_active(stream))
    return cooperative ? hipErrorStreamCaptureUnsupported
                       : hip_capture_kernel(stream, func, NULL, grid, block, args, NULL, shmem);
  struct hip_launch l = {.function = f, .grid = grid, .block = block, .shared_mem = (uint32_t)shmem,
                         .stream = stream, .args = args, .cooperative = cooperative};
  return hip_launch(&l);
}

hipError_t hipLaunchKernel(const void *function_address, dim3 numBlocks, dim3 dimBlocks, void **args,
                           size_t sharedMemBytes, hipStream_t stream)
{
  HIP_RETURN(launch_stub(function_address, numBlocks, dimBlocks, args, sharedMemBytes, stream, false));
}

hipError_t hipLaunchKernel_spt(const void *function_address, dim3 numBlocks, dim3 dimBlocks,
                               void **args, size_t sharedMemBytes, hipStream_t stream)
{
  if (!stream)
    stream = hipStreamPerThread;
  HIP_RETURN(launch_stub(function_address, numBlocks, dimBlocks, args, sharedMemBytes, stream, false));
}

hipError_t hipLaunchCooperativeKernel(const void *f, dim3 gridDim, dim3 blockDimX, void **kernelParams,
                                      unsigned int sharedMemBytes, hipStream_t stream)
{
  HIP_RETURN(launch_stub(f, gridDim, blockDimX, kernelParams, sharedMemBytes, stream, true));
}

hipError_t hipLaunchCooperativeKernel_spt(const void *f, dim3 gridDim, dim3 blockDim,
                                          void **kernelParams, uint32_t sharedMemBytes,
                                          hipStream_t hStream)
{
  if (!hStream)
    hStream = hipStreamPerThread;
  HIP_RETURN(launch_stub(f, gridDim, blockDim, kernelParams, sharedMemBytes, hStream, true));
}

/* Records [in] ev on [in] stream if given (hipExt*LaunchKernel start/stop events). */
static hipError_t record(hipEvent_t ev, hipStream_t stream)
{
  return ev ? hipEventRecord(ev, stream) : hipSuccess;
}

hipError_t hipExtLaunchKernel(const void *function_address, dim3 numBlocks, dim3 dimBlocks,
                              void **args, size_t sharedMemBytes, hipStream_t stream,
                              hipEvent_t startEvent, hipEvent_t stopEvent, int flags)
{
  hipError_t e;
  (void)flags; /* hipExtAnyOrderLaunch only relaxes ordering: in-order is always correct */
  if ((e = record(startEvent, stream)))
    HIP_RETURN(e);
  if ((e = launch_stub(function_address, numBlocks, dimBlocks, args, sharedMemBytes, stream, false)))
    HIP_RETURN(e);
  HIP_RETURN(record(stopEvent, stream));
}

/* `extra`: {HIP_LAUNCH_PARAM_BUFFER_POINTER, buf, HIP_LAUNCH_PARAM_BUFFER_SIZE, &size,
 * HIP_LAUNCH_PARAM_END}, exactly in that order (clr accepts nothing else). */
static hipError_t parse_extra(void **extra, struct hip_launch *l)
{
  if (!extra)
    return hipSuccess;
  if (extra[0] != HIP_LAUNCH_PARAM_BUFFER_POINTER || extra[2] != HIP_LAUNCH_PARAM_BUFFER_SIZE ||
      extra[4] != HIP_LAUNCH_PARAM_END || !extra[3])
    return hipErrorInvalidValue;
  l->arg_buffer = extra[1];
  l->arg_buffer_size = *(size_t *)extra[3];
  return hipSuccess;
}

static hipError_t module_launch(hipFunction_t f, uint32_t gx, uint32_t gy, uint32_t gz,
                                uint32_t bx, uint32_t by, uint32_t bz, size_t shmem,
                                hipStream_t stream, void **params, void **extra, bool workitems,
                                bool cooperative)
{
  /* clr's module launches check the stream first (hip::isValid): a handle that is not a live
   * stream is an invalid value there, not a destroyed context. */
  struct hip_stream *s = NULL;
  if (stream && stream != hipStreamPerThread && stream != hipStreamLegacy) {
    if (!hip_stream_valid(stream))
      return hipErrorInvalidValue;
    s = (struct hip_stream *)stream;
  }
  if (!hip_function_valid(f))
    return hipErrorInvalidResourceHandle;
  if (params && extra)
    return hipErrorInvalidValue;
  if (!gx || !gy || !gz || !bx || !by || !bz || shmem > UINT32_MAX)
    return hipErrorInvalidValue;
  if ((uint64_t)bx * by * bz > MAX_WORKGROUP_SIZE)
    return hipErrorInvalidValue;
  /* A work-group larger than the whole grid is clamped to it (clr ihipModuleLaunchKernel). */
  if (workitems) {
    bx = bx > gx ? gx : bx;
    by = by > gy ? gy : by;
    bz = bz > gz ? gz : bz;
  }
  if (hip_capture_active(stream)) {
    /* A grid in work-items becomes a kernel node's grid in blocks when it is whole blocks. */
    if (cooperative || (workitems && (gx % bx || gy % by || gz % bz)))
      return hipErrorStreamCaptureUnsupported;
    if (workitems) {
      gx /= bx;
      gy /= by;
      gz /= bz;
    }
    return hip_capture_kernel(stream, NULL, f, (dim3){gx, gy, gz}, (dim3){bx, by, bz}, params,
                              extra, shmem);
  }
  struct hip_launch l = {.function = f, .grid = {gx, gy, gz}, .block = {bx, by, bz},
                         .shared_mem = (uint32_t)shmem, .stream = stream, .args = params,
                         .grid_in_workitems = workitems, .cooperative = cooperative};
  hipError_t e = parse_extra(extra, &l);
  if (e)
    return e;
  return launch_on_stream(&l, s);
}

hipError_t hipModuleLaunchKernel(hipFunction_t f, unsigned int gridDimX, unsigned int gridDimY,
                                 unsigned int gridDimZ, unsigned int blockDimX,
                                 unsigned int blockDimY, unsigned int blockDimZ,
                                 unsigned int sharedMemBytes, hipStream_t stream,
                                 void **kernelParams, void **extra)
{
  /* clr's limits for the grid in blocks: x < 2^31, y and z <= 2^16. */
  if (gridDimX > INT32_MAX || gridDimY > 65536 || gridDimZ > 65536)
    HIP_RETURN(hipErrorInvalidValue);
  HIP_RETURN(module_launch(f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ,
                           sharedMemBytes, stream, kernelParams, extra, false, false));
}

hipError_t hipModuleLaunchCooperativeKernel(hipFunction_t f, unsigned int gridDimX,
                                            unsigned int gridDimY, unsigned int gridDimZ,
                                            unsigned int blockDimX, unsigned int blockDimY,
                                            unsigned int blockDimZ, unsigned int sharedMemBytes,
                                            hipStream_t stream, void **kernelParams)
{
  HIP_RETURN(module_launch(f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ,
                           sharedMemBytes, stream, kernelParams, NULL, false, true));
}

hipError_t hipExtModuleLaunchKernel(hipFunction_t f, uint32_t globalWorkSizeX,
                                    uint32_t globalWorkSizeY, uint32_t globalWorkSizeZ,
                                    uint32_t localWorkSizeX, uint32_t localWorkSizeY,
                                    uint32_t localWorkSizeZ, size_t sharedMemBytes,
                                    hipStream_t hStream, void **kernelParams, void **extra,
                                    hipEvent_t startEvent, hipEvent_t stopEvent, uint32_t flags)
{
  hipError_t e;
  (void)flags;
  if ((e = record(startEvent, hStream)))
    HIP_RETURN(e);
  e = module_launch(f, globalWorkSizeX, globalWorkSizeY, globalWorkSizeZ, localWorkSizeX,
                    localWorkSizeY, localWorkSizeZ, sharedMemBytes, hStream, kernelParams, extra,
                    true, false);
  if (e)
    HIP_RETURN(e);
  HIP_RETURN(record(stopEvent, hStream));
}

hipError_t hipHccModuleLaunchKernel(hipFunction_t f, uint32_t globalWorkSizeX,
                                    uint32_t globalWorkSizeY, uint32_t globalWorkSizeZ,
                                    uint32_t localWorkSizeX, uint32_t localWorkSizeY,
                                    uint32_t localWorkSizeZ, size_t sharedMemBytes,
                                    hipStream_t hStream, void **kernelParams, void **extra,
                                    hipEvent_t startEvent, hipEvent_t stopEvent)
{
  return hipExtModuleLaunchKernel(f, globalWorkSizeX, globalWorkSizeY, globalWorkSizeZ,
                                  localWorkSizeX, localWorkSizeY, localWorkSizeZ, sharedMemBytes,
                                  hStream, kernelParams, extra, startEvent, stopEvent, 0);
}

hipError_t hipDrvLaunchKernelEx(const HIP_LAUNCH_CONFIG *config, hipFunction_t f, void **params,
                                void **extra)
{
  bool cooperative = false;
  if (!config || (config->numAttrs && !config->attrs))
    HIP_RETURN(hipErrorInvalidValue);
  for (unsigned i = 0; i < config->numAttrs; i++) {
    const hipLaunchAttribute *a = &config->attrs[i];
    if (a->id == hipLaunchAttributeCooperative)
      cooperative = a->val.cooperative != 0;
    else if (a->id != hipLaunchAttributeIgnore && a->id != hipLaunchAttributePriority)
      HIP_RETURN(hipErrorNotSupported); /* clusters, access policies, sync domains */
  }
  HIP_RETURN(module_launch(f, config->gridDimX, config->gridDimY, config->gridDimZ,
                           config->blockDimX, config->blockDimY, config->blockDimZ,
                           config->sharedMemBytes, config->hStream, params, extra, false,
                           cooperative));
}

/* One launch per entry, each on its own stream (whose device it runs on). */
static hipError_t launch_list(hipLaunchParams *list, int n, bool cooperative)
{
  if (!list || n <= 0)
    return hipErrorInvalidValue;
  for (int i = 0; i < n; i++) {
    hipError_t e = launch_stub(list[i].func, list[i].gridDim, list[i].blockDim, list[i].args,
                               list[i].sharedMem, list[i].stream, cooperative);
    if (e)
      return e;
  }
  return hipSuccess;
}

hipError_t hipExtLaunchMultiKernelMultiDevice(hipLaunchParams *launchParamsList, int numDevices,
                                              unsigned int flags)
{
  (void)flags;
  HIP_RETURN(launch_list(launchParamsList, numDevices, false));
}
