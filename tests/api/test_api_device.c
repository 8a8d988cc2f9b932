/* Devices: count, properties (both layouts), attributes, current device, PCI ids, limits, flags. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <hip/hip_runtime_api.h>

static bool profile_is(const char *p)
{
	const char *v = getenv("KFDSIM_PROFILE");
	return v && strcmp(v, p) == 0;
}

Test(device, count_and_init)
{
	int n = -1;
	cr_assert_eq(hipInit(0), hipSuccess);
	cr_assert_eq(hipInit(1), hipErrorInvalidValue);
	cr_assert_eq(hipGetDeviceCount(&n), hipSuccess);
	cr_assert_geq(n, 1);
	cr_assert_eq(hipGetDeviceCount(NULL), hipErrorInvalidValue);
}

Test(device, properties_r0600)
{
	hipDeviceProp_t p;
	memset(&p, 0xff, sizeof(p));
	cr_assert_eq(hipGetDeviceProperties(&p, 0), hipSuccess);
	cr_assert_eq(p.warpSize, 64);
	cr_assert_eq(p.maxThreadsPerBlock, 1024);
	cr_assert_eq(p.maxThreadsDim[0], 1024);
	cr_assert_eq(p.sharedMemPerBlock, 65536u);
	cr_assert_eq(p.major, 9);
	cr_assert_gt(p.multiProcessorCount, 0);
	cr_assert_gt(p.totalGlobalMem, 0u);
	cr_assert_gt(p.clockRate, 0);
	cr_assert_eq(p.maxThreadsPerMultiProcessor, 2048);
	cr_assert_eq(p.concurrentKernels, 1);
	cr_assert_eq(p.unifiedAddressing, 1);
	cr_assert_eq(p.canMapHostMemory, 1);
	cr_assert_eq(strncmp(p.gcnArchName, "gfx9", 4), 0, "gcnArchName %s", p.gcnArchName);
	cr_assert_neq(p.name[0], '\0');
	if (profile_is("gfx942")) {
		cr_assert_eq(p.minor, 4);
		cr_assert_str_eq(p.gcnArchName, "gfx942:sramecc+:xnack-");
		cr_assert_str_eq(p.name, "AMD Instinct MI300X");
		cr_assert_eq(p.multiProcessorCount, 304);
		cr_assert_eq(p.clockRate, 2100 * 1000);
		cr_assert_eq(p.totalGlobalMem, 206158430208ull);
		cr_assert_eq(p.memoryBusWidth, 8192);
		cr_assert_eq(p.memoryClockRate, 1300 * 1000);
	}
	if (profile_is("gfx90a")) {
		cr_assert_eq(p.minor, 0);
		cr_assert_eq(strncmp(p.gcnArchName, "gfx90a", 6), 0);
	}
}

Test(device, properties_r0000_matches_r0600)
{
	hipDeviceProp_tR0600 n;
	hipDeviceProp_tR0000 o;
	cr_assert_eq(hipGetDevicePropertiesR0600(&n, 0), hipSuccess);
	cr_assert_eq(hipGetDevicePropertiesR0000(&o, 0), hipSuccess);
	cr_assert_str_eq(o.name, n.name);
	cr_assert_str_eq(o.gcnArchName, n.gcnArchName);
	cr_assert_eq(o.totalGlobalMem, n.totalGlobalMem);
	cr_assert_eq(o.multiProcessorCount, n.multiProcessorCount);
	cr_assert_eq(o.major, n.major);
	cr_assert_eq(o.minor, n.minor);
	cr_assert_eq(o.pciBusID, n.pciBusID);
	cr_assert_eq(o.gcnArch, n.major * 100 + n.minor * 10 + (o.gcnArch % 10));
}

Test(device, properties_bad_input)
{
	hipDeviceProp_t p;
	cr_assert_eq(hipGetDeviceProperties(NULL, 0), hipErrorInvalidValue);
	cr_assert_eq(hipGetDeviceProperties(&p, -1), hipErrorInvalidDevice);
	cr_assert_eq(hipGetDeviceProperties(&p, 1000), hipErrorInvalidDevice);
}

/* Every attribute that has a hipDeviceProp_t field must agree with it. */
Test(device, attributes_match_properties)
{
	hipDeviceProp_t p;
	int v;
	cr_assert_eq(hipGetDeviceProperties(&p, 0), hipSuccess);
	struct { hipDeviceAttribute_t a; int want; } t[] = {
		{hipDeviceAttributeMaxThreadsPerBlock, p.maxThreadsPerBlock},
		{hipDeviceAttributeMaxBlockDimX, p.maxThreadsDim[0]},
		{hipDeviceAttributeMaxBlockDimZ, p.maxThreadsDim[2]},
		{hipDeviceAttributeMaxGridDimX, p.maxGridSize[0]},
		{hipDeviceAttributeMaxGridDimY, p.maxGridSize[1]},
		{hipDeviceAttributeMaxSharedMemoryPerBlock, (int)p.sharedMemPerBlock},
		{hipDeviceAttributeWarpSize, p.warpSize},
		{hipDeviceAttributeMaxRegistersPerBlock, p.regsPerBlock},
		{hipDeviceAttributeClockRate, p.clockRate},
		{hipDeviceAttributeMemoryClockRate, p.memoryClockRate},
		{hipDeviceAttributeMemoryBusWidth, p.memoryBusWidth},
		{hipDeviceAttributeMultiprocessorCount, p.multiProcessorCount},
		{hipDeviceAttributeL2CacheSize, p.l2CacheSize},
		{hipDeviceAttributeMaxThreadsPerMultiProcessor, p.maxThreadsPerMultiProcessor},
		{hipDeviceAttributeComputeCapabilityMajor, p.major},
		{hipDeviceAttributeComputeCapabilityMinor, p.minor},
		{hipDeviceAttributePciBusId, p.pciBusID},
		{hipDeviceAttributePciDeviceId, p.pciDeviceID},
		{hipDeviceAttributePciDomainID, p.pciDomainID},
		{hipDeviceAttributeConcurrentKernels, p.concurrentKernels},
		{hipDeviceAttributeCooperativeLaunch, p.cooperativeLaunch},
		{hipDeviceAttributeManagedMemory, p.managedMemory},
		{hipDeviceAttributeIntegrated, p.integrated},
		{hipDeviceAttributeIsLargeBar, p.isLargeBar},
		{hipDeviceAttributeAsicRevision, p.asicRevision},
		{hipDeviceAttributeTextureAlignment, (int)p.textureAlignment},
		{hipDeviceAttributeMaxSharedMemoryPerMultiprocessor,
		 (int)p.maxSharedMemoryPerMultiProcessor},
		{hipDeviceAttributeClockInstructionRate, p.clockInstructionRate},
		{hipDeviceAttributeTotalConstantMemory, (int)p.totalConstMem},
		{hipDeviceAttributeUnifiedAddressing, 1},
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		v = -12345;
		cr_assert_eq(hipDeviceGetAttribute(&v, t[i].a, 0), hipSuccess, "attr %d", t[i].a);
		cr_assert_eq(v, t[i].want, "attr %d: %d != %d", t[i].a, v, t[i].want);
	}
}

