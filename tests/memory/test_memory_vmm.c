/* The virtual-memory API: reserve, create, map, set access, then use the range like any device
 * memory (hipMemcpy, hipMemset, the CPU); unmap, release and free, with their errors. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hip/hip_runtime_api.h>

static hipMemAllocationProp device_prop(int dev)
{
	hipMemAllocationProp prop;
	memset(&prop, 0, sizeof(prop));
	prop.type = hipMemAllocationTypePinned;
	prop.location.type = hipMemLocationTypeDevice;
	prop.location.id = dev;
	return prop;
}

static size_t granularity(void)
{
	hipMemAllocationProp prop = device_prop(0);
	size_t g = 0;
	cr_assert_eq(hipMemGetAllocationGranularity(&g, &prop, hipMemAllocationGranularityRecommended),
		     hipSuccess);
	return g;
}

static void grant(void *va, size_t size, int dev)
{
	hipMemAccessDesc desc;
	memset(&desc, 0, sizeof(desc));
	desc.location.type = hipMemLocationTypeDevice;
	desc.location.id = dev;
	desc.flags = hipMemAccessFlagsProtReadWrite;
	cr_assert_eq(hipMemSetAccess(va, size, &desc, 1), hipSuccess);
}

Test(vmm, granularity)
{
	hipMemAllocationProp prop = device_prop(0);
	size_t min = 0, rec = 0;
	cr_assert_eq(hipMemGetAllocationGranularity(&min, &prop, hipMemAllocationGranularityMinimum),
		     hipSuccess);
	cr_assert_eq(hipMemGetAllocationGranularity(&rec, &prop, hipMemAllocationGranularityRecommended),
		     hipSuccess);
	cr_assert_gt(min, 0);
	cr_assert_eq(min & (min - 1), 0, "granularity %zu is a power of two", min);
	cr_assert_eq(rec % min, 0);
	cr_assert_eq(hipMemGetAllocationGranularity(NULL, &prop, hipMemAllocationGranularityMinimum),
		     hipErrorInvalidValue);
	prop.location.id = 99;
	cr_assert_eq(hipMemGetAllocationGranularity(&min, &prop, hipMemAllocationGranularityMinimum),
		     hipErrorInvalidValue);
	prop = device_prop(0);
	prop.type = hipMemAllocationTypeManaged;
	cr_assert_eq(hipMemGetAllocationGranularity(&min, &prop, hipMemAllocationGranularityMinimum),
		     hipErrorInvalidValue);
}

/* The whole life cycle, with contents checked through the GPU copy path and the CPU. */
Test(vmm, reserve_create_map_access_readback)
{
	size_t g = granularity(), size = 2 * g;
	void *va = NULL;
	hipMemGenericAllocationHandle_t h = NULL;
	hipMemAllocationProp prop = device_prop(0);

	cr_assert_eq(hipMemAddressReserve(&va, size, 0, NULL, 0), hipSuccess);
	cr_assert_not_null(va);
	cr_assert_eq((uintptr_t)va % g, 0);
	cr_assert_eq(hipMemCreate(&h, size, &prop, 0), hipSuccess);
	cr_assert_not_null(h);
	cr_assert_eq(hipMemMap(va, size, 0, h, 0), hipSuccess);
	grant(va, size, 0);

	unsigned long long flags = 0;
	hipMemLocation loc = {.type = hipMemLocationTypeDevice, .id = 0};
	cr_assert_eq(hipMemGetAccess(&flags, &loc, (char *)va + 100), hipSuccess);
	cr_assert_eq(flags, hipMemAccessFlagsProtReadWrite);

	/* Device side: copy a pattern in, fill part of it, read everything back. */
	static uint32_t host[1 << 18], back[1 << 18]; /* 1 MiB each */
	for (size_t i = 0; i < sizeof(host) / 4; i++)
		host[i] = (uint32_t)(i * 2654435761u);
	char *hi = (char *)va + g; /* the second granule */
	cr_assert_eq(hipMemcpy(hi, host, sizeof(host), hipMemcpyHostToDevice), hipSuccess);
	cr_assert_eq(hipMemset(hi, 0x5a, 4096), hipSuccess);
	cr_assert_eq(hipMemcpy(back, hi, sizeof(back), hipMemcpyDeviceToHost), hipSuccess);
	for (size_t i = 0; i < 1024; i++)
		cr_assert_eq(back[i], 0x5a5a5a5au, "word %zu", i);
	cr_assert_arr_eq(back + 1024, host + 1024, sizeof(host) - 4096);

	/* Device-to-device inside the range, and the CPU view when the memory is host-visible. */
	cr_assert_eq(hipMemcpy(va, hi, 4096, hipMemcpyDeviceToDevice), hipSuccess);
	hipPointerAttribute_t attr;
	memset(&attr, 0, sizeof(attr));
	if (hipPointerGetAttributes(&attr, va) == hipSuccess && attr.hostPointer) {
		const uint32_t *cpu = attr.hostPointer;
		cr_assert_eq(cpu[0], 0x5a5a5a5au);
		cr_assert_eq(cpu[1023], 0x5a5a5a5au);
	}
	uint32_t word = 0;
	cr_assert_eq(hipMemcpy(&word, (char *)va + 4092, 4, hipMemcpyDeviceToHost), hipSuccess);
	cr_assert_eq(word, 0x5a5a5a5au);

	hipMemAllocationProp got;
	memset(&got, 0xff, sizeof(got));
	cr_assert_eq(hipMemGetAllocationPropertiesFromHandle(&got, h), hipSuccess);
	cr_assert_eq(got.type, hipMemAllocationTypePinned);
	cr_assert_eq(got.location.type, hipMemLocationTypeDevice);
	cr_assert_eq(got.location.id, 0);

	cr_assert_eq(hipMemUnmap(va, size), hipSuccess);
	cr_assert_eq(hipMemRelease(h), hipSuccess);
	cr_assert_eq(hipMemAddressFree(va, size), hipSuccess);
}

