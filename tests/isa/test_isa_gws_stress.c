/* Stress of the GWS grid barrier (ds_gws_barrier, what grid.sync() compiles to): many dispatches
 * of kernels2.hip's gws_sync over several grid sizes and 1..4 host threads. A cooperative launch
 * needs every workgroup resident at once; the interpreter parks a workgroup whose waves all wait
 * at the barrier (sim/isa/wg_park.c) and runs others on the same host threads, and releases the
 * parked ones when the last wave arrives. A lost release or a workgroup claimed but never run
 * would deadlock the dispatch; such races show up only in some interleavings, hence the
 * repetition. */
#include <criterion/criterion.h>
#include <stdio.h>

#include "harness.h"

static void stress(const char *file, enum isa_target t)
{
  char path[512];
  snprintf(path, sizeof(path), "%s/%s", ISA_TEST_KERNEL_DIR, file);
  static const int sizes[] = {1, 2, 3, 4, 5, 8, 13, 16};
  for (unsigned threads = 1; threads <= 4; threads++) {
    for (unsigned s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
      /* one harness per size: every launch takes two of its regions (kernarg, packet) */
      struct harness h;
      cr_assert_eq(harness_open(&h, path, t), 0, "cannot load %s", path);
      h.host_threads = threads;
      int *sum = harness_alloc(&h, 4), *seen = harness_alloc(&h, 16 * 4);
      int n = sizes[s];
      for (int rep = 0; rep < 25; rep++) {
        *sum = 0;
        for (int k = 0; k < n; k++) seen[k] = -1;
        struct { int *sum, *seen; int n; } args = {sum, seen, n};
        struct harness_launch l = {.name = "gws_sync", .grid = {(uint32_t)n * 64, 1, 1},
                                   .block = {64, 1, 1}, .kernarg = &args, .kernarg_size = 20};
        struct isa_result r;
        cr_assert_eq(harness_run(&h, &l, &r), 0);
        cr_assert_eq(r.status, ISA_OK, "%u threads, %d blocks: %s", threads, n, r.message);
        for (int k = 0; k < n; k++)
          cr_assert_eq(seen[k], n * (n + 1) / 2, "%u threads, %d blocks, rep %d: block %d saw %d",
                       threads, n, rep, k, seen[k]);
      }
      harness_close(&h);
    }
  }
}

/* __ockl_grid_sync, the device library's grid barrier (workgroup barrier, one wave per
 * workgroup at GWS, workgroup barrier), with workgroups of one to four waves. */
static void stress_ockl(const char *file, enum isa_target t)
{
  char path[512];
  snprintf(path, sizeof(path), "%s/%s", ISA_TEST_KERNEL_DIR, file);
  static const int sizes[] = {1, 2, 3, 4, 7, 12};
  static const int blocks[] = {64, 128, 256};
  for (unsigned threads = 1; threads <= 4; threads++) {
    for (unsigned s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
      for (unsigned b = 0; b < sizeof(blocks) / sizeof(blocks[0]); b++) {
        struct harness h;
        cr_assert_eq(harness_open(&h, path, t), 0, "cannot load %s", path);
        h.host_threads = threads;
        int groups = sizes[s], block = blocks[b], n = groups * block;
        int *data = harness_alloc(&h, (size_t)n * 4), *out = harness_alloc(&h, (size_t)n * 4);
        for (int rep = 0; rep < 8; rep++) {
          for (int i = 0; i < n; i++) data[i] = out[i] = -1;
          struct { int *data, *out; int n; } args = {data, out, n};
          struct harness_launch l = {.name = "ockl_grid", .grid = {(uint32_t)n, 1, 1},
                                     .block = {(uint32_t)block, 1, 1}, .kernarg = &args,
                                     .kernarg_size = 20};
          struct isa_result r;
          cr_assert_eq(harness_run(&h, &l, &r), 0);
          cr_assert_eq(r.status, ISA_OK, "%u threads, %d x %d: %s", threads, groups, block, r.message);
          for (int i = 0; i < n; i++)
            cr_assert_eq(out[i], ((i + block) % n) * 2 + 1, "%u threads, %d x %d, rep %d: item %d read %d",
                         threads, groups, block, rep, i, out[i]);
        }
        harness_close(&h);
      }
    }
  }
}

/* Many barriers per dispatch: a workgroup released by one barrier often arrives at the next
 * before the workgroups it released have woken. */
static void stress_rounds(const char *file, enum isa_target t)
{
  char path[512];
  snprintf(path, sizeof(path), "%s/%s", ISA_TEST_KERNEL_DIR, file);
  static const int sizes[] = {2, 3, 5, 8};
  enum { rounds = 40, block = 64 };
  for (unsigned threads = 1; threads <= 4; threads++) {
    for (unsigned s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
      struct harness h;
      cr_assert_eq(harness_open(&h, path, t), 0, "cannot load %s", path);
      h.host_threads = threads;
      int groups = sizes[s], n = groups * block;
      int *data = harness_alloc(&h, (size_t)n * 4), *out = harness_alloc(&h, (size_t)n * 4);
      for (int rep = 0; rep < 4; rep++) {
        struct { int *data, *out; int n, rounds; } args = {data, out, n, rounds};
        struct harness_launch l = {.name = "ockl_grid_rounds", .grid = {(uint32_t)n, 1, 1},
                                   .block = {block, 1, 1}, .kernarg = &args, .kernarg_size = 24};
        struct isa_result r;
        cr_assert_eq(harness_run(&h, &l, &r), 0);
        cr_assert_eq(r.status, ISA_OK, "%u threads, %d groups: %s", threads, groups, r.message);
        for (int i = 0; i < n; i++) {
          int src = (i + block) % n, want = rounds * src + rounds * (rounds - 1) / 2;
          cr_assert_eq(out[i], want, "%u threads, %d groups, rep %d: item %d got %d want %d",
                       threads, groups, rep, i, out[i], want);
        }
      }
      harness_close(&h);
    }
  }
}

Test(isa_gws_stress, rounds_gfx942_O3) { stress_rounds("hip2_gfx942_O3.so", ISA_GFX942); }
Test(isa_gws_stress, rounds_gfx90a_O3) { stress_rounds("hip2_gfx90a_O3.so", ISA_GFX90A); }
Test(isa_gws_stress, rounds_gfx942_O0) { stress_rounds("hip2_gfx942_O0.so", ISA_GFX942); }

Test(isa_gws_stress, ockl_gfx90a_O3) { stress_ockl("hip2_gfx90a_O3.so", ISA_GFX90A); }
Test(isa_gws_stress, ockl_gfx942_O3) { stress_ockl("hip2_gfx942_O3.so", ISA_GFX942); }
Test(isa_gws_stress, ockl_gfx90a_O0) { stress_ockl("hip2_gfx90a_O0.so", ISA_GFX90A); }

Test(isa_gws_stress, gfx90a_O3) { stress("hip2_gfx90a_O3.so", ISA_GFX90A); }
Test(isa_gws_stress, gfx942_O3) { stress("hip2_gfx942_O3.so", ISA_GFX942); }
Test(isa_gws_stress, gfx942_O0) { stress("hip2_gfx942_O0.so", ISA_GFX942); }
