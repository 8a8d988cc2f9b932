/* Memory: buffer objects (BOs) and the per-GPU page tables.
 *
 * A GTT BO is a memfd: it costs nothing until touched, the driver keeps its own shared mapping
 * of it (what the GPU side reads and writes), user space maps it through the render node at the
 * offset ALLOC returned, and the memfd doubles as the BO's dma-buf. A VRAM BO is the same but
 * is a range of its GPU's VRAM arena (vram_arena.c: one sparse memfd per GPU, so that ALLOC and
 * FREE make no system call; a 192 GiB profile is still free) until it is exported, when it moves
 * to a memfd of its own. USERPTR BOs are the caller's own pages; DOORBELL and MMIO_REMAP BOs
 * are the GPU's doorbell slice and MMIO page.
 *
 * Each GPU has a page table (an interval map GPU VA -> host) that only MAP_MEMORY_TO_GPU and
 * SVM access attributes fill: the GPU reaches only what was mapped to it. GPU VA may differ
 * from the CPU address (libhsakmt 5.2.3 registers USERPTR memory at a GPU VA of its choosing,
 * passing the CPU address in mmap_offset).
 *
 * Validation and errno follow kfd_chardev.c (kfd_ioctl_alloc/free/map/unmap_memory_of_gpu)
 * and amdgpu_amdkfd_gpuvm.c.
 */
#define _GNU_SOURCE
#include "kfd/uapi.h"   /* first: keeps the raw UAPI linux/types.h out */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kfd/kfd_priv.h"
#include "kfd/vram_arena.h"

#define VA_LIMIT (1ull << 48)   /* max_pfn of a 48-bit gfx9 VM */
#define DMABUF_PREFIX "/memfd:kfdsim-bo:"

struct sim_bo {
  uint32_t idr;
  struct sim_gpu *gpu;        /* the GPU whose VM holds its VA */
  uint32_t flags;             /* KFD_IOC_ALLOC_MEM_FLAGS_* */
  uint64_t va, size;          /* size page aligned; AQL queue memory occupies 2 x size of VA */
  int memfd;                  /* VRAM/GTT/imported: the backing memfd, else -1 */
  uint64_t file_off;          /* where the BO starts in memfd (its arena offset, else 0) */
  uint8_t *host;              /* the driver's view of the memory */
  bool owns_host;             /* host is our mapping of memfd (munmap on free) */
  bool in_arena;              /* memfd/host/file_off are a range of the GPU's VRAM arena */
  bool detached;              /* moved out of the arena at export: memfd is its own (closed on
                               * free), host still lies in the arena's view */
  uint64_t arena_off;         /* in_arena or detached: its range of the arena */
  bool touched;               /* mapped somewhere at some time: its pages may have been written */
  bool driver_ref;            /* the driver kept a pointer into it (the event page) */
  uint64_t mmap_offset;       /* render-node offset (VRAM/GTT) */
  uint32_t mapped_mask;       /* bit i: mapped on GPU i */
  uint32_t queue_refs;        /* queues using it (kfd_queue_buffer_get) */
  bool charged;               /* VRAM charged to the process (sim_vram_charge) */
  bool gtt_charged;           /* counted in gpu->gtt_used */
};

/* BOs by idr handle (1-based); protected by sim_drv.lock */
static struct sim_bo **bos;
static uint32_t n_bos;

/* ---- page tables ---------------------------------------------------------------------------- */

