/*
 * Device-side malloc/free (see device_heap.h for the device library's contract).
 *
 * Per device: the heap_t of code object v5 kernels (hidden_heap_v1), allocated zeroed on first
 * use and kept for the process's life, and the set of blocks the DEVMEM service handed out, so a
 * free request only ever releases memory the service allocated (a wrong address from a kernel
 * must not free a user allocation).
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "device_heap.h"
#include "../runtime/internal.h"
#include "../runtime/runtime.h"
#include "../memory/mem.h"

#define SLAB_SIZE (2u * 1024u * 1024u) /* ockl dm.cl: slabs are 2 MiB, 2 MiB aligned */
#define PAGE_MASK 4095u                /* dealloc: a page-aligned address is a direct block */

/* Open-addressed set of block addresses (0 = empty, 1 = deleted; block addresses are page
 * aligned, so neither is ever a key). */
struct block_set {
  uint64_t *keys;
  size_t cap, used;                    /* used counts live keys and tombstones */
};
#define SET_DELETED 1u

struct device_heap {
  struct hip_device *device;
  void *heap;                          /* heap_t, or NULL until a v5 kernel needs it */
  struct block_set blocks;
  struct device_heap *next;
};

/* Launch fast path: the heap address per device ordinal once it exists (0: not yet), read without
 * the lock. Not used in a forked child, whose heaps start over. */
#define HEAP_CACHE_DEVICES 64
static _Atomic uint64_t heap_cache[HEAP_CACHE_DEVICES];

static pthread_mutex_t heap_lock = PTHREAD_MUTEX_INITIALIZER;
static struct device_heap *heaps;
static pid_t heaps_pid;                /* a forked child starts over (the parent's GPU VM is gone) */

static struct device_heap *heap_state(struct hip_device *d)
{
  if (heaps_pid != getpid()) {
    heaps_pid = getpid();
    heaps = NULL;                      /* the parent's memory is unusable here; leak its records */
  }
  for (struct device_heap *h = heaps; h; h = h->next)
    if (h->device == d)
      return h;
  struct device_heap *h = calloc(1, sizeof(*h));
  if (!h)
    return NULL;
  h->device = d;
  h->next = heaps;
  heaps = h;
  return h;
}

/* ---- block set ---- */

static size_t set_slot(uint64_t key, size_t cap)
{
  /* Addresses are page aligned: mix the page number (Fibonacci hashing). */
  return (size_t)(((key >> 12) * 0x9E3779B97F4A7C15ull) >> 17) & (cap - 1);
}

static int set_grow(struct block_set *s)
{
  size_t cap = s->cap ? s->cap * 2 : 64;
  uint64_t *keys = calloc(cap, sizeof(*keys));
  if (!keys)
    return -ENOMEM;
  size_t used = 0;
  for (size_t i = 0; i < s->cap; i++) {
    uint64_t k = s->keys[i];
    if (k <= SET_DELETED)
      continue;
    size_t j = set_slot(k, cap);
    while (keys[j])
      j = (j + 1) & (cap - 1);
    keys[j] = k;
    used++;
  }
  free(s->keys);
  s->keys = keys;
  s->cap = cap;
  s->used = used;
  return 0;
}

static int set_add(struct block_set *s, uint64_t key)
{
  /* Keep at most half the slots non-empty so probes stay short and always end. */
  if ((s->used + 1) * 2 > s->cap) {
    int err = set_grow(s);
    if (err)
      return err;
  }
  size_t j = set_slot(key, s->cap);
  while (s->keys[j] > SET_DELETED)
    j = (j + 1) & (s->cap - 1);
  if (!s->keys[j])
    s->used++;
  s->keys[j] = key;
  return 0;
}

static bool set_remove(struct block_set *s, uint64_t key)
{
  if (!s->cap)
    return false;
  for (size_t j = set_slot(key, s->cap); s->keys[j]; j = (j + 1) & (s->cap - 1)) {
    if (s->keys[j] == key) {
      s->keys[j] = SET_DELETED;
      return true;
    }
  }
  return false;
}

/* ---- memory ---- */

/* Device memory of its own kernel allocation (never sub-allocated: every block the device
 * library gets must be at least page aligned, and a 2 MiB request 2 MiB aligned, which
 * runtime-owned allocations are: they start on a 2 MiB granule), zeroed when the CPU can reach
 * it. Returns 0 or -errno. */
static int alloc_zeroed(struct hip_device *d, size_t size, bool must_zero, void **out)
{
  struct mem_info info;
  void *p;
  int err = mem_alloc(d->gpu, size, MEM_DEVICE, MEM_FLAG_NO_SUBALLOC, &p);
  if (err)
    return err;
  err = mem_lookup_host(p, &info);
  if (!err && info.host_ptr) {
    memset(info.host_ptr, 0, size);
  } else if (must_zero) {
    mem_free(p);
    return -ENOTSUP;
  }
  if ((uintptr_t)p & PAGE_MASK || (size == SLAB_SIZE && ((uintptr_t)p & (SLAB_SIZE - 1)))) {
    mem_free(p);                       /* the library's address arithmetic would break */
    return -EFAULT;
  }
  *out = p;
  return 0;
}

int hip_device_heap(struct hip_device *d, uint64_t *va)
{
  int err = 0;
  if (!d || !d->gpu || !va)
    return -EINVAL;
  bool cached = d->ordinal >= 0 && d->ordinal < HEAP_CACHE_DEVICES && !hip_after_fork();
  if (cached && (*va = atomic_load_explicit(&heap_cache[d->ordinal], memory_order_acquire)))
    return 0;
  pthread_mutex_lock(&heap_lock);
  struct device_heap *h = heap_state(d);
  if (!h)
    err = -ENOMEM;
  else if (!h->heap)
    err = alloc_zeroed(d, DEVICE_HEAP_OBJECT_SIZE, true, &h->heap);
  if (!err) {
    *va = mem_gpu_va(h->heap);
    if (cached)
      atomic_store_explicit(&heap_cache[d->ordinal], *va, memory_order_release);
  }
  pthread_mutex_unlock(&heap_lock);
  return err;
}

/* A block for the device library: slabs, slab-pointer arrays and large direct allocations.
 * Returns its GPU address, or 0 (the library's "out of memory"). */
static uint64_t devmem_alloc(struct hip_device *d, uint64_t size)
{
  void *p;
  uint64_t va = 0;
  if (!size || size > SIZE_MAX / 2 || alloc_zeroed(d, (size_t)size, false, &p))
    return 0;
  pthread_mutex_lock(&heap_lock);
  struct device_heap *h = heap_state(d);
  if (h && set_add(&h->blocks, mem_gpu_va(p)) == 0)
    va = mem_gpu_va(p);
  pthread_mutex_unlock(&heap_lock);
  if (!va)
    mem_free(p);
  return va;
}

static void devmem_free(struct hip_device *d, uint64_t va)
{
  bool known = false;
  pthread_mutex_lock(&heap_lock);
  struct device_heap *h = heap_state(d);
  if (h)
    known = set_remove(&h->blocks, va);
  pthread_mutex_unlock(&heap_lock);
  /* Device memory: GPU VA == CPU VA (mem.h). */
  if (known)
    mem_free((void *)(uintptr_t)va);
}

void hip_devmem_serve(struct hip_device *d, uint64_t *slot)
{
  uint64_t reply = 0;
  if (d && d->gpu) {
    if (slot[0])
      devmem_free(d, slot[0]);
    else
      reply = devmem_alloc(d, slot[1]);
  }
  slot[0] = reply;
  slot[1] = 0;
}
