/* src/memory/mem.c: the public allocation API over blocks, chunks and the address table. */
#include "mem_internal.h"
#include "ipc_record.h"
#include "kfd/drm_device.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int mem_managed_alloc(size_t size, unsigned flags, void **out);
int mem_managed_free(struct mem_block *b);

static int alloc_block(struct kfd_gpu *gpu, size_t size, enum mem_kind kind, unsigned flags,
                       bool user, void **out)
{
  struct mem_block *b = mem_block_cache_take(gpu, size, kind, flags);
  int err = 0;

  /* A cached block kept its reservation and with it its granules in the table (block_cache.c):
   * only a new one is inserted. */
  if (!b) {
    err = mem_block_alloc(gpu, size, kind, flags, &b);
    if (err)
      return err;
    err = mem_table_insert(b);
    if (err) {
      mem_block_release(b);
      return err;
    }
  }
  b->user_flags = 0; /* a block back from the cache carries its previous owner's */
  b->user = user;
  atomic_store_explicit(&b->live, true, memory_order_release);
  *out = b->base;
  return 0;
}

int mem_alloc(struct kfd_gpu *gpu, size_t size, enum mem_kind kind, unsigned flags, void **out)
{
  if (!out)
    return -EINVAL;
  *out = NULL;
  if (!size || (unsigned)kind >= MEM_KIND_COUNT)
    return -EINVAL;
  if (kind == MEM_MANAGED)
    return mem_managed_alloc(size, flags, out);
  if (kind == MEM_HOST_REGISTERED || !gpu)
    return -EINVAL; /* registered memory comes from mem_host_register() */
  bool user = flags & MEM_FLAG_USER;
  flags &= ~MEM_FLAG_USER;
  if (mem_suballoc_fits(size, kind, flags))
    return mem_suballoc(gpu, size, kind, flags, user, out);
  int err = alloc_block(gpu, size, kind, flags, user, out);
  /* Empty cached chunks and cached blocks count as free memory (mem_get_info): give them back
   * and try again. */
  if (err == -ENOMEM && (mem_suballoc_trim(gpu) + mem_block_cache_trim(gpu)))
    err = alloc_block(gpu, size, kind, flags, user, out);
  return err;
}

int mem_free(void *ptr)
{
  struct mem_block *b;

  if (!ptr)
    return 0;
  b = mem_table_find_block(ptr);
  if (b) {
    if (b->chunk)
      return mem_suballoc_free(b, ptr);
    if (ptr != b->base)
      return -EINVAL; /* never free a block by an interior pointer */
    bool expected = true;
    if (!atomic_compare_exchange_strong(&b->live, &expected, false))
      return -EINVAL; /* a racing free won */
    /* After `live` is cleared (sequentially consistent, as the CAS is): an export racing with
     * this free sees it cleared, or its `shared` mark is seen here (ipc.c mark_exported). */
    if (atomic_load(&b->shared))
      ipc_record_retire(b->base, b->alloc_id);
    /* Once not live the table's granules answer "no allocation" (mem_table_find_block), so a
     * block parked in the cache keeps them; one going back to the kernel clears them first. */
    if (mem_block_cache_put(b))
      return 0;
    mem_table_remove(b);
    return mem_block_release(b);
  }
  b = mem_ranges_find(ptr, 1, NULL);
  if (b && b->kind == MEM_MANAGED && b->base == ptr) {
    if (mem_ranges_remove(ptr) != b)
      return -EINVAL;
    return mem_managed_free(b);
  }
  return -EINVAL;
}

