/* hipGetDeviceProperties: every hipDeviceProp_t field from the KFD topology.
 *
 * Two layouts are exported, as ROCm 6+ does: hipGetDevicePropertiesR0600 (what ROCm 6/7 headers
 * call) and hipGetDevicePropertiesR0000, which rt-abi's abi_compat.c exports under the unversioned
 * name for ROCm 5 binaries.
 * Constants that the topology does not carry are the values AMD's runtime reports for gfx9
 * Instinct parts (cited at each).
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "../kfd/kfd.h"
#include "../kfd/drm_device.h"
#include "device_props.h"
#include "../runtime/error.h"
#include "../runtime/internal.h"

/* gfx9 parts whose ISA has the sramecc and xnack target features (LLVM AMDGPUUsage.rst,
 * "Processors" table): they appear in the target id as ":sramecc±:xnack±". */
static bool has_sramecc_xnack_features(const struct kfd_node *n)
{
	if (n->gfx_major != 9)
		return false;
	unsigned v = n->gfx_minor * 16 + n->gfx_stepping;
	return v == 0x06 || v == 0x08 || v == 0x0a || v == 0x40 || v == 0x41 || v == 0x42;
}

void hip_gcn_arch_name(const struct kfd_node *n, char *out, size_t size)
{
	/* The target id: gfx + major + minor + stepping in hex (gfx90a), then the features. */
	int len = snprintf(out, size, "gfx%u%u%x", n->gfx_major, n->gfx_minor, n->gfx_stepping);
	if (len > 0 && (size_t)len < size && has_sramecc_xnack_features(n))
		snprintf(out + len, size - (size_t)len, ":sramecc%c:xnack%c", n->sramecc ? '+' : '-',
			 n->xnack ? '+' : '-');
}

/* The frame-buffer memory bank (clock and width of VRAM), or NULL on an APU. */
static const struct kfd_mem_bank *vram_bank(const struct kfd_node *n)
{
	for (uint32_t i = 0; i < n->mem_banks_count && i < KFD_MAX_MEM_BANKS; i++)
		if (n->mem_banks[i].heap_type != KFD_HEAP_SYSTEM)
			return &n->mem_banks[i];
	return NULL;
}

static bool large_bar(const struct kfd_node *n)
{
	const struct kfd_mem_bank *b = vram_bank(n);
	return b && b->heap_type == KFD_HEAP_FRAME_BUFFER_PUBLIC;
}

uint64_t hip_device_total_mem(const struct kfd_node *n)
{
	return n->vram_size ? n->vram_size : n->local_mem_size;
}

/* The GPU timestamp counter rate in kHz (s_memrealtime, CP timestamps): the KFD clock-counter
 * frequency once the GPU is open, else the 100 MHz of every gfx9 Instinct part. */
int hip_device_wall_clock_khz(const struct hip_device *d)
{
	const struct kfd_gpu *g = kfd_gpu_state(d->node);
	if (g && g->gpu_clock_hz)
		return (int)(g->gpu_clock_hz / 1000);
	return 100000;
}

static void fill_arch(hipDeviceArch_t *a)
{
	memset(a, 0, sizeof(*a));
	a->hasGlobalInt32Atomics = 1;
	a->hasGlobalFloatAtomicExch = 1;
	a->hasSharedInt32Atomics = 1;
	a->hasSharedFloatAtomicExch = 1;
	a->hasFloatAtomicAdd = 1;
	a->hasGlobalInt64Atomics = 1;
	a->hasSharedInt64Atomics = 1;
	a->hasDoubles = 1;
	a->hasWarpVote = 1;
	a->hasWarpBallot = 1;
	a->hasWarpShuffle = 1;
	a->hasFunnelShift = 0;
	a->hasThreadFenceSystem = 1;
	a->hasSyncThreadsExt = 0;
	a->hasSurfaceFuncs = 0;
	a->has3dGrid = 1;
	a->hasDynamicParallelism = 0;
}

/* libhsakmt names a node after amdgpu_get_marketing_name() (topology.c), and clr's
 * hipDeviceProp_t.name is that product name. Without libdrm: the topology's own. */
void hip_device_name(const struct kfd_node *n, char *out, size_t size)
{
	struct kfd_drm_facts f;

	if (kfd_drm_facts(n, &f) == 0 && f.marketing_name[0])
		snprintf(out, size, "%s", f.marketing_name);
	else
		snprintf(out, size, "%s", n->marketing_name[0] ? n->marketing_name : n->name);
}

/* Peak engine and memory clocks in kHz: the topology's (what ROCr reports as
 * HSA_AGENT_INFO_MAX_CLOCK_FREQUENCY and the memory bank's mem_clk_max), or the DRM driver's
 * (amdgpu_gpu_info max_engine_clk / max_memory_clk) when the topology has 0. */
