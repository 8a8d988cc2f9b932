/* hipkfd: dispatch of API calls to their observers (see observe.h). */
#define _GNU_SOURCE
#include "observe.h"

#if defined(__x86_64__)
#include <cpuid.h>
#endif
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "error.h"

_Atomic unsigned hip_observe_flags;

static const struct hip_api_observer *_Atomic observers[HIP_OBSERVE_KINDS];

static unsigned kind_index(enum hip_observer_kind kind)
{
  return (unsigned)__builtin_ctz((unsigned)kind);
}

void hip_observe_register(enum hip_observer_kind kind, const struct hip_api_observer *observer)
{
  atomic_store_explicit(&observers[kind_index(kind)], observer, memory_order_release);
}

void hip_observe_enable(enum hip_observer_kind kind, int on)
{
  if (on)
    atomic_fetch_or_explicit(&hip_observe_flags, (unsigned)kind, memory_order_acq_rel);
  else
    atomic_fetch_and_explicit(&hip_observe_flags, ~(unsigned)kind, memory_order_acq_rel);
}

void hip_observe_log_update(void)
{
  hip_observe_enable(HIP_OBSERVE_LOG, hip_log_level >= 3 && (hip_log_mask & HIP_LOG_MASK_API));
}

/* ---- The clock ------------------------------------------------------------------------------ */

bool hip_observe_tsc;
static struct {
  uint64_t ticks, ns;
} clock_origin; /* the pair read at load; read-only after */

uint64_t hip_observe_clock_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* One (ticks, ns) pair: the clock read between two tick reads, the closest of a few tries, so
 * that a preemption between the reads does not skew it. */
static void clock_pair(uint64_t *ticks, uint64_t *ns)
{
  uint64_t best = UINT64_MAX;
  for (int i = 0; i < 5; i++) {
    uint64_t t0 = hip_observe_clock(), n = hip_observe_clock_ns(), t1 = hip_observe_clock();
    if (t1 - t0 < best) {
      best = t1 - t0;
      *ticks = t0 + (t1 - t0) / 2;
      *ns = n;
    }
  }
}

/* The TSC counts at a constant rate through frequency and idle states only when CPUID says it is
 * invariant (Intel SDM vol. 3, 18.17.1; AMD APM vol. 2, 17.4): then it is the clock. */
static bool tsc_invariant(void)
{
#if defined(__x86_64__)
  unsigned a, b, c, d;
  if (!__get_cpuid(0x80000000u, &a, &b, &c, &d) || a < 0x80000007u)
    return false;
  __get_cpuid(0x80000007u, &a, &b, &c, &d);
  return (d >> 8) & 1;
#else
  return false;
#endif
}

__attribute__((constructor)) static void observe_clock_init(void)
{
  hip_observe_tsc = tsc_invariant();
  clock_pair(&clock_origin.ticks, &clock_origin.ns);
}

void hip_observe_clock_map(struct hip_clock_map *m)
{
  if (!hip_observe_tsc) {
    *m = (struct hip_clock_map){.ticks0 = 0, .ns0 = 0, .ns_per_tick = 1.0};
    return;
  }
  uint64_t ns = hip_observe_clock_ns();
  if (ns - clock_origin.ns < 2000000u) {
    struct timespec nap = {0, (long)(2000000u - (ns - clock_origin.ns))};
    nanosleep(&nap, NULL);
  }
  clock_pair(&m->ticks0, &m->ns0);
  uint64_t dt = m->ticks0 - clock_origin.ticks;
  m->ns_per_tick = dt ? (double)(m->ns0 - clock_origin.ns) / (double)dt : 1.0;
}

/* The rate, once measured over at least 10 ms (the bits of a double; 0: not yet). */
static _Atomic uint64_t settled_rate;

double hip_observe_ticks_ns(uint64_t ticks)
{
  if (!hip_observe_tsc)
    return (double)ticks;
  uint64_t bits = atomic_load_explicit(&settled_rate, memory_order_relaxed);
  double rate;
  if (bits) {
    memcpy(&rate, &bits, sizeof(rate));
    return (double)ticks * rate;
  }
  uint64_t t, ns;
  clock_pair(&t, &ns);
  if (t == clock_origin.ticks)
    return 0;
  rate = (double)(ns - clock_origin.ns) / (double)(t - clock_origin.ticks);
  if (ns - clock_origin.ns >= 10000000u) {
    memcpy(&bits, &rate, sizeof(bits));
    atomic_store_explicit(&settled_rate, bits, memory_order_relaxed);
  }
  return (double)ticks * rate;
}

