/* src/memory/register.c: registered host memory (USERPTR) and managed memory (SVM). */
#define _GNU_SOURCE
#include "mem_internal.h"

#include <errno.h>
#include <sys/mman.h>

/* Register [p, p+size): pin the pages with a USERPTR allocation (kfd_chardev.c: the CPU address
 * goes in mmap_offset, the GPU VA in va_addr). The GPU VA is the CPU address when that page span
 * is free in the GPU VM; when another registration already holds one of its pages (two buffers
 * sharing a page) a separate GPU VA range is reserved, as libhsakmt 5.2.3 always does. */
/* A registration of a range that starts where a live registration starts and fits inside it is
 * nested in that one (hipHostRegister's re-registration, see mem.h): the pages are pinned already,
 * so only a count is kept and each mem_host_unregister() undoes one level. */
static int register_nested(void *p, size_t size)
{
  struct mem_block *b = mem_ranges_find(p, 1, NULL);

  if (!b || b->kind != MEM_HOST_REGISTERED || b->base != p || size > b->size)
    return -EEXIST;
  pthread_mutex_lock(&b->map_lock);
  b->nest++;
  pthread_mutex_unlock(&b->map_lock);
  return 0;
}

/* Undo one nested level of the registration b; false if b has none (the caller releases it). */
static bool unregister_nested(struct mem_block *b)
{
  bool nested;

  pthread_mutex_lock(&b->map_lock);
  nested = b->nest > 0;
  if (nested)
    b->nest--;
  pthread_mutex_unlock(&b->map_lock);
  return nested;
}

int mem_host_register(struct kfd_gpu *gpu, void *p, size_t size, unsigned flags)
{
  uintptr_t start = (uintptr_t)p & ~(uintptr_t)(MEM_PAGE - 1);
  uintptr_t end = ((uintptr_t)p + size + MEM_PAGE - 1) & ~(uintptr_t)(MEM_PAGE - 1);
  size_t span = end - start;
  struct mem_block *b;
  void *va = (void *)start;
  bool page_shared;
  int err;

  if (!gpu || !p || !size || end < start)
    return -EINVAL;
  if (mem_table_find_block(p))
    return -EEXIST;
  if (mem_ranges_find(p, size, NULL))
    return register_nested(p, size);
  mem_ranges_find((void *)start, span, &page_shared);
  b = mem_block_new();
  if (!b)
    return -ENOMEM;
  if (page_shared) {
    err = mem_va_reserve(gpu, span, MEM_PAGE, &va);
    if (err)
      goto fail_block;
    b->reservation = va;
    b->reservation_size = span;
  }
  err = kfd_alloc_memory(gpu, (uint64_t)(uintptr_t)va, span,
                         mem_kfd_flags(MEM_HOST_REGISTERED, flags), start, &b->handle, NULL);
  if (err)
    goto fail_va;
  mem_stat_count_kernel_alloc();
  b->base = p;
  b->gpu_va = (uint64_t)(uintptr_t)va + ((uintptr_t)p - start);
  b->size = size;
  b->alloc_size = span;
  b->kind = MEM_HOST_REGISTERED;
  b->flags = flags;
  b->gpu = gpu;
  b->host_visible = true;
  b->alloc_id = mem_next_alloc_id();
  {
    struct kfd_gpu *gpus[MEM_MAX_MAPPED];
    int n = (flags & MEM_FLAG_ALL_GPUS) ? mem_open_gpus(gpus, MEM_MAX_MAPPED) : 0;
    err = mem_block_map(b, gpu);
    for (int i = 0; !err && i < n; i++)
      err = mem_block_map(b, gpus[i]);
  }
  if (err)
    goto fail_release;
  err = mem_ranges_insert(b);
  if (err)
    goto fail_release;
  atomic_store_explicit(&b->live, true, memory_order_release);
  return 0;

fail_release:
  mem_block_release(b);
  return err;
fail_va:
  if (b->reservation)
    mem_va_release(b->reservation, b->reservation_size);
fail_block:
  mem_block_recycle(b);
  return err;
}

int mem_host_unregister(void *p)
{
  struct mem_block *b = mem_ranges_find(p, 1, NULL);

  if (!p || !b || b->base != p || b->kind != MEM_HOST_REGISTERED)
    return -EINVAL;
  if (unregister_nested(b))
    return 0;
  if (mem_ranges_remove(p) != b)
    return -EINVAL;
  return mem_block_release(b);
}

/* Managed memory: anonymous memory made an SVM range accessible to every open GPU
 * (kfd_svm.c; the attributes are those ROCr sets for hipMallocManaged). */
int mem_managed_alloc(size_t size, unsigned flags, void **out)
{
  struct kfd_gpu *gpus[MEM_MAX_MAPPED];
  struct kfd_ioctl_svm_attribute attrs[MEM_MAX_MAPPED + 1];
  size_t span = (size + MEM_PAGE - 1) & ~(size_t)(MEM_PAGE - 1);
  int n = mem_open_gpus(gpus, MEM_MAX_MAPPED);
  struct mem_block *b;
  void *p;
  int err;

  if (!n)
    return -ENODEV;
  if (!kfd_version_at_least(1, 6) || !(gpus[0]->node->capability & KFD_CAP_SVMAPI_SUPPORTED))
    return -ENOSYS;
  b = mem_block_new();
  if (!b)
    return -ENOMEM;
  /* Managed memory may exceed host RAM (hipMallocManaged of the device's whole free memory, as
   * CUDA and AMD allow: pages appear when first touched, on whichever side). MAP_NORESERVE keeps
   * the kernel's overcommit heuristic from refusing the range up front. */
  p = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) {
    mem_block_recycle(b);
    return -ENOMEM;
  }
  for (int i = 0; i < n; i++)
    attrs[i] = (struct kfd_ioctl_svm_attribute){KFD_IOCTL_SVM_ATTR_ACCESS, gpus[i]->gpu_id};
  attrs[n] = (struct kfd_ioctl_svm_attribute){
    KFD_IOCTL_SVM_ATTR_SET_FLAGS, KFD_IOCTL_SVM_FLAG_HOST_ACCESS | KFD_IOCTL_SVM_FLAG_COHERENT};
  err = kfd_svm(KFD_IOCTL_SVM_OP_SET_ATTR, (uint64_t)(uintptr_t)p, span, attrs, (uint32_t)n + 1);
  if (err)
    goto fail;
  b->base = p;
  b->gpu_va = (uint64_t)(uintptr_t)p;
  b->size = size;
  b->alloc_size = span;
  b->kind = MEM_MANAGED;
  b->flags = flags;
  b->host_visible = true;
  b->alloc_id = mem_next_alloc_id();
  err = mem_ranges_insert(b);
  if (err)
    goto fail;
  atomic_store_explicit(&b->live, true, memory_order_release);
  *out = p;
  return 0;
fail:
  munmap(p, span);
  mem_block_recycle(b);
  return err;
}

int mem_managed_free(struct mem_block *b)
{
  /* Unmapping the CPU range removes the SVM range (kfd_svm.c's MMU notifier on munmap). */
  munmap(b->base, b->alloc_size);
  mem_block_recycle(b);
  return 0;
}
