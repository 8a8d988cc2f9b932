/*
 * Occupancy: how many blocks of a kernel fit on one compute unit at once (and the cluster
 * queries, which have no clusters to count on gfx9).
 *
 * The formula is AMD's (clr hip_platform.cpp, ihipOccupancyMaxActiveBlocksPerMultiprocessor),
 * with register-file facts from LLVM AMDGPUUsage and the CDNA2/CDNA3 ISA guides:
 *   waves per SIMD   = min(max waves per SIMD (KFD topology; 8 on gfx9, the SPI limit of 32 per
 *                          CU), VGPR limit, SGPR limit)
 *   VGPR limit       = VGPRs per SIMD lane / align(vgpr_count, granule)
 *                      gfx90a, gfx94x: 512 unified VGPR+AGPR, granule 8 (the metadata's
 *                      .vgpr_count already counts the AGPRs of the unified file, so AGPRs are only
 *                      added where the file is split); other gfx9: 256, granule 4
 *   SGPR limit       = 800 / align(sgpr_count, 16)   (gfx9: 800 SGPRs per SIMD)
 *   threads per CU   = SIMDs per CU * waves per SIMD * wavefront size
 *   blocks per CU    = min(threads per CU / align(block size, wavefront size),
 *                          LDS per CU / (static LDS + dynamic LDS))
 */
#include <errno.h>
#include <limits.h>

#include "../runtime/error.h"
#include "loader_api.h"
#include "../runtime/runtime.h"
#include "../kfd/kfd.h"

struct occupancy {
  int blocks_per_cu;        /* for the given block size */
  int best_block_size;      /* threads (potential block size queries) */
  int blocks_per_grid;      /* best_block_size blocks that fill the device */
};

static size_t align_up(size_t v, size_t a)
{
  return (v + a - 1) / a * a;
}

static bool unified_vgprs(const struct kfd_node *n)
{
  /* gfx90a (9.0.10) and gfx94x (9.4.x) have the 512-entry unified VGPR/AGPR file. */
  return n->gfx_target_version == 90010 || (n->gfx_target_version / 100) == 904;
}

static size_t waves_per_simd(const struct kfd_node *n, const struct loader_kernel *k)
{
  size_t max_waves = n->max_waves_per_simd ? n->max_waves_per_simd : 8;
  size_t vgprs = k->vgpr_count, vgpr_file = 256, granule = 4;
  if (unified_vgprs(n)) {
    vgpr_file = 512;
    granule = 8;
  } else {
    vgprs += k->agpr_count;
  }
  size_t waves = max_waves;
  if (vgprs) {
    size_t v = vgpr_file / align_up(vgprs, granule);
    if (v < waves)
      waves = v;
  }
  if (k->sgpr_count) {
    size_t s = 800 / align_up(k->sgpr_count, 16);
    if (s < waves)
      waves = s;
  }
  return waves;
}

/* [in] block_size <= 0 with `potential`: pick the best size up to the kernel's limit. */
static int occupancy_compute(const struct kfd_node *n, const struct loader_kernel *k, int block_size,
                             size_t dyn_lds, bool potential, struct occupancy *o)
{
  int limit = (int)(k->max_flat_workgroup_size < 1024 ? k->max_flat_workgroup_size : 1024);
  if (potential) {
    if (block_size <= 0 || block_size > limit)
      block_size = limit;
  } else if (block_size <= 0) {
    return -EINVAL;
  } else if (block_size > 1024) {
    *o = (struct occupancy){0, 0, 0};
    return 0;
  }
  size_t simds = n->simd_per_cu ? n->simd_per_cu : 4;
  size_t wave = k->wavefront_size;
  int threads_per_cu = (int)(simds * waves_per_simd(n, k) * wave);

  int lds_blocks = INT_MAX;
  size_t lds = k->group_segment_fixed_size + dyn_lds;
  if (lds)
    lds_blocks = (int)(((size_t)n->lds_size_in_kb * 1024) / lds);

  int aligned = (int)align_up((size_t)block_size, wave);
  o->blocks_per_cu = threads_per_cu / aligned;
  if (lds_blocks < o->blocks_per_cu)
    o->blocks_per_cu = lds_blocks;
  o->best_block_size = aligned < threads_per_cu ? aligned : threads_per_cu;
  if (o->best_block_size > limit)
    o->best_block_size = limit;
  int best_per_cu = o->best_block_size ? threads_per_cu / (int)align_up((size_t)o->best_block_size, wave) : 0;
  if (lds_blocks < best_per_cu)
    best_per_cu = lds_blocks;
  o->blocks_per_grid = (int)n->cu_count * best_per_cu;
  return 0;
}

