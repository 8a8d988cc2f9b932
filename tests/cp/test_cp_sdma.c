/* The SDMA engine against a fake driver: every packet ROCr 5.2.3's BlitSdmaV4 emits, checked
 * byte by byte, in both copy directions, across mapping boundaries and ring wrap-around. */
#include <criterion/criterion.h>

#include "cp_harness.h"

static uint32_t lo(uint64_t v) { return (uint32_t)v; }
static uint32_t hi(uint64_t v) { return (uint32_t)(v >> 32); }

static void emit_copy(struct hsdma *s, uint64_t dst, uint64_t src, uint32_t bytes)
{
  uint32_t p[7] = {1u /* COPY */ | (0u << 8), bytes - 1, 0, lo(src), hi(src), lo(dst), hi(dst)};
  sdma_emit(s, p, 7);
}

static void emit_fence(struct hsdma *s, uint64_t va, uint32_t value)
{
  uint32_t p[4] = {5u, lo(va), hi(va), value};
  sdma_emit(s, p, 4);
}

static void fill_pattern(uint8_t *p, size_t n, unsigned seed)
{
  for (size_t i = 0; i < n; i++)
    p[i] = (uint8_t)(i * 131u + seed + (i >> 8));
}

/* "Device" memory: two separately allocated host buffers placed back to back in GPU VA, so a
 * copy through them crosses a mapping boundary. */
static uint64_t two_mappings(size_t each, uint8_t **first, uint8_t **second)
{
  void *a = aligned_alloc(4096, each), *b = aligned_alloc(4096, each);
  memset(a, 0, each);
  memset(b, 0, each);
  uint64_t va = h_next_va;
  fake_map(va, a, each, true);
  fake_map(va + each, b, each, true);
  h_next_va += 2 * each + 4096;
  *first = a;
  *second = b;
  return va;
}

static void copy_both_ways(size_t each, size_t offset, size_t bytes)
{
  struct hsdma s;
  cr_assert_eq(sdma_open(&s, 1 << 16), 0);
  uint8_t *d0, *d1;
  uint64_t dev = two_mappings(each, &d0, &d1);
  void *hostp, *backp;
  uint64_t host = gva_alloc(bytes, &hostp), back = gva_alloc(bytes, &backp);
  fill_pattern(hostp, bytes, 7);
  struct hsig done = sig_new(1, 0, 0);

  emit_copy(&s, dev + offset, host, (uint32_t)bytes); /* host -> device */
  emit_copy(&s, back, dev + offset, (uint32_t)bytes); /* device -> host */
  uint32_t dec[8] = {10u | (47u << 25), lo(done.va + 8), hi(done.va + 8), 0xffffffffu, 0xffffffffu, 0, 0, 0};
  sdma_emit(&s, dec, 8);
  sdma_commit(&s);
  WAIT_UNTIL(sig_value(done) == 0);

  for (size_t i = 0; i < bytes; i++) {
    size_t at = offset + i;
    uint8_t got = at < each ? d0[at] : d1[at - each];
    cr_assert_eq(got, ((uint8_t *)hostp)[i], "device byte %zu", i);
  }
  cr_assert_eq(memcmp(backp, hostp, bytes), 0, "device-to-host copy differs");
  sim_cp_queue_destroy(s.q);
}

Test(cp_sdma, copy_host_to_device_and_back_small) { copy_both_ways(4096, 100, 1000); }
Test(cp_sdma, copy_crosses_mapping_boundary) { copy_both_ways(64 << 10, (64 << 10) - 333, 5000); }
Test(cp_sdma, copy_large_device_to_host) { copy_both_ways(4 << 20, (3 << 20) + 12, 2 << 20); }

