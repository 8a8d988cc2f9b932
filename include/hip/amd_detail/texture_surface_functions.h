/* hipkfd: surface-object reads and writes for device code: surf1D/2D/3D and the layered forms,
 * read(T *data, obj, x, ...) and write(T data, obj, x, ...), x in bytes as CUDA defines it.
 *
 * A hipSurfaceObject_t is the device address of an image descriptor (texture_ockl.h); the
 * texel index is x divided by the element size, which the runtime records after the
 * descriptor (dword 8: HSA channel type, dword 9: HSA channel order, read through ockl).
 * Values move as the texture unit's 32-bit registers: floats as float bits, integers as
 * sign- or zero-extended integers, so a write stores exactly the given value. Out-of-range
 * accesses read zeros and write nothing (the boundary mode argument is accepted and ignored,
 * as by AMD's headers). On targets without image instructions (gfx940 and later) these trap. */
#ifndef HIPKFD_AMD_DETAIL_TEXTURE_SURFACE_FUNCTIONS_H
#define HIPKFD_AMD_DETAIL_TEXTURE_SURFACE_FUNCTIONS_H

#include <hip/amd_detail/texture_indirect_functions.h>

#if defined(__cplusplus) && defined(__HIPKFD_HIP_CLANG__)
#include <hip/surface_types.h>

/* log2 of the bytes of one channel, by HSA channel type (SNORM_INT8 .. FLOAT), and of the
 * channel count, by HSA channel order (A .. DEPTH_STENCIL; 3 marks the 3-channel orders). */
__device__ inline int __hipkfd_surf_texel(int x_bytes, int type, int order) {
  const unsigned char chan_log2[16] = {0, 1, 0, 1, 3, 1, 1, 1, 0, 1, 2, 0, 1, 2, 1, 2};
  const unsigned char count_log2[20] = {0, 0, 1, 1, 3, 1, 3, 2, 2, 2, 2, 2, 3, 2, 2, 2, 0, 0, 0, 0};
  int c = chan_log2[type & 15], n = count_log2[order < 20 ? order : 0];
  int bytes = (c == 3 ? 3 : 1 << c) * (n == 3 ? 3 : 1 << n);
  return x_bytes / bytes;
}

template <class E>
__device__ inline float __hipkfd_surf_reg(E v) {
  if constexpr (std::is_same<E, float>::value)
    return v;
  else if constexpr (std::is_signed<E>::value)
    return __builtin_bit_cast(float, static_cast<int>(v));
  else
    return __builtin_bit_cast(float, static_cast<unsigned int>(v));
}

/* T as the four 32-bit values image_store takes. */
template <class T>
__device__ inline __hipkfd_float4_v __hipkfd_surf_pack(const T &t) {
  typedef typename __hipkfd_tex_ret<T>::elem E;
  const E *p = reinterpret_cast<const E *>(&t);
  __hipkfd_float4_v v = {0.0f, 0.0f, 0.0f, 0.0f};
  v.x = __hipkfd_surf_reg<E>(p[0]);
  if constexpr (__hipkfd_tex_ret<T>::rank > 1)
    v.y = __hipkfd_surf_reg<E>(p[1]);
  if constexpr (__hipkfd_tex_ret<T>::rank > 2) {
    v.z = __hipkfd_surf_reg<E>(p[2]);
    v.w = __hipkfd_surf_reg<E>(p[3]);
  }
  return v;
}

