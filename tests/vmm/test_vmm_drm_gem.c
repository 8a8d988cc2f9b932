/* kfdsim's render-node buffer ioctls, the ones ROCr's virtual-memory API (and hipkfd's) uses:
 * PRIME_FD_TO_HANDLE of a KFD BO's dma-buf, AMDGPU_GEM_VA MAP/UNMAP of page ranges of it, and
 * GEM_CLOSE, with amdgpu's errno rules (amdgpu_gem.c amdgpu_gem_va_ioctl, amdgpu_vm.c
 * amdgpu_vm_bo_map/unmap, drm_prime.c, drm_gem.c). Raw ioctls, no runtime. */
#define _GNU_SOURCE
#include "kfd/uapi.h"   /* first: the UAPI without the raw linux/types.h */

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#define NODES "/sys/devices/virtual/kfd/kfd/topology/nodes"
#define PAGE 4096ull
#define BO_VA 0x7e0000000000ull     /* the BO's own VA (KFD) */
#define MAP_VA 0x7e0100000000ull    /* where GEM_VA maps parts of it */
#define BO_SIZE (8 * PAGE)

static int kfd = -1, render = -1, dmabuf = -1;
static uint32_t gpu_id;
static uint64_t bo;

static int kioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) == 0 ? 0 : -errno;
}

static long long node_prop(const char *name)
{
	FILE *f = fopen(NODES "/1/properties", "r");
	char key[128];
	long long v, found = -1;
	cr_assert_not_null(f);
	while (fscanf(f, "%127s %lld", key, &v) == 2)
		if (!strcmp(key, name))
			found = v;
	fclose(f);
	return found;
}

static int kfd_alloc(uint64_t va, uint64_t size, uint64_t *handle)
{
	struct kfd_ioctl_alloc_memory_of_gpu_args a = {
		.va_addr = va, .size = size, .gpu_id = gpu_id,
		.flags = KFD_IOC_ALLOC_MEM_FLAGS_VRAM | KFD_IOC_ALLOC_MEM_FLAGS_WRITABLE};
	int r = kioctl(kfd, AMDKFD_IOC_ALLOC_MEMORY_OF_GPU, &a);
	*handle = a.handle;
	return r;
}

static int kfd_free(uint64_t handle)
{
	struct kfd_ioctl_free_memory_of_gpu_args a = {.handle = handle};
	return kioctl(kfd, AMDKFD_IOC_FREE_MEMORY_OF_GPU, &a);
}

/* /dev/kfd, the render node bound with ACQUIRE_VM, and a VRAM BO exported as a dma-buf. */
static void setup(void)
{
	kfd = open("/dev/kfd", O_RDWR | O_CLOEXEC);
	cr_assert_geq(kfd, 0);
	FILE *f = fopen(NODES "/1/gpu_id", "r");
	cr_assert_not_null(f);
	cr_assert_eq(fscanf(f, "%u", &gpu_id), 1);
	fclose(f);
	char path[64];
	snprintf(path, sizeof(path), "/dev/dri/renderD%lld", node_prop("drm_render_minor"));
	render = open(path, O_RDWR | O_CLOEXEC);
	cr_assert_geq(render, 0);
	struct kfd_ioctl_acquire_vm_args vm = {.drm_fd = (uint32_t)render, .gpu_id = gpu_id};
	cr_assert_eq(kioctl(kfd, AMDKFD_IOC_ACQUIRE_VM, &vm), 0);
	cr_assert_eq(kfd_alloc(BO_VA, BO_SIZE, &bo), 0);
	struct kfd_ioctl_export_dmabuf_args ex = {.handle = bo, .flags = O_CLOEXEC | O_RDWR};
	cr_assert_eq(kioctl(kfd, AMDKFD_IOC_EXPORT_DMABUF, &ex), 0);
	dmabuf = (int)ex.dmabuf_fd;
}

static void teardown(void)
{
	close(dmabuf);
	kfd_free(bo);
	close(render);
	close(kfd);
}

static int prime_import(int fd, uint32_t *handle)
{
	struct drm_prime_handle a = {.fd = fd};
	int r = kioctl(render, DRM_IOCTL_PRIME_FD_TO_HANDLE, &a);
	*handle = a.handle;
	return r;
}

