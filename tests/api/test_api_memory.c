/* Device memory: hipMalloc/hipFree and the pitched, fine-grained and managed allocators. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include <hip/hip_runtime_api.h>

Test(memory, malloc_free_readback)
{
	void *p = NULL;
	unsigned char host[4096], back[4096];
	for (size_t i = 0; i < sizeof(host); i++)
		host[i] = (unsigned char)(i * 7 + 3);
	cr_assert_eq(hipMalloc(&p, sizeof(host)), hipSuccess);
	cr_assert_not_null(p);
	cr_assert_eq(hipMemcpy(p, host, sizeof(host), hipMemcpyHostToDevice), hipSuccess);
	memset(back, 0, sizeof(back));
	cr_assert_eq(hipMemcpy(back, p, sizeof(back), hipMemcpyDeviceToHost), hipSuccess);
	cr_assert_arr_eq(back, host, sizeof(host));
	cr_assert_eq(hipFree(p), hipSuccess);
}

Test(memory, many_small_allocations_are_distinct)
{
	void *p[256];
	for (int i = 0; i < 256; i++) {
		cr_assert_eq(hipMalloc(&p[i], 4096), hipSuccess);
		for (int j = 0; j < i; j++)
			cr_assert(p[i] != p[j]);
	}
	for (int i = 0; i < 256; i++)
		cr_assert_eq(hipFree(p[i]), hipSuccess);
}

Test(memory, zero_size_and_null)
{
	void *p = (void *)0x1;
	cr_assert_eq(hipMalloc(&p, 0), hipSuccess);
	cr_assert_null(p);
	cr_assert_eq(hipMalloc(NULL, 16), hipErrorInvalidValue);
	cr_assert_eq(hipFree(NULL), hipSuccess);
}

Test(memory, bad_free)
{
	void *p = NULL;
	int on_stack;
	cr_assert_eq(hipMalloc(&p, 1 << 20), hipSuccess);
	/* Interior pointer: an error, and the block stays allocated and usable. */
	cr_assert_eq(hipFree((char *)p + 64), hipErrorInvalidValue);
	cr_assert_eq(hipMemset(p, 0x5a, 1 << 20), hipSuccess);
	cr_assert_eq(hipFree(&on_stack), hipErrorInvalidValue);
	cr_assert_eq(hipFree((void *)0xdead0000), hipErrorInvalidValue);
	cr_assert_eq(hipFree(p), hipSuccess);
	cr_assert_eq(hipFree(p), hipErrorInvalidValue, "double free");
}

Test(memory, out_of_memory)
{
	void *p = (void *)0x1;
	cr_assert_eq(hipMalloc(&p, (size_t)1 << 62), hipErrorOutOfMemory);
	cr_assert_eq((uintptr_t)p, 0x1, "a failed call leaves the output alone");
}

Test(memory, ext_malloc_with_flags)
{
	void *p = NULL;
	uint32_t v = 0xabcdef01, back = 0;
	cr_assert_eq(hipExtMallocWithFlags(&p, 4096, hipDeviceMallocFinegrained), hipSuccess);
	cr_assert_eq(hipMemcpy(p, &v, 4, hipMemcpyHostToDevice), hipSuccess);
	cr_assert_eq(hipMemcpy(&back, p, 4, hipMemcpyDeviceToHost), hipSuccess);
	cr_assert_eq(back, v);
	cr_assert_eq(hipFree(p), hipSuccess);
	cr_assert_eq(hipExtMallocWithFlags(&p, 4096, hipDeviceMallocUncached), hipSuccess);
	cr_assert_eq(hipFree(p), hipSuccess);
	cr_assert_eq(hipExtMallocWithFlags(&p, 4096, 0x4000), hipErrorInvalidValue);
	cr_assert_eq(hipExtMallocWithFlags(&p, 16, hipMallocSignalMemory), hipErrorInvalidValue);
}

