/* Stream memory operations: hipStreamWaitValue32/64, hipStreamWriteValue32/64, hipStreamBatchMemOp.
 *
 * AMD's runtime turns a wait into an AQL barrier-value packet (or a CP wait on a signal) and a
 * write into a small copy. Our AQL layer has no barrier-value packet, so the operations run in
 * stream order on the stream's host-callback worker (hipLaunchHostFunc): the worker starts an
 * operation only after all earlier work of the stream completed, and later work of the stream
 * starts only after it returns, which is exactly the ordering the API promises. A wait blocks that
 * stream only (each stream has its own worker); like the GPU packet it replaces, a wait whose
 * condition never becomes true never completes.
 *
 * The memory must be an allocation the runtime knows (clr: getMemoryObject, else
 * hipErrorInvalidValue) and visible to the CPU (host memory, managed memory, and on kfdsim or a
 * large-BAR GPU device memory); device memory the CPU cannot map gets hipErrorNotSupported.
 * Conditions are those documented in AMD's hip_runtime_api.h:
 *   Gte: (*ptr & mask) >= value      Eq: (*ptr & mask) == value
 *   And: ((*ptr & mask) & value) != 0  Nor: ~((*ptr & mask) | (value & mask)) != 0
 * evaluated at the operand width (32 or 64 bits). For Nor the complement is taken inside the
 * mask: bits the mask hides would otherwise always count as "neither set", making any partial
 * mask satisfy the wait at once; with the default all-ones mask both readings agree.
 */
#include <errno.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "../memory/mem.h"
#include "../runtime/error.h"

/* CUDA's limit on the operations of one batch (cuStreamBatchMemOp). */
#define MEMOP_BATCH_MAX 256

enum memop_kind { MEMOP_WAIT, MEMOP_WRITE };

struct memop {
	enum memop_kind kind;
	void *cpu;          /* CPU address of the operand */
	unsigned width;     /* 4 or 8 bytes */
	uint64_t value;
	uint64_t mask;
	unsigned flags;     /* hipStreamWaitValue* for waits */
};

struct memop_batch {
	unsigned n;
	struct memop op[];
};

static uint64_t memop_load(const struct memop *m)
{
	/* Acquire: work after the wait must see what the writer published before the value. */
	if (m->width == 4)
		return atomic_load_explicit((_Atomic uint32_t *)m->cpu, memory_order_acquire);
	return atomic_load_explicit((_Atomic uint64_t *)m->cpu, memory_order_acquire);
}

static bool memop_condition(const struct memop *m, uint64_t cur)
{
	uint64_t v = cur & m->mask;

	switch (m->flags) {
	case hipStreamWaitValueGte:
		return v >= m->value;
	case hipStreamWaitValueEq:
		return v == m->value;
	case hipStreamWaitValueAnd:
		return (v & m->value) != 0;
	default: /* hipStreamWaitValueNor, checked when enqueued */
		return (~(v | m->value) & m->mask) != 0;
	}
}

/* Spin briefly, then sleep in growing steps up to 100 us: a wait may last as long as the program
 * wants, and the worker must not burn a core the GPU emulation or other streams need. */
static void memop_wait(const struct memop *m)
{
	long ns = 1000;

	for (unsigned spins = 0; !memop_condition(m, memop_load(m)); spins++) {
		if (spins < 64) {
			sched_yield();
			continue;
		}
		struct timespec ts = {0, ns};
		nanosleep(&ts, NULL);
		if (ns < 100000)
			ns *= 2;
	}
}

static void memop_write(const struct memop *m)
{
	/* Release: everything the stream did before is visible before the value. */
	if (m->width == 4)
		atomic_store_explicit((_Atomic uint32_t *)m->cpu, (uint32_t)m->value,
				      memory_order_release);
	else
		atomic_store_explicit((_Atomic uint64_t *)m->cpu, m->value, memory_order_release);
}

/* The stream's host-callback worker runs this in stream order. */
static void memop_run(void *arg)
{
	struct memop_batch *b = arg;

	for (unsigned i = 0; i < b->n; i++) {
		if (b->op[i].kind == MEMOP_WAIT)
			memop_wait(&b->op[i]);
		else
			memop_write(&b->op[i]);
	}
	free(b);
}

/* The CPU address of the [in] width-byte operand at [in] ptr. */
static hipError_t memop_cpu_address(void *ptr, unsigned width, void **cpu)
{
	struct mem_info info;

	if (!ptr || ((uintptr_t)ptr & (width - 1)))
		return hipErrorInvalidValue;
	if (mem_lookup_host(ptr, &info) != 0) {
		/* hipHostGetDevicePointer's address for registered memory that got a GPU VA of its
		 * own: the operation works on the CPU address behind it */
		void *host = mem_host_of_alias(ptr);
		if (!host || mem_lookup_host(host, &info) != 0)
			return hipErrorInvalidValue;
		ptr = host;
	}
	size_t off = (size_t)((const char *)ptr - (const char *)info.base);
	if (off > info.size || width > info.size - off)
		return hipErrorInvalidValue;
	if (!info.host_ptr)
		return hipErrorNotSupported; /* CPU cannot reach it; see the file comment */
	*cpu = (char *)info.host_ptr + off;
	return hipSuccess;
}

