/* ELF code objects v4/v5/v6: metadata, descriptors, variables, relocations, malformed input. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "loader.h"
#include "test_util.h"

static struct loader_code_object *open_co(const char *name)
{
  size_t size = 0;
  void *p = read_co(name, &size);
  cr_assert_not_null(p, "missing %s", name);
  struct loader_code_object *co;
  int err = loader_code_object_open(p, size, &co);
  cr_assert_eq(err, 0, "%s: %d", name, err);
  free(p); /* the code object keeps its own copy */
  return co;
}

static const struct loader_kernel_arg *find_arg(const struct loader_kernel *k, enum loader_arg_kind kind)
{
  for (uint32_t i = 0; i < k->nargs; i++)
    if (k->args[i].kind == kind)
      return &k->args[i];
  return NULL;
}

Test(parse, header_and_versions)
{
  const struct { const char *file; unsigned version; const char *proc; enum loader_feature sramecc; } cases[] = {
    {"parse_v4_gfx90a.co", 4, "gfx90a", LOADER_FEATURE_ANY},
    {"parse_v5_gfx90a.co", 5, "gfx90a", LOADER_FEATURE_ANY},
    {"parse_v6_gfx90a.co", 6, "gfx90a", LOADER_FEATURE_ANY},
    {"parse_v4_gfx942.co", 4, "gfx942", LOADER_FEATURE_ON},
    {"parse_v5_gfx942.co", 5, "gfx942", LOADER_FEATURE_ON},
    {"parse_v6_gfx942.co", 6, "gfx942", LOADER_FEATURE_ON},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    struct loader_code_object *co = open_co(cases[i].file);
    cr_assert_eq(co->code_object_version, cases[i].version, "%s", cases[i].file);
    cr_assert_str_eq(co->isa.processor, cases[i].proc);
    cr_assert_eq(co->isa.sramecc, cases[i].sramecc);
    cr_assert_eq(co->metadata_version[0], 1);
    cr_assert_eq(co->nkernels, 4);
    cr_assert(strstr(co->target, cases[i].proc), "target %s", co->target);
    loader_code_object_close(co);
  }
}

Test(parse, explicit_args_follow_the_abi)
{
  struct loader_code_object *co = open_co("parse_v5_gfx942.co");
  const struct loader_kernel *k = loader_find_kernel(co, "_Z4many1SPidcfl");
  cr_assert_not_null(k);
  cr_assert_eq(loader_find_kernel(co, "_Z4many1SPidcfl.kd"), k);
  cr_assert_str_eq(k->symbol, "_Z4many1SPidcfl.kd");
  /* many(S s, int *out, double d, char c, float f, long l): S is 24 bytes, 8-aligned. */
  cr_assert_eq(k->nexplicit, 6);
  const uint32_t off[] = {0, 24, 32, 40, 44, 48}, size[] = {24, 8, 8, 1, 4, 8};
  for (int i = 0; i < 6; i++) {
    cr_assert_eq(k->args[i].offset, off[i], "arg %d", i);
    cr_assert_eq(k->args[i].size, size[i], "arg %d", i);
  }
  cr_assert_eq(k->args[0].kind, LOADER_ARG_BY_VALUE);
  cr_assert_eq(k->args[1].kind, LOADER_ARG_GLOBAL_BUFFER);
  cr_assert_eq(k->wavefront_size, 64);
  cr_assert_eq(k->kernarg_segment_align, 8);
  cr_assert_eq(k->max_flat_workgroup_size, 1024);
  cr_assert_eq(k->kd.kernarg_size, k->kernarg_segment_size);
  cr_assert(k->uniform_work_group_size, "HIP kernels are uniform by default");
  cr_assert(k->vgpr_count > 0 && k->sgpr_count > 0);
  loader_code_object_close(co);
}

