/* Image instructions (MIMG): the interpreter's texture unit (image.h).
 *
 * Descriptor layouts (MI200 ISA guide "Image Resource" / "Image Sampler"; the same bit fields as
 * ROCr's hsa-runtime/image/resource_ai.h, which AMD's runtime uses to build them on gfx9):
 *   T# (8 dwords): base address >> 8 in [39:0]; DATA_FORMAT [57:52], NUM_FORMAT [61:58];
 *     WIDTH-1 [77:64], HEIGHT-1 [91:78]; DST_SEL_X..W [98:96].. [107:105], BASE_LEVEL [111:108],
 *     LAST_LEVEL [115:112], SW_MODE [120:116], TYPE [127:124]; DEPTH-1 [140:128] (3D depth or
 *     last array slice), PITCH-1 [156:141] in elements; BASE_ARRAY [172:160].
 *   S# (4 dwords): CLAMP_X/Y/Z [2:0] [5:3] [8:6], FORCE_UNNORMALIZED [15]; XY_MAG_FILTER
 *     [85:84], XY_MIN_FILTER [87:86], Z_FILTER [89:88]; BORDER_COLOR_TYPE [127:126].
 *
 * Model choices, each stated where it is made: linear tiling only (SW_MODE 0), a single mip
 * level, coordinates and filter weights in 8-bit subtexel fixed point (axis_taps), blended in
 * float, compute-shader sampling at LOD 0 (no derivatives), so the magnification filter applies.
 */
#include "isa/image.h"
#include "isa/mem_ops.h"
#include "isa/valu_fp.h"
#include "isa/wave.h"

#include <math.h>
#include <string.h>

#define FOR_LANES(m)                                                                     \
  for (uint64_t lanes_left_ = (m); lanes_left_; lanes_left_ &= lanes_left_ - 1)           \
    for (unsigned l = (unsigned)__builtin_ctzll(lanes_left_), once_ = 1; once_; once_ = 0)

/* DST_SEL values: constant 0, constant 1, then channels X..W. */
enum { SEL_0 = 0, SEL_1 = 1, SEL_X = 4 };
/* T# TYPE values (SQ_RSRC_IMG_*). */
enum { IMG_1D = 8, IMG_2D = 9, IMG_3D = 10, IMG_CUBE = 11, IMG_1D_ARRAY = 12, IMG_2D_ARRAY = 13 };
/* S# CLAMP_* values (SQ_TEX_*). */
enum { TEX_WRAP = 0, TEX_MIRROR = 1, TEX_CLAMP_LAST = 2, TEX_MIRROR_ONCE_LAST = 3,
       TEX_CLAMP_HALF_BORDER = 4, TEX_MIRROR_ONCE_HALF_BORDER = 5, TEX_CLAMP_BORDER = 6,
       TEX_MIRROR_ONCE_BORDER = 7 };

/* Texel formats are the buffer formats (mem_ops.c): the equal-width DATA_FORMATs FMT_8 ..
 * FMT_32_32_32_32 have the same numbers in T# and V#, and the number formats the same meaning.
 * The 4-bit image NUM_FORMAT's values above FLOAT (SRGB ...) are not modelled. */
static bool texfmt_of(unsigned dfmt, unsigned nfmt, struct buf_format *f)
{
  return dfmt < 16 && nfmt <= NF_FLOAT && buf_format_get(dfmt, nfmt, false, f);
}

static unsigned fmt_bytes(const struct buf_format *f)
{
  return f->comps * f->bits / 8u;
}

/* UINT and SINT return integer bits; every other number format returns floats. */
static bool fmt_is_int(const struct buf_format *f)
{
  return f->nfmt == NF_UINT || f->nfmt == NF_SINT;
}

static uint32_t fmt_one(const struct buf_format *f)
{
  return fmt_is_int(f) ? 1u : 0x3f800000u;
}

/* Apply the descriptor's DST_SEL (12 bits: X in [2:0] .. W in [11:9]). */
static void swizzle(const struct buf_format *f, unsigned sel, uint32_t v[4])
{
  uint32_t in[4], one = fmt_one(f);
  memcpy(in, v, sizeof(in));
  for (unsigned c = 0; c < 4; c++) {
    unsigned s = sel >> (3 * c) & 7;
    v[c] = s >= SEL_X ? in[s - SEL_X] : s == SEL_1 ? one : 0;
  }
}