int mem_free_owner(const void *ptr, struct kfd_gpu **gpu)
{
  struct mem_block *b;

  *gpu = NULL;
  if (!ptr)
    return -EINVAL;
  b = mem_table_find_block(ptr);
  if (b && b->chunk) {
    struct mem_chunk *c = b->chunk;
    size_t off = (size_t)((const char *)ptr - (const char *)b->base);
    if ((off & (c->slot_size - 1)) || (off >> c->slot_shift) >= c->nslots ||
        !atomic_load_explicit(&c->slot_len[off >> c->slot_shift], memory_order_acquire))
      return -EINVAL;
    *gpu = b->gpu;
    return 0;
  }
  if (b) {
    if (ptr != b->base)
      return -EINVAL;
    *gpu = b->gpu;
    return 0;
  }
  b = mem_ranges_find(ptr, 1, NULL);
  return b && b->kind == MEM_MANAGED && b->base == ptr ? 0 : -EINVAL;
}

struct user_allocs {
  struct kfd_gpu *gpu;
  void **ptrs;
  size_t n, cap;
  bool oom;
};

static void user_add(struct user_allocs *u, void *p)
{
  if (u->n == u->cap) {
    size_t cap = u->cap ? 2 * u->cap : 64;
    void **n = realloc(u->ptrs, cap * sizeof(*n));
    if (!n) {
      u->oom = true;
      return;
    }
    u->ptrs = n;
    u->cap = cap;
  }
  u->ptrs[u->n++] = p;
}

static void collect_user(struct mem_block *b, void *arg)
{
  struct user_allocs *u = arg;

  if (b->gpu != u->gpu || !atomic_load_explicit(&b->live, memory_order_acquire))
    return;
  if (!b->chunk) {
    if (b->user)
      user_add(u, b->base);
    return;
  }
  struct mem_chunk *c = b->chunk;
  for (uint32_t i = 0; i < c->nslots; i++)
    if (atomic_load_explicit(&c->slot_len[i], memory_order_acquire) &&
        atomic_load_explicit(&c->slot_user[i], memory_order_relaxed))
      user_add(u, (char *)b->base + (size_t)i * c->slot_size);
}

size_t mem_free_user(struct kfd_gpu *gpu)
{
  struct user_allocs u = {.gpu = gpu};
  size_t freed = 0;

  if (!gpu)
    return 0;
  /* Collected first, freed after: freeing changes the table being walked. */
  mem_table_foreach(collect_user, &u);
  for (size_t i = 0; i < u.n; i++)
    freed += mem_free(u.ptrs[i]) == 0;
  free(u.ptrs);
  return freed;
}

static void fill_info(struct mem_block *b, void *base, size_t size, uint64_t id,
                      unsigned user_flags, bool host, struct mem_info *out)
{
  size_t off = (size_t)((char *)base - (char *)b->base);

  out->base = base;
  out->size = size;
  out->kind = b->kind;
  out->flags = b->flags;
  out->user_flags = user_flags;
  out->gpu = b->gpu;
  bool visible = host ? mem_block_cpu_view(b)
                      : b->host_visible && !atomic_load_explicit(&b->cpu_pending, memory_order_acquire);
  out->host_ptr = visible ? base : NULL;
  out->gpu_va = b->gpu_va + off;
  out->alloc_id = id;
  out->suballocated = b->chunk != NULL;
}

static int lookup(const void *p, bool host, struct mem_info *out)
{
  struct mem_block *b;

  if (!p || !out)
    return -EINVAL;
  b = mem_table_find_block(p);
  if (b) {
    size_t off = (size_t)((const char *)p - (const char *)b->base);
    if (b->chunk) {
      struct mem_chunk *c = b->chunk;
      uint32_t slot = (uint32_t)(off >> c->slot_shift); /* slot sizes are powers of two */
      uint32_t len;
      if (slot >= c->nslots)
        return -ENOENT;
      len = atomic_load_explicit(&c->slot_len[slot], memory_order_acquire);
      if (!len || (off & (c->slot_size - 1)) >= len)
        return -ENOENT;
      fill_info(b, (char *)b->base + (size_t)slot * c->slot_size, len,
                atomic_load_explicit(&c->slot_id[slot], memory_order_relaxed),
                atomic_load_explicit(&c->slot_uflags[slot], memory_order_relaxed), host, out);
      return 0;
    }
    if (off >= b->size)
      return -ENOENT;
    fill_info(b, b->base, b->size, b->alloc_id, __atomic_load_n(&b->user_flags, __ATOMIC_RELAXED), host, out);
    return 0;
  }
  b = mem_ranges_find(p, 1, NULL);
  if (!b)
    return -ENOENT;
  fill_info(b, b->base, b->size, b->alloc_id, __atomic_load_n(&b->user_flags, __ATOMIC_RELAXED), host, out);
  return 0;
}

