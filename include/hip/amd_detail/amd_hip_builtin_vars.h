/* hipkfd: the index built-ins threadIdx, blockIdx, blockDim and gridDim.
 *
 * Each is an object whose x/y/z members are properties: reading threadIdx.x calls a static
 * getter that returns the hardware value (__declspec(property), which clang accepts in HIP
 * mode). They convert to dim3
 * and uint3. The objects are empty and constant; they exist (one byte per translation unit at
 * -O0, none once optimised) only because calling the conversion operators needs an address: an
 * undefined symbol would reach the code object as an unresolved dynamic symbol.
 *   threadIdx  work-item id in the work-group (VGPR v0..v2 at wave launch)
 *   blockIdx   work-group id (SGPRs set up by the kernel descriptor)
 *   blockDim   work-group size: the hidden argument (code object v5) or the dispatch packet
 *   gridDim    number of work-groups in the grid: ockl, which knows both layouts */
#ifndef HIPKFD_AMD_DETAIL_AMD_HIP_BUILTIN_VARS_H
#define HIPKFD_AMD_DETAIL_AMD_HIP_BUILTIN_VARS_H

#include <hip/amd_detail/host_defines.h>
#include <hip/amd_detail/device_library_decls.h>
#include <hip/amd_detail/amd_hip_vector_types.h>

#if defined(__HIPKFD_HIP_CLANG__)

#define __HIPKFD_BUILTIN_VAR(type, var, getx, gety, getz)                                  \
  struct type {                                                                           \
    __declspec(property(get = __get_x)) unsigned int x;                                   \
    __declspec(property(get = __get_y)) unsigned int y;                                   \
    __declspec(property(get = __get_z)) unsigned int z;                                   \
    static __device__ inline __attribute__((always_inline)) unsigned int __get_x() {      \
      return (unsigned int)(getx);                                                        \
    }                                                                                     \
    static __device__ inline __attribute__((always_inline)) unsigned int __get_y() {      \
      return (unsigned int)(gety);                                                        \
    }                                                                                     \
    static __device__ inline __attribute__((always_inline)) unsigned int __get_z() {      \
      return (unsigned int)(getz);                                                        \
    }                                                                                     \
    __device__ inline operator dim3() const { return dim3(__get_x(), __get_y(), __get_z()); } \
    __device__ inline operator uint3() const { return uint3(__get_x(), __get_y(), __get_z()); } \
  };                                                                                      \
  static const __device__ type var = type();

__HIPKFD_BUILTIN_VAR(__hip_builtin_threadIdx_t, threadIdx, __builtin_amdgcn_workitem_id_x(),
                     __builtin_amdgcn_workitem_id_y(), __builtin_amdgcn_workitem_id_z())
__HIPKFD_BUILTIN_VAR(__hip_builtin_blockIdx_t, blockIdx, __builtin_amdgcn_workgroup_id_x(),
                     __builtin_amdgcn_workgroup_id_y(), __builtin_amdgcn_workgroup_id_z())
__HIPKFD_BUILTIN_VAR(__hip_builtin_blockDim_t, blockDim, __builtin_amdgcn_workgroup_size_x(),
                     __builtin_amdgcn_workgroup_size_y(), __builtin_amdgcn_workgroup_size_z())
__HIPKFD_BUILTIN_VAR(__hip_builtin_gridDim_t, gridDim, __ockl_get_num_groups(0),
                     __ockl_get_num_groups(1), __ockl_get_num_groups(2))

/* The function forms of older HIP code (hipThreadIdx_x ...). */
#define hipThreadIdx_x (threadIdx.x)
#define hipThreadIdx_y (threadIdx.y)
#define hipThreadIdx_z (threadIdx.z)
#define hipBlockIdx_x (blockIdx.x)
#define hipBlockIdx_y (blockIdx.y)
#define hipBlockIdx_z (blockIdx.z)
#define hipBlockDim_x (blockDim.x)
#define hipBlockDim_y (blockDim.y)
#define hipBlockDim_z (blockDim.z)
#define hipGridDim_x (gridDim.x)
#define hipGridDim_y (gridDim.y)
#define hipGridDim_z (gridDim.z)

#endif /* __HIPKFD_HIP_CLANG__ */
#endif /* HIPKFD_AMD_DETAIL_AMD_HIP_BUILTIN_VARS_H */
