/* The copy engine behind hipMemcpy* and hipMemset*: picks the CPU or an SDMA engine for each
 * transfer, stages pageable memory through a pinned buffer, and keeps stream order.
 *
 * Policy (follows the memory kind from the address table, never assumes all memory is mappable):
 *  - host <-> host (pinned, registered or pageable): the CPU, always;
 *  - a side in VRAM that the CPU cannot map: SDMA;
 *  - a side in VRAM the CPU can map: the CPU up to a size threshold, SDMA above it (CPU writes to
 *    VRAM go through write-combining and are fast; CPU reads from VRAM are uncached and slow, so
 *    the read threshold is lower);
 *  - SDMA to or from pageable memory goes through the device's pinned staging buffer.
 * Threshold figures: see the comment at COPY_CPU_WRITE_MAX.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../memory/mem.h"
#include "../queues/sdma.h"
#include "../queues/signal.h"
#include "activity.h"
#include "internal.h"
#include "fill.h"

int (*hip_vmm_access_of)(const void *ptr, int ordinal);

/* Measured on kfdsim (gfx942 profile, this 2-core host; median of 15 synchronous hipMemcpy /
 * hipMemset on host-visible VRAM with pinned host memory, the library built once with every
 * threshold 0 (all SDMA) and once with them at SIZE_MAX (all CPU)), microseconds:
 *
 *     bytes     H2D cpu/sdma     D2H cpu/sdma     D2D cpu/sdma   memset cpu/sdma
 *     4 KiB        0.1/1162         0.1/173          0.1/311         0.1/345
 *    64 KiB        1.7/177          1.4/177          1.4/313         1.0/983
 *   256 KiB        5.7/352          5.4/190          5.4/202         4.4/181
 *     1 MiB       38.7/1000        31.9/387         49.6/1205       19.3/294
 *     4 MiB        302/2233         295/2873         306/2436        150/2499
 *    16 MiB       2431/14223      10099/10085       2250/8883        892/8731
 *
 * A second run after kfdsim moved to one doorbell watcher per process (machine load ~15 on 2
 * cores, so noisier): SDMA costs a flat ~170 us up to 1 MiB (CPU: 39 us at 1 MiB), 595 vs 289 us
 * at 4 MiB H2D, and the two are within noise at 16 MiB.
 *
 * On kfdsim the CPU wins at nearly every size: its SDMA engine is a host thread doing the same
 * memcpy after a ~170-180 us doorbell round trip. kfdsim cannot show the hardware crossover, so the
 * thresholds below follow hardware behaviour instead: CPU writes to VRAM through a large BAR
 * are write-combined (several GB/s), CPU reads from it are uncached (well under 1 GB/s), and an
 * SDMA transfer costs ~10 us to start then runs at link speed. Writes therefore stay on the CPU
 * up to 256 KiB, reads only up to 16 KiB. Memory that is not host-visible always goes to SDMA. */
#ifndef COPY_CPU_WRITE_MAX /* overridable at build time for measurements (-D...) */
#define COPY_CPU_WRITE_MAX (256u * 1024u)
#endif
#ifndef COPY_CPU_READ_MAX
#define COPY_CPU_READ_MAX (16u * 1024u)
#endif
#ifndef FILL_CPU_MAX
#define FILL_CPU_MAX (256u * 1024u)
#endif

/* The pinned bounce buffer for SDMA to/from pageable memory, one per device: two halves, so the
 * CPU copies one chunk while the engine moves the other. */
#define STAGING_SIZE (8u * 1024u * 1024u)
#define STAGING_HALF (STAGING_SIZE / 2u)

