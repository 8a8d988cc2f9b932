/* kfdsim: the interfaces between its parts.
 *
 *   sim/preload  interposes libc calls and routes /dev/kfd, render nodes and KFD sysfs to sim/kfd
 *   sim/kfd      the emulated amdkfd driver: ioctls, memory objects, per-GPU page tables, events
 *   sim/cp       command processors: AQL and SDMA queue engines, one doorbell thread per GPU
 *   sim/isa      the gfx9 interpreter (sim/isa/isa.h), called by sim/cp for kernel dispatches
 *
 * Everything a command processor or the interpreter touches is a GPU virtual address translated
 * through the GPU's page table (sim_gpuvm_translate): GPU VA is not always CPU VA (libhsakmt
 * 5.2.3 maps USERPTR memory at a GPU VA different from its CPU address).
 */
#ifndef KFDSIM_SIM_H
#define KFDSIM_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sim_gpu;        /* one emulated GPU node, owned by sim/kfd */
struct sim_cp_queue;   /* one user-mode queue as the command processor sees it, owned by sim/cp */

enum sim_gfx { SIM_GFX90A, SIM_GFX942 };

/* ---- sim/kfd: facts and services the command processors need ---------------------------- */

enum sim_gfx sim_gpu_gfx(const struct sim_gpu *gpu);
/* The shader (engine) clock of the GPU's profile in MHz: what s_memtime counts, and what the
 * runtime reports as the clock rate (topology max_engine_clk_fcompute). */
uint32_t sim_gpu_shader_mhz(const struct sim_gpu *gpu);
uint32_t sim_gpu_id(const struct sim_gpu *gpu);        /* the KFD gpu_id of the node */
uint32_t sim_gpu_cu_count(const struct sim_gpu *gpu);

/* Host pointer for the GPU VA range [va, va + len) as mapped on `gpu`, or NULL when any byte is
 * not mapped (or is read-only and `write` is set): the caller then reports a page fault. The
 * range must lie inside one mapping; callers split accesses that may cross mappings. */
void *sim_gpuvm_translate(struct sim_gpu *gpu, uint64_t va, uint64_t len, bool write);

/* True when `va` is mapped on `gpu` from system memory with MTYPE UC: GTT or USERPTR memory
 * allocated COHERENT or UNCACHED (amdgpu_amdkfd_gpuvm.c get_pte_flags for gfx 9.4.2). */
bool sim_gpuvm_sys_uncached(struct sim_gpu *gpu, uint64_t va);

/* An interrupt from the GPU carrying an event id, as the CP raises after writing an AQL signal's
 * event mailbox, or as s_sendmsg(MSG_INTERRUPT) does with M0. Mirrors
 * kfd_signal_event_interrupt(): an id with all bits valid signals that event; a partial id
 * scans the events page for signalled slots. */
void sim_event_interrupt(struct sim_gpu *gpu, uint32_t event_id, uint32_t valid_id_bits);

/* A GPU page fault at `va` by a queue: raises the process's memory-exception events with
 * kfd_hsa_memory_exception_data filled the way the kernel fills it. */
void sim_event_memory_fault(struct sim_gpu *gpu, uint64_t va, bool write);

/* A dispatch that would not end (kfdsim's watchdog, sim/cp/cp_monitor.c) made the driver reset
 * the queue: raises the process's hardware-exception events with reset_cause GPU_HANG, as
 * kfd_signal_reset_event() does after a hang. */
void sim_event_gpu_hang(struct sim_gpu *gpu);

/* Log through the simulator's one hook (KFDSIM_LOG=1 enables it; silent otherwise). */
void sim_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- sim/cp: queues ------------------------------------------------------------------------ */

/* What CREATE_QUEUE validated, in the form the command processor needs. Addresses are GPU VAs. */
struct sim_queue_desc {
  uint32_t queue_id;
  uint32_t type;              /* KFD_IOC_QUEUE_TYPE_COMPUTE_AQL, _SDMA, _SDMA_XGMI, _SDMA_BY_ENG_ID */
  uint32_t sdma_engine;       /* for SDMA queues */
  uint32_t priority;          /* 0..15 */
  uint32_t percentage;        /* 0..100; 0 makes the queue inactive */
  uint64_t ring_base;         /* GPU VA of the ring */
  uint64_t ring_size;         /* bytes */
  uint64_t read_pointer;      /* GPU VA of the 64-bit read pointer the CP updates */
  uint64_t write_pointer;     /* GPU VA of the 64-bit write pointer user space updates */
  uint64_t eop_buffer;        /* GPU VA, AQL */
  uint64_t ctx_save_restore;  /* GPU VA, AQL (CWSR area) */
  volatile uint64_t *doorbell; /* host pointer into the process's doorbell page */
};

/* Start serving a queue (called by CREATE_QUEUE after validation). */
int sim_cp_queue_create(struct sim_gpu *gpu, const struct sim_queue_desc *desc,
                        struct sim_cp_queue **out);
/* UPDATE_QUEUE: new ring, percentage and priority. */
int sim_cp_queue_update(struct sim_cp_queue *q, uint64_t ring_base, uint64_t ring_size,
                        uint32_t percentage, uint32_t priority);
/* Stop serving and free; waits for a dispatch in flight to finish (up to a preemption timeout,
 * after which the dispatch is abandoned: see sim/cp/cp_sched.c). */
void sim_cp_queue_destroy(struct sim_cp_queue *q);
/* Wake the GPU's command processor now (doorbell written, or user space is about to wait). */
void sim_cp_kick(struct sim_gpu *gpu);
/* Stop every queue of the process between runs of packets (sim/cp/cp_gate.c), waiting up to
 * [in] timeout_ns for runs in progress to end. Returns true if the GPU is quiet, false if a run
 * would not end in time (the pause is held either way). Undo with sim_cp_resume(). Must not be
 * called with locks a queue worker takes. */
bool sim_cp_pause(uint64_t timeout_ns);
void sim_cp_resume(void);

/* ---- sim/cp: the GPU clock (sim/cp/clock.c) ----------------------------------------------- */

/* The GPU timestamp counter, in ticks of SIM_GPU_CLOCK_HZ: CLOCK_MONOTONIC scaled to the
 * 100 MHz reference clock gfx9 parts count in. AQL completion-signal timestamps and SDMA
 * TIMESTAMP packets use it; GET_CLOCK_COUNTERS' gpu_clock_counter must return it too, so that
 * ROCr's GPU-to-host time translation is consistent. */
#define SIM_GPU_CLOCK_HZ 100000000ull
uint64_t sim_gpu_clock_counter(void);

#endif
