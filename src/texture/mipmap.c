/* Mipmapped arrays: one linear-memory array (array.h) per level, level l of a W x H x D array
 * being max(1, W >> l) x max(1, H >> l) x max(1, D >> l) (dimensions that are 0 stay 0), as CUDA
 * documents for cudaMallocMipmappedArray. Levels are reached with hipGetMipmappedArrayLevel and
 * copied like any array; without texture instructions nothing samples them. A level belongs to
 * its mipmapped array: hipFreeArray on it is an error, hipFreeMipmappedArray frees all levels.
 * hipMipmappedArrayGetMemoryRequirements (sparse arrays) stays unsupported.
 */
#include <pthread.h>
#include <stdlib.h>

#include "../api/array.h"
#include "../runtime/error.h"

/* 32 levels cover any size_t extent. */
#define MIP_MAX_LEVELS 32

struct mipmap {
	struct hipMipmappedArray pub;  /* the handle points here; fields as ROCm's public struct */
	unsigned levels;
	hipArray_t level[MIP_MAX_LEVELS];
	struct mipmap *next;           /* in mip_list; protected by mip_lock */
};

static struct mipmap *mip_list;
static pthread_mutex_t mip_lock = PTHREAD_MUTEX_INITIALIZER;

static struct mipmap *mip_find(const struct hipMipmappedArray *h)
{
	struct mipmap *m;

	pthread_mutex_lock(&mip_lock);
	for (m = mip_list; m && &m->pub != h; m = m->next)
		;
	pthread_mutex_unlock(&mip_lock);
	return m;
}

static bool mip_unlink(struct mipmap *m)
{
	bool found = false;

	pthread_mutex_lock(&mip_lock);
	for (struct mipmap **pp = &mip_list; *pp; pp = &(*pp)->next) {
		if (*pp == m) {
			*pp = m->next;
			found = true;
			break;
		}
	}
	pthread_mutex_unlock(&mip_lock);
	return found;
}

static size_t mip_dim(size_t d, unsigned l)
{
	if (d == 0)
		return 0;
	d >>= l;
	return d ? d : 1;
}

/* The most levels an extent has: 1 + floor(log2(largest mipmapped dimension)); the layers of a
 * layered array are not a mipmapped dimension. */
static unsigned mip_max_levels(const HIP_ARRAY3D_DESCRIPTOR *d)
{
	size_t big = d->Width > d->Height ? d->Width : d->Height;
	unsigned max = 1;

	if (!(d->Flags & hipArrayLayered) && d->Depth > big)
		big = d->Depth;
	while (max < MIP_MAX_LEVELS && (big >> max))
		max++;
	return max;
}

/* The level count of a request: 0 means 1; more levels than the extent has is
 * hipErrorInvalidValue (0 returned), as CUDA documents for cudaMallocMipmappedArray and clr's
 * image creation refuses. */
static unsigned mip_level_count(const HIP_ARRAY3D_DESCRIPTOR *d, unsigned requested)
{
	if (requested == 0)
		return 1;
	return requested <= mip_max_levels(d) ? requested : 0;
}

static void mip_free_levels(struct mipmap *m)
{
	for (unsigned l = 0; l < m->levels; l++)
		(void)hip_array_destroy(m->level[l], true);
}

