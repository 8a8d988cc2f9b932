/* Managed-memory hints through KFD SVM attributes: advice read back with hipMemRangeGetAttribute,
 * prefetch in stream order, stream attachment, and errors for memory that is not managed. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <hip/hip_runtime_api.h>

#define SIZE (64u << 10)

static int attr_int(void *p, size_t n, hipMemRangeAttribute a)
{
	int v = 12345;
	cr_assert_eq(hipMemRangeGetAttribute(&v, sizeof(v), a, p, n), hipSuccess);
	return v;
}

Test(managed, read_mostly_and_coarse_grain)
{
	void *m = NULL;

	cr_assert_eq(hipMallocManaged(&m, SIZE, hipMemAttachGlobal), hipSuccess);
	cr_assert_eq(attr_int(m, SIZE, hipMemRangeAttributeReadMostly), 0);
	cr_assert_eq(attr_int(m, SIZE, hipMemRangeAttributeCoherencyMode),
		     hipMemRangeCoherencyModeFineGrain);
	cr_assert_eq(hipMemAdvise(m, SIZE, hipMemAdviseSetReadMostly, 0), hipSuccess);
	cr_assert_eq(attr_int(m, SIZE, hipMemRangeAttributeReadMostly), 1);
	cr_assert_eq(hipMemAdvise(m, SIZE, hipMemAdviseUnsetReadMostly, 0), hipSuccess);
	cr_assert_eq(attr_int(m, SIZE, hipMemRangeAttributeReadMostly), 0);
	/* Half the range coarse-grained: the whole is indeterminate, each half is definite. */
	cr_assert_eq(hipMemAdvise(m, SIZE / 2, hipMemAdviseSetCoarseGrain, 0), hipSuccess);
	cr_assert_eq(attr_int(m, SIZE / 2, hipMemRangeAttributeCoherencyMode),
		     hipMemRangeCoherencyModeCoarseGrain);
	cr_assert_eq(attr_int((char *)m + SIZE / 2, SIZE / 2, hipMemRangeAttributeCoherencyMode),
		     hipMemRangeCoherencyModeFineGrain);
	cr_assert_eq(attr_int(m, SIZE, hipMemRangeAttributeCoherencyMode),
		     hipMemRangeCoherencyModeIndeterminate);
	cr_assert_eq(hipMemAdvise(m, SIZE / 2, hipMemAdviseUnsetCoarseGrain, 0), hipSuccess);
	cr_assert_eq(attr_int(m, SIZE, hipMemRangeAttributeCoherencyMode),
		     hipMemRangeCoherencyModeFineGrain);
	cr_assert_eq(hipFree(m), hipSuccess);
}

Test(managed, preferred_location_and_accessed_by)
{
	void *m = NULL;
	int by[3];

	cr_assert_eq(hipMallocManaged(&m, SIZE, hipMemAttachGlobal), hipSuccess);
	cr_assert_eq(attr_int(m, SIZE, hipMemRangeAttributePreferredLocation), hipInvalidDeviceId);
	cr_assert_eq(hipMemAdvise(m, SIZE, hipMemAdviseSetPreferredLocation, 0), hipSuccess);
	cr_assert_eq(attr_int(m, SIZE, hipMemRangeAttributePreferredLocation), 0);
	cr_assert_eq(hipMemAdvise(m, SIZE, hipMemAdviseSetPreferredLocation, hipCpuDeviceId),
		     hipSuccess);
	cr_assert_eq(attr_int(m, SIZE, hipMemRangeAttributePreferredLocation), hipCpuDeviceId);
	hipMemLocation loc = {hipMemLocationTypeDevice, 0};
	cr_assert_eq(hipMemAdvise_v2(m, SIZE, hipMemAdviseSetPreferredLocation, loc), hipSuccess);
	cr_assert_eq(attr_int(m, SIZE, hipMemRangeAttributePreferredLocation), 0);
	cr_assert_eq(hipMemAdvise(m, SIZE, hipMemAdviseUnsetPreferredLocation, 0), hipSuccess);
	cr_assert_eq(attr_int(m, SIZE, hipMemRangeAttributePreferredLocation), hipInvalidDeviceId);

	cr_assert_eq(hipMemAdvise(m, SIZE, hipMemAdviseSetAccessedBy, 0), hipSuccess);
	cr_assert_eq(hipMemRangeGetAttribute(by, sizeof(by), hipMemRangeAttributeAccessedBy, m, SIZE),
		     hipSuccess);
	cr_assert_eq(by[0], 0);
	cr_assert_eq(by[1], hipInvalidDeviceId);
	cr_assert_eq(by[2], hipInvalidDeviceId);
	cr_assert_eq(hipMemAdvise(m, SIZE, hipMemAdviseUnsetAccessedBy, 0), hipSuccess);
	cr_assert_eq(hipMemRangeGetAttribute(by, sizeof(by), hipMemRangeAttributeAccessedBy, m, SIZE),
		     hipSuccess);
	cr_assert_eq(by[0], hipInvalidDeviceId);

	/* Several attributes at once. */
	int rm = -1, pl = -1;
	void *data[2] = {&rm, &pl};
	size_t sizes[2] = {sizeof(int), sizeof(int)};
	hipMemRangeAttribute attrs[2] = {hipMemRangeAttributeReadMostly,
					 hipMemRangeAttributePreferredLocation};
	cr_assert_eq(hipMemRangeGetAttributes(data, sizes, attrs, 2, m, SIZE), hipSuccess);
	cr_assert_eq(rm, 0);
	cr_assert_eq(pl, hipInvalidDeviceId);
	cr_assert_eq(hipFree(m), hipSuccess);
}

