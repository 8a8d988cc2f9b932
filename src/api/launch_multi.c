/*
 * Multi-device cooperative launches: hipModuleLaunchCooperativeKernelMultiDevice and
 * hipLaunchCooperativeKernelMultiDevice. One grid per listed device, on that entry's stream,
 * joined by a multi-grid barrier (this_multi_grid().sync()).
 *
 * The device side is ockl's (ROCm device libraries, cg.cl; facts only): the hidden
 * multigrid-sync argument points at a per-grid info block { u64 mgs, u32 grid_id,
 * u32 num_grids, u64 prev_sum, u64 all_sum }, and mgs at one 8-byte barrier word pair
 * { u32 w0, u32 w1 } shared by all grids of the launch, which each grid's first work-item
 * increments with system-scope atomics. The words and the info blocks therefore live in
 * fine-grained host memory mapped to every GPU.
 *
 * Validation follows clr (hip_module.cpp, ihipModuleLaunchCooperativeKernelMultiDevice):
 * list NULL, numDevices 0 or above the device count, unknown flags -> hipErrorInvalidValue;
 * a live stream handle per entry (else hipErrorInvalidValue); a block of 0 threads ->
 * hipErrorInvalidConfiguration; a NULL stream -> hipErrorInvalidResourceHandle; two entries on
 * one device -> hipErrorInvalidDevice. CUDA also requires every grid to run the same function
 * with the same grid, block and LDS sizes (hip-tests check it): a mismatch is
 * hipErrorInvalidValue. The device count is checked before the entries are read (clr reads
 * numDevices entries first, past the end of a short list). Every grid is validated before the
 * first one is dispatched: a grid that started alone would wait at the barrier forever.
 * Unless the flags say otherwise, every stream is synchronized before the launch
 * (hipCooperativeLaunchMultiDeviceNoPreSync) and after it (...NoPostSync), as clr does.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "../runtime/capture.h"
#include "../runtime/error.h"
#include "../runtime/internal.h"
#include "launch_multi.h"
#include "loader_api.h"
#include "../runtime/runtime.h"
#include "../memory/mem.h"

/* A launch's slot: the barrier words, then one 32-byte info block per grid. */
#define GROUP_MAX_GRIDS 64u
#define GROUP_INFO_OFFSET 64u
#define GROUP_SLOT_SIZE (GROUP_INFO_OFFSET + 32u * GROUP_MAX_GRIDS)
/* Slots are reused round-robin: a launch whose grids are still running (NoPostSync) keeps its
 * slot until GROUP_SLOTS later multi-device launches have been made. */
#define GROUP_SLOTS 32u

static pthread_mutex_t group_lock = PTHREAD_MUTEX_INITIALIZER;
static uint8_t *group_ring;    /* protected by group_lock */
static uint32_t group_next;    /* protected by group_lock */
static pid_t group_pid;        /* a forked child maps none of the parent's GPU memory */

/* One member grid of the launch being built. */
struct member {
  struct hip_launch l;
  struct hip_device *device;
  uint64_t size;               /* work-items */
};

/* Claims a slot and writes the barrier words and [in] n info blocks. [out] info_va[i]: the GPU
 * address of grid i's block. Returns 0 or -errno. */
static int group_setup(const struct member *m, unsigned n, uint64_t *info_va)
{
  int err = 0;
  pthread_mutex_lock(&group_lock);
  if (group_pid != getpid()) {
    group_pid = getpid();
    group_ring = NULL;
  }
  if (!group_ring)
    err = mem_alloc(m[0].device->gpu, GROUP_SLOTS * GROUP_SLOT_SIZE, MEM_HOST_PINNED,
                    MEM_FLAG_COHERENT | MEM_FLAG_ALL_GPUS, (void **)&group_ring);
  if (!err) {
    uint8_t *slot = group_ring + (group_next++ % GROUP_SLOTS) * GROUP_SLOT_SIZE;
    uint64_t sync_va = mem_gpu_va(slot), all = 0, prev = 0;
    memset(slot, 0, GROUP_SLOT_SIZE);
    for (unsigned i = 0; i < n; i++)
      all += m[i].size;
    for (unsigned i = 0; i < n; i++) {
      uint8_t *info = slot + GROUP_INFO_OFFSET + 32u * i;
      uint32_t rank = i, grids = n;
      memcpy(info, &sync_va, 8);
      memcpy(info + 8, &rank, 4);
      memcpy(info + 12, &grids, 4);
      memcpy(info + 16, &prev, 8);
      memcpy(info + 24, &all, 8);
      prev += m[i].size;
      info_va[i] = mem_gpu_va(info);
    }
  }
  pthread_mutex_unlock(&group_lock);
  return err;
}

static bool same_shape(const struct hip_launch *a, const struct hip_launch *b)
{
  return a->function == b->function && a->shared_mem == b->shared_mem &&
         a->grid.x == b->grid.x && a->grid.y == b->grid.y && a->grid.z == b->grid.z &&
         a->block.x == b->block.x && a->block.y == b->block.y && a->block.z == b->block.z;
}

