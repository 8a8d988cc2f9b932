// Checks shared by the graph test programs: the host programs' checks (tests/programs/check.h),
// which print what failed and exit non-zero, with the kernel language available.
#ifndef HIPKFD_TESTS_GRAPH_CHECK_H
#define HIPKFD_TESTS_GRAPH_CHECK_H

#include <hip/hip_runtime.h>

#include "../programs/check.h"

#endif
