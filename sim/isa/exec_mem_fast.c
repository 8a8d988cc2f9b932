/* GLOBAL and FLAT dword loads and stores of a whole wave on a direct path.
 *
 * In compiled HIP code nearly every vector memory access is a global_load/store_dword(xN) whose
 * 64 lanes touch consecutive addresses: c[i] = a[i] + b[i] moves 256 bytes per instruction, all
 * in one page. exec_mem.c's path resolves lane after lane (address, aperture test, page check,
 * copy); here the 64 addresses are computed in one straight loop, the span of the active lanes
 * is checked to lie in one page outside the LDS and private apertures (a 4 KiB page lies wholly
 * inside or outside those 4 GiB-aligned apertures), the page is translated once through the
 * wave's TLB, and the data moves in one copy when the lanes are consecutive.
 *
 * Anything else (a span over two pages, an aperture, a page that does not translate whole)
 * goes back to the per-lane path, which also reports faults: so a fault is the same fault, at
 * the same lane, with the same earlier lanes already stored. Lanes are served in ascending
 * order as there, so overlapping stores leave the same (highest) lane's data. tests/isa
 * test_isa_mem_fast runs both paths and compares memory and registers.
 */
#include "isa/exec_mem_fast.h"

#include <string.h>

#define LANES for (unsigned l = 0; l < WAVE_SIZE; l++)

/* The lane loops vectorise; with AVX2 they take a quarter of the instructions (as in
 * exec_valu_fast.c, a clone per target chosen once at load time). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__linux__)
#define MEM_FAST_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define MEM_FAST_CLONES
#endif

/* The byte address of every lane (active or not), as exec_mem.c computes it: SADDR + the
 * 32-bit VGPR offset, or the 64-bit VGPR pair; plus the instruction offset. */
MEM_FAST_CLONES
static void lane_addresses(struct isa_wave *w, const struct isa_inst *in, bool saddr,
                           uint64_t *restrict a)
{
  const uint32_t *lo = wave_vreg(w, in->addr);
  uint64_t off = (uint64_t)(int64_t)in->offset;
  if (saddr) {
    uint64_t base = wave_sreg64(w, in->saddr) + off;
    LANES a[l] = base + lo[l];
  } else {
    const uint32_t *hi = wave_vreg(w, in->addr + 1);
    LANES a[l] = (lo[l] | (uint64_t)hi[l] << 32) + off;
  }
}

/* Lowest and highest address of the active lanes. */
static void lane_span(const uint64_t *restrict a, uint64_t exec, uint64_t *lo, uint64_t *hi)
{
  uint64_t mn = ~0ull, mx = 0;
  if (exec == ~0ull) {
    LANES {
      mn = a[l] < mn ? a[l] : mn;
      mx = a[l] > mx ? a[l] : mx;
    }
  } else {
    for (uint64_t m = exec; m; m &= m - 1) {
      uint64_t v = a[__builtin_ctzll(m)];
      mn = v < mn ? v : mn;
      mx = v > mx ? v : mx;
    }
  }
  *lo = mn;
  *hi = mx;
}

typedef uint32_t v8u32 __attribute__((vector_size(32)));

/* True when x[l] == x[0] + l * step (mod 2^32) for lanes 0..n-1 (1 <= n <= 64); the other
 * lanes' values are not looked at (lanes EXEC leaves out keep whatever an earlier instruction
 * left). Eight lanes a step in vector registers (the running expectation defeats the
 * vectoriser): whole groups in a loop, then the lanes of a last partial group under a mask
 * built from n (a test of n per group cost the prefix forms of a tree reduction at every
 * step). */
static inline __attribute__((always_inline)) bool steps_by_first(const uint32_t *x,
                                                                 uint32_t step, unsigned n)
{
  const v8u32 iota = {0, 1, 2, 3, 4, 5, 6, 7};
  v8u32 expect = iota * step + x[0], diff = iota - iota, v;
  unsigned l = 0;
#pragma GCC unroll 8
  for (; l + 8 <= n; l += 8) {
    memcpy(&v, x + l, sizeof(v));
    diff |= v ^ expect;
    expect += 8 * step;
  }
  if (l < n) {
    /* lanes l + i with i < n - l; the lanes after them are inactive and not looked at */
    memcpy(&v, x + l, sizeof(v));
    diff |= (v ^ expect) & (v8u32)(iota < n - l);
  }
  uint64_t q[4];
  memcpy(q, &diff, sizeof(q));
  return (q[0] | q[1] | q[2] | q[3]) == 0;
}

/* All 64 lanes (n a constant: the lane mask folds away). Inlined into the clone of
 * lanes_consecutive (a call per check cost as much as the check); steps_by is its own clone
 * for DS. */
static inline __attribute__((always_inline)) bool steps_by_inline(const uint32_t *x, uint32_t step)
{
  return steps_by_first(x, step, WAVE_SIZE);
}

MEM_FAST_CLONES
static bool steps_by(const uint32_t *x, uint32_t step)
{
  return steps_by_inline(x, step);
}

/* With every lane active: true when lane l accesses a0 + l * len, with a0 the first lane's
 * address, decided on the 32-bit registers without forming 64 addresses. The low dwords must
 * step by len without wrapping; a VGPR pair's high dwords must all be equal. */
MEM_FAST_CLONES
static bool lanes_consecutive(struct isa_wave *w, const struct isa_inst *in, bool saddr,
                              unsigned len, uint64_t *a0)
{
  const uint32_t *lo = wave_vreg(w, in->addr);
  if (!steps_by_inline(lo, len) || lo[0] > UINT32_MAX - (WAVE_SIZE - 1) * len)
    return false;
  uint64_t off = (uint64_t)(int64_t)in->offset;
  if (saddr) {
    *a0 = wave_sreg64(w, in->saddr) + off + lo[0];
    return true;
  }
  const uint32_t *hi = wave_vreg(w, in->addr + 1);
  *a0 = (lo[0] | (uint64_t)hi[0] << 32) + off;
  return steps_by_inline(hi, 0);
}

/* Not in the LDS or private aperture (FLAT only): a page lies wholly inside or outside them. */
static bool global_page(const struct isa_inst *in, uint64_t page)
{
  return in->enc != ENC_FLAT || (page - APERTURE_SHARED_BASE >= APERTURE_SIZE &&
                                 page - APERTURE_PRIVATE_BASE >= APERTURE_SIZE);
}

/* Two dwords a lane (dwordx2: 64-bit values), eight lanes a step: memory interleaves the
 * lanes' low and high dwords, the registers hold them apart. (Cloned: without AVX2 the
 * 32-byte shuffles go through the stack, where mismatched stores and loads stall.) */
static inline __attribute__((always_inline)) void load2_body(uint32_t *lo, uint32_t *hi,
                                                             const uint8_t *p)
{
  for (unsigned l = 0; l < WAVE_SIZE; l += 8) {
    v8u32 x, y;
    memcpy(&x, p + 8 * l, sizeof(x));
    memcpy(&y, p + 8 * l + 32, sizeof(y));
    v8u32 a = __builtin_shufflevector(x, y, 0, 2, 4, 6, 8, 10, 12, 14);
    v8u32 b = __builtin_shufflevector(x, y, 1, 3, 5, 7, 9, 11, 13, 15);
    memcpy(lo + l, &a, sizeof(a));
    memcpy(hi + l, &b, sizeof(b));
  }
}

