/* Every entry point that takes a handle, called with handles that are not live handles of its
 * type: wild addresses (unmapped, tiny, foreign heap memory), handles of destroyed objects, and
 * live handles of other types. Each call must return an error and must not crash (issue 12 item
 * 4): the runtime looks a handle up in a table of live handles before it reads through it.
 * The list of entry points is generated from the HIP headers (gen_handle_calls.py). */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <dlfcn.h>
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

#define MAX_BAD 48
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

/* Does the entry point take [in] type (a handle type name or a part of one)? */
static bool takes(const struct handle_call *c, const char *type)
{
	return type && strcasestr(c->types, type) != NULL;
}

Test(bad_handles, every_entry_point_rejects_every_bad_handle, .timeout = 600)
{
	cr_assert_eq(hipSetDevice(0), hipSuccess);
	make_wild();
	make_objects(true);
	make_objects(false);

	size_t ncalls = sizeof(handle_calls) / sizeof(handle_calls[0]);
	int apis = 0, cases = 0, missing = 0, failures = 0;
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
			}
			(void)hipGetLastError();
		}
	}
	printf("bad handles: %zu entry points in the headers, %d exported, %d not exported; "
	       "%d cases, %d accepted\n", ncalls, apis, missing, cases, failures);
	cr_assert_eq(failures, 0);
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
