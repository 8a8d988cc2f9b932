// hipMemset2D on a pitched allocation leaves the padding alone; hipMemset2DAsync follows it.
#include <string.h>

#include "check.h"

int main()
{
  const size_t W = 100, H = 20;
  void *d;
  size_t pitch;
  CHECK_HIP(hipMallocPitch(&d, &pitch, W, H));
  CHECK_HIP(hipMemset(d, 0x11, pitch * H));
  CHECK_HIP(hipMemset2D(d, pitch, 0x22, W, H));
  hipStream_t s;
  CHECK_HIP(hipStreamCreate(&s));
  CHECK_HIP(hipMemset2DAsync(d, pitch, 0x33, W / 2, H / 2, s));
  CHECK_HIP(hipStreamSynchronize(s));
  unsigned char *h = (unsigned char *)malloc(pitch * H);
  CHECK_HIP(hipMemcpy(h, d, pitch * H, hipMemcpyDeviceToHost));
  for (size_t y = 0; y < H; y++)
    for (size_t x = 0; x < pitch; x++) {
      unsigned char want = x >= W ? 0x11 : (x < W / 2 && y < H / 2) ? 0x33 : 0x22;
      if (h[y * pitch + x] != want) {
        fprintf(stderr, "(%zu,%zu) = %#x, want %#x\n", x, y, h[y * pitch + x], want);
        return 1;
      }
    }
  CHECK_HIP(hipStreamDestroy(s));
  CHECK_HIP(hipFree(d));
  free(h);
  printf("PASSED\n");
  return 0;
}
