/* src/queues: the process's GPU fault state.
 *
 * A queue error (a trap, an illegal instruction, a memory violation) stops the queue it happened
 * on, and with it every queue whose barrier packets wait for that queue's signals; only the
 * faulted queue's error signal (queue_inactive_signal) says why. A page fault of an SDMA engine,
 * or a GPU reset after a hang, shows only as the process's exception events. A wait that makes
 * no progress asks queues_fault_poll(), which looks at all of them and latches the first
 * failure it finds for the whole process, as CUDA fails the whole context. */
#ifndef HIPKFD_QUEUES_FAULT_H
#define HIPKFD_QUEUES_FAULT_H

/* 0 while no GPU work of the process failed; else -EFAULT (a memory violation or page fault) or
 * -EIO (any other queue error, a hardware exception). Looks at the queues and the events at most
 * once per millisecond (process-wide), so pollers in tight loops cost a clock read. */
int queues_fault_poll(void);

/* The latched failure only (one load): what some earlier poll found. */
int queues_fault_known(void);

/* The error of every queue alive now (aql.c): the first nonzero queue_inactive_signal, as
 * queues_fault_poll maps it. Takes the queue list's lock; no rate limit. */
int aql_queues_error(void);
/* Stop looking at the queues that stopped with an error: after a reset their owners (a graph
 * kept across it) replace them when next used, and the process poll must not report the old
 * failure again (queues_fault_forget). */
void aql_queues_forget_stopped(void);

/* Forget the failure (hipDeviceReset, after the failed queues were abandoned): the latch and the
 * exception events start over. */
void queues_fault_forget(void);

#endif
