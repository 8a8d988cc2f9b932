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

// hipLaunchHostFunc: ROCm 5.2.3's library does not export it, so ROCm 5 builds run host
// functions through hipStreamAddCallback (a heap thunk carries the function and argument).
#if HIP_VERSION_MAJOR >= 6
#define LAUNCH_HOST_FUNC(stream, fn, arg) hipLaunchHostFunc((stream), (fn), (arg))
#else
struct host_fn_thunk {
  void (*fn)(void *);
  void *arg;
};
static void host_fn_thunk_run(hipStream_t, hipError_t, void *p)
{
  struct host_fn_thunk *t = (struct host_fn_thunk *)p;
  t->fn(t->arg);
  free(t);
}
static inline hipError_t launch_host_func_compat(hipStream_t s, void (*fn)(void *), void *arg)
{
  struct host_fn_thunk *t = (struct host_fn_thunk *)malloc(sizeof(*t));
  t->fn = fn;
  t->arg = arg;
  return hipStreamAddCallback(s, host_fn_thunk_run, t, 0);
}
#define LAUNCH_HOST_FUNC(stream, fn, arg) launch_host_func_compat((stream), (fn), (arg))
#endif

#endif