/* index of the first map with end > va */
static size_t vm_search(const struct sim_gpuvm *vm, uint64_t va)
{
  size_t lo = 0, hi = vm->n;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (vm->maps[mid].end <= va)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

int sim_vm_insert(struct sim_gpu *gpu, uint64_t start, uint64_t len, uint8_t *host, bool writable,
                  const void *owner)
{
  return sim_vm_insert_uc(gpu, start, len, host, writable, false, owner);
}

int sim_vm_insert_uc(struct sim_gpu *gpu, uint64_t start, uint64_t len, uint8_t *host,
                     bool writable, bool sys_uc, const void *owner)
{
  struct sim_gpuvm *vm = &gpu->vm;
  int r = 0;
  pthread_rwlock_wrlock(&vm->lock);
  size_t i = vm_search(vm, start);
  if (i < vm->n && vm->maps[i].start < start + len) {
    r = -EINVAL;
  } else if (vm->n == vm->cap) {
    size_t cap = vm->cap ? vm->cap * 2 : 64;
    struct sim_vm_map *m = realloc(vm->maps, cap * sizeof(*m));
    if (!m)
      r = -ENOMEM;
    else {
      vm->maps = m;
      vm->cap = cap;
    }
  }
  if (!r) {
    memmove(&vm->maps[i + 1], &vm->maps[i], (vm->n - i) * sizeof(vm->maps[0]));
    vm->maps[i] = (struct sim_vm_map){ .start = start, .end = start + len, .host = host,
                                       .writable = writable, .sys_uc = sys_uc, .owner = owner };
    vm->n++;
  }
  pthread_rwlock_unlock(&vm->lock);
  return r;
}

void sim_vm_remove_owner(struct sim_gpu *gpu, const void *owner)
{
  struct sim_gpuvm *vm = &gpu->vm;
  pthread_rwlock_wrlock(&vm->lock);
  size_t k = 0;
  for (size_t i = 0; i < vm->n; i++)
    if (vm->maps[i].owner != owner)
      vm->maps[k++] = vm->maps[i];
  if (k != vm->n)
    atomic_fetch_add_explicit(&vm->generation, 1, memory_order_release);
  vm->n = k;
  pthread_rwlock_unlock(&vm->lock);
}

bool sim_vm_lookup(struct sim_gpu *gpu, uint64_t va, struct sim_vm_map *out)
{
  struct sim_gpuvm *vm = &gpu->vm;
  bool found = false;
  pthread_rwlock_rdlock(&vm->lock);
  size_t i = vm_search(vm, va);
  if (i < vm->n && vm->maps[i].start <= va) {
    *out = vm->maps[i];
    found = true;
  }
  pthread_rwlock_unlock(&vm->lock);
  return found;
}

void sim_vm_reset(struct sim_gpu *gpu)
{
  pthread_rwlock_wrlock(&gpu->vm.lock);
  gpu->vm.n = 0;
  atomic_fetch_add_explicit(&gpu->vm.generation, 1, memory_order_release);
  pthread_rwlock_unlock(&gpu->vm.lock);
}

/* A translation cache per host thread, as a GPU has TLBs: amdkfd flushes them when it unmaps
 * memory (UNMAP_MEMORY_FROM_GPU, kfd_flush_tlb), here removing a map bumps the VM's generation
 * and a cache that sees a new one starts empty. A new map needs no flush (maps never overlap).
 * The dispatch of an empty kernel translated ~10 addresses, each a binary search under the VM's
 * read lock (~1000 instructions and a shared cache line per dispatch). */
#define TLB_ENTRIES 4
struct tlb {
  const struct sim_gpu *gpu;
  uint64_t generation;
  unsigned next;
  struct sim_vm_map map[TLB_ENTRIES]; /* empty entries have end == 0 */
};
/* initial-exec: kfdsim is preloaded (static TLS), and a lookup must not call __tls_get_addr. */
static _Thread_local struct tlb tlb __attribute__((tls_model("initial-exec")));

static bool tlb_lookup(struct sim_gpu *gpu, uint64_t va, struct sim_vm_map *out)
{
  uint64_t gen = atomic_load_explicit(&gpu->vm.generation, memory_order_acquire);
  if (tlb.gpu == gpu && tlb.generation == gen) {
    for (unsigned i = 0; i < TLB_ENTRIES; i++)
      if (va - tlb.map[i].start < tlb.map[i].end - tlb.map[i].start) {
        *out = tlb.map[i];
        return true;
      }
  } else {
    memset(&tlb, 0, sizeof(tlb));
    tlb.gpu = gpu;
    tlb.generation = gen;
  }
  if (!sim_vm_lookup(gpu, va, out))
    return false;
  /* Tagged with the generation read before the lookup: a map removed since is flushed by the
   * next lookup. */
  tlb.map[tlb.next++ % TLB_ENTRIES] = *out;
  return true;
}

bool sim_gpuvm_sys_uncached(struct sim_gpu *gpu, uint64_t va)
{
  struct sim_vm_map m;
  return gpu && tlb_lookup(gpu, va, &m) && m.sys_uc;
}

void *sim_gpuvm_translate(struct sim_gpu *gpu, uint64_t va, uint64_t len, bool write)
{
  struct sim_vm_map m;
  if (!gpu || va + len < va || !tlb_lookup(gpu, va, &m))
    return NULL;
  if (va + len > m.end || (write && !m.writable))
    return NULL;
  return m.host + (va - m.start);
}

/* ---- BO table ------------------------------------------------------------------------------- */

static int bo_insert(struct sim_bo *bo)
{
  for (uint32_t i = 0; i < n_bos; i++)
    if (!bos[i]) {
      bos[i] = bo;
      bo->idr = i + 1;
      return 0;
    }
  struct sim_bo **t = realloc(bos, (n_bos + 64) * sizeof(*t));
  if (!t)
    return -ENOMEM;
  memset(t + n_bos, 0, 64 * sizeof(*t));
  bos = t;
  bos[n_bos] = bo;
  bo->idr = n_bos + 1;
  n_bos += 64;
  return 0;
}

struct sim_bo *sim_bo_lookup(uint64_t handle)
{
  uint32_t idr = SIM_HANDLE_IDR(handle);
  if (!idr || idr > n_bos || !bos[idr - 1])
    return NULL;
  struct sim_bo *bo = bos[idr - 1];
  return bo->gpu->gpu_id == SIM_HANDLE_GPU(handle) ? bo : NULL;
}

static void bo_release(struct sim_bo *bo);
static void gem_release_all(void);
static void gem_reset(void);
static bool gem_va_conflict(const struct sim_gpu *gpu, uint64_t va, uint64_t span);

/* Process teardown: every BO goes, mapped or not (the process's own CPU mappings of their
 * memfds stay valid until it unmaps them, as pages of a freed BO stay until the last mmap). */
void sim_memory_release(void)
{
  gem_release_all();
  for (uint32_t i = 0; i < n_bos; i++)
    if (bos[i]) {
      bos[i]->queue_refs = 0;
      bo_release(bos[i]);
    }
  for (uint32_t g = 0; g < sim_drv.n_gpus; g++)
    sim_vm_reset(&sim_drv.gpus[g]);
  sim_arena_drain();
}

void sim_memory_reset(void)
{
  bos = NULL;     /* the parent's table after fork: abandoned, not freed */
  n_bos = 0;
  gem_reset();
  sim_arena_reset();
}

static uint64_t bo_va_span(const struct sim_bo *bo)
{
  return bo->flags & KFD_IOC_ALLOC_MEM_FLAGS_AQL_QUEUE_MEM ? bo->size * 2 : bo->size;
}

/* amdgpu_vm_bo_map: a new VA range must not overlap a BO already in that GPU's VM. */
static bool va_conflict(const struct sim_gpu *gpu, uint64_t va, uint64_t span)
{
  for (uint32_t i = 0; i < n_bos; i++) {
    struct sim_bo *b = bos[i];
    if (b && b->gpu == gpu && va < b->va + bo_va_span(b) && b->va < va + span)
      return true;
  }
  return false;
}

struct sim_bo *sim_queue_buffer_get(struct sim_gpu *gpu, uint64_t va, uint64_t size)
{
  /* kfd_queue_buffer_get: the page of `va` must start a mapping of the GPU's VM backed by a
   * BO and, when the expected size is at least a page, the mapping must be exactly that long.
   * The BO then holds a queue reference (unmapping it fails with -EBUSY). */
  struct sim_vm_map m;
  uint64_t pages = size / SIM_PAGE_SIZE;
  if (!sim_vm_lookup(gpu, va, &m) || m.start != (va & ~(SIM_PAGE_SIZE - 1)))
    return NULL;
  if (pages && m.end - m.start != pages * SIM_PAGE_SIZE)
    return NULL;
  for (uint32_t i = 0; i < n_bos; i++)
    if (bos[i] && bos[i] == m.owner) {
      bos[i]->queue_refs++;
      return bos[i];
    }
  return NULL;
}

void sim_queue_buffer_put(struct sim_bo *bo)
{
  if (bo && bo->queue_refs)
    bo->queue_refs--;
}

void *sim_bo_host(struct sim_bo *bo, uint64_t *size)
{
  bo->touched = true;   /* the driver itself writes it (the event page) */
  bo->driver_ref = true;
  if (size)
    *size = bo->size;
  return bo->host;
}

/* ---- allocation --------------------------------------------------------------------------------- */

/* The name of a BO's memfd: how dmabuf_identify recognises a kfdsim dma-buf (its exporter's GPU
 * and domain). */
static void dmabuf_name(char *name, size_t len, const struct sim_gpu *gpu, uint32_t flags)
{
  snprintf(name, len, "kfdsim-bo:%u:%x", gpu->gpu_id,
           flags & (KFD_IOC_ALLOC_MEM_FLAGS_VRAM | KFD_IOC_ALLOC_MEM_FLAGS_GTT));
}

static int memfd_for(struct sim_gpu *gpu, uint32_t flags, uint64_t size, int *fd_out, uint8_t **host)
{
  char name[64];
  dmabuf_name(name, sizeof(name), gpu, flags);
  int fd = memfd_create(name, MFD_CLOEXEC);
  if (fd < 0)
    return -errno;
  if (ftruncate(fd, (off_t)size)) {
    int e = -errno;
    close(fd);
    return e == -EFBIG || e == -EINVAL ? -ENOMEM : e;
  }
  void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, 0);
  if (p == MAP_FAILED) {
    close(fd);
    return -ENOMEM;
  }
  *fd_out = fd;
  *host = p;
  return 0;
}

