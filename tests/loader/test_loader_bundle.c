/* Offload bundles: selection by ISA, compressed bundles (CCOB v1..v3), malformed input. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <zstd.h>

#include "loader.h"
#include "test_util.h"

static const char dev942[] = "gfx942:sramecc+:xnack-";
static const char dev90a[] = "gfx90a:sramecc-:xnack-";

static void *load(const char *name, size_t *size)
{
  void *p = read_co(name, size);
  cr_assert_not_null(p, "missing %s", name);
  return p;
}

/* The ELF the bundle returns for `dev` must be byte-identical to the unbundled one. */
static void expect_entry(const void *bundle, size_t size, const char *dev, const char *co_name)
{
  size_t co_size;
  void *co = load(co_name, &co_size);
  const void *elf;
  size_t elf_size;
  void *dec;
  cr_assert_eq(loader_bundle_find(bundle, size, dev, &elf, &elf_size, &dec), 0, "%s", dev);
  cr_assert_eq(elf_size, co_size);
  cr_assert_eq(memcmp(elf, co, co_size), 0);
  free(dec);
  free(co);
}

Test(bundle, selects_entry_per_isa)
{
  size_t size;
  void *b = load("parse_v5.bundle", &size);
  expect_entry(b, size, dev942, "parse_v5_gfx942.co");
  expect_entry(b, size, dev90a, "parse_v5_gfx90a.co");
  /* gfx90a code has unspecified features: it runs with xnack on too. */
  expect_entry(b, size, "gfx90a:sramecc+:xnack+", "parse_v5_gfx90a.co");
  free(b);
}

Test(bundle, rejects_incompatible_isa)
{
  size_t size, elf_size;
  const void *elf;
  void *dec;
  void *b = load("parse_v5.bundle", &size);
  /* The gfx942 entry was built for sramecc+: a sramecc- device cannot run it. */
  cr_assert_eq(loader_bundle_find(b, size, "gfx942:sramecc-:xnack-", &elf, &elf_size, &dec), -ENOENT);
  cr_assert_eq(loader_bundle_find(b, size, "gfx942:sramecc+:xnack+", &elf, &elf_size, &dec), -ENOENT);
  cr_assert_eq(loader_bundle_find(b, size, "gfx908:sramecc-:xnack-", &elf, &elf_size, &dec), -ENOENT);
  cr_assert_null(elf);
  cr_assert_eq(loader_bundle_find(b, size, "not-an-isa", &elf, &elf_size, &dec), -EINVAL);
  free(b);
}

Test(bundle, size_from_headers)
{
  size_t size, measured;
  void *b = load("parse_v5.bundle", &size);
  cr_assert_eq(loader_bundle_size(b, size, &measured), 0);
  cr_assert_eq(measured, size);
  free(b);
  b = load("parse_v5.ccob", &size);
  cr_assert_eq(loader_bundle_size(b, size, &measured), 0);
  cr_assert_eq(measured, size);
  free(b);
  b = load("parse_v5_gfx942.co", &size);
  cr_assert_eq(loader_bundle_size(b, size, &measured), 0);
  cr_assert_eq(measured, size);
  free(b);
}

Test(bundle, compressed_v2_from_clang)
{
  size_t size;
  void *b = load("parse_v5.ccob", &size);
  cr_assert_eq(memcmp(b, "CCOB", 4), 0);
  expect_entry(b, size, dev942, "parse_v5_gfx942.co");
  expect_entry(b, size, dev90a, "parse_v5_gfx90a.co");
  free(b);
}

/* Rewraps the zstd payload of clang's v2 bundle in a v1 or v3 header (OffloadBundler.cpp
 * layouts), so all three versions are exercised with real data. */
static void *rewrap(const uint8_t *v2, size_t v2_size, unsigned version, size_t *out_size)
{
  uint32_t unc32;
  memcpy(&unc32, v2 + 12, 4);
  const uint8_t *payload = v2 + 24;
  size_t plen = v2_size - 24;
  size_t hdr = version == 1 ? 20 : 32;
  uint8_t *p = calloc(1, hdr + plen);
  memcpy(p, "CCOB", 4);
  uint16_t ver = (uint16_t)version, method = 1;
  memcpy(p + 4, &ver, 2);
  memcpy(p + 6, &method, 2);
  if (version == 1) {
    memcpy(p + 8, &unc32, 4);
  } else {
    uint64_t total = hdr + plen, unc = unc32;
    memcpy(p + 8, &total, 8);
    memcpy(p + 16, &unc, 8);
  }
  memcpy(p + hdr, payload, plen);
  *out_size = hdr + plen;
  return p;
}

