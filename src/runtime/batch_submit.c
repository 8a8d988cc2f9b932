/* Prepared batches: work built once in host memory (AQL packets on a queue of the caller's, such
 * as a graph's own ring) and published in stream order by one call.
 *
 * The batch runs on its own queue, not the stream's: a stream's ring is small, and writing a
 * thousand packets into it would make the launching thread wait for the GPU to free slots. The
 * batch joins the stream as any other piece of work does: a barrier-AND packet at its head waits
 * for what the stream's next work must follow (its tail, the null stream, event waits), and the
 * fence its last packet completes becomes the stream's tail.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "batch_submit.h"
#include "../queues/aql.h"

/* Drop the references whose barrier packets the CP has consumed (a prefix: packets run in
 * order). */
static void holds_reap(struct hip_batch_holds *h, struct aql_queue *q)
{
	unsigned done = 0;
	while (done < h->n && aql_packet_consumed(q, h->v[done].packet))
		hip_fence_put(h->v[done++].f);
	if (!done)
		return;
	h->n -= done;
	for (unsigned i = 0; i < h->n; i++)
		h->v[i] = h->v[i + done];
}

void hip_batch_holds_release(struct hip_batch_holds *h)
{
	for (unsigned i = 0; i < h->n; i++)
		hip_fence_put(h->v[i].f);
	free(h->v);
	*h = (struct hip_batch_holds){0};
}

/* Keep [in] f (a reference is taken) until the CP consumed packet [in] packet. Without memory to
 * remember it, the reference is kept forever: a leak, never a recycled signal under a barrier. */
static void holds_add(struct hip_batch_holds *h, struct hip_fence *f, uint64_t packet)
{
	if (h->n == h->cap) {
		unsigned cap = h->cap ? 2 * h->cap : 16;
		struct hip_batch_hold *v = realloc(h->v, cap * sizeof(*v));
		if (!v) {
			hip_fence_get(f);
			return;
		}
		h->v = v;
		h->cap = cap;
	}
	h->v[h->n++] = (struct hip_batch_hold){.packet = packet, .f = hip_fence_get(f)};
}

/* The head: barrier-AND packets, five dependencies each, written just before the batch in
 * [in] b->packets (b->head slots are free there). Returns how many were written; the fences
 * they name are listed in [out] named. */
static unsigned head_build(const struct hip_batch *b, struct hip_stream_deps *deps,
			   struct hip_fence **named, unsigned *nnamed)
{
	struct hip_fence *all[HIP_STREAM_MAX_DEPS + 1];
	unsigned n = 0;
	for (int i = 0; i < deps->n; i++)
		if (!hip_fence_done(deps->f[i]))
			all[n++] = deps->f[i];
	if (deps->own && !hip_fence_done(deps->own))
		all[n++] = deps->own;
	unsigned npk = (n + 4) / 5;
	uint8_t *first = b->packets - (size_t)npk * 64;
	for (unsigned p = 0; p < npk; p++) {
		uint64_t va[5] = {0};
		for (unsigned k = 0; k < 5 && p * 5 + k < n; k++)
			va[k] = all[p * 5 + k]->sig_va;
		aql_packet_barrier_and(first + (size_t)p * 64, va, 0);
	}
	for (unsigned i = 0; i < n; i++)
		named[i] = all[i];
	*nnamed = n;
	return npk;
}

int hip_stream_submit_batch(struct hip_stream *s, struct hip_batch *b)
{
	struct hip_stream_deps deps;
	struct hip_fence *named[HIP_STREAM_MAX_DEPS + 1], *f;
	unsigned nnamed;

	if (!b->n || b->head < HIP_BATCH_HEAD)
		return -EINVAL;
	int err = hip_fault_known();
	if (!err)
		err = aql_queue_error_known(b->queue);
	if (!err)
		err = hip_fence_create(s->device, &f);
	if (err)
		return err;
	f->queue = b->queue;
	hip_stream_begin(s, &deps);
	holds_reap(&b->holds, b->queue);
	unsigned npk = head_build(b, &deps, named, &nnamed);
	/* The last packet completes the fence: every packet has the barrier bit, so it runs after
	 * all of the batch. Patched per submission (the caller serialises submissions of a batch). */
	uint8_t *last = b->packets + (size_t)(b->n - 1) * 64;
	uint64_t sig = f->sig_va;
	memcpy(last + 56, &sig, sizeof(sig));
	uint64_t last_id;
	err = aql_submit_packets(b->queue, b->packets - (size_t)npk * 64, npk + b->n, &last_id);
	if (err) {
		hip_stream_abort(s, &deps);
		hip_fence_signal(f); /* never submitted: nothing will complete it */
		hip_fence_put(f);
		return hip_fault_note(err);
	}
	f->timestamped = true;
	for (unsigned i = 0; i < nnamed; i++)
		holds_add(&b->holds, named[i], last_id - b->n - (npk - 1 - i / 5));
	hip_fence_put(b->last);
	b->last = hip_fence_get(f);
	hip_stream_end(s, &deps, f, false);
	return 0;
}
