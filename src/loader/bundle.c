/*
 * Clang offload bundles, plain and compressed.
 *
 * Plain bundle (clang OffloadBundler.cpp, binary format), all integers little-endian u64:
 *   "__CLANG_OFFLOAD_BUNDLE__" (24 bytes), entry count, then per entry: offset of the code object
 *   from the start of the bundle, its size, the triple's length, the triple (no NUL).
 * Compressed bundle: "CCOB", u16 version, u16 method (1 = zstd), then
 *   v1: u32 uncompressed size, u64 hash                       (20-byte header)
 *   v2: u32 total file size, u32 uncompressed size, u64 hash  (24-byte header)
 *   v3: u64 total file size, u64 uncompressed size, u64 hash  (32-byte header)
 * followed by the compressed plain bundle. The hash only identifies the bundle for caches; the
 * zstd frame carries its own checksum, so it is not verified here.
 */
#include "loader.h"

#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <zstd.h>

#define BUNDLE_MAGIC "__CLANG_OFFLOAD_BUNDLE__"
#define BUNDLE_MAGIC_LEN 24
#define CCOB_MAGIC "CCOB"
#define CCOB_METHOD_ZSTD 1
/* A code object bundle beyond this is surely corrupt; it bounds what a bad header can allocate. */
#define BUNDLE_MAX_UNCOMPRESSED (1ull << 32)

static uint64_t rd64(const uint8_t *p)
{
  uint64_t v;
  memcpy(&v, p, 8);
  return v;
}

static uint32_t rd32(const uint8_t *p)
{
  uint32_t v;
  memcpy(&v, p, 4);
  return v;
}

static uint16_t rd16(const uint8_t *p)
{
  uint16_t v;
  memcpy(&v, p, 2);
  return v;
}

static bool is_elf(const void *p, size_t size)
{
  return size >= 4 && memcmp(p, "\177ELF", 4) == 0;
}

/* ---- compressed header ---- */

struct ccob_header {
  unsigned version;
  size_t header_size;
  uint64_t total_size;       /* 0 when the header does not carry it (v1) */
  uint64_t uncompressed_size;
};

static int ccob_parse(const uint8_t *p, size_t size, struct ccob_header *h)
{
  if (size < 8 || memcmp(p, CCOB_MAGIC, 4) != 0)
    return -ENOEXEC;
  h->version = rd16(p + 4);
  if (rd16(p + 6) != CCOB_METHOD_ZSTD)
    return -ENOEXEC; /* zlib-compressed bundles are not supported */
  switch (h->version) {
  case 1:
    h->header_size = 20;
    if (size < h->header_size)
      return -ENOEXEC;
    h->total_size = 0;
    h->uncompressed_size = rd32(p + 8);
    break;
  case 2:
    h->header_size = 24;
    if (size < h->header_size)
      return -ENOEXEC;
    h->total_size = rd32(p + 8);
    h->uncompressed_size = rd32(p + 12);
    break;
  case 3:
    h->header_size = 32;
    if (size < h->header_size)
      return -ENOEXEC;
    h->total_size = rd64(p + 8);
    h->uncompressed_size = rd64(p + 16);
    break;
  default:
    return -ENOEXEC;
  }
  if (h->total_size && (h->total_size < h->header_size || h->total_size > size))
    return -ENOEXEC;
  if (h->uncompressed_size == 0 || h->uncompressed_size > BUNDLE_MAX_UNCOMPRESSED)
    return -ENOEXEC;
  return 0;
}

/* The compressed payload's length: from the header (v2, v3) or from the zstd frame (v1). */
static int ccob_payload_size(const uint8_t *p, size_t size, const struct ccob_header *h,
                             size_t *out)
{
  if (h->total_size) {
    *out = h->total_size - h->header_size;
    return 0;
  }
  size_t n = ZSTD_findFrameCompressedSize(p + h->header_size, size - h->header_size);
  if (ZSTD_isError(n))
    return -ENOEXEC;
  *out = n;
  return 0;
}

/* The densest zstd encoding is an RLE block: a 3-byte block header and one byte stand for up to
 * ZSTD_BLOCKSIZE_MAX (128 KiB) of output (RFC 8878, 3.1.1.2). A header claiming more output than
 * its payload can encode is corrupt, whatever the payload holds. */
