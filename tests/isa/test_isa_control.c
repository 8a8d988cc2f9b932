/* Dispatch-level behaviour: s_sendmsg reaches the callback with M0, s_trap and undecodable words
 * end the dispatch with the right status and PC, GPU page faults name the address, timers are
 * monotonic, flat accesses to the private aperture reach the same memory as scratch_*, bad
 * dispatch packets are refused, and code replaced between dispatches runs as the new code. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"

static void open_alu(struct harness *h, enum isa_target t)
{
  char path[512];
  snprintf(path, sizeof(path), "%s/alu_tests_%s.so", ISA_TEST_KERNEL_DIR, t == ISA_GFX942 ? "gfx942" : "gfx90a");
  cr_assert_eq(harness_open(h, path, t), 0, "cannot load %s", path);
}

static struct isa_result run(struct harness *h, const char *name, void **args, uint32_t lanes)
{
  struct harness_launch l = {.name = name, .grid = {lanes, 1, 1}, .block = {lanes, 1, 1},
                             .kernarg = args, .kernarg_size = 4 * sizeof(void *)};
  struct isa_result r;
  cr_assert_eq(harness_run(h, &l, &r), 0, "kernel %s not found", name);
  return r;
}

static void sendmsg_case(enum isa_target t)
{
  struct harness h;
  open_alu(&h, t);
  uint32_t *a = harness_alloc(&h, 256), *out = harness_alloc(&h, 256);
  a[0] = 0x00c0ffee;
  void *args[4] = {a, a, a, out};
  struct isa_result r = run(&h, "c_sendmsg", args, 64);
  cr_assert_eq(r.status, ISA_OK, "%s", r.message);
  cr_expect_eq(h.hostcall_msgs, 1, "one wave, one interrupt message (got %u)", h.hostcall_msgs);
  cr_expect_eq(h.last_m0, 0x00c0ffee);
  cr_expect_eq(out[63], 1);
  harness_close(&h);
}
Test(isa_control, sendmsg_gfx90a) { sendmsg_case(ISA_GFX90A); }
Test(isa_control, sendmsg_gfx942) { sendmsg_case(ISA_GFX942); }

static void trap_case(enum isa_target t)
{
  struct harness h;
  open_alu(&h, t);
  uint32_t *out = harness_alloc(&h, 256);
  void *args[4] = {out, out, out, out};
  struct isa_result r = run(&h, "c_trap", args, 64);
  cr_expect_eq(r.status, ISA_TRAP, "status %d: %s", r.status, r.message);
  cr_expect_neq(strstr(r.message, "s_trap 2"), NULL, "%s", r.message);
  cr_expect_eq(out[0], 0, "the store after s_trap must not run");
  harness_close(&h);
}
Test(isa_control, trap_gfx90a) { trap_case(ISA_GFX90A); }
Test(isa_control, trap_gfx942) { trap_case(ISA_GFX942); }

static void illegal_case(enum isa_target t)
{
  struct harness h;
  open_alu(&h, t);
  uint32_t *out = harness_alloc(&h, 256);
  void *args[4] = {out, out, out, out};
  struct isa_result r = run(&h, "c_illegal", args, 64);
  cr_expect_eq(r.status, ISA_ILLEGAL_INSTR, "status %d: %s", r.status, r.message);
  cr_expect_eq(out[5], 7, "instructions before the bad word ran");
  /* the PC names the word 0xffffffff */
  uint32_t word;
  memcpy(&word, (void *)(uintptr_t)r.pc, 4);
  cr_expect_eq(word, 0xffffffffu, "pc 0x%llx holds 0x%08x: %s", (unsigned long long)r.pc, word, r.message);
  harness_close(&h);
}
Test(isa_control, illegal_gfx90a) { illegal_case(ISA_GFX90A); }
Test(isa_control, illegal_gfx942) { illegal_case(ISA_GFX942); }

