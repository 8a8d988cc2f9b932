/* Texture objects: hipCreateTextureObject and friends (texture.h).
 *
 * The object is built the way clr (hipamd/src/hip_texture.cpp ihipCreateTextureObject) and ROCr's
 * gfx9 image manager (hsa-runtime/image/image_manager_ai.cpp PopulateImageSrd/PopulateSamplerSrd)
 * build theirs, so that kernels compiled against AMD's headers (ockl image functions) and ours
 * read the same words:
 *   - arrays and pitch2D memory get an image T#: linear tiling (SW_MODE 0), one mip level, the
 *     row pitch in elements; 8/16-bit integer formats read with hipReadModeNormalizedFloat get
 *     the UNORM/SNORM number format (32-bit integers never do, as clr);
 *   - linear memory gets a buffer V# (ockl's __ockl_image_load_1Db reads it with
 *     buffer_load_format), NUM_RECORDS counting elements;
 *   - the S# holds the clamp modes, unnormalized-coordinate flag and XY filter. With
 *     unnormalized coordinates wrap and mirror become clamp (clr); the border colour is
 *     transparent black (ROCr writes BORDER_COLOR_TRANS_BLACK; hipTextureDesc::borderColor is not
 *     programmed by AMD either).
 * Validation and error codes follow clr: maxAnisotropy or mipmapLevelBias set ->
 * hipErrorNotSupported, misaligned (256 bytes) linear/pitch2D pointers or pitches ->
 * hipErrorInvalidValue, mipmapped arrays -> hipErrorNotSupported (clr's ROCm backend), a 3D array
 * with linear filtering on gfx90a -> hipErrorNotSupported (clr), a device without image
 * instructions (gfx942) -> hipErrorNotSupported. sRGB reads are not modelled:
 * hipErrorNotSupported, except on linear memory, where AMD refuses them (hipErrorInvalidValue).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "../kfd/kfd.h"
#include "../api/array.h"
#include "../runtime/error.h"
#include "../runtime/internal.h"
#include "../runtime/runtime.h"
#include "texture.h"

/* Base address and pitch alignment of image resources (clr imageBaseAddressAlignment_,
 * imagePitchAlignment_; hipDeviceProp_t textureAlignment/texturePitchAlignment). */
#define TEX_ALIGN 256u
/* clr's limit on linear textures: hipDeviceProp_t::maxTexture1DLinear elements. */
#define TEX_MAX_LINEAR (1u << 27)

/* T# TYPE, SQ_TEX clamp modes, DST_SEL, NUM_FORMAT and HSA channel enums (hsa_ext_image.h). */
enum { IMG_1D = 8, IMG_2D = 9, IMG_3D = 10, IMG_1D_ARRAY = 12, IMG_2D_ARRAY = 13 };
enum { SQ_TEX_WRAP = 0, SQ_TEX_MIRROR = 1, SQ_TEX_CLAMP_LAST_TEXEL = 2, SQ_TEX_CLAMP_BORDER = 6 };
enum { NF_UNORM = 0, NF_SNORM = 1, NF_UINT = 4, NF_SINT = 5, NF_FLOAT = 7 };

struct tex_format {
	unsigned bits;       /* per channel */
	unsigned nch;        /* 1, 2 or 4 */
	int kind;            /* hipChannelFormatKind */
};

