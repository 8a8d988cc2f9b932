/* External memory from an opaque descriptor (a dma-buf): hipImportExternalMemory, mapped buffers
 * at offsets, hipDestroyExternalMemory, with clr's argument checks. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "vmm_common.h"

#define SIZE (64u << 10)

static unsigned char in[SIZE], out[SIZE];

static hipExternalMemoryHandleDesc opaque_fd(int fd, unsigned long long size)
{
	hipExternalMemoryHandleDesc d;
	memset(&d, 0, sizeof(d));
	d.type = hipExternalMemoryHandleTypeOpaqueFd;
	d.handle.fd = fd;
	d.size = size;
	return d;
}

static hipExternalMemoryBufferDesc range(unsigned long long offset, unsigned long long size)
{
	hipExternalMemoryBufferDesc b;
	memset(&b, 0, sizeof(b));
	b.offset = offset;
	b.size = size;
	return b;
}

/* The dma-buf of a shareable VMM allocation, imported as external memory. */
Test(vmm_external_memory, buffers_of_an_exported_allocation)
{
	void *va = NULL, *buf = NULL;
	hipMemGenericAllocationHandle_t h = NULL;
	hipExternalMemory_t ext = NULL;
	int fd = -1;

	vmm_map_new(SIZE, hipMemHandleTypePosixFileDescriptor, &va, &h);
	cr_assert_eq(hipMemExportToShareableHandle(&fd, h, hipMemHandleTypePosixFileDescriptor, 0),
		     hipSuccess);
	hipExternalMemoryHandleDesc d = opaque_fd(fd, SIZE);
	d.flags = hipExternalMemoryDedicated;
	cr_assert_eq(hipImportExternalMemory(&ext, &d), hipSuccess);
	cr_assert_not_null(ext);
	/* The descriptor is still the caller's. */
	cr_assert_eq(close(fd), 0);

	hipExternalMemoryBufferDesc b = range(4096, 3 * 4096);
	cr_assert_eq(hipExternalMemoryGetMappedBuffer(&buf, ext, &b), hipSuccess);
	cr_assert_not_null(buf);
	for (size_t i = 0; i < SIZE; i++)
		in[i] = (unsigned char)(i * 3 + 11);
	cr_assert_eq(hipMemcpy(va, in, SIZE, hipMemcpyHostToDevice), hipSuccess);
	cr_assert_eq(hipMemcpy(out, buf, 3 * 4096, hipMemcpyDeviceToHost), hipSuccess);
	cr_assert_arr_eq(out, in + 4096, 3 * 4096);
	/* Written through the buffer, seen through the VMM mapping. */
	cr_assert_eq(hipMemset(buf, 0x44, 4096), hipSuccess);
	cr_assert_eq(hipMemcpy(out, va, 2 * 4096, hipMemcpyDeviceToHost), hipSuccess);
	for (size_t i = 0; i < 2 * 4096; i++)
		cr_assert_eq(out[i], i >= 4096 ? 0x44 : in[i], "byte %zu", i);
	/* A second buffer of the whole range starts at the same memory. */
	void *all = NULL;
	b = range(0, SIZE);
	cr_assert_eq(hipExternalMemoryGetMappedBuffer(&all, ext, &b), hipSuccess);
	cr_assert_eq((char *)buf - (char *)all, 4096);

	cr_assert_eq(hipDestroyExternalMemory(ext), hipSuccess);
	cr_assert_eq(hipDestroyExternalMemory(ext), hipErrorInvalidValue);
	cr_assert_eq(hipExternalMemoryGetMappedBuffer(&buf, ext, &b), hipErrorInvalidValue);
	/* The allocation itself is untouched. */
	cr_assert_eq(hipMemcpy(out, va, 4096, hipMemcpyDeviceToHost), hipSuccess);
	cr_assert_arr_eq(out, in, 4096);
	vmm_unmap_free(va, SIZE, h);
}

/* hipMalloc'd memory shared as a dma-buf (hipMemGetHandleForAddressRange) imports too. */
Test(vmm_external_memory, dmabuf_of_device_memory)
{
	const size_t size = 4u << 20;
	void *d = NULL, *buf = NULL;
	hipExternalMemory_t ext = NULL;
	int fd = -1;

	cr_assert_eq(hipMalloc(&d, size), hipSuccess);
	cr_assert_eq(hipMemset(d, 0x3f, size), hipSuccess);
	cr_assert_eq(hipMemGetHandleForAddressRange(&fd, d, size, hipMemRangeHandleTypeDmaBufFd, 0),
		     hipSuccess);
	hipExternalMemoryHandleDesc desc = opaque_fd(fd, size);
	cr_assert_eq(hipImportExternalMemory(&ext, &desc), hipSuccess);
	hipExternalMemoryBufferDesc b = range(size - 4096, 4096);
	cr_assert_eq(hipExternalMemoryGetMappedBuffer(&buf, ext, &b), hipSuccess);
	cr_assert_eq(hipMemcpy(out, buf, 4096, hipMemcpyDeviceToHost), hipSuccess);
	for (size_t i = 0; i < 4096; i++)
		cr_assert_eq(out[i], 0x3f, "byte %zu", i);
	cr_assert_eq(hipDestroyExternalMemory(ext), hipSuccess);
	close(fd);
	cr_assert_eq(hipFree(d), hipSuccess);
}

