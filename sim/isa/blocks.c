/* The decoded-instruction cache, decoded blocks, and run_wave, the loop that executes a wave's
 * instructions for one time slice (dispatch.c calls it for each wave of a workgroup in turn).
 *
 * An instruction is decoded once per PC and worker, and its executor bound then (bind_executor);
 * straight-line runs of decoded instructions become blocks that run with no lookup between
 * their instructions (see "decoded blocks" below).
 */
#include "isa/wave.h"
#include "isa/exec_valu_fast.h"   /* valu_bind */
#include "isa/valu_pair.h"
#include "isa/image.h"   /* exec_image (textures) */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ICACHE_MIN 1024

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
int icache_grow(struct isa_worker *k)
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
 * the first instruction that may change the PC, read it, stop the wave or end its time slice
 * (block_ends), or after BLOCK_MAX instructions, or before an instruction that cannot be
 * fetched or decoded (the wave faults when it gets there, as before), or before the first
 * vector ALU instruction after one that writes EXEC (writes_exec). Its other instructions
 * therefore run one after another whatever they compute, and its VALU instructions see the
 * EXEC the block started with (one lane count per block; the scalar and memory instructions
 * after an EXEC write read EXEC as it is, as they always do). The instructions are copies of
 * the icache's entries, so a block sees the words the icache decoded; its lookahead reads the
 * words of a straight-line run when the run is entered, as the hardware's instruction
 * prefetch does.
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
  /* Where the block goes when it does not branch: end_pc, or the word after it when its last
   * slot runs a fused branch (whose word end_pc does not cover); next[0] is kept for it. */
  uint64_t fall_pc;
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
   * (br) or fused with a compare, so none of its instructions changes the wave's state or the
   * time slice (block_ends), and none of them writes EXEC (the lane count is reused). */
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