Test(cp_sdma, const_fill_rocr_and_kernel_count_conventions)
{
  struct hsdma s;
  cr_assert_eq(sdma_open(&s, 4096), 0);
  void *p;
  uint64_t va = gva_alloc(4096, &p);
  memset(p, 0xee, 4096);
  /* ROCr BlitSdmaV4: fillsize 2 (dword), count = (dwords - 1) * 4. */
  uint32_t f1[5] = {11u | (2u << 30), lo(va), hi(va), 0xa1b2c3d4u, (100 - 1) * 4};
  /* The kernel's sdma_v4_0_emit_fill_buffer: count = bytes - 1. */
  uint32_t f2[5] = {11u | (2u << 30), lo(va + 1024), hi(va + 1024), 0x01020304u, 256 - 1};
  /* A byte fill. */
  uint32_t f3[5] = {11u, lo(va + 2049), hi(va + 2049), 0x5au, 10 - 1};
  sdma_emit(&s, f1, 5);
  sdma_emit(&s, f2, 5);
  sdma_emit(&s, f3, 5);
  sdma_commit(&s);
  sdma_wait_idle(&s);
  uint32_t *w = p;
  uint8_t *b = p;
  for (unsigned i = 0; i < 100; i++)
    cr_assert_eq(w[i], 0xa1b2c3d4u, "dword %u", i);
  cr_assert_eq(w[100], 0xeeeeeeeeu, "fill overran");
  for (unsigned i = 256; i < 256 + 64; i++)
    cr_assert_eq(w[i], 0x01020304u);
  cr_assert_eq(w[256 + 64], 0xeeeeeeeeu);
  cr_assert_eq(b[2048], 0xee);
  for (unsigned i = 2049; i < 2059; i++)
    cr_assert_eq(b[i], 0x5a);
  cr_assert_eq(b[2059], 0xee);
  sim_cp_queue_destroy(s.q);
}

Test(cp_sdma, copy_linear_rect_sub_window)
{
  struct hsdma s;
  cr_assert_eq(sdma_open(&s, 4096), 0);
  void *srcp, *dstp;
  const unsigned sp = 64, dp = 48; /* pitches in bytes */
  uint64_t src = gva_alloc(sp * 32, &srcp), dst = gva_alloc(dp * 32, &dstp);
  fill_pattern(srcp, sp * 32, 3);
  /* Copy a 10 x 5 window of 4-byte elements from (2, 3) to (1, 7). */
  unsigned e = 2, w = 10, h = 5;
  uint32_t p[13] = {
    1u | (4u << 8) | (e << 29), lo(src), hi(src), 2u | (3u << 16), ((sp >> e) - 1) << 13, 0,
    lo(dst), hi(dst), 1u | (7u << 16), ((dp >> e) - 1) << 13, 0,
    (w - 1) | ((h - 1) << 16), 0,
  };
  sdma_emit(&s, p, 13);
  sdma_commit(&s);
  sdma_wait_idle(&s);
  uint8_t *S = srcp, *D = dstp;
  for (unsigned y = 0; y < 32; y++) {
    for (unsigned x = 0; x < dp; x++) {
      bool inside = y >= 7 && y < 7 + h && x >= 4 && x < 4 + w * 4;
      uint8_t want = inside ? S[(y - 7 + 3) * sp + (x - 4) + 8] : 0;
      cr_assert_eq(D[y * dp + x], want, "dst byte (%u, %u)", x, y);
    }
  }
  sim_cp_queue_destroy(s.q);
}

Test(cp_sdma, fence_trap_and_timestamp)
{
  fake_reset_events();
  struct hsdma s;
  cr_assert_eq(sdma_open(&s, 4096), 0);
  void *p;
  uint64_t va = gva_alloc(64, &p);
  uint64_t *ts = p;
  uint32_t t1[3] = {13u | (2u << 8), lo(va), hi(va)};
  uint32_t t2[3] = {13u | (2u << 8), lo(va + 32), hi(va + 32)};
  sdma_emit(&s, t1, 3);
  emit_fence(&s, va + 16, 0xfeedf00du);
  sdma_emit(&s, t2, 3);
  uint32_t trap[2] = {6u, 0xf0000000u | 1234u};
  sdma_emit(&s, trap, 2);
  sdma_commit(&s);
  WAIT_UNTIL(fake_interrupt_count() == 1);
  cr_assert_eq(((uint32_t *)p)[4], 0xfeedf00du);
  cr_assert_neq(ts[0], 0);
  cr_assert_leq(ts[0], ts[4], "timestamps went backwards");
  cr_assert_eq(fake_last_interrupt_id(), 1234u, "only 28 bits of context id");
  cr_assert_eq(fake_last_interrupt_bits(), 28u);
  sim_cp_queue_destroy(s.q);
}