int hip_span_of(const void *p, size_t size, struct hip_span *out)
{
	struct mem_info info;

	memset(out, 0, sizeof(*out));
	if (mem_lookup_host(p, &info) != 0) {
		/* Outside every allocation: host memory the program owns, unless it lies in the
		 * address space reserved for GPU memory (a freed or never allocated device address):
		 * hipErrorInvalidValue there, not a CPU fault in the copy. clr takes any unknown
		 * address for host memory and faults. */
		if (mem_va_reserved(p, size))
			return -EINVAL;
		out->ptr = (void *)p;
		out->host_visible = true;
		return 0;
	}
	size_t off = (uintptr_t)p - (uintptr_t)info.base;
	if (size > info.size - off)
		return -EINVAL; /* the transfer runs past the end of the allocation */
	out->known = true;
	out->host_visible = info.host_ptr != NULL;
	out->ptr = info.host_ptr ? (char *)info.host_ptr + off : NULL;
	out->gpu_mapped = true;
	out->gpu_va = info.gpu_va + off;
	out->device_local = info.kind == MEM_DEVICE || info.kind == MEM_DEVICE_FINE ||
			    info.kind == MEM_DEVICE_UNCACHED;
	out->device = info.gpu ? hip_device_of_gpu(info.gpu) : NULL;
	out->vmm = (info.flags & MEM_FLAG_VMM) != 0;
	return 0;
}

/* The spans of both sides of a copy, [in] dlen bytes at [in] dst and [in] slen at [in] src, the
 * destination first: 0 or the first side's error. */
static int copy_spans(void *dst, size_t dlen, const void *src, size_t slen, struct hip_span *sd,
		      struct hip_span *ss)
{
	int err = hip_span_of(dst, dlen, sd);
	return err ? err : hip_span_of(src, slen, ss);
}

/* A copy or fill may write (read) a hipMemMap mapping only where the stream's device was granted
 * read-write (read) access: CUDA's answer otherwise is hipErrorInvalidValue, checked up front,
 * which also keeps the CPU paths from writing memory the GPU may only read. */
static int vmm_access_check(const struct hip_stream *s, const struct hip_span *sp, const void *p,
			    bool write)
{
	if (!sp->vmm)
		return 0;
	int a = hip_vmm_access_of ? hip_vmm_access_of(p, s->device->ordinal) : -1;
	if (a < 0)
		return 0; /* not a hipMemMap mapping (external memory's buffers) */
	bool ok = write ? a == hipMemAccessFlagsProtReadWrite
			: (a == hipMemAccessFlagsProtRead || a == hipMemAccessFlagsProtReadWrite);
	return ok ? 0 : -EINVAL;
}

/* ---- engines --------------------------------------------------------------------------------- */

/* The device's SDMA queue and staging buffer, created on first use. sdma_lock held. */
static int sdma_ready(struct hip_device *d)
{
	int err = 0;
	if (!d->sdma)
		err = sdma_queue_create(d->gpu, &d->sdma);
	if (!err && !d->staging)
		err = mem_alloc(d->gpu, STAGING_SIZE, MEM_HOST_PINNED, MEM_FLAG_COHERENT, &d->staging);
	return err;
}

/* Make sure the engine's GPU can reach a device-memory span of another GPU (peer copy). */
static int span_reach(struct hip_device *engine, const struct hip_span *sp, const void *p)
{
	if (!sp->known || !sp->device || sp->device == engine)
		return 0;
	return mem_map_to_gpu((void *)p, engine->gpu);
}

/* One SDMA copy between GPU addresses, completing fence f (may be NULL). sdma_lock held. */
static int sdma_copy_va(struct hip_device *d, uint64_t dst, uint64_t src, size_t size,
			struct hip_fence *f)
{
	return sdma_copy(d->sdma, dst, src, size, f ? f->sig : NULL);
}

/* Copy through the staging buffer, chunk by chunk, when one side is pageable. Synchronous: the
 * pageable side may be reused by the caller as soon as we return. The two halves of the buffer
 * form a pipeline: towards the GPU the CPU fills one half while the engine drains the other;
 * from the GPU the engine fills one half while the CPU empties the other. A half is reused only
 * after the engine's fence for it completed. sdma_lock held. */
