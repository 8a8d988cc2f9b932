/*
 * Execution contexts (HIP's green contexts): device resources, their splits, descriptors,
 * contexts, and streams confined to a context's CUs.
 *
 * Resources. An SM resource counts compute units (on AMD an "SM" is a CU). hipkfd hands out
 * resources that say exactly which CUs they hold: the tag in _internal_padding (green_ctx.h) is
 * a bit per CU in AMDKFD_IOC_SET_CU_MASK's numbering. A split takes the lowest CUs of its input
 * for the first group, the next ones for the second, and so on; the remainder gets the rest, so
 * the groups of one split are disjoint. The kernel spreads consecutive mask bits across XCCs,
 * shader engines and arrays (kfd_mqd_manager.c mqd_symmetrically_map_cu_mask), so a run of
 * low bits is a balanced set of CUs, not one corner of the chip.
 *
 * Granularity (clr hip_executionctx.cpp): smCoscheduledAlignment and minSmPartitionSize are 2 in
 * WGP mode (gfx10 and later, where clr enables WGP mode and the kernel takes CU-mask bits in
 * pairs) and 1 in CU mode (gfx9: gfx90a, gfx942). A split by count rounds minCount up to the
 * alignment; an explicit split checks each group against its coscheduledSmCount; the answers
 * and error codes are clr's (hipErrorInvalidResourceType for a non-SM resource,
 * hipErrorInvalidResourceConfiguration for sizes that do not fit, hipErrorNotSupported for
 * hipDevSmResourceSplitIgnoreSmCoscheduling).
 *
 * Where clr is unsafe this file answers with an error instead: clr reads any hipDevResource,
 * descriptor or context pointer it is given; here resources must carry a valid tag and handles
 * must be live (a registry lookup, never a dereference of an unknown pointer).
 * hipExecutionCtxGetDevResource returns one resource (the union of the context's CUs), where clr
 * writes one struct per resource of the descriptor past the caller's pointer.
 *
 * Contexts. The primary context of a device (hipDeviceGetExecutionCtx) is the whole device: its
 * streams are ordinary streams, and its synchronize, record and wait cover every stream of the
 * device. A green context (hipGreenCtxCreate) owns the CUs of its descriptor; its streams are
 * CU-masked streams (hip_stream_apply_cu_mask, AMDKFD_IOC_SET_CU_MASK on their own AQL queue),
 * always non-blocking (AMD's guide: on an execution context the default flag behaves like
 * hipStreamNonBlocking; CUDA requires CU_STREAM_NON_BLOCKING there). Destroying a context
 * leaves its streams working on their CUs, detached: hipStreamGetDevResource on them answers
 * hipErrorStreamDetached (CUDA's cuGreenCtxDestroy).
 *
 * Descriptors have no destroy verb in the API (neither in CUDA): they live until exit, a few
 * hundred bytes each. Contexts are reference counted so that a destroy racing a call on the
 * same context cannot free it under that call.
 *
 * Everything here is protected by gc_lock (descriptor, context and green-stream lists, context
 * reference counts). gc_lock is never held while waiting for the GPU or calling into streams.
 */
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../kfd/kfd.h"
#include "../runtime/error.h"
#include "green_ctx.h"
#include "../runtime/internal.h"
#include "../api/stream_cumask.h"

#define CU_WORDS (GREEN_TAG_MAX_CUS / 32)

/* What a tag holds (copied in and out of _internal_padding with memcpy: no alignment assumed). */
struct res_tag {
	uint32_t magic;
	int32_t device;
	uint32_t family;    /* the split that made it; 0: read whole from a device, context or stream */
	uint32_t cus[CU_WORDS];
};
_Static_assert(sizeof(struct res_tag) == sizeof(((hipDevResource *)0)->_internal_padding),
	       "the tag fills the padding exactly");
_Static_assert(offsetof(struct res_tag, cus) == GREEN_TAG_CUS_OFFSET, "green_ctx.h layout");

struct cu_set {
	uint32_t w[CU_WORDS];
};

struct res_desc {
	struct res_desc *next;      /* in descs; gc_lock */
	int device;
	uint32_t alignment;
	struct cu_set cus;          /* union of the resources */
	unsigned n;
	hipDevResource res[];
};

struct exec_ctx {
	struct exec_ctx *next;      /* in ctxs; gc_lock */
	int refs;                   /* gc_lock; the list holds one */
	bool primary;
	struct hip_device *device;
	unsigned long long id;
	hipDevResource sm;          /* the context's CUs as one resource */
	struct cu_set cus;
};

/* A stream created on a green context. ctx is NULL once the context is destroyed. */
struct green_stream {
	struct green_stream *next;  /* in green_streams; gc_lock */
	const struct hip_stream *stream;
	struct exec_ctx *ctx;
	hipDevResource sm;
};

static pthread_mutex_t gc_lock = PTHREAD_MUTEX_INITIALIZER;
static struct res_desc *descs;
static struct exec_ctx *ctxs;
static struct green_stream *green_streams;
static _Atomic uint32_t next_family = 1;
static _Atomic unsigned long long next_ctx_id = 1;

/* HIP's stream priorities: -1 high, 0 normal, 1 low; others are clamped (stream_api.c). */
#define PRIORITY_HIGH (-1)
#define PRIORITY_LOW 1

