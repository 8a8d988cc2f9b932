/*
 * Laying out an image and applying its dynamic relocations (pure: works on a host buffer).
 * Relocation arithmetic from LLVM AMDGPUUsage "Relocation Records": S is the symbol's loaded
 * address, A the addend, P the patched place's loaded address, B the image's load base.
 */
#include "loader_internal.h"

#include <errno.h>
#include <string.h>

static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static void put64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

int loader_relocate(const struct loader_code_object *co, void *image, uint64_t base_va)
{
  if (!co || !image)
    return -EINVAL;
  for (uint32_t i = 0; i < co->nrelocs; i++) {
    const struct loader_reloc *r = &co->relocs[i];
    uint8_t *place = (uint8_t *)image + r->offset; /* bounds-checked when the object was opened */
    uint64_t S = r->symbol_defined ? base_va + r->symbol_vaddr : 0;
    uint64_t A = (uint64_t)r->addend, P = base_va + r->offset;
    switch (r->type) {
    case 1: put32(place, (uint32_t)(S + A)); break;          /* R_AMDGPU_ABS32_LO */
    case 2: put32(place, (uint32_t)((S + A) >> 32)); break;  /* R_AMDGPU_ABS32_HI */
    case 3: put64(place, S + A); break;                      /* R_AMDGPU_ABS64 */
    case 4: put32(place, (uint32_t)(S + A - P)); break;      /* R_AMDGPU_REL32 */
    case 5: put64(place, S + A - P); break;                  /* R_AMDGPU_REL64 */
    case 6: put32(place, (uint32_t)(S + A)); break;          /* R_AMDGPU_ABS32 */
    case 13: put64(place, base_va + A); break;               /* R_AMDGPU_RELATIVE64 */
    default: return -ENOEXEC;
    }
  }
  return 0;
}

int loader_image_build(const struct loader_code_object *co, void *image, uint64_t base_va)
{
  if (!co || !image)
    return -EINVAL;
  memset(image, 0, co->image_size); /* .bss and the gaps between segments */
  for (uint32_t i = 0; i < co->nsegments; i++) {
    const struct loader_segment *s = &co->segments[i];
    memcpy((uint8_t *)image + s->vaddr, (const uint8_t *)co->elf + s->file_offset, s->filesz);
  }
  return loader_relocate(co, image, base_va);
}
