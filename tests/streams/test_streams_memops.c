/* Stream memory operations: writes and waits happen in stream order, with the documented
 * conditions and masks; bad pointers and flags are errors. */
#include <criterion/criterion.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include <hip/hip_runtime_api.h>

Test(memops, write_values_in_order)
{
	uint64_t *h = NULL;
	void *d = NULL;
	hipStream_t s;

	cr_assert_eq(hipHostMalloc((void **)&h, 64, 0), hipSuccess);
	cr_assert_eq(hipMalloc(&d, 64), hipSuccess);
	cr_assert_eq(hipStreamCreate(&s), hipSuccess);
	memset(h, 0, 64);
	cr_assert_eq(hipStreamWriteValue32(s, h, 0xabcd1234u, 0), hipSuccess);
	cr_assert_eq(hipStreamWriteValue64(s, h + 1, 0x0123456789abcdefull, 0), hipSuccess);
	/* Then a device write after the memset: the value survives only if it comes after. */
	cr_assert_eq(hipMemsetAsync(d, 0, 64, s), hipSuccess);
	cr_assert_eq(hipStreamWriteValue64(s, d, 0xfeedfacecafebeefull, 0), hipSuccess);
	cr_assert_eq(hipStreamSynchronize(s), hipSuccess);
	cr_assert_eq(*(uint32_t *)h, 0xabcd1234u);
	cr_assert_eq(h[1], 0x0123456789abcdefull);
	uint64_t back = 0;
	cr_assert_eq(hipMemcpy(&back, d, 8, hipMemcpyDeviceToHost), hipSuccess);
	cr_assert_eq(back, 0xfeedfacecafebeefull);
	cr_assert_eq(hipStreamDestroy(s), hipSuccess);
	cr_assert_eq(hipFree(d), hipSuccess);
	cr_assert_eq(hipHostFree(h), hipSuccess);
}

/* What a host function enqueued after the wait saw (host functions run in stream order). */
struct seen {
	uint32_t *data;
	uint32_t value;
};

static void record(void *arg)
{
	struct seen *s = arg;
	s->value = atomic_load_explicit((_Atomic uint32_t *)s->data, memory_order_acquire);
}

/* A wait holds back later work until the host publishes the value: the host function after the
 * wait must see the data written before the flag. (A copy would not do as the later work: copies
 * done by the CPU or SDMA wait for their dependencies in the calling thread.) */
static void wait_then_record(unsigned flags, uint32_t value, uint32_t mask, uint32_t initial,
			     uint32_t release)
{
	uint32_t *flag = NULL, *data = NULL;
	hipStream_t s;
	struct seen seen;

	cr_assert_eq(hipHostMalloc((void **)&flag, 4, 0), hipSuccess);
	cr_assert_eq(hipHostMalloc((void **)&data, 4, 0), hipSuccess);
	*flag = initial;
	*data = 1;
	seen.data = data;
	seen.value = 0;
	cr_assert_eq(hipStreamCreate(&s), hipSuccess);
	cr_assert_eq(hipStreamWaitValue32(s, flag, value, flags, mask), hipSuccess);
	cr_assert_eq(hipLaunchHostFunc(s, record, &seen), hipSuccess);
	/* The stream cannot finish before the flag is set. */
	cr_assert_eq(hipStreamQuery(s), hipErrorNotReady);
	atomic_store_explicit((_Atomic uint32_t *)data, 77, memory_order_relaxed);
	atomic_store_explicit((_Atomic uint32_t *)flag, release, memory_order_release);
	cr_assert_eq(hipStreamSynchronize(s), hipSuccess);
	cr_assert_eq(seen.value, 77u);
	cr_assert_eq(hipStreamDestroy(s), hipSuccess);
	hipHostFree(flag);
	hipHostFree(data);
}

Test(memops, wait_gte)
{
	wait_then_record(hipStreamWaitValueGte, 5, 0xffffffffu, 0, 9);
}

Test(memops, wait_eq_with_mask)
{
	/* Only the low byte is compared: 0x1205 & 0xff == 5. */
	wait_then_record(hipStreamWaitValueEq, 5, 0xffu, 0, 0x1205);
}

Test(memops, wait_and)
{
	wait_then_record(hipStreamWaitValueAnd, 0x10, 0xffffffffu, 0, 0x30);
}

Test(memops, wait_nor)
{
	/* ~(*p | v) != 0 holds while some bit is clear in both: with v = 0xffff0000 and *p = 0 it
	 * holds at once. */
	uint32_t *flag = NULL;
	hipStream_t s;
	cr_assert_eq(hipHostMalloc((void **)&flag, 4, 0), hipSuccess);
	*flag = 0;
	cr_assert_eq(hipStreamCreate(&s), hipSuccess);
	cr_assert_eq(hipStreamWaitValue32(s, flag, 0xffff0000u, hipStreamWaitValueNor, 0xffffffffu),
		     hipSuccess);
	cr_assert_eq(hipStreamSynchronize(s), hipSuccess);
	cr_assert_eq(hipStreamDestroy(s), hipSuccess);
	hipHostFree(flag);
	/* All bits set: blocked; released when one bit clears. */
	wait_then_record(hipStreamWaitValueNor, 0, 0xffffffffu, 0xffffffffu, 0xfffffffeu);
	/* The mask hides the high half: 0x0000ffff under mask 0xffff is "all set". */
	wait_then_record(hipStreamWaitValueNor, 0, 0xffffu, 0xffffu, 0xffff00ffu);
}

