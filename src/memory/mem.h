/* src/memory: GPU virtual address space, allocations of every kind, the address table.
 *
 * The kernel's model (ARCHITECTURE.md): reserve a VA range inside the GPUVM aperture,
 * ALLOC_MEMORY_OF_GPU at that VA, mmap the render node at the returned offset MAP_FIXED at the
 * same VA (GPU VA == CPU VA for VRAM and GTT), then MAP_MEMORY_TO_GPU. A plain VRAM allocation
 * of its own (not sub-allocated) gets that CPU mapping only when the runtime first reaches it
 * through mem_lookup_host(): until then the host cannot dereference it. Registered host memory
 * (USERPTR) keeps its CPU address and gets a GPU VA of its own (mem_gpu_va()).
 *
 * Small device allocations are carved from cached chunks, so mem_alloc() of a few KiB is not an
 * ioctl. Every allocation handed out is in one address table; mem_lookup() finds it from any
 * interior address: runtime-owned memory through a lock-free radix table of 2 MiB granules,
 * registered and managed ranges (user addresses) through a sorted array under a rwlock that is
 * only taken while such ranges exist.
 *
 * All functions return 0 or -errno. Thread-safe. After fork() the child's allocations are not
 * usable (the child reopens /dev/kfd and has a new GPU VM); the child must not free the parent's.
 */
#ifndef HIPKFD_MEM_H
#define HIPKFD_MEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct kfd_gpu;

enum mem_kind {
  MEM_DEVICE = 0,         /* VRAM, coarse-grained (coherent at kernel boundaries) */
  MEM_DEVICE_FINE,        /* VRAM, fine-grained (KFD_IOC_ALLOC_MEM_FLAGS_COHERENT) */
  MEM_DEVICE_UNCACHED,    /* VRAM, fine-grained and uncached (..._UNCACHED): device atomics */
  MEM_HOST_PINNED,        /* host memory in GTT, mapped to the GPU (hipHostMalloc) */
  MEM_HOST_REGISTERED,    /* user memory pinned by USERPTR (hipHostRegister) */
  MEM_MANAGED,            /* SVM range (hipMallocManaged) through AMDKFD_IOC_SVM */
  MEM_KIND_COUNT
};