static bool tex_format_of(enum hipArray_Format f, unsigned nch, struct tex_format *out)
{
	switch (f) {
	case HIP_AD_FORMAT_UNSIGNED_INT8: *out = (struct tex_format){8, nch, hipChannelFormatKindUnsigned}; break;
	case HIP_AD_FORMAT_UNSIGNED_INT16: *out = (struct tex_format){16, nch, hipChannelFormatKindUnsigned}; break;
	case HIP_AD_FORMAT_UNSIGNED_INT32: *out = (struct tex_format){32, nch, hipChannelFormatKindUnsigned}; break;
	case HIP_AD_FORMAT_SIGNED_INT8: *out = (struct tex_format){8, nch, hipChannelFormatKindSigned}; break;
	case HIP_AD_FORMAT_SIGNED_INT16: *out = (struct tex_format){16, nch, hipChannelFormatKindSigned}; break;
	case HIP_AD_FORMAT_SIGNED_INT32: *out = (struct tex_format){32, nch, hipChannelFormatKindSigned}; break;
	case HIP_AD_FORMAT_HALF: *out = (struct tex_format){16, nch, hipChannelFormatKindFloat}; break;
	case HIP_AD_FORMAT_FLOAT: *out = (struct tex_format){32, nch, hipChannelFormatKindFloat}; break;
	default: return false;
	}
	return nch == 1 || nch == 2 || nch == 4;
}

static size_t tex_elem_size(const struct tex_format *f)
{
	return f->bits / 8 * f->nch;
}

/* DATA_FORMAT: FMT_8, FMT_8_8, FMT_8_8_8_8, FMT_16 ... FMT_32_32_32_32 (same numbers for T# and
 * V#). */
static unsigned tex_dfmt(const struct tex_format *f)
{
	static const unsigned by_bits[3][5] = {
		{0, 1, 3, 0, 10}, {0, 2, 5, 0, 12}, {0, 4, 11, 0, 14}};
	return by_bits[f->bits == 8 ? 0 : f->bits == 16 ? 1 : 2][f->nch];
}

static unsigned tex_nfmt(const struct tex_format *f, bool normalized)
{
	if (f->kind == hipChannelFormatKindFloat)
		return NF_FLOAT;
	if (f->kind == hipChannelFormatKindSigned)
		return normalized && f->bits < 32 ? NF_SNORM : NF_SINT;
	return normalized && f->bits < 32 ? NF_UNORM : NF_UINT;
}

/* HSA_EXT_IMAGE_CHANNEL_TYPE_* of the format as read (dword 8, ockl's channel data type). */
static uint32_t tex_hsa_type(const struct tex_format *f, bool normalized)
{
	unsigned b = f->bits == 8 ? 0 : f->bits == 16 ? 1 : 2;
	if (f->kind == hipChannelFormatKindFloat)
		return b == 1 ? 14 : 15;
	if (normalized && b < 2)
		return f->kind == hipChannelFormatKindSigned ? b : 2 + b;
	return (f->kind == hipChannelFormatKindSigned ? 8 : 11) + b;
}

/* DST_SEL: R -> (X, 0, 0, 1), RG -> (X, Y, 0, 1), RGBA -> (X, Y, Z, W); HSA channel order. */
static uint32_t tex_dst_sel(unsigned nch)
{
	return nch == 1 ? 4u | 1u << 9 : nch == 2 ? 4u | 5u << 3 | 1u << 9 : 4u | 5u << 3 | 6u << 6 | 7u << 9;
}

static uint32_t tex_hsa_order(unsigned nch)
{
	return nch == 1 ? 1 : nch == 2 ? 3 : 8;
}

/* What a T# or V# describes. */
struct tex_geom {
	uint64_t base;
	struct tex_format f;
	unsigned type;                 /* IMG_*, or 0 for a buffer */
	size_t width, height, depth;   /* elements; depth: slices or layers (1 when unused) */
	size_t pitch;                  /* bytes per row */
};

static hipError_t geom_of_array(const hipResourceDesc *res, struct tex_geom *g)
{
	const struct hipArray *a = hip_array_find(res->res.array.array);

	if (!a)
		return hipErrorInvalidValue;
	if (!tex_format_of(a->Format, a->NumChannels, &g->f))
		return hipErrorInvalidValue;
	if (a->flags & hipArrayCubemap)
		return hipErrorNotSupported;
	g->base = (uint64_t)(uintptr_t)a->data;
	g->width = a->width;
	g->height = a->height ? a->height : 1;
	g->depth = a->depth ? a->depth : 1;
	g->pitch = a->pitch;
	if (a->depth == 0)
		g->type = a->height ? IMG_2D : IMG_1D;
	else if (a->flags & hipArrayLayered)
		g->type = a->height ? IMG_2D_ARRAY : IMG_1D_ARRAY;
	else
		g->type = IMG_3D;
	/* hipkfd's arrays are page-aligned device memory; anything else cannot be a T# base. */
	if (g->base % TEX_ALIGN)
		return hipErrorNotSupported;
	return hipSuccess;
}

