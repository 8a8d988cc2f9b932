/* hipkfd ABI test: prints the layout of the ABI structs and the value of the enumerators that
 * hipkfd's headers and Debian's ROCm 5.2.3 headers both define. Built twice, once against each
 * header set (HIPKFD_PROBE_OURS selects the spelling where a member was renamed), so that
 * check_layout.cmake can compare the outputs. */
#include <hip/hip_runtime_api.h>
#include <stddef.h>
#include <stdio.h>

#ifdef __HIPKFD__
#define PROP_R0000 hipDeviceProp_tR0000
#define PTRATTR_TYPE type
#else
#define PROP_R0000 hipDeviceProp_t
#define PTRATTR_TYPE memoryType
#endif

#define SIZE(T) printf("sizeof %s %zu\n", #T, sizeof(T))
#define OFF(T, m) printf("offsetof %s.%s %zu\n", #T, #m, offsetof(T, m))
#define ENUM(e) printf("enum %s %lld\n", #e, (long long)(e))

static void device_props(void) {
  SIZE(PROP_R0000);
  OFF(PROP_R0000, totalGlobalMem);
  OFF(PROP_R0000, sharedMemPerBlock);
  OFF(PROP_R0000, regsPerBlock);
  OFF(PROP_R0000, warpSize);
  OFF(PROP_R0000, maxThreadsPerBlock);
  OFF(PROP_R0000, maxThreadsDim);
  OFF(PROP_R0000, maxGridSize);
  OFF(PROP_R0000, clockRate);
  OFF(PROP_R0000, memoryClockRate);
  OFF(PROP_R0000, memoryBusWidth);
  OFF(PROP_R0000, totalConstMem);
  OFF(PROP_R0000, major);
  OFF(PROP_R0000, minor);
  OFF(PROP_R0000, multiProcessorCount);
  OFF(PROP_R0000, l2CacheSize);
  OFF(PROP_R0000, maxThreadsPerMultiProcessor);
  OFF(PROP_R0000, computeMode);
  OFF(PROP_R0000, clockInstructionRate);
  OFF(PROP_R0000, arch);
  OFF(PROP_R0000, concurrentKernels);
  OFF(PROP_R0000, pciDomainID);
  OFF(PROP_R0000, pciBusID);
  OFF(PROP_R0000, pciDeviceID);
  OFF(PROP_R0000, maxSharedMemoryPerMultiProcessor);
  OFF(PROP_R0000, isMultiGpuBoard);
  OFF(PROP_R0000, canMapHostMemory);
  OFF(PROP_R0000, gcnArch);
  OFF(PROP_R0000, gcnArchName);
  OFF(PROP_R0000, integrated);
  OFF(PROP_R0000, cooperativeLaunch);
  OFF(PROP_R0000, cooperativeMultiDeviceLaunch);
  OFF(PROP_R0000, maxTexture1DLinear);
  OFF(PROP_R0000, maxTexture1D);
  OFF(PROP_R0000, maxTexture2D);
  OFF(PROP_R0000, maxTexture3D);
  OFF(PROP_R0000, hdpMemFlushCntl);
  OFF(PROP_R0000, hdpRegFlushCntl);
  OFF(PROP_R0000, memPitch);
  OFF(PROP_R0000, textureAlignment);
  OFF(PROP_R0000, texturePitchAlignment);
  OFF(PROP_R0000, kernelExecTimeoutEnabled);
  OFF(PROP_R0000, ECCEnabled);
  OFF(PROP_R0000, tccDriver);
  OFF(PROP_R0000, cooperativeMultiDeviceUnmatchedFunc);
  OFF(PROP_R0000, cooperativeMultiDeviceUnmatchedGridDim);
  OFF(PROP_R0000, cooperativeMultiDeviceUnmatchedBlockDim);
  OFF(PROP_R0000, cooperativeMultiDeviceUnmatchedSharedMem);
  OFF(PROP_R0000, isLargeBar);
  OFF(PROP_R0000, asicRevision);
  OFF(PROP_R0000, managedMemory);
  OFF(PROP_R0000, directManagedMemAccessFromHost);
  OFF(PROP_R0000, concurrentManagedAccess);
  OFF(PROP_R0000, pageableMemoryAccess);
  OFF(PROP_R0000, pageableMemoryAccessUsesHostPageTables);
  SIZE(hipDeviceArch_t);
}

