/* src/memory/dmabuf.c: a whole kernel allocation as a dma-buf (AMDKFD_IOC_EXPORT_DMABUF), and a
 * dma-buf imported whole at a new address (AMDKFD_IOC_IMPORT_DMABUF): what the VMM API
 * (vmm.c, api/vmm.c) shares. IPC handles map only the allocation's pages instead (ipc.c). */
#define _GNU_SOURCE
#include "mem_internal.h"

#include <errno.h>
#include <sys/mman.h>

int mem_ipc_export(const void *p, int *fd, uint64_t *offset, size_t *size)
{
  struct mem_block *b;

  if (!p || !fd || !offset || !size)
    return -EINVAL;
  b = mem_table_find_block(p);
  if (!b)
    return mem_ranges_find(p, 1, NULL) ? -EINVAL : -ENOENT;
  *offset = (uint64_t)((const char *)p - (const char *)b->base);
  *size = b->alloc_size;
  /* An importer may keep using the BO: it must really go at hipFree. */
  atomic_store_explicit(&b->shared, true, memory_order_release);
  return kfd_export_dmabuf(b->handle, fd);
}

int mem_ipc_import(struct kfd_gpu *gpu, int fd, size_t size, void **out)
{
  size_t alloc_size = (size + MEM_PAGE - 1) & ~(size_t)(MEM_PAGE - 1);
  size_t reserve = (alloc_size + MEM_GRANULE - 1) & ~(size_t)(MEM_GRANULE - 1);
  struct mem_block *b;
  void *va;
  int err;

  if (!gpu || fd < 0 || !size || !out)
    return -EINVAL;
  *out = NULL;
  b = mem_block_new();
  if (!b)
    return -ENOMEM;
  err = mem_va_reserve(gpu, reserve, MEM_GRANULE, &va);
  if (err)
    goto fail_block;
  err = kfd_import_dmabuf(gpu, fd, (uint64_t)(uintptr_t)va, &b->handle);
  if (err)
    goto fail_va;
  b->base = va;
  b->gpu_va = (uint64_t)(uintptr_t)va;
  b->size = size;
  b->alloc_size = alloc_size;
  b->reservation = va;
  b->reservation_size = reserve;
  b->kind = MEM_DEVICE;
  b->gpu = gpu;
  /* Another process's buffer: never parked in the block cache for reuse. */
  atomic_store_explicit(&b->shared, true, memory_order_relaxed);
  b->alloc_id = mem_next_alloc_id();
  /* The CPU view comes from the dma-buf itself; without one the memory is device-only. */
  b->host_visible = mmap(va, alloc_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) != MAP_FAILED;
  err = mem_block_map(b, gpu);
  if (err)
    goto fail_release;
  err = mem_table_insert(b);
  if (err)
    goto fail_release;
  atomic_store_explicit(&b->live, true, memory_order_release);
  *out = va;
  return 0;

fail_release:
  mem_block_release(b);
  return err;
fail_va:
  mem_va_release(va, reserve);
fail_block:
  mem_block_recycle(b);
  return err;
}
