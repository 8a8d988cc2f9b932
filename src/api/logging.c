/*
 * The runtime's log, above the runtime's hip_log(): the API-call log (an observer of the gate,
 * runtime/observe.h, at AMD_LOG_LEVEL >= 3 with LOG_API in AMD_LOG_MASK), the failure log with
 * its reason in words (level >= 1), and AMD's run-time control: hipExtEnableLogging /
 * hipExtDisableLogging / hipExtSetLoggingParams (level and mask; the size has no meaning here).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../runtime/error.h"
#include "../runtime/internal.h"
#include "../runtime/observe.h"

/* The level logging returns to when re-enabled (0 when it never was: then errors, level 1). */
static int enabled_level;

hipError_t hipExtEnableLogging(void)
{
  hip_log_level = enabled_level > 0 ? enabled_level : (hip_log_level > 0 ? hip_log_level : 1);
  hip_observe_log_update();
  HIP_RETURN(hipSuccess);
}

hipError_t hipExtDisableLogging(void)
{
  if (hip_log_level > 0)
    enabled_level = hip_log_level;
  hip_log_level = 0;
  hip_observe_log_update();
  HIP_RETURN(hipSuccess);
}

hipError_t hipExtSetLoggingParams(size_t log_level, size_t log_size, size_t log_mask)
{
  (void)log_size;
  if (log_level > 7)
    HIP_RETURN(hipErrorInvalidValue);
  hip_log_level = (int)log_level;
  enabled_level = (int)log_level;
  hip_log_mask = (unsigned)log_mask;
  hip_observe_log_update();
  HIP_RETURN(hipSuccess);
}

/* At AMD_LOG_LEVEL >= 1 a failing call says which call failed and why, in words (clr logs the
 * same at its error level). Not for hipErrorNotReady: that is a status (error.h). */
static void log_failed_call(const char *call, hipError_t err)
{
  const char *why = hip_error_reason_take();
  hip_log(1, "%s failed: %s (%s)%s%s", call, hipGetErrorName(err), hipGetErrorString(err),
          *why ? ": " : "", why);
}

/* The API-call log: one line per call when it returns, with the arguments (outputs shown with
 * what the call wrote) and the result, prefixed by the thread, so interleaved threads can be
 * told apart. Level 4 also marks where each call begins (nested and blocking calls). */
static unsigned long thread_tag(void)
{
  return (unsigned long)(uintptr_t)pthread_self() >> 8 & 0xffff;
}

static void log_call_begin(struct hip_api_call *call)
{
  if (hip_log_level >= 4)
    hip_log(4, "[%04lx] %s ...", thread_tag(), call->name);
}

static void log_call_end(struct hip_api_call *call)
{
  char args[768] = "";
  if (call->format_args)
    call->format_args(call->args, args, sizeof(args));
  hip_log(3, "[%04lx] %s(%s) = %s (%d) %.1f us", thread_tag(), call->name, args,
          hipGetErrorName(call->result), (int)call->result,
          hip_observe_ticks_ns(call->end - call->begin) / 1000.0);
}

static const struct hip_api_observer log_observer = {log_call_begin, log_call_end};

__attribute__((constructor)) static void logging_hook_install(void)
{
  hip_failed_call_hook = log_failed_call;
  hip_observe_register(HIP_OBSERVE_LOG, &log_observer);
}
