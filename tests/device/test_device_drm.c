/* The render node as a libdrm_amdgpu device (src/kfd/drm_device.c): the marketing name, the
 * clocks, VRAM and GTT usage it reports agree with the kfdsim profile (gfx90a: an MI210, which
 * libdrm's amdgpu.ids names) and with what the HIP API reports, and the usage follows
 * allocations. Values of the profile: sim/profiles/profiles.c. */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include <hip/hip_runtime_api.h>

#include "kfd/drm_device.h"
#include "kfd/kfd.h"

#define MI210_NAME "AMD Instinct MI210"
#define MI210_SCLK_KHZ 1700000u
#define MI210_MCLK_KHZ 1600000u
#define MI210_VRAM 68702699520ull

static struct kfd_gpu *gpu0(void)
{
	cr_assert_eq(hipSetDevice(0), hipSuccess);
	cr_assert_eq(hipFree(NULL), hipSuccess); /* opens the device */
	struct kfd_gpu *g = kfd_gpu_state(kfd_gpu(0));
	cr_assert_not_null(g);
	return g;
}

Test(device_drm, name_and_clocks_from_libdrm)
{
	struct kfd_drm_facts f;
	hipDeviceProp_t p;
	char name[256];

	gpu0();
	cr_assert_eq(kfd_drm_facts(kfd_gpu(0), &f), 0, "libdrm_amdgpu did not open the device");
	cr_assert_str_eq(f.marketing_name, MI210_NAME);
	cr_assert_eq(f.max_engine_clock_khz, MI210_SCLK_KHZ);
	cr_assert_eq(f.max_memory_clock_khz, MI210_MCLK_KHZ);

	cr_assert_eq(hipGetDeviceProperties(&p, 0), hipSuccess);
	cr_assert_str_eq(p.name, MI210_NAME);
	cr_assert_eq(p.clockRate, (int)MI210_SCLK_KHZ);
	cr_assert_eq(p.memoryClockRate, (int)MI210_MCLK_KHZ);
	cr_assert_eq(hipDeviceGetName(name, sizeof(name), 0), hipSuccess);
	cr_assert_str_eq(name, MI210_NAME);
	cr_assert_eq(kfd_drm_facts(NULL, &f), -EINVAL);
}

Test(device_drm, vram_usage_follows_allocations)
{
	struct kfd_drm_heaps before, after, freed;
	size_t free0 = 0, total = 0, free1 = 0;
	const size_t size = 256u << 20;
	void *p = NULL;

	struct kfd_gpu *g = gpu0();
	cr_assert_eq(kfd_drm_heaps(g, &before), 0);
	cr_assert_eq(before.vram_size, MI210_VRAM);
	cr_assert_leq(before.vram_used, before.vram_size);
	cr_assert_eq(hipMemGetInfo(&free0, &total), hipSuccess);
	cr_assert_eq(total, MI210_VRAM);

	cr_assert_eq(hipMalloc(&p, size), hipSuccess);
	cr_assert_eq(kfd_drm_heaps(g, &after), 0);
	cr_assert_geq(after.vram_used, before.vram_used + size,
		      "VRAM usage %llu -> %llu after a 256 MiB hipMalloc",
		      (unsigned long long)before.vram_used, (unsigned long long)after.vram_used);
	cr_assert_eq(hipMemGetInfo(&free1, &total), hipSuccess);
	cr_assert_leq(free1 + size, free0);
	/* The KFD side agrees: free memory is the DRM driver's size minus its usage. */
	cr_assert_eq(free1, after.vram_size - after.vram_used);

	cr_assert_eq(hipFree(p), hipSuccess);
	cr_assert_eq(hipDeviceSynchronize(), hipSuccess);
	cr_assert_eq(kfd_drm_heaps(g, &freed), 0);
	cr_assert_leq(freed.vram_used, after.vram_used);
}

Test(device_drm, gtt_usage_follows_pinned_host_memory)
{
	struct kfd_drm_heaps before, after;
	const size_t size = 8u << 20;
	void *h = NULL;

	struct kfd_gpu *g = gpu0();
	cr_assert_eq(kfd_drm_heaps(g, &before), 0);
	cr_assert_gt(before.gtt_size, 0);
	cr_assert_eq(hipHostMalloc(&h, size, hipHostMallocDefault), hipSuccess);
	cr_assert_eq(kfd_drm_heaps(g, &after), 0);
	cr_assert_geq(after.gtt_used, before.gtt_used + size);
	cr_assert_eq(hipHostFree(h), hipSuccess);
}

/* (gfx942 run: see CMakeLists.txt) An id that libdrm's amdgpu.ids lacks keeps the topology's
 * board name instead of libdrm's generic "AMD Radeon Graphics". */
Test(device_drm, unknown_board_keeps_the_topology_name)
{
	hipDeviceProp_t p;
	struct kfd_drm_facts f;

	gpu0();
	cr_assert_eq(kfd_drm_facts(kfd_gpu(0), &f), 0);
	cr_assert_eq(hipGetDeviceProperties(&p, 0), hipSuccess);
	if (kfd_gpu(0)->device_id == 0x74a1) {
		cr_assert_str_empty(f.marketing_name);
		cr_assert_str_eq(p.name, "AMD Instinct MI300X");
	} else {
		cr_assert_str_eq(p.name, f.marketing_name);
	}
}