/* ---- Observed threads ---------------------------------------------------------------------- */

HIP_TLS_OBSERVE struct hip_observe_thread *hip_observe_self;
static _Atomic(struct hip_observe_thread *) threads;
static _Atomic uint64_t thread_count;

struct hip_observe_thread *hip_observe_thread_get(void)
{
  struct hip_observe_thread *t = hip_observe_self;
  if (t)
    return t;
  if (!(t = calloc(1, sizeof(*t))))
    return NULL;
  uint64_t n = atomic_fetch_add_explicit(&thread_count, 1, memory_order_relaxed) + 1;
  t->seq = n << 40 | 1; /* correlation ids: never 0, unique while a thread makes < 2^40 calls */
  t->tid = (uint32_t)syscall(SYS_gettid);
  struct hip_observe_thread *old = atomic_load_explicit(&threads, memory_order_relaxed);
  do
    t->next = old;
  while (!atomic_compare_exchange_weak_explicit(&threads, &old, t, memory_order_release,
                                                memory_order_relaxed));
  return hip_observe_self = t;
}

uint64_t hip_observe_current_call(void)
{
  struct hip_observe_thread *t = hip_observe_self;
  return t ? t->current : 0;
}

/* Observers run in kind order at begin and in reverse order at end, so that an inner observer's
 * time (the log's formatting) does not count in an outer one's span. */
void hip_observe_call_begin(struct hip_api_call *call)
{
  struct hip_observe_thread *t = hip_observe_thread_get();
  call->correlation_id = t ? t->seq++ : 0;
  call->outer = t ? t->current : 0;
  if (t)
    t->current = call->correlation_id;
  unsigned flags = atomic_load_explicit(&hip_observe_flags, memory_order_acquire);
  for (unsigned i = 0; i < HIP_OBSERVE_KINDS; i++) {
    const struct hip_api_observer *obs = atomic_load_explicit(&observers[i], memory_order_acquire);
    if ((flags & (1u << i)) && obs && obs->begin)
      obs->begin(call);
  }
  call->begin = hip_observe_clock();
}

void hip_observe_call_end(struct hip_api_call *call)
{
  call->end = hip_observe_clock();
  unsigned flags = atomic_load_explicit(&hip_observe_flags, memory_order_acquire);
  for (unsigned i = HIP_OBSERVE_KINDS; i-- > 0;) {
    const struct hip_api_observer *obs = atomic_load_explicit(&observers[i], memory_order_acquire);
    if ((flags & (1u << i)) && obs && obs->end)
      obs->end(call);
  }
  struct hip_observe_thread *t = hip_observe_self;
  if (t)
    t->current = call->outer;
}

/* ---- The API-call rings --------------------------------------------------------------------- */

#define RING_MASK (HIP_API_RING_BYTES - 1)
/* When the ring is full, the writer drops at least this much of its oldest records at once, so
 * that it takes the slow path once per so many bytes, not on every call. */
#define RING_SLACK (64u * 1024)

static struct hip_api_rec *ring_at(const struct hip_observe_thread *t, uint64_t pos)
{
  return (struct hip_api_rec *)(t->ring + (pos & RING_MASK));
}

/* Drop the oldest records until [in] len bytes from [in] h fit (owner thread). */
static void ring_drop(struct hip_observe_thread *t, uint64_t h, uint32_t len)
{
  if (h + len - t->tail <= HIP_API_RING_BYTES)
    return;
  while (t->tail < h && h + len + RING_SLACK - t->tail > HIP_API_RING_BYTES) {
    const struct hip_api_rec *r = ring_at(t, t->tail);
    t->lost += r->id != HIP_API_REC_PAD;
    t->tail += r->size;
  }
}

