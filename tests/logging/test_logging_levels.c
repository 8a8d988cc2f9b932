/* The log's levels and destination: each test runs in its own process (Criterion forks), so the
 * environment set before the first HIP call is what the runtime reads at initialisation. */
#include <criterion/criterion.h>
#include <hip/hip_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A fresh, empty log file's path for this test process. */
static void log_path(char *buf, size_t len)
{
  snprintf(buf, len, "/tmp/hipkfd_log_%d.txt", (int)getpid());
  unlink(buf);
}

/* The whole log file as a string ("" when it does not exist). */
static char *read_log(const char *path)
{
  static char text[16384];
  text[0] = 0;
  FILE *f = fopen(path, "r");
  if (f) {
    size_t n = fread(text, 1, sizeof(text) - 1, f);
    text[n] = 0;
    fclose(f);
  }
  return text;
}

/* Initialises the runtime (reads the environment), then fails one call on purpose. */
static void fail_one_call(void)
{
  int n = 0;
  cr_assert_eq(hipGetDeviceCount(&n), hipSuccess);
  cr_assert_eq(hipMalloc(NULL, 16), hipErrorInvalidValue);
}

Test(logging, level1_names_failed_call_and_reason)
{
  char path[64];
  log_path(path, sizeof(path));
  setenv("AMD_LOG_LEVEL", "1", 1);
  setenv("AMD_LOG_LEVEL_FILE", path, 1);
  fail_one_call();
  char *log = read_log(path);
  cr_assert(strstr(log, "hipMalloc failed: hipErrorInvalidValue"), "log was: %s", log);
  /* The reason in words, hipGetErrorString's text. */
  cr_assert(strstr(log, hipGetErrorString(hipErrorInvalidValue)), "log was: %s", log);
  unlink(path);
}

Test(logging, hipkfd_log_is_an_alias)
{
  char path[64];
  log_path(path, sizeof(path));
  setenv("HIPKFD_LOG", "1", 1);
  setenv("AMD_LOG_LEVEL_FILE", path, 1);
  fail_one_call();
  cr_assert(strstr(read_log(path), "hipMalloc failed"), "log was: %s", read_log(path));
  unlink(path);
}

Test(logging, amd_log_level_wins_over_alias)
{
  char path[64];
  log_path(path, sizeof(path));
  setenv("HIPKFD_LOG", "1", 1);
  setenv("AMD_LOG_LEVEL", "0", 1);
  setenv("AMD_LOG_LEVEL_FILE", path, 1);
  fail_one_call();
  cr_assert_str_eq(read_log(path), "");
  unlink(path);
}

Test(logging, success_and_not_ready_are_not_failures)
{
  char path[64];
  log_path(path, sizeof(path));
  setenv("AMD_LOG_LEVEL", "1", 1);
  setenv("AMD_LOG_LEVEL_FILE", path, 1);
  void *p = NULL;
  cr_assert_eq(hipMalloc(&p, 64), hipSuccess);
  cr_assert_eq(hipFree(p), hipSuccess);
  cr_assert_str_eq(read_log(path), "");
  unlink(path);
}