/* Two physical allocations side by side in one reservation form one contiguous range. */
Test(vmm, two_handles_contiguous)
{
	size_t g = granularity();
	void *va = NULL;
	hipMemGenericAllocationHandle_t a = NULL, b = NULL;
	hipMemAllocationProp prop = device_prop(0);

	cr_assert_eq(hipMemAddressReserve(&va, 2 * g, 0, NULL, 0), hipSuccess);
	cr_assert_eq(hipMemCreate(&a, g, &prop, 0), hipSuccess);
	cr_assert_eq(hipMemCreate(&b, g, &prop, 0), hipSuccess);
	cr_assert_eq(hipMemMap(va, g, 0, a, 0), hipSuccess);
	cr_assert_eq(hipMemMap((char *)va + g, g, 0, b, 0), hipSuccess);
	grant(va, 2 * g, 0); /* one call across both mappings */

	/* Both sides of the boundary between the two allocations. (One copy or fill that crosses
	 * it is refused by the runtime's copy path, which wants a span inside one allocation.) */
	char *edge = (char *)va + g - 8192;
	cr_assert_eq(hipMemset(edge, 0x3c, 8192), hipSuccess);
	cr_assert_eq(hipMemset(edge + 8192, 0x3d, 8192), hipSuccess);
	unsigned char back[8192];
	cr_assert_eq(hipMemcpy(back, edge, sizeof(back), hipMemcpyDeviceToHost), hipSuccess);
	for (size_t i = 0; i < sizeof(back); i++)
		cr_assert_eq(back[i], 0x3c, "byte %zu", i);
	cr_assert_eq(hipMemcpy(back, edge + 8192, sizeof(back), hipMemcpyDeviceToHost), hipSuccess);
	for (size_t i = 0; i < sizeof(back); i++)
		cr_assert_eq(back[i], 0x3d, "byte %zu", i);

	/* Retaining through an address returns the handle mapped there. */
	hipMemGenericAllocationHandle_t r = NULL;
	cr_assert_eq(hipMemRetainAllocationHandle(&r, (char *)va + g + 5), hipSuccess);
	cr_assert_eq(r, b);
	cr_assert_eq(hipMemRelease(r), hipSuccess);

	/* Releasing the handles first keeps the memory until the mappings go (CUDA). */
	cr_assert_eq(hipMemRelease(a), hipSuccess);
	cr_assert_eq(hipMemRelease(b), hipSuccess);
	unsigned char one = 0;
	cr_assert_eq(hipMemcpy(&one, (char *)va + g, 1, hipMemcpyDeviceToHost), hipSuccess);
	cr_assert_eq(one, 0x3d);
	/* One unmap covering both mappings. */
	cr_assert_eq(hipMemUnmap(va, 2 * g), hipSuccess);
	cr_assert_eq(hipMemAddressFree(va, 2 * g), hipSuccess);
}

