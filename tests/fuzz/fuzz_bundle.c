/* libFuzzer harness: clang offload bundles, plain and compressed (CCOB v1..v3), and the extent
 * computation __hipRegisterFatBinary relies on. Whatever the input, the loader returns 0 or an
 * error; an entry it returns lies inside the input or the decompressed buffer (ASan checks the
 * reads below). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "loader.h"

/* The two device ISAs kfdsim emulates, as loader_isa_name() spells them. */
static const char *const devices[] = {"gfx942:sramecc+:xnack-", "gfx90a:sramecc-:xnack-"};

static uint8_t touch(const uint8_t *p, size_t n)
{
  uint8_t x = 0;
  for (size_t i = 0; i < n; i += 64)
    x ^= p[i];
  return n ? x ^ p[n - 1] : x;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  volatile uint8_t sink = 0;
  for (size_t i = 0; i < sizeof(devices) / sizeof(devices[0]); i++) {
    const void *elf;
    size_t elf_size;
    void *dec;
    if (loader_bundle_find(data, size, devices[i], &elf, &elf_size, &dec) == 0)
      sink ^= touch(elf, elf_size);
    free(dec);
  }
  size_t extent;
  if (loader_bundle_size(data, size, &extent) == 0 && (extent == 0 || extent > size))
    __builtin_trap(); /* the extent must be within what it was allowed to read */
  (void)sink;
  return 0;
}