Test(cp_sdma, atomic_operations)
{
  struct hsdma s;
  cr_assert_eq(sdma_open(&s, 4096), 0);
  void *p;
  uint64_t va = gva_alloc(64, &p);
  uint64_t *m = p;
  m[0] = 10;
  m[1] = 5;
  m[2] = 0xffff0000ffffull;
  uint32_t add[8] = {10u | (0x2fu << 25), lo(va), hi(va), 0xffffffffu, 0xffffffffu, 0, 0, 0};
  uint32_t cas[8] = {10u | (0x28u << 25), lo(va + 8), hi(va + 8), 99, 0, 5, 0, 0};
  uint32_t cas_miss[8] = {10u | (0x28u << 25), lo(va + 8), hi(va + 8), 1, 0, 5, 0, 0};
  uint32_t and32[8] = {10u | (0x55u << 25), lo(va + 16), hi(va + 16), 0x00ff00ffu, 0, 0, 0, 0};
  sdma_emit(&s, add, 8);
  sdma_emit(&s, cas, 8);
  sdma_emit(&s, cas_miss, 8);
  sdma_emit(&s, and32, 8);
  sdma_commit(&s);
  sdma_wait_idle(&s);
  cr_assert_eq(m[0], 9, "ADD64 of -1 is ROCr's signal decrement");
  cr_assert_eq(m[1], 99, "CMPSWAP stored when the compare matched, and not after");
  cr_assert_eq(m[2], 0xffff000000ffull, "32-bit AND touched only the low word");
  sim_cp_queue_destroy(s.q);
}

Test(cp_sdma, atomic_cmpswap_loop_waits_for_compare)
{
  struct hsdma s;
  cr_assert_eq(sdma_open(&s, 4096), 0);
  void *p;
  uint64_t va = gva_alloc(64, &p);
  uint64_t *m = p;
  m[0] = 1;
  uint32_t cas[8] = {10u | (1u << 16) | (0x28u << 25), lo(va), hi(va), 7, 0, 0, 0, 128};
  sdma_emit(&s, cas, 8);
  emit_fence(&s, va + 8, 1);
  sdma_commit(&s);
  usleep(20000);
  cr_assert_eq(((uint32_t *)p)[2], 0, "the loop did not hold the queue");
  __atomic_store_n(&m[0], 0, __ATOMIC_RELEASE);
  sdma_wait_idle(&s);
  cr_assert_eq(m[0], 7);
  cr_assert_eq(((uint32_t *)p)[2], 1);
  sim_cp_queue_destroy(s.q);
}

/* ROCr's dependency wait: two POLL_REGMEM (func EQ, mask all, retry forever) on a signal. */
Test(cp_sdma, poll_regmem_blocks_until_memory_matches)
{
  struct hsdma s;
  cr_assert_eq(sdma_open(&s, 4096), 0);
  struct hsig dep = sig_new(1, 0, 0);
  void *p;
  uint64_t flag = gva_alloc(8, &p);
  uint64_t v = dep.va + 8;
  uint32_t poll_hi[6] = {8u | (3u << 28) | (1u << 31), lo(v + 4), hi(v + 4), 0, 0xffffffffu, 4 | (0xfffu << 16)};
  uint32_t poll_lo[6] = {8u | (3u << 28) | (1u << 31), lo(v), hi(v), 0, 0xffffffffu, 4 | (0xfffu << 16)};
  /* An HDP flush as ROCr encodes it: a register poll, which kfdsim satisfies at once. */
  uint32_t hdp[6] = {8u | (1u << 26) | (3u << 28), 0, 0, 0, 0, 10 | (0xfffu << 16)};
  sdma_emit(&s, hdp, 6);
  sdma_emit(&s, poll_hi, 6);
  sdma_emit(&s, poll_lo, 6);
  emit_fence(&s, flag, 0x600d);
  sdma_commit(&s);
  usleep(20000);
  cr_assert_eq(*(uint32_t *)p, 0, "the fence ran before the poll was satisfied");
  sig_set(dep, 0);
  sdma_wait_idle(&s);
  cr_assert_eq(*(uint32_t *)p, 0x600d);
  sim_cp_queue_destroy(s.q);
}

