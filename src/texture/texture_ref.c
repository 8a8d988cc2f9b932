/* Legacy texture references: hipBindTexture*, hipUnbindTexture, hipTexRef* and the
 * registration clang emits for `texture<T, dim, mode>` variables (texture.h).
 *
 * As clr (hipamd/src/hip_texture.cpp ihipBindTexture*): binding builds a texture object from the
 * reference's own fields (address/filter/read mode, normalized, sRGB, anisotropy, mip settings)
 * and the bound memory, stores it in the reference's textureObject, and copies the whole
 * reference to its device variable, where the kernels' tex2D(tex, ...) read textureObject.
 * The device variable is the one registered for the reference (__hipRegisterTexture, found
 * like any __device__ symbol) or, for hipModuleGetTexRef, the module global of that name.
 * Linear memory need not be aligned: it is bound from the aligned-down address and the
 * misalignment is returned as *offset (an error when offset is NULL), as clr and CUDA do.
 * Setters change the host reference only; the device sees the change at the next bind.
 * Not modelled: border colours (hipTexRef{Get,Set}BorderColor: textureReference has no such
 * field in this ABI) and mipmapped arrays: both answer hipErrorNotSupported.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "../api/array.h"
#include "../runtime/error.h"
#include "texture.h"

#define TEX_ALIGN 256u

/* Host side of a reference that is bound or came from hipModuleGetTexRef. */
struct tex_ref {
	const textureReference *ref;
	void *module_var;            /* hipModuleGetTexRef: the device global; else NULL */
	bool owned;                  /* the host reference was allocated here */
	const void *ptr;             /* bound linear or pitch2D memory (as the user gave it) */
	hipArray_const_t array;      /* bound array */
	size_t offset;               /* misalignment of ptr */
	struct tex_ref *next;
};

static struct tex_ref *ref_list;
static pthread_mutex_t ref_lock = PTHREAD_MUTEX_INITIALIZER;

/* The record of [in] ref, created when [in] create; NULL otherwise or without memory. Called
 * with ref_lock held. */
static struct tex_ref *ref_get(const textureReference *ref, bool create)
{
	struct tex_ref *r;

	for (r = ref_list; r; r = r->next)
		if (r->ref == ref)
			return r;
	if (!create || !(r = calloc(1, sizeof(*r))))
		return NULL;
	r->ref = ref;
	r->next = ref_list;
	ref_list = r;
	return r;
}

/* The device variable holding [in] ref's device copy. */
static hipError_t ref_device_var(const textureReference *ref, void **dptr)
{
	size_t size = 0;
	hipError_t err;

	pthread_mutex_lock(&ref_lock);
	struct tex_ref *r = ref_get(ref, false);
	*dptr = r ? r->module_var : NULL;
	pthread_mutex_unlock(&ref_lock);
	if (*dptr)
		return hipSuccess;
	if ((err = hipGetSymbolAddress(dptr, ref)) != hipSuccess ||
	    (err = hipGetSymbolSize(&size, ref)) != hipSuccess)
		return err;
	return size >= sizeof(textureReference) ? hipSuccess : hipErrorInvalidSymbol;
}

static void ref_tex_desc(const textureReference *ref, hipTextureDesc *d)
{
	memset(d, 0, sizeof(*d));
	memcpy(d->addressMode, ref->addressMode, sizeof(d->addressMode));
	d->filterMode = ref->filterMode;
	d->readMode = ref->readMode;
	d->sRGB = ref->sRGB;
	d->normalizedCoords = ref->normalized;
	d->maxAnisotropy = ref->maxAnisotropy;
	d->mipmapFilterMode = ref->mipmapFilterMode;
	d->mipmapLevelBias = ref->mipmapLevelBias;
	d->minMipmapLevelClamp = ref->minMipmapLevelClamp;
	d->maxMipmapLevelClamp = ref->maxMipmapLevelClamp;
}

/* Bind [in] ref to [in] res: a new texture object replaces the old one and the reference is
 * copied to its device variable. [in] ptr/array/offset are recorded for the getters. */
