// A "foreign" program: built by Debian's hipcc 5.2.3 (clang-15, AMD's headers, code object v4)
// and run on our libamdhip64 through LD_LIBRARY_PATH. Exits 0 only if every check passes.
#include <hip/hip_runtime.h>
#include <cstdio>
#include <dlfcn.h>
#include <cstring>
#include <unistd.h>

struct Mixed {
  int a;
  double b;
  char c;
};

__device__ int table[4];

__global__ void many_args(Mixed s, int *out, double d, char c, long l)
{
  out[0] = s.a;
  out[1] = (int)(s.b * 10);
  out[2] = s.c;
  out[3] = (int)(d * 10);
  out[4] = c;
  out[5] = (int)(l >> 32);
  out[6] = table[2];
}

__global__ void geometry(unsigned *out)
{
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = blockDim.x * 1000000 + gridDim.x * 1000 + i;
}

__global__ void reverse(int *out)
{
  HIP_DYNAMIC_SHARED(int, sh);
  sh[threadIdx.x] = threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = sh[blockDim.x - 1 - threadIdx.x];
}

__global__ void say(int base)
{
  printf("v4 printf %d %s %.2f\n", base + (int)threadIdx.x, "ok", 0.25);
}

#define CHECK(cond)                                                     \
  do {                                                                  \
    if (!(cond)) {                                                      \
      printf("FAIL line %d: %s\n", __LINE__, #cond);                    \
      return 1;                                                         \
    }                                                                   \
  } while (0)

int main()
{
  // Which libamdhip64 this process runs on: the test fails if it is AMD's.
  Dl_info info;
  if (dladdr((void *)&hipDeviceSynchronize, &info) && info.dli_fname)
    printf("runtime: %s\n", info.dli_fname);
  int *out;
  unsigned *geo;
  CHECK(hipMalloc(&out, 256 * sizeof(int)) == hipSuccess);
  CHECK(hipMalloc(&geo, 256 * sizeof(unsigned)) == hipSuccess);
  int t[4] = {0, 0, 99, 0};
  CHECK(hipMemcpyToSymbol(HIP_SYMBOL(table), t, sizeof(t)) == hipSuccess);

  Mixed s = {-5, 1.5, 'x'};
  hipLaunchKernelGGL(many_args, dim3(1), dim3(1), 0, 0, s, out, 2.5, 'y', 0x700000000L);
  CHECK(hipDeviceSynchronize() == hipSuccess);
  int r[8];
  CHECK(hipMemcpy(r, out, sizeof(r), hipMemcpyDeviceToHost) == hipSuccess);
  CHECK(r[0] == -5 && r[1] == 15 && r[2] == 'x' && r[3] == 25 && r[4] == 'y' && r[5] == 7);
  CHECK(r[6] == 99);

  hipLaunchKernelGGL(geometry, dim3(4), dim3(64), 0, 0, geo);
  CHECK(hipDeviceSynchronize() == hipSuccess);
  unsigned g[256];
  CHECK(hipMemcpy(g, geo, sizeof(g), hipMemcpyDeviceToHost) == hipSuccess);
  for (unsigned i = 0; i < 256; i++)
    CHECK(g[i] == 64 * 1000000 + 4 * 1000 + i);

  hipLaunchKernelGGL(reverse, dim3(1), dim3(128), 128 * sizeof(int), 0, out);
  CHECK(hipDeviceSynchronize() == hipSuccess);
  int rv[128];
  CHECK(hipMemcpy(rv, out, sizeof(rv), hipMemcpyDeviceToHost) == hipSuccess);
  for (int i = 0; i < 128; i++)
    CHECK(rv[i] == 127 - i);

  // Device printf (hostcall, code object v4): capture fd 1 and compare.
  fflush(stdout);
  char path[] = "/tmp/hipkfd_v4_printf_XXXXXX";
  int fd = mkstemp(path), saved = dup(1);
  CHECK(fd >= 0 && saved >= 0);
  dup2(fd, 1);
  hipLaunchKernelGGL(say, dim3(1), dim3(2), 0, 0, 40);
  hipError_t pe = hipDeviceSynchronize();
  fflush(stdout);
  dup2(saved, 1);
  close(saved);
  char text[256] = {0};
  ssize_t n = pread(fd, text, sizeof(text) - 1, 0);
  close(fd);
  unlink(path);
  CHECK(pe == hipSuccess);
  CHECK(n > 0 && strcmp(text, "v4 printf 40 ok 0.25\nv4 printf 41 ok 0.25\n") == 0);

  int blocks = 0;
  CHECK(hipOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, geometry, 1024, 0) == hipSuccess);
  CHECK(blocks == 2);
  printf("PASS\n");
  return 0;
}