static bool ccob_size_possible(uint64_t uncompressed, size_t payload)
{
  return uncompressed <= ((uint64_t)payload / 4 + 1) * ZSTD_BLOCKSIZE_MAX;
}

/* The frame header records the content size when clang compressed in one call: it must agree. */
static bool ccob_size_agrees(const uint8_t *payload, size_t n, uint64_t uncompressed)
{
  unsigned long long fcs = ZSTD_getFrameContentSize(payload, n);
  if (fcs == ZSTD_CONTENTSIZE_ERROR)
    return false;
  return fcs == ZSTD_CONTENTSIZE_UNKNOWN || fcs == uncompressed;
}

/* Doubles *buf up to `limit` bytes. */
static int grow(void **buf, size_t *cap, size_t limit)
{
  size_t ncap = *cap > limit / 2 ? limit : *cap * 2;
  void *p = realloc(*buf, ncap);
  if (!p)
    return -ENOMEM;
  *buf = p;
  *cap = ncap;
  return 0;
}

/* Streams the payload into a buffer that grows with the output really produced, so a header that
 * lies about the size costs no more memory than the payload expands to. Exactly `expected` bytes
 * must come out. */
static int zstd_expand(ZSTD_DCtx *dctx, const uint8_t *src, size_t n, size_t expected,
                       void **out)
{
  size_t cap = expected < (1u << 16) ? expected : (1u << 16);
  void *buf = malloc(cap);
  ZSTD_inBuffer in = {src, n, 0};
  ZSTD_outBuffer o = {buf, cap, 0};
  int err = buf ? 0 : -ENOMEM;

  while (!err) {
    size_t in_before = in.pos, out_before = o.pos;
    size_t r = ZSTD_decompressStream(dctx, &o, &in);
    if (ZSTD_isError(r)) {
      err = -ENOEXEC;
    } else if (r == 0 && in.pos == in.size) {
      break; /* the last frame is complete and the payload consumed */
    } else if (o.pos == o.size && cap < expected) {
      if (!(err = grow(&buf, &cap, expected))) {
        o.dst = buf;
        o.size = cap;
      }
    } else if (in.pos == in_before && o.pos == out_before) {
      err = -ENOEXEC; /* stuck: a truncated frame, or more output than the header announced */
    }
  }
  if (!err && o.pos != expected)
    err = -ENOEXEC;
  if (err) {
    free(buf);
    return err;
  }
  *out = buf;
  return 0;
}

static int ccob_decompress(const uint8_t *p, size_t size, void **out, size_t *out_size)
{
  struct ccob_header h;
  size_t payload;
  int err = ccob_parse(p, size, &h);
  if (!err)
    err = ccob_payload_size(p, size, &h, &payload);
  if (err)
    return err;
  const uint8_t *src = p + h.header_size;
  if (!ccob_size_possible(h.uncompressed_size, payload) ||
      !ccob_size_agrees(src, payload, h.uncompressed_size))
    return -ENOEXEC;

  ZSTD_DCtx *dctx = ZSTD_createDCtx();
  if (!dctx)
    return -ENOMEM;
  err = zstd_expand(dctx, src, payload, h.uncompressed_size, out);
  ZSTD_freeDCtx(dctx);
  if (!err)
    *out_size = h.uncompressed_size;
  return err;
}

/* ---- plain bundle ---- */

struct bundle_entry {
  uint64_t offset, size;
  const char *triple;
  size_t triple_len;
};

/* Reads entry `*pos` and advances it; every field is checked against `size`. */
static int bundle_entry_read(const uint8_t *p, size_t size, size_t *pos, struct bundle_entry *e)
{
  if (size - *pos < 24)
    return -ENOEXEC;
  e->offset = rd64(p + *pos);
  e->size = rd64(p + *pos + 8);
  uint64_t tlen = rd64(p + *pos + 16);
  *pos += 24;
  if (tlen == 0 || tlen > size - *pos)
    return -ENOEXEC;
  e->triple = (const char *)p + *pos;
  e->triple_len = tlen;
  *pos += tlen;
  if (e->offset > size || e->size > size - e->offset)
    return -ENOEXEC;
  return 0;
}

