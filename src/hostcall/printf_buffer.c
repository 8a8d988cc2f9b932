/*
 * Buffered device printf (clang -mprintf-kind=buffered): the kernel reserves a frame in a
 * buffer named by its hidden_printf_buffer argument and writes the call into it; the runtime
 * prints the frames after the kernel. Facts from LLVM (AMDGPUEmitPrintf.cpp, AMDGPUUsage) and the
 * device libraries (__printf_alloc):
 *
 *   buffer:  u32 used (bytes reserved so far, advanced atomically by __printf_alloc),
 *            u32 size (of the whole buffer, header included), then the frames from byte 8.
 *            A reservation that would pass `size` fails and that printf returns -1.
 *   frame:   u32 control: bit 0 stderr, bit 1 constant format, bits 2..31 frame size in bytes
 *            (control word included); then either the low 64 bits of the MD5 of the constant
 *            format string or the format string itself (NUL-terminated, padded to 8 bytes);
 *            then the arguments: 8 bytes each (integers zero-extended, floats as double), a %s
 *            argument inline, NUL-terminated and padded to 8 bytes.
 *   formats: the code object's metadata "amdhsa.printf" lists "0:0:<md5 low 64, hex>,<format>"
 *            for every constant format string.
 *
 * That argument layout is hostcall printf's, so a frame becomes a hostcall message (format
 * string, then the arguments) and goes through the same formatter (hostcall.c), as clr does
 * (rocprintf.cpp PrintfDbg::output). The buffer holds hipLimitPrintfFifoSize bytes, 4 MiB by
 * default (clr: 4096 bytes per work-item of a 1024-thread group); hipDeviceGetLimit reports the
 * size the buffer really has, and the size is fixed once the buffer exists: launch plans keep its
 * address (launch.c), so it is never freed or moved, not even by hipDeviceReset. Like clr, a
 * launch of a kernel that uses the buffer waits for the kernel, prints, and empties the buffer;
 * such launches are serialised per device.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <msgpack.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../runtime/internal.h"
#include "../loader/loader.h"
#include "printf_buffer.h"
#include "../runtime/runtime.h"
#include "../memory/mem.h"

/* The buffer must hold its header and one frame: a control word and an 8-byte format hash. */
#define PRINTF_BUFFER_MIN 32u
#define PRINTF_BUFFER_MAX (UINT32_MAX & ~(size_t)7) /* the header's size field is 32 bits */
#define PRINTF_HEADER 8u
#define NT_AMDGPU_METADATA_TYPE 32  /* LLVM AMDGPUUsage: note "AMDGPU", type NT_AMDGPU_METADATA */

struct printf_state {
  pthread_mutex_t lock;       /* held from the launch of a buffered-printf kernel to its print */
  uint8_t *buf;               /* host-pinned, fine-grained; made under create_lock */
  uint32_t size;
};

static struct printf_state states[HIP_MAX_DEVICES];
static pthread_once_t states_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t create_lock = PTHREAD_MUTEX_INITIALIZER;
static pid_t states_pid;       /* a forked child maps none of the parent's buffers */

static void states_init(void)
{
  for (int i = 0; i < HIP_MAX_DEVICES; i++)
    pthread_mutex_init(&states[i].lock, NULL);
}

static struct printf_state *state_of(struct hip_device *d)
{
  pthread_once(&states_once, states_init);
  return d->ordinal >= 0 && d->ordinal < HIP_MAX_DEVICES ? &states[d->ordinal] : NULL;
}

int hip_printf_buffer(struct hip_device *d, uint64_t *va)
{
  struct printf_state *st = state_of(d);
  int err = 0;
  if (!st)
    return -ENODEV;
  pthread_mutex_lock(&create_lock);
  if (states_pid != getpid()) {
    states_pid = getpid();
    for (int i = 0; i < HIP_MAX_DEVICES; i++)
      states[i].buf = NULL;
  }
  if (!st->buf) {
    /* d->limits directly: hip_device_limit asks hip_printf_buffer_size, which takes create_lock */
    pthread_mutex_lock(&d->lock);
    size_t want = d->limits[hipLimitPrintfFifoSize];
    pthread_mutex_unlock(&d->lock);
    if (!want)
      want = HIP_PRINTF_BUFFER_DEFAULT;
    if (want < PRINTF_BUFFER_MIN)
      want = PRINTF_BUFFER_MIN;
    if (want > PRINTF_BUFFER_MAX)
      want = PRINTF_BUFFER_MAX;
    err = mem_alloc(d->gpu, want, MEM_HOST_PINNED, MEM_FLAG_COHERENT, (void **)&st->buf);
    if (!err) {
      uint32_t header[2] = {0, (uint32_t)want};
      memcpy(st->buf, header, sizeof(header));
      st->size = (uint32_t)want;
    }
  }
  if (!err)
    *va = mem_gpu_va(st->buf);
  pthread_mutex_unlock(&create_lock);
  return err;
}

