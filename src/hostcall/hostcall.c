/*
 * The hostcall service behind device printf (and assert's message), and the per-device
 * cooperative-launch data.
 *
 * Protocol (ROCm device libraries, ockl hostcall_impl.cl and services.cl; facts only):
 * - hidden_hostcall_buffer points at a buffer header: { u64 headers, u64 payloads,
 *   u64 doorbell (hsa_signal_t: the amd_signal_t address), u64 free_stack, u64 ready_stack,
 *   u64 index_mask } (the ROCm 5.x layout; earlier device libraries had a u32 index_size there).
 * - A packet is a header { u64 next, u64 activemask, u32 service, u32 control } and a payload of
 *   64 lanes x 8 u64. Stack "pointers" are tag * (index_mask + 1) + index; 0 ends a stack; the
 *   tag defeats ABA in the device's lock-free pops.
 * - A wave pops a packet off free_stack, fills its lanes, sets control bit 0 (ready), pushes it on
 *   ready_stack and adds 1 to the doorbell signal (an interrupt signal: s_sendmsg wakes us). It
 *   spins until control bit 0 clears, reads lanes' slot[0..1] as the reply and pushes the packet
 *   back on free_stack itself.
 * - Service 2 (printf) carries "messages": slot[0] is a descriptor (bit 0 BEGIN, bit 1 END,
 *   bits 5-7 how many of slot[1..7] carry data, bits 8-63 the message id the host assigned at
 *   BEGIN). A finished printf message is: a control word (bit 0: stderr), the format string
 *   (NUL-terminated, padded to 8 bytes), then one u64 per argument (strings inline, padded).
 *   The reply to the END packet is printf's return value (clr devhcprintf.cpp).
 * - Service 3 (DEVMEM) feeds device malloc: see device_heap.h.
 * The buffer needs one packet per wave that can be resident on the device, so no wave waits for a
 * packet forever.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/kfd_ioctl.h>

#include "device_heap.h"
#include "../runtime/error.h"
#include "../loader/loader.h"
#include "hostcall.h"
#include "printf_buffer.h"
#include "../runtime/runtime.h"
#include "../kfd/kfd.h"
#include "../memory/mem.h"
#include "../queues/signal.h"

enum { SERVICE_FUNCTION_CALL = 1, SERVICE_PRINTF = 2, SERVICE_DEVMEM = 3 };
#define CONTROL_READY 1u
#define DESC_BEGIN 1ull
#define DESC_END 2ull
#define DESC_LEN(d) (((d) >> 5) & 7u)
#define DESC_ID(d) ((d) >> 8)
#define MAX_PACKETS 16384u
/* The service thread re-checks the ready stack at least this often even if an interrupt is
 * missed; it is a safety net, not the wake-up path. */
#define WAIT_TIMEOUT_MS 100

struct hc_abi {                 /* what the device reads: ockl's buffer_t */
  uint64_t headers, payloads, doorbell;
  _Atomic uint64_t free_stack, ready_stack;
  uint64_t index_mask;
};

struct hc_header {              /* ockl's header_t */
  uint64_t next;
  uint64_t activemask;
  uint32_t service;
  _Atomic uint32_t control;
};

struct hc_payload {
  uint64_t slot[64][8];
};

struct hc_message {
  bool active;
  uint64_t *data;
  size_t len, cap;
};

struct hostcall {
  struct hip_device *device;    /* whose kernels use this buffer (DEVMEM allocates there) */
  struct hc_abi *abi;           /* in coherent host memory the GPU reads and writes */
  struct hc_header *headers;
  struct hc_payload *payloads;
  uint32_t npackets;
  struct signal *doorbell;
  pthread_t thread;
  struct hc_message *msgs;      /* indexed by id - 1; only the service thread touches them */
  size_t nmsgs;
};

/* Per-device state kept in hip_device.loader_state. */
struct loader_device_state {
  struct hostcall *hostcall;
  uint8_t *coop;                /* ring of multigrid info blocks (cooperative launches) */
  uint32_t coop_next;
};
#define COOP_SLOTS 256u
#define COOP_SLOT_SIZE 64u

static pthread_mutex_t state_lock = PTHREAD_MUTEX_INITIALIZER; /* creates loader_state members */
static pthread_mutex_t output_lock = PTHREAD_MUTEX_INITIALIZER; /* one printf message at a time */
static pid_t state_pid;         /* the process that created the states: a forked child has no
                                 * service threads, so it starts over (leaking the parent's) */

