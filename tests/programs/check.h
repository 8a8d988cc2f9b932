// Shared by the host programs: checks that print what failed and exit non-zero. Plain host C++
// that builds both against hipkfd's include/hip (g++) and against AMD's headers (hipcc 5.2.3).
#ifndef HIPKFD_PROGRAMS_CHECK_H
#define HIPKFD_PROGRAMS_CHECK_H

#include <hip/hip_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK_HIP(call)                                                                      \
  do {                                                                                       \
    hipError_t check_err_ = (call);                                                          \
    if (check_err_ != hipSuccess) {                                                          \
      fprintf(stderr, "%s:%d: %s -> %s (%d)\n", __FILE__, __LINE__, #call,                   \
              hipGetErrorName(check_err_), (int)check_err_);                                 \
      exit(1);                                                                               \
    }                                                                                        \
  } while (0)

#define EXPECT_HIP(call, want)                                                               \
  do {                                                                                       \
    hipError_t check_err_ = (call);                                                          \
    if (check_err_ != (want)) {                                                              \
      fprintf(stderr, "%s:%d: %s -> %s (%d), expected %s\n", __FILE__, __LINE__, #call,     \
              hipGetErrorName(check_err_), (int)check_err_, hipGetErrorName(want));          \
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