Test(parse, hidden_args_v5)
{
  struct loader_code_object *co = open_co("parse_v5_gfx90a.co");
  const struct loader_kernel *k = loader_find_kernel(co, "dyn");
  cr_assert_not_null(k);
  cr_assert_eq(k->nexplicit, 1);
  /* Code object v5 implicit args start right after the explicit ones (AMDGPUUsage "Code Object
   * V5 Metadata": block counts at +0, group sizes at +12, remainders at +18, ...). */
  const struct loader_kernel_arg *a = find_arg(k, LOADER_ARG_HIDDEN_BLOCK_COUNT_X);
  cr_assert_not_null(a);
  cr_assert_eq(a->offset, 8);
  cr_assert_eq(a->size, 4);
  a = find_arg(k, LOADER_ARG_HIDDEN_GROUP_SIZE_X);
  cr_assert_not_null(a);
  cr_assert_eq(a->offset, 20);
  cr_assert_eq(a->size, 2);
  a = find_arg(k, LOADER_ARG_HIDDEN_DYNAMIC_LDS_SIZE);
  cr_assert_not_null(a);
  cr_assert_eq(a->offset, 8 + 120);
  cr_assert_eq(k->kernarg_segment_size, 8 + 256);
  loader_code_object_close(co);
}

Test(parse, hidden_args_v4)
{
  struct loader_code_object *co = open_co("parse_v4_gfx90a.co");
  const struct loader_kernel *k = loader_find_kernel(co, "fill");
  cr_assert_not_null(k);
  cr_assert_eq(k->nexplicit, 2);
  /* v4: hidden_global_offset_x after the explicit args, 8-aligned. */
  const struct loader_kernel_arg *a = find_arg(k, LOADER_ARG_HIDDEN_GLOBAL_OFFSET_X);
  if (a)
    cr_assert_eq(a->offset, 16);
  cr_assert_null(find_arg(k, LOADER_ARG_HIDDEN_BLOCK_COUNT_X));
  loader_code_object_close(co);
}

Test(parse, segments_descriptors_and_limits)
{
  struct loader_code_object *co = open_co("parse_v5_gfx942.co");
  const struct loader_kernel *k = loader_find_kernel(co, "lds_heavy");
  cr_assert_not_null(k);
  cr_assert_eq(k->group_segment_fixed_size, 4096 * 4);
  cr_assert_eq(k->kd.group_segment_fixed_size, 4096 * 4);
  cr_assert_eq(k->max_flat_workgroup_size, 256);
  cr_assert_eq(k->kd_vaddr % 64, 0);
  /* The entry point is inside the image and 256-byte aligned. */
  int64_t entry = (int64_t)k->kd_vaddr + k->kd.kernel_code_entry_byte_offset;
  cr_assert(entry > 0 && (uint64_t)entry < co->image_size && entry % 256 == 0);
  cr_assert_null(loader_find_kernel(co, "nope"));
  loader_code_object_close(co);
}

Test(parse, variables_and_relocations)
{
  struct loader_code_object *co = open_co("parse_v5_gfx942.co");
  const struct loader_variable *gvar = loader_find_variable(co, "gvar");
  const struct loader_variable *gptr = loader_find_variable(co, "gptr");
  const struct loader_variable *gscale = loader_find_variable(co, "gscale");
  cr_assert_not_null(gvar);
  cr_assert_not_null(gptr);
  cr_assert_not_null(gscale);
  cr_assert_eq(gvar->size, 64);
  cr_assert_eq(gptr->size, 8);
  cr_assert_null(loader_find_variable(co, "fill.kd"), "descriptors are not variables");

  /* Build the image at a made-up base: gscale holds 2.0f, gptr holds &gvar[3]. */
  const uint64_t base = 0x7f0000000000ull;
  uint8_t *img = malloc(co->image_size);
  cr_assert_eq(loader_image_build(co, img, base), 0);
  float f;
  memcpy(&f, img + gscale->vaddr, 4);
  cr_assert_float_eq(f, 2.0f, 0);
  uint64_t p;
  memcpy(&p, img + gptr->vaddr, 8);
  cr_assert_eq(p, base + gvar->vaddr + 12, "gptr = %#lx", (unsigned long)p);
  cr_assert(co->nrelocs >= 1);
  free(img);
  loader_code_object_close(co);
}

