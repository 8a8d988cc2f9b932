/* Pitched copies: hipMemcpy2D and hipMemcpy3D (linear memory here; a 3D copy with an array on
 * either side goes through the driver-style path of array_copy.c). */
#include <errno.h>
#include <stdint.h>

#include <string.h>

#include "array.h"
#include "../runtime/capture.h"
#include "../runtime/error.h"
#include "../runtime/internal.h"

static hipError_t copy_2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
			  size_t height, hipMemcpyKind kind, hipStream_t stream, bool async)
{
	if ((unsigned)kind > hipMemcpyDefault)
		return hipErrorInvalidMemcpyDirection;
	if (width == 0 || height == 0)
		return hipSuccess;
	if (!dst || !src)
		return hipErrorInvalidValue;
	if (width > dpitch || width > spitch)
		return hipErrorInvalidPitchValue;
	if (hip_capture_active(stream)) {
		hipMemcpy3DParms p3 = {.srcPtr = make_hipPitchedPtr((void *)src, spitch, width, height),
				       .dstPtr = make_hipPitchedPtr(dst, dpitch, width, height),
				       .extent = make_hipExtent(width, height, 1), .kind = kind};
		return async ? hip_capture_memcpy3d(stream, &p3) : hip_capture_sync_check(stream);
	}
	hipError_t herr;
	struct hip_stream *s = hip_stream_from_api(stream, &herr);
	if (!s)
		return herr;
	int err = hip_copy_2d(s, dst, dpitch, src, spitch, width, height, async);
	return err ? hip_error_from_errno(err) : hipSuccess;
}

hipError_t hipMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
		       size_t height, hipMemcpyKind kind)
{
	HIP_RETURN(copy_2d(dst, dpitch, src, spitch, width, height, kind, NULL, false));
}

hipError_t hipMemcpy2D_spt(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
			   size_t height, hipMemcpyKind kind)
{
	HIP_RETURN(copy_2d(dst, dpitch, src, spitch, width, height, kind, hipStreamPerThread, false));
}

hipError_t hipMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
			    size_t height, hipMemcpyKind kind, hipStream_t stream)
{
	HIP_RETURN(copy_2d(dst, dpitch, src, spitch, width, height, kind, stream, true));
}

hipError_t hipMemcpy2DAsync_spt(void *dst, size_t dpitch, const void *src, size_t spitch,
				size_t width, size_t height, hipMemcpyKind kind, hipStream_t stream)
{
	HIP_RETURN(copy_2d(dst, dpitch, src, spitch, width, height, kind,
			   stream ? stream : hipStreamPerThread, true));
}

/* The address of (x bytes, y rows, z slices) in a pitched allocation. */
static char *pitched_at(hipPitchedPtr p, hipPos pos)
{
	return (char *)p.ptr + pos.z * p.pitch * p.ysize + pos.y * p.pitch + pos.x;
}

/* One side of a runtime-form 3D copy as the driver form's: an array's x is in elements (CUDA's
 * rule for hipMemcpy3DParms), a pointer's in bytes; a pointer's memory type is inferred. */
static void drv_side_of(hipArray_t arr, const hipPitchedPtr *ptr, const hipPos *pos, size_t elem,
			hipMemoryType *type, hipArray_t *array, hipDeviceptr_t *dev, size_t *x,
			size_t *y, size_t *z, size_t *pitch, size_t *height)
{
	*y = pos->y;
	*z = pos->z;
	if (arr) {
		*type = hipMemoryTypeArray;
		*array = arr;
		*x = pos->x * elem;
		return;
	}
	*type = hipMemoryTypeUnified;
	*dev = (hipDeviceptr_t)ptr->ptr;
	*x = pos->x;
	*pitch = ptr->pitch;
	*height = ptr->ysize;
}

