/* Texture and surface objects: gfx9 image descriptors in device memory (texture.c).
 *
 * A hipTextureObject_t is the device address of 20 dwords, the layout AMD's runtime gives its
 * __hip_texture and AMD's device library (ockl) reads:
 *   dwords 0-7   the image resource T# (or, for linear memory, the buffer resource V# in 0-3),
 *   dwords 8-10  channel type, channel order (HSA image enums) and width, read by ockl,
 *   dwords 12-15 the sampler S# (HIP_SAMPLER_OBJECT_OFFSET_DWORD = 12).
 * A hipSurfaceObject_t is the same object without a sampler.
 */
#ifndef HIPKFD_TEXTURE_TEXTURE_H
#define HIPKFD_TEXTURE_TEXTURE_H

#include <stdbool.h>
#include <stdint.h>

#include <hip/hip_runtime_api.h>

#define HIP_TEX_OBJECT_DWORDS 20

/* Fill dwords 0-11 of [out] for the resource [in] res read as [in] normalized (read mode
 * hipReadModeNormalizedFloat on 8/16-bit integer formats). hipSuccess, hipErrorInvalidValue for
 * a bad description, hipErrorNotSupported for a resource the model lacks (mipmaps, cubemaps). */
hipError_t hip_tex_image_desc(const hipResourceDesc *res, bool normalized, uint32_t out[12]);

/* hipSuccess when the current device has image instructions (gfx9 before gfx940), else
 * hipErrorNotSupported (or the initialisation error). */
hipError_t hip_tex_device_check(void);

/* Copy [in] words to new device memory; *[out] dev is its address. */
hipError_t hip_tex_upload(const uint32_t words[HIP_TEX_OBJECT_DWORDS], void **dev);

#endif
