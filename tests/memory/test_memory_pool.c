/* The stream-ordered allocator: hipMallocAsync/hipFreeAsync in stream order, reuse of freed
 * blocks, pools and their attributes, trimming and access. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <hip/hip_runtime_api.h>

static uint64_t attr_u64(hipMemPool_t pool, hipMemPoolAttr attr)
{
	uint64_t v = ~0ull;
	cr_assert_eq(hipMemPoolGetAttribute(pool, attr, &v), hipSuccess);
	return v;
}

static int attr_int(hipMemPool_t pool, hipMemPoolAttr attr)
{
	int v = -1;
	cr_assert_eq(hipMemPoolGetAttribute(pool, attr, &v), hipSuccess);
	return v;
}

static hipMemPool_t new_pool(void)
{
	hipMemPoolProps props;
	hipMemPool_t pool = NULL;
	memset(&props, 0, sizeof(props));
	props.allocType = hipMemAllocationTypePinned;
	props.location.type = hipMemLocationTypeDevice;
	props.location.id = 0;
	cr_assert_eq(hipMemPoolCreate(&pool, &props), hipSuccess);
	cr_assert_not_null(pool);
	return pool;
}

Test(mempool, malloc_async_readback)
{
	hipStream_t s;
	void *p = NULL;
	static uint32_t host[1 << 16], back[1 << 16];
	for (size_t i = 0; i < sizeof(host) / 4; i++)
		host[i] = (uint32_t)(i ^ 0xdeadbeefu);
	cr_assert_eq(hipStreamCreate(&s), hipSuccess);
	cr_assert_eq(hipMallocAsync(&p, sizeof(host), s), hipSuccess);
	cr_assert_not_null(p);
	cr_assert_eq(hipMemcpyAsync(p, host, sizeof(host), hipMemcpyHostToDevice, s), hipSuccess);
	cr_assert_eq(hipMemsetAsync(p, 0x7e, 256, s), hipSuccess);
	cr_assert_eq(hipMemcpyAsync(back, p, sizeof(back), hipMemcpyDeviceToHost, s), hipSuccess);
	cr_assert_eq(hipFreeAsync(p, s), hipSuccess);
	cr_assert_eq(hipStreamSynchronize(s), hipSuccess);
	for (int i = 0; i < 64; i++)
		cr_assert_eq(back[i], 0x7e7e7e7eu);
	cr_assert_arr_eq(back + 64, host + 64, sizeof(host) - 256);
	cr_assert_eq(hipStreamDestroy(s), hipSuccess);
}

Test(mempool, null_stream_and_zero_size)
{
	void *p = (void *)1;
	cr_assert_eq(hipMallocAsync(&p, 0, NULL), hipSuccess);
	cr_assert_null(p);
	cr_assert_eq(hipMallocAsync(NULL, 64, NULL), hipErrorInvalidValue);
	cr_assert_eq(hipMallocAsync(&p, 4096, NULL), hipSuccess);
	cr_assert_eq(hipMemset(p, 1, 4096), hipSuccess);
	cr_assert_eq(hipFreeAsync(p, NULL), hipSuccess);
	cr_assert_eq(hipFreeAsync(NULL, NULL), hipErrorInvalidValue);
	cr_assert_eq(hipMallocAsync(&p, 64, (hipStream_t)&p), hipErrorInvalidHandle); /* clr */
	cr_assert_eq(hipDeviceSynchronize(), hipSuccess);
}

/* A block freed on a stream is handed to the next allocation on the same stream at once: the
 * stream runs in order, so the new owner's work follows the old owner's. */
