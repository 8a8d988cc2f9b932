/* The AQL packet processor against a fake driver: ring protocol, barriers, completion signals
 * and their interrupts, timestamps, vendor packets and queue errors. */
#include <criterion/criterion.h>

#include "cp_harness.h"
#include "cp/cp_internal.h"

/* A dispatch packet for the fake kernel `kind` (fake_kfd.h: the first dword of its kernel
 * descriptor) over a 1-D grid of `grid` work-items in workgroups of 64, with a fresh 8-byte
 * kernarg buffer whose host side is [out] *args (filled by the test before it submits). */
static void fake_dispatch_pkt(uint32_t pkt[16], uint32_t kind, void **args, uint32_t grid,
                              uint64_t completion)
{
  void *kd;
  uint64_t ko = gva_alloc(64, &kd);
  *(uint32_t *)kd = kind;
  uint64_t args_va = gva_alloc(8, args);
  aql_dispatch_pkt(pkt, ko, args_va, 64, grid, completion);
}

/* Submits a dispatch of a fake kernel that ignores its kernarg (ILLEGAL, SPIN, SENDMSG). */
static void submit_fake_dispatch(struct haql *a, uint32_t kind, uint64_t completion)
{
  void *args;
  uint32_t pkt[16];
  fake_dispatch_pkt(pkt, kind, &args, 64, completion);
  aql_submit(a, pkt);
}

/* A dispatch of FAKE_KERNEL_STORE, which writes grid_size[0] * workgroup_size[0] to the address
 * in its kernarg: here a fresh 4-byte buffer, whose host side is returned. */
static uint32_t *store_dispatch_pkt(uint32_t pkt[16], uint32_t grid, uint64_t completion)
{
  void *out, *args;
  uint64_t out_va = gva_alloc(4, &out);
  fake_dispatch_pkt(pkt, FAKE_KERNEL_STORE, &args, grid, completion);
  memcpy(args, &out_va, 8);
  return out;
}

/* Submits a barrier-AND packet with no dependencies: it completes `completion` as soon as the
 * packet processor reaches it. */
static void submit_barrier(struct haql *a, uint64_t completion)
{
  uint64_t none[5] = {0};
  uint32_t pkt[16];
  aql_barrier_pkt(pkt, 3, none, completion);
  aql_submit(a, pkt);
}

Test(cp_aql, dispatch_runs_and_completion_signal_decrements)
{
  struct haql a;
  cr_assert_eq(aql_open(&a, 16), 0);
  struct hsig done = sig_new(1, 0, 0);
  uint32_t pkt[16];
  uint32_t *out = store_dispatch_pkt(pkt, 256, done.va);
  aql_submit(&a, pkt);
  WAIT_UNTIL(sig_value(done) == 0);
  cr_assert_eq(*out, 256u * 64u, "the fake kernel saw grid %u", *out);
  WAIT_UNTIL(aql_read_index(&a) == 1);
  cr_assert_eq(*(uint16_t *)a.ring, 1, "the consumed slot's header is INVALID again");
  cr_assert_eq(fake_dispatch_count(), 1);
  sim_cp_queue_destroy(a.q);
}

Test(cp_aql, ring_wraps_many_times)
{
  struct haql a;
  cr_assert_eq(aql_open(&a, 4), 0);
  struct hsig done = sig_new(40, 0, 0);
  for (unsigned i = 0; i < 40; i++) {
    WAIT_UNTIL(a.next - aql_read_index(&a) < a.slots); /* the producer's "queue full" wait */
    submit_barrier(&a, done.va);
  }
  WAIT_UNTIL(sig_value(done) == 0);
  WAIT_UNTIL(aql_read_index(&a) == 40); /* the slot is released after the completion signal */
  cr_assert_eq(*(uint16_t *)(a.ring + 3 * 64), 1, "every consumed header is INVALID again");
  sim_cp_queue_destroy(a.q);
}

