/* Pinned and registered host memory: hipHostMalloc flags, hipHostFree, hipHostRegister. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <hip/hip_runtime_api.h>

Test(host_memory, malloc_every_flag)
{
	const unsigned flags[] = {
		hipHostMallocDefault, hipHostMallocPortable, hipHostMallocMapped,
		hipHostMallocWriteCombined, hipHostMallocNumaUser, hipHostMallocCoherent,
		hipHostMallocNonCoherent, hipHostMallocPortable | hipHostMallocMapped,
	};
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		unsigned char *p = NULL;
		cr_assert_eq(hipHostMalloc((void **)&p, 8192, flags[i]), hipSuccess, "flags %#x", flags[i]);
		cr_assert_not_null(p);
		memset(p, (int)i + 1, 8192);               /* the CPU can use it directly */
		void *dev = NULL;
		cr_assert_eq(hipHostGetDevicePointer(&dev, p, 0), hipSuccess);
		cr_assert_not_null(dev);
		unsigned char back[64];
		cr_assert_eq(hipMemcpy(back, dev, sizeof(back), hipMemcpyDeviceToHost), hipSuccess);
		cr_assert_eq(back[63], (unsigned char)(i + 1));
		unsigned got = 0;
		cr_assert_eq(hipHostGetFlags(&got, p), hipSuccess);
		cr_assert_eq(got, flags[i], "hipHostGetFlags gives back exactly the flags passed");
		cr_assert_eq(hipHostFree(p), hipSuccess);
	}
}

Test(host_memory, malloc_bad_input)
{
	void *huge = (void *)0x1;
	cr_assert_eq(hipHostMalloc(&huge, SIZE_MAX, 0), hipErrorOutOfMemory, "too big is out of memory");
	cr_assert_eq((uintptr_t)huge, 0x1, "a failed call leaves the output alone");
	void *p = (void *)0x1;
	cr_assert_eq(hipHostMalloc(&p, 4096, hipHostMallocCoherent | hipHostMallocNonCoherent),
		     hipErrorInvalidValue);
	cr_assert_eq(hipHostMalloc(&p, 4096, 0x100), hipErrorInvalidValue);
	cr_assert_eq(hipHostMalloc(NULL, 4096, 0), hipErrorInvalidValue);
	cr_assert_eq(hipHostMalloc(&p, 0, 0), hipSuccess);
	cr_assert_null(p);
	cr_assert_eq(hipHostAlloc(&p, 64, 0), hipSuccess);
	cr_assert_eq(hipHostFree(p), hipSuccess);
}

Test(host_memory, free_checks_kind)
{
	void *d = NULL, *h = NULL;
	cr_assert_eq(hipMalloc(&d, 4096), hipSuccess);
	cr_assert_eq(hipHostFree(d), hipErrorInvalidValue, "device memory through hipHostFree");
	cr_assert_eq(hipHostMalloc(&h, 4096, 0), hipSuccess);
	cr_assert_eq(hipHostFree((char *)h + 8), hipErrorInvalidValue);
	int local;
	cr_assert_eq(hipHostFree(&local), hipErrorInvalidValue);
	cr_assert_eq(hipHostFree(NULL), hipSuccess);
	cr_assert_eq(hipHostFree(h), hipSuccess);
	cr_assert_eq(hipFree(d), hipSuccess);
}

