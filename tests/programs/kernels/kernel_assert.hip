// Device assert: a failing assert in a kernel makes the synchronising call return an error, and
// the error is sticky (later calls that touch the device keep failing). Run in a child process
// (the device context is unusable afterwards); the parent checks the child's report and that the
// assert message names the failed condition.
#include <hip/hip_runtime.h>
#include <assert.h>
#include <string.h>
#include <unistd.h>
#include "../check.h"

__global__ void check_positive(const int *v)
{
  int x = v[threadIdx.x];
  assert(x >= 0);
}

static int child(void)
{
  int h[64];
  for (int i = 0; i < 64; i++)
    h[i] = i;
  int *d;
  CHECK_HIP(hipMalloc(&d, sizeof(h)));
  CHECK_HIP(hipMemcpy(d, h, sizeof(h), hipMemcpyHostToDevice));
  // All values valid: no assert fires.
  hipLaunchKernelGGL(check_positive, dim3(1), dim3(64), 0, 0, (const int *)d);
  CHECK_HIP(hipDeviceSynchronize());
  printf("child: clean kernel ok\n");
  fflush(stdout);

  h[5] = -1;
  CHECK_HIP(hipMemcpy(d, h, sizeof(h), hipMemcpyHostToDevice));
  hipLaunchKernelGGL(check_positive, dim3(1), dim3(64), 0, 0, (const int *)d);
  hipError_t e1 = hipDeviceSynchronize();
  hipError_t e2 = hipDeviceSynchronize();
  hipError_t e3 = hipMemcpy(h, d, sizeof(h), hipMemcpyDeviceToHost);
  printf("child: errors %d %d %d\n", (int)e1, (int)e2, (int)e3);
  fflush(stdout);
  if (e1 != hipSuccess && e2 == e1 && e3 == e1)
    printf("child: sticky ok (%s)\n", hipGetErrorName(e1));
  fflush(stdout);
  return 0;
}

int main(int argc, char **argv)
{
  if (argc > 1 && strcmp(argv[1], "--child") == 0)
    return child();
  char self[4096];
  ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
  CHECK(len > 0);
  self[len] = '\0';
  char cmd[4200];
  snprintf(cmd, sizeof(cmd), "'%s' --child 2>&1", self);
  FILE *p = popen(cmd, "r");
  CHECK(p != nullptr);
  int clean = 0, sticky = 0, message = 0;
  char line[1024];
  while (fgets(line, sizeof(line), p)) {
    fputs(line, stdout);
    if (strstr(line, "child: clean kernel ok"))
      clean = 1;
    if (strstr(line, "child: sticky ok"))
      sticky = 1;
    if (strstr(line, "x >= 0"))
      message = 1;
  }
  int status = pclose(p);
  CHECK(clean);
  CHECK(message);   // the device printed the failed condition
  CHECK(sticky);
  CHECK(status == 0);
  printf("PASSED\n");
  return 0;
}