/* clr's per-entry checks, then CUDA's same-kernel rule, then hip_launch's own checks per grid. */
static hipError_t members_check(struct member *m, unsigned n)
{
  for (unsigned i = 0; i < n; i++) {
    const struct hip_launch *l = &m[i].l;
    if ((uint64_t)l->block.x * l->block.y * l->block.z == 0)
      return hipErrorInvalidConfiguration;
    if (!l->stream)
      return hipErrorInvalidResourceHandle;
    struct hip_stream *s = hip_stream_resolve(l->stream);
    if (!s)
      return hipErrorInvalidValue;
    m[i].device = s->device;
    for (unsigned j = 0; j < i; j++)
      if (m[j].device == m[i].device)
        return hipErrorInvalidDevice;
  }
  for (unsigned i = 1; i < n; i++)
    if (!same_shape(&m[0].l, &m[i].l))
      return hipErrorInvalidValue;
  for (unsigned i = 0; i < n; i++) {
    const struct hip_launch *l = &m[i].l;
    if (hip_capture_active(l->stream))
      return hipErrorStreamCaptureUnsupported;
    hipError_t e = hip_launch_check(l);
    if (e)
      return e;
    m[i].size = (uint64_t)l->grid.x * l->block.x * l->grid.y * l->block.y * l->grid.z * l->block.z;
  }
  return hipSuccess;
}

static hipError_t sync_all(const struct member *m, unsigned n)
{
  for (unsigned i = 0; i < n; i++) {
    int err = hip_stream_sync(hip_stream_resolve(m[i].l.stream));
    if (err)
      return hip_error_from_errno(err);
  }
  return hipSuccess;
}

/* [in] m: n members with `l` filled in (streams checked live by the caller). */
static hipError_t launch_members(struct member *m, unsigned n, unsigned flags)
{
  uint64_t info_va[GROUP_MAX_GRIDS];
  hipError_t e = members_check(m, n);
  if (e)
    return e;
  if (!(flags & hipCooperativeLaunchMultiDeviceNoPreSync) && (e = sync_all(m, n)))
    return e;
  int err = group_setup(m, n, info_va);
  if (err)
    return hip_error_from_errno(err);
  for (unsigned i = 0; i < n && !e; i++)
    e = hip_launch_multigrid(&m[i].l, info_va[i]);
  if (!(flags & hipCooperativeLaunchMultiDeviceNoPostSync)) {
    hipError_t s = sync_all(m, n);
    if (!e)
      e = s;
  }
  return e;
}

/* The list-level checks common to both entry points. */
static hipError_t list_check(const void *list, long long n, unsigned flags)
{
  if (!list || n <= 0 || n > hip_device_count() || n > GROUP_MAX_GRIDS)
    return hipErrorInvalidValue;
  if (flags & ~(unsigned)(hipCooperativeLaunchMultiDeviceNoPreSync |
                          hipCooperativeLaunchMultiDeviceNoPostSync))
    return hipErrorInvalidValue;
  return hipSuccess;
}

/* A handle that is neither NULL nor a live stream (clr hip::isValid). */
static bool stream_dead(hipStream_t s)
{
  return s && !hip_stream_resolve(s);
}

hipError_t hipModuleLaunchCooperativeKernelMultiDevice(hipFunctionLaunchParams *launchParamsList,
                                                       unsigned int numDevices, unsigned int flags)
{
  struct member m[GROUP_MAX_GRIDS];
  hipError_t e = list_check(launchParamsList, numDevices, flags);
  if (e)
    HIP_RETURN(e);
  for (unsigned i = 0; i < numDevices; i++) {
    const hipFunctionLaunchParams *p = &launchParamsList[i];
    if (stream_dead(p->hStream))
      HIP_RETURN(hipErrorInvalidValue);
    if (!hip_function_valid(p->function))
      HIP_RETURN(hipErrorInvalidResourceHandle);
    m[i] = (struct member){.l = {.function = p->function,
                                 .grid = {p->gridDimX, p->gridDimY, p->gridDimZ},
                                 .block = {p->blockDimX, p->blockDimY, p->blockDimZ},
                                 .shared_mem = p->sharedMemBytes, .stream = p->hStream,
                                 .args = p->kernelParams, .cooperative = true}};
  }
  HIP_RETURN(launch_members(m, numDevices, flags));
}

hipError_t hipLaunchCooperativeKernelMultiDevice(hipLaunchParams *launchParamsList, int numDevices,
                                                 unsigned int flags)
{
  struct member m[GROUP_MAX_GRIDS];
  hipError_t e = list_check(launchParamsList, numDevices, flags);
  if (e)
    HIP_RETURN(e);
  for (int i = 0; i < numDevices; i++) {
    const hipLaunchParams *p = &launchParamsList[i];
    if (stream_dead(p->stream))
      HIP_RETURN(hipErrorInvalidValue);
    struct ihipModuleSymbol_t *f = p->func ? hip_registered_function(p->func) : NULL;
    if (!f)
      HIP_RETURN(hipErrorInvalidDeviceFunction);
    if (p->sharedMem > UINT32_MAX)
      HIP_RETURN(hipErrorInvalidValue);
    m[i] = (struct member){.l = {.function = f, .grid = p->gridDim, .block = p->blockDim,
                                 .shared_mem = (uint32_t)p->sharedMem, .stream = p->stream,
                                 .args = p->args, .cooperative = true}};
  }
  HIP_RETURN(launch_members(m, (unsigned)numDevices, flags));
}
