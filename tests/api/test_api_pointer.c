/* hipPointerGetAttributes / hipPointerGetAttribute for every kind of memory. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>

#include <hip/hip_runtime_api.h>

Test(pointer, device_memory)
{
	void *p = NULL;
	hipPointerAttribute_t a;
	cr_assert_eq(hipMalloc(&p, 8192), hipSuccess);
	cr_assert_eq(hipPointerGetAttributes(&a, (char *)p + 100), hipSuccess);
	cr_assert_eq(a.type, hipMemoryTypeDevice);
	cr_assert_eq(a.device, 0);
	cr_assert_eq(a.devicePointer, (char *)p + 100);
	cr_assert_null(a.hostPointer);
	cr_assert_eq(a.isManaged, 0);

	unsigned type = 99;
	cr_assert_eq(hipPointerGetAttribute(&type, HIP_POINTER_ATTRIBUTE_MEMORY_TYPE, p), hipSuccess);
	cr_assert_eq(type, (unsigned)hipMemoryTypeDevice);
	void *start = NULL;
	size_t size = 0;
	cr_assert_eq(hipPointerGetAttribute(&start, HIP_POINTER_ATTRIBUTE_RANGE_START_ADDR,
					    (char *)p + 4000), hipSuccess);
	cr_assert_eq(start, p);
	cr_assert_eq(hipPointerGetAttribute(&size, HIP_POINTER_ATTRIBUTE_RANGE_SIZE, p), hipSuccess);
	cr_assert_eq(size, 8192u);
	int ordinal = -1;
	cr_assert_eq(hipPointerGetAttribute(&ordinal, HIP_POINTER_ATTRIBUTE_DEVICE_ORDINAL, p),
		     hipSuccess);
	cr_assert_eq(ordinal, 0);
	uint64_t id1 = 0, id2 = 0;
	void *q = NULL;
	cr_assert_eq(hipMalloc(&q, 64), hipSuccess);
	cr_assert_eq(hipPointerGetAttribute(&id1, HIP_POINTER_ATTRIBUTE_BUFFER_ID, p), hipSuccess);
	cr_assert_eq(hipPointerGetAttribute(&id2, HIP_POINTER_ATTRIBUTE_BUFFER_ID, q), hipSuccess);
	cr_assert_neq(id1, id2);
	cr_assert_eq(hipFree(q), hipSuccess);
	cr_assert_eq(hipFree(p), hipSuccess);
}

Test(pointer, pinned_host_memory)
{
	void *h = NULL;
	hipPointerAttribute_t a;
	cr_assert_eq(hipHostMalloc(&h, 4096, hipHostMallocMapped), hipSuccess);
	cr_assert_eq(hipPointerGetAttributes(&a, h), hipSuccess);
	cr_assert_eq(a.type, hipMemoryTypeHost);
	cr_assert_eq(a.hostPointer, h);
	cr_assert_not_null(a.devicePointer);
	cr_assert(a.allocationFlags & hipHostMallocMapped);
	cr_assert_eq(hipHostFree(h), hipSuccess);
}

Test(pointer, registered_memory)
{
	char *buf = aligned_alloc(4096, 65536);
	hipPointerAttribute_t a;
	cr_assert_eq(hipHostRegister(buf, 65536, 0), hipSuccess);
	cr_assert_eq(hipPointerGetAttributes(&a, buf + 10), hipSuccess);
	cr_assert_eq(a.type, hipMemoryTypeHost);
	cr_assert_eq(a.hostPointer, buf + 10);
	void *dev = NULL;
	cr_assert_eq(hipHostGetDevicePointer(&dev, buf, 0), hipSuccess);
	cr_assert_eq(a.devicePointer, (char *)dev + 10);
	cr_assert_eq(hipHostUnregister(buf), hipSuccess);
	free(buf);
}

Test(pointer, unregistered_memory)
{
	int local = 0;
	hipPointerAttribute_t a;
	cr_assert_eq(hipPointerGetAttributes(&a, &local), hipSuccess);
	cr_assert_eq(a.type, hipMemoryTypeUnregistered);
	cr_assert_null(a.devicePointer);
	unsigned type = 99;
	cr_assert_eq(hipPointerGetAttribute(&type, HIP_POINTER_ATTRIBUTE_MEMORY_TYPE, &local),
		     hipSuccess);
	cr_assert_eq(type, (unsigned)hipMemoryTypeUnregistered);
	void *start;
	cr_assert_eq(hipPointerGetAttribute(&start, HIP_POINTER_ATTRIBUTE_RANGE_START_ADDR, &local),
		     hipErrorInvalidValue);
}

Test(pointer, bad_input)
{
	hipPointerAttribute_t a;
	int x = 0;
	cr_assert_eq(hipPointerGetAttributes(NULL, &x), hipErrorInvalidValue);
	cr_assert_eq(hipPointerGetAttributes(&a, NULL), hipErrorInvalidValue);
	cr_assert_eq(hipPointerGetAttribute(NULL, HIP_POINTER_ATTRIBUTE_MEMORY_TYPE, &x),
		     hipErrorInvalidValue);
	void *p = NULL;
	cr_assert_eq(hipMalloc(&p, 64), hipSuccess);
	cr_assert_eq(hipPointerGetAttribute(&x, (hipPointer_attribute)999, p), hipErrorInvalidValue);
	cr_assert_eq(hipFree(p), hipSuccess);
}

Test(pointer, managed_memory)
{
	void *m = NULL;
	if (hipMallocManaged(&m, 4096, hipMemAttachGlobal) != hipSuccess)
		return; /* managed memory unsupported here: covered by test_api_memory */
	hipPointerAttribute_t a;
	cr_assert_eq(hipPointerGetAttributes(&a, m), hipSuccess);
	cr_assert_eq(a.type, hipMemoryTypeManaged);
	cr_assert_eq(a.isManaged, 1);
	cr_assert_eq(hipFree(m), hipSuccess);
}

