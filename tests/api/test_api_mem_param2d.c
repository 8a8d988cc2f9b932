/* Driver-style 2D copies (hipMemcpyParam2D, hipDrvMemcpy2DUnaligned): a side typed device memory
 * must be an allocation of the runtime, and the box at its offsets must lie inside it. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include <hip/hip_runtime_api.h>

enum { ROWS = 4, COLS = 4 };

static hip_Memcpy2D d2d(void *src, void *dst)
{
	hip_Memcpy2D p;
	memset(&p, 0, sizeof(p));
	p.srcMemoryType = hipMemoryTypeDevice;
	p.dstMemoryType = hipMemoryTypeDevice;
	p.srcDevice = src;
	p.dstDevice = dst;
	p.srcPitch = p.dstPitch = COLS * sizeof(int);
	p.WidthInBytes = sizeof(int);
	p.Height = 1;
	return p;
}

Test(mem_param2d, device_box_past_the_end_is_refused)
{
	int *src = NULL, *dst = NULL;
	cr_assert_eq(hipMalloc((void **)&src, ROWS * COLS * sizeof(int)), hipSuccess);
	cr_assert_eq(hipMalloc((void **)&dst, ROWS * COLS * sizeof(int)), hipSuccess);
	int host[ROWS * COLS];
	for (int i = 0; i < ROWS * COLS; i++)
		host[i] = i;
	cr_assert_eq(hipMemcpy(src, host, sizeof(host), hipMemcpyHostToDevice), hipSuccess);
	cr_assert_eq(hipMemset(dst, 0, sizeof(host)), hipSuccess);

	hip_Memcpy2D p = d2d(src, dst);
	p.srcY = ROWS; /* one row past the last */
	cr_assert_eq(hipDrvMemcpy2DUnaligned(&p), hipErrorInvalidValue);
	cr_assert_eq(hipMemcpyParam2D(&p), hipErrorInvalidValue);
	p = d2d(src, dst);
	p.dstY = ROWS;
	cr_assert_eq(hipDrvMemcpy2DUnaligned(&p), hipErrorInvalidValue);
	p = d2d(src, dst);
	p.srcXInBytes = COLS * sizeof(int) - 2; /* the last element straddles the end of the row */
	p.srcY = ROWS - 1;
	cr_assert_eq(hipMemcpyParam2D(&p), hipErrorInvalidValue);
	p = d2d(src, dst);
	p.srcY = SIZE_MAX / 2; /* offsets that overflow are refused, not wrapped */
	cr_assert_eq(hipMemcpyParam2D(&p), hipErrorInvalidValue);

	/* The last element of the last row is inside: it is copied. */
	p = d2d(src, dst);
	p.srcXInBytes = (COLS - 1) * sizeof(int);
	p.srcY = ROWS - 1;
	p.dstXInBytes = (COLS - 1) * sizeof(int);
	p.dstY = ROWS - 1;
	cr_assert_eq(hipDrvMemcpy2DUnaligned(&p), hipSuccess);
	int back[ROWS * COLS];
	cr_assert_eq(hipMemcpy(back, dst, sizeof(back), hipMemcpyDeviceToHost), hipSuccess);
	cr_assert_eq(back[ROWS * COLS - 1], ROWS * COLS - 1);
	cr_assert_eq(back[ROWS * COLS - 2], 0, "nothing else was written");

	/* A device side that is not an allocation of the runtime. */
	p = d2d(host, dst);
	cr_assert_eq(hipMemcpyParam2D(&p), hipErrorInvalidValue);
	p = d2d(NULL, dst);
	cr_assert_eq(hipMemcpyParam2D(&p), hipErrorInvalidValue);
	cr_assert_eq(hipFree(src), hipSuccess);
	cr_assert_eq(hipFree(dst), hipSuccess);
}

/* A whole pitched box copied from a pitched device allocation to the host. */
Test(mem_param2d, pitched_box_inside_is_copied)
{
	size_t pitch = 0;
	uint8_t *dev = NULL;
	cr_assert_eq(hipMallocPitch((void **)&dev, &pitch, 10, 6), hipSuccess);
	uint8_t img[6][10];
	for (int y = 0; y < 6; y++)
		for (int x = 0; x < 10; x++)
			img[y][x] = (uint8_t)(y * 16 + x);
	cr_assert_eq(hipMemcpy2D(dev, pitch, img, 10, 10, 6, hipMemcpyHostToDevice), hipSuccess);
	uint8_t box[3][4];
	hip_Memcpy2D p;
	memset(&p, 0, sizeof(p));
	p.srcMemoryType = hipMemoryTypeDevice;
	p.srcDevice = dev;
	p.srcPitch = pitch;
	p.srcXInBytes = 6;
	p.srcY = 3;
	p.dstMemoryType = hipMemoryTypeHost;
	p.dstHost = box;
	p.dstPitch = 4;
	p.WidthInBytes = 4;
	p.Height = 3;
	cr_assert_eq(hipDrvMemcpy2DUnaligned(&p), hipSuccess);
	for (int y = 0; y < 3; y++)
		for (int x = 0; x < 4; x++)
			cr_assert_eq(box[y][x], img[y + 3][x + 6]);
	cr_assert_eq(hipFree(dev), hipSuccess);
}
