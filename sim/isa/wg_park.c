/* Parked workgroups: a workgroup that waits at a grid-wide barrier leaves its host thread.
 *
 * A cooperative launch needs every workgroup of the grid resident at once (HIP limits its grid
 * to what fits: occupancy per CU times the CU count, 9728 workgroups of one wave on gfx942).
 * Giving each waiting workgroup its own blocked host thread does not scale, so when every live
 * wave of a workgroup waits (at least one at ds_gws_barrier, the others at s_barrier or there
 * too), its complete state is copied out of the worker: per wave the scalar state, the PC and
 * the registers the kernel descriptor allocates, then the workgroup's LDS and the waves'
 * private memory. The barrier's last arrival moves every parked workgroup to the ready queue,
 * from which any worker of the dispatch resumes them. All of it runs under c->lock, which the
 * barrier itself also takes, so a release can never slip between the check and the park.
 */
#include "isa/wave.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/* What a wave needs to continue on another worker. Register files, LDS and private memory
 * follow the wave array in the same block (see park_bytes). */
struct parked_wave {
  uint32_t s[128];
  uint64_t pc, gws_gen, poll_pc;
  uint32_t scc, mode, trapsts, gpr_idx, poll_insts;
  enum wave_state state;
};

struct isa_parked {
  struct isa_parked *next;
  uint32_t id[3];
  unsigned nwaves, live, at_barrier;
  struct parked_wave waves[];
};

/* Kernel descriptor rules (AMDGPUUsage, "compute_pgm_rsrc1" and "compute_pgm_rsrc3" for GFX90A
 * and GFX942): the VGPR block is (GRANULATED_WORKITEM_VGPR_COUNT + 1) * 8 registers and holds
 * the architected VGPRs then the AGPRs from ACCUM_OFFSET ((rsrc3[5:0] + 1) * 4). Registers
 * past the allocation do not exist on hardware, so a parked wave keeps only these. The
 * interpreter keeps AGPRs at a0 = 256 of its register file; saving up to the whole block on
 * both sides is safe whatever the split. */
void wg_park_setup(struct isa_ctx *c)
{
  uint32_t total = ((c->rsrc1 & 0x3f) + 1) * 8;
  uint32_t accum = ((c->rsrc3 & 0x3f) + 1) * 4;
  c->save_vgprs = total < 256 ? total : 256;
  uint32_t agprs = total > accum ? total - accum : 0;
  c->save_agprs = agprs < 256 ? agprs : 256;
}

static size_t regs_bytes(const struct isa_ctx *c)
{
  return (size_t)(c->save_vgprs + c->save_agprs) * WAVE_SIZE * 4;
}

static size_t priv_bytes(const struct isa_ctx *c)
{
  return (size_t)WAVE_SIZE * c->priv_size;
}

static size_t park_bytes(const struct isa_ctx *c, unsigned nwaves)
{
  return sizeof(struct isa_parked) + nwaves * (sizeof(struct parked_wave) + regs_bytes(c) +
                                               priv_bytes(c)) + c->lds_size;
}

static uint8_t *park_data(struct isa_parked *p)
{
  return (uint8_t *)&p->waves[p->nwaves];
}

void dispatch_fail(struct isa_ctx *c, enum isa_status st, const char *fmt, ...)
{
  pthread_mutex_lock(&c->lock);
  if (!c->failed) {
    c->failed = true;
    c->result->status = st;
    c->result->pc = c->gws_pc;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->result->message, sizeof(c->result->message), fmt, ap);
    va_end(ap);
  }
  atomic_store(&c->abort, true);
  pthread_cond_broadcast(&c->gws_cv);
  pthread_mutex_unlock(&c->lock);
}

static void save_wg(struct isa_worker *k, struct isa_parked *p)
{
  struct isa_ctx *c = k->ctx;
  struct isa_wg *g = &k->wg;
  memcpy(p->id, g->id, sizeof(p->id));
  p->nwaves = g->nwaves;
  p->live = g->live;
  p->at_barrier = g->at_barrier;
  uint8_t *d = park_data(p);
  size_t vb = (size_t)c->save_vgprs * WAVE_SIZE * 4, ab = (size_t)c->save_agprs * WAVE_SIZE * 4;
  for (unsigned i = 0; i < g->nwaves; i++) {
    struct isa_wave *w = &g->waves[i];
    struct parked_wave *s = &p->waves[i];
    memcpy(s->s, w->s, sizeof(s->s));
    s->pc = w->pc;
    s->gws_gen = w->gws_gen;
    s->poll_pc = w->poll_pc;
    s->poll_insts = w->poll_insts;
    s->scc = w->scc;
    s->mode = w->mode;
    s->trapsts = w->trapsts;
    s->gpr_idx = w->gpr_idx;
    s->state = w->state;
    /* statistics stay with the worker that ran the instructions */
    k->insts += w->insts;
    k->lane_ops += w->lane_ops;
    w->insts = w->lane_ops = 0;
    if (w->state == WAVE_DONE) {
      d += vb + ab + priv_bytes(c);
      continue;
    }
    memcpy(d, w->v[0], vb);
    d += vb;
    memcpy(d, w->v[256], ab);
    d += ab;
    if (priv_bytes(c)) /* no private segment: w->priv is NULL (memcpy's args are nonnull) */
      memcpy(d, w->priv, priv_bytes(c));
    d += priv_bytes(c);
  }
  memcpy(d, g->lds, c->lds_size);
}

