/* hipMemset*: 8/16/32-bit patterns, unaligned starts and lengths, large fills (engine path),
 * pitched 2D/3D fills, async ordering and bad input. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <hip/hip_runtime_api.h>

static unsigned char *read_back(const void *d, size_t n)
{
	unsigned char *h = malloc(n);
	cr_assert_eq(hipMemcpy(h, d, n, hipMemcpyDeviceToHost), hipSuccess);
	return h;
}

Test(memset, bytes_with_unaligned_edges)
{
	const size_t sizes[] = {1, 3, 4, 5, 4097, 300 * 1024 + 3, 3 << 20};
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		size_t n = sizes[k], total = n + 16;
		unsigned char *d = NULL;
		cr_assert_eq(hipMalloc((void **)&d, total), hipSuccess);
		cr_assert_eq(hipMemset(d, 0xee, total), hipSuccess);
		cr_assert_eq(hipMemset(d + 3, 0x5a, n), hipSuccess);
		unsigned char *h = read_back(d, total);
		for (size_t i = 0; i < total; i++) {
			unsigned char want = (i >= 3 && i < 3 + n) ? 0x5a : 0xee;
			cr_assert_eq(h[i], want, "size %zu byte %zu: %#x", n, i, h[i]);
		}
		free(h);
		cr_assert_eq(hipFree(d), hipSuccess);
	}
}

Test(memset, d16_and_d32)
{
	const size_t counts[] = {1, 7, 1000, 200000};
	for (size_t k = 0; k < sizeof(counts) / sizeof(counts[0]); k++) {
		size_t n = counts[k];
		uint16_t *d16 = NULL;
		uint32_t *d32 = NULL;
		cr_assert_eq(hipMalloc((void **)&d16, (n + 1) * 2), hipSuccess);
		cr_assert_eq(hipMalloc((void **)&d32, n * 4), hipSuccess);
		/* Start the 16-bit fill at an address that is 2 but not 4-aligned. */
		cr_assert_eq(hipMemsetD16(d16 + 1, 0xbeef, n), hipSuccess);
		cr_assert_eq(hipMemsetD32(d32, (int)0xdeadbeef, n), hipSuccess);
		uint16_t *h16 = (uint16_t *)read_back(d16 + 1, n * 2);
		uint32_t *h32 = (uint32_t *)read_back(d32, n * 4);
		for (size_t i = 0; i < n; i++) {
			cr_assert_eq(h16[i], 0xbeef, "count %zu elem %zu", n, i);
			cr_assert_eq(h32[i], 0xdeadbeefu, "count %zu elem %zu", n, i);
		}
		free(h16);
		free(h32);
		cr_assert_eq(hipFree(d16), hipSuccess);
		cr_assert_eq(hipFree(d32), hipSuccess);
	}
}

Test(memset, d8_and_async_order)
{
	hipStream_t s;
	unsigned char *d = NULL;
	cr_assert_eq(hipStreamCreate(&s), hipSuccess);
	cr_assert_eq(hipMalloc((void **)&d, 1 << 20), hipSuccess);
	cr_assert_eq(hipMemsetD8(d, 1, 1 << 20), hipSuccess);
	cr_assert_eq(hipMemsetAsync(d, 2, 1 << 19, s), hipSuccess);
	cr_assert_eq(hipMemsetD8Async(d, 3, 1 << 18, s), hipSuccess);
	cr_assert_eq(hipMemsetD16Async(d, 0x0404, 1 << 16, s), hipSuccess);
	cr_assert_eq(hipMemsetD32Async(d, 0x05050505, 1 << 14, s), hipSuccess);
	cr_assert_eq(hipStreamSynchronize(s), hipSuccess);
	unsigned char *h = read_back(d, 1 << 20);
	for (size_t i = 0; i < (1u << 20); i++) {
		unsigned char want = i < (1u << 16) ? 5 : i < (1u << 17) ? 4 : i < (1u << 18) ? 3
				   : i < (1u << 19) ? 2 : 1;
		cr_assert_eq(h[i], want, "byte %zu", i);
	}
	free(h);
	cr_assert_eq(hipFree(d), hipSuccess);
	cr_assert_eq(hipStreamDestroy(s), hipSuccess);
}

Test(memset, pinned_host_memory)
{
	unsigned char *h = NULL;
	cr_assert_eq(hipHostMalloc((void **)&h, 4096, 0), hipSuccess);
	cr_assert_eq(hipMemset(h, 0x77, 4096), hipSuccess);
	for (int i = 0; i < 4096; i++)
		cr_assert_eq(h[i], 0x77);
	cr_assert_eq(hipHostFree(h), hipSuccess);
}

Test(memset, two_and_three_d)
{
	unsigned char *d = NULL;
	size_t pitch = 0;
	const size_t w = 50, hgt = 6;
	cr_assert_eq(hipMallocPitch((void **)&d, &pitch, w, hgt), hipSuccess);
	cr_assert_eq(hipMemset(d, 0, pitch * hgt), hipSuccess);
	cr_assert_eq(hipMemset2D(d, pitch, 0x3c, w, hgt), hipSuccess);
	unsigned char *h = read_back(d, pitch * hgt);
	for (size_t y = 0; y < hgt; y++)
		for (size_t x = 0; x < pitch; x++)
			cr_assert_eq(h[y * pitch + x], x < w ? 0x3c : 0, "(%zu,%zu)", x, y);
	free(h);
	cr_assert_eq(hipMemset2D(d, 10, 1, w, hgt), hipErrorInvalidValue, "width > pitch");
	cr_assert_eq(hipMemset2D(d, pitch, 1, w, 1000), hipErrorInvalidValue, "past the end");
	cr_assert_eq(hipFree(d), hipSuccess);

	hipExtent ext = {.width = 20, .height = 3, .depth = 4};
	hipPitchedPtr pp;
	cr_assert_eq(hipMalloc3D(&pp, ext), hipSuccess);
	size_t total = pp.pitch * 3 * 4;
	cr_assert_eq(hipMemset(pp.ptr, 0, total), hipSuccess);
	cr_assert_eq(hipMemset3D(pp, 0x42, ext), hipSuccess);
	h = read_back(pp.ptr, total);
	for (size_t i = 0; i < total; i++)
		cr_assert_eq(h[i], (i % pp.pitch) < 20 ? 0x42 : 0, "byte %zu", i);
	free(h);
	cr_assert_eq(hipFree(pp.ptr), hipSuccess);
}

Test(memset, bad_input)
{
	int local[4];
	cr_assert_eq(hipMemset(NULL, 0, 16), hipErrorInvalidValue);
	cr_assert_eq(hipMemset(local, 0, sizeof(local)), hipErrorInvalidValue, "pageable memory");
	cr_assert_eq(hipMemset(NULL, 0, 0), hipSuccess);
	void *d = NULL;
	cr_assert_eq(hipMalloc(&d, 64), hipSuccess);
	cr_assert_eq(hipMemset(d, 0, 65), hipErrorInvalidValue, "past the end");
	cr_assert_eq(hipMemsetAsync(d, 0, 8, (hipStream_t)local), hipErrorInvalidHandle);
	cr_assert_eq(hipFree(d), hipSuccess);
}