/* Flags of mem_alloc()/mem_host_register(). */
#define MEM_FLAG_COHERENT   0x1u  /* host memory: fine-grained (coherent) rather than coarse */
#define MEM_FLAG_ALL_GPUS   0x2u  /* map to every opened GPU (hipHostMallocPortable) */
#define MEM_FLAG_WC         0x4u  /* host memory: write-combined; a hint KFD cannot express
                                   * (GTT's CPU mapping stays cached), recorded only */
#define MEM_FLAG_NUMA_USER  0x8u  /* host memory: follow the caller's NUMA policy */
#define MEM_FLAG_UNCACHED   0x10u /* GPU-uncached mapping (KFD_IOC_ALLOC_MEM_FLAGS_UNCACHED) */
#define MEM_FLAG_NO_SUBALLOC 0x20u /* device memory: own kernel allocation even if small */
#define MEM_FLAG_EXEC       0x40u /* GPU-executable (code objects) */
#define MEM_FLAG_READ_ONLY  0x80u /* GPU read-only mapping */
#define MEM_FLAG_USER       0x200u /* the program's own allocation (hipMalloc, hipHostMalloc):
                                    * mem_free_user() frees it; not kept in mem_info.flags */
#define MEM_FLAG_VMM        0x100u /* set by mem_vmm_map: one mapping of a VMM reservation, whose
                                    * neighbours in the reservation may be other mappings */

/* What the address table knows about one allocation. */
struct mem_info {
  void *base;             /* start address (CPU VA; == GPU VA except for registered memory) */
  size_t size;            /* bytes requested */
  enum mem_kind kind;
  unsigned flags;         /* MEM_FLAG_* */
  unsigned user_flags;    /* what mem_set_user_flags() stored for this allocation (0 if nothing) */
  struct kfd_gpu *gpu;    /* owning GPU (NULL for managed memory) */
  void *host_ptr;         /* CPU address (NULL if not host-visible) */
  uint64_t gpu_va;        /* GPU address of base */
  uint64_t alloc_id;      /* unique, never reused (hipPointerGetAttributes' buffer id) */
  bool suballocated;      /* carved from a cached chunk */
};

/* Allocate [in] size bytes of [in] kind with [in] flags (MEM_FLAG_*) for [in] gpu (ignored for
 * MEM_MANAGED, may be NULL there). [out] out: base address (CPU VA == GPU VA). Device allocations
 * up to a chunk's size are sub-allocated from cached chunks (no ioctl on the fast path).
 * size 0 -> -EINVAL. Returns 0 or -errno (-ENOMEM when the device is out of memory). */
int mem_alloc(struct kfd_gpu *gpu, size_t size, enum mem_kind kind, unsigned flags, void **out);

/* Free the allocation that starts at [in] ptr. An interior pointer or an unknown pointer ->
 * -EINVAL (nothing is freed). NULL -> 0. Returns 0 or -errno. */
int mem_free(void *ptr);

/* What a free of [in] ptr would release, checked without freeing (hipFree checks before it waits
 * for the device): 0 when ptr is the start of a live allocation mem_free() accepts, with [out]
 * gpu its owning GPU (NULL for managed memory, which every GPU may use); -EINVAL for NULL, an
 * interior or unknown pointer, or registered host memory. Lock-free for runtime-owned memory. */
int mem_free_owner(const void *ptr, struct kfd_gpu **gpu);

/* Free every live allocation of [in] gpu made with MEM_FLAG_USER (hipDeviceReset: the program's
 * memory goes, the runtime's own stays). The caller makes sure nothing uses them any more.
 * Returns how many were freed. */
size_t mem_free_user(struct kfd_gpu *gpu);

/* Register [in] size bytes of user memory at [in] p (page-granular internally) with the GPUs
 * (USERPTR on every opened GPU, or [in] gpu only if not MEM_FLAG_ALL_GPUS). A range that starts
 * at a live registration's start and fits inside it is nested in that registration (its flags
 * and user flags stay; one more mem_host_unregister() is needed). -EEXIST if any other part is
 * already registered or allocated. Returns 0 or -errno. */
int mem_host_register(struct kfd_gpu *gpu, void *p, size_t size, unsigned flags);

/* Undo mem_host_register() of [in] p (the exact pointer registered): one nested level, or the
 * registration itself. Returns 0 or -EINVAL. */
int mem_host_unregister(void *p);

/* Remember [in] user_flags (the API's flags, opaque here) with the allocation that starts at
 * [in] base, for mem_lookup() to return. Sub-allocated slots keep their own copy, so two
 * allocations sharing a chunk keep distinct flags. Returns 0, or -EINVAL if base is not the start
 * of a live allocation. */
int mem_set_user_flags(const void *base, unsigned user_flags);

/* Find the allocation containing [in] p (any interior address). [out] out. Lock-free for
 * runtime-owned memory. Returns 0 or -ENOENT. */
int mem_lookup(const void *p, struct mem_info *out);

/* For fault reports: the block (an allocation of its own, or a sub-allocator chunk) nearest to
 * [in] p, which it may contain. [out] out: base, size, kind, gpu_va only. -ENOENT if none. */
int mem_nearest_block(const void *p, struct mem_info *out);

/* mem_lookup(), with the allocation's CPU view mapped first if it was deferred (plain VRAM is
 * mapped for the CPU when the runtime first needs it, not at allocation): out->host_ptr is then
 * the address to read and write through, or NULL if the CPU cannot reach the memory. mem_lookup()
 * alone reports host_ptr NULL for a view not mapped yet. */
int mem_lookup_host(const void *p, struct mem_info *out);

/* Whether [in] size bytes at [in] p touch the address space reserved for GPU allocations (GPU VA
 * == CPU VA): an address there that mem_lookup() does not find is no memory the CPU may touch. */
bool mem_va_reserved(const void *p, size_t size);

/* Map the allocation containing [in] ptr to [in] gpu as well (peer access). Idempotent.
 * Returns 0 or -errno (-ENOENT unknown pointer). */
int mem_map_to_gpu(void *ptr, struct kfd_gpu *gpu);

/* The GPU VA of the host address [in] host_ptr (differs from it only for registered memory),
 * or 0 if it belongs to no allocation. */
uint64_t mem_gpu_va(const void *host_ptr);

/* The CPU address behind [in] p when p is a device address of registered host memory that got a
 * GPU VA of its own (mem_gpu_va() != the CPU address: a registration sharing a page with
 * another); NULL otherwise. */
void *mem_host_of_alias(const void *p);

/* The KFD handle of the kernel allocation that starts at [in] p (not sub-allocated: allocate
 * with MEM_FLAG_NO_SUBALLOC), for ioctls that take one (events page, dma-buf export).
 * [out] handle. Returns 0, -ENOENT, or -EINVAL for a sub-allocated or interior pointer. */
int mem_kfd_handle(const void *p, uint64_t *handle);

/* IPC export of the allocation containing [in] p (EXPORT_DMABUF of its kernel allocation).
 * [out] fd: a dma-buf descriptor the caller owns; [out] offset: p's offset inside the exported
 * allocation; [out] size: the exported allocation's size. Returns 0 or -errno (-ENOENT unknown
 * pointer, -EINVAL for registered/managed memory). */
int mem_ipc_export(const void *p, int *fd, uint64_t *offset, size_t *size);

/* IPC import of a dma-buf [in] fd of [in] size bytes on [in] gpu (IMPORT_DMABUF at a reserved VA,
 * mapped to gpu, CPU-mapped when the dma-buf allows it). [out] out: its base address, freed
 * with mem_free(). The fd stays owned by the caller. Returns 0 or -errno. */
int mem_ipc_import(struct kfd_gpu *gpu, int fd, size_t size, void **out);

/* ---- IPC handles (src/memory/ipc.c): an importer maps exactly one allocation ---------------- */

/* What an IPC handle says about an exported allocation; an importer checks it against the
 * exporter's record (mem_ipc_check) before it maps anything. */
struct mem_ipc_share {
  uint64_t record;        /* address of the exporter's record of this export */
  uint64_t token;         /* random, unique to the record */
  uint64_t ino;           /* inode of the dma-buf */
  uint64_t offset;        /* the allocation's offset in the dma-buf (page aligned) */
  uint64_t size;          /* bytes of the allocation (as requested) */
  int fd;                 /* the dma-buf descriptor, in the exporter */
  void *base;             /* the allocation's start (exporter only) */
};

/* Export the device allocation containing [in] p: [out] out. The same allocation gives the same
 * record until it is freed; its free retires the record and closes the descriptor. Returns 0 or
 * -errno (-ENOENT unknown pointer, -EINVAL memory of a kind that is not exported). */
int mem_ipc_share(const void *p, struct mem_ipc_share *out);

/* Check [in] claim against the live record in process [in] pid: 0 if they match; -ESRCH if the
 * process is gone, -EPERM if it may not be read, -ENOENT for a retired or unknown record or any
 * field that differs. Never dereferences anything of the claim's. */
int mem_ipc_check(int pid, const struct mem_ipc_share *claim);

/* The importer's mapping of [in] size bytes at [in] offset (page aligned) of the dma-buf [in] fd
 * (the caller's; it may close it after): only those pages, for [in] gpu and the CPU, at a new
 * address, recorded with [in] size. [out] out. -EINVAL when the buffer does not hold the range.
 * Returns 0 or -errno. */
struct mem_ipc_view;
int mem_ipc_open(struct kfd_gpu *gpu, int fd, uint64_t offset, size_t size,
                 struct mem_ipc_view **out);
void *mem_ipc_view_base(const struct mem_ipc_view *v);
/* Unmap and forget [in] v. Returns 0 or -errno. */
int mem_ipc_close(struct mem_ipc_view *v);

/* ---- virtual memory management (hipMemCreate / hipMemAddressReserve / hipMemMap) ----------
 * A physical allocation is a dma-buf; a mapping is a page range of it: an mmap for the CPU and
 * an AMDGPU_GEM_VA mapping per GPU on the render node (src/memory/vmm.c, vmm.h), as ROCr's
 * vmem API does. */
struct mem_phys;

/* Reserve [in] size bytes of address space aligned to [in] align (0: 2 MiB), in the GPUVM
 * aperture of every GPU. [out] out. Returns 0 or -errno. */
int mem_vmm_reserve(struct kfd_gpu *gpu, size_t size, size_t align, void **out);

/* Release a reservation made by mem_vmm_reserve() ([in] va, [in] size exactly as reserved);
 * -EBUSY while a mapping is inside. Returns 0 or -errno. */
int mem_vmm_release(void *va, size_t size);

/* Create [in] size bytes (a multiple of 2 MiB granules is not required; pages are) of device
 * memory on [in] gpu that is not mapped anywhere yet. [out] out. Returns 0 or -errno. */
int mem_vmm_create(struct kfd_gpu *gpu, size_t size, struct mem_phys **out);

/* Free a physical allocation; mappings made from it stay valid until unmapped (the dma-buf
 * keeps the memory alive). Returns 0 or -errno. */
int mem_vmm_destroy(struct mem_phys *ph);

/* Map [in] size bytes of [in] ph from [in] offset (pages) at [in] va (inside a reservation,
 * page aligned) for its GPU, and for the CPU. -EINVAL past the end of ph. Returns 0 or -errno. */
int mem_vmm_map(void *va, size_t size, struct mem_phys *ph, size_t offset);

/* Undo mem_vmm_map() at [in] va. Returns 0 or -errno (-EINVAL if nothing is mapped there). */
int mem_vmm_unmap(void *va, size_t size);

/* Make the mapping at [in] va accessible to [in] gpu too (hipMemSetAccess). Returns 0/-errno. */
int mem_vmm_set_access(void *va, struct kfd_gpu *gpu);

/* Release every cached free chunk of [in] gpu back to the kernel (hipDeviceReset, tests).
 * Returns the number of bytes returned. */
size_t mem_trim(struct kfd_gpu *gpu);

/* Number of kernel allocations (ALLOC_MEMORY_OF_GPU calls) made so far: lets tests check that
 * the sub-allocator did not call the kernel. */
uint64_t mem_stat_kernel_allocs(void);

/* [out] free_bytes, total_bytes of device memory of [in] gpu (hipMemGetInfo).
 * Returns 0 or -errno. */
int mem_get_info(struct kfd_gpu *gpu, size_t *free_bytes, size_t *total_bytes);

#endif