/* ---- CU sets ------------------------------------------------------------------------------- */

static unsigned cu_set_count(const struct cu_set *s)
{
	unsigned n = 0;
	for (unsigned i = 0; i < CU_WORDS; i++)
		n += (unsigned)__builtin_popcount(s->w[i]);
	return n;
}

/* Moves the [in] n lowest CUs of [in,out] from into [out] to. Returns how many moved. */
static unsigned cu_set_take(struct cu_set *from, unsigned n, struct cu_set *to)
{
	unsigned moved = 0;
	memset(to, 0, sizeof(*to));
	for (unsigned i = 0; i < GREEN_TAG_MAX_CUS && moved < n; i++) {
		uint32_t bit = 1u << (i % 32);
		if (from->w[i / 32] & bit) {
			from->w[i / 32] &= ~bit;
			to->w[i / 32] |= bit;
			moved++;
		}
	}
	return moved;
}

/* CUs [0, n). */
static void cu_set_first(struct cu_set *s, unsigned n)
{
	memset(s, 0, sizeof(*s));
	for (unsigned i = 0; i < n && i < GREEN_TAG_MAX_CUS; i++)
		s->w[i / 32] |= 1u << (i % 32);
}

/* ---- device facts -------------------------------------------------------------------------- */

static unsigned device_cus(const struct hip_device *d)
{
	return d->node->cu_count;
}

/* clr ExecutionCtx::getSmAlignment: 2 in WGP mode (gfx10+, clr's default), 1 in CU mode. */
static uint32_t device_alignment(const struct hip_device *d)
{
	return d->node->gfx_target_version >= 100000 ? 2u : 1u;
}

/* The device of ordinal [in] ordinal for a resource query (topology only), or NULL with *err. */
static struct hip_device *device_for(int ordinal, hipError_t *err)
{
	int n = hip_device_count();
	if (n <= 0) {
		*err = hip_init_error() ?: hipErrorNoDevice;
		return NULL;
	}
	struct hip_device *d = ordinal >= 0 && ordinal < n ? hip_device_peek(ordinal) : NULL;
	if (!d) {
		*err = hipErrorInvalidDevice;
		return NULL;
	}
	if (device_cus(d) == 0 || device_cus(d) > GREEN_TAG_MAX_CUS) {
		*err = hipErrorNotSupported; /* more CUs than a tag can name (none such exists) */
		return NULL;
	}
	return d;
}

/* ---- resources ----------------------------------------------------------------------------- */

static void resource_fill(hipDevResource *r, int device, uint32_t family, const struct cu_set *cus,
			  uint32_t alignment, unsigned flags)
{
	struct res_tag tag = {.magic = GREEN_TAG_MAGIC, .device = device, .family = family};
	memcpy(tag.cus, cus->w, sizeof(tag.cus));
	memset(r, 0, sizeof(*r));
	r->type = hipDevResourceTypeSm;
	r->sm.smCount = cu_set_count(cus);
	r->sm.minSmPartitionSize = alignment;
	r->sm.smCoscheduledAlignment = alignment;
	r->sm.flags = flags;
	memcpy(r->_internal_padding, &tag, sizeof(tag));
	r->nextResource = NULL;
}

/* A remainder with no CUs is hipDevResourceTypeInvalid (clr fillRemainder). */
static void remainder_fill(hipDevResource *r, int device, uint32_t family, const struct cu_set *cus,
			   uint32_t alignment)
{
	if (!r)
		return;
	if (cu_set_count(cus)) {
		resource_fill(r, device, family, cus, alignment, 0);
		return;
	}
	memset(r, 0, sizeof(*r));
	r->type = hipDevResourceTypeInvalid;
}

/* The whole device as a resource (hipDeviceGetDevResource). */
static void device_resource(const struct hip_device *d, hipDevResource *r)
{
	struct cu_set all;
	cu_set_first(&all, device_cus(d));
	resource_fill(r, d->ordinal, 0, &all, device_alignment(d), 0);
}

/* Reads the CUs of SM resource [in] r into [out] cus, [out] device and [out] family. A resource
 * this runtime did not hand out (no tag), or one whose fields no longer agree with its tag, is
 * hipErrorInvalidResourceConfiguration; a tag naming no visible device, hipErrorInvalidDevice. */
static hipError_t resource_read(const hipDevResource *r, struct cu_set *cus, int *device,
				uint32_t *family)
{
	struct res_tag tag;
	if (r->type != hipDevResourceTypeSm)
		return hipErrorInvalidResourceType;
	memcpy(&tag, r->_internal_padding, sizeof(tag));
	if (tag.magic != GREEN_TAG_MAGIC)
		return hipErrorInvalidResourceConfiguration;
	hipError_t err;
	struct hip_device *d = device_for(tag.device, &err);
	if (!d)
		return err == hipErrorNotSupported ? hipErrorInvalidResourceConfiguration : err;
	struct cu_set all;
	cu_set_first(&all, device_cus(d));
	memcpy(cus->w, tag.cus, sizeof(cus->w));
	for (unsigned i = 0; i < CU_WORDS; i++)
		if (cus->w[i] & ~all.w[i])
			return hipErrorInvalidResourceConfiguration; /* CUs the device lacks */
	if (r->sm.smCount != cu_set_count(cus) || r->sm.smCoscheduledAlignment == 0)
		return hipErrorInvalidResourceConfiguration;
	*device = tag.device;
	*family = tag.family;
	return hipSuccess;
}

