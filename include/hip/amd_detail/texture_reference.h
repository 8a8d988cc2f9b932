/* hipkfd: legacy texture references: the texture<T, dim, readMode> template, its C++ binding
 * wrappers (hipBindTexture(offset, tex, ...) ...) and, in device code, the fetches through a
 * reference (tex1Dfetch(tex, x), tex2D(tex, x, y) ...).
 *
 * A `texture<...>` variable at namespace scope is a textureReference on the host and a variable
 * of the same layout on the device (clang's device_builtin_texture_type attribute makes it both
 * and registers it with __hipRegisterTexture). Binding creates a texture object from the
 * reference's fields and copies the whole reference, textureObject included, to the device
 * variable; a fetch reads that textureObject and samples through it as a texture-object fetch
 * does. The result type follows the read mode: T for hipReadModeElementType, float (or the
 * float vector of T's rank) for hipReadModeNormalizedFloat of 8/16-bit integer elements. */
#ifndef HIPKFD_AMD_DETAIL_TEXTURE_REFERENCE_H
#define HIPKFD_AMD_DETAIL_TEXTURE_REFERENCE_H

#if defined(__cplusplus)
#include <hip/hip_runtime_api.h>
#include <hip/channel_descriptor.h>
#include <hip/texture_types.h>

#if defined(__HIPKFD_HIP_CLANG__)
#define __HIPKFD_TEXTURE_ATTRIB __attribute__((device_builtin_texture_type))
#else
#define __HIPKFD_TEXTURE_ATTRIB
#endif

template <class T, int texType = hipTextureType1D, enum hipTextureReadMode mode = hipReadModeElementType>
struct __HIPKFD_TEXTURE_ATTRIB texture : public textureReference {
  texture(int norm = 0, enum hipTextureFilterMode fMode = hipFilterModePoint,
          enum hipTextureAddressMode aMode = hipAddressModeClamp)
      : texture(norm, fMode, aMode, hipCreateChannelDesc<T>()) {}
  texture(int norm, enum hipTextureFilterMode fMode, enum hipTextureAddressMode aMode,
          struct hipChannelFormatDesc desc) {
    normalized = norm;
    readMode = mode;
    filterMode = fMode;
    addressMode[0] = addressMode[1] = addressMode[2] = aMode;
    channelDesc = desc;
    sRGB = 0;
    maxAnisotropy = 0;
    mipmapFilterMode = hipFilterModePoint;
    mipmapLevelBias = 0;
    minMipmapLevelClamp = 0;
    maxMipmapLevelClamp = 0;
    textureObject = nullptr;
    numChannels = 0;
    format = HIP_AD_FORMAT_FLOAT;
  }
};

/* ---- C++ binding wrappers (hip_runtime_api.h has the textureReference* forms) ---- */

template <class T, int dim, enum hipTextureReadMode readMode>
static inline hipError_t hipBindTexture(size_t *offset, const struct texture<T, dim, readMode> &tex,
                                        const void *devPtr, size_t size = UINT_MAX) {
  return hipBindTexture(offset, &tex, devPtr, &tex.channelDesc, size);
}
template <class T, int dim, enum hipTextureReadMode readMode>
static inline hipError_t hipBindTexture(size_t *offset, const struct texture<T, dim, readMode> &tex,
                                        const void *devPtr, const struct hipChannelFormatDesc &desc,
                                        size_t size = UINT_MAX) {
  return hipBindTexture(offset, &tex, devPtr, &desc, size);
}
template <class T, int dim, enum hipTextureReadMode readMode>
static inline hipError_t hipBindTexture2D(size_t *offset, const struct texture<T, dim, readMode> &tex,
                                          const void *devPtr, size_t width, size_t height, size_t pitch) {
  return hipBindTexture2D(offset, &tex, devPtr, &tex.channelDesc, width, height, pitch);
}
template <class T, int dim, enum hipTextureReadMode readMode>
static inline hipError_t hipBindTexture2D(size_t *offset, const struct texture<T, dim, readMode> &tex,
                                          const void *devPtr, const struct hipChannelFormatDesc &desc,
                                          size_t width, size_t height, size_t pitch) {
  return hipBindTexture2D(offset, &tex, devPtr, &desc, width, height, pitch);
}
template <class T, int dim, enum hipTextureReadMode readMode>
static inline hipError_t hipBindTextureToArray(const struct texture<T, dim, readMode> &tex,
                                               hipArray_const_t array) {
  struct hipChannelFormatDesc desc;
  hipError_t err = hipGetChannelDesc(&desc, array);
  return err == hipSuccess ? hipBindTextureToArray(&tex, array, &desc) : err;
}
template <class T, int dim, enum hipTextureReadMode readMode>
static inline hipError_t hipBindTextureToArray(const struct texture<T, dim, readMode> &tex,
                                               hipArray_const_t array,
                                               const struct hipChannelFormatDesc &desc) {
  return hipBindTextureToArray(&tex, array, &desc);
}
template <class T, int dim, enum hipTextureReadMode readMode>
static inline hipError_t hipBindTextureToMipmappedArray(const struct texture<T, dim, readMode> &tex,
                                                        hipMipmappedArray_const_t mipmappedArray) {
  struct hipChannelFormatDesc desc;
  hipArray_t level;
  hipError_t err = hipGetMipmappedArrayLevel(&level, mipmappedArray, 0);
  if (err == hipSuccess)
    err = hipGetChannelDesc(&desc, level);
  return err == hipSuccess ? hipBindTextureToMipmappedArray(&tex, mipmappedArray, &desc) : err;
}
template <class T, int dim, enum hipTextureReadMode readMode>
static inline hipError_t hipUnbindTexture(const struct texture<T, dim, readMode> &tex) {
  return hipUnbindTexture(&tex);
}

