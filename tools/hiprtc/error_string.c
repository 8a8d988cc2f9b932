/* libhiprtc's hiprtcGetErrorString. The names table lives in libamdhip64 (src/api/abi_compat.c),
 * which exports it as hiprtcGetErrorString@@hip_4.2 for ROCm 5 binaries; libhiprtc exports the
 * name unversioned (as AMD's libhiprtc does) and forwards to that definition. The .symver
 * binds the call to libamdhip64's versioned symbol, never back to this function. */
#include <hip/hiprtc.h>

const char *hipkfd_amdhip64_rtc_error_string(hiprtcResult result);
__asm__(".symver hipkfd_amdhip64_rtc_error_string, hiprtcGetErrorString@hip_4.2");

__attribute__((visibility("default"))) const char *hiprtcGetErrorString(hiprtcResult result)
{
  return hipkfd_amdhip64_rtc_error_string(result);
}