static hipError_t ref_bind(const textureReference *cref, const hipResourceDesc *res, const void *ptr,
			   size_t offset)
{
	textureReference *ref = (textureReference *)cref;   /* clr writes through the const too */
	hipTextureObject_t obj = NULL;
	hipTextureDesc td;
	void *dvar;
	hipError_t err;

	if ((err = hip_tex_device_check()) != hipSuccess)
		return err;
	if ((err = ref_device_var(ref, &dvar)) != hipSuccess)
		return err;
	ref_tex_desc(ref, &td);
	if ((err = hipCreateTextureObject(&obj, res, &td, NULL)) != hipSuccess)
		return err;
	pthread_mutex_lock(&ref_lock);
	struct tex_ref *r = ref_get(ref, true);
	pthread_mutex_unlock(&ref_lock);
	if (!r) {
		hipDestroyTextureObject(obj);
		return hipErrorOutOfMemory;
	}
	hipTextureObject_t old = ref->textureObject;
	ref->textureObject = obj;
	err = hipMemcpy(dvar, ref, sizeof(*ref), hipMemcpyHostToDevice);
	if (err != hipSuccess) {
		ref->textureObject = old;
		hipDestroyTextureObject(obj);
		return err;
	}
	if (old)
		hipDestroyTextureObject(old);
	pthread_mutex_lock(&ref_lock);
	r->ptr = ptr;
	r->array = res->resType == hipResourceTypeArray ? res->res.array.array : NULL;
	r->offset = offset;
	pthread_mutex_unlock(&ref_lock);
	return hipSuccess;
}

/* Linear memory from an unaligned pointer: the aligned-down base, the offset returned. */
static hipError_t bind_linear(size_t *offset, const textureReference *tex, const void *devPtr,
			      const hipChannelFormatDesc *desc, size_t size)
{
	hipResourceDesc res;
	size_t mis;

	if (!tex || !devPtr || !desc)
		return hipErrorInvalidValue;
	mis = (uintptr_t)devPtr % TEX_ALIGN;
	if (mis && !offset)
		return hipErrorInvalidValue;
	memset(&res, 0, sizeof(res));
	res.resType = hipResourceTypeLinear;
	res.res.linear.devPtr = (char *)devPtr - mis;
	res.res.linear.desc = *desc;
	res.res.linear.sizeInBytes = size + mis;
	hipError_t err = ref_bind(tex, &res, devPtr, mis);
	if (err == hipSuccess && offset)
		*offset = mis;
	return err;
}

hipError_t hipBindTexture(size_t *offset, const textureReference *tex, const void *devPtr,
			  const hipChannelFormatDesc *desc, size_t size)
{
	HIP_RETURN(bind_linear(offset, tex, devPtr, desc, size));
}

static hipError_t bind_2d(size_t *offset, const textureReference *tex, const void *devPtr,
			  const hipChannelFormatDesc *desc, size_t width, size_t height, size_t pitch)
{
	hipResourceDesc res;

	if (!tex || !devPtr || !desc)
		return hipErrorInvalidValue;
	memset(&res, 0, sizeof(res));
	res.resType = hipResourceTypePitch2D;
	res.res.pitch2D.devPtr = (void *)devPtr;
	res.res.pitch2D.desc = *desc;
	res.res.pitch2D.width = width;
	res.res.pitch2D.height = height;
	res.res.pitch2D.pitchInBytes = pitch;
	hipError_t err = ref_bind(tex, &res, devPtr, 0);
	if (err == hipSuccess && offset)
		*offset = 0;
	return err;
}

hipError_t hipBindTexture2D(size_t *offset, const textureReference *tex, const void *devPtr,
			    const hipChannelFormatDesc *desc, size_t width, size_t height, size_t pitch)
{
	HIP_RETURN(bind_2d(offset, tex, devPtr, desc, width, height, pitch));
}

static hipError_t bind_array(const textureReference *tex, hipArray_const_t array)
{
	hipResourceDesc res;

	if (!tex || !array)
		return hipErrorInvalidValue;
	memset(&res, 0, sizeof(res));
	res.resType = hipResourceTypeArray;
	res.res.array.array = (hipArray_t)array;
	return ref_bind(tex, &res, NULL, 0);
}

