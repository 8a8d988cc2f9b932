/* Driver-API texture objects (hipTexObject*): the HIP_RESOURCE_DESC / HIP_TEXTURE_DESC /
 * HIP_RESOURCE_VIEW_DESC spellings of hipCreateTextureObject and its queries (texture.c).
 *
 * Conversions as clr's hip_conversions.hpp: a linear or pitch2D resource's format and channel
 * count become a channel description of equal-width channels; HIP_TRSF_READ_AS_INTEGER selects
 * hipReadModeElementType (else normalized float reads), HIP_TRSF_NORMALIZED_COORDINATES and
 * HIP_TRSF_SRGB map to their hipTextureDesc fields. The view formats share one numbering.
 */
#include <string.h>

#include "../runtime/error.h"

static unsigned fmt_bits(hipArray_Format f)
{
	switch (f) {
	case HIP_AD_FORMAT_UNSIGNED_INT8: case HIP_AD_FORMAT_SIGNED_INT8: return 8;
	case HIP_AD_FORMAT_UNSIGNED_INT16: case HIP_AD_FORMAT_SIGNED_INT16: case HIP_AD_FORMAT_HALF: return 16;
	case HIP_AD_FORMAT_UNSIGNED_INT32: case HIP_AD_FORMAT_SIGNED_INT32: case HIP_AD_FORMAT_FLOAT: return 32;
	}
	return 0;
}

static enum hipChannelFormatKind fmt_kind(hipArray_Format f)
{
	switch (f) {
	case HIP_AD_FORMAT_SIGNED_INT8: case HIP_AD_FORMAT_SIGNED_INT16: case HIP_AD_FORMAT_SIGNED_INT32:
		return hipChannelFormatKindSigned;
	case HIP_AD_FORMAT_HALF: case HIP_AD_FORMAT_FLOAT:
		return hipChannelFormatKindFloat;
	default:
		return hipChannelFormatKindUnsigned;
	}
}

/* An invalid format yields a description with x = 0, which the runtime path rejects. */
static struct hipChannelFormatDesc desc_of(hipArray_Format f, unsigned n)
{
	int b = (int)fmt_bits(f);
	struct hipChannelFormatDesc d = {b, n >= 2 ? b : 0, n >= 3 ? b : 0, n >= 4 ? b : 0, fmt_kind(f)};
	return d;
}

static bool format_of(const struct hipChannelFormatDesc *d, hipArray_Format *f, unsigned *n)
{
	static const hipArray_Format by_kind[3][3] = {
		{HIP_AD_FORMAT_SIGNED_INT8, HIP_AD_FORMAT_SIGNED_INT16, HIP_AD_FORMAT_SIGNED_INT32},
		{HIP_AD_FORMAT_UNSIGNED_INT8, HIP_AD_FORMAT_UNSIGNED_INT16, HIP_AD_FORMAT_UNSIGNED_INT32},
		{HIP_AD_FORMAT_HALF, HIP_AD_FORMAT_HALF, HIP_AD_FORMAT_FLOAT}};
	int i = d->x == 8 ? 0 : d->x == 16 ? 1 : d->x == 32 ? 2 : -1;
	if (i < 0 || (unsigned)d->f > hipChannelFormatKindFloat)
		return false;
	*f = by_kind[d->f][i];
	*n = 1 + (d->y != 0) + (d->z != 0) + (d->w != 0);
	return true;
}

