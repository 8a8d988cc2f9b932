/* hipkfd: the HIP kernel language for clang's HIP mode, gathered: index built-ins, warpSize,
 * synchronisation, fences, atomics, warp functions, integer intrinsics, timers, device
 * printf/assert/abort, dynamic shared memory and the launch macros.
 * The math library itself comes from clang's __clang_hip_math.h (through the wrapper that
 * clang -include's). */
#ifndef HIPKFD_AMD_DETAIL_AMD_HIP_RUNTIME_H
#define HIPKFD_AMD_DETAIL_AMD_HIP_RUNTIME_H

#include <hip/amd_detail/host_defines.h>
#include <hip/amd_detail/device_library_decls.h>
#include <hip/amd_detail/amd_hip_vector_types.h>
#include <hip/amd_detail/amd_hip_builtin_vars.h>
#include <hip/amd_detail/amd_device_functions.h>
#include <hip/amd_detail/amd_device_conversions.h>
#include <hip/amd_detail/amd_hip_atomic.h>
#include <hip/amd_detail/amd_warp_functions.h>
#include <hip/amd_detail/amd_hip_launch.h>

#if defined(__HIPKFD_HIP_CLANG__)
#include <stdio.h> /* printf: clang lowers device calls to ockl's hostcall printf */
#include <assert.h>

/* Feature macros of the HIP_ARCH_HAS_* family, for device code (every target hipkfd builds for
 * is gfx9 with 64-bit atomics, warp vote/ballot/shuffle, LDS float atomics). Funnel shift and
 * the extended __syncthreads are 0, as AMD defines them and as hipDeviceProp_t.arch reports. */
#if defined(__HIPKFD_DEVICE_PASS__)
#define __HIP_ARCH_HAS_GLOBAL_INT32_ATOMICS__ 1
#define __HIP_ARCH_HAS_GLOBAL_FLOAT_ATOMIC_EXCH__ 1
#define __HIP_ARCH_HAS_SHARED_INT32_ATOMICS__ 1
#define __HIP_ARCH_HAS_SHARED_FLOAT_ATOMIC_EXCH__ 1
#define __HIP_ARCH_HAS_FLOAT_ATOMIC_ADD__ 1
#define __HIP_ARCH_HAS_GLOBAL_INT64_ATOMICS__ 1
#define __HIP_ARCH_HAS_SHARED_INT64_ATOMICS__ 1
#define __HIP_ARCH_HAS_DOUBLES__ 1
#define __HIP_ARCH_HAS_WARP_VOTE__ 1
#define __HIP_ARCH_HAS_WARP_BALLOT__ 1
#define __HIP_ARCH_HAS_WARP_SHUFFLE__ 1
#define __HIP_ARCH_HAS_WARP_FUNNEL_SHIFT__ 0
#define __HIP_ARCH_HAS_THREAD_FENCE_SYSTEM__ 1
#define __HIP_ARCH_HAS_SYNC_THREAD_EXT__ 0
#define __HIP_ARCH_HAS_SURFACE_FUNCS__ 0
#define __HIP_ARCH_HAS_3DGRID__ 1
#define __HIP_ARCH_HAS_DYNAMIC_PARALLEL__ 0
#define HIP_ARCH_HAS_WARP_VOTE 1
#define HIP_ARCH_HAS_WARP_BALLOT 1
#endif

/* Dynamic shared memory: an unsized extern __shared__ array placed after the static LDS; its
 * size is the launch's dynamic shared memory argument. */
#define HIP_DYNAMIC_SHARED(type, var) extern __shared__ type var[];
#define HIP_DYNAMIC_SHARED_ATTRIBUTE

#endif /* __HIPKFD_HIP_CLANG__ */
#endif /* HIPKFD_AMD_DETAIL_AMD_HIP_RUNTIME_H */
