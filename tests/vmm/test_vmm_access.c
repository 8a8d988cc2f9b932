/* hipMemSetAccess after mapping: a device's access can be narrowed to read-only, revoked and
 * granted again; hipMemGetAccess reports what was set, and the memory keeps its contents. */
#include <criterion/criterion.h>
#include <string.h>

#include "vmm_common.h"

#define SIZE (64u << 10)

static unsigned char in[SIZE], out[SIZE];

static void pattern(unsigned char seed)
{
	for (size_t i = 0; i < SIZE; i++)
		in[i] = (unsigned char)(seed + i * 31);
}

/* CUDA: a new mapping is accessible to no device until hipMemSetAccess says so. */
Test(vmm_access, nothing_recorded_before_set_access)
{
	hipMemAllocationProp prop = vmm_prop(0, hipMemHandleTypeNone);
	hipMemGenericAllocationHandle_t h = NULL;
	void *va = NULL;

	cr_assert_eq(hipMemAddressReserve(&va, SIZE, 0, NULL, 0), hipSuccess);
	cr_assert_eq(hipMemCreate(&h, SIZE, &prop, 0), hipSuccess);
	cr_assert_eq(hipMemMap(va, SIZE, 0, h, 0), hipSuccess);
	cr_assert_eq(vmm_get_access(va, 0), hipMemAccessFlagsProtNone);
	cr_assert_eq(vmm_set_access(va, SIZE, 0, hipMemAccessFlagsProtRead), hipSuccess);
	cr_assert_eq(vmm_get_access((char *)va + SIZE - 1, 0), hipMemAccessFlagsProtRead);
	vmm_unmap_free(va, SIZE, h);
}

Test(vmm_access, read_write_to_read_only_and_back)
{
	void *va = NULL;
	hipMemGenericAllocationHandle_t h = NULL;

	vmm_map_new(SIZE, hipMemHandleTypeNone, &va, &h);
	cr_assert_eq(vmm_get_access(va, 0), hipMemAccessFlagsProtReadWrite);
	pattern(1);
	cr_assert_eq(hipMemcpy(va, in, SIZE, hipMemcpyHostToDevice), hipSuccess);

	/* Read-only: the GPU still reads it, contents unchanged. */
	cr_assert_eq(vmm_set_access(va, SIZE, 0, hipMemAccessFlagsProtRead), hipSuccess);
	cr_assert_eq(vmm_get_access(va, 0), hipMemAccessFlagsProtRead);
	void *d = NULL;
	cr_assert_eq(hipMalloc(&d, SIZE), hipSuccess);
	cr_assert_eq(hipMemcpy(d, va, SIZE, hipMemcpyDeviceToDevice), hipSuccess);
	cr_assert_eq(hipMemcpy(out, d, SIZE, hipMemcpyDeviceToHost), hipSuccess);
	cr_assert_arr_eq(out, in, SIZE);

	/* Writable again: a GPU fill goes through. */
	cr_assert_eq(vmm_set_access(va, SIZE, 0, hipMemAccessFlagsProtReadWrite), hipSuccess);
	cr_assert_eq(vmm_get_access(va, 0), hipMemAccessFlagsProtReadWrite);
	cr_assert_eq(hipMemset(va, 0x77, SIZE), hipSuccess);
	cr_assert_eq(hipMemcpy(out, va, SIZE, hipMemcpyDeviceToHost), hipSuccess);
	for (size_t i = 0; i < SIZE; i++)
		cr_assert_eq(out[i], 0x77, "byte %zu", i);
	cr_assert_eq(hipFree(d), hipSuccess);
	vmm_unmap_free(va, SIZE, h);
}

