/* Arrays backed by linear device memory: creation and queries, every copy form, and errors. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include <hip/hip_runtime_api.h>

static hipChannelFormatDesc desc_u32(void)
{
	hipChannelFormatDesc d = {32, 0, 0, 0, hipChannelFormatKindUnsigned};
	return d;
}

Test(array, create_and_query)
{
	hipArray_t a = NULL;
	hipChannelFormatDesc d = {16, 16, 16, 16, hipChannelFormatKindFloat}, got;
	hipExtent e;
	unsigned flags = 99;

	cr_assert_eq(hipMallocArray(&a, &d, 64, 8, hipArrayDefault), hipSuccess);
	cr_assert_eq(hipArrayGetInfo(&got, &e, &flags, a), hipSuccess);
	cr_assert_eq(got.x, 16);
	cr_assert_eq(got.w, 16);
	cr_assert_eq(got.f, hipChannelFormatKindFloat);
	cr_assert_eq(e.width, 64);
	cr_assert_eq(e.height, 8);
	cr_assert_eq(e.depth, 0);
	cr_assert_eq(flags, 0);
	HIP_ARRAY_DESCRIPTOR ad;
	cr_assert_eq(hipArrayGetDescriptor(&ad, a), hipSuccess);
	cr_assert_eq(ad.Format, HIP_AD_FORMAT_HALF);
	cr_assert_eq(ad.NumChannels, 4);
	cr_assert_eq(ad.Width, 64);
	cr_assert_eq(hipGetChannelDesc(&got, a), hipSuccess);
	cr_assert_eq(got.y, 16);
	cr_assert_eq(hipFreeArray(a), hipSuccess);
	cr_assert_eq(hipFreeArray(a), hipErrorContextIsDestroyed, "a freed array is not live");
}

Test(array, driver_3d_create_and_descriptor)
{
	HIP_ARRAY3D_DESCRIPTOR d = {16, 4, 3, HIP_AD_FORMAT_SIGNED_INT8, 2, 0}, got;
	hipArray_t a = NULL;

	cr_assert_eq(hipArray3DCreate(&a, &d), hipSuccess);
	cr_assert_eq(hipArray3DGetDescriptor(&got, a), hipSuccess);
	cr_assert_eq(got.Width, 16);
	cr_assert_eq(got.Height, 4);
	cr_assert_eq(got.Depth, 3);
	cr_assert_eq(got.Format, HIP_AD_FORMAT_SIGNED_INT8);
	cr_assert_eq(got.NumChannels, 2);
	cr_assert_eq(hipArrayDestroy(a), hipSuccess);
}

Test(array, bad_arguments)
{
	hipArray_t a;
	hipChannelFormatDesc d = desc_u32();
	hipChannelFormatDesc gap = {32, 0, 32, 0, hipChannelFormatKindUnsigned};
	hipChannelFormatDesc odd = {8, 16, 0, 0, hipChannelFormatKindUnsigned};
	hipChannelFormatDesc f8 = {8, 0, 0, 0, hipChannelFormatKindFloat};
	HIP_ARRAY_DESCRIPTOR three = {4, 4, HIP_AD_FORMAT_FLOAT, 3};
	HIP_ARRAY3D_DESCRIPTOR cube = {4, 4, 6, HIP_AD_FORMAT_FLOAT, 1, hipArrayCubemap};
	HIP_ARRAY_DESCRIPTOR ad;
	int bogus;

	cr_assert_eq(hipMallocArray(NULL, &d, 4, 4, 0), hipErrorInvalidValue);
	cr_assert_eq(hipMallocArray(&a, NULL, 4, 4, 0), hipErrorInvalidValue);
	cr_assert_eq(hipMallocArray(&a, &d, 0, 4, 0), hipErrorInvalidValue);
	cr_assert_eq(hipMallocArray(&a, &gap, 4, 4, 0), hipErrorInvalidValue);
	cr_assert_eq(hipMallocArray(&a, &odd, 4, 4, 0), hipErrorInvalidValue);
	cr_assert_eq(hipMallocArray(&a, &f8, 4, 4, 0), hipErrorInvalidValue);
	cr_assert_eq(hipMallocArray(&a, &d, 4, 4, 0x100), hipErrorInvalidValue);
	cr_assert_eq(hipArrayCreate(&a, &three), hipErrorInvalidValue);
	cr_assert_eq(hipArray3DCreate(&a, &cube), hipErrorInvalidValue);
	cr_assert_eq(hipArrayCreate(&a, NULL), hipErrorInvalidValue);
	cr_assert_eq(hipFreeArray(NULL), hipErrorInvalidValue);
	cr_assert_eq(hipArrayGetInfo(NULL, NULL, NULL, NULL), hipErrorInvalidHandle);
	cr_assert_eq(hipArrayGetDescriptor(&ad, (hipArray_t)&bogus), hipErrorInvalidHandle);
	cr_assert_eq(hipArrayGetDescriptor(NULL, (hipArray_t)&bogus), hipErrorInvalidValue);
}

/* 2D copies in and out, at an offset, and between arrays. */
Test(array, copies_2d)
{
	enum { W = 32, H = 8 };
	hipChannelFormatDesc d = desc_u32();
	hipArray_t a = NULL, b = NULL;
	static uint32_t src[H][W], dst[H][W];

	for (int y = 0; y < H; y++)
		for (int x = 0; x < W; x++)
			src[y][x] = (uint32_t)(y * 1000 + x);
	cr_assert_eq(hipMallocArray(&a, &d, W, H, 0), hipSuccess);
	cr_assert_eq(hipMallocArray(&b, &d, W, H, 0), hipSuccess);
	cr_assert_eq(hipMemcpy2DToArray(a, 0, 0, src, sizeof(src[0]), sizeof(src[0]), H,
					hipMemcpyHostToDevice), hipSuccess);
	/* b's rows 2..5, columns 4..11 get a's rows 0..3, columns 0..7; b starts zeroed. */
	static const uint32_t zero[H][W];
	cr_assert_eq(hipMemcpy2DToArray(b, 0, 0, zero, sizeof(zero[0]), sizeof(zero[0]), H,
					hipMemcpyHostToDevice), hipSuccess);
	cr_assert_eq(hipMemcpy2DArrayToArray(b, 4 * sizeof(uint32_t), 2, a, 0, 0,
					     8 * sizeof(uint32_t), 4, hipMemcpyDeviceToDevice),
		     hipSuccess);
	cr_assert_eq(hipMemcpy2DFromArray(dst, sizeof(dst[0]), b, 0, 0, sizeof(dst[0]), H,
					  hipMemcpyDeviceToHost), hipSuccess);
	for (int y = 0; y < H; y++)
		for (int x = 0; x < W; x++) {
			bool in = y >= 2 && y < 6 && x >= 4 && x < 12;
			uint32_t want = in ? src[y - 2][x - 4] : 0;
			cr_assert_eq(dst[y][x], want, "(%d,%d) %u != %u", x, y, dst[y][x], want);
		}
	/* Async forms on a stream, from a device buffer. */
	hipStream_t s;
	void *dev;
	cr_assert_eq(hipStreamCreate(&s), hipSuccess);
	cr_assert_eq(hipMalloc(&dev, sizeof(src)), hipSuccess);
	cr_assert_eq(hipMemset(dev, 0x5a, sizeof(src)), hipSuccess);
	cr_assert_eq(hipMemcpy2DToArrayAsync(a, 0, 1, dev, sizeof(src[0]), sizeof(src[0]), 2,
					     hipMemcpyDeviceToDevice, s), hipSuccess);
	memset(dst, 0, sizeof(dst));
	cr_assert_eq(hipMemcpy2DFromArrayAsync(dst, sizeof(dst[0]), a, 0, 0, sizeof(dst[0]), H,
					       hipMemcpyDeviceToHost, s), hipSuccess);
	cr_assert_eq(hipStreamSynchronize(s), hipSuccess);
	cr_assert_eq(dst[0][3], src[0][3]);
	cr_assert_eq(dst[1][3], 0x5a5a5a5au);
	cr_assert_eq(dst[2][31], 0x5a5a5a5au);
	cr_assert_eq(dst[3][0], src[3][0]);
	/* Out of bounds. */
	cr_assert_eq(hipMemcpy2DToArray(a, 4, 0, src, sizeof(src[0]), sizeof(src[0]), 1,
					hipMemcpyHostToDevice), hipErrorInvalidValue);
	cr_assert_eq(hipMemcpy2DFromArray(dst, sizeof(dst[0]), a, 0, 1, sizeof(dst[0]), H,
					  hipMemcpyDeviceToHost), hipErrorInvalidValue);
	cr_assert_eq(hipMemcpy2DToArray(a, 0, 0, src, 4, 8, 1, hipMemcpyHostToDevice),
		     hipErrorInvalidPitchValue);
	cr_assert_eq(hipMemcpy2DToArray(NULL, 0, 0, src, 4, 4, 1, hipMemcpyHostToDevice),
		     hipErrorInvalidResourceHandle); /* clr: the array is checked first */
	cr_assert_eq(hipMemcpy2DToArrayAsync(NULL, 0, 0, src, 4, 4, 1, hipMemcpyHostToDevice, s),
		     hipErrorInvalidResourceHandle);
	cr_assert_eq(hipFree(dev), hipSuccess);
	cr_assert_eq(hipStreamDestroy(s), hipSuccess);
	cr_assert_eq(hipFreeArray(a), hipSuccess);
	cr_assert_eq(hipFreeArray(b), hipSuccess);
}