struct hip_api_rec *hip_api_ring_reserve(struct hip_observe_thread **tp, uint32_t len)
{
  struct hip_observe_thread *t = *tp ? *tp : (*tp = hip_observe_thread_get());
  if (!t)
    return NULL;
  if (!t->ring && !(t->ring = malloc(HIP_API_RING_BYTES))) {
    t->lost++;
    return NULL;
  }
  uint64_t h = atomic_load_explicit(&t->head, memory_order_relaxed);
  uint32_t room = HIP_API_RING_BYTES - (uint32_t)(h & RING_MASK);
  if (room < len) {
    /* The record would wrap: fill the end of the ring (only id and size: room may be 8). */
    ring_drop(t, h, room);
    struct hip_api_rec *pad = ring_at(t, h);
    pad->id = HIP_API_REC_PAD;
    pad->size = room;
    h += room;
  }
  ring_drop(t, h, len);
  struct hip_api_rec *r = ring_at(t, h);
  r->size = len;
  atomic_store_explicit(&r->end, 0, memory_order_relaxed);
  atomic_store_explicit(&t->head, h + len, memory_order_release);
  return r;
}

/* Every size is checked against the ring before it is followed: a record the owner overwrote
 * while this ran (it should have stopped) ends the walk of that ring, never reads outside it. */
void hip_api_rings_each(void (*fn)(const struct hip_observe_thread *t, const struct hip_api_rec *r,
                                   void *arg),
                        void *arg)
{
  for (const struct hip_observe_thread *t = atomic_load_explicit(&threads, memory_order_acquire);
       t; t = t->next) {
    uint64_t h = atomic_load_explicit(&t->head, memory_order_acquire);
    if (!t->ring)
      continue;
    for (uint64_t p = t->tail; p < h;) {
      const struct hip_api_rec *r = ring_at(t, p);
      uint32_t size = r->size;
      if (size < 8 || size % 8 || size > h - p || size > HIP_API_RING_BYTES - (p & RING_MASK))
        break;
      if (r->id != HIP_API_REC_PAD && size >= sizeof(*r) &&
          atomic_load_explicit(&r->end, memory_order_acquire))
        fn(t, r, arg);
      p += size;
    }
  }
}

uint64_t hip_api_rings_lost(void)
{
  uint64_t lost = 0;
  for (const struct hip_observe_thread *t = atomic_load_explicit(&threads, memory_order_acquire);
       t; t = t->next)
    lost += t->lost;
  return lost;
}

/* ---- The gate's slow path ----------------------------------------------------------------- */

int hip_serialize_kernel;
int hip_serialize_copy;
hipError_t (*hip_gate_wait_hook)(hipStream_t stream);

/* AMD's serialization bits for this kind of call: 1 wait before, 2 wait after. */
static int serial_bits(int kind)
{
  if (kind == HIP_GATE_KERNEL)
    return hip_serialize_kernel;
  if (kind == HIP_GATE_COPY)
    return hip_serialize_copy;
  return 0;
}

static hipError_t serial_wait(int kind, int when, hipStream_t stream)
{
  hipError_t (*wait)(hipStream_t) = hip_gate_wait_hook;
  if (!kind || !(serial_bits(kind) & when) || !wait ||
      !(atomic_load_explicit(&hip_observe_flags, memory_order_relaxed) & HIP_GATE_SERIAL))
    return hipSuccess;
  return wait(stream);
}

/* A call the gate refuses still reaches the observers, so the log shows it with its result. */
static int gate_refuse(struct hip_api_call *call, struct hip_gate_args *head, unsigned flags)
{
  head->done = 1;
  call->result = head->result;
  if (flags & HIP_OBSERVE_ALL) {
    hip_observe_call_begin(call);
    hip_observe_call_end(call);
  }
  return 1;
}

int hip_gate_begin(struct hip_api_call *call, struct hip_gate_args *head, int stops, int kind,
                   hipStream_t stream)
{
  unsigned flags = atomic_load_explicit(&hip_observe_flags, memory_order_acquire);
  if (flags & HIP_GATE_STICKY)
    hip_fault_report_flush();
  if (stops && (flags & HIP_GATE_STICKY)) {
    hipError_t sticky = hip_sticky_error_get();
    if (sticky != hipSuccess) {
      /* Sticky means stopped (issue 12 item 3): no allocation, copy or launch happens. */
      hip_error_reason("a GPU fault stopped the device earlier; calls fail until hipDeviceReset");
      head->result = hip_set_error_in(call->name, sticky);
      return gate_refuse(call, head, flags);
    }
  }
  if (!stops && (flags & HIP_GATE_STICKY) && hip_sticky_error_get() != hipSuccess) {
    head->exempt = 1;
    hip_tls_sticky_exempt = true;
  }
  if (flags & HIP_OBSERVE_ALL) {
    head->observed = 1;
    hip_observe_call_begin(call);
  }
  hipError_t err = serial_wait(kind, 1, stream);
  if (err != hipSuccess) {
    /* What precedes the call failed: the call does not run and reports that failure. */
    head->result = err;
    hip_gate_end(call, head, 0, NULL);
    return 1;
  }
  return 0;
}

