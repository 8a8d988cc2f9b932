/* hipkfd: AMD extensions to the launch API: the hipExtLaunchKernelGGL template over
 * hipExtLaunchKernel (launch with start/stop events and flags). */
#ifndef HIPKFD_HIP_EXT_H
#define HIPKFD_HIP_EXT_H

#include <hip/hip_runtime.h>

#if defined(__cplusplus)
#include <cstdint>
#include <tuple>
#include <utility>

/* hipExtModuleLaunchKernel and hipHccModuleLaunchKernel (grid sized in work-items, optional
 * start/stop events) are declared with the rest of the host API in hip_runtime_api.h, without
 * default arguments so that C can call them. AMD's hip_ext.h gives the events and flags
 * defaults: this C++ redeclaration adds them. */
extern "C" {
hipError_t hipExtModuleLaunchKernel(hipFunction_t f, uint32_t globalWorkSizeX,
                                    uint32_t globalWorkSizeY, uint32_t globalWorkSizeZ,
                                    uint32_t localWorkSizeX, uint32_t localWorkSizeY,
                                    uint32_t localWorkSizeZ, size_t sharedMemBytes,
                                    hipStream_t hStream, void **kernelParams, void **extra,
                                    hipEvent_t startEvent = nullptr,
                                    hipEvent_t stopEvent = nullptr, uint32_t flags = 0);
hipError_t hipHccModuleLaunchKernel(hipFunction_t f, uint32_t globalWorkSizeX,
                                    uint32_t globalWorkSizeY, uint32_t globalWorkSizeZ,
                                    uint32_t localWorkSizeX, uint32_t localWorkSizeY,
                                    uint32_t localWorkSizeZ, size_t sharedMemBytes,
                                    hipStream_t hStream, void **kernelParams, void **extra,
                                    hipEvent_t startEvent = nullptr,
                                    hipEvent_t stopEvent = nullptr);
}

namespace hipkfd_detail {
/* The argument array of a launch: each argument converted to the kernel's parameter type, then
 * addressed (hipExtLaunchKernel copies the values before returning). */
template <class Tuple, std::size_t... I>
inline hipError_t ext_launch(const void *kernel, const dim3 &blocks, const dim3 &threads,
                             uint32_t shmem, hipStream_t stream, hipEvent_t start,
                             hipEvent_t stop, uint32_t flags, Tuple &params,
                             std::index_sequence<I...>) {
  void *argv[sizeof...(I) + 1] = {static_cast<void *>(&std::get<I>(params))..., nullptr};
  return hipExtLaunchKernel(kernel, blocks, threads, argv, shmem, stream, start, stop, (int)flags);
}
} // namespace hipkfd_detail

template <class... Params, class... Args>
inline void hipExtLaunchKernelGGL(void (*kernel)(Params...), const dim3 &numBlocks,
                                  const dim3 &dimBlocks, uint32_t sharedMemBytes,
                                  hipStream_t stream, hipEvent_t startEvent, hipEvent_t stopEvent,
                                  uint32_t flags, Args &&...args) {
  static_assert(sizeof...(Params) == sizeof...(Args), "kernel argument count mismatch");
  std::tuple<Params...> params(std::forward<Args>(args)...);
  (void)hipkfd_detail::ext_launch((const void *)kernel, numBlocks, dimBlocks, sharedMemBytes,
                                  stream, startEvent, stopEvent, flags, params,
                                  std::index_sequence_for<Params...>());
}
#endif /* __cplusplus */

#endif /* HIPKFD_HIP_EXT_H */
