/* The capture hook table the entry points call through (capture.h), and its answers before the
 * graph layer installs its own: nothing is capturing, every check passes. */
#include "capture.h"

_Atomic int hip_capture_streams;
_Atomic unsigned hip_graph_mem_count;

static bool none_lookup(hipStream_t stream)
{
  (void)stream;
  return false;
}

static const struct hip_capture_ops no_capture = {.lookup = none_lookup};

const struct hip_capture_ops *hip_capture_ops = &no_capture;

void hip_capture_install(const struct hip_capture_ops *ops)
{
  hip_capture_ops = ops;
}
