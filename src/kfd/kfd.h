/* src/kfd: the kernel boundary of the runtime.
 *
 * This is the only layer that opens /dev/kfd or a render node, calls ioctl(), mmaps a device
 * file or reads the KFD sysfs topology. Every function returns 0 or -errno (never a bare -1),
 * except accessors documented otherwise. Nothing here prints or reads the environment.
 *
 * After fork(): the child must not reuse the parent's /dev/kfd file descriptor (amdkfd binds a
 * kfd_process to the mm of the opener: kfd_chardev.c kfd_ioctl() rejects a caller whose
 * thread group differs from the one that opened the file with -EBADF). kfd_open() notices the
 * pid change and opens a fresh descriptor; all kfd_gpu state of the parent is then stale and
 * kfd_gpu_open() builds new state for the child.
 */
#ifndef HIPKFD_KFD_H
#define HIPKFD_KFD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <pthread.h>
#include <linux/kfd_ioctl.h>
/* The UAPI spells this flag (1 << 31), which overflows int: undefined behaviour that UBSan reports
 * wherever the flag is used. Same bit, unsigned. */
#undef KFD_IOC_ALLOC_MEM_FLAGS_WRITABLE
#define KFD_IOC_ALLOC_MEM_FLAGS_WRITABLE (1u << 31)

#define KFD_NAME_MAX 64
#define KFD_MARKETING_NAME_MAX 128
#define KFD_MAX_CACHES 16
#define KFD_MAX_IO_LINKS 16
#define KFD_MAX_MEM_BANKS 4

/* HSA heap types of mem_banks/N/properties "heap_type" (kfd_topology.h). */
enum kfd_heap_type {
  KFD_HEAP_SYSTEM = 0,
  KFD_HEAP_FRAME_BUFFER_PUBLIC = 1,
  KFD_HEAP_FRAME_BUFFER_PRIVATE = 2,
};

/* Bits of caches/N/properties "type" (kfd_crat.h HSA_CACHE_TYPE_*). */
#define KFD_CACHE_TYPE_DATA 0x1u
#define KFD_CACHE_TYPE_INSTRUCTION 0x2u
#define KFD_CACHE_TYPE_CPU 0x4u
#define KFD_CACHE_TYPE_HSACU 0x8u

/* Bits of the node "capability" property (HSA_CAP_* of <linux/kfd_sysfs.h>, KFD 1.17). */
#define KFD_CAP_HOT_PLUGGABLE 0x00000001u
#define KFD_CAP_ATS_PRESENT 0x00000002u
#define KFD_CAP_SHARED_WITH_GRAPHICS 0x00000004u
#define KFD_CAP_QUEUE_SIZE_POW2 0x00000008u
#define KFD_CAP_QUEUE_SIZE_32BIT 0x00000010u
#define KFD_CAP_QUEUE_IDLE_EVENT 0x00000020u
#define KFD_CAP_VA_LIMIT 0x00000040u
#define KFD_CAP_WATCH_POINTS_SUPPORTED 0x00000080u
#define KFD_CAP_DOORBELL_TYPE_MASK 0x00003000u
#define KFD_CAP_DOORBELL_TYPE_SHIFT 12
#define KFD_CAP_AQL_QUEUE_DOUBLE_MAP 0x00004000u
#define KFD_CAP_TRAP_DEBUG_SUPPORT 0x00008000u
#define KFD_CAP_MEM_EDCSUPPORTED 0x00100000u
#define KFD_CAP_RASEVENTNOTIFY 0x00200000u
#define KFD_CAP_ASIC_REVISION_MASK 0x03c00000u
#define KFD_CAP_ASIC_REVISION_SHIFT 22
#define KFD_CAP_SRAM_EDCSUPPORTED 0x04000000u /* 0x00080000 is the retired old position */
#define KFD_CAP_SVMAPI_SUPPORTED 0x08000000u
#define KFD_CAP_FLAGS_COHERENTHOSTACCESS 0x10000000u
#define KFD_CAP_TRAP_DEBUG_FIRMWARE_SUPPORTED 0x20000000u

/* One cache of a node (nodes/N/caches/M/properties). */
struct kfd_cache {
  uint32_t level;          /* 1, 2, 3 */
  uint32_t size_kib;       /* "size" in KiB */
  uint32_t line_size;      /* bytes */
  uint32_t type;           /* KFD_CACHE_TYPE_* bits */
  uint32_t sibling_count;  /* CUs sharing one instance (bits set in sibling_map) */
};