/* A failed single query writes the attribute's "nothing" value before returning the error (clr
 * does the same): the host pointer of device memory reads NULL, the ordinal of unknown memory
 * CUDA's -2. */
Test(pointer, failed_query_writes_default)
{
	void *d = NULL;
	cr_assert_eq(hipMalloc(&d, 4096), hipSuccess);
	void *host = (void *)0x1234;
	cr_assert_eq(hipPointerGetAttribute(&host, HIP_POINTER_ATTRIBUTE_HOST_POINTER, d),
		     hipErrorInvalidValue);
	cr_assert_null(host);
	int local = 0;
	int ordinal = 7;
	cr_assert_eq(hipPointerGetAttribute(&ordinal, HIP_POINTER_ATTRIBUTE_DEVICE_ORDINAL, &local),
		     hipErrorInvalidValue);
	cr_assert_eq(ordinal, -2);
	size_t size = 99;
	cr_assert_eq(hipPointerGetAttribute(&size, HIP_POINTER_ATTRIBUTE_RANGE_SIZE, &local),
		     hipErrorInvalidValue);
	cr_assert_eq(size, 0u);
	cr_assert_eq(hipFree(d), hipSuccess);
}

/* The range size and buffer id are written as 4 bytes, as clr writes them: a program that reads
 * them into an unsigned int (as AMD's own tests do) keeps the variable stored after it. */
Test(pointer, size_and_id_are_four_bytes)
{
	void *d = NULL;
	cr_assert_eq(hipMalloc(&d, 3000), hipSuccess);
	uint32_t box[2] = {0, 0xabcdef01u};
	cr_assert_eq(hipPointerGetAttribute(&box[0], HIP_POINTER_ATTRIBUTE_RANGE_SIZE, d), hipSuccess);
	cr_assert_eq(box[0], 3000u);
	cr_assert_eq(box[1], 0xabcdef01u, "the next word is untouched");
	box[0] = 0;
	cr_assert_eq(hipPointerGetAttribute(&box[0], HIP_POINTER_ATTRIBUTE_BUFFER_ID, d), hipSuccess);
	cr_assert_neq(box[0], 0u);
	cr_assert_eq(box[1], 0xabcdef01u);
	int local = 0;
	box[0] = 5;
	cr_assert_eq(hipPointerGetAttribute(&box[0], HIP_POINTER_ATTRIBUTE_RANGE_SIZE, &local),
		     hipErrorInvalidValue);
	cr_assert_eq(box[0], 0u);
	cr_assert_eq(box[1], 0xabcdef01u);
	cr_assert_eq(hipFree(d), hipSuccess);
}

/* Attributes HIP does not answer are hipErrorNotSupported for any pointer, as clr answers them. */
Test(pointer, unanswered_attributes_not_supported)
{
	void *d = NULL;
	cr_assert_eq(hipMalloc(&d, 64), hipSuccess);
	const hipPointer_attribute none[] = {
		HIP_POINTER_ATTRIBUTE_CONTEXT, HIP_POINTER_ATTRIBUTE_P2P_TOKENS,
		HIP_POINTER_ATTRIBUTE_IS_LEGACY_HIP_IPC_CAPABLE,
		HIP_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES,
		HIP_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE, HIP_POINTER_ATTRIBUTE_MEMPOOL_HANDLE,
	};
	for (size_t i = 0; i < sizeof(none) / sizeof(none[0]); i++) {
		uint64_t data = 0;
		cr_assert_eq(hipPointerGetAttribute(&data, none[i], d), hipErrorNotSupported,
			     "attribute %d", (int)none[i]);
	}
	uint64_t data = 0;
	cr_assert_eq(hipPointerGetAttribute(&data, (hipPointer_attribute)-1, d), hipErrorInvalidValue);
	cr_assert_eq(hipFree(d), hipSuccess);
}
