/* hipkfd: unsafeAtomicAdd/safeAtomicAdd and friends; defined with the other atomics. */
#ifndef HIPKFD_AMD_DETAIL_AMD_HIP_UNSAFE_ATOMICS_H
#define HIPKFD_AMD_DETAIL_AMD_HIP_UNSAFE_ATOMICS_H
#include <hip/amd_detail/amd_hip_atomic.h>
#endif