/* One memory bank of a node (nodes/N/mem_banks/M/properties). */
struct kfd_mem_bank {
  uint32_t heap_type;      /* enum kfd_heap_type */
  uint64_t size_bytes;     /* "size_in_bytes" */
  uint32_t flags;
  uint32_t width;          /* bits */
  uint32_t mem_clk_max;    /* MHz */
};

/* One link from this node to another (nodes/N/io_links/M and p2p_links/M properties). */
struct kfd_io_link {
  uint32_t type;           /* CRAT_IOLINK_TYPE_*: 2 PCIe, 11 XGMI */
  uint32_t node_from;      /* sysfs node index */
  uint32_t node_to;        /* sysfs node index */
  uint32_t weight;
  uint32_t min_latency, max_latency; /* ns */
  uint32_t min_bandwidth, max_bandwidth; /* MB/s */
  uint32_t flags;          /* CRAT_IOLINK_FLAGS_* */
  bool p2p;                /* came from p2p_links rather than io_links */
};

/* One GPU's facts, parsed once by kfd_topology_load() and immutable afterwards (no lock needed
 * to read them). Field names follow the sysfs property names of kfd_topology.c node_show(). */
struct kfd_node {
  uint32_t node_id;            /* sysfs node index N */
  uint32_t gpu_id;             /* nodes/N/gpu_id: the id every per-GPU ioctl takes */
  char name[KFD_NAME_MAX];     /* nodes/N/name ("gfx942"...), or built from gfx_target_version */
  char marketing_name[KFD_MARKETING_NAME_MAX]; /* from the PCI id when known, else name */
  uint32_t gfx_target_version; /* e.g. 90402 for gfx942 (major*10000 + minor*100 + stepping) */
  uint32_t vendor_id, device_id;
  uint32_t location_id;        /* PCI bus/device/function: bus = location_id >> 8 */
  uint32_t domain;             /* PCI domain */
  uint64_t unique_id;
  uint64_t hive_id;            /* XGMI hive, 0 if none */
  uint32_t drm_render_minor;   /* /dev/dri/renderD<minor> */
  int32_t numa_node;           /* NUMA node of the GPU's PCI device, -1 if unknown */
  uint32_t cpu_cores_count;
  uint32_t simd_count;
  uint32_t simd_per_cu;
  uint32_t cu_count;           /* simd_count / simd_per_cu */
  uint32_t array_count;        /* shader arrays (all XCCs) */
  uint32_t simd_arrays_per_engine;
  uint32_t cu_per_simd_array;
  uint32_t num_xcc;            /* XCDs (gfx942 partitions); 1 on older parts */
  uint32_t max_waves_per_simd;
  uint32_t wave_front_size;    /* 64 on gfx9 */
  uint32_t lds_size_in_kb;
  uint32_t gds_size_in_kb;
  uint32_t num_gws;
  uint32_t max_slots_scratch_cu;
  uint32_t num_sdma_engines;
  uint32_t num_sdma_xgmi_engines;
  uint32_t num_sdma_queues_per_engine;
  uint32_t num_cp_queues;
  uint32_t max_engine_clk_fcompute; /* MHz */
  uint32_t max_engine_clk_ccompute; /* MHz (CPU) */
  uint32_t fw_version;
  uint32_t sdma_fw_version;
  uint32_t capability;         /* KFD_CAP_* bits */
  uint32_t capability2;
  uint64_t debug_prop;
  uint64_t local_mem_size;     /* "local_mem_size", bytes (0 on APUs) */
  uint32_t mem_banks_count;
  uint32_t caches_count;
  uint32_t io_links_count;
  uint32_t p2p_links_count;
  /* Derived facts. */
  uint32_t gfx_major, gfx_minor, gfx_stepping;
  bool sramecc;                /* KFD_CAP_SRAM_EDCSUPPORTED */
  bool xnack;                  /* always false here: XNACK is a per-process mode, query it with
                                * kfd_xnack_mode() */
  uint64_t vram_size;          /* sum of frame-buffer banks */
  uint32_t l1_kib, l2_kib, l3_kib; /* data caches per level (0 if absent) */
  uint32_t cache_line_size;    /* L2 line size */
  uint32_t doorbell_size;      /* bytes per doorbell: 8 on gfx9+ (libhsakmt queues.c) */
  uint32_t ctl_stack_size;     /* per-queue CWSR control stack: sysfs "ctl_stack_size" when the
                                * driver exports it, else computed as kfd_queue.c does */
  uint32_t cwsr_size;          /* per-XCC save area (ctl stack + wave data), same sources */
  uint32_t wg_data_size;       /* per-queue CWSR workgroup data (VGPR/SGPR/LDS save) */
  uint32_t debugger_bytes;     /* per-wave debugger area appended to the CWSR area */
  struct kfd_mem_bank mem_banks[KFD_MAX_MEM_BANKS];
  struct kfd_cache caches[KFD_MAX_CACHES]; /* distinct (level, type, size) records */
  uint32_t n_caches;           /* entries used in caches */
  struct kfd_io_link io_links[KFD_MAX_IO_LINKS];
  uint32_t n_io_links;         /* entries used in io_links (io_links + p2p_links) */
};