Test(memops, wait64_and_batch)
{
	uint64_t *flag = NULL, *word = NULL;
	hipStream_t s;

	cr_assert_eq(hipHostMalloc((void **)&flag, 8, 0), hipSuccess);
	cr_assert_eq(hipHostMalloc((void **)&word, 16, 0), hipSuccess);
	*flag = 0;
	word[0] = word[1] = 0;
	cr_assert_eq(hipStreamCreate(&s), hipSuccess);
	hipStreamBatchMemOpParams ops[3];
	memset(ops, 0, sizeof(ops));
	ops[0].waitValue.operation = hipStreamMemOpWaitValue64;
	ops[0].waitValue.address = flag;
	ops[0].waitValue.value64 = 1ull << 40;
	ops[0].waitValue.flags = hipStreamWaitValueGte;
	ops[1].memoryBarrier.operation = hipStreamMemOpBarrier;
	ops[2].writeValue.operation = hipStreamMemOpWriteValue32;
	ops[2].writeValue.address = word;
	ops[2].writeValue.value = 42;
	cr_assert_eq(hipStreamBatchMemOp(s, 3, ops, 0), hipSuccess);
	cr_assert_eq(hipStreamWaitValue64(s, flag, 3ull << 40, hipStreamWaitValueGte, ~0ull),
		     hipSuccess);
	cr_assert_eq(hipStreamWriteValue64(s, word + 1, 7, 0), hipSuccess);
	cr_assert_eq(hipStreamQuery(s), hipErrorNotReady);
	atomic_store((_Atomic uint64_t *)flag, 1ull << 40);
	/* The batch's write follows its wait; the second wait still holds back the last write. */
	while (atomic_load((_Atomic uint64_t *)word) != 42)
		;
	cr_assert_eq(word[1], 0u);
	atomic_store((_Atomic uint64_t *)flag, 3ull << 40);
	cr_assert_eq(hipStreamSynchronize(s), hipSuccess);
	cr_assert_eq(word[1], 7u);
	cr_assert_eq(hipStreamDestroy(s), hipSuccess);
	hipHostFree(flag);
	hipHostFree(word);
}

Test(memops, errors)
{
	uint32_t *h = NULL;
	uint32_t local = 0;

	cr_assert_eq(hipHostMalloc((void **)&h, 64, 0), hipSuccess);
	cr_assert_eq(hipStreamWaitValue32(NULL, NULL, 0, 0, ~0u), hipErrorInvalidValue);
	cr_assert_eq(hipStreamWaitValue32(NULL, &local, 0, 0, ~0u), hipErrorInvalidValue,
		     "memory the runtime does not know");
	cr_assert_eq(hipStreamWaitValue32(NULL, h, 0, 4, ~0u), hipErrorInvalidValue);
	cr_assert_eq(hipStreamWaitValue64(NULL, (char *)h + 4, 0, 0, ~0ull), hipErrorInvalidValue,
		     "misaligned");
	cr_assert_eq(hipStreamWriteValue32(NULL, (char *)h + 2, 0, 0), hipErrorInvalidValue);
	cr_assert_eq(hipStreamWriteValue32(NULL, h, 0, 5), hipErrorInvalidValue);
	cr_assert_eq(hipStreamWriteValue32(NULL, h + 16, 0, 0), hipErrorInvalidValue, "past the end");
	cr_assert_eq(hipStreamBatchMemOp(NULL, 0, NULL, 0), hipErrorInvalidValue);
	hipStreamBatchMemOpParams op;
	memset(&op, 0, sizeof(op));
	op.operation = (hipStreamBatchMemOpType)99;
	cr_assert_eq(hipStreamBatchMemOp(NULL, 1, &op, 0), hipErrorInvalidValue);
	op.memoryBarrier.operation = hipStreamMemOpBarrier;
	cr_assert_eq(hipStreamBatchMemOp(NULL, 1, &op, 1), hipErrorInvalidValue);
	cr_assert_eq(hipStreamBatchMemOp(NULL, 1, &op, 0), hipSuccess);
	cr_assert_eq(hipStreamSynchronize(NULL), hipSuccess);
	hipStream_t s;
	cr_assert_eq(hipStreamCreate(&s), hipSuccess);
	cr_assert_eq(hipStreamDestroy(s), hipSuccess);
	cr_assert_neq(hipStreamWriteValue32(s, h, 1, 0), hipSuccess, "destroyed stream");
	cr_assert_eq(hipHostFree(h), hipSuccess);
}