Test(bundle, compressed_v1_and_v3)
{
  size_t size;
  uint8_t *b = load("parse_v5.ccob", &size);
  uint16_t ver;
  memcpy(&ver, b + 4, 2);
  cr_assert_eq(ver, 2, "clang-19 writes CCOB v2");
  for (unsigned v = 1; v <= 3; v += 2) {
    size_t n, measured;
    void *w = rewrap(b, size, v, &n);
    expect_entry(w, n, dev942, "parse_v5_gfx942.co");
    cr_assert_eq(loader_bundle_size(w, n + 100, &measured), 0);
    cr_assert_eq(measured, n, "v%u size", v);
    free(w);
  }
  free(b);
}

Test(bundle, truncated_inputs_fail_cleanly)
{
  size_t size, elf_size;
  const void *elf;
  void *dec;
  uint8_t *b = load("parse_v5.bundle", &size);
  /* Every prefix of the header and entry table: no crash, an error. */
  for (size_t n = 0; n < 0x100; n++) {
    int err = loader_bundle_find(b, n, dev942, &elf, &elf_size, &dec);
    cr_assert(err == -ENOEXEC || err == -ENOENT, "prefix %zu: %d", n, err);
  }
  cr_assert_eq(loader_bundle_find(b, size - 1, dev942, &elf, &elf_size, &dec), -ENOEXEC);
  free(b);

  b = load("parse_v5.ccob", &size);
  for (size_t n = 0; n < size; n += 7)
    cr_assert_eq(loader_bundle_find(b, n, dev942, &elf, &elf_size, &dec), -ENOEXEC, "ccob %zu", n);
  free(b);
}

Test(bundle, corrupt_fields_rejected)
{
  size_t size, elf_size;
  const void *elf;
  void *dec;
  uint8_t *b = load("parse_v5.bundle", &size);
  uint64_t v, saved;

  memcpy(&saved, b + 24, 8);
  v = UINT64_MAX; /* entry count */
  memcpy(b + 24, &v, 8);
  cr_assert_eq(loader_bundle_find(b, size, dev942, &elf, &elf_size, &dec), -ENOEXEC);
  memcpy(b + 24, &saved, 8);

  /* First entry's offset beyond the buffer. */
  memcpy(&saved, b + 32, 8);
  v = size + 1;
  memcpy(b + 32, &v, 8);
  cr_assert_eq(loader_bundle_find(b, size, dev942, &elf, &elf_size, &dec), -ENOEXEC);
  memcpy(b + 32, &saved, 8);

  /* Triple length beyond the buffer. */
  memcpy(&saved, b + 48, 8);
  v = UINT64_MAX - 4;
  memcpy(b + 48, &v, 8);
  cr_assert_eq(loader_bundle_find(b, size, dev942, &elf, &elf_size, &dec), -ENOEXEC);
  memcpy(b + 48, &saved, 8);
  free(b);

  /* A compressed bundle claiming a huge uncompressed size, an unknown method, a bad frame. */
  b = load("parse_v5.ccob", &size);
  uint32_t u = UINT32_MAX;
  uint8_t *c = malloc(size);
  memcpy(c, b, size);
  memcpy(c + 12, &u, 4);
  cr_assert_eq(loader_bundle_find(c, size, dev942, &elf, &elf_size, &dec), -ENOEXEC);
  memcpy(c, b, size);
  c[6] = 0; /* zlib */
  cr_assert_eq(loader_bundle_find(c, size, dev942, &elf, &elf_size, &dec), -ENOEXEC);
  memcpy(c, b, size);
  c[40] ^= 0xff;
  cr_assert_eq(loader_bundle_find(c, size, dev942, &elf, &elf_size, &dec), -ENOEXEC);
  cr_assert_null(dec);
  free(c);
  free(b);
}