/* The process doorbell slice and MMIO page of a GPU, created on first use
 * (kfd_alloc_process_doorbells). */
int sim_gpu_doorbells(struct sim_gpu *g)
{
  if (g->doorbell_fd >= 0)
    return 0;
  int fd = memfd_create("kfdsim-doorbells", MFD_CLOEXEC);
  if (fd < 0)
    return -errno;
  void *p = MAP_FAILED;
  if (!ftruncate(fd, SIM_DOORBELL_SLICE))
    p = mmap(NULL, SIM_DOORBELL_SLICE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) {
    close(fd);
    return -ENOMEM;
  }
  g->doorbell_fd = fd;
  g->doorbells = p;
  return 0;
}

static int gpu_mmio(struct sim_gpu *g)
{
  if (g->mmio_fd >= 0)
    return 0;
  int fd = memfd_create("kfdsim-mmio", MFD_CLOEXEC);
  if (fd < 0)
    return -errno;
  void *p = MAP_FAILED;
  if (!ftruncate(fd, SIM_PAGE_SIZE))
    p = mmap(NULL, SIM_PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) {
    close(fd);
    return -ENOMEM;
  }
  g->mmio_fd = fd;
  g->mmio = p;
  return 0;
}

/* Every page of [addr, addr+len) is mapped in this process (vma_lookup in the kernel). */
static bool user_range_valid(uint64_t addr, uint64_t len)
{
  if (!addr || addr & (SIM_PAGE_SIZE - 1) || addr + len < addr)
    return false;
  unsigned char vec[256];
  for (uint64_t off = 0; off < len; off += sizeof(vec) * SIM_PAGE_SIZE) {
    uint64_t chunk = len - off < sizeof(vec) * SIM_PAGE_SIZE ? len - off : sizeof(vec) * SIM_PAGE_SIZE;
    if (mincore((void *)(uintptr_t)(addr + off), chunk, vec))
      return false;
  }
  return true;
}

