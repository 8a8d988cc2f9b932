/*
 * Kernel launches: hipLaunchKernel and its variants all come to hip_launch(), which resolves the
 * function on the stream's device, validates the configuration as AMD's runtime does
 * (clr hip_module.cpp, ihipLaunchKernel_validate), lays out the kernarg block from the kernel's
 * metadata (explicit arguments, then the hidden ones of code object v4/v5) and hands an AQL
 * dispatch to the stream (hip_stream_dispatch).
 */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "capture.h"
#include "device_heap.h"
#include "error.h"
#include "loader_api.h"
#include "runtime.h"
#include "../kfd/kfd.h"
#include "../queues/aql.h"

/* Device limits every gfx9 part shares (AMDGPUUsage; hipDeviceProp_t.maxThreadsPerBlock). */
#define MAX_WORKGROUP_SIZE 1024u
/* The stack a kernel with a dynamic stack gets when hipLimitStackSize was not set (clr's
 * default). */
#define DEFAULT_STACK_SIZE 1024u

/* The values the hidden arguments take for one dispatch. */
struct hidden_values {
  uint32_t block_count[3];
  uint16_t group_size[3];
  uint16_t remainder[3];
  uint16_t grid_dims;
  uint32_t dynamic_lds;
  uint64_t hostcall_buffer;
  uint64_t multigrid_sync;
  uint64_t heap;
  uint64_t queue_ptr;
  uint32_t private_base, shared_base;
};

static void put(uint8_t *kernarg, const struct loader_kernel_arg *a, uint64_t value)
{
  /* Little-endian: the low `size` bytes of value. Sizes are bounded by the metadata check. */
  memcpy(kernarg + a->offset, &value, a->size < 8 ? a->size : 8);
}

/* AMDGPUUsage "Code Object V5 Metadata" (and V4's hidden_* kinds) for what each slot holds. */
static void fill_hidden(uint8_t *kernarg, const struct loader_kernel_arg *a,
                        const struct hidden_values *h)
{
  switch (a->kind) {
  case LOADER_ARG_HIDDEN_BLOCK_COUNT_X: put(kernarg, a, h->block_count[0]); break;
  case LOADER_ARG_HIDDEN_BLOCK_COUNT_Y: put(kernarg, a, h->block_count[1]); break;
  case LOADER_ARG_HIDDEN_BLOCK_COUNT_Z: put(kernarg, a, h->block_count[2]); break;
  case LOADER_ARG_HIDDEN_GROUP_SIZE_X: put(kernarg, a, h->group_size[0]); break;
  case LOADER_ARG_HIDDEN_GROUP_SIZE_Y: put(kernarg, a, h->group_size[1]); break;
  case LOADER_ARG_HIDDEN_GROUP_SIZE_Z: put(kernarg, a, h->group_size[2]); break;
  case LOADER_ARG_HIDDEN_REMAINDER_X: put(kernarg, a, h->remainder[0]); break;
  case LOADER_ARG_HIDDEN_REMAINDER_Y: put(kernarg, a, h->remainder[1]); break;
  case LOADER_ARG_HIDDEN_REMAINDER_Z: put(kernarg, a, h->remainder[2]); break;
  case LOADER_ARG_HIDDEN_GRID_DIMS: put(kernarg, a, h->grid_dims); break;
  case LOADER_ARG_HIDDEN_DYNAMIC_LDS_SIZE: put(kernarg, a, h->dynamic_lds); break;
  case LOADER_ARG_HIDDEN_HOSTCALL_BUFFER: put(kernarg, a, h->hostcall_buffer); break;
  case LOADER_ARG_HIDDEN_MULTIGRID_SYNC_ARG: put(kernarg, a, h->multigrid_sync); break;
  case LOADER_ARG_HIDDEN_HEAP_V1: put(kernarg, a, h->heap); break;
  case LOADER_ARG_HIDDEN_QUEUE_PTR: put(kernarg, a, h->queue_ptr); break;
  case LOADER_ARG_HIDDEN_PRIVATE_BASE: put(kernarg, a, h->private_base); break;
  case LOADER_ARG_HIDDEN_SHARED_BASE: put(kernarg, a, h->shared_base); break;
  /* Global offsets are 0 in HIP; HIP printf uses hostcall, not the printf buffer; no device-side
   * enqueue (default queue, completion action). */
  default: put(kernarg, a, 0); break;
  }
}

