/* hipMemcpy in every direction and size class (CPU path, SDMA path, staged pageable path), async
 * copies in stream order, 2D and 3D copies, and the errors for bad arguments. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <hip/hip_runtime_api.h>

static void fill_pattern(unsigned char *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)((i * 2654435761u + seed) >> 13);
}

/* Host -> device -> device -> host for one size, with pageable or pinned host buffers. */
static void round_trip(size_t size, bool pinned, hipMemcpyKind h2d, hipMemcpyKind d2h)
{
	unsigned char *src, *dst;
	void *d1 = NULL, *d2 = NULL;
	if (pinned) {
		cr_assert_eq(hipHostMalloc((void **)&src, size, 0), hipSuccess);
		cr_assert_eq(hipHostMalloc((void **)&dst, size, 0), hipSuccess);
	} else {
		src = malloc(size);
		dst = malloc(size);
	}
	fill_pattern(src, size, (unsigned)size);
	memset(dst, 0, size);
	cr_assert_eq(hipMalloc(&d1, size), hipSuccess);
	cr_assert_eq(hipMalloc(&d2, size), hipSuccess);
	cr_assert_eq(hipMemcpy(d1, src, size, h2d), hipSuccess);
	cr_assert_eq(hipMemcpy(d2, d1, size, hipMemcpyDeviceToDevice), hipSuccess);
	cr_assert_eq(hipMemcpy(dst, d2, size, d2h), hipSuccess);
	cr_assert_eq(memcmp(dst, src, size), 0, "size %zu pinned %d", size, pinned);
	cr_assert_eq(hipFree(d1), hipSuccess);
	cr_assert_eq(hipFree(d2), hipSuccess);
	if (pinned) {
		hipHostFree(src);
		hipHostFree(dst);
	} else {
		free(src);
		free(dst);
	}
}

static const size_t sizes[] = {1, 3, 64, 4096, 16 * 1024 + 1, 256 * 1024 + 7, 1 << 21,
			       (5 << 20) + 3};

Test(memcpy, round_trip_pageable)
{
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		round_trip(sizes[i], false, hipMemcpyHostToDevice, hipMemcpyDeviceToHost);
}

Test(memcpy, round_trip_pinned)
{
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		round_trip(sizes[i], true, hipMemcpyHostToDevice, hipMemcpyDeviceToHost);
}

Test(memcpy, round_trip_default_kind)
{
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		round_trip(sizes[i], i & 1, hipMemcpyDefault, hipMemcpyDefault);
}

Test(memcpy, host_to_host_and_explicit_entry_points)
{
	char a[100], b[100];
	fill_pattern((unsigned char *)a, sizeof(a), 5);
	cr_assert_eq(hipMemcpy(b, a, sizeof(a), hipMemcpyHostToHost), hipSuccess);
	cr_assert_arr_eq(a, b, sizeof(a));

	void *d = NULL, *d2 = NULL;
	cr_assert_eq(hipMalloc(&d, 100), hipSuccess);
	cr_assert_eq(hipMalloc(&d2, 100), hipSuccess);
	memset(b, 0, sizeof(b));
	cr_assert_eq(hipMemcpyHtoD(d, a, 100), hipSuccess);
	cr_assert_eq(hipMemcpyDtoD(d2, d, 100), hipSuccess);
	cr_assert_eq(hipMemcpyDtoH(b, d2, 100), hipSuccess);
	cr_assert_arr_eq(a, b, sizeof(a));
	cr_assert_eq(hipFree(d), hipSuccess);
	cr_assert_eq(hipFree(d2), hipSuccess);
}

