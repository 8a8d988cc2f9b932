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
#include "isa/exec_valu_fast.h"   /* valu_bind */
#include "isa/image.h"   /* exec_image (textures) */

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

#define ICACHE_MIN 1024

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

/* Host address of the 4 KiB page at `page` through the wave's TLB, or NULL when the page does
 * not translate whole (no fault is raised). An entry made by a read does not serve a write
 * (the page may be read-only): the write translates again. */
void *wave_page(struct isa_wave *w, uint64_t page, bool write)
{
  uint8_t *h = wave_tlb_lookup(w, page, write);
  if (h)
    return h;
  const struct isa_dispatch *d = w->ctx->d;
  h = d->translate(d->mem_ctx, page, 4096, write);
  if (h) {
    unsigned i = w->tlb_next++ % TLB_ENTRIES;
    w->tlb_page[i] = page | (write ? 1 : 0);
    w->tlb_host[i] = h;
  }
  return h;
}

/* Host address of [va, va+len). A few-page TLB per wave keeps translate() off the hot path;
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

/* ---- decoded-instruction cache ---- */

#define ICACHE_TAG_SHIFT 48
#define ICACHE_PC_MASK ((1ull << ICACHE_TAG_SHIFT) - 1)

static uint64_t hash_pc(uint64_t pc)
{
  return ((pc & ICACHE_PC_MASK) >> 2) * 0x9E3779B97F4A7C15ull;
}

static bool icache_live(const struct isa_worker *k, uint64_t key)
{
  return (key & ~ICACHE_PC_MASK) == k->icache_tag;
}

/* Rebuild the table without earlier dispatches' entries: twice the size when the live ones
 * fill a quarter of it, else the same size (stale entries alone never grow it). The blocks
 * (and the front table pointing at them) do not move. */
static int icache_grow(struct isa_worker *k)
{
  unsigned live = 0;
  for (unsigned i = 0; i < k->icache_cap; i++)
    live += icache_live(k, k->icache[i].key);
  unsigned cap = !k->icache_cap ? ICACHE_MIN
                 : (live + 1) * 4 > k->icache_cap ? k->icache_cap * 2 : k->icache_cap;
  struct icache_entry *n = calloc(cap, sizeof(*n));
  if (!n)
    return -1;
  if (!k->icache_tag)
    k->icache_tag = 1ull << ICACHE_TAG_SHIFT;
  unsigned used = 0;
  for (unsigned i = 0; i < k->icache_cap; i++) {
    if (!icache_live(k, k->icache[i].key))
      continue;   /* earlier dispatches' entries are dropped */
    uint64_t h = hash_pc(k->icache[i].key) & (cap - 1);
    while (n[h].key)
      h = (h + 1) & (cap - 1);
    n[h] = k->icache[i];
    used++;
  }
  free(k->icache);
  k->icache = n;
  k->icache_cap = cap;
  k->icache_used = used;
  return 0;
}

/* ---- decoded blocks ----
 *
 * run_wave executes straight-line runs of decoded instructions (blocks) with no cache lookup,
 * budget or state check between them. A block starts at a PC the wave reached and ends after
 * the first instruction that may change the PC, read it, stop the wave or end its time slice,
 * or write EXEC (block_ends), or after BLOCK_MAX instructions, or before an instruction that
 * cannot be fetched or decoded (the wave faults when it gets there, as before). Its other
 * instructions therefore run one after another whatever they compute, and see the EXEC the
 * block started with (one lane count per block). The instructions are copies of the icache's
 * entries, so a block sees the words the icache decoded; its lookahead reads the words of a
 * straight-line run when the run is entered, as the hardware's instruction prefetch does.
 * Blocks live for one dispatch of one worker (blocks_reset at icache_invalidate). */

#define BLOCK_MAX 64          /* instructions of one block */
#define BLK_CHUNK (64 * 1024) /* bytes of block storage allocated at a time */

struct blk_slot {
  struct isa_inst_at at;      /* the executor gets &at.in; w->cur points there */
  uint32_t ord;               /* instructions of the block up to this one (folded ones too) */
  uint32_t valu_ord;          /* VALU instructions up to this one */
};

/* How a block's next PC is found: BR_NONE, w->pc after its last instruction (which may have
 * moved it); else the block ends with that branch (no slot: run_wave evaluates it). */
enum blk_branch {
  BR_NONE, BR_ALWAYS, BR_SCC0, BR_SCC1, BR_VCCZ, BR_VCCNZ, BR_EXECZ, BR_EXECNZ,
};

