/*
 * Buffered device printf (-mprintf-kind=buffered): the hidden_printf_buffer argument and the
 * printing of what kernels left in it (printf_buffer.c, formatting shared with hostcall.c).
 */
#ifndef HIPKFD_HOSTCALL_PRINTF_BUFFER_H
#define HIPKFD_HOSTCALL_PRINTF_BUFFER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hip_device;
struct hip_stream;
struct loader_code_object;

/* The buffer's size while hipLimitPrintfFifoSize is not set: 4 MiB, clr's 4096 bytes per
 * work-item of a 1024-thread group (rocprintf.hpp WorkitemDebugSize). */
#define HIP_PRINTF_BUFFER_DEFAULT ((size_t)4096u * 1024u)

/* [out] va: the GPU address of [in] d's printf buffer, made on first use. Returns 0 or -errno. */
int hip_printf_buffer(struct hip_device *d, uint64_t *va);

/* The size in bytes of [in] d's buffer, 0 while it has not been made (hipDeviceGetLimit). */
size_t hip_printf_buffer_size(struct hip_device *d);

/* hipDeviceSetLimit(hipLimitPrintfFifoSize, [in] size): stores the size the buffer will be made
 * with. Returns 0, or -EBUSY once the buffer exists with another size (CUDA: the FIFO size must
 * be set before the first kernel that uses printf). */
int hip_printf_buffer_set_size(struct hip_device *d, size_t size);

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