/* System facts (topology/system_properties and GET_VERSION). */
struct kfd_system {
  uint64_t platform_oem, platform_id, platform_rev;
  uint32_t node_count;         /* all nodes, CPUs included */
  uint32_t gpu_count;          /* GPU nodes (simd_count > 0 and gpu_id != 0) */
  uint32_t version_major, version_minor; /* KFD ioctl interface version */
};

/* Per-GPU lazy state created by kfd_gpu_open(). Fields are written once under `lock` during
 * open and read-only afterwards, except those marked otherwise. */
struct kfd_gpu {
  const struct kfd_node *node;
  uint32_t gpu_id;
  int render_fd;               /* /dev/dri/renderD<minor>, O_RDWR|O_CLOEXEC */
  pid_t pid;                   /* process that opened it (fork check) */
  uint64_t gpuvm_base, gpuvm_limit;   /* GPUVM aperture (inclusive limit) */
  uint64_t lds_base, lds_limit;       /* group segment aperture */
  uint64_t scratch_base, scratch_limit; /* private segment aperture */
  uint64_t gpu_clock_hz;       /* GPU counter frequency from GET_CLOCK_COUNTERS */
  pthread_mutex_t lock;        /* protects the lazily mapped doorbell page below */
  void *doorbell_page;         /* mmap of the kfd fd at the process doorbell offset (lock) */
  uint64_t doorbell_mmap_offset; /* (lock) */
  size_t doorbell_page_size;   /* (lock) */
  void *mem_state;             /* owned by src/memory (per-GPU sub-allocator); NULL until used */
  void *queue_state;           /* owned by src/queues (per-GPU signal pool); NULL until used */
};

/* ---- open, version, ioctl ------------------------------------------------------------------ */

/* Open /dev/kfd once per process and query GET_VERSION. Idempotent and thread-safe; in a child
 * after fork() it opens a new descriptor (the parent's cannot be used: see the file comment).
 * Returns 0, or -errno (-ENOENT when there is no /dev/kfd, -ENOTSUP when the major version is
 * not 1 or the minor is below 14). */
int kfd_open(void);

/* The /dev/kfd descriptor for this process, or -EBADF if kfd_open() has not succeeded (or this
 * is a forked child that has not called kfd_open()). */
int kfd_fd(void);

/* [out] major, minor: KFD ioctl interface version. Returns 0 or -errno (not open). */
int kfd_version(uint32_t *major, uint32_t *minor);

/* True when the driver's interface is at least major.minor (gates newer ioctls). */
bool kfd_version_at_least(uint32_t major, uint32_t minor);

/* The one ioctl choke point: ioctl(kfd_fd(), req, arg), retried on EINTR/EAGAIN.
 * [in] req: an AMDKFD_IOC_* request. [in,out] arg: its argument struct.
 * Returns 0 or -errno. */
int kfd_ioctl(unsigned long req, void *arg);

/* ---- topology ------------------------------------------------------------------------------ */

/* Parse /sys/devices/virtual/kfd/kfd/topology (system_properties and every node's properties,
 * gpu_id, name, mem_banks, caches, io_links, p2p_links). Idempotent and thread-safe; the parsed
 * nodes are immutable afterwards. Returns 0 (also with zero GPUs) or -errno. */
int kfd_topology_load(void);

/* [out] sys: the system facts. Returns 0 or -ENODEV if the topology is not loaded. */
int kfd_topology_system(struct kfd_system *sys);

