/* isa_dispatch_run: one AQL kernel dispatch, from the kernel descriptor to the last wave.
 *
 * Workgroups are handed to host threads from one atomic counter; inside a workgroup the waves
 * take turns on their thread (each runs until it blocks on s_barrier or ends), so a barrier needs
 * no host synchronisation. A workgroup whose waves all wait at a grid barrier (ds_gws_barrier)
 * is parked (wg_park.c) and its thread claims or resumes another, so a cooperative grid of any
 * size runs on a fixed number of host threads. Initial register state follows LLVM AMDGPUUsage,
 * "Initial Kernel Execution State", from the descriptor's enable bits.
 */
#include "isa/wave.h"

#include <stdarg.h>
#include <stddef.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <sched.h>
#include <unistd.h>

/* Kernel descriptor (AMDGPUUsage "Kernel Descriptor", code object v3+): byte offsets. */
enum {
  KD_GROUP_SEGMENT_FIXED_SIZE = 0, KD_PRIVATE_SEGMENT_FIXED_SIZE = 4, KD_KERNARG_SIZE = 8,
  KD_ENTRY_OFFSET = 16,
  KD_RSRC3 = 44, KD_RSRC1 = 48, KD_RSRC2 = 52, KD_CODE_PROPS = 56, KD_KERNARG_PRELOAD = 58,
  KD_SIZE = 64,
};

/* kernel_code_properties bits */
enum {
  KCP_PRIVATE_SEGMENT_BUFFER = 1 << 0, KCP_DISPATCH_PTR = 1 << 1, KCP_QUEUE_PTR = 1 << 2,
  KCP_KERNARG_PTR = 1 << 3, KCP_DISPATCH_ID = 1 << 4, KCP_FLAT_SCRATCH_INIT = 1 << 5,
  KCP_PRIVATE_SEGMENT_SIZE = 1 << 6, KCP_WAVE32 = 1 << 10,
};

void wave_fail(struct isa_wave *w, enum isa_status st, const char *fmt, ...)
{
  struct isa_ctx *c = w->ctx;
  pthread_mutex_lock(&c->lock);
  if (!c->failed) {
    c->failed = true;
    c->result->status = st;
    c->result->pc = wave_cur_pc(w);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->result->message, sizeof(c->result->message), fmt, ap);
    va_end(ap);
  }
  atomic_store(&c->abort, true);
  pthread_cond_broadcast(&c->gws_cv);   /* wake waves parked in ds_gws_barrier */
  pthread_mutex_unlock(&c->lock);
  w->state = WAVE_DONE;
}

void wave_page_fault(struct isa_wave *w, uint64_t va, bool write)
{
  struct isa_ctx *c = w->ctx;
  pthread_mutex_lock(&c->lock);
  if (!c->failed) {
    c->failed = true;
    c->result->status = ISA_PAGE_FAULT;
    c->result->pc = wave_cur_pc(w);
    c->result->fault_va = va;
    c->result->fault_write = write;
    snprintf(c->result->message, sizeof(c->result->message),
             "page fault: %s of 0x%llx by %s at pc 0x%llx", write ? "write" : "read",
             (unsigned long long)va, w->cur ? isa_op_name(w->cur->op) : "instruction fetch",
             (unsigned long long)wave_cur_pc(w));
  }
  atomic_store(&c->abort, true);
  pthread_cond_broadcast(&c->gws_cv);   /* wake waves parked in ds_gws_barrier */
  pthread_mutex_unlock(&c->lock);
  w->state = WAVE_DONE;
}

/* The second-level TLB slot of the 2 MiB region of `va`, and the key its entry has when it is
 * the region's (write bit clear). */
static inline unsigned tlb2_slot(const struct isa_tlb *t, uint64_t va, uint64_t *key)
{
  uint64_t rn = va >> TLB2_SHIFT;
  *key = (va & ~((1ull << TLB2_SHIFT) - 1)) | (uint64_t)t->gen << 1;
  return (unsigned)(rn ^ rn >> 9) & (TLB2_ENTRIES - 1);
}

/* Host address of the 4 KiB page at `page` through the wave's TLB, or NULL when the page does
 * not translate whole (no fault is raised). An entry made by a read does not serve a write
 * (the page may be read-only): the write translates again. */
void *wave_page(struct isa_wave *w, uint64_t page, bool write)
{
  uint8_t *h = wave_tlb_lookup(w, page, write);
  if (h)
    return h;
  struct isa_tlb *t = w->tlb;
  const struct isa_dispatch *d = w->ctx->d;
  uint64_t region = page & ~((1ull << TLB2_SHIFT) - 1), key, e;
  unsigned j = tlb2_slot(t, page, &key);
  bool known = ((t->page2[j] ^ key) & ~1ull) == 0, wr = write;
  if (known && t->host2[j] && (!write || (t->page2[j] & 1))) {
    h = t->host2[j] + (page - region);
    wr = t->page2[j] & 1;
  } else if (!(known && !t->host2[j]) &&
             (h = d->translate(d->mem_ctx, region, 1ull << TLB2_SHIFT, write))) {
    t->page2[j] = key | (write ? 1 : 0);
    t->host2[j] = h;
    h += page - region;
  } else {
    if (!write && !known) {   /* a read of the region failed: it does not translate whole */
      t->page2[j] = key;
      t->host2[j] = NULL;
    }
    h = d->translate(d->mem_ctx, page, 4096, write);
    if (!h)
      return NULL;
  }
  e = page | (wr ? 1 : 0);
  unsigned i = t->next++ % TLB_ENTRIES;
  t->page[i] = e;
  t->host[i] = h;
  return h;
}

