/* hipMemset*: 1D fills of 8, 16 and 32-bit values, and pitched 2D/3D fills.
 * Only memory the runtime allocated (device, pinned host, managed) may be filled: any other
 * pointer is hipErrorInvalidValue, as in CUDA. */
#include <errno.h>

#include "../memory/mem.h"
#include "../runtime/capture.h"
#include "../runtime/error.h"
#include "../runtime/internal.h"
#include "../runtime/fill.h"

static hipError_t fill(void *dst, uint32_t value, size_t esize, size_t count, hipStream_t stream,
		       bool async)
{
	if (count == 0)
		return hipSuccess;
	hipError_t ierr = hip_init_error();
	if (ierr != hipSuccess)
		return ierr;
	struct mem_info info;
	if (!dst || mem_lookup(dst, &info) != 0)
		return hipErrorInvalidValue;
	if (hip_capture_active(stream))
		return async ? hip_capture_memset(stream, dst, 0, value, (unsigned)esize, count, 1)
			     : hip_capture_sync_check(stream);
	hipError_t herr;
	struct hip_stream *s = hip_stream_from_api(stream, &herr);
	if (!s)
		return herr;
	int err = hip_fill(s, dst, value, esize, count, async);
	return err ? hip_error_from_errno(err) : hipSuccess;
}

hipError_t hipMemset(void *dst, int value, size_t sizeBytes)
{
	HIP_RETURN(fill(dst, (uint8_t)value, 1, sizeBytes, NULL, false));
}

hipError_t hipMemset_spt(void *dst, int value, size_t sizeBytes)
{
	HIP_RETURN(fill(dst, (uint8_t)value, 1, sizeBytes, hipStreamPerThread, false));
}

hipError_t hipMemsetAsync(void *dst, int value, size_t sizeBytes, hipStream_t stream)
{
	HIP_RETURN(fill(dst, (uint8_t)value, 1, sizeBytes, stream, true));
}

hipError_t hipMemsetAsync_spt(void *dst, int value, size_t sizeBytes, hipStream_t stream)
{
	HIP_RETURN(fill(dst, (uint8_t)value, 1, sizeBytes, stream ? stream : hipStreamPerThread,
			true));
}

hipError_t hipMemsetD8(hipDeviceptr_t dst, unsigned char value, size_t count)
{
	HIP_RETURN(fill((void *)dst, value, 1, count, NULL, false));
}

hipError_t hipMemsetD8Async(hipDeviceptr_t dst, unsigned char value, size_t count,
			    hipStream_t stream)
{
	HIP_RETURN(fill((void *)dst, value, 1, count, stream, true));
}

hipError_t hipMemsetD16(hipDeviceptr_t dst, unsigned short value, size_t count)
{
	HIP_RETURN(fill((void *)dst, value, 2, count, NULL, false));
}

hipError_t hipMemsetD16Async(hipDeviceptr_t dst, unsigned short value, size_t count,
			     hipStream_t stream)
{
	HIP_RETURN(fill((void *)dst, value, 2, count, stream, true));
}

hipError_t hipMemsetD32(hipDeviceptr_t dst, int value, size_t count)
{
	HIP_RETURN(fill((void *)dst, (uint32_t)value, 4, count, NULL, false));
}

hipError_t hipMemsetD32Async(hipDeviceptr_t dst, int value, size_t count, hipStream_t stream)
{
	HIP_RETURN(fill((void *)dst, (uint32_t)value, 4, count, stream, true));
}

/* ---- pitched fills ------------------------------------------------------------------------- */

/* `height` rows of `width` elements, `pitch` bytes apart, each row a fill in stream order. */
static hipError_t fill_2d(void *dst, size_t pitch, uint32_t value, size_t esize, size_t width,
			  size_t height, hipStream_t stream, bool async)
{
	if (width == 0 || height == 0)
		return hipSuccess;
	if (!dst || width * esize > pitch)
		return hipErrorInvalidValue;
	struct mem_info info;
	if (mem_lookup(dst, &info) != 0)
		return hipErrorInvalidValue;
	size_t off = (uintptr_t)dst - (uintptr_t)info.base;
	if (pitch * (height - 1) + width * esize > info.size - off)
		return hipErrorInvalidValue;
	if (hip_capture_active(stream))
		return async ? hip_capture_memset(stream, dst, pitch, value, (unsigned)esize, width, height)
			     : hip_capture_sync_check(stream);
	hipError_t herr;
	struct hip_stream *s = hip_stream_from_api(stream, &herr);
	if (!s)
		return herr;
	int err;
	if (pitch == width * esize)
		err = hip_fill(s, dst, value, esize, width * height, async);
	else
		err = hip_fill_box(s, dst, value, esize, width, pitch, height, 0, 1, async);
	return err ? hip_error_from_errno(err) : hipSuccess;
}

hipError_t hipMemset2D(void *dst, size_t pitch, int value, size_t width, size_t height)
{
	HIP_RETURN(fill_2d(dst, pitch, (uint8_t)value, 1, width, height, NULL, false));
}