Test(cp_aql, barrier_and_waits_for_every_dependency)
{
  struct haql a;
  cr_assert_eq(aql_open(&a, 16), 0);
  struct hsig d0 = sig_new(1, 0, 0), d1 = sig_new(1, 0, 0);
  struct hsig b = sig_new(1, 0, 0), after = sig_new(1, 0, 0);
  uint64_t deps[5] = {d0.va, 0, d1.va, 0, 0};
  uint32_t pkt[16];
  aql_barrier_pkt(pkt, 3, deps, b.va);
  aql_submit(&a, pkt);
  submit_barrier(&a, after.va);

  sig_set(d0, 0);
  usleep(20000); /* give a broken CP the chance to run ahead; the assertion is on order, not time */
  cr_assert_eq(sig_value(b), 1, "barrier-AND completed with one dependency outstanding");
  cr_assert_eq(sig_value(after), 1, "a packet ran ahead of an unsatisfied barrier");
  cr_assert_eq(aql_read_index(&a), 0);

  sig_set(d1, 0);
  WAIT_UNTIL(sig_value(after) == 0);
  cr_assert_eq(sig_value(b), 0);
  /* Completion order shows in the timestamps: the barrier ended before the next packet began. */
  cr_assert_leq(b.host[5], after.host[4]);
  sim_cp_queue_destroy(a.q);
}

Test(cp_aql, barrier_or_waits_for_any_dependency)
{
  struct haql a;
  cr_assert_eq(aql_open(&a, 16), 0);
  struct hsig d0 = sig_new(1, 0, 0), d1 = sig_new(5, 0, 0), b = sig_new(1, 0, 0);
  uint64_t deps[5] = {0, d0.va, 0, d1.va, 0};
  uint32_t pkt[16];
  aql_barrier_pkt(pkt, 5, deps, b.va);
  aql_submit(&a, pkt);
  usleep(20000);
  cr_assert_eq(sig_value(b), 1, "barrier-OR completed with no dependency at 0");
  sig_set(d1, 0);
  WAIT_UNTIL(sig_value(b) == 0);
  cr_assert_eq(sig_value(d0), 1);
  sim_cp_queue_destroy(a.q);
}

Test(cp_aql, interrupt_signal_writes_mailbox_and_raises_event)
{
  fake_reset_events();
  struct haql a;
  cr_assert_eq(aql_open(&a, 16), 0);
  void *mb;
  uint64_t mailbox_va = gva_alloc(8, &mb);
  *(uint64_t *)mb = ~0ull; /* UNSIGNALED_EVENT_SLOT */
  struct hsig s = sig_new(1, mailbox_va, 77);
  submit_barrier(&a, s.va);
  WAIT_UNTIL(fake_interrupt_count() == 1);
  cr_assert_eq(sig_value(s), 0);
  cr_assert_eq(*(uint32_t *)mb, 77u);
  cr_assert_eq(fake_last_interrupt_id(), 77u);
  cr_assert_eq(fake_last_interrupt_bits(), 32u);
  sim_cp_queue_destroy(a.q);
}

Test(cp_aql, timestamps_are_monotonic)
{
  struct haql a;
  cr_assert_eq(aql_open(&a, 16), 0);
  struct hsig s[6];
  uint64_t before = sim_gpu_clock_counter();
  for (unsigned i = 0; i < 6; i++) {
    s[i] = sig_new(1, 0, 0);
    submit_barrier(&a, s[i].va);
  }
  WAIT_UNTIL(sig_value(s[5]) == 0);
  uint64_t after = sim_gpu_clock_counter();
  uint64_t last = before;
  for (unsigned i = 0; i < 6; i++) {
    uint64_t start = (uint64_t)s[i].host[4], end = (uint64_t)s[i].host[5];
    cr_assert_leq(last, start, "packet %u started before the previous one ended", i);
    cr_assert_leq(start, end);
    last = end;
  }
  cr_assert_leq(last, after);
  sim_cp_queue_destroy(a.q);
}