/* Waves that waited at a GWS barrier generation that has ended run again. Returns whether any
 * did. c->lock held. */
static bool release_waves(struct isa_wg *g, uint64_t generation)
{
  bool any = false;
  for (unsigned i = 0; i < g->nwaves; i++) {
    struct isa_wave *w = &g->waves[i];
    if (w->state == WAVE_GWS && w->gws_gen != generation) {
      w->state = WAVE_RUN;
      any = true;
    }
  }
  return any;
}

static void restore_wg(struct isa_worker *k, const struct isa_parked *p)
{
  struct isa_ctx *c = k->ctx;
  struct isa_wg *g = &k->wg;
  memcpy(g->id, p->id, sizeof(g->id));
  g->nwaves = p->nwaves;
  g->live = p->live;
  g->at_barrier = p->at_barrier;
  g->lds = k->lds;
  g->lds_size = c->lds_size;
  g->waves = k->waves;
  const uint8_t *d = park_data((struct isa_parked *)p);
  size_t vb = (size_t)c->save_vgprs * WAVE_SIZE * 4, ab = (size_t)c->save_agprs * WAVE_SIZE * 4;
  for (unsigned i = 0; i < p->nwaves; i++) {
    struct isa_wave *w = &k->waves[i];
    const struct parked_wave *s = &p->waves[i];
    memcpy(w->s, s->s, sizeof(w->s));
    w->pc = s->pc;
    w->gws_gen = s->gws_gen;
    w->poll_pc = s->poll_pc;
    w->poll_insts = s->poll_insts;
    w->clock_reads = 0;
    w->scc = s->scc;
    w->mode = s->mode;
    w->trapsts = s->trapsts;
    w->gpr_idx = s->gpr_idx;
    w->state = s->state;
    w->yield = false;
    w->id = i;
    w->wg = g;
    w->ctx = c;
    w->worker = k;
    w->tlb = &k->tlb;
    w->cur = NULL;
    w->insts = w->lane_ops = 0;
    w->v = k->vregs[i];
    w->priv = k->priv ? k->priv + (size_t)i * priv_bytes(c) : NULL;
    w->priv_bytes = c->priv_size;
    if (s->state == WAVE_DONE) {
      d += vb + ab + priv_bytes(c);
      continue;
    }
    memcpy(w->v[0], d, vb);
    d += vb;
    memcpy(w->v[256], d, ab);
    d += ab;
    if (priv_bytes(c))
      memcpy(w->priv, d, priv_bytes(c));
    d += priv_bytes(c);
  }
  memcpy(k->lds, d, c->lds_size);
}

/* Host memory all parked workgroups of a dispatch may hold. Only a grid larger than any GPU
 * keeps resident reaches it (a cooperative launch is limited to what fits), and on hardware
 * such a grid barrier would never be released; here it fails the dispatch instead of
 * exhausting host memory. */
#define PARK_BYTES_MAX (2ull << 30)

/* A block for k's workgroup's state: a spare one, or a new one within PARK_BYTES_MAX. NULL
 * with the failure in *why. c->lock held. */
static struct isa_parked *park_block(struct isa_worker *k, const char **why)
{
  struct isa_ctx *c = k->ctx;
  struct isa_parked *p = c->spare;
  if (p) {
    c->spare = p->next;
    return p;
  }
  size_t bytes = park_bytes(c, k->wg.nwaves);
  if ((c->nparked + c->nready + 1) * (uint64_t)bytes > PARK_BYTES_MAX) {
    *why = "too many workgroups wait at once (more than a GPU keeps resident)";
    return NULL;
  }
  p = malloc(bytes);
  if (!p)
    *why = "out of host memory";
  return p;
}

/* Called by a worker whose workgroup has no runnable wave and at least one wave at a GWS
 * barrier. Returns 0 when that barrier ended meanwhile (its waves run again), 1 when the
 * workgroup is parked (the worker is free; it no longer counts as running), -1 when no host
 * memory was left to park it (the dispatch has failed). */
