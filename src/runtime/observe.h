/* hipkfd: the observers of API calls (logging, tracing, profiler callbacks).
 *
 * Every exported hip* entry point passes through a generated wrapper. When hip_observe_flags is
 * 0 (nothing observes: the common case) the wrapper only tests that word and calls the
 * implementation. When the word is exactly HIP_OBSERVE_TRACE, the wrapper records the call itself
 * into its thread's ring (hip_trace_call_begin/end below: a copy of the arguments and two clock
 * reads). Otherwise it fills a struct hip_api_call on its stack, calls
 * hip_observe_call_begin(), runs the implementation, stores the result and calls
 * hip_observe_call_end(). Each observer (the API log, the timeline trace, roctracer-style
 * callbacks) registers itself from its own area with hip_observe_register() and sets its bit in
 * hip_observe_flags while it is active; the runtime layer only dispatches, so the observers can
 * live above it (src/api, src/trace) without a wrong-way reference. */
#ifndef HIPKFD_RUNTIME_OBSERVE_H
#define HIPKFD_RUNTIME_OBSERVE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hip/hip_runtime_api.h>

/* The thread-local pointer the wrappers read on every traced call. Plain _Thread_local, as the
 * runtime's other thread-local state (error.h explains why not initial-exec). */
#define HIP_TLS_OBSERVE _Thread_local

/* One bit per observer kind. A wrapper takes the observed path when any bit is set. */
enum hip_observer_kind {
  HIP_OBSERVE_LOG = 1u << 0,      /* AMD_LOG_LEVEL >= 3: every call with arguments and result */
  HIP_OBSERVE_TRACE = 1u << 1,    /* HIPKFD_TRACE: the per-thread API track of the timeline */
  HIP_OBSERVE_CALLBACK = 1u << 2, /* hipRegisterApiCallback and friends */
  HIP_OBSERVE_KINDS = 3,
};

/* Bits of hip_observe_flags that are not observers: the gate's other reasons to leave its
 * fast path. Above the observer bits, so the observer loop never sees them. */
enum hip_gate_bit {
  HIP_OBSERVE_ALL = (1u << HIP_OBSERVE_KINDS) - 1,
  HIP_GATE_STICKY = 1u << 8, /* a GPU fault made the error sticky: most calls stop (error.c) */
  HIP_GATE_SERIAL = 1u << 9, /* AMD_SERIALIZE_KERNEL/COPY, HIP_LAUNCH_BLOCKING (init.c) */
};

extern _Atomic unsigned hip_observe_flags;

/* One API call as the observers see it. The wrapper owns the storage (its stack frame). */
struct hip_api_call {
  uint32_t id;               /* position of the call in tools/abi/hip_api_functions.tsv, from 0 */
  uint32_t args_size;        /* bytes of *args */
  const char *name;          /* "hipMalloc" */
  uint64_t correlation_id;   /* unique per call in the process, from 1; set by begin */
  uint64_t begin;            /* hip_observe_clock() ticks, set by begin */
  uint64_t end;              /* hip_observe_clock() ticks, set by end */
  uint64_t outer;            /* begin: the thread's call in progress before this one */
  const void *args;          /* the wrapper's struct of this call's arguments (generated) */
  /* Writes the arguments as text ("ptr=0x7f.., size=4096") like snprintf; NULL when the call has
   * none. Reads nothing but *args (outputs were captured into it once the call succeeded), so it
   * may run on a copy long after the call (the trace formats at write-out). */
  int (*format_args)(const void *args, char *buf, size_t size);
  hipError_t result;         /* set by the wrapper before end */
};

struct hip_api_observer {
  void (*begin)(struct hip_api_call *call);
  void (*end)(struct hip_api_call *call);
};

/* Installs the observer of one kind (NULL removes it); does not change hip_observe_flags. */
void hip_observe_register(enum hip_observer_kind kind, const struct hip_api_observer *observer);
/* Sets or clears the kind's bit in hip_observe_flags. */
void hip_observe_enable(enum hip_observer_kind kind, int on);

/* Turns the API-call log (HIP_OBSERVE_LOG) on when hip_log_level >= 3 and hip_log_mask has
 * LOG_API (error.h), off otherwise: after the settings are read or changed. */
void hip_observe_log_update(void);

/* Called by the generated wrappers only. */
void hip_observe_call_begin(struct hip_api_call *call);
void hip_observe_call_end(struct hip_api_call *call);

