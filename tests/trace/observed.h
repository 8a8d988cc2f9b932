/* What the generated entry-point wrappers do around each call (runtime/observe.h), done by hand
 * in the white-box trace tests until the wrappers exist: OBSERVED(hipX(...)) fills a
 * struct hip_api_call, calls hip_observe_call_begin, the function, then hip_observe_call_end,
 * and asserts the call succeeded. The id is beyond the API table, so observers look the name up
 * instead of using their per-position caches. */
#ifndef TESTS_TRACE_OBSERVED_H
#define TESTS_TRACE_OBSERVED_H

#include <stdio.h>

#include "runtime/observe.h"

static int observed_format(const void *args, char *buf, size_t size)
{
	return snprintf(buf, size, "%s", (const char *)args);
}

#define OBSERVED_CALL(fn, ...)                                                                \
	do {                                                                                 \
		struct hip_api_call c_ = {.id = 0xffffffffu, .name = #fn,                     \
					  .args = #__VA_ARGS__, .format_args = observed_format}; \
		hip_observe_call_begin(&c_);                                                 \
		c_.result = fn(__VA_ARGS__);                                                 \
		hip_observe_call_end(&c_);                                                   \
		cr_assert_eq(c_.result, hipSuccess, "%s(%s): %d", #fn, #__VA_ARGS__, c_.result); \
	} while (0)

#endif