int wg_park(struct isa_worker *k)
{
  struct isa_ctx *c = k->ctx;
  pthread_mutex_lock(&c->lock);
  if (release_waves(&k->wg, atomic_load(&c->gws_generation))) {
    pthread_mutex_unlock(&c->lock);
    return 0;
  }
  const char *why = NULL;
  struct isa_parked *p = park_block(k, &why);
  if (!p) {
    uint64_t n = c->nparked + c->nready;
    pthread_mutex_unlock(&c->lock);
    dispatch_fail(c, ISA_BAD_DISPATCH, "ds_gws_barrier at pc 0x%llx: cannot park workgroup "
                  "(%u,%u,%u): %s; %llu parked", (unsigned long long)c->gws_pc,
                  k->wg.id[0], k->wg.id[1], k->wg.id[2], why, (unsigned long long)n);
    return -1;
  }
  p->nwaves = k->wg.nwaves;
  save_wg(k, p);
  p->next = c->parked;
  c->parked = p;
  c->nparked++;
  atomic_fetch_sub(&c->running, 1);
  pthread_mutex_unlock(&c->lock);
  return 1;
}

/* Most workgroups parked at once for polling (wg_park_polling). A GPU keeps at most its
 * resident workgroups going (9728 one-wave workgroups on an MI300X: 304 CUs x 32 waves);
 * beyond that a polling workgroup keeps its thread, as it would keep its CU. */
#define POLL_PARK_MAX 16384

/* Called by a worker whose workgroup only polled in its last pass (s_sleep loops): when other
 * workgroups wait for a thread (unclaimed, or ready), the workgroup is queued as ready behind
 * them, still runnable. Returns 1 when parked (the worker is free; it no longer counts as
 * running), 0 when it keeps the thread (also when no memory is left to park it). */
int wg_park_polling(struct isa_worker *k)
{
  struct isa_ctx *c = k->ctx;
  if (atomic_load_explicit(&c->next_wg, memory_order_relaxed) >= c->total_wgs &&
      !atomic_load_explicit(&c->nready, memory_order_relaxed))
    return 0;   /* nothing else to run: checked again under the lock below */
  pthread_mutex_lock(&c->lock);
  if ((atomic_load(&c->next_wg) >= c->total_wgs && !c->ready) ||
      c->nparked + c->nready >= POLL_PARK_MAX) {
    pthread_mutex_unlock(&c->lock);
    return 0;
  }
  const char *why = NULL;
  struct isa_parked *p = park_block(k, &why);
  if (!p) {
    pthread_mutex_unlock(&c->lock);
    return 0;   /* it keeps its thread, as on a full GPU */
  }
  p->nwaves = k->wg.nwaves;
  save_wg(k, p);
  p->next = NULL;
  if (c->ready_tail)
    c->ready_tail->next = p;
  else
    c->ready = p;
  c->ready_tail = p;
  c->nready++;
  atomic_fetch_sub(&c->running, 1);
  if (c->idle)
    pthread_cond_signal(&c->gws_cv);
  pthread_mutex_unlock(&c->lock);
  return 1;
}

/* Resume the oldest released workgroup into k, if there is one. c->lock held; the caller
 * counts k as running before it lets go of the lock. */
bool wg_resume_ready(struct isa_worker *k)
{
  struct isa_ctx *c = k->ctx;
  struct isa_parked *p = c->ready;
  if (!p)
    return false;
  c->ready = p->next;
  if (!c->ready)
    c->ready_tail = NULL;
  c->nready--;
  restore_wg(k, p);
  release_waves(&k->wg, atomic_load(&c->gws_generation));
  p->next = c->spare;
  c->spare = p;
  return true;
}

/* The last wave arrived at the GWS barrier: the generation ends and every parked workgroup
 * becomes ready (they all wait at this generation: a wave arriving after a release joins
 * the next one). Idle workers are woken to resume them. c->lock held. */
void wg_release_gws(struct isa_ctx *c)
{
  atomic_fetch_add_explicit(&c->gws_generation, 1, memory_order_release);
  if (c->parked) {
    /* parked is a stack: reverse it so workgroups resume in the order they arrived */
    struct isa_parked *rev = NULL, *last = c->parked;
    while (c->parked) {
      struct isa_parked *n = c->parked->next;
      c->parked->next = rev;
      rev = c->parked;
      c->parked = n;
    }
    if (c->ready_tail)
      c->ready_tail->next = rev;
    else
      c->ready = rev;
    c->ready_tail = last;
    c->nready += c->nparked;
    c->nparked = 0;
  }
  if (c->idle)
    pthread_cond_broadcast(&c->gws_cv);
}

static void free_list(struct isa_parked *p)
{
  while (p) {
    struct isa_parked *n = p->next;
    free(p);
    p = n;
  }
}

/* End of the dispatch (also after a fault or a cancel: parked workgroups are dropped). */
void wg_parked_free_all(struct isa_ctx *c)
{
  free_list(c->parked);
  free_list(c->ready);
  free_list(c->spare);
  c->parked = c->ready = c->ready_tail = c->spare = NULL;
  c->nparked = c->nready = 0;
}