Test(cp_sdma, ring_wraps_with_nop_padding_and_split_packets)
{
  struct hsdma s;
  cr_assert_eq(sdma_open(&s, 256), 0);
  void *p;
  uint64_t va = gva_alloc(4096, &p);
  uint32_t *out = p;
  /* 200 fences through a 256-byte ring: packets straddle the end of the ring, and every so
   * often the producer pads to the end with zero dwords as ROCr does. */
  for (unsigned i = 0; i < 200; i++) {
    /* Room for the padding (up to the ring's end) and the packet, as CanWriteUpto checks. */
    uint64_t need = 16 + (i % 7 == 3 ? (256 - (s.w & 255)) & 255 : 0);
    WAIT_UNTIL(s.w + need - __atomic_load_n(s.rptr, __ATOMIC_ACQUIRE) < 256);
    if (i % 7 == 3) {
      uint32_t zero = 0;
      while (s.w & 255)
        sdma_emit(&s, &zero, 1);
    }
    emit_fence(&s, va + 4 * i, i + 1);
    sdma_commit(&s);
  }
  sdma_wait_idle(&s);
  for (unsigned i = 0; i < 200; i++)
    cr_assert_eq(out[i], i + 1, "fence %u", i);
  sim_cp_queue_destroy(s.q);
}

Test(cp_sdma, unmapped_copy_source_faults_and_stops_only_that_queue)
{
  fake_reset_events();
  struct hsdma s, t;
  cr_assert_eq(sdma_open(&s, 4096), 0);
  cr_assert_eq(sdma_open(&t, 4096), 0);
  void *p;
  uint64_t dst = gva_alloc(8192, &p);
  /* The source starts mapped and runs into the unmapped guard page after it. */
  void *srcp;
  uint64_t src = gva_alloc(4096, &srcp);
  emit_copy(&s, dst, src + 2048, 4096);
  emit_fence(&s, dst + 8000, 1);
  sdma_commit(&s);
  WAIT_UNTIL(fake_fault_count() == 1);
  cr_assert_eq(fake_last_fault_va(), src + 4096, "the fault names the first unmapped page");
  cr_assert_not(fake_last_fault_write());
  usleep(20000);
  cr_assert_eq(*(uint32_t *)((uint8_t *)p + 8000), 0, "the faulted queue went on");

  emit_fence(&t, dst + 16, 42);
  sdma_commit(&t);
  sdma_wait_idle(&t);
  cr_assert_eq(((uint32_t *)p)[4], 42u, "another queue still works");
  sim_cp_queue_destroy(s.q);
  sim_cp_queue_destroy(t.q);
}

Test(cp_sdma, unknown_opcode_stops_the_queue_without_crashing)
{
  struct hsdma s;
  cr_assert_eq(sdma_open(&s, 4096), 0);
  uint32_t junk[2] = {0x7fu, 0};
  sdma_emit(&s, junk, 2);
  sdma_commit(&s);
  usleep(20000);
  cr_assert_eq(*s.rptr, 0);
  sim_cp_queue_destroy(s.q);
}

Test(cp_sdma, update_queue_to_zero_percent_pauses_the_engine)
{
  struct hsdma s;
  cr_assert_eq(sdma_open(&s, 4096), 0);
  void *p;
  uint64_t va = gva_alloc(64, &p);
  cr_assert_eq(sim_cp_queue_update(s.q, s.ring_va, s.size, 0, 7), 0);
  emit_fence(&s, va, 5);
  sdma_commit(&s);
  usleep(20000);
  cr_assert_eq(*(uint32_t *)p, 0, "an inactive queue ran");
  cr_assert_eq(sim_cp_queue_update(s.q, s.ring_va, s.size, 100, 7), 0);
  sdma_wait_idle(&s);
  cr_assert_eq(*(uint32_t *)p, 5u);
  sim_cp_queue_destroy(s.q);
}

Test(cp_sdma, write_pointer_behind_read_pointer_stops_the_queue)
{
  struct hsdma s;
  cr_assert_eq(sdma_open(&s, 4096), 0);
  __atomic_store_n(s.rptr, 64, __ATOMIC_RELEASE); /* the engine is at 64 ... */
  __atomic_store_n(&s.doorbell, 32, __ATOMIC_RELEASE); /* ... and the doorbell says 32 */
  usleep(20000);
  cr_assert_eq(*s.rptr, 64, "the engine ran through a ring it was never given");
  sim_cp_queue_destroy(s.q);
}