/* The interpreter keeps decoded instructions from one dispatch to the next on a thread; code
 * replaced at the same addresses in between (a module unloaded, another loaded there) must run
 * as the new code. c_illegal's v_mov_b32 v2, 7 becomes v_mov_b32 v2, 9 and its bad word an
 * s_endpgm: the second dispatch stores 9 and ends normally. */
static void code_replaced_case(enum isa_target t)
{
  struct harness h;
  open_alu(&h, t);
  uint32_t *out = harness_alloc(&h, 256);
  void *args[4] = {out, out, out, out};
  struct isa_result r = run(&h, "c_illegal", args, 64);
  cr_assert_eq(r.status, ISA_ILLEGAL_INSTR, "status %d: %s", r.status, r.message);
  cr_assert_eq(out[5], 7);
  /* VOP1 v_mov_b32 (opcode 1) to v2 from the inline constant 7 (source code 128 + 7) */
  const uint32_t mov7 = 0x7e000000u | 2u << 17 | 1u << 9 | (128u + 7);
  uint32_t *bad = (uint32_t *)(uintptr_t)r.pc, *mov = NULL;
  for (uint32_t *p = bad - 1; p >= bad - 4 && !mov; p--)
    if (*p == mov7)
      mov = p;
  cr_assert_not_null(mov, "v_mov_b32 v2, 7 not found before pc 0x%llx", (unsigned long long)r.pc);
  *mov = mov7 + 2;            /* inline constant 9 */
  *bad = 0xbf810000u;         /* s_endpgm */
  r = run(&h, "c_illegal", args, 64);
  cr_expect_eq(r.status, ISA_OK, "status %d: %s", r.status, r.message);
  cr_expect_eq(out[5], 9, "the replaced instruction ran (got %u)", out[5]);
  harness_close(&h);
}
Test(isa_control, code_replaced_between_dispatches_gfx90a) { code_replaced_case(ISA_GFX90A); }
Test(isa_control, code_replaced_between_dispatches_gfx942) { code_replaced_case(ISA_GFX942); }

/* One wave of `kernel` (its out[lane] against want[lane]) and its lane operation and
 * instruction counts. */
static void exec_counts_case(enum isa_target t, const char *kernel, const uint32_t want[64],
                             uint64_t lane_ops, uint64_t insts)
{
  struct harness h;
  open_alu(&h, t);
  uint32_t *out = harness_alloc(&h, 256);
  void *args[4] = {out, out, out, out};
  struct isa_result r = run(&h, kernel, args, 64);
  cr_assert_eq(r.status, ISA_OK, "%s", r.message);
  for (unsigned i = 0; i < 64; i++)
    cr_expect_eq(out[i], want[i], "%s lane %u: %u, want %u", kernel, i, out[i], want[i]);
  cr_expect_eq(r.lane_ops, lane_ops, "%s lane_ops %llu", kernel, (unsigned long long)r.lane_ops);
  cr_expect_eq(r.instructions_executed, insts, "%s instructions %llu", kernel,
               (unsigned long long)r.instructions_executed);
  harness_close(&h);
}

/* Lane operations count the lanes active when each vector instruction starts, EXEC changing
 * between them (c_exec_steps: v_cmpx, s_mov_b32 exec_lo, v_readfirstlane_b32 exec_lo). */
static void exec_steps_case(enum isa_target t)
{
  uint32_t want[64];
  for (unsigned i = 0; i < 64; i++)
    want[i] = i < 2 ? 15 : i < 8 ? 7 : i < 16 ? 5 : 4;
  /* lanes: frame v_and, v_lshlrev (64 each); body 64 x 3, 16, 8, 8, 2, 64. Instructions:
   * frame 4, body 11, s_endpgm */
  exec_counts_case(t, "c_exec_steps", want, 128 + 192 + 16 + 8 + 8 + 2 + 64, 16);
}
Test(isa_control, lane_ops_follow_exec_gfx90a) { exec_steps_case(ISA_GFX90A); }
Test(isa_control, lane_ops_follow_exec_gfx942) { exec_steps_case(ISA_GFX942); }

