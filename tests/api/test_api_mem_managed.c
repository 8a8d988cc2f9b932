/* Managed-memory hints: argument order of hipMemAdvise, and a prefetch on an idle stream being
 * visible to hipMemRangeGetAttribute at once. */
#include <criterion/criterion.h>
#include <stdint.h>

#include <hip/hip_runtime_api.h>

/* An unknown advice is hipErrorInvalidValue whatever the device argument is (clr checks the
 * advice first; hip-tests Unit_hipMemAdvise_Negative_Parameters). */
Test(mem_managed, unknown_advice_before_device)
{
	void *m = NULL;
	cr_assert_eq(hipMallocManaged(&m, 4096, hipMemAttachGlobal), hipSuccess);
	cr_assert_eq(hipMemAdvise(m, 4096, (hipMemoryAdvise)-1, 0), hipErrorInvalidValue);
	cr_assert_eq(hipMemAdvise(m, 4096, (hipMemoryAdvise)-1, 12345), hipErrorInvalidValue);
	cr_assert_eq(hipMemAdvise(m, 4096, (hipMemoryAdvise)7, 0), hipErrorInvalidValue,
		     "between the location advices and the coarse-grain ones");
	cr_assert_eq(hipMemAdvise(m, 4096, hipMemAdviseSetPreferredLocation, 12345),
		     hipErrorInvalidDevice, "a known advice with a bad device");
	cr_assert_eq(hipMemAdvise(m, 4096, hipMemAdviseSetReadMostly, 0), hipSuccess);
	int rm = 0;
	cr_assert_eq(hipMemRangeGetAttribute(&rm, sizeof(rm), hipMemRangeAttributeReadMostly, m, 4096),
		     hipSuccess);
	cr_assert_eq(rm, 1);
	cr_assert_eq(hipFree(m), hipSuccess);
}

/* The last prefetch location reads back right after hipMemPrefetchAsync on an idle stream: no
 * synchronisation is needed (clr's behaviour, hip-tests
 * Unit_hipMemRangeGetAttribute_Positive_LastPrefetchLocation_Basic). */
Test(mem_managed, prefetch_on_idle_stream_is_visible)
{
	void *m = NULL;
	cr_assert_eq(hipMallocManaged(&m, 8192, hipMemAttachGlobal), hipSuccess);
	int loc = 99;
	cr_assert_eq(hipMemRangeGetAttribute(&loc, sizeof(loc),
					     hipMemRangeAttributeLastPrefetchLocation, m, 8192),
		     hipSuccess);
	cr_assert_eq(loc, hipInvalidDeviceId, "never prefetched");
	cr_assert_eq(hipMemPrefetchAsync(m, 8192, 0, NULL), hipSuccess);
	cr_assert_eq(hipMemRangeGetAttribute(&loc, sizeof(loc),
					     hipMemRangeAttributeLastPrefetchLocation, m, 8192),
		     hipSuccess);
	cr_assert_eq(loc, 0);
	hipStream_t s;
	cr_assert_eq(hipStreamCreate(&s), hipSuccess);
	cr_assert_eq(hipMemPrefetchAsync(m, 8192, hipCpuDeviceId, s), hipSuccess);
	cr_assert_eq(hipMemRangeGetAttribute(&loc, sizeof(loc),
					     hipMemRangeAttributeLastPrefetchLocation, m, 8192),
		     hipSuccess);
	cr_assert_eq(loc, hipCpuDeviceId);
	cr_assert_eq(hipStreamDestroy(s), hipSuccess);
	cr_assert_eq(hipFree(m), hipSuccess);
}

/* The coherency mode of memory that is not managed comes from its kind (clr answers it for
 * hipMalloc memory, hip-tests Unit_hipMalloc_CoherentTst); other attributes stay managed-only. */
