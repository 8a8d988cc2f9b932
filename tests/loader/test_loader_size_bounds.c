/* Sizes read from a file are checked against the input before anything is allocated from them:
 * a compressed bundle's uncompressed-size field (a 4 GiB claim) and msgpack array/map counts (a
 * 32 GiB claim) are refused with -ENOEXEC, not attempted. Issue 12, item 7. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <zstd.h>

#include "loader_internal.h"
#include "test_util.h"

static const char dev942[] = "gfx942:sramecc+:xnack-";

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

/* Caps the address space at what the process maps now plus 256 MiB, so that a multi-gigabyte
 * request fails (-ENOMEM) instead of quietly succeeding through overcommit: the test then tells
 * "refused before allocating" from "allocated, then refused". ASan reserves terabytes of shadow
 * at start-up and cannot live under such a cap; there the cap is left out and the tests check the
 * error code alone. */
static void cap_address_space(void)
{
#ifndef UNDER_ASAN
  unsigned long pages = 0;
  FILE *f = fopen("/proc/self/statm", "r");
  cr_assert_not_null(f);
  cr_assert_eq(fscanf(f, "%lu", &pages), 1);
  fclose(f);
  rlim_t cap = (rlim_t)pages * 4096 + (256u << 20);
  struct rlimit rl = {cap, cap};
  cr_assert_eq(setrlimit(RLIMIT_AS, &rl), 0);
#endif
}

static void *load(const char *name, size_t *size)
{
  void *p = read_co(name, size);
  cr_assert_not_null(p, "missing %s", name);
  return p;
}

/* A CCOB v3 header (clang OffloadBundler.cpp) in front of `payload`. */
static uint8_t *ccob_v3(const void *payload, size_t plen, uint64_t uncompressed, size_t *size)
{
  uint8_t *p = calloc(1, 32 + plen);
  uint16_t ver = 3, method = 1;
  uint64_t total = 32 + plen;
  memcpy(p, "CCOB", 4);
  memcpy(p + 4, &ver, 2);
  memcpy(p + 6, &method, 2);
  memcpy(p + 8, &total, 8);
  memcpy(p + 16, &uncompressed, 8);
  memcpy(p + 32, payload, plen);
  *size = 32 + plen;
  return p;
}

static int find(const void *b, size_t size, void **dec)
{
  const void *elf;
  size_t elf_size;
  return loader_bundle_find(b, size, dev942, &elf, &elf_size, dec);
}

/* The payload of clang's own v2 bundle, [out] its length and uncompressed size. */
static uint8_t *clang_payload(size_t *plen, uint64_t *uncompressed)
{
  size_t size;
  uint8_t *b = load("parse_v5.ccob", &size);
  uint32_t unc;
  memcpy(&unc, b + 12, 4);
  *uncompressed = unc;
  *plen = size - 24;
  memmove(b, b + 24, *plen);
  return b;
}

Test(size_bounds, ccob_claiming_4gib_is_refused_before_allocating)
{
  size_t plen, n;
  uint64_t real;
  uint8_t *payload = clang_payload(&plen, &real);
  cap_address_space();

  /* The largest size the header format allows (and the 4 GiB of the original report). */
  uint8_t *b = ccob_v3(payload, plen, 1ull << 32, &n);
  void *dec = (void *)1;
  cr_assert_eq(find(b, n, &dec), -ENOEXEC);
  cr_assert_null(dec);
  free(b);

  /* The same claim in front of a 13-byte zstd frame. */
  uint8_t tiny[64];
  size_t tlen = ZSTD_compress(tiny, sizeof(tiny), "x", 1, 1);
  cr_assert(!ZSTD_isError(tlen));
  b = ccob_v3(tiny, tlen, 1ull << 32, &n);
  cr_assert_eq(find(b, n, &dec), -ENOEXEC);
  free(b);

  /* The honest header still works under the cap. */
  b = ccob_v3(payload, plen, real, &n);
  cr_assert_eq(find(b, n, &dec), 0);
  cr_assert_not_null(dec);
  free(dec);
  free(b);
  free(payload);
}

Test(size_bounds, ccob_size_disagreeing_with_the_frame_is_refused)
{
  size_t plen, n;
  uint64_t real;
  uint8_t *payload = clang_payload(&plen, &real);
  void *dec;
  for (int64_t delta = -1; delta <= 1; delta += 2) {
    uint8_t *b = ccob_v3(payload, plen, real + (uint64_t)delta, &n);
    cr_assert_eq(find(b, n, &dec), -ENOEXEC, "claim %+lld", (long long)delta);
    free(b);
  }
  free(payload);
}

/* A frame that does not record its content size (streamed compression): only the output that
 * really comes out counts, and it must match the header exactly. */
