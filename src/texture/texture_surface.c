/* Surface objects: hipCreateSurfaceObject / hipDestroySurfaceObject (texture.h).
 *
 * A surface is the image descriptor of a texture object without a sampler: ockl's image_load
 * and image_store read the T# at the handle and the channel type/order words after it to turn
 * byte x offsets into texel indices. Validation as clr (hipamd/src/hip_surface.cpp): the
 * resource must be a hipArray created with flags 0 or with hipArraySurfaceLoadStore; a device
 * without image instructions answers hipErrorNotSupported.
 */
#include <pthread.h>
#include <stdlib.h>

#include "../api/array.h"
#include "../runtime/error.h"
#include "texture.h"

struct surf_object {
	void *dev;
	hipResourceDesc res;
	struct surf_object *next;
};

static struct surf_object *surf_list;
static pthread_mutex_t surf_lock = PTHREAD_MUTEX_INITIALIZER;

static hipError_t surf_create(hipSurfaceObject_t *out, const hipResourceDesc *res)
{
	uint32_t words[HIP_TEX_OBJECT_DWORDS] = {0};
	const struct hipArray *a;
	hipError_t err;

	if ((err = hip_tex_device_check()) != hipSuccess)
		return err;
	if (!out || !res || res->resType != hipResourceTypeArray || !res->res.array.array)
		return hipErrorInvalidValue;
	a = hip_array_find(res->res.array.array);
	if (!a || (a->flags != 0 && !(a->flags & hipArraySurfaceLoadStore)))
		return hipErrorInvalidValue;
	if ((err = hip_tex_image_desc(res, false, words)) != hipSuccess)
		return err;
	struct surf_object *o = calloc(1, sizeof(*o));
	if (!o)
		return hipErrorOutOfMemory;
	o->res = *res;
	if ((err = hip_tex_upload(words, &o->dev)) != hipSuccess) {
		free(o);
		return err;
	}
	pthread_mutex_lock(&surf_lock);
	o->next = surf_list;
	surf_list = o;
	pthread_mutex_unlock(&surf_lock);
	*out = (hipSurfaceObject_t)o->dev;
	return hipSuccess;
}

hipError_t hipCreateSurfaceObject(hipSurfaceObject_t *pSurfObject, const hipResourceDesc *pResDesc)
{
	HIP_RETURN(surf_create(pSurfObject, pResDesc));
}

hipError_t hipDestroySurfaceObject(hipSurfaceObject_t surfaceObject)
{
	struct surf_object *o = NULL;

	if (!surfaceObject)
		HIP_RETURN(hipSuccess);
	pthread_mutex_lock(&surf_lock);
	for (struct surf_object **pp = &surf_list; *pp; pp = &(*pp)->next) {
		if ((*pp)->dev == (void *)surfaceObject) {
			o = *pp;
			*pp = o->next;
			break;
		}
	}
	pthread_mutex_unlock(&surf_lock);
	if (!o)
		HIP_RETURN(hipErrorInvalidValue);
	hipError_t err = hipFree(o->dev);
	free(o);
	HIP_RETURN(err);
}

/* ---- the C++-mangled names ROCm 5.2 headers emitted for these calls (api/abi_compat.c) ---- */

#define HIPKFD_EXPORT __attribute__((visibility("default")))

/* Through the gate (the exported wrappers), as a call of the C names would go (abi_compat.c). */
__typeof__(hipCreateSurfaceObject) gate_hipCreateSurfaceObject __asm__("hipCreateSurfaceObject");
__typeof__(hipDestroySurfaceObject) gate_hipDestroySurfaceObject __asm__("hipDestroySurfaceObject");

/* hipCreateSurfaceObject(hipSurfaceObject_t*, const hipResourceDesc*) */
HIPKFD_EXPORT hipError_t cxx_hipCreateSurfaceObject(hipSurfaceObject_t* surface, const hipResourceDesc* desc) __asm__(
    "_Z22hipCreateSurfaceObjectPP13__hip_surfacePK15hipResourceDesc");
hipError_t cxx_hipCreateSurfaceObject(hipSurfaceObject_t* surface, const hipResourceDesc* desc) {
  return gate_hipCreateSurfaceObject(surface, desc);
}

/* hipDestroySurfaceObject(hipSurfaceObject_t) */
HIPKFD_EXPORT hipError_t cxx_hipDestroySurfaceObject(hipSurfaceObject_t surface) __asm__(
    "_Z23hipDestroySurfaceObjectP13__hip_surface");
hipError_t cxx_hipDestroySurfaceObject(hipSurfaceObject_t surface) {
  return gate_hipDestroySurfaceObject(surface);
}