hipError_t hipBindTextureToArray(const textureReference *tex, hipArray_const_t array,
				 const hipChannelFormatDesc *desc)
{
	if (!desc)
		HIP_RETURN(hipErrorInvalidValue);
	HIP_RETURN(bind_array(tex, array));
}

hipError_t hipBindTextureToMipmappedArray(const textureReference *tex,
					  hipMipmappedArray_const_t mipmappedArray,
					  const hipChannelFormatDesc *desc)
{
	if (!tex || !mipmappedArray || !desc)
		HIP_RETURN(hipErrorInvalidValue);
	HIP_RETURN(hipErrorNotSupported);   /* mipmapped textures are not modelled */
}

hipError_t hipUnbindTexture(const textureReference *tex)
{
	textureReference *ref = (textureReference *)tex;
	hipError_t err = hipSuccess;

	if (!ref)
		HIP_RETURN(hipErrorInvalidValue);
	if (ref->textureObject) {
		err = hipDestroyTextureObject(ref->textureObject);
		ref->textureObject = NULL;
	}
	pthread_mutex_lock(&ref_lock);
	struct tex_ref *r = ref_get(ref, false);
	if (r) {
		r->ptr = NULL;
		r->array = NULL;
		r->offset = 0;
	}
	pthread_mutex_unlock(&ref_lock);
	HIP_RETURN(err);
}

hipError_t hipGetTextureAlignmentOffset(size_t *offset, const textureReference *texref)
{
	bool bound = false;

	if (!offset || !texref)
		HIP_RETURN(hipErrorInvalidValue);
	pthread_mutex_lock(&ref_lock);
	struct tex_ref *r = ref_get(texref, false);
	if (r && (r->ptr || r->array)) {
		*offset = r->offset;
		bound = true;
	}
	pthread_mutex_unlock(&ref_lock);
	HIP_RETURN(bound ? hipSuccess : hipErrorInvalidTexture);
}

hipError_t hipGetTextureReference(const textureReference **texref, const void *symbol)
{
	void *dvar;
	hipError_t err;

	if (!texref || !symbol)
		HIP_RETURN(hipErrorInvalidValue);
	if ((err = ref_device_var(symbol, &dvar)) != hipSuccess)
		HIP_RETURN(err);
	*texref = (const textureReference *)symbol;
	HIP_RETURN(hipSuccess);
}

hipError_t hipModuleGetTexRef(textureReference **texRef, hipModule_t hmod, const char *name)
{
	hipDeviceptr_t dptr;
	size_t bytes;
	hipError_t err;

	if (!texRef || !hmod || !name)
		HIP_RETURN(hipErrorInvalidValue);
	if ((err = hipModuleGetGlobal(&dptr, &bytes, hmod, name)) != hipSuccess)
		HIP_RETURN(err);
	if (bytes < sizeof(textureReference))
		HIP_RETURN(hipErrorInvalidValue);
	pthread_mutex_lock(&ref_lock);
	struct tex_ref *r;
	for (r = ref_list; r && r->module_var != (void *)dptr; r = r->next)
		;
	if (!r) {
		textureReference *ref = calloc(1, sizeof(*ref));
		if (ref && !(r = ref_get(ref, true)))
			free(ref);
		if (r) {
			ref->format = HIP_AD_FORMAT_FLOAT;
			ref->numChannels = 1;
			r->module_var = (void *)dptr;
			r->owned = true;
		}
	}
	if (r)
		*texRef = (textureReference *)r->ref;
	pthread_mutex_unlock(&ref_lock);
	HIP_RETURN(r ? hipSuccess : hipErrorOutOfMemory);
}

/* ---- driver API: binding ---- */

