/* hipMemMap of part of a physical allocation: [offset, offset + size) of the handle appears at
 * the mapped address, for the GPU and the CPU, and two mappings of one handle share memory. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "vmm_common.h"

#define PAGE 4096u

static void fill_pages(unsigned char *buf, size_t pages)
{
	for (size_t i = 0; i < pages * PAGE; i++)
		buf[i] = (unsigned char)(0x10 * (i / PAGE) + (i % 13));
}

Test(vmm_partial_map, middle_pages_of_a_handle)
{
	hipMemAllocationProp prop = vmm_prop(0, hipMemHandleTypeNone);
	hipMemGenericAllocationHandle_t h = NULL;
	void *whole = NULL, *part = NULL;
	static unsigned char in[4 * PAGE], out[4 * PAGE];

	cr_assert_eq(hipMemCreate(&h, 4 * PAGE, &prop, 0), hipSuccess);
	cr_assert_eq(hipMemAddressReserve(&whole, 4 * PAGE, 0, NULL, 0), hipSuccess);
	cr_assert_eq(hipMemAddressReserve(&part, 2 * PAGE, 0, NULL, 0), hipSuccess);
	cr_assert_eq(hipMemMap(whole, 4 * PAGE, 0, h, 0), hipSuccess);
	cr_assert_eq(hipMemMap(part, 2 * PAGE, PAGE, h, 0), hipSuccess);
	cr_assert_eq(vmm_set_access(whole, 4 * PAGE, 0, hipMemAccessFlagsProtReadWrite), hipSuccess);
	cr_assert_eq(vmm_set_access(part, 2 * PAGE, 0, hipMemAccessFlagsProtReadWrite), hipSuccess);

	fill_pages(in, 4);
	cr_assert_eq(hipMemcpy(whole, in, sizeof(in), hipMemcpyHostToDevice), hipSuccess);
	/* The partial mapping shows pages 1 and 2, through the GPU and the CPU. */
	cr_assert_eq(hipMemcpy(out, part, 2 * PAGE, hipMemcpyDeviceToHost), hipSuccess);
	cr_assert_arr_eq(out, in + PAGE, 2 * PAGE);
	cr_assert_eq(((unsigned char *)part)[0], in[PAGE]);
	cr_assert_eq(((unsigned char *)part)[2 * PAGE - 1], in[3 * PAGE - 1]);

	/* A write through the partial mapping lands in pages 1 and 2 of the handle only. */
	cr_assert_eq(hipMemset(part, 0xee, 2 * PAGE), hipSuccess);
	cr_assert_eq(hipMemcpy(out, whole, sizeof(out), hipMemcpyDeviceToHost), hipSuccess);
	for (size_t i = 0; i < sizeof(out); i++) {
		unsigned char want = i >= PAGE && i < 3 * PAGE ? 0xee : in[i];
		cr_assert_eq(out[i], want, "byte %zu", i);
	}

	/* Device-to-device through the partial mapping. */
	void *d = NULL;
	cr_assert_eq(hipMalloc(&d, 2 * PAGE), hipSuccess);
	cr_assert_eq(hipMemcpy(whole, in, sizeof(in), hipMemcpyHostToDevice), hipSuccess);
	cr_assert_eq(hipMemcpy(d, part, 2 * PAGE, hipMemcpyDeviceToDevice), hipSuccess);
	cr_assert_eq(hipMemcpy(out, d, 2 * PAGE, hipMemcpyDeviceToHost), hipSuccess);
	cr_assert_arr_eq(out, in + PAGE, 2 * PAGE);
	cr_assert_eq(hipFree(d), hipSuccess);

	cr_assert_eq(hipMemUnmap(part, 2 * PAGE), hipSuccess);
	cr_assert_eq(hipMemUnmap(whole, 4 * PAGE), hipSuccess);
	cr_assert_eq(hipMemRelease(h), hipSuccess);
	cr_assert_eq(hipMemAddressFree(part, 2 * PAGE), hipSuccess);
	cr_assert_eq(hipMemAddressFree(whole, 4 * PAGE), hipSuccess);
}

/* The first half of a handle twice the reservation's size (hip-tests' MapPartialPhysicalMem). */
Test(vmm_partial_map, first_half_of_a_larger_handle)
{
	hipMemAllocationProp prop = vmm_prop(0, hipMemHandleTypeNone);
	hipMemGenericAllocationHandle_t h = NULL;
	void *va = NULL;
	unsigned char in[2 * PAGE], out[2 * PAGE];

	cr_assert_eq(hipMemCreate(&h, 4 * PAGE, &prop, 0), hipSuccess);
	cr_assert_eq(hipMemAddressReserve(&va, 2 * PAGE, 0, NULL, 0), hipSuccess);
	cr_assert_eq(hipMemMap(va, 2 * PAGE, 0, h, 0), hipSuccess);
	cr_assert_eq(vmm_set_access(va, 2 * PAGE, 0, hipMemAccessFlagsProtReadWrite), hipSuccess);
	fill_pages(in, 2);
	cr_assert_eq(hipMemcpy(va, in, sizeof(in), hipMemcpyHostToDevice), hipSuccess);
	cr_assert_eq(hipMemcpy(out, va, sizeof(out), hipMemcpyDeviceToHost), hipSuccess);
	cr_assert_arr_eq(out, in, sizeof(in));
	/* hipMemRetainAllocationHandle finds the handle through the partial mapping. */
	hipMemGenericAllocationHandle_t r = NULL;
	cr_assert_eq(hipMemRetainAllocationHandle(&r, (char *)va + PAGE), hipSuccess);
	cr_assert_eq(r, h);
	cr_assert_eq(hipMemRelease(r), hipSuccess);
	vmm_unmap_free(va, 2 * PAGE, h);
}

/* The range must lie inside the handle, on page boundaries. */
Test(vmm_partial_map, range_outside_the_handle)
{
	hipMemAllocationProp prop = vmm_prop(0, hipMemHandleTypeNone);
	hipMemGenericAllocationHandle_t h = NULL;
	void *va = NULL;

	cr_assert_eq(hipMemCreate(&h, 2 * PAGE, &prop, 0), hipSuccess);
	cr_assert_eq(hipMemAddressReserve(&va, 2 * PAGE, 0, NULL, 0), hipSuccess);
	cr_assert_eq(hipMemMap(va, 2 * PAGE, PAGE, h, 0), hipErrorInvalidValue);
	cr_assert_eq(hipMemMap(va, PAGE, 2 * PAGE, h, 0), hipErrorInvalidValue);
	cr_assert_eq(hipMemMap(va, PAGE, 100, h, 0), hipErrorInvalidValue);
	cr_assert_eq(hipMemMap(va, PAGE, (size_t)-1, h, 0), hipErrorInvalidValue);
	cr_assert_eq(hipMemMap(va, PAGE, (size_t)-PAGE, h, 0), hipErrorInvalidValue);
	/* Nothing was left mapped by the failures. */
	cr_assert_eq(hipMemUnmap(va, PAGE), hipErrorInvalidValue);
	cr_assert_eq(hipMemMap(va, PAGE, PAGE, h, 0), hipSuccess);
	cr_assert_eq(hipMemUnmap(va, PAGE), hipSuccess);
	cr_assert_eq(hipMemRelease(h), hipSuccess);
	cr_assert_eq(hipMemAddressFree(va, 2 * PAGE), hipSuccess);
}
