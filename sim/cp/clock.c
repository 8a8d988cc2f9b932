/* The GPU timestamp counter (see sim.h): CLOCK_MONOTONIC in 10 ns ticks. A steady clock, so
 * start/end timestamps of consecutive packets never go backwards. */
#include <time.h>

#include "sim.h"

uint64_t sim_gpu_clock_counter(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  uint64_t ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
  return ns / (1000000000ull / SIM_GPU_CLOCK_HZ);
}