/* Free every block of k (the worker goes away). */
void blocks_free(struct isa_worker *k)
{
  blk_free_chain(k->blk_chunks);
  k->blk_chunks = NULL;
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
void icache_invalidate(struct isa_worker *k)
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

/* Whether any of `names` is part of the name of in's opcode. */
static bool name_has(const struct isa_inst *in, const char *const *names, size_t n)
{
  const char *name = isa_op_name(in->op);
  for (size_t i = 0; i < n; i++)
    if (strstr(name, names[i]))
      return true;
  return false;
}

/* Whether the instruction of `e` writes EXEC: v_cmpx, *saveexec* and *wrexec*, s_movreld
 * (its destination is found at run time), any scalar destination covering EXEC. */
static bool writes_exec(const struct icache_entry *e)
{
  static const char *const writers[] = {"exec", "cmpx", "movreld"};
  const struct isa_inst *in = &e->inst.in;
  return name_has(in, writers, sizeof(writers) / sizeof(writers[0])) ||
         covers_exec(in->dst, in->dst_w) || covers_exec(in->sdst, 2);
}

/* Whether the instruction of `e` ends its block (see "decoded blocks"). Decided by name where
 * a class of instructions shares a behaviour across encodings: branches, calls and PC moves
 * (s_getpc reads the PC, which only a block's last instruction sees), the end of the program,
 * barriers and GWS (they stop the wave), s_sleep and the clock reads (they end the time slice:
 * exec_salu.c), traps and messages. A SOPP that is no no-op ends it too, whatever it is. */
static bool block_ends(const struct icache_entry *e)
{
  static const char *const ends[] = {
    "branch", "call", "pc_b64", "rfe", "endpgm", "barrier", "gws", "sleep", "memtime",
    "memrealtime", "trap", "halt", "sendmsg", "fork", "join",
  };
  const struct isa_inst *in = &e->inst.in;
  if (e->fused)
    return true;
  if (in->enc == ENC_SOPP && !salu_is_nop(in->exec) && in->op != OP_S_SET_GPR_IDX_OFF &&
      in->op != OP_S_SET_GPR_IDX_MODE)
    return true;
  return name_has(in, ends, sizeof(ends) / sizeof(ends[0]));
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
enum { ROLE_SLOT, ROLE_END, ROLE_NOP, ROLE_EXEC };

/* Decided once per decoding (names are compared, which is too slow for every dispatch).
 * ROLE_EXEC: a slot that writes EXEC; the block goes on up to the next VALU instruction. */
static void entry_classify(struct icache_entry *e)
{
  e->br = (uint8_t)branch_kind(e);
  e->role = block_ends(e)                    ? ROLE_END
            : salu_is_nop(e->inst.in.exec) ? ROLE_NOP
            : writes_exec(e)               ? ROLE_EXEC
                                           : ROLE_SLOT;
}

/* Adjacent slots that run as one (valu_pair.h): the first's executor runs both, the second's
 * does nothing. The slots stay (counts, fault positions and run_wave's loop are unchanged);
 * only blocks get pairs, so run_single, which runs from the instruction cache, runs each on
 * its own. */
static void block_pair(struct isa_block *b, unsigned n)
{
  for (unsigned i = 0; i + 1 < n; i++) {
    struct isa_inst *first = &b->slot[i].at.in, *second = &b->slot[i + 1].at.in;
    isa_exec_fn f = valu_pair_bind(first, second);
    if (!f)
      continue;
    first->exec = f;
    first->pair = second;
    second->exec = valu_pair_second;
    i++;
  }
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
  bool last_fused = false, exec_written = false;
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
    /* a VALU instruction after an EXEC write starts the next block, which counts its lanes */
    if (exec_written && is_valu(&e->inst.in))
      break;
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
    exec_written |= e->role == ROLE_EXEC;
    if (e->role == ROLE_END)
      break;
  }
  blk_trim(k, b, sizeof(*b) + n * sizeof(b->slot[0]));
  block_pair(b, n);
  b->pc = pc;
  b->end_pc = at;
  b->target = target;
  b->fall_pc = n && last_fused ? at + 4 : at;
  b->end = b->slot + n;
  b->next[0] = b->next[1] = (struct blk_next){pc, b};
  b->n = n;
  b->ninsts = ninsts;
  b->nvalu = nvalu;
  b->br = (uint8_t)br;
  /* running again at once reuses the lane count, which an EXEC write inside made stale */
  b->loops = !exec_written &&
             (br != BR_NONE || (n && last_fused && b->slot[n - 1].at.in.enc == ENC_SOPC));
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

/* The runnable wave of w's workgroup after w (in turn, as run_wg takes them), or NULL. */
static struct isa_wave *wg_next_runnable(struct isa_wave *w)
{
  const struct isa_wg *g = w->wg;
  struct isa_wave *x = w, *end = g->waves + g->nwaves;
  for (unsigned k = 1; k < g->nwaves; k++) {
    if (++x == end)
      x = g->waves;
    if (x->state == WAVE_RUN)
      return x;
  }
  return NULL;
}

/* w stopped at s_barrier with `budget` instructions of the slice left: its slice ends (a stop
 * at a barrier is progress, never a poll: wave_polled's state is reset as for one), and the
 * next runnable wave of the workgroup gets the rest, sparing run_wg a return and a call per
 * wave and barrier. NULL when no other wave can run. */
static struct isa_wave *hand_slice(struct isa_wave *w, unsigned budget)
{
  struct isa_wave *x = wg_next_runnable(w);
  if (!x)
    return NULL;
  w->insts -= budget;
  w->poll_pc = 0;
  w->clock_reads = 0;
  x->yield = false;
  x->insts += budget;
  return x;
}

/* Run one wave until it ends, blocks, or `budget` instructions have run. The wave's
 * instruction count grows by what the budget lost (the budget added at entry, what is left
 * of it subtracted at the end; nothing reads the count during the slice); its lane-operation
 * count once per block. Inside a block, an instruction costs the loop one store (w->cur, from
 * which fault messages and the handlers that need it take the instruction's address) and the
 * call; a block that branches to itself runs again without the checks between blocks; else
 * the next block is most often one of the two this block was last followed by. A wave that
 * stops at s_barrier hands the rest of the slice on (hand_slice); the wave that ran last is
 * returned. */
struct isa_wave *run_wave(struct isa_wave *w, unsigned budget)
{
  w->yield = false;
  if (w->state != WAVE_RUN || !budget)
    return w;
  w->insts += budget;   /* no register kept for the budget at entry */
  uint64_t pc = w->pc, lanes;
  struct isa_block *b = block_at(w, pc);
  const struct blk_slot *s;
  while (b) {
    if (__builtin_expect(b->ninsts > budget, 0)) {
      run_single(w, budget);
      break;
    }
    if (!b->n && b->br != BR_NONE) {
      /* a lone branch (where a wave resumes after s_barrier, a loop's head): no slot, no
       * lanes, nothing that stops the wave */
      budget -= b->ninsts;
      pc = block_next_pc(w, b);
      w->pc = pc;
      if (!budget)
        break;
      goto next;
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
      pc = b->br == BR_NONE ? w->pc : block_next_pc(w, b);
    } while (pc == b->pc && b->loops && b->ninsts <= budget);
    w->pc = pc;
    if (w->state != WAVE_RUN || w->yield || !budget) {
      struct isa_wave *x;
      if (w->state != WAVE_BARRIER || w->yield || !budget || !(x = hand_slice(w, budget)))
        break;
      w = x;
      pc = w->pc;
      b = block_at(w, pc);
      continue;
    }
  next:
    if (pc == b->next[0].pc) {
      b = b->next[0].blk;
    } else if (pc == b->next[1].pc) {
      b = b->next[1].blk;
    } else {
      struct isa_block *nb = block_at(w, pc);
      if (nb)
        b->next[pc != b->fall_pc] = (struct blk_next){pc, nb};
      b = nb;
    }
  }
out:
  w->insts -= budget;
  return w;
failed:
  /* the block ran up to s: count that much (the budget lost the whole block) */
  budget += b->ninsts - s->ord;
  w->lane_ops += s->valu_ord * lanes;
  w->pc = s->at.pc + s->at.in.size;
  inst_failed(w, &s->at.in, s->at.pc);
  goto out;
}
