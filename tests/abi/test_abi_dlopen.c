/* A process that does not link libamdhip64 loads it with dlopen() (Python's ctypes, plug-ins,
 * bench/): loading must succeed (the runtime's thread-local storage must not need static TLS)
 * and per-thread state must work, in this thread and in another one. */
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <pthread.h>
#include <string.h>

#include <hip/hip_runtime_api.h>

/* The entry points' own types: a call through a pointer of another type (int for hipError_t) is
 * undefined, and UBSan's -fsanitize=function stops it. */
typedef __typeof__(&hipGetLastError) get_error_fn;
typedef __typeof__(&hipGetDeviceCount) get_count_fn;
typedef __typeof__(&hipGetErrorName) error_name_fn;

static void *lib;

static void load(void)
{
  lib = dlopen(HIPKFD_TEST_LIBDIR "/libamdhip64.so.7", RTLD_NOW | RTLD_LOCAL);
  cr_assert_not_null(lib, "%s", dlerror());
}

/* hipGetDeviceCount(NULL) fails with hipErrorInvalidValue (1), which hipGetLastError then
 * returns once and resets: both go through the thread's error state. */
static void *error_state(void *arg)
{
  (void)arg;
  get_count_fn count = (get_count_fn)dlsym(lib, "hipGetDeviceCount");
  get_error_fn last = (get_error_fn)dlsym(lib, "hipGetLastError");
  if (!count || !last)
    return (void *)1;
  if (count(NULL) != 1 || last() != 1 || last() != 0)
    return (void *)2;
  return NULL;
}

Test(dlopen, loads_and_keeps_per_thread_state, .init = load)
{
  error_name_fn name = (error_name_fn)dlsym(lib, "hipGetErrorName");
  cr_assert_not_null(name);
  cr_assert_str_eq(name(hipErrorInvalidValue), "hipErrorInvalidValue");
  cr_assert_null(error_state(NULL), "this thread");
  pthread_t t;
  void *r = (void *)-1;
  cr_assert_eq(pthread_create(&t, NULL, error_state, NULL), 0);
  pthread_join(t, &r);
  cr_assert_null(r, "another thread");
}
