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

/* Called by the generated wrappers only. */
void hip_observe_call_begin(struct hip_api_call *call);
void hip_observe_call_end(struct hip_api_call *call);

#endif
