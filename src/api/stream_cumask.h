/*
 * CU-masked streams (stream_cumask.c) and the stream.c hooks they need.
 */
#ifndef HIPKFD_API_STREAM_CUMASK_H
#define HIPKFD_API_STREAM_CUMASK_H

#include <stdint.h>

struct hip_stream;

/* stream.c: creates [in] s's queue now (it is otherwise created on first use) and restricts it
 * to the CUs set in [in] mask, [in] words 32-bit words (AMDKFD_IOC_SET_CU_MASK). Returns 0 or
 * -errno. */
int hip_stream_apply_cu_mask(struct hip_stream *s, const uint32_t *mask, uint32_t words);

/* stream_cumask.c: forgets the CU mask recorded for [in] s (hip_stream_destroy: stream objects
 * are recycled). */
void hip_stream_cu_mask_forget(const struct hip_stream *s);
/* Record [in] mask ([in] words 32-bit words) as s's for hipExtStreamGetCUMask. 0 or -errno. */
int hip_stream_cu_mask_remember(const struct hip_stream *s, const uint32_t *mask, uint32_t words);

/* green_ctx.c: forgets [in] s's execution-context membership (hip_stream_destroy). */
void hip_green_ctx_stream_forget(const struct hip_stream *s);

#endif
