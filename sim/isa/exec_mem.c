/* Vector memory: FLAT, GLOBAL, SCRATCH, MUBUF; and LDS (DS), including ds_bpermute/ds_swizzle
 * and the global wave sync (GWS) barrier.
 *
 * Address spaces (ISA guide "Flat Memory Instructions"; AMDGPUUsage "Address Spaces"): a flat
 * address inside the LDS aperture reaches the workgroup's LDS, inside the private aperture the
 * work-item's private memory, anything else goes through translate() (GPU page tables).
 */
#include "isa/wave.h"
#include "isa/exec_mem_fast.h"
#include "isa/mem_ops.h"

#include <errno.h>
#include <time.h>

/* Visit the set bits of a lane mask: `l` is the lane number. `continue` moves to the next lane. */
#define FOR_LANES(m)                                                                     \
  for (uint64_t lanes_left_ = (m); lanes_left_; lanes_left_ &= lanes_left_ - 1)           \
    for (unsigned l = (unsigned)__builtin_ctzll(lanes_left_), once_ = 1; once_; once_ = 0)

static inline uint64_t vreg64(struct isa_wave *w, unsigned code, unsigned l)
{
  return wave_vreg(w, code)[l] | (uint64_t)wave_vreg(w, code + 1)[l] << 32;
}

/* ---- private (scratch) memory ----
 *
 * A wave's private memory is swizzled as the hardware's scratch is (the private segment buffer
 * with an element size of 4 and an index stride of 64, AMDGPUUsage "Private Segment Buffer"):
 * dword k of every lane lies in one row of 64 dwords, lane l at 4 * l in it. A wave that reads
 * the same offset in every lane (a local array indexed by a loop counter) reads 256
 * consecutive bytes, not one line from each of 64 lane-sized blocks. Only this file sees the
 * layout: accesses go through priv_check and priv_copy. */

/* The byte at offset `off` of lane `l`. */
static inline uint8_t *priv_at(struct isa_wave *w, unsigned l, uint64_t off)
{
  return w->priv + (off >> 2) * (4 * WAVE_SIZE) + 4 * l + (off & 3);
}

/* True when `len` bytes at offset `off` lie in a lane's private memory; else a fault. */
static bool priv_check(struct isa_wave *w, uint64_t off, unsigned len, bool write)
{
  if (off + len > w->priv_bytes || off + len < off) {
    wave_page_fault(w, APERTURE_PRIVATE_BASE + off, write);
    return false;
  }
  return true;
}

/* `len` bytes of lane l's private memory at `off` (checked) from (`write`) or to `buf`, a
 * dword's part at a time. */
static void priv_copy(struct isa_wave *w, unsigned l, uint64_t off, uint8_t *buf, unsigned len,
                      bool write)
{
  while (len) {
    unsigned n = 4 - (unsigned)(off & 3);
    n = n < len ? n : len;
    uint8_t *p = priv_at(w, l, off);
    if (write)
      memcpy(p, buf, n);
    else
      memcpy(buf, p, n);
    off += n;
    buf += n;
    len -= n;
  }
}

static uint8_t *lds_ptr(struct isa_wave *w, uint64_t off, unsigned len, bool write)
{
  if (off + len > w->wg->lds_size) {
    wave_page_fault(w, APERTURE_SHARED_BASE + off, write);
    return NULL;
  }
  return w->wg->lds + off;
}

enum space { SP_GLOBAL, SP_PRIVATE, SP_LDS };

/* The host address of an LDS or global access (private memory is not contiguous per lane:
 * priv_copy). */
static uint8_t *resolve(struct isa_wave *w, enum space sp, uint64_t a, unsigned len, bool write)
{
  return sp == SP_LDS ? lds_ptr(w, a, len, write) : wave_mem(w, a, len, write);
}

static void write_lane_data(struct isa_wave *w, unsigned reg, unsigned l, const uint8_t *src,
                            const struct mem_op *mo)
{
  if (mo->bytes < 4) {
    uint32_t v = mo->bytes == 1 ? (mo->sext ? (uint32_t)(int32_t)(int8_t)src[0] : src[0])
                                : (uint32_t)(mo->sext ? (int32_t)(int16_t)(src[0] | src[1] << 8)
                                                      : (uint16_t)(src[0] | src[1] << 8));
    uint32_t *d = &wave_vreg(w, reg)[l];
    if (mo->d16 == 1) *d = (*d & 0xffff0000u) | (v & 0xffff);
    else if (mo->d16 == 2) *d = (*d & 0xffff) | v << 16;
    else *d = v;
    return;
  }
  unsigned dw = mo->bytes * mo->count / 4;
  for (unsigned i = 0; i < dw; i++)
    memcpy(&wave_vreg(w, reg + i)[l], src + 4 * i, 4);
}

