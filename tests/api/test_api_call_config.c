/* The <<<>>> configuration stack (__hipPushCallConfiguration / __hipPopCallConfiguration): last
 * in, first out, 16 levels per thread, each thread its own. */
#include <criterion/criterion.h>
#include <pthread.h>

#include <hip/hip_runtime_api.h>

static void push(unsigned i)
{
	dim3 g = {i + 1, 2, 3}, b = {64 + i, 1, 1};
	cr_assert_eq(__hipPushCallConfiguration(g, b, 100 + i, (hipStream_t)(uintptr_t)(0x1000 + i)),
		     hipSuccess, "level %u", i);
}

static void pop_expect(unsigned i)
{
	dim3 g, b;
	size_t shared = 0;
	hipStream_t s = NULL;
	cr_assert_eq(__hipPopCallConfiguration(&g, &b, &shared, &s), hipSuccess, "level %u", i);
	cr_assert_eq(g.x, i + 1);
	cr_assert_eq(g.z, 3u);
	cr_assert_eq(b.x, 64 + i);
	cr_assert_eq(shared, 100 + i);
	cr_assert_eq((uintptr_t)s, 0x1000 + i);
}

Test(call_config, nested_levels_pop_in_reverse)
{
	for (unsigned i = 0; i < 16; i++)
		push(i);
	dim3 one = {1, 1, 1};
	cr_assert_eq(__hipPushCallConfiguration(one, one, 0, NULL), hipErrorInvalidConfiguration,
		     "a 17th level");
	for (unsigned i = 16; i-- > 0;)
		pop_expect(i);
	dim3 g;
	cr_assert_eq(__hipPopCallConfiguration(&g, NULL, NULL, NULL), hipErrorInvalidConfiguration,
		     "nothing left");
}

Test(call_config, interleaved_push_pop)
{
	push(0);
	push(1);
	pop_expect(1);
	push(2);
	pop_expect(2);
	pop_expect(0);
}

static void *other_thread(void *arg)
{
	dim3 g;
	*(hipError_t *)arg = __hipPopCallConfiguration(&g, NULL, NULL, NULL);
	return NULL;
}

Test(call_config, per_thread)
{
	hipError_t seen = hipSuccess;
	pthread_t t;
	push(5);
	cr_assert_eq(pthread_create(&t, NULL, other_thread, &seen), 0);
	pthread_join(t, NULL);
	cr_assert_eq(seen, hipErrorInvalidConfiguration, "another thread's stack is empty");
	pop_expect(5);
}
