/* Copies to, from and between HIP arrays, and the driver-style parameter-block copies
 * (hipMemcpyParam2D, hipDrvMemcpy3D) that may name arrays. Every copy becomes pitched 2D copies
 * on linear memory (array.h), so the stream ordering and engines are those of hipMemcpy2DAsync.
 *
 * Offsets: the x offset of an array is in bytes (wOffset, srcXInBytes), rows and slices in
 * elements, as CUDA documents. The one-dimensional forms (hipMemcpyToArray, hipMemcpyAtoH, ...)
 * treat the array as its bytes in row-major order, which is exact for the tight pitch array.c
 * uses: [offset, offset + count) must lie inside the array.
 */
#include "array.h"
#include "../runtime/abi.h"
#include "../runtime/error.h"
#include "../memory/mem.h"

/* Per-thread default stream for the _spt forms: NULL means the thread's stream. */
#define SPT(stream) ((stream) ? (stream) : hipStreamPerThread)

/* Leave a helper (not an entry point: those record the error once, through HIP_RETURN). */
#define TRY(expr)                          \
  do {                                     \
    hipError_t try_err_ = (expr);          \
    if (try_err_ != hipSuccess)            \
      return try_err_;                     \
  } while (0)

/* The array's bytes [offset, offset + count) as a one-row view. */
static hipError_t array_linear(const struct hipArray *array, size_t offset, size_t count,
			       struct hip_pitched *out)
{
	const struct hipArray *a = hip_array_find(array);

	if (!a)
		return hipErrorInvalidValue;
	size_t total = a->pitch * a->rows * a->slices;
	if (offset > total || count > total - offset)
		return hipErrorInvalidValue;
	*out = (struct hip_pitched){(const char *)a->data + offset, count ? count : 1, 1};
	return hipSuccess;
}

static struct hip_pitched linear(const void *p, size_t pitch)
{
	return (struct hip_pitched){p, pitch, 1};
}

/* A 2D box of an array at (x bytes, y rows). */
static hipError_t array_box(const struct hipArray *array, size_t x, size_t y, size_t width,
			    size_t height, struct hip_pitched *out)
{
	const struct hipArray *a = hip_array_find(array);

	if (!a)
		return hipErrorInvalidValue;
	return hip_array_view(a, x, y, 0, width, height, 1, out);
}

/* ---- 2D copies with one side an array ------------------------------------------------------ */

static hipError_t to_array_2d(hipArray_t dst, size_t wOffset, size_t hOffset, const void *src,
			      size_t spitch, size_t width, size_t height, hipMemcpyKind kind,
			      hipStream_t stream, bool async)
{
	struct hip_pitched d;

	if (!dst)
		return hipErrorInvalidResourceHandle; /* clr checks the array first */
	if (!src)
		return hipErrorInvalidValue;
	if (width > spitch)
		return hipErrorInvalidPitchValue;
	hipError_t err = array_box(dst, wOffset, hOffset, width, height, &d);
	if (err != hipSuccess)
		return err;
	return hip_pitched_copy(d, linear(src, spitch), width, height, 1, kind, stream, async);
}

static hipError_t from_array_2d(void *dst, size_t dpitch, hipArray_const_t src, size_t wOffset,
				size_t hOffset, size_t width, size_t height, hipMemcpyKind kind,
				hipStream_t stream, bool async)
{
	struct hip_pitched s;

	if (!src)
		return hipErrorInvalidResourceHandle; /* clr ihipMemcpy2DFromArray checks it first */
	if (!dst)
		return hipErrorInvalidValue;
	if (width > dpitch)
		return hipErrorInvalidPitchValue;
	hipError_t err = array_box(src, wOffset, hOffset, width, height, &s);
	if (err != hipSuccess)
		return err;
	return hip_pitched_copy(linear(dst, dpitch), s, width, height, 1, kind, stream, async);
}

hipError_t hipMemcpy2DToArray(hipArray_t dst, size_t wOffset, size_t hOffset, const void *src,
			      size_t spitch, size_t width, size_t height, hipMemcpyKind kind)
{
	HIP_RETURN(to_array_2d(dst, wOffset, hOffset, src, spitch, width, height, kind, NULL, false));
}

