/*
 * The AMDGPU metadata note (NT_AMDGPU_METADATA): a msgpack map, LLVM AMDGPUUsage "Code Object V3
 * to V6 Metadata". Top level: "amdhsa.version" [major, minor], "amdhsa.target" (string),
 * "amdhsa.kernels" (array of maps, one per kernel, keys starting with '.').
 */
#include "loader_internal.h"

#include <errno.h>
#include <msgpack.h>
#include <stdlib.h>
#include <string.h>

/* .value_kind strings and what they become: a table, not a switch ladder. */
static const struct {
  const char *name;
  enum loader_arg_kind kind;
} arg_kinds[] = {
  {"by_value", LOADER_ARG_BY_VALUE},
  {"global_buffer", LOADER_ARG_GLOBAL_BUFFER},
  {"dynamic_shared_pointer", LOADER_ARG_DYNAMIC_SHARED_POINTER},
  {"sampler", LOADER_ARG_SAMPLER},
  {"image", LOADER_ARG_IMAGE},
  {"pipe", LOADER_ARG_PIPE},
  {"queue", LOADER_ARG_QUEUE},
  {"hidden_global_offset_x", LOADER_ARG_HIDDEN_GLOBAL_OFFSET_X},
  {"hidden_global_offset_y", LOADER_ARG_HIDDEN_GLOBAL_OFFSET_Y},
  {"hidden_global_offset_z", LOADER_ARG_HIDDEN_GLOBAL_OFFSET_Z},
  {"hidden_none", LOADER_ARG_HIDDEN_NONE},
  {"hidden_printf_buffer", LOADER_ARG_HIDDEN_PRINTF_BUFFER},
  {"hidden_hostcall_buffer", LOADER_ARG_HIDDEN_HOSTCALL_BUFFER},
  {"hidden_default_queue", LOADER_ARG_HIDDEN_DEFAULT_QUEUE},
  {"hidden_completion_action", LOADER_ARG_HIDDEN_COMPLETION_ACTION},
  {"hidden_multigrid_sync_arg", LOADER_ARG_HIDDEN_MULTIGRID_SYNC_ARG},
  {"hidden_heap_v1", LOADER_ARG_HIDDEN_HEAP_V1},
  {"hidden_block_count_x", LOADER_ARG_HIDDEN_BLOCK_COUNT_X},
  {"hidden_block_count_y", LOADER_ARG_HIDDEN_BLOCK_COUNT_Y},
  {"hidden_block_count_z", LOADER_ARG_HIDDEN_BLOCK_COUNT_Z},
  {"hidden_group_size_x", LOADER_ARG_HIDDEN_GROUP_SIZE_X},
  {"hidden_group_size_y", LOADER_ARG_HIDDEN_GROUP_SIZE_Y},
  {"hidden_group_size_z", LOADER_ARG_HIDDEN_GROUP_SIZE_Z},
  {"hidden_remainder_x", LOADER_ARG_HIDDEN_REMAINDER_X},
  {"hidden_remainder_y", LOADER_ARG_HIDDEN_REMAINDER_Y},
  {"hidden_remainder_z", LOADER_ARG_HIDDEN_REMAINDER_Z},
  {"hidden_grid_dims", LOADER_ARG_HIDDEN_GRID_DIMS},
  {"hidden_private_base", LOADER_ARG_HIDDEN_PRIVATE_BASE},
  {"hidden_shared_base", LOADER_ARG_HIDDEN_SHARED_BASE},
  {"hidden_queue_ptr", LOADER_ARG_HIDDEN_QUEUE_PTR},
  {"hidden_dynamic_lds_size", LOADER_ARG_HIDDEN_DYNAMIC_LDS_SIZE},
};

static bool str_is(const msgpack_object *o, const char *s)
{
  size_t n = strlen(s);
  return o->type == MSGPACK_OBJECT_STR && o->via.str.size == n && memcmp(o->via.str.ptr, s, n) == 0;
}