int hip_occupancy_blocks_per_cu(const struct hip_device *d, const struct loader_kernel *k,
                                uint32_t block_size, size_t dyn_lds, int *blocks)
{
  struct occupancy o;
  int err = occupancy_compute(d->node, k, (int)block_size, dyn_lds, false, &o);
  if (!err)
    *blocks = o.blocks_per_cu;
  return err;
}

/* Resolves a function (module function or registered host stub) on the current device. */
static hipError_t resolve(hipFunction_t f, struct hip_device **d, struct hip_kernel_ref *ref)
{
  if (!hip_function_valid(f))
    return hipErrorInvalidDeviceFunction;
  if (!(*d = hip_device_current()))
    return hipErrorNoDevice;
  int err = hip_function_resolve(f, *d, ref);
  if (err == -ENOENT)
    return hipErrorNoBinaryForGpu;
  return err ? hipErrorInvalidDeviceFunction : hipSuccess;
}

static hipError_t max_active_blocks(int *numBlocks, hipFunction_t f, int blockSize, size_t dynSharedMemPerBlk)
{
  struct hip_device *d;
  struct hip_kernel_ref ref;
  struct occupancy o;
  hipError_t e;

  if (!numBlocks || blockSize <= 0)
    return hipErrorInvalidValue;
  if ((e = resolve(f, &d, &ref)))
    return e;
  if (occupancy_compute(d->node, ref.kernel, blockSize, dynSharedMemPerBlk, false, &o))
    return hipErrorInvalidValue;
  *numBlocks = o.blocks_per_cu;
  return hipSuccess;
}

static hipError_t potential_block_size(int *gridSize, int *blockSize, hipFunction_t f,
                                       size_t dynSharedMemPerBlk, int blockSizeLimit)
{
  struct hip_device *d;
  struct hip_kernel_ref ref;
  struct occupancy o;
  hipError_t e;

  if (!gridSize || !blockSize || blockSizeLimit < 0)
    return hipErrorInvalidValue;
  if ((e = resolve(f, &d, &ref)))
    return e;
  if (occupancy_compute(d->node, ref.kernel, blockSizeLimit, dynSharedMemPerBlk, true, &o))
    return hipErrorInvalidValue;
  *gridSize = o.blocks_per_grid;
  *blockSize = o.best_block_size;
  return hipSuccess;
}

static hipFunction_t stub_function(const void *f)
{
  return f ? hip_registered_function(f) : NULL;
}

hipError_t hipOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, const void *f, int blockSize,
                                                        size_t dynSharedMemPerBlk)
{
  HIP_RETURN(max_active_blocks(numBlocks, stub_function(f), blockSize, dynSharedMemPerBlk));
}

/* The two flags the API defines (clr rejects anything else; caching has no override on AMD). */
static bool flags_valid(unsigned int flags)
{
  return flags == hipOccupancyDefault || flags == hipOccupancyDisableCachingOverride;
}

hipError_t hipOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *numBlocks, const void *f,
                                                                 int blockSize,
                                                                 size_t dynSharedMemPerBlk,
                                                                 unsigned int flags)
{
  if (!flags_valid(flags))
    HIP_RETURN(hipErrorInvalidValue);
  HIP_RETURN(max_active_blocks(numBlocks, stub_function(f), blockSize, dynSharedMemPerBlk));
}

