/* Arrays beyond the device's texture limits (issue 13 item 2): AMD's runtime answers
 * hipErrorInvalidValue for every dimension past maxTexture1D/2D/3D (and past 2048 layers), through
 * each creation call; sizes at the limit are accepted. A failed call leaves the caller's handle. */
#include <criterion/criterion.h>
#include <stdint.h>

#include <hip/hip_runtime_api.h>

static hipDeviceProp_t props;

static void setup(void)
{
	cr_assert_eq(hipSetDevice(0), hipSuccess);
	cr_assert_eq(hipGetDeviceProperties(&props, 0), hipSuccess);
	cr_assert_gt(props.maxTexture1D, 0);
}

TestSuite(array_limits, .init = setup);

static const hipChannelFormatDesc u8 = {.x = 8, .f = hipChannelFormatKindUnsigned};
#define SENTINEL ((hipArray_t)(uintptr_t)0x5a5a5a5a)

static hipError_t malloc_array(size_t w, size_t h, unsigned flags, hipArray_t *out)
{
	return hipMallocArray(out, &u8, w, h, flags);
}

static hipError_t malloc_3d(size_t w, size_t h, size_t d, unsigned flags, hipArray_t *out)
{
	return hipMalloc3DArray(out, &u8, make_hipExtent(w, h, d), flags);
}

static hipError_t drv_create(size_t w, size_t h, hipArray_t *out)
{
	HIP_ARRAY_DESCRIPTOR d = {.Width = w, .Height = h, .Format = HIP_AD_FORMAT_UNSIGNED_INT8,
				  .NumChannels = 1};
	return hipArrayCreate(out, &d);
}

static hipError_t drv_create_3d(size_t w, size_t h, size_t depth, unsigned flags, hipArray_t *out)
{
	HIP_ARRAY3D_DESCRIPTOR d = {.Width = w, .Height = h, .Depth = depth,
				    .Format = HIP_AD_FORMAT_UNSIGNED_INT8, .NumChannels = 1,
				    .Flags = flags};
	return hipArray3DCreate(out, &d);
}


#define REJECTED(call)                                                                          \
	do {                                                                                    \
		hipArray_t a = SENTINEL;                                                        \
		cr_expect_eq(call, hipErrorInvalidValue, "%s", #call);                           \
		cr_expect_eq(a, SENTINEL, "%s overwrote the handle", #call);                    \
	} while (0)

#define ACCEPTED(call)                                                                          \
	do {                                                                                    \
		hipArray_t a = NULL;                                                            \
		cr_expect_eq(call, hipSuccess, "%s", #call);                                     \
		cr_expect_eq(hipFreeArray(a), hipSuccess);                                      \
	} while (0)

Test(array_limits, one_dimensional)
{
	size_t w = (size_t)props.maxTexture1D;
	ACCEPTED(malloc_array(w, 0, 0, &a));
	REJECTED(malloc_array(w + 1, 0, 0, &a));
	ACCEPTED(drv_create(w, 0, &a));
	REJECTED(drv_create(w + 1, 0, &a));
	REJECTED(malloc_3d(w + 1, 0, 0, 0, &a));
}

Test(array_limits, two_dimensional)
{
	size_t w = (size_t)props.maxTexture2D[0], h = (size_t)props.maxTexture2D[1];
	ACCEPTED(malloc_array(w, 1, 0, &a));
	ACCEPTED(malloc_array(1, h, 0, &a));
	REJECTED(malloc_array(w + 1, 1, 0, &a));
	REJECTED(malloc_array(1, h + 1, 0, &a));
	REJECTED(drv_create(w + 1, 1, &a));
	REJECTED(drv_create(1, h + 1, &a));
	REJECTED(malloc_3d(w + 1, 1, 0, 0, &a));
	REJECTED(malloc_3d(1, h + 1, 0, 0, &a));
}

Test(array_limits, three_dimensional)
{
	size_t w = (size_t)props.maxTexture3D[0], h = (size_t)props.maxTexture3D[1],
	       d = (size_t)props.maxTexture3D[2];
	ACCEPTED(malloc_3d(w, 1, 1, 0, &a));
	ACCEPTED(malloc_3d(1, 1, d, 0, &a));
	REJECTED(malloc_3d(w + 1, 1, 1, 0, &a));
	REJECTED(malloc_3d(1, h + 1, 1, 0, &a));
	REJECTED(malloc_3d(1, 1, d + 1, 0, &a));
	REJECTED(drv_create_3d(w + 1, 1, 1, 0, &a));
	REJECTED(drv_create_3d(1, 1, d + 1, 0, &a));
}

Test(array_limits, layered)
{
	ACCEPTED(malloc_3d(16, 16, 2048, hipArrayLayered, &a));
	ACCEPTED(malloc_3d(16, 0, 2048, hipArrayLayered, &a));
	REJECTED(malloc_3d(16, 16, 2049, hipArrayLayered, &a));
	REJECTED(malloc_3d(16, 0, 2049, hipArrayLayered, &a));
	REJECTED(malloc_3d((size_t)props.maxTexture2D[0] + 1, 1, 1, hipArrayLayered, &a));
	REJECTED(drv_create_3d(16, 16, 2049, hipArrayLayered, &a));
}