hipError_t hipMemcpy2DToArray_spt(hipArray_t dst, size_t wOffset, size_t hOffset, const void *src,
				  size_t spitch, size_t width, size_t height, hipMemcpyKind kind)
{
	HIP_RETURN(to_array_2d(dst, wOffset, hOffset, src, spitch, width, height, kind,
			       hipStreamPerThread, false));
}

hipError_t hipMemcpy2DToArrayAsync(hipArray_t dst, size_t wOffset, size_t hOffset, const void *src,
				   size_t spitch, size_t width, size_t height, hipMemcpyKind kind,
				   hipStream_t stream)
{
	HIP_RETURN(to_array_2d(dst, wOffset, hOffset, src, spitch, width, height, kind, stream, true));
}

hipError_t hipMemcpy2DToArrayAsync_spt(hipArray_t dst, size_t wOffset, size_t hOffset,
				       const void *src, size_t spitch, size_t width, size_t height,
				       hipMemcpyKind kind, hipStream_t stream)
{
	HIP_RETURN(to_array_2d(dst, wOffset, hOffset, src, spitch, width, height, kind, SPT(stream),
			       true));
}

hipError_t hipMemcpy2DFromArray(void *dst, size_t dpitch, hipArray_const_t src, size_t wOffset,
				size_t hOffset, size_t width, size_t height, hipMemcpyKind kind)
{
	HIP_RETURN(from_array_2d(dst, dpitch, src, wOffset, hOffset, width, height, kind, NULL,
				 false));
}

hipError_t hipMemcpy2DFromArray_spt(void *dst, size_t dpitch, hipArray_const_t src, size_t wOffset,
				    size_t hOffset, size_t width, size_t height, hipMemcpyKind kind)
{
	HIP_RETURN(from_array_2d(dst, dpitch, src, wOffset, hOffset, width, height, kind,
				 hipStreamPerThread, false));
}

hipError_t hipMemcpy2DFromArrayAsync(void *dst, size_t dpitch, hipArray_const_t src,
				     size_t wOffset, size_t hOffset, size_t width, size_t height,
				     hipMemcpyKind kind, hipStream_t stream)
{
	HIP_RETURN(from_array_2d(dst, dpitch, src, wOffset, hOffset, width, height, kind, stream,
				 true));
}

hipError_t hipMemcpy2DFromArrayAsync_spt(void *dst, size_t dpitch, hipArray_const_t src,
					 size_t wOffset, size_t hOffset, size_t width,
					 size_t height, hipMemcpyKind kind, hipStream_t stream)
{
	HIP_RETURN(from_array_2d(dst, dpitch, src, wOffset, hOffset, width, height, kind,
				 SPT(stream), true));
}

hipError_t hipMemcpy2DArrayToArray(hipArray_t dst, size_t wOffsetDst, size_t hOffsetDst,
				   hipArray_const_t src, size_t wOffsetSrc, size_t hOffsetSrc,
				   size_t width, size_t height, hipMemcpyKind kind)
{
	struct hip_pitched d, s;

	HIP_RETURN_IF_ERROR(array_box(dst, wOffsetDst, hOffsetDst, width, height, &d));
	HIP_RETURN_IF_ERROR(array_box(src, wOffsetSrc, hOffsetSrc, width, height, &s));
	HIP_RETURN(hip_pitched_copy(d, s, width, height, 1, kind, NULL, false));
}

/* ---- one-dimensional forms ------------------------------------------------------------------ */

/* dst = array bytes at `doff` (when darr) or dptr; likewise for the source. */
static hipError_t linear_copy(hipArray_const_t darr, size_t doff, void *dptr,
			      hipArray_const_t sarr, size_t soff, const void *sptr, size_t count,
			      hipMemcpyKind kind, hipStream_t stream, bool async)
{
	struct hip_pitched d, s;

	if (darr) {
		TRY(array_linear(darr, doff, count, &d));
	} else {
		if (!dptr)
			return hipErrorInvalidValue;
		d = linear(dptr, count ? count : 1);
	}
	if (sarr) {
		TRY(array_linear(sarr, soff, count, &s));
	} else {
		if (!sptr)
			return hipErrorInvalidValue;
		s = linear(sptr, count ? count : 1);
	}
	return hip_pitched_copy(d, s, count, 1, 1, kind, stream, async);
}