static int get_u32(const msgpack_object *o, uint32_t *out)
{
  if (o->type != MSGPACK_OBJECT_POSITIVE_INTEGER || o->via.u64 > UINT32_MAX)
    return -ENOEXEC;
  *out = (uint32_t)o->via.u64;
  return 0;
}

static int get_bool(const msgpack_object *o, bool *out)
{
  if (o->type != MSGPACK_OBJECT_BOOLEAN)
    return -ENOEXEC;
  *out = o->via.boolean;
  return 0;
}

static int get_str(const msgpack_object *o, char **out)
{
  if (o->type != MSGPACK_OBJECT_STR || o->via.str.size == 0 ||
      memchr(o->via.str.ptr, '\0', o->via.str.size))
    return -ENOEXEC;
  char *s = strndup(o->via.str.ptr, o->via.str.size);
  if (!s)
    return -ENOMEM;
  *out = s;
  return 0;
}

static int get_kind(const msgpack_object *o, enum loader_arg_kind *out)
{
  if (o->type != MSGPACK_OBJECT_STR)
    return -ENOEXEC;
  for (size_t i = 0; i < sizeof(arg_kinds) / sizeof(arg_kinds[0]); i++) {
    if (str_is(o, arg_kinds[i].name)) {
      *out = arg_kinds[i].kind;
      return 0;
    }
  }
  /* A newer hidden argument: the kernel can run, the slot is zero-filled. Any other unknown
   * kind is a parameter we cannot fill correctly. */
  if (o->via.str.size > 7 && memcmp(o->via.str.ptr, "hidden_", 7) == 0) {
    *out = LOADER_ARG_HIDDEN_UNKNOWN;
    return 0;
  }
  return -ENOEXEC;
}

static int parse_arg(const msgpack_object *o, struct loader_kernel_arg *arg)
{
  bool have_offset = false, have_size = false, have_kind = false;
  int err = 0;

  if (o->type != MSGPACK_OBJECT_MAP)
    return -ENOEXEC;
  for (uint32_t i = 0; i < o->via.map.size && !err; i++) {
    const msgpack_object *k = &o->via.map.ptr[i].key, *v = &o->via.map.ptr[i].val;
    if (str_is(k, ".offset"))
      err = get_u32(v, &arg->offset), have_offset = true;
    else if (str_is(k, ".size"))
      err = get_u32(v, &arg->size), have_size = true;
    else if (str_is(k, ".value_kind"))
      err = get_kind(v, &arg->kind), have_kind = true;
  }
  if (!err && (!have_offset || !have_size || !have_kind))
    err = -ENOEXEC;
  return err;
}

static int parse_args(const msgpack_object *o, struct loader_kernel *k)
{
  if (o->type != MSGPACK_OBJECT_ARRAY)
    return -ENOEXEC;
  if (o->via.array.size == 0)
    return 0;
  k->args = calloc(o->via.array.size, sizeof(*k->args));
  if (!k->args)
    return -ENOMEM;
  k->nargs = o->via.array.size;
  for (uint32_t i = 0; i < k->nargs; i++) {
    int err = parse_arg(&o->via.array.ptr[i], &k->args[i]);
    if (err)
      return err;
  }
  return 0;
}

static int parse_reqd_size(const msgpack_object *o, uint32_t size[3])
{
  if (o->type != MSGPACK_OBJECT_ARRAY || o->via.array.size != 3)
    return -ENOEXEC;
  for (int i = 0; i < 3; i++) {
    int err = get_u32(&o->via.array.ptr[i], &size[i]);
    if (err)
      return err;
  }
  return 0;
}