static hipError_t geom_of_linear(const hipResourceDesc *res, struct tex_geom *g)
{
	enum hipArray_Format fmt;
	unsigned nch;

	if (!hip_array_format_of_desc(&res->res.linear.desc, &fmt, &nch) ||
	    !tex_format_of(fmt, nch, &g->f))
		return hipErrorInvalidValue;
	size_t es = tex_elem_size(&g->f);
	if (!res->res.linear.devPtr || (uintptr_t)res->res.linear.devPtr % TEX_ALIGN ||
	    res->res.linear.sizeInBytes < es || res->res.linear.sizeInBytes >= (size_t)TEX_MAX_LINEAR * es)
		return hipErrorInvalidValue;
	g->base = (uint64_t)(uintptr_t)res->res.linear.devPtr;
	g->type = 0;
	g->width = res->res.linear.sizeInBytes / es;
	g->height = g->depth = 1;
	g->pitch = g->width * es;
	return hipSuccess;
}

static hipError_t geom_of_pitch2d(const hipResourceDesc *res, struct tex_geom *g)
{
	const void *ptr = res->res.pitch2D.devPtr;
	size_t width = res->res.pitch2D.width, height = res->res.pitch2D.height;
	size_t pitch = res->res.pitch2D.pitchInBytes;
	enum hipArray_Format fmt;
	unsigned nch;

	if (!hip_array_format_of_desc(&res->res.pitch2D.desc, &fmt, &nch) ||
	    !tex_format_of(fmt, nch, &g->f))
		return hipErrorInvalidValue;
	if (!ptr || (uintptr_t)ptr % TEX_ALIGN || pitch % TEX_ALIGN || width == 0 || height == 0 ||
	    pitch < width * tex_elem_size(&g->f))
		return hipErrorInvalidValue;
	g->base = (uint64_t)(uintptr_t)ptr;
	g->type = IMG_2D;
	g->width = width;
	g->height = height;
	g->depth = 1;
	g->pitch = pitch;
	return hipSuccess;
}

static hipError_t geom_of(const hipResourceDesc *res, struct tex_geom *g)
{
	switch (res->resType) {
	case hipResourceTypeArray: return geom_of_array(res, g);
	case hipResourceTypeLinear: return geom_of_linear(res, g);
	case hipResourceTypePitch2D: return geom_of_pitch2d(res, g);
	case hipResourceTypeMipmappedArray: return hipErrorNotSupported;
	}
	return hipErrorInvalidValue;
}

/* V# for linear memory: base, STRIDE = element size, NUM_RECORDS in elements (idxen loads
 * compare the index against it), DST_SEL/NUM_FORMAT/DATA_FORMAT in dword 3. */
static void buffer_desc(const struct tex_geom *g, bool normalized, uint32_t out[12])
{
	out[0] = (uint32_t)g->base;
	out[1] = (uint32_t)(g->base >> 32 & 0xffff) | (uint32_t)tex_elem_size(&g->f) << 16;
	out[2] = (uint32_t)g->width;
	out[3] = tex_dst_sel(g->f.nch) | tex_nfmt(&g->f, normalized) << 12 | tex_dfmt(&g->f) << 15;
}