hipError_t hipDeviceGetDevResource(hipDevice_t device, hipDevResource *resource, hipDevResourceType type)
{
	if (!resource)
		HIP_RETURN(hipErrorInvalidValue);
	/* clr answers only SM resources; work-queue configurations are not readable from a device. */
	if (type != hipDevResourceTypeSm)
		HIP_RETURN(hipErrorInvalidResourceType);
	hipError_t err;
	struct hip_device *d = device_for(device, &err);
	if (!d)
		HIP_RETURN(err);
	device_resource(d, resource);
	HIP_RETURN(hipSuccess);
}

/* ---- splits -------------------------------------------------------------------------------- */

/* The input of a split, read completely before any output is written (an output may alias it). */
struct split_input {
	struct cu_set cus;
	int device;
	uint32_t family;
	unsigned total;
	uint32_t alignment;
};

static hipError_t split_input_read(const hipDevResource *in, struct split_input *s)
{
	uint32_t family;
	hipError_t err = resource_read(in, &s->cus, &s->device, &family);
	if (err)
		return err;
	s->total = cu_set_count(&s->cus);
	s->alignment = in->sm.smCoscheduledAlignment;
	return hipSuccess;
}

static hipError_t split_by_count(hipDevResource *result, unsigned *nbGroups, const hipDevResource *input,
				 hipDevResource *remainder, unsigned flags, unsigned minCount)
{
	const unsigned known = hipDevSmResourceSplitIgnoreSmCoscheduling |
			       hipDevSmResourceSplitMaxPotentialClusterSize;
	if (!nbGroups || !input)
		return hipErrorInvalidValue;
	if (input->type != hipDevResourceTypeSm)
		return hipErrorInvalidResourceType;
	/* Every CU group is co-scheduled as a whole here; ignoring that is clr's NotSupported. The
	 * cluster-size flag asks for the largest clusters, which changes nothing without clusters. */
	if (flags & hipDevSmResourceSplitIgnoreSmCoscheduling)
		return hipErrorNotSupported;
	if (flags & ~known)
		return hipErrorInvalidValue;
	struct split_input in;
	hipError_t err = split_input_read(input, &in);
	if (err)
		return err;
	/* minCount rounded up to the alignment (0 asks for the smallest group). */
	uint64_t size = ((uint64_t)minCount + in.alignment - 1) / in.alignment * in.alignment;
	if (size == 0)
		size = in.alignment;
	unsigned possible = size > in.total ? 0 : (unsigned)(in.total / size);
	if (!result) {
		*nbGroups = possible;
		return hipSuccess;
	}
	unsigned groups = *nbGroups < possible ? *nbGroups : possible;
	uint32_t family = atomic_fetch_add(&next_family, 1);
	for (unsigned i = 0; i < groups; i++) {
		struct cu_set g;
		cu_set_take(&in.cus, (unsigned)size, &g);
		resource_fill(&result[i], in.device, family, &g, in.alignment, 0);
	}
	*nbGroups = groups;
	remainder_fill(remainder, in.device, family, &in.cus, in.alignment);
	return hipSuccess;
}

hipError_t hipDevSmResourceSplitByCount(hipDevResource *result, unsigned int *nbGroups,
					const hipDevResource *input, hipDevResource *remainder,
					unsigned int flags, unsigned int minCount)
{
	HIP_RETURN(split_by_count(result, nbGroups, input, remainder, flags, minCount));
}

/* Fills the defaults of each group (clr: coscheduledSmCount 0 is the input's alignment,
 * preferredCoscheduledSmCount 0 is coscheduledSmCount) and checks explicit sizes. */
static hipError_t split_params_check(hipDevSmResourceGroupParams *p, unsigned n,
				     const struct split_input *in)
{
	for (unsigned i = 0; i < n; i++) {
		if (p[i].flags & ~(unsigned)hipDevSmResourceGroupBackfill)
			return hipErrorInvalidValue;
		if (p[i].coscheduledSmCount == 0)
			p[i].coscheduledSmCount = in->alignment;
		if (p[i].preferredCoscheduledSmCount == 0)
			p[i].preferredCoscheduledSmCount = p[i].coscheduledSmCount;
		if (p[i].smCount && (p[i].smCount < in->alignment || p[i].smCount > in->total))
			return hipErrorInvalidResourceConfiguration;
	}
	return hipSuccess;
}

/* Discovery (smCount 0) takes what earlier groups left: all of it with Backfill, else whole
 * co-scheduled units of it. Returns the CUs assigned, or an error when they exceed the input. */
static hipError_t split_params_size(hipDevSmResourceGroupParams *p, unsigned n,
				    const struct split_input *in, unsigned *assigned)
{
	uint64_t used = 0;
	for (unsigned i = 0; i < n; i++) {
		if (p[i].smCount == 0) {
			unsigned left = (unsigned)(in->total - used);
			unsigned unit = p[i].coscheduledSmCount;
			p[i].smCount = (p[i].flags & hipDevSmResourceGroupBackfill) ? left
										  : left / unit * unit;
		}
		used += p[i].smCount;
		if (used > in->total)
			return hipErrorInvalidResourceConfiguration;
	}
	*assigned = (unsigned)used;
	return hipSuccess;
}

