// HIP_VISIBLE_DEVICES: with two GPUs (KFDSIM_GPUS=2), the program re-runs itself with the
// variable set to "1", "0", "1,0" and "" and checks the device count, that kernels run on each
// visible device, and (for "1,0") that the order is renumbered.
#include <hip/hip_runtime.h>
#include <string.h>
#include <unistd.h>
#include "../check.h"

__global__ void mark(int *p, int v)
{
  p[threadIdx.x] = v + threadIdx.x;
}

static int run_on_each(int count)
{
  for (int dev = 0; dev < count; dev++) {
    CHECK_HIP(hipSetDevice(dev));
    int *d;
    CHECK_HIP(hipMalloc(&d, 64 * sizeof(int)));
    hipLaunchKernelGGL(mark, dim3(1), dim3(64), 0, 0, d, dev * 1000);
    CHECK_HIP(hipGetLastError());
    int h[64];
    CHECK_HIP(hipMemcpy(h, d, sizeof(h), hipMemcpyDeviceToHost));
    for (int i = 0; i < 64; i++)
      CHECK(h[i] == dev * 1000 + i);
    hipPointerAttribute_t a;
    CHECK_HIP(hipPointerGetAttributes(&a, d));
    CHECK(a.device == dev);
    CHECK_HIP(hipFree(d));
  }
  return 0;
}

static int child(void)
{
  int count = -1;
  hipError_t e = hipGetDeviceCount(&count);
  if (e != hipSuccess)
    count = 0;
  printf("count %d\n", count);
  for (int i = 0; i < count; i++) {
    char bus[64] = "";
    CHECK_HIP(hipDeviceGetPCIBusId(bus, sizeof(bus), i));
    printf("bus %d %s\n", i, bus);
  }
  if (run_on_each(count))
    return 1;
  printf("child ok\n");
  return 0;
}

struct child_out {
  int count;
  char bus[4][64];
  int ok;
};

static void run_child(const char *self, const char *visible, struct child_out *out)
{
  char cmd[4400];
  snprintf(cmd, sizeof(cmd), "HIP_VISIBLE_DEVICES='%s' '%s' --child", visible, self);
  FILE *p = popen(cmd, "r");
  CHECK(p != nullptr);
  memset(out, 0, sizeof(*out));
  out->count = -1;
  char line[256];
  while (fgets(line, sizeof(line), p)) {
    printf("[%s] %s", visible, line);
    int i;
    char b[64];
    if (sscanf(line, "count %d", &out->count) == 1)
      continue;
    if (sscanf(line, "bus %d %63s", &i, b) == 2 && i >= 0 && i < 4)
      strcpy(out->bus[i], b);
    if (strcmp(line, "child ok\n") == 0)
      out->ok = 1;
  }
  CHECK(pclose(p) == 0);
}

int main(int argc, char **argv)
{
  if (argc > 1 && strcmp(argv[1], "--child") == 0)
    return child();
  if (getenv("HIP_VISIBLE_DEVICES")) {
    fprintf(stderr, "run without HIP_VISIBLE_DEVICES\n");
    return 1;
  }
  int count = 0;
  CHECK_HIP(hipGetDeviceCount(&count));
  CHECK(count == 2);
  char bus[2][64];
  for (int i = 0; i < 2; i++)
    CHECK_HIP(hipDeviceGetPCIBusId(bus[i], sizeof(bus[i]), i));
  CHECK(strcmp(bus[0], bus[1]) != 0);
  if (run_on_each(count))
    return 1;

  char self[4096];
  ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
  CHECK(len > 0);
  self[len] = '\0';
  struct child_out o;
  run_child(self, "1", &o);
  CHECK(o.ok && o.count == 1 && strcmp(o.bus[0], bus[1]) == 0);
  run_child(self, "0", &o);
  CHECK(o.ok && o.count == 1 && strcmp(o.bus[0], bus[0]) == 0);
  run_child(self, "1,0", &o);
  CHECK(o.ok && o.count == 2 && strcmp(o.bus[0], bus[1]) == 0 && strcmp(o.bus[1], bus[0]) == 0);
  // An index past the end ends the list: only device 0 stays.
  run_child(self, "0,7,1", &o);
  CHECK(o.ok && o.count == 1 && strcmp(o.bus[0], bus[0]) == 0);
  printf("PASSED\n");
  return 0;
}