/* ---- image resource ---- */

struct tsharp {
  uint64_t base;
  struct buf_format f;
  unsigned type, sel;
  uint32_t size[3];        /* width, height, depth or layers (each >= 1) */
  uint64_t pitch, slice;   /* bytes per row, per slice or layer */
  unsigned base_array;
  unsigned levels;         /* LAST_LEVEL - BASE_LEVEL + 1 */
};

static int tsharp_decode(struct isa_wave *w, const struct isa_inst *in, struct tsharp *t)
{
  const uint32_t *r = &w->s[in->srsrc & 127];
  if (in->srsrc + 8 > 128)
    goto bad;
  unsigned dfmt = r[1] >> 20 & 0x3f, nfmt = r[1] >> 26 & 0xf;
  unsigned base_level = r[3] >> 12 & 0xf, last_level = r[3] >> 16 & 0xf;
  unsigned sw_mode = r[3] >> 20 & 0x1f;
  t->type = r[3] >> 28;
  t->base = ((uint64_t)r[0] | (uint64_t)(r[1] & 0xff) << 32) << 8;
  t->sel = r[3] & 0xfff;
  t->size[0] = (r[2] & 0x3fff) + 1;
  t->size[1] = (r[2] >> 14 & 0x3fff) + 1;
  t->size[2] = (r[4] & 0x1fff) + 1;
  t->base_array = r[5] & 0x1fff;
  t->levels = last_level >= base_level ? last_level - base_level + 1 : 1;
  if (!texfmt_of(dfmt, nfmt, &t->f)) {
    wave_fail(w, ISA_ILLEGAL_INSTR, "%s at pc 0x%llx: image DATA_FORMAT %u NUM_FORMAT %u is not "
              "modelled", isa_mimg_name((unsigned)in->simm16), (unsigned long long)wave_cur_pc(w),
              dfmt, nfmt);
    return -1;
  }
  if (t->type < IMG_1D || t->type > IMG_2D_ARRAY || t->type == IMG_CUBE || sw_mode != 0 ||
      t->levels != 1)
    goto bad;
  if (t->type == IMG_1D || t->type == IMG_1D_ARRAY)
    t->size[1] = 1;
  if (t->type == IMG_1D || t->type == IMG_2D)
    t->size[2] = 1;
  t->pitch = (uint64_t)((r[4] >> 13 & 0xffff) + 1) * fmt_bytes(&t->f);
  t->slice = t->pitch * t->size[1];
  return 0;
bad:
  wave_fail(w, ISA_ILLEGAL_INSTR, "%s at pc 0x%llx: image resource (type %u, SW_MODE %u, levels %u)"
            " is not a linear single-level 1D/2D/3D/array image kfdsim models",
            isa_mimg_name((unsigned)in->simm16), (unsigned long long)wave_cur_pc(w), r[3] >> 28,
            r[3] >> 20 & 0x1f, ((r[3] >> 16 & 0xf) - (r[3] >> 12 & 0xf) + 1) & 0xf);
  return -1;
}

static bool is_array(const struct tsharp *t)
{
  return t->type == IMG_1D_ARRAY || t->type == IMG_2D_ARRAY;
}

/* Filtered (addressed) dimensions of the image. */
static unsigned tex_dims(const struct tsharp *t)
{
  switch (t->type) {
  case IMG_1D: case IMG_1D_ARRAY: return 1;
  case IMG_3D: return 3;
  default: return 2;
  }
}

/* Read and convert the texel at in-range (x, y, z), z being the slice or the absolute layer. */
static int texel_fetch(struct isa_wave *w, const struct tsharp *t, uint32_t x, uint32_t y,
                       uint32_t z, uint32_t out[4])
{
  uint64_t a = t->base + z * t->slice + y * t->pitch + (uint64_t)x * fmt_bytes(&t->f);
  const uint8_t *p = wave_mem(w, a, fmt_bytes(&t->f), false);
  if (!p)
    return -1;
  buf_format_load(p, &t->f, 4, out);
  swizzle(&t->f, t->sel, out);
  return 0;
}

/* Write the components selected by DMASK, in order, to consecutive VDATA registers (two 16-bit
 * values per register under D16: halves for float formats, low bits for integer ones). */