/* The one-dimensional forms: the array's bytes in row-major order. */
Test(array, copies_linear)
{
	hipChannelFormatDesc d = {8, 0, 0, 0, hipChannelFormatKindUnsigned};
	hipArray_t a = NULL, b = NULL;
	uint8_t src[256], dst[256];
	void *dev;

	for (int i = 0; i < 256; i++)
		src[i] = (uint8_t)i;
	cr_assert_eq(hipMallocArray(&a, &d, 16, 16, 0), hipSuccess);
	cr_assert_eq(hipMallocArray(&b, &d, 16, 16, 0), hipSuccess);
	cr_assert_eq(hipMemcpyHtoA(a, 0, src, 256), hipSuccess);
	memset(dst, 0, sizeof(dst));
	cr_assert_eq(hipMemcpyAtoH(dst, a, 0, 256), hipSuccess);
	cr_assert_eq(memcmp(dst, src, 256), 0);
	/* (wOffset 3, row 2) is byte 35. */
	memset(dst, 0, sizeof(dst));
	cr_assert_eq(hipMemcpyFromArray(dst, a, 3, 2, 10, hipMemcpyDeviceToHost), hipSuccess);
	cr_assert_eq(memcmp(dst, src + 35, 10), 0);
	cr_assert_eq(hipMemcpyToArray(a, 0, 15, src + 100, 16, hipMemcpyHostToDevice), hipSuccess);
	cr_assert_eq(hipMemcpyAtoH(dst, a, 240, 16), hipSuccess);
	cr_assert_eq(memcmp(dst, src + 100, 16), 0);
	/* Array to device to array. */
	cr_assert_eq(hipMalloc(&dev, 256), hipSuccess);
	cr_assert_eq(hipMemcpyHtoA(a, 0, src, 256), hipSuccess);
	cr_assert_eq(hipMemcpyAtoD(dev, a, 16, 64), hipSuccess);
	cr_assert_eq(hipMemcpyDtoA(b, 128, dev, 64), hipSuccess);
	cr_assert_eq(hipMemcpyAtoA(b, 0, a, 0, 8), hipSuccess);
	hipStream_t s;
	cr_assert_eq(hipStreamCreate(&s), hipSuccess);
	memset(dst, 0, sizeof(dst));
	cr_assert_eq(hipMemcpyAtoHAsync(dst, b, 0, 256, s), hipSuccess);
	cr_assert_eq(hipStreamSynchronize(s), hipSuccess);
	cr_assert_eq(memcmp(dst, src, 8), 0);
	cr_assert_eq(memcmp(dst + 128, src + 16, 64), 0);
	cr_assert_eq(hipMemcpyHtoAAsync(b, 250, src, 6, s), hipSuccess);
	cr_assert_eq(hipStreamSynchronize(s), hipSuccess);
	cr_assert_eq(hipMemcpyAtoH(dst, b, 250, 6), hipSuccess);
	cr_assert_eq(memcmp(dst, src, 6), 0);
	/* Past the end. */
	cr_assert_eq(hipMemcpyHtoA(a, 250, src, 7), hipErrorInvalidValue);
	cr_assert_eq(hipMemcpyAtoH(dst, a, 257, 1), hipErrorInvalidValue);
	cr_assert_eq(hipMemcpyToArray(a, 0, 16, src, 1, hipMemcpyHostToDevice), hipErrorInvalidValue);
	cr_assert_eq(hipStreamDestroy(s), hipSuccess);
	cr_assert_eq(hipFree(dev), hipSuccess);
	cr_assert_eq(hipFreeArray(a), hipSuccess);
	cr_assert_eq(hipFreeArray(b), hipSuccess);
}

