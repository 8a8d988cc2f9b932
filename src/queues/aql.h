/* src/queues: AQL compute queues.
 *
 * Built by hand as ROCr builds them (amd_aql_queue.cpp): a ring of 64-byte AQL packets (a power of
 * two), an amd_queue_t in front of it (read/write dispatch ids, queue properties, scratch fields),
 * the EOP buffer and the CWSR save area sized as the kernel checks them (kfd_queue.c), then
 * CREATE_QUEUE and the doorbell page of the kfd fd.
 *
 * Submission is multi-producer: a slot is claimed by an atomic fetch-add of the write dispatch
 * id, so concurrent submitters never take a lock. Each packet slot owns a fixed kernarg slot
 * (AQL_KERNARG_SLOT_SIZE bytes) that is reusable exactly when the packet slot is.
 */
#ifndef HIPKFD_AQL_H
#define HIPKFD_AQL_H

#include <stdbool.h>
#include <stdint.h>

struct kfd_gpu;
struct signal;
struct aql_queue;

/* Bytes of kernarg memory tied to each packet slot (the explicit + hidden arguments of one
 * dispatch). A dispatch with a larger kernarg block gets -E2BIG. */
#define AQL_KERNARG_SLOT_SIZE 4096u

/* A kernel dispatch. grid is in work-items, as the AQL packet wants. */
struct aql_dispatch {
  uint64_t kernel_object;       /* GPU VA of the 64-byte kernel descriptor */
  const void *kernarg;          /* host bytes copied into the slot's kernarg memory (may be NULL) */
  uint32_t kernarg_size;
  uint32_t kernarg_align;       /* power of two <= 64; 0 means 16 */
  uint32_t grid[3];
  uint16_t block[3];
  uint16_t dims;                /* 1..3 */
  uint32_t group_segment_size;  /* static + dynamic LDS bytes */
  uint32_t private_segment_size; /* scratch bytes per work-item */
  bool checked;                 /* the caller validated every field above as the submit
                                 * functions would (-EINVAL/-E2BIG cases): not checked again */
};

/* Create a queue of [in] packets slots (a power of two, 64..2^20; rounded up) at [in] priority
 * (-1 low, 0 normal, 1 high; mapped to KFD 0..15). [out] out. Returns 0 or -errno. */
int aql_queue_create(struct kfd_gpu *gpu, uint32_t packets, int priority, struct aql_queue **out);

/* aql_queue_create for a queue that only takes packets built by the caller (aql_submit_packets):
 * no kernarg slots are allocated, so aql_dispatch_reserve/aql_submit_dispatch must not be used
 * on it. For rings of many slots (a prepared graph's), where AQL_KERNARG_SLOT_SIZE per slot would
 * be megabytes of pinned memory nobody reads. */
int aql_queue_create_bare(struct kfd_gpu *gpu, uint32_t packets, int priority,
                          struct aql_queue **out);

/* Wait for the queue to drain (non-blocking spin), DESTROY_QUEUE, free its memory. NULL is a
 * no-op. Returns 0 or -errno. */
int aql_queue_destroy(struct aql_queue *q);

/* Submit a kernel dispatch: claim a slot, copy the kernarg bytes into the slot's kernarg memory,
 * write the packet body, release-store the header, ring the doorbell. [in] completion: may be
 * NULL. [in] barrier: set the packet's barrier bit (wait for all previous packets first).
 * [out] packet_id: the write index used (may be NULL). Waits for a free slot if the ring is full.
 * Returns 0 or -errno (-EINVAL bad dims/sizes, -E2BIG kernargs too large, -EIO/-EFAULT queue in
 * error). */
int aql_submit_dispatch(struct aql_queue *q, const struct aql_dispatch *d, struct signal *completion,
                        bool barrier, uint64_t *packet_id);

/* Two-step submission for callers that write the kernarg block in place (no copy): reserve
 * claims a slot after checking [in] d (its kernarg/kernarg_size fields are ignored; scratch is
 * set up as aql_submit_dispatch does) and [out] slot says where its kernarg memory is
 * (AQL_KERNARG_SLOT_SIZE bytes, 4 KiB aligned). The CP stops at the unpublished slot, so the
 * caller must end with exactly one aql_dispatch_commit() or aql_slot_cancel() of it, promptly
 * and without waiting on the GPU. Returns 0 or -errno as aql_submit_dispatch. */
struct aql_slot {
  uint64_t id;
  void *packet;
  void *kernarg;
  uint64_t queue_va;  /* aql_queue_va() of the queue, for a kernel's hidden queue_ptr */
};
int aql_dispatch_reserve(struct aql_queue *q, const struct aql_dispatch *d, struct aql_slot *slot);

/* Write the packet body of [in] d into [in] slot and publish it (header, then doorbell).
 * [in] completion_va: signal_gpu_va() of the completion signal, or 0 for none; [in] barrier as
 * aql_submit_dispatch. */
void aql_dispatch_commit(struct aql_queue *q, const struct aql_slot *slot,
                         const struct aql_dispatch *d, uint64_t completion_va, bool barrier);