static hipError_t res_from_drv(hipResourceDesc *r, const HIP_RESOURCE_DESC *d)
{
	memset(r, 0, sizeof(*r));
	r->resType = (enum hipResourceType)d->resType;
	switch (d->resType) {
	case HIP_RESOURCE_TYPE_ARRAY:
		r->res.array.array = d->res.array.hArray;
		break;
	case HIP_RESOURCE_TYPE_MIPMAPPED_ARRAY:
		r->res.mipmap.mipmap = d->res.mipmap.hMipmappedArray;
		break;
	case HIP_RESOURCE_TYPE_LINEAR:
		r->res.linear.devPtr = d->res.linear.devPtr;
		r->res.linear.desc = desc_of(d->res.linear.format, d->res.linear.numChannels);
		r->res.linear.sizeInBytes = d->res.linear.sizeInBytes;
		break;
	case HIP_RESOURCE_TYPE_PITCH2D:
		r->res.pitch2D.devPtr = d->res.pitch2D.devPtr;
		r->res.pitch2D.desc = desc_of(d->res.pitch2D.format, d->res.pitch2D.numChannels);
		r->res.pitch2D.width = d->res.pitch2D.width;
		r->res.pitch2D.height = d->res.pitch2D.height;
		r->res.pitch2D.pitchInBytes = d->res.pitch2D.pitchInBytes;
		break;
	default:
		return hipErrorInvalidValue;
	}
	return hipSuccess;
}

static void res_to_drv(HIP_RESOURCE_DESC *d, const hipResourceDesc *r)
{
	memset(d, 0, sizeof(*d));
	d->resType = (HIPresourcetype)r->resType;
	switch (r->resType) {
	case hipResourceTypeArray:
		d->res.array.hArray = r->res.array.array;
		break;
	case hipResourceTypeMipmappedArray:
		d->res.mipmap.hMipmappedArray = r->res.mipmap.mipmap;
		break;
	case hipResourceTypeLinear:
		d->res.linear.devPtr = r->res.linear.devPtr;
		format_of(&r->res.linear.desc, &d->res.linear.format, &d->res.linear.numChannels);
		d->res.linear.sizeInBytes = r->res.linear.sizeInBytes;
		break;
	case hipResourceTypePitch2D:
		d->res.pitch2D.devPtr = r->res.pitch2D.devPtr;
		format_of(&r->res.pitch2D.desc, &d->res.pitch2D.format, &d->res.pitch2D.numChannels);
		d->res.pitch2D.width = r->res.pitch2D.width;
		d->res.pitch2D.height = r->res.pitch2D.height;
		d->res.pitch2D.pitchInBytes = r->res.pitch2D.pitchInBytes;
		break;
	}
}

static void tex_from_drv(hipTextureDesc *t, const HIP_TEXTURE_DESC *d)
{
	memset(t, 0, sizeof(*t));
	for (int i = 0; i < 3; i++)
		t->addressMode[i] = (enum hipTextureAddressMode)d->addressMode[i];
	t->filterMode = (enum hipTextureFilterMode)d->filterMode;
	t->readMode = (d->flags & HIP_TRSF_READ_AS_INTEGER) ? hipReadModeElementType : hipReadModeNormalizedFloat;
	t->normalizedCoords = (d->flags & HIP_TRSF_NORMALIZED_COORDINATES) != 0;
	t->sRGB = (d->flags & HIP_TRSF_SRGB) != 0;
	memcpy(t->borderColor, d->borderColor, sizeof(t->borderColor));
	t->maxAnisotropy = d->maxAnisotropy;
	t->mipmapFilterMode = (enum hipTextureFilterMode)d->mipmapFilterMode;
	t->mipmapLevelBias = d->mipmapLevelBias;
	t->minMipmapLevelClamp = d->minMipmapLevelClamp;
	t->maxMipmapLevelClamp = d->maxMipmapLevelClamp;
}

static void tex_to_drv(HIP_TEXTURE_DESC *d, const hipTextureDesc *t)
{
	memset(d, 0, sizeof(*d));
	for (int i = 0; i < 3; i++)
		d->addressMode[i] = (HIPaddress_mode)t->addressMode[i];
	d->filterMode = (HIPfilter_mode)t->filterMode;
	d->flags = (t->readMode == hipReadModeElementType ? HIP_TRSF_READ_AS_INTEGER : 0) |
		   (t->normalizedCoords ? HIP_TRSF_NORMALIZED_COORDINATES : 0) | (t->sRGB ? HIP_TRSF_SRGB : 0);
	memcpy(d->borderColor, t->borderColor, sizeof(d->borderColor));
	d->maxAnisotropy = t->maxAnisotropy;
	d->mipmapFilterMode = (HIPfilter_mode)t->mipmapFilterMode;
	d->mipmapLevelBias = t->mipmapLevelBias;
	d->minMipmapLevelClamp = t->minMipmapLevelClamp;
	d->maxMipmapLevelClamp = t->maxMipmapLevelClamp;
}