static inline __attribute__((always_inline)) void store2_body(const uint32_t *lo,
                                                              const uint32_t *hi, uint8_t *p)
{
  for (unsigned l = 0; l < WAVE_SIZE; l += 8) {
    v8u32 x, y;
    memcpy(&x, lo + l, sizeof(x));
    memcpy(&y, hi + l, sizeof(y));
    v8u32 a = __builtin_shufflevector(x, y, 0, 8, 1, 9, 2, 10, 3, 11);
    v8u32 b = __builtin_shufflevector(x, y, 4, 12, 5, 13, 6, 14, 7, 15);
    memcpy(p + 8 * l, &a, sizeof(a));
    memcpy(p + 8 * l + 32, &b, sizeof(b));
  }
}

MEM_FAST_CLONES
static void block_load2(uint32_t *lo, uint32_t *hi, const uint8_t *p)
{
  load2_body(lo, hi, p);
}

MEM_FAST_CLONES
static void block_store2(const uint32_t *lo, const uint32_t *hi, uint8_t *p)
{
  store2_body(lo, hi, p);
}

static void block_load(uint32_t *const *regs, unsigned dw, const uint8_t *p)
{
  if (dw == 1) {
    memcpy(regs[0], p, WAVE_SIZE * 4);
    return;
  }
  if (dw == 2) {
    block_load2(regs[0], regs[1], p);
    return;
  }
  for (unsigned i = 0; i < dw; i++)
    LANES memcpy(&regs[i][l], p + (size_t)(l * dw + i) * 4, 4);
}

static void block_store(uint32_t *const *regs, unsigned dw, uint8_t *p)
{
  if (dw == 1) {
    memcpy(p, regs[0], WAVE_SIZE * 4);
    return;
  }
  if (dw == 2) {
    block_store2(regs[0], regs[1], p);
    return;
  }
  for (unsigned i = 0; i < dw; i++)
    LANES memcpy(p + (size_t)(l * dw + i) * 4, &regs[i][l], 4);
}

/* The host page of global [in] page for a [in] dw-dword access (a store when [in] store), and
 * [out] regs the instruction's data registers; NULL when the page is not mapped as plain global
 * memory. */
static uint8_t *access_page(struct isa_wave *w, const struct isa_inst *in, uint64_t page,
                            unsigned dw, bool store, uint32_t *regs[4])
{
  uint8_t *host = global_page(in, page) ? wave_page(w, page, store) : NULL;
  if (host)
    for (unsigned i = 0; i < dw; i++)
      regs[i] = wave_vreg(w, (store ? in->data0 : in->dst) + i);
  return host;
}

/* Every lane active and consecutive: one block copy. Returns 1 when the block is not in one
 * mapped global page. */