/* A range can be unmapped and mapped again with another allocation. */
Test(vmm, remap_after_unmap)
{
	size_t g = granularity();
	void *va = NULL;
	hipMemGenericAllocationHandle_t a = NULL, b = NULL;
	hipMemAllocationProp prop = device_prop(0);
	uint32_t v = 0;

	cr_assert_eq(hipMemAddressReserve(&va, g, 0, NULL, 0), hipSuccess);
	cr_assert_eq(hipMemCreate(&a, g, &prop, 0), hipSuccess);
	cr_assert_eq(hipMemCreate(&b, g, &prop, 0), hipSuccess);
	cr_assert_eq(hipMemMap(va, g, 0, a, 0), hipSuccess);
	grant(va, g, 0);
	cr_assert_eq(hipMemsetD32(va, 0x11111111, g / 4), hipSuccess);
	cr_assert_eq(hipMemUnmap(va, g), hipSuccess);
	cr_assert_eq(hipMemMap(va, g, 0, b, 0), hipSuccess);
	grant(va, g, 0);
	cr_assert_eq(hipMemsetD32(va, 0x22222222, g / 4), hipSuccess);
	cr_assert_eq(hipMemcpy(&v, (char *)va + g - 4, 4, hipMemcpyDeviceToHost), hipSuccess);
	cr_assert_eq(v, 0x22222222u);
	cr_assert_eq(hipMemUnmap(va, g), hipSuccess);
	/* `a` kept its contents while unmapped. */
	cr_assert_eq(hipMemMap(va, g, 0, a, 0), hipSuccess);
	cr_assert_eq(hipMemcpy(&v, (char *)va + 64, 4, hipMemcpyDeviceToHost), hipSuccess);
	cr_assert_eq(v, 0x11111111u);
	cr_assert_eq(hipMemUnmap(va, g), hipSuccess);
	cr_assert_eq(hipMemRelease(a), hipSuccess);
	cr_assert_eq(hipMemRelease(b), hipSuccess);
	cr_assert_eq(hipMemAddressFree(va, g), hipSuccess);
}

