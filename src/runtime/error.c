/* hipkfd: error names and strings, the per-thread last error, errno mapping, sticky errors.
 * Semantics are documented in error.h. */
#include "error.h"

#include "observe.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>

/* Per-thread state. A new thread starts with both values at hipSuccess. After fork() the child
 * keeps the forking thread's values, as any thread-local would. */
HIP_TLS hipError_t hip_tls_last_error = hipSuccess;
HIP_TLS hipError_t hip_tls_last_command_error = hipSuccess;
HIP_TLS bool hip_tls_sticky_exempt;

/* Process-wide; written once by the fault path, read by every API call. */
_Atomic int hip_sticky_error_code = hipSuccess;
_Atomic bool hip_any_call_failed;

void (*hip_fault_report_hook)(hipError_t err);
_Atomic bool hip_fault_report_pending;

void hip_fault_report_flush(void) {
  void (*hook)(hipError_t) = hip_fault_report_hook;
  if (!atomic_load_explicit(&hip_fault_report_pending, memory_order_acquire) || !hook)
    return;
  if (atomic_exchange_explicit(&hip_fault_report_pending, false, memory_order_acq_rel))
    hook(hip_sticky_error_get());
}

void hip_sticky_error_set(hipError_t err) {
  if (err == hipSuccess)
    return;
  int expected = hipSuccess;
  if (atomic_compare_exchange_strong_explicit(&hip_sticky_error_code, &expected, (int)err,
                                              memory_order_acq_rel, memory_order_acquire))
    atomic_store_explicit(&hip_fault_report_pending, true, memory_order_release);
  /* After the code: a call that sees the bit finds the error set. */
  hip_observe_enable((enum hip_observer_kind)HIP_GATE_STICKY, 1);
}

hipError_t hip_sticky_error_get(void) {
  return (hipError_t)atomic_load_explicit(&hip_sticky_error_code, memory_order_acquire);
}

void hip_sticky_error_clear(void) {
  hip_observe_enable((enum hip_observer_kind)HIP_GATE_STICKY, 0);
  atomic_store_explicit(&hip_sticky_error_code, hipSuccess, memory_order_release);
}

/* Here rather than in init.c (which sets it): every call's exit reads it, and the error state
 * must not depend on the initialisation file (tests/layout forbids file cycles). */
int hip_log_level;
unsigned hip_log_mask = 0x7fffffffu;
void (*hip_failed_call_hook)(const char *call, hipError_t err);

/* One reason per thread: a call notes it just before it fails, the failure log reads it. */
static HIP_TLS char reason_text[192];

void hip_error_reason(const char *fmt, ...) {
  if (hip_log_level < 1)
    return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(reason_text, sizeof(reason_text), fmt, ap);
  va_end(ap);
}

const char *hip_error_reason_take(void) {
  static HIP_TLS char taken[sizeof(reason_text)];
  memcpy(taken, reason_text, sizeof(taken));
  reason_text[0] = '\0';
  return taken;
}

void hip_log_failed_call(const char *call, hipError_t err) {
  void (*hook)(const char *, hipError_t) = hip_failed_call_hook;
  /* Implementations are compiled as hipkfd_impl_<name> (the gate): __func__ carries the prefix. */
  static const char impl_prefix[] = "hipkfd_impl_";
  if (call && strncmp(call, impl_prefix, sizeof(impl_prefix) - 1) == 0)
    call += sizeof(impl_prefix) - 1;
  if (hook)
    hook(call ? call : "a HIP call", err);
}

int hip_stub_not_supported(void) {
  return (int)hip_set_error(hipErrorNotSupported);
}

struct errno_map {
  int err; /* positive errno */
  hipError_t hip;
};

/* Why each row: the kernel's and our layers' meaning of the errno, in HIP's vocabulary. */
static const struct errno_map errno_table[] = {
    {EINVAL, hipErrorInvalidValue},        /* bad argument at any layer */
    {E2BIG, hipErrorInvalidValue},         /* argument size out of range */
    {ERANGE, hipErrorInvalidValue},
    {EOVERFLOW, hipErrorInvalidValue},
    {EFAULT, hipErrorInvalidValue},        /* kernel could not read/write a user pointer */
    {ENOMEM, hipErrorOutOfMemory},         /* host or VRAM/GTT allocation failed */
    {ENOSPC, hipErrorOutOfMemory},         /* VA aperture or ring space exhausted */
    {ENOSYS, hipErrorNotSupported},        /* not implemented in hipkfd yet */
    {EOPNOTSUPP, hipErrorNotSupported},    /* EOPNOTSUPP == ENOTSUP on Linux */
    {ENOTTY, hipErrorNotSupported},        /* ioctl unknown to this amdkfd version */
    {ENODEV, hipErrorNoDevice},            /* no KFD node / no GPU */
    {ENXIO, hipErrorInvalidDevice},        /* GPU id the kernel does not know */
    {ENOENT, hipErrorNotFound},            /* symbol, kernel or object not found */
    {ESRCH, hipErrorNotFound},
    {EBADF, hipErrorInvalidHandle},        /* stale handle or file descriptor */
    {EEXIST, hipErrorAlreadyMapped},       /* range already mapped / registered */
    {EBUSY, hipErrorIllegalState},         /* object still in use */
    {EAGAIN, hipErrorNotReady},            /* work still pending */
    {ETIMEDOUT, hipErrorLaunchTimeOut},
    {ENOEXEC, hipErrorInvalidImage},       /* code object or bundle malformed */
    {EPERM, hipErrorOperatingSystem},      /* e.g. /dev/kfd not accessible */
    {EACCES, hipErrorOperatingSystem},
    {EIO, hipErrorUnknown},                /* device error without a finer meaning */
};

hipError_t hip_error_from_errno(int neg_errno) {
  if (neg_errno == 0)
    return hipSuccess;
  int err = neg_errno < 0 ? -neg_errno : neg_errno;
  for (size_t i = 0; i < sizeof(errno_table) / sizeof(errno_table[0]); i++)
    if (errno_table[i].err == err)
      return errno_table[i].hip;
  return hipErrorUnknown;
}

/* A failure seen while waiting for GPU work (internal.h). */
hipError_t hip_gpu_error(int err)
{
	hipError_t e;
	if (err == -EFAULT)
		e = hipErrorIllegalAddress;
	else if (err == -EIO)
		e = hipErrorLaunchFailure;
	else
		return hip_error_from_errno(err);
	hip_sticky_error_set(e);
	return e;
}
