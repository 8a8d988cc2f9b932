/* hipkfd: error state of the HIP API layer.
 *
 * The layers below src/runtime return 0 or -errno; every API entry point turns
 * that into a hipError_t with hip_error_from_errno() and leaves through HIP_RETURN(), which
 * records the result in the calling thread's error state (HIP 7 semantics):
 *
 *   - the "last error" (hipGetLastError / hipPeekAtLastError) is set by every call that fails
 *     with anything but hipErrorNotReady; a successful call does NOT clear it. hipGetLastError
 *     returns it and resets it to hipSuccess, hipPeekAtLastError only reads it.
 *   - the "last command error" (hipExtGetLastError) is the result of the most recent call,
 *     success included; hipExtGetLastError returns and resets it.
 *   - once a GPU fault has poisoned the process (hip_sticky_error_set), the generated gate in
 *     front of every entry point (observe.h) returns that error without running the call, except
 *     for the calls listed in tools/gate/sticky_allowed.tsv, which do their work and return their
 *     own result; hipGetLastError and hipPeekAtLastError return it and cannot clear it.
 *
 * This mirrors clr's HIP_UPDATE_ERROR_STATE (ROCm 7.x hipamd/src/hip_internal.hpp). ROCm 6.x
 * overwrote the last error on every call, successful or not. */
#ifndef HIPKFD_RUNTIME_ERROR_H
#define HIPKFD_RUNTIME_ERROR_H

#include <stdatomic.h>

#include <hip/hip_runtime_api.h>

/* Thread-local state touched by every call. Plain _Thread_local: the runtime is built with TLS
 * descriptors (src/CMakeLists.txt), which are cheap when the library's TLS is static and keep
 * working under dlopen(), where initial-exec fails ("cannot allocate memory in static TLS
 * block": the module's whole TLS block, arrays included, would have to fit the surplus). */
#define HIP_TLS _Thread_local

/* hip_set_error_in() records `err` as the result of the current API call and returns it. */
extern HIP_TLS hipError_t hip_tls_last_error;
extern HIP_TLS hipError_t hip_tls_last_command_error;
/* Set by the gate while a call that keeps working after a fault runs with the error sticky. */
extern HIP_TLS bool hip_tls_sticky_exempt;
extern _Atomic int hip_sticky_error_code;
/* Set once any thread's call ended other than hipSuccess. Until then every thread's last command
 * result is hipSuccess already, so a successful call need not store it: the common path of a
 * program that never fails touches no thread-local storage (a TLS access costs a call into the
 * dynamic linker when the library was dlopen()ed). */
extern _Atomic bool hip_any_call_failed;

/* The log level (AMD_LOG_LEVEL / HIPKFD_LOG, init.c). At level >= 1 a failing call is logged
 * through hip_failed_call_hook, which src/api/logging.c fills from a constructor (the names and
 * strings of errors live in src/api, above this layer). */
extern int hip_log_level;
extern void (*hip_failed_call_hook)(const char *call, hipError_t err);

/* AMD_LOG_MASK (clr's LogMask, rocclr utils/debug.hpp): which kinds of messages the levels
 * enable. Bit 0 (LOG_API, 0x1) is the API-call log of level 3; clr's default is 0x7fffffff. */
extern unsigned hip_log_mask;
#define HIP_LOG_MASK_API 0x1u

extern _Atomic bool hip_fault_report_pending; /* a fault report is due (below) */
void hip_fault_report_flush(void);

/* Out of line: only failing calls with logging on get here. */
void hip_log_failed_call(const char *call, hipError_t err);

/* Why the current call fails, in words ("no code object for gfx942 in the image (has gfx90a)"),
 * noted where the failure is found, just before the call returns it; the failure log (level >= 1)
 * prints it after the error's name. Does nothing with logging off. */
void hip_error_reason(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The calling thread's noted reason ("" if none), cleared by reading it. */
const char *hip_error_reason_take(void);

/* Inline: every API call leaves through it. `call` names the entry point for the log (NULL when
 * unknown); the common path (success, nothing failed yet) never reads it. */
static inline hipError_t hip_set_error_in(const char *call, hipError_t err)
{
  /* A call that met the fault while it ran (a copy's or a free's wait) returns the sticky error,
   * not its own view of the failure (or a success). Calls the gate lets run on a sticky error
   * (tools/gate/sticky_allowed.tsv) are exempt: they return their own result. */
  int sticky = atomic_load_explicit(&hip_sticky_error_code, memory_order_acquire);
  if (__builtin_expect(sticky != hipSuccess, 0) && !hip_tls_sticky_exempt)
    err = (hipError_t)sticky;
  if (err == hipSuccess &&
      __builtin_expect(!atomic_load_explicit(&hip_any_call_failed, memory_order_relaxed), 1))
    return err;
  if (err != hipSuccess && !atomic_load_explicit(&hip_any_call_failed, memory_order_relaxed))
    atomic_store_explicit(&hip_any_call_failed, true, memory_order_relaxed);
  hip_tls_last_command_error = err;
  /* hipErrorNotReady is a status (hipStreamQuery, hipEventQuery), not a failure. */
  if (err != hipSuccess && err != hipErrorNotReady) {
    /* The call that met the fault reports it as it returns (no lock held any more). */
    if (__builtin_expect(atomic_load_explicit(&hip_fault_report_pending, memory_order_relaxed), 0))
      hip_fault_report_flush();
    hip_tls_last_error = err;
    if (__builtin_expect(hip_log_level >= 1, 0))
      hip_log_failed_call(call, err);
  }
  return err;
}

static inline hipError_t hip_set_error(hipError_t err)
{
  return hip_set_error_in(NULL, err);
}

/* The way out of every hip* entry point; __func__ names the call in the failure log. */
#define HIP_RETURN(err) return hip_set_error_in(__func__, err)

/* Leaves the entry point through HIP_RETURN when `expr` (a hipError_t) is not hipSuccess. */
#define HIP_RETURN_IF_ERROR(expr)          \
  do {                                     \
    hipError_t hip_rif_err_ = (expr);      \
    if (hip_rif_err_ != hipSuccess)        \
      HIP_RETURN(hip_rif_err_);            \
  } while (0)

/* Maps 0 / -errno from the layers below to a hipError_t. A positive errno is read as its
 * negation. Unknown codes become hipErrorUnknown. */
hipError_t hip_error_from_errno(int neg_errno);

/* The process-wide sticky error: set once when a GPU fault (memory exception, hardware
 * exception, queue error) poisons the device state; the first error set wins, and sets
 * HIP_GATE_STICKY in hip_observe_flags so the gate stops the calls. get returns hipSuccess while
 * nothing is poisoned. clear is for hipDeviceReset. */
void hip_sticky_error_set(hipError_t err);
/* The fault report (src/api/fault_report.c fills the hook): due once per sticky error. It is not
 * written where the fault is found (a wait may hold stream or device locks there) but when the
 * call that met it returns its error (hip_set_error_in), by the next call through the gate, or
 * at exit, whichever comes first (hip_fault_report_flush). */
extern void (*hip_fault_report_hook)(hipError_t err);
hipError_t hip_sticky_error_get(void);
void hip_sticky_error_clear(void);

/* The generated weak stubs leave through here: records hipErrorNotSupported, returns it. */
int hip_stub_not_supported(void);

#endif