Test(vmm, argument_errors)
{
	size_t g = granularity();
	void *va = NULL;
	hipMemGenericAllocationHandle_t h = NULL;
	hipMemAllocationProp prop = device_prop(0);

	cr_assert_eq(hipMemAddressReserve(NULL, g, 0, NULL, 0), hipErrorInvalidValue);
	cr_assert_eq(hipMemAddressReserve(&va, g, 0, NULL, 1), hipErrorInvalidValue);
	cr_assert_eq(hipMemAddressReserve(&va, 0, 0, NULL, 0), hipErrorMemoryAllocation);
	cr_assert_eq(hipMemAddressReserve(&va, g + 1, 0, NULL, 0), hipErrorMemoryAllocation);
	cr_assert_eq(hipMemAddressReserve(&va, g, 3, NULL, 0), hipErrorMemoryAllocation);

	cr_assert_eq(hipMemCreate(NULL, g, &prop, 0), hipErrorInvalidValue);
	cr_assert_eq(hipMemCreate(&h, 0, &prop, 0), hipErrorInvalidValue);
	cr_assert_eq(hipMemCreate(&h, g, NULL, 0), hipErrorInvalidValue);
	cr_assert_eq(hipMemCreate(&h, g, &prop, 1), hipErrorInvalidValue);
	cr_assert_eq(hipMemCreate(&h, 2048, &prop, 0), hipErrorInvalidValue);
	prop.location.id = 7;
	cr_assert_eq(hipMemCreate(&h, g, &prop, 0), hipErrorInvalidValue);
	prop = device_prop(0);

	cr_assert_eq(hipMemAddressReserve(&va, 2 * g, 0, NULL, 0), hipSuccess);
	cr_assert_eq(hipMemCreate(&h, g, &prop, 0), hipSuccess);
	/* Map outside any reservation, with an offset, with flags, a bad handle. */
	int local;
	cr_assert_eq(hipMemMap(&local, g, 0, h, 0), hipErrorInvalidValue);
	cr_assert_eq(hipMemMap(va, g, 4096, h, 0), hipErrorInvalidValue);
	cr_assert_eq(hipMemMap(va, g, 0, h, 1), hipErrorInvalidValue);
	cr_assert_eq(hipMemMap(va, g, 0, (hipMemGenericAllocationHandle_t)&local, 0),
		     hipErrorInvalidValue);
	cr_assert_eq(hipMemMap(va, 0, 0, h, 0), hipErrorInvalidValue);
	/* Past the end of the reservation. */
	cr_assert_eq(hipMemMap((char *)va + 2 * g, g, 0, h, 0), hipErrorInvalidValue);
	/* Larger than the allocation. */
	cr_assert_eq(hipMemMap(va, 2 * g, 0, h, 0), hipErrorInvalidValue);

	cr_assert_eq(hipMemMap(va, g, 0, h, 0), hipSuccess);
	/* Already mapped there. */
	cr_assert_eq(hipMemMap(va, g, 0, h, 0), hipErrorInvalidValue);
	/* Freeing a reservation that still holds a mapping, or part of one. */
	cr_assert_eq(hipMemAddressFree(va, 2 * g), hipErrorInvalidValue);
	cr_assert_eq(hipMemAddressFree(va, g), hipErrorInvalidValue);
	/* Unmapping nothing, or part of a mapping. */
	cr_assert_eq(hipMemUnmap((char *)va + g, g), hipErrorInvalidValue);
	cr_assert_eq(hipMemUnmap(va, g / 2), hipErrorInvalidValue);
	cr_assert_eq(hipMemUnmap(NULL, g), hipErrorInvalidValue);

	/* Access: unmapped range, bad device, bad flags, NULL arguments. */
	hipMemAccessDesc desc = {.location = {.type = hipMemLocationTypeDevice, .id = 0},
				 .flags = hipMemAccessFlagsProtReadWrite};
	cr_assert_eq(hipMemSetAccess((char *)va + g, g, &desc, 1), hipErrorInvalidValue);
	cr_assert_eq(hipMemSetAccess(va, 2 * g, &desc, 1), hipErrorInvalidValue);
	cr_assert_eq(hipMemSetAccess(va, g, NULL, 1), hipErrorInvalidValue);
	cr_assert_eq(hipMemSetAccess(va, g, &desc, 0), hipErrorInvalidValue);
	desc.location.id = 42;
	cr_assert_eq(hipMemSetAccess(va, g, &desc, 1), hipErrorInvalidValue);
	desc.location.id = 0;
	desc.flags = (hipMemAccessFlags)7;
	cr_assert_eq(hipMemSetAccess(va, g, &desc, 1), hipErrorInvalidValue);
	unsigned long long flags;
	hipMemLocation loc = {.type = hipMemLocationTypeDevice, .id = 0};
	cr_assert_eq(hipMemGetAccess(&flags, &loc, (char *)va + g), hipErrorInvalidValue);
	cr_assert_eq(hipMemGetAccess(NULL, &loc, va), hipErrorInvalidValue);
	/* Before any hipMemSetAccess the device has no recorded access (CUDA semantics). */
	cr_assert_eq(hipMemGetAccess(&flags, &loc, va), hipSuccess);
	cr_assert_eq(flags, hipMemAccessFlagsProtNone);

	hipMemGenericAllocationHandle_t r;
	cr_assert_eq(hipMemRetainAllocationHandle(&r, (char *)va + g), hipErrorInvalidValue);
	cr_assert_eq(hipMemRetainAllocationHandle(NULL, va), hipErrorInvalidValue);

	cr_assert_eq(hipMemUnmap(va, g), hipSuccess);
	cr_assert_eq(hipMemUnmap(va, g), hipErrorInvalidValue);
	cr_assert_eq(hipMemRelease(h), hipSuccess);
	/* A released handle is gone. */
	cr_assert_eq(hipMemRelease(h), hipErrorInvalidValue);
	hipMemAllocationProp got;
	cr_assert_eq(hipMemGetAllocationPropertiesFromHandle(&got, h), hipErrorInvalidValue);
	cr_assert_eq(hipMemRelease(NULL), hipErrorInvalidValue);
	cr_assert_eq(hipMemAddressFree(va, 2 * g), hipSuccess);
	cr_assert_eq(hipMemAddressFree(va, 2 * g), hipErrorInvalidValue);
	cr_assert_eq(hipMemAddressFree(NULL, g), hipErrorInvalidValue);
}