static void read_lane_data(struct isa_wave *w, unsigned reg, unsigned l, uint8_t *dst, const struct mem_op *mo)
{
  if (mo->bytes < 4) {
    uint32_t v = wave_vreg(w, reg)[l];
    if (mo->d16 == 2) v >>= 16;
    memcpy(dst, &v, mo->bytes);
    return;
  }
  unsigned dw = mo->bytes * mo->count / 4;
  for (unsigned i = 0; i < dw; i++)
    memcpy(dst + 4 * i, &wave_vreg(w, reg + i)[l], 4);
}

/* gfx90a (MI200) performs floating-point atomics in the L2; on system memory mapped uncached
 * (fine-grained host memory, MTYPE UC) the atomic goes out over PCIe, whose AtomicOps are
 * integer FetchAdd, Swap and CAS only, so the float operation has no effect and returns 0.
 * AMD's hip-tests deviceLib AtomicAdd_Coherent_withunsafeflag checks exactly that on an MI210;
 * the compiler emits CAS loops instead unless -munsafe-fp-atomics. gfx942 is left as is. */
static bool fp_atomic_dropped(struct isa_wave *w, const struct mem_op *mo, uint64_t a)
{
  switch (mo->atomic) {
  case AT_FADD: case AT_FMIN: case AT_FMAX: case AT_PK_FADD16: case AT_PK_BFADD16:
  case AT_FADD_FTZ: case AT_FADD_FTZ_OUT: case AT_FADD_FTZ_IN:
    break;
  default:
    return false;
  }
  const struct isa_dispatch *d = w->ctx->d;
  return d->target == ISA_GFX90A && d->sys_uncached && d->sys_uncached(d->mem_ctx, a);
}

/* One lane's access after address resolution. Returns -1 on a fault. */
static int lane_access(struct isa_wave *w, const struct isa_inst *in, const struct mem_op *mo,
                       enum space sp, unsigned l, uint64_t a, unsigned dreg, unsigned vdata)
{
  unsigned len = mo->bytes * mo->count;
  uint8_t buf[16];
  if (mo->kind == MK_LOAD) {
    if (sp == SP_PRIVATE) {
      if (!priv_check(w, a, len, false)) return -1;
      priv_copy(w, l, a, buf, len, false);
    } else {
      uint8_t *p = resolve(w, sp, a, len, false);
      if (!p) return -1;
      memcpy(buf, p, len);
    }
    write_lane_data(w, dreg, l, buf, mo);
  } else if (mo->kind == MK_STORE) {
    if (sp == SP_PRIVATE ? !priv_check(w, a, len, true) : false) return -1;
    uint8_t *p = sp == SP_PRIVATE ? NULL : resolve(w, sp, a, len, true);
    if (sp != SP_PRIVATE && !p) return -1;
    read_lane_data(w, vdata, l, buf, mo);
    if (p)
      memcpy(p, buf, len);
    else
      priv_copy(w, l, a, buf, len, true);
  } else {
    /* private memory is this lane's alone: its atomic works on a copy, written back */
    uint64_t word = 0;
    uint8_t *p = (uint8_t *)&word;
    if (sp == SP_PRIVATE) {
      if (!priv_check(w, a, mo->bytes, true)) return -1;
      priv_copy(w, l, a, p, mo->bytes, false);
    } else if (!(p = resolve(w, sp, a, mo->bytes, true))) {
      return -1;
    }
    if ((sp == SP_PRIVATE ? a : (uintptr_t)p) % mo->bytes) {
      wave_fail(w, ISA_PAGE_FAULT, "misaligned atomic at 0x%llx", (unsigned long long)a);
      return -1;
    }
    unsigned dw = mo->bytes / 4;
    uint64_t src = 0, cmp = 0;
    for (unsigned i = 0; i < dw; i++) {
      src |= (uint64_t)wave_vreg(w, vdata + i)[l] << (32 * i);
      if (mo->atomic == AT_CMPSWAP)
        cmp |= (uint64_t)wave_vreg(w, vdata + dw + i)[l] << (32 * i);
    }
    /* Private and LDS memory belong to this thread alone; host atomics are still correct. */
    uint64_t old = sp == SP_GLOBAL && fp_atomic_dropped(w, mo, a)
                       ? 0 : mem_atomic(p, mo->bytes, (enum atomic_op)mo->atomic, src, cmp);
    if (sp == SP_PRIVATE)
      priv_copy(w, l, a, p, mo->bytes, true);
    if (in->glc)
      for (unsigned i = 0; i < dw; i++)
        wave_vreg(w, dreg + i)[l] = (uint32_t)(old >> (32 * i));
  }
  return 0;
}