/* Every value of the enum either answers hipSuccess or hipErrorInvalidValue, never crashes, and
 * the named CUDA-compatible range has no holes except the retired numbers. */
Test(device, attributes_every_value)
{
	/* The HDP attributes store a pointer, as AMD's do: give every query 8 bytes. */
	union { int i; void *p; } u;
	int v, ok = 0;
	for (int a = 0; a < 200; a++) {
		hipError_t e = hipDeviceGetAttribute(&u.i, (hipDeviceAttribute_t)a, 0);
		cr_assert(e == hipSuccess || e == hipErrorInvalidValue, "attr %d: %d", a, e);
		ok += e == hipSuccess;
	}
	cr_assert_geq(ok, 80);
	for (int a = 10000; a < 10100; a++) {
		hipError_t e = hipDeviceGetAttribute(&u.i, (hipDeviceAttribute_t)a, 0);
		cr_assert(e == hipSuccess || e == hipErrorInvalidValue, "attr %d: %d", a, e);
	}
	cr_assert_eq(hipDeviceGetAttribute(&v, hipDeviceAttributeCudaCompatibleEnd, 0),
		     hipErrorInvalidValue);
	cr_assert_eq(hipDeviceGetAttribute(&v, (hipDeviceAttribute_t)-1, 0), hipErrorInvalidValue);
	cr_assert_eq(hipDeviceGetAttribute(NULL, hipDeviceAttributeWarpSize, 0), hipErrorInvalidValue);
	cr_assert_eq(hipDeviceGetAttribute(&v, hipDeviceAttributeWarpSize, 99), hipErrorInvalidDevice);
	cr_assert_eq(hipDeviceGetAttribute(&v, hipDeviceAttributeNumberOfXccs, 0), hipSuccess);
	if (profile_is("gfx942"))
		cr_assert_eq(v, 8);
	/* textures need image instructions: gfx90a has them, gfx942 does not */
	cr_assert_eq(hipDeviceGetAttribute(&v, hipDeviceAttributeImageSupport, 0), hipSuccess);
	cr_assert_eq(v, profile_is("gfx942") ? 0 : 1);
	cr_assert_eq(hipDeviceGetAttribute(&v, hipDeviceAttributeWallClockRate, 0), hipSuccess);
	cr_assert_gt(v, 0);
}