/* A group that will really be made must be non-empty, hold at least one co-scheduled unit, and
 * be a whole number of units unless it backfills (clr devSmResourceSplit). */
static hipError_t split_params_final(const hipDevSmResourceGroupParams *p, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		unsigned count = p[i].smCount, unit = p[i].coscheduledSmCount;
		if (count == 0 || count < unit)
			return hipErrorInvalidResourceConfiguration;
		if (count % unit && !(p[i].flags & hipDevSmResourceGroupBackfill))
			return hipErrorInvalidResourceConfiguration;
	}
	return hipSuccess;
}

static hipError_t split(hipDevResource *result, unsigned nbGroups, const hipDevResource *input,
			hipDevResource *remainder, unsigned flags, hipDevSmResourceGroupParams *params)
{
	if (!input || !params)
		return hipErrorInvalidValue;
	if (input->type != hipDevResourceTypeSm)
		return hipErrorInvalidResourceType;
	if (flags != 0)
		return hipErrorInvalidValue;
	struct split_input in;
	hipError_t err = split_input_read(input, &in);
	if (err)
		return err;
	unsigned assigned = 0;
	err = split_params_check(params, nbGroups, &in);
	if (!err)
		err = split_params_size(params, nbGroups, &in, &assigned);
	/* A dry run (no result) only sizes the groups: it may succeed where a real split fails. */
	if (!err && result)
		err = split_params_final(params, nbGroups);
	if (err)
		return err;
	uint32_t family = atomic_fetch_add(&next_family, 1);
	if (result) {
		for (unsigned i = 0; i < nbGroups; i++) {
			struct cu_set g;
			cu_set_take(&in.cus, params[i].smCount, &g);
			resource_fill(&result[i], in.device, family, &g, params[i].coscheduledSmCount,
				      params[i].flags);
		}
	} else {
		struct cu_set dropped;
		cu_set_take(&in.cus, assigned, &dropped);
	}
	remainder_fill(remainder, in.device, family, &in.cus, in.alignment);
	return hipSuccess;
}

hipError_t hipDevSmResourceSplit(hipDevResource *result, unsigned int nbGroups, const hipDevResource *input,
				 hipDevResource *remainder, unsigned int flags,
				 hipDevSmResourceGroupParams *groupParams)
{
	HIP_RETURN(split(result, nbGroups, input, remainder, flags, groupParams));
}

/* ---- descriptors --------------------------------------------------------------------------- */

/* clr devResourceGenerateDesc: SM resources only, none empty, all of one device, one alignment,
 * and one split (resources read whole, family 0, combine with any). */
static hipError_t desc_check(const hipDevResource *r, unsigned n, struct res_desc *out)
{
	uint32_t family = 0;
	for (unsigned i = 0; i < n; i++)
		if (r[i].type != hipDevResourceTypeSm)
			return hipErrorInvalidResourceType;
	memset(&out->cus, 0, sizeof(out->cus));
	for (unsigned i = 0; i < n; i++) {
		struct cu_set cus;
		int device;
		uint32_t fam;
		if (r[i].sm.smCount == 0)
			return hipErrorInvalidResourceConfiguration;
		hipError_t err = resource_read(&r[i], &cus, &device, &fam);
		if (err)
			return err;
		if (i == 0) {
			out->device = device;
			out->alignment = r[i].sm.smCoscheduledAlignment;
		} else if (device != out->device || r[i].sm.smCoscheduledAlignment != out->alignment) {
			return hipErrorInvalidResourceConfiguration;
		}
		if (fam && family && fam != family)
			return hipErrorInvalidResourceConfiguration;
		if (fam)
			family = fam;
		for (unsigned w = 0; w < CU_WORDS; w++)
			out->cus.w[w] |= cus.w[w];
	}
	return hipSuccess;
}

static hipError_t generate_desc(hipDevResourceDesc_t *phDesc, hipDevResource *resources, unsigned n)
{
	if (!phDesc || !resources || n == 0)
		return hipErrorInvalidValue;
	/* Checked before the copy is allocated: a count the array does not have (UINT_MAX) ends at
	 * its first bad resource, not in a request for hundreds of GiB (ASan aborts on those). */
	struct res_desc hdr = {0};
	hipError_t err = desc_check(resources, n, &hdr);
	if (err)
		return err;
	struct res_desc *d = malloc(sizeof(*d) + (size_t)n * sizeof(hipDevResource));
	if (!d)
		return hipErrorOutOfMemory;
	*d = hdr;
	d->n = n;
	memcpy(d->res, resources, (size_t)n * sizeof(hipDevResource));
	for (unsigned i = 0; i < n; i++)
		d->res[i].nextResource = NULL;
	pthread_mutex_lock(&gc_lock);
	d->next = descs;
	descs = d;
	pthread_mutex_unlock(&gc_lock);
	*phDesc = (hipDevResourceDesc_t)d;
	return hipSuccess;
}