/* The host address of the page wave_mem() just put in the wave's TLB for `va`, or NULL when
 * the access was translated on its own (it crosses a page, or the page is not wholly mapped). */
static uint8_t *tlb_page_host(const struct isa_wave *w, uint64_t va, bool write)
{
  return wave_tlb_lookup(w, va & ~0xfffull, write);
}

/* GLOBAL (and FLAT outside the LDS and private apertures) loads and stores of whole dwords, the
 * bulk of a kernel's memory traffic: consecutive lanes mostly touch one page, so the page's host
 * address is kept across lanes, and the data moves straight between memory and the registers.
 * Same results and faults as lane_access(), which still serves lanes in the apertures. */
int flat_dwords_lanes(struct isa_wave *w, const struct isa_inst *in, const struct mem_op *mo,
                      uint64_t exec, bool use_saddr)
{
  unsigned dw = mo->bytes * mo->count / 4, len = 4 * dw;
  bool store = mo->kind == MK_STORE;
  uint32_t *regs[4];
  uint64_t page = ~0ull;
  uint8_t *host = NULL;
  for (unsigned i = 0; i < dw; i++)
    regs[i] = wave_vreg(w, (store ? in->data0 : in->dst) + i);
  FOR_LANES(exec) {
    uint64_t a = in->enc == ENC_GLOBAL && use_saddr
                     ? wave_sreg64(w, in->saddr) + wave_vreg(w, in->addr)[l]
                     : vreg64(w, in->addr, l);
    a += (uint64_t)(int64_t)in->offset;
    if (in->enc == ENC_FLAT && (a - APERTURE_SHARED_BASE < APERTURE_SIZE ||
                                a - APERTURE_PRIVATE_BASE < APERTURE_SIZE)) {
      enum space sp = a - APERTURE_SHARED_BASE < APERTURE_SIZE ? SP_LDS : SP_PRIVATE;
      a -= sp == SP_LDS ? APERTURE_SHARED_BASE : APERTURE_PRIVATE_BASE;
      if (lane_access(w, in, mo, sp, l, a, in->dst, in->data0))
        return -1;
      continue;
    }
    uint8_t *p;
    if ((a & ~0xfffull) == page && (a & 0xfff) + len <= 4096) {
      p = host + (a & 0xfff);
    } else {
      p = wave_mem(w, a, len, store);
      if (!p)
        return -1;
      host = (a & 0xfff) + len <= 4096 ? tlb_page_host(w, a, store) : NULL;
      page = host ? a & ~0xfffull : ~0ull;
    }
    lane_dwords_move(p, regs, l, dw, store);
  }
  return 0;
}

static int exec_flat(struct isa_wave *w, const struct isa_inst *in, const struct mem_op *mo,
                     bool direct)
{
  uint64_t exec = wave_exec(w);
  bool use_saddr = in->saddr != 0x7f && in->saddr != OPD_NONE;
  if (in->enc != ENC_SCRATCH && (mo->kind == MK_LOAD || mo->kind == MK_STORE) &&
      mo->bytes == 4 && !mo->d16 && mo->count >= 1 && mo->count <= 4) {
    if (direct && !flat_dwords_direct(w, in, mo, exec, use_saddr))
      return 0;
    return flat_dwords_lanes(w, in, mo, exec, use_saddr);
  }
  FOR_LANES(exec) {
    uint64_t a;
    enum space sp = SP_GLOBAL;
    if (in->enc == ENC_SCRATCH) {
      a = 0;
      bool vaddr = w->ctx->target == ISA_GFX942 ? in->sve : !use_saddr;
      if (vaddr) a += wave_vreg(w, in->addr)[l];
      if (use_saddr) a += w->s[in->saddr];
      a = (uint32_t)(a + (uint64_t)(int64_t)in->offset);
      sp = SP_PRIVATE;
    } else if (in->enc == ENC_GLOBAL && use_saddr) {
      a = wave_sreg64(w, in->saddr) + wave_vreg(w, in->addr)[l] + (uint64_t)(int64_t)in->offset;
    } else {
      a = vreg64(w, in->addr, l) + (uint64_t)(int64_t)in->offset;
    }
    if (in->enc == ENC_FLAT) {
      if (a - APERTURE_SHARED_BASE < APERTURE_SIZE) { sp = SP_LDS; a -= APERTURE_SHARED_BASE; }
      else if (a - APERTURE_PRIVATE_BASE < APERTURE_SIZE) { sp = SP_PRIVATE; a -= APERTURE_PRIVATE_BASE; }
    }
    if (lane_access(w, in, mo, sp, l, a, in->dst, in->data0))
      return -1;
  }
  return 0;
}