/* Host address of [va, va+len) for reading, through the second-level TLB only (a region it
 * does not know is translated and entered there, as wave_page does), or NULL: the range spans
 * two regions or its region does not translate whole. For prefetches: the first level, which
 * holds the pages in use, is left alone, and nothing faults. */
const void *wave_region_peek(struct isa_wave *w, uint64_t va, uint32_t len)
{
  struct isa_tlb *t = w->tlb;
  uint64_t region = va & ~((1ull << TLB2_SHIFT) - 1), key;
  if (!len || va + len - 1 < va || ((va + len - 1) & ~((1ull << TLB2_SHIFT) - 1)) != region)
    return NULL;
  unsigned j = tlb2_slot(t, va, &key);
  if (((t->page2[j] ^ key) & ~1ull) != 0) {
    const struct isa_dispatch *d = w->ctx->d;
    t->page2[j] = key;
    t->host2[j] = d->translate(d->mem_ctx, region, 1ull << TLB2_SHIFT, false);
  }
  return t->host2[j] ? t->host2[j] + (va - region) : NULL;
}

/* Host address of [va, va+len). A few-page TLB per worker keeps translate() off the hot path;
 * mappings are page-granular, so a page that translates whole is cached. */
void *wave_mem(struct isa_wave *w, uint64_t va, uint32_t len, bool write)
{
  const struct isa_dispatch *d = w->ctx->d;
  uint64_t page = va & ~0xfffull, off = va & 0xfff;
  if (off + len <= 4096) {
    uint8_t *h = wave_page(w, page, write);
    if (h)
      return h + off;
  }
  void *h = d->translate(d->mem_ctx, va, len, write);
  if (!h)
    wave_page_fault(w, va, write);
  return h;
}

/* ---- workgroup setup ---- */

/* The user SGPRs the kernel descriptor asks for (code properties, in the order AMDGPUUsage's
 * "Initial Kernel Execution State" lists them), the same for every wave of the dispatch, into
 * c->s_init; every other SGPR starts as 0. */
static void init_user_sgprs(struct isa_ctx *c)
{
  const struct isa_dispatch *d = c->d;
  uint32_t *s = c->s_init;
  unsigned n = 0;
  uint16_t kcp = c->code_props;
  memset(s, 0, sizeof(c->s_init));
  if (kcp & KCP_PRIVATE_SEGMENT_BUFFER) {
    /* A buffer resource based at PRIVATE_VSHARP_BASE: MUBUF scratch accesses through it
     * land in the interpreter's per-lane private memory (exec_vmem.c). */
    s[n++] = (uint32_t)PRIVATE_VSHARP_BASE;
    s[n++] = (uint32_t)(PRIVATE_VSHARP_BASE >> 32);
    s[n++] = 0xffffffffu;
    s[n++] = 0x00027000u;
  }
  if (kcp & KCP_DISPATCH_PTR) {
    s[n++] = (uint32_t)d->packet_va;
    s[n++] = (uint32_t)(d->packet_va >> 32);
  }
  if (kcp & KCP_QUEUE_PTR) {
    s[n++] = (uint32_t)d->queue_va;
    s[n++] = (uint32_t)(d->queue_va >> 32);
  }
  if (kcp & KCP_KERNARG_PTR) {
    s[n++] = (uint32_t)d->kernarg_address;
    s[n++] = (uint32_t)(d->kernarg_address >> 32);
  }
  if (kcp & KCP_DISPATCH_ID) {
    s[n++] = (uint32_t)d->dispatch_id;
    s[n++] = (uint32_t)(d->dispatch_id >> 32);
  }
  if (kcp & KCP_FLAT_SCRATCH_INIT) {
    /* Scratch base offset 0 inside the private aperture; the per-lane size. */
    s[n++] = 0;
    s[n++] = c->priv_size;
  }
  if (kcp & KCP_PRIVATE_SEGMENT_SIZE)
    s[n++] = c->priv_size;
  /* System SGPRs start after USER_SGPR_COUNT user SGPRs (rsrc2[5:1]). */
  c->s_system = c->rsrc2 >> 1 & 0x1f;
  /* MODE: round modes rsrc1[15:12], denorm modes rsrc1[19:16], DX10 clamp [21], IEEE [23]. */
  c->mode_init = (c->rsrc1 >> 12 & 0xff) | (c->rsrc1 >> 21 & 1) << 8 | (c->rsrc1 >> 23 & 1) << 9;
}

typedef uint32_t v8u32 __attribute__((vector_size(32)));

