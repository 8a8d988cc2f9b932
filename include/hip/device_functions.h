/* hipkfd: HIP built-in device functions (fences, synchronisation, integer intrinsics, timers,
 * atomics, warp functions); hip_runtime.h includes all of them. */
#ifndef HIPKFD_DEVICE_FUNCTIONS_H
#define HIPKFD_DEVICE_FUNCTIONS_H
#include <hip/amd_detail/host_defines.h>
#include <hip/amd_detail/amd_device_functions.h>
#include <hip/amd_detail/amd_hip_atomic.h>
#include <hip/amd_detail/amd_warp_functions.h>
#endif