/* The gfx9 T# fields (MI200 ISA guide "Image Resource"; ROCr resource_ai.h). */
static hipError_t image_desc(const struct tex_geom *g, bool normalized, uint32_t out[12])
{
	size_t es = tex_elem_size(&g->f), pitch_el = g->pitch / es;
	if (g->width - 1 > 0x3fff || g->height - 1 > 0x3fff || g->depth - 1 > 0x1fff ||
	    pitch_el - 1 > 0xffff || g->pitch % es)
		return hipErrorInvalidValue;
	out[0] = (uint32_t)(g->base >> 8);
	out[1] = (uint32_t)(g->base >> 40 & 0xff) | tex_dfmt(&g->f) << 20 |
		 tex_nfmt(&g->f, normalized) << 26;
	out[2] = (uint32_t)(g->width - 1) | (uint32_t)(g->height - 1) << 14;
	out[3] = tex_dst_sel(g->f.nch) | (uint32_t)g->type << 28;   /* levels 0..0, SW_MODE linear */
	out[4] = (uint32_t)(g->depth - 1) | (uint32_t)(pitch_el - 1) << 13;
	return hipSuccess;
}

hipError_t hip_tex_image_desc(const hipResourceDesc *res, bool normalized, uint32_t out[12])
{
	struct tex_geom g;
	hipError_t err = geom_of(res, &g);

	if (err != hipSuccess)
		return err;
	memset(out, 0, 12 * sizeof(uint32_t));
	normalized = normalized && g.f.bits < 32 && g.f.kind != hipChannelFormatKindFloat;
	if (g.type == 0)
		buffer_desc(&g, normalized, out);
	else if ((err = image_desc(&g, normalized, out)) != hipSuccess)
		return err;
	/* Words ockl reads besides the descriptor (ROCr PopulateImageSrd: srd[8..10]). */
	out[8] = tex_hsa_type(&g.f, normalized);
	out[9] = tex_hsa_order(g.f.nch);
	out[10] = (uint32_t)g.width;
	return hipSuccess;
}

hipError_t hip_tex_device_check(void)
{
	hipError_t err = hip_init_error();
	struct hip_device *d;

	if (err != hipSuccess)
		return err;
	d = hip_device_current();
	if (!d)
		return hipErrorNoDevice;
	/* gfx940 and later have no MIMG instructions (LLVM refuses them): no image support. */
	return d->node->gfx_target_version < 90400 ? hipSuccess : hipErrorNotSupported;
}

hipError_t hip_tex_upload(const uint32_t words[HIP_TEX_OBJECT_DWORDS], void **dev)
{
	size_t bytes = HIP_TEX_OBJECT_DWORDS * sizeof(uint32_t);
	hipError_t err = hipMalloc(dev, bytes);

	if (err != hipSuccess)
		return err;
	err = hipMemcpy(*dev, words, bytes, hipMemcpyHostToDevice);
	if (err != hipSuccess) {
		hipFree(*dev);
		*dev = NULL;
	}
	return err;
}

/* ---- the sampler ---- */

static unsigned sq_clamp(enum hipTextureAddressMode m, bool normalized)
{
	switch (m) {
	case hipAddressModeWrap: return normalized ? SQ_TEX_WRAP : SQ_TEX_CLAMP_LAST_TEXEL;
	case hipAddressModeMirror: return normalized ? SQ_TEX_MIRROR : SQ_TEX_CLAMP_LAST_TEXEL;
	case hipAddressModeBorder: return SQ_TEX_CLAMP_BORDER;
	default: return SQ_TEX_CLAMP_LAST_TEXEL;
	}
}

static hipError_t tex_desc_check(const hipTextureDesc *t, hipResourceType type)
{
	for (int i = 0; i < 3; i++)
		if ((unsigned)t->addressMode[i] > hipAddressModeBorder)
			return hipErrorInvalidValue;
	if ((unsigned)t->filterMode > hipFilterModeLinear || (unsigned)t->readMode > hipReadModeNormalizedFloat ||
	    (unsigned)t->mipmapFilterMode > hipFilterModeLinear)
		return hipErrorInvalidValue;
	/* clr does not program anisotropy or an LOD bias: it refuses them. */
	if (t->maxAnisotropy != 0 || t->mipmapLevelBias != 0)
		return hipErrorNotSupported;
	/* A buffer (V#) read has no sRGB number format: clr's buffer image with an sRGB channel
	 * order cannot be created and AMD returns hipErrorInvalidValue. Images could degamma, but
	 * that is not modelled here. */
	if (t->sRGB)
		return type == hipResourceTypeLinear ? hipErrorInvalidValue : hipErrorNotSupported;
	return hipSuccess;
}