Test(mempool, same_stream_reuse)
{
	hipStream_t s;
	void *a = NULL, *b = NULL;
	cr_assert_eq(hipStreamCreate(&s), hipSuccess);
	cr_assert_eq(hipMallocAsync(&a, 1 << 20, s), hipSuccess);
	cr_assert_eq(hipMemsetAsync(a, 0x11, 1 << 20, s), hipSuccess);
	cr_assert_eq(hipFreeAsync(a, s), hipSuccess);
	cr_assert_eq(hipMallocAsync(&b, 1 << 20, s), hipSuccess);
	cr_assert_eq(b, a, "same-stream reuse");
	/* The new owner sees its own writes, ordered after the old owner's fill. */
	cr_assert_eq(hipMemsetAsync(b, 0x22, 1 << 20, s), hipSuccess);
	unsigned char back[64];
	cr_assert_eq(hipMemcpyAsync(back, (char *)b + (1 << 19), sizeof(back), hipMemcpyDeviceToHost, s),
		     hipSuccess);
	cr_assert_eq(hipStreamSynchronize(s), hipSuccess);
	for (size_t i = 0; i < sizeof(back); i++)
		cr_assert_eq(back[i], 0x22);
	cr_assert_eq(hipFreeAsync(b, s), hipSuccess);
	cr_assert_eq(hipStreamSynchronize(s), hipSuccess);
	cr_assert_eq(hipStreamDestroy(s), hipSuccess);
}

/* Across streams: with every reuse policy off, a block whose free is not known complete is never
 * handed to another stream; once the free completed (a synchronisation) and opportunistic reuse is
 * on, it is. */
Test(mempool, cross_stream_reuse_follows_policy)
{
	hipMemPool_t pool = new_pool();
	hipStream_t s1, s2;
	void *a = NULL, *b = NULL, *c = NULL;
	int off = 0, on = 1;
	cr_assert_eq(hipStreamCreate(&s1), hipSuccess);
	cr_assert_eq(hipStreamCreate(&s2), hipSuccess);
	cr_assert_eq(hipMemPoolSetAttribute(pool, hipMemPoolReuseAllowOpportunistic, &off), hipSuccess);
	cr_assert_eq(hipMemPoolSetAttribute(pool, hipMemPoolReuseAllowInternalDependencies, &off),
		     hipSuccess);
	cr_assert_eq(hipMemPoolSetAttribute(pool, hipMemPoolReuseFollowEventDependencies, &off),
		     hipSuccess);
	cr_assert_eq(attr_int(pool, hipMemPoolReuseAllowOpportunistic), 0);
	/* Keep freed memory in the pool, so that a new allocation cannot land on a's address. */
	uint64_t keep_all = UINT64_MAX;
	cr_assert_eq(hipMemPoolSetAttribute(pool, hipMemPoolAttrReleaseThreshold, &keep_all), hipSuccess);

	cr_assert_eq(hipMallocFromPoolAsync(&a, 1 << 20, pool, s1), hipSuccess);
	cr_assert_eq(hipFreeAsync(a, s1), hipSuccess);
	cr_assert_eq(hipStreamSynchronize(s1), hipSuccess);
	/* Even complete, the free is not reused by s2 without a policy allowing it. */
	cr_assert_eq(hipMallocFromPoolAsync(&b, 1 << 20, pool, s2), hipSuccess);
	cr_assert_neq(b, a);
	cr_assert_eq(attr_u64(pool, hipMemPoolAttrReservedMemCurrent), 2u << 20);
	cr_assert_eq(attr_u64(pool, hipMemPoolAttrUsedMemCurrent), 1u << 20);

	cr_assert_eq(hipMemPoolSetAttribute(pool, hipMemPoolReuseAllowOpportunistic, &on), hipSuccess);
	cr_assert_eq(hipMallocFromPoolAsync(&c, 1 << 20, pool, s2), hipSuccess);
	cr_assert_eq(c, a, "opportunistic reuse of a completed free");

	cr_assert_eq(hipFreeAsync(b, s2), hipSuccess);
	cr_assert_eq(hipFreeAsync(c, s2), hipSuccess);
	cr_assert_eq(hipStreamSynchronize(s2), hipSuccess);
	cr_assert_eq(hipStreamDestroy(s1), hipSuccess);
	cr_assert_eq(hipStreamDestroy(s2), hipSuccess);
	cr_assert_eq(hipMemPoolDestroy(pool), hipSuccess);
}

/* A block whose free is still pending on s1 is not handed to s2, whatever the reuse policies
 * (defaults: all on), as AMD's runtime answers (clr IsSafeFind: same stream, or an opportunistic
 * reuse of a completed free): s2 gets a new block, and s1's pending work still owns a's memory.
 * Once the free has completed, opportunistic reuse hands a to s2. A host function holds s1
 * before its last write and the free; a helper thread opens the gate (work queued behind a held
 * stream may wait on the host in this runtime, so the main thread cannot be the one to open it). */