/* One key of a kernel map. Unknown keys are ignored: the format grows by adding keys. */
static int parse_kernel_key(const msgpack_object *key, const msgpack_object *v,
                            struct loader_kernel *k, unsigned *seen)
{
  static const struct {
    const char *key;
    size_t offset;
    unsigned bit;
  } u32_keys[] = {
    {".kernarg_segment_size", offsetof(struct loader_kernel, kernarg_segment_size), 1u << 0},
    {".kernarg_segment_align", offsetof(struct loader_kernel, kernarg_segment_align), 1u << 1},
    {".wavefront_size", offsetof(struct loader_kernel, wavefront_size), 1u << 2},
    {".group_segment_fixed_size", offsetof(struct loader_kernel, group_segment_fixed_size), 0},
    {".private_segment_fixed_size", offsetof(struct loader_kernel, private_segment_fixed_size), 0},
    {".sgpr_count", offsetof(struct loader_kernel, sgpr_count), 0},
    {".vgpr_count", offsetof(struct loader_kernel, vgpr_count), 0},
    {".agpr_count", offsetof(struct loader_kernel, agpr_count), 0},
    {".sgpr_spill_count", offsetof(struct loader_kernel, sgpr_spill_count), 0},
    {".vgpr_spill_count", offsetof(struct loader_kernel, vgpr_spill_count), 0},
    {".max_flat_workgroup_size", offsetof(struct loader_kernel, max_flat_workgroup_size), 0},
  };

  if (str_is(key, ".name"))
    return k->name ? -ENOEXEC : get_str(v, &k->name);
  if (str_is(key, ".symbol"))
    return k->symbol ? -ENOEXEC : get_str(v, &k->symbol);
  if (str_is(key, ".args"))
    return k->args ? -ENOEXEC : parse_args(v, k);
  if (str_is(key, ".uses_dynamic_stack"))
    return get_bool(v, &k->uses_dynamic_stack);
  if (str_is(key, ".uniform_work_group_size")) {
    /* An integer (0/1) in LLVM's output; accept a boolean too. */
    uint32_t u = 0;
    int err = v->type == MSGPACK_OBJECT_BOOLEAN ? get_bool(v, &k->uniform_work_group_size)
                                                : get_u32(v, &u);
    if (v->type != MSGPACK_OBJECT_BOOLEAN)
      k->uniform_work_group_size = u != 0;
    return err;
  }
  if (str_is(key, ".reqd_workgroup_size"))
    return parse_reqd_size(v, k->reqd_workgroup_size);
  for (size_t i = 0; i < sizeof(u32_keys) / sizeof(u32_keys[0]); i++) {
    if (str_is(key, u32_keys[i].key)) {
      *seen |= u32_keys[i].bit;
      return get_u32(v, (uint32_t *)((char *)k + u32_keys[i].offset));
    }
  }
  return 0;
}

static bool is_pow2(uint32_t v)
{
  return v && !(v & (v - 1));
}

/* The checks that make the kernarg layout safe to fill: every arg inside the segment, explicit
 * args before hidden ones (the launch path maps the i-th source parameter to the i-th arg). */
static int validate_kernel(struct loader_kernel *k, unsigned seen)
{
  if (!k->name || !k->symbol || seen != 7u)
    return -ENOEXEC;
  if (!is_pow2(k->kernarg_segment_align) || k->kernarg_segment_size > (1u << 20))
    return -ENOEXEC;
  if (k->wavefront_size != 32 && k->wavefront_size != 64)
    return -ENOEXEC;
  if (k->max_flat_workgroup_size == 0)
    k->max_flat_workgroup_size = 1024; /* AMDGPUUsage: the default when absent */
  bool hidden_seen = false;
  for (uint32_t i = 0; i < k->nargs; i++) {
    const struct loader_kernel_arg *a = &k->args[i];
    if (a->offset > k->kernarg_segment_size || a->size > k->kernarg_segment_size - a->offset)
      return -ENOEXEC;
    if (loader_arg_is_hidden(a->kind)) {
      hidden_seen = true;
    } else {
      if (hidden_seen)
        return -ENOEXEC;
      k->nexplicit++;
    }
  }
  return 0;
}

static void kernel_free(struct loader_kernel *k)
{
  free(k->name);
  free(k->symbol);
  free(k->args);
}