Test(device, set_get_current)
{
	int d = -1, n = 0;
	cr_assert_eq(hipGetDeviceCount(&n), hipSuccess);
	cr_assert_eq(hipGetDevice(&d), hipSuccess);
	cr_assert_eq(d, 0);
	cr_assert_eq(hipSetDevice(n - 1), hipSuccess);
	cr_assert_eq(hipGetDevice(&d), hipSuccess);
	cr_assert_eq(d, n - 1);
	cr_assert_eq(hipSetDevice(n), hipErrorInvalidDevice);
	cr_assert_eq(hipSetDevice(-1), hipErrorInvalidDevice);
	cr_assert_eq(hipGetDevice(&d), hipSuccess);
	cr_assert_eq(d, n - 1, "a failed hipSetDevice keeps the current device");
	cr_assert_eq(hipGetDevice(NULL), hipErrorInvalidValue);
	cr_assert_eq(hipSetDevice(0), hipSuccess);
}

static void *other_thread(void *arg)
{
	int *out = arg;
	hipGetDevice(out);
	return NULL;
}

Test(device, current_device_is_per_thread)
{
	int n = 0, seen = -1;
	cr_assert_eq(hipGetDeviceCount(&n), hipSuccess);
	cr_assert_eq(hipSetDevice(n - 1), hipSuccess);
	pthread_t t;
	pthread_create(&t, NULL, other_thread, &seen);
	pthread_join(t, NULL);
	cr_assert_eq(seen, 0, "a new thread starts on device 0");
}

Test(device, pci_bus_id_round_trip)
{
	char id[32];
	int d = -1;
	hipDeviceProp_t p;
	cr_assert_eq(hipGetDeviceProperties(&p, 0), hipSuccess);
	cr_assert_eq(hipDeviceGetPCIBusId(id, sizeof(id), 0), hipSuccess);
	char want[32];
	snprintf(want, sizeof(want), "%04x:%02x:%02x.0", p.pciDomainID, p.pciBusID, p.pciDeviceID);
	cr_assert_str_eq(id, want);
	cr_assert_eq(hipDeviceGetByPCIBusId(&d, id), hipSuccess);
	cr_assert_eq(d, 0);
	cr_assert_eq(hipDeviceGetByPCIBusId(&d, "ffff:ff:1f.0"), hipErrorInvalidValue);
	cr_assert_eq(hipDeviceGetByPCIBusId(&d, "garbage"), hipErrorInvalidValue);
	cr_assert_eq(hipDeviceGetByPCIBusId(NULL, id), hipErrorInvalidValue);
	cr_assert_eq(hipDeviceGetPCIBusId(id, 5, 0), hipErrorInvalidValue);
	cr_assert_eq(hipDeviceGetPCIBusId(NULL, 32, 0), hipErrorInvalidValue);
	cr_assert_eq(hipDeviceGetPCIBusId(id, 32, 77), hipErrorInvalidDevice);
}

Test(device, name_total_mem_capability)
{
	char name[256];
	size_t total = 0;
	int major = 0, minor = -1;
	hipDeviceProp_t p;
	cr_assert_eq(hipGetDeviceProperties(&p, 0), hipSuccess);
	cr_assert_eq(hipDeviceGetName(name, sizeof(name), 0), hipSuccess);
	cr_assert_str_eq(name, p.name);
	cr_assert_eq(hipDeviceGetName(name, 4, 0), hipSuccess);
	cr_assert_eq(strlen(name), 3u);
	cr_assert_eq(hipDeviceGetName(NULL, 4, 0), hipErrorInvalidValue);
	cr_assert_eq(hipDeviceTotalMem(&total, 0), hipSuccess);
	cr_assert_eq(total, p.totalGlobalMem);
	cr_assert_eq(hipDeviceTotalMem(&total, 42), hipErrorInvalidDevice);
	cr_assert_eq(hipDeviceComputeCapability(&major, &minor, 0), hipSuccess);
	cr_assert_eq(major, p.major);
	cr_assert_eq(minor, p.minor);
}

