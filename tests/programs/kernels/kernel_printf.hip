// Device printf: the program re-runs itself as a child with stdout on a pipe and checks every
// line the kernel printed (integers, a string, a float, a pointer-sized value, per-thread lines).
#include <hip/hip_runtime.h>
#include <string.h>
#include <unistd.h>
#include "../check.h"

__global__ void say(int base)
{
  int t = threadIdx.x;
  if (t == 0)
    printf("hello from the device: %d %s %.2f\n", base, "str", 1.5);
  if (t < 4)
    printf("thread %d value %d\n", t, base * 10 + t);
  if (t == 1)
    printf("hex %x long %ld\n", 0xbeef, (long)1234567890123);
}

static int child(void)
{
  hipLaunchKernelGGL(say, dim3(1), dim3(64), 0, 0, 7);
  CHECK_HIP(hipGetLastError());
  CHECK_HIP(hipDeviceSynchronize());
  printf("child done\n");
  fflush(stdout);
  return 0;
}

int main(int argc, char **argv)
{
  if (argc > 1 && strcmp(argv[1], "--child") == 0)
    return child();

  // Under popen, /proc/self/exe would name the shell: resolve our own path first.
  char cmd[4200];
  char self[4096];
  ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
  CHECK(len > 0);
  self[len] = '\0';
  snprintf(cmd, sizeof(cmd), "'%s' --child", self);
  FILE *p = popen(cmd, "r");
  CHECK(p != nullptr);
  const char *want[] = {"hello from the device: 7 str 1.50", "thread 0 value 70",
                        "thread 1 value 71", "thread 2 value 72", "thread 3 value 73",
                        "hex beef long 1234567890123", "child done"};
  const int n_want = sizeof(want) / sizeof(want[0]);
  int seen[16] = {0};
  int lines = 0;
  char line[512];
  while (fgets(line, sizeof(line), p)) {
    line[strcspn(line, "\n")] = '\0';
    printf("child: %s\n", line);
    lines++;
    for (int i = 0; i < n_want; i++)
      if (strcmp(line, want[i]) == 0)
        seen[i]++;
  }
  int status = pclose(p);
  CHECK(status == 0);
  CHECK(lines == n_want);
  for (int i = 0; i < n_want; i++)
    if (seen[i] != 1) {
      fprintf(stderr, "line \"%s\" seen %d times\n", want[i], seen[i]);
      return 1;
    }
  printf("PASSED\n");
  return 0;
}
