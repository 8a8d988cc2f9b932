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

#endif /* HIPKFD_HIP_RUNTIME_H */