hipError_t hipDevResourceGenerateDesc(hipDevResourceDesc_t *phDesc, hipDevResource *resources,
				      unsigned int nbResources)
{
	HIP_RETURN(generate_desc(phDesc, resources, nbResources));
}

/* A live descriptor of ours, or NULL. Descriptors are never freed: the pointer stays valid. */
static struct res_desc *desc_find(hipDevResourceDesc_t h)
{
	struct res_desc *found = NULL;
	pthread_mutex_lock(&gc_lock);
	for (struct res_desc *d = descs; d && !found; d = d->next)
		if (d == (struct res_desc *)h)
			found = d;
	pthread_mutex_unlock(&gc_lock);
	return found;
}

/* ---- contexts ------------------------------------------------------------------------------ */

/* Takes a reference to the live context [in] h; NULL when h is not one. */
static struct exec_ctx *ctx_get(hipExecutionCtx_t h)
{
	struct exec_ctx *found = NULL;
	pthread_mutex_lock(&gc_lock);
	for (struct exec_ctx *c = ctxs; c && !found; c = c->next)
		if (c == (struct exec_ctx *)h) {
			found = c;
			c->refs++;
		}
	pthread_mutex_unlock(&gc_lock);
	return found;
}

/* ctx_get for a handle from the caller: NULL with [out] *err hipErrorInvalidValue for a NULL
 * handle, hipErrorInvalidContext for one that is not a live context. */
static struct exec_ctx *ctx_from_api(hipExecutionCtx_t h, hipError_t *err)
{
	struct exec_ctx *c = h ? ctx_get(h) : NULL;
	*err = !h ? hipErrorInvalidValue : !c ? hipErrorInvalidContext : hipSuccess;
	return c;
}

static void ctx_put(struct exec_ctx *c)
{
	pthread_mutex_lock(&gc_lock);
	bool last = --c->refs == 0;
	pthread_mutex_unlock(&gc_lock);
	if (last)
		free(c);
}

/* A new context (one reference, the list's; not yet listed) on opened device [in] d. */
static struct exec_ctx *ctx_new(struct hip_device *d, const struct cu_set *cus, uint32_t alignment,
				bool primary)
{
	struct exec_ctx *c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->refs = 1;
	c->primary = primary;
	c->device = d;
	c->id = atomic_fetch_add(&next_ctx_id, 1);
	c->cus = *cus;
	resource_fill(&c->sm, d->ordinal, 0, cus, alignment, 0);
	return c;
}

static void ctx_list_add(struct exec_ctx *c)
{
	c->next = ctxs;
	ctxs = c;
}

static hipError_t green_ctx_create(hipExecutionCtx_t *phCtx, hipDevResourceDesc_t desc, int device,
				   unsigned flags)
{
	if (!phCtx || !desc || flags != 0)
		return hipErrorInvalidValue;
	*phCtx = NULL;
	hipError_t err;
	if (!device_for(device, &err))
		return err;
	struct res_desc *rd = desc_find(desc);
	if (!rd)
		return hipErrorInvalidHandle;
	if (rd->device != device)
		return hipErrorInvalidDevice;
	struct hip_device *d = hip_device_get(device);
	if (!d)
		return hipErrorInvalidDevice;
	struct exec_ctx *c = ctx_new(d, &rd->cus, rd->alignment, false);
	if (!c)
		return hipErrorOutOfMemory;
	pthread_mutex_lock(&gc_lock);
	ctx_list_add(c);
	pthread_mutex_unlock(&gc_lock);
	*phCtx = (hipExecutionCtx_t)c;
	return hipSuccess;
}

hipError_t hipGreenCtxCreate(hipExecutionCtx_t *phCtx, hipDevResourceDesc_t desc, int device,
			     unsigned int flags)
{
	HIP_RETURN(green_ctx_create(phCtx, desc, device, flags));
}

static hipError_t ctx_destroy(hipExecutionCtx_t h)
{
	if (!h)
		return hipErrorInvalidValue;
	pthread_mutex_lock(&gc_lock);
	struct exec_ctx **pp = &ctxs;
	while (*pp && *pp != (struct exec_ctx *)h)
		pp = &(*pp)->next;
	struct exec_ctx *c = *pp;
	if (!c || c->primary) {
		pthread_mutex_unlock(&gc_lock);
		/* clr: the primary context is the device's and cannot be destroyed. */
		return c ? hipErrorInvalidValue : hipErrorInvalidContext;
	}
	*pp = c->next;
	for (struct green_stream *g = green_streams; g; g = g->next)
		if (g->ctx == c)
			g->ctx = NULL; /* detached: keeps its CUs, answers hipErrorStreamDetached */
	bool last = --c->refs == 0;
	pthread_mutex_unlock(&gc_lock);
	if (last)
		free(c);
	return hipSuccess;
}

hipError_t hipExecutionCtxDestroy(hipExecutionCtx_t ctx)
{
	HIP_RETURN(ctx_destroy(ctx));
}

/* The primary context of [in] d, made on first use. NULL without memory. */
static struct exec_ctx *primary_ctx(struct hip_device *d)
{
	struct exec_ctx *found = NULL;
	pthread_mutex_lock(&gc_lock);
	for (struct exec_ctx *c = ctxs; c && !found; c = c->next)
		if (c->primary && c->device == d)
			found = c;
	if (!found) {
		struct cu_set all;
		cu_set_first(&all, device_cus(d));
		found = ctx_new(d, &all, device_alignment(d), true);
		if (found)
			ctx_list_add(found);
	}
	pthread_mutex_unlock(&gc_lock);
	return found;
}

