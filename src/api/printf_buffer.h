/*
 * Buffered device printf (-mprintf-kind=buffered): the hidden_printf_buffer argument and the
 * printing of what kernels left in it (printf_buffer.c, formatting shared with hostcall.c).
 */
#ifndef HIPKFD_API_PRINTF_BUFFER_H
#define HIPKFD_API_PRINTF_BUFFER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hip_device;
struct hip_stream;
struct loader_code_object;

/* [out] va: the GPU address of [in] d's printf buffer, made on first use. Returns 0 or -errno. */
int hip_printf_buffer(struct hip_device *d, uint64_t *va);

/* Around the launch of a kernel that writes the buffer: begin takes [in] d's buffer; end waits
 * for [in] s, prints the records (format strings from [in] co's metadata; NULL when the launch
 * failed: nothing ran), empties the buffer and releases it. */
void hip_printf_buffer_begin(struct hip_device *d);
void hip_printf_buffer_end(struct hip_device *d, struct hip_stream *s,
                           const struct loader_code_object *co);

/* hostcall.c: formats one message laid out as hostcall printf sends it (the format string, NUL
 * padded to 8 bytes, then 8-byte arguments and inline strings) and writes it whole to stdout, or
 * stderr when [in] to_stderr. */
void hip_printf_emit(const uint64_t *msg, size_t words, bool to_stderr);

#endif
