/* src/queues: SDMA queues for host<->device copies and fills.
 *
 * A ring of SDMA packets (formats of the kernel's/ROCr's sdma_pkt_open.h for SDMA 4.x, gfx9),
 * a read pointer the engine writes and a write pointer plus doorbell user space writes
 * (KFD_IOC_QUEUE_TYPE_SDMA). Completion: a FENCE packet writes the signal's value and a TRAP
 * packet raises the signal's event. Addresses are GPU VAs.
 *
 * One producer at a time: submissions take the queue's mutex (SDMA commands are large and rare
 * next to dispatches; the lock is never held across a wait).
 */
#ifndef HIPKFD_SDMA_H
#define HIPKFD_SDMA_H

#include <stddef.h>
#include <stdint.h>

struct kfd_gpu;
struct signal;
struct sdma_queue;

/* Create an SDMA queue on [in] gpu. [out] out. Returns 0 or -errno. */
int sdma_queue_create(struct kfd_gpu *gpu, struct sdma_queue **out);

/* Wait for the queue to drain, DESTROY_QUEUE, free its memory. NULL is a no-op. */
int sdma_queue_destroy(struct sdma_queue *q);

/* Copy [in] size bytes from [in] src_va to [in] dst_va (split into COPY_LINEAR packets of at most
 * the engine's limit). [in] completion: may be NULL; if set, the engine atomically decrements its
 * value by one when the copy is done (and raises its event). Returns 0 or -errno. */
int sdma_copy(struct sdma_queue *q, uint64_t dst_va, uint64_t src_va, size_t size,
              struct signal *completion);

/* Fill [in] size bytes (a multiple of 4) at [in] dst_va (4-byte aligned) with [in] pattern
 * (CONST_FILL). [in] completion as for sdma_copy(). Returns 0 or -errno. */
int sdma_fill32(struct sdma_queue *q, uint64_t dst_va, uint32_t pattern, size_t size,
                struct signal *completion);

/* Wait until the engine has consumed everything submitted. Returns 0, -EFAULT after a GPU
 * fault, or -ETIMEDOUT when the engine made no progress for 10 s. */
int sdma_queue_wait_idle(struct sdma_queue *q);

#endif