struct blk_next {
  uint64_t pc;
  struct isa_block *blk;
};

struct isa_block {
  uint64_t pc;                /* of its first instruction */
  uint64_t end_pc;            /* the address after the last instruction */
  uint64_t target;            /* the branch's target (br != BR_NONE) */
  const struct blk_slot *end; /* slot + n */
  /* The blocks last run after this one (the fall-through and the branch target, most
   * often), so that the next one is found without the front table. Both start as this block
   * itself: a true pair whatever the PC. */
  struct blk_next next[2];
  uint32_t n;                 /* slots */
  uint32_t ninsts;            /* instructions: s_nop/s_waitcnt (no slot) count, fused pairs as 1 */
  uint32_t nvalu;             /* VALU instructions (lane operations: nvalu x active lanes) */
  uint8_t br;                 /* enum blk_branch */
  /* Whether it may run again at once when it branches to itself: it ends with a branch, alone
   * (br) or fused with a compare, so none of its instructions changes EXEC, the wave's state
   * or the time slice (block_ends). */
  bool loops;
  struct blk_slot slot[];
};

struct blk_chunk {
  struct blk_chunk *prev;
  size_t used;
  _Alignas(16) unsigned char data[BLK_CHUNK];
};

static void *blk_alloc(struct isa_worker *k, size_t bytes)
{
  struct blk_chunk *c = k->blk_chunks;
  bytes = (bytes + 15) & ~(size_t)15;
  if (!c || c->used + bytes > BLK_CHUNK) {
    struct blk_chunk *n = malloc(sizeof(*n));
    if (!n)
      return NULL;
    n->prev = c;
    n->used = 0;
    k->blk_chunks = c = n;
  }
  void *p = c->data + c->used;
  c->used += bytes;
  return p;
}

/* Give back the end of p, the arena's last allocation, beyond its first `bytes`. */
static void blk_trim(struct isa_worker *k, void *p, size_t bytes)
{
  struct blk_chunk *c = k->blk_chunks;
  c->used = (size_t)((unsigned char *)p - c->data) + ((bytes + 15) & ~(size_t)15);
}

static void blk_free_chain(struct blk_chunk *c)
{
  while (c) {
    struct blk_chunk *p = c->prev;
    free(c);
    c = p;
  }
}

/* Drop every block (a new dispatch): the newest chunk is kept for the next blocks. */
static void blocks_reset(struct isa_worker *k)
{
  struct blk_chunk *c = k->blk_chunks;
  if (!c)
    return;
  blk_free_chain(c->prev);
  c->prev = NULL;
  c->used = 0;
}

/* Forget every decoded instruction and block: the next dispatch may run other code at the same
 * addresses (a module unloaded and another loaded in its place). One store, except when the
 * 16-bit generation wraps, which clears the table for real. The entries stay in their slots
 * (icache_used counts them) as stale ones: icache_get reuses one whose instruction words are
 * still those in memory instead of decoding them again. Blocks are decoded again (their later
 * instructions may have changed). */
static void icache_invalidate(struct isa_worker *k)
{
  uint64_t next = (k->icache_tag >> ICACHE_TAG_SHIFT) + 1;
  if (next > 0xffff) {
    memset(k->icache, 0, (size_t)k->icache_cap * sizeof(*k->icache));
    memset(k->l0, 0, sizeof(k->l0));
    k->icache_used = 0;
    next = 1;
  }
  k->icache_tag = next << ICACHE_TAG_SHIFT;
  blocks_reset(k);
}

static void bind_executor(struct isa_inst *in);
static void entry_classify(struct icache_entry *e);

/* A one-dword SALU compare or s_and_saveexec_b64 whose next word is the conditional branch on
 * its result runs with that branch as one handler (exec_salu_fast.c, salu_fuse). The branch's
 * word is the second of the two this entry was decoded from, so the cache's reuse test (both
 * words unchanged) covers it. Returns true when fused. */
static bool fuse_branch(enum isa_target t, struct isa_inst *in, uint32_t next_word)
{
  if ((in->enc != ENC_SOPC && in->enc != ENC_SOP1) || in->size != 4)
    return false;
  struct isa_inst next;
  char msg[8];
  if (isa_decode(t, &next_word, 1, &next, msg, sizeof(msg)))
    return false;
  isa_exec_fn f = salu_fuse(in, in->exec, &next);
  if (f)
    in->exec = f;
  return f != NULL;
}