static hipError_t device_get_ctx(hipExecutionCtx_t *ctx, int device)
{
	if (!ctx)
		return hipErrorInvalidValue;
	hipError_t err;
	if (!device_for(device, &err))
		return err;
	struct hip_device *d = hip_device_get(device);
	if (!d)
		return hipErrorInvalidDevice;
	struct exec_ctx *c = primary_ctx(d);
	if (!c)
		return hipErrorOutOfMemory;
	*ctx = (hipExecutionCtx_t)c;
	return hipSuccess;
}

hipError_t hipDeviceGetExecutionCtx(hipExecutionCtx_t *ctx, int device)
{
	HIP_RETURN(device_get_ctx(ctx, device));
}

/* What the context getters answer: fixed when the context is made (ctx_new). */
struct ctx_facts {
	int device;
	unsigned long long id;
	hipDevResource sm;
};

/* The start every context getter shares: the caller's [in] out pointer and the handle [in] h
 * checked, then the facts of the live context copied to [out] f under a reference (a destroy
 * racing the call cannot free the context while they are read). */
static hipError_t ctx_read(hipExecutionCtx_t h, const void *out, struct ctx_facts *f)
{
	if (!out)
		return hipErrorInvalidValue;
	hipError_t err;
	struct exec_ctx *c = ctx_from_api(h, &err);
	if (!c)
		return err;
	*f = (struct ctx_facts){.device = c->device->ordinal, .id = c->id, .sm = c->sm};
	ctx_put(c);
	return hipSuccess;
}

static hipError_t ctx_get_resource(hipExecutionCtx_t h, hipDevResource *resource, hipDevResourceType type)
{
	struct ctx_facts f;
	hipError_t err = ctx_read(h, resource, &f);
	if (err)
		return err;
	if (type != hipDevResourceTypeSm)
		return hipErrorInvalidResourceType; /* a context holds CUs only */
	*resource = f.sm;
	return hipSuccess;
}

hipError_t hipExecutionCtxGetDevResource(hipExecutionCtx_t ctx, hipDevResource *resource,
					 hipDevResourceType type)
{
	HIP_RETURN(ctx_get_resource(ctx, resource, type));
}

hipError_t hipExecutionCtxGetDevice(int *device, hipExecutionCtx_t ctx)
{
	struct ctx_facts f;
	hipError_t err = ctx_read(ctx, device, &f);
	if (err == hipSuccess)
		*device = f.device;
	HIP_RETURN(err);
}

hipError_t hipExecutionCtxGetId(hipExecutionCtx_t ctx, unsigned long long *ctxId)
{
	struct ctx_facts f;
	hipError_t err = ctx_read(ctx, ctxId, &f);
	if (err == hipSuccess)
		*ctxId = f.id;
	HIP_RETURN(err);
}

/* ---- streams ------------------------------------------------------------------------------- */

/* Is [in] g still the stream it was made as? Until every stream destroy calls
 * green_ctx_stream_forget, a destroyed green stream's object can come back as another
 * stream; green streams are always non-blocking, so a blocking one is such a leftover. gc_lock. */
static bool green_stream_current(const struct green_stream *g)
{
	return hip_stream_valid((hipStream_t)g->stream) && (g->stream->flags & hipStreamNonBlocking);
}

static void green_ctx_stream_forget(const struct hip_stream *s)
{
	struct green_stream *gone = NULL;
	pthread_mutex_lock(&gc_lock);
	for (struct green_stream **pp = &green_streams; *pp; pp = &(*pp)->next) {
		if ((*pp)->stream == s) {
			gone = *pp;
			*pp = gone->next;
			break;
		}
	}
	pthread_mutex_unlock(&gc_lock);
	free(gone);
}

/* Creates a stream confined to [in] c's CUs and records it as c's. 0 or -errno. */
static int green_stream_create(struct exec_ctx *c, int priority, struct hip_stream **out)
{
	struct green_stream *g = calloc(1, sizeof(*g));
	struct hip_stream *s;
	if (!g)
		return -ENOMEM;
	int err = hip_stream_create(c->device, hipStreamNonBlocking, priority, &s);
	if (err) {
		free(g);
		return err;
	}
	uint32_t words = (device_cus(c->device) + 31) / 32;
	err = hip_stream_apply_cu_mask(s, c->cus.w, words);
	if (!err)
		err = hip_stream_cu_mask_remember(s, c->cus.w, words); /* hipExtStreamGetCUMask */
	if (err) {
		hip_stream_destroy(s);
		free(g);
		return err;
	}
	g->stream = s;
	g->ctx = c;
	g->sm = c->sm;
	pthread_mutex_lock(&gc_lock);
	g->next = green_streams;
	green_streams = g;
	pthread_mutex_unlock(&gc_lock);
	*out = s;
	return 0;
}