Test(memcpy, interior_offsets)
{
	unsigned char host[1000], back[1000];
	void *d = NULL;
	fill_pattern(host, sizeof(host), 9);
	cr_assert_eq(hipMalloc(&d, 4096), hipSuccess);
	cr_assert_eq(hipMemset(d, 0, 4096), hipSuccess);
	cr_assert_eq(hipMemcpy((char *)d + 1001, host, 1000, hipMemcpyHostToDevice), hipSuccess);
	cr_assert_eq(hipMemcpy(back, (char *)d + 1001, 1000, hipMemcpyDeviceToHost), hipSuccess);
	cr_assert_arr_eq(back, host, sizeof(host));
	unsigned char edge[2];
	cr_assert_eq(hipMemcpy(edge, (char *)d + 1000, 1, hipMemcpyDeviceToHost), hipSuccess);
	cr_assert_eq(edge[0], 0, "the byte before the copy is untouched");
	cr_assert_eq(hipFree(d), hipSuccess);
}

Test(memcpy, async_in_stream_order)
{
	hipStream_t s;
	size_t n = 3 << 20;
	unsigned char *h, *back;
	void *d = NULL;
	cr_assert_eq(hipStreamCreate(&s), hipSuccess);
	cr_assert_eq(hipHostMalloc((void **)&h, n, 0), hipSuccess);
	cr_assert_eq(hipHostMalloc((void **)&back, n, 0), hipSuccess);
	cr_assert_eq(hipMalloc(&d, n), hipSuccess);
	fill_pattern(h, n, 77);
	memset(back, 0, n);
	cr_assert_eq(hipMemcpyAsync(d, h, n, hipMemcpyHostToDevice, s), hipSuccess);
	cr_assert_eq(hipMemsetAsync(d, 0x11, 4096, s), hipSuccess);
	cr_assert_eq(hipMemcpyAsync(back, d, n, hipMemcpyDeviceToHost, s), hipSuccess);
	cr_assert_eq(hipStreamSynchronize(s), hipSuccess);
	for (size_t i = 0; i < 4096; i++)
		cr_assert_eq(back[i], 0x11);
	cr_assert_eq(memcmp(back + 4096, h + 4096, n - 4096), 0);
	cr_assert_eq(hipMemcpyHtoDAsync(d, h, 64, s), hipSuccess);
	cr_assert_eq(hipMemcpyDtoHAsync(back, d, 64, s), hipSuccess);
	cr_assert_eq(hipMemcpyDtoDAsync(d, (char *)d + 64, 64, s), hipSuccess);
	cr_assert_eq(hipStreamSynchronize(s), hipSuccess);
	cr_assert_eq(memcmp(back, h, 64), 0);
	cr_assert_eq(hipFree(d), hipSuccess);
	cr_assert_eq(hipHostFree(h), hipSuccess);
	cr_assert_eq(hipHostFree(back), hipSuccess);
	cr_assert_eq(hipStreamDestroy(s), hipSuccess);
}

Test(memcpy, with_stream_and_per_thread)
{
	hipStream_t s;
	int a = 1234, b = 0;
	void *d = NULL;
	cr_assert_eq(hipStreamCreateWithFlags(&s, hipStreamNonBlocking), hipSuccess);
	cr_assert_eq(hipMalloc(&d, 4), hipSuccess);
	cr_assert_eq(hipMemcpyWithStream(d, &a, 4, hipMemcpyHostToDevice, s), hipSuccess);
	cr_assert_eq(hipMemcpyAsync(&b, d, 4, hipMemcpyDeviceToHost, hipStreamPerThread), hipSuccess);
	cr_assert_eq(hipStreamSynchronize(hipStreamPerThread), hipSuccess);
	cr_assert_eq(b, 1234);
	cr_assert_eq(hipFree(d), hipSuccess);
	cr_assert_eq(hipStreamDestroy(s), hipSuccess);
}