Test(host_memory, register_unregister)
{
	size_t size = 1 << 20;
	unsigned char *buf = aligned_alloc(4096, size);
	for (size_t i = 0; i < size; i++)
		buf[i] = (unsigned char)(i ^ (i >> 8));
	cr_assert_eq(hipHostRegister(buf, size, hipHostRegisterDefault), hipSuccess);
	cr_assert_eq(hipHostRegister(buf + 4096, 4096, hipHostRegisterDefault),
		     hipErrorHostMemoryAlreadyRegistered, "an overlap starting elsewhere");
	cr_assert_eq(hipHostRegister(buf, size + 4096, hipHostRegisterDefault),
		     hipErrorHostMemoryAlreadyRegistered, "a longer range at the same start");
	void *dev = NULL;
	cr_assert_eq(hipHostGetDevicePointer(&dev, buf, 0), hipSuccess);
	cr_assert_not_null(dev);

	/* A copy through the device view reads the user's bytes. */
	void *d = NULL;
	cr_assert_eq(hipMalloc(&d, size), hipSuccess);
	cr_assert_eq(hipMemcpy(d, buf, size, hipMemcpyHostToDevice), hipSuccess);
	unsigned char *back = malloc(size);
	cr_assert_eq(hipMemcpy(back, d, size, hipMemcpyDeviceToHost), hipSuccess);
	cr_assert_arr_eq(back, buf, size);

	cr_assert_eq(hipHostUnregister(buf), hipSuccess);
	cr_assert_eq(hipHostUnregister(buf), hipErrorHostMemoryNotRegistered);
	cr_assert_eq(hipHostGetDevicePointer(&dev, buf, 0), hipErrorInvalidValue);
	cr_assert_eq(hipHostRegister(NULL, size, 0), hipErrorInvalidValue);
	cr_assert_eq(hipHostRegister(buf, 0, 0), hipErrorInvalidValue);
	cr_assert_eq(hipHostRegister(buf, size, 0x80000), hipErrorInvalidValue);
	cr_assert_eq(hipFree(d), hipSuccess);
	free(back);
	free(buf);
}

Test(host_memory, get_device_pointer_bad_input)
{
	void *dev;
	int x;
	cr_assert_eq(hipHostGetDevicePointer(&dev, &x, 0), hipErrorInvalidValue);
	cr_assert_eq(hipHostGetDevicePointer(NULL, &x, 0), hipErrorInvalidValue);
	unsigned f;
	cr_assert_eq(hipHostGetFlags(&f, &x), hipErrorInvalidValue);
}

/* Two registrations sharing a page: the second gets a GPU VA of its own, so its device pointer
 * differs from the host pointer. That device pointer works wherever a device address is taken
 * (stream memory operations) and describes the registered memory. */
Test(host_memory, register_sharing_a_page_device_alias)
{
	char *page = aligned_alloc(4096, 8192);
	cr_assert_not_null(page);
	cr_assert_eq(hipHostRegister(page, 4, hipHostRegisterDefault), hipSuccess);
	uint32_t *h = (uint32_t *)(page + 64);
	h[0] = 1;
	cr_assert_eq(hipHostRegister(h, 4096, hipHostRegisterDefault), hipSuccess);
	uint32_t *d = NULL;
	cr_assert_eq(hipHostGetDevicePointer((void **)&d, h, 0), hipSuccess);
	hipStream_t s;
	cr_assert_eq(hipStreamCreate(&s), hipSuccess);
	cr_assert_eq(hipStreamWaitValue32(s, d, 1, hipStreamWaitValueEq, 0xffffffffu), hipSuccess);
	cr_assert_eq(hipStreamWriteValue32(s, d, 2, 0), hipSuccess);
	cr_assert_eq(hipStreamSynchronize(s), hipSuccess);
	cr_assert_eq(h[0], 2u);
	hipPointerAttribute_t a;
	cr_assert_eq(hipPointerGetAttributes(&a, d), hipSuccess);
	cr_assert_eq(a.type, hipMemoryTypeHost);
	cr_assert_eq(a.hostPointer, (void *)h);
	cr_assert_eq(a.devicePointer, (void *)d);
	cr_assert_eq(hipStreamDestroy(s), hipSuccess);
	cr_assert_eq(hipHostUnregister(h), hipSuccess);
	cr_assert_eq(hipHostUnregister(page), hipSuccess);
	free(page);
}

/* Flags of neighbouring small allocations (carved from one cached chunk) stay distinct, and
 * every address inside an allocation, the device pointer included, reports them. */