static void device_clocks(const struct kfd_node *n, const struct kfd_mem_bank *vram,
			  int *engine_khz, int *memory_khz)
{
	struct kfd_drm_facts f;
	bool drm = false;

	*engine_khz = (int)n->max_engine_clk_fcompute * 1000;
	*memory_khz = vram ? (int)vram->mem_clk_max * 1000 : 0;
	if ((!*engine_khz || !*memory_khz) && kfd_drm_facts(n, &f) == 0)
		drm = true;
	if (drm && !*engine_khz)
		*engine_khz = (int)f.max_engine_clock_khz;
	if (drm && !*memory_khz)
		*memory_khz = (int)f.max_memory_clock_khz;
}

void hip_device_props(const struct hip_device *d, hipDeviceProp_tR0600 *p)
{
	const struct kfd_node *n = d->node;
	const struct kfd_mem_bank *vram = vram_bank(n);
	bool svm = (n->capability & KFD_CAP_SVMAPI_SUPPORTED) != 0;
	int lds = (int)n->lds_size_in_kb * 1024;
	int waves_per_cu = (int)(n->simd_per_cu * n->max_waves_per_simd);

	memset(p, 0, sizeof(*p));
	hip_device_name(n, p->name, sizeof(p->name));
	/* AMD's UUID: the 16 hex digits of the topology's unique_id, as characters. */
	char uuid[17];
	snprintf(uuid, sizeof(uuid), "%016llx", (unsigned long long)n->unique_id);
	memcpy(p->uuid.bytes, uuid, 16);
	p->totalGlobalMem = hip_device_total_mem(n);
	p->sharedMemPerBlock = (size_t)lds;
	p->regsPerBlock = 65536;                /* VGPR file of a CU as AMD reports it */
	p->warpSize = (int)n->wave_front_size;
	p->memPitch = INT_MAX;
	p->maxThreadsPerBlock = 1024;
	p->maxThreadsDim[0] = p->maxThreadsDim[1] = p->maxThreadsDim[2] = 1024;
	p->maxGridSize[0] = INT_MAX;            /* AQL grid sizes are 32-bit work-item counts */
	p->maxGridSize[1] = p->maxGridSize[2] = 65536;
	device_clocks(n, vram, &p->clockRate, &p->memoryClockRate);
	p->totalConstMem = INT_MAX;
	p->major = (int)n->gfx_major;
	p->minor = (int)n->gfx_minor;
	p->textureAlignment = 256;
	p->texturePitchAlignment = 256;
	p->deviceOverlap = n->num_sdma_engines > 0;
	p->multiProcessorCount = (int)n->cu_count;
	p->kernelExecTimeoutEnabled = 0;
	p->integrated = n->local_mem_size == 0;
	p->canMapHostMemory = 1;
	p->computeMode = 0;                     /* hipComputeModeDefault */
	p->maxTexture1D = 16384;
	p->maxTexture1DLinear = 1 << 27;
	p->maxTexture2D[0] = p->maxTexture2D[1] = 16384;
	p->maxTexture3D[0] = p->maxTexture3D[1] = 16384;
	p->maxTexture3D[2] = 8192;
	p->concurrentKernels = 1;
	p->ECCEnabled = n->sramecc;
	p->pciBusID = (int)(n->location_id >> 8) & 0xff;
	p->pciDeviceID = (int)(n->location_id >> 3) & 0x1f;
	p->pciDomainID = (int)n->domain;
	p->tccDriver = 0;
	p->asyncEngineCount = (int)n->num_sdma_engines;
	p->unifiedAddressing = 1;
	p->memoryBusWidth = vram ? (int)vram->width : 0;
	p->l2CacheSize = (int)n->l2_kib * 1024;
	p->maxThreadsPerMultiProcessor = (int)n->wave_front_size * waves_per_cu;
	p->streamPrioritiesSupported = 1;
	p->globalL1CacheSupported = 1;
	p->localL1CacheSupported = 1;
	p->sharedMemPerMultiprocessor = (size_t)lds;
	p->regsPerMultiprocessor = 65536;
	p->managedMemory = svm;
	p->isMultiGpuBoard = n->hive_id != 0;
	p->multiGpuBoardGroupID = 0;
	p->hostNativeAtomicSupported = 1;
	p->singleToDoublePrecisionPerfRatio = 1;
	/* Pageable and concurrent managed access need XNACK (GPU page-fault retry) with SVM. */
	p->pageableMemoryAccess = svm && n->xnack;
	p->concurrentManagedAccess = svm && n->xnack;
	p->pageableMemoryAccessUsesHostPageTables = svm && n->xnack;
	p->directManagedMemAccessFromHost = p->integrated;
	p->computePreemptionSupported = 0;
	/* Registered memory may live at another GPU address than its CPU address (USERPTR). */
	p->canUseHostPointerForRegisteredMem = 0;
	p->cooperativeLaunch = 1;
	p->cooperativeMultiDeviceLaunch = 1;
	p->sharedMemPerBlockOptin = (size_t)lds;
	p->maxBlocksPerMultiProcessor = waves_per_cu;
	p->hostRegisterSupported = 1;
	p->hostRegisterReadOnlySupported = 0;
	p->memoryPoolsSupported = 1; /* stream-ordered pools: src/pool/mempool.c */
	p->ipcEventSupported = 0;
	hip_gcn_arch_name(n, p->gcnArchName, sizeof(p->gcnArchName));
	p->maxSharedMemoryPerMultiProcessor = (size_t)lds;
	p->clockInstructionRate = hip_device_wall_clock_khz(d);
	fill_arch(&p->arch);
	p->hdpMemFlushCntl = NULL;
	p->hdpRegFlushCntl = NULL;
	p->cooperativeMultiDeviceUnmatchedFunc = 1;
	p->cooperativeMultiDeviceUnmatchedGridDim = 1;
	p->cooperativeMultiDeviceUnmatchedBlockDim = 1;
	p->cooperativeMultiDeviceUnmatchedSharedMem = 1;
	p->isLargeBar = large_bar(n);
	p->asicRevision = (int)((n->capability & KFD_CAP_ASIC_REVISION_MASK) >>
				KFD_CAP_ASIC_REVISION_SHIFT);
}