/* A raw-buffer dwordx2/x3/x4 access is range checked per dword (ISA guide "Range Checking":
 * load/store-dword-x{2,3,4} check each component; typed accesses and atomics are all or
 * nothing): dwords past num_records read 0 and are not written. */
static int mubuf_per_dword(struct isa_wave *w, const struct isa_inst *in, const struct mem_op *mo,
                           unsigned l, uint64_t a, uint64_t eoff, uint32_t num_records)
{
  struct mem_op one = *mo;
  one.count = 1;
  for (unsigned i = 0; i < mo->count; i++) {
    if (eoff + 4 * i + 4 <= num_records) {
      if (lane_access(w, in, &one, SP_GLOBAL, l, a + 4 * i, in->dst + i, in->data0 + i))
        return -1;
    } else if (mo->kind == MK_LOAD) {
      wave_vreg(w, in->dst + i)[l] = 0;
    }
  }
  return 0;
}

/* Typed access (buffer_load/store_format_*, tbuffer_*): one element of the data format per
 * lane, converted by the number format (mem_ops.c), range checked all or nothing (ISA guide
 * "Range Checking"). The format is V# word 3 DATA_FORMAT [18:15] / NUM_FORMAT [14:12] for MUBUF,
 * the instruction's DFMT [22:19] / NFMT [25:23] for MTBUF (read back from the instruction word:
 * struct isa_inst does not carry them). Formats the interpreter does not model are refused.
 * Loads go through the V#'s DST_SEL_X/Y/Z/W (word 3, 3 bits each from bit 0: 0 reads 0, 1 reads
 * 1, 4-7 the element's x-w); out-of-range reads return 0 except where DST_SEL says 1. */
static int exec_typed(struct isa_wave *w, const struct isa_inst *in, const struct mem_op *mo,
                      const uint32_t *v, uint32_t soff)
{
  unsigned dfmt = v[3] >> 15 & 0xf, nfmt = v[3] >> 12 & 7;
  if (in->enc == ENC_MTBUF) {
    const uint8_t *iw = wave_mem(w, wave_cur_pc(w), 4, false);
    if (!iw)
      return -1;
    uint32_t word;
    memcpy(&word, iw, 4);
    dfmt = word >> 19 & 0xf;
    nfmt = word >> 23 & 7;
  }
  struct buf_format f;
  bool store = mo->kind == MK_STORE;
  if ((mo->kind != MK_LOAD && !store) || mo->count > 4 || mo->d16 ||
      !buf_format_get(dfmt, nfmt, store, &f) || (store && mo->count < f.comps))
    return exec_illegal(w, in);
  uint64_t base = v[0] | (uint64_t)(v[1] & 0xffff) << 32;
  uint32_t stride = v[1] >> 16 & 0x3fff, num_records = v[2];
  bool priv = base >= PRIVATE_VSHARP_BASE;
  unsigned esz = f.comps * f.bits / 8;
  uint32_t one = f.nfmt == NF_UINT || f.nfmt == NF_SINT ? 1 : 0x3f800000u;
  unsigned sel[4];
  for (unsigned i = 0; i < 4; i++) {
    sel[i] = v[3] >> (3 * i) & 7;
    if (!store && i < mo->count && (sel[i] == 2 || sel[i] == 3))
      return exec_illegal(w, in);   /* reserved selects */
  }
  uint64_t exec = wave_exec(w);
  FOR_LANES(exec) {
    uint32_t idx = 0, off = (uint32_t)in->offset;
    if (in->idxen) idx = wave_vreg(w, in->addr)[l];
    if (in->offen) off += wave_vreg(w, in->addr + (in->idxen ? 1 : 0))[l];
    uint8_t *p, tmp[16];
    uint64_t pa = (base - PRIVATE_VSHARP_BASE) + soff / WAVE_SIZE + off;
    if (priv) {
      /* through tmp: a lane's private bytes are not contiguous */
      p = priv_check(w, pa, esz, store) ? tmp : NULL;
      if (p && !store)
        priv_copy(w, l, pa, tmp, esz, false);
    } else {
      uint64_t eoff = (uint64_t)off + (uint64_t)idx * stride;
      if (stride ? idx >= num_records : eoff + esz > num_records) {
        for (unsigned i = 0; !store && i < mo->count; i++)
          wave_vreg(w, in->dst + i)[l] = sel[i] == 1 ? one : 0;
        continue;
      }
      p = wave_mem(w, base + soff + eoff, esz, store);
    }
    if (!p)
      return -1;
    uint32_t val[4];
    if (store) {
      for (unsigned i = 0; i < f.comps; i++)
        val[i] = wave_vreg(w, in->data0 + i)[l];
      uint8_t buf[16];
      buf_format_store(buf, &f, val);
      memcpy(p, buf, esz);
      if (priv)
        priv_copy(w, l, pa, tmp, esz, true);
    } else {
      buf_format_load(p, &f, 4, val);
      for (unsigned i = 0; i < mo->count; i++)
        wave_vreg(w, in->dst + i)[l] = sel[i] >= 4 ? val[sel[i] - 4] : sel[i] == 1 ? one : 0;
    }
  }
  return 0;
}