/* 32-byte moves where the CPU has AVX2 (a clone per target, chosen once at load time, as in
 * exec_valu_fast.c), 16-byte ones elsewhere. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__linux__)
#define SETUP_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define SETUP_CLONES
#endif

/* n bytes (a multiple of 64, a constant) in vector moves, unrolled. */
static inline __attribute__((always_inline)) void copy_regs(void *restrict dst,
                                                            const void *restrict src, size_t n)
{
#pragma GCC unroll 8
  for (size_t i = 0; i < n; i += 64) {
    v8u32 x, y;
    memcpy(&x, (const uint8_t *)src + i, sizeof(x));
    memcpy(&y, (const uint8_t *)src + i + 32, sizeof(y));
    memcpy((uint8_t *)dst + i, &x, sizeof(x));
    memcpy((uint8_t *)dst + i + 32, &y, sizeof(y));
  }
}

/* A new wave's SGPRs from the dispatch's template and its v0 from the slot's (512 and 256
 * bytes a wave, for which memcpy became `rep movsq` with a start-up cost of some 30 cycles a
 * copy). */
SETUP_CLONES
static void copy_wave_templates(struct isa_ctx *c, struct isa_wave *w, unsigned slot)
{
  copy_regs(w->s, c->s_init, sizeof(w->s));
  copy_regs(w->v[0], c->v0_init[slot], sizeof(c->v0_init[slot]));
}

/* A new wave's system SGPRs, after copy_wave_templates: those rsrc2 enables (workgroup IDs
 * x, y, z; workgroup info; the private segment wave offset). */
static void init_sgprs(struct isa_ctx *c, struct isa_wave *w, const struct isa_wg *g)
{
  unsigned n = c->s_system;
  for (int i = 0; i < 3; i++)
    if (c->rsrc2 >> (7 + i) & 1)
      w->s[n++] = g->id[i];
  if (c->rsrc2 >> 10 & 1)   /* workgroup info: first wave flag, wave count */
    w->s[n++] = (w->id == 0 ? 1u << 31 : 0) | g->nwaves;
  if ((c->rsrc2 & 1) && c->target == ISA_GFX90A)
    w->s[n++] = 0;          /* private segment wave byte offset (not with architected flat scratch) */
}

/* The initial v0 (work-item IDs) and EXEC of every wave slot of a workgroup: the same for
 * every workgroup of the dispatch (AQL workgroups all have the packet's size), so computed once
 * per dispatch and copied into each new wave. */
static void init_wave_templates(struct isa_ctx *c)
{
  const struct isa_dispatch *d = c->d;
  uint32_t sx = d->workgroup_size[0] ? d->workgroup_size[0] : 1;
  uint32_t sy = d->workgroup_size[1] ? d->workgroup_size[1] : 1;
  unsigned nwaves = (c->group_size + WAVE_SIZE - 1) / WAVE_SIZE;
  uint32_t x = 0, y = 0, z = 0;
  if (sx == c->group_size) {
    /* one dimension (the common case): v0 is the lane's work-item index */
    for (unsigned i = 0; i < nwaves; i++) {
      unsigned n = c->group_size - i * WAVE_SIZE < WAVE_SIZE ? c->group_size - i * WAVE_SIZE
                                                             : WAVE_SIZE;
      for (unsigned l = 0; l < WAVE_SIZE; l++)
        c->v0_init[i][l] = l < n ? i * WAVE_SIZE + l : 0;
      c->exec_init[i] = n == WAVE_SIZE ? ~0ull : (1ull << n) - 1;
    }
    return;
  }
  /* x, y, z stepped work-item by work-item (no division per lane). */
  for (unsigned i = 0; i < nwaves; i++) {
    uint64_t m = 0;
    memset(c->v0_init[i], 0, sizeof(c->v0_init[i]));
    for (unsigned l = 0; l < WAVE_SIZE && i * WAVE_SIZE + l < c->group_size; l++) {
      m |= 1ull << l;
      /* gfx90a and gfx942 pack the work-item IDs into v0: x [9:0], y [19:10], z [29:20]. */
      c->v0_init[i][l] = x | y << 10 | z << 20;
      if (++x == sx) {
        x = 0;
        if (++y == sy) {
          y = 0;
          z++;
        }
      }
    }
    c->exec_init[i] = m;
  }
}

