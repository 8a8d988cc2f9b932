/* src/memory/vmm.c: the virtual-memory API over KFD and the render node.
 *
 * A physical allocation (struct mem_phys) is a dma-buf: for hipMemCreate a VRAM BO at a private
 * address (mem_alloc) and its export, for an import the descriptor another exporter gave. A
 * mapping places a page range of that dma-buf at a VA inside a reservation: the CPU view is an
 * mmap of the dma-buf at the range's offset, each GPU's view an AMDGPU_GEM_VA mapping on its
 * render node (src/kfd/drm_gem.h), as ROCr's hsa_amd_vmem_map / hsa_amd_vmem_set_access do.
 * So a mapping may cover part of an allocation, and each GPU's access can be read-only,
 * read-write, or taken away again. Mappings are registered in the address table's range list
 * (MEM_FLAG_VMM, no KFD handle) so copies and pointer queries know them.
 *
 * Locking: vmm_lock protects the mapping list and the GEM handle table. */
#define _GNU_SOURCE
#include "mem_internal.h"
#include "vmm.h"
#include "kfd/drm_gem.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

struct mem_phys {
  struct kfd_gpu *gpu;
  void *home;                 /* the BO's own address (hipMemCreate), NULL for imports */
  size_t size;                /* page multiple */
  int dmabuf_fd;
};

/* One GEM handle of a render node. Importing a dma-buf twice through one render file yields the
 * same handle and one GEM_CLOSE drops it for everyone (drm_prime.c), so handles are counted. */
struct vmm_gem {
  struct kfd_gpu *gpu;
  uint32_t handle;
  int refs;
  struct vmm_gem *next;
};

struct vmm_gpu_view {
  struct kfd_gpu *gpu;
  uint32_t handle;
  bool writable;
};

struct vmm_map {
  char *va;
  size_t size, offset;
  struct mem_phys *ph;
  struct mem_block *block;
  struct vmm_gpu_view views[MEM_MAX_MAPPED];
  unsigned n_views;
  struct vmm_map *next;
};

static pthread_mutex_t vmm_lock = PTHREAD_MUTEX_INITIALIZER;
static struct vmm_gem *vmm_gems;  /* (vmm_lock) */
static struct vmm_map *vmm_maps;  /* (vmm_lock) */

static bool page_aligned(uint64_t v)
{
  return (v & (MEM_PAGE - 1)) == 0;
}

/* ---- GEM handles (vmm_lock held) ------------------------------------------------------------- */

static int gem_get(struct kfd_gpu *gpu, int fd, uint32_t *handle)
{
  uint32_t h;
  int err = kfd_gem_import_dmabuf(gpu, fd, &h);

  if (err)
    return err;
  for (struct vmm_gem *g = vmm_gems; g; g = g->next) {
    if (g->gpu == gpu && g->handle == h) {
      g->refs++;
      *handle = h;
      return 0;
    }
  }
  struct vmm_gem *g = calloc(1, sizeof(*g));
  if (!g) {
    kfd_gem_close(gpu, h);
    return -ENOMEM;
  }
  g->gpu = gpu;
  g->handle = h;
  g->refs = 1;
  g->next = vmm_gems;
  vmm_gems = g;
  *handle = h;
  return 0;
}

static void gem_put(struct kfd_gpu *gpu, uint32_t handle)
{
  for (struct vmm_gem **pp = &vmm_gems; *pp; pp = &(*pp)->next) {
    struct vmm_gem *g = *pp;
    if (g->gpu != gpu || g->handle != handle)
      continue;
    if (--g->refs == 0) {
      *pp = g->next;
      kfd_gem_close(gpu, handle);
      free(g);
    }
    return;
  }
}

/* ---- reservations ----------------------------------------------------------------------------- */

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

/* ---- physical allocations --------------------------------------------------------------------- */

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