static hipError_t ctx_stream_create(hipStream_t *stream, hipExecutionCtx_t h, unsigned flags, int priority)
{
	if (!stream || !h)
		return hipErrorInvalidValue;
	if (flags != hipStreamDefault && flags != hipStreamNonBlocking)
		return hipErrorInvalidValue;
	struct exec_ctx *c = ctx_get(h);
	if (!c)
		return hipErrorInvalidContext;
	priority = priority < PRIORITY_HIGH ? PRIORITY_HIGH : priority > PRIORITY_LOW ? PRIORITY_LOW : priority;
	struct hip_stream *s;
	bool primary = c->primary;
	int err = primary ? hip_stream_create(c->device, flags, priority, &s)
			  : green_stream_create(c, priority, &s);
	ctx_put(c);
	if (err)
		return hip_error_from_errno(err);
	if (primary)
		green_ctx_stream_forget(s); /* see green_stream_create */
	*stream = (hipStream_t)s;
	return hipSuccess;
}

hipError_t hipExecutionCtxStreamCreate(hipStream_t *stream, hipExecutionCtx_t ctx, unsigned int flags,
				       int priority)
{
	HIP_RETURN(ctx_stream_create(stream, ctx, flags, priority));
}

/* The CUs of a stream outside any green context: a hipExtStreamCreateWithCUMask mask, else the
 * whole device. hipExtStreamGetCUMask answers for the current device's CU count. */
static hipError_t plain_stream_resource(struct hip_stream *s, hipDevResource *r)
{
	struct hip_device *d = s->device;
	uint32_t mask[CU_WORDS] = {0};
	hipError_t err = hipExtStreamGetCUMask((hipStream_t)s, CU_WORDS, mask);
	if (err)
		return err;
	struct cu_set all, cus;
	cu_set_first(&all, device_cus(d));
	for (unsigned i = 0; i < CU_WORDS; i++)
		cus.w[i] = mask[i] & all.w[i];
	resource_fill(r, d->ordinal, 0, cu_set_count(&cus) ? &cus : &all, device_alignment(d), 0);
	return hipSuccess;
}

static hipError_t stream_get_resource(hipStream_t h, hipDevResource *resource, hipDevResourceType type)
{
	if (!resource)
		return hipErrorInvalidValue;
	if (type != hipDevResourceTypeSm)
		return hipErrorInvalidResourceType; /* a stream carries CUs only */
	if (!h || h == hipStreamLegacy || h == hipStreamPerThread) {
		struct hip_device *d = hip_device_current();
		if (!d)
			return hip_init_error() ?: hipErrorInvalidDevice;
		hipError_t err;
		if (!device_for(d->ordinal, &err))
			return err;
		device_resource(d, resource);
		return hipSuccess;
	}
	if (!hip_stream_valid(h))
		return hip_stream_invalid_error(h);
	struct hip_stream *s = (struct hip_stream *)h;
	hipError_t err;
	if (!device_for(s->device->ordinal, &err))
		return err;
	bool member = false, detached = false;
	pthread_mutex_lock(&gc_lock);
	for (struct green_stream *g = green_streams; g && !member; g = g->next) {
		if (g->stream == s && green_stream_current(g)) {
			member = true;
			detached = !g->ctx;
			*resource = g->sm;
		}
	}
	pthread_mutex_unlock(&gc_lock);
	if (detached)
		return hipErrorStreamDetached;
	return member ? hipSuccess : plain_stream_resource(s, resource);
}

hipError_t hipStreamGetDevResource(hipStream_t stream, hipDevResource *resource, hipDevResourceType type)
{
	HIP_RETURN(stream_get_resource(stream, resource, type));
}

/* ---- synchronisation and events ------------------------------------------------------------ */

/* Appends [in] s to the array [in,out] *v of *n streams and room for *cap, doubling it when full.
 * False when it is full and cannot grow: the snapshot then stops there. */
static bool streams_push(struct hip_stream ***v, size_t *n, size_t *cap, struct hip_stream *s)
{
	if (*n == *cap) {
		struct hip_stream **nv = realloc(*v, 2 * *cap * sizeof(**v));
		if (!nv)
			return false;
		*v = nv;
		*cap *= 2;
	}
	(*v)[(*n)++] = s;
	return true;
}

/* The streams of [in] c: its green streams, or every stream of the device for the primary
 * context. [out] *out is a malloc'd array (NULL when empty). Returns the count, or -ENOMEM. */
static int ctx_streams(struct exec_ctx *c, struct hip_stream ***out)
{
	size_t n = 0, cap = 16;
	struct hip_stream **v = malloc(cap * sizeof(*v));
	*out = NULL;
	if (!v)
		return -ENOMEM;
	pthread_mutex_t *lock = c->primary ? &c->device->lock : &gc_lock;
	pthread_mutex_lock(lock);
	if (c->primary) {
		for (struct hip_stream *s = c->device->streams; s; s = s->next)
			if (!streams_push(&v, &n, &cap, s))
				break;
	} else {
		for (struct green_stream *g = green_streams; g; g = g->next) {
			if (g->ctx != c || !green_stream_current(g))
				continue;
			if (!streams_push(&v, &n, &cap, (struct hip_stream *)g->stream))
				break;
		}
	}
	pthread_mutex_unlock(lock);
	if (n == 0) {
		free(v);
		return 0;
	}
	*out = v;
	return (int)n;
}