int mem_lookup(const void *p, struct mem_info *out)
{
  return lookup(p, false, out);
}

int mem_lookup_host(const void *p, struct mem_info *out)
{
  return lookup(p, true, out);
}

int mem_set_user_flags(const void *base, unsigned user_flags)
{
  struct mem_block *b;

  if (!base)
    return -EINVAL;
  b = mem_table_find_block(base);
  if (b && b->chunk) {
    struct mem_chunk *c = b->chunk;
    size_t off = (size_t)((const char *)base - (const char *)b->base);
    uint32_t slot = (uint32_t)(off >> c->slot_shift);
    if ((off & (c->slot_size - 1)) || slot >= c->nslots ||
        !atomic_load_explicit(&c->slot_len[slot], memory_order_acquire))
      return -EINVAL;
    atomic_store_explicit(&c->slot_uflags[slot], user_flags, memory_order_relaxed);
    return 0;
  }
  if (!b)
    b = mem_ranges_find(base, 1, NULL);
  if (!b || b->base != base)
    return -EINVAL;
  __atomic_store_n(&b->user_flags, user_flags, __ATOMIC_RELAXED);
  return 0;
}

static struct mem_block *block_of(const void *p)
{
  struct mem_block *b = mem_table_find_block(p);
  return b ? b : mem_ranges_find(p, 1, NULL);
}

int mem_map_to_gpu(void *ptr, struct kfd_gpu *gpu)
{
  struct mem_block *b;

  if (!ptr || !gpu)
    return -EINVAL;
  b = block_of(ptr);
  if (!b)
    return -ENOENT;
  if (b->kind == MEM_MANAGED)
    return 0; /* SVM ranges are accessible to every GPU they were created for */
  return mem_block_map(b, gpu);
}

uint64_t mem_gpu_va(const void *host_ptr)
{
  struct mem_block *b;

  if (!host_ptr)
    return 0;
  b = block_of(host_ptr);
  if (!b)
    return 0;
  return b->gpu_va + (uint64_t)((const char *)host_ptr - (const char *)b->base);
}

void *mem_host_of_alias(const void *p)
{
  struct mem_block *b = p ? mem_ranges_find_alias(p) : NULL;
  if (!b || (uint64_t)(uintptr_t)p < b->gpu_va || (uint64_t)(uintptr_t)p - b->gpu_va >= b->size)
    return NULL;
  return (char *)b->base + ((uint64_t)(uintptr_t)p - b->gpu_va);
}

int mem_kfd_handle(const void *p, uint64_t *handle)
{
  struct mem_block *b;

  if (!p || !handle)
    return -EINVAL;
  b = block_of(p);
  if (!b)
    return -ENOENT;
  if (b->chunk || b->base != p || !b->handle)
    return -EINVAL;
  *handle = b->handle;
  return 0;
}

size_t mem_trim(struct kfd_gpu *gpu)
{
  return mem_suballoc_trim(gpu) + mem_block_cache_trim(gpu);
}

static bool kind_is_vram(enum mem_kind kind)
{
  return kind == MEM_DEVICE || kind == MEM_DEVICE_FINE || kind == MEM_DEVICE_UNCACHED;
}

struct vram_slack {
  struct kfd_gpu *gpu;
  size_t bytes;
};