static hipChannelFormatDesc desc_of_format(hipArray_Format f, unsigned n)
{
	int b = 0;
	enum hipChannelFormatKind k = hipChannelFormatKindUnsigned;

	switch (f) {
	case HIP_AD_FORMAT_SIGNED_INT8: k = hipChannelFormatKindSigned; /* fall through */
	case HIP_AD_FORMAT_UNSIGNED_INT8: b = 8; break;
	case HIP_AD_FORMAT_SIGNED_INT16: k = hipChannelFormatKindSigned; /* fall through */
	case HIP_AD_FORMAT_UNSIGNED_INT16: b = 16; break;
	case HIP_AD_FORMAT_SIGNED_INT32: k = hipChannelFormatKindSigned; /* fall through */
	case HIP_AD_FORMAT_UNSIGNED_INT32: b = 32; break;
	case HIP_AD_FORMAT_HALF: k = hipChannelFormatKindFloat; b = 16; break;
	case HIP_AD_FORMAT_FLOAT: k = hipChannelFormatKindFloat; b = 32; break;
	}
	hipChannelFormatDesc d = {b, n >= 2 ? b : 0, n >= 3 ? b : 0, n >= 4 ? b : 0, k};
	return d;
}

hipError_t hipTexRefSetArray(textureReference *tex, hipArray_const_t array, unsigned int flags)
{
	if (!tex || !array || flags != HIP_TRSA_OVERRIDE_FORMAT)
		HIP_RETURN(hipErrorInvalidValue);
	HIP_RETURN(bind_array(tex, array));
}

hipError_t hipTexRefSetAddress(size_t *ByteOffset, textureReference *texRef, hipDeviceptr_t dptr,
			       size_t bytes)
{
	if (!texRef)
		HIP_RETURN(hipErrorInvalidValue);
	hipChannelFormatDesc d = desc_of_format(texRef->format, (unsigned)texRef->numChannels);
	HIP_RETURN(bind_linear(ByteOffset, texRef, (const void *)dptr, &d, bytes));
}

hipError_t hipTexRefSetAddress2D(textureReference *texRef, const HIP_ARRAY_DESCRIPTOR *desc,
				 hipDeviceptr_t dptr, size_t Pitch)
{
	if (!texRef || !desc)
		HIP_RETURN(hipErrorInvalidValue);
	hipChannelFormatDesc d = desc_of_format(desc->Format, desc->NumChannels);
	HIP_RETURN(bind_2d(NULL, texRef, (const void *)dptr, &d, desc->Width, desc->Height, Pitch));
}

hipError_t hipTexRefSetMipmappedArray(textureReference *texRef, struct hipMipmappedArray *mipmappedArray,
				      unsigned int Flags)
{
	(void)Flags;
	if (!texRef || !mipmappedArray)
		HIP_RETURN(hipErrorInvalidValue);
	HIP_RETURN(hipErrorNotSupported);   /* mipmapped textures are not modelled */
}

/* ---- driver API: fields ---- */

hipError_t hipTexRefSetFormat(textureReference *texRef, hipArray_Format fmt, int NumPackedComponents)
{
	hipChannelFormatDesc d = desc_of_format(fmt, (unsigned)NumPackedComponents);

	if (!texRef || d.x == 0 || (NumPackedComponents != 1 && NumPackedComponents != 2 &&
				    NumPackedComponents != 4))
		HIP_RETURN(hipErrorInvalidValue);
	texRef->format = fmt;
	texRef->numChannels = NumPackedComponents;
	texRef->channelDesc = d;
	HIP_RETURN(hipSuccess);
}

hipError_t hipTexRefSetFlags(textureReference *texRef, unsigned int Flags)
{
	if (!texRef)
		HIP_RETURN(hipErrorInvalidValue);
	texRef->readMode = (Flags & HIP_TRSF_READ_AS_INTEGER) ? hipReadModeElementType : hipReadModeNormalizedFloat;
	texRef->normalized = (Flags & HIP_TRSF_NORMALIZED_COORDINATES) ? 1 : 0;
	texRef->sRGB = (Flags & HIP_TRSF_SRGB) ? 1 : 0;
	HIP_RETURN(hipSuccess);
}

hipError_t hipTexRefGetFlags(unsigned int *pFlags, const textureReference *texRef)
{
	if (!pFlags || !texRef)
		HIP_RETURN(hipErrorInvalidValue);
	*pFlags = (texRef->readMode == hipReadModeElementType ? HIP_TRSF_READ_AS_INTEGER : 0) |
		  (texRef->normalized ? HIP_TRSF_NORMALIZED_COORDINATES : 0) | (texRef->sRGB ? HIP_TRSF_SRGB : 0);
	HIP_RETURN(hipSuccess);
}