static struct loader_device_state *device_state(struct hip_device *d)
{
  if (state_pid != getpid()) {
    state_pid = getpid();
    for (int i = 0; i < hip_device_count(); i++) {
      struct hip_device *o = hip_device_get(i);
      if (o)
        o->loader_state = NULL;
    }
  }
  if (!d->loader_state)
    d->loader_state = calloc(1, sizeof(struct loader_device_state));
  return d->loader_state;
}

/* ---- printf formatting ---- */

/* Reads the next argument word; false when the message has run out. */
static bool next_arg(const uint64_t **p, const uint64_t *end, uint64_t *v)
{
  if (*p >= end)
    return false;
  *v = *(*p)++;
  return true;
}

/* Integer conversions: the device sends every integer as a u64. Narrow it as the length modifier
 * says, then print it as long long with the same flags. */
static int print_integer(FILE *out, const char *spec, size_t len, const char *mods, uint64_t v)
{
  char fmt[64];
  char conv = spec[len - 1];
  size_t body = (size_t)(mods - spec);       /* '%', flags, width, precision */
  bool is_signed = conv == 'd' || conv == 'i';
  long long s;
  unsigned long long u;

  if (body + 4 > sizeof(fmt))
    return -1;
  if (!strncmp(mods, "hh", 2)) {
    s = (signed char)v;
    u = (unsigned char)v;
  } else if (mods[0] == 'h') {
    s = (short)v;
    u = (unsigned short)v;
  } else if (mods[0] == 'l' || mods[0] == 'j' || mods[0] == 'z' || mods[0] == 't' || mods[0] == 'L') {
    s = (long long)v;
    u = (unsigned long long)v;
  } else {
    s = (int)v;
    u = (unsigned int)v;
  }
  memcpy(fmt, spec, body);
  if (conv == 'c') {
    fmt[body] = 'c';
    fmt[body + 1] = '\0';
    return fprintf(out, fmt, (int)v);
  }
  fmt[body] = 'l';
  fmt[body + 1] = 'l';
  fmt[body + 2] = conv;
  fmt[body + 3] = '\0';
  return is_signed ? fprintf(out, fmt, s) : fprintf(out, fmt, u);
}

/* One conversion [spec, spec+len), its '*' widths already written into it as numbers. */
static int print_conversion(FILE *out, const char *spec, size_t len, const uint64_t **p,
                            const uint64_t *end)
{
  char fmt[96];
  char conv = spec[len - 1];
  const char *mods = spec + strcspn(spec, "hljztL");
  uint64_t v;

  if (mods > spec + len - 1)
    mods = spec + len - 1;
  if (len >= sizeof(fmt))
    return -1;
  memcpy(fmt, spec, len);
  fmt[len] = '\0';
  if (conv == 's') {
    /* The string travels inline, NUL-terminated and padded to whole words. */
    const char *str = (const char *)*p;
    size_t room = (size_t)(end - *p) * 8;
    size_t n = strnlen(str, room);
    if (n == room)
      return -1;
    *p += (n + 1 + 7) / 8;
    return fprintf(out, fmt, str);
  }
  if (!next_arg(p, end, &v))
    return -1;
  if (conv == 'n')
    return 0;
  if (strchr("diouxXc", conv))
    return print_integer(out, spec, len, mods, v);
  if (conv == 'p')
    return fprintf(out, fmt, (void *)(uintptr_t)v);
  /* Floating point: the device promotes to double. Drop an 'L' (we pass a double). */
  char *l = strchr(fmt, 'L');
  if (l)
    memmove(l, l + 1, strlen(l));
  double dv;
  memcpy(&dv, &v, 8);
  return fprintf(out, fmt, dv);
}

/* Copies the conversion [spec, spec+len) into buf with each '*' replaced by the next argument
 * as a number. Returns the new length, or 0 if arguments ran out or it does not fit. */