hipError_t hip_gate_end(struct hip_api_call *call, struct hip_gate_args *head, int kind,
                        hipStream_t stream)
{
  if (head->result == hipSuccess) {
    /* The launch or copy reports its own failure (a faulting kernel's launch returns it). */
    hipError_t err = serial_wait(kind, 2, stream);
    if (err != hipSuccess)
      head->result = err;
  }
  head->done = 1;
  call->result = head->result;
  if (head->exempt)
    hip_tls_sticky_exempt = false;
  if (head->observed)
    hip_observe_call_end(call);
  return head->result;
}

/* ---- Text of the arguments ---------------------------------------------------------------- */

static void put(struct hip_gate_fmt *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(struct hip_gate_fmt *f, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  size_t room = f->len < f->size ? f->size - f->len : 0;
  int n = vsnprintf(room ? f->buf + f->len : NULL, room, fmt, ap);
  va_end(ap);
  if (n > 0)
    f->len += (size_t)n;
}

/* "name=" with a separator before every parameter but the first; nothing for a value that
 * follows an output pointer (name NULL): that is written as "->value". */
static void put_name(struct hip_gate_fmt *f, const char *name)
{
  if (name)
    put(f, "%s%s=", f->len ? ", " : "", name);
  else
    put(f, "->");
}

void hip_gate_capture_str(char dst[HIP_GATE_STR_MAX], const char *s)
{
  size_t n = strnlen(s, HIP_GATE_STR_MAX - 1);
  memcpy(dst, s, n);
  dst[n] = '\0';
}

void hip_gate_put_ptr(struct hip_gate_fmt *f, const char *name, const void *p)
{
  put_name(f, name);
  put(f, "%#" PRIxPTR, (uintptr_t)p);
}

void hip_gate_put_str(struct hip_gate_fmt *f, const char *name, const char *s, int readable)
{
  if (!s || !readable) {
    hip_gate_put_ptr(f, name, s);
    return;
  }
  put_name(f, name);
  put(f, "\"%.*s\"", HIP_GATE_STR_MAX - 1, s);
}

void hip_gate_put_out_ptr(struct hip_gate_fmt *f, const char *name, const void *p,
                          const void *value, int ok)
{
  hip_gate_put_ptr(f, name, p);
  if (ok && p)
    hip_gate_put_ptr(f, NULL, value);
}

void hip_gate_put_i64(struct hip_gate_fmt *f, const char *name, const void *v, size_t size)
{
  int64_t x = 0;
  if (size == 1)
    x = *(const int8_t *)v;
  else if (size == 2)
    x = *(const int16_t *)v;
  else if (size == 4)
    x = *(const int32_t *)v;
  else
    memcpy(&x, v, sizeof(x));
  put_name(f, name);
  put(f, "%" PRId64, x);
}

void hip_gate_put_u64(struct hip_gate_fmt *f, const char *name, const void *v, size_t size)
{
  uint64_t x = 0;
  if (size == 1)
    x = *(const uint8_t *)v;
  else if (size == 2)
    x = *(const uint16_t *)v;
  else if (size == 4)
    x = *(const uint32_t *)v;
  else
    memcpy(&x, v, sizeof(x));
  put_name(f, name);
  put(f, "%" PRIu64, x);
}

void hip_gate_put_f64(struct hip_gate_fmt *f, const char *name, const void *v, size_t size)
{
  double x = size == sizeof(float) ? *(const float *)v : *(const double *)v;
  put_name(f, name);
  put(f, "%g", x);
}

void hip_gate_put_dim3(struct hip_gate_fmt *f, const char *name, const void *v, size_t size)
{
  (void)size;
  const dim3 *d = v;
  put_name(f, name);
  put(f, "{%u,%u,%u}", d->x, d->y, d->z);
}

/* A struct by value or through an output pointer: its size, not its fields. */
void hip_gate_put_opaque(struct hip_gate_fmt *f, const char *name, const void *v, size_t size)
{
  (void)v;
  put_name(f, name);
  put(f, "{%zu bytes}", size);
}