static int staged_wait(struct hip_device *d, struct hip_fence **f)
{
	int err = 0;
	if (*f) {
		err = hip_fence_wait(*f, hip_device_blocking(d));
		hip_fence_put(*f);
		*f = NULL;
	}
	return err;
}

static int staged_engine(struct hip_device *d, uint64_t dst, uint64_t src, size_t n,
			 struct hip_fence **f)
{
	int err = hip_fence_create(d, f);
	if (err)
		return err;
	err = sdma_copy_va(d, dst, src, n, *f);
	if (err) {
		hip_fence_signal(*f); /* never submitted */
		hip_fence_put(*f);
		*f = NULL;
	}
	return err;
}

static size_t chunk_len(size_t size, size_t done)
{
	return size - done < STAGING_HALF ? size - done : STAGING_HALF;
}

static int sdma_copy_staged(struct hip_device *d, const struct hip_span *dst,
			    const struct hip_span *src, size_t size)
{
	uint64_t stage_va = mem_gpu_va(d->staging);
	struct hip_fence *f[2] = {NULL, NULL};
	int err = 0, err2;

	if (!src->gpu_mapped) { /* pageable -> staging -> GPU */
		for (size_t done = 0, i = 0; done < size && !err; done += STAGING_HALF, i++) {
			size_t n = chunk_len(size, done), h = i & 1;
			err = staged_wait(d, &f[h]);
			if (err)
				break;
			memcpy((char *)d->staging + h * STAGING_HALF, (const char *)src->ptr + done, n);
			err = staged_engine(d, dst->gpu_va + done, stage_va + h * STAGING_HALF, n, &f[h]);
		}
	} else {                /* GPU -> staging -> pageable */
		size_t issued = 0;
		/* Both halves in flight first, then each is emptied and refilled in turn. */
		for (int h = 0; h < 2 && issued < size && !err; h++) {
			size_t n = chunk_len(size, issued);
			err = staged_engine(d, stage_va + (size_t)h * STAGING_HALF, src->gpu_va + issued, n,
					    &f[h]);
			issued += n;
		}
		for (size_t done = 0, i = 0; done < size && !err; done += STAGING_HALF, i++) {
			size_t n = chunk_len(size, done), h = i & 1;
			err = staged_wait(d, &f[h]);
			if (err)
				break;
			memcpy((char *)dst->ptr + done, (const char *)d->staging + h * STAGING_HALF, n);
			if (issued < size) {
				size_t m = chunk_len(size, issued);
				err = staged_engine(d, stage_va + h * STAGING_HALF, src->gpu_va + issued,
						    m, &f[h]);
				issued += m;
			}
		}
	}
	/* Nothing may still write the staging buffer (or read it) once we return. */
	err2 = staged_wait(d, &f[0]);
	if (!err)
		err = err2;
	err2 = staged_wait(d, &f[1]);
	return err ? err : err2;
}

static bool copy_by_cpu(const struct hip_span *dst, const struct hip_span *src, size_t size)
{
	if (!dst->host_visible || !src->host_visible)
		return false;
	if (src->device_local && size > COPY_CPU_READ_MAX)
		return false;
	if (dst->device_local && size > COPY_CPU_WRITE_MAX)
		return false;
	return true;
}

/* ---- copies in stream order ------------------------------------------------------------------ */

/* Copies that must not block the caller while earlier work on the stream is still running (an
 * async copy between device memory and pinned or device memory; a device-to-device copy, which
 * clr and CUDA never make the host wait for) are handed to the stream's host-callback worker: it performs the copy
 * synchronously once everything before it completed, and later work on the stream waits for it.
 * Copies touching pageable memory stay synchronous, as HIP documents. */
struct copy_later {
	struct hip_stream *s;
	void *dst;
	const void *src;
	size_t dpitch, spitch, width, height; /* a 1D copy is one row */
};

static bool legacy_blocking(const struct hip_stream *s)
{
	return !s->is_null && !(s->flags & hipStreamNonBlocking);
}

