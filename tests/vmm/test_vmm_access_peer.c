/* Access of a second device (two kfdsim GPUs) to a mapping owned by device 0: granted, narrowed
 * to read-only, revoked, each independent of device 0's access. */
#include <criterion/criterion.h>
#include <string.h>

#include "vmm_common.h"

#define SIZE (2u << 20)

static unsigned char back[4096];

static void expect_bytes(void *va, size_t off, unsigned char value)
{
	cr_assert_eq(hipMemcpy(back, (char *)va + off, sizeof(back), hipMemcpyDeviceToHost), hipSuccess);
	for (size_t i = 0; i < sizeof(back); i++)
		cr_assert_eq(back[i], value, "byte %zu", off + i);
}

Test(vmm_access_peer, grant_narrow_revoke)
{
	int n = 0;
	void *va = NULL, *d1 = NULL;
	hipMemGenericAllocationHandle_t h = NULL;

	cr_assert_eq(hipGetDeviceCount(&n), hipSuccess);
	cr_assert_eq(n, 2);
	vmm_map_new(SIZE, hipMemHandleTypeNone, &va, &h);
	cr_assert_eq(vmm_get_access(va, 1), hipMemAccessFlagsProtNone);

	/* Device 1 writes through its own engines. */
	cr_assert_eq(vmm_set_access(va, SIZE, 1, hipMemAccessFlagsProtReadWrite), hipSuccess);
	cr_assert_eq(vmm_get_access(va, 1), hipMemAccessFlagsProtReadWrite);
	cr_assert_eq(hipSetDevice(1), hipSuccess);
	cr_assert_eq(hipMemset(va, 0x3a, SIZE), hipSuccess);
	cr_assert_eq(hipDeviceSynchronize(), hipSuccess);
	cr_assert_eq(hipMalloc(&d1, sizeof(back)), hipSuccess);
	cr_assert_eq(hipSetDevice(0), hipSuccess);
	expect_bytes(va, SIZE - sizeof(back), 0x3a);

	/* Device 1 read-only: device 0's access is unchanged, device 1 still reads. */
	cr_assert_eq(vmm_set_access(va, SIZE, 1, hipMemAccessFlagsProtRead), hipSuccess);
	cr_assert_eq(vmm_get_access(va, 1), hipMemAccessFlagsProtRead);
	cr_assert_eq(vmm_get_access(va, 0), hipMemAccessFlagsProtReadWrite);
	cr_assert_eq(hipMemset(va, 0x4b, 4096), hipSuccess);
	cr_assert_eq(hipSetDevice(1), hipSuccess);
	cr_assert_eq(hipMemcpy(d1, va, sizeof(back), hipMemcpyDeviceToDevice), hipSuccess);
	cr_assert_eq(hipDeviceSynchronize(), hipSuccess);
	cr_assert_eq(hipMemcpy(back, d1, sizeof(back), hipMemcpyDeviceToHost), hipSuccess);
	for (size_t i = 0; i < sizeof(back); i++)
		cr_assert_eq(back[i], 0x4b, "byte %zu", i);
	cr_assert_eq(hipSetDevice(0), hipSuccess);

	/* Revoked for device 1 only. */
	cr_assert_eq(vmm_set_access(va, SIZE, 1, hipMemAccessFlagsProtNone), hipSuccess);
	cr_assert_eq(vmm_get_access(va, 1), hipMemAccessFlagsProtNone);
	cr_assert_eq(hipMemset(va, 0x5c, SIZE), hipSuccess);
	expect_bytes(va, 0, 0x5c);

	cr_assert_eq(hipFree(d1), hipSuccess);
	vmm_unmap_free(va, SIZE, h);
}
