/* The fault report: a faulting kernel's report (stderr, once) names the kernel, the address and
 * what lies near it; in the log file too at AMD_LOG_LEVEL >= 1. The program (serialize_prog.hip,
 * mode "illegal") stores to 0x7f0000001000, which nothing maps. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static char out[8192];

static const char *run(const char *env)
{
  char cmd[512];
  snprintf(cmd, sizeof(cmd), "env %s %s illegal 2>&1", env, SERIALIZE_PROG);
  FILE *p = popen(cmd, "r");
  cr_assert(p, "%s", cmd);
  size_t n = fread(out, 1, sizeof(out) - 1, p);
  out[n] = 0;
  cr_assert_eq(pclose(p), 0, "%s:\n%s", cmd, out);
  return out;
}

static int count(const char *text, const char *needle)
{
  int n = 0;
  for (const char *at = strstr(text, needle); at; at = strstr(at + 1, needle))
    n++;
  return n;
}

Test(fault_report, names_kernel_and_address_once, .timeout = 120)
{
  const char *got = run("AMD_LOG_LEVEL=0");
  cr_assert(strstr(got, "sync=700"), "the wait did not return hipErrorIllegalAddress:\n%s", got);
  cr_assert_eq(count(got, "GPU fault"), 1, "one report:\n%s", got);
  cr_assert(strstr(got, "memory access at 0x7f00000010"), "the address:\n%s", got);
  /* An unmapped address: the driver's reason is "not present" (kfd_memory_exception_failure). */
  cr_assert(strstr(got, "(page not present"), "the driver's reason:\n%s", got);
  cr_assert(strstr(got, "bad_store"), "the kernel:\n%s", got);
  cr_assert(strstr(got, "queue "), "the queue:\n%s", got);
  cr_assert(strstr(got, "outside every allocation; nearest: "), "the nearest allocation:\n%s", got);
}

Test(fault_report, also_in_the_log_file, .timeout = 120)
{
  char path[64], env[160];
  snprintf(path, sizeof(path), "/tmp/hipkfd_faultlog_%d.txt", (int)getpid());
  unlink(path);
  snprintf(env, sizeof(env), "AMD_LOG_LEVEL=1 AMD_LOG_LEVEL_FILE=%s", path);
  const char *got = run(env);
  cr_assert_eq(count(got, "GPU fault"), 1, "stderr has the report once:\n%s", got);
  FILE *f = fopen(path, "r");
  cr_assert(f, "no log file");
  static char log[8192];
  size_t n = fread(log, 1, sizeof(log) - 1, f);
  log[n] = 0;
  fclose(f);
  unlink(path);
  cr_assert(strstr(log, "GPU fault") && strstr(log, "bad_store"), "log:\n%s", log);
}