hipError_t hipOccupancyMaxPotentialBlockSize(int *gridSize, int *blockSize, const void *f,
                                             size_t dynSharedMemPerBlk, int blockSizeLimit)
{
  HIP_RETURN(potential_block_size(gridSize, blockSize, stub_function(f), dynSharedMemPerBlk,
                                  blockSizeLimit));
}

hipError_t hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, hipFunction_t f,
                                                              int blockSize,
                                                              size_t dynSharedMemPerBlk)
{
  HIP_RETURN(max_active_blocks(numBlocks, f, blockSize, dynSharedMemPerBlk));
}

hipError_t hipModuleOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *numBlocks,
                                                                       hipFunction_t f,
                                                                       int blockSize,
                                                                       size_t dynSharedMemPerBlk,
                                                                       unsigned int flags)
{
  if (!flags_valid(flags))
    HIP_RETURN(hipErrorInvalidValue);
  HIP_RETURN(max_active_blocks(numBlocks, f, blockSize, dynSharedMemPerBlk));
}

hipError_t hipModuleOccupancyMaxPotentialBlockSize(int *gridSize, int *blockSize, hipFunction_t f,
                                                   size_t dynSharedMemPerBlk, int blockSizeLimit)
{
  HIP_RETURN(potential_block_size(gridSize, blockSize, f, dynSharedMemPerBlk, blockSizeLimit));
}

hipError_t hipModuleOccupancyMaxPotentialBlockSizeWithFlags(int *gridSize, int *blockSize,
                                                            hipFunction_t f,
                                                            size_t dynSharedMemPerBlk,
                                                            int blockSizeLimit, unsigned int flags)
{
  if (!flags_valid(flags))
    HIP_RETURN(hipErrorInvalidValue);
  HIP_RETURN(potential_block_size(gridSize, blockSize, f, dynSharedMemPerBlk, blockSizeLimit));
}

/* The most dynamic LDS a block may use so that [in] numBlocks blocks of [in] blockSize threads
 * still fit on one CU together (0 when they do not fit even without dynamic LDS). */
hipError_t hipOccupancyAvailableDynamicSMemPerBlock(size_t *dynamicSmemSize, const void *f,
                                                    int numBlocks, int blockSize)
{
  struct hip_device *d;
  struct hip_kernel_ref ref;
  struct occupancy o;
  hipError_t e;

  if (!dynamicSmemSize || numBlocks <= 0 || blockSize <= 0)
    HIP_RETURN(hipErrorInvalidValue);
  if ((e = resolve(stub_function(f), &d, &ref)))
    HIP_RETURN(e);
  if (occupancy_compute(d->node, ref.kernel, blockSize, 0, false, &o))
    HIP_RETURN(hipErrorInvalidValue);
  size_t lds = (size_t)d->node->lds_size_in_kb * 1024, per_block = lds / (size_t)numBlocks;
  size_t fixed = ref.kernel->group_segment_fixed_size;
  *dynamicSmemSize = o.blocks_per_cu < numBlocks || per_block < fixed ? 0 : per_block - fixed;
  HIP_RETURN(hipSuccess);
}

/*
 * Thread-block clusters. Only gfx1250 schedules clusters; on every other target clr's device
 * reports a maximum cluster size of 0, so both queries end in hipErrorInvalidClusterSize once
 * the kernel is known (clr hip_platform.cpp hipOccupancyMaxPotentialClusterSize /
 * hipOccupancyMaxActiveClusters). The one success clr gives here: a potential cluster size of 0
 * when the kernel's LDS (static + the config's dynamic) exceeds a CU's, which is checked before
 * the cluster limit. Null pointers, which clr dereferences, are hipErrorInvalidValue (CUDA).
 */