static int alloc_backing(struct sim_bo *bo, uint64_t user_addr)
{
  struct sim_gpu *g = bo->gpu;
  uint32_t f = bo->flags;
  if (f & (KFD_IOC_ALLOC_MEM_FLAGS_VRAM | KFD_IOC_ALLOC_MEM_FLAGS_GTT)) {
    int r;
    if ((f & KFD_IOC_ALLOC_MEM_FLAGS_VRAM) && (r = sim_vram_charge(g, bo->size)))
      return r;    /* amdgpu_amdkfd_reserve_mem_limit; bo_release gives a charge back */
    bo->charged = f & KFD_IOC_ALLOC_MEM_FLAGS_VRAM;
    r = -ENOSPC;
    if (f & KFD_IOC_ALLOC_MEM_FLAGS_VRAM)
      r = sim_arena_alloc(g, bo->size, &bo->file_off, &bo->memfd, &bo->host);
    if (!r) {
      bo->in_arena = true;
      bo->arena_off = bo->file_off;
    } else {
      /* GTT, or no room in the arena: a file of its own */
      if ((r = memfd_for(g, f, bo->size, &bo->memfd, &bo->host)))
        return r;
      bo->owns_host = true;
    }
    bo->mmap_offset = sim_drv.next_mmap_offset;
    sim_drv.next_mmap_offset += SIM_ALIGN(bo->size, 1ull << 21);
    if (!(f & KFD_IOC_ALLOC_MEM_FLAGS_VRAM)) {
      g->gtt_used += bo->size;   /* what AMDGPU_INFO_GTT_USAGE reports (drm.c) */
      bo->gtt_charged = true;
    }
    return 0;
  }
  if (f & KFD_IOC_ALLOC_MEM_FLAGS_USERPTR) {
    if (!user_range_valid(user_addr, bo->size))
      return -EFAULT;
    bo->host = (uint8_t *)(uintptr_t)user_addr;
    bo->mmap_offset = user_addr;
    return 0;
  }
  if (f & KFD_IOC_ALLOC_MEM_FLAGS_DOORBELL) {
    int r = sim_gpu_doorbells(g);
    bo->host = g->doorbells;
    bo->mmap_offset = SIM_MMAP_TYPE_DOORBELL | SIM_MMAP_GPU_ID(g->gpu_id);
    return r;
  }
  int r = gpu_mmio(g);
  bo->host = g->mmio;
  bo->mmap_offset = SIM_MMAP_TYPE_MMIO | SIM_MMAP_GPU_ID(g->gpu_id);
  return r;
}

static void bo_release(struct sim_bo *bo)
{
  for (uint32_t i = 0; i < sim_drv.n_gpus; i++)
    if (bo->mapped_mask & (1u << i))
      sim_vm_remove_owner(&sim_drv.gpus[i], bo);
  if (bo->owns_host)
    munmap(bo->host, bo->size);
  if (bo->in_arena && !bo->driver_ref)
    sim_arena_free(bo->gpu, bo->arena_off, bo->size, bo->touched);
  /* (a range the driver kept a pointer into is never reused: a stale write lands nowhere) */
  if (bo->detached)
    sim_arena_detached_free(bo->gpu, bo->arena_off, bo->size);
  if (bo->memfd >= 0 && !bo->in_arena)
    close(bo->memfd);
  if (bo->charged)
    sim_vram_uncharge(bo->gpu, bo->size);
  if (bo->gtt_charged)
    bo->gpu->gtt_used -= bo->size;
  if (bo->idr)
    bos[bo->idr - 1] = NULL;
  free(bo);
}

static int check_new_va(struct sim_gpu *g, uint64_t va, uint64_t span)
{
  if (va & (SIM_PAGE_SIZE - 1) || va + span < va || va + span > VA_LIMIT)
    return -EINVAL;
  if (va_conflict(g, va, span) || gem_va_conflict(g, va, span))
    return -EINVAL;
  return 0;
}

static int alloc_locked(struct kfd_ioctl_alloc_memory_of_gpu_args *a)
{
  const uint32_t domains = KFD_IOC_ALLOC_MEM_FLAGS_VRAM | KFD_IOC_ALLOC_MEM_FLAGS_GTT |
                           KFD_IOC_ALLOC_MEM_FLAGS_USERPTR | KFD_IOC_ALLOC_MEM_FLAGS_DOORBELL |
                           KFD_IOC_ALLOC_MEM_FLAGS_MMIO_REMAP;
  uint64_t user_addr = a->mmap_offset;
  if (a->size == 0)
    return -EINVAL;
  if (sim_svm_overlaps(a->va_addr, a->size))
    return -EADDRINUSE;   /* "Address already allocated by SVM" */
  if ((a->flags & KFD_IOC_ALLOC_MEM_FLAGS_USERPTR) && sim_svm_overlaps(user_addr, a->size))
    return -EADDRINUSE;
  struct sim_gpu *g = sim_gpu_by_id(a->gpu_id);
  if (!g)
    return -EINVAL;
  if (!g->vm_acquired)
    return -ENODEV;
  if ((a->flags & KFD_IOC_ALLOC_MEM_FLAGS_DOORBELL) && a->size != SIM_DOORBELL_SLICE)
    return -EINVAL;
  if ((a->flags & KFD_IOC_ALLOC_MEM_FLAGS_MMIO_REMAP) && a->size != SIM_PAGE_SIZE)
    return -EINVAL;
  if (!(a->flags & domains))
    return -EINVAL;
  uint64_t size = SIM_ALIGN(a->size, SIM_PAGE_SIZE);
  bool aql = a->flags & KFD_IOC_ALLOC_MEM_FLAGS_AQL_QUEUE_MEM;
  int r = check_new_va(g, a->va_addr, aql ? size * 2 : size);
  if (r)
    return r;
  struct sim_bo *bo = calloc(1, sizeof(*bo));
  if (!bo)
    return -ENOMEM;
  bo->gpu = g;
  bo->flags = a->flags;
  bo->va = a->va_addr;
  bo->size = size;
  bo->memfd = -1;
  /* the first domain bit wins, as in amdgpu_amdkfd_gpuvm_alloc_memory_of_gpu */
  uint32_t d = a->flags & domains;
  bo->flags = (a->flags & ~domains) | (d & -d);
  r = alloc_backing(bo, user_addr);
  if (!r)
    r = bo_insert(bo);
  if (r) {
    bo->idr = 0;
    bo_release(bo);
    return r;
  }
  a->handle = SIM_HANDLE(g->gpu_id, bo->idr);
  a->mmap_offset = bo->mmap_offset;
  SIM_DBG("alloc gpu %u va 0x%llx size 0x%llx flags 0x%x -> handle 0x%llx", g->gpu_id,
          (unsigned long long)bo->va, (unsigned long long)size, bo->flags, (unsigned long long)a->handle);
  return 0;
}