/* S# words (MI200 ISA guide "Image Sampler"; ROCr PopulateSamplerSrd): clamp modes per axis,
 * FORCE_UNNORMALIZED, MAX_LOD 4095 (fixed point 4.8), XY_MAG/MIN filter, transparent black. */
static void sampler_desc(const hipTextureDesc *t, bool linear_res, uint32_t out[4])
{
	bool norm = t->normalizedCoords != 0;
	unsigned filter = !linear_res && t->filterMode == hipFilterModeLinear ? 1 : 0;

	out[0] = 0;
	for (int i = 0; i < 3; i++)
		out[0] |= (linear_res ? SQ_TEX_CLAMP_LAST_TEXEL : sq_clamp(t->addressMode[i], norm)) << (3 * i);
	out[0] |= (norm ? 0u : 1u) << 15;
	out[1] = 4095u << 12;
	out[2] = filter << 20 | filter << 22;
	out[3] = 0;
}

/* ---- live objects ---- */

struct tex_object {
	void *dev;                       /* the handle: device copy of the words */
	hipResourceDesc res;
	hipTextureDesc tex;
	struct hipResourceViewDesc view;
	struct tex_object *next;
};

static struct tex_object *tex_list;
static pthread_mutex_t tex_lock = PTHREAD_MUTEX_INITIALIZER;

/* Copy of the live object behind [in] h; false when h is not one. */
static bool tex_lookup(hipTextureObject_t h, struct tex_object *out)
{
	bool found = false;

	pthread_mutex_lock(&tex_lock);
	for (struct tex_object *o = tex_list; o; o = o->next) {
		if (o->dev == (void *)h) {
			*out = *o;
			found = true;
			break;
		}
	}
	pthread_mutex_unlock(&tex_lock);
	return found;
}

static struct tex_object *tex_unlink(hipTextureObject_t h)
{
	struct tex_object *o = NULL;

	pthread_mutex_lock(&tex_lock);
	for (struct tex_object **pp = &tex_list; *pp; pp = &(*pp)->next) {
		if ((*pp)->dev == (void *)h) {
			o = *pp;
			*pp = o->next;
			break;
		}
	}
	pthread_mutex_unlock(&tex_lock);
	return o;
}

/* A resource view may only restate the array's own format (a reinterpreting view is not
 * modelled) and its full extent. */
static hipError_t view_check(const hipResourceDesc *res, const struct hipResourceViewDesc *v)
{
	static const struct { unsigned bits, kind; } kinds[] = {
		{8, hipChannelFormatKindUnsigned}, {8, hipChannelFormatKindSigned},
		{16, hipChannelFormatKindUnsigned}, {16, hipChannelFormatKindSigned},
		{32, hipChannelFormatKindUnsigned}, {32, hipChannelFormatKindSigned},
		{16, hipChannelFormatKindFloat}, {32, hipChannelFormatKindFloat}};
	static const unsigned nchs[3] = {1, 2, 4};
	struct tex_geom g;
	hipError_t err;

	if (res->resType != hipResourceTypeArray && res->resType != hipResourceTypeMipmappedArray)
		return hipErrorInvalidValue;
	if ((err = geom_of(res, &g)) != hipSuccess)
		return err;
	if (v->format == hipResViewFormatNone || v->format > hipResViewFormatFloat4)
		return hipErrorNotSupported;
	unsigned i = (unsigned)v->format - 1;
	if (kinds[i / 3].bits != g.f.bits || (int)kinds[i / 3].kind != g.f.kind || nchs[i % 3] != g.f.nch)
		return hipErrorNotSupported;
	if (v->firstMipmapLevel || v->lastMipmapLevel || v->firstLayer ||
	    (v->width && v->width != g.width))
		return hipErrorNotSupported;
	return hipSuccess;
}