Test(memcpy, bad_arguments)
{
	void *d = NULL;
	char h[64];
	int local;
	cr_assert_eq(hipMalloc(&d, 64), hipSuccess);
	cr_assert_eq(hipMemcpy(d, h, 64, (hipMemcpyKind)17), hipErrorInvalidMemcpyDirection);
	cr_assert_eq(hipMemcpy(NULL, h, 64, hipMemcpyHostToDevice), hipErrorInvalidValue);
	cr_assert_eq(hipMemcpy(d, NULL, 64, hipMemcpyHostToDevice), hipErrorInvalidValue);
	cr_assert_eq(hipMemcpy(d, h, 0, hipMemcpyHostToDevice), hipSuccess);
	cr_assert_eq(hipMemcpy(d, h, 65, hipMemcpyHostToDevice), hipErrorInvalidValue,
		     "past the end of the allocation");
	/* A made-up "device" pointer is refused, not dereferenced. */
	cr_assert_eq(hipMemcpy((void *)0x10, h, 64, hipMemcpyHostToDevice), hipErrorInvalidValue);
	cr_assert_eq(hipMemcpy(h, (void *)0x10, 64, hipMemcpyDeviceToHost), hipErrorInvalidValue);
	cr_assert_eq(hipMemcpy(&local, &local, 0, hipMemcpyDeviceToDevice), hipSuccess);
	cr_assert_eq(hipMemcpyAsync(d, h, 8, hipMemcpyHostToDevice, (hipStream_t)&local),
		     hipErrorInvalidHandle);
	cr_assert_eq(hipFree(d), hipSuccess);
}

Test(memcpy, copy_2d)
{
	const size_t w = 40, hgt = 9, spitch = 64;
	unsigned char src[64 * 9], back[40 * 9];
	void *d = NULL;
	size_t dpitch = 0;
	fill_pattern(src, sizeof(src), 3);
	cr_assert_eq(hipMallocPitch(&d, &dpitch, w, hgt), hipSuccess);
	cr_assert_eq(hipMemcpy2D(d, dpitch, src, spitch, w, hgt, hipMemcpyHostToDevice), hipSuccess);
	cr_assert_eq(hipMemcpy2D(back, w, d, dpitch, w, hgt, hipMemcpyDeviceToHost), hipSuccess);
	for (size_t y = 0; y < hgt; y++)
		cr_assert_eq(memcmp(back + y * w, src + y * spitch, w), 0, "row %zu", y);
	cr_assert_eq(hipMemcpy2D(d, dpitch, src, 10, w, hgt, hipMemcpyHostToDevice),
		     hipErrorInvalidPitchValue);
	cr_assert_eq(hipMemcpy2D(d, dpitch, src, spitch, w, hgt, (hipMemcpyKind)9),
		     hipErrorInvalidMemcpyDirection);
	hipStream_t s;
	cr_assert_eq(hipStreamCreate(&s), hipSuccess);
	memset(back, 0, sizeof(back));
	cr_assert_eq(hipMemcpy2DAsync(back, w, d, dpitch, w, hgt, hipMemcpyDeviceToHost, s),
		     hipSuccess);
	cr_assert_eq(hipStreamSynchronize(s), hipSuccess);
	cr_assert_eq(memcmp(back + 8 * w, src + 8 * spitch, w), 0);
	cr_assert_eq(hipStreamDestroy(s), hipSuccess);
	cr_assert_eq(hipFree(d), hipSuccess);
}

Test(memcpy, copy_3d)
{
	hipExtent ext = {.width = 12, .height = 4, .depth = 3};
	hipPitchedPtr dp;
	unsigned char src[12 * 4 * 3], back[12 * 4 * 3];
	fill_pattern(src, sizeof(src), 11);
	memset(back, 0, sizeof(back));
	cr_assert_eq(hipMalloc3D(&dp, ext), hipSuccess);

	hipMemcpy3DParms p;
	memset(&p, 0, sizeof(p));
	p.srcPtr = make_hipPitchedPtr(src, 12, 12, 4);
	p.dstPtr = dp;
	p.extent = ext;
	p.kind = hipMemcpyHostToDevice;
	cr_assert_eq(hipMemcpy3D(&p), hipSuccess);

	memset(&p, 0, sizeof(p));
	p.srcPtr = dp;
	p.dstPtr = make_hipPitchedPtr(back, 12, 12, 4);
	p.extent = ext;
	p.kind = hipMemcpyDeviceToHost;
	cr_assert_eq(hipMemcpy3DAsync(&p, NULL), hipSuccess);
	cr_assert_eq(hipDeviceSynchronize(), hipSuccess);
	cr_assert_arr_eq(back, src, sizeof(src));
	cr_assert_eq(hipMemcpy3D(NULL), hipErrorInvalidValue);
	cr_assert_eq(hipFree(dp.ptr), hipSuccess);
}

