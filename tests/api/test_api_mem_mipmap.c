/* Mipmapped arrays: the level count a request may ask for, and freeing twice. */
#include <criterion/criterion.h>

#include <hip/hip_runtime_api.h>

static hipChannelFormatDesc float_desc(void)
{
	hipChannelFormatDesc d = {32, 0, 0, 0, hipChannelFormatKindFloat};
	return d;
}

/* 6 wide has 1 + floor(log2 6) = 3 levels: asking for 3 works, 4 is hipErrorInvalidValue (clr
 * and CUDA refuse it, hip-tests Unit_hipMallocMipmappedArray_Negative_NumLevels); 0 means 1. */
Test(mem_mipmap, level_count_is_checked)
{
	hipChannelFormatDesc d = float_desc();
	hipMipmappedArray_t m = (hipMipmappedArray_t)0x1;
	cr_assert_eq(hipMallocMipmappedArray(&m, &d, make_hipExtent(6, 6, 6), 4, 0),
		     hipErrorInvalidValue);
	cr_assert_eq((uintptr_t)m, 0x1, "a failed call leaves the output alone");
	cr_assert_eq(hipMallocMipmappedArray(&m, &d, make_hipExtent(6, 6, 6), 3, 0), hipSuccess);
	cr_assert_eq(m->max_mipmap_level, 2u);
	hipArray_t level = NULL;
	cr_assert_eq(hipGetMipmappedArrayLevel(&level, m, 2), hipSuccess);
	hipExtent e;
	cr_assert_eq(hipArrayGetInfo(NULL, &e, NULL, level), hipSuccess);
	cr_assert_eq(e.width, 1u);
	cr_assert_eq(hipFreeMipmappedArray(m), hipSuccess);
	cr_assert_eq(hipMallocMipmappedArray(&m, &d, make_hipExtent(6, 6, 6), 0, 0), hipSuccess);
	cr_assert_eq(m->max_mipmap_level, 0u);
	cr_assert_eq(hipFreeMipmappedArray(m), hipSuccess);
	HIP_ARRAY3D_DESCRIPTOR dd = {16, 8, 0, HIP_AD_FORMAT_FLOAT, 1, 0};
	cr_assert_eq(hipMipmappedArrayCreate(&m, &dd, 6), hipErrorInvalidValue, "16 has 5 levels");
	cr_assert_eq(hipMipmappedArrayCreate(&m, &dd, 5), hipSuccess);
	cr_assert_eq(hipMipmappedArrayDestroy(m), hipSuccess);
}

/* The layers of a layered array are not a mipmapped dimension: 4 x 4 with 64 layers has 3
 * levels, not 7, and every level keeps the 64 layers. */
Test(mem_mipmap, layers_do_not_add_levels)
{
	hipChannelFormatDesc d = float_desc();
	hipMipmappedArray_t m = NULL;
	cr_assert_eq(hipMallocMipmappedArray(&m, &d, make_hipExtent(4, 4, 64), 4, hipArrayLayered),
		     hipErrorInvalidValue);
	cr_assert_eq(hipMallocMipmappedArray(&m, &d, make_hipExtent(4, 4, 64), 3, hipArrayLayered),
		     hipSuccess);
	hipArray_t level = NULL;
	cr_assert_eq(hipGetMipmappedArrayLevel(&level, m, 2), hipSuccess);
	hipExtent e;
	cr_assert_eq(hipArrayGetInfo(NULL, &e, NULL, level), hipSuccess);
	cr_assert_eq(e.width, 1u);
	cr_assert_eq(e.depth, 64u);
	cr_assert_eq(hipFreeMipmappedArray(m), hipSuccess);
}

/* A second free of the same handle is hipErrorContextIsDestroyed, as for arrays; NULL is
 * hipErrorInvalidValue. */
Test(mem_mipmap, double_free)
{
	hipChannelFormatDesc d = float_desc();
	hipMipmappedArray_t m = NULL;
	cr_assert_eq(hipMallocMipmappedArray(&m, &d, make_hipExtent(64, 64, 0), 5, 0), hipSuccess);
	cr_assert_eq(hipFreeMipmappedArray(m), hipSuccess);
	cr_assert_eq(hipFreeMipmappedArray(m), hipErrorContextIsDestroyed);
	cr_assert_eq(hipMipmappedArrayDestroy(m), hipErrorContextIsDestroyed);
	cr_assert_eq(hipFreeMipmappedArray(NULL), hipErrorInvalidValue);
}

/* Freeing gives the memory back: hipMemGetInfo's free bytes return to their value. */
Test(mem_mipmap, free_returns_memory)
{
	hipChannelFormatDesc d = float_desc();
	size_t before, after, total;
	cr_assert_eq(hipMemGetInfo(&before, &total), hipSuccess);
	hipMipmappedArray_t m[8];
	for (int i = 0; i < 8; i++)
		cr_assert_eq(hipMallocMipmappedArray(&m[i], &d, make_hipExtent(100, 100, 100), 6, 0),
			     hipSuccess);
	size_t during;
	cr_assert_eq(hipMemGetInfo(&during, &total), hipSuccess);
	cr_assert_lt(during, before);
	for (int i = 0; i < 8; i++)
		cr_assert_eq(hipFreeMipmappedArray(m[i]), hipSuccess);
	cr_assert_eq(hipMemGetInfo(&after, &total), hipSuccess);
	cr_assert_eq(after, before);
}