static hipError_t mip_create(hipMipmappedArray_t *out, const HIP_ARRAY3D_DESCRIPTOR *d,
			     unsigned levels, bool drv)
{
	if (!out || !d)
		return hipErrorInvalidValue;
	if (d->Flags & hipArrayTextureGather)
		return hipErrorInvalidValue; /* gather is for 2D arrays without levels */
	unsigned n = mip_level_count(d, levels);
	if (n == 0)
		return hipErrorInvalidValue;
	struct mipmap *m = calloc(1, sizeof(*m));
	if (!m)
		return hipErrorOutOfMemory;
	for (unsigned l = 0; l < n; l++) {
		HIP_ARRAY3D_DESCRIPTOR ld = *d;
		ld.Width = mip_dim(d->Width, l);
		ld.Height = mip_dim(d->Height, l);
		/* Layers are not a mipmapped dimension. */
		ld.Depth = (d->Flags & hipArrayLayered) ? d->Depth : mip_dim(d->Depth, l);
		hipError_t err = hip_array_create(&m->level[l], &ld, drv);
		if (err != hipSuccess) {
			mip_free_levels(m);
			free(m);
			return err;
		}
		m->level[l]->mip_level = true;
		m->levels = l + 1;
	}
	const struct hipArray *base = m->level[0];
	m->pub.data = base->data;
	m->pub.desc = base->desc;
	m->pub.width = base->width;
	m->pub.height = base->height;
	m->pub.depth = base->depth;
	m->pub.min_mipmap_level = 0;
	m->pub.max_mipmap_level = n - 1;
	m->pub.flags = d->Flags;
	m->pub.format = d->Format;
	m->pub.num_channels = d->NumChannels;
	pthread_mutex_lock(&mip_lock);
	m->next = mip_list;
	mip_list = m;
	pthread_mutex_unlock(&mip_lock);
	*out = &m->pub;
	return hipSuccess;
}

/* A handle that is not a live mipmapped array (freed already) is hipErrorContextIsDestroyed, the
 * answer hipFreeArray gives for arrays (array.c) and clr's tests expect for both. */
static hipError_t mip_destroy(hipMipmappedArray_t h)
{
	if (!h)
		return hipErrorInvalidValue;
	struct mipmap *m = mip_find(h);
	if (!m || !mip_unlink(m))
		return hipErrorContextIsDestroyed;
	mip_free_levels(m);
	free(m);
	return hipSuccess;
}

static hipError_t mip_level(hipArray_t *out, hipMipmappedArray_const_t h, unsigned level)
{
	if (!out)
		return hipErrorInvalidValue;
	struct mipmap *m = h ? mip_find(h) : NULL;
	if (!m)
		return hipErrorInvalidHandle;
	if (level >= m->levels)
		return hipErrorInvalidValue;
	*out = m->level[level];
	return hipSuccess;
}

hipError_t hipMallocMipmappedArray(hipMipmappedArray_t *mipmappedArray,
				   const struct hipChannelFormatDesc *desc, struct hipExtent extent,
				   unsigned int numLevels, unsigned int flags)
{
	HIP_ARRAY3D_DESCRIPTOR d = {extent.width, extent.height, extent.depth,
				    HIP_AD_FORMAT_UNSIGNED_INT8, 0, flags};

	if (!mipmappedArray || !desc)
		HIP_RETURN(hipErrorInvalidValue);
	if (!hip_array_format_of_desc(desc, &d.Format, &d.NumChannels))
		HIP_RETURN(hipErrorInvalidValue);
	HIP_RETURN(mip_create(mipmappedArray, &d, numLevels, false));
}

hipError_t hipMipmappedArrayCreate(hipMipmappedArray_t *pHandle,
				   HIP_ARRAY3D_DESCRIPTOR *pMipmappedArrayDesc,
				   unsigned int numMipmapLevels)
{
	HIP_RETURN(mip_create(pHandle, pMipmappedArrayDesc, numMipmapLevels, true));
}

hipError_t hipFreeMipmappedArray(hipMipmappedArray_t mipmappedArray)
{
	HIP_RETURN(mip_destroy(mipmappedArray));
}

hipError_t hipMipmappedArrayDestroy(hipMipmappedArray_t hMipmappedArray)
{
	HIP_RETURN(mip_destroy(hMipmappedArray));
}

hipError_t hipGetMipmappedArrayLevel(hipArray_t *levelArray,
				     hipMipmappedArray_const_t mipmappedArray, unsigned int level)
{
	HIP_RETURN(mip_level(levelArray, mipmappedArray, level));
}

hipError_t hipMipmappedArrayGetLevel(hipArray_t *pLevelArray, hipMipmappedArray_t hMipMappedArray,
				     unsigned int level)
{
	HIP_RETURN(mip_level(pLevelArray, hMipMappedArray, level));
}
