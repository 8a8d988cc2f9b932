/* Execution-context resources: what a device holds, how splits divide it (counts, remainders,
 * disjoint CU sets), descriptors, contexts and their streams' resources, and the error codes of
 * each call (clr's, hip_executionctx.cpp, where clr has one). */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include <hip/hip_runtime_api.h>

#include "green_ctx.h"

#define HIP_OK(expr) cr_assert_eq((expr), hipSuccess, "%s", #expr)
#define WORDS (GREEN_TAG_MAX_CUS / 32)

static int device_cus(void)
{
	int n = 0;
	HIP_OK(hipDeviceGetAttribute(&n, hipDeviceAttributeMultiprocessorCount, 0));
	cr_assert_gt(n, 0);
	return n;
}

/* The CU bits a resource names (green_ctx.h tag layout). */
static void cus_of(const hipDevResource *r, uint32_t out[WORDS])
{
	uint32_t magic;
	memcpy(&magic, r->_internal_padding, sizeof(magic));
	cr_assert_eq(magic, GREEN_TAG_MAGIC, "resource carries hipkfd's tag");
	memcpy(out, r->_internal_padding + GREEN_TAG_CUS_OFFSET, WORDS * sizeof(uint32_t));
}

static unsigned popcount(const uint32_t m[WORDS])
{
	unsigned n = 0;
	for (int i = 0; i < WORDS; i++)
		n += (unsigned)__builtin_popcount(m[i]);
	return n;
}

static void whole_device(hipDevResource *r)
{
	memset(r, 0, sizeof(*r));
	HIP_OK(hipDeviceGetDevResource(0, r, hipDevResourceTypeSm));
}

Test(resource, device_holds_every_cu)
{
	const int n = device_cus();
	hipDevResource r;
	memset(&r, 0xa5, sizeof(r));
	HIP_OK(hipDeviceGetDevResource(0, &r, hipDevResourceTypeSm));
	cr_assert_eq(r.type, hipDevResourceTypeSm);
	cr_assert_eq(r.sm.smCount, (unsigned)n);
	/* gfx942 runs in CU mode: one CU is the unit (clr: 2 only in WGP mode, gfx10+). */
	cr_assert_eq(r.sm.smCoscheduledAlignment, 1u);
	cr_assert_eq(r.sm.minSmPartitionSize, 1u);
	cr_assert_eq(r.sm.flags, 0u);
	cr_assert_null(r.nextResource);
	uint32_t m[WORDS];
	cus_of(&r, m);
	cr_assert_eq(popcount(m), (unsigned)n);
	cr_assert_eq(m[0], 0xffffffffu, "CUs 0..31");
	int32_t dev;
	memcpy(&dev, r._internal_padding + 4, sizeof(dev));
	cr_assert_eq(dev, 0);
}

Test(resource, device_query_errors)
{
	hipDevResource r;
	cr_assert_eq(hipDeviceGetDevResource(0, NULL, hipDevResourceTypeSm), hipErrorInvalidValue);
	cr_assert_eq(hipDeviceGetDevResource(0, &r, hipDevResourceTypeWorkqueueConfig),
		     hipErrorInvalidResourceType);
	cr_assert_eq(hipDeviceGetDevResource(0, &r, hipDevResourceTypeWorkqueue),
		     hipErrorInvalidResourceType);
	cr_assert_eq(hipDeviceGetDevResource(0, &r, hipDevResourceTypeInvalid),
		     hipErrorInvalidResourceType);
	cr_assert_eq(hipDeviceGetDevResource(-1, &r, hipDevResourceTypeSm), hipErrorInvalidDevice);
	cr_assert_eq(hipDeviceGetDevResource(7, &r, hipDevResourceTypeSm), hipErrorInvalidDevice);
	cr_assert_eq(hipGetLastError(), hipErrorInvalidDevice, "failures set the last error");
}