/* Byte offset of (wOffset bytes, hOffset rows) in a live array; hipErrorInvalidValue if bad. */
static hipError_t array_offset(hipArray_const_t array, size_t wOffset, size_t hOffset, size_t *off)
{
	const struct hipArray *a = hip_array_find(array);

	if (!a)
		return hipErrorInvalidValue;
	if (wOffset > a->pitch || hOffset >= a->rows * a->slices)
		return hipErrorInvalidValue;
	*off = hOffset * a->pitch + wOffset;
	return hipSuccess;
}

static hipError_t to_array(hipArray_t dst, size_t wOffset, size_t hOffset, const void *src,
			   size_t count, hipMemcpyKind kind, hipStream_t stream)
{
	size_t off;
	hipError_t err = array_offset(dst, wOffset, hOffset, &off);

	return err ? err : linear_copy(dst, off, NULL, NULL, 0, src, count, kind, stream, false);
}

static hipError_t from_array(void *dst, hipArray_const_t src, size_t wOffset, size_t hOffset,
			     size_t count, hipMemcpyKind kind, hipStream_t stream)
{
	size_t off;
	hipError_t err = array_offset(src, wOffset, hOffset, &off);

	return err ? err : linear_copy(NULL, 0, dst, src, off, NULL, count, kind, stream, false);
}

hipError_t hipMemcpyToArray(hipArray_t dst, size_t wOffset, size_t hOffset, const void *src,
			    size_t count, hipMemcpyKind kind)
{
	HIP_RETURN(to_array(dst, wOffset, hOffset, src, count, kind, NULL));
}

hipError_t hipMemcpyFromArray(void *dst, hipArray_const_t srcArray, size_t wOffset,
			      size_t hOffset, size_t count, hipMemcpyKind kind)
{
	HIP_RETURN(from_array(dst, srcArray, wOffset, hOffset, count, kind, NULL));
}

hipError_t hipMemcpyFromArray_spt(void *dst, hipArray_const_t src, size_t wOffsetSrc,
				  size_t hOffset, size_t count, hipMemcpyKind kind)
{
	HIP_RETURN(from_array(dst, src, wOffsetSrc, hOffset, count, kind, hipStreamPerThread));
}

hipError_t hipMemcpyAtoH(void *dst, hipArray_t srcArray, size_t srcOffset, size_t count)
{
	HIP_RETURN(linear_copy(NULL, 0, dst, srcArray, srcOffset, NULL, count,
			       hipMemcpyDeviceToHost, NULL, false));
}

hipError_t hipMemcpyHtoA(hipArray_t dstArray, size_t dstOffset, const void *srcHost, size_t count)
{
	HIP_RETURN(linear_copy(dstArray, dstOffset, NULL, NULL, 0, srcHost, count,
			       hipMemcpyHostToDevice, NULL, false));
}

hipError_t hipMemcpyAtoHAsync(void *dstHost, hipArray_t srcArray, size_t srcOffset,
			      size_t ByteCount, hipStream_t stream)
{
	HIP_RETURN(linear_copy(NULL, 0, dstHost, srcArray, srcOffset, NULL, ByteCount,
			       hipMemcpyDeviceToHost, stream, true));
}

hipError_t hipMemcpyHtoAAsync(hipArray_t dstArray, size_t dstOffset, const void *srcHost,
			      size_t ByteCount, hipStream_t stream)
{
	HIP_RETURN(linear_copy(dstArray, dstOffset, NULL, NULL, 0, srcHost, ByteCount,
			       hipMemcpyHostToDevice, stream, true));
}

hipError_t hipMemcpyAtoD(hipDeviceptr_t dstDevice, hipArray_t srcArray, size_t srcOffset,
			 size_t ByteCount)
{
	HIP_RETURN(linear_copy(NULL, 0, dstDevice, srcArray, srcOffset, NULL, ByteCount,
			       hipMemcpyDeviceToDevice, NULL, false));
}