/* The data stays correct wherever a prefetch moves it; the location is recorded in order. */
Test(managed, prefetch_in_stream_order)
{
	uint32_t *m = NULL;
	hipStream_t s;

	cr_assert_eq(hipMallocManaged((void **)&m, SIZE, hipMemAttachGlobal), hipSuccess);
	cr_assert_eq(hipStreamCreate(&s), hipSuccess);
	for (unsigned i = 0; i < SIZE / 4; i++)
		m[i] = i * 3u;
	cr_assert_eq(hipMemPrefetchAsync(m, SIZE, 0, s), hipSuccess);
	cr_assert_eq(hipMemsetAsync(m, 0x11, 16, s), hipSuccess);
	cr_assert_eq(hipStreamSynchronize(s), hipSuccess);
	cr_assert_eq(attr_int(m, SIZE, hipMemRangeAttributeLastPrefetchLocation), 0);
	cr_assert_eq(m[0], 0x11111111u);
	cr_assert_eq(m[4], 12u);
	cr_assert_eq(m[SIZE / 4 - 1], (SIZE / 4 - 1) * 3u);
	hipMemLocation host = {hipMemLocationTypeHost, 0};
	cr_assert_eq(hipMemPrefetchAsync_v2(m, SIZE, host, 0, s), hipSuccess);
	cr_assert_eq(hipStreamSynchronize(s), hipSuccess);
	cr_assert_eq(attr_int(m, SIZE, hipMemRangeAttributeLastPrefetchLocation), hipCpuDeviceId);
	cr_assert_eq(m[5], 15u);
	cr_assert_eq(hipStreamAttachMemAsync(s, m, 0, hipMemAttachSingle), hipSuccess);
	cr_assert_eq(hipStreamAttachMemAsync(s, m, SIZE, hipMemAttachGlobal), hipSuccess);
	cr_assert_eq(hipStreamAttachMemAsync(s, m, 8, hipMemAttachGlobal), hipErrorInvalidValue);
	cr_assert_eq(hipStreamAttachMemAsync(s, m, 0, 0x8), hipErrorInvalidValue);
	cr_assert_eq(hipStreamAttachMemAsync(NULL, m, 0, hipMemAttachGlobal), hipSuccess);
	cr_assert_eq(hipStreamDestroy(s), hipSuccess);
	cr_assert_eq(hipFree(m), hipSuccess);
}