/* The groups and the remainder are disjoint and together make up exactly the input. */
static void assert_partition(const hipDevResource *in, const hipDevResource *groups, unsigned n,
			     const hipDevResource *rem)
{
	uint32_t want[WORDS], seen[WORDS] = {0}, m[WORDS];
	cus_of(in, want);
	for (unsigned g = 0; g <= n; g++) {
		const hipDevResource *r = g < n ? &groups[g] : rem;
		if (g == n && (!rem || rem->type == hipDevResourceTypeInvalid))
			break;
		cus_of(r, m);
		cr_assert_eq(popcount(m), r->sm.smCount, "group %u: smCount matches its CUs", g);
		for (int i = 0; i < WORDS; i++) {
			cr_assert_eq(seen[i] & m[i], 0u, "group %u overlaps an earlier one", g);
			cr_assert_eq(m[i] & ~want[i], 0u, "group %u has CUs the input lacks", g);
			seen[i] |= m[i];
		}
	}
	for (int i = 0; i < WORDS; i++)
		cr_assert_eq(seen[i], want[i], "the split covers the input (word %d)", i);
}

Test(split_by_count, equal_groups_and_remainder)
{
	const unsigned n = (unsigned)device_cus();
	hipDevResource dev, g[3], rem;
	whole_device(&dev);
	unsigned groups = 3;
	HIP_OK(hipDevSmResourceSplitByCount(g, &groups, &dev, &rem, 0, 16));
	cr_assert_eq(groups, 3u);
	for (int i = 0; i < 3; i++) {
		cr_assert_eq(g[i].type, hipDevResourceTypeSm);
		cr_assert_eq(g[i].sm.smCount, 16u);
		cr_assert_eq(g[i].sm.smCoscheduledAlignment, 1u);
	}
	cr_assert_eq(rem.type, hipDevResourceTypeSm);
	cr_assert_eq(rem.sm.smCount, n - 48);
	assert_partition(&dev, g, 3, &rem);
	/* The first group takes the lowest CUs. */
	uint32_t m[WORDS];
	cus_of(&g[0], m);
	cr_assert_eq(m[0], 0xffffu);
}

Test(split_by_count, fewer_groups_when_they_do_not_fit)
{
	const unsigned n = (unsigned)device_cus();
	hipDevResource dev, g[10], rem;
	whole_device(&dev);
	const unsigned size = n / 3 + 1; /* only two fit */
	unsigned groups = 10;
	HIP_OK(hipDevSmResourceSplitByCount(g, &groups, &dev, &rem, 0, size));
	cr_assert_eq(groups, 2u);
	cr_assert_eq(g[1].sm.smCount, size);
	cr_assert_eq(rem.sm.smCount, n - 2 * size);
	assert_partition(&dev, g, 2, &rem);
}

Test(split_by_count, dry_run_counts_groups)
{
	const unsigned n = (unsigned)device_cus();
	hipDevResource dev;
	whole_device(&dev);
	unsigned groups = 0;
	HIP_OK(hipDevSmResourceSplitByCount(NULL, &groups, &dev, NULL, 0, 8));
	cr_assert_eq(groups, n / 8);
	groups = 99;
	HIP_OK(hipDevSmResourceSplitByCount(NULL, &groups, &dev, NULL, 0, n + 1));
	cr_assert_eq(groups, 0u, "a group larger than the input does not fit");
	/* minCount 0 asks for the smallest groups: one co-scheduled unit. */
	HIP_OK(hipDevSmResourceSplitByCount(NULL, &groups, &dev, NULL, 0, 0));
	cr_assert_eq(groups, n);
}

Test(split_by_count, exact_fit_leaves_an_invalid_remainder)
{
	const unsigned n = (unsigned)device_cus();
	hipDevResource dev, g[1], rem;
	whole_device(&dev);
	memset(&rem, 0x5a, sizeof(rem));
	unsigned groups = 1;
	HIP_OK(hipDevSmResourceSplitByCount(g, &groups, &dev, &rem, 0, n));
	cr_assert_eq(groups, 1u);
	cr_assert_eq(g[0].sm.smCount, n);
	cr_assert_eq(rem.type, hipDevResourceTypeInvalid);
	cr_assert_eq(rem.sm.smCount, 0u);
	/* No remainder pointer: the leftover is dropped. */
	groups = 1;
	HIP_OK(hipDevSmResourceSplitByCount(g, &groups, &dev, NULL, 0, 4));
	cr_assert_eq(g[0].sm.smCount, 4u);
}