/* The slot of `pc` in k's table (an entry of any generation), or of the empty slot that
 * ends its probe sequence. Entries are never removed, only replaced, so a probe that meets an
 * empty slot has seen every entry of its PC. */
static uint64_t icache_slot(const struct isa_worker *k, uint64_t pc)
{
  unsigned mask = k->icache_cap - 1;
  uint64_t h = hash_pc(pc) & mask;
  while (k->icache[h].key && (k->icache[h].key & ICACHE_PC_MASK) != pc)
    h = (h + 1) & mask;
  return h;
}

/* The instruction words at pc: [out] words, their number (2, or 1 when pc + 4 is not mapped),
 * 0 when pc is not mapped (a fault of the wave when `report`). */
static unsigned fetch_words(struct isa_wave *w, uint64_t pc, uint32_t words[2], bool report)
{
  const struct isa_dispatch *d = w->ctx->d;
  const uint32_t *p0 = d->translate(d->mem_ctx, pc, 4, false);
  if (!p0) {
    if (report)
      wave_page_fault(w, pc, false);
    return 0;
  }
  words[0] = *p0;
  const uint32_t *p1 = d->translate(d->mem_ctx, pc + 4, 4, false);
  words[1] = p1 ? *p1 : 0;
  return p1 ? 2 : 1;
}

/* The current dispatch's entry for the instruction at pc, fetched, decoded and bound on a
 * miss. NULL when there is none: a fault or illegal instruction of the wave when `report`
 * (w->fetch_pc is pc, w->cur NULL), else nothing is reported (a block's lookahead stops there). */
static struct icache_entry *icache_get(struct isa_wave *w, uint64_t pc, bool report)
{
  struct isa_worker *k = w->worker;
  uint64_t key = pc | k->icache_tag;
  if (report) {
    w->fetch_pc = pc;
    w->cur = NULL;
  }
  if ((pc & 3) || pc == 0) {
    if (report)
      wave_fail(w, ISA_ILLEGAL_INSTR, "misaligned or null pc 0x%llx", (unsigned long long)pc);
    return NULL;
  }
  if (pc & ~ICACHE_PC_MASK) {
    if (report)
      wave_page_fault(w, pc, false);   /* wider than a GPU VA */
    return NULL;
  }
  struct icache_entry *e = &k->icache[icache_slot(k, pc)];
  if (e->key == key)
    return e;
  uint32_t words[2];
  unsigned n = fetch_words(w, pc, words, report);
  if (!n)
    return NULL;
  if (e->key && e->nwords == n && e->target == w->ctx->target && e->words[0] == words[0] &&
      e->words[1] == words[1]) {
    e->key = key;   /* an earlier dispatch's decoding of the same words */
    e->blk = NULL;
    return e;
  }
  struct isa_inst in;
  char msg[96];
  if (isa_decode(w->ctx->target, words, n, &in, msg, sizeof(msg))) {
    if (report)
      wave_fail(w, ISA_ILLEGAL_INSTR, "illegal instruction at pc 0x%llx: %s",
                (unsigned long long)pc, msg);
    return NULL;
  }
  bind_executor(&in);
  bool fused = n == 2 && fuse_branch(w->ctx->target, &in, words[1]);
  if (!e->key) {
    if ((k->icache_used + 1) * 2 > k->icache_cap) {
      if (icache_grow(k)) {
        if (report)
          wave_fail(w, ISA_ILLEGAL_INSTR, "out of host memory for the instruction cache");
        return NULL;
      }
      e = &k->icache[icache_slot(k, pc)];
    }
    k->icache_used++;
  }
  e->key = key;
  e->inst.in = in;
  e->inst.pc = pc;
  e->words[0] = words[0];
  e->words[1] = words[1];
  e->nwords = (uint8_t)n;
  e->target = (uint8_t)w->ctx->target;
  e->fused = fused;
  e->blk = NULL;
  entry_classify(e);
  return e;
}

int exec_illegal(struct isa_wave *w, const struct isa_inst *in)
{
  wave_fail(w, ISA_ILLEGAL_INSTR, "unimplemented instruction %s at pc 0x%llx",
            isa_op_name(in->op), (unsigned long long)wave_cur_pc(w));
  return -1;
}

/* The executor of a newly decoded instruction, chosen once so that the loop calls it directly.
 * VALU instructions are classified for the direct path here too (exec_valu_fast.h). */
