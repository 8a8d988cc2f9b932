/* hipkfd: texture-object fetches for device code: tex1Dfetch, tex1D, tex2D, tex3D,
 * tex1DLayered, tex2DLayered (value-returning and pointer-output forms).
 *
 * A hipTextureObject_t is the device address of the image descriptor, the sampler following
 * at dword HIP_SAMPLER_OBJECT_OFFSET_DWORD (texture_types.h). Each fetch is one ockl call
 * (texture_ockl.h); the texture unit returns four 32-bit values, floats for float and
 * normalized formats, integer bits for integer formats read as hipReadModeElementType. The
 * result type T picks from them: float elements take the bits as a float, integer elements
 * convert the integer (truncating to 8 or 16 bits). T is char, unsigned char, short,
 * unsigned short, int, unsigned int or float, or a 1-, 2- or 4-element vector of those.
 *
 * On targets without image instructions (gfx940 and later) the runtime refuses to create texture
 * objects (hipErrorNotSupported); the fetches there compile to a trap. */
#ifndef HIPKFD_AMD_DETAIL_TEXTURE_INDIRECT_FUNCTIONS_H
#define HIPKFD_AMD_DETAIL_TEXTURE_INDIRECT_FUNCTIONS_H

#include <hip/amd_detail/texture_ockl.h>

#if defined(__cplusplus) && defined(__HIPKFD_HIP_CLANG__)
#include <type_traits>
#include <hip/hip_vector_types.h>
#include <hip/texture_types.h>

template <class E>
struct __hipkfd_tex_scalar
    : std::integral_constant<bool, std::is_same<E, char>::value || std::is_same<E, signed char>::value ||
                                       std::is_same<E, unsigned char>::value || std::is_same<E, short>::value ||
                                       std::is_same<E, unsigned short>::value || std::is_same<E, int>::value ||
                                       std::is_same<E, unsigned int>::value || std::is_same<E, float>::value> {};

/* Element type and count of a fetch result type; `ok` when T may be fetched. */
template <class T, class = void>
struct __hipkfd_tex_ret {
  typedef T elem;
  static constexpr int rank = 1;
  static constexpr bool ok = __hipkfd_tex_scalar<T>::value;
};
template <class T>
struct __hipkfd_tex_ret<T, typename std::enable_if<(__hipkfd_vec_info<T>::rank > 0)>::type> {
  typedef typename __hipkfd_vec_info<T>::type elem;
  static constexpr int rank = __hipkfd_vec_info<T>::rank;
  static constexpr bool ok = __hipkfd_tex_scalar<elem>::value && rank != 3;
};

#define __HIPKFD_TEX_T(T) typename std::enable_if<__hipkfd_tex_ret<T>::ok, T>::type

template <class E>
__device__ inline E __hipkfd_tex_elem(float v) {
  if constexpr (std::is_same<E, float>::value)
    return v;
  else if constexpr (std::is_signed<E>::value)
    return static_cast<E>(__builtin_bit_cast(int, v));
  else
    return static_cast<E>(__builtin_bit_cast(unsigned int, v));
}

/* The texture unit's four values as T. */
template <class T>
__device__ inline T __hipkfd_tex_map(__hipkfd_float4_v v) {
  typedef typename __hipkfd_tex_ret<T>::elem E;
  T r;
  E *p = reinterpret_cast<E *>(&r);
  p[0] = __hipkfd_tex_elem<E>(v.x);
  if constexpr (__hipkfd_tex_ret<T>::rank > 1)
    p[1] = __hipkfd_tex_elem<E>(v.y);
  if constexpr (__hipkfd_tex_ret<T>::rank > 2) {
    p[2] = __hipkfd_tex_elem<E>(v.z);
    p[3] = __hipkfd_tex_elem<E>(v.w);
  }
  return r;
}