/* MUBUF with a buffer resource (V#): base [47:0], stride [61:48], num_records in dword 2. */
static int exec_mubuf(struct isa_wave *w, const struct isa_inst *in, const struct mem_op *mo)
{
  uint64_t exec = wave_exec(w);
  const uint32_t *v = &w->s[in->srsrc & 127];
  uint64_t base = v[0] | (uint64_t)(v[1] & 0xffff) << 32;
  uint32_t stride = v[1] >> 16 & 0x3fff, num_records = v[2];
  uint32_t soff = (uint32_t)wave_scalar_src(w, in, in->soffset, 1);
  bool priv = base >= PRIVATE_VSHARP_BASE;
  if (in->enc == ENC_MTBUF || mo->typed)
    return exec_typed(w, in, mo, v, soff);
  unsigned len = mo->bytes * mo->count;
  FOR_LANES(exec) {
    uint32_t idx = 0, off = (uint32_t)in->offset;
    if (in->idxen) idx = wave_vreg(w, in->addr)[l];
    if (in->offen) off += wave_vreg(w, in->addr + (in->idxen ? 1 : 0))[l];
    if (priv) {
      /* Scratch through the private segment buffer: SOFFSET is a wave-scaled byte offset
       * (wave size times the per-lane offset), VADDR and the immediate are per lane. */
      uint64_t a = (base - PRIVATE_VSHARP_BASE) + soff / WAVE_SIZE + off;
      if (lane_access(w, in, mo, SP_PRIVATE, l, a, in->dst, in->data0))
        return -1;
      continue;
    }
    uint64_t eoff = (uint64_t)off + (uint64_t)idx * stride;
    if (!stride && mo->kind != MK_ATOMIC && mo->count > 1) {
      if (mubuf_per_dword(w, in, mo, l, base + soff + eoff, eoff, num_records))
        return -1;
      continue;
    }
    /* Range checking of raw buffers: out-of-range loads return 0, stores are dropped. */
    bool oob = stride ? idx >= num_records : eoff + len > num_records;
    if (oob) {
      if (mo->kind == MK_LOAD) {
        uint8_t z[16] = {0};
        write_lane_data(w, in->dst, l, z, mo);
      }
      continue;
    }
    if (lane_access(w, in, mo, SP_GLOBAL, l, base + soff + eoff, in->dst, in->data0))
      return -1;
  }
  return 0;
}

static int vmem(struct isa_wave *w, const struct isa_inst *in, bool direct)
{
  const struct mem_op *mo = mem_op_info(in->op);
  if (mo->kind == MK_NOP)
    return 0;   /* cache write-back/invalidate: the interpreter has no caches */
  if (mo->kind == MK_NONE || in->lds)
    return exec_illegal(w, in);
  if (in->enc == ENC_MUBUF || in->enc == ENC_MTBUF)
    return exec_mubuf(w, in, mo);
  return exec_flat(w, in, mo, direct);
}

int exec_vmem(struct isa_wave *w, const struct isa_inst *in)
{
  return vmem(w, in, true);
}