/* Whether work a new operation on [in] s depends on is still in flight: the stream's tail, event
 * waits not yet attached to work, and for the legacy null stream the blocking streams of its
 * device (for a blocking stream, the null stream), as hip_stream_begin gathers them. A probe
 * only: hip_stream_begin would take the waits off the stream. */
static bool stream_busy(struct hip_stream *s)
{
	if (__atomic_load_n(&s->nwaits, __ATOMIC_RELAXED) > 0 || !hip_stream_idle(s))
		return true;
	struct hip_device *d = s->device;
	bool busy = false;
	pthread_mutex_lock(&d->lock);
	if (s->is_null) {
		for (struct hip_stream *t = d->streams; t && !busy; t = t->next)
			busy = t != s && legacy_blocking(t) && !hip_stream_idle(t);
	} else if (legacy_blocking(s) && d->null_stream) {
		busy = !hip_stream_idle(d->null_stream);
	}
	pthread_mutex_unlock(&d->lock);
	return busy;
}

/* The hipStream_t that names [in] s for hipLaunchHostFunc, or false when none does from this
 * thread (the null or per-thread stream of a device other than the current one). */
static bool stream_handle(struct hip_stream *s, hipStream_t *out)
{
	hipStream_t h = s->is_null ? NULL : s->is_per_thread ? hipStreamPerThread : (hipStream_t)s;
	if (hip_stream_resolve(h) != s)
		return false;
	*out = h;
	return true;
}

static int copy_row_now(struct hip_stream *s, void *dst, const void *src, size_t size);

static void copy_later_run(void *arg)
{
	struct copy_later *c = arg;
	/* Nothing is left to report an error to (the call returned): the copy's failure modes were
	 * checked when it was enqueued (both sides known, in bounds). */
	for (size_t y = 0; y < c->height; y++)
		if (copy_row_now(c->s, (char *)c->dst + y * c->dpitch,
				 (const char *)c->src + y * c->spitch, c->width))
			break;
	free(c);
}

/* Whether a copy between [in] dst and [in] src may return before it is done. */
static bool copy_may_defer(const struct hip_span *dst, const struct hip_span *src, bool async)
{
	if (!dst->known || !src->known || hip_callback_fence)
		return false;
	/* Host-to-host copies are synchronous even when asked to be async (hip-tests
	 * MemcpyHPinnedtoHPinnedSyncBehavior: clr copies them on the CPU at once). */
	if (!dst->device_local && !src->device_local)
		return false;
	return async || (dst->device_local && src->device_local);
}

/* Hand [in] run, with a malloc'd copy of its [in] size-byte record [in] rec, to the callback
 * worker of [in] s when the stream still has work in flight. Returns true when it did (the work
 * will happen in stream order). */
static bool defer_to_worker(struct hip_stream *s, void (*run)(void *), const void *rec, size_t size)
{
	hipStream_t h;

	if (!stream_handle(s, &h) || !stream_busy(s))
		return false;
	void *c = malloc(size);
	if (!c)
		return false;
	memcpy(c, rec, size);
	if (hipLaunchHostFunc(h, run, c) != hipSuccess) {
		free(c);
		return false; /* the caller does the work synchronously instead */
	}
	return true;
}

/* Hand the copy to the stream's callback worker when the stream still has work in flight.
 * Returns true when it did (the copy will happen in stream order). */
static bool copy_defer(struct hip_stream *s, void *dst, size_t dpitch, const void *src,
		       size_t spitch, size_t width, size_t height)
{
	struct copy_later c = {s, dst, src, dpitch, spitch, width, height};
	return defer_to_worker(s, copy_later_run, &c, sizeof(c));
}

/* The engine part of a copy whose dependencies are met: an SDMA transfer on the engine of the
 * GPU owning device memory (the destination's first), else [in] fallback's (the stream's). [out] out: the fence of the transfer, or
 * NULL when it already completed (staged copies through pageable memory). 0 or -errno. */
