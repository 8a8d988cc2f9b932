/* hipDeviceGetAttribute: a table from each hipDeviceAttribute_t to the hipDeviceProp_t field that
 * holds its value (data over code), plus the few attributes that have no field. An attribute not
 * in the table (a retired number, an out-of-range value) is hipErrorInvalidValue, as in AMD's
 * runtime. size_t fields are clamped to INT_MAX because the attribute is an int. */
#include <limits.h>
#include <stddef.h>

#include "../kfd/kfd.h"
#include "device_props.h"
#include "../runtime/error.h"
#include "../runtime/internal.h"

enum attr_kind { A_INT, A_SIZE, A_CONST, A_SPECIAL };

struct attr_entry {
	hipDeviceAttribute_t attr;
	enum attr_kind kind;
	size_t offset;  /* A_INT / A_SIZE: offset in hipDeviceProp_tR0600 */
	int value;      /* A_CONST */
};

#define F_INT(a, field) { a, A_INT, offsetof(hipDeviceProp_tR0600, field), 0 }
#define F_SIZE(a, field) { a, A_SIZE, offsetof(hipDeviceProp_tR0600, field), 0 }
#define K(a, v) { a, A_CONST, 0, v }
#define S(a) { a, A_SPECIAL, 0, 0 }

static const struct attr_entry attr_table[] = {
	F_INT(hipDeviceAttributeEccEnabled, ECCEnabled),
	K(hipDeviceAttributeAccessPolicyMaxWindowSize, 0),
	F_INT(hipDeviceAttributeAsyncEngineCount, asyncEngineCount),
	F_INT(hipDeviceAttributeCanMapHostMemory, canMapHostMemory),
	F_INT(hipDeviceAttributeCanUseHostPointerForRegisteredMem, canUseHostPointerForRegisteredMem),
	F_INT(hipDeviceAttributeClockRate, clockRate),
	F_INT(hipDeviceAttributeComputeMode, computeMode),
	F_INT(hipDeviceAttributeComputePreemptionSupported, computePreemptionSupported),
	F_INT(hipDeviceAttributeConcurrentKernels, concurrentKernels),
	F_INT(hipDeviceAttributeConcurrentManagedAccess, concurrentManagedAccess),
	F_INT(hipDeviceAttributeCooperativeLaunch, cooperativeLaunch),
	F_INT(hipDeviceAttributeCooperativeMultiDeviceLaunch, cooperativeMultiDeviceLaunch),
	F_INT(hipDeviceAttributeDeviceOverlap, deviceOverlap),
	F_INT(hipDeviceAttributeDirectManagedMemAccessFromHost, directManagedMemAccessFromHost),
	F_INT(hipDeviceAttributeGlobalL1CacheSupported, globalL1CacheSupported),
	F_INT(hipDeviceAttributeHostNativeAtomicSupported, hostNativeAtomicSupported),
	F_INT(hipDeviceAttributeIntegrated, integrated),
	F_INT(hipDeviceAttributeIsMultiGpuBoard, isMultiGpuBoard),
	F_INT(hipDeviceAttributeKernelExecTimeout, kernelExecTimeoutEnabled),
	F_INT(hipDeviceAttributeL2CacheSize, l2CacheSize),
	F_INT(hipDeviceAttributeLocalL1CacheSupported, localL1CacheSupported),
	K(hipDeviceAttributeLuid, 0),
	F_INT(hipDeviceAttributeLuidDeviceNodeMask, luidDeviceNodeMask),
	F_INT(hipDeviceAttributeComputeCapabilityMajor, major),
	F_INT(hipDeviceAttributeManagedMemory, managedMemory),
	F_INT(hipDeviceAttributeMaxBlocksPerMultiProcessor, maxBlocksPerMultiProcessor),
	F_INT(hipDeviceAttributeMaxBlockDimX, maxThreadsDim[0]),
	F_INT(hipDeviceAttributeMaxBlockDimY, maxThreadsDim[1]),
	F_INT(hipDeviceAttributeMaxBlockDimZ, maxThreadsDim[2]),
	F_INT(hipDeviceAttributeMaxGridDimX, maxGridSize[0]),
	F_INT(hipDeviceAttributeMaxGridDimY, maxGridSize[1]),
	F_INT(hipDeviceAttributeMaxGridDimZ, maxGridSize[2]),
	F_INT(hipDeviceAttributeMaxSurface1D, maxSurface1D),
	F_INT(hipDeviceAttributeMaxSurface1DLayered, maxSurface1DLayered[0]),
	F_INT(hipDeviceAttributeMaxSurface2D, maxSurface2D[0]),
	F_INT(hipDeviceAttributeMaxSurface2DLayered, maxSurface2DLayered[0]),
	F_INT(hipDeviceAttributeMaxSurface3D, maxSurface3D[0]),
	F_INT(hipDeviceAttributeMaxSurfaceCubemap, maxSurfaceCubemap),
	F_INT(hipDeviceAttributeMaxSurfaceCubemapLayered, maxSurfaceCubemapLayered[0]),
	F_INT(hipDeviceAttributeMaxTexture1DWidth, maxTexture1D),
	F_INT(hipDeviceAttributeMaxTexture1DLayered, maxTexture1DLayered[0]),
	F_INT(hipDeviceAttributeMaxTexture1DLinear, maxTexture1DLinear),
	F_INT(hipDeviceAttributeMaxTexture1DMipmap, maxTexture1DMipmap),
	F_INT(hipDeviceAttributeMaxTexture2DWidth, maxTexture2D[0]),
	F_INT(hipDeviceAttributeMaxTexture2DHeight, maxTexture2D[1]),
	F_INT(hipDeviceAttributeMaxTexture2DGather, maxTexture2DGather[0]),
	F_INT(hipDeviceAttributeMaxTexture2DLayered, maxTexture2DLayered[0]),
	F_INT(hipDeviceAttributeMaxTexture2DLinear, maxTexture2DLinear[0]),
	F_INT(hipDeviceAttributeMaxTexture2DMipmap, maxTexture2DMipmap[0]),
	F_INT(hipDeviceAttributeMaxTexture3DWidth, maxTexture3D[0]),
	F_INT(hipDeviceAttributeMaxTexture3DHeight, maxTexture3D[1]),
	F_INT(hipDeviceAttributeMaxTexture3DDepth, maxTexture3D[2]),
	F_INT(hipDeviceAttributeMaxTexture3DAlt, maxTexture3DAlt[0]),
	F_INT(hipDeviceAttributeMaxTextureCubemap, maxTextureCubemap),
	F_INT(hipDeviceAttributeMaxTextureCubemapLayered, maxTextureCubemapLayered[0]),
	F_INT(hipDeviceAttributeMaxThreadsDim, maxThreadsDim[0]),
	F_INT(hipDeviceAttributeMaxThreadsPerBlock, maxThreadsPerBlock),
	F_INT(hipDeviceAttributeMaxThreadsPerMultiProcessor, maxThreadsPerMultiProcessor),
	F_SIZE(hipDeviceAttributeMaxPitch, memPitch),
	F_INT(hipDeviceAttributeMemoryBusWidth, memoryBusWidth),
	F_INT(hipDeviceAttributeMemoryClockRate, memoryClockRate),
	F_INT(hipDeviceAttributeComputeCapabilityMinor, minor),
	F_INT(hipDeviceAttributeMultiGpuBoardGroupID, multiGpuBoardGroupID),
	F_INT(hipDeviceAttributeMultiprocessorCount, multiProcessorCount),
	F_INT(hipDeviceAttributePageableMemoryAccess, pageableMemoryAccess),
	F_INT(hipDeviceAttributePageableMemoryAccessUsesHostPageTables,
	      pageableMemoryAccessUsesHostPageTables),
	F_INT(hipDeviceAttributePciBusId, pciBusID),
	F_INT(hipDeviceAttributePciDeviceId, pciDeviceID),
	F_INT(hipDeviceAttributePciDomainID, pciDomainID),
	F_INT(hipDeviceAttributePersistingL2CacheMaxSize, persistingL2CacheMaxSize),
	F_INT(hipDeviceAttributeMaxRegistersPerBlock, regsPerBlock),
	F_INT(hipDeviceAttributeMaxRegistersPerMultiprocessor, regsPerMultiprocessor),
	F_SIZE(hipDeviceAttributeReservedSharedMemPerBlock, reservedSharedMemPerBlock),
	F_SIZE(hipDeviceAttributeMaxSharedMemoryPerBlock, sharedMemPerBlock),
	F_SIZE(hipDeviceAttributeSharedMemPerBlockOptin, sharedMemPerBlockOptin),
	F_SIZE(hipDeviceAttributeSharedMemPerMultiprocessor, sharedMemPerMultiprocessor),
	F_INT(hipDeviceAttributeSingleToDoublePrecisionPerfRatio, singleToDoublePrecisionPerfRatio),
	F_INT(hipDeviceAttributeStreamPrioritiesSupported, streamPrioritiesSupported),
	F_SIZE(hipDeviceAttributeSurfaceAlignment, surfaceAlignment),
	F_INT(hipDeviceAttributeTccDriver, tccDriver),
	F_SIZE(hipDeviceAttributeTextureAlignment, textureAlignment),
	F_SIZE(hipDeviceAttributeTexturePitchAlignment, texturePitchAlignment),
	F_SIZE(hipDeviceAttributeTotalConstantMemory, totalConstMem),
	F_SIZE(hipDeviceAttributeTotalGlobalMem, totalGlobalMem),
	F_INT(hipDeviceAttributeUnifiedAddressing, unifiedAddressing),
	F_INT(hipDeviceAttributeWarpSize, warpSize),
	F_INT(hipDeviceAttributeMemoryPoolsSupported, memoryPoolsSupported),
	K(hipDeviceAttributeVirtualMemoryManagementSupported, 1), /* hipMem* VMM: api/vmm.c */
	F_INT(hipDeviceAttributeHostRegisterSupported, hostRegisterSupported),
	F_INT(hipDeviceAttributeMemoryPoolSupportedHandleTypes, memoryPoolSupportedHandleTypes),
	K(hipDeviceAttributeHostNumaId, 0),
	K(hipDeviceAttributeDmaBufSupported, 0),
	K(hipDeviceAttributeGPUDirectRDMAWithHipVMMSupported, 0),
	K(hipDeviceAttributeHandleTypeFabricSupported, 0),
	F_INT(hipDeviceAttributeClockInstructionRate, clockInstructionRate),
	F_SIZE(hipDeviceAttributeMaxSharedMemoryPerMultiprocessor, maxSharedMemoryPerMultiProcessor),
	S(hipDeviceAttributeHdpMemFlushCntl),
	S(hipDeviceAttributeHdpRegFlushCntl),
	F_INT(hipDeviceAttributeCooperativeMultiDeviceUnmatchedFunc,
	      cooperativeMultiDeviceUnmatchedFunc),
	F_INT(hipDeviceAttributeCooperativeMultiDeviceUnmatchedGridDim,
	      cooperativeMultiDeviceUnmatchedGridDim),
	F_INT(hipDeviceAttributeCooperativeMultiDeviceUnmatchedBlockDim,
	      cooperativeMultiDeviceUnmatchedBlockDim),
	F_INT(hipDeviceAttributeCooperativeMultiDeviceUnmatchedSharedMem,
	      cooperativeMultiDeviceUnmatchedSharedMem),
	F_INT(hipDeviceAttributeIsLargeBar, isLargeBar),
	F_INT(hipDeviceAttributeAsicRevision, asicRevision),
	K(hipDeviceAttributeCanUseStreamWaitValue, 1), /* hipStreamWaitValue*: api/stream_memops.c */
	S(hipDeviceAttributeImageSupport),
	S(hipDeviceAttributePhysicalMultiProcessorCount),
	S(hipDeviceAttributeFineGrainSupport),
	S(hipDeviceAttributeWallClockRate),
	S(hipDeviceAttributeNumberOfXccs),
	S(hipDeviceAttributeMaxAvailableVgprsPerThread),
	S(hipDeviceAttributePciChipId),
	K(hipDeviceAttributeExpertSchedMode, 0),
	K(hipDeviceAttributeMaxDynDataPrefetchRegions, 0),
};

