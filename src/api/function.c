/*
 * Function queries and settings: hipFuncGetAttributes/GetAttribute/SetAttribute/SetCacheConfig/
 * SetSharedMemConfig, kernel names, hipModuleGetFunctionCount, hipModuleLoadFatBinary and
 * hipLaunchKernelExC. Attribute values follow clr (hip_platform.cpp getStatFuncAttr): they come
 * from the kernel's metadata on the current device.
 */
#include <errno.h>
#include <string.h>

#include "../runtime/error.h"
#include "loader_api.h"
#include "../runtime/runtime.h"
#include "../kfd/kfd.h"

static hipError_t kernel_on_current(hipFunction_t f, struct hip_device **d, struct hip_kernel_ref *ref)
{
  if (!(*d = hip_device_current()))
    return hipErrorNoDevice;
  int err = hip_function_resolve(f, *d, ref);
  if (err == -ENOENT)
    return hipErrorNoBinaryForGpu;
  return err ? hipErrorInvalidDeviceFunction : hipSuccess;
}

static void fill_attributes(const struct hip_device *d, const struct hip_kernel_ref *ref,
                            hipFuncAttributes *attr)
{
  const struct loader_kernel *k = ref->kernel;
  int lds = (int)d->node->lds_size_in_kb * 1024;
  memset(attr, 0, sizeof(*attr));
  /* "Versions" as clr reports them: the gfx major*10 + minor of the target. */
  attr->binaryVersion = (int)(d->node->gfx_target_version / 10000 * 10 +
                              (d->node->gfx_target_version / 100) % 100);
  attr->ptxVersion = attr->binaryVersion;
  attr->localSizeBytes = k->private_segment_fixed_size;
  attr->sharedSizeBytes = k->group_segment_fixed_size;
  attr->maxDynamicSharedSizeBytes = lds - (int)k->group_segment_fixed_size;
  attr->maxThreadsPerBlock = (int)k->max_flat_workgroup_size;
  attr->numRegs = (int)k->vgpr_count;
}

hipError_t hipFuncGetAttributes(hipFuncAttributes *attr, const void *func)
{
  struct hip_device *d;
  struct hip_kernel_ref ref;
  if (!attr)
    HIP_RETURN(hipErrorInvalidValue);
  struct ihipModuleSymbol_t *f = func ? hip_registered_function(func) : NULL;
  if (!f)
    HIP_RETURN(hipErrorInvalidDeviceFunction);
  HIP_RETURN_IF_ERROR(kernel_on_current(f, &d, &ref));
  fill_attributes(d, &ref, attr);
  HIP_RETURN(hipSuccess);
}

hipError_t hipFuncGetAttribute(int *value, hipFunction_attribute attrib, hipFunction_t hfunc)
{
  struct hip_device *d;
  struct hip_kernel_ref ref;
  hipFuncAttributes a;

  if (!value)
    HIP_RETURN(hipErrorInvalidValue);
  if (!hip_function_valid(hfunc))
    HIP_RETURN(hipErrorInvalidHandle);
  HIP_RETURN_IF_ERROR(kernel_on_current(hfunc, &d, &ref));
  fill_attributes(d, &ref, &a);
  switch (attrib) {
  case HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *value = a.maxThreadsPerBlock; break;
  case HIP_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES: *value = (int)a.sharedSizeBytes; break;
  case HIP_FUNC_ATTRIBUTE_CONST_SIZE_BYTES: *value = (int)a.constSizeBytes; break;
  case HIP_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES: *value = (int)a.localSizeBytes; break;
  case HIP_FUNC_ATTRIBUTE_NUM_REGS: *value = a.numRegs; break;
  case HIP_FUNC_ATTRIBUTE_PTX_VERSION: *value = a.ptxVersion; break;
  case HIP_FUNC_ATTRIBUTE_BINARY_VERSION: *value = a.binaryVersion; break;
  case HIP_FUNC_ATTRIBUTE_CACHE_MODE_CA: *value = a.cacheModeCA; break;
  case HIP_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: *value = a.maxDynamicSharedSizeBytes; break;
  case HIP_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT: *value = hfunc->preferred_carveout; break;
  default: HIP_RETURN(hipErrorInvalidValue);
  }
  HIP_RETURN(hipSuccess);
}