static void view_from_drv(struct hipResourceViewDesc *v, const HIP_RESOURCE_VIEW_DESC *d)
{
	v->format = (enum hipResourceViewFormat)d->format;
	v->width = d->width;
	v->height = d->height;
	v->depth = d->depth;
	v->firstMipmapLevel = d->firstMipmapLevel;
	v->lastMipmapLevel = d->lastMipmapLevel;
	v->firstLayer = d->firstLayer;
	v->lastLayer = d->lastLayer;
}

hipError_t hipTexObjectCreate(hipTextureObject_t *pTexObject, const HIP_RESOURCE_DESC *pResDesc,
			      const HIP_TEXTURE_DESC *pTexDesc, const HIP_RESOURCE_VIEW_DESC *pResViewDesc)
{
	hipResourceDesc r;
	hipTextureDesc t;
	struct hipResourceViewDesc v;

	if (!pTexObject || !pResDesc || !pTexDesc)
		HIP_RETURN(hipErrorInvalidValue);
	HIP_RETURN_IF_ERROR(res_from_drv(&r, pResDesc));
	tex_from_drv(&t, pTexDesc);
	if (pResViewDesc)
		view_from_drv(&v, pResViewDesc);
	return hipCreateTextureObject(pTexObject, &r, &t, pResViewDesc ? &v : NULL);
}

hipError_t hipTexObjectDestroy(hipTextureObject_t texObject)
{
	return hipDestroyTextureObject(texObject);
}

hipError_t hipTexObjectGetResourceDesc(HIP_RESOURCE_DESC *pResDesc, hipTextureObject_t texObject)
{
	hipResourceDesc r;

	if (!pResDesc)
		HIP_RETURN(hipErrorInvalidValue);
	HIP_RETURN_IF_ERROR(hipGetTextureObjectResourceDesc(&r, texObject));
	res_to_drv(pResDesc, &r);
	HIP_RETURN(hipSuccess);
}

hipError_t hipTexObjectGetResourceViewDesc(HIP_RESOURCE_VIEW_DESC *pResViewDesc, hipTextureObject_t texObject)
{
	struct hipResourceViewDesc v;

	if (!pResViewDesc)
		HIP_RETURN(hipErrorInvalidValue);
	HIP_RETURN_IF_ERROR(hipGetTextureObjectResourceViewDesc(&v, texObject));
	memset(pResViewDesc, 0, sizeof(*pResViewDesc));
	pResViewDesc->format = (HIPresourceViewFormat)v.format;
	pResViewDesc->width = v.width;
	pResViewDesc->height = v.height;
	pResViewDesc->depth = v.depth;
	pResViewDesc->firstMipmapLevel = v.firstMipmapLevel;
	pResViewDesc->lastMipmapLevel = v.lastMipmapLevel;
	pResViewDesc->firstLayer = v.firstLayer;
	pResViewDesc->lastLayer = v.lastLayer;
	HIP_RETURN(hipSuccess);
}

hipError_t hipTexObjectGetTextureDesc(HIP_TEXTURE_DESC *pTexDesc, hipTextureObject_t texObject)
{
	hipTextureDesc t;

	if (!pTexDesc)
		HIP_RETURN(hipErrorInvalidValue);
	HIP_RETURN_IF_ERROR(hipGetTextureObjectTextureDesc(&t, texObject));
	tex_to_drv(pTexDesc, &t);
	HIP_RETURN(hipSuccess);
}