static int bundle_count(const uint8_t *p, size_t size, uint64_t *count)
{
  if (size < BUNDLE_MAGIC_LEN + 8 || memcmp(p, BUNDLE_MAGIC, BUNDLE_MAGIC_LEN) != 0)
    return -ENOEXEC;
  *count = rd64(p + BUNDLE_MAGIC_LEN);
  /* Each entry takes at least 25 header bytes: reject counts the buffer cannot hold. */
  if (*count == 0 || *count > (size - BUNDLE_MAGIC_LEN - 8) / 25)
    return -ENOEXEC;
  return 0;
}

/* How many features an entry names: a more specific entry is a better match. */
static int isa_specificity(const struct loader_isa *isa)
{
  return (isa->sramecc != LOADER_FEATURE_ANY) + (isa->xnack != LOADER_FEATURE_ANY);
}

static bool triple_is_hip(const struct bundle_entry *e)
{
  return (e->triple_len > 4 && memcmp(e->triple, "hip-", 4) == 0) ||
         (e->triple_len > 6 && memcmp(e->triple, "hipv4-", 6) == 0);
}

static int bundle_select(const uint8_t *p, size_t size, const struct loader_isa *device,
                         const void **elf, size_t *elf_size)
{
  uint64_t count;
  int err = bundle_count(p, size, &count);
  if (err)
    return err;

  size_t pos = BUNDLE_MAGIC_LEN + 8;
  int best = -1;
  for (uint64_t i = 0; i < count; i++) {
    struct bundle_entry e;
    char triple[128];
    struct loader_isa isa;
    if ((err = bundle_entry_read(p, size, &pos, &e)))
      return err;
    if (!triple_is_hip(&e) || e.size == 0 || e.triple_len >= sizeof(triple))
      continue; /* the host entry, or another offload kind */
    memcpy(triple, e.triple, e.triple_len);
    triple[e.triple_len] = '\0';
    if (loader_isa_parse(triple, &isa) || !loader_isa_compatible(&isa, device))
      continue;
    if (!is_elf(p + e.offset, e.size))
      return -ENOEXEC;
    if (isa_specificity(&isa) > best) {
      best = isa_specificity(&isa);
      *elf = p + e.offset;
      *elf_size = e.size;
    }
  }
  return best < 0 ? -ENOENT : 0;
}

int loader_bundle_find(const void *fatbin, size_t size, const char *isa_name,
                       const void **elf, size_t *elf_size, void **decompressed)
{
  struct loader_isa device;
  const uint8_t *p = fatbin;
  int err;

  if (!elf || !elf_size || !decompressed)
    return -EINVAL;
  *elf = NULL;
  *elf_size = 0;
  *decompressed = NULL;
  if (!fatbin || !isa_name || loader_isa_parse(isa_name, &device))
    return -EINVAL;

  if (is_elf(p, size)) {
    /* A bare code object (hipModuleLoadData of a .hsaco): the caller checks its ISA. */
    *elf = p;
    *elf_size = size;
    return 0;
  }
  if (size >= 4 && memcmp(p, CCOB_MAGIC, 4) == 0) {
    void *buf;
    size_t n;
    if ((err = ccob_decompress(p, size, &buf, &n)))
      return err;
    err = bundle_select(buf, n, &device, elf, elf_size);
    if (err) {
      free(buf);
      *elf = NULL;
      *elf_size = 0;
      return err;
    }
    *decompressed = buf;
    return 0;
  }
  return bundle_select(p, size, &device, elf, elf_size);
}