int mem_vmm_import(struct kfd_gpu *gpu, int fd, struct mem_phys **out)
{
  struct mem_phys *ph;
  uint32_t handle;
  off_t end;
  int err;

  if (!gpu || fd < 0 || !out)
    return -EINVAL;
  *out = NULL;
  /* dma_buf_llseek: SEEK_END gives the buffer's size (and is all a dma-buf supports). */
  end = lseek(fd, 0, SEEK_END);
  if (end <= 0 || !page_aligned((uint64_t)end))
    return -EINVAL;
  /* The render node refuses what is not a dma-buf it can import: check now, not at map time. */
  pthread_mutex_lock(&vmm_lock);
  err = gem_get(gpu, fd, &handle);
  if (!err)
    gem_put(gpu, handle);
  pthread_mutex_unlock(&vmm_lock);
  if (err)
    return err == -EBADF ? -EBADF : -EINVAL;
  ph = calloc(1, sizeof(*ph));
  if (!ph)
    return -ENOMEM;
  ph->dmabuf_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
  if (ph->dmabuf_fd < 0) {
    err = -errno;
    free(ph);
    return err;
  }
  ph->gpu = gpu;
  ph->size = (size_t)end;
  *out = ph;
  return 0;
}

int mem_vmm_destroy(struct mem_phys *ph)
{
  int err = 0;

  if (!ph)
    return -EINVAL;
  if (ph->home)
    err = mem_free(ph->home);
  close(ph->dmabuf_fd);
  free(ph);
  return err;
}

size_t mem_vmm_size(const struct mem_phys *ph)
{
  return ph ? ph->size : 0;
}

int mem_vmm_export(struct mem_phys *ph, int *fd)
{
  if (!ph || !fd)
    return -EINVAL;
  *fd = fcntl(ph->dmabuf_fd, F_DUPFD_CLOEXEC, 0);
  return *fd < 0 ? -errno : 0;
}

/* ---- GPU views of a mapping (vmm_lock held) --------------------------------------------------- */

static struct vmm_gpu_view *view_find(struct vmm_map *m, const struct kfd_gpu *gpu)
{
  for (unsigned i = 0; i < m->n_views; i++)
    if (m->views[i].gpu == gpu)
      return &m->views[i];
  return NULL;
}

static int view_add(struct vmm_map *m, struct kfd_gpu *gpu, bool writable)
{
  uint32_t handle;
  int err;

  if (m->n_views == MEM_MAX_MAPPED)
    return -ENOSPC;
  err = gem_get(gpu, m->ph->dmabuf_fd, &handle);
  if (err)
    return err;
  err = kfd_gem_va_map(gpu, handle, (uint64_t)(uintptr_t)m->va, m->offset, m->size, writable);
  if (err) {
    gem_put(gpu, handle);
    return err;
  }
  m->views[m->n_views++] = (struct vmm_gpu_view){.gpu = gpu, .handle = handle, .writable = writable};
  return 0;
}

static int view_remove(struct vmm_map *m, struct vmm_gpu_view *v)
{
  int err = kfd_gem_va_unmap(v->gpu, v->handle, (uint64_t)(uintptr_t)m->va, m->size);

  if (err)
    return err;
  gem_put(v->gpu, v->handle);
  *v = m->views[--m->n_views];
  return 0;
}

static struct vmm_map *map_at(const void *va)
{
  for (struct vmm_map *m = vmm_maps; m; m = m->next)
    if (m->va == va)
      return m;
  return NULL;
}

/* ---- mapping ---------------------------------------------------------------------------------- */

static int map_register(struct vmm_map *m)
{
  struct mem_block *b = mem_block_new();
  int err;

  if (!b)
    return -ENOMEM;
  b->base = m->va;
  b->gpu_va = (uint64_t)(uintptr_t)m->va;
  b->size = m->size;
  b->alloc_size = m->size;
  b->kind = MEM_DEVICE;
  b->flags = MEM_FLAG_VMM;
  b->gpu = m->ph->gpu;
  b->alloc_id = mem_next_alloc_id();
  b->host_visible = true;
  err = mem_ranges_insert(b);
  if (err) {
    mem_block_recycle(b);
    return err;
  }
  atomic_store_explicit(&b->live, true, memory_order_release);
  m->block = b;
  return 0;
}