/* ROCr 5.2.3's AqlQueue::ExecutePM4 for GpuAgent::InvalidateCodeCaches on gfx9. */
Test(cp_aql, vendor_pm4_ib_with_acquire_mem_completes)
{
  struct haql a;
  cr_assert_eq(aql_open(&a, 16), 0);
  void *ibp;
  uint64_t ib_va = gva_alloc(4096, &ibp);
  uint32_t *ib = ibp;
  ib[0] = (3u << 30) | ((7u - 2) << 16) | (0x58u << 8); /* ACQUIRE_MEM, 7 dwords */
  ib[1] = (1u << 29) | (1u << 27) | (1u << 23) | (1u << 18);
  ib[2] = 0xffffffffu;
  ib[3] = 0xff;
  struct hsig done = sig_new(1, 0, 0);
  uint32_t pkt[16] = {0};
  pkt[0] = 0 | (1u << 16);                              /* VENDOR_SPECIFIC, AMD format PM4_IB */
  pkt[1] = (3u << 30) | ((4u - 2) << 16) | (0x3fu << 8); /* INDIRECT_BUFFER */
  pkt[2] = (uint32_t)ib_va & ~3u;
  pkt[3] = (uint32_t)(ib_va >> 32) & 0xffffu;
  pkt[4] = 7u | (1u << 23);
  pkt[5] = 0xa;
  memcpy(&pkt[14], &done.va, 8);
  aql_submit(&a, pkt);
  WAIT_UNTIL(sig_value(done) == 0);
  WAIT_UNTIL(aql_read_index(&a) == 1);
  cr_assert_eq(sig_value(a.inactive), 0, "no queue error");
  sim_cp_queue_destroy(a.q);
}

Test(cp_aql, barrier_value_packet_waits_for_masked_condition)
{
  struct haql a;
  cr_assert_eq(aql_open(&a, 16), 0);
  struct hsig watched = sig_new(0x13, 0, 0), done = sig_new(1, 0, 0);
  uint32_t pkt[16] = {0};
  pkt[0] = 0 | (2u << 16); /* AMD BARRIER_VALUE */
  memcpy(&pkt[2], &watched.va, 8);
  int64_t value = 0x20, mask = 0xf0;
  memcpy(&pkt[4], &value, 8);
  memcpy(&pkt[6], &mask, 8);
  pkt[8] = 0; /* EQ */
  memcpy(&pkt[14], &done.va, 8);
  aql_submit(&a, pkt);
  usleep(20000);
  cr_assert_eq(sig_value(done), 1);
  sig_set(watched, 0x2f);
  WAIT_UNTIL(sig_value(done) == 0);
  sim_cp_queue_destroy(a.q);
}

Test(cp_aql, illegal_instruction_stops_queue_with_rocr_error_code)
{
  fake_reset_events();
  struct haql a;
  cr_assert_eq(aql_open(&a, 16), 0);
  void *mb;
  uint64_t mailbox_va = gva_alloc(8, &mb);
  a.inactive.host[2] = (int64_t)mailbox_va; /* an interrupt signal, as ROCr creates it */
  ((uint32_t *)a.inactive.host)[6] = 9;
  struct hsig done = sig_new(1, 0, 0), next = sig_new(1, 0, 0);
  submit_fake_dispatch(&a, FAKE_KERNEL_ILLEGAL, done.va);
  submit_barrier(&a, next.va);
  WAIT_UNTIL(sig_value(a.inactive) != 0);
  cr_assert_eq(sig_value(a.inactive), 0x40000000, "ROCr decodes 0x40000000 as illegal instruction");
  WAIT_UNTIL(fake_interrupt_count() == 1); /* the value is stored before the interrupt */
  cr_assert_eq(fake_last_interrupt_id(), 9u);
  usleep(20000);
  cr_assert_eq(sig_value(done), 1, "a failed dispatch does not complete");
  cr_assert_eq(sig_value(next), 1, "a stopped queue consumes nothing more");
  cr_assert_eq(aql_read_index(&a), 0);
  sim_cp_queue_destroy(a.q);
}

