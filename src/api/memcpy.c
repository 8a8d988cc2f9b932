/* hipMemcpy and its 1D variants. The direction is always taken from the address table (as for
 * hipMemcpyDefault): a kind that names device memory only adds a check that the pointer really is
 * memory the runtime knows, so a bogus "device" pointer gets hipErrorInvalidValue, not a crash. */
#include <errno.h>

#include "capture.h"
#include "error.h"
#include "internal.h"
#include "../memory/mem.h"

static bool is_known(const void *p)
{
	struct mem_info info;
	return mem_lookup(p, &info) == 0;
}

/* Argument checks shared by every 1D copy. */
static hipError_t copy_check(void *dst, const void *src, size_t size, hipMemcpyKind kind)
{
	if ((unsigned)kind > hipMemcpyDefault)
		return hipErrorInvalidMemcpyDirection;
	if (size == 0)
		return hipSuccess;
	if (!dst || !src)
		return hipErrorInvalidValue;
	bool dst_dev = kind == hipMemcpyHostToDevice || kind == hipMemcpyDeviceToDevice;
	bool src_dev = kind == hipMemcpyDeviceToHost || kind == hipMemcpyDeviceToDevice;
	if ((dst_dev && !is_known(dst)) || (src_dev && !is_known(src)))
		return hipErrorInvalidValue;
	return hipSuccess;
}

hipError_t hip_memcpy_common(void *dst, const void *src, size_t size, hipMemcpyKind kind,
			     hipStream_t stream, bool async)
{
	/* "device to device without compute units": our device copies already choose the engine
	 * themselves; clr accepts the kind wherever DeviceToDevice goes. */
	if (kind == hipMemcpyDeviceToDeviceNoCU)
		kind = hipMemcpyDeviceToDevice;
	hipError_t herr = hip_init_error();
	if (herr == hipSuccess)
		herr = copy_check(dst, src, size, kind);
	if (herr != hipSuccess)
		return herr;
	if (hip_capture_active(stream))
		return async ? hip_capture_memcpy(stream, dst, src, size, kind) : hip_capture_sync_check(stream);
	struct hip_stream *s = hip_stream_from_api(stream, &herr);
	if (!s)
		return herr;
	if (size == 0)
		return hipSuccess;
	int err = hip_copy(s, dst, src, size, async);
	return err ? hip_error_from_errno(err) : hipSuccess;
}

hipError_t hipMemcpy(void *dst, const void *src, size_t sizeBytes, hipMemcpyKind kind)
{
	HIP_RETURN(hip_memcpy_common(dst, src, sizeBytes, kind, NULL, false));
}

hipError_t hipMemcpy_spt(void *dst, const void *src, size_t sizeBytes, hipMemcpyKind kind)
{
	HIP_RETURN(hip_memcpy_common(dst, src, sizeBytes, kind, hipStreamPerThread, false));
}

hipError_t hipMemcpyWithStream(void *dst, const void *src, size_t sizeBytes, hipMemcpyKind kind,
			       hipStream_t stream)
{
	HIP_RETURN(hip_memcpy_common(dst, src, sizeBytes, kind, stream, false));
}

hipError_t hipMemcpyAsync(void *dst, const void *src, size_t sizeBytes, hipMemcpyKind kind,
			  hipStream_t stream)
{
	HIP_RETURN(hip_memcpy_common(dst, src, sizeBytes, kind, stream, true));
}

hipError_t hipMemcpyAsync_spt(void *dst, const void *src, size_t sizeBytes, hipMemcpyKind kind,
			      hipStream_t stream)
{
	HIP_RETURN(hip_memcpy_common(dst, src, sizeBytes, kind, stream ? stream : hipStreamPerThread,
				     true));
}

hipError_t hipMemcpyHtoD(hipDeviceptr_t dst, void *src, size_t sizeBytes)
{
	HIP_RETURN(hip_memcpy_common((void *)dst, src, sizeBytes, hipMemcpyHostToDevice, NULL, false));
}

hipError_t hipMemcpyDtoH(void *dst, hipDeviceptr_t src, size_t sizeBytes)
{
	HIP_RETURN(hip_memcpy_common(dst, (const void *)src, sizeBytes, hipMemcpyDeviceToHost, NULL,
				     false));
}

hipError_t hipMemcpyDtoD(hipDeviceptr_t dst, hipDeviceptr_t src, size_t sizeBytes)
{
	HIP_RETURN(hip_memcpy_common((void *)dst, (const void *)src, sizeBytes,
				     hipMemcpyDeviceToDevice, NULL, false));
}

hipError_t hipMemcpyHtoDAsync(hipDeviceptr_t dst, void *src, size_t sizeBytes,
			      hipStream_t stream)
{
	HIP_RETURN(hip_memcpy_common((void *)dst, src, sizeBytes, hipMemcpyHostToDevice, stream,
				     true));
}

hipError_t hipMemcpyDtoHAsync(void *dst, hipDeviceptr_t src, size_t sizeBytes, hipStream_t stream)
{
	HIP_RETURN(hip_memcpy_common(dst, (const void *)src, sizeBytes, hipMemcpyDeviceToHost,
				     stream, true));
}

hipError_t hipMemcpyDtoDAsync(hipDeviceptr_t dst, hipDeviceptr_t src, size_t sizeBytes,
			      hipStream_t stream)
{
	HIP_RETURN(hip_memcpy_common((void *)dst, (const void *)src, sizeBytes,
				     hipMemcpyDeviceToDevice, stream, true));
}
