/* Without a usable libdrm_amdgpu (a stub library stands in for it: see CMakeLists.txt) the
 * runtime keeps its KFD-only path silently: names and clocks from the topology, free memory from
 * KFD, external memory through the raw PRIME ioctl. */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <hip/hip_runtime_api.h>

#include "kfd/drm_device.h"
#include "kfd/kfd.h"

Test(device_drm_absent, kfd_only_path)
{
	hipDeviceProp_t p;
	struct kfd_drm_facts f;
	size_t free_bytes = 0, total = 0;

	cr_assert_eq(hipGetDeviceProperties(&p, 0), hipSuccess);
	cr_assert_eq(kfd_drm_facts(kfd_gpu(0), &f), -ENODEV);
	cr_assert_str_eq(p.name, "AMD Instinct MI210");      /* the topology's table */
	cr_assert_eq(p.clockRate, 1700000);
	cr_assert_eq(p.memoryClockRate, 1600000);
	cr_assert_eq(hipMemGetInfo(&free_bytes, &total), hipSuccess);
	cr_assert_eq(total, 68702699520ull);
	cr_assert_gt(free_bytes, 0);
	struct kfd_drm_heaps h;
	cr_assert_eq(kfd_drm_heaps(kfd_gpu_state(kfd_gpu(0)), &h), -ENODEV);
}

Test(device_drm_absent, external_memory_through_prime)
{
	const size_t size = 1u << 20;
	static unsigned char out[1u << 20];
	void *d = NULL, *buf = NULL;
	hipExternalMemory_t ext = NULL;
	int fd = -1;

	cr_assert_eq(hipMalloc(&d, size), hipSuccess);
	cr_assert_eq(hipMemset(d, 0x6c, size), hipSuccess);
	cr_assert_eq(hipMemGetHandleForAddressRange(&fd, d, size, hipMemRangeHandleTypeDmaBufFd, 0),
		     hipSuccess);
	hipExternalMemoryHandleDesc desc;
	memset(&desc, 0, sizeof(desc));
	desc.type = hipExternalMemoryHandleTypeOpaqueFd;
	desc.handle.fd = fd;
	desc.size = size;
	cr_assert_eq(hipImportExternalMemory(&ext, &desc), hipSuccess);
	hipExternalMemoryBufferDesc b;
	memset(&b, 0, sizeof(b));
	b.size = size;
	cr_assert_eq(hipExternalMemoryGetMappedBuffer(&buf, ext, &b), hipSuccess);
	cr_assert_eq(hipMemcpy(out, buf, size, hipMemcpyDeviceToHost), hipSuccess);
	for (size_t i = 0; i < size; i++)
		cr_assert_eq(out[i], 0x6c, "byte %zu", i);
	cr_assert_eq(kfd_drm_stat_imports(), 0);
	cr_assert_eq(hipDestroyExternalMemory(ext), hipSuccess);
	close(fd);
	cr_assert_eq(hipFree(d), hipSuccess);
}
