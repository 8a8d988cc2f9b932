/* src/queues/sdma.c: SDMA queues (KFD_IOC_QUEUE_TYPE_SDMA). Packet formats of SDMA 4.x (gfx9),
 * as ROCr's amd_blit_sdma and the kernel's sdma_pkt_open.h define them:
 *   COPY_LINEAR  op 1, sub-op 0: count, parameters, src lo/hi, dst lo/hi       (7 dwords)
 *   CONST_FILL   op 11, fillsize 2 (dword) in bits 30-31: dst lo/hi, data, count (5 dwords)
 *   FENCE        op 5: addr lo/hi, 32-bit data                                   (4 dwords)
 *   TRAP         op 6: interrupt context (the event id)                          (2 dwords)
 *   ATOMIC       op 10, operation in bits 25-31 (47 = add 64): addr, src, cmp, loop (8 dwords)
 * From SDMA 4 on the count fields hold bytes - 1, and the read/write pointers are 64-bit byte
 * offsets that never wrap (ROCr BlitSdma<uint64_t, true, -1>). */
#define _GNU_SOURCE
#include "sdma.h"
#include "fault.h"
#include "queues_internal.h"
#include "memory/mem.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <sched.h>
#include <string.h>
#include <time.h>

#define SDMA_RING_BYTES (256u * 1024u)
#define SDMA_OP_NOP 0u
#define SDMA_OP_COPY 1u
#define SDMA_SUBOP_COPY_LINEAR 0u
#define SDMA_OP_FENCE 5u
#define SDMA_OP_TRAP 6u
#define SDMA_OP_ATOMIC 10u
#define SDMA_OP_CONST_FILL 11u
#define SDMA_ATOMIC_ADD64 47u
#define SDMA_FILL_DWORD 2u
#define SDMA_MAX_LINEAR 0x3fffe0u /* largest single copy/fill ROCr issues */
#define COPY_DW 7u
#define FILL_DW 5u
#define ATOMIC_DW 8u
#define FENCE_DW 4u
#define TRAP_DW 2u

struct sdma_queue {
  struct kfd_gpu *gpu;
  uint32_t *ring;
  uint64_t *wptr_mem;             /* user-written write pointer (bytes), first word of its page */
  uint64_t *rptr_mem;             /* engine-written read pointer (bytes), same page */
  void *ptr_page;
  volatile uint64_t *doorbell;
  uint32_t queue_id;
  pthread_mutex_t lock;           /* protects wptr: one producer at a time */
  uint64_t wptr;                  /* (lock) next byte offset to write, monotonic */
};

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

int sdma_queue_create(struct kfd_gpu *gpu, struct sdma_queue **out)
{
  struct kfd_ioctl_create_queue_args args = {0};
  const unsigned host = MEM_FLAG_COHERENT | MEM_FLAG_NO_SUBALLOC;
  struct sdma_queue *q;
  int err;

  if (!gpu || !out)
    return -EINVAL;
  *out = NULL;
  if (!gpu->node->num_sdma_engines && !gpu->node->num_sdma_xgmi_engines)
    return -ENODEV;
  q = calloc(1, sizeof(*q));
  if (!q)
    return -ENOMEM;
  q->gpu = gpu;
  pthread_mutex_init(&q->lock, NULL);
  event_memory_init(); /* so faults of this engine are recorded; failure only loses that */
  err = event_page_map(gpu);
  if (err) {
    free(q);
    return err;
  }
  err = mem_alloc(gpu, SDMA_RING_BYTES, MEM_HOST_PINNED, host, (void **)&q->ring);
  if (err)
    goto fail;
  /* rptr and wptr each must sit in a BO of exactly one page (kfd_queue.c); one page holds both. */
  err = mem_alloc(gpu, 4096, MEM_HOST_PINNED, host, &q->ptr_page);
  if (err)
    goto fail;
  memset(q->ring, 0, SDMA_RING_BYTES);
  memset(q->ptr_page, 0, 4096);
  q->wptr_mem = (uint64_t *)q->ptr_page;
  q->rptr_mem = (uint64_t *)((char *)q->ptr_page + 64);
  args.ring_base_address = (uint64_t)(uintptr_t)q->ring;
  args.ring_size = SDMA_RING_BYTES;
  args.write_pointer_address = (uint64_t)(uintptr_t)q->wptr_mem;
  args.read_pointer_address = (uint64_t)(uintptr_t)q->rptr_mem;
  args.queue_type = KFD_IOC_QUEUE_TYPE_SDMA;
  args.queue_percentage = KFD_MAX_QUEUE_PERCENTAGE;
  args.queue_priority = 15; /* ROCr's blit queues use the maximum priority */
  err = kfd_create_queue(gpu, &args);
  if (err)
    goto fail;
  q->queue_id = args.queue_id;
  err = kfd_gpu_doorbell(gpu, args.doorbell_offset, &q->doorbell);
  if (err) {
    kfd_destroy_queue(q->queue_id);
    goto fail;
  }
  *out = q;
  return 0;
fail:
  mem_free(q->ptr_page);
  mem_free(q->ring);
  pthread_mutex_destroy(&q->lock);
  free(q);
  return err;
}