Test(memcpy, to_symbol_without_module)
{
	static int not_a_symbol;
	int v = 1;
	cr_assert_eq(hipMemcpyToSymbol(&not_a_symbol, &v, 4, 0, hipMemcpyHostToDevice),
		     hipErrorInvalidSymbol);
	cr_assert_eq(hipMemcpyFromSymbol(&v, NULL, 4, 0, hipMemcpyDeviceToHost),
		     hipErrorInvalidSymbol);
}

/* hipMemcpy3D with an array on one side: extent and the array side's x count elements, the
 * pointer side's x counts bytes. A 4x3x2 box of a 6x4x3 float array, from and to host memory. */
Test(memcpy, memcpy3d_to_and_from_a_3d_array)
{
	enum { W = 6, H = 4, D = 3 };
	float host[D][H][W], back[2][3][4];
	for (int z = 0; z < D; z++)
		for (int y = 0; y < H; y++)
			for (int x = 0; x < W; x++)
				host[z][y][x] = (float)(z * 1000 + y * 100 + x);
	hipChannelFormatDesc desc = {32, 0, 0, 0, hipChannelFormatKindFloat};
	hipArray_t arr;
	cr_assert_eq(hipMalloc3DArray(&arr, &desc, make_hipExtent(W, H, D), 0), hipSuccess);
	hipMemcpy3DParms p;
	memset(&p, 0, sizeof(p));
	p.srcPtr = make_hipPitchedPtr(host, W * sizeof(float), W, H);
	p.dstArray = arr;
	p.extent = make_hipExtent(W, H, D);
	p.kind = hipMemcpyHostToDevice;
	cr_assert_eq(hipMemcpy3D(&p), hipSuccess);
	memset(&p, 0, sizeof(p));
	memset(back, 0, sizeof(back));
	p.srcArray = arr;
	p.srcPos = make_hipPos(1, 1, 1);              /* elements */
	p.dstPtr = make_hipPitchedPtr(back, 4 * sizeof(float), 4, 3);
	p.extent = make_hipExtent(4, 3, 2);
	p.kind = hipMemcpyDeviceToHost;
	cr_assert_eq(hipMemcpy3D(&p), hipSuccess);
	for (int z = 0; z < 2; z++)
		for (int y = 0; y < 3; y++)
			for (int x = 0; x < 4; x++)
				cr_assert_eq(back[z][y][x], host[z + 1][y + 1][x + 1], "(%d,%d,%d)", x, y, z);
	p.extent = make_hipExtent(6, 3, 2); /* runs past the array's width */
	cr_assert_eq(hipMemcpy3D(&p), hipErrorInvalidValue);
	cr_assert_eq(hipFreeArray(arr), hipSuccess);
}

/* hipMemcpyDeviceToDeviceNoCU is a device-to-device copy (clr accepts it wherever
 * DeviceToDevice goes). */
