/* Stream handles that are not live streams. AMD's runtime guards hipStreamSynchronize, Query,
 * Destroy, GetFlags, GetPriority, GetDevice, AddCallback, LaunchHostFunc, the stream memory
 * operations and hipEventRecord with hip::isValid and answers hipErrorContextIsDestroyed for any
 * handle that is not a live stream, destroyed or made up; hipStreamWaitEvent answers
 * hipErrorInvalidHandle. A made-up handle is only looked up, never dereferenced. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include <hip/hip_runtime_api.h>

static void never_called(hipStream_t s, hipError_t e, void *u)
{
	(void)s;
	(void)e;
	*(int *)u = 1;
}

static void never_run(void *u)
{
	*(int *)u = 1;
}

/* Every isValid-guarded call on [in] h: 709, and nothing is written or run. */
static void assert_context_destroyed(hipStream_t h)
{
	unsigned flags = 77;
	int prio = 77, ran = 0;
	hipDevice_t dev = 77;
	uint32_t *word = NULL;
	hipEvent_t ev = NULL;

	cr_assert_eq(hipStreamSynchronize(h), hipErrorContextIsDestroyed);
	cr_assert_eq(hipGetLastError(), hipErrorContextIsDestroyed);
	cr_assert_eq(hipStreamQuery(h), hipErrorContextIsDestroyed);
	cr_assert_eq(hipStreamGetFlags(h, &flags), hipErrorContextIsDestroyed);
	cr_assert_eq(flags, 77u);
	cr_assert_eq(hipStreamGetPriority(h, &prio), hipErrorContextIsDestroyed);
	cr_assert_eq(prio, 77);
	cr_assert_eq(hipStreamGetDevice(h, &dev), hipErrorContextIsDestroyed);
	cr_assert_eq(dev, 77);
	cr_assert_eq(hipStreamAddCallback(h, never_called, &ran, 0), hipErrorContextIsDestroyed);
	cr_assert_eq(hipLaunchHostFunc(h, never_run, &ran), hipErrorContextIsDestroyed);

	cr_assert_eq(hipHostMalloc((void **)&word, sizeof(*word), 0), hipSuccess);
	*word = 5;
	cr_assert_eq(hipStreamWriteValue32(h, word, 9, 0), hipErrorContextIsDestroyed);
	cr_assert_eq(hipStreamWaitValue32(h, word, 5, hipStreamWaitValueEq, ~0u),
		     hipErrorContextIsDestroyed);
	cr_assert_eq(*word, 5u, "the write was not performed");

	cr_assert_eq(hipEventCreate(&ev), hipSuccess);
	cr_assert_eq(hipEventRecord(ev, h), hipErrorContextIsDestroyed);
	/* hipStreamWaitEvent keeps clr's hipErrorInvalidHandle */
	cr_assert_eq(hipStreamWaitEvent(h, ev, 0), hipErrorInvalidHandle);
	cr_assert_eq(hipEventDestroy(ev), hipSuccess);

	cr_assert_eq(hipStreamDestroy(h), hipErrorContextIsDestroyed);
	cr_assert_eq(hipDeviceSynchronize(), hipSuccess);
	cr_assert_eq(ran, 0, "no callback ran for a dead handle");
	cr_assert_eq(hipHostFree(word), hipSuccess);
}

Test(stream_handles, made_up_handle_is_context_destroyed)
{
	assert_context_destroyed((hipStream_t)(uintptr_t)0xFFFF);
}

Test(stream_handles, foreign_memory_handle_is_context_destroyed)
{
	/* Looks like memory, holds junk: must not be read as a stream. */
	static unsigned char junk[512];
	memset(junk, 0xa5, sizeof(junk));
	assert_context_destroyed((hipStream_t)junk);
}

Test(stream_handles, destroyed_handle_is_context_destroyed)
{
	hipStream_t s = NULL;
	cr_assert_eq(hipStreamCreate(&s), hipSuccess);
	cr_assert_eq(hipStreamDestroy(s), hipSuccess);
	assert_context_destroyed(s);
}

Test(stream_handles, special_handles_keep_their_answers)
{
	unsigned flags = 0;
	cr_assert_eq(hipStreamDestroy(NULL), hipErrorInvalidHandle);
	cr_assert_eq(hipStreamDestroy(hipStreamPerThread), hipErrorInvalidResourceHandle);
	cr_assert_eq(hipStreamGetFlags(NULL, &flags), hipErrorInvalidValue);
	cr_assert_eq(hipStreamQuery(NULL), hipSuccess);
	cr_assert_eq(hipStreamSynchronize(hipStreamPerThread), hipSuccess);
	/* A live stream still works after the refusals above. */
	hipStream_t s = NULL;
	cr_assert_eq(hipStreamCreateWithFlags(&s, hipStreamNonBlocking), hipSuccess);
	cr_assert_eq(hipStreamGetFlags(s, &flags), hipSuccess);
	cr_assert_eq(flags, (unsigned)hipStreamNonBlocking);
	cr_assert_eq(hipStreamDestroy(s), hipSuccess);
}
