/* hipkfd: dispatch of API calls to their observers (see observe.h). */
#include "observe.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "error.h"

_Atomic unsigned hip_observe_flags;

static const struct hip_api_observer *_Atomic observers[HIP_OBSERVE_KINDS];
static _Atomic uint64_t next_correlation_id = 1;

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

static uint64_t now_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Observers run in kind order at begin and in reverse order at end, so that an inner observer's
 * time (the log's formatting) does not count in an outer one's span. */
void hip_observe_call_begin(struct hip_api_call *call)
{
  call->correlation_id = atomic_fetch_add_explicit(&next_correlation_id, 1, memory_order_relaxed);
  unsigned flags = atomic_load_explicit(&hip_observe_flags, memory_order_acquire);
  for (unsigned i = 0; i < HIP_OBSERVE_KINDS; i++) {
    const struct hip_api_observer *obs = atomic_load_explicit(&observers[i], memory_order_acquire);
    if ((flags & (1u << i)) && obs && obs->begin)
      obs->begin(call);
  }
  call->begin_ns = now_ns();
}

void hip_observe_call_end(struct hip_api_call *call)
{
  call->end_ns = now_ns();
  unsigned flags = atomic_load_explicit(&hip_observe_flags, memory_order_acquire);
  for (unsigned i = HIP_OBSERVE_KINDS; i-- > 0;) {
    const struct hip_api_observer *obs = atomic_load_explicit(&observers[i], memory_order_acquire);
    if ((flags & (1u << i)) && obs && obs->end)
      obs->end(call);
  }
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
  put(f, "\"%.64s\"", s);
}

void hip_gate_put_out_ptr(struct hip_gate_fmt *f, const char *name, const void *p, int ok)
{
  hip_gate_put_ptr(f, name, p);
  if (ok && p) {
    const void *v;
    memcpy(&v, p, sizeof(v));
    hip_gate_put_ptr(f, NULL, v);
  }
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
