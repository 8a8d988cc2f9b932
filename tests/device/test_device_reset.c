/* hipDeviceReset and the calling thread's error state: the reset starts the thread over, as
 * AMD's runtime does (measured on kfdsim with Debian's libamdhip64.so.5: hipGetLastError and
 * hipPeekAtLastError both read hipSuccess after a reset that follows a failed call). */
#include <criterion/criterion.h>
#include <pthread.h>

#include <hip/hip_runtime_api.h>

/* An allocation no device can hold: a failure that changes nothing. */
#define TOO_BIG ((size_t)1 << 50)

Test(device_reset, clears_the_last_error_of_the_calling_thread)
{
	void *p = (void *)0x1234;
	cr_assert_eq(hipMalloc(&p, TOO_BIG), hipErrorOutOfMemory);
	cr_assert_eq(p, (void *)0x1234, "a failed hipMalloc wrote its output");
	cr_assert_eq(hipPeekAtLastError(), hipErrorOutOfMemory);
	cr_assert_eq(hipDeviceReset(), hipSuccess);
	cr_assert_eq(hipPeekAtLastError(), hipSuccess);
	cr_assert_eq(hipGetLastError(), hipSuccess);
	/* The device is usable again and a new failure is recorded as before. */
	cr_assert_eq(hipMalloc(&p, 64), hipSuccess);
	cr_assert_eq(hipFree(p), hipSuccess);
	cr_assert_eq(hipMalloc(&p, TOO_BIG), hipErrorOutOfMemory);
	cr_assert_eq(hipGetLastError(), hipErrorOutOfMemory);
	cr_assert_eq(hipGetLastError(), hipSuccess);
}

static void *fail_then_wait(void *arg)
{
	void *p;
	pthread_barrier_t *b = arg;
	hipError_t err = hipMalloc(&p, TOO_BIG);
	pthread_barrier_wait(b); /* failed */
	pthread_barrier_wait(b); /* the main thread reset the device */
	if (err != hipErrorOutOfMemory)
		return (void *)(intptr_t)-1;
	return (void *)(intptr_t)hipGetLastError();
}

Test(device_reset, leaves_other_threads_last_error)
{
	pthread_barrier_t b;
	pthread_t t;
	void *ret = NULL;
	cr_assert_eq(pthread_barrier_init(&b, NULL, 2), 0);
	cr_assert_eq(pthread_create(&t, NULL, fail_then_wait, &b), 0);
	pthread_barrier_wait(&b);
	cr_assert_eq(hipDeviceReset(), hipSuccess);
	pthread_barrier_wait(&b);
	cr_assert_eq(pthread_join(t, &ret), 0);
	cr_assert_eq((intptr_t)ret, hipErrorOutOfMemory,
		     "the other thread read %d, not its own failure", (int)(intptr_t)ret);
	pthread_barrier_destroy(&b);
}