static void bind_executor(struct isa_inst *in)
{
  switch (in->enc) {
  case ENC_SOP1: case ENC_SOP2: case ENC_SOPC: case ENC_SOPK: case ENC_SOPP:
    in->exec = salu_bind(in);
    break;
  case ENC_SMEM:
    in->exec = smem_bind(in);
    break;
  case ENC_VOP1: case ENC_VOP2: case ENC_VOPC: case ENC_VOP3: case ENC_VOP3P:
    in->exec = valu_bind(in);
    break;
  case ENC_DS:
    in->exec = ds_bind(in);
    break;
  case ENC_MIMG:   /* exec_image.c (textures) */
    in->exec = exec_image;
    break;
  default:
    in->exec = vmem_bind(in);
    break;
  }
}

static bool is_valu(const struct isa_inst *in)
{
  return (unsigned)in->enc - ENC_VOP1 <= ENC_VOP3P - ENC_VOP1;
}

/* A scalar destination of `width` dwords (0: unknown, taken as 2) that covers EXEC. */
static bool covers_exec(unsigned code, unsigned width)
{
  return code < 128 && code + (width ? width : 2) > OPD_EXEC;
}

/* Whether the instruction of `e` ends its block (see "decoded blocks"). Decided by name where
 * a class of instructions shares a behaviour across encodings: branches, calls and PC moves
 * (s_getpc reads the PC, which only a block's last instruction sees), the end of the program,
 * barriers and GWS (they stop the wave), s_sleep and the clock reads (they end the time slice:
 * exec_salu.c), traps and messages, and EXEC writers (v_cmpx, *saveexec*, s_movreld, any
 * scalar destination covering EXEC). A SOPP that is no no-op ends it too, whatever it is. */
static bool block_ends(const struct icache_entry *e)
{
  static const char *const ends[] = {
    "branch", "call", "pc_b64", "rfe", "endpgm", "barrier", "gws", "sleep", "memtime",
    "memrealtime", "trap", "halt", "sendmsg", "fork", "join", "exec", "cmpx", "movreld",
  };
  const struct isa_inst *in = &e->inst.in;
  if (e->fused)
    return true;
  if (in->enc == ENC_SOPP && !salu_is_nop(in->exec) && in->op != OP_S_SET_GPR_IDX_OFF &&
      in->op != OP_S_SET_GPR_IDX_MODE)
    return true;
  const char *name = isa_op_name(in->op);
  for (size_t i = 0; i < sizeof(ends) / sizeof(ends[0]); i++)
    if (strstr(name, ends[i]))
      return true;
  return covers_exec(in->dst, in->dst_w) || covers_exec(in->sdst, 2);
}

/* The branch kind of a plain (unfused) branch instruction, else BR_NONE. */
static enum blk_branch branch_kind(const struct icache_entry *e)
{
  if (e->inst.in.enc != ENC_SOPP || e->fused)
    return BR_NONE;
  switch (e->inst.in.op) {
  case OP_S_BRANCH: return BR_ALWAYS;
  case OP_S_CBRANCH_SCC0: return BR_SCC0;
  case OP_S_CBRANCH_SCC1: return BR_SCC1;
  case OP_S_CBRANCH_VCCZ: return BR_VCCZ;
  case OP_S_CBRANCH_VCCNZ: return BR_VCCNZ;
  case OP_S_CBRANCH_EXECZ: return BR_EXECZ;
  case OP_S_CBRANCH_EXECNZ: return BR_EXECNZ;
  default: return BR_NONE;
  }
}

/* An icache entry's role in a block (icache_entry.role): a slot of its own, the end of the
 * block (a slot, then no more), or none (a no-op: counted, no slot). A plain branch has
 * icache_entry.br set instead: it closes the block without a slot. */
enum { ROLE_SLOT, ROLE_END, ROLE_NOP };

/* Decided once per decoding (names are compared, which is too slow for every dispatch). */
static void entry_classify(struct icache_entry *e)
{
  e->br = (uint8_t)branch_kind(e);
  e->role = block_ends(e) ? ROLE_END : salu_is_nop(e->inst.in.exec) ? ROLE_NOP : ROLE_SLOT;
}

/* Decode the block at pc (its first instruction must exist: a fault is reported otherwise)
 * and record it in the icache entry of pc. NULL when the wave stopped. */