static int block_access(struct isa_wave *w, const struct isa_inst *in, uint64_t a0, unsigned dw,
                        bool store)
{
  uint64_t page = a0 & ~0xfffull, end = a0 + (uint64_t)WAVE_SIZE * 4 * dw - 1;
  uint32_t *regs[4];
  uint8_t *host;
  if (end < a0 || (end & ~0xfffull) != page || !(host = access_page(w, in, page, dw, store, regs)))
    return 1;
  uint8_t *p = host + (a0 - page);
  if (store)
    block_store(regs, dw, p);
  else
    block_load(regs, dw, p);
  return 0;
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define MEM_FAST_GATHER 1
/* All 64 lanes with AVX2 gathers, eight lanes an instruction (the caller checked the CPU).
 * Byte offsets (scale 1): an address need not be dword aligned. */
__attribute__((target("avx2")))
static void gather_avx2(uint32_t *restrict r, const uint8_t *base, const uint32_t *restrict a)
{
  for (unsigned l = 0; l < WAVE_SIZE; l += 8) {
    __m256i idx = _mm256_loadu_si256((const __m256i *)(a + l));
    __m256i v = _mm256_i32gather_epi32((const int *)(const void *)base, idx, 1);
    _mm256_storeu_si256((__m256i *)(r + l), v);
  }
}
#endif

/* Lane l of `r` from the dword at base + a[l], for the lanes of `exec`. The offsets are below
 * 2^31 (an LDS address, an offset in a page), so the gather's signed 32-bit offsets are exact. */
static void gather_dwords(uint32_t *restrict r, const uint8_t *base, const uint32_t *restrict a,
                          uint64_t exec)
{
  if (exec == ~0ull) {
#ifdef MEM_FAST_GATHER
    if (__builtin_cpu_supports("avx2")) {
      gather_avx2(r, base, a);
      return;
    }
#endif
    LANES memcpy(&r[l], base + a[l], 4);
    return;
  }
  for (uint64_t m = exec; m; m &= m - 1) {
    unsigned l = (unsigned)__builtin_ctzll(m);
    memcpy(&r[l], base + a[l], 4);
  }
}

/* Any lanes of `exec` (not empty) in one mapped global page: addresses formed for all lanes,
 * loads gathered, stores lane after lane. 1 when the span is not one such page. */
static int flat_dwords_spread(struct isa_wave *w, const struct isa_inst *in, unsigned dw,
                              bool store, uint64_t exec, bool saddr)
{
  unsigned len = 4 * dw;
  uint64_t a[WAVE_SIZE];
  lane_addresses(w, in, saddr, a);
  uint64_t lo, hi;
  lane_span(a, exec, &lo, &hi);
  uint64_t page = lo & ~0xfffull;
  /* One page, and no wrap past the top of the address space. */
  uint32_t *regs[4];
  uint8_t *host;
  if (hi + len - 1 < hi || ((hi + len - 1) & ~0xfffull) != page ||
      !(host = access_page(w, in, page, dw, store, regs)))
    return 1;
  if (!store) {
    /* loads: each dword of the lanes gathered from its offset in the page (the addresses
     * were all read before the first register is written) */
    uint32_t off[WAVE_SIZE];
    LANES off[l] = (uint32_t)(a[l] - page);
    for (unsigned i = 0; i < dw; i++)
      gather_dwords(regs[i], host + 4 * i, off, exec);
    return 0;
  }
  for (uint64_t m = exec; m; m &= m - 1) {
    unsigned l = (unsigned)__builtin_ctzll(m);
    uint8_t *p = host + (a[l] - page);
    lane_dwords_move(p, regs, l, dw, store);
  }
  return 0;
}

int flat_dwords_direct(struct isa_wave *w, const struct isa_inst *in, const struct mem_op *mo,
                       uint64_t exec, bool use_saddr)
{
  if (!exec)
    return 0;
  unsigned dw = mo->count;
  bool store = mo->kind == MK_STORE, saddr = in->enc == ENC_GLOBAL && use_saddr;
  uint64_t a0;
  if (exec == ~0ull && lanes_consecutive(w, in, saddr, 4 * dw, &a0))
    return block_access(w, in, a0, dw, store);
  return flat_dwords_spread(w, in, dw, store, exec, saddr);
}

#ifdef MEM_FAST_GATHER
__attribute__((target("avx2")))
static void gather_regs_avx2(uint32_t *const *regs, const uint8_t *const *base, unsigned nr,
                             const uint32_t *restrict a)
{
  for (unsigned j = 0; j < nr; j++)
    gather_avx2(regs[j], base[j], a);
}
#endif

/* ---- four rows of sixteen lanes ----
 *
 * Tiled kernels address memory in rows of 16 lanes: SGEMM's tile loads read 16 consecutive
 * dwords a row (rows a matrix row apart), its LDS reads give all 16 lanes of a row one address
 * (ds_read_b128 of a row of A) or the same 16 consecutive dwords in every row (ds_read2_b32 of
 * B). A gather of 64 lanes costs about a cycle a lane; a row of these shapes is one 64-byte
 * copy or one broadcast. */

enum row_shape { ROWS_NONE, ROWS_UNIFORM, ROWS_CONSECUTIVE };

/* The shape of 64 lanes' byte offsets `a`: each row of 16 lanes (l >> 4) at one offset
 * (ROWS_UNIFORM) or at 16 consecutive dwords (ROWS_CONSECUTIVE) from its first lane's offset,
 * which goes to row[]. ROWS_NONE otherwise. */
static inline __attribute__((always_inline)) enum row_shape lane_rows(const uint32_t *a,
                                                                     uint32_t row[4])
{
  /* lanes 0 and 1 tell which shape to test: one pass over the 64 lanes, not two */
  const v8u32 step = {0, 4, 8, 12, 16, 20, 24, 28};
  enum row_shape shape = a[1] == a[0] ? ROWS_UNIFORM
                         : a[1] == a[0] + 4 ? ROWS_CONSECUTIVE : ROWS_NONE;
  if (shape == ROWS_NONE)
    return ROWS_NONE;
  v8u32 lane = shape == ROWS_UNIFORM ? step - step : step, diff = step - step;
#pragma GCC unroll 4
  for (unsigned g = 0; g < 4; g++) {
    row[g] = a[16 * g];
    v8u32 lo, hi, r = lane + row[g];
    memcpy(&lo, a + 16 * g, sizeof(lo));
    memcpy(&hi, a + 16 * g + 8, sizeof(hi));
    diff |= (lo ^ r) | (hi ^ (shape == ROWS_UNIFORM ? r : r + 32));
  }
  uint64_t q[4];
  memcpy(q, &diff, sizeof(q));
  return (q[0] | q[1] | q[2] | q[3]) == 0 ? shape : ROWS_NONE;
}

/* The 16 lanes of one row of register dst from src: consecutive dwords, one 64-byte copy in
 * 32-byte moves (the next VALU instruction reads the register 32 bytes at a time, and a load
 * that spans two smaller stores cannot be forwarded from them); or one dword for all. */
static inline __attribute__((always_inline)) void row_fill(uint32_t *dst, const uint8_t *src,
                                                           enum row_shape shape)
{
  if (shape == ROWS_CONSECUTIVE) {
    v8u32 x0, x1;
    memcpy(&x0, src, sizeof(x0));
    memcpy(&x1, src + 32, sizeof(x1));
    memcpy(dst, &x0, sizeof(x0));
    memcpy(dst + 8, &x1, sizeof(x1));
    return;
  }
  uint32_t x;
  memcpy(&x, src, 4);
  v8u32 v = {x, x, x, x, x, x, x, x};
  memcpy(dst, &v, sizeof(v));
  memcpy(dst + 8, &v, sizeof(v));
}

/* regs[j] row g (lanes 16g..16g+15) from base[j] + row[g], in the row shape (a constant where
 * the caller's is, as is nr: the loops unroll). */
static inline __attribute__((always_inline)) void rows_fill(uint32_t *const *regs,
                                                            const uint8_t *const *base,
                                                            unsigned nr, const uint32_t row[4],
                                                            enum row_shape shape)
{
  for (unsigned j = 0; j < nr; j++) {
#pragma GCC unroll 4
    for (unsigned g = 0; g < 4; g++)
      row_fill(regs[j] + 16 * g, base[j] + row[g], shape);
  }
}

/* regs[j] lane l from base[j] + a[l] when `a` has a row shape; false (nothing written) when
 * not. The shape and row offsets are taken before the first register is written, so `a` may
 * be one of the registers. */
static inline __attribute__((always_inline)) bool gather_rows(uint32_t *const *regs,
                                                              const uint8_t *const *base,
                                                              unsigned nr, const uint32_t *a)
{
  uint32_t row[4];
  switch (lane_rows(a, row)) {
  case ROWS_CONSECUTIVE: rows_fill(regs, base, nr, row, ROWS_CONSECUTIVE); return true;
  case ROWS_UNIFORM: rows_fill(regs, base, nr, row, ROWS_UNIFORM); return true;
  default: return false;
  }
}

/* Register regs[j] lane l from the dword at base[j] + a[l], for all lanes (a not in regs, or
 * in a row shape). */
MEM_FAST_CLONES
static void gather_regs(uint32_t *const *regs, const uint8_t *const *base, unsigned nr,
                        const uint32_t *restrict a)
{
  if (gather_rows(regs, base, nr, a))
    return;
#ifdef MEM_FAST_GATHER
  if (__builtin_cpu_supports("avx2")) {
    gather_regs_avx2(regs, base, nr, a);
    return;
  }
#endif
  for (unsigned j = 0; j < nr; j++)
    LANES memcpy(&regs[j][l], base[j] + a[l], 4);
}

/* ---- GLOBAL/FLAT executors bound per instruction form ----
 *
 * vadd's three accesses cost about 300 host instructions each through flat_dwords_direct():
 * the consecutive test built its lane steps at run time and read the two address registers in
 * two passes, and the block copy went through four calls. Bound once per decoded instruction
 * (width, direction, SADDR or VGPR pair known), the common case (all lanes active, consecutive,
 * one page in the TLB) is one function with the steps as constants. Everything else goes on
 * to the paths above, which give the same results as before. */

/* All 64 lanes: lo[l] == lo[0] + l * len without wrapping and, for a VGPR pair (hi not NULL),
 * hi[l] == hi[0]; then lane l's address is the first lane's plus l * len. */
static inline __attribute__((always_inline)) bool wave_steps(const uint32_t *lo,
                                                             const uint32_t *hi, uint32_t len)
{
  if (lo[0] > UINT32_MAX - (WAVE_SIZE - 1) * len)
    return false;
  /* both registers in one pass with one reduction at the end (two steps_by_inline() calls
   * each reduced their own) */
  const v8u32 iota = {0, 1, 2, 3, 4, 5, 6, 7};
  v8u32 expect = iota * len + lo[0], diff = iota - iota, top = diff + (hi ? hi[0] : 0);
#pragma GCC unroll 8
  for (unsigned l = 0; l < WAVE_SIZE; l += 8) {
    v8u32 v;
    memcpy(&v, lo + l, sizeof(v));
    diff |= v ^ expect;
    expect += 8 * len;
    if (hi) {
      memcpy(&v, hi + l, sizeof(v));
      diff |= v ^ top;
    }
  }
  uint64_t q[4];
  memcpy(q, &diff, sizeof(q));
  return (q[0] | q[1] | q[2] | q[3]) == 0;
}

/* Lane l's dw dwords at p + l * 4 * dw, to (load) or from (store) the registers. */
static inline __attribute__((always_inline)) void wave_block_move(uint32_t *const *regs,
                                                                  unsigned dw, uint8_t *p,
                                                                  bool store)
{
  if (dw == 1) {
#pragma GCC unroll 8
    for (unsigned l = 0; l < WAVE_SIZE; l += 8) {
      v8u32 v;
      memcpy(&v, store ? (const void *)(regs[0] + l) : (const void *)(p + 4 * l), sizeof(v));
      memcpy(store ? (void *)(p + 4 * l) : (void *)(regs[0] + l), &v, sizeof(v));
    }
  } else if (dw == 2) {
    if (store)
      store2_body(regs[0], regs[1], p);
    else
      load2_body(regs[0], regs[1], p);
  } else {
    for (unsigned i = 0; i < dw; i++)
      LANES lane_dwords_move(p + (size_t)l * 4 * dw + 4 * i, &regs[i], l, 1, store);
  }
}

/* Lowest and highest of 64 lanes' x[l]. */
static inline __attribute__((always_inline)) void lanes_min_max(const uint32_t *x, uint32_t *mn,
                                                                uint32_t *mx)
{
  v8u32 lo, hi;
  memcpy(&lo, x, sizeof(lo));
  hi = lo;
#pragma GCC unroll 8
  for (unsigned l = 8; l < WAVE_SIZE; l += 8) {
    v8u32 v;
    memcpy(&v, x + l, sizeof(v));
    v8u32 lt = (v8u32)(v < lo), gt = (v8u32)(v > hi);
    lo = (v & lt) | (lo & ~lt);
    hi = (v & gt) | (hi & ~gt);
  }
  uint32_t a = lo[0], b = hi[0];
  for (unsigned i = 1; i < 8; i++) {
    a = lo[i] < a ? lo[i] : a;
    b = hi[i] > b ? hi[i] : b;
  }
  *mn = a;
  *mx = b;
}

/* The host page of global `page` for an access of the instruction, NULL when it is not plain
 * global memory that translates whole. */
static inline __attribute__((always_inline)) uint8_t *wave_global_page(struct isa_wave *w,
                                                                       const struct isa_inst *in,
                                                                       uint64_t page, bool store)
{
  if (!global_page(in, page))
    return NULL;
  uint8_t *host = wave_tlb_lookup(w, page, store);
  return host ? host : wave_page(w, page, store);
}

/* ---- stride prefetch ----
 *
 * A grid-stride loop's wave moves on by the grid's size each turn (2 MiB in isa_throughput's
 * grid_stride): a new page every time, which the CPU's prefetchers do not follow, so each
 * turn's loads waited for memory (82% of flat_load2's samples). As a CPU's stride prefetcher
 * does per load instruction, the wave remembers each load's last address and step; when a step
 * of a page or more repeats, the block the next turn will read is prefetched. Only a hint: the
 * registers and memory are the same with it or without. */
static inline __attribute__((always_inline)) void stride_prefetch(struct isa_wave *w,
                                                                  const struct isa_inst *in,
                                                                  uint64_t a0, unsigned bytes)
{
  struct wave_stride *s = &w->strides[((uintptr_t)in >> 6) & (WAVE_STRIDES - 1)];
  int64_t step = (int64_t)(a0 - s->last);
  bool again = s->in == in && step == s->step;
  s->in = in;
  s->last = a0;
  s->step = step;
  if (!again || (step < 4096 && step > -4096))
    return;
  const uint8_t *h = wave_region_peek(w, a0 + (uint64_t)step, bytes);
  for (unsigned i = 0; h && i < bytes; i += 64)
    __builtin_prefetch(h + i);
}

/* A load whose lanes' low address dwords have a row shape (lane_rows: tiles of a matrix, 16
 * lanes a row, rows a matrix row apart and often in different pages), all lanes active, one
 * base for all: each row inside one page of plain global memory, translated on its own, then
 * one copy or broadcast per row and dword. 1 (nothing done) when a row does not qualify. A
 * row of consecutive lanes must not wrap its 32-bit offsets (lane l's address is base + the
 * 32-bit lo[l]). */
static inline __attribute__((always_inline)) int flat_rows(struct isa_wave *w,
                                                           const struct isa_inst *in,
                                                           uint64_t base, const uint32_t row[4],
                                                           enum row_shape shape,
                                                           uint32_t *const *regs, unsigned dw)
{
  uint32_t last = (shape == ROWS_CONSECUTIVE ? 60 : 0) + 4 * dw - 1;
  const uint8_t *src[4];
  for (unsigned g = 0; g < 4; g++) {
    uint64_t a = base + row[g];
    uint8_t *host;
    if (row[g] > UINT32_MAX - last || (a & 0xfff) + last > 0xfff ||
        !(host = wave_global_page(w, in, a & ~0xfffull, false)))
      return 1;
    src[g] = host + (a & 0xfff);
  }
  for (unsigned j = 0; j < dw; j++) {
#pragma GCC unroll 4
    for (unsigned g = 0; g < 4; g++)
      row_fill(regs[j] + 16 * g, src[g] + 4 * j, shape);
  }
  return 0;
}

/* The common case; 1 when it does not apply (nothing done, nothing faulted). All lanes active
 * with the same high address dword (or a SADDR base): lane l's address is base + lo[l], base
 * the same for all lanes (64-bit sums, as exec_mem.c forms them). Consecutive lanes in one
 * page move as one block; others in one page are gathered (loads) or stored lane after lane. */
static inline __attribute__((always_inline)) int flat_wave(struct isa_wave *w,
                                                           const struct isa_inst *in,
                                                           unsigned dw, bool store, bool saddr)
{
  if (wave_exec(w) != ~0ull)
    return 1;
  const uint32_t *lo = wave_vreg(w, in->addr), *hi = saddr ? NULL : wave_vreg(w, in->addr + 1);
  uint64_t base = (uint64_t)(int64_t)in->offset;
  base += saddr ? wave_sreg64(w, in->saddr) : (uint64_t)hi[0] << 32;
  uint32_t *regs[4];
  for (unsigned i = 0; i < dw; i++)
    regs[i] = wave_vreg(w, (store ? in->data0 : in->dst) + i);
  if (lo[1] == lo[0] + 4 * dw && wave_steps(lo, hi, 4 * dw)) {
    /* the first lane's address (read before a load writes a register it may share) */
    uint64_t a0 = base + lo[0], page = a0 & ~0xfffull;
    uint8_t *host;
    /* inside one page, hence not wrapping past the top of the address space either */
    if ((a0 & 0xfff) + WAVE_SIZE * 4 * dw > 4096 || !(host = wave_global_page(w, in, page, store)))
      return 1;
    if (!store)
      stride_prefetch(w, in, a0, WAVE_SIZE * 4 * dw);
    wave_block_move(regs, dw, host + (a0 & 0xfff), store);
    return 0;
  }
  if (hi && !steps_by_inline(hi, 0))
    return 1;
  if (!store) {
    uint32_t row[4];
    switch (lane_rows(lo, row)) {
    case ROWS_CONSECUTIVE: return flat_rows(w, in, base, row, ROWS_CONSECUTIVE, regs, dw);
    case ROWS_UNIFORM: return flat_rows(w, in, base, row, ROWS_UNIFORM, regs, dw);
    default: break;
    }
  }
  uint32_t mn, mx;
  lanes_min_max(lo, &mn, &mx);
  uint64_t first = base + mn, last = base + mx + 4 * dw - 1, page = first & ~0xfffull;
  uint8_t *host;
  /* every lane's bytes in [first, last], one page, no wrap past the top of the address space */
  if (last < first || (last & ~0xfffull) != page || !(host = wave_global_page(w, in, page, store)))
    return 1;
  /* lane l at offset lo[l] - mn + (first - page) in the page: below 4096, exact in 32 bits */
  uint32_t off[WAVE_SIZE], d = (uint32_t)(first - page) - mn;
  LANES off[l] = lo[l] + d;
  if (store) {
    LANES lane_dwords_move(host + off[l], regs, l, dw, true);
    return 0;
  }
  const uint8_t *bases[4];
  for (unsigned i = 0; i < dw; i++)
    bases[i] = host + 4 * i;
  gather_regs(regs, bases, dw, off);
  return 0;
}

/* One active lane l (a kernel's `if (tid == 0) out[blockIdx.x] = sum`): its address as
 * exec_mem.c forms it, its dw dwords inside one page of plain global memory (so no wrap past
 * the top of the address space either), moved directly. 1 (nothing done) when they are not:
 * as flat_dwords_spread() decides for a span of one lane. */
static inline __attribute__((always_inline)) int flat_lane(struct isa_wave *w,
                                                           const struct isa_inst *in,
                                                           unsigned dw, bool store, bool saddr,
                                                           unsigned l)
{
  const uint32_t *lo = wave_vreg(w, in->addr);
  uint64_t a = (uint64_t)(int64_t)in->offset + lo[l];
  a += saddr ? wave_sreg64(w, in->saddr) : (uint64_t)wave_vreg(w, in->addr + 1)[l] << 32;
  uint8_t *host;
  if ((a & 0xfff) + 4 * dw > 4096 || !(host = wave_global_page(w, in, a & ~0xfffull, store)))
    return 1;
  uint32_t *regs[4];
  for (unsigned i = 0; i < dw; i++)
    regs[i] = wave_vreg(w, (store ? in->data0 : in->dst) + i);
  lane_dwords_move(host + (a & 0xfff), regs, l, dw, store);
  return 0;
}

/* Not the common case: one lane, or one page with any lanes (gathered loads), else lane after
 * lane (which reports a fault at the first faulting lane). */
__attribute__((noinline))
static int flat_wave_rest(struct isa_wave *w, const struct isa_inst *in, unsigned dw, bool store,
                          bool saddr)
{
  uint64_t exec = wave_exec(w);
  if (exec && !(exec & (exec - 1)) &&
      !flat_lane(w, in, dw, store, saddr, (unsigned)__builtin_ctzll(exec)))
    return 0;
  if (!exec || !flat_dwords_spread(w, in, dw, store, exec, saddr))
    return 0;
  return flat_dwords_lanes(w, in, in->mo, exec, saddr);
}

#define FLAT_WAVE_FN(name, dw, store, saddr)                                                     \
  MEM_FAST_CLONES static int name(struct isa_wave *w, const struct isa_inst *in)                \
  {                                                                                           \
    return flat_wave(w, in, dw, store, saddr) ? flat_wave_rest(w, in, dw, store, saddr) : 0;    \
  }
FLAT_WAVE_FN(flat_load1, 1, false, false)
FLAT_WAVE_FN(flat_load2, 2, false, false)
FLAT_WAVE_FN(flat_load3, 3, false, false)
FLAT_WAVE_FN(flat_load4, 4, false, false)
FLAT_WAVE_FN(flat_store1, 1, true, false)
FLAT_WAVE_FN(flat_store2, 2, true, false)
FLAT_WAVE_FN(flat_store3, 3, true, false)
FLAT_WAVE_FN(flat_store4, 4, true, false)
FLAT_WAVE_FN(saddr_load1, 1, false, true)
FLAT_WAVE_FN(saddr_load2, 2, false, true)
FLAT_WAVE_FN(saddr_load3, 3, false, true)
FLAT_WAVE_FN(saddr_load4, 4, false, true)
FLAT_WAVE_FN(saddr_store1, 1, true, true)
FLAT_WAVE_FN(saddr_store2, 2, true, true)
FLAT_WAVE_FN(saddr_store3, 3, true, true)
FLAT_WAVE_FN(saddr_store4, 4, true, true)

isa_exec_fn flat_dwords_bind(const struct isa_inst *in, unsigned dw, bool store)
{
  bool saddr = in->enc == ENC_GLOBAL && in->saddr != 0x7f && in->saddr != OPD_NONE;
  static isa_exec_fn const fns[2][2][4] = {
      {{flat_load1, flat_load2, flat_load3, flat_load4},
       {flat_store1, flat_store2, flat_store3, flat_store4}},
      {{saddr_load1, saddr_load2, saddr_load3, saddr_load4},
       {saddr_store1, saddr_store2, saddr_store3, saddr_store4}}};
  return fns[saddr][store][(dw - 1) & 3];
}

/* ---- LDS (DS) loads and stores of whole dwords ---- */

/* Every lane's LDS address `va` + `off` (32-bit: VGPR + offset wraps as in exec_ds) into `a`,
 * and the highest one among the active lanes. Computed before any register is written, so a
 * destination that overlaps the address register does not change the addresses. */
MEM_FAST_CLONES
static uint32_t ds_addresses(const uint32_t *restrict va, uint32_t off, uint64_t exec,
                             uint32_t *restrict a)
{
  uint32_t mx = 0;
  if (exec == ~0ull) {
    /* one pass: each address and the running maximum (a single vectorised loop) */
    LANES {
      a[l] = va[l] + off;
      mx = a[l] > mx ? a[l] : mx;
    }
  } else {
    LANES a[l] = va[l] + off;
    for (uint64_t m = exec; m; m &= m - 1) {
      uint32_t x = a[__builtin_ctzll(m)];
      mx = x > mx ? x : mx;
    }
  }
  return mx;
}

/* The elements of a DS access: one, or two for read2/write2 (each OFFSET byte in units of the
 * element size, or of 64 elements for the st64 forms; exec_ds's per-lane path). */
static unsigned ds_elements(const struct isa_inst *in, const struct mem_op *mo, uint32_t off[2],
                            unsigned *dw)
{
  if (!mo->two_addr) {
    off[0] = (uint32_t)(in->offset & 0xffff);
    *dw = mo->bytes * mo->count / 4;
    return 1;
  }
  uint32_t esz = mo->bytes * (mo->two_addr == 2 ? 64u : 1u);
  off[0] = (uint32_t)(in->offset & 0xff) * esz;
  off[1] = (uint32_t)((in->offset >> 8) & 0xff) * esz;
  *dw = mo->bytes / 4;
  return 2;
}

/* Stores lane after lane, element after element, as the per-lane path: where lanes overlap,
 * the later write stays. */
static void lds_scatter(struct isa_wave *w, const struct isa_inst *in, uint8_t *lds,
                        uint32_t (*a)[WAVE_SIZE], unsigned n, unsigned dw, uint64_t exec)
{
  const uint32_t *regs[2][4];
  for (unsigned k = 0; k < n; k++)
    for (unsigned i = 0; i < dw; i++)
      regs[k][i] = wave_vreg(w, (k ? in->data1 : in->data0) + i);
  for (uint64_t m = exec; m; m &= m - 1) {
    unsigned l = (unsigned)__builtin_ctzll(m);
    for (unsigned k = 0; k < n; k++)
      for (unsigned i = 0; i < dw; i++)
        memcpy(lds + a[k][l] + 4 * i, &regs[k][i][l], 4);
  }
}

int ds_dwords_direct(struct isa_wave *w, const struct isa_inst *in, const struct mem_op *mo,
                     uint64_t exec)
{
  bool store = mo->kind == MK_STORE;
  if ((!store && mo->kind != MK_LOAD) || mo->bytes < 4 || mo->d16)
    return 1;
  if (!exec)
    return 0;
  uint32_t off[2], a[2][WAVE_SIZE];
  unsigned dw, n = ds_elements(in, mo, off, &dw);
  if (dw > 4)
    return 1;
  const uint32_t *va = wave_vreg(w, in->addr);
  uint32_t lds_size = w->wg->lds_size;
  /* every active lane's elements inside the LDS: no lane faults (otherwise the per-lane path
   * finds the first that does) */
  for (unsigned k = 0; k < n; k++)
    if ((uint64_t)ds_addresses(va, off[k], exec, a[k]) + 4 * dw > lds_size)
      return 1;
  uint8_t *lds = w->wg->lds;
  if (store && n == 2) {
    lds_scatter(w, in, lds, a, n, dw, exec);
    return 0;
  }
  uint32_t *regs[4];
  for (unsigned i = 0; i < dw && n == 1; i++)
    regs[i] = wave_vreg(w, (store ? in->data0 : in->dst) + i);
  if (n == 1 && exec == ~0ull) {
    uint32_t a0 = a[0][0];
    /* consecutive and not wrapping: lane l at a0 + l * len */
    if (steps_by(a[0], 4 * dw) && (uint64_t)a0 + (uint64_t)WAVE_SIZE * 4 * dw <= lds_size) {
      if (store)
        block_store(regs, dw, lds + a0);
      else
        block_load(regs, dw, lds + a0);
      return 0;
    }
  }
  if (store) {
    lds_scatter(w, in, lds, a, n, dw, exec);
    return 0;
  }
  for (unsigned k = 0; k < n; k++)
    for (unsigned i = 0; i < dw; i++)
      gather_dwords(wave_vreg(w, in->dst + k * dw + i), lds + 4 * i, a[k], exec);
  return 0;
}

/* ---- DS executors bound per instruction form ----
 *
 * SGEMM's ds_read2_b32 and ds_read_b128 cost about 500 host instructions each through
 * ds_dwords_direct(): the element offsets, 64 addresses stored per element, a call per
 * register gathered. Bound once per decoded instruction (elements and width known), the
 * common case (all lanes active, every element inside the LDS) tests the lanes' base addresses
 * in one pass against the LDS size and gathers every destination register in one call, or
 * copies one block for consecutive lanes. Other cases go to ds_dwords_direct() and the per-lane
 * path, as before. */

/* All 64 lanes' va[l] <= lim. */
static inline __attribute__((always_inline)) bool lanes_at_most(const uint32_t *va, uint32_t lim)
{
  v8u32 over = {0, 0, 0, 0, 0, 0, 0, 0};
#pragma GCC unroll 8
  for (unsigned l = 0; l < WAVE_SIZE; l += 8) {
    v8u32 v;
    memcpy(&v, va + l, sizeof(v));
    over |= (v8u32)(v > lim);
  }
  uint64_t q[4];
  memcpy(q, &over, sizeof(q));
  return (q[0] | q[1] | q[2] | q[3]) == 0;
}

/* The byte offsets of a DS access's n elements (as ds_elements()). */
static inline __attribute__((always_inline)) void ds_offsets(const struct isa_inst *in,
                                                             unsigned n, uint32_t off[2])
{
  if (n == 1) {
    off[0] = (uint32_t)(in->offset & 0xffff);
    return;
  }
  const struct mem_op *mo = in->mo;
  uint32_t esz = mo->bytes * (mo->two_addr == 2 ? 64u : 1u);
  off[0] = (uint32_t)(in->offset & 0xff) * esz;
  off[1] = (uint32_t)((in->offset >> 8) & 0xff) * esz;
}

/* The destination register and LDS base of each dword j of a load's n elements of dw. */
static inline __attribute__((always_inline)) void ds_load_targets(struct isa_wave *w,
                                                                  const struct isa_inst *in,
                                                                  unsigned n, unsigned dw,
                                                                  const uint32_t off[2],
                                                                  const uint8_t *lds,
                                                                  uint32_t **regs,
                                                                  const uint8_t **base)
{
  for (unsigned k = 0; k < n; k++)
    for (unsigned i = 0; i < dw; i++) {
      regs[k * dw + i] = wave_vreg(w, in->dst + k * dw + i);
      base[k * dw + i] = lds + off[k] + 4 * i;
    }
}

/* A load whose lane addresses have a row shape (lane_rows: SGEMM's tile reads), all lanes
 * active: every lane inside the LDS when each row's highest address is (a row of consecutive
 * lanes ends 60 bytes after its start; 64-bit sums, so no wrap); then one copy or broadcast
 * per row and dword, the rows' offsets already read (the address register may be a
 * destination). 1 (nothing done) when a lane is outside. */
static inline __attribute__((always_inline)) int ds_rows(struct isa_wave *w,
                                                         const struct isa_inst *in, unsigned n,
                                                         unsigned dw, const uint32_t off[2],
                                                         const uint8_t *lds,
                                                         const uint32_t row[4],
                                                         enum row_shape shape, uint32_t lim)
{
  uint32_t top = row[0];
  for (unsigned g = 1; g < 4; g++)
    top = row[g] > top ? row[g] : top;
  if ((uint64_t)top + (shape == ROWS_CONSECUTIVE ? 60 : 0) > lim)
    return 1;
  uint32_t *regs[8];
  const uint8_t *base[8];
  ds_load_targets(w, in, n, dw, off, lds, regs, base);
  if (shape == ROWS_CONSECUTIVE)
    rows_fill(regs, base, n * dw, row, ROWS_CONSECUTIVE);
  else
    rows_fill(regs, base, n * dw, row, ROWS_UNIFORM);
  return 0;
}

/* n dwords (1..64) from src to dst, eight at a time, then one at a time: no library call
 * (a variable-length memcpy became `rep movsq`, whose start-up costs more than the copy). */
static inline __attribute__((always_inline)) void dwords_copy(void *dst, const void *src,
                                                              unsigned n)
{
  uint8_t *d = dst;
  const uint8_t *s = src;
  unsigned b = 0;
  for (; b + 32 <= 4 * n; b += 32) {
    v8u32 v;
    memcpy(&v, s + b, sizeof(v));
    memcpy(d + b, &v, sizeof(v));
  }
  for (; b < 4 * n; b += 4)
    memcpy(d + b, s + b, 4);
}

/* A dword load or store of the lanes below the first inactive one (EXEC a run of n ones from
 * lane 0: `if (t < stride)` in a tree reduction), when those lanes' addresses are consecutive
 * dwords (the inactive lanes' are not looked at: an address computed under the same EXEC left
 * them as they were): one copy of the active lanes' dwords, if they all lie inside the LDS
 * (64-bit sums: no wrap; checked first, it is the cheaper test). 1 (nothing done) otherwise. */
static inline __attribute__((always_inline)) int ds_prefix(struct isa_wave *w,
                                                           const struct isa_inst *in,
                                                           const uint32_t *va, unsigned n,
                                                           bool store)
{
  uint64_t at = (uint64_t)va[0] + (uint32_t)(in->offset & 0xffff);
  if (at + 4 * n > w->wg->lds_size || !steps_by_first(va, 4, n))
    return 1;
  uint8_t *lds = w->wg->lds + at;
  if (store)
    dwords_copy(lds, wave_vreg(w, in->data0), n);
  else
    dwords_copy(wave_vreg(w, in->dst), lds, n);
  return 0;
}

/* The b32 access of one active lane l (a loop that one lane runs, a reduction's last step):
 * its 32-bit address va[l] + off as exec_ds() forms it, inside the LDS; 1 (nothing done) when
 * it is not (the per-lane path reports the fault). */
static inline __attribute__((always_inline)) int ds_b32_lane(struct isa_wave *w,
                                                             const struct isa_inst *in,
                                                             const uint32_t *va, unsigned l,
                                                             bool store)
{
  uint32_t a = va[l] + (uint32_t)(in->offset & 0xffff);
  if ((uint64_t)a + 4 > w->wg->lds_size)
    return 1;
  if (store)
    memcpy(w->wg->lds + a, &wave_vreg(w, in->data0)[l], 4);
  else
    memcpy(&wave_vreg(w, in->dst)[l], w->wg->lds + a, 4);
  return 0;
}

/* All 64 lanes of a single-element access (n == 1) at consecutive addresses: lane l at
 * va[0] + off + l * 4 * dw. The range is tested first: the first lane's address and the
 * block's end inside the LDS (64-bit sums), with lane l's 32-bit address va[l] + off equal
 * to it since no sum wraps. 1 (nothing done) when the lanes are not so. */
static inline __attribute__((always_inline)) int ds_block(struct isa_wave *w,
                                                          const struct isa_inst *in,
                                                          const uint32_t *va, unsigned dw,
                                                          bool store)
{
  uint64_t at = (uint64_t)va[0] + (uint32_t)(in->offset & 0xffff);
  uint32_t len = 4 * dw;
  /* lanes 1 and 63 first: tiles' row shapes (ds_read_b128 of a row of A) fail there, without
   * the test of all lanes */
  if (at + (uint64_t)WAVE_SIZE * len > w->wg->lds_size || va[1] != va[0] + len ||
      va[WAVE_SIZE - 1] != va[0] + (WAVE_SIZE - 1) * len || !steps_by_inline(va, len))
    return 1;
  uint32_t *regs[4];
  for (unsigned i = 0; i < dw; i++)
    regs[i] = wave_vreg(w, (store ? in->data0 : in->dst) + i);
  wave_block_move(regs, dw, w->wg->lds + at, store);
  return 0;
}

/* All 64 lanes of a DS load or store of n elements of dw dwords, in rows (loads) or any
 * lanes inside the LDS; 1 when it does not apply (nothing done). Every lane's va + off + 4 *
 * dw within the LDS means no 32-bit wrap and no fault for any lane, so the addresses are
 * exec_ds()'s. */
static inline __attribute__((always_inline)) int ds_wave(struct isa_wave *w,
                                                         const struct isa_inst *in, unsigned n,
                                                         unsigned dw, bool store)
{
  if (wave_exec(w) != ~0ull)
    return 1;
  const uint32_t *va = wave_vreg(w, in->addr);
  uint32_t off[2];
  ds_offsets(in, n, off);
  uint32_t top = n == 2 && off[1] > off[0] ? off[1] : off[0], lds_size = w->wg->lds_size;
  if ((uint64_t)top + 4 * dw > lds_size)
    return 1;
  const uint32_t lim = lds_size - top - 4 * dw;
  uint8_t *lds = w->wg->lds;
  if (!store) {
    uint32_t row[4];
    enum row_shape shape = lane_rows(va, row);
    if (shape != ROWS_NONE)
      return ds_rows(w, in, n, dw, off, lds, row, shape, lim);
  }
  if (!lanes_at_most(va, lim))
    return 1;
  if (store) {
    /* lane after lane, element after element: where lanes overlap the later write stays */
    const uint32_t *regs[2][4];
    for (unsigned k = 0; k < n; k++)
      for (unsigned i = 0; i < dw; i++)
        regs[k][i] = wave_vreg(w, (k ? in->data1 : in->data0) + i);
    LANES for (unsigned k = 0; k < n; k++)
      for (unsigned i = 0; i < dw; i++)
        memcpy(lds + va[l] + off[k] + 4 * i, &regs[k][i][l], 4);
    return 0;
  }
  uint32_t *regs[8];
  const uint8_t *base[8];
  ds_load_targets(w, in, n, dw, off, lds, regs, base);
  /* the addresses are all read before a destination that may be the address register is
   * written */
  unsigned r = (in->addr - in->dst) & (NUM_VREGS - 1);
  if (r < n * dw) {
    uint32_t a[WAVE_SIZE];
    memcpy(a, va, sizeof(a));
    gather_regs(regs, base, n * dw, a);
  } else {
    gather_regs(regs, base, n * dw, va);
  }
  return 0;
}

/* Not the common case: ds_dwords_direct() for any lanes, else exec_ds()'s per-lane path. */
__attribute__((noinline))
static int ds_wave_rest(struct isa_wave *w, const struct isa_inst *in)
{
  if (!ds_dwords_direct(w, in, in->mo, wave_exec(w)))
    return 0;
  return exec_ds_general(w, in);
}

/* The executors: the cheapest shapes inline, in a function of their own with a small frame
 * (a block of consecutive lanes, all 64 or, for b32, a prefix of EXEC); then ds_wave's rows and
 * any lanes in a separate function (name##_wave, whose gather buffers and saved registers the
 * block shapes should not pay for); then the per-lane paths. */
#define DS_WAVE_FN(name, n, dw, store)                                                          \
  MEM_FAST_CLONES __attribute__((noinline)) static int name##_wave(struct isa_wave *w,          \
                                                                  const struct isa_inst *in)   \
  {                                                                                           \
    return ds_wave(w, in, n, dw, store) ? ds_wave_rest(w, in) : 0;                             \
  }                                                                                           \
  MEM_FAST_CLONES static int name(struct isa_wave *w, const struct isa_inst *in)                \
  {                                                                                           \
    uint64_t exec = wave_exec(w);                                                             \
    const uint32_t *va = wave_vreg(w, in->addr);                                              \
    if (exec == ~0ull) {                                                                      \
      if (n == 1 && !ds_block(w, in, va, dw, store))                                          \
        return 0;                                                                             \
      return name##_wave(w, in);                                                              \
    }                                                                                         \
    if (n == 1 && dw == 1 && exec && !(exec & (exec + 1)) &&                                  \
        !ds_prefix(w, in, va, (unsigned)__builtin_popcountll(exec), store))                   \
      return 0;                                                                               \
    return ds_wave_rest(w, in);                                                               \
  }