/* Publish a reserved slot as an empty barrier-AND packet (no dependency, no signal), for a
 * caller that cannot complete the dispatch after reserving. */
void aql_slot_cancel(struct aql_queue *q, const struct aql_slot *slot);

/* Submit barrier-AND packets waiting for all of [in] deps ([in] ndeps >= 0; NULL entries are
 * skipped; more than 5 deps become a chain of packets). [in] completion: may be NULL.
 * [out] packet_id of the last packet. Returns 0 or -errno. */
int aql_submit_barrier_and(struct aql_queue *q, struct signal *const deps[], int ndeps,
                           struct signal *completion, uint64_t *packet_id);

/* ---- prepared packets: built once in host memory, published later in bulk ---- */

/* What a dispatch needs from [in] q before its packets go out: scratch for its private segment,
 * and the queue's known error state. 0 or -errno as aql_submit_dispatch. */
int aql_dispatch_check(struct aql_queue *q, const struct aql_dispatch *d);

/* Write into [out] out (64 bytes of host memory, not a ring slot) the whole kernel dispatch
 * packet of [in] d, header included, its kernarg block at [in] kernarg_va. */
void aql_packet_dispatch(void *out, const struct aql_dispatch *d, uint64_t kernarg_va,
                         uint64_t completion_va, bool barrier);

/* The same for a barrier-AND packet (barrier bit set) on [in] deps (signal VAs, 0 = none). */
void aql_packet_barrier_and(void *out, const uint64_t deps[5], uint64_t completion_va);

/* Publish [in] n (1..ring size) prepared packets ([in] packets: n * 64 bytes, headers valid) in
 * consecutive slots of [in] q: bodies first, each header release-stored after its body, one
 * doorbell. Waits for free slots only when the ring lacks n of them. [out] last_id: the index
 * of the last packet (may be NULL). 0 or -errno (the queue is in error: nothing will run). */
int aql_submit_packets(struct aql_queue *q, const void *packets, uint32_t n, uint64_t *last_id);

/* Wait until every packet submitted so far has been consumed by the CP and completed.
 * [in] blocking: sleep on the queue's internal signal rather than spin. Returns 0 or -errno. */
int aql_queue_wait_idle(struct aql_queue *q, bool blocking);

/* Free packet slots right now (claimed slots count as used). A producer may take them first. */
uint32_t aql_queue_space(const struct aql_queue *q);

/* True when the CP has consumed packet [in] id (its read index is past it): the CP reads nothing
 * of that packet, such as its dependency signals, any more. */
bool aql_packet_consumed(const struct aql_queue *q, uint64_t id);

/* True when the CP's read index has caught up with the write index (acquire load, no syscall). */
bool aql_queue_idle(const struct aql_queue *q);

/* 0 when healthy; -EFAULT after a memory fault on this queue's GPU, -EIO after any other queue
 * error (the queue_inactive_signal's value, as ROCr decodes it). */
int aql_queue_error(const struct aql_queue *q);

/* aql_queue_error() without asking the driver about memory faults: the queue's error signal and
 * a fault some earlier poll (a wait, aql_queue_error) already saw. One or two loads, for the
 * submission path; waits still poll, so a fault is reported by the next wait at the latest. */
int aql_queue_error_known(const struct aql_queue *q);

/* Stop [in] q for good because the process's GPU state failed (it faulted, or its barriers may
 * wait for a queue that did): DESTROY_QUEUE without draining and free its buffers, but keep the
 * struct, so that waits on fences of its packets still ask aql_queue_error(), which answers the
 * queue's error (or -EIO) from then on. aql_queues_error() no longer looks at it. The caller
 * submits nothing more to it and never destroys it. */
void aql_queue_abandon(struct aql_queue *q);

/* GPU VA of the amd_queue_t (what a kernel's queue_ptr holds). Scratch for dispatches with a
 * private segment is set up on demand by aql_submit_dispatch() (the amd_queue_t scratch fields,
 * as ROCr fills them); growing it waits for the queue to drain. */
uint64_t aql_queue_va(const struct aql_queue *q);

/* Restrict the queue to the CUs whose bits are set in [in] mask ([in] nbits bits, rounded up to
 * a multiple of 32 with zeros). Returns 0 or -errno. */
int aql_queue_set_cu_mask(struct aql_queue *q, const uint32_t *mask, uint32_t nbits);

/* The KFD queue id (for debugging and tests). */
uint32_t aql_queue_id(const struct aql_queue *q);

/* What a queue was doing when it stopped, for the fault report. The CP leaves a failed packet
 * in its slot: the read index stays on it (it releases a slot only after the packet ran). */
struct aql_fault_info {
  int64_t error_code;     /* queue_inactive_signal's value (CP_QERR_* bits), 0 if still running */
  uint64_t dispatch_id;   /* the read index: the packet the CP is (or stopped) at */
  uint64_t write_id;      /* the write index: dispatch_id < write_id means packets are pending */
  uint64_t kernel_object; /* that packet's kernel descriptor if it is a kernel dispatch, else 0 */
  uint32_t queue_id;
};
void aql_queue_fault_info(const struct aql_queue *q, struct aql_fault_info *out);

#endif
