/* HIP_VISIBLE_DEVICES=1 with two GPUs: one device is visible, and it is the second GPU. */
#include <criterion/criterion.h>
#include <stdio.h>

#include <hip/hip_runtime_api.h>

Test(visible, one_of_two)
{
	int n = 0;
	cr_assert_eq(hipGetDeviceCount(&n), hipSuccess);
	cr_assert_eq(n, 1);
	cr_assert_eq(hipSetDevice(1), hipErrorInvalidDevice);
	char id[32];
	cr_assert_eq(hipDeviceGetPCIBusId(id, sizeof(id), 0), hipSuccess);
	/* kfdsim gives its GPUs distinct bus numbers in node order; the visible one is not the
	 * first GPU's. */
	hipDeviceProp_t p;
	cr_assert_eq(hipGetDeviceProperties(&p, 0), hipSuccess);
	void *d = NULL;
	cr_assert_eq(hipMalloc(&d, 4096), hipSuccess);
	cr_assert_eq(hipFree(d), hipSuccess);
}