Test(device, mem_get_info)
{
	size_t free_b = 0, total = 0;
	cr_assert_eq(hipMemGetInfo(&free_b, &total), hipSuccess);
	cr_assert_gt(total, 0u);
	cr_assert_leq(free_b, total);
	cr_assert_eq(hipMemGetInfo(NULL, &total), hipSuccess); /* CUDA's answer: NULL is skipped */
	cr_assert_gt(total, 0u);
}

Test(device, versions)
{
	int rv = 0, dv = 0;
	cr_assert_eq(hipRuntimeGetVersion(&rv), hipSuccess);
	cr_assert_geq(rv, 60000000);
	cr_assert_eq(hipDriverGetVersion(&dv), hipSuccess);
	cr_assert_gt(dv, 0);
	cr_assert_eq(hipRuntimeGetVersion(NULL), hipErrorInvalidValue);
}

Test(device, limits)
{
	size_t v = 0;
	cr_assert_eq(hipDeviceGetLimit(&v, hipLimitStackSize), hipSuccess);
	cr_assert_eq(v, 1024u);
	cr_assert_eq(hipDeviceSetLimit(hipLimitStackSize, 4096), hipSuccess);
	cr_assert_eq(hipDeviceGetLimit(&v, hipLimitStackSize), hipSuccess);
	cr_assert_eq(v, 4096u);
	cr_assert_eq(hipDeviceSetLimit(hipLimitMallocHeapSize, 1 << 24), hipSuccess);
	cr_assert_eq(hipDeviceGetLimit(&v, hipLimitMallocHeapSize), hipSuccess);
	cr_assert_eq(v, (size_t)1 << 24);
	cr_assert_eq(hipDeviceGetLimit(NULL, hipLimitStackSize), hipErrorInvalidValue);
	cr_assert_eq(hipDeviceGetLimit(&v, (enum hipLimit_t)0x7777), hipErrorInvalidValue);
	cr_assert_eq(hipDeviceSetLimit(hipLimitStackSize, (size_t)1 << 40), hipErrorInvalidValue);
	/* clr: a limit inside the enum's range but not handled, or negative, is unsupported */
	cr_assert_eq(hipDeviceGetLimit(&v, (enum hipLimit_t)-1), hipErrorUnsupportedLimit);
	cr_assert_eq(hipDeviceSetLimit((enum hipLimit_t)-1, 1), hipErrorUnsupportedLimit);
}

/* Cache and bank configuration are fixed on gfx9: valid requests succeed without effect. */
Test(device, cache_and_bank_config)
{
	hipFuncCache_t c = (hipFuncCache_t)-1;
	hipSharedMemConfig b = (hipSharedMemConfig)-1;
	cr_assert_eq(hipDeviceSetCacheConfig(hipFuncCachePreferShared), hipSuccess);
	cr_assert_eq(hipDeviceGetCacheConfig(&c), hipSuccess);
	cr_assert_eq(c, hipFuncCachePreferNone);
	cr_assert_eq(hipDeviceSetCacheConfig((hipFuncCache_t)9), hipErrorInvalidValue);
	cr_assert_eq(hipDeviceSetSharedMemConfig(hipSharedMemBankSizeEightByte), hipSuccess);
	cr_assert_eq(hipDeviceGetSharedMemConfig(&b), hipSuccess);
	cr_assert_eq(b, hipSharedMemBankSizeFourByte);
	cr_assert_eq(hipDeviceSetSharedMemConfig((hipSharedMemConfig)9), hipErrorInvalidValue);
}

Test(device, flags)
{
	unsigned f = 99;
	cr_assert_eq(hipSetDeviceFlags(hipDeviceScheduleBlockingSync), hipSuccess);
	cr_assert_eq(hipGetDeviceFlags(&f), hipSuccess);
	cr_assert_eq(f, (unsigned)hipDeviceScheduleBlockingSync);
	cr_assert_eq(hipSetDeviceFlags(hipDeviceScheduleSpin | hipDeviceMapHost), hipSuccess);
	cr_assert_eq(hipGetDeviceFlags(&f), hipSuccess);
	cr_assert_eq(f, (unsigned)hipDeviceScheduleSpin, "only the scheduling bits are kept (clr)");
	cr_assert_eq(hipSetDeviceFlags(0x12340000), hipErrorInvalidValue);
	cr_assert_eq(hipGetDeviceFlags(NULL), hipErrorInvalidValue);
	cr_assert_eq(hipSetDeviceFlags(hipDeviceScheduleAuto), hipSuccess);
}

