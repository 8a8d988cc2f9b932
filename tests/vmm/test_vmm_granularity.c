/* Granularity: the minimum is ROCr's runtime allocation granule (a 4 KiB page), the recommended
 * one its 2 MiB VRAM granule; reservations, allocations and mappings of single pages work. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "vmm_common.h"

Test(vmm_granularity, minimum_and_recommended)
{
	hipMemAllocationProp prop = vmm_prop(0, hipMemHandleTypeNone);
	size_t min = 0, rec = 0;
	cr_assert_eq(hipMemGetAllocationGranularity(&min, &prop, hipMemAllocationGranularityMinimum),
		     hipSuccess);
	cr_assert_eq(hipMemGetAllocationGranularity(&rec, &prop, hipMemAllocationGranularityRecommended),
		     hipSuccess);
	cr_assert_eq(min, 4096);
	cr_assert_eq(rec, 2u << 20);
	/* The same for a shareable allocation. */
	prop = vmm_prop(0, hipMemHandleTypePosixFileDescriptor);
	cr_assert_eq(hipMemGetAllocationGranularity(&min, &prop, hipMemAllocationGranularityMinimum),
		     hipSuccess);
	cr_assert_eq(min, 4096);
	cr_assert_eq(hipMemGetAllocationGranularity(&min, &prop, (hipMemAllocationGranularity_flags)2),
		     hipErrorInvalidValue);
}

/* Sizes are checked against the minimum: clr's hipMemAddressReserve answers a bad size with
 * hipErrorMemoryAllocation, hipMemCreate with hipErrorInvalidValue. */
Test(vmm_granularity, sizes_must_be_page_multiples)
{
	hipMemAllocationProp prop = vmm_prop(0, hipMemHandleTypeNone);
	hipMemGenericAllocationHandle_t h = NULL;
	void *va = NULL;

	cr_assert_eq(hipMemAddressReserve(&va, 6144, 0, NULL, 0), hipErrorMemoryAllocation);
	cr_assert_null(va);
	cr_assert_eq(hipMemAddressReserve(&va, 4097, 0, NULL, 0), hipErrorMemoryAllocation);
	cr_assert_eq(hipMemCreate(&h, 2048, &prop, 0), hipErrorInvalidValue);
	cr_assert_null(h);
	cr_assert_eq(hipMemCreate(&h, 4096 + 512, &prop, 0), hipErrorInvalidValue);

	cr_assert_eq(hipMemAddressReserve(&va, 3 * 4096, 0, NULL, 0), hipSuccess);
	cr_assert_not_null(va);
	cr_assert_eq(hipMemCreate(&h, 4096, &prop, 0), hipSuccess);
	/* A mapping starts on a page and is a whole number of pages. */
	cr_assert_eq(hipMemMap((char *)va + 2048, 4096, 0, h, 0), hipErrorInvalidValue);
	cr_assert_eq(hipMemMap((char *)va + 4096, 2048, 0, h, 0), hipErrorInvalidValue);
	cr_assert_eq(hipMemMap((char *)va + 4096, 4096, 0, h, 0), hipSuccess);
	cr_assert_eq(hipMemUnmap((char *)va + 4096, 4096), hipSuccess);
	cr_assert_eq(hipMemRelease(h), hipSuccess);
	cr_assert_eq(hipMemAddressFree(va, 3 * 4096), hipSuccess);
}

/* One page, used through the GPU copy engines and the CPU. */
Test(vmm_granularity, single_page_round_trip)
{
	size_t g = vmm_min_granularity();
	void *va = NULL;
	hipMemGenericAllocationHandle_t h = NULL;
	unsigned char in[4096], out[4096];

	vmm_map_new(g, hipMemHandleTypeNone, &va, &h);
	for (size_t i = 0; i < sizeof(in); i++)
		in[i] = (unsigned char)(i * 7 + 3);
	cr_assert_eq(hipMemcpy(va, in, g, hipMemcpyHostToDevice), hipSuccess);
	cr_assert_eq(hipMemset((char *)va + 1024, 0xa5, 512), hipSuccess);
	cr_assert_eq(hipMemcpy(out, va, g, hipMemcpyDeviceToHost), hipSuccess);
	for (size_t i = 0; i < sizeof(out); i++)
		cr_assert_eq(out[i], i >= 1024 && i < 1536 ? 0xa5 : in[i], "byte %zu", i);
	vmm_unmap_free(va, g, h);
}

/* Three one-page allocations side by side in one reservation: one copy spans all of them. */
Test(vmm_granularity, pages_side_by_side)
{
	const size_t g = vmm_min_granularity(), n = 3;
	hipMemAllocationProp prop = vmm_prop(0, hipMemHandleTypeNone);
	hipMemGenericAllocationHandle_t h[3];
	static unsigned char in[3 * 4096], out[3 * 4096];
	void *va = NULL;

	cr_assert_eq(hipMemAddressReserve(&va, n * g, 0, NULL, 0), hipSuccess);
	for (size_t i = 0; i < n; i++) {
		cr_assert_eq(hipMemCreate(&h[i], g, &prop, 0), hipSuccess);
		cr_assert_eq(hipMemMap((char *)va + i * g, g, 0, h[i], 0), hipSuccess);
	}
	cr_assert_eq(vmm_set_access(va, n * g, 0, hipMemAccessFlagsProtReadWrite), hipSuccess);
	for (size_t i = 0; i < sizeof(in); i++)
		in[i] = (unsigned char)(i % 251);
	cr_assert_eq(hipMemcpy(va, in, sizeof(in), hipMemcpyHostToDevice), hipSuccess);
	cr_assert_eq(hipMemcpy(out, va, sizeof(out), hipMemcpyDeviceToHost), hipSuccess);
	cr_assert_arr_eq(out, in, sizeof(in));
	cr_assert_eq(hipMemUnmap(va, n * g), hipSuccess);
	for (size_t i = 0; i < n; i++)
		cr_assert_eq(hipMemRelease(h[i]), hipSuccess);
	cr_assert_eq(hipMemAddressFree(va, n * g), hipSuccess);
}