static atomic_int gate;

static void hold(void *arg)
{
	(void)arg;
	while (!atomic_load(&gate))
		sched_yield();
}

static void *opener(void *arg)
{
	(void)arg;
	usleep(200 * 1000);
	atomic_store(&gate, 1);
	return NULL;
}

Test(mempool, pending_free_not_reused_across_streams)
{
	hipMemPool_t pool = new_pool();
	hipStream_t s1, s2;
	void *a = NULL, *b = NULL, *c = NULL;
	uint64_t keep_all = UINT64_MAX;
	pthread_t t;
	atomic_store(&gate, 0);
	cr_assert_eq(hipMemPoolSetAttribute(pool, hipMemPoolAttrReleaseThreshold, &keep_all), hipSuccess);
	cr_assert_eq(attr_int(pool, hipMemPoolReuseAllowInternalDependencies), 1);
	cr_assert_eq(attr_int(pool, hipMemPoolReuseAllowOpportunistic), 1);
	cr_assert_eq(hipStreamCreateWithFlags(&s1, hipStreamNonBlocking), hipSuccess);
	cr_assert_eq(hipStreamCreateWithFlags(&s2, hipStreamNonBlocking), hipSuccess);
	cr_assert_eq(hipMallocFromPoolAsync(&a, 1 << 16, pool, s1), hipSuccess);
	cr_assert_eq(hipLaunchHostFunc(s1, hold, NULL), hipSuccess);
	cr_assert_eq(pthread_create(&t, NULL, opener, NULL), 0);
	cr_assert_eq(hipMemsetAsync(a, 0x33, 1 << 16, s1), hipSuccess);
	cr_assert_eq(hipFreeAsync(a, s1), hipSuccess); /* pending behind the host function */

	cr_assert_eq(hipMallocFromPoolAsync(&b, 1 << 16, pool, s2), hipSuccess);
	cr_assert_neq(b, a, "a free pending on another stream is not reused");
	cr_assert_eq(hipMemsetAsync(b, 0x44, 1 << 16, s2), hipSuccess);
	cr_assert_eq(hipStreamSynchronize(s2), hipSuccess);
	cr_assert_eq(hipStreamSynchronize(s1), hipSuccess);
	pthread_join(t, NULL);

	/* a's free has completed: opportunistic reuse gives it to s2, holding s1's last write */
	cr_assert_eq(hipMallocFromPoolAsync(&c, 1 << 16, pool, s2), hipSuccess);
	cr_assert_eq(c, a, "opportunistic reuse of a completed free");
	unsigned char back[1 << 16];
	cr_assert_eq(hipMemcpyAsync(back, c, sizeof(back), hipMemcpyDeviceToHost, s2), hipSuccess);
	cr_assert_eq(hipStreamSynchronize(s2), hipSuccess);
	for (size_t i = 0; i < sizeof(back); i++)
		cr_assert_eq(back[i], 0x33, "byte %zu: s2's write landed in s1's block", i);
	cr_assert_eq(hipFreeAsync(b, s2), hipSuccess);
	cr_assert_eq(hipFreeAsync(c, s2), hipSuccess);
	cr_assert_eq(hipDeviceSynchronize(), hipSuccess);
	cr_assert_eq(hipStreamDestroy(s1), hipSuccess);
	cr_assert_eq(hipStreamDestroy(s2), hipSuccess);
	cr_assert_eq(hipMemPoolDestroy(pool), hipSuccess);
}