Test(memcpy, device_to_device_no_cu_kind)
{
	int h[64], back[64], *a, *b;
	for (int i = 0; i < 64; i++)
		h[i] = i * 7;
	cr_assert_eq(hipMalloc((void **)&a, sizeof(h)), hipSuccess);
	cr_assert_eq(hipMalloc((void **)&b, sizeof(h)), hipSuccess);
	cr_assert_eq(hipMemcpy(a, h, sizeof(h), hipMemcpyHostToDevice), hipSuccess);
	cr_assert_eq(hipMemcpy(b, a, sizeof(h), hipMemcpyDeviceToDeviceNoCU), hipSuccess);
	cr_assert_eq(hipMemcpyAsync(a, b, sizeof(h), hipMemcpyDeviceToDeviceNoCU, NULL), hipSuccess);
	cr_assert_eq(hipMemcpy(back, a, sizeof(h), hipMemcpyDeviceToHost), hipSuccess);
	cr_assert_eq(memcmp(back, h, sizeof(h)), 0);
	cr_assert_eq(hipMemcpy(b, a, sizeof(h), (hipMemcpyKind)1025), hipErrorInvalidMemcpyDirection);
	cr_assert_eq(hipFree(a), hipSuccess);
	cr_assert_eq(hipFree(b), hipSuccess);
}

/* A device address that is no longer (or never was) an allocation lies in the address space
 * the runtime reserved for GPU memory, where nothing is mapped for the CPU: copies and fills
 * to or from it are hipErrorInvalidValue (not host memory, not a fault), and move nothing. */
static void expect_refused(void *dead)
{
	unsigned char host[256];
	memset(host, 0x3c, sizeof(host));
	cr_assert_eq(hipMemcpy(host, dead, sizeof(host), hipMemcpyDefault), hipErrorInvalidValue);
	cr_assert_eq(hipMemcpy(host, dead, sizeof(host), hipMemcpyDeviceToHost), hipErrorInvalidValue);
	cr_assert_eq(hipMemcpy(dead, host, sizeof(host), hipMemcpyHostToDevice), hipErrorInvalidValue);
	cr_assert_eq(hipMemcpy(dead, host, sizeof(host), hipMemcpyDefault), hipErrorInvalidValue);
	cr_assert_eq(hipMemcpyAsync(host, dead, sizeof(host), hipMemcpyDefault, NULL), hipErrorInvalidValue);
	cr_assert_eq(hipMemset(dead, 0, sizeof(host)), hipErrorInvalidValue);
	for (size_t i = 0; i < sizeof(host); i++)
		cr_assert_eq(host[i], 0x3c, "byte %zu changed", i);
}

Test(memcpy, freed_device_address_is_refused)
{
	void *big = NULL, *small = NULL, *keep = NULL, *other = NULL;
	/* A block of its own, then a slot of a chunk whose neighbour stays live. */
	cr_assert_eq(hipMalloc(&big, 8u << 20), hipSuccess);
	cr_assert_eq(hipMalloc(&small, 4096), hipSuccess);
	cr_assert_eq(hipMalloc(&keep, 4096), hipSuccess);
	cr_assert_eq(hipMalloc(&other, 4096), hipSuccess);
	cr_assert_eq(hipFree(big), hipSuccess);
	cr_assert_eq(hipFree(small), hipSuccess);
	expect_refused(big);
	expect_refused((char *)big + (4u << 20));
	expect_refused(small);
	/* A device-to-device copy from a dead source into a live destination leaves it alone. */
	cr_assert_eq(hipMemset(keep, 0x11, 4096), hipSuccess);
	cr_assert_eq(hipMemcpy(keep, big, 4096, hipMemcpyDeviceToDevice), hipErrorInvalidValue);
	unsigned char back[4096];
	cr_assert_eq(hipMemcpy(back, keep, sizeof(back), hipMemcpyDeviceToHost), hipSuccess);
	for (size_t i = 0; i < sizeof(back); i++)
		cr_assert_eq(back[i], 0x11);
	/* Live memory still copies both ways. */
	cr_assert_eq(hipMemcpy(other, keep, 4096, hipMemcpyDefault), hipSuccess);
	cr_assert_eq(hipFree(keep), hipSuccess);
	cr_assert_eq(hipFree(other), hipSuccess);
}