static hipError_t memop_fill_wait(struct memop *m, void *ptr, unsigned width, uint64_t value,
				  unsigned flags, uint64_t mask)
{
	if (flags > hipStreamWaitValueNor)
		return hipErrorInvalidValue;
	*m = (struct memop){MEMOP_WAIT, NULL, width, value, mask, flags};
	return memop_cpu_address(ptr, width, &m->cpu);
}

static hipError_t memop_fill_write(struct memop *m, void *ptr, unsigned width, uint64_t value,
				   unsigned flags)
{
	/* hipExtStreamWriteValueIncrement/Decrement have no documented semantics to mirror. */
	if (flags == hipExtStreamWriteValueIncrement || flags == hipExtStreamWriteValueDecrement)
		return hipErrorNotSupported;
	if (flags != hipStreamWriteValueDefault)
		return hipErrorInvalidValue;
	*m = (struct memop){MEMOP_WRITE, NULL, width, value, ~0ull, flags};
	return memop_cpu_address(ptr, width, &m->cpu);
}

static struct memop_batch *memop_batch_new(unsigned n)
{
	struct memop_batch *b = malloc(sizeof(*b) + n * sizeof(struct memop));

	if (b)
		b->n = 0;
	return b;
}

/* Hand the batch to the stream's worker; frees it on failure. */
static hipError_t memop_enqueue(hipStream_t stream, struct memop_batch *b)
{
	hipError_t err = hipLaunchHostFunc(stream, memop_run, b);

	if (err != hipSuccess)
		free(b);
	return err;
}

static hipError_t memop_single(hipStream_t stream, bool wait, void *ptr, unsigned width,
			       uint64_t value, unsigned flags, uint64_t mask)
{
	struct memop_batch *b = memop_batch_new(1);

	if (!b)
		return hipErrorOutOfMemory;
	hipError_t err = wait ? memop_fill_wait(&b->op[0], ptr, width, value, flags, mask)
			      : memop_fill_write(&b->op[0], ptr, width, value, flags);
	if (err != hipSuccess) {
		free(b);
		return err;
	}
	b->n = 1;
	return memop_enqueue(stream, b);
}

hipError_t hipStreamWaitValue32(hipStream_t stream, void *ptr, uint32_t value, unsigned int flags,
				uint32_t mask)
{
	HIP_RETURN(memop_single(stream, true, ptr, 4, value, flags, mask));
}

hipError_t hipStreamWaitValue64(hipStream_t stream, void *ptr, uint64_t value, unsigned int flags,
				uint64_t mask)
{
	HIP_RETURN(memop_single(stream, true, ptr, 8, value, flags, mask));
}

hipError_t hipStreamWriteValue32(hipStream_t stream, void *ptr, uint32_t value, unsigned int flags)
{
	HIP_RETURN(memop_single(stream, false, ptr, 4, value, flags, 0));
}

hipError_t hipStreamWriteValue64(hipStream_t stream, void *ptr, uint64_t value, unsigned int flags)
{
	HIP_RETURN(memop_single(stream, false, ptr, 8, value, flags, 0));
}

/* One entry of a batch. Barriers and remote-write flushes need nothing more: the worker runs
 * after all earlier work of the stream, with the acquire/release orderings above. */
static hipError_t memop_batch_add(struct memop_batch *b, const hipStreamBatchMemOpParams *p)
{
	struct memop *m = &b->op[b->n];
	hipError_t err;

	switch (p->operation) {
	case hipStreamMemOpWaitValue32:
		err = memop_fill_wait(m, p->waitValue.address, 4, p->waitValue.value,
				      p->waitValue.flags, UINT32_MAX);
		break;
	case hipStreamMemOpWaitValue64:
		err = memop_fill_wait(m, p->waitValue.address, 8, p->waitValue.value64,
				      p->waitValue.flags, UINT64_MAX);
		break;
	case hipStreamMemOpWriteValue32:
		err = memop_fill_write(m, p->writeValue.address, 4, p->writeValue.value,
				       p->writeValue.flags);
		break;
	case hipStreamMemOpWriteValue64:
		err = memop_fill_write(m, p->writeValue.address, 8, p->writeValue.value64,
				       p->writeValue.flags);
		break;
	case hipStreamMemOpBarrier:
	case hipStreamMemOpFlushRemoteWrites:
		return hipSuccess;
	default:
		return hipErrorInvalidValue;
	}
	if (err == hipSuccess)
		b->n++;
	return err;
}

hipError_t hipStreamBatchMemOp(hipStream_t stream, unsigned int count,
			       hipStreamBatchMemOpParams *paramArray, unsigned int flags)
{
	if (count == 0 || count > MEMOP_BATCH_MAX || !paramArray || flags != 0)
		HIP_RETURN(hipErrorInvalidValue);
	struct memop_batch *b = memop_batch_new(count);
	if (!b)
		HIP_RETURN(hipErrorOutOfMemory);
	for (unsigned i = 0; i < count; i++) {
		hipError_t err = memop_batch_add(b, &paramArray[i]);
		if (err != hipSuccess) {
			free(b);
			HIP_RETURN(err);
		}
	}
	HIP_RETURN(memop_enqueue(stream, b));
}
