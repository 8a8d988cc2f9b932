/* libFuzzer harness: the ELF code-object loader's GPU-free part. Opens the input (ELF header,
 * segments, metadata note, symbols, kernel descriptors, relocations), looks up what it found, and
 * builds and relocates the image in host memory as loader_load() does before its upload. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "loader.h"

/* A .bss may legitimately make an image far larger than its file (up to the loader's 1 GiB);
 * zero-filling such an image on every run would only slow the fuzzer down. */
#define FUZZ_IMAGE_MAX (16u << 20)
/* A load address with the high bits set, as device memory has, so relocations see real values. */
#define FUZZ_BASE_VA 0x7f1200000000ull

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  struct loader_code_object *co;
  if (loader_code_object_open(data, size, &co))
    return 0;
  for (uint32_t i = 0; i < co->nkernels; i++) {
    const struct loader_kernel *k = &co->kernels[i];
    if (loader_find_kernel(co, k->name) == NULL || loader_find_kernel(co, k->symbol) == NULL)
      __builtin_trap();
    if (k->kd_vaddr + 64 > co->image_size || k->nexplicit > k->nargs)
      __builtin_trap();
  }
  for (uint32_t i = 0; i < co->nvariables; i++)
    if (loader_find_variable(co, co->variables[i].name) == NULL)
      __builtin_trap();
  if (co->image_size <= FUZZ_IMAGE_MAX) {
    /* Exactly image_size bytes: a write past the end is an ASan report. Relocations were all
     * checked by the open, so building cannot fail. */
    void *image = malloc(co->image_size);
    if (image && loader_image_build(co, image, FUZZ_BASE_VA) != 0)
      __builtin_trap();
    free(image);
  }
  loader_code_object_close(co);
  return 0;
}