/* ---- scratch through the private segment buffer, whole dwords ----
 *
 * A local array the compiler keeps in scratch (hip-tests' MemFaultStackAllocation: int A1[1024]
 * read in a loop of 100,000) is read and written with buffer_load/store_dword ... offen
 * through the private buffer resource init_sgprs gives the wave. exec_mubuf forms each lane's
 * address, checks it and copies through three calls a lane; this forms every active lane's
 * offset, checks them all against the lane's private size before it touches anything (any lane
 * outside, or not dword aligned, goes to exec_mubuf, which reports the fault at that lane),
 * then moves the dwords: a whole row of the swizzled layout when every lane is at one offset.
 * The address is exec_mubuf's: the immediate plus VADDR in 32 bits, then the resource's base
 * (as an offset into the private aperture) and SOFFSET over the wave size, in 64 bits. */
static int mubuf_private_dwords(struct isa_wave *w, const struct isa_inst *in)
{
  const struct mem_op *mo = in->mo;
  const uint32_t *v = &w->s[in->srsrc & 127];
  uint64_t base = v[0] | (uint64_t)(v[1] & 0xffff) << 32;
  unsigned len = 4u * mo->count;
  uint64_t exec = wave_exec(w);
  if (base < PRIVATE_VSHARP_BASE || !w->priv || !exec)
    return exec_vmem(w, in);
  uint64_t a0 = (base - PRIVATE_VSHARP_BASE) +
                (uint32_t)wave_scalar_src(w, in, in->soffset, 1) / WAVE_SIZE;
  if (a0 >= w->priv_bytes || w->priv_bytes - a0 < len || (a0 & 3))
    return exec_vmem(w, in);
  uint64_t room = w->priv_bytes - a0 - len;   /* the largest lane offset that fits */
  const uint32_t *va = in->offen ? wave_vreg(w, in->addr) : NULL;
  uint32_t off[WAVE_SIZE], bad = 0, diff = 0;
  for (unsigned l = 0; l < WAVE_SIZE; l++) {
    off[l] = (uint32_t)in->offset + (va ? va[l] : 0);
    /* outside the lane's memory, or not dword aligned (then its dwords straddle rows) */
    bad |= (uint32_t)((off[l] > room || (off[l] & 3)) && (exec >> l & 1));
    diff |= off[l] ^ off[0];
  }
  if (bad)
    return exec_vmem(w, in);
  bool store = mo->kind == MK_STORE;
  unsigned reg = store ? in->data0 : in->dst;
  if (exec == ~0ull && !diff) {
    /* every lane at one offset: dword i of the wave is one row of 256 bytes */
    uint8_t *row = priv_at(w, 0, a0 + off[0]);
    for (unsigned i = 0; i < mo->count; i++, row += 4 * WAVE_SIZE) {
      uint32_t *r = wave_vreg(w, reg + i);
      if (store)
        memcpy(row, r, 4 * WAVE_SIZE);
      else
        memcpy(r, row, 4 * WAVE_SIZE);
    }
    return 0;
  }
  FOR_LANES(exec) {
    uint8_t *p = priv_at(w, l, a0 + off[l]);
    for (unsigned i = 0; i < mo->count; i++, p += 4 * WAVE_SIZE) {
      uint32_t *r = &wave_vreg(w, reg + i)[l];
      if (store)
        memcpy(p, r, 4);
      else
        memcpy(r, p, 4);
    }
  }
  return 0;
}

isa_exec_fn vmem_bind(struct isa_inst *in)
{
  const struct mem_op *mo = mem_op_info(in->op);
  if (in->enc == ENC_MUBUF && !in->lds && !in->idxen &&
      (mo->kind == MK_LOAD || mo->kind == MK_STORE) && mo->bytes == 4 && !mo->d16 &&
      mo->count >= 1 && mo->count <= 4 && !mo->typed) {
    in->mo = mo;
    return mubuf_private_dwords;
  }
  if ((in->enc == ENC_GLOBAL || in->enc == ENC_FLAT) && !in->lds &&
      (mo->kind == MK_LOAD || mo->kind == MK_STORE) && mo->bytes == 4 && !mo->d16 &&
      mo->count >= 1 && mo->count <= 4) {
    in->mo = mo;
    return flat_dwords_bind(in, mo->count, mo->kind == MK_STORE);
  }
  return exec_vmem;
}

int exec_vmem_general(struct isa_wave *w, const struct isa_inst *in)
{
  return vmem(w, in, false);
}

