/* Fences that pending barrier packets still read.
 *
 * A barrier-AND packet names its dependencies by signal, and the CP may read those signals until
 * it has consumed the packet: possibly long after the fence completed (the host stored 0, or
 * another queue's packet decremented it) and the last API reference to it went away. A fence
 * recycled meanwhile resets its signal to 1 for its next use, and the packet then waits for
 * unrelated work, or forever (seen as a hang of a graph whose host node's fence was reused
 * while the kernels after it still waited for it). So a stream keeps a reference on every fence
 * a barrier of its queue waits for, until the queue's read index passes that packet.
 * All functions: s->lock held.
 */
#include <stdlib.h>

#include "internal.h"
#include "../queues/aql.h"

struct hip_gpu_read {
	uint64_t packet;        /* the barrier packet's id on s->queue */
	struct hip_fence *f;    /* a reference */
};

/* Drop the references whose packets the CP has consumed (a prefix: packets are in order). */
static void reap(struct hip_stream *s)
{
	unsigned done = 0;
	while (done < s->n_gpu_reads && s->queue &&
	       aql_packet_consumed(s->queue, s->gpu_reads[done].packet))
		hip_fence_put(s->gpu_reads[done++].f);
	if (!done)
		return;
	s->n_gpu_reads -= done;
	for (unsigned i = 0; i < s->n_gpu_reads; i++)
		s->gpu_reads[i] = s->gpu_reads[i + done];
}

int hip_stream_gpu_reads_add(struct hip_stream *s, struct hip_fence *const fences[], int n,
			     uint64_t packet)
{
	reap(s);
	if (s->n_gpu_reads + (unsigned)n > s->cap_gpu_reads) {
		unsigned cap = s->cap_gpu_reads ? 2 * s->cap_gpu_reads : 16;
		while (cap < s->n_gpu_reads + (unsigned)n)
			cap *= 2;
		struct hip_gpu_read *r = realloc(s->gpu_reads, cap * sizeof(*r));
		if (!r) {
			/* No memory to remember them: keep the fences forever rather than risk it. */
			for (int i = 0; i < n; i++)
				hip_fence_get(fences[i]);
			return -1;
		}
		s->gpu_reads = r;
		s->cap_gpu_reads = cap;
	}
	for (int i = 0; i < n; i++)
		s->gpu_reads[s->n_gpu_reads++] =
			(struct hip_gpu_read){.packet = packet, .f = hip_fence_get(fences[i])};
	return 0;
}

void hip_stream_gpu_reads_release(struct hip_stream *s)
{
	for (unsigned i = 0; i < s->n_gpu_reads; i++)
		hip_fence_put(s->gpu_reads[i].f);
	s->n_gpu_reads = 0;
}