DS_WAVE_FN(ds_load1x1, 1, 1, false)
DS_WAVE_FN(ds_load1x2, 1, 2, false)
DS_WAVE_FN(ds_load1x3, 1, 3, false)
DS_WAVE_FN(ds_load1x4, 1, 4, false)
DS_WAVE_FN(ds_load2x1, 2, 1, false)
DS_WAVE_FN(ds_load2x2, 2, 2, false)
DS_WAVE_FN(ds_store1x1, 1, 1, true)
DS_WAVE_FN(ds_store1x2, 1, 2, true)
DS_WAVE_FN(ds_store1x3, 1, 3, true)
DS_WAVE_FN(ds_store1x4, 1, 4, true)
DS_WAVE_FN(ds_store2x1, 2, 1, true)
DS_WAVE_FN(ds_store2x2, 2, 2, true)

#ifdef MEM_FAST_GATHER
/* ---- ds_read_b32 / ds_write_b32 with AVX2 ----
 *
 * A tree reduction's LDS accesses are b32 at consecutive dwords, with all 64 lanes or a prefix
 * of EXEC (32, 16, ..., 1 lanes) active. With AVX2 the lanes past the prefix need no scalar
 * loop: a masked load or store moves a partial group of eight (lanes masked off are neither
 * read nor written, nor can they fault), and one vptest says whether any lane is off its step.
 * Bound only where the CPU has AVX2 (ds_dwords_bind); the same shapes, tests and results as
 * ds_block() and ds_prefix(). */
