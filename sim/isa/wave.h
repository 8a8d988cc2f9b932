/* Interpreter-internal state: dispatch, workgroup and wave. Not part of the public interface. */
#ifndef KFDSIM_ISA_WAVE_H
#define KFDSIM_ISA_WAVE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "isa/isa.h"
#include "isa/isa_optab.h"

#define WAVE_SIZE 64
#define NUM_VREGS 512      /* v0..v255 then a0..a255 */
#define LDS_MAX (64 * 1024)
#define TLB_ENTRIES 4
#define TLB2_ENTRIES 512
#define TLB2_SHIFT 21      /* 2 MiB regions */
#define WAVE_STRIDES 4     /* load instructions a wave follows for stride prefetches */
#define TLB2_GENS 2047     /* generations in an entry's bits 11..1 */
#define ICACHE_L0 512      /* blocks.c: direct-mapped front of the decoded-instruction cache */

/* Apertures reported by src_shared_base / src_private_base: the upper 32 bits of the gfx9 LDS
 * and scratch apertures amdkfd programs (kfd_flat_memory.c: MAKE_LDS_APP_BASE_V9 = 1 << 48,
 * MAKE_SCRATCH_APP_BASE_V9 = 2 << 48). A flat address inside either goes to LDS or to the
 * work-item's private memory, which this interpreter owns. */
#define APERTURE_SHARED_BASE 0x0001000000000000ull
#define APERTURE_PRIVATE_BASE 0x0002000000000000ull
#define APERTURE_SIZE 0x0000000100000000ull

/* Base address of the private segment buffer V# given to kernels that use MUBUF scratch
 * (gfx90a). A V# holds only 48 address bits, so it cannot name the private aperture; the top 4 GiB
 * of the 48-bit space are never a user allocation (user VAs stay below 2^47), so MUBUF accesses
 * through a V# based there are private-memory accesses. */
#define PRIVATE_VSHARP_BASE 0x0000ffff00000000ull

enum wave_state { WAVE_RUN, WAVE_BARRIER, WAVE_GWS, WAVE_DONE };

struct isa_ctx;
struct isa_wg;
struct isa_parked;

/* Decoded-instruction cache of one host thread (open addressing). `key` is the PC with the
 * worker's generation tag in bits 63..48 (GPU VAs have 48 bits): an entry whose tag is not the
 * current one is empty, so a new dispatch invalidates the whole cache by changing the tag. */
/* A decoded instruction and its address, as run_wave executes it (blocks.c: icache entries
 * and block slots): w->cur points at `in`, so its address follows without a store per
 * instruction (wave_cur_pc). */
struct isa_inst_at {
  struct isa_inst in;          /* first: a pointer to it is one to the whole */
  uint64_t pc;
};

struct isa_block;
struct icache_entry {
  uint64_t key;
  struct isa_inst_at inst;     /* inst.pc: the key's PC */
  uint32_t words[2];           /* the instruction words decoded, and how many were readable */
  uint8_t nwords, target;      /* (to reuse the entry in a later dispatch: blocks.c) */
  uint8_t fused;               /* inst.exec also runs the branch in words[1] (fuse_branch) */
  uint8_t role, br;            /* its place in a block, decided at decode (blocks.c) */
  /* The decoded block starting here (blocks.c, block_get): valid while `key` carries the
   * current tag; every (re)tagging of the entry clears it. */
  struct isa_block *blk;
};

struct icache_front {
  uint64_t key;                /* as icache_entry's; 0: empty */
  struct isa_block *blk;
};

struct blk_chunk;

/* A small fully associative TLB for translate(), one per worker (host thread), shared by the
 * waves it runs: a kernel streams from several arrays at once (c[i] = a[i] + b[i] touches three
 * pages per iteration), which a single entry thrashes, and the waves of a workgroup touch the
 * same pages one after another. page[] holds the page address with bit 0 set when the entry
 * allows writes (wave_tlb_lookup). Valid for one dispatch (worker_prepare clears it). */