Test(split_by_count, remainder_splits_again_inside_itself)
{
	hipDevResource dev, g[2], rem, g2[2], rem2;
	whole_device(&dev);
	unsigned groups = 2;
	HIP_OK(hipDevSmResourceSplitByCount(g, &groups, &dev, &rem, 0, 10));
	groups = 2;
	HIP_OK(hipDevSmResourceSplitByCount(g2, &groups, &rem, &rem2, 0, 5));
	cr_assert_eq(groups, 2u);
	assert_partition(&rem, g2, 2, &rem2);
	uint32_t m[WORDS];
	cus_of(&g2[0], m);
	cr_assert_eq(m[0], 0x1fu << 20, "the remainder's first CUs follow the two groups of 10");
}

Test(split_by_count, output_may_alias_input)
{
	const unsigned n = (unsigned)device_cus();
	hipDevResource r;
	whole_device(&r);
	unsigned groups = 1;
	HIP_OK(hipDevSmResourceSplitByCount(&r, &groups, &r, NULL, 0, n / 2));
	cr_assert_eq(r.sm.smCount, n / 2);
}

Test(split_by_count, errors)
{
	hipDevResource dev, g[2], rem;
	whole_device(&dev);
	unsigned groups = 2;
	cr_assert_eq(hipDevSmResourceSplitByCount(g, NULL, &dev, &rem, 0, 4), hipErrorInvalidValue);
	cr_assert_eq(hipDevSmResourceSplitByCount(g, &groups, NULL, &rem, 0, 4), hipErrorInvalidValue);
	cr_assert_eq(hipDevSmResourceSplitByCount(g, &groups, &dev, &rem,
						  hipDevSmResourceSplitIgnoreSmCoscheduling, 4),
		     hipErrorNotSupported);
	cr_assert_eq(hipDevSmResourceSplitByCount(g, &groups, &dev, &rem, 0x100, 4), hipErrorInvalidValue);
	HIP_OK(hipDevSmResourceSplitByCount(g, &groups, &dev, &rem,
					    hipDevSmResourceSplitMaxPotentialClusterSize, 4));
	cr_assert_eq(groups, 2u);

	hipDevResource bad = dev;
	bad.type = hipDevResourceTypeWorkqueueConfig;
	cr_assert_eq(hipDevSmResourceSplitByCount(g, &groups, &bad, &rem, 0, 4), hipErrorInvalidResourceType);
	/* Not handed out by the runtime: no tag. */
	memset(&bad, 0, sizeof(bad));
	bad.type = hipDevResourceTypeSm;
	bad.sm.smCount = 8;
	bad.sm.smCoscheduledAlignment = 1;
	bad.sm.minSmPartitionSize = 1;
	cr_assert_eq(hipDevSmResourceSplitByCount(g, &groups, &bad, &rem, 0, 4),
		     hipErrorInvalidResourceConfiguration);
	/* A count that no longer matches its CUs, and a zero alignment. */
	bad = dev;
	bad.sm.smCount -= 1;
	cr_assert_eq(hipDevSmResourceSplitByCount(g, &groups, &bad, &rem, 0, 4),
		     hipErrorInvalidResourceConfiguration);
	bad = dev;
	bad.sm.smCoscheduledAlignment = 0;
	cr_assert_eq(hipDevSmResourceSplitByCount(g, &groups, &bad, &rem, 0, 4),
		     hipErrorInvalidResourceConfiguration);
	/* A tag naming a device that does not exist. */
	bad = dev;
	int32_t nodev = 5;
	memcpy(bad._internal_padding + 4, &nodev, sizeof(nodev));
	cr_assert_eq(hipDevSmResourceSplitByCount(g, &groups, &bad, &rem, 0, 4), hipErrorInvalidDevice);
}

Test(split, groups_of_different_sizes)
{
	const unsigned n = (unsigned)device_cus();
	hipDevResource dev, g[2], rem;
	whole_device(&dev);
	hipDevSmResourceGroupParams p[2];
	memset(p, 0, sizeof(p));
	p[0].smCount = 16;
	p[1].smCount = 8;
	HIP_OK(hipDevSmResourceSplit(g, 2, &dev, &rem, 0, p));
	cr_assert_eq(g[0].sm.smCount, 16u);
	cr_assert_eq(g[1].sm.smCount, 8u);
	cr_assert_eq(rem.sm.smCount, n - 24);
	/* Defaults written back: the device's alignment, then the co-scheduled count. */
	cr_assert_eq(p[0].coscheduledSmCount, 1u);
	cr_assert_eq(p[0].preferredCoscheduledSmCount, 1u);
	assert_partition(&dev, g, 2, &rem);
}