/* The ROCm 5 layout holds a subset of the same facts, plus gcnArch (major*100+minor*10+stepping,
 * e.g. 910 for gfx90a, as AMD computed it). */
static void props_r0000(const struct hip_device *d, const hipDeviceProp_tR0600 *p,
			hipDeviceProp_tR0000 *o)
{
	memset(o, 0, sizeof(*o));
	memcpy(o->name, p->name, sizeof(o->name));
	o->totalGlobalMem = p->totalGlobalMem;
	o->sharedMemPerBlock = p->sharedMemPerBlock;
	o->regsPerBlock = p->regsPerBlock;
	o->warpSize = p->warpSize;
	o->maxThreadsPerBlock = p->maxThreadsPerBlock;
	memcpy(o->maxThreadsDim, p->maxThreadsDim, sizeof(o->maxThreadsDim));
	memcpy(o->maxGridSize, p->maxGridSize, sizeof(o->maxGridSize));
	o->clockRate = p->clockRate;
	o->memoryClockRate = p->memoryClockRate;
	o->memoryBusWidth = p->memoryBusWidth;
	o->totalConstMem = p->totalConstMem;
	o->major = p->major;
	o->minor = p->minor;
	o->multiProcessorCount = p->multiProcessorCount;
	o->l2CacheSize = p->l2CacheSize;
	o->maxThreadsPerMultiProcessor = p->maxThreadsPerMultiProcessor;
	o->computeMode = p->computeMode;
	o->clockInstructionRate = p->clockInstructionRate;
	o->arch = p->arch;
	o->concurrentKernels = p->concurrentKernels;
	o->pciDomainID = p->pciDomainID;
	o->pciBusID = p->pciBusID;
	o->pciDeviceID = p->pciDeviceID;
	o->maxSharedMemoryPerMultiProcessor = p->maxSharedMemoryPerMultiProcessor;
	o->isMultiGpuBoard = p->isMultiGpuBoard;
	o->canMapHostMemory = p->canMapHostMemory;
	o->gcnArch = (int)(d->node->gfx_major * 100 + d->node->gfx_minor * 10 + d->node->gfx_stepping);
	memcpy(o->gcnArchName, p->gcnArchName, sizeof(o->gcnArchName));
	o->integrated = p->integrated;
	o->cooperativeLaunch = p->cooperativeLaunch;
	o->cooperativeMultiDeviceLaunch = p->cooperativeMultiDeviceLaunch;
	o->maxTexture1DLinear = p->maxTexture1DLinear;
	o->maxTexture1D = p->maxTexture1D;
	memcpy(o->maxTexture2D, p->maxTexture2D, sizeof(o->maxTexture2D));
	memcpy(o->maxTexture3D, p->maxTexture3D, sizeof(o->maxTexture3D));
	o->hdpMemFlushCntl = p->hdpMemFlushCntl;
	o->hdpRegFlushCntl = p->hdpRegFlushCntl;
	o->memPitch = p->memPitch;
	o->textureAlignment = p->textureAlignment;
	o->texturePitchAlignment = p->texturePitchAlignment;
	o->kernelExecTimeoutEnabled = p->kernelExecTimeoutEnabled;
	o->ECCEnabled = p->ECCEnabled;
	o->tccDriver = p->tccDriver;
	o->cooperativeMultiDeviceUnmatchedFunc = p->cooperativeMultiDeviceUnmatchedFunc;
	o->cooperativeMultiDeviceUnmatchedGridDim = p->cooperativeMultiDeviceUnmatchedGridDim;
	o->cooperativeMultiDeviceUnmatchedBlockDim = p->cooperativeMultiDeviceUnmatchedBlockDim;
	o->cooperativeMultiDeviceUnmatchedSharedMem = p->cooperativeMultiDeviceUnmatchedSharedMem;
	o->isLargeBar = p->isLargeBar;
	o->asicRevision = p->asicRevision;
	o->managedMemory = p->managedMemory;
	o->directManagedMemAccessFromHost = p->directManagedMemAccessFromHost;
	o->concurrentManagedAccess = p->concurrentManagedAccess;
	o->pageableMemoryAccess = p->pageableMemoryAccess;
	o->pageableMemoryAccessUsesHostPageTables = p->pageableMemoryAccessUsesHostPageTables;
}