#define __HIPKFD_TEX_OPERANDS                                                              \
  __hipkfd_srd_t i = (__hipkfd_srd_t)textureObject;                                        \
  __hipkfd_srd_t s = i + HIP_SAMPLER_OBJECT_OFFSET_DWORD;                                  \
  (void)s
#if defined(__HIPKFD_HAS_IMAGE_INSTS__)
#define __HIPKFD_TEX_FETCH(T, call)                                                        \
  __HIPKFD_TEX_OPERANDS;                                                                   \
  return __hipkfd_tex_map<T>(call)
#else
/* No image instructions: the call stays unevaluated (it only marks the operands used). */
#define __HIPKFD_TEX_FETCH(T, call)                                                        \
  __HIPKFD_TEX_OPERANDS;                                                                   \
  (void)sizeof(decltype(call) *);                                                          \
  __builtin_trap();                                                                        \
  return T()
#endif

template <class T>
static __device__ inline __HIPKFD_TEX_T(T) tex1Dfetch(hipTextureObject_t textureObject, int x) {
  __HIPKFD_TEX_FETCH(T, __ockl_image_load_1Db(i, x));
}

template <class T>
static __device__ inline __HIPKFD_TEX_T(T) tex1D(hipTextureObject_t textureObject, float x) {
  __HIPKFD_TEX_FETCH(T, __ockl_image_sample_1D(i, s, x));
}

template <class T>
static __device__ inline __HIPKFD_TEX_T(T) tex2D(hipTextureObject_t textureObject, float x, float y) {
  __HIPKFD_TEX_FETCH(T, __ockl_image_sample_2D(i, s, (__hipkfd_float2_v){x, y}));
}

template <class T>
static __device__ inline __HIPKFD_TEX_T(T) tex3D(hipTextureObject_t textureObject, float x, float y,
                                                 float z) {
  __HIPKFD_TEX_FETCH(T, __ockl_image_sample_3D(i, s, (__hipkfd_float4_v){x, y, z, 0.0f}));
}

template <class T>
static __device__ inline __HIPKFD_TEX_T(T) tex1DLayered(hipTextureObject_t textureObject, float x,
                                                        int layer) {
  __HIPKFD_TEX_FETCH(T, __ockl_image_sample_1Da(i, s, (__hipkfd_float2_v){x, (float)layer}));
}

template <class T>
static __device__ inline __HIPKFD_TEX_T(T) tex2DLayered(hipTextureObject_t textureObject, float x,
                                                        float y, int layer) {
  __HIPKFD_TEX_FETCH(T, __ockl_image_sample_2Da(i, s, (__hipkfd_float4_v){x, y, (float)layer, 0.0f}));
}

/* The pointer-output forms. */
template <class T>
static __device__ inline void tex1Dfetch(T *ptr, hipTextureObject_t textureObject, int x) {
  *ptr = tex1Dfetch<T>(textureObject, x);
}
template <class T>
static __device__ inline void tex1D(T *ptr, hipTextureObject_t textureObject, float x) {
  *ptr = tex1D<T>(textureObject, x);
}
template <class T>
static __device__ inline void tex2D(T *ptr, hipTextureObject_t textureObject, float x, float y) {
  *ptr = tex2D<T>(textureObject, x, y);
}
template <class T>
static __device__ inline void tex3D(T *ptr, hipTextureObject_t textureObject, float x, float y, float z) {
  *ptr = tex3D<T>(textureObject, x, y, z);
}
template <class T>
static __device__ inline void tex1DLayered(T *ptr, hipTextureObject_t textureObject, float x, int layer) {
  *ptr = tex1DLayered<T>(textureObject, x, layer);
}
template <class T>
static __device__ inline void tex2DLayered(T *ptr, hipTextureObject_t textureObject, float x, float y,
                                           int layer) {
  *ptr = tex2DLayered<T>(textureObject, x, y, layer);
}

#undef __HIPKFD_TEX_FETCH
#undef __HIPKFD_TEX_OPERANDS
#endif
#endif