Test(memory, managed)
{
	int *p = NULL;
	hipError_t e = hipMallocManaged((void **)&p, 1 << 16, hipMemAttachGlobal);
	cr_assert(e == hipSuccess || e == hipErrorNotSupported, "got %d", e);
	if (e == hipSuccess) {
		for (int i = 0; i < 1024; i++)
			p[i] = i;
		int back[1024];
		cr_assert_eq(hipMemcpy(back, p, sizeof(back), hipMemcpyDefault), hipSuccess);
		for (int i = 0; i < 1024; i++)
			cr_assert_eq(back[i], i);
		cr_assert_eq(hipFree(p), hipSuccess);
	}
	cr_assert_eq(hipMallocManaged((void **)&p, 0, hipMemAttachGlobal), hipErrorInvalidValue);
	cr_assert_eq(hipMallocManaged((void **)&p, 64, 0x10), hipErrorInvalidValue);
	cr_assert_eq(hipMallocManaged(NULL, 64, hipMemAttachGlobal), hipErrorInvalidValue);
}

Test(memory, pitch_and_3d)
{
	void *p = NULL;
	size_t pitch = 0;
	cr_assert_eq(hipMallocPitch(&p, &pitch, 100, 10), hipSuccess);
	cr_assert_geq(pitch, 100u);
	cr_assert_eq(pitch % 256, 0u);
	size_t size = 0;
	cr_assert_eq(hipMemPtrGetInfo(p, &size), hipSuccess);
	cr_assert_geq(size, pitch * 10);
	cr_assert_eq(hipFree(p), hipSuccess);
	cr_assert_eq(hipMallocPitch(NULL, &pitch, 100, 10), hipErrorInvalidValue);

	hipPitchedPtr pp;
	hipExtent ext = {.width = 33, .height = 5, .depth = 3};
	cr_assert_eq(hipMalloc3D(&pp, ext), hipSuccess);
	cr_assert_not_null(pp.ptr);
	cr_assert_geq(pp.pitch, 33u);
	cr_assert_eq(pp.xsize, 33u);
	cr_assert_eq(pp.ysize, 5u);
	cr_assert_eq(hipFree(pp.ptr), hipSuccess);
	cr_assert_eq(hipMalloc3D(NULL, ext), hipErrorInvalidValue);
}

Test(memory, address_range)
{
	void *p = NULL, *base = NULL;
	size_t size = 0;
	cr_assert_eq(hipMalloc(&p, 10000), hipSuccess);
	cr_assert_eq(hipMemGetAddressRange(&base, &size, (char *)p + 5000), hipSuccess);
	cr_assert_eq(base, p);
	cr_assert_eq(size, 10000u);
	int x;
	cr_assert_eq(hipMemGetAddressRange(&base, &size, &x), hipErrorNotFound);
	cr_assert_eq(hipMemGetAddressRange(&base, &size, NULL), hipErrorNotFound);
	cr_assert_eq(hipMemPtrGetInfo(&x, &size), hipErrorInvalidValue);
	cr_assert_eq(hipFree(p), hipSuccess);
}

/* A block hipFreeAsync gave back to its pool stays mapped for reuse, but hipMemPtrGetInfo no
 * longer describes it (clr answers hipErrorInvalidValue, hip-tests
 * Unit_hipGetProcAddress_MemoryApisStreamOrderedMemory). */
Test(memory, ptr_get_info_after_free_async)
{
	hipStream_t s;
	cr_assert_eq(hipStreamCreate(&s), hipSuccess);
	void *p = NULL;
	cr_assert_eq(hipMallocAsync(&p, 256, s), hipSuccess);
	cr_assert_eq(hipStreamSynchronize(s), hipSuccess);
	size_t size = 0;
	cr_assert_eq(hipMemPtrGetInfo(p, &size), hipSuccess);
	cr_assert_eq(size, 256u);
	cr_assert_eq(hipFreeAsync(p, s), hipSuccess);
	cr_assert_eq(hipStreamSynchronize(s), hipSuccess);
	cr_assert_eq(hipMemPtrGetInfo(p, &size), hipErrorInvalidValue);
	cr_assert_eq(hipMemPtrGetInfo((char *)p + 100, &size), hipErrorInvalidValue);
	void *q = NULL;
	cr_assert_eq(hipMallocAsync(&q, 256, s), hipSuccess);
	cr_assert_eq(hipStreamSynchronize(s), hipSuccess);
	cr_assert_eq(hipMemPtrGetInfo(q, &size), hipSuccess, "a reused block is live again");
	cr_assert_eq(hipFreeAsync(q, s), hipSuccess);
	cr_assert_eq(hipStreamDestroy(s), hipSuccess);
}