/* EXEC written inside a block and inside a loop that branches to itself (c_exec_in_loop): the
 * vector adds count the lanes active when each starts, turn after turn, and the lanes that
 * dropped out keep their sums. */
static void exec_in_loop_case(enum isa_target t)
{
  uint32_t want[64];
  for (unsigned i = 0; i < 64; i++)
    want[i] = (i == 63 ? 1 : i == 62 ? 2 : i == 61 ? 3 : 4) + 5;
  /* lanes: frame v_and, v_lshlrev; v_mov; the loop's add over 64, 63, 62, 61 lanes; the last
   * add. Instructions: frame 4, 2 before the loop, 5 x 4 turns, 4 after, s_endpgm */
  exec_counts_case(t, "c_exec_in_loop", want, 128 + 64 + 64 + 63 + 62 + 61 + 64,
                   4 + 2 + 20 + 4 + 1);
}
Test(isa_control, exec_written_in_blocks_gfx90a) { exec_in_loop_case(ISA_GFX90A); }
Test(isa_control, exec_written_in_blocks_gfx942) { exec_in_loop_case(ISA_GFX942); }

/* Waves of 320,010 instructions (several time slices each, 4 waves taking turns) give exact
 * results and counts wherever their slices end. */
static void long_loops_case(enum isa_target t)
{
  struct harness h;
  open_alu(&h, t);
  uint32_t *out = harness_alloc(&h, 256 * 4);
  void *args[4] = {out, out, out, out};
  struct isa_result r = run(&h, "c_long_loops", args, 256);
  cr_assert_eq(r.status, ISA_OK, "%s", r.message);
  for (unsigned i = 0; i < 256; i++)
    cr_expect_eq(out[i], 6 * 30000 + 20000 + 4, "lane %u: %u", i, out[i]);
  /* per wave: frame 4, 2, loop 1 8 x 30000, 2, loop 2 4 x 20000, 4 + store, s_endpgm */
  uint64_t insts = 4 + 2 + 8 * 30000 + 2 + 4 * 20000 + 5 + 1;
  cr_expect_eq(r.instructions_executed, 4 * insts, "instructions %llu",
               (unsigned long long)r.instructions_executed);
  /* per wave: frame 128, v_mov 64, 3 x 64 x 30000, 64 x 20000, v_add 64 */
  uint64_t ops = 128 + 64 + 3ull * 64 * 30000 + 64ull * 20000 + 64;
  cr_expect_eq(r.lane_ops, 4 * ops, "lane_ops %llu", (unsigned long long)r.lane_ops);
  harness_close(&h);
}
Test(isa_control, long_loops_gfx90a) { long_loops_case(ISA_GFX90A); }
Test(isa_control, long_loops_gfx942) { long_loops_case(ISA_GFX942); }

/* c_salu_forms's SOP2 operations (in its order): result and SCC of a op b with SCC 1 before
 * (ISA guide, SOP2: carry out of the unsigned add/sub and shift-adds, signed overflow of
 * s_add_i32/s_sub_i32, result != 0 for the logical operations and shifts, the compare for
 * min/max; s_mul_i32, s_mul_hi_u32 and s_cselect_b32 leave SCC). */
