/* Every entry point that takes a handle, called with handles that are not live handles of its
 * type: wild addresses (unmapped, tiny, foreign heap memory), handles of destroyed objects, and
 * live handles of other types. Each call must return an error and must not crash (issue 12 item
 * 4): the runtime looks a handle up in a table of live handles before it reads through it.
 * The list of entry points is generated from the HIP headers (gen_handle_calls.py). */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include <hip/hip_runtime_api.h>

#define STR(x) #x
#define XSTR(x) STR(x)

#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

/* Zeroed memory every pointer parameter points to: empty strings, zero counts, NULL callbacks. */
static _Alignas(64) unsigned char scratch[1 << 16];

struct handle_call {
	const char *name;
	int (*call)(void *h, hipError_t *err); /* -1: not exported */
	const char *types;                     /* its handle parameters' types */
};

#include "bad_handle_calls.inc"

/* A handle to feed, and the handle type it is live as (NULL: no type at all). */
struct bad {
	const char *what;
	void *h;
	const char *live_as;
};

#define MAX_BAD 64
static struct bad bads[MAX_BAD];
static int nbad;

static void add(const char *what, void *h, const char *live_as)
{
	cr_assert_lt(nbad, MAX_BAD);
	bads[nbad++] = (struct bad){what, h, live_as};
}

static hipChannelFormatDesc float_desc(void)
{
	return (hipChannelFormatDesc){.x = 32, .f = hipChannelFormatKindFloat};
}

static void no_destroy(void *p)
{
	(void)p;
}

/* One object of each type that can be made without a code object; [in] live: keep it. */
static void make_objects(bool live)
{
	const char *tag = live ? "live " : "destroyed ";
	char name[64];
	hipGraph_t g;
	hipGraphNode_t n;
	hipGraphExec_t x;
	cr_assert_eq(hipGraphCreate(&g, 0), hipSuccess);
	cr_assert_eq(hipGraphAddEmptyNode(&n, g, NULL, 0), hipSuccess);
	cr_assert_eq(hipGraphInstantiate(&x, g, NULL, NULL, 0), hipSuccess);

	hipMemPoolProps pp = {.allocType = hipMemAllocationTypePinned,
			      .location = {.type = hipMemLocationTypeDevice, .id = 0}};
	hipMemPool_t pool;
	cr_assert_eq(hipMemPoolCreate(&pool, &pp), hipSuccess);

	hipChannelFormatDesc d = float_desc();
	hipArray_t a;
	cr_assert_eq(hipMallocArray(&a, &d, 8, 8, hipArraySurfaceLoadStore), hipSuccess);
	hipMipmappedArray_t m;
	cr_assert_eq(hipMallocMipmappedArray(&m, &d, make_hipExtent(8, 8, 0), 2, 0), hipSuccess);

	hipResourceDesc rd = {.resType = hipResourceTypeArray, .res.array.array = a};
	hipTextureDesc td = {.filterMode = hipFilterModePoint, .readMode = hipReadModeElementType};
	hipTextureObject_t tex;
	cr_assert_eq(hipCreateTextureObject(&tex, &rd, &td, NULL), hipSuccess);
	hipSurfaceObject_t surf;
	cr_assert_eq(hipCreateSurfaceObject(&surf, &rd), hipSuccess);

	hipUserObject_t uo;
	cr_assert_eq(hipUserObjectCreate(&uo, NULL, no_destroy, 1, hipUserObjectNoDestructorSync),
		     hipSuccess);

	hipMemAllocationProp vp = {.type = hipMemAllocationTypePinned,
				   .location = {.type = hipMemLocationTypeDevice, .id = 0}};
	size_t gran = 0;
	cr_assert_eq(hipMemGetAllocationGranularity(&gran, &vp, hipMemAllocationGranularityMinimum),
		     hipSuccess);
	hipMemGenericAllocationHandle_t vh;
	cr_assert_eq(hipMemCreate(&vh, gran, &vp, 0), hipSuccess);

	hipStream_t s;
	hipEvent_t e;
	cr_assert_eq(hipStreamCreate(&s), hipSuccess);
	cr_assert_eq(hipEventCreate(&e), hipSuccess);

	struct { const char *type; void *h; } objs[] = {
		{"hipGraph_t", g}, {"hipGraphNode_t", n}, {"hipGraphExec_t", x},
		{"hipMemPool_t", pool}, {"hipArray", a}, {"mipmappedArray", m},
		{"hipTextureObject_t", tex}, {"hipSurfaceObject_t", surf},
		{"hipUserObject_t", uo}, {"hipMemGenericAllocationHandle_t", vh},
		{"hipStream_t", s}, {"hipEvent_t", e},
	};
	for (size_t i = 0; i < sizeof(objs) / sizeof(objs[0]); i++) {
		snprintf(name, sizeof(name), "%s%s", tag, objs[i].type);
		add(strdup(name), objs[i].h, live ? objs[i].type : NULL);
	}
	if (live)
		return;
	cr_assert_eq(hipGraphExecDestroy(x), hipSuccess);
	cr_assert_eq(hipGraphDestroy(g), hipSuccess); /* and its node */
	cr_assert_eq(hipMemPoolDestroy(pool), hipSuccess);
	cr_assert_eq(hipDestroyTextureObject(tex), hipSuccess);
	cr_assert_eq(hipDestroySurfaceObject(surf), hipSuccess);
	cr_assert_eq(hipFreeArray(a), hipSuccess);
	cr_assert_eq(hipFreeMipmappedArray(m), hipSuccess);
	cr_assert_eq(hipUserObjectRelease(uo, 1), hipSuccess);
	cr_assert_eq(hipMemRelease(vh), hipSuccess);
	cr_assert_eq(hipStreamDestroy(s), hipSuccess);
	cr_assert_eq(hipEventDestroy(e), hipSuccess);
}