/* Restrict and reorder the visible GPUs. [in] idx: indices into the unfiltered GPU list (in
 * sysfs node order), as parsed from HIP_VISIBLE_DEVICES/ROCR_VISIBLE_DEVICES by src/runtime;
 * [in] n: their count (n < 0 restores all GPUs). Stops at the first invalid index, as HIP does.
 * Call before the first kfd_gpu(). Returns the number of visible GPUs or -errno. */
int kfd_topology_set_visible(const int *idx, int n);

/* Number of visible GPUs (0 if the topology is not loaded). */
int kfd_gpu_count(void);

/* The visible GPU at [in] index, or NULL when out of range. */
const struct kfd_node *kfd_gpu(int index);

/* Any topology node (GPU or CPU) by sysfs node id, or NULL. */
const struct kfd_node *kfd_node_by_id(uint32_t node_id);

/* The GPU node with KFD [in] gpu_id, or NULL. */
const struct kfd_node *kfd_node_by_gpu_id(uint32_t gpu_id);

/* Whether [in] from can access memory of [in] to directly (an io/p2p link from `from` to `to`
 * exists). Returns true for from == to. */
bool kfd_node_can_access_peer(const struct kfd_node *from, const struct kfd_node *to);

/* ---- per-GPU state --------------------------------------------------------------------------- */

/* Per-GPU lazy state: opens the render node, ACQUIRE_VM, GET_PROCESS_APERTURES_NEW, reads the
 * counter frequency. Thread-safe, done once per process per GPU (re-done in a forked child).
 * [in] n: a node from kfd_gpu(). [out] out: the state (owned by this layer, never freed).
 * Returns 0 or -errno. */
int kfd_gpu_open(const struct kfd_node *n, struct kfd_gpu **out);

/* The already opened state of [in] n, or NULL. No lock: an acquire load. */
struct kfd_gpu *kfd_gpu_state(const struct kfd_node *n);

/* Map the process doorbell page that contains [in] doorbell_offset (the CREATE_QUEUE output) once
 * per GPU and return the host address of that queue's doorbell in [out] out.
 * Takes gpu->lock. Returns 0 or -errno. */
int kfd_gpu_doorbell(struct kfd_gpu *gpu, uint64_t doorbell_offset, volatile uint64_t **out);

/* ---- device-file mappings ------------------------------------------------------------------ */

/* mmap the render node at [in] mmap_offset (the ALLOC_MEMORY_OF_GPU output) MAP_FIXED|MAP_SHARED
 * at [in] addr for [in] size bytes, so that CPU VA == GPU VA. Returns 0 or -errno. */
int kfd_mmap_render(struct kfd_gpu *gpu, void *addr, size_t size, uint64_t mmap_offset,
                    bool writable);

/* mmap the /dev/kfd fd at [in] offset (doorbells, events page on APUs), not fixed.
 * [out] out: the host address. Returns 0 or -errno. */
int kfd_mmap_kfd(size_t size, uint64_t offset, void **out);

/* ---- one wrapper per ioctl ------------------------------------------------------------------- */

/* ALLOC_MEMORY_OF_GPU. [in] va: GPU VA (inside the GPUVM aperture); [in] size; [in] flags:
 * KFD_IOC_ALLOC_MEM_FLAGS_*; [in] host_addr: the CPU address for USERPTR (else 0).
 * [out] handle; [out] mmap_offset (may be NULL). Returns 0 or -errno. */
int kfd_alloc_memory(struct kfd_gpu *gpu, uint64_t va, uint64_t size, uint32_t flags,
                     uint64_t host_addr, uint64_t *handle, uint64_t *mmap_offset);

/* FREE_MEMORY_OF_GPU of [in] handle. Returns 0 or -errno. */
int kfd_free_memory(uint64_t handle);

/* MAP_MEMORY_TO_GPU of [in] handle on the [in] n GPUs [in] gpu_ids. Follows the n_success
 * protocol: the kernel resumes after the GPUs already mapped if the call is restarted.
 * Returns 0 or -errno. */
int kfd_map_memory(uint64_t handle, const uint32_t *gpu_ids, uint32_t n);

/* UNMAP_MEMORY_FROM_GPU, same protocol. Returns 0 or -errno. */
int kfd_unmap_memory(uint64_t handle, const uint32_t *gpu_ids, uint32_t n);

/* GET_AVAILABLE_MEMORY (KFD >= 1.9). [out] bytes. Returns 0 or -errno (-ENOSYS if too old). */
int kfd_available_memory(struct kfd_gpu *gpu, uint64_t *bytes);

