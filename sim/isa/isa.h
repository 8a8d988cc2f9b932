/* kfdsim's gfx9 interpreter: the interface the command processor calls.
 *
 * The interpreter executes one AQL kernel dispatch to completion (or to the first fault) by
 * decoding and executing the kernel's machine code, wave64, many workgroups in parallel on host
 * threads. It knows nothing about the driver: memory is reached through `translate`, interrupts
 * leave through `sendmsg`. Hardware facts it mirrors are cited in the source (ISA guides for
 * MI200/MI300, LLVM AMDGPUUsage for the initial register state).
 */
#ifndef KFDSIM_ISA_H
#define KFDSIM_ISA_H

#include <stdbool.h>
#include <stdint.h>

enum isa_target { ISA_GFX90A, ISA_GFX942 };

enum isa_status {
  ISA_OK = 0,
  ISA_PAGE_FAULT,        /* memory access outside GPU-mapped memory: fault_va, fault_write */
  ISA_ILLEGAL_INSTR,     /* an encoding we cannot decode or do not implement: pc, message */
  ISA_TRAP,              /* s_trap, or a device-side abort (assert) */
  ISA_BAD_DISPATCH,      /* invalid kernel descriptor or packet */
  ISA_CANCELLED,         /* *cancel became non-zero: the dispatch was abandoned part-way */
};

struct isa_dispatch {
  enum isa_target target;

  /* GPU memory. Returns a host pointer for [va, va+len) or NULL (a page fault). */
  void *mem_ctx;
  void *(*translate)(void *mem_ctx, uint64_t va, uint64_t len, bool write);
  /* Optional (may be NULL): true when `va` is system memory mapped uncached (MTYPE UC), the
   * way amdgpu maps fine-grained (COHERENT or UNCACHED) GTT and USERPTR memory on gfx90a. */
  bool (*sys_uncached)(void *mem_ctx, uint64_t va);

  /* s_sendmsg: MSG_INTERRUPT (1) carries M0 as the interrupt's context id (hostcall and
   * interrupt signals); other messages are passed on with their data. */
  void *msg_ctx;
  void (*sendmsg)(void *msg_ctx, uint32_t msg, uint32_t m0);

  /* The packet as the command processor read it (hsa_kernel_dispatch_packet_t fields). */
  uint64_t packet_va;           /* dispatch ptr (SGPR setup) */
  uint64_t queue_va;            /* amd_queue_t (queue ptr); also holds the scratch setup */
  uint64_t dispatch_id;
  uint16_t setup_dims;          /* 1..3 */
  uint16_t workgroup_size[3];
  uint32_t grid_size[3];
  uint32_t private_segment_size;/* bytes per work-item, from the packet */
  uint32_t group_segment_size;  /* bytes per workgroup (static + dynamic LDS), from the packet */
  uint64_t kernel_object;       /* GPU VA of the 64-byte kernel descriptor */
  uint64_t kernarg_address;     /* GPU VA */

  unsigned host_threads;        /* workgroups run in parallel on this many threads; 0 = all cores */
  uint32_t shader_clock_mhz;    /* s_memtime counts at this rate (the engine clock); 0: 1000 */

  /* Cancellation (may be NULL). Another thread stores a non-zero value to abandon the dispatch:
   * every host thread of the dispatch sees it within one time slice of a wave (at most 65536
   * wave instructions) or, when it waits for parked workgroups (ds_gws_barrier) to be
   * released, within about 20 ms; the run then ends with ISA_CANCELLED. Memory the kernel wrote so far stays written. The pointed-to int
   * must stay valid until isa_dispatch_run returns. */
  const volatile int *cancel;

  /* Progress (may be NULL): the waves of each workgroup that ends are added here (a relaxed
   * atomic add per workgroup), for a live display. Must stay valid until isa_dispatch_run
   * returns. */
  uint64_t *waves_done;
};

struct isa_result {
  enum isa_status status;
  uint64_t pc;                  /* of the faulting or illegal instruction */
  uint64_t fault_va;
  bool fault_write;
  char message[160];            /* e.g. "illegal instruction v_foo (0x...) at pc 0x..." */
  uint64_t waves_executed;      /* statistics for bench/ */
  uint64_t instructions_executed;   /* wave instructions */
  uint64_t lane_ops;            /* vector instructions times the lanes active in EXEC */
};

/* Run one dispatch to completion. Thread-safe: several queues may dispatch at once. */
void isa_dispatch_run(const struct isa_dispatch *d, struct isa_result *result);

#endif