size_t hip_printf_buffer_size(struct hip_device *d)
{
  struct printf_state *st = state_of(d);
  size_t size = 0;
  if (!st)
    return 0;
  pthread_mutex_lock(&create_lock);
  if (st->buf && states_pid == getpid())
    size = st->size;
  pthread_mutex_unlock(&create_lock);
  return size;
}

int hip_printf_buffer_set_size(struct hip_device *d, size_t size)
{
  struct printf_state *st = state_of(d);
  int err = 0;
  if (!st)
    return -ENODEV;
  if (size > PRINTF_BUFFER_MAX)
    return -EINVAL;
  size = size < PRINTF_BUFFER_MIN ? PRINTF_BUFFER_MIN : (size + 7) & ~(size_t)7;
  /* Under create_lock: a launch making the buffer at the same time sees either size, never a
   * buffer whose size differs from the limit. */
  pthread_mutex_lock(&create_lock);
  if (st->buf && states_pid == getpid() && st->size != size) {
    err = -EBUSY;
  } else {
    pthread_mutex_lock(&d->lock);
    d->limits[hipLimitPrintfFifoSize] = size;
    pthread_mutex_unlock(&d->lock);
  }
  pthread_mutex_unlock(&create_lock);
  return err;
}

/* ---- format strings ---- */

struct printf_format {
  uint64_t hash;
  char *text;
};

struct format_table {
  struct printf_format *v;
  size_t n;
};

/* One "amdhsa.printf" entry: "<id>:<nargs>:<md5 hex>,<format>" as buffered printf writes them. */
static void table_add(struct format_table *t, const char *s, size_t len)
{
  const char *end = s + len, *p = memchr(s, ':', len);
  p = p ? memchr(p + 1, ':', (size_t)(end - p - 1)) : NULL;
  const char *comma = p ? memchr(p + 1, ',', (size_t)(end - p - 1)) : NULL;
  if (!comma || comma == p + 1)
    return;
  uint64_t hash = 0;
  for (const char *h = p + 1; h < comma; h++) {
    int v = *h >= '0' && *h <= '9' ? *h - '0' : *h >= 'a' && *h <= 'f' ? *h - 'a' + 10 : -1;
    if (v < 0)
      return;
    hash = hash << 4 | (uint64_t)v;
  }
  struct printf_format *v = realloc(t->v, (t->n + 1) * sizeof(*v));
  if (!v)
    return;
  t->v = v;
  v[t->n].hash = hash;
  v[t->n].text = strndup(comma + 1, (size_t)(end - comma - 1));
  if (v[t->n].text)
    t->n++;
}

static void table_from_metadata(struct format_table *t, const char *blob, size_t size)
{
  msgpack_unpacked u;
  size_t off = 0;
  msgpack_unpacked_init(&u);
  if (msgpack_unpack_next(&u, blob, size, &off) == MSGPACK_UNPACK_SUCCESS &&
      u.data.type == MSGPACK_OBJECT_MAP) {
    const msgpack_object_map *m = &u.data.via.map;
    for (uint32_t i = 0; i < m->size; i++) {
      const msgpack_object *k = &m->ptr[i].key, *v = &m->ptr[i].val;
      if (k->type != MSGPACK_OBJECT_STR || k->via.str.size != 13 ||
          memcmp(k->via.str.ptr, "amdhsa.printf", 13) || v->type != MSGPACK_OBJECT_ARRAY)
        continue;
      for (uint32_t j = 0; j < v->via.array.size; j++) {
        const msgpack_object *e = &v->via.array.ptr[j];
        if (e->type == MSGPACK_OBJECT_STR)
          table_add(t, e->via.str.ptr, e->via.str.size);
      }
    }
  }
  msgpack_unpacked_destroy(&u);
}

