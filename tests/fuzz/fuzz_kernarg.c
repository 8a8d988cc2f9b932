/* libFuzzer harness: kernel argument layouts. The input describes one kernel's kernarg segment
 * and arguments (struct fuzz_kernarg_header and records, fuzz_kinds.h); it is written out as the
 * AMDGPU metadata msgpack and parsed by the loader. A layout the loader accepts is then filled the
 * way the launch path fills a kernarg block (src/api/launch.c: explicit arguments copied whole,
 * hidden ones written with their low min(size, 8) bytes) into a buffer of exactly
 * .kernarg_segment_size bytes: any write outside it is an ASan report. */
#include <msgpack.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_kinds.h"
#include "loader_internal.h"

static void pack_str(msgpack_packer *pk, const char *s)
{
  size_t n = strlen(s);
  msgpack_pack_str(pk, n);
  msgpack_pack_str_body(pk, s, n);
}

static void pack_u32(msgpack_packer *pk, const char *key, uint32_t v)
{
  pack_str(pk, key);
  msgpack_pack_uint32(pk, v);
}

static void pack_args(msgpack_packer *pk, const struct fuzz_kernarg_record *r, size_t n)
{
  pack_str(pk, ".args");
  msgpack_pack_array(pk, n);
  for (size_t i = 0; i < n; i++) {
    struct fuzz_kernarg_record a;
    memcpy(&a, &r[i], sizeof(a));
    msgpack_pack_map(pk, 3);
    pack_u32(pk, ".offset", a.offset);
    pack_u32(pk, ".size", a.size);
    pack_str(pk, ".value_kind");
    pack_str(pk, a.kind < FUZZ_NKINDS ? fuzz_kind_names[a.kind] : "not_a_kind");
  }
}

/* {"amdhsa.version": [1, 2], "amdhsa.kernels": [{kernel}]} */
static void pack_metadata(msgpack_packer *pk, const struct fuzz_kernarg_header *h,
                          const struct fuzz_kernarg_record *r, size_t n)
{
  msgpack_pack_map(pk, 2);
  pack_str(pk, "amdhsa.version");
  msgpack_pack_array(pk, 2);
  msgpack_pack_uint32(pk, 1);
  msgpack_pack_uint32(pk, 2);
  pack_str(pk, "amdhsa.kernels");
  msgpack_pack_array(pk, 1);
  msgpack_pack_map(pk, 6);
  pack_str(pk, ".name");
  pack_str(pk, "k");
  pack_str(pk, ".symbol");
  pack_str(pk, "k.kd");
  pack_u32(pk, ".kernarg_segment_size", h->segment_size);
  pack_u32(pk, ".kernarg_segment_align",
           h->align_log2 < 32 ? 1u << h->align_log2 : h->align_log2);
  pack_u32(pk, ".wavefront_size", h->wave64 & 1 ? 64 : 32);
  pack_args(pk, r, n);
}

static void lay_out(const struct loader_kernel *k)
{
  uint8_t *kernarg = malloc(k->kernarg_segment_size ? k->kernarg_segment_size : 1);
  if (!kernarg)
    return;
  for (uint32_t i = 0; i < k->nargs; i++) {
    const struct loader_kernel_arg *a = &k->args[i];
    if (i < k->nexplicit) {
      if (loader_arg_is_hidden(a->kind))
        __builtin_trap(); /* the launch path maps parameter i to argument i */
      uint8_t *value = calloc(1, a->size ? a->size : 1);
      if (value)
        memcpy(kernarg + a->offset, value, a->size);
      free(value);
    } else {
      uint64_t value = 0;
      memcpy(kernarg + a->offset, &value, a->size < 8 ? a->size : 8);
    }
  }
  free(kernarg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  struct fuzz_kernarg_header h;
  if (size < sizeof(h))
    return 0;
  memcpy(&h, data, sizeof(h));
  const struct fuzz_kernarg_record *r = (const void *)(data + sizeof(h));
  size_t n = (size - sizeof(h)) / sizeof(*r);

  msgpack_sbuffer sb;
  msgpack_packer pk;
  msgpack_sbuffer_init(&sb);
  msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
  pack_metadata(&pk, &h, r, n);

  struct loader_code_object co;
  memset(&co, 0, sizeof(co));
  if (loader_metadata_parse(sb.data, sb.size, &co) == 0) {
    if (co.nkernels != 1 || co.kernels[0].nargs != n)
      __builtin_trap();
    lay_out(&co.kernels[0]);
  }
  loader_metadata_free(&co);
  msgpack_sbuffer_destroy(&sb);
  return 0;
}