static hipError_t tex_create(hipTextureObject_t *out, const hipResourceDesc *res,
			     const hipTextureDesc *tex, const struct hipResourceViewDesc *view)
{
	uint32_t words[HIP_TEX_OBJECT_DWORDS] = {0};
	struct tex_geom g;
	hipError_t err;

	if ((err = hip_tex_device_check()) != hipSuccess)
		return err;
	if (!out || !res || !tex)
		return hipErrorInvalidValue;
	if (view && (err = view_check(res, view)) != hipSuccess)
		return err;
	if ((err = tex_desc_check(tex, res->resType)) != hipSuccess || (err = geom_of(res, &g)) != hipSuccess)
		return err;
	/* clr: "gfx90a doesn't support 3D linear filter" (clr tests depth > 0, which also refuses
	 * layered arrays; only volumes are refused here). */
	if (g.type == IMG_3D && tex->filterMode == hipFilterModeLinear)
		return hipErrorNotSupported;
	err = hip_tex_image_desc(res, tex->readMode == hipReadModeNormalizedFloat, words);
	if (err != hipSuccess)
		return err;
	sampler_desc(tex, g.type == 0, &words[HIP_SAMPLER_OBJECT_OFFSET_DWORD]);

	struct tex_object *o = calloc(1, sizeof(*o));
	if (!o)
		return hipErrorOutOfMemory;
	o->res = *res;
	o->tex = *tex;
	if (view)
		o->view = *view;
	if ((err = hip_tex_upload(words, &o->dev)) != hipSuccess) {
		free(o);
		return err;
	}
	pthread_mutex_lock(&tex_lock);
	o->next = tex_list;
	tex_list = o;
	pthread_mutex_unlock(&tex_lock);
	*out = (hipTextureObject_t)o->dev;
	return hipSuccess;
}

hipError_t hipCreateTextureObject(hipTextureObject_t *pTexObject, const hipResourceDesc *pResDesc,
				  const hipTextureDesc *pTexDesc,
				  const struct hipResourceViewDesc *pResViewDesc)
{
	HIP_RETURN(tex_create(pTexObject, pResDesc, pTexDesc, pResViewDesc));
}

hipError_t hipDestroyTextureObject(hipTextureObject_t textureObject)
{
	struct tex_object *o;

	if (!textureObject)
		HIP_RETURN(hipSuccess);   /* clr: destroying NULL is a no-op */
	o = tex_unlink(textureObject);
	if (!o)
		HIP_RETURN(hipErrorInvalidValue);
	/* hipFree waits for the device work that may still sample the object. */
	hipError_t err = hipFree(o->dev);
	free(o);
	HIP_RETURN(err);
}

hipError_t hipGetTextureObjectResourceDesc(hipResourceDesc *pResDesc, hipTextureObject_t textureObject)
{
	struct tex_object o;

	if (!pResDesc || !textureObject || !tex_lookup(textureObject, &o))
		HIP_RETURN(hipErrorInvalidValue);
	*pResDesc = o.res;
	HIP_RETURN(hipSuccess);
}

hipError_t hipGetTextureObjectResourceViewDesc(struct hipResourceViewDesc *pResViewDesc,
					       hipTextureObject_t textureObject)
{
	struct tex_object o;

	if (!pResViewDesc || !textureObject || !tex_lookup(textureObject, &o))
		HIP_RETURN(hipErrorInvalidValue);
	*pResViewDesc = o.view;
	HIP_RETURN(hipSuccess);
}

hipError_t hipGetTextureObjectTextureDesc(hipTextureDesc *pTexDesc, hipTextureObject_t textureObject)
{
	struct tex_object o;

	if (!pTexDesc || !textureObject || !tex_lookup(textureObject, &o))
		HIP_RETURN(hipErrorInvalidValue);
	*pTexDesc = o.tex;
	HIP_RETURN(hipSuccess);
}