/* ---- device fetches through a reference ---- */
#if defined(__HIPKFD_HIP_CLANG__)
#include <hip/amd_detail/texture_indirect_functions.h>

/* The fetch result of a reference: T, or floats of T's rank for normalized 8/16-bit reads. */
template <class T, enum hipTextureReadMode mode, class = void>
struct __hipkfd_texref_ret {
  typedef T type;
};
template <class T>
struct __hipkfd_texref_ret<T, hipReadModeNormalizedFloat,
                           typename std::enable_if<(sizeof(typename __hipkfd_tex_ret<T>::elem) < 4)>::type> {
  typedef typename std::conditional<
      __hipkfd_tex_ret<T>::rank == 1, typename std::conditional<std::is_scalar<T>::value, float, float1>::type,
      typename std::conditional<__hipkfd_tex_ret<T>::rank == 2, float2, float4>::type>::type type;
};
#define __HIPKFD_TEXREF_RET(T, mode) typename __hipkfd_texref_ret<T, mode>::type

template <class T, enum hipTextureReadMode mode>
static __device__ inline __HIPKFD_TEXREF_RET(T, mode) tex1Dfetch(texture<T, hipTextureType1D, mode> t, int x) {
  return tex1Dfetch<__HIPKFD_TEXREF_RET(T, mode)>(t.textureObject, x);
}
template <class T, enum hipTextureReadMode mode>
static __device__ inline __HIPKFD_TEXREF_RET(T, mode) tex1D(texture<T, hipTextureType1D, mode> t, float x) {
  return tex1D<__HIPKFD_TEXREF_RET(T, mode)>(t.textureObject, x);
}
template <class T, enum hipTextureReadMode mode>
static __device__ inline __HIPKFD_TEXREF_RET(T, mode) tex2D(texture<T, hipTextureType2D, mode> t, float x, float y) {
  return tex2D<__HIPKFD_TEXREF_RET(T, mode)>(t.textureObject, x, y);
}
template <class T, enum hipTextureReadMode mode>
static __device__ inline __HIPKFD_TEXREF_RET(T, mode) tex3D(texture<T, hipTextureType3D, mode> t, float x, float y,
                                                            float z) {
  return tex3D<__HIPKFD_TEXREF_RET(T, mode)>(t.textureObject, x, y, z);
}
template <class T, enum hipTextureReadMode mode>
static __device__ inline __HIPKFD_TEXREF_RET(T, mode) tex1DLayered(texture<T, hipTextureType1DLayered, mode> t,
                                                                   float x, int layer) {
  return tex1DLayered<__HIPKFD_TEXREF_RET(T, mode)>(t.textureObject, x, layer);
}
template <class T, enum hipTextureReadMode mode>
static __device__ inline __HIPKFD_TEXREF_RET(T, mode) tex2DLayered(texture<T, hipTextureType2DLayered, mode> t,
                                                                   float x, float y, int layer) {
  return tex2DLayered<__HIPKFD_TEXREF_RET(T, mode)>(t.textureObject, x, y, layer);
}
#undef __HIPKFD_TEXREF_RET
#endif

#endif
#endif