static int copy_engine(struct hip_device *fallback, const struct hip_span *sd,
		       const struct hip_span *ss, void *dst, const void *src, size_t size,
		       struct hip_fence **out)
{
	struct hip_device *e = sd->device_local && sd->device ? sd->device
			       : ss->device_local && ss->device ? ss->device : fallback;
	int err = hip_device_open(e);
	if (!err)
		err = span_reach(e, sd, dst);
	if (!err)
		err = span_reach(e, ss, src);
	if (err)
		return err;

	*out = NULL;
	pthread_mutex_lock(&e->sdma_lock);
	err = sdma_ready(e);
	if (!err && (!sd->gpu_mapped || !ss->gpu_mapped)) {
		err = sdma_copy_staged(e, sd, ss, size);
	} else if (!err) {
		struct hip_fence *f;
		err = hip_fence_create(e, &f);
		if (!err) {
			err = sdma_copy_va(e, sd->gpu_va, ss->gpu_va, size, f);
			if (err)
				hip_fence_put(f);
			else
				*out = f;
		}
	}
	pthread_mutex_unlock(&e->sdma_lock);
	return err;
}

/* Tell the recorder (activity.h) about a copy or fill of [in] bytes on [in] s that started at
 * [in] t0, by the CPU when [in] cpu, else by SDMA: done now when [in] f is NULL, else when f
 * completes. */
static void note_transfer(const struct hip_activity_ops *act, const struct hip_stream *s,
			  const struct hip_span *sd, const struct hip_span *ss, const void *dst,
			  const void *src, size_t bytes, uint64_t t0, struct hip_fence *f, bool cpu)
{
	struct hip_device *e = sd->device_local && sd->device ? sd->device
			       : ss && ss->device_local && ss->device ? ss->device : s->device;
	struct hip_activity_transfer t = {
		.fill = ss == NULL,
		.engine = cpu ? HIP_ACTIVITY_ENGINE_CPU : HIP_ACTIVITY_ENGINE_SDMA,
		.device = cpu ? s->device : e,
		.stream = s,
		.dst = dst,
		.src = src,
		.dst_device = sd->device_local,
		.src_device = ss && ss->device_local,
		.bytes = bytes,
		.begin_ns = t0,
		.end_ns = f ? 0 : hip_activity_now(),
		.fence = f,
	};
	act->transfer(&t);
}

/* The engine part of a copy whose dependencies are met: the CPU, or an SDMA transfer ([out] out
 * as copy_engine). Reported to a recorder when one listens. */
static int copy_now(struct hip_stream *s, const struct hip_span *sd, const struct hip_span *ss,
		    void *dst, const void *src, size_t size, struct hip_fence **out)
{
	const struct hip_activity_ops *act = hip_activity();
	uint64_t t0 = act ? hip_activity_now() : 0;
	bool cpu = copy_by_cpu(sd, ss, size);
	int err = 0;

	*out = NULL;
	if (cpu)
		memmove(sd->ptr, ss->ptr, size);
	else
		err = copy_engine(s->device, sd, ss, dst, src, size, out);
	if (__builtin_expect(act != NULL, 0) && !err)
		note_transfer(act, s, sd, ss, dst, src, size, t0, *out, cpu);
	return err;
}

/* One row of a deferred copy, run on the stream's callback worker once the work before it
 * completed. It does not go through the stream (no hip_stream_begin): a thread blocked in a
 * synchronous call on the same stream holds the stream's lock while it waits for this very
 * callback. */
static int copy_row_now(struct hip_stream *s, void *dst, const void *src, size_t size)
{
	struct hip_span sd, ss;
	struct hip_fence *f = NULL;
	int err = copy_spans(dst, size, src, size, &sd, &ss);

	if (err)
		return err;
	err = copy_now(s, &sd, &ss, dst, src, size, &f);
	if (!err && f)
		err = hip_fence_wait(f, hip_device_blocking(s->device));
	hip_fence_put(f);
	return err;
}

/* The end of every copy or fill that went through hip_stream_begin, given [in] err, the outcome
 * of its dependency wait and engine part, and [in] f, the engine's fence (NULL when the CPU did the
 * work, when it already completed, and whenever err is set): a synchronous call waits for f; then
 * f becomes the stream's tail, or on any error the operation is taken off the stream. */
