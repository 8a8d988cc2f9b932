/* hipkfd: the API layer's error state (src/runtime/error.c, src/api/error.c), compiled into this test directly so
 * that the internal functions (hip_set_error, sticky errors, errno mapping) are reachable.
 * Semantics under test are HIP 7's; see src/runtime/error.h. */
#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "runtime/error.h"

/* Every test starts from a clean thread and process state. */
static void reset_state(void) {
  hip_sticky_error_clear();
  (void)hipGetLastError();
  (void)hipExtGetLastError();
}

TestSuite(error_state, .init = reset_state);

Test(error_state, get_last_error_returns_then_resets) {
  cr_assert_eq(hip_set_error(hipErrorInvalidValue), hipErrorInvalidValue);
  cr_assert_eq(hipGetLastError(), hipErrorInvalidValue);
  cr_assert_eq(hipGetLastError(), hipSuccess, "hipGetLastError must reset to hipSuccess");
}

Test(error_state, peek_does_not_reset) {
  (void)hip_set_error(hipErrorOutOfMemory);
  cr_assert_eq(hipPeekAtLastError(), hipErrorOutOfMemory);
  cr_assert_eq(hipPeekAtLastError(), hipErrorOutOfMemory);
  cr_assert_eq(hipGetLastError(), hipErrorOutOfMemory);
  cr_assert_eq(hipPeekAtLastError(), hipSuccess);
}

Test(error_state, success_does_not_overwrite_last_error) {
  (void)hip_set_error(hipErrorInvalidDevice);
  cr_assert_eq(hip_set_error(hipSuccess), hipSuccess);
  cr_assert_eq(hipGetLastError(), hipErrorInvalidDevice);
}

Test(error_state, not_ready_is_not_an_error) {
  (void)hip_set_error(hipErrorNotReady);
  cr_assert_eq(hipGetLastError(), hipSuccess);
  cr_assert_eq(hipExtGetLastError(), hipErrorNotReady, "the command result still records it");
}

Test(error_state, later_error_replaces_earlier) {
  (void)hip_set_error(hipErrorInvalidValue);
  (void)hip_set_error(hipErrorNotSupported);
  cr_assert_eq(hipGetLastError(), hipErrorNotSupported);
}

Test(error_state, ext_last_error_is_last_command_result) {
  (void)hip_set_error(hipErrorInvalidValue);
  (void)hip_set_error(hipSuccess);
  cr_assert_eq(hipExtGetLastError(), hipSuccess, "the most recent call succeeded");
  (void)hip_set_error(hipErrorInvalidHandle);
  cr_assert_eq(hipExtGetLastError(), hipErrorInvalidHandle);
  cr_assert_eq(hipExtGetLastError(), hipSuccess, "hipExtGetLastError resets");
  cr_assert_eq(hipGetLastError(), hipErrorInvalidHandle, "independent of the last error");
}

static void* set_error_in_thread(void* arg) {
  (void)arg;
  (void)hip_set_error(hipErrorLaunchFailure);
  return (void*)(intptr_t)hipPeekAtLastError();
}

Test(error_state, last_error_is_per_thread) {
  (void)hip_set_error(hipErrorInvalidValue);
  pthread_t t;
  void* seen = NULL;
  cr_assert_eq(pthread_create(&t, NULL, set_error_in_thread, NULL), 0);
  cr_assert_eq(pthread_join(t, &seen), 0);
  cr_assert_eq((hipError_t)(intptr_t)seen, hipErrorLaunchFailure);
  cr_assert_eq(hipGetLastError(), hipErrorInvalidValue, "the other thread's error stays there");
}