static int setup_wg(struct isa_worker *k, uint64_t idx)
{
  struct isa_ctx *c = k->ctx;
  struct isa_wg *g = &k->wg;
  if (c->wg_count[1] == 1 && c->wg_count[2] == 1) {
    g->id[0] = (uint32_t)idx;   /* a 1-D grid (most): no 64-bit divisions */
    g->id[1] = g->id[2] = 0;
  } else {
    g->id[0] = (uint32_t)(idx % c->wg_count[0]);
    g->id[1] = (uint32_t)(idx / c->wg_count[0] % c->wg_count[1]);
    g->id[2] = (uint32_t)(idx / ((uint64_t)c->wg_count[0] * c->wg_count[1]));
  }
  g->nwaves = (c->group_size + WAVE_SIZE - 1) / WAVE_SIZE;
  g->live = g->nwaves;
  g->at_barrier = 0;
  g->lds = k->lds;
  g->lds_size = c->lds_size;
  g->waves = k->waves;
  memset(k->lds, 0, c->lds_size);
  for (unsigned i = 0; i < g->nwaves; i++) {
    struct isa_wave *w = &k->waves[i];
    w->scc = 0;
    w->pc = c->entry;
    w->state = WAVE_RUN;
    w->id = i;
    w->wg = g;
    w->ctx = c;
    w->worker = k;
    w->tlb = &k->tlb;
    w->v = k->vregs[i];
    /* no private segment: priv is NULL, and NULL + 0 is undefined in C (UBSan) */
    w->priv = k->priv ? k->priv + (size_t)i * WAVE_SIZE * c->priv_size : NULL;
    w->priv_bytes = c->priv_size;
    w->gpr_idx = 0;
    w->trapsts = 0;
    w->poll_pc = 0;
    w->clock_reads = 0;
    w->mode = c->mode_init;
    /* The worker's TLB is kept from earlier waves: it is the dispatch's page table (cleared
     * in worker_prepare). */
    copy_wave_templates(c, w, i);
    init_sgprs(c, w, g);
    wave_set_exec(w, c->exec_init[i]);
  }
  if (c->priv_size)
    memset(k->priv, 0, (size_t)g->nwaves * WAVE_SIZE * c->priv_size);
  return 0;
}

static void dispatch_start_helpers_now(struct isa_worker *k);

/* Called between passes over a workgroup's waves and between workgroups: a test inline, the
 * work out of line. */
static inline void dispatch_start_helpers(struct isa_worker *k)
{
  struct isa_ctx *c = k->ctx;
  if (k == c->lead && !c->helpers_started && c->helpers_wanted)
    dispatch_start_helpers_now(k);
}

/* Every live wave of the workgroup waits. At a GWS barrier the workgroup is parked (wg_park.c)
 * unless the barrier ended meanwhile; with waves only at s_barrier it can never continue.
 * Returns true when the worker is done with this workgroup for now (parked or failed). */
static bool wg_blocked(struct isa_worker *k)
{
  struct isa_wg *g = &k->wg;
  for (unsigned i = 0; i < g->nwaves; i++) {
    if (g->waves[i].state == WAVE_GWS) {
      int r = wg_park(k);
      if (r < 0)
        atomic_fetch_sub(&k->ctx->running, 1);
      return r != 0;
    }
  }
  wave_fail(&g->waves[0], ISA_ILLEGAL_INSTR, "workgroup deadlocked at a barrier");
  atomic_fetch_sub(&k->ctx->running, 1);
  return true;
}

/* A wave polls when its time slice ended at s_sleep exactly as its previous one did: at the
 * same PC after the same number of instructions (a loop that found nothing new, such as a spin
 * barrier's or hostcall's wait; at -O0 one turn of such a loop is some 80 instructions). A
 * slice that did anything else (or more than POLL_INSTS) is progress. */
#define POLL_INSTS 1024
/* Consecutive polls of a worker before it sleeps between them, and the longest sleep: a wait
 * that lasts leaves the core idle (about 1000 wake-ups a second); one that ends soon costs no
 * latency. */
#define POLL_SPIN 4096
#define POLL_SLEEP_MAX_NS 1000000L

/* A slice that read the clock at least once per CLOCK_POLL_INSTS instructions also polls: a
 * delay loop on clock64()/wall_clock64() (hip-tests' waitKernel, sqr_ker_func: some 10-150
 * instructions a turn, no s_sleep) waits for time to pass. Run to completion one workgroup
 * after another, 64 workgroups of a 2 s delay took 64 s on 2 threads; taking turns, as the
 * resident workgroups of a GPU do, they all see the same 2 s go by. */
#define CLOCK_POLL_INSTS 256

static bool wave_polled(struct isa_wave *w, uint64_t insts)
{
  uint64_t reads = w->clock_reads;
  w->clock_reads = 0;
  if (reads && insts <= reads * CLOCK_POLL_INSTS)
    return true;
  if (!w->yield || insts > POLL_INSTS) {
    w->poll_pc = 0;
    return false;
  }
  bool same = w->pc == w->poll_pc && insts == w->poll_insts;
  w->poll_pc = w->pc;
  w->poll_insts = (uint32_t)insts;
  return same;
}

/* After a pass over k's workgroup's waves (`poll`: every wave that ran polled). A polling
 * workgroup yields its host thread when unclaimed or released workgroups wait for one: it is
 * parked as ready (wg_park_polling) and resumed in turn, as the hardware keeps every resident
 * workgroup going, so a grid-wide wait built from atomics and s_sleep (multi-grid sync, spin
 * barriers) completes with a fixed number of threads. A worker that has seen only polls for a
 * while sleeps a little (growing) before each further one, whichever workgroup it runs; before
 * that it yields the CPU when it has nothing else to run. Returns true when the workgroup was
 * parked (or parking failed) and the worker is free. */
