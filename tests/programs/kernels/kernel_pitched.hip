// Pitched allocations: hipMallocPitch + hipMemset2D + hipMemcpy2D and hipMalloc3D + hipMemset3D +
// hipMemcpy3D, with kernels that index through the pitch and check/write the layout.
#include <hip/hip_runtime.h>
#include "../check.h"

__global__ void fill_2d(char *base, size_t pitch, int w, int h)
{
  int x = threadIdx.x, y = blockIdx.x;
  if (x < w && y < h) {
    int *row = (int *)(base + y * pitch);
    row[x] += y * 1000 + x;
  }
}

__global__ void fill_3d(hipPitchedPtr p, int w, int h, int d)
{
  int x = threadIdx.x, y = blockIdx.x, z = blockIdx.y;
  if (x < w && y < h && z < d) {
    char *slice = (char *)p.ptr + (size_t)z * p.pitch * h;
    float *row = (float *)(slice + y * p.pitch);
    row[x] = row[x] + (float)(z * 10000 + y * 100 + x);
  }
}

static int check_2d(void)
{
  const int w = 37, h = 9;
  char *d;
  size_t pitch = 0;
  CHECK_HIP(hipMallocPitch((void **)&d, &pitch, w * sizeof(int), h));
  CHECK(pitch >= w * sizeof(int));
  // 0x01 in every byte: each int starts as 0x01010101.
  CHECK_HIP(hipMemset2D(d, pitch, 0x01, w * sizeof(int), h));
  hipLaunchKernelGGL(fill_2d, dim3(h), dim3(64), 0, 0, d, pitch, w, h);
  CHECK_HIP(hipGetLastError());
  int host[h][w];
  CHECK_HIP(hipMemcpy2D(host, w * sizeof(int), d, pitch, w * sizeof(int), h,
                        hipMemcpyDeviceToHost));
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      if (host[y][x] != 0x01010101 + y * 1000 + x) {
        fprintf(stderr, "2d [%d][%d] = %d\n", y, x, host[y][x]);
        return 1;
      }
  CHECK_HIP(hipFree(d));
  return 0;
}

static int check_3d(void)
{
  const int w = 20, h = 6, dep = 4;
  hipExtent ext = make_hipExtent(w * sizeof(float), h, dep);
  hipPitchedPtr p;
  CHECK_HIP(hipMalloc3D(&p, ext));
  CHECK(p.ptr != nullptr);
  CHECK(p.pitch >= w * sizeof(float));
  CHECK(p.xsize == w * sizeof(float) && p.ysize == (size_t)h);
  CHECK_HIP(hipMemset3D(p, 0, ext));

  // Upload a host volume into the pitched one.
  static float src[dep][h][w], back[dep][h][w];
  for (int z = 0; z < dep; z++)
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++)
        src[z][y][x] = 0.5f * (x + y + z);
  hipMemcpy3DParms up = {};
  up.srcPtr = make_hipPitchedPtr(src, w * sizeof(float), w, h);
  up.dstPtr = p;
  up.extent = ext;
  up.kind = hipMemcpyHostToDevice;
  CHECK_HIP(hipMemcpy3D(&up));

  hipLaunchKernelGGL(fill_3d, dim3(h, dep), dim3(32), 0, 0, p, w, h, dep);
  CHECK_HIP(hipGetLastError());

  hipMemcpy3DParms down = {};
  down.srcPtr = p;
  down.dstPtr = make_hipPitchedPtr(back, w * sizeof(float), w, h);
  down.extent = ext;
  down.kind = hipMemcpyDeviceToHost;
  CHECK_HIP(hipMemcpy3D(&down));
  for (int z = 0; z < dep; z++)
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++) {
        float want = src[z][y][x] + (float)(z * 10000 + y * 100 + x);
        if (back[z][y][x] != want) {
          fprintf(stderr, "3d [%d][%d][%d] = %f, want %f\n", z, y, x, back[z][y][x], want);
          return 1;
        }
      }

  // hipMemset3D of a sub-box: only that box changes.
  hipExtent sub = make_hipExtent(4 * sizeof(float), 2, 2);
  CHECK_HIP(hipMemset3D(p, 0, sub));
  CHECK_HIP(hipMemcpy3D(&down));
  for (int z = 0; z < dep; z++)
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++) {
        bool in = x < 4 && y < 2 && z < 2;
        float want = in ? 0.0f : src[z][y][x] + (float)(z * 10000 + y * 100 + x);
        if (back[z][y][x] != want) {
          fprintf(stderr, "memset3d sub-box [%d][%d][%d] = %f, want %f\n", z, y, x,
                  back[z][y][x], want);
          return 1;
        }
      }
  CHECK_HIP(hipFree(p.ptr));
  return 0;
}

int main()
{
  if (check_2d() || check_3d())
    return 1;
  printf("PASSED\n");
  return 0;
}