Test(error_state, sticky_error_overrides_and_persists) {
  hip_sticky_error_set(hipErrorIllegalAddress);
  hip_sticky_error_set(hipErrorLaunchFailure); /* the first fault wins */
  cr_assert_eq(hip_sticky_error_get(), hipErrorIllegalAddress);
  /* A call that ends while the error is sticky returns it (it may have met the fault itself),
   * unless the gate let it run as one that keeps working (hip_tls_sticky_exempt; the gate stops
   * the others before they run: tests/streams/test_streams_sticky). */
  cr_assert_eq(hip_set_error(hipSuccess), hipErrorIllegalAddress);
  hip_tls_sticky_exempt = true;
  cr_assert_eq(hip_set_error(hipSuccess), hipSuccess);
  hip_tls_sticky_exempt = false;
  cr_assert_eq(hipGetLastError(), hipErrorIllegalAddress);
  cr_assert_eq(hipGetLastError(), hipErrorIllegalAddress, "cannot be cleared by reading it");
  cr_assert_eq(hipPeekAtLastError(), hipErrorIllegalAddress);
  hip_sticky_error_clear();
  cr_assert_eq(hipGetLastError(), hipErrorIllegalAddress, "recorded by the peek made during the fault");
  cr_assert_eq(hipGetLastError(), hipSuccess);
  cr_assert_eq(hip_set_error(hipSuccess), hipSuccess);
}

Test(error_state, sticky_ignores_success) {
  hip_sticky_error_set(hipSuccess);
  cr_assert_eq(hip_sticky_error_get(), hipSuccess);
}

static hipError_t returns_through_macro(hipError_t e) {
  HIP_RETURN(e);
}

static hipError_t returns_if_error(hipError_t first) {
  HIP_RETURN_IF_ERROR(first);
  HIP_RETURN(hipSuccess);
}

Test(error_state, hip_return_macros) {
  cr_assert_eq(returns_through_macro(hipErrorInvalidSymbol), hipErrorInvalidSymbol);
  cr_assert_eq(hipGetLastError(), hipErrorInvalidSymbol);
  cr_assert_eq(returns_if_error(hipErrorNoDevice), hipErrorNoDevice);
  cr_assert_eq(returns_if_error(hipSuccess), hipSuccess);
  cr_assert_eq(hipGetLastError(), hipErrorNoDevice);
}

Test(error_state, stub_helper_records_not_supported) {
  cr_assert_eq(hip_stub_not_supported(), hipErrorNotSupported);
  cr_assert_eq(hipGetLastError(), hipErrorNotSupported);
}

Test(errno_map, known_values) {
  cr_assert_eq(hip_error_from_errno(0), hipSuccess);
  cr_assert_eq(hip_error_from_errno(-EINVAL), hipErrorInvalidValue);
  cr_assert_eq(hip_error_from_errno(-ENOMEM), hipErrorOutOfMemory);
  cr_assert_eq(hip_error_from_errno(-ENOSYS), hipErrorNotSupported);
  cr_assert_eq(hip_error_from_errno(-EOPNOTSUPP), hipErrorNotSupported);
  cr_assert_eq(hip_error_from_errno(-ENODEV), hipErrorNoDevice);
  cr_assert_eq(hip_error_from_errno(-ENOENT), hipErrorNotFound);
  cr_assert_eq(hip_error_from_errno(-EBADF), hipErrorInvalidHandle);
  cr_assert_eq(hip_error_from_errno(-EAGAIN), hipErrorNotReady);
  cr_assert_eq(hip_error_from_errno(-ETIMEDOUT), hipErrorLaunchTimeOut);
  cr_assert_eq(hip_error_from_errno(-ENOEXEC), hipErrorInvalidImage);
  cr_assert_eq(hip_error_from_errno(-EFAULT), hipErrorInvalidValue);
}

Test(errno_map, positive_and_unknown) {
  cr_assert_eq(hip_error_from_errno(ENOMEM), hipErrorOutOfMemory, "a positive errno is read as -errno");
  cr_assert_eq(hip_error_from_errno(-EMLINK), hipErrorUnknown);
  cr_assert_eq(hip_error_from_errno(-100000), hipErrorUnknown);
}