static size_t resolve_stars(const char *spec, size_t len, char *buf, size_t size,
                            const uint64_t **p, const uint64_t *end)
{
  size_t o = 0;
  for (size_t j = 0; j < len; j++) {
    if (spec[j] != '*') {
      if (o + 1 >= size)
        return 0;
      buf[o++] = spec[j];
      continue;
    }
    uint64_t v;
    if (!next_arg(p, end, &v))
      return 0;
    int n = snprintf(buf + o, size - o, "%d", (int)v);
    if (n < 0 || (size_t)n >= size - o)
      return 0;
    o += (size_t)n;
  }
  buf[o] = '\0';
  return o;
}

/* Formats a printf message [begin, end) (format string first) into `out`. Returns the number of
 * characters, as printf does, or -1 for a malformed message. */
static int format_message(FILE *out, const uint64_t *begin, const uint64_t *end)
{
  static const char convs[] = "diouxXfFeEgGaAcspn";
  const char *fmt = (const char *)begin;
  size_t room = (size_t)(end - begin) * 8;
  size_t flen = strnlen(fmt, room);
  const uint64_t *p;
  int total = 0;

  if (flen == room)
    return -1;
  p = begin + (flen + 1 + 7) / 8;
  for (size_t i = 0; i < flen;) {
    if (fmt[i] != '%') {
      size_t lit = strcspn(fmt + i, "%");
      total += (int)fwrite(fmt + i, 1, lit, out);
      i += lit;
      continue;
    }
    if (fmt[i + 1] == '%') {
      fputc('%', out);
      total++;
      i += 2;
      continue;
    }
    size_t len = strcspn(fmt + i + 1, convs) + 2;
    if (i + len > flen)
      break; /* no conversion character: stop, as AMD's runtime does */
    char spec[96];
    size_t slen = resolve_stars(fmt + i, len, spec, sizeof(spec), &p, end);
    if (!slen || p >= end)
      return total; /* out of arguments */
    int n = print_conversion(out, spec, slen, &p, end);
    if (n < 0)
      return total;
    total += n;
    i += len;
  }
  return total;
}

/* Runs a finished printf message; returns printf's value. */
static int64_t run_printf(const uint64_t *data, size_t len)
{
  char *text = NULL;
  size_t size = 0;
  if (len < 1 || (data[0] & ~1ull))
    return -1;
  FILE *mem = open_memstream(&text, &size);
  if (!mem)
    return -1;
  int n = format_message(mem, data + 1, data + len);
  fclose(mem);
  /* Whole messages, in the order they completed, through the program's own stdio stream. */
  FILE *out = (data[0] & 1) ? stderr : stdout;
  pthread_mutex_lock(&output_lock);
  fwrite(text, 1, size, out);
  fflush(out);
  pthread_mutex_unlock(&output_lock);
  free(text);
  return n;
}

void hip_printf_emit(const uint64_t *msg, size_t words, bool to_stderr)
{
  char *text = NULL;
  size_t size = 0;
  FILE *mem = open_memstream(&text, &size);
  if (!mem)
    return;
  format_message(mem, msg, msg + words);
  fclose(mem);
  FILE *out = to_stderr ? stderr : stdout;
  pthread_mutex_lock(&output_lock);
  fwrite(text, 1, size, out);
  fflush(out);
  pthread_mutex_unlock(&output_lock);
  free(text);
}

/* ---- messages ---- */

static struct hc_message *message_new(struct hostcall *hc, uint64_t *id)
{
  for (size_t i = 0; i < hc->nmsgs; i++) {
    if (!hc->msgs[i].active) {
      hc->msgs[i].active = true;
      hc->msgs[i].len = 0;
      *id = i + 1;
      return &hc->msgs[i];
    }
  }
  size_t n = hc->nmsgs ? hc->nmsgs * 2 : 64;
  struct hc_message *m = realloc(hc->msgs, n * sizeof(*m));
  if (!m)
    return NULL;
  memset(m + hc->nmsgs, 0, (n - hc->nmsgs) * sizeof(*m));
  hc->msgs = m;
  *id = hc->nmsgs + 1;
  hc->nmsgs = n;
  m[*id - 1].active = true;
  return &m[*id - 1];
}

static bool message_append(struct hc_message *m, const uint64_t *v, size_t n)
{
  if (m->len + n > m->cap) {
    size_t cap = m->cap ? m->cap * 2 : 64;
    while (cap < m->len + n)
      cap *= 2;
    uint64_t *d = realloc(m->data, cap * sizeof(*d));
    if (!d)
      return false;
    m->data = d;
    m->cap = cap;
  }
  memcpy(m->data + m->len, v, n * sizeof(*v));
  m->len += n;
  return true;
}

