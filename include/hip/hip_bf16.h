/* hipkfd: bfloat16 (__hip_bfloat16, __hip_bfloat162) for HIP code. */
#ifndef HIPKFD_HIP_BF16_H
#define HIPKFD_HIP_BF16_H
#include <hip/amd_detail/host_defines.h>
#include <hip/hip_vector_types.h>
#include <hip/amd_detail/amd_hip_bf16.h>
#endif