static int gem_va(uint32_t handle, uint32_t op, uint32_t flags, uint64_t va, uint64_t off,
		  uint64_t size)
{
	struct drm_amdgpu_gem_va a = {.handle = handle, .operation = op, .flags = flags,
				      .va_address = va, .offset_in_bo = off, .map_size = size};
	return kioctl(render, DRM_IOCTL_AMDGPU_GEM_VA, &a);
}

static int gem_close(uint32_t handle)
{
	struct drm_gem_close a = {.handle = handle};
	return kioctl(render, DRM_IOCTL_GEM_CLOSE, &a);
}

#define RW (AMDGPU_VM_PAGE_READABLE | AMDGPU_VM_PAGE_WRITEABLE)

TestSuite(vmm_drm_gem, .init = setup, .fini = teardown);

Test(vmm_drm_gem, prime_import_gives_one_handle_per_buffer)
{
	uint32_t h1 = 0, h2 = 0, h3 = 0;
	cr_assert_eq(prime_import(dmabuf, &h1), 0);
	cr_assert_neq(h1, 0);
	cr_assert_eq(prime_import(dmabuf, &h2), 0);
	cr_assert_eq(h2, h1);
	/* A duplicate descriptor is the same buffer. */
	int dup_fd = dup(dmabuf);
	cr_assert_eq(prime_import(dup_fd, &h3), 0);
	cr_assert_eq(h3, h1);
	close(dup_fd);
	/* Not a dma-buf. */
	int p[2];
	cr_assert_eq(pipe(p), 0);
	cr_assert_eq(prime_import(p[0], &h3), -EINVAL);
	close(p[0]);
	close(p[1]);
	cr_assert_eq(gem_close(h1), 0);
	cr_assert_eq(gem_close(h1), -EINVAL);
}

Test(vmm_drm_gem, map_checks)
{
	uint32_t h = 0;
	cr_assert_eq(prime_import(dmabuf, &h), 0);
	/* amdgpu_gem_va_ioctl: reserved bottom, the hole, unknown flags and operations, handle. */
	cr_assert_eq(gem_va(h, AMDGPU_VA_OP_MAP, RW, 0x1000, 0, PAGE), -EINVAL);
	cr_assert_eq(gem_va(h, AMDGPU_VA_OP_MAP, RW, 1ull << 47, 0, PAGE), -EINVAL);
	cr_assert_eq(gem_va(h, AMDGPU_VA_OP_MAP, RW | AMDGPU_VM_PAGE_PRT, MAP_VA, 0, PAGE), -EINVAL);
	cr_assert_eq(gem_va(h, 9, RW, MAP_VA, 0, PAGE), -EINVAL);
	cr_assert_eq(gem_va(h + 100, AMDGPU_VA_OP_MAP, RW, MAP_VA, 0, PAGE), -ENOENT);
	/* amdgpu_vm_bo_map: alignment, inside the BO, no wrap. */
	cr_assert_eq(gem_va(h, AMDGPU_VA_OP_MAP, RW, MAP_VA + 8, 0, PAGE), -EINVAL);
	cr_assert_eq(gem_va(h, AMDGPU_VA_OP_MAP, RW, MAP_VA, 100, PAGE), -EINVAL);
	cr_assert_eq(gem_va(h, AMDGPU_VA_OP_MAP, RW, MAP_VA, 0, PAGE + 1), -EINVAL);
	cr_assert_eq(gem_va(h, AMDGPU_VA_OP_MAP, RW, MAP_VA, 4 * PAGE, 5 * PAGE), -EINVAL);
	cr_assert_eq(gem_va(h, AMDGPU_VA_OP_MAP, RW, MAP_VA, 0, 0), -EINVAL);
	/* A page range of the BO, then an overlapping second mapping. */
	cr_assert_eq(gem_va(h, AMDGPU_VA_OP_MAP, RW, MAP_VA, 2 * PAGE, 3 * PAGE), 0);
	cr_assert_eq(gem_va(h, AMDGPU_VA_OP_MAP, RW, MAP_VA + 2 * PAGE, 0, PAGE), -EINVAL);
	cr_assert_eq(gem_va(h, AMDGPU_VA_OP_MAP, AMDGPU_VM_PAGE_READABLE, MAP_VA + 3 * PAGE, 0, PAGE), 0);
	/* Unmapping needs the start of a mapping of that BO. */
	cr_assert_eq(gem_va(h, AMDGPU_VA_OP_UNMAP, 0, MAP_VA + PAGE, 0, PAGE), -ENOENT);
	cr_assert_eq(gem_va(h, AMDGPU_VA_OP_UNMAP, 0, MAP_VA, 0, 3 * PAGE), 0);
	cr_assert_eq(gem_va(h, AMDGPU_VA_OP_UNMAP, 0, MAP_VA, 0, 3 * PAGE), -ENOENT);
	/* Closing the handle drops its remaining mapping: the range is free again. */
	cr_assert_eq(gem_close(h), 0);
	cr_assert_eq(prime_import(dmabuf, &h), 0);
	cr_assert_eq(gem_va(h, AMDGPU_VA_OP_MAP, RW, MAP_VA, 0, 4 * PAGE), 0);
	cr_assert_eq(gem_close(h), 0);
	cr_assert_eq(gem_va(h, AMDGPU_VA_OP_MAP, RW, MAP_VA, 0, PAGE), -ENOENT);
}