Test(mempool, attributes_and_trim)
{
	hipMemPool_t pool = new_pool();
	hipStream_t s;
	void *p[4];
	uint64_t keep_all = UINT64_MAX, zero = 0, one = 1;
	cr_assert_eq(hipStreamCreate(&s), hipSuccess);

	/* CUDA's defaults. */
	cr_assert_eq(attr_int(pool, hipMemPoolReuseFollowEventDependencies), 1);
	cr_assert_eq(attr_int(pool, hipMemPoolReuseAllowOpportunistic), 1);
	cr_assert_eq(attr_int(pool, hipMemPoolReuseAllowInternalDependencies), 1);
	cr_assert_eq(attr_u64(pool, hipMemPoolAttrReleaseThreshold), 0);
	cr_assert_eq(attr_u64(pool, hipMemPoolAttrReservedMemCurrent), 0);
	cr_assert_eq(attr_u64(pool, hipMemPoolAttrUsedMemHigh), 0);

	cr_assert_eq(hipMemPoolSetAttribute(pool, hipMemPoolAttrReleaseThreshold, &keep_all), hipSuccess);
	cr_assert_eq(attr_u64(pool, hipMemPoolAttrReleaseThreshold), UINT64_MAX);
	for (int i = 0; i < 4; i++)
		cr_assert_eq(hipMallocFromPoolAsync(&p[i], 1 << 20, pool, s), hipSuccess);
	cr_assert_eq(attr_u64(pool, hipMemPoolAttrReservedMemCurrent), 4u << 20);
	cr_assert_eq(attr_u64(pool, hipMemPoolAttrUsedMemCurrent), 4u << 20);
	for (int i = 0; i < 4; i++)
		cr_assert_eq(hipFreeAsync(p[i], s), hipSuccess);
	cr_assert_eq(hipStreamSynchronize(s), hipSuccess);
	/* Freed memory stays in the pool (threshold above it) and is counted as reserved only. */
	cr_assert_eq(attr_u64(pool, hipMemPoolAttrReservedMemCurrent), 4u << 20);
	cr_assert_eq(attr_u64(pool, hipMemPoolAttrUsedMemCurrent), 0);
	cr_assert_eq(attr_u64(pool, hipMemPoolAttrUsedMemHigh), 4u << 20);
	cr_assert_eq(attr_u64(pool, hipMemPoolAttrReservedMemHigh), 4u << 20);

	/* Trim down to at least 2 MiB kept, then to nothing. */
	cr_assert_eq(hipMemPoolTrimTo(pool, 2u << 20), hipSuccess);
	cr_assert_eq(attr_u64(pool, hipMemPoolAttrReservedMemCurrent), 2u << 20);
	cr_assert_eq(hipMemPoolTrimTo(pool, 0), hipSuccess);
	cr_assert_eq(attr_u64(pool, hipMemPoolAttrReservedMemCurrent), 0);

	/* High watermarks reset to the current value; only 0 may be written; currents are read-only. */
	cr_assert_eq(hipMemPoolSetAttribute(pool, hipMemPoolAttrUsedMemHigh, &one), hipErrorInvalidValue);
	cr_assert_eq(hipMemPoolSetAttribute(pool, hipMemPoolAttrUsedMemHigh, &zero), hipSuccess);
	cr_assert_eq(hipMemPoolSetAttribute(pool, hipMemPoolAttrReservedMemHigh, &zero), hipSuccess);
	cr_assert_eq(attr_u64(pool, hipMemPoolAttrUsedMemHigh), 0);
	cr_assert_eq(attr_u64(pool, hipMemPoolAttrReservedMemHigh), 0);
	cr_assert_eq(hipMemPoolSetAttribute(pool, hipMemPoolAttrUsedMemCurrent, &zero), hipErrorInvalidValue);
	cr_assert_eq(hipMemPoolSetAttribute(pool, hipMemPoolAttrReservedMemCurrent, &zero),
		     hipErrorInvalidValue);
	cr_assert_eq(hipMemPoolSetAttribute(pool, (hipMemPoolAttr)99, &zero), hipErrorInvalidValue);
	cr_assert_eq(hipMemPoolGetAttribute(pool, hipMemPoolAttrUsedMemHigh, NULL), hipErrorInvalidValue);
	cr_assert_eq(hipMemPoolGetAttribute(NULL, hipMemPoolAttrUsedMemHigh, &zero), hipErrorInvalidValue);

	cr_assert_eq(hipStreamDestroy(s), hipSuccess);
	cr_assert_eq(hipMemPoolDestroy(pool), hipSuccess);
}

