/* HIP arrays backed by linear device memory: creation, queries, destruction (array.h).
 *
 * Validation follows clr (hipamd/src/hip_memory.cpp ihipArrayCreate, hip_conversions.hpp
 * CheckArrayFormat): 1, 2 or 4 channels of one size, the flags clr accepts (cubemaps are not
 * supported), texture gather only on 2D arrays. Handles are checked against the list of live
 * arrays, so a stale or foreign pointer is an error rather than a crash.
 * Mipmapped arrays (mipmap.c) are a set of such arrays, one per level.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "array.h"
#include "device_props.h"
#include "../runtime/runtime.h"
#include "../runtime/error.h"

/* Every live array; protected by array_lock. */
static struct hipArray *array_list;
static pthread_mutex_t array_lock = PTHREAD_MUTEX_INITIALIZER;

struct hipArray *hip_array_find(const struct hipArray *a)
{
	struct hipArray *it;

	if (!a)
		return NULL;
	pthread_mutex_lock(&array_lock);
	for (it = array_list; it && it != a; it = it->next)
		;
	pthread_mutex_unlock(&array_lock);
	return it;
}

static void array_list_add(struct hipArray *a)
{
	pthread_mutex_lock(&array_lock);
	a->next = array_list;
	array_list = a;
	pthread_mutex_unlock(&array_lock);
}

/* Unlink [in] a: hipErrorContextIsDestroyed (clr's answer) when it is not a live array,
 * hipErrorInvalidValue for a mipmap level unless [in] as_level. */
static hipError_t array_list_remove(struct hipArray *a, bool as_level)
{
	hipError_t err = hipErrorContextIsDestroyed;

	pthread_mutex_lock(&array_lock);
	for (struct hipArray **pp = &array_list; *pp; pp = &(*pp)->next) {
		if (*pp == a) {
			if (a->mip_level && !as_level) {
				err = hipErrorInvalidValue;
				break;
			}
			*pp = a->next;
			err = hipSuccess;
			break;
		}
	}
	pthread_mutex_unlock(&array_lock);
	return err;
}

/* Bytes of one channel of [in] f; 0 for an unknown format. */
static size_t format_bytes(enum hipArray_Format f)
{
	switch (f) {
	case HIP_AD_FORMAT_UNSIGNED_INT8:
	case HIP_AD_FORMAT_SIGNED_INT8:
		return 1;
	case HIP_AD_FORMAT_UNSIGNED_INT16:
	case HIP_AD_FORMAT_SIGNED_INT16:
	case HIP_AD_FORMAT_HALF:
		return 2;
	case HIP_AD_FORMAT_UNSIGNED_INT32:
	case HIP_AD_FORMAT_SIGNED_INT32:
	case HIP_AD_FORMAT_FLOAT:
		return 4;
	}
	return 0;
}

/* The channel description of [in] n channels of [in] f (clr getChannelFormatDesc). */
static struct hipChannelFormatDesc desc_of_format(unsigned n, enum hipArray_Format f)
{
	struct hipChannelFormatDesc d = {0, 0, 0, 0, hipChannelFormatKindNone};
	int bits = (int)format_bytes(f) * 8;

	switch (f) {
	case HIP_AD_FORMAT_UNSIGNED_INT8:
	case HIP_AD_FORMAT_UNSIGNED_INT16:
	case HIP_AD_FORMAT_UNSIGNED_INT32:
		d.f = hipChannelFormatKindUnsigned;
		break;
	case HIP_AD_FORMAT_SIGNED_INT8:
	case HIP_AD_FORMAT_SIGNED_INT16:
	case HIP_AD_FORMAT_SIGNED_INT32:
		d.f = hipChannelFormatKindSigned;
		break;
	case HIP_AD_FORMAT_HALF:
	case HIP_AD_FORMAT_FLOAT:
		d.f = hipChannelFormatKindFloat;
		break;
	}
	d.x = bits;
	d.y = n >= 2 ? bits : 0;
	d.z = n >= 3 ? bits : 0;
	d.w = n >= 4 ? bits : 0;
	return d;
}

/* The driver-API format and channel count of a channel description; false when clr's
 * CheckArrayFormat rejects it or no format matches. */