/* CREATE_QUEUE. [in,out] args: filled by the caller except gpu_id (set here); outputs
 * queue_id, doorbell_offset, etc. Returns 0 or -errno. */
int kfd_create_queue(struct kfd_gpu *gpu, struct kfd_ioctl_create_queue_args *args);

/* SET_CU_MASK of [in] queue_id: [in] mask holds [in] nbits bits (a multiple of 32), one per CU
 * (hipExtStreamCreateWithCUMask). Returns 0 or -errno. */
int kfd_set_cu_mask(uint32_t queue_id, const uint32_t *mask, uint32_t nbits);

/* DESTROY_QUEUE of [in] queue_id. Returns 0 or -errno. */
int kfd_destroy_queue(uint32_t queue_id);

/* CREATE_EVENT. [in] type: KFD_IOC_EVENT_*; [in] auto_reset; [in] node_id: gpu_id or 0;
 * [in] event_page_handle: the ALLOC handle of the events page on the first signal event of a
 * dGPU process (0 otherwise). [out] event_id, [out] slot (event_slot_index), [out] page_offset
 * (event_page_offset, for the APU mmap); outputs may be NULL. Returns 0 or -errno. */
int kfd_create_event(uint32_t type, bool auto_reset, uint32_t node_id, uint64_t event_page_handle,
                     uint32_t *event_id, uint32_t *slot, uint64_t *page_offset);

/* DESTROY_EVENT / SET_EVENT / RESET_EVENT of [in] event_id. Return 0 or -errno. */
int kfd_destroy_event(uint32_t event_id);
int kfd_set_event(uint32_t event_id);
int kfd_reset_event(uint32_t event_id);

/* WAIT_EVENTS on [in] n events [in,out] data (kfd_event_data: event_id in; memory-exception data
 * or the 1.14 signal age in/out). [in] wait_all; [in] timeout_ms (0xffffffff: forever).
 * [out] result: KFD_IOC_WAIT_RESULT_*. Returns 0 or -errno. */
int kfd_wait_events(struct kfd_event_data *data, uint32_t n, bool wait_all, uint32_t timeout_ms,
                    uint32_t *result);

/* GET_CLOCK_COUNTERS. [out] gpu, cpu (CLOCK_MONOTONIC_RAW ns), system (ns), freq (system clock Hz).
 * Outputs may be NULL. Returns 0 or -errno. */
int kfd_clock_counters(struct kfd_gpu *gpu, uint64_t *gpu_ticks, uint64_t *cpu_ns,
                       uint64_t *system_ns, uint64_t *freq);

/* SET_SCRATCH_BACKING_VA (no-op on gfx9 with MES off; kept for completeness). Returns 0/-errno. */
int kfd_set_scratch_backing_va(struct kfd_gpu *gpu, uint64_t va);

/* SVM (KFD >= 1.6). [in] op: KFD_IOCTL_SVM_OP_*; [in] start, size (page aligned);
 * [in,out] attrs, [in] nattr. Returns 0 or -errno (-ENOSYS if the driver is too old). */
int kfd_svm(uint32_t op, uint64_t start, uint64_t size, struct kfd_ioctl_svm_attribute *attrs,
            uint32_t nattr);

/* EXPORT_DMABUF (KFD >= 1.12) of [in] handle. [out] fd. Returns 0 or -errno. */
int kfd_export_dmabuf(uint64_t handle, int *fd);

/* IMPORT_DMABUF of [in] dmabuf_fd at [in] va on gpu. [out] handle. Returns 0 or -errno. */
int kfd_import_dmabuf(struct kfd_gpu *gpu, int dmabuf_fd, uint64_t va, uint64_t *handle);

/* SET_XNACK_MODE (KFD >= 1.6) used as a query (xnack_enabled = -1 leaves the mode unchanged).
 * [out] enabled: whether recoverable page faults (XNACK) are on for this process.
 * Returns 0 or -errno (-ENOSYS if the driver is too old). */
int kfd_xnack_mode(bool *enabled);
/* SET_XNACK_MODE to [in] enable: the driver refuses (-EBUSY) once the process has queues. */
int kfd_set_xnack_mode(bool enable);

/* RUNTIME_ENABLE (KFD >= 1.13): tell the driver a runtime owns the process (debugger
 * handshake). [in] r_debug: address of _r_debug; [in] enable. Returns 0 or -errno. */
int kfd_runtime_enable(uint64_t r_debug, bool enable);

#endif