static bool wg_polled(struct isa_worker *k, bool poll)
{
  struct isa_ctx *c = k->ctx;
  if (!poll) {
    k->poll_streak = 0;
    return false;
  }
  if (++k->poll_streak > POLL_SPIN) {
    uint64_t over = k->poll_streak - POLL_SPIN;
    long ns = over >= 1000 ? POLL_SLEEP_MAX_NS : (long)over * 1000;
    struct timespec ts = {0, ns};
    nanosleep(&ts, NULL);
  }
  int r = wg_park_polling(k);
  if (r) {
    if (r < 0)
      atomic_fetch_sub(&c->running, 1);
    return true;
  }
  if (k->poll_streak <= POLL_SPIN)
    sched_yield();   /* let the host (or other queues) run */
  return false;
}

/* Run k's workgroup until it ends or parks. The worker counts in c->running on entry. Returns
 * true when the workgroup ended and the worker still counts (it is about to claim another),
 * false when it parked or failed to (wg_park took it out). */
static bool run_wg(struct isa_worker *k)
{
  struct isa_wg *g = &k->wg;
  struct isa_ctx *c = k->ctx;
  while (g->live && !atomic_load_explicit(&c->abort, memory_order_relaxed)) {
    if (dispatch_cancelled(c))
      break;
    bool ran = false, polling = true;
    for (unsigned i = 0; i < g->nwaves; i++) {
      struct isa_wave *w = &g->waves[i];
      if (w->state != WAVE_RUN) {
        /* A GWS barrier may end while other waves of the workgroup still run (they may even
         * wait for this one, polling LDS): its waves go on without a park. */
        if (w->state != WAVE_GWS ||
            w->gws_gen == atomic_load_explicit(&c->gws_generation, memory_order_acquire))
          continue;
        w->state = WAVE_RUN;
      }
      ran = true;
      uint64_t before = w->insts;
      struct isa_wave *last = run_wave(w, 1u << 16);
      if (last == w) {
        polling &= wave_polled(w, w->insts - before);
      } else {
        /* w stopped at a barrier (progress) and handed its slice on: `last` ran a part of
         * one, which is not compared with its previous slices (wave_polled restarts) */
        polling = false;
        w = last;
        wave_polled(w, POLL_INSTS + 1);
      }
      if (w->state == WAVE_DONE) {
        g->live--;
        k->insts += w->insts;
        k->lane_ops += w->lane_ops;
        w->insts = w->lane_ops = 0;
        k->waves_run++;
        /* s_barrier: released once every wave still running has arrived (ISA guide: waves
         * that ended no longer count; a wave at a GWS barrier has not arrived). The last
         * wave to arrive releases it itself (wave_barrier_arrive); here, a wave that ended
         * while the others wait, the only other way for the count to be reached. */
        if (g->live && g->at_barrier == g->live)
          wg_release_barrier(g);
      }
    }
    dispatch_start_helpers(k);
    if (!ran && g->live && wg_blocked(k))
      return false;
    if (ran && g->live && wg_polled(k, polling))
      return false;
  }
  for (unsigned i = 0; i < g->nwaves; i++) {
    k->insts += g->waves[i].insts;
    k->lane_ops += g->waves[i].lane_ops;
    g->waves[i].insts = g->waves[i].lane_ops = 0;
  }
  if (c->d->waves_done)   /* progress for the command processor: once per workgroup */
    __atomic_fetch_add(c->d->waves_done, g->nwaves - g->live, __ATOMIC_RELAXED);
  return true;
}

/* No unclaimed workgroup is left for k: resume a released one, or wait (without spinning)
 * while parked ones exist and some worker still runs a workgroup that may release them.
 * Returns true with a workgroup loaded into k (k counts as running), false when this thread
 * has nothing more to do. Deadlock, the case where workgroups are parked and nothing runs,
 * fails the dispatch instead of waiting forever. */
static bool worker_resume_or_wait(struct isa_worker *k)
{
  struct isa_ctx *c = k->ctx;
  bool got = false;
  pthread_mutex_lock(&c->lock);
  for (;;) {
    if (atomic_load(&c->abort) || (c->d->cancel && *c->d->cancel))
      break;
    if (wg_resume_ready(k)) {
      atomic_fetch_add(&c->running, 1);
      got = true;
      break;
    }
    if (!c->nparked)
      break;   /* every workgroup is claimed and none waits: this thread is done */
    if (atomic_load(&c->running) == 0) {
      uint32_t arrived = c->gws_arrived;
      uint64_t parked = c->nparked;
      pthread_mutex_unlock(&c->lock);
      dispatch_fail(c, ISA_BAD_DISPATCH,
                    "ds_gws_barrier at pc 0x%llx can never be released: %u waves arrived, "
                    "%llu workgroups wait and no workgroup is left to run",
                    (unsigned long long)c->gws_pc, arrived, (unsigned long long)parked);
      return false;
    }
    /* Woken by a release (wg_release_gws) or a failure; the timeout notices cancellation. */
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += 20 * 1000 * 1000;
    if (ts.tv_nsec >= 1000000000L) {
      ts.tv_sec++;
      ts.tv_nsec -= 1000000000L;
    }
    c->idle++;
    pthread_cond_timedwait(&c->gws_cv, &c->lock, &ts);
    c->idle--;
  }
  pthread_mutex_unlock(&c->lock);
  if (!got)
    dispatch_cancelled(c);
  return got;
}