/* The explicit arguments: from kernelParams (one pointer per parameter) or from the packed
 * `extra` buffer (copied where each parameter lies fully inside it, as clr does). */
static hipError_t fill_explicit(uint8_t *kernarg, const struct loader_kernel *k,
                                const struct hip_launch *l)
{
  if (k->nexplicit == 0)
    return hipSuccess;
  if (l->args) {
    for (uint32_t i = 0; i < k->nexplicit; i++) {
      if (!l->args[i])
        return hipErrorInvalidValue;
      memcpy(kernarg + k->args[i].offset, l->args[i], k->args[i].size);
    }
    return hipSuccess;
  }
  if (!l->arg_buffer || !l->arg_buffer_size)
    return hipErrorInvalidValue;
  for (uint32_t i = 0; i < k->nexplicit; i++) {
    const struct loader_kernel_arg *a = &k->args[i];
    if ((size_t)a->offset + a->size <= l->arg_buffer_size)
      memcpy(kernarg + a->offset, (const uint8_t *)l->arg_buffer + a->offset, a->size);
  }
  return hipSuccess;
}

/* Global size in work-items per dimension, with overflow checks (AQL grid sizes are u32). */
static hipError_t global_size(const struct hip_launch *l, uint32_t global[3])
{
  const uint32_t grid[3] = {l->grid.x, l->grid.y, l->grid.z};
  const uint32_t block[3] = {l->block.x, l->block.y, l->block.z};
  for (int i = 0; i < 3; i++) {
    if (grid[i] == 0 || block[i] == 0)
      return hipErrorInvalidConfiguration;
    uint64_t g = l->grid_in_workitems ? grid[i] : (uint64_t)grid[i] * block[i];
    if (g > UINT32_MAX)
      return hipErrorInvalidConfiguration;
    global[i] = (uint32_t)g;
  }
  return hipSuccess;
}