static void make_wild(void)
{
	void *unmapped = mmap(NULL, 1 << 16, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	cr_assert_neq(unmapped, MAP_FAILED);
	add("unmapped page", unmapped, NULL);
	add("unmapped page + 8", (char *)unmapped + 8, NULL);
	add("tiny 0x8", (void *)(uintptr_t)8, NULL);
	add("non-canonical", (void *)(uintptr_t)0xdead000000000000ull, NULL);
	static unsigned char garbage[4096];
	memset(garbage, 0xa5, sizeof(garbage));
	add("foreign heap bytes", garbage, NULL);
	static uint32_t magics[1024];
	for (size_t i = 0; i < 1024; i++) /* every 4-byte pattern the runtime might test for */
		magics[i] = 0x4c4f4f50u ^ (uint32_t)(i * 0x01010101u);
	add("foreign words", magics, NULL);
	hipCtx_t ctx = NULL;
	cr_assert_eq(hipCtxGetCurrent(&ctx), hipSuccess);
	add("live hipCtx_t", ctx, "hipCtx_t");
}

/* Random handles from a fixed seed (so a failure repeats): user-space addresses, 8-byte aligned
 * as a heap pointer would be, and any 64-bit value at all. */
static void make_random(void)
{
	uint64_t x = 0x9e3779b97f4a7c15ull;
	for (int i = 0; i < 8; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		uintptr_t v = i < 4 ? (uintptr_t)(0x10000 + x % 0x7fffffff0000ull) & ~(uintptr_t)7
				    : (uintptr_t)x;
		char name[48];
		snprintf(name, sizeof(name), "random %#jx", (uintmax_t)v);
		add(strdup(name), (void *)v, NULL);
	}
}

/* AMD's answers (ROCm clr) to a handle of each type that is not a live one: the codes a call
 * taking it may return. hipErrorInvalidResourceHandle is hipErrorInvalidHandle's old name. */
struct amd_codes {
	const char *type;
	hipError_t codes[4];
};
static const struct amd_codes amd_codes[] = {
	{"hipModule_t", {hipErrorInvalidHandle, hipErrorInvalidValue}},
	{"hipFunction_t", {hipErrorInvalidHandle, hipErrorInvalidValue, hipErrorInvalidDeviceFunction}},
	{"hipGraph_t", {hipErrorInvalidValue}},
	{"hipGraphNode_t", {hipErrorInvalidValue}},
	{"hipGraphExec_t", {hipErrorInvalidValue}},
	{"hipMemPool_t", {hipErrorInvalidValue}},
	{"hipArray", {hipErrorInvalidHandle, hipErrorInvalidValue, hipErrorContextIsDestroyed}},
	{"ipmappedArray", {hipErrorInvalidHandle, hipErrorInvalidValue, hipErrorContextIsDestroyed}},
	{"hipTextureObject_t", {hipErrorInvalidValue}},
	{"hipSurfaceObject_t", {hipErrorInvalidValue}},
	{"hipLibrary_t", {hipErrorInvalidHandle, hipErrorInvalidValue}},
	{"hipKernel_t", {hipErrorInvalidHandle, hipErrorInvalidValue, hipErrorInvalidDeviceFunction}},
	{"hipUserObject_t", {hipErrorInvalidHandle, hipErrorInvalidValue}},
	{"hipCtx_t", {hipErrorInvalidContext, hipErrorInvalidValue, hipErrorContextIsDestroyed}},
	{"hipMemGenericAllocationHandle_t", {hipErrorInvalidValue}},
	{"hipExternalMemory_t", {hipErrorInvalidHandle, hipErrorInvalidValue}},
	{"hipExternalSemaphore_t", {hipErrorInvalidHandle, hipErrorInvalidValue}},
};

/* Entry points whose answer differs from their handle type's: clr's hipModuleUnload reports a
 * module it did not load as not found (PlatformState::unloadModule); hipBindTextureToArray is
 * handed the zeroed scratch as its texture reference, which is no registered reference, and that
 * is checked (hipErrorInvalidSymbol) before the array. */
static const struct { const char *name; hipError_t code; } amd_exceptions[] = {
	{"hipModuleUnload", hipErrorNotFound},
	{"hipBindTextureToArray", hipErrorInvalidSymbol},
};

/* Is [in] err one of AMD's codes for a bad handle of a type the call takes? */
static bool amd_code(const char *name, const char *types, hipError_t err)
{
	for (size_t i = 0; i < sizeof(amd_exceptions) / sizeof(amd_exceptions[0]); i++)
		if (!strcmp(name, amd_exceptions[i].name) && err == amd_exceptions[i].code)
			return true;
	for (size_t i = 0; i < sizeof(amd_codes) / sizeof(amd_codes[0]); i++) {
		if (!strstr(types, amd_codes[i].type))
			continue;
		for (int j = 0; j < 4 && amd_codes[i].codes[j]; j++)
			if (err == amd_codes[i].codes[j])
				return true;
	}
	return false;
}

/* Outcomes by error code, for the summary line. */
#define MAX_CODES 16
static struct { hipError_t code; int n; } outcomes[MAX_CODES];

static void count_outcome(hipError_t err)
{
	int i = 0;
	while (i < MAX_CODES - 1 && outcomes[i].n && outcomes[i].code != err)
		i++;
	outcomes[i].code = err;
	outcomes[i].n++;
}

/* Does the entry point take [in] type (a handle type name or a part of one)? */
static bool takes(const struct handle_call *c, const char *type)
{
	return type && strcasestr(c->types, type) != NULL;
}

Test(bad_handles, every_entry_point_rejects_every_bad_handle, .timeout = 600)
{
	cr_assert_eq(hipSetDevice(0), hipSuccess);
	make_wild();
	make_random();
	make_objects(true);
	make_objects(false);

	size_t ncalls = sizeof(handle_calls) / sizeof(handle_calls[0]);
	int apis = 0, cases = 0, missing = 0, failures = 0, wrong_code = 0, unsupported = 0;
	for (size_t i = 0; i < ncalls; i++) {
		const struct handle_call *c = &handle_calls[i];
		hipError_t err = hipSuccess;
		if (c->call(bads[0].h, &err) < 0) {
			missing++;
			continue;
		}
		apis++;
		for (int b = 0; b < nbad; b++) {
			if (takes(c, bads[b].live_as))
				continue; /* a live handle of its own type: not a bad handle here */
			fprintf(stderr, "%s(%s)\n", c->name, bads[b].what);
			cases++;
			if (c->call(bads[b].h, &err) < 0 || err == hipSuccess) {
				cr_log_error("%s accepted %s", c->name, bads[b].what);
				failures++;
			} else if (err == hipErrorNotSupported) {
				unsupported++; /* not implemented: it reads no handle */
			} else if (!amd_code(c->name, c->types, err)) {
				cr_log_error("%s(%s): %s, not AMD's code for %s", c->name,
					     bads[b].what, hipGetErrorName(err), c->types);
				wrong_code++;
			}
			count_outcome(err);
			(void)hipGetLastError();
		}
	}
	printf("bad handles: %zu entry points in the headers, %d exported, %d not exported; "
	       "%d cases, %d accepted, %d not AMD's code, %d hipErrorNotSupported\n", ncalls,
	       apis, missing, cases, failures, wrong_code, unsupported);
	for (int i = 0; i < MAX_CODES && outcomes[i].n; i++)
		printf("  %-32s %d\n", hipGetErrorName(outcomes[i].code), outcomes[i].n);
	cr_assert_eq(failures, 0);
	cr_assert_eq(wrong_code, 0);
}

/* hipGraphLaunch looks its stream up as every stream-taking call does. */
Test(bad_handles, graph_launch_checks_its_stream)
{
	hipGraph_t g;
	hipGraphNode_t n;
	hipGraphExec_t x;
	hipStream_t s;
	cr_assert_eq(hipGraphCreate(&g, 0), hipSuccess);
	cr_assert_eq(hipGraphAddEmptyNode(&n, g, NULL, 0), hipSuccess);
	cr_assert_eq(hipGraphInstantiate(&x, g, NULL, NULL, 0), hipSuccess);
	cr_assert_eq(hipStreamCreate(&s), hipSuccess);
	cr_assert_eq(hipGraphLaunch(x, s), hipSuccess);
	cr_assert_eq(hipStreamSynchronize(s), hipSuccess);
	cr_assert_eq(hipStreamDestroy(s), hipSuccess);
	cr_assert_eq(hipGraphLaunch(x, s), hipErrorContextIsDestroyed);
	void *wild = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	cr_assert_eq(hipGraphLaunch(x, (hipStream_t)wild), hipErrorContextIsDestroyed);
	cr_assert_eq(hipGraphLaunch(x, (hipStream_t)g), hipErrorContextIsDestroyed);
	cr_assert_eq(hipGraphLaunch(x, NULL), hipSuccess);
	cr_assert_eq(hipDeviceSynchronize(), hipSuccess);
	cr_assert_eq(hipGraphExecDestroy(x), hipSuccess);
	cr_assert_eq(hipGraphDestroy(g), hipSuccess);
}

/* A destroyed graph, node or executable graph is rejected, even once its memory is reused. */
Test(bad_handles, destroyed_graph_objects)
{
	hipGraph_t g;
	hipGraphNode_t n;
	hipGraphExec_t x;
	cr_assert_eq(hipGraphCreate(&g, 0), hipSuccess);
	cr_assert_eq(hipGraphAddEmptyNode(&n, g, NULL, 0), hipSuccess);
	cr_assert_eq(hipGraphInstantiate(&x, g, NULL, NULL, 0), hipSuccess);
	cr_assert_eq(hipGraphExecDestroy(x), hipSuccess);
	cr_assert_neq(hipGraphExecDestroy(x), hipSuccess);
	cr_assert_neq(hipGraphLaunch(x, NULL), hipSuccess);
	cr_assert_eq(hipGraphDestroy(g), hipSuccess);
	hipGraphNodeType t = hipGraphNodeTypeCount;
	cr_assert_neq(hipGraphNodeGetType(n, &t), hipSuccess);
	cr_assert_eq(t, hipGraphNodeTypeCount);
	cr_assert_neq(hipGraphDestroy(g), hipSuccess);
	size_t count = 7;
	cr_assert_neq(hipGraphGetNodes(g, NULL, &count), hipSuccess);
}