Test(split, discovery_and_backfill)
{
	hipDevResource dev, part[1], g[1], rem;
	whole_device(&dev);
	unsigned one = 1;
	HIP_OK(hipDevSmResourceSplitByCount(part, &one, &dev, NULL, 0, 30));
	hipDevSmResourceGroupParams p;
	memset(&p, 0, sizeof(p));
	p.coscheduledSmCount = 4;
	HIP_OK(hipDevSmResourceSplit(g, 1, &part[0], &rem, 0, &p));
	cr_assert_eq(p.smCount, 28u, "discovery: whole units of 4 out of 30");
	cr_assert_eq(g[0].sm.smCount, 28u);
	cr_assert_eq(g[0].sm.smCoscheduledAlignment, 4u);
	cr_assert_eq(rem.sm.smCount, 2u);
	cr_assert_eq(rem.sm.smCoscheduledAlignment, 1u, "the remainder keeps the input's alignment");
	assert_partition(&part[0], g, 1, &rem);

	memset(&p, 0, sizeof(p));
	p.coscheduledSmCount = 4;
	p.flags = hipDevSmResourceGroupBackfill;
	HIP_OK(hipDevSmResourceSplit(g, 1, &part[0], &rem, 0, &p));
	cr_assert_eq(g[0].sm.smCount, 30u, "backfill takes every CU left");
	cr_assert_eq(g[0].sm.flags, (unsigned)hipDevSmResourceGroupBackfill);
	cr_assert_eq(rem.type, hipDevResourceTypeInvalid);
}

Test(split, dry_run_sizes_without_checking_units)
{
	hipDevResource dev, g[1];
	whole_device(&dev);
	hipDevSmResourceGroupParams p;
	memset(&p, 0, sizeof(p));
	p.smCount = 6;
	p.coscheduledSmCount = 4;
	HIP_OK(hipDevSmResourceSplit(NULL, 1, &dev, NULL, 0, &p));
	cr_assert_eq(hipDevSmResourceSplit(g, 1, &dev, NULL, 0, &p), hipErrorInvalidResourceConfiguration,
		     "6 is not a whole number of units of 4");
	p.smCount = 2;
	cr_assert_eq(hipDevSmResourceSplit(g, 1, &dev, NULL, 0, &p), hipErrorInvalidResourceConfiguration,
		     "smaller than one unit");
}

Test(split, errors)
{
	const unsigned n = (unsigned)device_cus();
	hipDevResource dev, g[2], rem;
	whole_device(&dev);
	hipDevSmResourceGroupParams p[2];
	memset(p, 0, sizeof(p));
	p[0].smCount = 4;
	p[1].smCount = 4;
	cr_assert_eq(hipDevSmResourceSplit(g, 2, NULL, &rem, 0, p), hipErrorInvalidValue);
	cr_assert_eq(hipDevSmResourceSplit(g, 2, &dev, &rem, 0, NULL), hipErrorInvalidValue);
	cr_assert_eq(hipDevSmResourceSplit(g, 2, &dev, &rem, 1, p), hipErrorInvalidValue);
	hipDevResource bad = dev;
	bad.type = hipDevResourceTypeInvalid;
	cr_assert_eq(hipDevSmResourceSplit(g, 2, &bad, &rem, 0, p), hipErrorInvalidResourceType);
	p[0].smCount = n + 1;
	cr_assert_eq(hipDevSmResourceSplit(g, 2, &dev, &rem, 0, p), hipErrorInvalidResourceConfiguration);
	p[0].smCount = n - 2;
	cr_assert_eq(hipDevSmResourceSplit(g, 2, &dev, &rem, 0, p), hipErrorInvalidResourceConfiguration,
		     "together more than the input");
	p[0].smCount = 4;
	p[0].flags = 0x80;
	cr_assert_eq(hipDevSmResourceSplit(g, 2, &dev, &rem, 0, p), hipErrorInvalidValue);
}

