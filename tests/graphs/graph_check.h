// Checks shared by the graph test programs: print what failed and exit non-zero.
#ifndef HIPKFD_TESTS_GRAPH_CHECK_H
#define HIPKFD_TESTS_GRAPH_CHECK_H

#include <hip/hip_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK_HIP(call)                                                                      \
  do {                                                                                       \
    hipError_t e_ = (call);                                                                  \
    if (e_ != hipSuccess) {                                                                  \
      fprintf(stderr, "%s:%d: %s -> %s (%d)\n", __FILE__, __LINE__, #call,                   \
              hipGetErrorName(e_), (int)e_);                                                 \
      exit(1);                                                                               \
    }                                                                                        \
  } while (0)

#define EXPECT_HIP(call, want)                                                               \
  do {                                                                                       \
    hipError_t e_ = (call);                                                                  \
    if (e_ != (want)) {                                                                      \
      fprintf(stderr, "%s:%d: %s -> %s (%d), expected %s\n", __FILE__, __LINE__, #call,     \
              hipGetErrorName(e_), (int)e_, hipGetErrorName(want));                          \
      exit(1);                                                                               \
    }                                                                                        \
  } while (0)

#define CHECK(cond)                                                                          \
  do {                                                                                       \
    if (!(cond)) {                                                                           \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);               \
      exit(1);                                                                               \
    }                                                                                        \
  } while (0)

#endif