static void write_result(struct isa_wave *w, const struct isa_inst *in, const struct buf_format *f,
                         unsigned l, const uint32_t v[4])
{
  unsigned dmask = MIMG_DMASK(in), k = 0;
  for (unsigned c = 0; c < 4; c++) {
    if (!(dmask >> c & 1))
      continue;
    if (MIMG_D16(in)) {
      uint32_t h = fmt_is_int(f) ? (v[c] & 0xffff) : f32_to_f16(f32_of(v[c]));
      uint32_t *d = &wave_vreg(w, in->data0 + k / 2)[l];
      *d = (k & 1) ? ((*d & 0xffff) | h << 16) : h;
    } else {
      wave_vreg(w, in->data0 + k)[l] = v[c];
    }
    k++;
  }
}

/* ---- sampler ---- */

struct ssharp {
  unsigned clamp[3];
  bool unnormalized;
  unsigned mag_filter, z_filter, border;
};

static int ssharp_decode(struct isa_wave *w, const struct isa_inst *in, struct ssharp *s)
{
  const uint32_t *r = &w->s[in->saddr & 127];
  s->clamp[0] = r[0] & 7;
  s->clamp[1] = r[0] >> 3 & 7;
  s->clamp[2] = r[0] >> 6 & 7;
  s->unnormalized = (r[0] >> 15 & 1) || MIMG_UNORM(in);
  s->mag_filter = r[2] >> 20 & 3;
  s->z_filter = r[2] >> 24 & 3;
  s->border = r[3] >> 30 & 3;
  if (s->border == 3) {
    /* BORDER_COLOR_REGISTER reads a palette the interpreter has no model of. */
    wave_fail(w, ISA_ILLEGAL_INSTR, "image_sample at pc 0x%llx: border colour palette "
              "(BORDER_COLOR_TYPE 3) is not modelled", (unsigned long long)wave_cur_pc(w));
    return -1;
  }
  return 0;
}

/* Address texel index i of an axis with n texels under clamp mode m. False when the access
 * falls on the border (the border colour is returned instead of a texel). */
static bool address(int64_t i, uint32_t n, unsigned m, uint32_t *out)
{
  int64_t p = 2 * (int64_t)n;
  switch (m) {
  case TEX_WRAP:
    i %= n;
    if (i < 0) i += n;
    break;
  case TEX_MIRROR:
    i %= p;
    if (i < 0) i += p;
    if (i >= n) i = p - 1 - i;
    break;
  case TEX_MIRROR_ONCE_LAST: case TEX_MIRROR_ONCE_HALF_BORDER: case TEX_MIRROR_ONCE_BORDER:
    if (i < 0) i = -1 - i;
    if (m != TEX_MIRROR_ONCE_LAST && i >= n) return false;
    if (i >= n) i = n - 1;
    break;
  case TEX_CLAMP_LAST:
    i = i < 0 ? 0 : i >= n ? n - 1 : i;
    break;
  default:   /* CLAMP_BORDER, CLAMP_HALF_BORDER */
    if (i < 0 || i >= n) return false;
    break;
  }
  *out = (uint32_t)i;
  return true;
}

/* A float coordinate made safe for floor() and int64 conversion: NaN samples at 0 and huge
 * values are limited far outside any image (the hardware converts to fixed point). */
static float coord_clean(float x)
{
  if (isnan(x)) return 0.0f;
  return fminf(fmaxf(x, -1073741824.0f), 1073741824.0f);
}

static void border_colour(const struct ssharp *s, const struct buf_format *f, uint32_t v[4])
{
  uint32_t one = fmt_one(f);
  v[0] = v[1] = v[2] = s->border == 2 ? one : 0;   /* 0 transparent black, 1 opaque black, */
  v[3] = s->border == 0 ? 0 : one;                 /* 2 opaque white */
}

/* One axis's taps: index and weight of up to two texels. The texel-space coordinate is taken to
 * fixed point with 8 fractional bits, rounded to nearest (the subtexel precision CUDA documents;
 * AMD's guides give none, and ockl's point-sampling fix-up, floor(u * n) / n, relies on the
 * hardware rounding u * n back onto the integer). Linear filtering samples at texel centres
 * (x - 0.5) and weighs the two neighbours by that 8-bit fraction. */
