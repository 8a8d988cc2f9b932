/*
 * Run-time control of the runtime's log (HIPKFD_LOG sets the level at start-up): AMD's
 * hipExtEnableLogging / hipExtDisableLogging / hipExtSetLoggingParams. Levels are hipkfd's
 * (1 errors, 2 set-up decisions, higher: more); AMD's size and category mask have no meaning
 * here and are accepted as they are.
 */
#include "../runtime/error.h"
#include "../runtime/internal.h"

/* The level logging returns to when re-enabled (0 when it never was: then errors, level 1). */
static int enabled_level;

hipError_t hipExtEnableLogging(void)
{
  hip_log_level = enabled_level > 0 ? enabled_level : (hip_log_level > 0 ? hip_log_level : 1);
  HIP_RETURN(hipSuccess);
}

hipError_t hipExtDisableLogging(void)
{
  if (hip_log_level > 0)
    enabled_level = hip_log_level;
  hip_log_level = 0;
  HIP_RETURN(hipSuccess);
}

hipError_t hipExtSetLoggingParams(size_t log_level, size_t log_size, size_t log_mask)
{
  (void)log_size;
  (void)log_mask;
  if (log_level > 7)
    HIP_RETURN(hipErrorInvalidValue);
  hip_log_level = (int)log_level;
  enabled_level = (int)log_level;
  HIP_RETURN(hipSuccess);
}

/* At AMD_LOG_LEVEL >= 1 a failing call says which call failed and why, in words (clr logs the
 * same at its error level). Not for hipErrorNotReady: that is a status (error.h). */
static void log_failed_call(const char *call, hipError_t err)
{
  hip_log(1, "%s failed: %s (%s)", call, hipGetErrorName(err), hipGetErrorString(err));
}

__attribute__((constructor)) static void logging_hook_install(void)
{
  hip_failed_call_hook = log_failed_call;
}