/* One lane's printf-service packet: slot[0] descriptor, slot[1..7] data; the reply goes to
 * slot[0] (and slot[1]). */
static void serve_printf_lane(struct hostcall *hc, uint64_t *slot)
{
  uint64_t desc = slot[0], id = DESC_ID(desc);
  struct hc_message *m = NULL;

  if (desc & DESC_BEGIN)
    m = message_new(hc, &id);
  else if (id >= 1 && id <= hc->nmsgs && hc->msgs[id - 1].active)
    m = &hc->msgs[id - 1];
  if (!m || !message_append(m, slot + 1, DESC_LEN(desc))) {
    slot[0] = (uint64_t)-1; /* the device cannot recover a message: report a failed printf */
    slot[1] = 0;
    return;
  }
  if (desc & DESC_END) {
    slot[0] = (uint64_t)run_printf(m->data, m->len);
    slot[1] = 0;
    m->active = false;
    return;
  }
  slot[0] = id << 8;
  slot[1] = 0;
}

static void serve_packet(struct hostcall *hc, uint32_t index)
{
  struct hc_header *h = &hc->headers[index];
  struct hc_payload *pl = &hc->payloads[index];
  for (int lane = 0; lane < 64; lane++) {
    if (!(h->activemask & (1ull << lane)))
      continue;
    if (h->service == SERVICE_PRINTF) {
      serve_printf_lane(hc, pl->slot[lane]);
    } else if (h->service == SERVICE_DEVMEM) {
      hip_devmem_serve(hc->device, pl->slot[lane]); /* device malloc's slabs (device_heap.c) */
    } else {
      /* Function calls (a GPU-supplied host function pointer) and other services are not
       * offered: answer zeros so the wave continues. */
      pl->slot[lane][0] = 0;
      pl->slot[lane][1] = 0;
    }
  }
  /* Release: the replies above are visible before the device sees ready cleared. */
  atomic_fetch_and_explicit(&h->control, ~CONTROL_READY, memory_order_release);
}

/* Takes the whole ready stack (acquire: the packets' contents written before the device's
 * release push are visible) and serves it oldest first. */
static void drain(struct hostcall *hc)
{
  uint64_t ptr = atomic_exchange_explicit(&hc->abi->ready_stack, 0, memory_order_acquire);
  uint64_t mask = hc->abi->index_mask;
  uint32_t order[64], n = 0;

  while (ptr) {
    uint32_t idx = (uint32_t)(ptr & mask);
    if (idx >= hc->npackets)
      break; /* corrupt pointer from the device: stop rather than read out of bounds */
    uint64_t next = hc->headers[idx].next;
    if (n == 64) {
      serve_packet(hc, idx); /* a long burst: serve the excess as it comes */
    } else {
      order[n++] = idx;
    }
    ptr = next;
  }
  while (n)
    serve_packet(hc, order[--n]);
}

static void wait_doorbell(struct hostcall *hc, int64_t *last)
{
  int64_t v = signal_load(hc->doorbell);
  if (v != *last) {
    *last = v;
    return;
  }
  struct kfd_event_data ev = {.event_id = signal_event_id(hc->doorbell)};
  uint32_t result;
  /* Without an event (or if the wait fails) poll gently rather than spin a core. */
  if (!ev.event_id || kfd_wait_events(&ev, 1, true, WAIT_TIMEOUT_MS, &result) != 0)
    usleep(1000);
  *last = signal_load(hc->doorbell);
}

static void *service_thread(void *arg)
{
  struct hostcall *hc = arg;
  int64_t last = signal_load(hc->doorbell);
  for (;;) {
    drain(hc);
    wait_doorbell(hc, &last);
  }
  return NULL;
}

/* ---- creation ---- */

static uint32_t packets_for(const struct kfd_node *n)
{
  uint64_t waves = (uint64_t)(n->cu_count ? n->cu_count : 1) * (n->simd_per_cu ? n->simd_per_cu : 4) *
                   (n->max_waves_per_simd ? n->max_waves_per_simd : 8);
  return waves > MAX_PACKETS ? MAX_PACKETS : (uint32_t)waves;
}

static uint32_t log2_ceil(uint32_t v)
{
  uint32_t b = 0;
  while ((1u << b) < v)
    b++;
  return b;
}