/* With threshold 0 the pool gives completed free memory back before it grows. */
Test(mempool, release_threshold_bounds_growth)
{
	hipMemPool_t pool = new_pool();
	hipStream_t s1, s2;
	void *a = NULL, *b = NULL;
	int off = 0;
	cr_assert_eq(hipStreamCreate(&s1), hipSuccess);
	cr_assert_eq(hipStreamCreate(&s2), hipSuccess);
	cr_assert_eq(hipMemPoolSetAttribute(pool, hipMemPoolReuseAllowOpportunistic, &off), hipSuccess);
	cr_assert_eq(hipMemPoolSetAttribute(pool, hipMemPoolReuseAllowInternalDependencies, &off),
		     hipSuccess);
	cr_assert_eq(hipMallocFromPoolAsync(&a, 1 << 20, pool, s1), hipSuccess);
	cr_assert_eq(hipFreeAsync(a, s1), hipSuccess);
	cr_assert_eq(hipStreamSynchronize(s1), hipSuccess);
	cr_assert_eq(hipMallocFromPoolAsync(&b, 1 << 20, pool, s2), hipSuccess);
	/* a's block went back to the device only after b's was made: the refused block's address
	 * is not handed to s2 under a new name (hip-tests' Opportunistic case checks the same). */
	cr_assert_neq(b, a);
	cr_assert_eq(attr_u64(pool, hipMemPoolAttrReservedMemCurrent), 1u << 20);
	cr_assert_eq(hipFreeAsync(b, s2), hipSuccess);
	cr_assert_eq(hipStreamSynchronize(s2), hipSuccess);
	cr_assert_eq(hipStreamDestroy(s1), hipSuccess);
	cr_assert_eq(hipStreamDestroy(s2), hipSuccess);
	cr_assert_eq(hipMemPoolDestroy(pool), hipSuccess);
}

Test(mempool, device_pools)
{
	hipMemPool_t def = NULL, cur = NULL, pool = new_pool();
	cr_assert_eq(hipDeviceGetDefaultMemPool(&def, 0), hipSuccess);
	cr_assert_not_null(def);
	cr_assert_eq(hipDeviceGetMemPool(&cur, 0), hipSuccess);
	cr_assert_eq(cur, def);
	cr_assert_eq(hipDeviceSetMemPool(0, pool), hipSuccess);
	cr_assert_eq(hipDeviceGetMemPool(&cur, 0), hipSuccess);
	cr_assert_eq(cur, pool);

	/* hipMallocAsync draws from the device's current pool. */
	void *p = NULL;
	cr_assert_eq(hipMallocAsync(&p, 1 << 20, NULL), hipSuccess);
	cr_assert_eq(attr_u64(pool, hipMemPoolAttrUsedMemCurrent), 1u << 20);
	cr_assert_eq(hipFreeAsync(p, NULL), hipSuccess);
	cr_assert_eq(attr_u64(pool, hipMemPoolAttrUsedMemCurrent), 0);

	/* Destroying the current pool makes the default current again; the default cannot go. */
	cr_assert_eq(hipMemPoolDestroy(pool), hipSuccess);
	cr_assert_eq(hipDeviceGetMemPool(&cur, 0), hipSuccess);
	cr_assert_eq(cur, def);
	cr_assert_eq(hipMemPoolDestroy(def), hipErrorInvalidValue);
	cr_assert_eq(hipMemPoolDestroy(pool), hipErrorInvalidValue);
	cr_assert_eq(hipMemPoolTrimTo(pool, 0), hipErrorInvalidValue);

	cr_assert_eq(hipDeviceGetDefaultMemPool(NULL, 0), hipErrorInvalidValue);
	cr_assert_eq(hipDeviceGetDefaultMemPool(&cur, 5), hipErrorInvalidDevice);
	cr_assert_eq(hipDeviceGetMemPool(&cur, 5), hipErrorInvalidValue);
	cr_assert_eq(hipDeviceSetMemPool(0, NULL), hipErrorInvalidValue);
	cr_assert_eq(hipDeviceSynchronize(), hipSuccess);
}