Test(desc, bundles_one_split)
{
	hipDevResource dev, g[3], rem;
	whole_device(&dev);
	unsigned groups = 3;
	HIP_OK(hipDevSmResourceSplitByCount(g, &groups, &dev, &rem, 0, 8));
	hipDevResourceDesc_t d = NULL;
	HIP_OK(hipDevResourceGenerateDesc(&d, &g[1], 2));
	cr_assert_not_null(d);
	hipDevResource mix[2] = {g[0], rem};
	HIP_OK(hipDevResourceGenerateDesc(&d, mix, 2));
	/* A whole-device resource combines with anything of the device. */
	hipDevResource with_dev[2] = {g[0], dev};
	HIP_OK(hipDevResourceGenerateDesc(&d, with_dev, 2));
}

Test(desc, errors)
{
	hipDevResource dev, a[1], b[1], g[2];
	whole_device(&dev);
	unsigned one = 1;
	HIP_OK(hipDevSmResourceSplitByCount(a, &one, &dev, NULL, 0, 8));
	HIP_OK(hipDevSmResourceSplitByCount(b, &one, &dev, NULL, 0, 8));
	hipDevResourceDesc_t d = NULL;
	cr_assert_eq(hipDevResourceGenerateDesc(NULL, a, 1), hipErrorInvalidValue);
	cr_assert_eq(hipDevResourceGenerateDesc(&d, NULL, 1), hipErrorInvalidValue);
	cr_assert_eq(hipDevResourceGenerateDesc(&d, a, 0), hipErrorInvalidValue);
	hipDevResource two[2] = {a[0], b[0]};
	cr_assert_eq(hipDevResourceGenerateDesc(&d, two, 2), hipErrorInvalidResourceConfiguration,
		     "groups of two different splits");
	hipDevResource wq[2] = {a[0], a[0]};
	memset(&wq[1], 0, sizeof(wq[1]));
	wq[1].type = hipDevResourceTypeWorkqueueConfig;
	wq[1].wqConfig.device = 0;
	wq[1].wqConfig.wqConcurrencyLimit = 4;
	cr_assert_eq(hipDevResourceGenerateDesc(&d, wq, 2), hipErrorInvalidResourceType);
	hipDevResource empty = a[0];
	empty.sm.smCount = 0;
	cr_assert_eq(hipDevResourceGenerateDesc(&d, &empty, 1), hipErrorInvalidResourceConfiguration);
	/* Two groups of one split with different co-scheduling units. */
	hipDevSmResourceGroupParams p[2];
	memset(p, 0, sizeof(p));
	p[0].smCount = 4;
	p[0].coscheduledSmCount = 2;
	p[1].smCount = 4;
	HIP_OK(hipDevSmResourceSplit(g, 2, &dev, NULL, 0, p));
	cr_assert_eq(hipDevResourceGenerateDesc(&d, g, 2), hipErrorInvalidResourceConfiguration);
	cr_assert_null(d, "nothing written on failure");
}

/* A green context over the CUs of [in] r (count resources). */
static hipExecutionCtx_t green(hipDevResource *r, unsigned count)
{
	hipDevResourceDesc_t d;
	hipExecutionCtx_t c = NULL;
	HIP_OK(hipDevResourceGenerateDesc(&d, r, count));
	HIP_OK(hipGreenCtxCreate(&c, d, 0, 0));
	cr_assert_not_null(c);
	return c;
}

