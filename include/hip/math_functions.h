/* hipkfd: HIP's math functions. The library itself is clang's (__clang_hip_math.h and
 * __clang_hip_cmath.h, brought in by the HIP wrapper clang -include's); this header adds the
 * math constants and half/bfloat16 math so code that includes it by name compiles. */
#ifndef HIPKFD_MATH_FUNCTIONS_H
#define HIPKFD_MATH_FUNCTIONS_H
#include <hip/amd_detail/host_defines.h>
#include <hip/hip_math_constants.h>
#if defined(__cplusplus)
#include <cmath>
#endif
#if defined(__HIPKFD_HIP_CLANG__)
#include <hip/hip_fp16.h>
#endif
#endif