#define DS_AVX2 __attribute__((target("avx2")))

/* Lanes i < k of a group of eight as all ones (0 <= k <= 8). */
static DS_AVX2 inline __attribute__((always_inline)) __m256i first8(unsigned k)
{
  return _mm256_cmpgt_epi32(_mm256_set1_epi32((int)k), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

/* Group c's difference from x[0] + 4 * l (zero where the lanes step by a dword); `lane0`
 * holds x[0] + 4 * i in lane i. */
static DS_AVX2 inline __attribute__((always_inline)) __m256i off_step8(const uint32_t *x,
                                                                      __m256i lane0, unsigned c)
{
  __m256i want = _mm256_add_epi32(lane0, _mm256_set1_epi32((int)(32 * c)));
  return _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(const void *)(x + 8 * c)), want);
}

/* x[l] == x[0] + 4 * l (mod 2^32) for lanes l < n (1 <= n <= 64): n / 8 whole groups,
 * unrolled (a test of the count each), then the partial group under a mask. */
static DS_AVX2 inline __attribute__((always_inline)) bool steps4_first(const uint32_t *x,
                                                                      unsigned n)
{
  __m256i lane0 = _mm256_add_epi32(_mm256_set1_epi32((int)x[0]),
                                   _mm256_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28));
  __m256i diff = _mm256_setzero_si256();
  unsigned full = n / 8;