int sim_ioctl_alloc_memory_of_gpu(void *arg)
{
  pthread_mutex_lock(&sim_drv.lock);
  int r = alloc_locked(arg);
  pthread_mutex_unlock(&sim_drv.lock);
  return r;
}

int sim_ioctl_free_memory_of_gpu(void *arg)
{
  struct kfd_ioctl_free_memory_of_gpu_args *a = arg;
  int r = 0;
  pthread_mutex_lock(&sim_drv.lock);
  struct sim_bo *bo = sim_gpu_by_id(SIM_HANDLE_GPU(a->handle)) ? sim_bo_lookup(a->handle) : NULL;
  if (!bo)
    r = -EINVAL;
  else if (bo->mapped_mask || bo->queue_refs)
    r = -EBUSY;   /* "BO is still mapped" (amdgpu_amdkfd_gpuvm_free_memory_of_gpu) */
  else
    bo_release(bo);
  pthread_mutex_unlock(&sim_drv.lock);
  return r;
}

/* ---- mapping to GPUs ------------------------------------------------------------------------------ */

/* amdgpu_amdkfd_gpuvm.c get_pte_flags (gfx 9.4.2): GTT and USERPTR memory allocated COHERENT
 * or UNCACHED is mapped MTYPE UC; other system memory NC. Only the interpreter's gfx90a
 * float-atomic rule reads it. */
static bool bo_sys_uncached(const struct sim_bo *bo)
{
  return (bo->flags & (KFD_IOC_ALLOC_MEM_FLAGS_GTT | KFD_IOC_ALLOC_MEM_FLAGS_USERPTR)) &&
         (bo->flags & (KFD_IOC_ALLOC_MEM_FLAGS_COHERENT | KFD_IOC_ALLOC_MEM_FLAGS_UNCACHED));
}

static int map_one(struct sim_bo *bo, struct sim_gpu *peer)
{
  uint32_t bit = 1u << peer->index;
  if (bo->mapped_mask & bit)
    return 0;   /* already mapped on this VM: nothing to do */
  if (peer != bo->gpu && va_conflict(peer, bo->va, bo_va_span(bo)))
    return -EINVAL;
  bool w = bo->flags & KFD_IOC_ALLOC_MEM_FLAGS_WRITABLE;
  bo->touched = true;
  int r = sim_vm_insert_uc(peer, bo->va, bo->size, bo->host, w, bo_sys_uncached(bo), bo);
  if (!r && (bo->flags & KFD_IOC_ALLOC_MEM_FLAGS_AQL_QUEUE_MEM))
    r = sim_vm_insert(peer, bo->va + bo->size, bo->size, bo->host, w, bo);  /* ring mapped twice */
  if (r) {
    sim_vm_remove_owner(peer, bo);
    return r;
  }
  bo->mapped_mask |= bit;
  return 0;
}

static int unmap_one(struct sim_bo *bo, struct sim_gpu *peer)
{
  uint32_t bit = 1u << peer->index;
  if (!(bo->mapped_mask & bit))
    return 0;
  if (bo->queue_refs)
    return -EBUSY;   /* still used by a queue (kfd_queue_buffer_get reference) */
  sim_vm_remove_owner(peer, bo);
  bo->mapped_mask &= ~bit;
  return 0;
}

/* The n_success protocol: devices [n_success, n_devices) are processed in order and n_success
 * advances past each one done, so a caller can retry after a failure. */
static int map_ioctl(struct kfd_ioctl_map_memory_to_gpu_args *a, bool map)
{
  if (!a->n_devices || a->n_success > a->n_devices)
    return -EINVAL;
  uint32_t ids[SIM_MAX_GPUS * 4];
  if (a->n_devices > sizeof(ids) / sizeof(ids[0]))
    return -EINVAL;   /* more devices than exist: at least one id is unknown */
  if (sim_copy_from_user(ids, a->device_ids_array_ptr, a->n_devices * sizeof(ids[0])))
    return -EFAULT;
  struct sim_gpu *g = sim_gpu_by_id(SIM_HANDLE_GPU(a->handle));
  if (!g)
    return -EINVAL;
  if (!g->vm_acquired)
    return -ENODEV;
  struct sim_bo *bo = sim_bo_lookup(a->handle);
  if (!bo)
    return map ? -ENOMEM : -EINVAL;
  for (uint32_t i = a->n_success; i < a->n_devices; i++) {
    struct sim_gpu *peer = sim_gpu_by_id(ids[i]);
    if (!peer)
      return -EINVAL;
    if (!peer->vm_acquired)
      return -ENODEV;
    int r = map ? map_one(bo, peer) : unmap_one(bo, peer);
    if (r)
      return r;
    a->n_success = i + 1;
  }
  return 0;
}

int sim_ioctl_map_memory_to_gpu(void *arg)
{
  pthread_mutex_lock(&sim_drv.lock);
  int r = map_ioctl(arg, true);
  pthread_mutex_unlock(&sim_drv.lock);
  return r;
}