Test(context, green_context_holds_its_descriptor)
{
	hipDevResource dev, g[3], got;
	whole_device(&dev);
	unsigned groups = 3;
	HIP_OK(hipDevSmResourceSplitByCount(g, &groups, &dev, NULL, 0, 8));
	hipExecutionCtx_t c = green(&g[1], 2);
	HIP_OK(hipExecutionCtxGetDevResource(c, &got, hipDevResourceTypeSm));
	cr_assert_eq(got.type, hipDevResourceTypeSm);
	cr_assert_eq(got.sm.smCount, 16u);
	uint32_t m[WORDS];
	cus_of(&got, m);
	cr_assert_eq(m[0], 0xffffu << 8, "CUs 8..23: groups 1 and 2");
	cr_assert_eq(hipExecutionCtxGetDevResource(c, &got, hipDevResourceTypeWorkqueueConfig),
		     hipErrorInvalidResourceType);
	cr_assert_eq(hipExecutionCtxGetDevResource(c, NULL, hipDevResourceTypeSm), hipErrorInvalidValue);
	int device = -1;
	HIP_OK(hipExecutionCtxGetDevice(&device, c));
	cr_assert_eq(device, 0);
	unsigned long long id = 0, id2 = 0;
	HIP_OK(hipExecutionCtxGetId(c, &id));
	cr_assert_neq(id, 0ull);
	hipExecutionCtx_t c2 = green(&g[0], 1);
	HIP_OK(hipExecutionCtxGetId(c2, &id2));
	cr_assert_neq(id, id2, "every context has its own id");
	/* The context's resource splits again, inside the context's CUs. */
	hipDevResource sub[2];
	groups = 2;
	HIP_OK(hipDevSmResourceSplitByCount(sub, &groups, &got, NULL, 0, 8));
	cr_assert_eq(groups, 2u);
	cus_of(&sub[1], m);
	cr_assert_eq(m[0], 0xffu << 16);
	HIP_OK(hipExecutionCtxDestroy(c));
	HIP_OK(hipExecutionCtxDestroy(c2));
}

Test(context, create_and_destroy_errors)
{
	hipDevResource dev, g[1];
	whole_device(&dev);
	unsigned one = 1;
	HIP_OK(hipDevSmResourceSplitByCount(g, &one, &dev, NULL, 0, 4));
	hipDevResourceDesc_t d;
	HIP_OK(hipDevResourceGenerateDesc(&d, g, 1));
	hipExecutionCtx_t c = NULL;
	cr_assert_eq(hipGreenCtxCreate(NULL, d, 0, 0), hipErrorInvalidValue);
	cr_assert_eq(hipGreenCtxCreate(&c, NULL, 0, 0), hipErrorInvalidValue);
	cr_assert_eq(hipGreenCtxCreate(&c, d, 0, 1), hipErrorInvalidValue, "flags must be 0");
	cr_assert_eq(hipGreenCtxCreate(&c, d, 3, 0), hipErrorInvalidDevice);
	cr_assert_eq(hipGreenCtxCreate(&c, d, -1, 0), hipErrorInvalidDevice);
	int not_a_desc = 0;
	cr_assert_eq(hipGreenCtxCreate(&c, (hipDevResourceDesc_t)&not_a_desc, 0, 0), hipErrorInvalidHandle);
	cr_assert_null(c);
	HIP_OK(hipGreenCtxCreate(&c, d, 0, 0));
	/* One descriptor may back several contexts. */
	hipExecutionCtx_t c2 = NULL;
	HIP_OK(hipGreenCtxCreate(&c2, d, 0, 0));
	cr_assert_neq(c, c2);
	HIP_OK(hipExecutionCtxDestroy(c2));
	HIP_OK(hipExecutionCtxDestroy(c));
	cr_assert_eq(hipExecutionCtxDestroy(c), hipErrorInvalidContext, "already destroyed");
	cr_assert_eq(hipExecutionCtxDestroy(NULL), hipErrorInvalidValue);
	unsigned long long id;
	int device;
	hipDevResource r;
	cr_assert_eq(hipExecutionCtxGetId(c, &id), hipErrorInvalidContext);
	cr_assert_eq(hipExecutionCtxGetDevice(&device, c), hipErrorInvalidContext);
	cr_assert_eq(hipExecutionCtxGetDevResource(c, &r, hipDevResourceTypeSm), hipErrorInvalidContext);
	cr_assert_eq(hipExecutionCtxGetId(NULL, &id), hipErrorInvalidValue);
	cr_assert_eq(hipExecutionCtxGetDevice(NULL, c), hipErrorInvalidValue);
	cr_assert_eq(hipExecutionCtxSynchronize(NULL), hipErrorInvalidValue);
	cr_assert_eq(hipExecutionCtxSynchronize(c), hipErrorInvalidContext);
}