hipError_t hipMemcpyDtoA(hipArray_t dstArray, size_t dstOffset, hipDeviceptr_t srcDevice,
			 size_t ByteCount)
{
	HIP_RETURN(linear_copy(dstArray, dstOffset, NULL, NULL, 0, srcDevice, ByteCount,
			       hipMemcpyDeviceToDevice, NULL, false));
}

hipError_t hipMemcpyAtoA(hipArray_t dstArray, size_t dstOffset, hipArray_t srcArray,
			 size_t srcOffset, size_t ByteCount)
{
	if (!dstArray || !srcArray)
		HIP_RETURN(hipErrorInvalidValue);
	HIP_RETURN(linear_copy(dstArray, dstOffset, NULL, srcArray, srcOffset, NULL, ByteCount,
			       hipMemcpyDeviceToDevice, NULL, false));
}

/* ---- parameter blocks ------------------------------------------------------------------------ */

/* Where one side of a driver-style copy is. */
struct drv_side {
	hipMemoryType type;
	const void *host;
	const void *device;
	hipArray_t array;
	size_t x, y, z, lod;
	size_t pitch, rows;
};

/* A side typed device memory names an allocation of the runtime by its pointer, and the box at
 * its offsets must lie inside that allocation: clr checks both (ihipMemcpyDtoDValidate, the
 * region is validated against the memory object), so an offset past the end is an error rather
 * than a write into whatever follows. */
static hipError_t drv_device_bounds(const void *base, const struct drv_side *sd, size_t pitch,
				    size_t rows, size_t width, size_t height, size_t depth)
{
	struct mem_info info;

	if (mem_lookup(base, &info) != 0)
		return hipErrorInvalidValue;
	size_t room = info.size - (size_t)((const char *)base - (const char *)info.base);
	/* Last byte touched, relative to base: (z + depth - 1) slices, (y + height - 1) rows,
	 * x + width bytes; every product is checked for overflow. */
	size_t slice, last_row, end;
	if (__builtin_mul_overflow(rows, pitch, &slice) ||
	    __builtin_mul_overflow(sd->z + depth - 1, slice, &end) ||
	    __builtin_mul_overflow(sd->y + height - 1, pitch, &last_row) ||
	    __builtin_add_overflow(end, last_row, &end) || __builtin_add_overflow(end, sd->x, &end) ||
	    __builtin_add_overflow(end, width, &end) || end > room)
		return hipErrorInvalidValue;
	return hipSuccess;
}

/* Resolve one side for a box of width bytes x height x depth. `*is_host` tells the copy kind. */
static hipError_t drv_side_resolve(const struct drv_side *sd, size_t width, size_t height,
				   size_t depth, struct hip_pitched *out, int *where)
{
	const void *base;

	if (sd->lod != 0)
		return hipErrorInvalidValue; /* mipmap levels need mipmapped arrays */
	switch (sd->type) {
	case hipMemoryTypeArray: {
		const struct hipArray *a = hip_array_find(sd->array);
		if (!a)
			return hipErrorInvalidValue;
		*where = hipMemoryTypeDevice;
		return hip_array_view(a, sd->x, sd->y, sd->z, width, height, depth, out);
	}
	case hipMemoryTypeHost:
		base = sd->host;
		break;
	case hipMemoryTypeDevice:
	case hipMemoryTypeManaged:
	case hipMemoryTypeUnified:
		base = sd->device;
		break;
	default:
		return hipErrorInvalidMemcpyDirection;
	}
	if (!base)
		return hipErrorInvalidValue;
	size_t pitch = sd->pitch ? sd->pitch : width;
	if (width + sd->x > pitch && height > 1)
		return hipErrorInvalidPitchValue;
	size_t rows = sd->rows ? sd->rows : height;
	if (depth > 1 && height + sd->y > rows)
		return hipErrorInvalidValue;
	if (sd->type == hipMemoryTypeDevice)
		TRY(drv_device_bounds(base, sd, pitch, rows, width, height, depth));
	out->base = (const char *)base + (sd->z * rows + sd->y) * pitch + sd->x;
	out->pitch = pitch < width ? width : pitch;
	out->rows = rows;
	*where = sd->type;
	return hipSuccess;
}

static bool drv_unified(int t)
{
	return t == hipMemoryTypeUnified || t == hipMemoryTypeManaged;
}