Test(mempool, create_errors_and_access)
{
	hipMemPoolProps props;
	hipMemPool_t pool = NULL;
	memset(&props, 0, sizeof(props));
	props.allocType = hipMemAllocationTypePinned;
	props.location.type = hipMemLocationTypeDevice;
	props.location.id = 0;
	cr_assert_eq(hipMemPoolCreate(NULL, &props), hipErrorInvalidValue);
	cr_assert_eq(hipMemPoolCreate(&pool, NULL), hipErrorInvalidValue);
	props.location.id = 3;
	cr_assert_eq(hipMemPoolCreate(&pool, &props), hipErrorInvalidValue);
	props.location.id = 0;
	props.allocType = hipMemAllocationTypeManaged;
	cr_assert_eq(hipMemPoolCreate(&pool, &props), hipErrorInvalidValue);
	props.allocType = hipMemAllocationTypePinned;
	props.location.type = hipMemLocationTypeHost;
	cr_assert_eq(hipMemPoolCreate(&pool, &props), hipErrorInvalidValue);
	props.location.type = hipMemLocationTypeDevice;
	cr_assert_eq(hipMemPoolCreate(&pool, &props), hipSuccess);

	hipMemAccessFlags flags = hipMemAccessFlagsProtNone;
	hipMemLocation loc = {.type = hipMemLocationTypeDevice, .id = 0};
	cr_assert_eq(hipMemPoolGetAccess(&flags, pool, &loc), hipSuccess);
	cr_assert_eq(flags, hipMemAccessFlagsProtReadWrite, "the owner always has access");
	hipMemAccessDesc desc = {.location = loc, .flags = hipMemAccessFlagsProtReadWrite};
	cr_assert_eq(hipMemPoolSetAccess(pool, &desc, 1), hipSuccess);
	desc.location.id = 9;
	cr_assert_eq(hipMemPoolSetAccess(pool, &desc, 1), hipErrorInvalidDevice, "clr: no such device");
	loc.id = 9;
	cr_assert_eq(hipMemPoolGetAccess(&flags, pool, &loc), hipErrorInvalidValue);
	cr_assert_eq(hipMemPoolSetAccess(pool, NULL, 1), hipErrorInvalidValue);

	/* A pool created without a shareable handle type cannot be exported, nor its pointers. */
	int fd = -1;
	cr_assert_eq(hipMemPoolExportToShareableHandle(&fd, pool, hipMemHandleTypePosixFileDescriptor, 0),
		     hipErrorInvalidValue);
	void *p = NULL;
	hipMemPoolPtrExportData data;
	cr_assert_eq(hipMallocFromPoolAsync(&p, 4096, pool, NULL), hipSuccess);
	cr_assert_eq(hipMemPoolExportPointer(&data, p), hipErrorInvalidValue);
	cr_assert_eq(hipFreeAsync(p, NULL), hipSuccess);
	cr_assert_eq(hipDeviceSynchronize(), hipSuccess);
	cr_assert_eq(hipMemPoolDestroy(pool), hipSuccess);
}

/* A pool destroyed with an allocation outstanding keeps it usable until it is freed. */
Test(mempool, destroy_with_outstanding_allocation)
{
	hipMemPool_t pool = new_pool();
	void *p = NULL;
	uint32_t v = 0;
	cr_assert_eq(hipMallocFromPoolAsync(&p, 4096, pool, NULL), hipSuccess);
	cr_assert_eq(hipMemPoolDestroy(pool), hipSuccess);
	cr_assert_eq(hipMemsetD32(p, 0xabcdef01u, 1024), hipSuccess);
	cr_assert_eq(hipMemcpy(&v, (char *)p + 4092, 4, hipMemcpyDeviceToHost), hipSuccess);
	cr_assert_eq(v, 0xabcdef01u);
	cr_assert_eq(hipFreeAsync(p, NULL), hipSuccess);
	cr_assert_eq(hipDeviceSynchronize(), hipSuccess);
}

/* hipDeviceReset takes every pool of the device with all its memory, in use or freed, also a
 * pool destroyed while an allocation was out (clr: Device::Reset deletes the device's pools):
 * the memory returns, the old handles and pointers are refused, the default pool comes back. */
