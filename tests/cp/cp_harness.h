/* Queue harness for the command-processor unit tests: GPU memory placed at GPU VAs unrelated to
 * its CPU address (through the fake page table), AQL and SDMA producers that follow the ring
 * protocols of ROCr, and waits that spin politely (ctest's timeout catches a hang; no test
 * asserts on elapsed time). */
#ifndef TESTS_CP_HARNESS_H
#define TESTS_CP_HARNESS_H

#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fake_kfd.h"

#define GVA_BASE 0x200000000000ull

/* Allocate `len` bytes of zeroed host memory and map it at a fresh GPU VA (page aligned, with an
 * unmapped page after each allocation so overruns fault). */
static uint64_t h_next_va = GVA_BASE;
static inline uint64_t gva_alloc(uint64_t len, void **host)
{
  uint64_t size = (len + 4095) & ~4095ull;
  void *p = aligned_alloc(4096, size);
  memset(p, 0, size);
  uint64_t va = h_next_va;
  h_next_va += size + 4096;
  fake_map(va, p, size, true);
  *host = p;
  return va;
}

/* Wait for *p == v, yielding then sleeping briefly. */
#define WAIT_UNTIL(cond)                                                                   \
  do {                                                                                     \
    for (unsigned wait_i_ = 0; !(cond); wait_i_++) {                                       \
      if (wait_i_ < 1000)                                                                  \
        sched_yield();                                                                     \
      else                                                                                 \
        usleep(200);                                                                       \
    }                                                                                      \
  } while (0)

/* ---- signals (amd_signal_t, 64 bytes) ---- */
struct hsig {
  uint64_t va;
  int64_t *host; /* [0] kind, [1] value, [2] mailbox, [3] event id, [4] start, [5] end */
};

static inline struct hsig sig_new(int64_t value, uint64_t mailbox_va, uint32_t event_id)
{
  struct hsig s;
  void *p;
  s.va = gva_alloc(64, &p);
  s.host = p;
  s.host[0] = 1; /* AMD_SIGNAL_KIND_USER */
  s.host[1] = value;
  s.host[2] = (int64_t)mailbox_va;
  ((uint32_t *)s.host)[6] = event_id;
  return s;
}

static inline int64_t sig_value(struct hsig s) { return __atomic_load_n(&s.host[1], __ATOMIC_ACQUIRE); }
static inline void sig_set(struct hsig s, int64_t v) { __atomic_store_n(&s.host[1], v, __ATOMIC_RELEASE); }

/* ---- AQL queues ---- */
struct haql {
  struct sim_cp_queue *q;
  uint64_t amdq_va, ring_va, slots;
  uint8_t *amdq, *ring;
  volatile uint64_t doorbell;
  uint64_t next;
  struct hsig inactive;
};

static inline int aql_open(struct haql *a, uint64_t slots)
{
  void *p;
  memset(a, 0, sizeof(*a));
  a->slots = slots;
  a->ring_va = gva_alloc(slots * 64, &p);
  a->ring = p;
  for (uint64_t i = 0; i < slots; i++)
    *(uint16_t *)(a->ring + i * 64) = 1; /* HSA_PACKET_TYPE_INVALID */
  a->amdq_va = gva_alloc(256, &p);
  a->amdq = p;
  a->inactive = sig_new(0, 0, 0);
  memcpy(a->amdq + 192, &a->inactive.va, 8); /* queue_inactive_signal */
  struct sim_queue_desc d = {
    .queue_id = 1, .type = 2 /* COMPUTE_AQL */, .percentage = 100,
    .ring_base = a->ring_va, .ring_size = slots * 64,
    .read_pointer = a->amdq_va + 128, .write_pointer = a->amdq_va + 56,
    .doorbell = (volatile uint64_t *)&a->doorbell,
  };
  return sim_cp_queue_create(fake_gpu(), &d, &a->q);
}

static inline uint64_t aql_read_index(struct haql *a)
{
  return __atomic_load_n((uint64_t *)(a->amdq + 128), __ATOMIC_ACQUIRE);
}