/* ---- The observers' clock ----------------------------------------------------------------
 * The time stamps of observed calls are raw ticks: on x86-64 with an invariant TSC (CPUID
 * 0x80000007 EDX bit 8: constant rate, runs in every C-state) the TSC (one RDTSC, no system call
 * and no vDSO arithmetic), else CLOCK_MONOTONIC ns. Ticks become CLOCK_MONOTONIC ns only when
 * shown, through a map measured then (two TSC/CLOCK_MONOTONIC pairs: one taken when the library
 * was loaded, one when the map is made). */
extern bool hip_observe_tsc; /* set once when the library is loaded */

uint64_t hip_observe_clock_ns(void); /* CLOCK_MONOTONIC */

static inline __attribute__((always_inline)) uint64_t hip_observe_clock(void)
{
#if defined(__x86_64__)
  if (__builtin_expect(hip_observe_tsc, 1))
    return __builtin_ia32_rdtsc();
#endif
  return hip_observe_clock_ns();
}

struct hip_clock_map {
  uint64_t ticks0, ns0; /* one pair read together */
  double ns_per_tick;
};
/* Fills [out] m from a pair read now (sleeps up to 2 ms in a process younger than that, so that
 * the rate is measured over enough time). */
void hip_observe_clock_map(struct hip_clock_map *m);

/* [in] ticks, a duration, in ns (for the log: never sleeps; the rate is measured since load). */
double hip_observe_ticks_ns(uint64_t ticks);

static inline uint64_t hip_clock_map_ns(const struct hip_clock_map *m, uint64_t ticks)
{
  if (ticks >= m->ticks0)
    return m->ns0 + (uint64_t)((double)(ticks - m->ticks0) * m->ns_per_tick);
  return m->ns0 - (uint64_t)((double)(m->ticks0 - ticks) * m->ns_per_tick);
}

/* ---- The observed threads and their API-call rings -----------------------------------------
 * Each thread that makes an observed call gets one hip_observe_thread (allocated on its first
 * observed call, never freed: a ring's records outlive its thread). The trace (HIPKFD_TRACE,
 * src/trace) records each call as raw bytes in the thread's ring: a header and a copy of the
 * wrapper's argument struct, formatted only when the file is written. The owner thread alone
 * writes the ring, without a lock; readers read it once recording stopped (see
 * hip_api_rings_each). */
#define HIP_API_RING_BYTES (1u << 22) /* per thread, a power of two; pages touched as used */
#define HIP_API_ARGS_MAX 512u         /* a larger argument struct is recorded without it */

struct hip_observe_thread {
  uint64_t seq;                 /* the next correlation id: thread number << 40 | count */
  uint64_t current;             /* correlation id of the innermost call in progress, 0: none */
  _Atomic uint64_t head;        /* ring bytes reserved so far (release: readers) */
  uint64_t tail;                /* ring position of the oldest record kept */
  uint64_t lost;                /* records overwritten or not recorded */
  unsigned char *ring;          /* HIP_API_RING_BYTES, NULL until the thread's first record */
  uint32_t tid;                 /* gettid() */
  struct hip_observe_thread *next; /* all threads' list; written once before publication */
};

extern HIP_TLS_OBSERVE struct hip_observe_thread *hip_observe_self;

/* One recorded call in a ring, followed by the argument struct (args_size bytes; its head's
 * result and done say how the call ended). `size` covers both, a multiple of 8. A record with
 * id HIP_API_REC_PAD only fills the end of the ring (just id and size are written). */
#define HIP_API_REC_PAD UINT32_MAX
struct hip_api_rec {
  uint32_t id;               /* hip_api_call.id */
  uint32_t size;
  uint64_t correlation;
  uint64_t begin;            /* ticks */
  _Atomic uint64_t end;      /* ticks; 0 until the call ended (written last, release) */
  const char *name;
  int (*format_args)(const void *args, char *buf, size_t size);
};

/* The calling thread's observe state, made on first use (NULL when out of memory). */
struct hip_observe_thread *hip_observe_thread_get(void);
/* Reserves [in] len bytes (a multiple of 8) in the ring of *[in,out] tp (the calling thread's;
 * made when NULL): the slow path of hip_trace_call_begin (wrap, full ring, first record). The
 * record's size is set and its end is 0 before the head moves past it. NULL
 * when there is no memory, or len is too large: the call is then counted lost. */