/* hipMemcpyParam2D and hipDrvMemcpy3D with host, device and array sides. */
Test(array, parameter_blocks)
{
	enum { W = 8, H = 4, D = 3 };
	HIP_ARRAY3D_DESCRIPTOR ad = {W, H, D, HIP_AD_FORMAT_UNSIGNED_INT16, 1, 0};
	hipArray_t a = NULL;
	static uint16_t src[D][H][W], dst[D][H][W];

	for (int z = 0; z < D; z++)
		for (int y = 0; y < H; y++)
			for (int x = 0; x < W; x++)
				src[z][y][x] = (uint16_t)(z * 100 + y * 10 + x);
	cr_assert_eq(hipArray3DCreate(&a, &ad), hipSuccess);

	HIP_MEMCPY3D c;
	memset(&c, 0, sizeof(c));
	c.srcMemoryType = hipMemoryTypeHost;
	c.srcHost = src;
	c.srcPitch = W * sizeof(uint16_t);
	c.srcHeight = H;
	c.dstMemoryType = hipMemoryTypeArray;
	c.dstArray = a;
	c.WidthInBytes = W * sizeof(uint16_t);
	c.Height = H;
	c.Depth = D;
	cr_assert_eq(hipDrvMemcpy3D(&c), hipSuccess);

	/* Slice 1, rows 1..2, columns 2..5 back to the host through hipMemcpyParam2D: slice 1 of
	 * a 3D array is rows H..2H-1 of its row sequence. */
	hip_Memcpy2D p;
	uint16_t box[2][4];
	memset(&p, 0, sizeof(p));
	p.srcMemoryType = hipMemoryTypeArray;
	p.srcArray = a;
	p.srcXInBytes = 2 * sizeof(uint16_t);
	p.srcY = H + 1;
	p.dstMemoryType = hipMemoryTypeHost;
	p.dstHost = box;
	p.dstPitch = sizeof(box[0]);
	p.WidthInBytes = 4 * sizeof(uint16_t);
	p.Height = 2;
	cr_assert_eq(hipMemcpyParam2D(&p), hipErrorInvalidValue, "rows beyond a 2D view of one slice");
	p.srcY = 1;
	cr_assert_eq(hipMemcpyParam2D(&p), hipSuccess);
	cr_assert_eq(box[0][0], src[0][1][2]);
	cr_assert_eq(box[1][3], src[0][2][5]);

	/* Whole array to device memory, then to the host with a 3D copy and a larger pitch. */
	void *dev;
	cr_assert_eq(hipMalloc(&dev, sizeof(src)), hipSuccess);
	memset(&c, 0, sizeof(c));
	c.srcMemoryType = hipMemoryTypeArray;
	c.srcArray = a;
	c.dstMemoryType = hipMemoryTypeDevice;
	c.dstDevice = dev;
	c.dstPitch = W * sizeof(uint16_t);
	c.dstHeight = H;
	c.WidthInBytes = W * sizeof(uint16_t);
	c.Height = H;
	c.Depth = D;
	hipStream_t s;
	cr_assert_eq(hipStreamCreate(&s), hipSuccess);
	cr_assert_eq(hipDrvMemcpy3DAsync(&c, s), hipSuccess);
	cr_assert_eq(hipStreamSynchronize(s), hipSuccess);
	memset(dst, 0, sizeof(dst));
	cr_assert_eq(hipMemcpy(dst, dev, sizeof(dst), hipMemcpyDeviceToHost), hipSuccess);
	cr_assert_eq(memcmp(dst, src, sizeof(src)), 0);

	/* Device to host through hipMemcpyParam2DAsync and hipDrvMemcpy2DUnaligned. */
	memset(&p, 0, sizeof(p));
	p.srcMemoryType = hipMemoryTypeDevice;
	p.srcDevice = dev;
	p.srcPitch = W * sizeof(uint16_t);
	p.srcXInBytes = 1;
	p.srcY = 2;
	p.dstMemoryType = hipMemoryTypeHost;
	p.dstHost = box;
	p.dstPitch = sizeof(box[0]);
	p.WidthInBytes = 2 * sizeof(uint16_t);
	p.Height = 2;
	memset(box, 0, sizeof(box));
	cr_assert_eq(hipMemcpyParam2DAsync(&p, s), hipSuccess);
	cr_assert_eq(hipStreamSynchronize(s), hipSuccess);
	const uint8_t *bytes = (const uint8_t *)src;
	cr_assert_eq(memcmp(box, bytes + 2 * W * sizeof(uint16_t) + 1, 4), 0);
	memset(box, 0, sizeof(box));
	cr_assert_eq(hipDrvMemcpy2DUnaligned(&p), hipSuccess);
	cr_assert_eq(memcmp(box[1], bytes + 3 * W * sizeof(uint16_t) + 1, 4), 0);

	/* A mip level other than 0 and an unknown memory type are errors. */
	c.srcLOD = 1;
	cr_assert_eq(hipDrvMemcpy3D(&c), hipErrorInvalidValue);
	c.srcLOD = 0;
	c.srcMemoryType = (hipMemoryType)77;
	cr_assert_eq(hipDrvMemcpy3D(&c), hipErrorInvalidMemcpyDirection);
	cr_assert_eq(hipDrvMemcpy3D(NULL), hipErrorInvalidValue);
	cr_assert_eq(hipMemcpyParam2D(NULL), hipErrorInvalidValue);
	cr_assert_eq(hipStreamDestroy(s), hipSuccess);
	cr_assert_eq(hipFree(dev), hipSuccess);
	cr_assert_eq(hipArrayDestroy(a), hipSuccess);
}