static uint64_t sdma_now_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t read_rptr(const struct sdma_queue *q)
{
  return __atomic_load_n(q->rptr_mem, __ATOMIC_ACQUIRE);
}

/* Wait until `bytes` bytes are free in the ring. An engine that stopped on a fault never frees
 * any: then the fault's error. (lock held) */
static int wait_space(struct sdma_queue *q, uint64_t bytes)
{
  for (unsigned spins = 0; q->wptr + bytes - read_rptr(q) > SDMA_RING_BYTES; spins++) {
    cpu_relax();
    if (spins % 4096 == 4095) {
      int err = queues_fault_poll();
      if (err)
        return err;
      sched_yield();
    }
  }
  return 0;
}

/* Reserve `dw` contiguous dwords. A command never straddles the end of the ring: the rest of
 * the ring is padded with one-dword NOPs first, as ROCr does. (lock held) */
static uint32_t *reserve(struct sdma_queue *q, uint32_t dw)
{
  uint64_t bytes = (uint64_t)dw * 4u;
  uint64_t pos = q->wptr % SDMA_RING_BYTES;

  if (pos + bytes > SDMA_RING_BYTES) {
    uint64_t pad = SDMA_RING_BYTES - pos;
    if (wait_space(q, pad))
      return NULL;
    memset((char *)q->ring + pos, 0, pad); /* SDMA_OP_NOP with count 0 is a one-dword no-op */
    q->wptr += pad;
    pos = 0;
  }
  if (wait_space(q, bytes))
    return NULL;
  uint32_t *p = (uint32_t *)((char *)q->ring + pos);
  q->wptr += bytes;
  return p;
}

/* Hand the commands to the engine: the release store of the write pointer orders the packet
 * writes before it; the doorbell (same value) then wakes the engine. (lock held) */
static void commit(struct sdma_queue *q)
{
  __atomic_store_n(q->wptr_mem, q->wptr, __ATOMIC_RELEASE);
  __atomic_store_n(q->doorbell, q->wptr, __ATOMIC_RELEASE);
}

/* The emitters return 0, or the error of a ring that stopped (nothing is written then). */
static int emit_copy(struct sdma_queue *q, uint64_t dst, uint64_t src, uint32_t bytes)
{
  uint32_t *p = reserve(q, COPY_DW);
  if (!p)
    return queues_fault_known();
  p[0] = SDMA_OP_COPY | (SDMA_SUBOP_COPY_LINEAR << 8);
  p[1] = bytes - 1;
  p[2] = 0;
  p[3] = (uint32_t)src;
  p[4] = (uint32_t)(src >> 32);
  p[5] = (uint32_t)dst;
  p[6] = (uint32_t)(dst >> 32);
  return 0;
}

static int emit_fill(struct sdma_queue *q, uint64_t dst, uint32_t pattern, uint32_t bytes)
{
  uint32_t *p = reserve(q, FILL_DW);
  if (!p)
    return queues_fault_known();
  p[0] = SDMA_OP_CONST_FILL | (SDMA_FILL_DWORD << 30);
  p[1] = (uint32_t)dst;
  p[2] = (uint32_t)(dst >> 32);
  p[3] = pattern;
  p[4] = bytes - 1;
  return 0;
}