hipError_t hipFuncSetAttribute(const void *func, hipFuncAttribute attr, int value)
{
  struct hip_device *d;
  struct hip_kernel_ref ref;
  struct ihipModuleSymbol_t *f = func ? hip_registered_function(func) : NULL;
  if (!f)
    HIP_RETURN(hipErrorInvalidDeviceFunction);
  HIP_RETURN_IF_ERROR(kernel_on_current(f, &d, &ref));
  switch (attr) {
  case hipFuncAttributeMaxDynamicSharedMemorySize:
    if (value < 0 || value > (int)(d->node->lds_size_in_kb * 1024 - ref.kernel->group_segment_fixed_size))
      HIP_RETURN(hipErrorInvalidValue);
    f->max_dynamic_shared = value;
    break;
  case hipFuncAttributePreferredSharedMemoryCarveout:
    if (value < -1 || value > 100)
      HIP_RETURN(hipErrorInvalidValue);
    f->preferred_carveout = value;
    break;
  default:
    HIP_RETURN(hipErrorInvalidValue);
  }
  HIP_RETURN(hipSuccess);
}

/* Cache and bank configuration have no effect on gfx9 (fixed L1/LDS split, 4-byte banks); the
 * calls validate their arguments as clr does and succeed. */
hipError_t hipFuncSetCacheConfig(const void *func, hipFuncCache_t config)
{
  if (!func || !hip_registered_function(func))
    HIP_RETURN(hipErrorInvalidDeviceFunction);
  if (config != hipFuncCachePreferNone && config != hipFuncCachePreferShared &&
      config != hipFuncCachePreferL1 && config != hipFuncCachePreferEqual)
    HIP_RETURN(hipErrorInvalidValue);
  HIP_RETURN(hipSuccess);
}

hipError_t hipFuncSetSharedMemConfig(const void *func, hipSharedMemConfig config)
{
  if (!func || !hip_registered_function(func))
    HIP_RETURN(hipErrorInvalidDeviceFunction);
  if (config != hipSharedMemBankSizeDefault && config != hipSharedMemBankSizeFourByte &&
      config != hipSharedMemBankSizeEightByte)
    HIP_RETURN(hipErrorInvalidValue);
  HIP_RETURN(hipSuccess);
}

const char *hipKernelNameRef(const hipFunction_t f)
{
  return hip_function_valid(f) ? f->name : NULL;
}

const char *hipKernelNameRefByPtr(const void *hostFunction, hipStream_t stream)
{
  (void)stream;
  struct ihipModuleSymbol_t *f = hostFunction ? hip_registered_function(hostFunction) : NULL;
  return f ? f->name : NULL;
}

hipError_t hipModuleGetFunctionCount(unsigned int *count, hipModule_t mod)
{
  struct module_device *md;
  struct hip_device *d;
  if (!count)
    HIP_RETURN(hipErrorInvalidValue);
  if (!hip_module_valid(mod))
    HIP_RETURN(hipErrorInvalidResourceHandle);
  if (!(d = hip_device_current()))
    HIP_RETURN(hipErrorNoDevice);
  int err = hip_module_on_device(mod, d, &md);
  if (err)
    HIP_RETURN(err == -ENOENT ? hipErrorNoBinaryForGpu : hipErrorInvalidImage);
  *count = md->co->nkernels;
  HIP_RETURN(hipSuccess);
}

hipError_t hipModuleLoadFatBinary(hipModule_t *module, const void *fatbin)
{
  /* A fat binary is an offload bundle (plain or compressed): hipModuleLoadData reads both. */
  return hipModuleLoadData(module, fatbin);
}

hipError_t hipLaunchKernelExC(const hipLaunchConfig_t *config, const void *fPtr, void **args)
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
  struct ihipModuleSymbol_t *f = fPtr ? hip_registered_function(fPtr) : NULL;
  if (!f)
    HIP_RETURN(hipErrorInvalidDeviceFunction);
  if (config->dynamicSmemBytes > UINT32_MAX)
    HIP_RETURN(hipErrorInvalidValue);
  struct hip_launch l = {.function = f, .grid = config->gridDim, .block = config->blockDim,
                         .shared_mem = (uint32_t)config->dynamicSmemBytes,
                         .stream = config->stream, .args = args, .cooperative = cooperative};
  HIP_RETURN(hip_launch(&l));
}