static unsigned axis_taps(float x, bool linear, int64_t idx[2], float wt[2])
{
  int64_t fx = (int64_t)llrint(((double)x - (linear ? 0.5 : 0.0)) * 256.0);
  int64_t i0 = fx >= 0 ? fx / 256 : -((-fx + 255) / 256);
  idx[0] = i0;
  if (!linear) {
    wt[0] = 1.0f;
    return 1;
  }
  float frac = (float)(fx - i0 * 256) / 256.0f;
  idx[1] = i0 + 1;
  wt[0] = 1.0f - frac;
  wt[1] = frac;
  return 2;
}

static int sample_lane(struct isa_wave *w, const struct tsharp *t, const struct ssharp *s,
                       const float *c, uint32_t out[4])
{
  unsigned dims = tex_dims(t);
  bool integer = fmt_is_int(&t->f);   /* integer formats are never filtered */
  bool lin_xy = !integer && (s->mag_filter & 1);
  /* Z_FILTER NONE follows the XY filter for volumes; POINT or LINEAR override it. */
  bool lin_z = !integer && (s->z_filter == 0 ? lin_xy : s->z_filter == 2);
  int64_t idx[3][2] = {{0}};
  float wt[3][2] = {{1.0f, 0.0f}, {1.0f, 0.0f}, {1.0f, 0.0f}};
  unsigned ntap[3] = {1, 1, 1};
  uint32_t layer = 0;
  for (unsigned a = 0; a < dims; a++) {
    float x = coord_clean(c[a]);
    if (!s->unnormalized)
      x *= (float)t->size[a];
    ntap[a] = axis_taps(x, a == 2 ? lin_z : lin_xy, idx[a], wt[a]);
  }
  if (is_array(t)) {
    /* The layer coordinate is unnormalized, rounded to nearest and clamped to the array. */
    float lc = floorf(coord_clean(c[dims]) + 0.5f);
    int64_t li = (int64_t)lc;
    uint32_t n = t->size[2];
    layer = (uint32_t)(li < 0 ? 0 : li >= n ? n - 1 : li) + t->base_array;
  }
  float acc[4] = {0};
  for (unsigned k = 0; k < ntap[2]; k++)
    for (unsigned j = 0; j < ntap[1]; j++)
      for (unsigned i = 0; i < ntap[0]; i++) {
        uint32_t v[4], x = 0, y = 0, z = 0;
        bool in = address(idx[0][i], t->size[0], s->clamp[0], &x) &&
                  (dims < 2 || address(idx[1][j], t->size[1], s->clamp[1], &y)) &&
                  (dims < 3 || address(idx[2][k], t->size[2], s->clamp[2], &z));
        if (!in)
          border_colour(s, &t->f, v);
        else if (texel_fetch(w, t, x, y, is_array(t) ? layer : z, v))
          return -1;
        if (integer) {
          memcpy(out, v, sizeof(v));
          return 0;
        }
        float wgt = wt[0][i] * wt[1][j] * wt[2][k];
        for (unsigned q = 0; q < 4; q++)
          acc[q] += wgt * f32_of(v[q]);
      }
  for (unsigned q = 0; q < 4; q++)
    out[q] = bits_f32(acc[q]);
  return 0;
}

static int exec_sample(struct isa_wave *w, const struct isa_inst *in, const struct tsharp *t)
{
  struct ssharp s;
  if (ssharp_decode(w, in, &s))
    return -1;
  unsigned ncoord = tex_dims(t) + (is_array(t) ? 1 : 0);
  FOR_LANES(wave_exec(w)) {
    float c[4] = {0};
    uint32_t v[4];
    for (unsigned i = 0; i < ncoord; i++)
      c[i] = f32_of(wave_vreg(w, in->addr + i)[l]);
    if (sample_lane(w, t, &s, c, v))
      return -1;
    write_result(w, in, &t->f, l, v);
  }
  return 0;
}

/* image_load/image_store addresses: unsigned integer x, y, slice or layer, then the mip level
 * for the _mip forms; the count follows the resource type. */
static unsigned load_coords(const struct tsharp *t)
{
  return tex_dims(t) + (is_array(t) ? 1 : 0);
}

