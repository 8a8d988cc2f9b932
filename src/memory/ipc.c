/* src/memory/ipc.c: sharing allocations between processes through dma-bufs
 * (AMDKFD_IOC_EXPORT_DMABUF, then the render node's PRIME import and AMDGPU_GEM_VA in the importer).
 *
 * Isolation: an importer reaches exactly the exported allocation, however it was allocated.
 *
 * - A dma-buf is a whole kernel allocation, and a small hipMalloc is a slot of a shared chunk
 *   (suballoc.c). Carving a dedicated BO out of a chunk at export time cannot keep the user's
 *   address, and a dedicated BO per hipMalloc would cost an ioctl per allocation. So the export
 *   stays the chunk's (or the block's) dma-buf, and the importer maps only the allocation's pages
 *   of it: GEM_VA maps [offset, offset + pages) of the buffer at a fresh VA (mem_vmm_map does the
 *   mapping, as ROCr's vmem API does), and the CPU view is an mmap of the same pages. Nothing else
 *   of the buffer is in the importer's GPU page tables or address space: a kernel that runs past
 *   the end faults in the importer, a copy that runs past the end is refused by the copy engine's
 *   bounds check (the import is recorded with the requested size).
 * - Page granularity is exact because device slots are at least a page (suballoc.c: the device
 *   kinds' smallest class is 4 KiB, as ROCr's fragment allocator rounds to pages): the pages of a
 *   slot hold nothing but that slot. The importer reports the requested size (hipMemPtrGetInfo),
 *   as clr does (the handle carries the exporter's size); its kernels reach the allocation's last
 *   page, whose slack belongs to nobody.
 * - An exported slot that the exporter frees is never handed out again (suballoc.c quarantines
 *   it): an importer that still maps it must not see the next owner's data.
 *
 * Validation: every export has a record in the exporter's memory, with a random token. The handle
 * names the record (its address) and repeats its fields; an importer reads the record with
 * process_vm_readv(2) and accepts the handle only if the record is live and every field matches.
 * A forged handle (random bytes, a tampered size or offset) fails that comparison or reads
 * nothing (EFAULT), a stale one finds its record retired (the allocation was freed: mem_free calls
 * ipc_record_retire) or its process gone (ESRCH). The records are in ipc_record.c. No signal is possible: nothing is dereferenced.
 * The importer needs ptrace access to the exporter for this and for pidfd_getfd(2) (api/ipc.c),
 * the same rule; a process with that access can read the exporter's memory anyway, so the
 * dma-buf's other pages (which a hostile importer could mmap from its descriptor) give it
 * nothing new: isolation is about what the runtime maps, and it maps the allocation only. */
#define _GNU_SOURCE
#include "mem_internal.h"
#include "ipc_record.h"
#include "vmm.h"

#include <errno.h>
#include <stdlib.h>

/* ---- export ------------------------------------------------------------------------------------ */

struct mark_arg {
  struct mem_block *b;
  const struct mem_info *mi;
};

/* Mark the allocation exported, so that its free retires the record (and, for a slot, keeps the
 * slot out of reuse); then check it is still the allocation looked up. A free racing with the
 * export either sees the mark or is seen here (both sides store, then load, sequentially
 * consistent: suballoc.c, mem.c). */
static int mark_exported(void *arg)
{
  struct mark_arg *m = arg;
  if (m->b->chunk)
    return mem_suballoc_mark_exported(m->b, m->mi->base, m->mi->alloc_id);
  atomic_store(&m->b->shared, true);
  return atomic_load(&m->b->live) && m->b->alloc_id == m->mi->alloc_id ? 0 : -ENOENT;
}

static bool kind_exportable(enum mem_kind kind)
{
  return kind == MEM_DEVICE || kind == MEM_DEVICE_FINE || kind == MEM_DEVICE_UNCACHED;
}

