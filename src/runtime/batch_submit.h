/* src/runtime: submission of prepared batches of AQL packets in stream order (batch_submit.c). */
#ifndef HIPKFD_RUNTIME_BATCH_SUBMIT_H
#define HIPKFD_RUNTIME_BATCH_SUBMIT_H

#include <stdint.h>

struct aql_queue;
struct hip_fence;
struct hip_stream;

/* Barrier-AND packets a batch's head may need: the stream's deps (HIP_STREAM_MAX_DEPS) and its
 * own tail, five per packet. */
#define HIP_BATCH_HEAD 14u

struct hip_batch_hold {
	uint64_t packet;
	struct hip_fence *f;
};

/* Fences the head packets of earlier submissions still read (see stream_gpu_reads.c for why a
 * reference is kept until the CP consumed the packet). */
struct hip_batch_holds {
	struct hip_batch_hold *v;
	unsigned n, cap;
};

/* A prepared batch. The caller builds `packets` (n prepared packets, each with the barrier bit,
 * preceded in the same allocation by `head` >= HIP_BATCH_HEAD free 64-byte slots) and owns
 * `queue`, a queue no one else submits to, at least HIP_BATCH_HEAD + n slots long. Submissions of
 * one batch must not run concurrently. */
struct hip_batch {
	struct aql_queue *queue;
	uint8_t *packets;
	uint32_t n;
	uint32_t head;
	struct hip_batch_holds holds;
	struct hip_fence *last;   /* a reference to the last submission's fence, or NULL */
};

/* Publish [in] b after everything stream [in] s's next work must follow; the batch's completion
 * becomes the stream's tail. The last packet's completion signal is rewritten. Never waits for
 * the GPU unless the queue holds fewer than HIP_BATCH_HEAD + n free slots (earlier submissions
 * still running). 0 or -errno: the context's sticky fault, or the queue's error. */
int hip_stream_submit_batch(struct hip_stream *s, struct hip_batch *b);

/* Drop every reference of [in] h (the queue drained or was abandoned) and its memory. */
void hip_batch_holds_release(struct hip_batch_holds *h);

#endif