/* Mipmapped arrays: one array per level, halving each dimension; levels copy like arrays. */
Test(array, mipmapped_levels)
{
	hipChannelFormatDesc d = {32, 0, 0, 0, hipChannelFormatKindFloat};
	hipMipmappedArray_t m = NULL;
	hipArray_t l0 = NULL, l2 = NULL, l4 = NULL;
	hipExtent e;

	cr_assert_eq(hipMallocMipmappedArray(&m, &d, make_hipExtent(16, 8, 0), 5, 0), hipSuccess);
	cr_assert_eq(m->max_mipmap_level, 4, "16x8 has 5 levels: 16, 8, 4, 2, 1");
	cr_assert_eq(hipGetMipmappedArrayLevel(&l0, m, 0), hipSuccess);
	cr_assert_eq(hipGetMipmappedArrayLevel(&l2, m, 2), hipSuccess);
	cr_assert_eq(hipMipmappedArrayGetLevel(&l4, m, 4), hipSuccess);
	cr_assert_eq(hipArrayGetInfo(NULL, &e, NULL, l2), hipSuccess);
	cr_assert_eq(e.width, 4);
	cr_assert_eq(e.height, 2);
	cr_assert_eq(hipArrayGetInfo(NULL, &e, NULL, l4), hipSuccess);
	cr_assert_eq(e.width, 1);
	cr_assert_eq(e.height, 1);
	float in[8] = {1, 2, 3, 4, 5, 6, 7, 8}, out[8] = {0};
	cr_assert_eq(hipMemcpy2DToArray(l2, 0, 0, in, 16, 16, 2, hipMemcpyHostToDevice), hipSuccess);
	cr_assert_eq(hipMemcpy2DFromArray(out, 16, l2, 0, 0, 16, 2, hipMemcpyDeviceToHost),
		     hipSuccess);
	cr_assert_eq(memcmp(in, out, sizeof(in)), 0);
	cr_assert_eq(hipFreeArray(l2), hipErrorInvalidValue, "a level belongs to its mipmap");
	cr_assert_eq(hipGetMipmappedArrayLevel(&l0, m, 5), hipErrorInvalidValue);
	cr_assert_eq(hipFreeMipmappedArray(m), hipSuccess);
	cr_assert_eq(hipFreeMipmappedArray(m), hipErrorContextIsDestroyed);
	cr_assert_eq(hipArrayGetInfo(NULL, &e, NULL, l2), hipErrorInvalidHandle, "levels are gone");

	HIP_ARRAY3D_DESCRIPTOR dd = {8, 8, 8, HIP_AD_FORMAT_UNSIGNED_INT8, 1, 0};
	cr_assert_eq(hipMipmappedArrayCreate(&m, &dd, 0), hipSuccess);
	cr_assert_eq(m->max_mipmap_level, 0, "0 levels asks for the base level only");
	cr_assert_eq(hipMipmappedArrayDestroy(m), hipSuccess);
	cr_assert_eq(hipMipmappedArrayCreate(&m, NULL, 1), hipErrorInvalidValue);
	cr_assert_eq(hipMallocMipmappedArray(&m, NULL, make_hipExtent(4, 4, 0), 1, 0),
		     hipErrorInvalidValue);
}