hipError_t hipMemset2D_spt(void *dst, size_t pitch, int value, size_t width, size_t height)
{
	HIP_RETURN(fill_2d(dst, pitch, (uint8_t)value, 1, width, height, hipStreamPerThread, false));
}

hipError_t hipMemset2DAsync(void *dst, size_t pitch, int value, size_t width, size_t height,
			    hipStream_t stream)
{
	HIP_RETURN(fill_2d(dst, pitch, (uint8_t)value, 1, width, height, stream, true));
}

hipError_t hipMemset2DAsync_spt(void *dst, size_t pitch, int value, size_t width, size_t height,
				hipStream_t stream)
{
	HIP_RETURN(fill_2d(dst, pitch, (uint8_t)value, 1, width, height,
			   stream ? stream : hipStreamPerThread, true));
}

hipError_t hipMemsetD2D8(hipDeviceptr_t dst, size_t pitch, unsigned char value, size_t width,
			 size_t height)
{
	HIP_RETURN(fill_2d((void *)dst, pitch, value, 1, width, height, NULL, false));
}

hipError_t hipMemsetD2D8Async(hipDeviceptr_t dst, size_t pitch, unsigned char value, size_t width,
			      size_t height, hipStream_t stream)
{
	HIP_RETURN(fill_2d((void *)dst, pitch, value, 1, width, height, stream, true));
}

hipError_t hipMemsetD2D16(hipDeviceptr_t dst, size_t pitch, unsigned short value, size_t width,
			  size_t height)
{
	HIP_RETURN(fill_2d((void *)dst, pitch, value, 2, width, height, NULL, false));
}

hipError_t hipMemsetD2D16Async(hipDeviceptr_t dst, size_t pitch, unsigned short value,
			       size_t width, size_t height, hipStream_t stream)
{
	HIP_RETURN(fill_2d((void *)dst, pitch, value, 2, width, height, stream, true));
}

hipError_t hipMemsetD2D32(hipDeviceptr_t dst, size_t pitch, unsigned int value, size_t width,
			  size_t height)
{
	HIP_RETURN(fill_2d((void *)dst, pitch, value, 4, width, height, NULL, false));
}

hipError_t hipMemsetD2D32Async(hipDeviceptr_t dst, size_t pitch, unsigned int value, size_t width,
			       size_t height, hipStream_t stream)
{
	HIP_RETURN(fill_2d((void *)dst, pitch, value, 4, width, height, stream, true));
}

static hipError_t fill_3d(hipPitchedPtr p, int value, hipExtent e, hipStream_t stream, bool async)
{
	if (e.width == 0 || e.height == 0 || e.depth == 0)
		return hipSuccess;
	if (!p.ptr || e.width > p.pitch || (e.depth > 1 && e.height > p.ysize))
		return hipErrorInvalidValue;
	size_t slice = p.pitch * (p.ysize ? p.ysize : e.height);
	if (!hip_capture_active(stream)) {
		/* One box: while the stream is busy it is handed on as one piece (fill.h). */
		struct mem_info info;
		if (mem_lookup(p.ptr, &info) != 0)
			return hipErrorInvalidValue;
		size_t off = (uintptr_t)p.ptr - (uintptr_t)info.base;
		if (slice && (e.depth - 1) > SIZE_MAX / slice)
			return hipErrorInvalidValue;
		size_t last = slice * (e.depth - 1) + p.pitch * (e.height - 1) + e.width;
		if (last > info.size - off)
			return hipErrorInvalidValue;
		hipError_t herr;
		struct hip_stream *s = hip_stream_from_api(stream, &herr);
		if (!s)
			return herr;
		int err = hip_fill_box(s, p.ptr, (uint8_t)value, 1, e.width, p.pitch, e.height, slice,
				       e.depth, async);
		return err ? hip_error_from_errno(err) : hipSuccess;
	}
	for (size_t z = 0; z < e.depth; z++) {
		hipError_t err = fill_2d((char *)p.ptr + z * slice, p.pitch, (uint8_t)value, 1, e.width,
					 e.height, stream, async);
		if (err != hipSuccess)
			return err;
	}
	return hipSuccess;
}

hipError_t hipMemset3D(hipPitchedPtr pitchedDevPtr, int value, hipExtent extent)
{
	HIP_RETURN(fill_3d(pitchedDevPtr, value, extent, NULL, false));
}

hipError_t hipMemset3D_spt(hipPitchedPtr pitchedDevPtr, int value, hipExtent extent)
{
	HIP_RETURN(fill_3d(pitchedDevPtr, value, extent, hipStreamPerThread, false));
}

hipError_t hipMemset3DAsync(hipPitchedPtr pitchedDevPtr, int value, hipExtent extent,
			    hipStream_t stream)
{
	HIP_RETURN(fill_3d(pitchedDevPtr, value, extent, stream, true));
}

hipError_t hipMemset3DAsync_spt(hipPitchedPtr pitchedDevPtr, int value, hipExtent extent,
				hipStream_t stream)
{
	HIP_RETURN(fill_3d(pitchedDevPtr, value, extent, stream ? stream : hipStreamPerThread, true));
}