Test(context, primary_context_is_the_device)
{
	const unsigned n = (unsigned)device_cus();
	hipExecutionCtx_t p = NULL, p2 = NULL;
	HIP_OK(hipDeviceGetExecutionCtx(&p, 0));
	HIP_OK(hipDeviceGetExecutionCtx(&p2, 0));
	cr_assert_not_null(p);
	cr_assert_eq(p, p2, "one primary context per device");
	hipDevResource r;
	HIP_OK(hipExecutionCtxGetDevResource(p, &r, hipDevResourceTypeSm));
	cr_assert_eq(r.sm.smCount, n);
	int device = -1;
	HIP_OK(hipExecutionCtxGetDevice(&device, p));
	cr_assert_eq(device, 0);
	cr_assert_eq(hipExecutionCtxDestroy(p), hipErrorInvalidValue, "the primary context stays");
	cr_assert_eq(hipDeviceGetExecutionCtx(NULL, 0), hipErrorInvalidValue);
	cr_assert_eq(hipDeviceGetExecutionCtx(&p, 9), hipErrorInvalidDevice);
	HIP_OK(hipExecutionCtxSynchronize(p));
}

Test(stream, resources_of_streams)
{
	const unsigned n = (unsigned)device_cus();
	hipDevResource dev, g[2], r;
	whole_device(&dev);
	unsigned groups = 2;
	HIP_OK(hipDevSmResourceSplitByCount(g, &groups, &dev, NULL, 0, 12));
	hipExecutionCtx_t c = green(&g[1], 1);
	hipStream_t s = NULL;
	HIP_OK(hipExecutionCtxStreamCreate(&s, c, hipStreamDefault, 0));
	cr_assert_not_null(s);
	HIP_OK(hipStreamGetDevResource(s, &r, hipDevResourceTypeSm));
	cr_assert_eq(r.sm.smCount, 12u);
	uint32_t m[WORDS];
	cus_of(&r, m);
	cr_assert_eq(m[0], 0xfffu << 12);
	unsigned flags = 99;
	HIP_OK(hipStreamGetFlags(s, &flags));
	cr_assert_eq(flags, (unsigned)hipStreamNonBlocking, "a context stream never blocks on the null stream");
	int device = -1;
	HIP_OK(hipStreamGetDevice(s, &device));
	cr_assert_eq(device, 0);
	cr_assert_eq(hipStreamGetDevResource(s, &r, hipDevResourceTypeWorkqueue), hipErrorInvalidResourceType);
	cr_assert_eq(hipStreamGetDevResource(s, NULL, hipDevResourceTypeSm), hipErrorInvalidValue);

	/* Streams outside a green context: the device, or a CU mask's CUs. */
	HIP_OK(hipStreamGetDevResource(NULL, &r, hipDevResourceTypeSm));
	cr_assert_eq(r.sm.smCount, n);
	hipStream_t plain, masked;
	HIP_OK(hipStreamCreate(&plain));
	HIP_OK(hipStreamGetDevResource(plain, &r, hipDevResourceTypeSm));
	cr_assert_eq(r.sm.smCount, n);
	uint32_t mask[WORDS] = {0xf0u};
	HIP_OK(hipExtStreamCreateWithCUMask(&masked, WORDS, mask));
	HIP_OK(hipStreamGetDevResource(masked, &r, hipDevResourceTypeSm));
	cr_assert_eq(r.sm.smCount, 4u);
	cus_of(&r, m);
	cr_assert_eq(m[0], 0xf0u);

	/* After its context goes, the stream is detached (CUDA's cuGreenCtxDestroy). */
	HIP_OK(hipExecutionCtxDestroy(c));
	cr_assert_eq(hipStreamGetDevResource(s, &r, hipDevResourceTypeSm), hipErrorStreamDetached);
	HIP_OK(hipStreamDestroy(s));
	cr_assert_eq(hipStreamGetDevResource(s, &r, hipDevResourceTypeSm), hipErrorContextIsDestroyed);
	HIP_OK(hipStreamDestroy(plain));
	HIP_OK(hipStreamDestroy(masked));
}

