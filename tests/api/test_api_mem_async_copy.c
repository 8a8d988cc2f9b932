/* Copies that return before earlier work on their stream completed: async copies between device
 * memory and pinned or device memory, and device-to-device hipMemcpy (clr and CUDA never make the
 * host wait for those). A host callback holds the stream until the test opens a gate, so whether
 * the copy call returned early is seen without timing. */
#include <criterion/criterion.h>
#include <stdatomic.h>
#include <stdint.h>
#include <unistd.h>

#include <hip/hip_runtime_api.h>

static atomic_int gate;

/* Waits for the gate; gives up after ~20 s so a wrong (blocking) runtime fails the test instead
 * of hanging it. */
static void hold(void *arg)
{
	(void)arg;
	for (int i = 0; i < 20000 && !atomic_load(&gate); i++)
		usleep(1000);
}

Test(mem_async_copy, device_to_pinned_returns_before_earlier_work)
{
	hipStream_t s;
	int *d = NULL, *h = NULL;
	int v = 42;
	cr_assert_eq(hipStreamCreate(&s), hipSuccess);
	cr_assert_eq(hipMalloc((void **)&d, sizeof(int)), hipSuccess);
	cr_assert_eq(hipHostMalloc((void **)&h, sizeof(int), 0), hipSuccess);
	cr_assert_eq(hipMemcpy(d, &v, sizeof(v), hipMemcpyHostToDevice), hipSuccess);
	*h = -1;
	atomic_store(&gate, 0);
	cr_assert_eq(hipLaunchHostFunc(s, hold, NULL), hipSuccess);
	cr_assert_eq(hipMemcpyAsync(h, d, sizeof(int), hipMemcpyDeviceToHost, s), hipSuccess);
	/* The callback cannot have returned: the gate is closed. So the copy has not run yet. */
	cr_assert_eq(hipStreamQuery(s), hipErrorNotReady);
	cr_assert_eq(*(volatile int *)h, -1, "the copy waits for the work before it");
	atomic_store(&gate, 1);
	cr_assert_eq(hipStreamSynchronize(s), hipSuccess);
	cr_assert_eq(*h, 42);
	cr_assert_eq(hipHostFree(h), hipSuccess);
	cr_assert_eq(hipFree(d), hipSuccess);
	cr_assert_eq(hipStreamDestroy(s), hipSuccess);
}

Test(mem_async_copy, device_to_device_memcpy_does_not_wait)
{
	hipStream_t s;
	int *a = NULL, *b = NULL;
	int v = 7, back = 0;
	cr_assert_eq(hipStreamCreateWithFlags(&s, hipStreamNonBlocking), hipSuccess);
	cr_assert_eq(hipMalloc((void **)&a, sizeof(int)), hipSuccess);
	cr_assert_eq(hipMalloc((void **)&b, sizeof(int)), hipSuccess);
	cr_assert_eq(hipMemcpy(a, &v, sizeof(v), hipMemcpyHostToDevice), hipSuccess);
	cr_assert_eq(hipMemset(b, 0, sizeof(int)), hipSuccess);
	atomic_store(&gate, 0);
	cr_assert_eq(hipLaunchHostFunc(s, hold, NULL), hipSuccess);
	cr_assert_eq(hipMemcpyWithStream(b, a, sizeof(int), hipMemcpyDeviceToDevice, s), hipSuccess);
	cr_assert_eq(hipStreamQuery(s), hipErrorNotReady, "returned with the stream still held");
	atomic_store(&gate, 1);
	/* A later copy on the stream sees the device-to-device copy done. */
	cr_assert_eq(hipMemcpyWithStream(&back, b, sizeof(int), hipMemcpyDeviceToHost, s), hipSuccess);
	cr_assert_eq(back, 7);
	cr_assert_eq(hipFree(a), hipSuccess);
	cr_assert_eq(hipFree(b), hipSuccess);
	cr_assert_eq(hipStreamDestroy(s), hipSuccess);
}

/* A 2D async copy is deferred as one piece and keeps its pitches. */
Test(mem_async_copy, pitched_async_copy_in_order)
{
	hipStream_t s;
	uint8_t *d = NULL, *h = NULL;
	size_t pitch = 0;
	cr_assert_eq(hipStreamCreate(&s), hipSuccess);
	cr_assert_eq(hipMallocPitch((void **)&d, &pitch, 16, 4), hipSuccess);
	cr_assert_eq(hipHostMalloc((void **)&h, 16 * 4, 0), hipSuccess);
	uint8_t img[4][16];
	for (int y = 0; y < 4; y++)
		for (int x = 0; x < 16; x++)
			img[y][x] = (uint8_t)(y * 16 + x);
	cr_assert_eq(hipMemcpy2D(d, pitch, img, 16, 16, 4, hipMemcpyHostToDevice), hipSuccess);
	for (int i = 0; i < 64; i++)
		h[i] = 0xee;
	atomic_store(&gate, 0);
	cr_assert_eq(hipLaunchHostFunc(s, hold, NULL), hipSuccess);
	cr_assert_eq(hipMemcpy2DAsync(h, 16, d, pitch, 16, 4, hipMemcpyDeviceToHost, s), hipSuccess);
	cr_assert_eq(((volatile uint8_t *)h)[63], 0xee);
	atomic_store(&gate, 1);
	cr_assert_eq(hipStreamSynchronize(s), hipSuccess);
	for (int y = 0; y < 4; y++)
		for (int x = 0; x < 16; x++)
			cr_assert_eq(h[y * 16 + x], img[y][x]);
	cr_assert_eq(hipHostFree(h), hipSuccess);
	cr_assert_eq(hipFree(d), hipSuccess);
	cr_assert_eq(hipStreamDestroy(s), hipSuccess);
}

/* hipMemset3DAsync returns while the stream is held, as one deferred piece, and lands in stream
 * order (hip-tests hipMemsetSync). */
Test(mem_async_copy, memset_device_does_not_wait)
{
	hipStream_t s;
	uint8_t *d = NULL;
	cr_assert_eq(hipStreamCreate(&s), hipSuccess);
	hipPitchedPtr pp;
	hipExtent e = make_hipExtent(40, 3, 2);
	cr_assert_eq(hipMalloc3D(&pp, e), hipSuccess);
	d = pp.ptr;
	cr_assert_eq(hipMemset(d, 0, pp.pitch * 3 * 2), hipSuccess);
	cr_assert_eq(hipDeviceSynchronize(), hipSuccess);
	atomic_store(&gate, 0);
	cr_assert_eq(hipLaunchHostFunc(s, hold, NULL), hipSuccess);
	cr_assert_eq(hipMemset3DAsync(pp, 0x5a, e, s), hipSuccess);
	cr_assert_eq(hipStreamQuery(s), hipErrorNotReady);
	atomic_store(&gate, 1);
	cr_assert_eq(hipStreamSynchronize(s), hipSuccess);
	uint8_t back[2][3][40];
	hipMemcpy3DParms p = {0};
	p.srcPtr = pp;
	p.dstPtr = make_hipPitchedPtr(back, 40, 40, 3);
	p.extent = e;
	p.kind = hipMemcpyDeviceToHost;
	cr_assert_eq(hipMemcpy3D(&p), hipSuccess);
	for (int z = 0; z < 2; z++)
		for (int y = 0; y < 3; y++)
			for (int x = 0; x < 40; x++)
				cr_assert_eq(back[z][y][x], 0x5a);
	cr_assert_eq(hipFree(d), hipSuccess);
	cr_assert_eq(hipStreamDestroy(s), hipSuccess);
}
