/* Struct sizes and field offsets of hipkfd's headers against the numbers of AMD's own HIP 6.x and
 * 7.x headers, for binaries built by ROCm 6/7 (no such toolchain is at hand here, so the layout is
 * the whole contract). Compiled by ctest (abi_layout_rocm67): a wrong layout fails the build of
 * this file with the struct and field named.
 *
 * Source of the numbers: AMD's include/hip/hip_runtime_api.h and driver_types.h of ROCm/HIP tag
 * rocm-6.0.0 and of ROCm/HIP at 2024-10-16 (c5e11fc, ROCm 6.3), compiled for x86-64 with gcc and
 * __HIP_PLATFORM_AMD__, sizeof/offsetof printed; lines marked "6.3 only" name members ROCm 6.0
 * did not have yet (hipGraphNodeParams and friends, hipMemPoolProps.maxSize). The ROCm 7 values
 * are from ROCm/rocm-systems projects/hip/include/hip/hip_runtime_api.h (003a5d1): the structs
 * below read the same there, and hipLaunchAttributeValue grew to 64 bytes (char pad[64], as
 * CUDA's cudaLaunchAttributeValue). Numbers only: nothing of AMD's text is here. */
#include <hip/hip_runtime_api.h>
#include <stddef.h>

#define SIZE(T, n) _Static_assert(sizeof(T) == (n), "sizeof " #T " != " #n " (AMD 6.x/7.x)")
#define OFF(T, m, n) \
  _Static_assert(offsetof(T, m) == (n), "offsetof " #T "." #m " != " #n " (AMD 6.x/7.x)")

SIZE(hipDeviceProp_tR0600, 1472);
OFF(hipDeviceProp_tR0600, totalGlobalMem, 288);
OFF(hipDeviceProp_tR0600, uuid, 256);
OFF(hipDeviceProp_tR0600, luid, 272);
OFF(hipDeviceProp_tR0600, sharedMemPerBlock, 296);
OFF(hipDeviceProp_tR0600, warpSize, 308);
OFF(hipDeviceProp_tR0600, maxGridSize, 336);
OFF(hipDeviceProp_tR0600, clockRate, 348);
OFF(hipDeviceProp_tR0600, major, 360);
OFF(hipDeviceProp_tR0600, multiProcessorCount, 388);
OFF(hipDeviceProp_tR0600, maxTexture1D, 408);
OFF(hipDeviceProp_tR0600, maxSurfaceCubemapLayered, 560);
OFF(hipDeviceProp_tR0600, ECCEnabled, 580);
OFF(hipDeviceProp_tR0600, pciBusID, 584);
OFF(hipDeviceProp_tR0600, memoryClockRate, 608);
OFF(hipDeviceProp_tR0600, l2CacheSize, 616);
OFF(hipDeviceProp_tR0600, persistingL2CacheMaxSize, 620);
OFF(hipDeviceProp_tR0600, managedMemory, 652);
OFF(hipDeviceProp_tR0600, hostRegisterSupported, 728);
OFF(hipDeviceProp_tR0600, reserved, 780);
OFF(hipDeviceProp_tR0600, hipReserved, 1032);
OFF(hipDeviceProp_tR0600, gcnArchName, 1160);
OFF(hipDeviceProp_tR0600, maxSharedMemoryPerMultiProcessor, 1416);
OFF(hipDeviceProp_tR0600, clockInstructionRate, 1424);
OFF(hipDeviceProp_tR0600, arch, 1428);
OFF(hipDeviceProp_tR0600, hdpMemFlushCntl, 1432);
OFF(hipDeviceProp_tR0600, cooperativeMultiDeviceUnmatchedFunc, 1448);
OFF(hipDeviceProp_tR0600, isLargeBar, 1464);
OFF(hipDeviceProp_tR0600, asicRevision, 1468);
SIZE(hipPointerAttribute_t, 32);
OFF(hipPointerAttribute_t, type, 0);
OFF(hipPointerAttribute_t, device, 4);
OFF(hipPointerAttribute_t, devicePointer, 8);
OFF(hipPointerAttribute_t, hostPointer, 16);
OFF(hipPointerAttribute_t, isManaged, 24);
OFF(hipPointerAttribute_t, allocationFlags, 28);
SIZE(hipKernelNodeParams, 64);
OFF(hipKernelNodeParams, blockDim, 0);
OFF(hipKernelNodeParams, extra, 16);
OFF(hipKernelNodeParams, func, 24);
OFF(hipKernelNodeParams, gridDim, 32);
OFF(hipKernelNodeParams, kernelParams, 48);
OFF(hipKernelNodeParams, sharedMemBytes, 56);
SIZE(hipMemsetParams, 48);
OFF(hipMemsetParams, dst, 0);
OFF(hipMemsetParams, elementSize, 8);
OFF(hipMemsetParams, height, 16);
OFF(hipMemsetParams, pitch, 24);
OFF(hipMemsetParams, value, 32);
OFF(hipMemsetParams, width, 40);
SIZE(hipMemcpy3DParms, 160);
OFF(hipMemcpy3DParms, srcArray, 0);
OFF(hipMemcpy3DParms, srcPos, 8);
OFF(hipMemcpy3DParms, srcPtr, 32);
OFF(hipMemcpy3DParms, dstArray, 64);
OFF(hipMemcpy3DParms, dstPos, 72);
OFF(hipMemcpy3DParms, dstPtr, 96);
OFF(hipMemcpy3DParms, extent, 128);
OFF(hipMemcpy3DParms, kind, 152);
SIZE(HIP_MEMCPY3D, 184);
OFF(HIP_MEMCPY3D, srcMemoryType, 32);
OFF(HIP_MEMCPY3D, srcHost, 40);
OFF(HIP_MEMCPY3D, srcPitch, 64);
OFF(HIP_MEMCPY3D, dstXInBytes, 80);
OFF(HIP_MEMCPY3D, dstMemoryType, 112);
OFF(HIP_MEMCPY3D, WidthInBytes, 160);
OFF(HIP_MEMCPY3D, Depth, 176);
SIZE(hip_Memcpy2D, 128);
OFF(hip_Memcpy2D, srcMemoryType, 16);
OFF(hip_Memcpy2D, dstMemoryType, 72);
OFF(hip_Memcpy2D, Height, 120);
SIZE(hipAccessPolicyWindow, 32);
SIZE(hipExternalMemoryHandleDesc, 104);
OFF(hipExternalMemoryHandleDesc, handle, 8);
OFF(hipExternalMemoryHandleDesc, size, 24);
OFF(hipExternalMemoryHandleDesc, flags, 32);
SIZE(hipExternalMemoryBufferDesc, 88);
OFF(hipExternalMemoryBufferDesc, flags, 16);
SIZE(hipExternalSemaphoreHandleDesc, 96);
OFF(hipExternalSemaphoreHandleDesc, flags, 24);
SIZE(hipExternalSemaphoreSignalParams, 144);
OFF(hipExternalSemaphoreSignalParams, params.keyedMutex, 16);
OFF(hipExternalSemaphoreSignalParams, flags, 72);
SIZE(hipExternalSemaphoreWaitParams, 144);
OFF(hipExternalSemaphoreWaitParams, params.keyedMutex.timeoutMs, 24);
OFF(hipExternalSemaphoreWaitParams, flags, 72);
SIZE(hipMemPoolProps, 88);
OFF(hipMemPoolProps, location, 8);
OFF(hipMemPoolProps, win32SecurityAttributes, 16);
OFF(hipMemPoolProps, maxSize, 24);  /* 6.3 only */
OFF(hipMemPoolProps, reserved, 32);  /* 6.3 only */
SIZE(hipMemAllocationProp, 32);
OFF(hipMemAllocationProp, requestedHandleType, 4);
OFF(hipMemAllocationProp, location, 8);
OFF(hipMemAllocationProp, win32HandleMetaData, 16);
OFF(hipMemAllocationProp, allocFlags, 24);
SIZE(hipGraphNodeParams, 256);  /* 6.3 only */
OFF(hipGraphNodeParams, type, 0);  /* 6.3 only */
OFF(hipGraphNodeParams, reserved0, 4);  /* 6.3 only */
OFF(hipGraphNodeParams, kernel, 16);  /* 6.3 only */
OFF(hipGraphNodeParams, reserved2, 248);  /* 6.3 only */
SIZE(hipHostNodeParams, 16);  /* 6.3 only */
OFF(hipHostNodeParams, userData, 8);  /* 6.3 only */
SIZE(hipMemAllocNodeParams, 120);  /* 6.3 only */
OFF(hipMemAllocNodeParams, accessDescs, 88);  /* 6.3 only */
OFF(hipMemAllocNodeParams, bytesize, 104);  /* 6.3 only */
OFF(hipMemAllocNodeParams, dptr, 112);  /* 6.3 only */
SIZE(hipMemcpyNodeParams, 176);  /* 6.3 only */
OFF(hipMemcpyNodeParams, copyParams, 16);  /* 6.3 only */
SIZE(hipFuncAttributes, 56);
SIZE(hipArrayMapInfo, 152);
SIZE(hipMemLocation, 8);
SIZE(hipMemAccessDesc, 12);
SIZE(hipResourceDesc, 64);
SIZE(hipTextureDesc, 64);
SIZE(hipIpcMemHandle_t, 64);
SIZE(hipChannelFormatDesc, 20);
SIZE(HIP_ARRAY3D_DESCRIPTOR, 40);
SIZE(hipExtent, 24);
SIZE(hipPitchedPtr, 32);
SIZE(hipUUID, 16);
SIZE(hipDeviceArch_t, 4);

/* ROCm 7.0: 64 bytes (ROCm 6.3: 32, the size of hipAccessPolicyWindow). */
SIZE(hipLaunchAttributeValue, 64);
OFF(hipLaunchAttributeValue, accessPolicyWindow, 0);
OFF(hipLaunchAttributeValue, clusterDim, 0);
OFF(hipLaunchAttributeValue, dynDataPrefetch, 0);

/* The extensible launch of ROCm 7 (hipLaunchKernelExC, hipDrvLaunchKernelEx), from the same
 * 7.x header (003a5d1): the attribute is its 4-byte id, 4 bytes of padding and the 64-byte value;
 * both configurations end in the attribute list and its length. */
SIZE(hipLaunchAttribute, 72);
OFF(hipLaunchAttribute, id, 0);
OFF(hipLaunchAttribute, val, 8);
OFF(hipLaunchAttribute, value, 8);
SIZE(hipLaunchConfig_t, 56);
OFF(hipLaunchConfig_t, gridDim, 0);
OFF(hipLaunchConfig_t, blockDim, 12);
OFF(hipLaunchConfig_t, dynamicSmemBytes, 24);
OFF(hipLaunchConfig_t, stream, 32);
OFF(hipLaunchConfig_t, attrs, 40);
OFF(hipLaunchConfig_t, numAttrs, 48);
SIZE(HIP_LAUNCH_CONFIG, 56);
OFF(HIP_LAUNCH_CONFIG, gridDimX, 0);
OFF(HIP_LAUNCH_CONFIG, blockDimX, 12);
OFF(HIP_LAUNCH_CONFIG, sharedMemBytes, 24);
OFF(HIP_LAUNCH_CONFIG, hStream, 32);
OFF(HIP_LAUNCH_CONFIG, attrs, 40);
OFF(HIP_LAUNCH_CONFIG, numAttrs, 48);
SIZE(hipExtDynDataPrefetchRegion, 32);
OFF(hipExtDynDataPrefetchRegion, height, 24);
SIZE(hipExtDynDataPrefetchConfig, 72);
OFF(hipExtDynDataPrefetchConfig, temporal, 4);
OFF(hipExtDynDataPrefetchConfig, regions, 8);

/* The attribute ids are values in those structs: ROCm 7's numbering (6 and 7 are unused, and the
 * prefetch extension sits at 1024). */
#define VAL(e, n) _Static_assert((e) == (n), #e " != " #n " (AMD 7.x)")
VAL(hipLaunchAttributeIgnore, 0);
VAL(hipLaunchAttributeAccessPolicyWindow, 1);
VAL(hipLaunchAttributeCooperative, 2);
VAL(hipLaunchAttributeSynchronizationPolicy, 3);
VAL(hipLaunchAttributeClusterDimension, 4);
VAL(hipLaunchAttributeClusterSchedulingPolicyPreference, 5);
VAL(hipLaunchAttributePriority, 8);
VAL(hipLaunchAttributeMemSyncDomainMap, 9);
VAL(hipLaunchAttributeMemSyncDomain, 10);
VAL(hipLaunchAttributeExtDynDataPrefetch, 1024);
VAL(hipSyncPolicyAuto, 1);
VAL(hipSyncPolicyBlockingSync, 4);
VAL(hipClusterSchedulingPolicyLoadBalancing, 2);

int main(void)
{
  return 0;
}
