// Device printf through the hostcall service, and assert.
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <hip/hip_runtime.h>

#include <cassert>
#include <cstdio>
#include <unistd.h>

#define HIP_OK(expr) cr_assert_eq((expr), hipSuccess, "%s", #expr)

__global__ void say_hello(int base, const char *unused)
{
  (void)unused;
  printf("hello from %d: %s %5.2f %x %c %lld%%\n", base + (int)threadIdx.x, "gpu", 1.5,
         255u, 'k', -1234567890123ll);
}

__global__ void long_format(void)
{
  printf("%s|%-6s|%*d|%.3e|%p\n",
         "a string longer than the fifty-six bytes one hostcall packet can carry at once",
         "ab", 4, 7, 12345.678, (void *)0x1000);
}

__global__ void checks(int v)
{
  assert(v == 42);
}

static void redirect(void) { cr_redirect_stdout(); }

Test(printf, lines_in_lane_order, .init = redirect)
{
  say_hello<<<1, 3>>>(10, nullptr);
  HIP_OK(hipGetLastError());
  HIP_OK(hipDeviceSynchronize());
  fflush(stdout);
  cr_assert_stdout_eq_str(
    "hello from 10: gpu  1.50 ff k -1234567890123%\n"
    "hello from 11: gpu  1.50 ff k -1234567890123%\n"
    "hello from 12: gpu  1.50 ff k -1234567890123%\n");
}

Test(printf, long_strings_and_stars, .init = redirect)
{
  long_format<<<1, 1>>>();
  HIP_OK(hipDeviceSynchronize());
  fflush(stdout);
  cr_assert_stdout_eq_str(
    "a string longer than the fifty-six bytes one hostcall packet can carry at once"
    "|ab    |   7|1.235e+04|0x1000\n");
}

Test(printf, many_waves)
{
  // 4 waves x 64 lanes print concurrently: every line must arrive whole.
  fflush(stdout);
  int saved = dup(1);
  char path[] = "/tmp/hipkfd_printf_XXXXXX";
  int fd = mkstemp(path);
  cr_assert(fd >= 0);
  dup2(fd, 1);
  say_hello<<<2, 128>>>(0, nullptr);
  HIP_OK(hipDeviceSynchronize());
  fflush(stdout);
  dup2(saved, 1);
  close(saved);
  close(fd);
  FILE *f = fopen(path, "r");
  char line[256];
  int seen[128] = {0}, lines = 0;
  while (fgets(line, sizeof(line), f)) {
    int id;
    cr_assert_eq(sscanf(line, "hello from %d: gpu", &id), 1, "torn line: %s", line);
    cr_assert(id >= 0 && id < 128);
    seen[id]++;
    lines++;
  }
  fclose(f);
  unlink(path);
  cr_assert_eq(lines, 256);
  for (int i = 0; i < 128; i++)
    cr_assert_eq(seen[i], 2, "id %d seen %d times", i, seen[i]);
}

Test(assert, passing_assert_is_silent)
{
  checks<<<1, 64>>>(42);
  HIP_OK(hipDeviceSynchronize());
}

// The trap stops the queue; the wait must report it rather than hang (the time limit turns a
// hang into a failure instead of stalling the suite).
Test(assert, failing_assert_reports_an_error, .timeout = 120)
{
  checks<<<1, 64>>>(7);
  hipError_t e = hipDeviceSynchronize();
  cr_assert_neq(e, hipSuccess, "a failed device assert must not look like success");
}