static struct isa_block *block_build(struct isa_wave *w, uint64_t pc)
{
  struct isa_worker *k = w->worker;
  /* room for the longest block, given back below (the last allocation of the arena) */
  struct isa_block *b = blk_alloc(k, sizeof(*b) + BLOCK_MAX * sizeof(b->slot[0]));
  if (!b) {
    w->fetch_pc = pc;
    w->cur = NULL;
    wave_fail(w, ISA_ILLEGAL_INSTR, "out of host memory for the instruction cache");
    return NULL;
  }
  unsigned n = 0, ninsts = 0, nvalu = 0;
  enum blk_branch br = BR_NONE;
  bool last_fused = false;
  uint64_t at = pc, target = 0;
  while (ninsts < BLOCK_MAX) {
    const struct icache_entry *e = icache_get(w, at, ninsts == 0);
    if (!e) {
      if (!ninsts) {
        blk_trim(k, b, 0);
        return NULL;
      }
      break;
    }
    ninsts++;
    at += e->inst.in.size;
    /* a branch is evaluated by run_wave: relative to the instruction after it */
    if ((br = e->br) != BR_NONE) {
      target = at + (uint64_t)((int64_t)e->inst.in.simm16 * 4);
      break;
    }
    if (e->role == ROLE_NOP)
      continue;   /* counted (and the PC moves past it), but no slot */
    struct blk_slot *s = &b->slot[n++];
    nvalu += is_valu(&e->inst.in);
    s->at = e->inst;
    s->ord = ninsts;
    s->valu_ord = nvalu;
    last_fused = e->fused;
    if (e->role == ROLE_END)
      break;
  }
  blk_trim(k, b, sizeof(*b) + n * sizeof(b->slot[0]));
  b->pc = pc;
  b->end_pc = at;
  b->target = target;
  b->end = b->slot + n;
  b->next[0] = b->next[1] = (struct blk_next){pc, b};
  b->n = n;
  b->ninsts = ninsts;
  b->nvalu = nvalu;
  b->br = (uint8_t)br;
  b->loops = br != BR_NONE || (n && last_fused && b->slot[n - 1].at.in.enc == ENC_SOPC);
  /* pc's entry is live (its fetch above succeeded) and stays where icache_slot finds it */
  k->icache[icache_slot(k, pc)].blk = b;
  return b;
}

/* The block at the wave's PC when the front table (run_wave) misses: the icache's, or a new
 * one. NULL when the wave stopped (fault or illegal instruction at the PC). */
__attribute__((noinline)) static struct isa_block *block_get(struct isa_wave *w)
{
  struct isa_worker *k = w->worker;
  uint64_t pc = w->pc, key = pc | k->icache_tag;
  struct isa_block *b = NULL;
  if (!(pc & 3) && pc && !(pc & ~ICACHE_PC_MASK)) {
    const struct icache_entry *e = &k->icache[icache_slot(k, pc)];
    if (e->key == key)
      b = e->blk;
  }
  if (!b && !(b = block_build(w, pc)))
    return NULL;
  struct icache_front *front = &k->l0[(pc >> 2) & (ICACHE_L0 - 1)];
  front->key = key;
  front->blk = b;
  return b;
}

static void inst_failed(struct isa_wave *w, const struct isa_inst *in, uint64_t pc)
{
  if (w->state != WAVE_DONE)
    wave_fail(w, ISA_ILLEGAL_INSTR, "instruction %s failed at pc 0x%llx", isa_op_name(in->op),
              (unsigned long long)pc);
}

/* Up to `budget` instructions one at a time: the end of a time slice that falls inside a
 * block, where the per-instruction loop blocks replaced would have ended it. They run from the
 * icache, which a later miss may move: w->cur is left NULL, with the last instruction's
 * address in fetch_pc (a deadlock at a barrier reports it). */
static void run_single(struct isa_wave *w, unsigned budget)
{
  while (w->state == WAVE_RUN && budget-- && !w->yield) {
    uint64_t pc = w->pc;
    const struct icache_entry *e = icache_get(w, pc, true);
    if (!e)
      break;
    const struct isa_inst *in = &e->inst.in;
    w->cur = in;
    w->pc = pc + in->size;   /* branches are relative to the next instruction */
    w->insts++;
    if (is_valu(in)) {
      uint64_t m = wave_exec(w);
      w->lane_ops += m == ~0ull ? WAVE_SIZE : bit_count64(m);
    }
    if (in->exec(w, in)) {
      inst_failed(w, in, pc);
      break;
    }
  }
  if (w->cur) {
    w->fetch_pc = wave_cur_pc(w);
    w->cur = NULL;
  }
}

