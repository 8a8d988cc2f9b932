/* Copies to and from device variables (hipMemcpyToSymbol, hipMemcpyFromSymbol and their Async
 * forms). The variable's device address comes from the loader's hip_symbol_lookup (symbols.h),
 * referenced weakly so the runtime links even while the loader's API files are absent; without
 * it every symbol is unknown (hipErrorInvalidSymbol). */
#include <errno.h>

#include "../runtime/error.h"
#include "../runtime/internal.h"
#include "memcpy.h"
#include "symbols.h"

extern int hip_symbol_lookup(const void *host_symbol, struct hip_device *d, void **dev_ptr,
			     size_t *size) __attribute__((weak));

/* The device address of `offset` bytes into the symbol, checked against its size. */
static hipError_t symbol_range(const void *symbol, size_t size, size_t offset, hipStream_t stream,
			       void **out)
{
	if (!symbol)
		return hipErrorInvalidSymbol;
	hipError_t herr;
	struct hip_stream *s = hip_stream_from_api(stream, &herr);
	if (!s)
		return herr;
	if (!hip_symbol_lookup)
		return hipErrorInvalidSymbol;
	void *base;
	size_t sym_size;
	int err = hip_symbol_lookup(symbol, hip_stream_device(s), &base, &sym_size);
	if (err == -ENOENT)
		return hipErrorInvalidSymbol;
	if (err == -ENOEXEC)
		return hipErrorNoBinaryForGpu;
	if (err)
		return hip_error_from_errno(err);
	if (offset > sym_size || size > sym_size - offset)
		return hipErrorInvalidValue;
	*out = (char *)base + offset;
	return hipSuccess;
}

static hipError_t to_symbol(const void *symbol, const void *src, size_t size, size_t offset,
			    hipMemcpyKind kind, hipStream_t stream, bool async)
{
	if (kind != hipMemcpyHostToDevice && kind != hipMemcpyDeviceToDevice &&
	    kind != hipMemcpyDefault)
		return hipErrorInvalidMemcpyDirection;
	void *dst;
	hipError_t e = symbol_range(symbol, size, offset, stream, &dst);
	if (e != hipSuccess || size == 0)
		return e;
	return hip_memcpy_common(dst, src, size, hipMemcpyDefault, stream, async);
}

static hipError_t from_symbol(void *dst, const void *symbol, size_t size, size_t offset,
			      hipMemcpyKind kind, hipStream_t stream, bool async)
{
	if (kind != hipMemcpyDeviceToHost && kind != hipMemcpyDeviceToDevice &&
	    kind != hipMemcpyDefault)
		return hipErrorInvalidMemcpyDirection;
	void *src;
	hipError_t e = symbol_range(symbol, size, offset, stream, &src);
	if (e != hipSuccess || size == 0)
		return e;
	return hip_memcpy_common(dst, src, size, hipMemcpyDefault, stream, async);
}

hipError_t hipMemcpyToSymbol(const void *symbol, const void *src, size_t sizeBytes, size_t offset,
			     hipMemcpyKind kind)
{
	HIP_RETURN(to_symbol(symbol, src, sizeBytes, offset, kind, NULL, false));
}

hipError_t hipMemcpyToSymbol_spt(const void *symbol, const void *src, size_t sizeBytes,
				 size_t offset, hipMemcpyKind kind)
{
	HIP_RETURN(to_symbol(symbol, src, sizeBytes, offset, kind, hipStreamPerThread, false));
}

hipError_t hipMemcpyToSymbolAsync(const void *symbol, const void *src, size_t sizeBytes,
				  size_t offset, hipMemcpyKind kind, hipStream_t stream)
{
	HIP_RETURN(to_symbol(symbol, src, sizeBytes, offset, kind, stream, true));
}

hipError_t hipMemcpyToSymbolAsync_spt(const void *symbol, const void *src, size_t sizeBytes,
				      size_t offset, hipMemcpyKind kind, hipStream_t stream)
{
	HIP_RETURN(to_symbol(symbol, src, sizeBytes, offset, kind,
			     stream ? stream : hipStreamPerThread, true));
}

hipError_t hipMemcpyFromSymbol(void *dst, const void *symbol, size_t sizeBytes, size_t offset,
			       hipMemcpyKind kind)
{
	HIP_RETURN(from_symbol(dst, symbol, sizeBytes, offset, kind, NULL, false));
}

hipError_t hipMemcpyFromSymbol_spt(void *dst, const void *symbol, size_t sizeBytes, size_t offset,
				   hipMemcpyKind kind)
{
	HIP_RETURN(from_symbol(dst, symbol, sizeBytes, offset, kind, hipStreamPerThread, false));
}

hipError_t hipMemcpyFromSymbolAsync(void *dst, const void *symbol, size_t sizeBytes, size_t offset,
				    hipMemcpyKind kind, hipStream_t stream)
{
	HIP_RETURN(from_symbol(dst, symbol, sizeBytes, offset, kind, stream, true));
}

hipError_t hipMemcpyFromSymbolAsync_spt(void *dst, const void *symbol, size_t sizeBytes,
					size_t offset, hipMemcpyKind kind, hipStream_t stream)
{
	HIP_RETURN(from_symbol(dst, symbol, sizeBytes, offset, kind,
			       stream ? stream : hipStreamPerThread, true));
}