void loader_bundle_describe(const void *fatbin, size_t size, char *buf, size_t len)
{
  const uint8_t *p = fatbin;
  uint64_t count;
  size_t used = 0, pos = BUNDLE_MAGIC_LEN + 8;

  if (!len)
    return;
  buf[0] = '\0';
  if (!fatbin || is_elf(p, size) || (size >= 4 && memcmp(p, CCOB_MAGIC, 4) == 0)) {
    snprintf(buf, len, "%s", fatbin && is_elf(p, size) ? "a bare code object" : "a compressed bundle");
    return;
  }
  if (bundle_count(p, size, &count))
    return;
  for (uint64_t i = 0; i < count && used < len; i++) {
    struct bundle_entry e;
    if (bundle_entry_read(p, size, &pos, &e))
      return;
    if (!triple_is_hip(&e))
      continue;
    /* "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+": the target follows the double dash. */
    const char *t = memchr(e.triple, '-', e.triple_len);
    for (size_t k = 0; k + 1 < e.triple_len; k++)
      if (e.triple[k] == '-' && e.triple[k + 1] == '-')
        t = e.triple + k + 2;
    int n = (int)(e.triple + e.triple_len - t);
    used += (size_t)snprintf(buf + used, len - used, "%s%.*s", used ? " " : "", n, t);
  }
}

/* The extent of a bare ELF: the furthest of its header tables, sections and segments. */
static int elf_extent(const uint8_t *p, size_t limit, size_t *size);

int loader_bundle_size(const void *fatbin, size_t limit, size_t *size)
{
  const uint8_t *p = fatbin;
  int err;

  if (!fatbin || !size)
    return -EINVAL;
  *size = 0;
  if (limit >= 4 && memcmp(p, CCOB_MAGIC, 4) == 0) {
    struct ccob_header h;
    size_t payload;
    if ((err = ccob_parse(p, limit, &h)) || (err = ccob_payload_size(p, limit, &h, &payload)))
      return err;
    *size = h.header_size + payload;
    return 0;
  }
  if (is_elf(p, limit))
    return elf_extent(p, limit, size);

  uint64_t count;
  if ((err = bundle_count(p, limit, &count)))
    return err;
  size_t pos = BUNDLE_MAGIC_LEN + 8;
  size_t end = 0;
  for (uint64_t i = 0; i < count; i++) {
    struct bundle_entry e;
    if ((err = bundle_entry_read(p, limit, &pos, &e)))
      return err;
    if (e.offset + e.size > end)
      end = e.offset + e.size;
  }
  *size = end > pos ? end : pos;
  return 0;
}

/* ELF64 header fields by offset (System V gABI): e_phoff 32, e_shoff 40, e_phentsize 54,
 * e_phnum 56, e_shentsize 58, e_shnum 60; program header p_offset 8, p_filesz 32; section header
 * sh_type 4, sh_offset 24, sh_size 32. */
static int elf_extent(const uint8_t *p, size_t limit, size_t *size)
{
  if (limit < 64 || p[4] != 2 /* ELFCLASS64 */)
    return -ENOEXEC;
  uint64_t phoff = rd64(p + 32), shoff = rd64(p + 40);
  uint16_t phentsize = rd16(p + 54), phnum = rd16(p + 56);
  uint16_t shentsize = rd16(p + 58), shnum = rd16(p + 60);
  uint64_t end = 64;

  if ((phnum && phentsize < 56) || (shnum && shentsize < 64))
    return -ENOEXEC;
  if (phoff > limit || (uint64_t)phnum * phentsize > limit - phoff ||
      shoff > limit || (uint64_t)shnum * shentsize > limit - shoff)
    return -ENOEXEC;
  if (phoff + (uint64_t)phnum * phentsize > end)
    end = phoff + (uint64_t)phnum * phentsize;
  if (shoff + (uint64_t)shnum * shentsize > end)
    end = shoff + (uint64_t)shnum * shentsize;
  for (unsigned i = 0; i < phnum; i++) {
    const uint8_t *ph = p + phoff + (uint64_t)i * phentsize;
    uint64_t off = rd64(ph + 8), fsz = rd64(ph + 32);
    if (off > limit || fsz > limit - off)
      return -ENOEXEC;
    if (off + fsz > end)
      end = off + fsz;
  }
  for (unsigned i = 0; i < shnum; i++) {
    const uint8_t *sh = p + shoff + (uint64_t)i * shentsize;
    if (rd32(sh + 4) == 8 /* SHT_NOBITS */)
      continue;
    uint64_t off = rd64(sh + 24), sz = rd64(sh + 32);
    if (off > limit || sz > limit - off)
      return -ENOEXEC;
    if (off + sz > end)
      end = off + sz;
  }
  *size = end;
  return 0;
}