struct hip_api_rec *hip_api_ring_reserve(struct hip_observe_thread **tp, uint32_t len);
/* The correlation id of the observed call the calling thread is in (0: none). */
uint64_t hip_observe_current_call(void);
/* Calls [in] fn on every finished record of every thread's ring, oldest first per thread. Run
 * once recording stopped: a call in progress then is skipped (its end is 0). */
void hip_api_rings_each(void (*fn)(const struct hip_observe_thread *t, const struct hip_api_rec *r,
                                   void *arg),
                        void *arg);
/* Records lost over all threads. */
uint64_t hip_api_rings_lost(void);

/* The trace-only path of a wrapper (hip_observe_flags == HIP_OBSERVE_TRACE): the record is
 * reserved at begin, the wrapper writes its argument struct straight into it, and end stamps it.
 * Nothing else runs: no observer dispatch, no global counter. */
struct hip_trace_frame {
  struct hip_observe_thread *t;
  struct hip_api_rec *r;
  uint64_t outer;
};

/* Returns where the wrapper writes its argument struct of [in] args_size bytes: in the record,
 * or [in] scratch when none could be made. */
static inline __attribute__((always_inline)) void *
hip_trace_call_begin(struct hip_trace_frame *f, uint32_t id, const char *name,
                     int (*format_args)(const void *, char *, size_t), uint32_t args_size,
                     void *scratch)
{
  uint32_t len = (uint32_t)(sizeof(struct hip_api_rec) + args_size + 7) & ~7u;
  struct hip_observe_thread *t = hip_observe_self;
  struct hip_api_rec *r;
  uint64_t h;
  if (__builtin_expect(t && t->ring, 1) &&
      (h = atomic_load_explicit(&t->head, memory_order_relaxed),
       (h & (HIP_API_RING_BYTES - 1)) + len <= HIP_API_RING_BYTES &&
           h + len - t->tail <= HIP_API_RING_BYTES)) {
    r = (struct hip_api_rec *)(t->ring + (h & (HIP_API_RING_BYTES - 1)));
    r->size = len;
    atomic_store_explicit(&r->end, 0, memory_order_relaxed);
    /* Release: a reader that sees the new head sees the record's size and its end still 0. */
    atomic_store_explicit(&t->head, h + len, memory_order_release);
  } else {
    r = hip_api_ring_reserve(&t, len);
  }
  f->t = t;
  f->r = r;
  if (__builtin_expect(!r, 0)) {
    f->outer = 0;
    return scratch;
  }
  r->id = id;
  r->correlation = t->seq++;
  r->name = name;
  r->format_args = format_args;
  f->outer = t->current;
  t->current = r->correlation;
  r->begin = hip_observe_clock();
  return r + 1;
}

static inline __attribute__((always_inline)) void hip_trace_call_end(struct hip_trace_frame *f)
{
  if (__builtin_expect(!f->r, 0))
    return;
  uint64_t end = hip_observe_clock();
  f->t->current = f->outer;
  /* Release: a reader that sees the end sees the arguments and outputs written before it. */
  atomic_store_explicit(&f->r->end, end, memory_order_release);
}

/* ---- The gate's slow path (tools/gate/gen_gate.py writes the callers) ------------------------
 * Every generated argument struct starts with this head: format_args shows what an output
 * parameter points to only once the call is done and succeeded (before that the pointer may be
 * wild or the value uninitialised). */
struct hip_gate_args {
  hipError_t result; /* the implementation's result; valid once done */
  int done;
  int observed;      /* begin was called: end must be too */
  int exempt;        /* the call runs on a sticky error (hip_tls_sticky_exempt): end clears it */
};

/* What a call is for serialization: AMD_SERIALIZE_KERNEL applies to launches, AMD_SERIALIZE_COPY
 * to copies and fills; HIP_LAUNCH_BLOCKING to both (after). */
enum hip_gate_kind { HIP_GATE_KERNEL = 1, HIP_GATE_COPY = 2 };
/* The "stream" of a serialized call that names none (graph-less multi-device launches, sync
 * copies): the wait is then for the whole device. */
#define HIP_GATE_ALL_STREAMS ((hipStream_t)(uintptr_t)-1)

/* Serialization settings (init.c): bit 0 wait before, bit 1 wait after (AMD's 1, 2, 3). */
extern int hip_serialize_kernel;
extern int hip_serialize_copy;
/* How the gate waits (stream, or HIP_GATE_ALL_STREAMS for the device): filled by src/api
 * (serialize.c), which owns hipStreamSynchronize; NULL leaves serialization off. */