bool hip_array_format_of_desc(const struct hipChannelFormatDesc *d, enum hipArray_Format *f,
			      unsigned *n)
{
	if (d->x == 0 || (d->y && d->y != d->x) || (d->z && d->z != d->x) ||
	    (d->w && d->w != d->x))
		return false;
	/* No channel after an empty one. */
	if ((d->y == 0 && (d->z || d->w)) || (d->z == 0 && d->w))
		return false;
	*n = 1 + (d->y != 0) + (d->z != 0) + (d->w != 0);
	switch (d->f) {
	case hipChannelFormatKindUnsigned:
	case hipChannelFormatKindSigned: {
		bool u = d->f == hipChannelFormatKindUnsigned;
		if (d->x == 8)
			*f = u ? HIP_AD_FORMAT_UNSIGNED_INT8 : HIP_AD_FORMAT_SIGNED_INT8;
		else if (d->x == 16)
			*f = u ? HIP_AD_FORMAT_UNSIGNED_INT16 : HIP_AD_FORMAT_SIGNED_INT16;
		else if (d->x == 32)
			*f = u ? HIP_AD_FORMAT_UNSIGNED_INT32 : HIP_AD_FORMAT_SIGNED_INT32;
		else
			return false;
		return true;
	}
	case hipChannelFormatKindFloat:
		if (d->x == 16)
			*f = HIP_AD_FORMAT_HALF;
		else if (d->x == 32)
			*f = HIP_AD_FORMAT_FLOAT;
		else
			return false;
		return true;
	default:
		return false;
	}
}

/* Layers of a layered array: ROCr's image-array limit on gfx9 (HSA_EXT_AGENT_INFO_IMAGE_ARRAY_
 * MAX_LAYERS), which rocclr's image validation applies to 1D and 2D arrays alike. */
#define ARRAY_MAX_LAYERS 2048

/* rocclr's image-size validation, with the current device's texture limits (maxTexture1D/2D/3D
 * as hipDeviceProp_t reports them): an array beyond them is hipErrorInvalidValue (issue 13). */
static hipError_t array_limits_check(const HIP_ARRAY3D_DESCRIPTOR *d)
{
	struct hip_device *dev = hip_device_current();
	hipDeviceProp_tR0600 p;
	if (!dev)
		return hipSuccess; /* the allocation reports the missing device */
	hip_device_props(dev, &p);
	if (d->Flags & hipArrayLayered) {
		size_t w_max = d->Height ? (size_t)p.maxTexture2D[0] : (size_t)p.maxTexture1D;
		if (d->Width > w_max || d->Height > (size_t)p.maxTexture2D[1] ||
		    d->Depth > ARRAY_MAX_LAYERS)
			return hipErrorInvalidValue;
		return hipSuccess;
	}
	if (d->Depth)
		return d->Width > (size_t)p.maxTexture3D[0] || d->Height > (size_t)p.maxTexture3D[1] ||
			       d->Depth > (size_t)p.maxTexture3D[2]
		       ? hipErrorInvalidValue
		       : hipSuccess;
	if (d->Height)
		return d->Width > (size_t)p.maxTexture2D[0] || d->Height > (size_t)p.maxTexture2D[1]
		       ? hipErrorInvalidValue
		       : hipSuccess;
	return d->Width > (size_t)p.maxTexture1D ? hipErrorInvalidValue : hipSuccess;
}

/* clr's checks of a descriptor (ihipArrayCreate), plus dimensions that fit the struct. */
static hipError_t array_desc_check(const HIP_ARRAY3D_DESCRIPTOR *d)
{
	const unsigned allowed = hipArrayLayered | hipArraySurfaceLoadStore | hipArrayTextureGather;

	if (d->NumChannels != 1 && d->NumChannels != 2 && d->NumChannels != 4)
		return hipErrorInvalidValue;
	if (format_bytes(d->Format) == 0)
		return hipErrorInvalidValue;
	if (d->Flags & ~allowed)
		return hipErrorInvalidValue; /* hipArrayCubemap is not supported, as in clr */
	if ((d->Flags & hipArrayTextureGather) && (d->Width == 0 || d->Height == 0 || d->Depth))
		return hipErrorInvalidValue;
	if (d->Width == 0 || d->Width > UINT32_MAX || d->Height > UINT32_MAX || d->Depth > UINT32_MAX)
		return hipErrorInvalidValue;
	/* A 3D array needs rows, except a layered 1D array ({w, 0, layers}). */
	if (d->Height == 0 && d->Depth && !(d->Flags & hipArrayLayered))
		return hipErrorInvalidValue;
	if ((d->Flags & hipArrayLayered) && d->Depth == 0)
		return hipErrorInvalidValue;
	return array_limits_check(d);
}