static int parse_kernel(const msgpack_object *o, struct loader_kernel *k)
{
  unsigned seen = 0;
  if (o->type != MSGPACK_OBJECT_MAP)
    return -ENOEXEC;
  for (uint32_t i = 0; i < o->via.map.size; i++) {
    int err = parse_kernel_key(&o->via.map.ptr[i].key, &o->via.map.ptr[i].val, k, &seen);
    if (err)
      return err;
  }
  return validate_kernel(k, seen);
}

static int parse_kernels(const msgpack_object *o, struct loader_code_object *co)
{
  if (o->type != MSGPACK_OBJECT_ARRAY || co->kernels)
    return -ENOEXEC;
  if (o->via.array.size == 0)
    return 0;
  co->kernels = calloc(o->via.array.size, sizeof(*co->kernels));
  if (!co->kernels)
    return -ENOMEM;
  co->nkernels = o->via.array.size;
  for (uint32_t i = 0; i < co->nkernels; i++) {
    int err = parse_kernel(&o->via.array.ptr[i], &co->kernels[i]);
    if (err)
      return err;
  }
  return 0;
}

static int parse_version(const msgpack_object *o, uint32_t version[2])
{
  if (o->type != MSGPACK_OBJECT_ARRAY || o->via.array.size != 2)
    return -ENOEXEC;
  int err = get_u32(&o->via.array.ptr[0], &version[0]);
  return err ? err : get_u32(&o->via.array.ptr[1], &version[1]);
}

static int parse_target(const msgpack_object *o, char *target, size_t size)
{
  if (o->type != MSGPACK_OBJECT_STR || o->via.str.size >= size)
    return -ENOEXEC;
  memcpy(target, o->via.str.ptr, o->via.str.size);
  target[o->via.str.size] = '\0';
  return 0;
}

static int parse_root(const msgpack_object *root, struct loader_code_object *co)
{
  bool have_version = false;
  int err = 0;

  if (root->type != MSGPACK_OBJECT_MAP)
    return -ENOEXEC;
  for (uint32_t i = 0; i < root->via.map.size && !err; i++) {
    const msgpack_object *k = &root->via.map.ptr[i].key, *v = &root->via.map.ptr[i].val;
    if (str_is(k, "amdhsa.version"))
      err = parse_version(v, co->metadata_version), have_version = true;
    else if (str_is(k, "amdhsa.target"))
      err = parse_target(v, co->target, sizeof(co->target));
    else if (str_is(k, "amdhsa.kernels"))
      err = parse_kernels(v, co);
  }
  /* Metadata major version 1 is code object v3 and later (v2 used YAML). */
  if (!err && (!have_version || co->metadata_version[0] != 1))
    err = -ENOEXEC;
  return err;
}

/* ---- bounds before msgpack-c ----
 *
 * msgpack-c allocates an array's or a map's elements from the count in its header before it reads
 * any of them, so a 5-byte header can ask for tens of gigabytes. Each element takes at least one
 * byte, so the encoding is walked first and any count the remaining bytes cannot hold is refused.
 * Formats from the msgpack specification ("Formats"): 0xc0..0xdf by type byte. */
enum mp_kind { MP_BAD, MP_FIXED, MP_BYTES, MP_ARRAY, MP_MAP };