/* The PC after block b, whose slots have run (w->pc is b->end_pc or where its last
 * instruction moved it). */
static inline uint64_t block_next_pc(const struct isa_wave *w, const struct isa_block *b)
{
  bool taken;
  switch (b->br) {
  case BR_ALWAYS: return b->target;
  case BR_SCC0: taken = !w->scc; break;
  case BR_SCC1: taken = w->scc; break;
  case BR_VCCZ: taken = !wave_sreg64(w, OPD_VCC); break;
  case BR_VCCNZ: taken = wave_sreg64(w, OPD_VCC) != 0; break;
  case BR_EXECZ: taken = !wave_exec(w); break;
  case BR_EXECNZ: taken = wave_exec(w) != 0; break;
  default: return w->pc;
  }
  return taken ? b->target : b->end_pc;
}

/* The block at pc: the front table's, else block_get's (NULL: the wave stopped). */
static inline struct isa_block *block_at(struct isa_wave *w, uint64_t pc)
{
  struct isa_worker *k = w->worker;
  const struct icache_front *front = &k->l0[(pc >> 2) & (ICACHE_L0 - 1)];
  /* a PC wider than a GPU VA never matches a key (icache_get reports it) */
  if (__builtin_expect(front->key == (pc | k->icache_tag) && !(pc & ~ICACHE_PC_MASK), 1))
    return front->blk;
  return block_get(w);
}

/* Run one wave until it ends, blocks, or `budget` instructions have run. The wave's
 * instruction count grows by what the budget lost, once at the end of the slice; its
 * lane-operation count once per block. Inside a block, an instruction costs the loop one
 * store (w->cur, from which fault messages and the handlers that need it take the
 * instruction's address) and the call; a block that branches to itself runs again without
 * the checks between blocks; else the next block is most often one of the two this block was
 * last followed by. */
__attribute__((noinline)) static void run_wave(struct isa_wave *w, unsigned budget)
{
  const unsigned budget0 = budget;
  w->yield = false;
  if (w->state != WAVE_RUN || !budget)
    return;
  uint64_t pc = w->pc, lanes;
  struct isa_block *b = block_at(w, pc);
  const struct blk_slot *s;
  while (b) {
    if (__builtin_expect(b->ninsts > budget, 0)) {
      run_single(w, budget);
      break;
    }
    lanes = 0;
    if (b->nvalu) {
      uint64_t m = wave_exec(w);
      lanes = m == ~0ull ? WAVE_SIZE : bit_count64(m);
    }
    do {
      budget -= b->ninsts;
      /* only the last instruction may read or move the PC: it sees the one after it */
      w->pc = b->end_pc;
      const struct blk_slot *end = b->end;
      for (s = b->slot; s != end; s++) {
        w->cur = &s->at.in;
        if (__builtin_expect(s->at.in.exec(w, &s->at.in), 0))
          goto failed;
      }
      w->lane_ops += b->nvalu * lanes;
      pc = block_next_pc(w, b);
    } while (pc == b->pc && b->loops && b->ninsts <= budget);
    w->pc = pc;
    if (w->state != WAVE_RUN || w->yield || !budget)
      break;
    if (pc == b->next[0].pc) {
      b = b->next[0].blk;
    } else if (pc == b->next[1].pc) {
      b = b->next[1].blk;
    } else {
      struct isa_block *nb = block_at(w, pc);
      if (nb)
        b->next[pc != b->end_pc] = (struct blk_next){pc, nb};
      b = nb;
    }
  }
out:
  w->insts += budget0 - budget;
  return;
failed:
  /* the block ran up to s: count that much (the budget lost the whole block) */
  budget += b->ninsts - s->ord;
  w->lane_ops += s->valu_ord * lanes;
  w->pc = s->at.pc + s->at.in.size;
  inst_failed(w, &s->at.in, s->at.pc);
  goto out;
}

/* ---- workgroup setup ---- */

