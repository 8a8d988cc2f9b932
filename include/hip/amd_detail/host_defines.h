/* hipkfd: function and variable qualifiers of the HIP kernel language.
 *
 * Under clang's HIP mode (__HIP__) the compiler's __clang_hip_runtime_wrapper.h already defines
 * __host__, __device__, __global__, __shared__, __constant__ and __managed__ as attributes; this
 * header adds the rest (__forceinline__, __noinline__, __launch_bounds__ ...). Under a host-only
 * compiler (gcc, clang without -x hip) every qualifier expands to nothing, so host code that
 * includes the HIP headers still compiles. Each definition is guarded: the host API headers may
 * define the same names first. */
#ifndef HIPKFD_AMD_DETAIL_HOST_DEFINES_H
#define HIPKFD_AMD_DETAIL_HOST_DEFINES_H

#if !defined(__HIP_PLATFORM_AMD__) && !defined(__HIP_PLATFORM_NVIDIA__)
#define __HIP_PLATFORM_AMD__ 1
#endif
#if defined(__HIP_PLATFORM_AMD__) && !defined(__HIP_PLATFORM_HCC__)
#define __HIP_PLATFORM_HCC__ 1 /* the pre-5.0 spelling, still tested by old code */
#endif

#if defined(__clang__) && defined(__HIP__)
#define __HIPKFD_HIP_CLANG__ 1
#if !defined(__HIP_CLANG_ONLY__)
#define __HIP_CLANG_ONLY__ 1
#endif
#ifndef __host__
#define __host__ __attribute__((host))
#endif
#ifndef __device__
#define __device__ __attribute__((device))
#endif
#ifndef __global__
#define __global__ __attribute__((global))
#endif
#ifndef __shared__
#define __shared__ __attribute__((shared))
#endif
#ifndef __constant__
#define __constant__ __attribute__((constant))
#endif
#ifndef __managed__
#define __managed__ __attribute__((managed))
#endif
#else /* host-only compiler: the qualifiers carry no meaning */
#ifndef __host__
#define __host__
#endif
#ifndef __device__
#define __device__
#endif
#ifndef __global__
#define __global__
#endif
#ifndef __shared__
#define __shared__
#endif
#ifndef __constant__
#define __constant__
#endif
#ifndef __managed__
#define __managed__
#endif
#endif

#ifndef __forceinline__
#define __forceinline__ inline __attribute__((always_inline))
#endif
#ifndef __noinline__
#define __noinline__ __attribute__((noinline))
#endif
#ifndef __align__
#define __align__(n) __attribute__((aligned(n)))
#endif

/* __launch_bounds__(MAX_THREADS_PER_BLOCK [, MIN_WARPS_PER_EXECUTION_UNIT]): the first bounds the
 * flat work-group size the compiler must support, the second asks for that many waves per SIMD
 * (AMDGPU attributes amdgpu_flat_work_group_size and amdgpu_waves_per_eu). */
#if defined(__HIPKFD_HIP_CLANG__)
/* clang takes both attribute arguments as unsigned and silently reads -1 as 4294967295; AMD's
 * compiler rejects a negative bound. Each argument passes through a template that refuses a
 * negative value (and, as a non-type template argument, anything that is not an integer
 * constant), so `__launch_bounds__(-1)` is a compile error here too. A maximum of 0 is left
 * to clang's own check (min 1 greater than max 0). */
template <long long __hipkfd_bound>
struct __hipkfd_launch_bound {
  static_assert(__hipkfd_bound >= 0, "__launch_bounds__ arguments must not be negative");
  static constexpr unsigned value = (unsigned)__hipkfd_bound;
};
#define __hipkfd_launch_bounds_1(max_threads) \
  __attribute__((amdgpu_flat_work_group_size(1, __hipkfd_launch_bound<(max_threads)>::value)))
#define __hipkfd_launch_bounds_2(max_threads, min_waves)                                   \
  __attribute__((amdgpu_flat_work_group_size(1, __hipkfd_launch_bound<(max_threads)>::value), \
                 amdgpu_waves_per_eu(__hipkfd_launch_bound<(min_waves)>::value)))
#define __hipkfd_launch_bounds_pick(_1, _2, name, ...) name
#define __launch_bounds__(...)                                                           \
  __hipkfd_launch_bounds_pick(__VA_ARGS__, __hipkfd_launch_bounds_2,                   \
                              __hipkfd_launch_bounds_1, unused)(__VA_ARGS__)
#else
#define __launch_bounds__(...)
#endif

/* True in the device compilation pass of clang's HIP mode only. */
#if defined(__HIPKFD_HIP_CLANG__) && defined(__HIP_DEVICE_COMPILE__) && __HIP_DEVICE_COMPILE__
#define __HIPKFD_DEVICE_PASS__ 1
#endif

#endif /* HIPKFD_AMD_DETAIL_HOST_DEFINES_H */