static void sop2_ref(unsigned op, uint32_t a, uint32_t b, uint32_t *r, uint32_t *scc)
{
  int32_t ai = (int32_t)a, bi = (int32_t)b, s;
  uint64_t t;
  *scc = 1;
  switch (op) {
  case 0: t = (uint64_t)a + b; *r = (uint32_t)t; *scc = (uint32_t)(t >> 32); break;
  case 1: t = (uint64_t)a + b + 1; *r = (uint32_t)t; *scc = (uint32_t)(t >> 32); break;
  case 2: *r = a - b; *scc = b > a; break;
  case 3:
    s = (int32_t)(a + b);
    *r = (uint32_t)s;
    *scc = (ai >= 0) == (bi >= 0) && (s >= 0) != (ai >= 0);
    break;
  case 4:
    s = (int32_t)(a - b);
    *r = (uint32_t)s;
    *scc = (ai >= 0) != (bi >= 0) && (s >= 0) != (ai >= 0);
    break;
  case 5: *r = a * b; break;
  case 6: *r = a & b; *scc = *r != 0; break;
  case 7: *r = a | b; *scc = *r != 0; break;
  case 8: *r = a ^ b; *scc = *r != 0; break;
  case 9: *r = a << (b & 31); *scc = *r != 0; break;
  case 10: *r = a >> (b & 31); *scc = *r != 0; break;
  case 11: *r = (uint32_t)(ai >> (b & 31)); *scc = *r != 0; break;
  case 12: *r = a; break;   /* s_cselect_b32 with SCC 1 */
  case 13: *r = (uint32_t)((uint64_t)a * b >> 32); break;
  case 14: *scc = ai < bi; *r = (uint32_t)(ai < bi ? ai : bi); break;
  case 15: *scc = a < b; *r = a < b ? a : b; break;
  case 16: *scc = ai > bi; *r = (uint32_t)(ai > bi ? ai : bi); break;
  case 17: *scc = a > b; *r = a > b ? a : b; break;
  case 18: *r = a & ~b; *scc = *r != 0; break;
  default:   /* s_lshl1_add_u32, s_lshl2_add_u32: SCC is the carry out */
    t = ((uint64_t)a << (op - 18)) + b;
    *r = (uint32_t)t;
    *scc = t >> 32 != 0;
    break;
  }
}

/* c_salu_forms's compares (eq, lg, then gt, ge, lt, le signed and unsigned). */
static uint32_t cmp_ref(unsigned op, uint32_t a, uint32_t b)
{
  int32_t ai = (int32_t)a, bi = (int32_t)b;
  switch (op) {
  case 0: return a == b;
  case 1: return a != b;
  case 2: return ai > bi;
  case 3: return ai >= bi;
  case 4: return ai < bi;
  case 5: return ai <= bi;
  case 6: return a > b;
  case 7: return a >= b;
  case 8: return a < b;
  default: return a <= b;
  }
}

/* Every operand form of the specialised scalar handlers against the ISA's definitions, for a
 * few pairs of values (signs, carries, shift counts past 31). */
static void salu_forms_case(enum isa_target t)
{
  static const uint32_t pairs[][2] = {
      {0xfffffff0u, 0x80000001u}, {5, 0x7fffffffu}, {0x12345678u, 0x12345678u}, {0, 33},
      {0x80000000u, 0xfffffff9u},
  };
  struct harness h;
  open_alu(&h, t);
  uint32_t *a = harness_alloc(&h, 256), *out = harness_alloc(&h, 1024);
  void *args[4] = {a, a, a, out};
  for (size_t p = 0; p < sizeof(pairs) / sizeof(pairs[0]); p++) {
    uint32_t x = pairs[p][0], y = pairs[p][1];
    a[0] = x;
    a[1] = y;
    memset(out, 0xee, 1024);
    struct isa_result r = run(&h, "c_salu_forms", args, 64);
    cr_assert_eq(r.status, ISA_OK, "%s", r.message);
    unsigned i = 0;
    for (unsigned op = 0; op < 21; op++) {
      const uint32_t src[4][2] = {{x, (uint32_t)-7}, {x, 0x12345678u}, {x, y}, {9, x}};
      for (unsigned f = 0; f < 4; f++, i++) {
        uint32_t want, scc;
        sop2_ref(op, src[f][0], src[f][1], &want, &scc);
        cr_expect(out[2 * i] == want && out[2 * i + 1] == scc,
                  "pair %zu op %u form %u: %08x scc %u, want %08x scc %u", p, op, f, out[2 * i],
                  out[2 * i + 1], want, scc);
      }
    }
    for (unsigned op = 0; op < 10; op++) {
      const uint32_t src[4][2] = {{x, (uint32_t)-7}, {x, y}, {x, 3}, {x, y}};
      for (unsigned f = 0; f < 4; f++, i++)
        cr_expect_eq(out[2 * i + 1], cmp_ref(op, src[f][0], src[f][1]),
                     "pair %zu compare %u form %u: scc %u", p, op, f, out[2 * i + 1]);
    }
    for (unsigned f = 0; f < 2; f++, i++) {
      int32_t v = (int32_t)(f ? y : x);
      uint32_t want = (uint32_t)(v < 0 ? -(int64_t)v : v);
      cr_expect(out[2 * i] == want && out[2 * i + 1] == (want != 0),
                "pair %zu s_abs_i32 %d: %08x scc %u", p, v, out[2 * i], out[2 * i + 1]);
    }
  }
  harness_close(&h);
}
Test(isa_control, salu_forms_gfx90a) { salu_forms_case(ISA_GFX90A); }
Test(isa_control, salu_forms_gfx942) { salu_forms_case(ISA_GFX942); }