static void memory_types(void) {
  SIZE(hipPointerAttribute_t);
  OFF(hipPointerAttribute_t, PTRATTR_TYPE);
  OFF(hipPointerAttribute_t, device);
  OFF(hipPointerAttribute_t, devicePointer);
  OFF(hipPointerAttribute_t, hostPointer);
  OFF(hipPointerAttribute_t, isManaged);
  OFF(hipPointerAttribute_t, allocationFlags);
  SIZE(hipChannelFormatDesc);
  OFF(hipChannelFormatDesc, f);
  SIZE(HIP_ARRAY_DESCRIPTOR);
  OFF(HIP_ARRAY_DESCRIPTOR, Format);
  OFF(HIP_ARRAY_DESCRIPTOR, NumChannels);
  SIZE(HIP_ARRAY3D_DESCRIPTOR);
  OFF(HIP_ARRAY3D_DESCRIPTOR, Depth);
  OFF(HIP_ARRAY3D_DESCRIPTOR, Flags);
  SIZE(hip_Memcpy2D);
  OFF(hip_Memcpy2D, dstMemoryType);
  OFF(hip_Memcpy2D, srcMemoryType);
  OFF(hip_Memcpy2D, srcArray);
  OFF(hip_Memcpy2D, dstXInBytes);
  OFF(hip_Memcpy2D, dstPitch);
  OFF(hip_Memcpy2D, Height);
  SIZE(hipMipmappedArray);
  OFF(hipMipmappedArray, desc);
  OFF(hipMipmappedArray, max_mipmap_level);
  SIZE(hipResourceDesc);
  OFF(hipResourceDesc, res.linear.sizeInBytes);
  OFF(hipResourceDesc, res.pitch2D.pitchInBytes);
  SIZE(HIP_RESOURCE_DESC);
  OFF(HIP_RESOURCE_DESC, res.pitch2D.pitchInBytes);
  OFF(HIP_RESOURCE_DESC, flags);
  SIZE(struct hipResourceViewDesc);
  OFF(struct hipResourceViewDesc, lastLayer);
  SIZE(HIP_RESOURCE_VIEW_DESC);
  OFF(HIP_RESOURCE_VIEW_DESC, reserved);
  SIZE(HIP_TEXTURE_DESC);
  OFF(HIP_TEXTURE_DESC, borderColor);
  OFF(HIP_TEXTURE_DESC, reserved);
  SIZE(hipPitchedPtr);
  SIZE(hipExtent);
  SIZE(hipPos);
  SIZE(hipMemcpy3DParms);
  OFF(hipMemcpy3DParms, dstArray);
  OFF(hipMemcpy3DParms, extent);
  OFF(hipMemcpy3DParms, kind);
  SIZE(HIP_MEMCPY3D);
  OFF(HIP_MEMCPY3D, srcMemoryType);
  OFF(HIP_MEMCPY3D, srcPitch);
  OFF(HIP_MEMCPY3D, dstXInBytes);
  OFF(HIP_MEMCPY3D, dstLOD);
  OFF(HIP_MEMCPY3D, dstMemoryType);
  OFF(HIP_MEMCPY3D, dstPitch);
  OFF(HIP_MEMCPY3D, WidthInBytes);
  OFF(HIP_MEMCPY3D, Depth);
  SIZE(textureReference);
  OFF(textureReference, channelDesc);
  OFF(textureReference, sRGB);
  OFF(textureReference, textureObject);
  OFF(textureReference, format);
  SIZE(hipTextureDesc);
  OFF(hipTextureDesc, borderColor);
  OFF(hipTextureDesc, maxMipmapLevelClamp);
  SIZE(hipIpcMemHandle_t);
  SIZE(hipIpcEventHandle_t);
  SIZE(hipUUID);
}

static void launch_and_interop_types(void) {
  SIZE(hipFuncAttributes);
  OFF(hipFuncAttributes, constSizeBytes);
  OFF(hipFuncAttributes, maxDynamicSharedSizeBytes);
  OFF(hipFuncAttributes, sharedSizeBytes);
  SIZE(dim3);
  SIZE(hipLaunchParams);
  OFF(hipLaunchParams, args);
  OFF(hipLaunchParams, stream);
  SIZE(hipExternalMemoryHandleDesc);
  OFF(hipExternalMemoryHandleDesc, handle);
  OFF(hipExternalMemoryHandleDesc, size);
  OFF(hipExternalMemoryHandleDesc, flags);
  SIZE(hipExternalMemoryBufferDesc);
  OFF(hipExternalMemoryBufferDesc, flags);
  SIZE(hipExternalSemaphoreHandleDesc);
  OFF(hipExternalSemaphoreHandleDesc, flags);
  SIZE(hipExternalSemaphoreSignalParams);
  OFF(hipExternalSemaphoreSignalParams, params.keyedMutex);
  OFF(hipExternalSemaphoreSignalParams, flags);
  SIZE(hipExternalSemaphoreWaitParams);
  OFF(hipExternalSemaphoreWaitParams, params.keyedMutex.timeoutMs);
  OFF(hipExternalSemaphoreWaitParams, flags);
  SIZE(hipHostNodeParams);
  SIZE(hipKernelNodeParams);
  OFF(hipKernelNodeParams, func);
  OFF(hipKernelNodeParams, gridDim);
  OFF(hipKernelNodeParams, sharedMemBytes);
  SIZE(hipMemsetParams);
  OFF(hipMemsetParams, value);
  OFF(hipMemsetParams, width);
  SIZE(hipAccessPolicyWindow);
  SIZE(hipMemPoolProps);
  OFF(hipMemPoolProps, location);
  OFF(hipMemPoolProps, win32SecurityAttributes);
  SIZE(hipMemPoolPtrExportData);
  SIZE(hipMemAccessDesc);
  SIZE(hipMemLocation);
  SIZE(hipMemAllocationProp);
  OFF(hipMemAllocationProp, location);
  SIZE(hipArrayMapInfo);
  OFF(hipArrayMapInfo, subresource);
  OFF(hipArrayMapInfo, memHandle);
  OFF(hipArrayMapInfo, deviceBitMask);
}

int main(void) {
  device_props();
  memory_types();
  launch_and_interop_types();
#include "layout_enums.inc"
  return 0;
}
