/* hipMemPoolSetAccess argument errors, in clr's order: location type, device, flags. */
#include <criterion/criterion.h>

#include <hip/hip_runtime_api.h>

Test(mem_pool_access, set_access_errors)
{
	hipMemPoolProps props = {0};
	props.allocType = hipMemAllocationTypePinned;
	props.location.type = hipMemLocationTypeDevice;
	props.location.id = 0;
	hipMemPool_t pool = NULL;
	cr_assert_eq(hipMemPoolCreate(&pool, &props), hipSuccess);
	int n = 0;
	cr_assert_eq(hipGetDeviceCount(&n), hipSuccess);
	hipMemAccessDesc d = {.location = {.type = hipMemLocationTypeDevice, .id = 0},
			      .flags = hipMemAccessFlagsProtReadWrite};
	cr_assert_eq(hipMemPoolSetAccess(pool, &d, 1), hipSuccess);
	d.location.id = -1;
	cr_assert_eq(hipMemPoolSetAccess(pool, &d, 1), hipErrorInvalidDevice);
	d.location.id = n;
	cr_assert_eq(hipMemPoolSetAccess(pool, &d, 1), hipErrorInvalidDevice);
	d.flags = (hipMemAccessFlags)0xffff;
	cr_assert_eq(hipMemPoolSetAccess(pool, &d, 1), hipErrorInvalidDevice, "device first");
	d.location.id = 0;
	cr_assert_eq(hipMemPoolSetAccess(pool, &d, 1), hipErrorInvalidValue);
	d.flags = hipMemAccessFlagsProtReadWrite;
	d.location.type = hipMemLocationTypeInvalid;
	cr_assert_eq(hipMemPoolSetAccess(pool, &d, 1), hipErrorInvalidValue);
	cr_assert_eq(hipMemPoolSetAccess(NULL, &d, 1), hipErrorInvalidValue);
	cr_assert_eq(hipMemPoolDestroy(pool), hipSuccess);
}
