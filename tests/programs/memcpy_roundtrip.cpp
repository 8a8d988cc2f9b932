// Host -> device -> device -> host for sizes from 1 byte to 9 MiB, pageable and pinned, with
// explicit kinds and with hipMemcpyDefault.
#include <string.h>

#include "check.h"

static void fill(unsigned char *p, size_t n, unsigned seed)
{
  for (size_t i = 0; i < n; i++)
    p[i] = (unsigned char)((i * 2654435761u + seed) >> 11);
}

static void trip(size_t n, bool pinned, bool by_default)
{
  unsigned char *a, *b;
  if (pinned) {
    CHECK_HIP(hipHostMalloc((void **)&a, n, 0));
    CHECK_HIP(hipHostMalloc((void **)&b, n, 0));
  } else {
    a = (unsigned char *)malloc(n);
    b = (unsigned char *)malloc(n);
  }
  fill(a, n, (unsigned)n);
  memset(b, 0, n);
  void *d1, *d2;
  CHECK_HIP(hipMalloc(&d1, n));
  CHECK_HIP(hipMalloc(&d2, n));
  CHECK_HIP(hipMemcpy(d1, a, n, by_default ? hipMemcpyDefault : hipMemcpyHostToDevice));
  CHECK_HIP(hipMemcpy(d2, d1, n, by_default ? hipMemcpyDefault : hipMemcpyDeviceToDevice));
  CHECK_HIP(hipMemcpy(b, d2, n, by_default ? hipMemcpyDefault : hipMemcpyDeviceToHost));
  if (memcmp(a, b, n) != 0) {
    fprintf(stderr, "mismatch at size %zu pinned %d default %d\n", n, pinned, by_default);
    exit(1);
  }
  CHECK_HIP(hipFree(d1));
  CHECK_HIP(hipFree(d2));
  if (pinned) {
    CHECK_HIP(hipHostFree(a));
    CHECK_HIP(hipHostFree(b));
  } else {
    free(a);
    free(b);
  }
}

int main()
{
  const size_t sizes[] = {1, 7, 4096, 65537, 1 << 20, (9 << 20) + 5};
  for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
    for (int mode = 0; mode < 4; mode++)
      trip(sizes[i], mode & 1, mode & 2);
  printf("PASSED\n");
  return 0;
}