Test(cp_aql, kernel_page_fault_raises_memory_exception_and_queue_error)
{
  fake_reset_events();
  struct haql a;
  cr_assert_eq(aql_open(&a, 16), 0);
  void *args;
  uint32_t pkt[16];
  fake_dispatch_pkt(pkt, FAKE_KERNEL_FAULT, &args, 64, 0);
  uint64_t bad = 0x7770000123ull;
  memcpy(args, &bad, 8);
  aql_submit(&a, pkt);
  WAIT_UNTIL(fake_fault_count() == 1);
  cr_assert_eq(fake_last_fault_va(), bad);
  WAIT_UNTIL(sig_value(a.inactive) != 0);
  cr_assert_eq(sig_value(a.inactive), 0x20000000);

  /* The simulator stays usable: a new queue works. */
  struct haql b;
  cr_assert_eq(aql_open(&b, 16), 0);
  struct hsig done = sig_new(1, 0, 0);
  submit_barrier(&b, done.va);
  WAIT_UNTIL(sig_value(done) == 0);
  sim_cp_queue_destroy(a.q);
  sim_cp_queue_destroy(b.q);
}

Test(cp_aql, unmapped_completion_signal_is_a_page_fault)
{
  fake_reset_events();
  struct haql a;
  cr_assert_eq(aql_open(&a, 16), 0);
  submit_barrier(&a, 0x6660000000ull);
  WAIT_UNTIL(fake_fault_count() == 1);
  cr_assert_eq(fake_last_fault_va() & ~63ull, 0x6660000000ull);
  sim_cp_queue_destroy(a.q);
}

Test(cp_aql, agent_dispatch_is_rejected_as_invalid_packet)
{
  struct haql a;
  cr_assert_eq(aql_open(&a, 16), 0);
  uint32_t pkt[16] = {0};
  pkt[0] = aql_header(4, false);
  aql_submit(&a, pkt);
  WAIT_UNTIL(sig_value(a.inactive) != 0);
  cr_assert_eq(sig_value(a.inactive), 0x20);
  sim_cp_queue_destroy(a.q);
}

Test(cp_aql, destroy_while_blocked_on_barrier_returns)
{
  struct haql a;
  cr_assert_eq(aql_open(&a, 16), 0);
  struct hsig never = sig_new(1, 0, 0);
  uint64_t deps[5] = {never.va, 0, 0, 0, 0};
  uint32_t pkt[16];
  aql_barrier_pkt(pkt, 3, deps, 0);
  aql_submit(&a, pkt);
  usleep(5000);
  sim_cp_queue_destroy(a.q); /* must not hang */
  cr_assert_eq(sig_value(never), 1);
}

Test(cp_aql, bad_descriptors_are_rejected)
{
  struct sim_cp_queue *q = (void *)1;
  struct sim_queue_desc d = {.type = 2, .ring_size = 100, .read_pointer = 8, .write_pointer = 8};
  volatile uint64_t db = 0;
  d.doorbell = &db;
  cr_assert_eq(sim_cp_queue_create(fake_gpu(), &d, &q), -22, "ring size not a power of two");
  cr_assert_null(q);
  d.ring_size = 4096;
  d.type = 9;
  cr_assert_eq(sim_cp_queue_create(fake_gpu(), &d, &q), -22, "unknown queue type");
  d.type = 0;
  cr_assert_eq(sim_cp_queue_create(fake_gpu(), &d, &q), -38, "PM4 compute queues are not emulated");
  d.type = 2;
  d.doorbell = NULL;
  cr_assert_eq(sim_cp_queue_create(fake_gpu(), &d, &q), -22, "no doorbell");
}

/* ROCr 5.2.3's dynamic scratch: the CP asks with queue error 1 and holds the dispatch until the
 * runtime has rewritten COMPUTE_TMPRING_SIZE and stored 0. */