/* A unified (managed) side of a parameter-block copy: the direction comes from the pointers. */
Test(array, parameter_block_unified_side)
{
	hipChannelFormatDesc d = {32, 0, 0, 0, hipChannelFormatKindSigned};
	hipArray_t a = NULL;
	int32_t *m = NULL, out[16];

	cr_assert_eq(hipMallocManaged((void **)&m, 64 * sizeof(int32_t), hipMemAttachGlobal),
		     hipSuccess);
	for (int i = 0; i < 64; i++)
		m[i] = -i;
	cr_assert_eq(hipMallocArray(&a, &d, 8, 8, 0), hipSuccess);
	hip_Memcpy2D p;
	memset(&p, 0, sizeof(p));
	p.srcMemoryType = hipMemoryTypeUnified;
	p.srcDevice = m;
	p.srcPitch = 8 * sizeof(int32_t);
	p.dstMemoryType = hipMemoryTypeArray;
	p.dstArray = a;
	p.WidthInBytes = 8 * sizeof(int32_t);
	p.Height = 8;
	cr_assert_eq(hipMemcpyParam2D(&p), hipSuccess);
	cr_assert_eq(hipMemcpyAtoH(out, a, 48 * sizeof(int32_t), sizeof(out)), hipSuccess);
	for (int i = 0; i < 16; i++)
		cr_assert_eq(out[i], -(48 + i));
	cr_assert_eq(hipFreeArray(a), hipSuccess);
	cr_assert_eq(hipFree(m), hipSuccess);
}