static int stream_op_finish(struct hip_stream *s, struct hip_stream_deps *deps,
			    struct hip_fence *f, int err, bool async)
{
	if (!err && !async && f) {
		err = hip_fence_wait(f, hip_device_blocking(s->device));
		if (err)
			hip_fence_put(f);
	}
	if (err) {
		hip_stream_abort(s, deps);
		return err;
	}
	hip_stream_end(s, deps, f, false);
	return 0;
}

int hip_copy(struct hip_stream *s, void *dst, const void *src, size_t size, bool async)
{
	struct hip_span sd, ss;
	struct hip_stream_deps deps;
	struct hip_fence *f = NULL;
	int err;

	if (size == 0)
		return 0;
	err = copy_spans(dst, size, src, size, &sd, &ss);
	if (!err)
		err = vmm_access_check(s, &sd, dst, true);
	if (!err)
		err = vmm_access_check(s, &ss, src, false);
	if (err)
		return err;
	if (copy_may_defer(&sd, &ss, async)) {
		if (copy_defer(s, dst, size, src, size, size, 1))
			return 0;
		async = true; /* nothing in flight: an engine copy need not be waited for */
	}

	hip_stream_begin(s, &deps);
	err = hip_stream_deps_wait(s, &deps);
	if (!err)
		err = copy_now(s, &sd, &ss, dst, src, size, &f);
	return stream_op_finish(s, &deps, f, err, async);
}

/* 2D: row by row on the CPU when both sides allow it, else one engine copy per row. Row copies
 * are issued through hip_copy in order, so they stay ordered on the stream. */
int hip_copy_2d(struct hip_stream *s, void *dst, size_t dpitch, const void *src, size_t spitch,
		size_t width, size_t height, bool async)
{
	if (width == 0 || height == 0)
		return 0;
	if (width > dpitch || width > spitch)
		return -EINVAL;
	if (dpitch == width && spitch == width)
		return hip_copy(s, dst, src, width * height, async);

	struct hip_span sd, ss;
	size_t dlen = dpitch * (height - 1) + width, slen = spitch * (height - 1) + width;
	int err = copy_spans(dst, dlen, src, slen, &sd, &ss);
	if (err)
		return err;
	if (copy_may_defer(&sd, &ss, async)) {
		if (copy_defer(s, dst, dpitch, src, spitch, width, height))
			return 0;
		async = true;
	}
	if (copy_by_cpu(&sd, &ss, width * height)) {
		struct hip_stream_deps deps;
		hip_stream_begin(s, &deps);
		err = hip_stream_deps_wait(s, &deps);
		const struct hip_activity_ops *act = hip_activity();
		uint64_t t0 = act ? hip_activity_now() : 0;
		for (size_t y = 0; y < height && !err; y++)
			memmove((char *)sd.ptr + y * dpitch, (const char *)ss.ptr + y * spitch, width);
		if (act && !err)
			note_transfer(act, s, &sd, &ss, dst, src, width * height, t0, NULL, true);
		return stream_op_finish(s, &deps, NULL, err, false);
	}
	for (size_t y = 0; y < height && !err; y++)
		err = hip_copy(s, (char *)dst + y * dpitch, (const char *)src + y * spitch, width,
			       async);
	return err;
}

/* ---- fills ------------------------------------------------------------------------------------- */

/* The byte at offset `off` from the start of a fill of `esize`-byte elements of `value`
 * (little-endian, as the GPU stores them). */
static uint8_t fill_byte(uint32_t value, size_t esize, size_t off)
{
	return (uint8_t)(value >> (8 * (off % esize)));
}