extern hipError_t (*hip_gate_wait_hook)(hipStream_t stream);

/* Before the implementation. Returns 1 when the call must not run: the error is sticky and the
 * call is not one that keeps working (stops != 0), or a serializing wait before it failed;
 * head->result then holds what the wrapper returns. */
int hip_gate_begin(struct hip_api_call *call, struct hip_gate_args *head, int stops, int kind,
                   hipStream_t stream);
/* After it: serializes (kind != 0), tells the observers, returns what the wrapper returns. */
hipError_t hip_gate_end(struct hip_api_call *call, struct hip_gate_args *head, int kind,
                        hipStream_t stream);

/* Text for format_args: appends "name=value" pairs to a bounded buffer (snprintf rules). */
struct hip_gate_fmt {
  char *buf;
  size_t size;
  size_t len;
};
/* A string argument as the wrapper keeps it: its first HIP_GATE_STR_MAX - 1 bytes, up to its NUL
 * ([in] s is not NULL). */
#define HIP_GATE_STR_MAX 65
void hip_gate_capture_str(char dst[HIP_GATE_STR_MAX], const char *s);
void hip_gate_put_ptr(struct hip_gate_fmt *f, const char *name, const void *p);
void hip_gate_put_str(struct hip_gate_fmt *f, const char *name, const char *s, int readable);
/* An output pointer to a pointer or handle: its address, and the value it received (captured
 * by the wrapper after the call) once `ok`. */
void hip_gate_put_out_ptr(struct hip_gate_fmt *f, const char *name, const void *p,
                          const void *value, int ok);
void hip_gate_put_i64(struct hip_gate_fmt *f, const char *name, const void *v, size_t size);
void hip_gate_put_u64(struct hip_gate_fmt *f, const char *name, const void *v, size_t size);
void hip_gate_put_f64(struct hip_gate_fmt *f, const char *name, const void *v, size_t size);
void hip_gate_put_dim3(struct hip_gate_fmt *f, const char *name, const void *v, size_t size);
void hip_gate_put_opaque(struct hip_gate_fmt *f, const char *name, const void *v, size_t size);

/* A value by its C type (enums are their integer type): integers in decimal, dim3 as {x,y,z},
 * other structs by size only. `v` is an lvalue; nothing but its bytes is read. */
#define HIP_GATE_PUTTER(v)                                                                    \
  _Generic((v), _Bool: hip_gate_put_u64, char: hip_gate_put_i64,                              \
           signed char: hip_gate_put_i64, unsigned char: hip_gate_put_u64,                    \
           short: hip_gate_put_i64, unsigned short: hip_gate_put_u64, int: hip_gate_put_i64,  \
           unsigned: hip_gate_put_u64, long: hip_gate_put_i64, unsigned long: hip_gate_put_u64, \
           long long: hip_gate_put_i64, unsigned long long: hip_gate_put_u64,                 \
           float: hip_gate_put_f64, double: hip_gate_put_f64, dim3: hip_gate_put_dim3,        \
           default: hip_gate_put_opaque)
#define HIP_GATE_PUT_VAL(f, name, v) HIP_GATE_PUTTER(v)((f), (name), &(v), sizeof(v))
/* An output pointer to a value: its address, then "=value" once the call succeeded, from the
 * bytes the wrapper captured after the call ([in] v: HIP_GATE_OUT_BYTES of them). */
#define HIP_GATE_PUT_OUT_VAL(f, name, p, v, ok)                                               \
  do {                                                                                        \
    hip_gate_put_ptr((f), (name), (const void *)(p));                                         \
    if ((ok) && (p))                                                                          \
      HIP_GATE_PUTTER(*(p))((f), NULL, (v), sizeof(*(p)));                                    \
  } while (0)
/* Bytes of the value an output pointer [in] p points to that the wrapper captures after the call:
 * those the putter reads (scalars, dim3); none for other structs (shown by size only). At most
 * HIP_GATE_OUT_MAX. */
#define HIP_GATE_OUT_MAX 16
#define HIP_GATE_OUT_BYTES(p)                                                                 \
  _Generic(*(p), _Bool: 1, char: 1, signed char: 1, unsigned char: 1, short: 2,               \
           unsigned short: 2, int: 4, unsigned: 4, long: 8, unsigned long: 8, long long: 8,   \
           unsigned long long: 8, float: 4, double: 8, dim3: sizeof(dim3), default: 0)

#endif
