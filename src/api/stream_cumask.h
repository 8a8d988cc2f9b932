/*
 * CU-masked streams (stream_cumask.c).
 */
#ifndef HIPKFD_API_STREAM_CUMASK_H
#define HIPKFD_API_STREAM_CUMASK_H

#include <stdint.h>

struct hip_stream;

/* Record [in] mask ([in] words 32-bit words) as s's for hipExtStreamGetCUMask. 0 or -errno. */
int hip_stream_cu_mask_remember(const struct hip_stream *s, const uint32_t *mask, uint32_t words);

#endif
