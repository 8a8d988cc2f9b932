/* hipkfd: the observers of API calls (logging, tracing, profiler callbacks).
 *
 * Every exported hip* entry point passes through a generated wrapper. When hip_observe_flags is
 * 0 (nothing observes: the common case) the wrapper only tests that word and calls the
 * implementation. Otherwise it fills a struct hip_api_call on its stack, calls
 * hip_observe_call_begin(), runs the implementation, stores the result and calls
 * hip_observe_call_end(). Each observer (the API log, the timeline trace, roctracer-style
 * callbacks) registers itself from its own area with hip_observe_register() and sets its bit in
 * hip_observe_flags while it is active; the runtime layer only dispatches, so the observers can
 * live above it (src/api, src/trace) without a wrong-way reference. */
#ifndef HIPKFD_RUNTIME_OBSERVE_H
#define HIPKFD_RUNTIME_OBSERVE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include <hip/hip_runtime_api.h>

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
  const char *name;          /* "hipMalloc" */
  uint64_t correlation_id;   /* unique per call in the process, from 1; set by begin */
  uint64_t begin_ns;         /* CLOCK_MONOTONIC, set by begin */
  uint64_t end_ns;           /* CLOCK_MONOTONIC, set by end */
  const void *args;          /* the wrapper's struct of this call's arguments (generated) */
  /* Writes the arguments as text ("ptr=0x7f.., size=4096") like snprintf; NULL when the call has
   * none. For outputs (pointer parameters) the text after the call shows the value written. */
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
void hip_gate_put_ptr(struct hip_gate_fmt *f, const char *name, const void *p);
void hip_gate_put_str(struct hip_gate_fmt *f, const char *name, const char *s, int readable);
/* An output pointer to a pointer or handle: its address, and the value once `ok`. */
void hip_gate_put_out_ptr(struct hip_gate_fmt *f, const char *name, const void *p, int ok);
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
/* An output pointer to a value: its address, then "=value" once the call succeeded. */
#define HIP_GATE_PUT_OUT_VAL(f, name, p, ok)                                                  \
  do {                                                                                        \
    hip_gate_put_ptr((f), (name), (const void *)(p));                                         \
    if ((ok) && (p))                                                                          \
      HIP_GATE_PUTTER(*(p))((f), NULL, (p), sizeof(*(p)));                                    \
  } while (0)

#endif