/* A worker's counts into the dispatch's, once at its end. */
static void *worker_done(struct isa_worker *k)
{
  struct isa_ctx *c = k->ctx;
  atomic_fetch_add(&c->insts, k->insts);
  atomic_fetch_add(&c->waves, k->waves_run);
  atomic_fetch_add(&c->lane_ops, k->lane_ops);
  return NULL;
}

static void *worker_main(void *arg)
{
  struct isa_worker *k = arg;
  struct isa_ctx *c = k->ctx;
  /* Counted as running before a claim (see worker_resume_or_wait's deadlock rule), and from
   * one workgroup's end to the next claim: two atomic operations a workgroup fewer. */
  bool counted = false;
  for (;;) {
    if (atomic_load(&c->abort) || dispatch_cancelled(c))
      break;
    if (!counted)
      atomic_fetch_add(&c->running, 1);
    uint64_t idx = atomic_fetch_add(&c->next_wg, 1);
    if (idx < c->total_wgs) {
      setup_wg(k, idx);
    } else {
      atomic_fetch_sub(&c->running, 1);
      if (!worker_resume_or_wait(k))
        return worker_done(k);
    }
    counted = run_wg(k);
    dispatch_start_helpers(k);
  }
  if (counted)
    atomic_fetch_sub(&c->running, 1);
  return worker_done(k);
}

static struct isa_worker *worker_new(struct isa_ctx *c);
static void worker_free(struct isa_worker *k);

/* A dispatch of several workgroups starts its helper threads only after HELPERS_AFTER_NS: a
 * thread costs about 11 us to start and join on these VMs, more than a short kernel's whole
 * run, so short dispatches finish on the calling thread alone and long ones lose at most this
 * much parallel time. */
#define HELPERS_AFTER_NS 20000ull

static uint64_t mono_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Only the lead acts (dispatch_start_helpers tests that), once, when the dispatch has run
 * HELPERS_AFTER_NS and workgroups are still unclaimed. */
static void dispatch_start_helpers_now(struct isa_worker *k)
{
  struct isa_ctx *c = k->ctx;
  /* Work for a helper: unclaimed workgroups, or parked ones a grid barrier released (read
   * without the lock: a hint, the helper checks properly). */
  if ((atomic_load_explicit(&c->next_wg, memory_order_relaxed) >= c->total_wgs && !c->nready) ||
      mono_ns() < c->helpers_after_ns)
    return;
  pthread_mutex_lock(&c->lock);
  long started = 0;
  for (long i = 0; i < c->helpers_wanted; i++) {
    struct isa_worker *h = worker_new(c);
    if (!h)
      break;
    if (pthread_create(&c->helper_threads[i], NULL, worker_main, h)) {
      worker_free(h);
      break;
    }
    c->helper_workers[i] = h;
    started++;
  }
  /* -1: tried, none started (the lead carries on alone; never tried again) */
  c->helpers_started = started ? started : -1;
  pthread_mutex_unlock(&c->lock);
}

/* Cancellation requested by the command processor (isa_dispatch.cancel): record it once and
 * stop every thread of the dispatch. One load when nothing is requested. */
bool dispatch_cancelled(struct isa_ctx *c)
{
  const volatile int *flag = c->d->cancel;
  if (!flag || !*flag)
    return false;
  pthread_mutex_lock(&c->lock);
  if (!c->failed) {
    c->failed = true;
    c->result->status = ISA_CANCELLED;
    snprintf(c->result->message, sizeof(c->result->message), "dispatch cancelled");
  }
  atomic_store(&c->abort, true);
  pthread_cond_broadcast(&c->gws_cv);
  pthread_mutex_unlock(&c->lock);
  return true;
}

/* Host memory for a worker's register files, LDS and private memory, on cache-line
 * boundaries: the handlers move registers and LDS rows 32 bytes at a time, and malloc's 16-byte
 * alignment (for the mmap'd blocks these are) made every second move span two cache lines,
 * which costs a split load or store each. */
static void *alloc_lines(size_t bytes)
{
  return aligned_alloc(64, (bytes + 63) & ~(size_t)63);
}

/* Make `k` ready for a dispatch of `c`: counters zero, enough private memory, no decoded
 * instruction left from an earlier dispatch. Returns 0 or -1 (out of memory). */
static int worker_prepare(struct isa_worker *k, struct isa_ctx *c)
{
  k->ctx = c;
  k->insts = k->waves_run = k->lane_ops = 0;
  k->poll_streak = 0;
  /* Translations are valid for one dispatch: the next may run after the mappings changed. */
  tlb_clear(&k->tlb);
  size_t priv = (size_t)16 * WAVE_SIZE * c->priv_size;
  if (priv > k->priv_cap) {
    /* cleared per workgroup (setup_wg): nothing to keep */
    void *p = alloc_lines(priv);
    if (!p)
      return -1;
    free(k->priv);
    k->priv = p;
    k->priv_cap = priv;
  }
  icache_invalidate(k);
  return 0;
}

