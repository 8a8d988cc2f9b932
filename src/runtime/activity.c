/* hipkfd: the activity hook (activity.h). */
#include "activity.h"

#include <time.h>

const struct hip_activity_ops *_Atomic hip_activity_hook;

uint64_t hip_activity_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