/* Completion as ROCr signals it from SDMA: an atomic 64-bit add of -1 on the signal value, then
 * for signals with an event the mailbox write and a TRAP carrying the event id. */
static int emit_completion(struct sdma_queue *q, struct signal *s)
{
  uint64_t value_va = signal_gpu_va(s) + offsetof(struct amd_signal, value);
  uint32_t *p = reserve(q, ATOMIC_DW);

  if (!p)
    return queues_fault_known();
  p[0] = SDMA_OP_ATOMIC | (SDMA_ATOMIC_ADD64 << 25);
  p[1] = (uint32_t)value_va;
  p[2] = (uint32_t)(value_va >> 32);
  p[3] = 0xffffffffu; /* -1 */
  p[4] = 0xffffffffu;
  p[5] = 0;
  p[6] = 0;
  p[7] = 0;
  if (!s->event_id)
    return 0;
  p = reserve(q, FENCE_DW);
  if (!p)
    return queues_fault_known();
  p[0] = SDMA_OP_FENCE;
  p[1] = (uint32_t)s->abi->event_mailbox_ptr;
  p[2] = (uint32_t)(s->abi->event_mailbox_ptr >> 32);
  p[3] = s->event_id;
  p = reserve(q, TRAP_DW);
  if (!p)
    return queues_fault_known();
  p[0] = SDMA_OP_TRAP;
  p[1] = s->event_id & 0x0fffffffu;
  return 0;
}

int sdma_copy(struct sdma_queue *q, uint64_t dst_va, uint64_t src_va, size_t size,
              struct signal *completion)
{
  if (!q || !dst_va || !src_va)
    return -EINVAL;
  int err = 0;
  pthread_mutex_lock(&q->lock);
  for (size_t done = 0; done < size && !err;) {
    uint32_t n = size - done > SDMA_MAX_LINEAR ? SDMA_MAX_LINEAR : (uint32_t)(size - done);
    err = emit_copy(q, dst_va + done, src_va + done, n);
    done += n;
  }
  if (completion && !err)
    err = emit_completion(q, completion);
  if (!err)
    commit(q);
  pthread_mutex_unlock(&q->lock);
  return err;
}

int sdma_fill32(struct sdma_queue *q, uint64_t dst_va, uint32_t pattern, size_t size,
                struct signal *completion)
{
  if (!q || !dst_va || (dst_va & 3) || (size & 3))
    return -EINVAL;
  int err = 0;
  pthread_mutex_lock(&q->lock);
  for (size_t done = 0; done < size && !err;) {
    uint32_t n = size - done > SDMA_MAX_LINEAR ? SDMA_MAX_LINEAR : (uint32_t)(size - done);
    err = emit_fill(q, dst_va + done, pattern, n);
    done += n;
  }
  if (completion && !err)
    err = emit_completion(q, completion);
  if (!err)
    commit(q);
  pthread_mutex_unlock(&q->lock);
  return err;
}

int sdma_queue_wait_idle(struct sdma_queue *q)
{
  uint64_t target, last, stalled_since = 0;
  unsigned spins = 0;

  if (!q)
    return -EINVAL;
  pthread_mutex_lock(&q->lock);
  target = q->wptr;
  pthread_mutex_unlock(&q->lock);
  last = read_rptr(q);
  while (last < target) {
    if (++spins % 65536 == 0) {
      if (event_memory_fault_on(q->gpu->gpu_id))
        return -EFAULT;
      /* A dead engine must not hang the caller: give up after 10 s without progress. */
      uint64_t now = sdma_now_ns();
      uint64_t cur = read_rptr(q);
      if (cur != last || !stalled_since)
        stalled_since = now;
      else if (now - stalled_since > 10000000000ull)
        return -ETIMEDOUT;
      last = cur;
    }
    cpu_relax();
    if (spins % 64 == 0)
      sched_yield();
  }
  return 0;
}

int sdma_queue_destroy(struct sdma_queue *q)
{
  int err;

  if (!q)
    return 0;
  sdma_queue_wait_idle(q);
  err = kfd_destroy_queue(q->queue_id);
  mem_free(q->ptr_page);
  mem_free(q->ring);
  pthread_mutex_destroy(&q->lock);
  free(q);
  return err;
}