static int hostcall_create(struct hip_device *d, struct hostcall **out)
{
  struct hostcall *hc = calloc(1, sizeof(*hc));
  void *mem;
  int err;

  if (!hc)
    return -ENOMEM;
  hc->device = d;
  hc->npackets = packets_for(d->node);
  size_t headers_off = 64;
  size_t payloads_off = (headers_off + hc->npackets * sizeof(struct hc_header) + 4095) & ~(size_t)4095;
  size_t size = payloads_off + (size_t)hc->npackets * sizeof(struct hc_payload);
  err = mem_alloc(d->gpu, size, MEM_HOST_PINNED, MEM_FLAG_COHERENT, &mem);
  if (err)
    goto fail;
  memset(mem, 0, size);
  err = signal_create(d->gpu, 0, true, &hc->doorbell);
  if (err)
    goto fail_mem;

  hc->abi = mem;
  hc->headers = (struct hc_header *)((char *)mem + headers_off);
  hc->payloads = (struct hc_payload *)((char *)mem + payloads_off);
  hc->abi->headers = mem_gpu_va(hc->headers);
  hc->abi->payloads = mem_gpu_va(hc->payloads);
  hc->abi->doorbell = signal_gpu_va(hc->doorbell);
  hc->abi->index_mask = (1ull << log2_ceil(hc->npackets)) - 1;
  /* Every packet on the free stack, tag 1 so no pointer is 0 (0 ends a stack). */
  uint64_t tag = hc->abi->index_mask + 1;
  for (uint32_t i = 0; i < hc->npackets; i++)
    hc->headers[i].next = i ? (tag | (i - 1)) : 0;
  atomic_store_explicit(&hc->abi->free_stack, tag | (hc->npackets - 1), memory_order_release);

  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  err = -pthread_create(&hc->thread, &attr, service_thread, hc);
  pthread_attr_destroy(&attr);
  if (err)
    goto fail_signal;
  *out = hc;
  return 0;

fail_signal:
  signal_destroy(hc->doorbell);
fail_mem:
  mem_free(mem);
fail:
  free(hc);
  return err;
}

int hip_hostcall_buffer(struct hip_device *d, uint64_t *va)
{
  int err = 0;
  pthread_mutex_lock(&state_lock);
  struct loader_device_state *st = device_state(d);
  if (!st)
    err = -ENOMEM;
  else if (!st->hostcall)
    err = hostcall_create(d, &st->hostcall);
  if (!err)
    *va = mem_gpu_va(st->hostcall->abi);
  pthread_mutex_unlock(&state_lock);
  return err;
}

/* ---- cooperative launches ---- */

/* ockl's multigrid info (ockl.ll type of __ockl_multi_grid_*): { ptr sync, u32 grid_rank,
 * u32 num_grids, u64 prev_sum, u64 all_sum }, followed here by the zeroed sync words it points
 * to. A single-device cooperative launch is grid 0 of 1. The ring holds COOP_SLOTS launches in
 * flight; a slot is reused after that many cooperative launches on the device. */
int hip_multigrid_sync_arg(struct hip_device *d, uint64_t all_sum, uint64_t *va)
{
  int err = 0;
  pthread_mutex_lock(&state_lock);
  struct loader_device_state *st = device_state(d);
  if (!st)
    err = -ENOMEM;
  else if (!st->coop)
    err = mem_alloc(d->gpu, COOP_SLOTS * COOP_SLOT_SIZE, MEM_HOST_PINNED, MEM_FLAG_COHERENT,
                    (void **)&st->coop);
  if (!err) {
    uint8_t *slot = st->coop + (st->coop_next++ % COOP_SLOTS) * COOP_SLOT_SIZE;
    uint64_t sync_va = mem_gpu_va(slot + 32);
    uint32_t rank = 0, grids = 1;
    memset(slot, 0, COOP_SLOT_SIZE);
    memcpy(slot, &sync_va, 8);
    memcpy(slot + 8, &rank, 4);
    memcpy(slot + 12, &grids, 4);
    memcpy(slot + 24, &all_sum, 8); /* prev_sum (16) stays 0: this is the first grid */
    *va = mem_gpu_va(slot);
  }
  pthread_mutex_unlock(&state_lock);
  return err;
}
