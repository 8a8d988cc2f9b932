/* The interpreter's TLB (sim/isa/dispatch.c wave_page, wave.h struct isa_tlb): four page
 * entries in front of 512 direct-mapped 2 MiB regions. A wave is given a translate() over a
 * made-up address space and asked for pages; every answer must be what translate() itself says
 * for that page: the host address where the page is mapped, NULL where it is not or where a
 * write meets a read-only page, whichever entries were made before, and nothing from before a
 * tlb_clear (the next dispatch may run after the mappings changed). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "isa/wave.h"

#define REGION (1ull << TLB2_SHIFT)
#define BASE 0x0000200000000000ull   /* GPU VA of region 0 */
#define NREGIONS 3

/* Region 0 is mapped whole and writable; region 1 whole, with page 5 read-only; region 2 has
 * page 7 unmapped. `shift` moves every host address (a remapping between dispatches). */
struct space {
  uint8_t *host;
  size_t shift;
  unsigned calls;
};

static bool page_ok(uint64_t va, bool write)
{
  uint64_t r = (va - BASE) / REGION, p = (va - BASE) % REGION / 4096;
  if (r == 1 && p == 5 && write)
    return false;
  return !(r == 2 && p == 7);
}

static void *translate(void *ctx, uint64_t va, uint64_t len, bool write)
{
  struct space *s = ctx;
  s->calls++;
  if (va < BASE || len == 0 || va + len < va || va + len > BASE + NREGIONS * REGION)
    return NULL;
  for (uint64_t p = va & ~0xfffull; p < va + len; p += 4096)
    if (!page_ok(p, write))
      return NULL;
  return s->host + s->shift + (va - BASE);
}

/* The host address translate() gives one page, without counting. */
static uint8_t *expect(struct space *s, uint64_t page, bool write)
{
  return page_ok(page, write) ? s->host + s->shift + (page - BASE) : NULL;
}

struct rig {
  struct space space;
  struct isa_dispatch d;
  struct isa_ctx ctx;
  struct isa_wave w;
  struct isa_tlb tlb;
};

static void rig_init(struct rig *g)
{
  memset(g, 0, sizeof(*g));
  /* addresses only: the TLB never touches the memory */
  g->space.host = (uint8_t *)(uintptr_t)0x10000000ull;
  g->d.mem_ctx = &g->space;
  g->d.translate = translate;
  g->ctx.d = &g->d;
  g->w.ctx = &g->ctx;
  g->w.tlb = &g->tlb;
  tlb_clear(&g->tlb);
}

static uint64_t random_page(uint64_t *rng)
{
  return BASE + (harness_xorshift(rng) % (NREGIONS * REGION / 4096)) * 4096;
}

Test(isa_tlb, every_page_as_translate_gives_it)
{
  struct rig g;
  rig_init(&g);
  uint64_t rng = 88172645463325252ull;
  for (unsigned i = 0; i < 20000; i++) {
    uint64_t page = random_page(&rng);
    bool write = rng & 1;
    cr_assert_eq(wave_page(&g.w, page, write), expect(&g.space, page, write),
                 "page 0x%llx %s", (unsigned long long)page, write ? "write" : "read");
  }
}

Test(isa_tlb, a_region_that_translates_whole_needs_one_call)
{
  struct rig g;
  rig_init(&g);
  for (uint64_t p = 0; p < 64; p++) {
    uint64_t page = BASE + p * 4096 * 7;
    cr_assert_eq(wave_page(&g.w, page, false), expect(&g.space, page, false));
  }
  cr_expect_eq(g.space.calls, 1, "%u calls for pages of one whole region", g.space.calls);
  /* region 2 does not translate whole: its pages go one by one (the region tried once) */
  g.space.calls = 0;
  for (uint64_t p = 0; p < 16; p++) {
    uint64_t page = BASE + 2 * REGION + p * 4096;
    cr_assert_eq(wave_page(&g.w, page, false), expect(&g.space, page, false));
  }
  cr_expect_eq(g.space.calls, 1 + 16, "%u calls", g.space.calls);
}

Test(isa_tlb, a_read_entry_does_not_serve_a_write_to_a_read_only_page)
{
  struct rig g;
  rig_init(&g);
  uint64_t ro = BASE + REGION + 5 * 4096;
  cr_assert_eq(wave_page(&g.w, ro, false), expect(&g.space, ro, false));
  cr_assert_null(wave_page(&g.w, ro, true));
  cr_assert_eq(wave_page(&g.w, ro - 4096, true), expect(&g.space, ro - 4096, true));
  cr_assert_null(wave_page(&g.w, ro, true));
  cr_assert_null(wave_page(&g.w, BASE + 2 * REGION + 7 * 4096, false));
}

Test(isa_tlb, nothing_survives_a_clear)
{
  struct rig g;
  rig_init(&g);
  uint64_t rng = 1181783497276652981ull;
  /* more clears than the generations an entry can tell apart */
  for (unsigned round = 0; round < TLB2_GENS + 40; round++) {
    g.space.shift = (size_t)round * 4096;
    tlb_clear(&g.tlb);
    for (unsigned i = 0; i < 3; i++) {
      uint64_t page = random_page(&rng);
      cr_assert_eq(wave_page(&g.w, page, false), expect(&g.space, page, false),
                   "round %u page 0x%llx", round, (unsigned long long)page);
    }
  }
}

/* wave_region_peek (stride prefetches): the host address of a range inside one region that
 * translates whole, NULL for a range over two regions, in a region with a hole or outside the
 * space; the page entries in use are left as they were, and a region is translated once. */
Test(isa_tlb, a_prefetch_peek_sees_whole_regions_only_and_keeps_the_page_entries)
{
  struct rig g;
  rig_init(&g);
  uint64_t in_use = BASE + REGION + 3 * 4096;
  cr_assert_eq(wave_page(&g.w, in_use, false), expect(&g.space, in_use, false));
  struct isa_tlb before = g.tlb;
  g.space.calls = 0;
  uint64_t va = BASE + 5 * 4096 + 64;
  cr_assert_eq(wave_region_peek(&g.w, va, 512), g.space.host + (va - BASE));
  cr_assert_eq(wave_region_peek(&g.w, va + 4096, 512), g.space.host + (va + 4096 - BASE));
  cr_expect_eq(g.space.calls, 1, "%u calls for one region", g.space.calls);
  cr_assert_null(wave_region_peek(&g.w, BASE + REGION - 256, 512), "a range over two regions");
  cr_assert_null(wave_region_peek(&g.w, BASE + 2 * REGION + 64, 512), "a region with a hole");
  cr_assert_null(wave_region_peek(&g.w, BASE + NREGIONS * REGION, 512), "outside the space");
  cr_assert_null(wave_region_peek(&g.w, ~0ull - 100, 512), "past the top of the address space");
  cr_assert_eq(memcmp(g.tlb.page, before.page, sizeof(before.page)), 0);
  cr_assert_eq(memcmp(g.tlb.host, before.host, sizeof(before.host)), 0);
  cr_assert_eq(g.tlb.next, before.next);
  /* the region the peek entered serves wave_page as translate() would */
  cr_assert_eq(wave_page(&g.w, BASE + 9 * 4096, true), expect(&g.space, BASE + 9 * 4096, true));
}
