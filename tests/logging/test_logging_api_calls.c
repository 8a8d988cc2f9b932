/* AMD_LOG_LEVEL=3: every API call of a program, in order, with its arguments (outputs as written)
 * and result; AMD_LOG_MASK without LOG_API (0x1) silences the call lines but not the failures;
 * a failing call says why in words. The program (logging_prog.c) runs as a child with the
 * variables set from its start. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char log_text[65536];

/* Runs the program with `env` (a shell assignment list) and returns its log. */
static const char *run_prog(const char *env)
{
  char path[64], cmd[512];
  snprintf(path, sizeof(path), "/tmp/hipkfd_apilog_%d.txt", (int)getpid());
  unlink(path);
  snprintf(cmd, sizeof(cmd), "env %s AMD_LOG_LEVEL_FILE=%s %s > /dev/null", env, path, LOGGING_PROG);
  cr_assert_eq(system(cmd), 0, "%s failed", cmd);
  log_text[0] = 0;
  FILE *f = fopen(path, "r");
  if (f) {
    size_t n = fread(log_text, 1, sizeof(log_text) - 1, f);
    log_text[n] = 0;
    fclose(f);
  }
  unlink(path);
  return log_text;
}

/* The position of `needle` at or after `from`, failing the test when it is not there. */
static const char *expect_after(const char *log, const char *from, const char *needle)
{
  const char *at = strstr(from, needle);
  cr_assert(at, "\"%s\" missing (in order) from the log:\n%s", needle, log);
  return at + strlen(needle);
}

Test(api_log, level3_names_each_call_in_order_with_result)
{
  const char *log = run_prog("AMD_LOG_LEVEL=3");
  const char *at = log;
  at = expect_after(log, at, "hipGetDeviceCount(count=0x");
  at = expect_after(log, at, "->1) = hipSuccess (0)");
  at = expect_after(log, at, "hipMalloc(ptr=0x");
  at = expect_after(log, at, ", size=4096) = hipSuccess (0)");
  at = expect_after(log, at, "hipMemset(dst=0x");
  at = expect_after(log, at, ", value=7, sizeBytes=256) = hipSuccess");
  at = expect_after(log, at, "hipMemcpy(dst=0x");
  at = expect_after(log, at, "kind=2) = hipSuccess");
  at = expect_after(log, at, "hipMalloc failed: hipErrorInvalidValue");
  at = expect_after(log, at, "hipMalloc(ptr=0, size=16) = hipErrorInvalidValue (1)");
  at = expect_after(log, at, "hipFree(ptr=0x");
  at = expect_after(log, at, "hipModuleLoadData(");
  (void)at;
  /* The pointer hipMalloc wrote is the one hipFree received. */
  const char *m = strstr(log, "hipMalloc(ptr=0x");
  const char *arrow = strstr(m, "->");
  unsigned long long dev = strtoull(arrow + 2, NULL, 16);
  char want[64];
  snprintf(want, sizeof(want), "hipFree(ptr=%#llx)", dev);
  cr_assert(strstr(log, want), "%s missing:\n%s", want, log);
}

Test(api_log, failure_says_why_in_words)
{
  const char *log = run_prog("AMD_LOG_LEVEL=1");
  cr_assert(strstr(log, "hipMalloc failed: hipErrorInvalidValue (invalid argument): the output "
                        "pointer is NULL"), "log:\n%s", log);
  cr_assert(strstr(log, "hipModuleLoadData failed: hipErrorNoBinaryForGpu"), "log:\n%s", log);
  cr_assert(strstr(log, "no code object for gfx942"), "log:\n%s", log);
  cr_assert(strstr(log, "(has gfx90a)"), "log:\n%s", log);
  cr_assert_null(strstr(log, "hipMalloc(ptr="), "level 1 logs no calls:\n%s", log);
}

Test(api_log, mask_without_api_bit_keeps_failures_only)
{
  const char *log = run_prog("AMD_LOG_LEVEL=3 AMD_LOG_MASK=0x2");
  cr_assert_null(strstr(log, "hipGetDeviceCount("), "log:\n%s", log);
  cr_assert(strstr(log, "hipMalloc failed"), "log:\n%s", log);
}

Test(api_log, hipkfd_log_alias_at_level3)
{
  const char *log = run_prog("HIPKFD_LOG=3");
  cr_assert(strstr(log, "hipMalloc(ptr=0x"), "log:\n%s", log);
}

Test(api_log, level0_is_silent)
{
  const char *log = run_prog("AMD_LOG_LEVEL=0");
  cr_assert_str_eq(log, "");
}