/* ---- LDS ---- */

static int ds_lane_crossing(struct isa_wave *w, const struct isa_inst *in)
{
  uint64_t exec = wave_exec(w);
  const uint32_t *addr = wave_vreg(w, in->addr), *data = wave_vreg(w, in->data0);
  uint32_t out[WAVE_SIZE] = {0};
  switch (in->op) {
  case OP_DS_BPERMUTE_B32:
    FOR_LANES(exec) {
      unsigned s = ((addr[l] + (uint32_t)in->offset) >> 2) & 63;
      out[l] = (exec >> s & 1) ? data[s] : 0;
    }
    break;
  case OP_DS_PERMUTE_B32:
    FOR_LANES(exec) {
      unsigned d = ((addr[l] + (uint32_t)in->offset) >> 2) & 63;
      out[d] = data[l];
    }
    break;
  case OP_DS_SWIZZLE_B32: {
    uint32_t off = (uint32_t)in->offset & 0xffff;
    const uint32_t *src = addr;   /* ds_swizzle's source is the ADDR field's VGPR */
    FOR_LANES(exec) {
      unsigned s;
      if (off & 0x8000) {
        s = (l & ~3u) | (off >> (2 * (l & 3)) & 3);   /* quad permute mode */
      } else {
        unsigned andm = off & 0x1f, orm = off >> 5 & 0x1f, xorm = off >> 10 & 0x1f;
        s = (l & 0x20) | ((((l & 0x1f) & andm) | orm) ^ xorm);
      }
      out[l] = (exec >> s & 1) ? src[s] : 0;
    }
    break;
  }
  default:
    return 1;
  }
  uint32_t *d = wave_vreg(w, in->dst);
  FOR_LANES(exec) d[l] = out[l];
  return 0;
}

static int gws(struct isa_wave *w, const struct isa_inst *in);

/* LDS f32 atomic adds follow the wave's MODE.FP_DENORM for single precision (bits [5:4]: bit 4
 * keeps input denormals, bit 5 output denormals), unlike the memory-side global/flat ones;
 * LLVM relies on it (llvm-project PR 89468: "DS atomic fadd F32 does respect the denormal
 * mode"). The f64 adds never flush. */
static enum atomic_op ds_atomic_op(const struct isa_wave *w, const struct mem_op *mo)
{
  if (mo->atomic != AT_FADD || mo->bytes != 4)
    return (enum atomic_op)mo->atomic;
  static const enum atomic_op by_mode[4] = {AT_FADD_FTZ, AT_FADD_FTZ_OUT, AT_FADD_FTZ_IN, AT_FADD};
  return by_mode[w->mode >> 4 & 3];
}

static int ds(struct isa_wave *w, const struct isa_inst *in, bool direct)
{
  int lc = ds_lane_crossing(w, in);
  if (lc <= 0)
    return lc;
  if (in->op == OP_DS_GWS_INIT || in->op == OP_DS_GWS_BARRIER)
    return gws(w, in);
  const struct mem_op *mo = mem_op_info(in->op);
  if (mo->kind == MK_NONE || mo->kind == MK_NOP || in->gds)
    return exec_illegal(w, in);
  uint64_t exec = wave_exec(w);
  if (direct && !ds_dwords_direct(w, in, mo, exec))
    return 0;
  if (mo->two_addr) {
    unsigned esz = mo->bytes * (mo->two_addr == 2 ? 64 : 1);
    unsigned dw = mo->bytes / 4;
    FOR_LANES(exec) {
      uint32_t base = wave_vreg(w, in->addr)[l];
      for (int k = 0; k < 2; k++) {
        uint32_t a = base + (uint32_t)((in->offset >> (8 * k)) & 0xff) * esz;
        uint8_t *p = lds_ptr(w, a, mo->bytes, mo->kind == MK_STORE);
        if (!p) return -1;
        if (mo->kind == MK_LOAD)
          for (unsigned i = 0; i < dw; i++) memcpy(&wave_vreg(w, in->dst + k * dw + i)[l], p + 4 * i, 4);
        else
          for (unsigned i = 0; i < dw; i++) memcpy(p + 4 * i, &wave_vreg(w, (k ? in->data1 : in->data0) + i)[l], 4);
      }
    }
    return 0;
  }
  unsigned len = mo->bytes * mo->count;
  FOR_LANES(exec) {
    uint32_t a = wave_vreg(w, in->addr)[l] + (uint32_t)(in->offset & 0xffff);
    if (mo->kind == MK_LOAD || mo->kind == MK_STORE) {
      uint8_t *p = lds_ptr(w, a, len, mo->kind == MK_STORE);
      if (!p) return -1;
      if (mo->kind == MK_LOAD) write_lane_data(w, in->dst, l, p, mo);
      else read_lane_data(w, in->data0, l, p, mo);
      continue;
    }
    uint8_t *p = lds_ptr(w, a, mo->bytes, true);
    if (!p) return -1;
    unsigned dw = mo->bytes / 4;
    uint64_t src = 0, cmp = 0;
    for (unsigned i = 0; i < dw; i++) {
      /* ds_cmpst: DATA0 is the compare value, DATA1 the new value; mskor: DATA0 mask, DATA1 bits */
      if (mo->atomic == AT_CMPSWAP || mo->atomic == AT_MSKOR) {
        cmp |= (uint64_t)wave_vreg(w, in->data0 + i)[l] << (32 * i);
        src |= (uint64_t)wave_vreg(w, in->data1 + i)[l] << (32 * i);
      } else {
        src |= (uint64_t)wave_vreg(w, in->data0 + i)[l] << (32 * i);
      }
    }
    uint64_t old = mem_atomic(p, mo->bytes, ds_atomic_op(w, mo), src, cmp);
    if (mo->ret)
      for (unsigned i = 0; i < dw; i++) wave_vreg(w, in->dst + i)[l] = (uint32_t)(old >> (32 * i));
  }
  return 0;
}