static const struct {
  uint8_t kind;
  uint8_t field;   /* big-endian length or count bytes after the type byte */
  uint8_t extra;   /* payload bytes besides the counted ones (fixed scalars, ext's type byte) */
} mp_types[32] = {
  {MP_FIXED, 0, 0}, {MP_BAD, 0, 0}, {MP_FIXED, 0, 0}, {MP_FIXED, 0, 0},     /* nil, -, bools */
  {MP_BYTES, 1, 0}, {MP_BYTES, 2, 0}, {MP_BYTES, 4, 0},                     /* bin 8/16/32 */
  {MP_BYTES, 1, 1}, {MP_BYTES, 2, 1}, {MP_BYTES, 4, 1},                     /* ext 8/16/32 */
  {MP_FIXED, 0, 4}, {MP_FIXED, 0, 8},                                       /* float 32/64 */
  {MP_FIXED, 0, 1}, {MP_FIXED, 0, 2}, {MP_FIXED, 0, 4}, {MP_FIXED, 0, 8},   /* uint 8..64 */
  {MP_FIXED, 0, 1}, {MP_FIXED, 0, 2}, {MP_FIXED, 0, 4}, {MP_FIXED, 0, 8},   /* int 8..64 */
  {MP_FIXED, 0, 2}, {MP_FIXED, 0, 3}, {MP_FIXED, 0, 5}, {MP_FIXED, 0, 9},   /* fixext 1..8 */
  {MP_FIXED, 0, 17},                                                        /* fixext 16 */
  {MP_BYTES, 1, 0}, {MP_BYTES, 2, 0}, {MP_BYTES, 4, 0},                     /* str 8/16/32 */
  {MP_ARRAY, 2, 0}, {MP_ARRAY, 4, 0}, {MP_MAP, 2, 0}, {MP_MAP, 4, 0},
};

static uint64_t be_read(const uint8_t *p, unsigned n)
{
  uint64_t v = 0;
  for (unsigned i = 0; i < n; i++)
    v = v << 8 | p[i];
  return v;
}

/* One object's type byte at p[*pos], whose header and payload must fit in `size`: advances *pos
 * past them and returns in *children how many objects it contains. */
static int mp_object(const uint8_t *p, size_t size, size_t *pos, uint64_t *children)
{
  uint8_t b = p[(*pos)++];
  uint64_t len = 0;
  *children = 0;
  if (b <= 0x7f || b >= 0xe0)
    return 0;                         /* fixint */
  if (b <= 0x8f)
    *children = 2u * (b & 0x0f);      /* fixmap */
  else if (b <= 0x9f)
    *children = b & 0x0f;             /* fixarray */
  else if (b <= 0xbf)
    len = b & 0x1f;                   /* fixstr */
  else {
    unsigned t = b - 0xc0, field = mp_types[t].field;
    if (mp_types[t].kind == MP_BAD || field > size - *pos)
      return -ENOEXEC;
    uint64_t n = be_read(p + *pos, field);
    *pos += field;
    if (mp_types[t].kind == MP_ARRAY)
      *children = n;
    else if (mp_types[t].kind == MP_MAP)
      *children = 2 * n;
    else
      len = (mp_types[t].kind == MP_BYTES ? n : 0) + mp_types[t].extra;
  }
  if (len > size - *pos)
    return -ENOEXEC;
  *pos += len;
  return 0;
}

/* The first object of p[0..size) is complete, and no count in it exceeds the bytes left. */
static int metadata_counts_fit(const uint8_t *p, size_t size)
{
  uint64_t pending = 1;   /* objects announced and not yet read */
  size_t pos = 0;
  while (pending) {
    uint64_t children;
    if (pos >= size || mp_object(p, size, &pos, &children))
      return -ENOEXEC;
    pending = pending - 1 + children;
    if (pending > size - pos)
      return -ENOEXEC;
  }
  return 0;
}

int loader_metadata_parse(const void *blob, size_t size, struct loader_code_object *co)
{
  msgpack_unpacked u;
  size_t off = 0;
  int err;

  if (!blob || metadata_counts_fit(blob, size))
    return -ENOEXEC;
  msgpack_unpacked_init(&u);
  switch (msgpack_unpack_next(&u, blob, size, &off)) {
  case MSGPACK_UNPACK_SUCCESS:
    err = parse_root(&u.data, co);
    break;
  case MSGPACK_UNPACK_NOMEM_ERROR:
    err = -ENOMEM;
    break;
  default:
    err = -ENOEXEC;
    break;
  }
  msgpack_unpacked_destroy(&u);
  if (err)
    loader_metadata_free(co);
  return err;
}

void loader_metadata_free(struct loader_code_object *co)
{
  for (uint32_t i = 0; i < co->nkernels; i++)
    kernel_free(&co->kernels[i]);
  free(co->kernels);
  co->kernels = NULL;
  co->nkernels = 0;
}
