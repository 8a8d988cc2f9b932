/* Test-local kernel prelude: the few HIP builtins these kernels use, so they compile with
 * -nogpuinc before the project's include/hip/ exists. Only clang builtins, no AMD header. */
#pragma once
#include <stdint.h>
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))
#define tid_x() ((int)__builtin_amdgcn_workitem_id_x())
#define bid_x() ((int)__builtin_amdgcn_workgroup_id_x())
#define bdim_x() ((int)__builtin_amdgcn_workgroup_size_x())
#define gdim_x() ((int)(__builtin_amdgcn_grid_size_x() / __builtin_amdgcn_workgroup_size_x()))
#define syncthreads() __builtin_amdgcn_s_barrier()
