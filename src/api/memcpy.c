/* hipMemcpy and its 1D variants. The direction is always taken from the address table (as for
 * hipMemcpyDefault): a kind that names device memory only adds a check that the pointer really is
 * memory the runtime knows, so a bogus "device" pointer gets hipErrorInvalidValue, not a crash. */
#include <errno.h>

#include "../runtime/capture.h"
#include "../runtime/error.h"
#include "../runtime/internal.h"
#include "memcpy.h"
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

/* The bytes from [in] p a copy of [in] size may move in one piece: up to the end of p's
 * mapping when p lies in a VMM mapping (the reservation's next mapping continues it, clr checks
 * against the whole reservation), else all of them (allocation bounds are checked by the copy). */
static size_t copy_piece(const void *p, size_t size)
{
	struct mem_info info;
	if (mem_lookup(p, &info) != 0 || !(info.flags & MEM_FLAG_VMM))
		return size;
	size_t left = info.size - (size_t)((const char *)p - (const char *)info.base);
	return left < size ? left : size;
}

static bool in_vmm_mapping(const void *p)
{
	struct mem_info info;
	return mem_lookup(p, &info) == 0 && (info.flags & MEM_FLAG_VMM);
}

/* The pieces of a copy split at VMM mapping boundaries: each is copied with [in] copy unless it
 * is NULL (a dry run). A side that leaves one mapping must continue in another: what follows a
 * reservation's mappings is no memory (not the caller's host memory). */
static int walk_pieces(struct hip_stream *s, void *dst, const void *src, size_t size, bool async,
		       bool copy)
{
	bool dst_vmm = in_vmm_mapping(dst), src_vmm = in_vmm_mapping(src);
	while (size) {
		if ((dst_vmm && !in_vmm_mapping(dst)) || (src_vmm && !in_vmm_mapping(src)))
			return -EINVAL;
		size_t n = copy_piece(dst, size), m = copy_piece(src, n);
		int err = copy ? hip_copy(s, dst, src, m, async) : 0;
		if (err)
			return err;
		dst = (char *)dst + m;
		src = (const char *)src + m;
		size -= m;
	}
	return 0;
}

/* hip_copy over VMM mappings: every piece is checked before the first is copied. */
static int copy_pieces(struct hip_stream *s, void *dst, const void *src, size_t size, bool async)
{
	int err = walk_pieces(s, dst, src, size, async, false);
	return err ? err : walk_pieces(s, dst, src, size, async, true);
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
	/* past the end of one allocation: fine if that is a VMM mapping continued by the next one
	 * (checked before anything is enqueued, so nothing has been copied yet) */
	if (err == -EINVAL && (copy_piece(dst, size) < size || copy_piece(src, size) < size))
		err = copy_pieces(s, dst, src, size, async);
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