/* Whether [va, va + len) lies in one of h's regions (the harness's translate). */
static bool mapped(const struct harness *h, uintptr_t va, size_t len)
{
  for (unsigned i = 0; i < h->nregions; i++) {
    uintptr_t b = (uintptr_t)h->regions[i].p;
    if (va >= b && va - b + len <= h->regions[i].len)
      return true;
  }
  return false;
}

/* Straight-line code that runs into an unmapped page: everything before the page end runs,
 * then the fetch faults at the first unmapped address, as instruction by instruction. c_illegal
 * without its bad word (frame, v_mov_b32 v2, 7, global_store_dword) is copied to the end of a
 * page whose successor is not mapped, and c_illegal's descriptor pointed at it. */
static void fetch_past_page_case(enum isa_target t)
{
  struct harness h;
  open_alu(&h, t);
  uint32_t *out = harness_alloc(&h, 256);
  void *args[4] = {out, out, out, out};
  struct isa_result r = run(&h, "c_illegal", args, 64);
  cr_assert_eq(r.status, ISA_ILLEGAL_INSTR, "%s", r.message);
  /* c_illegal's descriptor: the one whose entry (kernel_code_entry_byte_offset, bytes 16-23)
   * is the nearest below the bad word */
  uint8_t *bad = (uint8_t *)(uintptr_t)r.pc, *entry = NULL, *kd = NULL;
  for (size_t o = 0; o + 64 <= h.image_size; o += 64) {
    int64_t off;
    memcpy(&off, h.image + o + 16, 8);
    /* as an integer: most 64-byte slots are no descriptor, and their "offset" may point
     * anywhere (pointer arithmetic outside the image is undefined: UBSan) */
    uintptr_t e = (uintptr_t)h.image + o + (uintptr_t)off;
    if (off && e < (uintptr_t)bad && (uintptr_t)bad - e <= 64 && (!entry || e > (uintptr_t)entry)) {
      entry = h.image + o + off;
      kd = h.image + o;
    }
  }
  cr_assert_not_null(kd, "no kernel descriptor enters c_illegal before %p", (void *)bad);
  size_t len = (size_t)(bad - entry);
  uint8_t *page = NULL;
  for (int i = 0; i < 8 && !page; i++) {
    uint8_t *p = harness_alloc(&h, 4096);
    cr_assert_not_null(p);
    if (!mapped(&h, (uintptr_t)p + 4096, 4))
      page = p;
  }
  cr_assert_not_null(page, "no page with an unmapped successor");
  memcpy(page + 4096 - len, entry, len);
  int64_t saved, off = (int64_t)((uintptr_t)(page + 4096 - len) - (uintptr_t)kd);
  memcpy(&saved, kd + 16, 8);
  memcpy(kd + 16, &off, 8);
  memset(out, 0, 256);
  r = run(&h, "c_illegal", args, 64);
  memcpy(kd + 16, &saved, 8);
  uint64_t end = (uint64_t)(uintptr_t)(page + 4096);
  cr_expect_eq(r.status, ISA_PAGE_FAULT, "status %d: %s", r.status, r.message);
  cr_expect_eq(r.pc, end, "pc 0x%llx, want 0x%llx", (unsigned long long)r.pc,
               (unsigned long long)end);
  cr_expect_eq(r.fault_va, end);
  cr_expect_neq(strstr(r.message, "instruction fetch"), NULL, "%s", r.message);
  for (unsigned i = 0; i < 64; i++)
    cr_expect_eq(out[i], 7, "lane %u: the store before the page end ran (got %u)", i, out[i]);
  harness_close(&h);
}
Test(isa_control, fetch_past_page_end_gfx90a) { fetch_past_page_case(ISA_GFX90A); }
Test(isa_control, fetch_past_page_end_gfx942) { fetch_past_page_case(ISA_GFX942); }

