/* A call the white-box trace tests make and expect to succeed. The generated entry-point
 * wrappers (tools/gate) report it to the observers (runtime/observe.h) on their own, as in a
 * real program: the white-box tests link the same wrappers. */
#ifndef TESTS_TRACE_OBSERVED_H
#define TESTS_TRACE_OBSERVED_H

#include <stdio.h>

#define OBSERVED_CALL(fn, ...)                                                                \
	do {                                                                                 \
		hipError_t r_ = fn(__VA_ARGS__);                                             \
		cr_assert_eq(r_, hipSuccess, "%s(%s): %d", #fn, #__VA_ARGS__, r_);           \
	} while (0)

#endif
