/* libFuzzer harness: the AMDGPU metadata note's msgpack reader (loader_metadata_parse), fed the
 * note's payload directly so that every byte the fuzzer changes reaches msgpack. */
#include <stdint.h>
#include <string.h>

#include "loader_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  struct loader_code_object co;
  memset(&co, 0, sizeof(co));
  if (loader_metadata_parse(data, size, &co) == 0) {
    for (uint32_t i = 0; i < co.nkernels; i++)
      if (!co.kernels[i].name || !co.kernels[i].symbol || co.kernels[i].nexplicit > co.kernels[i].nargs)
        __builtin_trap();
    if (memchr(co.target, '\0', sizeof(co.target)) == NULL)
      __builtin_trap();
  }
  loader_metadata_free(&co);
  return 0;
}
