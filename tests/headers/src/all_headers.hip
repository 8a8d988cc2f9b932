// Every public header hipkfd ships for HIP programs, for the include-trace test.
#include <hip/hip_runtime.h>
#include <hip/hip_runtime_api.h>
#include <hip/hip_vector_types.h>
#include <hip/hip_fp16.h>
#include <hip/hip_bf16.h>
#include <hip/hip_bfloat16.h>
#include <hip/hip_complex.h>
#include <hip/hip_cooperative_groups.h>
#include <hip/hip_ext.h>
#include <hip/hip_math_constants.h>
#include <hip/hip_atomic.h>
#include <hip/math_functions.h>
#include <hip/device_functions.h>
#include <hip/hip_version.h>
#include <hip/channel_descriptor.h>
#include <hip/hip_profile.h>
#include <hip/hip_hcc.h>
#include <hip/amd_detail/hip_ldg.h>
#include <hip/amd_detail/amd_hip_unsafe_atomics.h>

__global__ void all_headers_kernel(int *p) { p[threadIdx.x] = HIP_VERSION_MAJOR; }