static hipError_t hidden_values(const struct hip_launch *l, const uint32_t global[3],
                                struct hip_device *d, struct hip_stream *s,
                                const struct loader_kernel *k, struct hidden_values *h)
{
  const uint32_t grid[3] = {l->grid.x, l->grid.y, l->grid.z};
  const uint32_t block[3] = {l->block.x, l->block.y, l->block.z};
  memset(h, 0, sizeof(*h));
  for (int i = 0; i < 3; i++) {
    h->group_size[i] = (uint16_t)block[i];
    /* A grid given in blocks covers global exactly: no division on the common path. */
    if (!l->grid_in_workitems) {
      h->block_count[i] = grid[i];
      continue;
    }
    h->block_count[i] = global[i] / block[i] + (global[i] % block[i] != 0);
    h->remainder[i] = (uint16_t)(global[i] % block[i]);
  }
  h->grid_dims = 3; /* HIP dispatches are always 3-dimensional (clr's NDRange of 3) */
  h->dynamic_lds = l->shared_mem;
  /* Apertures: the high 32 bits of the flat address of each (AMDGPUUsage, hidden_*_base). */
  h->private_base = (uint32_t)(d->gpu->scratch_base >> 32);
  h->shared_base = (uint32_t)(d->gpu->lds_base >> 32);
  for (uint32_t i = k->nexplicit; i < k->nargs; i++) {
    int err = 0;
    if (k->args[i].kind == LOADER_ARG_HIDDEN_HOSTCALL_BUFFER && !h->hostcall_buffer)
      err = hip_hostcall_buffer(d, &h->hostcall_buffer);
    else if (k->args[i].kind == LOADER_ARG_HIDDEN_HEAP_V1)
      err = hip_device_heap(d, &h->heap);
    else if (k->args[i].kind == LOADER_ARG_HIDDEN_QUEUE_PTR)
      h->queue_ptr = hip_stream_queue_va(s);
    else if (k->args[i].kind == LOADER_ARG_HIDDEN_MULTIGRID_SYNC_ARG && l->cooperative)
      err = hip_multigrid_sync_arg(d, (uint64_t)global[0] * global[1] * global[2],
                                   &h->multigrid_sync);
    if (err)
      return hip_error_from_errno(err);
  }
  return hipSuccess;
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
  if (k->kernarg_segment_size > AQL_KERNARG_SLOT_SIZE)
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

hipError_t hip_launch(const struct hip_launch *l)
{
  struct hip_kernel_ref ref;
  struct hidden_values h;
  uint32_t global[3];
  uint8_t kernarg[AQL_KERNARG_SLOT_SIZE];
  hipError_t e;

  if (!hip_function_valid(l->function))
    return hipErrorInvalidDeviceFunction;
  if (l->args && l->arg_buffer)
    return hipErrorInvalidValue;
  struct hip_stream *s = hip_stream_resolve(l->stream);
  if (!s)
    return hipErrorContextIsDestroyed;
  struct hip_device *d = hip_stream_device(s);
  if ((e = global_size(l, global)))
    return e;
  int err = hip_function_resolve(l->function, d, &ref);
  if (err == -ENOENT)
    return hipErrorNoBinaryForGpu;
  if (err == -ESRCH)
    return hipErrorInvalidDeviceFunction;
  if (err)
    return err == -ENOEXEC ? hipErrorInvalidImage : hip_error_from_errno(err);
  const struct loader_kernel *k = ref.kernel;
  if ((e = validate(l, global, d, k)))
    return e;

  memset(kernarg, 0, k->kernarg_segment_size);
  if ((e = fill_explicit(kernarg, k, l)) || (e = hidden_values(l, global, d, s, k, &h)))
    return e;
  for (uint32_t i = k->nexplicit; i < k->nargs; i++)
    fill_hidden(kernarg, &k->args[i], &h);

  struct aql_dispatch disp = {
    .kernel_object = ref.kernel_object,
    .kernarg = kernarg,
    .kernarg_size = k->kernarg_segment_size,
    .kernarg_align = k->kernarg_segment_align < 16 ? 16 : k->kernarg_segment_align,
    .grid = {global[0], global[1], global[2]},
    .block = {(uint16_t)l->block.x, (uint16_t)l->block.y, (uint16_t)l->block.z},
    .dims = h.grid_dims,
    .group_segment_size = k->group_segment_fixed_size + l->shared_mem,
    .private_segment_size = private_size(d, k),
  };
  err = hip_stream_dispatch(s, &disp);
  return err ? hip_error_from_errno(err) : hipSuccess;
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
  if (hip_capture_active(stream))
    return (workitems || cooperative) ? hipErrorStreamCaptureUnsupported
                                      : hip_capture_kernel(stream, NULL, f, (dim3){gx, gy, gz},
                                                           (dim3){bx, by, bz}, params, extra, shmem);
  struct hip_launch l = {.function = f, .grid = {gx, gy, gz}, .block = {bx, by, bz},
                         .shared_mem = (uint32_t)shmem, .stream = stream, .args = params,
                         .grid_in_workitems = workitems, .cooperative = cooperative};
  hipError_t e = parse_extra(extra, &l);
  return e ? e : hip_launch(&l);
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

hipError_t hipLaunchCooperativeKernelMultiDevice(hipLaunchParams *launchParamsList, int numDevices,
                                                 unsigned int flags)
{
  /* A grid spanning several devices needs one multigrid barrier shared by all of them
   * (__ockl_multi_grid_sync); only the single-device case is provided. */
  if (numDevices > 1)
    HIP_RETURN(hipErrorNotSupported);
  (void)flags;
  HIP_RETURN(launch_list(launchParamsList, numDevices, true));
}