#if defined(__HIPKFD_HAS_IMAGE_INSTS__)
#define __HIPKFD_SURF_INIT(dim)                                                            \
  __hipkfd_srd_t i = (__hipkfd_srd_t)surfObj;                                              \
  (void)boundaryMode;                                                                      \
  x = __hipkfd_surf_texel(x, __ockl_image_channel_data_type_##dim(i),                      \
                          __ockl_image_channel_order_##dim(i))
#define __HIPKFD_SURF_READ(T, call) *data = __hipkfd_tex_map<T>(call)
#define __HIPKFD_SURF_WRITE(call) call
#else
/* No image instructions: the calls stay unevaluated (they only mark the operands used). */
#define __HIPKFD_SURF_INIT(dim)                                                            \
  __hipkfd_srd_t i = (__hipkfd_srd_t)surfObj;                                              \
  (void)boundaryMode;                                                                      \
  __builtin_trap()
#define __HIPKFD_SURF_READ(T, call) (void)sizeof(decltype(call) *); *data = T()
#define __HIPKFD_SURF_WRITE(call) (void)sizeof(decltype(call) *)
#endif

template <class T>
static __device__ inline typename std::enable_if<__hipkfd_tex_ret<T>::ok>::type surf1Dread(
    T *data, hipSurfaceObject_t surfObj, int x, int boundaryMode = hipBoundaryModeZero) {
  __HIPKFD_SURF_INIT(1D);
  __HIPKFD_SURF_READ(T, __ockl_image_load_1D(i, x));
}
template <class T>
static __device__ inline typename std::enable_if<__hipkfd_tex_ret<T>::ok>::type surf1Dwrite(
    T data, hipSurfaceObject_t surfObj, int x, int boundaryMode = hipBoundaryModeZero) {
  __HIPKFD_SURF_INIT(1D);
  __HIPKFD_SURF_WRITE(__ockl_image_store_1D(i, x, __hipkfd_surf_pack(data)));
}
template <class T>
static __device__ inline typename std::enable_if<__hipkfd_tex_ret<T>::ok>::type surf2Dread(
    T *data, hipSurfaceObject_t surfObj, int x, int y, int boundaryMode = hipBoundaryModeZero) {
  __HIPKFD_SURF_INIT(2D);
  __HIPKFD_SURF_READ(T, __ockl_image_load_2D(i, (__hipkfd_int2_v){x, y}));
}
template <class T>
static __device__ inline typename std::enable_if<__hipkfd_tex_ret<T>::ok>::type surf2Dwrite(
    T data, hipSurfaceObject_t surfObj, int x, int y, int boundaryMode = hipBoundaryModeZero) {
  __HIPKFD_SURF_INIT(2D);
  __HIPKFD_SURF_WRITE(__ockl_image_store_2D(i, (__hipkfd_int2_v){x, y}, __hipkfd_surf_pack(data)));
}
template <class T>
static __device__ inline typename std::enable_if<__hipkfd_tex_ret<T>::ok>::type surf3Dread(
    T *data, hipSurfaceObject_t surfObj, int x, int y, int z, int boundaryMode = hipBoundaryModeZero) {
  __HIPKFD_SURF_INIT(3D);
  __HIPKFD_SURF_READ(T, __ockl_image_load_3D(i, (__hipkfd_int4_v){x, y, z, 0}));
}
template <class T>
static __device__ inline typename std::enable_if<__hipkfd_tex_ret<T>::ok>::type surf3Dwrite(
    T data, hipSurfaceObject_t surfObj, int x, int y, int z, int boundaryMode = hipBoundaryModeZero) {
  __HIPKFD_SURF_INIT(3D);
  __HIPKFD_SURF_WRITE(__ockl_image_store_3D(i, (__hipkfd_int4_v){x, y, z, 0}, __hipkfd_surf_pack(data)));
}
template <class T>
static __device__ inline typename std::enable_if<__hipkfd_tex_ret<T>::ok>::type surf1DLayeredread(
    T *data, hipSurfaceObject_t surfObj, int x, int layer, int boundaryMode = hipBoundaryModeZero) {
  __HIPKFD_SURF_INIT(1D);
  __HIPKFD_SURF_READ(T, __ockl_image_load_1Da(i, (__hipkfd_int2_v){x, layer}));
}
template <class T>
static __device__ inline typename std::enable_if<__hipkfd_tex_ret<T>::ok>::type surf1DLayeredwrite(
    T data, hipSurfaceObject_t surfObj, int x, int layer, int boundaryMode = hipBoundaryModeZero) {
  __HIPKFD_SURF_INIT(1D);
  __HIPKFD_SURF_WRITE(__ockl_image_store_1Da(i, (__hipkfd_int2_v){x, layer}, __hipkfd_surf_pack(data)));
}
template <class T>
static __device__ inline typename std::enable_if<__hipkfd_tex_ret<T>::ok>::type surf2DLayeredread(
    T *data, hipSurfaceObject_t surfObj, int x, int y, int layer, int boundaryMode = hipBoundaryModeZero) {
  __HIPKFD_SURF_INIT(2D);
  __HIPKFD_SURF_READ(T, __ockl_image_load_2Da(i, (__hipkfd_int4_v){x, y, layer, 0}));
}
template <class T>
static __device__ inline typename std::enable_if<__hipkfd_tex_ret<T>::ok>::type surf2DLayeredwrite(
    T data, hipSurfaceObject_t surfObj, int x, int y, int layer, int boundaryMode = hipBoundaryModeZero) {
  __HIPKFD_SURF_INIT(2D);
  __HIPKFD_SURF_WRITE(__ockl_image_store_2Da(i, (__hipkfd_int4_v){x, y, layer, 0}, __hipkfd_surf_pack(data)));
}

#undef __HIPKFD_SURF_INIT
#undef __HIPKFD_SURF_READ
#undef __HIPKFD_SURF_WRITE
#endif
#endif