static hipError_t copy_3d_array(const hipMemcpy3DParms *p, hipStream_t stream, bool async)
{
	struct hipArray *a = hip_array_find(p->srcArray ? p->srcArray : p->dstArray);
	if (!a)
		return hipErrorInvalidValue;
	HIP_MEMCPY3D c;
	memset(&c, 0, sizeof(c));
	drv_side_of(p->srcArray, &p->srcPtr, &p->srcPos, a->elem_size, &c.srcMemoryType, &c.srcArray,
		    &c.srcDevice, &c.srcXInBytes, &c.srcY, &c.srcZ, &c.srcPitch, &c.srcHeight);
	drv_side_of(p->dstArray, &p->dstPtr, &p->dstPos, a->elem_size, &c.dstMemoryType, &c.dstArray,
		    &c.dstDevice, &c.dstXInBytes, &c.dstY, &c.dstZ, &c.dstPitch, &c.dstHeight);
	c.srcHost = (const void *)c.srcDevice;
	c.dstHost = (void *)c.dstDevice;
	c.WidthInBytes = p->extent.width * a->elem_size;
	c.Height = p->extent.height;
	c.Depth = p->extent.depth;
	/* hipkfd's own layout: not through the entry point, which reads the caller's ABI. */
	return hip_drv_memcpy3d(&c, stream, async);
}

static hipError_t copy_3d(const hipMemcpy3DParms *p, hipStream_t stream, bool async)
{
	if (!p)
		return hipErrorInvalidValue;
	if ((unsigned)p->kind > hipMemcpyDefault)
		return hipErrorInvalidMemcpyDirection;
	if (p->srcArray || p->dstArray)
		return copy_3d_array(p, stream, async);
	const hipExtent e = p->extent;
	if (e.width == 0 || e.height == 0 || e.depth == 0)
		return hipSuccess;
	if (!p->srcPtr.ptr || !p->dstPtr.ptr)
		return hipErrorInvalidValue;
	if (e.width + p->srcPos.x > p->srcPtr.pitch || e.width + p->dstPos.x > p->dstPtr.pitch)
		return hipErrorInvalidPitchValue;
	/* A slice is ysize rows; a 3D copy whose rows overrun the slice height is invalid. */
	if ((p->srcPtr.ysize && e.height + p->srcPos.y > p->srcPtr.ysize && e.depth > 1) ||
	    (p->dstPtr.ysize && e.height + p->dstPos.y > p->dstPtr.ysize && e.depth > 1))
		return hipErrorInvalidValue;
	if (hip_capture_active(stream))
		return async ? hip_capture_memcpy3d(stream, p) : hip_capture_sync_check(stream);
	hipError_t herr;
	struct hip_stream *s = hip_stream_from_api(stream, &herr);
	if (!s)
		return herr;
	for (size_t z = 0; z < e.depth; z++) {
		hipPos sp = p->srcPos, dp = p->dstPos;
		sp.z += z;
		dp.z += z;
		int err = hip_copy_2d(s, pitched_at(p->dstPtr, dp), p->dstPtr.pitch,
				      pitched_at(p->srcPtr, sp), p->srcPtr.pitch, e.width, e.height,
				      async);
		if (err)
			return hip_error_from_errno(err);
	}
	return hipSuccess;
}

hipError_t hipMemcpy3D(const hipMemcpy3DParms *p)
{
	HIP_RETURN(copy_3d(p, NULL, false));
}

hipError_t hipMemcpy3D_spt(const hipMemcpy3DParms *p)
{
	HIP_RETURN(copy_3d(p, hipStreamPerThread, false));
}

hipError_t hipMemcpy3DAsync(const hipMemcpy3DParms *p, hipStream_t stream)
{
	HIP_RETURN(copy_3d(p, stream, true));
}

hipError_t hipMemcpy3DAsync_spt(const hipMemcpy3DParms *p, hipStream_t stream)
{
	HIP_RETURN(copy_3d(p, stream ? stream : hipStreamPerThread, true));
}
