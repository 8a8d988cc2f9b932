/* How the gate serializes launches and copies (AMD_SERIALIZE_KERNEL, AMD_SERIALIZE_COPY,
 * HIP_LAUNCH_BLOCKING; runtime/observe.h): it waits for the call's stream, or for the whole
 * device when the call names none (hipMemcpy, multi-device launches). The waits are the entry
 * points' implementations (the gate's renaming makes these calls go straight to them), so a
 * fault in the waited-for work is what the launch or copy returns. */
#include "../runtime/capture.h"
#include "../runtime/error.h"
#include "../runtime/observe.h"

static hipError_t serialize_wait(hipStream_t stream)
{
  if (stream == HIP_GATE_ALL_STREAMS)
    return hipDeviceSynchronize();
  /* A stream being captured records work instead of running it: nothing to wait for, and a
   * synchronize would invalidate the capture. */
  if (hip_capture_active(stream))
    return hipSuccess;
  return hipStreamSynchronize(stream);
}

__attribute__((constructor)) static void serialize_hook_install(void)
{
  hip_gate_wait_hook = serialize_wait;
}