static void init_sgprs(struct isa_ctx *c, struct isa_wave *w, const struct isa_wg *g)
{
  const struct isa_dispatch *d = c->d;
  unsigned n = 0;
  uint16_t kcp = c->code_props;
  if (kcp & KCP_PRIVATE_SEGMENT_BUFFER) {
    /* A buffer resource based at PRIVATE_VSHARP_BASE: MUBUF scratch accesses through it
     * land in the interpreter's per-lane private memory (exec_vmem.c). */
    w->s[n++] = (uint32_t)PRIVATE_VSHARP_BASE;
    w->s[n++] = (uint32_t)(PRIVATE_VSHARP_BASE >> 32);
    w->s[n++] = 0xffffffffu;
    w->s[n++] = 0x00027000u;
  }
  if (kcp & KCP_DISPATCH_PTR) {
    w->s[n++] = (uint32_t)d->packet_va;
    w->s[n++] = (uint32_t)(d->packet_va >> 32);
  }
  if (kcp & KCP_QUEUE_PTR) {
    w->s[n++] = (uint32_t)d->queue_va;
    w->s[n++] = (uint32_t)(d->queue_va >> 32);
  }
  if (kcp & KCP_KERNARG_PTR) {
    w->s[n++] = (uint32_t)d->kernarg_address;
    w->s[n++] = (uint32_t)(d->kernarg_address >> 32);
  }
  if (kcp & KCP_DISPATCH_ID) {
    w->s[n++] = (uint32_t)d->dispatch_id;
    w->s[n++] = (uint32_t)(d->dispatch_id >> 32);
  }
  if (kcp & KCP_FLAT_SCRATCH_INIT) {
    /* Scratch base offset 0 inside the private aperture; the per-lane size. */
    w->s[n++] = 0;
    w->s[n++] = c->priv_size;
  }
  if (kcp & KCP_PRIVATE_SEGMENT_SIZE)
    w->s[n++] = c->priv_size;
  /* System SGPRs start after USER_SGPR_COUNT user SGPRs (rsrc2[5:1]). */
  n = c->rsrc2 >> 1 & 0x1f;
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
  g->id[0] = (uint32_t)(idx % c->wg_count[0]);
  g->id[1] = (uint32_t)(idx / c->wg_count[0] % c->wg_count[1]);
  g->id[2] = (uint32_t)(idx / ((uint64_t)c->wg_count[0] * c->wg_count[1]));
  /* Partial workgroups at the grid edge (AQL allows grid sizes that are not multiples). */
  uint32_t sz[3];
  for (int i = 0; i < 3; i++) {
    uint32_t wgs = c->d->workgroup_size[i] ? c->d->workgroup_size[i] : 1;
    uint32_t grid = c->d->grid_size[i] ? c->d->grid_size[i] : 1;
    uint32_t left = grid - g->id[i] * wgs;
    sz[i] = left < wgs ? left : wgs;
  }
  (void)sz;
  g->nwaves = (c->group_size + WAVE_SIZE - 1) / WAVE_SIZE;
  g->live = g->nwaves;
  g->at_barrier = 0;
  g->lds = k->lds;
  g->lds_size = c->lds_size;
  g->waves = k->waves;
  memset(k->lds, 0, c->lds_size);
  for (unsigned i = 0; i < g->nwaves; i++) {
    struct isa_wave *w = &k->waves[i];
    memset(w->s, 0, sizeof(w->s));
    w->scc = 0;
    w->pc = c->entry;
    w->state = WAVE_RUN;
    w->id = i;
    w->wg = g;
    w->ctx = c;
    w->worker = k;
    w->v = k->vregs[i];
    /* no private segment: priv is NULL, and NULL + 0 is undefined in C (UBSan) */
    w->priv = k->priv ? k->priv + (size_t)i * WAVE_SIZE * c->priv_size : NULL;
    w->priv_bytes = c->priv_size;
    w->gpr_idx = 0;
    w->trapsts = 0;
    w->poll_pc = 0;
    w->clock_reads = 0;
    /* MODE: round modes rsrc1[15:12], denorm modes rsrc1[19:16], DX10 clamp [21], IEEE [23]. */
    w->mode = (c->rsrc1 >> 12 & 0xff) | (c->rsrc1 >> 21 & 1) << 8 | (c->rsrc1 >> 23 & 1) << 9;
    /* The TLB is kept from the slot's earlier waves: it is the dispatch's page table
     * (cleared in worker_prepare). */
    init_sgprs(c, w, g);
    memcpy(w->v[0], c->v0_init[i], sizeof(c->v0_init[i]));
    wave_set_exec(w, c->exec_init[i]);
  }
  if (c->priv_size)
    memset(k->priv, 0, (size_t)g->nwaves * WAVE_SIZE * c->priv_size);
  return 0;
}

