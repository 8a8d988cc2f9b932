// A sub-rectangle of a host image goes through pitched device memory and back (2D), then a
// small volume does the same (3D).
#include <string.h>

#include "check.h"

int main()
{
  const size_t W = 37, H = 11, SP = 64;
  unsigned char img[SP * H], back[W * H];
  for (size_t i = 0; i < sizeof(img); i++)
    img[i] = (unsigned char)(i * 5 + 1);
  void *d;
  size_t pitch;
  CHECK_HIP(hipMallocPitch(&d, &pitch, W, H));
  CHECK(pitch >= W);
  CHECK_HIP(hipMemcpy2D(d, pitch, img, SP, W, H, hipMemcpyHostToDevice));
  CHECK_HIP(hipMemcpy2D(back, W, d, pitch, W, H, hipMemcpyDeviceToHost));
  for (size_t y = 0; y < H; y++)
    CHECK(memcmp(back + y * W, img + y * SP, W) == 0);
  EXPECT_HIP(hipMemcpy2D(back, 3, d, pitch, W, H, hipMemcpyDeviceToHost),
             hipErrorInvalidPitchValue);
  CHECK_HIP(hipFree(d));

  hipExtent ext = make_hipExtent(9, 5, 4);
  hipPitchedPtr dp;
  CHECK_HIP(hipMalloc3D(&dp, ext));
  unsigned char vol[9 * 5 * 4], vback[9 * 5 * 4];
  for (size_t i = 0; i < sizeof(vol); i++)
    vol[i] = (unsigned char)(255 - i);
  memset(vback, 0, sizeof(vback));
  hipMemcpy3DParms p;
  memset(&p, 0, sizeof(p));
  p.srcPtr = make_hipPitchedPtr(vol, 9, 9, 5);
  p.dstPtr = dp;
  p.extent = ext;
  p.kind = hipMemcpyHostToDevice;
  CHECK_HIP(hipMemcpy3D(&p));
  memset(&p, 0, sizeof(p));
  p.srcPtr = dp;
  p.dstPtr = make_hipPitchedPtr(vback, 9, 9, 5);
  p.extent = ext;
  p.kind = hipMemcpyDeviceToHost;
  CHECK_HIP(hipMemcpy3D(&p));
  CHECK(memcmp(vol, vback, sizeof(vol)) == 0);
  CHECK_HIP(hipFree(dp.ptr));
  printf("PASSED\n");
  return 0;
}
