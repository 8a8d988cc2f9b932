/* hipkfd: the HIP runtime header: the host API (hip_runtime_api.h) plus, under clang's HIP mode,
 * the kernel language (built-in variables, device functions, atomics, warp functions ...).
 * A host-only compiler gets the host API and the vector types. */
#ifndef HIPKFD_HIP_RUNTIME_H
#define HIPKFD_HIP_RUNTIME_H

#include <hip/amd_detail/host_defines.h>

#if defined(__cplusplus)
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <cmath>
#else
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#endif

#include <hip/hip_runtime_api.h>
#include <hip/hip_vector_types.h>
#include <hip/channel_descriptor.h>

#if defined(__HIPKFD_HIP_CLANG__)
#include <hip/amd_detail/amd_hip_runtime.h>
#include <hip/amd_detail/texture_indirect_functions.h>
#include <hip/amd_detail/texture_surface_functions.h>
#endif

#if defined(__cplusplus)
#include <hip/amd_detail/texture_reference.h>   /* texture<T, dim, mode> */
#endif

/* Programs compiled by hiprtc (which defines __HIPCC_RTC__) use more of the kernel language
 * without including it: AMD's hiprtc compiles every program against one built-in header made
 * of the runtime header plus half precision, hip_bfloat16, complex numbers, the math constants
 * and cooperative groups. */
#if defined(__HIPCC_RTC__) && defined(__cplusplus) && defined(__HIPKFD_HIP_CLANG__)
#include <hip/hip_fp16.h>
#include <hip/hip_bfloat16.h>
#include <hip/hip_complex.h>
#include <hip/hip_math_constants.h>
#include <hip/hip_cooperative_groups.h>
#endif

#endif /* HIPKFD_HIP_RUNTIME_H */