/* An array handle passed to hipPointerGetAttribute reads as array memory of its device, as on
 * AMD's runtime; once freed it is memory nobody registered. */
Test(array, pointer_attribute_of_handle)
{
	hipChannelFormatDesc desc = {32, 0, 0, 0, hipChannelFormatKindFloat};
	hipArray_t arr = NULL;
	cr_assert_eq(hipMallocArray(&arr, &desc, 10, 10, hipArrayDefault), hipSuccess);
	unsigned type = 77;
	int ordinal = 77;
	cr_assert_eq(hipPointerGetAttribute(&type, HIP_POINTER_ATTRIBUTE_MEMORY_TYPE,
					    (hipDeviceptr_t)arr), hipSuccess);
	cr_expect_eq(type, (unsigned)hipMemoryTypeArray);
	cr_assert_eq(hipPointerGetAttribute(&ordinal, HIP_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
					    (hipDeviceptr_t)arr), hipSuccess);
	cr_expect_eq(ordinal, 0);
	hipArray_t arr3 = NULL;
	cr_assert_eq(hipMalloc3DArray(&arr3, &desc, make_hipExtent(4, 4, 4), hipArrayDefault),
		     hipSuccess);
	type = 77;
	cr_assert_eq(hipPointerGetAttribute(&type, HIP_POINTER_ATTRIBUTE_MEMORY_TYPE,
					    (hipDeviceptr_t)arr3), hipSuccess);
	cr_expect_eq(type, (unsigned)hipMemoryTypeArray);
	cr_assert_eq(hipFreeArray(arr3), hipSuccess);
	cr_assert_eq(hipFreeArray(arr), hipSuccess);
	/* unknown memory: ROCm 6+ answers success and Unregistered */
	cr_expect_eq(hipPointerGetAttribute(&type, HIP_POINTER_ATTRIBUTE_MEMORY_TYPE,
					    (hipDeviceptr_t)arr), hipSuccess);
	cr_expect_eq(type, (unsigned)hipMemoryTypeUnregistered);
}