Test(size_bounds, ccob_stream_frame_must_produce_the_claimed_size)
{
  size_t size, n;
  uint8_t *plain = load("parse_v5.bundle", &size);
  size_t cap = ZSTD_compressBound(size);
  uint8_t *z = malloc(cap);
  ZSTD_CCtx *cctx = ZSTD_createCCtx();
  cr_assert_eq(ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 0), 0);
  ZSTD_outBuffer out = {z, cap, 0};
  ZSTD_inBuffer in = {plain, size, 0};
  cr_assert_eq(ZSTD_compressStream2(cctx, &out, &in, ZSTD_e_end), 0);
  ZSTD_freeCCtx(cctx);
  cr_assert_eq(ZSTD_getFrameContentSize(z, out.pos), ZSTD_CONTENTSIZE_UNKNOWN);
  cap_address_space();

  const uint64_t claims[] = {size - 1, size + 1, 1ull << 32, size};
  for (size_t i = 0; i < 4; i++) {
    void *dec = NULL;
    uint8_t *b = ccob_v3(z, out.pos, claims[i], &n);
    int expect = claims[i] == size ? 0 : -ENOEXEC;
    cr_assert_eq(find(b, n, &dec), expect, "claim %llu of %zu", (unsigned long long)claims[i], size);
    if (!expect)
      cr_assert_eq(memcmp(dec, plain, size), 0);
    free(dec);
    free(b);
  }
  /* A truncated frame. */
  uint8_t *b = ccob_v3(z, out.pos - 8, size, &n);
  void *dec = NULL;
  cr_assert_eq(find(b, n, &dec), -ENOEXEC);
  free(b);
  free(z);
  free(plain);
}

static int parse(const void *blob, size_t size)
{
  struct loader_code_object co;
  memset(&co, 0, sizeof(co));
  int err = loader_metadata_parse(blob, size, &co);
  loader_metadata_free(&co);
  return err;
}

Test(size_bounds, msgpack_array_claiming_32gib_is_refused_before_allocating)
{
  cap_address_space();
  /* {"amdhsa.kernels": array32 of 0x80000000 elements}: 2^31 msgpack objects of 16 bytes. */
  static const uint8_t kernels[] = {0x81, 0xae, 'a', 'm', 'd', 'h', 's', 'a', '.', 'k', 'e', 'r',
                                    'n', 'e', 'l', 's', 0xdd, 0x80, 0, 0, 0};
  cr_assert_eq(parse(kernels, sizeof(kernels)), -ENOEXEC);
  static const uint8_t bare_array[] = {0xdd, 0x80, 0, 0, 0};
  cr_assert_eq(parse(bare_array, sizeof(bare_array)), -ENOEXEC);
  static const uint8_t map32[] = {0xdf, 0xff, 0xff, 0xff, 0xff, 0xc0, 0xc0};
  cr_assert_eq(parse(map32, sizeof(map32)), -ENOEXEC);
  /* Counts that fit each level but not all of them together. */
  static const uint8_t nested[] = {0x92, 0x93, 0x93, 0xc0, 0xc0, 0xc0, 0xc0, 0xc0};
  cr_assert_eq(parse(nested, sizeof(nested)), -ENOEXEC);
}

Test(size_bounds, msgpack_lengths_beyond_the_blob_are_refused)
{
  static const uint8_t str32[] = {0x81, 0xdb, 0x7f, 0xff, 0xff, 0xff, 'a', 0xc0};
  static const uint8_t bin16[] = {0xc5, 0x10, 0x00, 0x00};
  static const uint8_t ext32[] = {0xc9, 0x00, 0x00, 0x00, 0x02, 0x01, 0x00};
  static const uint8_t fixext16[] = {0xd8, 0x01, 0x00};
  static const uint8_t never_used[] = {0xc1};
  static const uint8_t cut_count[] = {0xdc, 0x00};
  cr_assert_eq(parse(str32, sizeof(str32)), -ENOEXEC);
  cr_assert_eq(parse(bin16, sizeof(bin16)), -ENOEXEC);
  cr_assert_eq(parse(ext32, sizeof(ext32)), -ENOEXEC);
  cr_assert_eq(parse(fixext16, sizeof(fixext16)), -ENOEXEC);
  cr_assert_eq(parse(never_used, sizeof(never_used)), -ENOEXEC);
  cr_assert_eq(parse(cut_count, sizeof(cut_count)), -ENOEXEC);
  cr_assert_eq(parse(NULL, 0), -ENOEXEC);
}

/* The real metadata of every built code object passes the bounds walk and parses. */
Test(size_bounds, real_code_objects_still_open)
{
  static const char *names[] = {"parse_v4_gfx90a.co", "parse_v5_gfx942.co", "parse_v6_gfx942.co"};
  for (size_t i = 0; i < 3; i++) {
    size_t size;
    void *elf = load(names[i], &size);
    struct loader_code_object *co;
    cr_assert_eq(loader_code_object_open(elf, size, &co), 0, "%s", names[i]);
    cr_assert_gt(co->nkernels, 0);
    loader_code_object_close(co);
    free(elf);
  }
}

/* A kernel descriptor's signed entry offset at either extreme: refused, no overflow. */
Test(size_bounds, kernel_entry_offset_extremes_are_refused)
{
  size_t size;
  uint8_t *elf = load("parse_v5_gfx942.co", &size);
  struct loader_code_object *co;
  cr_assert_eq(loader_code_object_open(elf, size, &co), 0);
  /* The first kernel descriptor's file offset, through the segment holding it. */
  uint64_t kd = co->kernels[0].kd_vaddr, off = 0;
  for (uint32_t i = 0; i < co->nsegments; i++) {
    const struct loader_segment *s = &co->segments[i];
    if (kd >= s->vaddr && kd + 64 <= s->vaddr + s->filesz)
      off = s->file_offset + (kd - s->vaddr);
  }
  loader_code_object_close(co);
  cr_assert_gt(off, 0);
  const int64_t bad[] = {INT64_MAX, INT64_MIN, -(int64_t)kd - 256, 1ll << 40};
  for (size_t i = 0; i < 4; i++) {
    memcpy(elf + off + 16, &bad[i], 8);
    cr_assert_eq(loader_code_object_open(elf, size, &co), -ENOEXEC, "offset %lld", (long long)bad[i]);
  }
  free(elf);
}