int mem_ipc_share(const void *p, struct mem_ipc_share *out)
{
  struct ipc_record_view v;
  struct mem_info mi;
  struct mem_block *b;

  if (!p || !out)
    return -EINVAL;
  b = mem_table_find_block(p);
  if (!b)
    return mem_ranges_find(p, 1, NULL) ? -EINVAL : -ENOENT;
  if (mem_lookup(p, &mi) != 0)
    return -ENOENT;
  if (!kind_exportable(mi.kind) || !b->handle)
    return -EINVAL;
  struct mark_arg m = {.b = b, .mi = &mi};
  int err = ipc_record_get(mi.base, mi.alloc_id, b->handle,
                           (uint64_t)((char *)mi.base - (char *)b->base), mi.size, mark_exported,
                           &m, &v);
  if (err)
    return err;
  *out = (struct mem_ipc_share){
      .record = v.record,
      .token = v.token,
      .ino = v.ino,
      .offset = v.offset,
      .size = v.size,
      .fd = v.fd,
      .base = mi.base,
  };
  return 0;
}

int mem_ipc_check(int pid, const struct mem_ipc_share *claim)
{
  struct ipc_record_view v = {
      .record = claim->record,
      .token = claim->token,
      .ino = claim->ino,
      .offset = claim->offset,
      .size = claim->size,
      .fd = claim->fd,
  };
  return ipc_record_check(pid, &v);
}

/* ---- the importer's view ------------------------------------------------------------------------ */

struct mem_ipc_view {
  void *va;
  size_t map_size;     /* the allocation's pages, mapped */
  size_t reserve_size; /* the VA reserved: the mapping and at least a page of guard */
  struct mem_phys *ph;
};

int mem_ipc_open(struct kfd_gpu *gpu, int fd, uint64_t offset, size_t size, struct mem_ipc_view **out)
{
  size_t map_size = (size + MEM_PAGE - 1) & ~(size_t)(MEM_PAGE - 1);
  struct mem_ipc_view *v;
  int err;

  if (!gpu || fd < 0 || !size || map_size < size || (offset & (MEM_PAGE - 1)) || !out)
    return -EINVAL;
  v = calloc(1, sizeof(*v));
  if (!v)
    return -ENOMEM;
  v->map_size = map_size;
  /* At least one unmapped page follows the mapping, so that a kernel running off the end faults
   * in the importer instead of reaching whatever the importer mapped next. */
  v->reserve_size = (map_size + MEM_PAGE + MEM_GRANULE - 1) & ~(size_t)(MEM_GRANULE - 1);
  if (v->reserve_size < map_size) {
    free(v);
    return -EINVAL;
  }
  err = mem_vmm_import(gpu, fd, &v->ph);
  if (err)
    goto fail;
  /* The sizes in the handle were checked against the exporter's record; the buffer must hold
   * them too (a dma-buf mmap past its end is a SIGBUS at first touch). */
  if (offset > mem_vmm_size(v->ph) || map_size > mem_vmm_size(v->ph) - offset) {
    err = -EINVAL;
    goto fail_phys;
  }
  err = mem_vmm_reserve(gpu, v->reserve_size, 0, &v->va);
  if (err)
    goto fail_phys;
  err = mem_vmm_map(v->va, map_size, v->ph, offset);
  if (err)
    goto fail_va;
  /* The mapping is recorded with the allocation's own size: lookups, hipMemPtrGetInfo and the
   * copy engine's bounds checks see the exporter's allocation, not its last page's slack.
   * Shrinking is safe in the range list, and nothing else knows the address yet. */
  struct mem_block *b = mem_ranges_find(v->va, 1, NULL);
  if (b)
    b->size = size;
  *out = v;
  return 0;

fail_va:
  mem_vmm_release(v->va, v->reserve_size);
fail_phys:
  mem_vmm_destroy(v->ph);
fail:
  free(v);
  return err;
}

void *mem_ipc_view_base(const struct mem_ipc_view *v)
{
  return v ? v->va : NULL;
}

int mem_ipc_close(struct mem_ipc_view *v)
{
  int err;

  if (!v)
    return -EINVAL;
  err = mem_vmm_unmap(v->va, v->map_size);
  if (err)
    return err;
  mem_vmm_release(v->va, v->reserve_size);
  mem_vmm_destroy(v->ph);
  free(v);
  return 0;
}
