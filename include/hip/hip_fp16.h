/* hipkfd: half precision (__half, __half2) for HIP code. */
#ifndef HIPKFD_HIP_FP16_H
#define HIPKFD_HIP_FP16_H
#include <hip/amd_detail/host_defines.h>
#include <hip/hip_vector_types.h>
#include <hip/amd_detail/amd_hip_fp16.h>
#endif
