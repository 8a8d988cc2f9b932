/* hipDrvPointerGetAttributes: several attributes at once; one the pointer lacks (the host pointer
 * of device memory, anything of unknown memory) reads as its default and is not an error, as in
 * cuPointerGetAttributes and clr. */
#include <criterion/criterion.h>
#include <stdint.h>

#include <hip/hip_runtime_api.h>

Test(mem_drv_attributes, device_memory_has_no_host_pointer)
{
	int *d = NULL;
	cr_assert_eq(hipMalloc((void **)&d, 1024), hipSuccess);
	void *host = (void *)0x1;
	int ordinal = -1;
	void *data[2] = {&host, &ordinal};
	hipPointer_attribute attrs[2] = {HIP_POINTER_ATTRIBUTE_HOST_POINTER,
					 HIP_POINTER_ATTRIBUTE_DEVICE_ORDINAL};
	cr_assert_eq(hipDrvPointerGetAttributes(2, attrs, data, (hipDeviceptr_t)d), hipSuccess);
	cr_assert_null(host);
	cr_assert_eq(ordinal, 0);
	cr_assert_eq(hipFree(d), hipSuccess);
}

Test(mem_drv_attributes, pinned_and_unknown_memory)
{
	int *h = NULL;
	cr_assert_eq(hipHostMalloc((void **)&h, 1024, 0), hipSuccess);
	void *host = NULL;
	int ordinal = -1;
	void *data[2] = {&host, &ordinal};
	hipPointer_attribute attrs[2] = {HIP_POINTER_ATTRIBUTE_HOST_POINTER,
					 HIP_POINTER_ATTRIBUTE_DEVICE_ORDINAL};
	cr_assert_eq(hipDrvPointerGetAttributes(2, attrs, data, (hipDeviceptr_t)(h + 3)), hipSuccess);
	cr_assert_eq(host, (void *)(h + 3));
	cr_assert_eq(ordinal, 0);
	cr_assert_eq(hipHostFree(h), hipSuccess);

	int local = 0;
	unsigned type = 99;
	size_t size = 99;
	host = (void *)0x1;
	void *data3[3] = {&type, &host, &size};
	hipPointer_attribute attrs3[3] = {HIP_POINTER_ATTRIBUTE_MEMORY_TYPE,
					  HIP_POINTER_ATTRIBUTE_HOST_POINTER,
					  HIP_POINTER_ATTRIBUTE_RANGE_SIZE};
	cr_assert_eq(hipDrvPointerGetAttributes(3, attrs3, data3, (hipDeviceptr_t)&local), hipSuccess);
	cr_assert_eq(type, 0u, "unregistered");
	cr_assert_null(host);
	cr_assert_eq(size, 0u);
}

Test(mem_drv_attributes, bad_input)
{
	int *d = NULL;
	cr_assert_eq(hipMalloc((void **)&d, 64), hipSuccess);
	int ordinal;
	void *data[1] = {&ordinal};
	hipPointer_attribute attr = HIP_POINTER_ATTRIBUTE_DEVICE_ORDINAL;
	cr_assert_eq(hipDrvPointerGetAttributes(0, &attr, data, (hipDeviceptr_t)d),
		     hipErrorInvalidValue);
	cr_assert_eq(hipDrvPointerGetAttributes(1, NULL, data, (hipDeviceptr_t)d),
		     hipErrorInvalidValue);
	cr_assert_eq(hipDrvPointerGetAttributes(1, &attr, NULL, (hipDeviceptr_t)d),
		     hipErrorInvalidValue);
	cr_assert_eq(hipDrvPointerGetAttributes(1, &attr, data, NULL), hipErrorInvalidValue);
	void *nodata[1] = {NULL};
	cr_assert_eq(hipDrvPointerGetAttributes(1, &attr, nodata, (hipDeviceptr_t)d),
		     hipErrorInvalidValue);
	hipPointer_attribute unknown = (hipPointer_attribute)999;
	cr_assert_eq(hipDrvPointerGetAttributes(1, &unknown, data, (hipDeviceptr_t)d),
		     hipErrorInvalidValue);
	cr_assert_eq(hipFree(d), hipSuccess);
}

/* hipPointerSetAttribute (clr's codes): only SYNC_MEMOPS, value 0 or 1, and memory the runtime
 * does not know is hipErrorInvalidDevicePointer. */
Test(mem_drv_attributes, set_attribute_errors)
{
	void *d = NULL;
	unsigned one = 1, two = 2;
	cr_assert_eq(hipMalloc(&d, 64), hipSuccess);
	cr_assert_eq(hipPointerSetAttribute(&one, HIP_POINTER_ATTRIBUTE_SYNC_MEMOPS, d), hipSuccess);
	cr_assert_eq(hipPointerSetAttribute(&two, HIP_POINTER_ATTRIBUTE_SYNC_MEMOPS, d),
		     hipErrorInvalidValue);
	cr_assert_eq(hipPointerSetAttribute(&one, HIP_POINTER_ATTRIBUTE_BUFFER_ID, d),
		     hipErrorInvalidValue);
	int local;
	cr_assert_eq(hipPointerSetAttribute(&one, HIP_POINTER_ATTRIBUTE_SYNC_MEMOPS, &local),
		     hipErrorInvalidDevicePointer);
	cr_assert_eq(hipPointerSetAttribute(&one, HIP_POINTER_ATTRIBUTE_SYNC_MEMOPS, NULL),
		     hipErrorInvalidValue);
	cr_assert_eq(hipFree(d), hipSuccess);
	cr_assert_eq(hipPointerSetAttribute(&one, HIP_POINTER_ATTRIBUTE_SYNC_MEMOPS, d),
		     hipErrorInvalidDevicePointer, "freed");
}