Test(mem_managed, coherency_of_other_memory)
{
	void *d = NULL, *fine = NULL, *h = NULL, *hn = NULL;
	int mode = -1;
	cr_assert_eq(hipMalloc(&d, 64), hipSuccess);
	cr_assert_eq(hipMemRangeGetAttribute(&mode, sizeof(mode), hipMemRangeAttributeCoherencyMode,
					     d, 64), hipSuccess);
	cr_assert_eq(mode, hipMemRangeCoherencyModeCoarseGrain);
	cr_assert_eq(hipExtMallocWithFlags(&fine, 64, hipDeviceMallocFinegrained), hipSuccess);
	cr_assert_eq(hipMemRangeGetAttribute(&mode, sizeof(mode), hipMemRangeAttributeCoherencyMode,
					     fine, 64), hipSuccess);
	cr_assert_eq(mode, hipMemRangeCoherencyModeFineGrain);
	cr_assert_eq(hipHostMalloc(&h, 64, hipHostMallocCoherent), hipSuccess);
	cr_assert_eq(hipMemRangeGetAttribute(&mode, sizeof(mode), hipMemRangeAttributeCoherencyMode,
					     h, 64), hipSuccess);
	cr_assert_eq(mode, hipMemRangeCoherencyModeFineGrain);
	cr_assert_eq(hipHostMalloc(&hn, 64, hipHostMallocNonCoherent), hipSuccess);
	cr_assert_eq(hipMemRangeGetAttribute(&mode, sizeof(mode), hipMemRangeAttributeCoherencyMode,
					     hn, 64), hipSuccess);
	cr_assert_eq(mode, hipMemRangeCoherencyModeCoarseGrain);
	cr_assert_eq(hipMemRangeGetAttribute(&mode, sizeof(mode), hipMemRangeAttributeCoherencyMode,
					     d, 65), hipErrorInvalidValue, "past the allocation");
	cr_assert_eq(hipMemRangeGetAttribute(&mode, sizeof(mode), hipMemRangeAttributeReadMostly,
					     d, 64), hipErrorInvalidValue, "managed memory only");
	int local;
	cr_assert_eq(hipMemRangeGetAttribute(&mode, sizeof(mode), hipMemRangeAttributeCoherencyMode,
					     &local, 4), hipErrorInvalidValue);
	cr_assert_eq(hipFree(d), hipSuccess);
	cr_assert_eq(hipFree(fine), hipSuccess);
	cr_assert_eq(hipHostFree(h), hipSuccess);
	cr_assert_eq(hipHostFree(hn), hipSuccess);
}

/* hipStreamAttachMemAsync: attaching to a single stream cannot name the null stream (CUDA's
 * rule, hip-tests Unit_hipStreamAttachMemAsync_Negative_Parameters); other streams accept it. */
Test(mem_managed, attach_single_not_to_null_stream)
{
	void *m = NULL;
	hipStream_t s;
	cr_assert_eq(hipMallocManaged(&m, 4096, hipMemAttachGlobal), hipSuccess);
	cr_assert_eq(hipStreamCreate(&s), hipSuccess);
	cr_assert_eq(hipStreamAttachMemAsync(NULL, m, 0, hipMemAttachSingle), hipErrorInvalidValue);
	cr_assert_eq(hipStreamAttachMemAsync(hipStreamLegacy, m, 0, hipMemAttachSingle),
		     hipErrorInvalidValue);
	cr_assert_eq(hipStreamAttachMemAsync(s, m, 0, hipMemAttachSingle), hipSuccess);
	cr_assert_eq(hipStreamAttachMemAsync(NULL, m, 0, hipMemAttachGlobal), hipSuccess);
	cr_assert_eq(hipStreamAttachMemAsync(s, m, 4096, hipMemAttachHost), hipSuccess);
	cr_assert_eq(hipStreamAttachMemAsync(s, m, 100, hipMemAttachHost), hipErrorInvalidValue);
	cr_assert_eq(hipStreamDestroy(s), hipSuccess);
	cr_assert_eq(hipFree(m), hipSuccess);
}