Test(mempool, device_reset_frees_pools)
{
	const size_t mib = 1 << 20;
	size_t free0 = 0, free1 = 0, free2 = 0, total = 0;
	cr_assert_eq(hipSetDevice(0), hipSuccess);
	cr_assert_eq(hipMemGetInfo(&free0, &total), hipSuccess);

	hipMemPool_t pool = new_pool(), gone = new_pool(), def = NULL;
	void *in_use = NULL, *freed = NULL, *from_default = NULL, *orphan = NULL;
	cr_assert_eq(hipMallocFromPoolAsync(&in_use, 64 * mib, pool, NULL), hipSuccess);
	cr_assert_eq(hipMallocFromPoolAsync(&freed, 64 * mib, pool, NULL), hipSuccess);
	cr_assert_eq(hipFreeAsync(freed, NULL), hipSuccess);
	cr_assert_eq(hipMallocAsync(&from_default, 64 * mib, NULL), hipSuccess);
	cr_assert_eq(hipMallocFromPoolAsync(&orphan, 32 * mib, gone, NULL), hipSuccess);
	cr_assert_eq(hipMemPoolDestroy(gone), hipSuccess);
	cr_assert_eq(hipDeviceSynchronize(), hipSuccess);
	cr_assert_eq(hipMemGetInfo(&free1, &total), hipSuccess);
	cr_assert_geq(free0 - free1, 224 * mib, "pools hold %zu MiB", (free0 - free1) / mib);

	cr_assert_eq(hipDeviceReset(), hipSuccess);
	cr_assert_eq(hipMemGetInfo(&free2, &total), hipSuccess);
	cr_assert_geq(free2 + 8 * mib, free0, "%zu MiB still held after the reset",
		      (free0 - free2) / mib);

	uint64_t v = 0;
	cr_assert_eq(hipMemPoolGetAttribute(pool, hipMemPoolAttrReservedMemCurrent, &v),
		     hipErrorInvalidValue);
	cr_assert_eq(hipMemPoolDestroy(pool), hipErrorInvalidValue);
	cr_assert_eq(hipFreeAsync(in_use, NULL), hipErrorInvalidValue);
	cr_assert_eq(hipFreeAsync(orphan, NULL), hipErrorInvalidValue);

	/* The device's default pool is a fresh one, and it allocates. */
	cr_assert_eq(hipDeviceGetDefaultMemPool(&def, 0), hipSuccess);
	cr_assert_eq(hipMemPoolGetAttribute(def, hipMemPoolAttrReservedMemCurrent, &v), hipSuccess);
	cr_assert_eq(v, 0);
	void *p = NULL;
	uint32_t w = 0;
	cr_assert_eq(hipMallocAsync(&p, 4096, NULL), hipSuccess);
	cr_assert_eq(hipMemsetD32Async(p, 0x5eed5eedu, 1024, NULL), hipSuccess);
	cr_assert_eq(hipMemcpy(&w, (char *)p + 4092, 4, hipMemcpyDeviceToHost), hipSuccess);
	cr_assert_eq(w, 0x5eed5eedu);
	cr_assert_eq(hipFreeAsync(p, NULL), hipSuccess);
	cr_assert_eq(hipDeviceSynchronize(), hipSuccess);
}

/* hipFreeAsync of hipMalloc memory frees it after the stream's work (clr's fallback). */
Test(mempool, free_async_of_plain_malloc)
{
	void *p = NULL;
	cr_assert_eq(hipMalloc(&p, 1 << 20), hipSuccess);
	cr_assert_eq(hipMemsetAsync(p, 0, 1 << 20, NULL), hipSuccess);
	cr_assert_eq(hipFreeAsync(p, NULL), hipSuccess);
	cr_assert_eq(hipFree(p), hipErrorInvalidValue, "already freed");
}

/* A pool's maxSize bounds what it reserves; the device's size bounds any pool. */
Test(mempool, out_of_memory)
{
	hipMemPoolProps props;
	hipMemPool_t pool = NULL;
	void *p[3] = {NULL, NULL, NULL}, *huge = (void *)1;
	memset(&props, 0, sizeof(props));
	props.allocType = hipMemAllocationTypePinned;
	props.location.type = hipMemLocationTypeDevice;
	props.location.id = 0;
	props.maxSize = 2u << 20;
	cr_assert_eq(hipMemPoolCreate(&pool, &props), hipSuccess);
	cr_assert_eq(hipMallocFromPoolAsync(&p[0], 1 << 20, pool, NULL), hipSuccess);
	cr_assert_eq(hipMallocFromPoolAsync(&p[1], 1 << 20, pool, NULL), hipSuccess);
	cr_assert_eq(hipMallocFromPoolAsync(&p[2], 1 << 20, pool, NULL), hipErrorOutOfMemory);
	cr_assert_null(p[2]);
	/* Freed (and completed) memory makes room again. */
	cr_assert_eq(hipFreeAsync(p[1], NULL), hipSuccess);
	cr_assert_eq(hipStreamSynchronize(NULL), hipSuccess);
	cr_assert_eq(hipMallocFromPoolAsync(&p[2], 1 << 20, pool, NULL), hipSuccess);
	cr_assert_eq(hipFreeAsync(p[0], NULL), hipSuccess);
	cr_assert_eq(hipFreeAsync(p[2], NULL), hipSuccess);
	cr_assert_eq(hipStreamSynchronize(NULL), hipSuccess);
	cr_assert_eq(hipMemPoolDestroy(pool), hipSuccess);

	cr_assert_eq(hipMallocAsync(&huge, (size_t)1 << 50, NULL), hipErrorOutOfMemory);
	cr_assert_null(huge);
	(void)hipGetLastError();
}