static void cpu_view_drop(void *va, size_t size)
{
  /* Back to a plain reservation, so the range can be mapped again. */
  mmap(va, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);
}

/* The owning GPU gets read-write access at once (hipMemSetAccess may narrow or revoke it). */
int mem_vmm_map(void *va, size_t size, struct mem_phys *ph, size_t offset)
{
  struct vmm_map *m;
  bool taken;
  int err;

  if (!va || !ph || !size || !page_aligned((uintptr_t)va) || !page_aligned(size) ||
      !page_aligned(offset) || offset > ph->size || size > ph->size - offset)
    return -EINVAL;
  mem_ranges_find(va, size, &taken);
  if (taken || mem_table_find_block(va))
    return -EEXIST;
  m = calloc(1, sizeof(*m));
  if (!m)
    return -ENOMEM;
  m->va = va;
  m->size = size;
  m->offset = offset;
  m->ph = ph;
  /* The CPU view replaces the PROT_NONE reservation pages (dma_buf_mmap honours the offset). */
  if (mmap(va, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, ph->dmabuf_fd,
           (off_t)offset) == MAP_FAILED) {
    free(m);
    return -ENOMEM;
  }
  pthread_mutex_lock(&vmm_lock);
  err = view_add(m, ph->gpu, true);
  if (err)
    goto fail_cpu;
  err = map_register(m);
  if (err)
    goto fail_view;
  m->next = vmm_maps;
  vmm_maps = m;
  pthread_mutex_unlock(&vmm_lock);
  return 0;

fail_view:
  view_remove(m, &m->views[0]);
fail_cpu:
  pthread_mutex_unlock(&vmm_lock);
  cpu_view_drop(va, size);
  free(m);
  return err;
}

int mem_vmm_unmap(void *va, size_t size)
{
  struct vmm_map *m, **pp;
  int err = 0;

  (void)size;
  pthread_mutex_lock(&vmm_lock);
  for (pp = &vmm_maps; *pp && (*pp)->va != va; pp = &(*pp)->next)
    ;
  m = *pp;
  if (!m) {
    pthread_mutex_unlock(&vmm_lock);
    return -EINVAL;
  }
  while (m->n_views && !err)
    err = view_remove(m, &m->views[m->n_views - 1]);
  if (!err) {
    *pp = m->next;
    mem_ranges_remove(m->va);
  }
  pthread_mutex_unlock(&vmm_lock);
  if (err)
    return err;
  cpu_view_drop(m->va, m->size);
  mem_block_release(m->block); /* no KFD handle, no reservation: only recycles the block */
  free(m);
  return 0;
}

int mem_vmm_access(void *va, struct kfd_gpu *gpu, enum mem_vmm_prot prot)
{
  struct vmm_map *m;
  struct vmm_gpu_view *v;
  bool writable = prot == MEM_VMM_PROT_READ_WRITE;
  int err = 0;

  if (!va || !gpu || (prot != MEM_VMM_PROT_NONE && prot != MEM_VMM_PROT_READ && !writable))
    return -EINVAL;
  pthread_mutex_lock(&vmm_lock);
  m = map_at(va);
  v = m ? view_find(m, gpu) : NULL;
  if (!m) {
    err = -ENOENT;
  } else {
    bool same = v && prot != MEM_VMM_PROT_NONE && v->writable == writable;
    if (v && !same)
      err = view_remove(m, v);   /* a change of flags is an unmap and a new map */
    if (!err && prot != MEM_VMM_PROT_NONE && !same)
      err = view_add(m, gpu, writable);
  }
  pthread_mutex_unlock(&vmm_lock);
  return err;
}

int mem_vmm_set_access(void *va, struct kfd_gpu *gpu)
{
  return mem_vmm_access(va, gpu, MEM_VMM_PROT_READ_WRITE);
}