Test(host_memory, get_flags_exact_per_allocation)
{
	const unsigned flags[] = {
		0, hipHostMallocPortable, hipHostMallocMapped | hipHostMallocCoherent,
		hipHostMallocNonCoherent, hipHostMallocPortable | hipHostMallocMapped,
		hipHostMallocNumaUser | hipHostMallocNonCoherent, hipHostMallocWriteCombined,
	};
	enum { N = sizeof(flags) / sizeof(flags[0]) };
	char *p[N];
	for (int i = 0; i < N; i++)
		cr_assert_eq(hipHostMalloc((void **)&p[i], 256, flags[i]), hipSuccess);
	for (int i = 0; i < N; i++) {
		unsigned got = 0xdead;
		cr_assert_eq(hipHostGetFlags(&got, p[i] + 100), hipSuccess);
		cr_assert_eq(got, flags[i], "allocation %d: %#x, expected %#x", i, got, flags[i]);
		void *dev = NULL;
		cr_assert_eq(hipHostGetDevicePointer(&dev, p[i], 0), hipSuccess);
		cr_assert_eq(hipHostGetFlags(&got, dev), hipSuccess);
		cr_assert_eq(got, flags[i]);
	}
	for (int i = 0; i < N; i++)
		cr_assert_eq(hipHostFree(p[i]), hipSuccess);
	/* A slot reused by a new allocation reports the new flags. */
	char *q = NULL;
	cr_assert_eq(hipHostMalloc((void **)&q, 256, hipHostMallocCoherent), hipSuccess);
	unsigned got = 0;
	cr_assert_eq(hipHostGetFlags(&got, q), hipSuccess);
	cr_assert_eq(got, (unsigned)hipHostMallocCoherent);
	cr_assert_eq(hipHostFree(q), hipSuccess);
	/* hipHostAlloc is the same allocation. */
	cr_assert_eq(hipHostAlloc((void **)&q, 1 << 20, hipHostAllocWriteCombined), hipSuccess);
	cr_assert_eq(hipHostGetFlags(&got, q), hipSuccess);
	cr_assert_eq(got, (unsigned)hipHostAllocWriteCombined);
	cr_assert_eq(hipHostFree(q), hipSuccess);
}

/* hipHostGetFlags describes hipHostMalloc memory only (clr and CUDA): device and registered
 * memory are hipErrorInvalidValue. */
Test(host_memory, get_flags_refuses_other_memory)
{
	void *d = NULL;
	unsigned got = 0;
	cr_assert_eq(hipMalloc(&d, 4096), hipSuccess);
	cr_assert_eq(hipHostGetFlags(&got, d), hipErrorInvalidValue);
	cr_assert_eq(hipFree(d), hipSuccess);
	char *buf = aligned_alloc(4096, 8192);
	cr_assert_eq(hipHostRegister(buf, 8192, hipHostRegisterMapped), hipSuccess);
	cr_assert_eq(hipHostGetFlags(&got, buf), hipErrorInvalidValue);
	cr_assert_eq(hipHostUnregister(buf), hipSuccess);
	free(buf);
	cr_assert_eq(hipHostGetFlags(NULL, &got), hipErrorInvalidValue);
	cr_assert_eq(hipHostGetFlags(&got, NULL), hipErrorInvalidValue);
}

/* Registering the same start again nests (clr re-registers without error): each registration
 * needs its hipHostUnregister, and the memory stays usable by the GPU until the last. */
Test(host_memory, register_again_nests)
{
	char *buf = aligned_alloc(4096, 8192);
	cr_assert_not_null(buf);
	cr_assert_eq(hipHostRegister(buf, 8192, hipHostRegisterDefault), hipSuccess);
	cr_assert_eq(hipHostRegister(buf, 8192, hipHostRegisterMapped), hipSuccess, "same range");
	cr_assert_eq(hipHostRegister(buf, 1, hipHostRegisterPortable), hipSuccess, "shorter range");
	cr_assert_eq(hipHostUnregister(buf), hipSuccess);
	cr_assert_eq(hipHostUnregister(buf), hipSuccess);
	memset(buf, 0x5a, 8192);
	void *dev = NULL;
	cr_assert_eq(hipHostGetDevicePointer(&dev, buf, 0), hipSuccess, "still registered once");
	unsigned char back[16];
	cr_assert_eq(hipMemcpy(back, (char *)dev + 8000, sizeof(back), hipMemcpyDeviceToHost),
		     hipSuccess);
	cr_assert_eq(back[15], 0x5a);
	cr_assert_eq(hipHostUnregister(buf), hipSuccess);
	cr_assert_eq(hipHostUnregister(buf), hipErrorHostMemoryNotRegistered);
	cr_assert_eq(hipHostGetDevicePointer(&dev, buf, 0), hipErrorInvalidValue);
	free(buf);
}
