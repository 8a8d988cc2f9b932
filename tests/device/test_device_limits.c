/* Device limits and argument checks brought in line with what the runtime really does and with
 * AMD's runtime (clr):
 * - hipLimitPrintfFifoSize reports the size of the buffered-printf buffer (4 MiB unless set),
 *   and a size set before the buffer exists is the size it will be made with.
 * - hipMemcpy2DFromArray(Async) with no source array is hipErrorInvalidHandle, checked before
 *   the destination (clr ihipMemcpy2DFromArray). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include <hip/hip_runtime_api.h>

Test(device_limits, printf_fifo_default_is_the_buffer_size)
{
	size_t v = 0;
	cr_assert_eq(hipDeviceGetLimit(&v, hipLimitPrintfFifoSize), hipSuccess);
	cr_assert_eq(v, (size_t)4 << 20, "default printf FIFO %zu, buffer is 4 MiB", v);
}

Test(device_limits, printf_fifo_set_before_use_reads_back)
{
	size_t v = 0;
	cr_assert_eq(hipDeviceSetLimit(hipLimitPrintfFifoSize, (size_t)8 << 20), hipSuccess);
	cr_assert_eq(hipDeviceGetLimit(&v, hipLimitPrintfFifoSize), hipSuccess);
	cr_assert_eq(v, (size_t)8 << 20);
	/* Sizes are kept in whole 8-byte frames' units: never less than asked. */
	cr_assert_eq(hipDeviceSetLimit(hipLimitPrintfFifoSize, 1001), hipSuccess);
	cr_assert_eq(hipDeviceGetLimit(&v, hipLimitPrintfFifoSize), hipSuccess);
	cr_assert_eq(v, 1008u);
	cr_assert_eq(hipDeviceSetLimit(hipLimitPrintfFifoSize, 0), hipErrorInvalidValue);
	cr_assert_eq(hipDeviceGetLimit(&v, hipLimitPrintfFifoSize), hipSuccess);
	cr_assert_eq(v, 1008u, "a refused size leaves the limit alone");
	/* The header's size field is 32 bits. */
	cr_assert_eq(hipDeviceSetLimit(hipLimitPrintfFifoSize, (size_t)1 << 33), hipErrorInvalidValue);
	cr_assert_eq(hipDeviceGetLimit(&v, hipLimitPrintfFifoSize), hipSuccess);
	cr_assert_eq(v, 1008u);
	/* hipDeviceReset forgets the setting: back to the default. */
	cr_assert_eq(hipDeviceReset(), hipSuccess);
	cr_assert_eq(hipDeviceGetLimit(&v, hipLimitPrintfFifoSize), hipSuccess);
	cr_assert_eq(v, (size_t)4 << 20);
}

Test(device_limits, copy_from_null_array_is_invalid_handle)
{
	enum { W = 64, H = 4 };
	char *host = malloc(W * H);
	hipStream_t s = NULL;
	cr_assert_not_null(host);
	memset(host, 0x5a, W * H);
	cr_assert_eq(hipStreamCreate(&s), hipSuccess);
	cr_assert_eq(hipGetLastError(), hipSuccess);
	cr_assert_eq(hipMemcpy2DFromArrayAsync(host, W, NULL, 0, 0, W, H, hipMemcpyDeviceToHost, s),
		     hipErrorInvalidHandle);
	cr_assert_eq(hipGetLastError(), hipErrorInvalidHandle);
	cr_assert_eq(hipGetLastError(), hipSuccess);
	cr_assert_eq(hipMemcpy2DFromArray(host, W, NULL, 0, 0, W, H, hipMemcpyDeviceToHost),
		     hipErrorInvalidHandle);
	/* The array is checked before the destination. */
	cr_assert_eq(hipMemcpy2DFromArray(NULL, W, NULL, 0, 0, W, H, hipMemcpyDeviceToHost),
		     hipErrorInvalidHandle);
	cr_assert_eq(hipMemcpy2DToArrayAsync(NULL, 0, 0, host, W, W, H, hipMemcpyHostToDevice, s),
		     hipErrorInvalidHandle);
	cr_assert_eq(hipStreamSynchronize(s), hipSuccess);
	for (int i = 0; i < W * H; i++)
		cr_assert_eq(host[i], 0x5a, "byte %d written by a refused copy", i);
	cr_assert_eq(hipStreamDestroy(s), hipSuccess);
	free(host);
}