static void cpu_fill(void *dst, uint32_t value, size_t esize, size_t count)
{
	if (esize == 1) {
		memset(dst, (int)(value & 0xff), count);
		return;
	}
	if (esize == 2) {
		uint16_t v = (uint16_t)value;
		for (size_t i = 0; i < count; i++)
			memcpy((char *)dst + 2 * i, &v, 2);
		return;
	}
	for (size_t i = 0; i < count; i++)
		memcpy((char *)dst + 4 * i, &value, 4);
}

/* Write `n` pattern bytes (starting `phase` bytes into the fill) at GPU address va through the
 * staging buffer: the unaligned edges of an SDMA fill. sdma_lock held. */
static int sdma_fill_edge(struct hip_device *d, uint64_t va, uint32_t value, size_t esize,
			  size_t phase, size_t n)
{
	struct hip_fence *f;
	for (size_t i = 0; i < n; i++)
		((uint8_t *)d->staging)[i] = fill_byte(value, esize, phase + i);
	int err = hip_fence_create(d, &f);
	if (err)
		return err;
	err = sdma_copy_va(d, va, mem_gpu_va(d->staging), n, f);
	if (!err)
		err = hip_fence_wait(f, hip_device_blocking(d));
	hip_fence_put(f);
	return err;
}

/* SDMA fill: CONST_FILL on the 4-byte aligned middle, staged copies for the edges. Returns the
 * fence of the middle fill in *out (NULL if none). sdma_lock held. */
static int sdma_fill(struct hip_device *d, const struct hip_span *sp, uint32_t value, size_t esize,
		     size_t size, struct hip_fence **out)
{
	uint64_t va = sp->gpu_va;
	size_t head = (size_t)((4 - (va & 3)) & 3);
	if (head > size)
		head = size;
	size_t body = (size - head) & ~(size_t)3;
	size_t tail = size - head - body;
	int err = 0;

	*out = NULL;
	if (head)
		err = sdma_fill_edge(d, va, value, esize, 0, head);
	if (!err && tail)
		err = sdma_fill_edge(d, va + head + body, value, esize, head + body, tail);
	if (!err && body) {
		uint32_t pattern = 0;
		for (size_t i = 0; i < 4; i++)
			pattern |= (uint32_t)fill_byte(value, esize, head + i) << (8 * i);
		err = hip_fence_create(d, out);
		if (!err)
			err = sdma_fill32(d->sdma, va + head, pattern, body, (*out)->sig);
		if (err) {
			hip_fence_put(*out);
			*out = NULL;
		}
	}
	return err;
}

/* The engine part of a fill whose dependencies are met (CPU for host-visible memory within
 * FILL_CPU_MAX of VRAM, else SDMA). [out] out: the fence of an engine fill, NULL when done. */
static bool fill_by_cpu(const struct hip_span *sp, size_t size)
{
	return sp->host_visible && (!sp->device_local || size <= FILL_CPU_MAX);
}

static int fill_engine(struct hip_device *fallback, const struct hip_span *sp, uint32_t value,
		       size_t esize, size_t count, struct hip_fence **out)
{
	size_t size = esize * count;

	*out = NULL;
	if (fill_by_cpu(sp, size)) {
		cpu_fill(sp->ptr, value, esize, count);
		return 0;
	}
	if (!sp->gpu_mapped)
		return -EINVAL;
	struct hip_device *e = sp->device ? sp->device : fallback;
	int err = hip_device_open(e);
	if (err)
		return err;
	pthread_mutex_lock(&e->sdma_lock);
	err = sdma_ready(e);
	if (!err)
		err = sdma_fill(e, sp, value, esize, size, out);
	pthread_mutex_unlock(&e->sdma_lock);
	return err;
}

/* fill_engine on [in] s's device, reported to a recorder when one listens. */
static int fill_now(struct hip_stream *s, const struct hip_span *sp, void *dst, uint32_t value,
		    size_t esize, size_t count, struct hip_fence **out)
{
	const struct hip_activity_ops *act = hip_activity();
	uint64_t t0 = act ? hip_activity_now() : 0;
	int err = fill_engine(s->device, sp, value, esize, count, out);
	if (__builtin_expect(act != NULL, 0) && !err)
		note_transfer(act, s, sp, NULL, dst, NULL, esize * count, t0, *out,
			      fill_by_cpu(sp, esize * count));
	return err;
}

