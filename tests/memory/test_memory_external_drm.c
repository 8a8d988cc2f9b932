/* External memory imported through libdrm_amdgpu (amdgpu_bo_import of the dma-buf on the GPU's
 * render file, src/kfd/drm_device.c): the import goes that way, the data arrives, the same
 * buffer imported twice shares one GEM handle, and after both are destroyed a different buffer
 * that the kernel may give the same handle number is seen with its own size and contents. */
#include <criterion/criterion.h>
#include <string.h>
#include <unistd.h>

#include <hip/hip_runtime_api.h>

#include "kfd/drm_device.h"

static hipExternalMemory_t import_fd(int fd, size_t size)
{
	hipExternalMemoryHandleDesc d;
	hipExternalMemory_t ext = NULL;
	memset(&d, 0, sizeof(d));
	d.type = hipExternalMemoryHandleTypeOpaqueFd;
	d.handle.fd = fd;
	d.size = size;
	cr_assert_eq(hipImportExternalMemory(&ext, &d), hipSuccess);
	return ext;
}

static void *buffer(hipExternalMemory_t ext, size_t size)
{
	hipExternalMemoryBufferDesc b;
	void *p = NULL;
	memset(&b, 0, sizeof(b));
	b.size = size;
	cr_assert_eq(hipExternalMemoryGetMappedBuffer(&p, ext, &b), hipSuccess);
	return p;
}

/* A device allocation filled with [in] byte, shared as a dma-buf. */
static void *shared_alloc(size_t size, int byte, int *fd)
{
	void *d = NULL;
	cr_assert_eq(hipMalloc(&d, size), hipSuccess);
	cr_assert_eq(hipMemset(d, byte, size), hipSuccess);
	cr_assert_eq(hipDeviceSynchronize(), hipSuccess);
	cr_assert_eq(hipMemGetHandleForAddressRange(fd, d, size, hipMemRangeHandleTypeDmaBufFd, 0),
		     hipSuccess);
	return d;
}

static void expect_bytes(void *p, size_t size, int byte)
{
	static unsigned char out[1u << 20];
	cr_assert_leq(size, sizeof(out));
	cr_assert_eq(hipMemcpy(out, p, size, hipMemcpyDeviceToHost), hipSuccess);
	for (size_t i = 0; i < size; i++)
		cr_assert_eq(out[i], byte, "byte %zu is 0x%x", i, out[i]);
}

Test(memory_external_drm, import_goes_through_libdrm)
{
	const size_t size = 1u << 20;
	int fd = -1;

	void *d = shared_alloc(size, 0x5a, &fd);
	uint64_t before = kfd_drm_stat_imports();
	hipExternalMemory_t ext = import_fd(fd, size);
	/* (at least once: the runtime imports to check the descriptor, then again to map) */
	cr_assert_gt(kfd_drm_stat_imports(), before, "amdgpu_bo_import was not used");
	void *p = buffer(ext, size);
	expect_bytes(p, size, 0x5a);
	/* Written through the import, seen in the original allocation. */
	cr_assert_eq(hipMemset(p, 0x21, size), hipSuccess);
	expect_bytes(d, size, 0x21);
	cr_assert_eq(hipDestroyExternalMemory(ext), hipSuccess);
	close(fd);
	cr_assert_eq(hipFree(d), hipSuccess);
}

Test(memory_external_drm, handles_are_released_with_the_last_import)
{
	const size_t small = 64u << 10, large = 1u << 20;
	int fd = -1, fd2 = -1;

	void *d = shared_alloc(small, 0x11, &fd);
	hipExternalMemory_t a = import_fd(fd, small), b = import_fd(fd, small);
	expect_bytes(buffer(a, small), small, 0x11);
	expect_bytes(buffer(b, small), small, 0x11);
	cr_assert_eq(hipDestroyExternalMemory(a), hipSuccess);
	expect_bytes(buffer(b, small), small, 0x11); /* the other import still maps it */
	cr_assert_eq(hipDestroyExternalMemory(b), hipSuccess);
	close(fd);
	cr_assert_eq(hipFree(d), hipSuccess);

	/* A new buffer, larger: libdrm must not hand back the old object for a reused handle. */
	void *d2 = shared_alloc(large, 0x77, &fd2);
	hipExternalMemory_t c = import_fd(fd2, large);
	expect_bytes(buffer(c, large), large, 0x77);
	cr_assert_eq(hipDestroyExternalMemory(c), hipSuccess);
	close(fd2);
	cr_assert_eq(hipFree(d2), hipSuccess);
}
