/* hipkfd: HIP atomic functions; included by hip_runtime.h. */
#ifndef HIPKFD_HIP_ATOMIC_H
#define HIPKFD_HIP_ATOMIC_H
#include <hip/amd_detail/amd_hip_atomic.h>
#endif
