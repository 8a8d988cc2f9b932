/* hipkfd: HIP vector types (char1 ... double4, make_*); included by hip_runtime.h. */
#ifndef HIPKFD_HIP_VECTOR_TYPES_H
#define HIPKFD_HIP_VECTOR_TYPES_H
#include <hip/amd_detail/amd_hip_vector_types.h>
#endif