static hipError_t cluster_query(int *out, const void *f, const hipLaunchConfig_t *config,
                                bool potential)
{
  struct hip_device *d;
  struct hip_kernel_ref ref;
  hipError_t e;

  if (!out || !config)
    return hipErrorInvalidValue;
  *out = 0;
  if ((e = resolve(stub_function(f), &d, &ref)))
    return e;
  size_t lds = ref.kernel->group_segment_fixed_size + config->dynamicSmemBytes;
  if (potential && lds > (size_t)d->node->lds_size_in_kb * 1024)
    return hipSuccess;
  return hipErrorInvalidClusterSize;
}

hipError_t hipOccupancyMaxPotentialClusterSize(int *clusterSize, const void *f,
                                               const hipLaunchConfig_t *config)
{
  HIP_RETURN(cluster_query(clusterSize, f, config, true));
}

hipError_t hipOccupancyMaxActiveClusters(int *numClusters, const void *f,
                                         const hipLaunchConfig_t *config)
{
  HIP_RETURN(cluster_query(numClusters, f, config, false));
}

/*
 * hipOccupancyMaxPotentialBlockSizeVariableSMem(WithFlags): the HIP headers define these as C++
 * templates over any callable; the exported C symbols take a plain function pointer from block
 * size to dynamic LDS bytes and run the same search: every wavefront multiple from the largest
 * allowed block size down, keeping the size with the most resident threads per CU and stopping
 * early when a CU is full. [out] minGridSize is that size's blocks per CU times the CU count.
 */
typedef size_t (*hip_block_to_smem_fn)(int);

static hipError_t variable_smem_search(int *minGridSize, int *blockSize, const void *f,
                                       hip_block_to_smem_fn smem_for, int limit)
{
  struct hip_device *d;
  struct hip_kernel_ref ref;
  hipError_t e;

  if (!minGridSize || !blockSize || !f || !smem_for || limit < 0)
    return hipErrorInvalidValue;
  if ((e = resolve(stub_function(f), &d, &ref)))
    return e;
  const struct kfd_node *n = d->node;
  int kernel_max = (int)(ref.kernel->max_flat_workgroup_size < 1024 ? ref.kernel->max_flat_workgroup_size
                                                                      : 1024);
  if (limit == 0 || limit > kernel_max)
    limit = kernel_max;
  int wave = (int)ref.kernel->wavefront_size;
  int cu_threads = (int)((n->simd_per_cu ? n->simd_per_cu : 4) * waves_per_simd(n, ref.kernel) * (size_t)wave);
  int best_threads = 0, best_size = 0, best_blocks = 0;
  for (int aligned = (int)align_up((size_t)limit, (size_t)wave); aligned > 0; aligned -= wave) {
    int size = aligned < limit ? aligned : limit;
    struct occupancy o;
    if (occupancy_compute(n, ref.kernel, size, smem_for(size), false, &o))
      return hipErrorInvalidValue;
    if (size * o.blocks_per_cu > best_threads) {
      best_threads = size * o.blocks_per_cu;
      best_size = size;
      best_blocks = o.blocks_per_cu;
    }
    if (best_threads == cu_threads)
      break;
  }
  *minGridSize = best_blocks * (int)n->cu_count;
  *blockSize = best_size;
  return hipSuccess;
}

hipError_t hipOccupancyMaxPotentialBlockSizeVariableSMemWithFlags(int *minGridSize, int *blockSize,
                                                                  const void *f,
                                                                  hip_block_to_smem_fn smemForBlock,
                                                                  int blockSizeLimit,
                                                                  unsigned int flags)
{
  if (!flags_valid(flags))
    HIP_RETURN(hipErrorInvalidValue);
  HIP_RETURN(variable_smem_search(minGridSize, blockSize, f, smemForBlock, blockSizeLimit));
}

hipError_t hipOccupancyMaxPotentialBlockSizeVariableSMem(int *minGridSize, int *blockSize,
                                                         const void *f,
                                                         hip_block_to_smem_fn smemForBlock,
                                                         int blockSizeLimit)
{
  HIP_RETURN(variable_smem_search(minGridSize, blockSize, f, smemForBlock, blockSizeLimit));
}