/* hipDeviceReset frees the program's allocations on the device (clr purges them too); the
 * runtime's own memory (queues, staging buffers) stays, so the device works on afterwards. */
Test(device, synchronize_and_reset)
{
	void *small = NULL, *big = NULL, *host = NULL;
	size_t free_before = 0, free_after = 0, total = 0;
	cr_assert_eq(hipDeviceSynchronize(), hipSuccess);
	cr_assert_eq(hipMalloc(&small, 4096), hipSuccess);
	cr_assert_eq(hipMalloc(&big, 64u << 20), hipSuccess);
	cr_assert_eq(hipHostMalloc(&host, 8192, 0), hipSuccess);
	cr_assert_eq(hipMemset(big, 1, 64u << 20), hipSuccess);
	cr_assert_eq(hipMemGetInfo(&free_before, &total), hipSuccess);
	cr_assert_eq(hipDeviceReset(), hipSuccess);
	cr_assert_eq(hipMemGetInfo(&free_after, &total), hipSuccess);
	cr_assert_geq(free_after, free_before + (64u << 20), "the 64 MiB block went back");
	hipPointerAttribute_t a;
	cr_assert_eq(hipPointerGetAttributes(&a, big), hipSuccess);
	cr_assert_eq(a.type, hipMemoryTypeUnregistered, "the address is no allocation any more");
	cr_assert_eq(hipFree(small), hipErrorInvalidValue);
	cr_assert_eq(hipFree(big), hipErrorInvalidValue);
	cr_assert_eq(hipHostFree(host), hipErrorInvalidValue);
	cr_assert_eq(hipDeviceSynchronize(), hipSuccess);

	int in[64], out[64];
	void *p = NULL;
	for (int i = 0; i < 64; i++)
		in[i] = i * 7;
	cr_assert_eq(hipMalloc(&p, sizeof(in)), hipSuccess);
	cr_assert_eq(hipMemcpy(p, in, sizeof(in), hipMemcpyHostToDevice), hipSuccess);
	cr_assert_eq(hipMemcpy(out, p, sizeof(out), hipMemcpyDeviceToHost), hipSuccess);
	cr_assert_arr_eq(out, in, sizeof(in), "copies work after the reset");
	cr_assert_eq(hipFree(p), hipSuccess);
}

Test(device, stream_priority_range)
{
	int least = 7, greatest = 7;
	cr_assert_eq(hipDeviceGetStreamPriorityRange(&least, &greatest), hipSuccess);
	cr_assert_eq(least, 1);
	cr_assert_eq(greatest, -1);
	cr_assert_eq(hipDeviceGetStreamPriorityRange(NULL, NULL), hipSuccess);
}

Test(device, choose_device)
{
	hipDeviceProp_t want;
	int d = -1;
	memset(&want, 0, sizeof(want));
	want.major = 9;
	cr_assert_eq(hipChooseDevice(&d, &want), hipSuccess);
	cr_assert_eq(d, 0);
	cr_assert_eq(hipChooseDevice(NULL, &want), hipErrorInvalidValue);
}

/* After fork() the child must not touch the parent's GPU state: every call fails cleanly. */
Test(device, forked_child_is_refused)
{
	void *p = NULL;
	hipStream_t s;
	cr_assert_eq(hipMalloc(&p, 4096), hipSuccess);
	cr_assert_eq(hipStreamCreate(&s), hipSuccess);
	pid_t pid = fork();
	if (pid == 0) {
		int v = 1, ok = 1;
		void *q = NULL;
		ok &= hipMalloc(&q, 64) == hipErrorNotInitialized;
		ok &= hipMemcpy(p, &v, 4, hipMemcpyHostToDevice) == hipErrorNotInitialized;
		ok &= hipStreamSynchronize(s) == hipErrorNotInitialized;
		ok &= hipFree(p) == hipErrorNotInitialized;
		_exit(ok ? 0 : 1);
	}
	int status = -1;
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %#x", status);
	cr_assert_eq(hipStreamDestroy(s), hipSuccess);
	cr_assert_eq(hipFree(p), hipSuccess, "the parent is unaffected");
}
