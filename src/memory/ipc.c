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
 * mem_ipc_retire) or its process gone (ESRCH). No signal is possible: nothing is dereferenced.
 * The importer needs ptrace access to the exporter for this and for pidfd_getfd(2) (api/ipc.c),
 * the same rule; a process with that access can read the exporter's memory anyway, so the
 * dma-buf's other pages (which a hostile importer could mmap from its descriptor) give it
 * nothing new: isolation is about what the runtime maps, and it maps the allocation only. */
#define _GNU_SOURCE
#include "mem_internal.h"
#include "vmm.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

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

/* ---- shared allocations: export records --------------------------------------------------------- */

#define RECORD_MAGIC 0x4448434552504948ull /* "HIPRECHD": a live record */

/* What an importer reads from the exporter (process_vm_readv) and compares with its handle. */
struct record_public {
  uint64_t magic;     /* RECORD_MAGIC while the allocation lives, 0 once retired */
  uint64_t token;     /* random, new for every record */
  uint64_t ino;
  uint64_t offset;
  uint64_t size;
  int32_t fd;
  uint32_t pad;
};

struct record {
  struct record_public pub; /* first: the handle names the record by this address */
  void *base;
  uint64_t alloc_id;
  struct record *next;
};

static pthread_mutex_t records_lock = PTHREAD_MUTEX_INITIALIZER;
static struct record *records;      /* live ones (records_lock) */
static struct record *records_free; /* retired, kept for reuse: an importer may still read one,
                                     * and must find it retired, not unmapped (records_lock) */

/* The dma-buf, its offset and the record of the allocation [in] mi of block [in] b. records_lock
 * held. */
static int record_new(struct mem_block *b, const struct mem_info *mi, struct record **out)
{
  struct record *r = records_free;
  struct stat st;
  int fd, err;

  err = kfd_export_dmabuf(b->handle, &fd);
  if (err)
    return err;
  if (fstat(fd, &st) != 0) {
    err = -errno;
    close(fd);
    return err;
  }
  if (r)
    records_free = r->next;
  else if (!(r = calloc(1, sizeof(*r)))) {
    close(fd);
    return -ENOMEM;
  }
  uint64_t token = 0;
  if (getrandom(&token, sizeof(token), 0) != (ssize_t)sizeof(token))
    token = (uint64_t)st.st_ino * 0x9e3779b97f4a7c15ull ^ (uint64_t)(uintptr_t)r ^ mi->alloc_id;
  token |= 1; /* never 0 */
  r->pub = (struct record_public){
      .token = token,
      .ino = (uint64_t)st.st_ino,
      .offset = (uint64_t)((char *)mi->base - (char *)b->base),
      .size = mi->size,
      .fd = fd,
  };
  r->base = mi->base;
  r->alloc_id = mi->alloc_id;
  /* The magic last: a concurrent reader sees a whole record or none (it compares every field). */
  __atomic_store_n(&r->pub.magic, RECORD_MAGIC, __ATOMIC_RELEASE);
  r->next = records;
  records = r;
  *out = r;
  return 0;
}

/* Mark the allocation [in] mi, inside block [in] b, exported, so that its free retires the record
 * (and, for a slot, keeps the slot out of reuse). Then check it is still the allocation looked up:
 * a free racing with the export either sees the mark or is seen here (both sides store, then
 * load, sequentially consistent). */
static int mark_exported(struct mem_block *b, const struct mem_info *mi)
{
  if (b->chunk)
    return mem_suballoc_mark_exported(b, mi->base, mi->alloc_id);
  atomic_store(&b->shared, true);
  return atomic_load(&b->live) && b->alloc_id == mi->alloc_id ? 0 : -ENOENT;
}

static bool kind_exportable(enum mem_kind kind)
{
  return kind == MEM_DEVICE || kind == MEM_DEVICE_FINE || kind == MEM_DEVICE_UNCACHED;
}

int mem_ipc_share(const void *p, struct mem_ipc_share *out)
{
  struct mem_info mi;
  struct mem_block *b;
  struct record *r;
  int err = 0;

  if (!p || !out)
    return -EINVAL;
  b = mem_table_find_block(p);
  if (!b)
    return mem_ranges_find(p, 1, NULL) ? -EINVAL : -ENOENT;
  if (mem_lookup(p, &mi) != 0)
    return -ENOENT;
  if (!kind_exportable(mi.kind) || !b->handle)
    return -EINVAL;
  pthread_mutex_lock(&records_lock);
  for (r = records; r; r = r->next)
    if (r->base == mi.base && r->alloc_id == mi.alloc_id)
      break;
  if (!r) {
    err = mark_exported(b, &mi);
    if (!err)
      err = record_new(b, &mi, &r);
  }
  if (!err)
    *out = (struct mem_ipc_share){
        .record = (uint64_t)(uintptr_t)r,
        .token = r->pub.token,
        .ino = r->pub.ino,
        .offset = r->pub.offset,
        .size = r->pub.size,
        .fd = r->pub.fd,
        .base = mi.base,
    };
  pthread_mutex_unlock(&records_lock);
  return err;
}

void mem_ipc_retire(const void *base, uint64_t alloc_id)
{
  pthread_mutex_lock(&records_lock);
  for (struct record **pp = &records; *pp; pp = &(*pp)->next) {
    struct record *r = *pp;
    if (r->base != base || r->alloc_id != alloc_id)
      continue;
    *pp = r->next;
    __atomic_store_n(&r->pub.magic, 0, __ATOMIC_RELEASE);
    close(r->pub.fd); /* importers hold their own references to the buffer */
    r->next = records_free;
    records_free = r;
    break;
  }
  pthread_mutex_unlock(&records_lock);
}

int mem_ipc_check(int pid, const struct mem_ipc_share *claim)
{
  struct record_public rec;
  struct iovec local = {.iov_base = &rec, .iov_len = sizeof(rec)};
  struct iovec remote = {.iov_base = (void *)(uintptr_t)claim->record, .iov_len = sizeof(rec)};

  if (pid <= 0 || !claim->record)
    return -EINVAL;
  ssize_t n = process_vm_readv((pid_t)pid, &local, 1, &remote, 1, 0);
  if (n < 0)
    return errno == ESRCH ? -ESRCH : errno == EPERM ? -EPERM : -ENOENT;
  if (n != (ssize_t)sizeof(rec))
    return -ENOENT;
  bool same = rec.magic == RECORD_MAGIC && rec.token == claim->token && rec.ino == claim->ino &&
              rec.offset == claim->offset && rec.size == claim->size && rec.fd == claim->fd;
  return same ? 0 : -ENOENT;
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