#pragma GCC unroll 8
  for (unsigned c = 0; c < 8; c++) {
    if (c >= full)
      break;
    diff = _mm256_or_si256(diff, off_step8(x, lane0, c));
  }
  if (n & 7)
    diff = _mm256_or_si256(diff, _mm256_and_si256(off_step8(x, lane0, full), first8(n & 7)));
  return _mm256_testz_si256(diff, diff);
}

/* n dwords (1..64) from src to dst: whole groups of eight, then a masked group. */
static DS_AVX2 inline __attribute__((always_inline)) void copy_first(uint8_t *dst, const uint8_t *src, unsigned n)
{
  unsigned full = n / 8;
#pragma GCC unroll 8
  for (unsigned c = 0; c < 8; c++) {
    if (c >= full)
      break;
    _mm256_storeu_si256((__m256i *)(void *)(dst + 32 * c),
                        _mm256_loadu_si256((const __m256i *)(const void *)(src + 32 * c)));
  }
  if (n & 7) {
    __m256i m = first8(n & 7);
    _mm256_maskstore_epi32((int *)(void *)(dst + 32 * full), m,
                           _mm256_maskload_epi32((const int *)(const void *)(src + 32 * full), m));
  }
}

/* The b32 access of lanes 0..n-1 (EXEC all ones, or a prefix of it) at consecutive dwords,
 * all inside the LDS; 1 (nothing done) when the lanes are not so. As ds_prefix(): the range
 * first (64-bit sums: no wrap, so lane l's 32-bit address is the first's plus 4 * l), then
 * the steps; the address register is read before a load writes a register. */
