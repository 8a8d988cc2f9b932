/* hipkfd: __ldg (read-only cached load); the definition lives with the other device functions. */
#ifndef HIPKFD_AMD_DETAIL_HIP_LDG_H
#define HIPKFD_AMD_DETAIL_HIP_LDG_H
#include <hip/amd_detail/amd_device_functions.h>
#endif