Test(cp_aql, dispatch_needing_scratch_waits_for_the_runtime)
{
  struct haql a;
  cr_assert_eq(aql_open(&a, 16), 0);
  struct hsig done = sig_new(1, 0, 0);
  uint32_t pkt[16];
  uint32_t *out = store_dispatch_pkt(pkt, 64, done.va);
  pkt[6] = 200; /* private_segment_size: 200 bytes per work-item -> 13 KiB per wave64 */
  aql_submit(&a, pkt);
  WAIT_UNTIL(sig_value(a.inactive) == 1);
  usleep(5000);
  cr_assert_eq(fake_dispatch_count(), 0, "dispatched without scratch");
  cr_assert_eq(*(uint16_t *)a.ring & 0xff, 2, "the held packet stays valid for the runtime to read");
  uint32_t tmpring = 32u | (13u << 12); /* 32 waves of 13 KiB */
  memcpy(a.amdq + 140, &tmpring, 4);
  sig_set(a.inactive, 0);
  WAIT_UNTIL(sig_value(done) == 0);
  cr_assert_eq(*out, 64u * 64u);
  cr_assert_eq(sig_value(a.inactive), 0);
  sim_cp_queue_destroy(a.q);
}

Test(cp_aql, refused_scratch_request_stops_the_queue)
{
  struct haql a;
  cr_assert_eq(aql_open(&a, 16), 0);
  void *args;
  struct hsig done = sig_new(1, 0, 0);
  uint32_t pkt[16];
  fake_dispatch_pkt(pkt, FAKE_KERNEL_STORE, &args, 64, done.va);
  pkt[6] = 64;
  aql_submit(&a, pkt);
  WAIT_UNTIL(sig_value(a.inactive) == 1);
  sig_set(a.inactive, -1); /* what DynamicScratchHandler stores after reporting an error */
  usleep(20000);
  cr_assert_eq(fake_dispatch_count(), 0);
  cr_assert_eq(sig_value(done), 1);
  sim_cp_queue_destroy(a.q);
}

/* The KFD exception path: libhsakmt's CWSR header names the exception signal's payload. */
Test(cp_aql, errors_also_reach_the_cwsr_header_error_reason)
{
  fake_reset_events();
  void *cwsr, *payload;
  uint64_t cwsr_va = gva_alloc(4096, &cwsr), payload_va = gva_alloc(8, &payload);
  memcpy((uint8_t *)cwsr + 24, &payload_va, 8);
  uint32_t ev = 31;
  memcpy((uint8_t *)cwsr + 32, &ev, 4);
  struct haql a;
  void *p;
  memset(&a, 0, sizeof(a));
  a.slots = 16;
  a.ring_va = gva_alloc(16 * 64, &p);
  a.ring = p;
  a.amdq_va = gva_alloc(256, &p);
  a.amdq = p;
  struct sim_queue_desc d = {
    .queue_id = 1, .type = 2, .percentage = 100, .ring_base = a.ring_va, .ring_size = 16 * 64,
    .read_pointer = a.amdq_va + 128, .write_pointer = a.amdq_va + 56,
    .ctx_save_restore = cwsr_va, .doorbell = (volatile uint64_t *)&a.doorbell,
  };
  cr_assert_eq(sim_cp_queue_create(fake_gpu(), &d, &a.q), 0);
  uint32_t pkt[16] = {0};
  pkt[0] = aql_header(4, false); /* agent dispatch: EC_QUEUE_PACKET_UNSUPPORTED (20) */
  aql_submit(&a, pkt);
  WAIT_UNTIL(fake_interrupt_count() == 1);
  cr_assert_eq(*(uint64_t *)payload, 1ull << 19);
  cr_assert_eq(fake_last_interrupt_id(), 31u);
  sim_cp_queue_destroy(a.q);
}

/* A kernel that never ends must not hang queue destruction: like amdkfd's preemption timeout,
 * destroy gives up on the dispatch, and the queue's memory is left alone when it does end. */