static hipMemcpyKind drv_kind(int src, int dst)
{
	if (drv_unified(src) || drv_unified(dst))
		return hipMemcpyDefault;
	if (src == hipMemoryTypeHost)
		return dst == hipMemoryTypeHost ? hipMemcpyHostToHost : hipMemcpyHostToDevice;
	return dst == hipMemoryTypeHost ? hipMemcpyDeviceToHost : hipMemcpyDeviceToDevice;
}

static hipError_t drv_copy(const struct drv_side *src, const struct drv_side *dst, size_t width,
			   size_t height, size_t depth, hipStream_t stream, bool async)
{
	struct hip_pitched s, d;
	int sw, dw;

	if (width == 0 || height == 0 || depth == 0)
		return hipSuccess;
	TRY(drv_side_resolve(src, width, height, depth, &s, &sw));
	TRY(drv_side_resolve(dst, width, height, depth, &d, &dw));
	return hip_pitched_copy(d, s, width, height, depth, drv_kind(sw, dw), stream, async);
}

/* [in] caller: the block in the caller's ABI (memory types renumbered by ROCm 6, abi.h). */
static hipError_t param_2d(const hip_Memcpy2D *caller, hipStream_t stream, bool async)
{
	if (!caller)
		return hipErrorInvalidValue;
	hip_Memcpy2D own;
	const hip_Memcpy2D *p = &own;
	hip_abi_memcpy2d_in(caller, &own);
	struct drv_side src = {p->srcMemoryType, p->srcHost, p->srcDevice, p->srcArray,
			       p->srcXInBytes, p->srcY, 0, 0, p->srcPitch, 0};
	struct drv_side dst = {p->dstMemoryType, p->dstHost, p->dstDevice, p->dstArray,
			       p->dstXInBytes, p->dstY, 0, 0, p->dstPitch, 0};
	return drv_copy(&src, &dst, p->WidthInBytes, p->Height, 1, stream, async);
}

hipError_t hip_drv_memcpy3d(const HIP_MEMCPY3D *p, hipStream_t stream, bool async)
{
	if (!p)
		return hipErrorInvalidValue;
	struct drv_side src = {p->srcMemoryType, p->srcHost, p->srcDevice, p->srcArray,
			       p->srcXInBytes, p->srcY, p->srcZ, p->srcLOD, p->srcPitch,
			       p->srcHeight};
	struct drv_side dst = {p->dstMemoryType, p->dstHost, p->dstDevice, p->dstArray,
			       p->dstXInBytes, p->dstY, p->dstZ, p->dstLOD, p->dstPitch,
			       p->dstHeight};
	return drv_copy(&src, &dst, p->WidthInBytes, p->Height, p->Depth, stream, async);
}

hipError_t hipMemcpyParam2D(const hip_Memcpy2D *pCopy)
{
	HIP_RETURN(param_2d(pCopy, NULL, false));
}

hipError_t hipMemcpyParam2DAsync(const hip_Memcpy2D *pCopy, hipStream_t stream)
{
	HIP_RETURN(param_2d(pCopy, stream, true));
}

/* Unaligned pitches and offsets are what every copy here already handles. */
hipError_t hipDrvMemcpy2DUnaligned(const hip_Memcpy2D *pCopy)
{
	HIP_RETURN(param_2d(pCopy, NULL, false));
}

/* [in] caller: the block in the caller's ABI (ROCm 5's has 32-bit fields, abi.h). */
static hipError_t drv_3d(const HIP_MEMCPY3D *caller, hipStream_t stream, bool async)
{
	if (!caller)
		return hipErrorInvalidValue;
	HIP_MEMCPY3D own;
	hip_abi_memcpy3d_in(caller, &own);
	return hip_drv_memcpy3d(&own, stream, async);
}

hipError_t hipDrvMemcpy3D(const HIP_MEMCPY3D *pCopy)
{
	HIP_RETURN(drv_3d(pCopy, NULL, false));
}

hipError_t hipDrvMemcpy3DAsync(const HIP_MEMCPY3D *pCopy, hipStream_t stream)
{
	HIP_RETURN(drv_3d(pCopy, stream, true));
}
