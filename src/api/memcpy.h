/* The 1D copy entry points' common path (memcpy.c), for the other copy entry points. */
#ifndef HIPKFD_API_MEMCPY_H
#define HIPKFD_API_MEMCPY_H

#include <stdbool.h>
#include <stddef.h>

#include <hip/hip_runtime_api.h>

/* Every 1D copy entry point: argument checks, stream resolution, hip_copy. */
hipError_t hip_memcpy_common(void *dst, const void *src, size_t size, hipMemcpyKind kind,
			     hipStream_t stream, bool async);

#endif
