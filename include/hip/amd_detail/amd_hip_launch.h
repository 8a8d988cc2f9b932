/* hipkfd: kernel launch macros. `kernel<<<grid, block, shmem, stream>>>(args)` is compiled by
 * clang into __hipPushCallConfiguration + a call of the kernel's host stub, which calls
 * __hipPopCallConfiguration and hipLaunchKernel (all declared by hip_runtime_api.h; clang
 * requires the declarations to exist). hipLaunchKernelGGL is the macro form of the same. */
#ifndef HIPKFD_AMD_DETAIL_AMD_HIP_LAUNCH_H
#define HIPKFD_AMD_DETAIL_AMD_HIP_LAUNCH_H

#include <hip/amd_detail/host_defines.h>

/* A template kernel whose argument list holds commas goes through HIP_KERNEL_NAME. */
#define HIP_KERNEL_NAME(...) __VA_ARGS__
#define HIP_SYMBOL(X) X

/* The first parameter of kernels written for the pre-GGL launch API; HIP-Clang passes it as an
 * ordinary argument (callers pass 0). */
typedef int hipLaunchParm;

#if defined(__HIPKFD_HIP_CLANG__)
/* One macro level only: a HIP_KERNEL_NAME(k<a, b>) argument must reach the launch unexpanded
 * by an intermediate macro, or its comma would split it. */
#define hipLaunchKernelGGL(kernel_name, num_blocks, num_threads, shared_bytes, stream, ...) \
  do {                                                                                    \
    kernel_name<<<(num_blocks), (num_threads), (shared_bytes), (stream)>>>(__VA_ARGS__);  \
  } while (0)
#define hipLaunchKernelGGLInternal hipLaunchKernelGGL
#endif

#endif /* HIPKFD_AMD_DETAIL_AMD_HIP_LAUNCH_H */
