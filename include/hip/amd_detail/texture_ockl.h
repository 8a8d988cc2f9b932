/* hipkfd: the device-library (ockl) image functions HIP's texture and surface fetches call.
 *
 * They live in rocm-device-libs' ockl.bc and compile to MIMG instructions (image_sample,
 * image_load, image_store) or, for images over linear memory (the "1Db" forms), to
 * buffer_load_format. `i` points at the image descriptor (T#, or V# for 1Db) of a texture object
 * and `s` at its sampler (S#), both in the constant address space. Coordinates and results are
 * clang vector types, the parameter types ockl is built with.
 *
 * gfx940 and later have no image instructions: __HIPKFD_HAS_IMAGE_INSTS__ tells the targets that
 * have them. */
#ifndef HIPKFD_AMD_DETAIL_TEXTURE_OCKL_H
#define HIPKFD_AMD_DETAIL_TEXTURE_OCKL_H

#include <hip/amd_detail/host_defines.h>

#if defined(__cplusplus) && defined(__HIPKFD_HIP_CLANG__)

#if !defined(__gfx940__) && !defined(__gfx941__) && !defined(__gfx942__) && !defined(__gfx950__)
#define __HIPKFD_HAS_IMAGE_INSTS__ 1
#endif

#define __HIPKFD_CONST_AS __attribute__((address_space(4)))

typedef float __hipkfd_float2_v __attribute__((ext_vector_type(2)));
typedef float __hipkfd_float4_v __attribute__((ext_vector_type(4)));
typedef int __hipkfd_int2_v __attribute__((ext_vector_type(2)));
typedef int __hipkfd_int4_v __attribute__((ext_vector_type(4)));
typedef unsigned int __HIPKFD_CONST_AS *__hipkfd_srd_t;

/* Declared for every target; called only where __HIPKFD_HAS_IMAGE_INSTS__ (elsewhere the
 * fetch headers name them in unevaluated sizeof operands only). */
extern "C" {
__device__ __hipkfd_float4_v __ockl_image_load_1Db(__hipkfd_srd_t i, int c);
__device__ __hipkfd_float4_v __ockl_image_load_1D(__hipkfd_srd_t i, int c);
__device__ __hipkfd_float4_v __ockl_image_load_1Da(__hipkfd_srd_t i, __hipkfd_int2_v c);
__device__ __hipkfd_float4_v __ockl_image_load_2D(__hipkfd_srd_t i, __hipkfd_int2_v c);
__device__ __hipkfd_float4_v __ockl_image_load_2Da(__hipkfd_srd_t i, __hipkfd_int4_v c);
__device__ __hipkfd_float4_v __ockl_image_load_3D(__hipkfd_srd_t i, __hipkfd_int4_v c);
__device__ void __ockl_image_store_1D(__hipkfd_srd_t i, int c, __hipkfd_float4_v p);
__device__ void __ockl_image_store_1Da(__hipkfd_srd_t i, __hipkfd_int2_v c, __hipkfd_float4_v p);
__device__ void __ockl_image_store_2D(__hipkfd_srd_t i, __hipkfd_int2_v c, __hipkfd_float4_v p);
__device__ void __ockl_image_store_2Da(__hipkfd_srd_t i, __hipkfd_int4_v c, __hipkfd_float4_v p);
__device__ void __ockl_image_store_3D(__hipkfd_srd_t i, __hipkfd_int4_v c, __hipkfd_float4_v p);
__device__ __hipkfd_float4_v __ockl_image_sample_1D(__hipkfd_srd_t i, __hipkfd_srd_t s, float c);
__device__ __hipkfd_float4_v __ockl_image_sample_1Da(__hipkfd_srd_t i, __hipkfd_srd_t s,
                                                     __hipkfd_float2_v c);
__device__ __hipkfd_float4_v __ockl_image_sample_2D(__hipkfd_srd_t i, __hipkfd_srd_t s,
                                                    __hipkfd_float2_v c);
__device__ __hipkfd_float4_v __ockl_image_sample_2Da(__hipkfd_srd_t i, __hipkfd_srd_t s,
                                                     __hipkfd_float4_v c);
__device__ __hipkfd_float4_v __ockl_image_sample_3D(__hipkfd_srd_t i, __hipkfd_srd_t s,
                                                    __hipkfd_float4_v c);
__device__ int __ockl_image_channel_data_type_1D(__hipkfd_srd_t i);
__device__ int __ockl_image_channel_data_type_2D(__hipkfd_srd_t i);
__device__ int __ockl_image_channel_data_type_3D(__hipkfd_srd_t i);
__device__ int __ockl_image_channel_order_1D(__hipkfd_srd_t i);
__device__ int __ockl_image_channel_order_2D(__hipkfd_srd_t i);
__device__ int __ockl_image_channel_order_3D(__hipkfd_srd_t i);
}

#endif
#endif
