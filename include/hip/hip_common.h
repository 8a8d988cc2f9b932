/* hipkfd: platform selection and export macros shared by every HIP header.
 *
 * hipkfd only implements the AMD platform. Compiling with clang in HIP mode, or with any host
 * compiler through the C API, selects __HIP_PLATFORM_AMD__ (and its older alias) unless the
 * user already chose NVIDIA, which this tree cannot serve. */
#ifndef HIP_INCLUDE_HIP_HIP_COMMON_H
#define HIP_INCLUDE_HIP_HIP_COMMON_H

#if defined(__HIP_PLATFORM_NVIDIA__) || defined(__HIP_PLATFORM_NVCC__)
#error "hipkfd implements only the AMD platform (__HIP_PLATFORM_AMD__)"
#endif

#ifndef __HIP_PLATFORM_AMD__
#define __HIP_PLATFORM_AMD__ 1
#endif
#ifndef __HIP_PLATFORM_HCC__
#define __HIP_PLATFORM_HCC__ 1 /* pre-ROCm-5 spelling, still tested by old code */
#endif

/* Device-side compilation pass of clang's HIP mode: clang defines __HIP_DEVICE_COMPILE__ there
 * and only there. (__AMDGCN__ cannot tell the passes apart: clang defines the offload target's
 * macros in the host pass too.) */
#if defined(__HIP_DEVICE_COMPILE__) && !__HIP_DEVICE_COMPILE__
#undef __HIP_DEVICE_COMPILE__
#endif
#if defined(__HIP__) && !defined(__HIPCC__)
#define __HIPCC__ 1
#endif

#if defined(__GNUC__)
#define HIP_PUBLIC_API __attribute__((visibility("default")))
#define HIP_INTERNAL_EXPORTED_API __attribute__((visibility("default")))
#else
#define HIP_PUBLIC_API
#define HIP_INTERNAL_EXPORTED_API
#endif

/* Feature macros for host code: no device features on the host side. The device pass gets its
 * values from the kernel-language headers (hip_runtime.h). */
#if !defined(__HIP_DEVICE_COMPILE__)
#define __HIP_ARCH_HAS_GLOBAL_INT32_ATOMICS__ 0
#define __HIP_ARCH_HAS_GLOBAL_FLOAT_ATOMIC_EXCH__ 0
#define __HIP_ARCH_HAS_SHARED_INT32_ATOMICS__ 0
#define __HIP_ARCH_HAS_SHARED_FLOAT_ATOMIC_EXCH__ 0
#define __HIP_ARCH_HAS_FLOAT_ATOMIC_ADD__ 0
#define __HIP_ARCH_HAS_GLOBAL_INT64_ATOMICS__ 0
#define __HIP_ARCH_HAS_SHARED_INT64_ATOMICS__ 0
#define __HIP_ARCH_HAS_DOUBLES__ 0
#define __HIP_ARCH_HAS_WARP_VOTE__ 0
#define __HIP_ARCH_HAS_WARP_BALLOT__ 0
#define __HIP_ARCH_HAS_WARP_SHUFFLE__ 0
#define __HIP_ARCH_HAS_WARP_FUNNEL_SHIFT__ 0
#define __HIP_ARCH_HAS_THREAD_FENCE_SYSTEM__ 0
#define __HIP_ARCH_HAS_SYNC_THREAD_EXT__ 0
#define __HIP_ARCH_HAS_SURFACE_FUNCS__ 0
#define __HIP_ARCH_HAS_3DGRID__ 0
#define __HIP_ARCH_HAS_DYNAMIC_PARALLEL__ 0
#endif

#endif