hipError_t hip_array_create(hipArray_t *out, const HIP_ARRAY3D_DESCRIPTOR *d, bool drv)
{
	if (!out || !d)
		return hipErrorInvalidValue;
	hipError_t err = array_desc_check(d); /* *out untouched on failure (issue 13 item 5) */
	if (err != hipSuccess)
		return err;
	struct hipArray *a = calloc(1, sizeof(*a));
	if (!a)
		return hipErrorOutOfMemory;
	a->desc = desc_of_format(d->NumChannels, d->Format);
	a->width = (unsigned)d->Width;
	a->height = (unsigned)d->Height;
	a->depth = (unsigned)d->Depth;
	a->Format = d->Format;
	a->NumChannels = d->NumChannels;
	a->isDrv = drv;
	a->flags = d->Flags;
	a->elem_size = format_bytes(d->Format) * d->NumChannels;
	a->pitch = d->Width * a->elem_size;
	a->rows = d->Height ? d->Height : 1;
	a->slices = d->Depth ? d->Depth : 1;
	size_t bytes;
	if (__builtin_mul_overflow(a->pitch, a->rows, &bytes) ||
	    __builtin_mul_overflow(bytes, a->slices, &bytes)) {
		free(a);
		return hipErrorOutOfMemory;
	}
	err = hipGetDevice(&a->device);
	if (err == hipSuccess)
		err = hipMalloc(&a->data, bytes);
	if (err != hipSuccess) {
		free(a);
		return err;
	}
	array_list_add(a);
	*out = a;
	return hipSuccess;
}

hipError_t hip_array_destroy(hipArray_t a, bool as_level)
{
	if (!a)
		return hipErrorInvalidValue;
	hipError_t removed = array_list_remove(a, as_level);
	if (removed != hipSuccess)
		return removed;
	/* hipFree waits for the device's work that may still use the memory, as clr does. */
	hipError_t err = hipFree(a->data);
	free(a);
	return err;
}

hipError_t hipMallocArray(hipArray_t *array, const hipChannelFormatDesc *desc, size_t width,
			  size_t height, unsigned int flags)
{
	HIP_ARRAY3D_DESCRIPTOR d = {width, height, 0, HIP_AD_FORMAT_UNSIGNED_INT8, 0, flags};

	if (!array || !desc)
		HIP_RETURN(hipErrorInvalidValue);
	if (!hip_array_format_of_desc(desc, &d.Format, &d.NumChannels))
		HIP_RETURN(hipErrorInvalidValue);
	HIP_RETURN(hip_array_create(array, &d, false));
}

hipError_t hipMalloc3DArray(hipArray_t *array, const struct hipChannelFormatDesc *desc,
			    struct hipExtent extent, unsigned int flags)
{
	HIP_ARRAY3D_DESCRIPTOR d = {extent.width, extent.height, extent.depth,
				    HIP_AD_FORMAT_UNSIGNED_INT8, 0, flags};

	if (!array || !desc)
		HIP_RETURN(hipErrorInvalidValue);
	if (!hip_array_format_of_desc(desc, &d.Format, &d.NumChannels))
		HIP_RETURN(hipErrorInvalidValue);
	HIP_RETURN(hip_array_create(array, &d, false));
}

hipError_t hipArrayCreate(hipArray_t *pHandle, const HIP_ARRAY_DESCRIPTOR *pAllocateArray)
{
	if (!pAllocateArray)
		HIP_RETURN(hipErrorInvalidValue);
	HIP_ARRAY3D_DESCRIPTOR d = {pAllocateArray->Width, pAllocateArray->Height, 0,
				    pAllocateArray->Format, pAllocateArray->NumChannels,
				    hipArrayDefault};
	HIP_RETURN(hip_array_create(pHandle, &d, true));
}

hipError_t hipArray3DCreate(hipArray_t *array, const HIP_ARRAY3D_DESCRIPTOR *pAllocateArray)
{
	HIP_RETURN(hip_array_create(array, pAllocateArray, true));
}

hipError_t hipArrayDestroy(hipArray_t array)
{
	HIP_RETURN(hip_array_destroy(array, false));
}

hipError_t hipFreeArray(hipArray_t array)
{
	HIP_RETURN(hip_array_destroy(array, false));
}

/* The descriptor of a live array, or hipErrorInvalidHandle (clr ihipArray3DGetDescriptor). */
static hipError_t array_descriptor(hipArray_t array, HIP_ARRAY3D_DESCRIPTOR *out)
{
	const struct hipArray *a = hip_array_find(array);

	if (!a)
		return hipErrorInvalidHandle;
	*out = (HIP_ARRAY3D_DESCRIPTOR){a->width, a->height, a->depth, a->Format, a->NumChannels,
					a->flags};
	return hipSuccess;
}