hipError_t hipGetDevicePropertiesR0600(hipDeviceProp_tR0600 *prop, int device)
{
	if (!prop)
		HIP_RETURN(hipErrorInvalidValue);
	struct hip_device *d = hip_device_peek(device);
	if (!d)
		HIP_RETURN(hip_init_error() ?: hipErrorInvalidDevice);
	hip_device_props(d, prop);
	HIP_RETURN(hipSuccess);
}

hipError_t hipGetDevicePropertiesR0000(hipDeviceProp_tR0000 *prop, int device)
{
	if (!prop)
		HIP_RETURN(hipErrorInvalidValue);
	struct hip_device *d = hip_device_peek(device);
	if (!d)
		HIP_RETURN(hip_init_error() ?: hipErrorInvalidDevice);
	hipDeviceProp_tR0600 p;
	hip_device_props(d, &p);
	props_r0000(d, &p, prop);
	HIP_RETURN(hipSuccess);
}

/* hipChooseDevice: the device matching most of the nonzero fields of `want` (each counts when the
 * device's value is at least the wanted one), as AMD's runtime scores them. */
static int choose(const hipDeviceProp_tR0600 *want)
{
	int best = 0, best_score = -1;
	for (int i = 0; i < hip_device_count(); i++) {
		hipDeviceProp_tR0600 p;
		hip_device_props(hip_device_peek(i), &p);
		int asked = 0, met = 0;
#define WANT(f) do { if (want->f) { asked++; met += p.f >= want->f; } } while (0)
		WANT(major);
		WANT(minor);
		WANT(totalGlobalMem);
		WANT(sharedMemPerBlock);
		WANT(maxThreadsPerBlock);
		WANT(totalConstMem);
		WANT(multiProcessorCount);
		WANT(maxThreadsPerMultiProcessor);
		WANT(memoryClockRate);
		WANT(memoryBusWidth);
		WANT(l2CacheSize);
		WANT(regsPerBlock);
		WANT(maxSharedMemoryPerMultiProcessor);
		WANT(warpSize);
#undef WANT
		if (asked == met && met > best_score) {
			best = i;
			best_score = met;
		}
	}
	return best;
}

hipError_t hipChooseDeviceR0600(int *device, const hipDeviceProp_tR0600 *prop)
{
	if (!device || !prop)
		HIP_RETURN(hipErrorInvalidValue);
	hipError_t err = hip_init_error();
	if (err != hipSuccess)
		HIP_RETURN(err);
	*device = choose(prop);
	HIP_RETURN(hipSuccess);
}

hipError_t hipChooseDeviceR0000(int *device, const hipDeviceProp_tR0000 *prop)
{
	if (!device || !prop)
		HIP_RETURN(hipErrorInvalidValue);
	hipError_t err = hip_init_error();
	if (err != hipSuccess)
		HIP_RETURN(err);
	hipDeviceProp_tR0600 want;
	memset(&want, 0, sizeof(want));
	want.major = prop->major;
	want.minor = prop->minor;
	want.totalGlobalMem = prop->totalGlobalMem;
	want.sharedMemPerBlock = prop->sharedMemPerBlock;
	want.maxThreadsPerBlock = prop->maxThreadsPerBlock;
	want.totalConstMem = prop->totalConstMem;
	want.multiProcessorCount = prop->multiProcessorCount;
	want.maxThreadsPerMultiProcessor = prop->maxThreadsPerMultiProcessor;
	want.memoryClockRate = prop->memoryClockRate;
	want.memoryBusWidth = prop->memoryBusWidth;
	want.l2CacheSize = prop->l2CacheSize;
	want.regsPerBlock = prop->regsPerBlock;
	want.maxSharedMemoryPerMultiProcessor = prop->maxSharedMemoryPerMultiProcessor;
	want.warpSize = prop->warpSize;
	*device = choose(&want);
	HIP_RETURN(hipSuccess);
}