static DS_AVX2 inline __attribute__((always_inline)) int ds_b32_first(struct isa_wave *w, const struct isa_inst *in,
                                       const uint32_t *va, unsigned n, bool store)
{
  uint64_t at = (uint64_t)va[0] + (uint32_t)(in->offset & 0xffff);
  if (at + 4 * n > w->wg->lds_size || !steps4_first(va, n))
    return 1;
  uint8_t *lds = w->wg->lds + at;
  if (store)
    copy_first(lds, (const uint8_t *)wave_vreg(w, in->data0), n);
  else
    copy_first((uint8_t *)wave_vreg(w, in->dst), lds, n);
  return 0;
}

#define DS_B32_FN(name, store, wave_fn)                                                         \
  static DS_AVX2 int name(struct isa_wave *w, const struct isa_inst *in)                        \
  {                                                                                           \
    uint64_t exec = wave_exec(w);                                                             \
    const uint32_t *va = wave_vreg(w, in->addr);                                              \
    if (exec == ~0ull)                                                                        \
      return ds_b32_first(w, in, va, WAVE_SIZE, store) ? wave_fn(w, in) : 0;                  \
    if (exec & (exec - 1)) {                                                                  \
      if (!(exec & (exec + 1)) &&                                                             \
          !ds_b32_first(w, in, va, (unsigned)__builtin_popcountll(exec), store))              \
        return 0;                                                                             \
    } else if (exec && !ds_b32_lane(w, in, va, (unsigned)__builtin_ctzll(exec), store)) {     \
      return 0;                                                                               \
    }                                                                                         \
    return ds_wave_rest(w, in);                                                               \
  }