/* What a live VRAM block of arg->gpu holds from the kernel beyond what was asked of it: the page
 * rounding of a block, and everything of a chunk that its live slots did not ask for (all of an
 * empty chunk). Slot lengths are read without the pool lock: a racing allocation or free moves
 * the figure by its own size, as it would a moment later. */
static void add_vram_slack(struct mem_block *b, void *arg)
{
  struct vram_slack *s = arg;

  if (b->gpu != s->gpu || !kind_is_vram(b->kind) ||
      !atomic_load_explicit(&b->live, memory_order_acquire))
    return;
  size_t asked = 0;
  if (b->chunk) {
    struct mem_chunk *c = b->chunk;
    for (uint32_t i = 0; i < c->nslots; i++)
      asked += atomic_load_explicit(&c->slot_len[i], memory_order_relaxed);
  } else {
    asked = b->size;
  }
  if (asked < b->alloc_size)
    s->bytes += b->alloc_size - asked;
}

/* Free device memory as AMD's runtime reports it: what the kernel has left, less only the bytes
 * the program asked for (clr's Device::updateFreeMemory charges an allocation its requested
 * size; measured on kfdsim with Debian's libamdhip64.so.5: 1 byte and 4097 bytes cost 1 KiB and
 * 5 KiB of reported free memory, a 2 MiB + 1 byte block 2 MiB, never a whole 2 MiB chunk), in
 * whole KiB rounded down (clr keeps the figure in KiB). Cached blocks and the unasked part of
 * chunks count as free: they are this process's to hand out or give back (mem_alloc). */
int mem_get_info(struct kfd_gpu *gpu, size_t *free_bytes, size_t *total_bytes)
{
  uint64_t avail = 0;
  int err;

  if (!gpu || !free_bytes || !total_bytes)
    return -EINVAL;
  uint64_t total = gpu->node->vram_size ? gpu->node->vram_size : gpu->node->local_mem_size;
  err = kfd_available_memory(gpu, &avail);
  if (err)
    return err;
  /* KFD's figure is this process's allowance; the DRM driver's VRAM usage counts every user of
   * the device (other processes, graphics). Free is what both allow. */
  struct kfd_drm_heaps h;
  if (kfd_drm_heaps(gpu, &h) == 0 && h.vram_size) {
    if (!total)
      total = h.vram_size;
    uint64_t drm_free = h.vram_used < h.vram_size ? h.vram_size - h.vram_used : 0;
    if (drm_free < avail)
      avail = drm_free;
  }
  struct vram_slack slack = {.gpu = gpu};
  mem_table_foreach(add_vram_slack, &slack);
  avail += slack.bytes + mem_block_cache_bytes(gpu);
  if (avail > total)
    avail = total;
  *free_bytes = (size_t)(avail & ~(uint64_t)1023);
  *total_bytes = (size_t)total;
  return 0;
}

struct nearest {
  uintptr_t p;
  uintptr_t distance;
  struct mem_block *best;
};

static void nearest_visit(struct mem_block *b, void *arg)
{
  struct nearest *n = arg;
  if (!atomic_load_explicit(&b->live, memory_order_acquire))
    return;
  uintptr_t lo = (uintptr_t)b->base, hi = lo + b->size;
  uintptr_t d = n->p < lo ? lo - n->p : n->p >= hi ? n->p - hi + 1 : 0;
  if (!n->best || d < n->distance) {
    n->best = b;
    n->distance = d;
  }
}

int mem_nearest_block(const void *p, struct mem_info *out)
{
  struct nearest n = {.p = (uintptr_t)p};
  mem_table_foreach(nearest_visit, &n);
  if (!n.best)
    return -ENOENT;
  memset(out, 0, sizeof(*out));
  out->base = n.best->base;
  out->size = n.best->size;
  out->kind = n.best->kind;
  out->gpu_va = n.best->gpu_va;
  out->suballocated = n.best->chunk != NULL;
  return 0;
}