int sim_ioctl_unmap_memory_from_gpu(void *arg)
{
  _Static_assert(sizeof(struct kfd_ioctl_map_memory_to_gpu_args) ==
                 sizeof(struct kfd_ioctl_unmap_memory_from_gpu_args), "same layout");
  pthread_mutex_lock(&sim_drv.lock);
  int r = map_ioctl(arg, false);
  pthread_mutex_unlock(&sim_drv.lock);
  return r;
}

/* ---- render node mmap ----------------------------------------------------------------------------- */

void *sim_render_mmap(struct sim_file *f, void *addr, size_t len, int prot, int flags,
                      uint64_t offset, int *err)
{
  void *p = MAP_FAILED;
  *err = -EINVAL;
  pthread_mutex_lock(&sim_drv.lock);
  for (uint32_t i = 0; i < n_bos; i++) {
    struct sim_bo *b = bos[i];
    if (!b || b->memfd < 0 || offset < b->mmap_offset || offset >= b->mmap_offset + b->size)
      continue;
    if (b->gpu != f->gpu || offset + len > b->mmap_offset + b->size)
      break;   /* another device's BO, or past its end: drm_vma lookup fails */
    b->touched = true;
    p = mmap(addr, len, prot, (flags & ~MAP_PRIVATE) | MAP_SHARED, b->memfd,
             (off_t)(b->file_off + offset - b->mmap_offset));
    *err = p == MAP_FAILED ? -errno : 0;
    break;
  }
  pthread_mutex_unlock(&sim_drv.lock);
  return p;
}

/* ---- dma-buf: the BO's memfd, recognised by its name ------------------------------------------------ */

/* 0 with the exporter's gpu_id/domain flags/size when `fd` is one of our dma-bufs. */
static int dmabuf_identify(int fd, uint32_t *gpu_id, uint32_t *flags, uint64_t *size)
{
  char link[64], target[128];
  struct stat st;
  snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
  ssize_t n = readlink(link, target, sizeof(target) - 1);
  if (n <= 0)
    return -EINVAL;
  target[n] = 0;
  if (strncmp(target, DMABUF_PREFIX, sizeof(DMABUF_PREFIX) - 1) ||
      sscanf(target + sizeof(DMABUF_PREFIX) - 1, "%u:%x", gpu_id, flags) != 2)
    return -EINVAL;
  if (fstat(fd, &st))
    return -EINVAL;
  *size = (uint64_t)st.st_size;
  return 0;
}

/* A dma-buf is exactly its BO (mmap offsets, size); an arena range is not a file of its own, so
 * an arena BO moves to one before its first export (vram_arena.c). */
static int bo_detach(struct sim_bo *bo)
{
  char name[64];
  int fd;
  if (!bo->in_arena)
    return 0;
  dmabuf_name(name, sizeof(name), bo->gpu, bo->flags);
  int r = sim_arena_detach(bo->gpu, bo->arena_off, bo->size, name, &fd);
  if (r)
    return r;
  bo->in_arena = false;
  bo->detached = true;
  bo->memfd = fd;
  bo->file_off = 0;
  return 0;
}

/* How long an export waits for the GPU to finish its runs of packets before it copies anyway
 * (a kernel may spin on memory only the host writes: no wait could end then). */
#define EXPORT_QUIESCE_NS 200000000ull

int sim_ioctl_export_dmabuf(void *arg)
{
  struct kfd_ioctl_export_dmabuf_args *a = arg;
  int r;
  /* A detach copies the BO: the GPU must not write it meanwhile, as the kernel evicts a
   * process's queues while it moves a BO. Paused before sim_drv.lock, which workers may take. */
  if (!sim_cp_pause(EXPORT_QUIESCE_NS))
    sim_log("export: the GPU did not go quiet in time; copying while it runs");
  pthread_mutex_lock(&sim_drv.lock);
  struct sim_bo *bo = sim_gpu_by_id(SIM_HANDLE_GPU(a->handle)) ? sim_bo_lookup(a->handle) : NULL;
  if (!bo || bo->memfd < 0) {
    r = -EINVAL;   /* unknown handle, or USERPTR/DOORBELL/MMIO memory (no GEM object to export) */
  } else if (a->flags & ~(uint32_t)(O_CLOEXEC | O_RDWR | O_WRONLY | O_RDONLY)) {
    r = -EINVAL;
  } else if (!(r = bo_detach(bo))) {
    int fd = fcntl(bo->memfd, (a->flags & O_CLOEXEC) ? F_DUPFD_CLOEXEC : F_DUPFD, 0);
    r = fd < 0 ? -errno : 0;
    if (!r)
      a->dmabuf_fd = (uint32_t)fd;
  }
  pthread_mutex_unlock(&sim_drv.lock);
  sim_cp_resume();
  return r;
}

int sim_ioctl_get_dmabuf_info(void *arg)
{
  struct kfd_ioctl_get_dmabuf_info_args *a = arg;
  uint32_t gpu_id, flags;
  uint64_t size;
  int r = dmabuf_identify((int)a->dmabuf_fd, &gpu_id, &flags, &size);
  if (r)
    return r;
  a->size = size;
  a->gpu_id = gpu_id;
  a->flags = flags;
  a->metadata_size = 0;   /* kfdsim BOs carry no UMD metadata */
  return 0;
}