DS_B32_FN(ds_load1x1_avx2, false, ds_load1x1_wave)
DS_B32_FN(ds_store1x1_avx2, true, ds_store1x1_wave)
#undef DS_B32_FN
#endif

isa_exec_fn ds_dwords_bind_for(const struct isa_inst *in, bool avx2)
{
  const struct mem_op *mo = in->mo;
  static isa_exec_fn const fns[2][2][4] = {
      {{ds_load1x1, ds_load1x2, ds_load1x3, ds_load1x4}, {ds_load2x1, ds_load2x2, NULL, NULL}},
      {{ds_store1x1, ds_store1x2, ds_store1x3, ds_store1x4},
       {ds_store2x1, ds_store2x2, NULL, NULL}}};
  unsigned n = mo->two_addr ? 2 : 1, dw = n == 2 ? mo->bytes / 4 : mo->bytes * mo->count / 4;
  if ((mo->kind != MK_LOAD && mo->kind != MK_STORE) || mo->bytes < 4 || mo->d16 || dw < 1 ||
      dw > 4)
    return NULL;
#ifdef MEM_FAST_GATHER
  if (n == 1 && dw == 1 && avx2)
    return mo->kind == MK_STORE ? ds_store1x1_avx2 : ds_load1x1_avx2;
#else
  (void)avx2;
#endif
  return fns[mo->kind == MK_STORE][n - 1][dw - 1];
}

isa_exec_fn ds_dwords_bind(const struct isa_inst *in)
{
#ifdef MEM_FAST_GATHER
  return ds_dwords_bind_for(in, __builtin_cpu_supports("avx2"));
#else
  return ds_dwords_bind_for(in, false);
#endif
}