static void dispatch_start_helpers(struct isa_worker *k);

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

/* Run k's workgroup until it ends or parks. The worker counts in c->running on entry; on
 * return it no longer does (wg_park or the end of the workgroup takes it out). */
static void run_wg(struct isa_worker *k)
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
      run_wave(w, 1u << 16);
      polling &= wave_polled(w, w->insts - before);
      dispatch_start_helpers(k);
      if (w->state == WAVE_DONE) {
        g->live--;
        k->insts += w->insts;
        k->lane_ops += w->lane_ops;
        w->insts = w->lane_ops = 0;
        k->waves_run++;
      }
      /* s_barrier: released once every wave still running has arrived (ISA guide: waves
       * that ended no longer count; a wave at a GWS barrier has not arrived). */
      if (g->live && g->at_barrier == g->live) {
        g->at_barrier = 0;
        for (unsigned j = 0; j < g->nwaves; j++)
          if (g->waves[j].state == WAVE_BARRIER)
            g->waves[j].state = WAVE_RUN;
      }
    }
    if (!ran && g->live && wg_blocked(k))
      return;
    if (ran && g->live && wg_polled(k, polling))
      return;
  }
  for (unsigned i = 0; i < g->nwaves; i++) {
    k->insts += g->waves[i].insts;
    k->lane_ops += g->waves[i].lane_ops;
    g->waves[i].insts = g->waves[i].lane_ops = 0;
  }
  if (c->d->waves_done)   /* progress for the command processor: once per workgroup */
    __atomic_fetch_add(c->d->waves_done, g->nwaves - g->live, __ATOMIC_RELAXED);
  atomic_fetch_sub(&c->running, 1);
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

static void *worker_main(void *arg)
{
  struct isa_worker *k = arg;
  struct isa_ctx *c = k->ctx;
  for (;;) {
    if (atomic_load(&c->abort) || dispatch_cancelled(c))
      break;
    /* Counted as running before the claim: see worker_resume_or_wait's deadlock rule. */
    atomic_fetch_add(&c->running, 1);
    uint64_t idx = atomic_fetch_add(&c->next_wg, 1);
    if (idx < c->total_wgs) {
      setup_wg(k, idx);
    } else {
      atomic_fetch_sub(&c->running, 1);
      if (!worker_resume_or_wait(k))
        break;
    }
    run_wg(k);
    dispatch_start_helpers(k);
  }
  atomic_fetch_add(&c->insts, k->insts);
  atomic_fetch_add(&c->waves, k->waves_run);
  atomic_fetch_add(&c->lane_ops, k->lane_ops);
  return NULL;
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

/* Called by every worker between workgroups and between wave time slices; only the lead acts,
 * once, when the dispatch has run HELPERS_AFTER_NS and workgroups are still unclaimed. */
static void dispatch_start_helpers(struct isa_worker *k)
{
  struct isa_ctx *c = k->ctx;
  if (k != c->lead || c->helpers_started || c->helpers_wanted == 0)
    return;
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

/* Make `k` ready for a dispatch of `c`: counters zero, enough private memory, no decoded
 * instruction left from an earlier dispatch. Returns 0 or -1 (out of memory). */
static int worker_prepare(struct isa_worker *k, struct isa_ctx *c)
{
  k->ctx = c;
  k->insts = k->waves_run = k->lane_ops = 0;
  k->poll_streak = 0;
  /* Translations are valid for one dispatch: the next may run after the mappings changed. */
  for (unsigned i = 0; i < 16; i++)
    wave_tlb_clear(&k->waves[i]);
  size_t priv = (size_t)16 * WAVE_SIZE * c->priv_size;
  if (priv > k->priv_cap) {
    void *p = realloc(k->priv, priv);
    if (!p)
      return -1;
    k->priv = p;
    k->priv_cap = priv;
  }
  icache_invalidate(k);
  return 0;
}

static struct isa_worker *worker_new(struct isa_ctx *c)
{
  /* Not calloc: the 64 KiB LDS is cleared per workgroup (setup_wg), only as far as it is used. */
  struct isa_worker *k = malloc(sizeof(*k));
  if (!k)
    return NULL;
  memset(k, 0, offsetof(struct isa_worker, lds));
  memset(&k->wg, 0, sizeof(*k) - offsetof(struct isa_worker, wg));
  k->vregs = malloc(sizeof(*k->vregs) * 16);
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
  blk_free_chain(k->blk_chunks);
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