struct isa_tlb {
  uint64_t page[TLB_ENTRIES];
  uint8_t *host[TLB_ENTRIES];
  unsigned next;               /* round-robin replacement */
  /* Behind it, TLB2_ENTRIES direct-mapped entries of 2 MiB regions (dispatch.c, wave_page): a
   * grid-stride loop moves a wave to a new page every iteration, over the whole array, and
   * every other wave of the grid visits the same regions. An entry holds region | gen << 1 |
   * write, and the region's host address, or NULL when the region does not translate whole
   * (its pages then go one by one). Clearing bumps gen (1..TLB2_GENS) instead of writing
   * every entry. */
  unsigned gen;
  uint64_t page2[TLB2_ENTRIES];
  uint8_t *host2[TLB2_ENTRIES];
};

struct isa_wave {
  uint32_t s[128];            /* scalar operand space 0..127: SGPRs, VCC, M0, EXEC, ... */
  uint32_t scc;
  uint64_t pc;
  /* The instruction being executed, always the `in` of a struct isa_inst_at (its address:
   * wave_cur_pc), or NULL while the instruction at fetch_pc is fetched. */
  const struct isa_inst *cur;
  uint64_t fetch_pc;
  uint32_t mode;              /* HW_REG_MODE */
  uint32_t trapsts;
  uint32_t gpr_idx;           /* bit 31: VGPR indexing on (s_set_gpr_idx_on); index and mode live in M0 */
  enum wave_state state;
  bool yield;                 /* s_sleep: end this time slice so other waves (and the host) run */
  uint64_t gws_gen;           /* WAVE_GWS: the GWS barrier generation it waits to see end */
  uint64_t poll_pc;           /* PC and length of its last time slice that ended at s_sleep */
  uint32_t poll_insts;        /* (dispatch.c, wave_polled) */
  uint32_t clock_reads;       /* s_memtime/s_memrealtime run in the current time slice */
  unsigned id;                /* wave number inside the workgroup */
  uint32_t (*v)[WAVE_SIZE];   /* NUM_VREGS registers, lane-major inside a register */
  uint8_t *priv;              /* private memory, priv_bytes per lane */
  uint32_t priv_bytes;
  struct isa_wg *wg;
  struct isa_ctx *ctx;
  struct isa_worker *worker;
  uint64_t insts;
  uint64_t lane_ops;
  struct isa_tlb *tlb;         /* its worker's (struct isa_tlb) */
  /* The last address and step of a few of its load instructions (exec_mem_fast.c,
   * stride_prefetch); only a hint, never reset between waves. */
  struct wave_stride {
    const struct isa_inst *in;
    uint64_t last;
    int64_t step;
  } strides[WAVE_STRIDES];
};

struct isa_wg {
  uint32_t id[3];
  unsigned nwaves, live, at_barrier;
  struct isa_wave *waves;
  uint8_t *lds;
  uint32_t lds_size;
};

struct isa_worker {
  struct isa_ctx *ctx;
  struct icache_entry *icache;
  unsigned icache_cap, icache_used;
  uint64_t icache_tag;        /* generation in bits 63..48, never 0; see icache_entry */
  /* Direct-mapped table of decoded blocks by their first PC: one compare for the common hit.
   * Keys carry the generation tag, so a new dispatch empties it. */
  struct icache_front l0[ICACHE_L0];
  struct blk_chunk *blk_chunks;   /* where this dispatch's decoded blocks live (blocks.c) */
  struct isa_wave waves[16];
  struct isa_tlb tlb;         /* the waves' TLB (wave_page) */
  uint32_t (*vregs)[NUM_VREGS][WAVE_SIZE];   /* 16 wave register files */
  uint8_t *priv;
  size_t priv_cap;
  _Alignas(64) uint8_t lds[LDS_MAX];   /* on a cache line (dispatch.c, alloc_lines) */
  struct isa_wg wg;
  uint64_t insts, waves_run, lane_ops;
  uint64_t poll_streak;       /* consecutive passes that only polled (dispatch.c, wg_polled) */
};