/* The constant format strings of [in] co (its metadata note). */
static void table_load(struct format_table *t, const struct loader_code_object *co)
{
  if (elf_version(EV_CURRENT) == EV_NONE)
    return;
  Elf *elf = elf_memory(co->elf, co->elf_size);
  if (!elf)
    return;
  Elf_Scn *scn = NULL;
  while ((scn = elf_nextscn(elf, scn))) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
      continue;
    Elf_Data *d = elf_getdata(scn, NULL);
    size_t off = 0, next, name_off, desc_off;
    GElf_Nhdr nh;
    while (d && off < d->d_size && (next = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
      if (nh.n_type == NT_AMDGPU_METADATA_TYPE && nh.n_namesz == 7 &&
          !memcmp((const char *)d->d_buf + name_off, "AMDGPU", 7))
        table_from_metadata(t, (const char *)d->d_buf + desc_off, nh.n_descsz);
      off = next;
    }
  }
  elf_end(elf);
}

static void table_free(struct format_table *t)
{
  for (size_t i = 0; i < t->n; i++)
    free(t->v[i].text);
  free(t->v);
}

static const char *table_find(const struct format_table *t, uint64_t hash)
{
  for (size_t i = 0; i < t->n; i++)
    if (t->v[i].hash == hash)
      return t->v[i].text;
  return NULL;
}

/* ---- printing ---- */

/* Prints one frame's body [in] body of [in] len bytes (after the control word). */
static void print_frame(uint32_t control, const uint8_t *body, size_t len,
                        struct format_table *t, bool *loaded, const struct loader_code_object *co)
{
  const char *fmt = NULL;
  size_t fmt_words = 0, head = 0;
  if (control & 2u) {
    uint64_t hash;
    if (len < 8)
      return;
    memcpy(&hash, body, 8);
    if (!*loaded) {
      table_load(t, co);
      *loaded = true;
    }
    if (!(fmt = table_find(t, hash)))
      return; /* a format this code object does not list: nothing to print it with */
    fmt_words = (strlen(fmt) + 1 + 7) / 8;
    head = 8;
  }
  /* One zero word after the arguments: a NULL %s argument takes no bytes in the frame (the
   * compiler's strlen of NULL is 0), and the zero word makes it print as an empty string where
   * clr prints one (hip-tests printfSpecifiersNonHost). */
  size_t args = len - head, words = fmt_words + (args + 7) / 8 + 1;
  uint64_t *msg = calloc(words, 8);
  if (!msg)
    return;
  if (fmt)
    memcpy(msg, fmt, strlen(fmt));
  memcpy((uint8_t *)msg + fmt_words * 8, body + head, args);
  hip_printf_emit(msg, words, control & 1u);
  free(msg);
}

static void drain(struct printf_state *st, const struct loader_code_object *co)
{
  _Atomic uint32_t *used_p = (_Atomic uint32_t *)st->buf;
  uint32_t used = atomic_load_explicit(used_p, memory_order_acquire);
  const uint8_t *data = st->buf + PRINTF_HEADER;
  struct format_table t = {0};
  bool loaded = false;

  if (used > st->size - PRINTF_HEADER)
    used = st->size - PRINTF_HEADER;
  for (uint32_t off = 0; off + 4 <= used;) {
    uint32_t control, frame;
    memcpy(&control, data + off, 4);
    frame = control >> 2;
    if (frame < 4 || frame > used - off)
      break; /* not a frame the compiler writes: stop rather than print garbage */
    print_frame(control, data + off + 4, frame - 4, &t, &loaded, co);
    off += frame;
  }
  table_free(&t);
  atomic_store_explicit(used_p, 0, memory_order_release);
}

void hip_printf_buffer_begin(struct hip_device *d)
{
  struct printf_state *st = state_of(d);
  if (st)
    pthread_mutex_lock(&st->lock);
}

void hip_printf_buffer_end(struct hip_device *d, struct hip_stream *s,
                           const struct loader_code_object *co)
{
  struct printf_state *st = state_of(d);
  if (!st)
    return;
  if (co && st->buf) {
    hip_stream_sync(s); /* a fault still prints what was written before it */
    drain(st, co);
  }
  pthread_mutex_unlock(&st->lock);
}