Test(vmm_external_memory, argument_errors)
{
	void *va = NULL, *buf = NULL;
	hipMemGenericAllocationHandle_t h = NULL;
	hipExternalMemory_t ext = NULL;
	int fd = -1, local = 0;

	vmm_map_new(SIZE, hipMemHandleTypePosixFileDescriptor, &va, &h);
	cr_assert_eq(hipMemExportToShareableHandle(&fd, h, hipMemHandleTypePosixFileDescriptor, 0),
		     hipSuccess);
	hipExternalMemoryHandleDesc d = opaque_fd(fd, SIZE);

	cr_assert_eq(hipImportExternalMemory(NULL, &d), hipErrorInvalidValue);
	cr_assert_eq(hipImportExternalMemory(&ext, NULL), hipErrorInvalidValue);
	d.flags = 2;
	cr_assert_eq(hipImportExternalMemory(&ext, &d), hipErrorInvalidValue);
	d = opaque_fd(fd, 0);
	cr_assert_eq(hipImportExternalMemory(&ext, &d), hipErrorInvalidValue);
	d = opaque_fd(fd, SIZE);
	d.type = (hipExternalMemoryHandleType)0;
	cr_assert_eq(hipImportExternalMemory(&ext, &d), hipErrorInvalidValue);
	d.type = (hipExternalMemoryHandleType)42;
	cr_assert_eq(hipImportExternalMemory(&ext, &d), hipErrorInvalidValue);
	d.type = hipExternalMemoryHandleTypeOpaqueWin32;
	cr_assert_eq(hipImportExternalMemory(&ext, &d), hipErrorNotSupported);
	/* Larger than the buffer, no descriptor, not a dma-buf. */
	d = opaque_fd(fd, SIZE + 4096);
	cr_assert_eq(hipImportExternalMemory(&ext, &d), hipErrorInvalidValue);
	d = opaque_fd(-1, SIZE);
	cr_assert_eq(hipImportExternalMemory(&ext, &d), hipErrorInvalidValue);
	int p[2];
	cr_assert_eq(pipe(p), 0);
	d = opaque_fd(p[0], SIZE);
	cr_assert_eq(hipImportExternalMemory(&ext, &d), hipErrorInvalidValue);
	close(p[0]);
	close(p[1]);
	cr_assert_null(ext);

	/* A declared size smaller than the buffer bounds the mapped buffers. */
	d = opaque_fd(fd, 8192);
	cr_assert_eq(hipImportExternalMemory(&ext, &d), hipSuccess);
	hipExternalMemoryBufferDesc b = range(4096, 4096);
	cr_assert_eq(hipExternalMemoryGetMappedBuffer(&buf, ext, &b), hipSuccess);
	b = range(4096, 4097);
	cr_assert_eq(hipExternalMemoryGetMappedBuffer(&buf, ext, &b), hipErrorInvalidValue);
	b = range(8193, 0);
	cr_assert_eq(hipExternalMemoryGetMappedBuffer(&buf, ext, &b), hipErrorInvalidValue);
	b = range((unsigned long long)-4096, 8192);
	cr_assert_eq(hipExternalMemoryGetMappedBuffer(&buf, ext, &b), hipErrorInvalidValue);
	b = range(0, 4096);
	b.flags = 1;
	cr_assert_eq(hipExternalMemoryGetMappedBuffer(&buf, ext, &b), hipErrorInvalidValue);
	b.flags = 0;
	cr_assert_eq(hipExternalMemoryGetMappedBuffer(NULL, ext, &b), hipErrorInvalidValue);
	cr_assert_eq(hipExternalMemoryGetMappedBuffer(&buf, ext, NULL), hipErrorInvalidValue);
	cr_assert_eq(hipExternalMemoryGetMappedBuffer(&buf, (hipExternalMemory_t)&local, &b),
		     hipErrorInvalidValue);
	cr_assert_eq(hipDestroyExternalMemory(NULL), hipErrorInvalidValue);
	cr_assert_eq(hipDestroyExternalMemory((hipExternalMemory_t)&local), hipErrorInvalidValue);
	cr_assert_eq(hipDestroyExternalMemory(ext), hipSuccess);
	close(fd);
	vmm_unmap_free(va, SIZE, h);
}