static int open_bytes(const void *p, size_t n)
{
  struct loader_code_object *co = NULL;
  int err = loader_code_object_open(p, n, &co);
  if (!err)
    loader_code_object_close(co);
  return err;
}

Test(parse, malformed_headers_rejected)
{
  size_t size = 0;
  uint8_t *p = read_co("parse_v5_gfx942.co", &size);
  uint8_t *c = malloc(size);
  cr_assert_eq(open_bytes(p, size), 0);
  const struct { size_t off; uint8_t val; } patches[] = {
    {0, 0}, {4, 1 /* ELFCLASS32 */}, {5, 2 /* big endian */}, {7, 0 /* OSABI none */},
    {8, 1 /* code object v3 */}, {8, 9}, {16, 1 /* ET_REL */}, {18, 62 /* x86-64 */},
    {48, 0 /* e_flags: no machine */},
  };
  for (size_t i = 0; i < sizeof(patches) / sizeof(patches[0]); i++) {
    memcpy(c, p, size);
    c[patches[i].off] = patches[i].val;
    cr_assert_eq(open_bytes(c, size), -ENOEXEC, "patch %zu", i);
  }
  for (size_t n = 0; n < size; n += size / 64)
    cr_assert_eq(open_bytes(p, n), -ENOEXEC, "truncated to %zu", n);
  free(c);
  free(p);
}

/* Finds the NT_AMDGPU_METADATA descriptor bytes by their first key, to corrupt them. */
static uint8_t *find_bytes(uint8_t *p, size_t n, const char *s)
{
  size_t l = strlen(s);
  for (size_t i = 0; i + l <= n; i++)
    if (memcmp(p + i, s, l) == 0)
      return p + i;
  return NULL;
}

Test(parse, malformed_metadata_rejected)
{
  size_t size = 0;
  uint8_t *p = read_co("parse_v5_gfx942.co", &size);
  uint8_t *c = malloc(size);

  /* A msgpack map header turned into a reserved byte (0xc1 is "never used"). */
  memcpy(c, p, size);
  uint8_t *m = find_bytes(c, size, "amdhsa.kernels");
  cr_assert_not_null(m);
  uint8_t *note_start = find_bytes(c, size, "AMDGPU");
  cr_assert_not_null(note_start);
  note_start[8] = 0xc1; /* "AMDGPU\0" + pad -> first byte of the msgpack blob */
  cr_assert_eq(open_bytes(c, size), -ENOEXEC);

  /* A key renamed: the kernel loses its .symbol, so the metadata is incomplete. */
  memcpy(c, p, size);
  m = find_bytes(c, size, ".symbol");
  cr_assert_not_null(m);
  m[1] = 'X';
  cr_assert_eq(open_bytes(c, size), -ENOEXEC);

  /* An arg kind nobody knows. */
  memcpy(c, p, size);
  m = find_bytes(c, size, "global_buffer");
  cr_assert_not_null(m);
  m[0] = 'x';
  cr_assert_eq(open_bytes(c, size), -ENOEXEC);

  /* A kernel whose descriptor symbol does not exist. */
  memcpy(c, p, size);
  m = find_bytes(c, size, "fill.kd");
  cr_assert_not_null(m);
  m[0] = 'g';
  cr_assert_eq(open_bytes(c, size), -ENOEXEC);

  /* Every single byte flipped in turn: an error or success, never a crash. */
  for (size_t i = 0; i < size; i++) {
    memcpy(c, p, size);
    c[i] ^= 0x5a;
    int err = open_bytes(c, size);
    cr_assert(err == 0 || err == -ENOEXEC, "byte %zu: %d", i, err);
  }
  free(c);
  free(p);
}