hipError_t hipArrayGetInfo(hipChannelFormatDesc *desc, hipExtent *extent, unsigned int *flags,
			   hipArray_t array)
{
	HIP_ARRAY3D_DESCRIPTOR d;

	if (!array)
		HIP_RETURN(hipErrorInvalidHandle);
	HIP_RETURN_IF_ERROR(array_descriptor(array, &d));
	if (desc)
		*desc = desc_of_format(d.NumChannels, d.Format);
	if (extent)
		*extent = (hipExtent){d.Width, d.Height, d.Depth};
	if (flags)
		*flags = d.Flags;
	HIP_RETURN(hipSuccess);
}

hipError_t hipArrayGetDescriptor(HIP_ARRAY_DESCRIPTOR *pArrayDescriptor, hipArray_t array)
{
	HIP_ARRAY3D_DESCRIPTOR d;

	if (!array)
		HIP_RETURN(hipErrorInvalidHandle);
	if (!pArrayDescriptor)
		HIP_RETURN(hipErrorInvalidValue);
	HIP_RETURN_IF_ERROR(array_descriptor(array, &d));
	*pArrayDescriptor = (HIP_ARRAY_DESCRIPTOR){d.Width, d.Height, d.Format, d.NumChannels};
	HIP_RETURN(hipSuccess);
}

hipError_t hipArray3DGetDescriptor(HIP_ARRAY3D_DESCRIPTOR *pArrayDescriptor, hipArray_t array)
{
	if (!array)
		HIP_RETURN(hipErrorInvalidHandle);
	if (!pArrayDescriptor)
		HIP_RETURN(hipErrorInvalidValue);
	HIP_RETURN(array_descriptor(array, pArrayDescriptor));
}

hipError_t hipGetChannelDesc(hipChannelFormatDesc *desc, hipArray_const_t array)
{
	if (!desc)
		HIP_RETURN(hipErrorInvalidValue);
	const struct hipArray *a = hip_array_find(array);
	if (!a)
		HIP_RETURN(hipErrorInvalidHandle);
	*desc = a->desc;
	HIP_RETURN(hipSuccess);
}

hipError_t hip_array_view(const struct hipArray *a, size_t x_bytes, size_t y, size_t z,
			  size_t width, size_t height, size_t depth, struct hip_pitched *out)
{
	if (x_bytes > a->pitch || width > a->pitch - x_bytes || y > a->rows ||
	    height > a->rows - y || z > a->slices || depth > a->slices - z)
		return hipErrorInvalidValue;
	out->base = (const char *)a->data + (z * a->rows + y) * a->pitch + x_bytes;
	out->pitch = a->pitch;
	out->rows = a->rows;
	return hipSuccess;
}

/* One slice: a 2D copy, synchronous on the stream's own terms when !async. */
static hipError_t copy_slice(void *dst, size_t dpitch, const void *src, size_t spitch,
			     size_t width, size_t height, hipMemcpyKind kind, hipStream_t stream,
			     bool async)
{
	if (async)
		return hipMemcpy2DAsync(dst, dpitch, src, spitch, width, height, kind, stream);
	if (stream == NULL)
		return hipMemcpy2D(dst, dpitch, src, spitch, width, height, kind);
	if (stream == hipStreamPerThread)
		return hipMemcpy2D_spt(dst, dpitch, src, spitch, width, height, kind);
	hipError_t err = hipMemcpy2DAsync(dst, dpitch, src, spitch, width, height, kind, stream);
	return err != hipSuccess ? err : hipStreamSynchronize(stream);
}

hipError_t hip_pitched_copy(struct hip_pitched dst, struct hip_pitched src, size_t width,
			    size_t height, size_t depth, hipMemcpyKind kind, hipStream_t stream,
			    bool async)
{
	if (width == 0 || height == 0 || depth == 0)
		return hipSuccess;
	for (size_t z = 0; z < depth; z++) {
		char *d = (char *)dst.base + z * dst.pitch * dst.rows;
		const char *s = (const char *)src.base + z * src.pitch * src.rows;
		hipError_t err = copy_slice(d, dst.pitch, s, src.pitch, width, height, kind, stream,
					    async);
		if (err != hipSuccess)
			return err;
	}
	return hipSuccess;
}
