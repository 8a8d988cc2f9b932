/* hipkfd: Cooperative Groups (namespace cooperative_groups) for HIP device code. */
#ifndef HIPKFD_HIP_COOPERATIVE_GROUPS_H
#define HIPKFD_HIP_COOPERATIVE_GROUPS_H
#include <hip/hip_runtime.h>
#include <hip/amd_detail/amd_hip_cooperative_groups.h>
#endif