hipError_t hipTexRefSetFilterMode(textureReference *texRef, enum hipTextureFilterMode fm)
{
	if (!texRef || (unsigned)fm > hipFilterModeLinear)
		HIP_RETURN(hipErrorInvalidValue);
	texRef->filterMode = fm;
	HIP_RETURN(hipSuccess);
}

hipError_t hipTexRefGetFilterMode(enum hipTextureFilterMode *pfm, const textureReference *texRef)
{
	if (!pfm || !texRef)
		HIP_RETURN(hipErrorInvalidValue);
	*pfm = texRef->filterMode;
	HIP_RETURN(hipSuccess);
}

hipError_t hipTexRefSetAddressMode(textureReference *texRef, int dim, enum hipTextureAddressMode am)
{
	if (!texRef || dim < 0 || dim > 2 || (unsigned)am > hipAddressModeBorder)
		HIP_RETURN(hipErrorInvalidValue);
	texRef->addressMode[dim] = am;
	HIP_RETURN(hipSuccess);
}

hipError_t hipTexRefGetAddressMode(enum hipTextureAddressMode *pam, const textureReference *texRef, int dim)
{
	if (!pam || !texRef || dim < 0 || dim > 2)
		HIP_RETURN(hipErrorInvalidValue);
	*pam = texRef->addressMode[dim];
	HIP_RETURN(hipSuccess);
}

hipError_t hipTexRefGetFormat(hipArray_Format *pFormat, int *pNumChannels, const textureReference *texRef)
{
	if (!pFormat || !pNumChannels || !texRef)
		HIP_RETURN(hipErrorInvalidValue);
	*pFormat = texRef->format;
	*pNumChannels = texRef->numChannels;
	HIP_RETURN(hipSuccess);
}

hipError_t hipTexRefSetMaxAnisotropy(textureReference *texRef, unsigned int maxAniso)
{
	if (!texRef)
		HIP_RETURN(hipErrorInvalidValue);
	texRef->maxAnisotropy = maxAniso;
	HIP_RETURN(hipSuccess);
}

hipError_t hipTexRefGetMaxAnisotropy(int *pmaxAnsio, const textureReference *texRef)
{
	if (!pmaxAnsio || !texRef)
		HIP_RETURN(hipErrorInvalidValue);
	*pmaxAnsio = (int)texRef->maxAnisotropy;
	HIP_RETURN(hipSuccess);
}

hipError_t hipTexRefSetMipmapFilterMode(textureReference *texRef, enum hipTextureFilterMode fm)
{
	if (!texRef || (unsigned)fm > hipFilterModeLinear)
		HIP_RETURN(hipErrorInvalidValue);
	texRef->mipmapFilterMode = fm;
	HIP_RETURN(hipSuccess);
}

hipError_t hipTexRefGetMipmapFilterMode(enum hipTextureFilterMode *pfm, const textureReference *texRef)
{
	if (!pfm || !texRef)
		HIP_RETURN(hipErrorInvalidValue);
	*pfm = texRef->mipmapFilterMode;
	HIP_RETURN(hipSuccess);
}

hipError_t hipTexRefSetMipmapLevelBias(textureReference *texRef, float bias)
{
	if (!texRef)
		HIP_RETURN(hipErrorInvalidValue);
	texRef->mipmapLevelBias = bias;
	HIP_RETURN(hipSuccess);
}

hipError_t hipTexRefGetMipmapLevelBias(float *pbias, const textureReference *texRef)
{
	if (!pbias || !texRef)
		HIP_RETURN(hipErrorInvalidValue);
	*pbias = texRef->mipmapLevelBias;
	HIP_RETURN(hipSuccess);
}