/* What this runtime does not do says so. */
Test(vmm, unsupported_features)
{
	size_t g = granularity();
	hipMemAllocationProp prop = device_prop(0);
	hipMemGenericAllocationHandle_t h = NULL;

	cr_assert_eq(hipMemCreate(&h, g, &prop, 0), hipSuccess);
	cr_assert_eq(hipMemExportToShareableHandle(NULL, h, hipMemHandleTypePosixFileDescriptor, 0),
		     hipErrorInvalidValue);
	hipArrayMapInfo info;
	memset(&info, 0, sizeof(info));
	cr_assert_eq(hipMemMapArrayAsync(&info, 1, NULL), hipErrorNotSupported);
	cr_assert_eq(hipMemMapArrayAsync(NULL, 1, NULL), hipErrorInvalidValue);
	cr_assert_eq(hipMemRelease(h), hipSuccess);
}

/* A dma-buf for a range of device memory (CUDA's cuMemGetHandleForAddressRange). */
Test(vmm, dmabuf_for_address_range)
{
	void *d = NULL;
	int fd = -1, local;
	size_t size = 4u << 20;
	cr_assert_eq(hipMalloc(&d, size), hipSuccess);
	cr_assert_eq(hipMemGetHandleForAddressRange(&fd, d, size, hipMemRangeHandleTypeDmaBufFd, 0),
		     hipSuccess);
	cr_assert_geq(fd, 0);
	/* A dma-buf reports its size through lseek(SEEK_END). */
	off_t end = lseek(fd, 0, SEEK_END);
	cr_assert_geq(end, (off_t)size);
	close(fd);
	cr_assert_eq(hipMemGetHandleForAddressRange(&fd, d, size + 4096, hipMemRangeHandleTypeDmaBufFd, 0),
		     hipErrorInvalidValue);
	cr_assert_eq(hipMemGetHandleForAddressRange(&fd, (char *)d + 1, 4096, hipMemRangeHandleTypeDmaBufFd, 0),
		     hipErrorInvalidValue);
	cr_assert_eq(hipMemGetHandleForAddressRange(&fd, &local, 4096, hipMemRangeHandleTypeDmaBufFd, 0),
		     hipErrorInvalidValue);
	cr_assert_eq(hipMemGetHandleForAddressRange(&fd, d, size, hipMemRangeHandleTypeDmaBufFd, 1),
		     hipErrorInvalidValue);
	cr_assert_eq(hipFree(d), hipSuccess);
}

/* Three handles mapped side by side in one reservation are one range: a copy spanning them
 * works in both directions (clr checks a copy against the whole reservation), and a copy past
 * the reservation's last mapping is still refused. */
Test(vmm, copy_across_mappings_of_one_reservation)
{
	const size_t g = granularity(), n = 3, total = n * g;
	hipMemAllocationProp prop = device_prop(0);
	hipMemGenericAllocationHandle_t h[3];
	void *va = NULL;
	cr_assert_eq(hipMemAddressReserve(&va, total + g, 0, NULL, 0), hipSuccess);
	for (size_t i = 0; i < n; i++) {
		cr_assert_eq(hipMemCreate(&h[i], g, &prop, 0), hipSuccess);
		cr_assert_eq(hipMemMap((char *)va + i * g, g, 0, h[i], 0), hipSuccess);
	}
	grant(va, total, 0);
	unsigned char *src = malloc(total), *back = malloc(total);
	for (size_t i = 0; i < total; i++)
		src[i] = (unsigned char)(i * 13 + (i >> 12));
	memset(back, 0, total);
	cr_assert_eq(hipMemcpy(va, src, total, hipMemcpyHostToDevice), hipSuccess);
	cr_assert_eq(hipMemcpy(back, va, total, hipMemcpyDeviceToHost), hipSuccess);
	cr_assert_eq(memcmp(back, src, total), 0);
	/* a piece straddling the first boundary, asynchronously */
	memset(back, 0, total);
	cr_assert_eq(hipMemcpyAsync(back, (char *)va + g - 100, 300, hipMemcpyDeviceToHost, NULL), hipSuccess);
	cr_assert_eq(hipStreamSynchronize(NULL), hipSuccess);
	cr_assert_eq(memcmp(back, src + g - 100, 300), 0);
	/* the reservation's last granule is not mapped */
	cr_assert_eq(hipMemcpy((char *)va + total - 16, src, 32, hipMemcpyHostToDevice), hipErrorInvalidValue);
	for (size_t i = 0; i < n; i++) {
		cr_assert_eq(hipMemUnmap((char *)va + i * g, g), hipSuccess);
		cr_assert_eq(hipMemRelease(h[i]), hipSuccess);
	}
	cr_assert_eq(hipMemAddressFree(va, total + g), hipSuccess);
	free(src);
	free(back);
}