static const struct attr_entry *attr_find(hipDeviceAttribute_t a)
{
	for (size_t i = 0; i < sizeof(attr_table) / sizeof(attr_table[0]); i++)
		if (attr_table[i].attr == a)
			return &attr_table[i];
	return NULL;
}

static int attr_special(const struct hip_device *d, hipDeviceAttribute_t a, int *pi)
{
	const struct kfd_node *n = d->node;
	switch (a) {
	case hipDeviceAttributeHdpMemFlushCntl:
	case hipDeviceAttributeHdpRegFlushCntl:
		/* AMD stores a pointer through the int*; hipkfd maps no HDP registers, so the
		 * value is NULL, and only the int the caller declared is written. */
		*pi = 0;
		return 0;
	case hipDeviceAttributePhysicalMultiProcessorCount:
		*pi = (int)n->cu_count;
		return 0;
	case hipDeviceAttributeWallClockRate:
		*pi = hip_device_wall_clock_khz(d);
		return 0;
	case hipDeviceAttributeNumberOfXccs:
		*pi = n->num_xcc ? (int)n->num_xcc : 1;
		return 0;
	case hipDeviceAttributeMaxAvailableVgprsPerThread:
		/* gfx90a/gfx942: 512 VGPRs per lane in wave64 (256 arch VGPRs + 256 AGPRs). */
		*pi = n->gfx_major == 9 && (n->gfx_minor == 4 || n->gfx_stepping == 0xa) ? 512 : 256;
		return 0;
	case hipDeviceAttributePciChipId:
		*pi = (int)n->device_id;
		return 0;
	case hipDeviceAttributeFineGrainSupport:
		/* clr answers whether the GPU has a user-visible fine-grained VRAM pool (with SVM
		 * atomics, which every gfx9 target has); ROCr exposes that pool only for a GPU in an
		 * xGMI hive (amd_gpu_agent.cpp InitRegionList: HiveID != 0, or HSA_FINE_GRAIN_PCIE set
		 * in the environment). So rocminfo lists "GLOBAL; FLAGS: FINE GRAINED" under the GPU
		 * exactly when this reads 1. */
		*pi = n->hive_id != 0;
		return 0;
	case hipDeviceAttributeImageSupport:
		/* textures need image instructions, which gfx940 and later lack (texture.c) */
		*pi = n->gfx_target_version < 90400;
		return 0;
	default:
		return -1;
	}
}

hipError_t hipDeviceGetAttribute(int *pi, hipDeviceAttribute_t attr, int device)
{
	if (!pi)
		HIP_RETURN(hipErrorInvalidValue);
	struct hip_device *d = hip_device_peek(device);
	if (!d)
		HIP_RETURN(hip_init_error() ?: hipErrorInvalidDevice);
	const struct attr_entry *e = attr_find(attr);
	if (!e)
		HIP_RETURN(hipErrorInvalidValue);

	hipDeviceProp_tR0600 p;
	switch (e->kind) {
	case A_CONST:
		*pi = e->value;
		break;
	case A_SPECIAL:
		if (attr_special(d, attr, pi) != 0)
			HIP_RETURN(hipErrorInvalidValue);
		break;
	case A_INT:
		hip_device_props(d, &p);
		*pi = *(const int *)((const char *)&p + e->offset);
		break;
	case A_SIZE: {
		hip_device_props(d, &p);
		size_t v = *(const size_t *)((const char *)&p + e->offset);
		*pi = v > INT_MAX ? INT_MAX : (int)v;
		break;
	}
	}
	HIP_RETURN(hipSuccess);
}