Test(managed, errors)
{
	void *m = NULL, *d = NULL;
	int v, by[2];
	char stack[64];

	cr_assert_eq(hipMallocManaged(&m, SIZE, hipMemAttachGlobal), hipSuccess);
	cr_assert_eq(hipMalloc(&d, 4096), hipSuccess);
	cr_assert_eq(hipMemAdvise(d, 4096, hipMemAdviseSetReadMostly, 0), hipErrorInvalidValue);
	/* Stack memory is system memory: under HMM the hint applies (AMD 5.2.3 on kfdsim: success;
	 * test_memory_managed_edges.c). */
	cr_assert_eq(hipMemAdvise(stack, sizeof(stack), hipMemAdviseSetReadMostly, 0), hipSuccess);
	cr_assert_eq(hipMemAdvise(NULL, 16, hipMemAdviseSetReadMostly, 0), hipErrorInvalidValue);
	cr_assert_eq(hipMemAdvise(m, 0, hipMemAdviseSetReadMostly, 0), hipErrorInvalidValue);
	cr_assert_eq(hipMemAdvise(m, SIZE + 1, hipMemAdviseSetReadMostly, 0), hipErrorInvalidValue);
	cr_assert_eq(hipMemAdvise(m, SIZE, (hipMemoryAdvise)42, 0), hipErrorInvalidValue);
	cr_assert_eq(hipMemAdvise(m, SIZE, hipMemAdviseSetPreferredLocation, 7), hipErrorInvalidDevice);
	/* The device is checked for advice that does not use it too (AMD's answer). */
	cr_assert_eq(hipMemAdvise(m, SIZE, hipMemAdviseSetReadMostly, 99), hipErrorInvalidDevice);
	cr_assert_eq(hipMemAdvise(m, SIZE, hipMemAdviseUnsetReadMostly, -12), hipErrorInvalidDevice);
	cr_assert_eq(hipMemAdvise(m, SIZE, hipMemAdviseSetCoarseGrain, 5), hipErrorInvalidDevice);
	cr_assert_eq(hipMemAdvise(m, SIZE, hipMemAdviseSetReadMostly, hipCpuDeviceId), hipSuccess);
	hipMemLocation bad = {hipMemLocationTypeHostNuma, 0};
	cr_assert_eq(hipMemAdvise_v2(m, SIZE, hipMemAdviseSetPreferredLocation, bad),
		     hipErrorInvalidValue);
	cr_assert_eq(hipMemPrefetchAsync(d, 4096, 0, NULL), hipErrorInvalidValue);
	cr_assert_eq(hipMemPrefetchAsync(m, SIZE, 9, NULL), hipErrorInvalidDevice);
	hipMemLocation dev0 = {hipMemLocationTypeDevice, 0};
	cr_assert_eq(hipMemPrefetchAsync_v2(m, SIZE, dev0, 1, NULL), hipErrorInvalidValue);
	cr_assert_eq(hipMemRangeGetAttribute(&v, 2, hipMemRangeAttributeReadMostly, m, SIZE),
		     hipErrorInvalidValue);
	cr_assert_eq(hipMemRangeGetAttribute(NULL, 4, hipMemRangeAttributeReadMostly, m, SIZE),
		     hipErrorInvalidValue);
	cr_assert_eq(hipMemRangeGetAttribute(by, 6, hipMemRangeAttributeAccessedBy, m, SIZE),
		     hipErrorInvalidValue);
	cr_assert_eq(hipMemRangeGetAttribute(&v, 4, (hipMemRangeAttribute)9, m, SIZE),
		     hipErrorInvalidValue);
	cr_assert_eq(hipMemRangeGetAttribute(&v, 4, hipMemRangeAttributeReadMostly, d, 16),
		     hipErrorInvalidValue);
	cr_assert_eq(hipMemRangeGetAttributes(NULL, NULL, NULL, 0, m, SIZE), hipErrorInvalidValue);
	cr_assert_eq(hipStreamAttachMemAsync(NULL, d, 0, hipMemAttachGlobal), hipErrorInvalidValue);
	cr_assert_eq(hipFree(d), hipSuccess);
	cr_assert_eq(hipFree(m), hipSuccess);
}

static bool has(const int *v, int n, int id)
{
	for (int i = 0; i < n; i++)
		if (v[i] == id)
			return true;
	return false;
}

/* AccessedBy the CPU is recorded and reported like a GPU's (CUDA), for ranges wholly advised;
 * a later allocation does not inherit it. */
Test(managed, accessed_by_cpu_is_reported)
{
	long page = sysconf(_SC_PAGESIZE);
	char *m = NULL;
	int v[4];

	cr_assert_eq(hipMallocManaged((void **)&m, 2 * page, hipMemAttachGlobal), hipSuccess);
	cr_assert_eq(hipMemAdvise(m, page, hipMemAdviseSetAccessedBy, hipCpuDeviceId), hipSuccess);
	cr_assert_eq(hipMemAdvise(m, page, hipMemAdviseSetAccessedBy, 0), hipSuccess);
	cr_assert_eq(hipMemRangeGetAttribute(v, sizeof(v), hipMemRangeAttributeAccessedBy, m, page),
		     hipSuccess);
	cr_assert(has(v, 2, hipCpuDeviceId) && has(v, 2, 0), "%d %d", v[0], v[1]);
	cr_assert(v[2] == hipInvalidDeviceId && v[3] == hipInvalidDeviceId);
	/* the whole allocation: only half of it was advised */
	cr_assert_eq(hipMemRangeGetAttribute(v, sizeof(v), hipMemRangeAttributeAccessedBy, m, 2 * page),
		     hipSuccess);
	cr_assert(!has(v, 4, hipCpuDeviceId));
	cr_assert_eq(hipMemAdvise(m, page, hipMemAdviseUnsetAccessedBy, hipCpuDeviceId), hipSuccess);
	cr_assert_eq(hipMemRangeGetAttribute(v, sizeof(v), hipMemRangeAttributeAccessedBy, m, page),
		     hipSuccess);
	cr_assert(!has(v, 4, hipCpuDeviceId) && has(v, 4, 0));
	cr_assert_eq(hipMemAdvise(m, 2 * page, hipMemAdviseSetAccessedBy, hipCpuDeviceId), hipSuccess);
	cr_assert_eq(hipFree(m), hipSuccess);

	cr_assert_eq(hipMallocManaged((void **)&m, 2 * page, hipMemAttachGlobal), hipSuccess);
	cr_assert_eq(hipMemRangeGetAttribute(v, sizeof(v), hipMemRangeAttributeAccessedBy, m, page),
		     hipSuccess);
	cr_assert(!has(v, 4, hipCpuDeviceId), "a new allocation starts without the advice");
	cr_assert_eq(hipFree(m), hipSuccess);
}