static struct isa_worker *worker_new(struct isa_ctx *c)
{
  /* Not calloc: the 64 KiB LDS is cleared per workgroup (setup_wg), only as far as it is used. */
  struct isa_worker *k = alloc_lines(sizeof(*k));
  if (!k)
    return NULL;
  memset(k, 0, offsetof(struct isa_worker, lds));
  memset(&k->wg, 0, sizeof(*k) - offsetof(struct isa_worker, wg));
  k->vregs = alloc_lines(sizeof(*k->vregs) * 16);
  if (!k->vregs || icache_grow(k) || worker_prepare(k, c)) {
    free(k->vregs);
    free(k->priv);
    free(k->icache);
    free(k);
    return NULL;
  }
  return k;
}

static void worker_free(struct isa_worker *k)
{
  if (!k)
    return;
  free(k->vregs);
  free(k->priv);
  free(k->icache);
  blocks_free(k);
  free(k);
}

/* The calling thread's worker is kept between its dispatches (a command processor thread runs
 * one dispatch after another): allocating and clearing a 2 MiB register file, the LDS and the
 * instruction cache for every dispatch cost more than running an empty kernel. Freed when the
 * thread exits. */
static pthread_key_t g_worker_key;
static bool g_worker_key_ok;
static pthread_once_t g_worker_once = PTHREAD_ONCE_INIT;

static void worker_key_destroy(void *k) { worker_free(k); }
static void worker_key_init(void)
{
  g_worker_key_ok = pthread_key_create(&g_worker_key, worker_key_destroy) == 0;
}

/* The worker for the calling thread: its kept one when free, else a new one (kept if none is). */
static struct isa_worker *worker_for_caller(struct isa_ctx *c, bool *kept)
{
  pthread_once(&g_worker_once, worker_key_init);
  *kept = false;
  struct isa_worker *k = g_worker_key_ok ? pthread_getspecific(g_worker_key) : NULL;
  if (k && !k->ctx) {
    if (worker_prepare(k, c))
      return NULL;
    *kept = true;
    return k;
  }
  struct isa_worker *n = worker_new(c);
  if (n && !k && g_worker_key_ok && pthread_setspecific(g_worker_key, n) == 0)
    *kept = true;
  return n;
}

/* Done with the caller's worker: a kept one becomes free for the thread's next dispatch. */
static void worker_release(struct isa_worker *k, bool kept)
{
  if (kept)
    k->ctx = NULL;
  else
    worker_free(k);
}

/* Host threads a dispatch may use: online CPUs, asked once (sysconf reads sysfs each time). */
static long online_cpus(void)
{
  static _Atomic long cached;
  long n = atomic_load_explicit(&cached, memory_order_relaxed);
  if (!n) {
    n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1)
      n = 1;
    atomic_store_explicit(&cached, n, memory_order_relaxed);
  }
  return n;
}

static int read_descriptor(struct isa_ctx *c, struct isa_result *r)
{
  const struct isa_dispatch *d = c->d;
  const uint8_t *kd = d->translate(d->mem_ctx, d->kernel_object, KD_SIZE, false);
  if (!kd) {
    r->status = ISA_PAGE_FAULT;
    r->fault_va = d->kernel_object;
    snprintf(r->message, sizeof(r->message), "kernel descriptor at 0x%llx is not mapped",
             (unsigned long long)d->kernel_object);
    return -1;
  }
  int64_t entry;
  uint32_t group_fixed, priv_fixed;
  memcpy(&group_fixed, kd + KD_GROUP_SEGMENT_FIXED_SIZE, 4);
  memcpy(&priv_fixed, kd + KD_PRIVATE_SEGMENT_FIXED_SIZE, 4);
  memcpy(&entry, kd + KD_ENTRY_OFFSET, 8);
  memcpy(&c->rsrc3, kd + KD_RSRC3, 4);
  memcpy(&c->rsrc1, kd + KD_RSRC1, 4);
  memcpy(&c->rsrc2, kd + KD_RSRC2, 4);
  memcpy(&c->code_props, kd + KD_CODE_PROPS, 2);
  uint16_t preload;
  memcpy(&preload, kd + KD_KERNARG_PRELOAD, 2);
  c->entry = d->kernel_object + (uint64_t)entry;
  uint32_t karg_size;
  memcpy(&karg_size, kd + KD_KERNARG_SIZE, 4);
  c->karg_host = karg_size && d->kernarg_address
                     ? d->translate(d->mem_ctx, d->kernarg_address, karg_size, false) : NULL;
  c->karg_va = d->kernarg_address;
  c->karg_len = c->karg_host ? karg_size : 0;
  c->lds_size = d->group_segment_size > group_fixed ? d->group_segment_size : group_fixed;
  uint32_t priv = d->private_segment_size > priv_fixed ? d->private_segment_size : priv_fixed;
  c->priv_size = (priv + 15) & ~15u;
  if (c->code_props & KCP_WAVE32) {
    snprintf(r->message, sizeof(r->message), "wave32 kernels do not exist on gfx9");
    r->status = ISA_BAD_DISPATCH;
    return -1;
  }
  if (preload & 0x7f) {
    snprintf(r->message, sizeof(r->message), "kernarg preloading is not supported yet");
    r->status = ISA_BAD_DISPATCH;
    return -1;
  }
  if (c->lds_size > LDS_MAX) {
    snprintf(r->message, sizeof(r->message), "group segment of %u bytes exceeds 64 KiB", c->lds_size);
    r->status = ISA_BAD_DISPATCH;
    return -1;
  }
  return 0;
}