struct isa_ctx {
  const struct isa_dispatch *d;
  enum isa_target target;
  uint64_t entry;                /* GPU VA of the first instruction */
  /* The kernarg segment (the descriptor's kernarg_size bytes at the packet's address),
   * translated once per dispatch for the scalar loads every wave makes from it; karg_len 0
   * when it did not translate whole (exec_smem then goes through wave_mem). */
  const uint8_t *karg_host;
  uint64_t karg_va, karg_len;
  uint32_t rsrc1, rsrc2, rsrc3;
  uint16_t code_props;
  uint32_t group_size, lds_size, priv_size;
  uint32_t wg_count[3];
  uint64_t total_wgs;
  atomic_uint_fast64_t next_wg;
  atomic_bool abort;
  pthread_mutex_t lock;          /* protects result and the GWS state */
  pthread_cond_t gws_cv;
  struct isa_result *result;
  bool failed;
  /* ds_gws_init / ds_gws_barrier (under `lock`) */
  uint32_t gws_target, gws_arrived;
  /* Incremented (under `lock`, release order) when a barrier ends; a running workgroup reads it
   * without the lock (acquire) to let its waiting waves go on. */
  atomic_uint_fast64_t gws_generation;
  uint64_t gws_pc;               /* of the last wave that arrived: for the deadlock message */
  /* Parked workgroups (wg_park.c), under `lock`. A workgroup whose waves all wait (one or more
   * at ds_gws_barrier, the rest at s_barrier or also there) leaves its host thread: its state
   * is saved and the thread runs another workgroup. A cooperative launch needs every workgroup
   * resident at once; parking gives that with a fixed number of host threads. */
  struct isa_parked *parked;     /* waiting for the current GWS generation to end */
  struct isa_parked *ready, *ready_tail;   /* released, FIFO, waiting for a host thread */
  struct isa_parked *spare;      /* saved-state blocks for reuse (all one size per dispatch) */
  uint64_t nparked;
  atomic_uint_fast64_t nready;   /* atomic: dispatch_start_helpers reads it without the lock */
  unsigned idle;                 /* workers waiting for a ready workgroup (on gws_cv) */
  /* Workers inside a workgroup or about to claim one: with no ready workgroup, none unclaimed
   * and none running, a parked workgroup can never be released (a deadlock, reported). */
  atomic_uint running;
  uint32_t save_vgprs, save_agprs;   /* registers a parked wave keeps (kernel descriptor) */
  /* Helper threads for a dispatch of several workgroups, started by the calling thread (lead)
   * only once the dispatch has run for a while (dispatch.c, HELPERS_AFTER_NS). */
  struct isa_worker *lead;
  long helpers_wanted, helpers_started;   /* started: under `lock` */
  struct isa_worker **helper_workers;
  pthread_t *helper_threads;
  uint64_t helpers_after_ns;             /* CLOCK_MONOTONIC */
  atomic_uint_fast64_t insts, waves, lane_ops;
  /* Each wave slot's initial v0 and EXEC (dispatch.c, init_wave_templates): last, so that the
   * set-up does not clear them (only the slots of a workgroup's waves are written and read). */
  uint32_t v0_init[16][WAVE_SIZE];
  uint64_t exec_init[16];
  /* Every wave's initial SGPRs up to the system ones (the user SGPRs the descriptor asks for,
   * the rest zero), where the system SGPRs start, and its initial MODE (dispatch.c). */
  uint32_t s_init[128];
  unsigned s_system;
  uint32_t mode_init;
};

/* blocks.c: the decoded-instruction cache and blocks of worker k, and the run loop */
int icache_grow(struct isa_worker *k);          /* -1: out of host memory */
void icache_invalidate(struct isa_worker *k);   /* a new dispatch: forget decoded code */
void blocks_free(struct isa_worker *k);
/* Run w for at most `budget` instructions, until it ends, waits or yields its slice; a wave
 * that stops at s_barrier hands the rest of the slice to the next runnable wave of its
 * workgroup. Returns the wave that ran last (w when none was handed the slice). */
struct isa_wave *run_wave(struct isa_wave *w, unsigned budget);