/* A fill handed to the stream's callback worker (as deferred copies are, see copy_later): a box
 * of `depth` slices `slice` bytes apart, each `height` rows `pitch` bytes apart, each row `count`
 * elements; a linear fill is one row. */
struct fill_later {
	struct hip_stream *s;
	void *dst;
	uint32_t value;
	size_t esize, count;
	size_t pitch, height, slice, depth;
};

static void fill_later_run(void *arg)
{
	struct fill_later *c = arg;
	int err = 0;

	/* Checked when enqueued; an error here has no caller left to report to. */
	for (size_t z = 0; z < c->depth && !err; z++)
		for (size_t y = 0; y < c->height && !err; y++) {
			char *row = (char *)c->dst + z * c->slice + y * c->pitch;
			struct hip_span sp;
			struct hip_fence *f = NULL;
			err = hip_span_of(row, c->esize * c->count, &sp);
			if (!err)
				err = fill_now(c->s, &sp, row, c->value, c->esize, c->count, &f);
			if (!err && f)
				err = hip_fence_wait(f, hip_device_blocking(c->s->device));
			hip_fence_put(f);
		}
	free(c);
}

/* An async fill, or any fill of device memory (clr and CUDA never make the host wait for a
 * hipMemset of device memory; hip-tests hipMemsetSync), does not block while the stream is
 * busy. True when the fill (the whole box c describes) was handed to the callback worker. */
static bool fill_defer_box(const struct hip_span *sp, const struct fill_later *box, bool async)
{
	if (!sp->known || hip_callback_fence || !(async || sp->device_local))
		return false;
	return defer_to_worker(box->s, fill_later_run, box, sizeof(*box));
}

int hip_fill(struct hip_stream *s, void *dst, uint32_t value, size_t esize, size_t count,
	     bool async)
{
	struct hip_span sp;
	struct hip_stream_deps deps;
	struct hip_fence *f = NULL;
	size_t size = esize * count;
	int err;

	if (count == 0)
		return 0;
	if (count > SIZE_MAX / esize)
		return -EINVAL;
	err = hip_span_of(dst, size, &sp);
	if (!err)
		err = vmm_access_check(s, &sp, dst, true);
	if (err)
		return err;
	if (!sp.host_visible && !sp.gpu_mapped)
		return -EINVAL;
	struct fill_later box = {s, dst, value, esize, count, 0, 1, 0, 1};
	if (fill_defer_box(&sp, &box, async))
		return 0;
	if (sp.known && sp.device_local && !hip_callback_fence)
		async = true; /* nothing in flight: a device fill need not be waited for */

	hip_stream_begin(s, &deps);
	err = hip_stream_deps_wait(s, &deps);
	if (!err)
		err = fill_now(s, &sp, dst, value, esize, count, &f);
	return stream_op_finish(s, &deps, f, err, async);
}

int hip_fill_box(struct hip_stream *s, void *dst, uint32_t value, size_t esize, size_t count,
		 size_t pitch, size_t height, size_t slice, size_t depth, bool async)
{
	struct hip_span sp;

	if (count == 0 || height == 0 || depth == 0)
		return 0;
	if (count > SIZE_MAX / esize)
		return -EINVAL;
	/* The caller checked the box lies in one allocation; its first row tells the memory kind. */
	int err = hip_span_of(dst, esize * count, &sp);
	if (!err)
		err = vmm_access_check(s, &sp, dst, true);
	if (err)
		return err;
	struct fill_later box = {s, dst, value, esize, count, pitch, height, slice, depth};
	if (fill_defer_box(&sp, &box, async))
		return 0;
	for (size_t z = 0; z < depth && !err; z++)
		for (size_t y = 0; y < height && !err; y++)
			err = hip_fill(s, (char *)dst + z * slice + y * pitch, value, esize, count,
				       async);
	return err;
}