static void fault_case(enum isa_target t)
{
  struct harness h;
  open_alu(&h, t);
  uint64_t *a = harness_alloc(&h, 256);
  uint32_t *out = harness_alloc(&h, 256);
  a[0] = 0x00007ff012340000ull;   /* never registered */
  void *args[4] = {a, a, a, out};
  struct isa_result r = run(&h, "c_fault_load", args, 64);
  cr_expect_eq(r.status, ISA_PAGE_FAULT, "status %d: %s", r.status, r.message);
  cr_expect_eq(r.fault_va, 0x00007ff012340000ull, "fault va 0x%llx", (unsigned long long)r.fault_va);
  cr_expect(!r.fault_write);
  cr_expect_neq(strstr(r.message, "flat_load_dword"), NULL, "%s", r.message);
  cr_expect_eq(out[0], 0, "no store after the fault");
  harness_close(&h);
}
Test(isa_control, page_fault_gfx90a) { fault_case(ISA_GFX90A); }
Test(isa_control, page_fault_gfx942) { fault_case(ISA_GFX942); }

Test(isa_control, memrealtime_monotonic)
{
  struct harness h;
  open_alu(&h, ISA_GFX942);
  uint64_t *out = harness_alloc(&h, 64);
  void *args[4] = {out, out, out, out};
  struct isa_result r = run(&h, "c_memrealtime", args, 64);
  cr_assert_eq(r.status, ISA_OK, "%s", r.message);
  cr_expect_neq(out[0], 0);
  cr_expect_geq(out[1], out[0]);
  harness_close(&h);
}

static void flat_private_case(enum isa_target t)
{
  struct harness h;
  open_alu(&h, t);
  uint32_t *out = harness_alloc(&h, 256);
  void *args[4] = {out, out, out, out};
  struct isa_result r = run(&h, "c_flat_private", args, 64);
  cr_assert_eq(r.status, ISA_OK, "%s", r.message);
  for (int l = 0; l < 64; l++)
    cr_expect_eq(out[l], 100u + l, "lane %d: %u", l, out[l]);
  harness_close(&h);
}
Test(isa_control, flat_private_gfx90a) { flat_private_case(ISA_GFX90A); }
Test(isa_control, flat_private_gfx942) { flat_private_case(ISA_GFX942); }