/* Several threads allocate, use and free on their own streams at once; every thread's data stays
 * its own. */
#define WORKERS 4
#define ROUNDS 100

static void *worker(void *arg)
{
	uintptr_t id = (uintptr_t)arg;
	hipStream_t s;
	uintptr_t bad = 0;
	if (hipStreamCreate(&s) != hipSuccess)
		return (void *)1;
	for (int r = 0; r < ROUNDS && !bad; r++) {
		void *p = NULL;
		size_t size = 4096u << (r % 6);
		uint32_t v = (uint32_t)(id << 24 | (uintptr_t)r), back = 0;
		if (hipMallocAsync(&p, size, s) != hipSuccess ||
		    hipMemsetD32Async(p, v, size / 4, s) != hipSuccess ||
		    hipMemcpyAsync(&back, (char *)p + size - 4, 4, hipMemcpyDeviceToHost, s) != hipSuccess ||
		    hipFreeAsync(p, s) != hipSuccess || hipStreamSynchronize(s) != hipSuccess)
			bad = 2;
		else if (back != v)
			bad = 3;
	}
	hipStreamDestroy(s);
	return (void *)bad;
}

Test(mempool, threads_on_their_own_streams)
{
	pthread_t t[WORKERS];
	for (uintptr_t i = 0; i < WORKERS; i++)
		cr_assert_eq(pthread_create(&t[i], NULL, worker, (void *)i), 0);
	for (int i = 0; i < WORKERS; i++) {
		void *ret = (void *)-1;
		cr_assert_eq(pthread_join(t[i], &ret), 0);
		cr_assert_eq((uintptr_t)ret, 0, "worker %d failed (%lu)", i, (unsigned long)(uintptr_t)ret);
	}
	hipMemPool_t def;
	uint64_t used = 1;
	cr_assert_eq(hipDeviceGetDefaultMemPool(&def, 0), hipSuccess);
	cr_assert_eq(hipMemPoolGetAttribute(def, hipMemPoolAttrUsedMemCurrent, &used), hipSuccess);
	cr_assert_eq(used, 0);
}

/* Freeing pool memory twice is refused (the pool still owns the block: releasing it to the
 * device would hand it out twice); a bad stream handle is hipErrorInvalidHandle (clr). */
Test(mempool, double_free_and_bad_stream)
{
	void *p = NULL;
	hipStream_t s;
	cr_assert_eq(hipStreamCreate(&s), hipSuccess);
	cr_assert_eq(hipMallocAsync(&p, 4096, (hipStream_t)-1), hipErrorInvalidHandle);
	cr_assert_eq(hipMallocAsync(&p, 4096, s), hipSuccess);
	cr_assert_eq(hipFreeAsync(p, (hipStream_t)-1), hipErrorInvalidHandle);
	cr_assert_eq(hipFreeAsync(p, s), hipSuccess);
	cr_assert_eq(hipStreamSynchronize(s), hipSuccess);
	cr_assert_eq(hipFreeAsync(p, s), hipErrorInvalidValue);
	void *q = NULL;
	cr_assert_eq(hipMallocAsync(&q, 4096, s), hipSuccess, "the pool still works");
	cr_assert_eq(hipFreeAsync(q, s), hipSuccess);
	cr_assert_eq(hipStreamDestroy(s), hipSuccess);
}
