/* A small program for the API-call log tests: a fixed sequence of calls, one of them failing, and
 * a module load that finds no code object for the device. Run by test_logging_api_calls with
 * the log variables in its environment from the start (read when the library loads). */
#include <hip/hip_runtime_api.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* An offload bundle with one entry, for gfx90a only: the device (gfx942 here) finds no code
 * object in it. The entry is an empty-but-named ELF header (never parsed: the target is wrong). */
static size_t gfx90a_only_bundle(unsigned char *b, size_t cap)
{
  static const char triple[] = "hipv4-amdgcn-amd-amdhsa--gfx90a";
  const size_t tlen = sizeof(triple) - 1, hdr = 24 + 8 + 24 + tlen;
  unsigned char elf[64] = {0x7f, 'E', 'L', 'F', 2, 1, 1, 64};
  uint64_t count = 1, off = hdr, size = sizeof(elf);
  if (cap < hdr + sizeof(elf))
    return 0;
  memcpy(b, "__CLANG_OFFLOAD_BUNDLE__", 24);
  memcpy(b + 24, &count, 8);
  memcpy(b + 32, &off, 8);
  memcpy(b + 40, &size, 8);
  uint64_t t = tlen;
  memcpy(b + 48, &t, 8);
  memcpy(b + 56, triple, tlen);
  memcpy(b + hdr, elf, sizeof(elf));
  return hdr + sizeof(elf);
}

int main(void)
{
  int n = 0;
  void *p = NULL;
  char host[256];
  hipModule_t mod;
  unsigned char image[256];

  hipGetDeviceCount(&n);
  hipMalloc(&p, 4096);
  hipMemset(p, 7, sizeof(host));
  hipMemcpy(host, p, sizeof(host), hipMemcpyDeviceToHost);
  hipMalloc(NULL, 16); /* fails: hipErrorInvalidValue */
  hipFree(p);
  if (gfx90a_only_bundle(image, sizeof(image)))
    hipModuleLoadData(&mod, image); /* fails: no code object for the device */
  printf("done %d %d\n", n, host[0]);
  return 0;
}
