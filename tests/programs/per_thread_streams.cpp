// Eight threads each use hipStreamPerThread and their own device buffer concurrently.
#include <pthread.h>
#include <string.h>

#include "check.h"

static void *worker(void *arg)
{
  long id = (long)arg;
  const size_t n = 256 * 1024;
  unsigned char *h = (unsigned char *)malloc(n), *back = (unsigned char *)malloc(n);
  memset(h, (int)id + 1, n);
  void *d;
  CHECK_HIP(hipMalloc(&d, n));
  for (int r = 0; r < 10; r++) {
    CHECK_HIP(hipMemcpyAsync(d, h, n, hipMemcpyHostToDevice, hipStreamPerThread));
    CHECK_HIP(hipMemcpyAsync(back, d, n, hipMemcpyDeviceToHost, hipStreamPerThread));
    CHECK_HIP(hipStreamSynchronize(hipStreamPerThread));
    CHECK(memcmp(h, back, n) == 0);
  }
  CHECK_HIP(hipFree(d));
  free(h);
  free(back);
  return NULL;
}

int main()
{
  pthread_t t[8];
  for (long i = 0; i < 8; i++)
    pthread_create(&t[i], NULL, worker, (void *)i);
  for (int i = 0; i < 8; i++)
    pthread_join(t[i], NULL);
  CHECK_HIP(hipDeviceSynchronize());
  printf("PASSED\n");
  return 0;
}
