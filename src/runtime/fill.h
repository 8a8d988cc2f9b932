/* Fills of pitched boxes (copy.c) for memset.c. */
#ifndef HIPKFD_RUNTIME_FILL_H
#define HIPKFD_RUNTIME_FILL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hip_stream;

/* Fill [in] depth slices [in] slice bytes apart, each [in] height rows [in] pitch bytes apart, of
 * [in] count elements of [in] esize bytes with [in] value, in stream order on [in] s. While the
 * stream is busy an async fill, or a fill of device memory, is handed as one piece to the
 * stream's callback worker instead of blocking (copy.c). The caller has checked that the box lies
 * inside one allocation. Returns 0 or -errno. */
int hip_fill_box(struct hip_stream *s, void *dst, uint32_t value, size_t esize, size_t count,
		 size_t pitch, size_t height, size_t slice, size_t depth, bool async);

#endif