static bool texel_in_range(const struct tsharp *t, const uint32_t *c, uint32_t *z)
{
  unsigned dims = tex_dims(t);
  for (unsigned a = 0; a < dims; a++)
    if (c[a] >= t->size[a])
      return false;
  *z = dims == 3 ? c[2] : 0;
  if (is_array(t)) {
    if (c[dims] >= t->size[2])
      return false;
    *z = c[dims] + t->base_array;
  }
  return true;
}

static int exec_load_store(struct isa_wave *w, const struct isa_inst *in, const struct tsharp *t)
{
  unsigned op = (unsigned)in->simm16, n = load_coords(t);
  bool store = op == MIMG_STORE || op == MIMG_STORE_MIP, mip = op & 1;
  if (store && (t->f.nfmt == NF_USCALED || t->f.nfmt == NF_SSCALED)) {
    wave_fail(w, ISA_ILLEGAL_INSTR, "%s at pc 0x%llx: stores to SCALED image formats are not "
              "modelled", isa_mimg_name(op), (unsigned long long)wave_cur_pc(w));
    return -1;
  }
  FOR_LANES(wave_exec(w)) {
    uint32_t c[4] = {0}, z = 0, v[4] = {0};
    for (unsigned i = 0; i < n + mip; i++)
      c[i] = wave_vreg(w, in->addr + i)[l];
    /* One level is modelled: any other level is out of range (loads 0, stores dropped). */
    bool ok = texel_in_range(t, c, &z) && (!mip || c[n] == 0);
    uint32_t x = c[0], y = tex_dims(t) >= 2 ? c[1] : 0;
    if (store) {
      if (!ok)
        continue;
      unsigned k = 0, dmask = MIMG_DMASK(in);
      for (unsigned q = 0; q < 4; q++)
        if (dmask >> q & 1)
          v[q] = wave_vreg(w, in->data0 + k++)[l];
      uint64_t a = t->base + z * t->slice + y * t->pitch + (uint64_t)x * fmt_bytes(&t->f);
      uint8_t *p = wave_mem(w, a, fmt_bytes(&t->f), true);
      if (!p)
        return -1;
      buf_format_store(p, &t->f, v);   /* integer formats keep the low bits */
      continue;
    }
    if (ok && texel_fetch(w, t, x, y, z, v))
      return -1;
    write_result(w, in, &t->f, l, v);
  }
  return 0;
}

/* image_get_resinfo: width, height (layers of a 1D array), depth (layers of a 2D array) at the
 * requested level, then the level count. */
static int exec_resinfo(struct isa_wave *w, const struct isa_inst *in, const struct tsharp *t)
{
  static const struct buf_format int_fmt = {.comps = 1, .bits = 32, .nfmt = NF_UINT};
  FOR_LANES(wave_exec(w)) {
    uint32_t lvl = wave_vreg(w, in->addr)[l], v[4] = {0};
    if (lvl < t->levels) {
      v[0] = t->size[0] >> lvl ? t->size[0] >> lvl : 1;
      v[1] = t->type == IMG_1D_ARRAY ? t->size[2] : (t->size[1] >> lvl ? t->size[1] >> lvl : 1);
      v[2] = t->type == IMG_2D_ARRAY ? t->size[2]
             : t->type == IMG_3D ? (t->size[2] >> lvl ? t->size[2] >> lvl : 1) : 0;
      if (t->type == IMG_1D || t->type == IMG_1D_ARRAY)
        v[2] = 0;
      if (t->type == IMG_1D)
        v[1] = 0;
    }
    v[3] = t->levels;
    write_result(w, in, &int_fmt, l, v);
  }
  return 0;
}

int exec_image(struct isa_wave *w, const struct isa_inst *in)
{
  struct tsharp t;
  if (MIMG_A16(in) || MIMG_LWE(in) || MIMG_TFE(in)) {
    wave_fail(w, ISA_ILLEGAL_INSTR, "%s at pc 0x%llx: A16/LWE/TFE are not modelled",
              isa_mimg_name((unsigned)in->simm16), (unsigned long long)wave_cur_pc(w));
    return -1;
  }
  if (tsharp_decode(w, in, &t))
    return -1;
  switch ((unsigned)in->simm16) {
  case MIMG_SAMPLE:
    return exec_sample(w, in, &t);
  case MIMG_GET_RESINFO:
    return exec_resinfo(w, in, &t);
  default:
    return exec_load_store(w, in, &t);
  }
}
