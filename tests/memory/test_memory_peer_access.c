/* Access for a second device (two kfdsim GPUs): a VMM mapping and pool memory made accessible to
 * device 1 are reachable from it (a device-to-device copy issued on device 1). */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include <hip/hip_runtime_api.h>

Test(peer_access, vmm_mapping_to_second_device)
{
	int n = 0;
	cr_assert_eq(hipGetDeviceCount(&n), hipSuccess);
	cr_assert_eq(n, 2);
	hipMemAllocationProp prop;
	memset(&prop, 0, sizeof(prop));
	prop.type = hipMemAllocationTypePinned;
	prop.location.type = hipMemLocationTypeDevice;
	prop.location.id = 0;
	size_t g = 0;
	cr_assert_eq(hipMemGetAllocationGranularity(&g, &prop, hipMemAllocationGranularityRecommended), hipSuccess);
	void *va = NULL;
	hipMemGenericAllocationHandle_t h = NULL;
	cr_assert_eq(hipMemAddressReserve(&va, g, 0, NULL, 0), hipSuccess);
	cr_assert_eq(hipMemCreate(&h, g, &prop, 0), hipSuccess);
	cr_assert_eq(hipMemMap(va, g, 0, h, 0), hipSuccess);
	hipMemAccessDesc desc[2] = {
		{.location = {.type = hipMemLocationTypeDevice, .id = 0}, .flags = hipMemAccessFlagsProtReadWrite},
		{.location = {.type = hipMemLocationTypeDevice, .id = 1}, .flags = hipMemAccessFlagsProtReadWrite},
	};
	cr_assert_eq(hipMemSetAccess(va, g, desc, 2), hipSuccess);
	unsigned long long flags = 0;
	cr_assert_eq(hipMemGetAccess(&flags, &desc[1].location, va), hipSuccess);
	cr_assert_eq(flags, hipMemAccessFlagsProtReadWrite);

	/* Device 1 fills the range through its own engines. */
	cr_assert_eq(hipSetDevice(1), hipSuccess);
	cr_assert_eq(hipMemset(va, 0x6b, 1 << 20), hipSuccess);
	cr_assert_eq(hipDeviceSynchronize(), hipSuccess);
	cr_assert_eq(hipSetDevice(0), hipSuccess);
	unsigned char back[256];
	cr_assert_eq(hipMemcpy(back, (char *)va + (1 << 19), sizeof(back), hipMemcpyDeviceToHost), hipSuccess);
	for (size_t i = 0; i < sizeof(back); i++)
		cr_assert_eq(back[i], 0x6b);
	cr_assert_eq(hipMemUnmap(va, g), hipSuccess);
	cr_assert_eq(hipMemRelease(h), hipSuccess);
	cr_assert_eq(hipMemAddressFree(va, g), hipSuccess);
}

Test(peer_access, pool_access_for_second_device)
{
	hipMemPoolProps props;
	hipMemPool_t pool = NULL;
	memset(&props, 0, sizeof(props));
	props.allocType = hipMemAllocationTypePinned;
	props.location.type = hipMemLocationTypeDevice;
	props.location.id = 0;
	cr_assert_eq(hipMemPoolCreate(&pool, &props), hipSuccess);
	void *before = NULL, *after = NULL;
	cr_assert_eq(hipMallocFromPoolAsync(&before, 1 << 20, pool, NULL), hipSuccess);
	hipMemLocation peer = {.type = hipMemLocationTypeDevice, .id = 1};
	hipMemAccessFlags f = hipMemAccessFlagsProtReadWrite;
	cr_assert_eq(hipMemPoolGetAccess(&f, pool, &peer), hipSuccess);
	cr_assert_eq(f, hipMemAccessFlagsProtNone);
	hipMemAccessDesc desc = {.location = peer, .flags = hipMemAccessFlagsProtReadWrite};
	cr_assert_eq(hipMemPoolSetAccess(pool, &desc, 1), hipSuccess);
	cr_assert_eq(hipMemPoolGetAccess(&f, pool, &peer), hipSuccess);
	cr_assert_eq(f, hipMemAccessFlagsProtReadWrite);
	cr_assert_eq(hipMallocFromPoolAsync(&after, 1 << 20, pool, NULL), hipSuccess);
	cr_assert_eq(hipDeviceSynchronize(), hipSuccess);

	/* Both the block that existed and the new one are reachable from device 1. */
	cr_assert_eq(hipSetDevice(1), hipSuccess);
	cr_assert_eq(hipMemset(before, 0x21, 1 << 20), hipSuccess);
	cr_assert_eq(hipMemset(after, 0x42, 1 << 20), hipSuccess);
	cr_assert_eq(hipDeviceSynchronize(), hipSuccess);
	cr_assert_eq(hipSetDevice(0), hipSuccess);
	unsigned char b1 = 0, b2 = 0;
	cr_assert_eq(hipMemcpy(&b1, (char *)before + 12345, 1, hipMemcpyDeviceToHost), hipSuccess);
	cr_assert_eq(hipMemcpy(&b2, (char *)after + 54321, 1, hipMemcpyDeviceToHost), hipSuccess);
	cr_assert_eq(b1, 0x21);
	cr_assert_eq(b2, 0x42);
	desc.flags = hipMemAccessFlagsProtNone;
	cr_assert_eq(hipMemPoolSetAccess(pool, &desc, 1), hipErrorNotSupported);
	cr_assert_eq(hipFreeAsync(before, NULL), hipSuccess);
	cr_assert_eq(hipFreeAsync(after, NULL), hipSuccess);
	cr_assert_eq(hipDeviceSynchronize(), hipSuccess);
	cr_assert_eq(hipMemPoolDestroy(pool), hipSuccess);
}
