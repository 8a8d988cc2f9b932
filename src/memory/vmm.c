/* src/memory/vmm.c: the virtual-memory API over KFD. A physical allocation is a VRAM BO at a
 * private address plus its dma-buf; mapping it elsewhere imports that dma-buf at the target VA
 * (AMDKFD_IOC_IMPORT_DMABUF takes the VA), maps it to the GPU and mmaps the dma-buf for the CPU.
 * Mappings are registered in the address table's range list like registered host memory. */
#define _GNU_SOURCE
#include "mem_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

struct mem_phys {
  struct kfd_gpu *gpu;
  void *home;                 /* the BO's own address (mem_alloc, not sub-allocated) */
  size_t size;                /* page multiple */
  int dmabuf_fd;
};

int mem_vmm_reserve(struct kfd_gpu *gpu, size_t size, size_t align, void **out)
{
  if (!out || !size || (align & (align - 1)))
    return -EINVAL;
  *out = NULL;
  size = (size + MEM_PAGE - 1) & ~(size_t)(MEM_PAGE - 1);
  return mem_va_reserve(gpu, size, align > MEM_GRANULE ? align : MEM_GRANULE, out);
}

int mem_vmm_release(void *va, size_t size)
{
  bool inside;

  if (!va || !size || ((uintptr_t)va & (MEM_PAGE - 1)))
    return -EINVAL;
  mem_ranges_find(va, size, &inside);
  if (inside)
    return -EBUSY;
  mem_va_release(va, (size + MEM_PAGE - 1) & ~(size_t)(MEM_PAGE - 1));
  return 0;
}

int mem_vmm_create(struct kfd_gpu *gpu, size_t size, struct mem_phys **out)
{
  struct mem_phys *ph;
  uint64_t offset;
  size_t exported;
  int err;

  if (!gpu || !size || !out)
    return -EINVAL;
  *out = NULL;
  ph = calloc(1, sizeof(*ph));
  if (!ph)
    return -ENOMEM;
  ph->gpu = gpu;
  ph->size = (size + MEM_PAGE - 1) & ~(size_t)(MEM_PAGE - 1);
  err = mem_alloc(gpu, ph->size, MEM_DEVICE, MEM_FLAG_NO_SUBALLOC, &ph->home);
  if (err)
    goto fail;
  err = mem_ipc_export(ph->home, &ph->dmabuf_fd, &offset, &exported);
  if (err)
    goto fail_free;
  *out = ph;
  return 0;
fail_free:
  mem_free(ph->home);
fail:
  free(ph);
  return err;
}

int mem_vmm_destroy(struct mem_phys *ph)
{
  int err;

  if (!ph)
    return -EINVAL;
  err = mem_free(ph->home);
  close(ph->dmabuf_fd);
  free(ph);
  return err;
}

int mem_vmm_map(void *va, size_t size, struct mem_phys *ph, size_t offset)
{
  struct mem_block *b;
  bool taken;
  int err;

  if (!va || !ph || ((uintptr_t)va & (MEM_PAGE - 1)))
    return -EINVAL;
  if (offset || (size + MEM_PAGE - 1) / MEM_PAGE != ph->size / MEM_PAGE)
    return -ENOTSUP;
  mem_ranges_find(va, ph->size, &taken);
  if (taken || mem_table_find_block(va))
    return -EEXIST;
  b = mem_block_new();
  if (!b)
    return -ENOMEM;
  err = kfd_import_dmabuf(ph->gpu, ph->dmabuf_fd, (uint64_t)(uintptr_t)va, &b->handle);
  if (err)
    goto fail_block;
  b->base = va;
  b->gpu_va = (uint64_t)(uintptr_t)va;
  b->size = ph->size;
  b->alloc_size = ph->size;
  b->kind = MEM_DEVICE;
  b->flags = MEM_FLAG_VMM;
  b->gpu = ph->gpu;
  b->alloc_id = mem_next_alloc_id();
  /* The CPU view replaces the PROT_NONE reservation pages; unmap puts them back. */
  b->host_visible = mmap(va, ph->size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
                         ph->dmabuf_fd, 0) != MAP_FAILED;
  err = mem_block_map(b, ph->gpu);
  if (!err)
    err = mem_ranges_insert(b);
  if (err)
    goto fail_release;
  atomic_store_explicit(&b->live, true, memory_order_release);
  return 0;

fail_release:
  if (b->host_visible)
    mmap(va, ph->size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);
  mem_block_release(b); /* no reservation recorded: the caller's range stays reserved */
  return err;
fail_block:
  mem_block_recycle(b);
  return err;
}

int mem_vmm_unmap(void *va, size_t size)
{
  struct mem_block *b = mem_ranges_find(va, 1, NULL);
  size_t len;

  (void)size;
  if (!va || !b || b->base != va || b->kind != MEM_DEVICE)
    return -EINVAL;
  if (mem_ranges_remove(va) != b)
    return -EINVAL;
  len = b->alloc_size;
  /* Back to a plain reservation, so the range can be mapped again. */
  mmap(va, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);
  return mem_block_release(b);
}

int mem_vmm_set_access(void *va, struct kfd_gpu *gpu)
{
  struct mem_block *b = mem_ranges_find(va, 1, NULL);

  if (!va || !gpu)
    return -EINVAL;
  if (!b || b->kind != MEM_DEVICE)
    return -ENOENT;
  return mem_block_map(b, gpu);
}
