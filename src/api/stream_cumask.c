/*
 * CU-masked streams: hipExtStreamCreateWithCUMask / hipExtStreamGetCUMask.
 *
 * A masked stream gets its own AQL queue at creation, restricted with AMDKFD_IOC_SET_CU_MASK
 * (kfd_ioctl_set_cu_mask: a bit per CU in 32-bit words; the driver keeps at most 1024 bits and
 * maps the mask onto the shader engines). Only the words that cover the device's CUs are sent:
 * bits past the last CU select nothing. A mask that selects none of the device's CUs is recorded
 * but not applied (the queue keeps every CU), which is also what hipExtStreamGetCUMask reports
 * for it, as clr does.
 *
 * clr's answers (hip_stream.cpp): create: NULL stream pointer -> hipErrorInvalidHandle, size 0
 * or NULL mask -> hipErrorInvalidValue, the stream has default flags and normal priority. Get:
 * NULL mask -> hipErrorInvalidValue, fewer words than the current device's CUs need ->
 * hipErrorInvalidValue; the null and per-thread streams report every CU; another stream
 * reports its mask ANDed with every CU over the shorter of the two lengths, or every CU when
 * that AND is empty or the stream has no mask. clr has a process-wide mask as well
 * (ROC_GLOBAL_CU_MASK); hipkfd has none, so "every CU" is always the device's full set.
 *
 * The masks live here rather than in the stream object: a small table keyed by stream,
 * protected by mask_lock, entries dropped when the stream is destroyed.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "../kfd/kfd.h"
#include "../runtime/error.h"
#include "../runtime/internal.h"
#include "../runtime/runtime.h"
#include "stream_cumask.h"

struct cu_mask_entry {
  const struct hip_stream *stream;
  uint32_t words;
  uint32_t *mask;
  struct cu_mask_entry *next;
};

static pthread_mutex_t mask_lock = PTHREAD_MUTEX_INITIALIZER;
static struct cu_mask_entry *masks;    /* protected by mask_lock */

/* 32-bit words needed for one bit per CU of [in] d. */
static uint32_t device_words(const struct hip_device *d)
{
  return (d->node->cu_count + 31u) / 32u;
}

/* Word [in] i of the every-CU mask of [in] d. */
static uint32_t full_word(const struct hip_device *d, uint32_t i)
{
  uint32_t cus = d->node->cu_count, first = i * 32u;
  if (first + 32u <= cus)
    return 0xffffffffu;
  return first >= cus ? 0 : (1u << (cus - first)) - 1u;
}

/* Stream objects are recycled: a destroyed stream's mask goes with it (hip_stream_on_destroy). */
static void stream_cu_mask_forget(const struct hip_stream *s)
{
  pthread_mutex_lock(&mask_lock);
  for (struct cu_mask_entry **pp = &masks; *pp; pp = &(*pp)->next) {
    if ((*pp)->stream == s) {
      struct cu_mask_entry *e = *pp;
      *pp = e->next;
      free(e->mask);
      free(e);
      break;
    }
  }
  pthread_mutex_unlock(&mask_lock);
}

int hip_stream_cu_mask_remember(const struct hip_stream *s, const uint32_t *mask, uint32_t words)
{
  struct cu_mask_entry *e = malloc(sizeof(*e));
  uint32_t *copy = malloc(sizeof(uint32_t) * words);
  if (!e || !copy) {
    free(e);
    free(copy);
    return -ENOMEM;
  }
  memcpy(copy, mask, sizeof(uint32_t) * words);
  *e = (struct cu_mask_entry){.stream = s, .words = words, .mask = copy};
  stream_cu_mask_forget(s); /* a recycled stream object's old entry, if any */
  pthread_mutex_lock(&mask_lock);
  e->next = masks;
  masks = e;
  pthread_mutex_unlock(&mask_lock);
  return 0;
}

/* Copies [in] s's mask ANDed with every CU of [in] d into [out] out (room for [in] room words).
 * Returns the words written, 0 when the stream has no mask or the AND selects nothing. */
static uint32_t stream_mask(const struct hip_stream *s, const struct hip_device *d, uint32_t *out,
                            uint32_t room)
{
  uint32_t n = 0, any = 0;
  pthread_mutex_lock(&mask_lock);
  for (const struct cu_mask_entry *e = masks; e; e = e->next) {
    if (e->stream != s)
      continue;
    n = e->words < device_words(d) ? e->words : device_words(d);
    n = n < room ? n : room;
    for (uint32_t i = 0; i < n; i++)
      any |= out[i] = e->mask[i] & full_word(d, i);
    break;
  }
  pthread_mutex_unlock(&mask_lock);
  return any ? n : 0;
}

hipError_t hipExtStreamCreateWithCUMask(hipStream_t *stream, uint32_t cuMaskSize, const uint32_t *cuMask)
{
  if (!stream)
    HIP_RETURN(hipErrorInvalidHandle);
  if (!cuMaskSize || !cuMask)
    HIP_RETURN(hipErrorInvalidValue);
  hipError_t e = hipStreamCreate(stream);
  if (e)
    HIP_RETURN(e);
  struct hip_stream *s = (struct hip_stream *)*stream;
  struct hip_device *d = s->device;
  uint32_t words = cuMaskSize < device_words(d) ? cuMaskSize : device_words(d), any = 0;
  for (uint32_t i = 0; i < words; i++)
    any |= cuMask[i] & full_word(d, i);
  int err = hip_stream_cu_mask_remember(s, cuMask, cuMaskSize);
  if (!err && any)
    err = hip_stream_apply_cu_mask(s, cuMask, words);
  if (err) {
    hipStreamDestroy(*stream);
    *stream = NULL;
    HIP_RETURN(hip_error_from_errno(err));
  }
  HIP_RETURN(hipSuccess);
}

hipError_t hipExtStreamGetCUMask(hipStream_t stream, uint32_t cuMaskSize, uint32_t *cuMask)
{
  if (!cuMask)
    HIP_RETURN(hipErrorInvalidValue);
  struct hip_device *d = hip_device_current();
  if (!d)
    HIP_RETURN(hip_init_error() ?: hipErrorInvalidDevice);
  if (cuMaskSize < device_words(d))
    HIP_RETURN(hipErrorInvalidValue);
  bool shared = !stream || stream == hipStreamPerThread || stream == hipStreamLegacy;
  if (!shared && !hip_stream_valid(stream))
    HIP_RETURN(hip_stream_invalid_error(stream));
  if (!shared && stream_mask((const struct hip_stream *)stream, d, cuMask, cuMaskSize))
    HIP_RETURN(hipSuccess);
  for (uint32_t i = 0; i < device_words(d); i++)
    cuMask[i] = full_word(d, i);
  HIP_RETURN(hipSuccess);
}

__attribute__((constructor)) static void stream_cu_mask_install(void)
{
  hip_stream_on_destroy(stream_cu_mask_forget);
}