static int check_packet(struct isa_ctx *c, struct isa_result *r)
{
  const struct isa_dispatch *d = c->d;
  uint64_t total = 1, gs = 1;
  for (int i = 0; i < 3; i++) {
    uint32_t wgs = d->workgroup_size[i], grid = d->grid_size[i];
    if (i >= d->setup_dims) {
      wgs = wgs ? wgs : 1;
      grid = grid ? grid : 1;
    }
    if (!wgs || !grid) {
      r->status = ISA_BAD_DISPATCH;
      snprintf(r->message, sizeof(r->message), "zero workgroup or grid size in dimension %d", i);
      return -1;
    }
    c->wg_count[i] = (grid + wgs - 1) / wgs;
    total *= c->wg_count[i];
    gs *= wgs;
  }
  if (gs > 1024 || d->setup_dims < 1 || d->setup_dims > 3 || !d->translate) {
    r->status = ISA_BAD_DISPATCH;
    snprintf(r->message, sizeof(r->message), "invalid dispatch: workgroup of %llu items, %u dims",
             (unsigned long long)gs, d->setup_dims);
    return -1;
  }
  c->group_size = (uint32_t)gs;
  c->total_wgs = total;
  return 0;
}

void isa_dispatch_run(const struct isa_dispatch *d, struct isa_result *r)
{
  memset(r, 0, sizeof(*r));
  if (!d) {
    r->status = ISA_BAD_DISPATCH;
    snprintf(r->message, sizeof(r->message), "no dispatch");
    return;
  }
  struct isa_ctx c;
  memset(&c, 0, offsetof(struct isa_ctx, v0_init));
  c.d = d;
  c.target = d->target;
  c.result = r;
  if (check_packet(&c, r) || read_descriptor(&c, r))
    return;
  /* Static initialisers: no library calls for a lock most dispatches never take. */
  c.lock = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER;
  c.gws_cv = (pthread_cond_t)PTHREAD_COND_INITIALIZER;
  atomic_init(&c.next_wg, 0);
  atomic_init(&c.abort, false);
  atomic_init(&c.insts, 0);
  atomic_init(&c.waves, 0);
  atomic_init(&c.lane_ops, 0);
  atomic_init(&c.running, 0);
  atomic_init(&c.gws_generation, 0);
  wg_park_setup(&c);
  init_wave_templates(&c);
  init_user_sgprs(&c);

  long cores = d->host_threads ? (long)d->host_threads : online_cpus();
  if ((uint64_t)cores > c.total_wgs)
    cores = (long)c.total_wgs;
  /* The calling thread is the lead worker; up to cores - 1 helpers join it later
   * (dispatch_start_helpers). Small tables (the common case) need no heap. */
  struct isa_worker *hw_small[8];
  pthread_t ht_small[8];
  long helpers = cores - 1;
  bool small = helpers <= 8;
  c.helper_workers = small ? hw_small : calloc((size_t)helpers, sizeof(*c.helper_workers));
  c.helper_threads = small ? ht_small : calloc((size_t)helpers, sizeof(*c.helper_threads));
  c.helpers_wanted = c.helper_workers && c.helper_threads ? helpers : 0;
  c.helpers_after_ns = helpers ? mono_ns() + HELPERS_AFTER_NS : 0;
  bool kept = false;            /* the lead is the calling thread's kept worker */
  struct isa_worker *lead = worker_for_caller(&c, &kept);
  c.lead = lead;
  if (!lead) {
    r->status = ISA_BAD_DISPATCH;
    snprintf(r->message, sizeof(r->message), "out of host memory");
  } else {
    worker_main(lead);
    /* Helpers are started only by the lead, inside worker_main: all exist by now. */
    for (long i = 0; i < c.helpers_started; i++)
      pthread_join(c.helper_threads[i], NULL);
    worker_release(lead, kept);
  }
  for (long i = 0; i < c.helpers_started; i++)
    worker_free(c.helper_workers[i]);
  wg_parked_free_all(&c);
  if (!small) {
    free(c.helper_workers);
    free(c.helper_threads);
  }
  r->instructions_executed = atomic_load(&c.insts);
  r->waves_executed = atomic_load(&c.waves);
  r->lane_ops = atomic_load(&c.lane_ops);
  pthread_mutex_destroy(&c.lock);
  pthread_cond_destroy(&c.gws_cv);
}