hipError_t hipTexRefSetMipmapLevelClamp(textureReference *texRef, float minMipMapLevelClamp,
					float maxMipMapLevelClamp)
{
	if (!texRef)
		HIP_RETURN(hipErrorInvalidValue);
	texRef->minMipmapLevelClamp = minMipMapLevelClamp;
	texRef->maxMipmapLevelClamp = maxMipMapLevelClamp;
	HIP_RETURN(hipSuccess);
}

hipError_t hipTexRefGetMipmapLevelClamp(float *pminMipmapLevelClamp, float *pmaxMipmapLevelClamp,
					const textureReference *texRef)
{
	if (!pminMipmapLevelClamp || !pmaxMipmapLevelClamp || !texRef)
		HIP_RETURN(hipErrorInvalidValue);
	*pminMipmapLevelClamp = texRef->minMipmapLevelClamp;
	*pmaxMipmapLevelClamp = texRef->maxMipmapLevelClamp;
	HIP_RETURN(hipSuccess);
}

hipError_t hipTexRefSetBorderColor(textureReference *texRef, float *pBorderColor)
{
	if (!texRef || !pBorderColor)
		HIP_RETURN(hipErrorInvalidValue);
	HIP_RETURN(hipErrorNotSupported);   /* no border colour in this textureReference layout */
}

hipError_t hipTexRefGetBorderColor(float *pBorderColor, const textureReference *texRef)
{
	if (!pBorderColor || !texRef)
		HIP_RETURN(hipErrorInvalidValue);
	HIP_RETURN(hipErrorNotSupported);
}

hipError_t hipTexRefGetAddress(hipDeviceptr_t *dev_ptr, const textureReference *texRef)
{
	const void *p = NULL;

	if (!dev_ptr || !texRef)
		HIP_RETURN(hipErrorInvalidValue);
	pthread_mutex_lock(&ref_lock);
	struct tex_ref *r = ref_get(texRef, false);
	if (r)
		p = r->ptr;
	pthread_mutex_unlock(&ref_lock);
	if (!p)
		HIP_RETURN(hipErrorInvalidValue);   /* not bound to linear memory */
	*dev_ptr = (hipDeviceptr_t)p;
	HIP_RETURN(hipSuccess);
}

hipError_t hipTexRefGetArray(hipArray_t *pArray, const textureReference *texRef)
{
	hipArray_const_t a = NULL;

	if (!pArray || !texRef)
		HIP_RETURN(hipErrorInvalidValue);
	pthread_mutex_lock(&ref_lock);
	struct tex_ref *r = ref_get(texRef, false);
	if (r)
		a = r->array;
	pthread_mutex_unlock(&ref_lock);
	if (!a)
		HIP_RETURN(hipErrorInvalidValue);   /* not bound to an array */
	*pArray = (hipArray_t)a;
	HIP_RETURN(hipSuccess);
}

hipError_t hipTexRefGetMipMappedArray(hipMipmappedArray_t *pArray, const textureReference *texRef)
{
	if (!pArray || !texRef)
		HIP_RETURN(hipErrorInvalidValue);
	HIP_RETURN(hipErrorNotSupported);   /* references are never bound to mipmapped arrays */
}

/* ---- compiler ABI ---- */

void __hipRegisterVar(void **modules, void *var, char *hostVar, char *deviceVar, int ext,
		      size_t size, int constant, int global);

/* clang registers a `texture<...>` variable here: it is a device variable the size of a
 * textureReference, found afterwards like any __device__ symbol (register.c). */
void __hipRegisterTexture(void **modules, void *var, char *hostVar, char *deviceVar, int type,
			  int norm, int ext);
void __hipRegisterTexture(void **modules, void *var, char *hostVar, char *deviceVar, int type,
			  int norm, int ext)
{
	(void)type;
	(void)norm;
	__hipRegisterVar(modules, var, hostVar, deviceVar, ext, sizeof(textureReference), 0, 0);
}

void __hipRegisterSurface(void **modules, void *var, char *hostVar, char *deviceVar, int type, int ext);
void __hipRegisterSurface(void **modules, void *var, char *hostVar, char *deviceVar, int type, int ext)
{
	(void)type;
	__hipRegisterVar(modules, var, hostVar, deviceVar, ext, sizeof(struct surfaceReference), 0, 0);
}