Test(stream, create_errors_and_priorities)
{
	hipDevResource dev, g[1];
	whole_device(&dev);
	unsigned one = 1;
	HIP_OK(hipDevSmResourceSplitByCount(g, &one, &dev, NULL, 0, 4));
	hipExecutionCtx_t c = green(g, 1);
	hipStream_t s = NULL;
	cr_assert_eq(hipExecutionCtxStreamCreate(NULL, c, 0, 0), hipErrorInvalidValue);
	cr_assert_eq(hipExecutionCtxStreamCreate(&s, NULL, 0, 0), hipErrorInvalidValue);
	cr_assert_eq(hipExecutionCtxStreamCreate(&s, c, 4, 0), hipErrorInvalidValue);
	int junk = 0;
	cr_assert_eq(hipExecutionCtxStreamCreate(&s, (hipExecutionCtx_t)&junk, 0, 0), hipErrorInvalidContext);
	cr_assert_null(s, "a failed call leaves the output as it was");
	HIP_OK(hipExecutionCtxStreamCreate(&s, c, hipStreamNonBlocking, 7));
	int prio = 0;
	HIP_OK(hipStreamGetPriority(s, &prio));
	cr_assert_eq(prio, 1, "clamped to the lowest priority");
	HIP_OK(hipStreamDestroy(s));
	HIP_OK(hipExecutionCtxStreamCreate(&s, c, 0, -9));
	HIP_OK(hipStreamGetPriority(s, &prio));
	cr_assert_eq(prio, -1, "clamped to the highest priority");
	HIP_OK(hipStreamDestroy(s));
	/* On the primary context a stream is an ordinary one and keeps its flags. */
	hipExecutionCtx_t p;
	unsigned flags = 99;
	HIP_OK(hipDeviceGetExecutionCtx(&p, 0));
	HIP_OK(hipExecutionCtxStreamCreate(&s, p, hipStreamDefault, 0));
	HIP_OK(hipStreamGetFlags(s, &flags));
	cr_assert_eq(flags, (unsigned)hipStreamDefault);
	hipDevResource r;
	HIP_OK(hipStreamGetDevResource(s, &r, hipDevResourceTypeSm));
	cr_assert_eq(r.sm.smCount, dev.sm.smCount);
	HIP_OK(hipStreamDestroy(s));
	HIP_OK(hipExecutionCtxDestroy(c));
}

/* A destroyed context stream's object is recycled by the next stream creation; the new stream
 * must not look like a member. Blocking streams are told apart by their flags (context streams
 * never block). */
Test(stream, recycled_stream_object_is_not_a_member)
{
	hipDevResource dev, g[1], r;
	whole_device(&dev);
	unsigned one = 1;
	HIP_OK(hipDevSmResourceSplitByCount(g, &one, &dev, NULL, 0, 4));
	hipExecutionCtx_t c = green(g, 1);
	hipStream_t s, t;
	HIP_OK(hipExecutionCtxStreamCreate(&s, c, 0, 0));
	HIP_OK(hipStreamDestroy(s));
	HIP_OK(hipStreamCreate(&t));
	HIP_OK(hipStreamGetDevResource(t, &r, hipDevResourceTypeSm));
	cr_assert_eq(r.sm.smCount, dev.sm.smCount, "a new plain stream has the whole device");
	HIP_OK(hipStreamDestroy(t));
	HIP_OK(hipExecutionCtxDestroy(c));
}

/* A non-blocking stream cannot be told apart that way: this needs stream.c's hip_stream_destroy
 * to call hip_green_ctx_stream_forget (declared in stream_cumask.h). Enable with that call. */
Test(stream, destroyed_stream_is_forgotten)
{
	hipDevResource dev, g[1], r;
	whole_device(&dev);
	unsigned one = 1;
	HIP_OK(hipDevSmResourceSplitByCount(g, &one, &dev, NULL, 0, 4));
	hipExecutionCtx_t c = green(g, 1);
	hipStream_t s, t;
	HIP_OK(hipExecutionCtxStreamCreate(&s, c, 0, 0));
	HIP_OK(hipStreamDestroy(s));
	HIP_OK(hipStreamCreateWithFlags(&t, hipStreamNonBlocking));
	HIP_OK(hipStreamGetDevResource(t, &r, hipDevResourceTypeSm));
	cr_assert_eq(r.sm.smCount, dev.sm.smCount, "a new plain stream has the whole device");
	HIP_OK(hipStreamDestroy(t));
	HIP_OK(hipExecutionCtxDestroy(c));
}