Test(cp_aql, destroy_abandons_a_dispatch_that_outlives_the_preemption_timeout)
{
  cp_preempt_timeout_ns = 50000000ull;
  fake_reset_events();
  struct haql a;
  cr_assert_eq(aql_open(&a, 16), 0);
  struct hsig done = sig_new(1, 0, 0);
  submit_fake_dispatch(&a, FAKE_KERNEL_SPIN, done.va);
  WAIT_UNTIL(fake_dispatch_count() == 1);
  sim_cp_queue_destroy(a.q); /* returns although the kernel still runs */
  cr_assert_eq(fake_dispatch_returns(), 0);
  fake_release_spin();
  WAIT_UNTIL(fake_dispatch_returns() == 1);
  usleep(20000);
  cr_assert_eq(sig_value(done), 1, "an abandoned dispatch completed its signal");
  cr_assert_eq(aql_read_index(&a), 0, "an abandoned dispatch advanced the read index");
  cr_assert_eq(fake_fault_count(), 0);
}

/* kfdsim's watchdog (KFDSIM_TIMEOUT, read when the process's first queue is created): a
 * dispatch running longer is cancelled, the driver is told of a GPU hang, and the queue stops
 * with the reset-queue error; the packet is not completed. */
Test(cp_aql, watchdog_stops_a_long_dispatch_and_reports_a_hung_queue)
{
  cr_assert_eq(setenv("KFDSIM_TIMEOUT", "0.2", 1), 0);
  fake_reset_events();
  struct haql a;
  cr_assert_eq(aql_open(&a, 16), 0);
  struct hsig done = sig_new(1, 0, 0), after = sig_new(1, 0, 0);
  submit_fake_dispatch(&a, FAKE_KERNEL_SPIN_CANCELLABLE, done.va);
  submit_barrier(&a, after.va);
  WAIT_UNTIL(sig_value(a.inactive) != 0);
  cr_assert_eq(sig_value(a.inactive), CP_QERR_QUEUE_RESET);
  cr_assert_eq(fake_hang_count(), 1);
  cr_assert_eq(fake_dispatch_returns(), 1, "the dispatch was not stopped");
  usleep(20000);
  cr_assert_eq(sig_value(done), 1, "a stopped dispatch completed its signal");
  cr_assert_eq(sig_value(after), 1, "the failed queue went on");
  cr_assert_eq(aql_read_index(&a), 0);
  sim_cp_queue_destroy(a.q);
}

/* Dispatches that end in time are left alone by the watchdog. */
Test(cp_aql, watchdog_leaves_short_dispatches_alone)
{
  cr_assert_eq(setenv("KFDSIM_TIMEOUT", "0.2", 1), 0);
  fake_reset_events();
  struct haql a;
  cr_assert_eq(aql_open(&a, 16), 0);
  struct hsig done = sig_new(8, 0, 0);
  for (unsigned i = 0; i < 8; i++) {
    uint32_t pkt[16];
    store_dispatch_pkt(pkt, 64, done.va);
    aql_submit(&a, pkt);
  }
  WAIT_UNTIL(sig_value(done) == 0);
  usleep(300000); /* past the timeout: nothing is running, nothing may fire */
  cr_assert_eq(sig_value(a.inactive), 0);
  cr_assert_eq(fake_hang_count(), 0);
  sim_cp_queue_destroy(a.q);
}

/* A wave's s_sendmsg(MSG_INTERRUPT) reaches the driver as an SQ interrupt: 24 bits of M0. */
Test(cp_aql, wave_interrupt_message_raises_an_event_interrupt)
{
  fake_reset_events();
  struct haql a;
  cr_assert_eq(aql_open(&a, 16), 0);
  struct hsig done = sig_new(1, 0, 0);
  submit_fake_dispatch(&a, FAKE_KERNEL_SENDMSG, done.va);
  WAIT_UNTIL(sig_value(done) == 0);
  cr_assert_eq(fake_interrupt_count(), 1);
  cr_assert_eq(fake_last_interrupt_id(), 0x234567u);
  cr_assert_eq(fake_last_interrupt_bits(), 24u);
  sim_cp_queue_destroy(a.q);
}