/* Revoked access is reported and the memory survives it; granting again restores GPU use. */
Test(vmm_access, revoke_and_grant_again)
{
	void *va = NULL;
	hipMemGenericAllocationHandle_t h = NULL;

	vmm_map_new(SIZE, hipMemHandleTypeNone, &va, &h);
	pattern(9);
	cr_assert_eq(hipMemcpy(va, in, SIZE, hipMemcpyHostToDevice), hipSuccess);
	cr_assert_eq(vmm_set_access(va, SIZE, 0, hipMemAccessFlagsProtNone), hipSuccess);
	cr_assert_eq(vmm_get_access(va, 0), hipMemAccessFlagsProtNone);
	/* Revoking twice is no error. */
	cr_assert_eq(vmm_set_access(va, SIZE, 0, hipMemAccessFlagsProtNone), hipSuccess);
	cr_assert_eq(vmm_set_access(va, SIZE, 0, hipMemAccessFlagsProtReadWrite), hipSuccess);
	cr_assert_eq(vmm_get_access(va, 0), hipMemAccessFlagsProtReadWrite);
	cr_assert_eq(hipMemcpy(out, va, SIZE, hipMemcpyDeviceToHost), hipSuccess);
	cr_assert_arr_eq(out, in, SIZE);
	cr_assert_eq(hipMemset((char *)va + 4096, 0x12, 4096), hipSuccess);
	cr_assert_eq(hipMemcpy(out, va, SIZE, hipMemcpyDeviceToHost), hipSuccess);
	for (size_t i = 0; i < SIZE; i++)
		cr_assert_eq(out[i], i >= 4096 && i < 8192 ? 0x12 : in[i], "byte %zu", i);
	/* Unmapping a revoked mapping works too. */
	cr_assert_eq(vmm_set_access(va, SIZE, 0, hipMemAccessFlagsProtNone), hipSuccess);
	vmm_unmap_free(va, SIZE, h);
}

/* Several descriptors for one device in one call: applied in order, the last one wins. */
Test(vmm_access, descriptors_apply_in_order)
{
	void *va = NULL;
	hipMemGenericAllocationHandle_t h = NULL;
	hipMemAccessDesc desc[3];

	vmm_map_new(SIZE, hipMemHandleTypeNone, &va, &h);
	memset(desc, 0, sizeof(desc));
	for (int i = 0; i < 3; i++) {
		desc[i].location.type = hipMemLocationTypeDevice;
		desc[i].location.id = 0;
	}
	desc[0].flags = hipMemAccessFlagsProtNone;
	desc[1].flags = hipMemAccessFlagsProtReadWrite;
	desc[2].flags = hipMemAccessFlagsProtRead;
	cr_assert_eq(hipMemSetAccess(va, SIZE, desc, 3), hipSuccess);
	cr_assert_eq(vmm_get_access(va, 0), hipMemAccessFlagsProtRead);
	/* A bad descriptor anywhere fails the call before anything changes. */
	desc[0].flags = hipMemAccessFlagsProtReadWrite;
	desc[2].flags = (hipMemAccessFlags)2;
	cr_assert_eq(hipMemSetAccess(va, SIZE, desc, 3), hipErrorInvalidValue);
	cr_assert_eq(vmm_get_access(va, 0), hipMemAccessFlagsProtRead);
	desc[2].flags = hipMemAccessFlagsProtRead;
	desc[2].location.id = 5;
	cr_assert_eq(hipMemSetAccess(va, SIZE, desc, 3), hipErrorInvalidValue);
	cr_assert_eq(vmm_get_access(va, 0), hipMemAccessFlagsProtRead);
	vmm_unmap_free(va, SIZE, h);
}

/* A range covering two mappings changes both; a range reaching unmapped space changes none. */
Test(vmm_access, range_over_two_mappings)
{
	hipMemAllocationProp prop = vmm_prop(0, hipMemHandleTypeNone);
	hipMemGenericAllocationHandle_t a = NULL, b = NULL;
	void *va = NULL;

	cr_assert_eq(hipMemAddressReserve(&va, 3 * SIZE, 0, NULL, 0), hipSuccess);
	cr_assert_eq(hipMemCreate(&a, SIZE, &prop, 0), hipSuccess);
	cr_assert_eq(hipMemCreate(&b, SIZE, &prop, 0), hipSuccess);
	cr_assert_eq(hipMemMap(va, SIZE, 0, a, 0), hipSuccess);
	cr_assert_eq(hipMemMap((char *)va + SIZE, SIZE, 0, b, 0), hipSuccess);
	cr_assert_eq(vmm_set_access(va, 2 * SIZE, 0, hipMemAccessFlagsProtRead), hipSuccess);
	cr_assert_eq(vmm_get_access(va, 0), hipMemAccessFlagsProtRead);
	cr_assert_eq(vmm_get_access((char *)va + SIZE, 0), hipMemAccessFlagsProtRead);
	cr_assert_eq(vmm_set_access(va, 3 * SIZE, 0, hipMemAccessFlagsProtReadWrite),
		     hipErrorInvalidValue);
	cr_assert_eq(vmm_get_access(va, 0), hipMemAccessFlagsProtRead);
	cr_assert_eq(hipMemUnmap(va, 2 * SIZE), hipSuccess);
	cr_assert_eq(hipMemRelease(a), hipSuccess);
	cr_assert_eq(hipMemRelease(b), hipSuccess);
	cr_assert_eq(hipMemAddressFree(va, 3 * SIZE), hipSuccess);
}

