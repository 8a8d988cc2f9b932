/* Two GPUs: peer access queries, enabling and disabling, and copies between devices. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <hip/hip_runtime_api.h>

Test(peer, access_queries)
{
	int n = 0, can = -1;
	cr_assert_eq(hipGetDeviceCount(&n), hipSuccess);
	cr_assert_eq(n, 2);
	cr_assert_eq(hipDeviceCanAccessPeer(&can, 0, 0), hipSuccess);
	cr_assert_eq(can, 0, "a device is not its own peer");
	cr_assert_eq(hipDeviceCanAccessPeer(&can, 0, 1), hipSuccess);
	cr_assert(can == 0 || can == 1);
	cr_assert_eq(hipDeviceCanAccessPeer(&can, 0, 2), hipErrorInvalidDevice);
	cr_assert_eq(hipDeviceCanAccessPeer(NULL, 0, 1), hipErrorInvalidValue);
	if (can) {
		cr_assert_eq(hipSetDevice(0), hipSuccess);
		cr_assert_eq(hipDeviceEnablePeerAccess(1, 0), hipSuccess);
		cr_assert_eq(hipDeviceEnablePeerAccess(1, 0), hipErrorPeerAccessAlreadyEnabled);
		cr_assert_eq(hipDeviceDisablePeerAccess(1), hipSuccess);
		cr_assert_eq(hipDeviceDisablePeerAccess(1), hipErrorPeerAccessNotEnabled);
	}
	cr_assert_eq(hipDeviceEnablePeerAccess(0, 0), hipErrorInvalidDevice, "self");
	cr_assert_eq(hipDeviceEnablePeerAccess(1, 1), hipErrorInvalidValue);
}

Test(peer, copy_between_devices)
{
	size_t sizes[] = {100, 1 << 20};
	for (int k = 0; k < 2; k++) {
		size_t n = sizes[k];
		unsigned char *src = malloc(n), *back = malloc(n);
		for (size_t i = 0; i < n; i++)
			src[i] = (unsigned char)(i * 13 + k);
		void *d0 = NULL, *d1 = NULL;
		cr_assert_eq(hipSetDevice(0), hipSuccess);
		cr_assert_eq(hipMalloc(&d0, n), hipSuccess);
		cr_assert_eq(hipSetDevice(1), hipSuccess);
		cr_assert_eq(hipMalloc(&d1, n), hipSuccess);
		cr_assert_eq(hipMemcpy(d0, src, n, hipMemcpyHostToDevice), hipSuccess);
		cr_assert_eq(hipMemcpyPeer(d1, 1, d0, 0, n), hipSuccess);
		memset(back, 0, n);
		cr_assert_eq(hipMemcpy(back, d1, n, hipMemcpyDeviceToHost), hipSuccess);
		cr_assert_eq(memcmp(back, src, n), 0);
		hipStream_t s;
		cr_assert_eq(hipStreamCreate(&s), hipSuccess);
		cr_assert_eq(hipMemsetAsync(d0, 0, n, s), hipSuccess);
		cr_assert_eq(hipMemcpyPeerAsync(d0, 0, d1, 1, n, s), hipSuccess);
		cr_assert_eq(hipStreamSynchronize(s), hipSuccess);
		cr_assert_eq(hipMemcpy(back, d0, n, hipMemcpyDeviceToHost), hipSuccess);
		cr_assert_eq(memcmp(back, src, n), 0);
		cr_assert_eq(hipMemcpyPeer(d1, 7, d0, 0, n), hipErrorInvalidDevice);
		cr_assert_eq(hipStreamDestroy(s), hipSuccess);
		cr_assert_eq(hipFree(d0), hipSuccess);
		cr_assert_eq(hipFree(d1), hipSuccess);
		free(src);
		free(back);
	}
	cr_assert_eq(hipSetDevice(0), hipSuccess);
}

Test(peer, pointer_attributes_name_owner)
{
	void *d1 = NULL;
	hipPointerAttribute_t a;
	cr_assert_eq(hipSetDevice(1), hipSuccess);
	cr_assert_eq(hipMalloc(&d1, 64), hipSuccess);
	cr_assert_eq(hipSetDevice(0), hipSuccess);
	cr_assert_eq(hipPointerGetAttributes(&a, d1), hipSuccess);
	cr_assert_eq(a.device, 1);
	cr_assert_eq(hipFree(d1), hipSuccess);
}

/* hipSetValidDevices: a thread that has not chosen a device starts on the list's first; one
 * that called hipSetDevice keeps its choice; bad lists are refused. */
static void *valid_devices_thread(void *arg)
{
	(void)arg;
	int list[2] = {1, 0}, dev = -1;
	cr_assert_eq(hipSetValidDevices(list, 2), hipSuccess);
	cr_assert_eq(hipGetDevice(&dev), hipSuccess);
	cr_assert_eq(dev, 1, "the first valid device becomes current");
	cr_assert_eq(hipSetDevice(0), hipSuccess);
	cr_assert_eq(hipSetValidDevices(list, 1), hipSuccess);
	cr_assert_eq(hipGetDevice(&dev), hipSuccess);
	cr_assert_eq(dev, 0, "an explicit hipSetDevice wins");
	return NULL;
}

Test(peer, set_valid_devices)
{
	int bad[1] = {7}, list[1] = {0};
	cr_assert_eq(hipSetValidDevices(NULL, 0), hipSuccess);
	cr_assert_eq(hipSetValidDevices(NULL, 1), hipErrorInvalidValue);
	cr_assert_eq(hipSetValidDevices(list, 3), hipErrorInvalidValue);
	cr_assert_eq(hipSetValidDevices(bad, 1), hipErrorInvalidDevice);
	pthread_t t;
	cr_assert_eq(pthread_create(&t, NULL, valid_devices_thread, NULL), 0);
	cr_assert_eq(pthread_join(t, NULL), 0);
}