/* dispatch.c */
void wave_fail(struct isa_wave *w, enum isa_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void *wave_mem(struct isa_wave *w, uint64_t va, uint32_t len, bool write);
void *wave_page(struct isa_wave *w, uint64_t page, bool write);   /* no fault: NULL */
const void *wave_region_peek(struct isa_wave *w, uint64_t va, uint32_t len);   /* prefetches */
void wave_page_fault(struct isa_wave *w, uint64_t va, bool write);
/* wg_park.c: parking and resuming workgroups (callers hold c->lock where noted) */
void wg_park_setup(struct isa_ctx *c);
int wg_park(struct isa_worker *k);
int wg_park_polling(struct isa_worker *k);
bool wg_resume_ready(struct isa_worker *k);   /* c->lock held */
void wg_release_gws(struct isa_ctx *c);       /* c->lock held */
void wg_parked_free_all(struct isa_ctx *c);
void dispatch_fail(struct isa_ctx *c, enum isa_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
bool dispatch_cancelled(struct isa_ctx *c);

/* Set bits of a 64-bit value. The baseline x86-64 target has no popcnt instruction and
 * __builtin_popcountll becomes a library call; lane masks are counted often enough (s_bcnt1,
 * v_mbcnt, statistics) for the inline bit-parallel count to matter. */
static inline unsigned bit_count64(uint64_t v)
{
#if defined(__POPCNT__)
  return (unsigned)__builtin_popcountll(v);
#else
  v = v - ((v >> 1) & 0x5555555555555555ull);
  v = (v & 0x3333333333333333ull) + ((v >> 2) & 0x3333333333333333ull);
  v = (v + (v >> 4)) & 0x0f0f0f0f0f0f0f0full;
  return (unsigned)((v * 0x0101010101010101ull) >> 56);
#endif
}

/* The address of the instruction being executed (or fetched): for fault messages and the
 * handlers that read their own instruction word. */
static inline uint64_t wave_cur_pc(const struct isa_wave *w)
{
  return w->cur ? ((const struct isa_inst_at *)(const void *)w->cur)->pc : w->fetch_pc;
}

/* s_barrier: the wave waits until every wave of its workgroup still running has arrived (ISA
 * guide: waves that ended no longer count, and a wave at a GWS barrier has not arrived). The
 * last to arrive releases the others and goes on in the same time slice, sparing the host
 * thread a wave switch (run_wg releases the barrier instead when a wave ends while the others
 * wait). g->live still counts w and no wave that has ended (run_wg counts them as they end). */
static inline void wg_release_barrier(struct isa_wg *g)
{
  g->at_barrier = 0;
  for (unsigned j = 0; j < g->nwaves; j++)
    if (g->waves[j].state == WAVE_BARRIER)
      g->waves[j].state = WAVE_RUN;
}

static inline void wave_barrier_arrive(struct isa_wave *w)
{
  struct isa_wg *g = w->wg;
  if (g->at_barrier + 1 < g->live) {
    g->at_barrier++;
    w->state = WAVE_BARRIER;
    return;
  }
  wg_release_barrier(g);
}

static inline uint64_t wave_exec(const struct isa_wave *w)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  uint64_t m;
  memcpy(&m, &w->s[OPD_EXEC], sizeof(m));
  return m;
#else
  return (uint64_t)w->s[OPD_EXEC] | (uint64_t)w->s[OPD_EXEC + 1] << 32;
#endif
}
static inline void wave_set_exec(struct isa_wave *w, uint64_t m)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  /* one 8-byte store, which wave_exec's 8-byte load is forwarded from (wave_set_sreg64) */
  memcpy(&w->s[OPD_EXEC], &m, sizeof(m));
#else
  w->s[OPD_EXEC] = (uint32_t)m;
  w->s[OPD_EXEC + 1] = (uint32_t)(m >> 32);
#endif
}
static inline uint64_t wave_sreg64(const struct isa_wave *w, unsigned code)
{
  return (uint64_t)w->s[code & 127] | (uint64_t)w->s[(code + 1) & 127] << 32;
}
static inline void wave_set_sreg64(struct isa_wave *w, unsigned code, uint64_t v)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  /* One 8-byte store: readers (wave_sreg64, compiled to one 8-byte load) are forwarded from
   * it; from two 4-byte stores they wait until both reach the cache (VCC from v_add_co_u32
   * to v_addc_co_u32 cost a tenth of a 64-bit address add). */
  if (code < 127) {
    memcpy(&w->s[code], &v, sizeof(v));
    return;
  }
