/* Serialized and blocking launches and copies (AMD_SERIALIZE_KERNEL, AMD_SERIALIZE_COPY,
 * HIP_LAUNCH_BLOCKING, CUDA_LAUNCH_BLOCKING): with "after" set, a launch or copy returns only once
 * its work (and what precedes it on the stream) has finished, and a faulting kernel's launch
 * returns the fault; without, the launch returns while the ~1 s kernel still runs. The program
 * (serialize_prog.hip) runs as a child with the variables set from its start. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

static char out[1024];

static const char *run(const char *env, const char *mode)
{
  char cmd[512];
  snprintf(cmd, sizeof(cmd), "env %s %s %s", env, SERIALIZE_PROG, mode);
  FILE *p = popen(cmd, "r");
  cr_assert(p, "%s", cmd);
  size_t n = fread(out, 1, sizeof(out) - 1, p);
  out[n] = 0;
  cr_assert_eq(pclose(p), 0, "%s:\n%s", cmd, out);
  return out;
}

static void expect(const char *env, const char *mode, const char *want)
{
  const char *got = run(env, mode);
  cr_assert(strstr(got, want), "%s %s: expected \"%s\" in:\n%s", env, mode, want, got);
  if (strcmp(mode, "fault") != 0)
    cr_assert(strstr(got, "sync=0 flag=1"), "%s %s: the kernel did not complete:\n%s", env, mode, got);
}

Test(serialize, launch_returns_at_once_without_variables, .timeout = 120)
{
  expect("AMD_SERIALIZE_KERNEL=0", "kernel", "launch=0 finished_at_return=0");
}

Test(serialize, serialize_kernel_after_waits_for_the_kernel, .timeout = 120)
{
  expect("AMD_SERIALIZE_KERNEL=2", "kernel", "launch=0 finished_at_return=1");
  expect("AMD_SERIALIZE_KERNEL=3", "kernel", "launch=0 finished_at_return=1");
}

Test(serialize, serialize_kernel_before_only_does_not_wait_after, .timeout = 120)
{
  expect("AMD_SERIALIZE_KERNEL=1", "kernel", "launch=0 finished_at_return=0");
}

Test(serialize, launch_blocking_waits_for_the_kernel, .timeout = 120)
{
  expect("HIP_LAUNCH_BLOCKING=1", "kernel", "launch=0 finished_at_return=1");
  expect("CUDA_LAUNCH_BLOCKING=1", "kernel", "launch=0 finished_at_return=1");
}

Test(serialize, serialize_copy_waits_for_the_copy_and_what_precedes_it, .timeout = 120)
{
  expect("AMD_SERIALIZE_COPY=0", "copy", "copy=0 finished_at_return=0");
  expect("AMD_SERIALIZE_COPY=2", "copy", "copy=0 finished_at_return=1");
  expect("HIP_LAUNCH_BLOCKING=1", "copy", "copy=0 finished_at_return=1");
}

Test(serialize, blocking_launch_reports_its_own_fault, .timeout = 120)
{
  const char *got = run("HIP_LAUNCH_BLOCKING=1", "fault");
  cr_assert(strstr(got, "launch=700") || strstr(got, "launch=719"),
            "the faulting launch returned:\n%s", got);
  got = run("HIP_LAUNCH_BLOCKING=0", "fault");
  cr_assert(strstr(got, "launch=0"), "without the variable the launch succeeds:\n%s", got);
}
