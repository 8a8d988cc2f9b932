/* Managed and system memory at the edges AMD's runtime accepts: a managed allocation of the
 * device's whole free memory (one byte more is hipErrorOutOfMemory), a prefetch of a range that is neither page-aligned nor page-sized,
 * and hints on plain system memory (aligned_alloc) under HMM. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <hip/hip_runtime_api.h>

static int range_int(void *p, size_t n, hipMemRangeAttribute a)
{
	int v = 12345;
	cr_assert_eq(hipMemRangeGetAttribute(&v, sizeof(v), a, p, n), hipSuccess);
	return v;
}

/* Managed memory is not limited by host RAM or by what is free on the device at allocation time:
 * pages appear when touched. Both ends are usable. */
Test(managed_edges, whole_free_device_memory)
{
	size_t free_b = 0, total = 0;
	cr_assert_eq(hipMemGetInfo(&free_b, &total), hipSuccess);
	unsigned char *m = NULL;
	cr_assert_eq(hipMallocManaged((void **)&m, free_b, hipMemAttachGlobal), hipSuccess);
	cr_assert_not_null(m);
	m[0] = 0x11;
	m[free_b - 1] = 0x22;
	cr_expect_eq(m[0], 0x11);
	cr_expect_eq(m[free_b - 1], 0x22);
	cr_assert_eq(hipFree(m), hipSuccess);
}

/* One byte more than the device has free is refused, as AMD's runtime does, and the output is
 * left alone. */
Test(managed_edges, more_than_free_device_memory)
{
	size_t free_b = 0, total = 0;
	cr_assert_eq(hipMemGetInfo(&free_b, &total), hipSuccess);
	void *m = (void *)0x5151;
	cr_expect_eq(hipMallocManaged(&m, free_b + 1, hipMemAttachGlobal), hipErrorOutOfMemory);
	cr_expect_eq(hipMallocManaged(&m, total + 4096, hipMemAttachHost), hipErrorOutOfMemory);
	cr_expect_eq(m, (void *)0x5151);
	size_t after = 0;
	cr_assert_eq(hipMemGetInfo(&after, &total), hipSuccess);
	cr_expect_eq(after, free_b);
}

/* A prefetch covers the pages the range touches; the bytes around it are unchanged and the
 * whole of each touched page reports the new location. */
Test(managed_edges, prefetch_unaligned_range)
{
	enum { N = 5 * 4096 };
	unsigned char *m = NULL;
	cr_assert_eq(hipMallocManaged((void **)&m, N, hipMemAttachGlobal), hipSuccess);
	for (unsigned i = 0; i < N; i++)
		m[i] = (unsigned char)(i * 13);
	/* bytes 100 .. 5100: inside pages 0 and 1 */
	cr_assert_eq(hipMemPrefetchAsync(m + 100, 5000, 0, NULL), hipSuccess);
	cr_assert_eq(hipStreamSynchronize(NULL), hipSuccess);
	cr_expect_eq(range_int(m, 2 * 4096, hipMemRangeAttributeLastPrefetchLocation), 0);
	cr_assert_eq(hipMemPrefetchAsync(m + 4097, 3, hipCpuDeviceId, NULL), hipSuccess);
	cr_assert_eq(hipStreamSynchronize(NULL), hipSuccess);
	cr_expect_eq(range_int(m + 4096, 4096, hipMemRangeAttributeLastPrefetchLocation),
		     hipCpuDeviceId);
	for (unsigned i = 0; i < N; i++)
		cr_assert_eq(m[i], (unsigned char)(i * 13), "byte %u", i);
	/* past the end of the allocation */
	cr_expect_eq(hipMemPrefetchAsync(m + 100, N, 0, NULL), hipErrorInvalidValue);
	cr_assert_eq(hipFree(m), hipSuccess);
}

/* Under HMM the SVM hints apply to system memory too: the preferred location set on
 * aligned_alloc memory reads back, for the device and for the CPU. */
Test(managed_edges, advise_aligned_alloc_memory)
{
	enum { N = 4 * 4096 };
	unsigned char *h = aligned_alloc(4096, N);
	cr_assert_not_null(h);
	memset(h, 0x5a, N);
	cr_assert_eq(hipMemAdvise(h, N, hipMemAdviseSetPreferredLocation, 0), hipSuccess);
	cr_expect_eq(range_int(h, N, hipMemRangeAttributePreferredLocation), 0);
	cr_assert_eq(hipMemAdvise(h, N, hipMemAdviseSetPreferredLocation, hipCpuDeviceId),
		     hipSuccess);
	cr_expect_eq(range_int(h, N, hipMemRangeAttributePreferredLocation), hipCpuDeviceId);
	cr_assert_eq(hipMemAdvise(h, N, hipMemAdviseUnsetPreferredLocation, 0), hipSuccess);
	cr_expect_eq(hipMemAdvise(h, N, hipMemAdviseSetPreferredLocation, 99), hipErrorInvalidDevice);
	for (unsigned i = 0; i < N; i++)
		cr_assert_eq(h[i], 0x5a);
	free(h);
}

/* A range with a hole is no memory of the process: refused, not passed to the kernel. */
Test(managed_edges, advise_unmapped_memory)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned char *p = mmap(NULL, 3 * (size_t)page, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	cr_assert_neq(p, MAP_FAILED);
	cr_assert_eq(munmap(p + page, (size_t)page), 0);
	cr_expect_eq(hipMemAdvise(p, 3 * (size_t)page, hipMemAdviseSetPreferredLocation, 0),
		     hipErrorInvalidValue);
	cr_expect_eq(hipMemAdvise(p, (size_t)page, hipMemAdviseSetPreferredLocation, 0), hipSuccess);
	munmap(p, (size_t)page);
	munmap(p + 2 * page, (size_t)page);
	/* a device allocation is not managed memory */
	void *d = NULL;
	cr_assert_eq(hipMalloc(&d, 4096), hipSuccess);
	cr_expect_eq(hipMemAdvise(d, 4096, hipMemAdviseSetPreferredLocation, 0), hipErrorInvalidValue);
	cr_assert_eq(hipFree(d), hipSuccess);
}
