/* Batched operations: hipMemcpyBatchAsync (attribute ranges, the failing index), hipMemcpy3DBatchAsync
 * (pointers and arrays), and the managed-memory prefetch and discard batches. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include <hip/hip_runtime_api.h>

#define HIP_OK(expr) cr_assert_eq((expr), hipSuccess, "%s", #expr)

static hipMemcpyAttributes attr_stream(void)
{
	hipMemcpyAttributes a;
	memset(&a, 0, sizeof(a));
	a.srcAccessOrder = hipMemcpySrcAccessOrderStream;
	return a;
}

Test(batch, memcpy_batch_copies_every_range)
{
	enum { N = 3, SIZE = 4096 };
	unsigned char host[N][SIZE], back[N][SIZE];
	void *dev[N], *dsts[N], *srcs[N];
	size_t sizes[N];
	hipStream_t s;
	HIP_OK(hipStreamCreate(&s));
	for (int i = 0; i < N; i++) {
		memset(host[i], 0x10 + i, SIZE);
		HIP_OK(hipMalloc(&dev[i], SIZE));
		dsts[i] = dev[i];
		srcs[i] = host[i];
		sizes[i] = SIZE - (size_t)i * 100;
	}
	hipMemcpyAttributes attrs[2] = {attr_stream(), attr_stream()};
	attrs[1].srcAccessOrder = hipMemcpySrcAccessOrderAny;
	size_t idx[2] = {0, 2}, fail = 0;
	HIP_OK(hipMemcpyBatchAsync(dsts, srcs, sizes, N, attrs, idx, 2, &fail, s));
	for (int i = 0; i < N; i++) {
		dsts[i] = back[i];
		srcs[i] = dev[i];
	}
	memset(back, 0, sizeof(back));
	HIP_OK(hipMemcpyBatchAsync(dsts, srcs, sizes, N, attrs, idx, 1, &fail, s));
	HIP_OK(hipStreamSynchronize(s));
	for (int i = 0; i < N; i++) {
		cr_assert_eq(memcmp(back[i], host[i], sizes[i]), 0, "copy %d", i);
		/* copy 0 fills its row: there is no byte past it to read */
		if (sizes[i] < SIZE)
			cr_assert_eq(back[i][sizes[i]], 0, "no byte past copy %d", i);
	}
	/* a null source in the middle: the batch stops there and names it */
	srcs[1] = NULL;
	cr_assert_eq(hipMemcpyBatchAsync(dsts, srcs, sizes, N, attrs, idx, 1, &fail, s), hipErrorInvalidValue);
	cr_assert_eq(fail, 1);
	/* attribute ranges must start at 0 and rise */
	size_t bad_idx[2] = {1, 2};
	cr_assert_eq(hipMemcpyBatchAsync(dsts, srcs, sizes, N, attrs, bad_idx, 2, &fail, s), hipErrorInvalidValue);
	cr_assert_eq(fail, SIZE_MAX);
	attrs[0].srcAccessOrder = hipMemcpySrcAccessOrderInvalid;
	cr_assert_eq(hipMemcpyBatchAsync(dsts, srcs, sizes, N, attrs, idx, 1, &fail, s), hipErrorInvalidValue);
	for (int i = 0; i < N; i++)
		HIP_OK(hipFree(dev[i]));
	HIP_OK(hipStreamDestroy(s));
}

Test(batch, memcpy3d_batch_pointer_to_array_and_back)
{
	enum { W = 16, H = 8 };
	float host[H][W], back[H][W];
	for (int y = 0; y < H; y++)
		for (int x = 0; x < W; x++)
			host[y][x] = (float)(y * 100 + x);
	hipChannelFormatDesc desc = {32, 0, 0, 0, hipChannelFormatKindFloat};
	hipArray_t arr;
	HIP_OK(hipMallocArray(&arr, &desc, W, H, 0));
	struct hipMemcpy3DBatchOp ops[2];
	memset(ops, 0, sizeof(ops));
	ops[0].src.type = hipMemcpyOperandTypePointer;
	ops[0].src.op.ptr.ptr = host;
	ops[0].src.op.ptr.rowLength = W;
	ops[0].src.op.ptr.layerHeight = H;
	ops[0].dst.type = hipMemcpyOperandTypeArray;
	ops[0].dst.op.array.array = arr;
	ops[0].extent = make_hipExtent(W, H, 1);
	ops[0].srcAccessOrder = hipMemcpySrcAccessOrderStream;
	ops[1] = ops[0];
	ops[1].src = ops[0].dst;
	ops[1].dst = ops[0].src;
	ops[1].dst.op.ptr.ptr = back;
	size_t fail;
	memset(back, 0, sizeof(back));
	hipError_t e = hipMemcpy3DBatchAsync(2, ops, &fail, 0, NULL);
	cr_assert_eq(e, hipSuccess, "error %d (%s) at op %zu", e, hipGetErrorName(e), fail);
	HIP_OK(hipStreamSynchronize(NULL));
	for (int y = 0; y < H; y++)
		for (int x = 0; x < W; x++)
			cr_assert_eq(back[y][x], host[y][x], "(%d,%d): %g", x, y, (double)back[y][x]);
	ops[1].srcAccessOrder = hipMemcpySrcAccessOrderInvalid;
	cr_assert_eq(hipMemcpy3DBatchAsync(2, ops, &fail, 0, NULL), hipErrorInvalidValue);
	cr_assert_eq(fail, 1);
	cr_assert_eq(hipMemcpy3DBatchAsync(2, ops, &fail, 1, NULL), hipErrorInvalidValue);
	HIP_OK(hipFreeArray(arr));
}

Test(batch, prefetch_and_discard_managed_ranges)
{
	int *m1, *m2, *plain;
	HIP_OK(hipMallocManaged((void **)&m1, 4096, hipMemAttachGlobal));
	HIP_OK(hipMallocManaged((void **)&m2, 8192, hipMemAttachGlobal));
	HIP_OK(hipMalloc((void **)&plain, 4096));
	for (int i = 0; i < 1024; i++)
		m1[i] = i;
	void *ptrs[2] = {m1, m2};
	size_t sizes[2] = {4096, 8192};
	hipMemLocation locs[2];
	memset(locs, 0, sizeof(locs));
	locs[0].type = hipMemLocationTypeDevice;
	locs[0].id = 0;
	locs[1].type = hipMemLocationTypeHost;
	size_t idx[2] = {0, 1};
	HIP_OK(hipMemPrefetchBatchAsync(ptrs, sizes, 2, locs, idx, 2, 0, NULL));
	HIP_OK(hipStreamSynchronize(NULL));
	cr_assert_eq(m1[1000], 1000, "prefetch keeps the contents");
	HIP_OK(hipMemDiscardBatchAsync(ptrs, sizes, 2, 0, NULL));
	HIP_OK(hipMemDiscardAndPrefetchBatchAsync(ptrs, sizes, 2, locs, idx, 1, 0, NULL));
	HIP_OK(hipStreamSynchronize(NULL));
	void *bad[1] = {plain};
	cr_assert_eq(hipMemDiscardBatchAsync(bad, sizes, 1, 0, NULL), hipErrorInvalidValue,
		     "only managed memory can be discarded");
	cr_assert_eq(hipMemPrefetchBatchAsync(ptrs, sizes, 2, locs, idx, 0, 0, NULL), hipErrorInvalidValue);
	cr_assert_eq(hipMemDiscardBatchAsync(ptrs, sizes, 2, 1, NULL), hipErrorInvalidValue);
	HIP_OK(hipFree(m1));
	HIP_OK(hipFree(m2));
	HIP_OK(hipFree(plain));
}