static int import_locked(struct kfd_ioctl_import_dmabuf_args *a)
{
  uint32_t exp_gpu, flags;
  uint64_t size;
  struct sim_gpu *g = sim_gpu_by_id(a->gpu_id);
  if (!g)
    return -EINVAL;
  if (!g->vm_acquired)
    return -ENODEV;
  int r = dmabuf_identify((int)a->dmabuf_fd, &exp_gpu, &flags, &size);
  if (r)
    return r;
  if ((r = check_new_va(g, a->va_addr, size)))
    return r;
  struct sim_bo *bo = calloc(1, sizeof(*bo));
  if (!bo)
    return -ENOMEM;
  bo->gpu = g;
  bo->va = a->va_addr;
  bo->size = size;
  /* amdgpu_amdkfd_gpuvm_import_dmabuf: the exporter's domain, writable and executable */
  bo->flags = flags | KFD_IOC_ALLOC_MEM_FLAGS_WRITABLE | KFD_IOC_ALLOC_MEM_FLAGS_EXECUTABLE;
  bo->memfd = fcntl((int)a->dmabuf_fd, F_DUPFD_CLOEXEC, 0);
  if (bo->memfd < 0) {
    free(bo);
    return -errno;
  }
  void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, bo->memfd, 0);
  if (p == MAP_FAILED) {
    close(bo->memfd);
    free(bo);
    return -ENOMEM;
  }
  bo->host = p;
  bo->owns_host = true;
  bo->mmap_offset = sim_drv.next_mmap_offset;
  sim_drv.next_mmap_offset += SIM_ALIGN(size, 1ull << 21);
  if ((r = bo_insert(bo))) {
    bo->idr = 0;
    bo_release(bo);
    return r;
  }
  a->handle = SIM_HANDLE(g->gpu_id, bo->idr);
  return 0;
}

int sim_ioctl_import_dmabuf(void *arg)
{
  pthread_mutex_lock(&sim_drv.lock);
  int r = import_locked(arg);
  pthread_mutex_unlock(&sim_drv.lock);
  return r;
}

/* ---- GEM objects of render files ---------------------------------------------------------------
 *
 * ROCr's virtual-memory API does not go through KFD for mappings: it imports a BO's dma-buf into
 * the render node (DRM_IOCTL_PRIME_FD_TO_HANDLE) and maps any page range of it at any VA with
 * DRM_IOCTL_AMDGPU_GEM_VA, which writes the same GPU VM that ACQUIRE_VM gave to KFD. Here a GEM
 * object is the dma-buf's memfd plus the driver's view of it; a GEM_VA mapping is one entry of
 * the GPU's page table, tagged with its struct gem_va. All lists are protected by sim_drv.lock. */

struct gem_obj {
  struct sim_file *file;      /* handles are per open render file (drm_file) */
  uint32_t handle;
  int memfd;
  uint8_t *host;
  uint64_t size;
  dev_t dev;                  /* the dma-buf's identity: one handle per buffer and file */
  ino_t ino;
  struct gem_obj *next;
};

struct gem_va {
  struct gem_obj *obj;
  struct sim_gpu *gpu;        /* NULL when the file's VM is not the one KFD acquired */
  uint64_t va, size;
  struct gem_va *next;
};

static struct gem_obj *gem_objs;
static struct gem_va *gem_vas;
static uint32_t gem_next_handle = 1;

/* amdgpu_vm_bo_map on behalf of KFD: a BO's VA must not overlap a GEM_VA mapping of the VM. */
static bool gem_va_conflict(const struct sim_gpu *gpu, uint64_t va, uint64_t span)
{
  for (struct gem_va *v = gem_vas; v; v = v->next)
    if (v->gpu == gpu && va < v->va + v->size && v->va < va + span)
      return true;
  return false;
}

static struct gem_obj *gem_lookup(const struct sim_file *f, uint32_t handle)
{
  for (struct gem_obj *o = gem_objs; o; o = o->next)
    if (o->file == f && o->handle == handle)
      return o;
  return NULL;
}

static void gem_va_remove(struct gem_va *v)
{
  for (struct gem_va **pp = &gem_vas; *pp; pp = &(*pp)->next) {
    if (*pp == v) {
      *pp = v->next;
      break;
    }
  }
  if (v->gpu)
    sim_vm_remove_owner(v->gpu, v);
  free(v);
}

static void gem_obj_free(struct gem_obj *o)
{
  /* amdgpu_gem_object_close: closing the handle removes the BO's mappings from the file's VM */
  for (struct gem_va *v = gem_vas, *next; v; v = next) {
    next = v->next;
    if (v->obj == o)
      gem_va_remove(v);
  }
  for (struct gem_obj **pp = &gem_objs; *pp; pp = &(*pp)->next) {
    if (*pp == o) {
      *pp = o->next;
      break;
    }
  }
  munmap(o->host, o->size);
  close(o->memfd);
  free(o);
}

void sim_gem_file_release(struct sim_file *f)
{
  for (struct gem_obj *o = gem_objs, *next; o; o = next) {
    next = o->next;
    if (o->file == f)
      gem_obj_free(o);
  }
}

/* Process teardown and fork: the child's lists start empty (the parent's are abandoned). */
static void gem_release_all(void)
{
  while (gem_objs)
    gem_obj_free(gem_objs);
}

static void gem_reset(void)
{
  gem_objs = NULL;
  gem_vas = NULL;
}

/* drm_gem_prime_fd_to_handle: a dma-buf already imported through this file gets its old handle
 * back (drm_prime_lookup_buf_handle). Only kfdsim dma-bufs are accepted; amdgpu would attach a
 * foreign one, which this driver has no memory model for. */