/* Publish one packet the way ROCr does: reserve the index, write the body, release-store the
 * first dword (header + setup), then ring the doorbell with the packet's index. */
static inline void aql_submit(struct haql *a, const uint32_t pkt[16])
{
  uint64_t idx = __atomic_fetch_add((uint64_t *)(a->amdq + 56), 1, __ATOMIC_ACQ_REL);
  uint32_t *slot = (uint32_t *)(a->ring + (idx % a->slots) * 64);
  memcpy(slot + 1, pkt + 1, 60);
  __atomic_store_n(slot, pkt[0], __ATOMIC_RELEASE);
  __atomic_store_n(&a->doorbell, idx, __ATOMIC_RELEASE);
  a->next = idx + 1;
}

/* Header with type, barrier bit and system-scope acquire and release fences. */
static inline uint32_t aql_header(unsigned type, bool barrier)
{
  return type | (barrier ? 1u << 8 : 0) | (2u << 9) | (2u << 11);
}

static inline void aql_barrier_pkt(uint32_t pkt[16], unsigned type, const uint64_t deps[5],
                                   uint64_t completion)
{
  memset(pkt, 0, 64);
  pkt[0] = aql_header(type, true);
  memcpy(&pkt[2], deps, 40);
  memcpy(&pkt[14], &completion, 8);
}

static inline void aql_dispatch_pkt(uint32_t pkt[16], uint64_t kernel_object, uint64_t kernarg,
                                    uint16_t wg, uint32_t grid, uint64_t completion)
{
  memset(pkt, 0, 64);
  pkt[0] = aql_header(2, false) | (1u << 16); /* 1 dimension */
  pkt[1] = wg | (1u << 16);
  pkt[2] = 1;
  pkt[3] = grid;
  pkt[4] = 1;
  pkt[5] = 1;
  memcpy(&pkt[8], &kernel_object, 8);
  memcpy(&pkt[10], &kernarg, 8);
  memcpy(&pkt[14], &completion, 8);
}

/* ---- SDMA queues ---- */
struct hsdma {
  struct sim_cp_queue *q;
  uint64_t ring_va, size, rptr_va, wptr_va;
  uint8_t *ring;
  uint64_t *rptr, *wptr;
  volatile uint64_t doorbell;
  uint64_t w;
};

static inline int sdma_open(struct hsdma *s, uint64_t size)
{
  void *p;
  memset(s, 0, sizeof(*s));
  s->size = size;
  s->ring_va = gva_alloc(size, &p);
  s->ring = p;
  s->rptr_va = gva_alloc(8, &p);
  s->rptr = p;
  s->wptr_va = gva_alloc(8, &p);
  s->wptr = p;
  struct sim_queue_desc d = {
    .queue_id = 2, .type = 1 /* SDMA */, .percentage = 100,
    .ring_base = s->ring_va, .ring_size = size,
    .read_pointer = s->rptr_va, .write_pointer = s->wptr_va,
    .doorbell = (volatile uint64_t *)&s->doorbell,
  };
  return sim_cp_queue_create(fake_gpu(), &d, &s->q);
}

/* Append dwords at the write pointer (wrapping at the ring end) without publishing. */
static inline void sdma_emit(struct hsdma *s, const uint32_t *dw, unsigned n)
{
  for (unsigned i = 0; i < n; i++) {
    memcpy(s->ring + (s->w & (s->size - 1)), &dw[i], 4);
    s->w += 4;
  }
}

/* Publish: write pointer to memory, then the doorbell (BlitSdma's order). */
static inline void sdma_commit(struct hsdma *s)
{
  __atomic_store_n(s->wptr, s->w, __ATOMIC_RELEASE);
  __atomic_store_n(&s->doorbell, s->w, __ATOMIC_RELEASE);
}

static inline void sdma_wait_idle(struct hsdma *s)
{
  WAIT_UNTIL(__atomic_load_n(s->rptr, __ATOMIC_ACQUIRE) == s->w);
}

#endif