int exec_ds(struct isa_wave *w, const struct isa_inst *in)
{
  return ds(w, in, true);
}

/* DS loads and stores of whole dwords (not GDS): the direct path, else ds()'s per-lane one. */
static int ds_dwords_bound(struct isa_wave *w, const struct isa_inst *in)
{
  if (!ds_dwords_direct(w, in, in->mo, wave_exec(w)))
    return 0;
  return ds(w, in, false);
}

isa_exec_fn ds_bind(struct isa_inst *in)
{
  const struct mem_op *mo = mem_op_info(in->op);
  if ((mo->kind == MK_LOAD || mo->kind == MK_STORE) && mo->bytes >= 4 && !mo->d16 && !in->gds) {
    in->mo = mo;
    isa_exec_fn fn = ds_dwords_bind(in);
    return fn ? fn : ds_dwords_bound;
  }
  return exec_ds;
}

int exec_ds_general(struct isa_wave *w, const struct isa_inst *in)
{
  return ds(w, in, false);
}

/* Global wave sync: ds_gws_barrier waits until (data + 1) waves of the dispatch arrived. The
 * waiting wave stops (WAVE_GWS) and remembers the barrier generation; its workgroup is parked
 * once no wave of it can run (dispatch.c, wg_park.c), so its host thread goes on with other
 * workgroups: a cooperative launch has every workgroup resident at once. The last arrival ends
 * the generation and makes the parked workgroups ready again. */
static int gws(struct isa_wave *w, const struct isa_inst *in)
{
  struct isa_ctx *c = w->ctx;
  uint64_t exec = wave_exec(w);
  unsigned l = exec ? (unsigned)__builtin_ctzll(exec) : 0;
  /* LLVM encodes the GWS value VGPR in the ADDR field (checked with llvm-mc-19) */
  uint32_t val = wave_vreg(w, in->addr)[l];
  if (in->op == OP_DS_GWS_INIT) {
    pthread_mutex_lock(&c->lock);
    c->gws_target = val + 1;
    pthread_mutex_unlock(&c->lock);
    return 0;
  }
  uint64_t waves = c->total_wgs * ((c->group_size + WAVE_SIZE - 1) / WAVE_SIZE);
  if ((uint64_t)val + 1 > waves) {
    wave_fail(w, ISA_ILLEGAL_INSTR, "ds_gws_barrier at pc 0x%llx waits for %llu waves; the dispatch has %llu",
              (unsigned long long)wave_cur_pc(w), (unsigned long long)val + 1, (unsigned long long)waves);
    return -1;
  }
  pthread_mutex_lock(&c->lock);
  c->gws_pc = wave_cur_pc(w);
  if (++c->gws_arrived >= val + 1) {
    c->gws_arrived = 0;
    wg_release_gws(c);
  } else {
    w->gws_gen = atomic_load(&c->gws_generation);
    w->state = WAVE_GWS;
  }
  pthread_mutex_unlock(&c->lock);
  return 0;
}