/* The mapping lives in the VM KFD acquired: a KFD BO may not be placed over it. */
Test(vmm_drm_gem, mappings_share_the_kfd_vm)
{
	uint32_t h = 0;
	uint64_t other = 0;
	cr_assert_eq(prime_import(dmabuf, &h), 0);
	cr_assert_eq(gem_va(h, AMDGPU_VA_OP_MAP, RW, MAP_VA, PAGE, 2 * PAGE), 0);
	cr_assert_eq(kfd_alloc(MAP_VA + PAGE, PAGE, &other), -EINVAL);
	/* ...nor over the KFD BO's own range. */
	cr_assert_eq(gem_va(h, AMDGPU_VA_OP_MAP, RW, BO_VA, 0, PAGE), -EINVAL);
	cr_assert_eq(gem_va(h, AMDGPU_VA_OP_UNMAP, 0, MAP_VA, 0, 2 * PAGE), 0);
	cr_assert_eq(kfd_alloc(MAP_VA + PAGE, PAGE, &other), 0);
	cr_assert_eq(kfd_free(other), 0);
	cr_assert_eq(gem_close(h), 0);
}

/* The dma-buf's CPU view at an offset is the same memory (what a partial hipMemMap relies on). */
Test(vmm_drm_gem, dmabuf_mmap_at_an_offset)
{
	unsigned char *whole = mmap(NULL, BO_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, dmabuf, 0);
	unsigned char *part = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, dmabuf, 3 * PAGE);
	cr_assert_neq(whole, MAP_FAILED);
	cr_assert_neq(part, MAP_FAILED);
	whole[3 * PAGE + 5] = 0x5e;
	cr_assert_eq(part[5], 0x5e);
	part[PAGE] = 0x6f;
	cr_assert_eq(whole[4 * PAGE], 0x6f);
	munmap(part, 2 * PAGE);
	munmap(whole, BO_SIZE);
}

/* GEM handles belong to one open render file (drm_file): another file of the same GPU has its
 * own, and closing it drops them. */
Test(vmm_drm_gem, handles_are_per_file)
{
	char path[64];
	uint32_t h1 = 0, h2 = 0;
	snprintf(path, sizeof(path), "/dev/dri/renderD%lld", node_prop("drm_render_minor"));
	int other = open(path, O_RDWR | O_CLOEXEC);
	cr_assert_geq(other, 0);
	struct drm_prime_handle a = {.fd = dmabuf};
	cr_assert_eq(kioctl(other, DRM_IOCTL_PRIME_FD_TO_HANDLE, &a), 0);
	h2 = a.handle;
	cr_assert_eq(prime_import(dmabuf, &h1), 0);
	cr_assert_neq(h1, h2);
	/* The other file's handle means nothing here. */
	cr_assert_eq(gem_va(h2, AMDGPU_VA_OP_MAP, RW, MAP_VA, 0, PAGE), -ENOENT);
	struct drm_amdgpu_gem_va va = {.handle = h2, .operation = AMDGPU_VA_OP_MAP, .flags = RW,
				       .va_address = MAP_VA, .map_size = PAGE};
	cr_assert_eq(kioctl(other, DRM_IOCTL_AMDGPU_GEM_VA, &va), 0);
	cr_assert_eq(close(other), 0);
	/* The VM KFD uses never saw the other file's mapping. */
	cr_assert_eq(gem_va(h1, AMDGPU_VA_OP_MAP, RW, MAP_VA, 0, PAGE), 0);
	cr_assert_eq(gem_close(h1), 0);
}
