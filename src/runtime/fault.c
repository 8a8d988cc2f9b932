/* The failed context: what every wait asks when the work it waits for makes no progress.
 *
 * A queue error (a trap, an illegal instruction, a memory violation, a hang the driver reset)
 * stops the queue it happened on, and every queue whose barrier packets wait for that queue's
 * signals stops with it: a wait on healthy work that depends on the faulted work would never
 * end. So a wait that makes no progress asks hip_fault_poll(), which looks at every queue and
 * at the process's exception events (queues/fault.h) and, on the first failure, sets the sticky
 * error (error.h): from then on every wait of the process returns it at once, whatever stream
 * its work was on, as CUDA fails the whole context. hipDeviceReset ends it
 * (hip_device_fault_reset).
 */
#include <errno.h>

#include "../queues/aql.h"
#include "../queues/fault.h"
#include "../queues/sdma.h"
#include "error.h"
#include "internal.h"
#include "stream_lock.h"

/* The errno a wait returns for the sticky error: what hip_gpu_error maps back to it. */
static int sticky_errno(hipError_t e)
{
	return e == hipErrorIllegalAddress ? -EFAULT : -EIO;
}

int hip_fault_note(int err)
{
	if (err == -EFAULT || err == -EIO)
		hip_gpu_error(err);
	return err;
}

int hip_fault_known(void)
{
	hipError_t sticky = hip_sticky_error_get();
	if (sticky != hipSuccess)
		return sticky_errno(sticky);
	return hip_fault_note(queues_fault_known());
}

int hip_fault_poll(void)
{
	int err = hip_fault_known();
	return err ? err : hip_fault_note(queues_fault_poll());
}

/* The i-th stream of [in] d (NULL past the end). The list only changes when a stream is created
 * or destroyed, which a reset does not race with (hipDeviceReset's contract). */
static struct hip_stream *nth_stream(struct hip_device *d, int i)
{
	pthread_mutex_lock(&d->lock);
	struct hip_stream *s = d->streams;
	while (s && i--)
		s = s->next;
	pthread_mutex_unlock(&d->lock);
	return s;
}

void hip_device_fault_reset(struct hip_device *d)
{
	if (!hip_fault_known())
		return;
	/* The streams hipDeviceReset keeps (the null stream, per-thread streams) start over on new
	 * queues: their old ones may be stopped, or waiting for one that is. */
	struct hip_stream *s;
	for (int i = 0; (s = nth_stream(d, i)); i++)
		hip_stream_fault_reset(s);
	/* An SDMA engine that faulted processes nothing more: a new queue replaces it. */
	pthread_mutex_lock(&d->sdma_lock);
	if (d->sdma)
		sdma_queue_destroy(d->sdma);
	d->sdma = NULL;
	pthread_mutex_unlock(&d->sdma_lock);
	queues_fault_forget();
	/* Queues owned above the runtime (graph rings) see the new epoch and start over too. */
	atomic_fetch_add_explicit(&d->fault_epoch, 1, memory_order_release);
}