static hipError_t ctx_synchronize(hipExecutionCtx_t h)
{
	hipError_t herr;
	struct exec_ctx *c = ctx_from_api(h, &herr);
	if (!c)
		return herr;
	struct hip_stream **v;
	int n = ctx_streams(c, &v);
	int err = n < 0 ? n : 0;
	/* The primary context waits for the whole device, green contexts included (AMD's guide). */
	if (c->primary)
		hip_device_sync_all(c->device);
	for (int i = 0; i < n; i++) {
		int e = c->primary ? hip_stream_error(v[i]) : hip_stream_sync(v[i]);
		if (e && !err)
			err = e;
	}
	free(v);
	ctx_put(c);
	return err ? hip_gpu_error(err) : hipSuccess;
}

hipError_t hipExecutionCtxSynchronize(hipExecutionCtx_t ctx)
{
	HIP_RETURN(ctx_synchronize(ctx));
}

/* hipErrorInvalidHandle (or hipErrorContextIsDestroyed) when [in] e is not a live event. */
static hipError_t event_check(hipEvent_t e)
{
	if (!e)
		return hipErrorInvalidHandle;
	hipError_t err = hipEventQuery(e);
	return err == hipErrorInvalidHandle || err == hipErrorContextIsDestroyed ? err : hipSuccess;
}

/* Records [in] e once the work so far on every stream of [in] v has completed: the other
 * streams' last work becomes pending waits of [in] target, then e is recorded there. This is the
 * fan-in clr enqueues on the context's first stream, with the same consequence: later work on
 * target also follows that work. */
static hipError_t record_after(struct hip_stream **v, int n, struct hip_stream *target, hipEvent_t e)
{
	for (int i = 0; i < n; i++) {
		if (v[i] == target)
			continue;
		struct hip_fence *f = hip_stream_tail(v[i]);
		if (f && !hip_fence_done(f))
			hip_stream_add_wait(target, f); /* takes the reference */
		else
			hip_fence_put(f);
	}
	return hipEventRecord(e, (hipStream_t)target);
}

/* A context with no streams has no work: e is recorded on a short-lived stream of its own, so
 * it completes at once rather than keeping an older record. */
static hipError_t record_empty(struct hip_device *d, hipEvent_t e)
{
	struct hip_stream *s;
	int err = hip_stream_create(d, hipStreamNonBlocking, 0, &s);
	if (err)
		return hip_error_from_errno(err);
	hipError_t herr = hipEventRecord(e, (hipStream_t)s);
	hip_stream_destroy(s);
	return herr;
}

/* The common start of an event call on a context: the arguments checked, a reference on the
 * context and a snapshot of its streams ([out] v, [out] n; freed by ctx_event_end). */
static hipError_t ctx_event_begin(hipExecutionCtx_t h, hipEvent_t e, struct exec_ctx **c,
				  struct hip_stream ***v, int *n)
{
	if (!h)
		return hipErrorInvalidValue;
	hipError_t err = event_check(e);
	if (err)
		return err;
	*c = ctx_get(h);
	if (!*c)
		return hipErrorInvalidContext;
	*n = ctx_streams(*c, v);
	if (*n < 0) {
		ctx_put(*c);
		return hipErrorOutOfMemory;
	}
	return hipSuccess;
}

static void ctx_event_end(struct exec_ctx *c, struct hip_stream **v)
{
	free(v);
	ctx_put(c);
}

static hipError_t ctx_record_event(hipExecutionCtx_t h, hipEvent_t e)
{
	struct exec_ctx *c;
	struct hip_stream **v;
	int n;
	hipError_t err = ctx_event_begin(h, e, &c, &v, &n);
	if (err)
		return err;
	if (c->primary && c->device->null_stream)
		err = record_after(v, n, c->device->null_stream, e);
	else if (n == 0)
		err = record_empty(c->device, e);
	else
		err = record_after(v, n, v[0], e);
	ctx_event_end(c, v);
	return err;
}

hipError_t hipExecutionCtxRecordEvent(hipExecutionCtx_t ctx, hipEvent_t event)
{
	HIP_RETURN(ctx_record_event(ctx, event));
}

static hipError_t ctx_wait_event(hipExecutionCtx_t h, hipEvent_t e)
{
	struct exec_ctx *c;
	struct hip_stream **v;
	int n;
	hipError_t err = ctx_event_begin(h, e, &c, &v, &n);
	if (err)
		return err;
	for (int i = 0; i < n && !err; i++) {
		/* A stream destroyed since the snapshot no longer needs to wait. */
		if (!hip_stream_valid((hipStream_t)v[i]))
			continue;
		err = hipStreamWaitEvent((hipStream_t)v[i], e, 0);
	}
	ctx_event_end(c, v);
	return err;
}

hipError_t hipExecutionCtxWaitEvent(hipExecutionCtx_t ctx, hipEvent_t event)
{
	HIP_RETURN(ctx_wait_event(ctx, event));
}

/* Streams are destroyed below this layer (hipStreamDestroy, hipDeviceReset): the stream engine
 * tells green contexts through its destroy hook. */
__attribute__((constructor)) static void green_ctx_install_hook(void)
{
	hip_stream_on_destroy(green_ctx_stream_forget);
}