#endif
  if (code < 128) {
    w->s[code] = (uint32_t)v;
    if (code + 1 < 128)
      w->s[code + 1] = (uint32_t)(v >> 32);
  }
}
static inline uint32_t *wave_vreg(struct isa_wave *w, unsigned code)
{
  return w->v[(code - OPD_VGPR) & (NUM_VREGS - 1)];
}

/* A TLB (struct isa_tlb): an entry is the page address with bit 0 set when the entry allows
 * writes, or TLB_EMPTY. */
#define TLB_EMPTY (~0ull)

static inline void tlb_clear(struct isa_tlb *t)
{
  for (unsigned i = 0; i < TLB_ENTRIES; i++) {
    t->page[i] = TLB_EMPTY;
    t->host[i] = NULL;
  }
  if (t->gen >= 1 && t->gen < TLB2_GENS) {
    t->gen++;   /* every entry of the older generations misses */
    return;
  }
  for (unsigned i = 0; i < TLB2_ENTRIES; i++) {
    t->page2[i] = TLB_EMPTY;
    t->host2[i] = NULL;
  }
  t->gen = 1;
}

/* Host address of the 4 KiB page `page` from the wave's (worker's) TLB, NULL on a miss. x = entry ^ page
 * is 1 for an entry that allows writes, 0 for a read-only one (a hit for reads only); an
 * empty entry gives x >= 0xfff (pages are 4 KiB aligned). A read-only entry does not serve a
 * write: the page may be read-only, so the write translates again. */
static inline uint8_t *wave_tlb_lookup(const struct isa_wave *w, uint64_t page, bool write)
{
  for (unsigned i = 0; i < TLB_ENTRIES; i++) {
    uint64_t x = w->tlb->page[i] ^ page;
    if (x <= 1 && x >= (uint64_t)write)
      return w->tlb->host[i];
  }
  return NULL;
}

/* Scalar source value of `code` (SGPR, special register, inline constant, literal): SGPRs
 * (most sources) read in place, the rest by wave_scalar_src_other (exec_salu.c). */
uint64_t wave_scalar_src_other(struct isa_wave *w, const struct isa_inst *in, unsigned code,
                               unsigned width);
static inline uint64_t wave_scalar_src(struct isa_wave *w, const struct isa_inst *in, unsigned code,
                                       unsigned width)
{
  if (code < 128) {
    uint64_t v = w->s[code];
    if (width >= 2 && code + 1 < 128)
      v |= (uint64_t)w->s[code + 1] << 32;
    return v;
  }
  return wave_scalar_src_other(w, in, code, width);
}

/* Executors: return 0 to continue, -1 when the wave stopped (fault/illegal already recorded). */
int exec_salu(struct isa_wave *w, const struct isa_inst *in);
int exec_smem(struct isa_wave *w, const struct isa_inst *in);
int exec_valu(struct isa_wave *w, const struct isa_inst *in);
int exec_vmem(struct isa_wave *w, const struct isa_inst *in);
int exec_ds(struct isa_wave *w, const struct isa_inst *in);
int exec_mfma(struct isa_wave *w, const struct isa_inst *in);
int exec_illegal(struct isa_wave *w, const struct isa_inst *in);

/* Executors chosen once per decoded instruction (blocks.c, bind_executor): exec_vmem and
 * exec_ds, or for the whole-dword loads and stores a handler that goes to the direct path
 * without classifying the instruction again (exec_mem.c; same results). */
typedef int (*isa_exec_fn)(struct isa_wave *w, const struct isa_inst *in);
isa_exec_fn vmem_bind(struct isa_inst *in);
isa_exec_fn ds_bind(struct isa_inst *in);
isa_exec_fn smem_bind(struct isa_inst *in);   /* exec_salu.c: s_load_dword* */
isa_exec_fn salu_bind(struct isa_inst *in);   /* exec_salu_fast.c: the commonest SALU */
isa_exec_fn salu_fuse(struct isa_inst *in, isa_exec_fn fn, const struct isa_inst *next);
bool salu_is_nop(isa_exec_fn fn);   /* exec_salu_fast.c: fn does nothing (s_nop, s_waitcnt) */

#endif