/* Work still queued on a stream when the range is unmapped completes first: mapped again, the
 * memory holds what the last queued fill wrote. */
Test(vmm_access, unmap_waits_for_queued_work)
{
	const size_t big = 32u << 20;
	hipMemAllocationProp prop = vmm_prop(0, hipMemHandleTypeNone);
	hipMemGenericAllocationHandle_t h = NULL;
	hipStream_t s = NULL;
	void *va = NULL;

	cr_assert_eq(hipStreamCreate(&s), hipSuccess);
	cr_assert_eq(hipMemAddressReserve(&va, big, 0, NULL, 0), hipSuccess);
	cr_assert_eq(hipMemCreate(&h, big, &prop, 0), hipSuccess);
	cr_assert_eq(hipMemMap(va, big, 0, h, 0), hipSuccess);
	cr_assert_eq(vmm_set_access(va, big, 0, hipMemAccessFlagsProtReadWrite), hipSuccess);
	for (int i = 0; i < 16; i++)
		cr_assert_eq(hipMemsetAsync(va, 0x10 + i, big, s), hipSuccess);
	cr_assert_eq(hipMemUnmap(va, big), hipSuccess);
	cr_assert_eq(hipStreamQuery(s), hipSuccess);
	cr_assert_eq(hipMemMap(va, big, 0, h, 0), hipSuccess);
	cr_assert_eq(vmm_set_access(va, big, 0, hipMemAccessFlagsProtReadWrite), hipSuccess);
	for (size_t off = 0; off < big; off += big / 4) {
		cr_assert_eq(hipMemcpy(out, (char *)va + off, SIZE, hipMemcpyDeviceToHost), hipSuccess);
		for (size_t i = 0; i < SIZE; i++)
			cr_assert_eq(out[i], 0x1f, "byte %zu", off + i);
	}
	cr_assert_eq(hipStreamDestroy(s), hipSuccess);
	vmm_unmap_free(va, big, h);
}

/* Copies and fills honour the access granted (CUDA: hipErrorInvalidValue up front, whichever
 * engine, CPU or SDMA, would have moved the bytes); the memory keeps its contents (read back
 * through the CPU view). */
#define BIG (2u << 20)
static unsigned char big_in[BIG], big_out[BIG];

Test(vmm_access, copies_and_fills_honour_the_access, .timeout = 60)
{
	void *va = NULL;
	hipMemGenericAllocationHandle_t h = NULL;
	unsigned char small[64] = {0};

	vmm_map_new(BIG, hipMemHandleTypeNone, &va, &h);
	for (size_t i = 0; i < BIG; i++)
		big_in[i] = (unsigned char)(i * 7 + 3);
	cr_assert_eq(hipMemcpy(va, big_in, BIG, hipMemcpyHostToDevice), hipSuccess);

	cr_assert_eq(vmm_set_access(va, BIG, 0, hipMemAccessFlagsProtRead), hipSuccess);
	cr_assert_eq(hipMemset(va, 0, BIG), hipErrorInvalidValue, "engine fill of read-only memory");
	cr_assert_eq(hipMemset(va, 0, 64), hipErrorInvalidValue, "CPU fill of read-only memory");
	cr_assert_eq(hipMemcpyHtoD(va, small, sizeof(small)), hipErrorInvalidValue);
	cr_assert_eq(hipMemcpy(small, va, sizeof(small), hipMemcpyDeviceToHost), hipSuccess,
		     "reading read-only memory");
	cr_assert_eq(small[1], big_in[1]);

	cr_assert_eq(vmm_set_access(va, BIG, 0, hipMemAccessFlagsProtNone), hipSuccess);
	cr_assert_eq(hipMemcpy(small, va, sizeof(small), hipMemcpyDeviceToHost), hipErrorInvalidValue,
		     "reading inaccessible memory");

	memcpy(big_out, va, BIG);
	cr_assert_arr_eq(big_out, big_in, BIG, "read-only memory unchanged");
	cr_assert_eq(vmm_set_access(va, BIG, 0, hipMemAccessFlagsProtReadWrite), hipSuccess);
	cr_assert_eq(hipMemset(va, 0x11, 64), hipSuccess, "writable again");
	vmm_unmap_free(va, BIG, h);
}
