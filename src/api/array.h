/* HIP arrays backed by linear device memory (array.c), and the pitched 3D copy the array copies,
 * hipDrvMemcpy3D and hipMemcpy3DPeer share.
 *
 * AMD's runtime backs an array with an image object; hipkfd backs it with plain device memory
 * laid out row-major with a tight pitch: element (x, y, z) lives at data + (z * height + y) *
 * pitch + x * elem_size. Texture and surface objects over an array describe exactly that memory
 * as a linear-tiled image (texture.c), which is the layout the interpreter samples.
 */
#ifndef HIPKFD_API_ARRAY_H
#define HIPKFD_API_ARRAY_H

#include <stdbool.h>
#include <stddef.h>

#include <hip/hip_runtime_api.h>

/* The first fields repeat the public struct hipArray of ROCm 5.x headers (driver_types.h), so a
 * binary built against them that reads array->data or array->width still finds them. */
struct hipArray {
	void *data;                       /* device memory, pitch * rows * slices bytes */
	struct hipChannelFormatDesc desc;
	unsigned int type;
	unsigned int width;               /* elements; as created (0 only for an unused dimension) */
	unsigned int height;              /* rows; 0 for a 1D array */
	unsigned int depth;               /* slices or layers; 0 for 1D/2D arrays */
	enum hipArray_Format Format;
	unsigned int NumChannels;
	bool isDrv;
	unsigned int textureType;
	unsigned int flags;
	/* hipkfd's own fields. */
	size_t elem_size;                 /* bytes per element */
	size_t pitch;                     /* bytes per row: width * elem_size */
	size_t rows;                      /* max(height, 1) */
	size_t slices;                    /* max(depth, 1) */
	int device;                       /* ordinal the memory lives on */
	bool mip_level;                   /* a level of a mipmapped array: freed with it only */
	struct hipArray *next;            /* in the live-array list (array.c) */
};

/* Create an array as hipArray3DCreate does ([in] drv: through the driver API). */
hipError_t hip_array_create(hipArray_t *out, const HIP_ARRAY3D_DESCRIPTOR *d, bool drv);

/* Destroy a live array (its memory after the device's pending work, as clr). A level of a
 * mipmapped array only with [in] as_level. */
hipError_t hip_array_destroy(hipArray_t a, bool as_level);

/* The driver-API format and channel count of a runtime channel description; false when it is
 * not one an array can have. */
bool hip_array_format_of_desc(const struct hipChannelFormatDesc *d, enum hipArray_Format *f,
			      unsigned *n);

/* The array behind [in] a if it is a live array created here, else NULL. */
struct hipArray *hip_array_find(const struct hipArray *a);

/* One side of a pitched copy: base address of the (0,0,0) element, row pitch, rows per slice. */
struct hip_pitched {
	const void *base;
	size_t pitch;
	size_t rows; /* rows per slice (slice pitch = pitch * rows); ignored when depth is 1 */
};

/* Copy a box of [in] width bytes x height rows x depth slices from src to dst, with [in] kind, in
 * stream order on [in] stream; waits for completion unless [in] async. hipSuccess or the error of
 * the failing hipMemcpy2DAsync. */
hipError_t hip_pitched_copy(struct hip_pitched dst, struct hip_pitched src, size_t width,
			    size_t height, size_t depth, hipMemcpyKind kind, hipStream_t stream,
			    bool async);

/* The pitched view of [in] a at element position [in] pos (x in bytes, as hipPos and the driver
 * API give it); checks that a box of width bytes x height x depth fits. hipErrorInvalidValue
 * when it does not. */
hipError_t hip_array_view(const struct hipArray *a, size_t x_bytes, size_t y, size_t z,
			  size_t width, size_t height, size_t depth, struct hip_pitched *out);

/* hipDrvMemcpy3D(Async) on a block in hipkfd's own layout and numbering (array_copy.c): the
 * entry points translate the caller's ABI first (runtime/abi.h), internal callers come here. */
hipError_t hip_drv_memcpy3d(const HIP_MEMCPY3D *p, hipStream_t stream, bool async);

#endif