static int gem_import_locked(struct sim_file *f, struct drm_prime_handle *a)
{
  uint32_t gpu_id, flags;
  uint64_t size;
  struct stat st;
  int r = dmabuf_identify(a->fd, &gpu_id, &flags, &size);
  if (r)
    return r;
  if (fstat(a->fd, &st))
    return -EBADF;
  for (struct gem_obj *o = gem_objs; o; o = o->next) {
    if (o->file == f && o->dev == st.st_dev && o->ino == st.st_ino) {
      a->handle = o->handle;
      return 0;
    }
  }
  struct gem_obj *o = calloc(1, sizeof(*o));
  if (!o)
    return -ENOMEM;
  o->memfd = fcntl(a->fd, F_DUPFD_CLOEXEC, 0);
  if (o->memfd < 0) {
    free(o);
    return -errno;
  }
  o->host = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, o->memfd, 0);
  if (o->host == MAP_FAILED) {
    close(o->memfd);
    free(o);
    return -ENOMEM;
  }
  o->file = f;
  o->size = size;
  o->dev = st.st_dev;
  o->ino = st.st_ino;
  o->handle = gem_next_handle++;
  o->next = gem_objs;
  gem_objs = o;
  a->handle = o->handle;
  return 0;
}

int sim_gem_prime_import(struct sim_file *f, struct drm_prime_handle *a)
{
  pthread_mutex_lock(&sim_drv.lock);
  int r = gem_import_locked(f, a);
  pthread_mutex_unlock(&sim_drv.lock);
  return r;
}

/* drm_gem_handle_delete: an unknown handle is -EINVAL */
int sim_gem_close(struct sim_file *f, const struct drm_gem_close *a)
{
  pthread_mutex_lock(&sim_drv.lock);
  struct gem_obj *o = gem_lookup(f, a->handle);
  if (o)
    gem_obj_free(o);
  pthread_mutex_unlock(&sim_drv.lock);
  return o ? 0 : -EINVAL;
}

/* amdgpu_vm_bo_map: page-aligned start, offset and size, inside the BO, no wrap, and no overlap
 * with another mapping of the VM. */
static int gem_map_locked(struct sim_file *f, struct gem_obj *o, const struct drm_amdgpu_gem_va *a)
{
  uint64_t va = a->va_address, off = a->offset_in_bo, size = a->map_size;
  if ((va | off | size) & (SIM_PAGE_SIZE - 1) || va + size <= va || off + size > o->size ||
      off + size < off)
    return -EINVAL;
  for (struct gem_va *v = gem_vas; v; v = v->next)
    if (v->obj->file == f && va < v->va + v->size && v->va < va + size)
      return -EINVAL;
  struct gem_va *v = calloc(1, sizeof(*v));
  if (!v)
    return -ENOMEM;
  v->obj = o;
  v->va = va;
  v->size = size;
  /* Only the VM that ACQUIRE_VM handed to KFD is one the emulated GPU runs in. */
  struct sim_gpu *g = f->gpu && f->gpu->drm_file == f ? f->gpu : NULL;
  if (g) {
    if (va_conflict(g, va, size)) {
      free(v);
      return -EINVAL;
    }
    int r = sim_vm_insert(g, va, size, o->host + off, a->flags & AMDGPU_VM_PAGE_WRITEABLE, v);
    if (r) {
      free(v);
      return r;
    }
  }
  v->gpu = g;
  v->next = gem_vas;
  gem_vas = v;
  return 0;
}

/* amdgpu_vm_bo_unmap: the mapping of this BO that starts at va, else -ENOENT */
static int gem_unmap_locked(struct sim_file *f, struct gem_obj *o, uint64_t va)
{
  for (struct gem_va *v = gem_vas; v; v = v->next) {
    if (v->obj == o && v->obj->file == f && v->va == va) {
      gem_va_remove(v);
      return 0;
    }
  }
  return -ENOENT;
}

/* amdgpu_gem_va_ioctl's checks, in its order. CLEAR and REPLACE are not emulated. */
int sim_gem_va(struct sim_file *f, struct drm_amdgpu_gem_va *a)
{
  const uint32_t valid = AMDGPU_VM_DELAY_UPDATE | AMDGPU_VM_PAGE_READABLE | AMDGPU_VM_PAGE_WRITEABLE |
                         AMDGPU_VM_PAGE_EXECUTABLE | AMDGPU_VM_MTYPE_MASK | AMDGPU_VM_PAGE_NOALLOC;
  const uint64_t reserved_bottom = 1ull << 16, hole_start = 1ull << 47;
  const uint64_t hole_end = 0xffff800000000000ull;
  if (a->va_address < reserved_bottom)
    return -EINVAL;
  if (a->va_address >= hole_start && a->va_address < hole_end)
    return -EINVAL;
  if ((a->va_address & (VA_LIMIT - 1)) + a->map_size > VA_LIMIT)
    return -EINVAL;
  if (a->flags & ~valid)
    return -EINVAL;   /* PRT mappings: no sparse residency in kfdsim */
  if (a->operation == AMDGPU_VA_OP_CLEAR || a->operation == AMDGPU_VA_OP_REPLACE)
    return -EOPNOTSUPP;
  if (a->operation != AMDGPU_VA_OP_MAP && a->operation != AMDGPU_VA_OP_UNMAP)
    return -EINVAL;
  pthread_mutex_lock(&sim_drv.lock);
  struct gem_obj *o = gem_lookup(f, a->handle);
  int r = !o ? -ENOENT
      : a->operation == AMDGPU_VA_OP_MAP ? gem_map_locked(f, o, a)
      : gem_unmap_locked(f, o, a->va_address);
  pthread_mutex_unlock(&sim_drv.lock);
  return r;
}
