/*
 * Phase 2: upload a validated code object into one GPU's memory.
 *
 * The image is built and relocated in a host buffer first (loader_image_build), then copied into
 * device memory with a single memcpy: VRAM allocations are CPU-mapped at their GPU VA
 * (src/memory/mem.h), so the copy needs no queue. The image is placed at an address aligned to
 * the largest PT_LOAD alignment, as the ELF program headers require.
 */
#include "loader_internal.h"
#include "../memory/mem.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct loader_image_priv {
  struct loader_image pub;
  void *allocation;            /* what mem_alloc returned (base may be above it for alignment) */
};

int loader_load(struct kfd_gpu *gpu, const struct loader_code_object *co, struct loader_image **out)
{
  struct loader_image_priv *img;
  void *host, *mem;
  int err;

  if (!out)
    return -EINVAL;
  *out = NULL;
  if (!gpu || !co || !co->image_size)
    return -EINVAL;
  size_t align = co->image_align > 4096 ? co->image_align : 4096;
  size_t alloc_size = co->image_size + (align > 4096 ? align : 0);

  img = calloc(1, sizeof(*img));
  host = malloc(co->image_size);
  if (!img || !host) {
    err = -ENOMEM;
    goto fail_host;
  }
  err = mem_alloc(gpu, alloc_size, MEM_DEVICE, MEM_FLAG_EXEC | MEM_FLAG_NO_SUBALLOC, &mem);
  if (err)
    goto fail_host;
  uintptr_t base = ((uintptr_t)mem + align - 1) & ~(uintptr_t)(align - 1);
  err = loader_image_build(co, host, (uint64_t)base);
  if (err)
    goto fail_alloc;
  memcpy((void *)base, host, co->image_size);
  free(host);

  img->allocation = mem;
  img->pub = (struct loader_image){gpu, co, (void *)base, (uint64_t)base, co->image_size};
  *out = &img->pub;
  return 0;

fail_alloc:
  mem_free(mem);
fail_host:
  free(host);
  free(img);
  return err;
}

void loader_unload(struct loader_image *pub)
{
  if (!pub)
    return;
  struct loader_image_priv *img = (struct loader_image_priv *)pub;
  mem_free(img->allocation);
  free(img);
}

uint64_t loader_kernel_object(const struct loader_image *img, const struct loader_kernel *k)
{
  return img->base_va + k->kd_vaddr;
}

void *loader_variable_address(const struct loader_image *img, const struct loader_variable *v)
{
  return (char *)img->base + v->vaddr;
}