Test(isa_control, bad_dispatch_is_refused)
{
  struct harness h;
  open_alu(&h, ISA_GFX942);
  uint32_t *out = harness_alloc(&h, 256);
  void *args[4] = {out, out, out, out};
  struct harness_launch l = {.name = "c_trap", .grid = {2048, 1, 1}, .block = {2048, 1, 1},
                             .kernarg = args, .kernarg_size = sizeof(args)};
  struct isa_result r;
  cr_assert_eq(harness_run(&h, &l, &r), 0);
  cr_expect_eq(r.status, ISA_BAD_DISPATCH, "a 2048-item workgroup must be refused: %s", r.message);
  isa_dispatch_run(NULL, &r);
  cr_expect_eq(r.status, ISA_BAD_DISPATCH);
  harness_close(&h);
}

/* Cancellation (isa_dispatch.cancel): a kernel that never ends must end the dispatch with
 * ISA_CANCELLED once the flag is set, whether its waves loop forever or wait at a grid barrier
 * that is never released. A helper thread sets the flag once the kernel has shown it runs (it
 * stores 1 to out[0] before looping), so nothing here depends on timing. */
struct canceller {
  volatile uint32_t *seen;
  volatile int flag;
};

static void *cancel_when_running(void *arg)
{
  struct canceller *c = arg;
  while (!__atomic_load_n(c->seen, __ATOMIC_ACQUIRE))
    sched_yield();
  __atomic_store_n(&c->flag, 1, __ATOMIC_RELEASE);
  return NULL;
}

static void cancel_case(enum isa_target t, const char *kernel, uint32_t groups, unsigned threads)
{
  struct harness h;
  open_alu(&h, t);
  uint32_t *out = harness_alloc(&h, 256);
  void *args[4] = {out, out, out, out};
  struct canceller c = {.seen = out, .flag = 0};
  h.cancel = &c.flag;
  h.host_threads = threads;
  pthread_t th;
  cr_assert_eq(pthread_create(&th, NULL, cancel_when_running, &c), 0);
  struct harness_launch l = {.name = kernel, .grid = {64 * groups, 1, 1}, .block = {64, 1, 1},
                             .kernarg = args, .kernarg_size = sizeof(args)};
  struct isa_result r;
  cr_assert_eq(harness_run(&h, &l, &r), 0, "kernel %s not found", kernel);
  pthread_join(th, NULL);
  cr_expect_eq(r.status, ISA_CANCELLED, "%s: status %d (%s)", kernel, r.status, r.message);
  cr_expect_eq(out[0], 1);
  harness_close(&h);
}
Test(isa_control, cancel_infinite_loop_gfx90a) { cancel_case(ISA_GFX90A, "c_spin", 4, 2); }
Test(isa_control, cancel_infinite_loop_gfx942) { cancel_case(ISA_GFX942, "c_spin", 5, 1); }
Test(isa_control, cancel_at_grid_barrier_gfx90a) { cancel_case(ISA_GFX90A, "c_gws_spin", 2, 1); }
Test(isa_control, cancel_at_grid_barrier_gfx942) { cancel_case(ISA_GFX942, "c_gws_spin", 2, 2); }

/* A grid barrier that waits for more waves than the dispatch has is reported as an error
 * instead of hanging. */
static void gws_deadlock_case(enum isa_target t)
{
  struct harness h;
  open_alu(&h, t);
  uint32_t *out = harness_alloc(&h, 256);
  void *args[4] = {out, out, out, out};
  h.host_threads = 1;
  /* one workgroup of one wave, whose workgroup 0 waits for two waves */
  struct harness_launch l = {.name = "c_gws_spin", .grid = {64, 1, 1}, .block = {64, 1, 1},
                             .kernarg = args, .kernarg_size = sizeof(args)};
  struct isa_result r;
  cr_assert_eq(harness_run(&h, &l, &r), 0);
  cr_expect_neq(r.status, ISA_OK);
  cr_expect(strstr(r.message, "ds_gws_barrier") != NULL, "message: %s", r.message);
  harness_close(&h);
}
Test(isa_control, gws_impossible_barrier_gfx90a) { gws_deadlock_case(ISA_GFX90A); }
Test(isa_control, gws_impossible_barrier_gfx942) { gws_deadlock_case(ISA_GFX942); }
