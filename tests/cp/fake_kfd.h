/* A fake of the driver half of kfdsim (sim/kfd) and of the interpreter (sim/isa), linked with
 * sim/cp's sources into the engine unit tests. GPU memory is a table of mappings from GPU VA to
 * host buffers, so tests can place a GPU VA far from the CPU address (as libhsakmt does for
 * USERPTR) and put two unrelated host buffers side by side in GPU VA. */
#ifndef TESTS_CP_FAKE_KFD_H
#define TESTS_CP_FAKE_KFD_H

#include <stdbool.h>
#include <stdint.h>

#include "sim.h"

struct sim_gpu *fake_gpu(void);
/* Map `len` bytes of host memory at GPU VA `va`. */
void fake_map(uint64_t va, void *host, uint64_t len, bool writable);
void fake_unmap_all(void);

/* What the CP reported. Counters are atomic; the last values are for single-event tests. */
unsigned fake_interrupt_count(void);
uint32_t fake_last_interrupt_id(void);
unsigned fake_last_interrupt_bits(void);
unsigned fake_fault_count(void);
uint64_t fake_last_fault_va(void);
bool fake_last_fault_write(void);
void fake_reset_events(void);

/* The fake interpreter: a "kernel" whose descriptor's first dword is FAKE_KERNEL_STORE writes
 * grid_size[0] * workgroup_size[0] to the 32-bit GPU address held in its kernarg's first 8
 * bytes; FAKE_KERNEL_ILLEGAL reports an illegal instruction; FAKE_KERNEL_FAULT a page fault
 * at the address in its kernarg. */
#define FAKE_KERNEL_STORE 0x5703e000u
#define FAKE_KERNEL_ILLEGAL 0x111e6a1u
#define FAKE_KERNEL_FAULT 0xfa017u
/* FAKE_KERNEL_SPIN runs until fake_release_spin(): a kernel that does not end by itself. */
#define FAKE_KERNEL_SPIN 0x5b1au
/* FAKE_KERNEL_SENDMSG does s_sendmsg(MSG_INTERRUPT) with M0 = 0x1234567, then ends. */
#define FAKE_KERNEL_SENDMSG 0x5e4du
/* FAKE_KERNEL_SPIN_CANCELLABLE runs until the dispatch's cancel flag is set, then ends with
 * ISA_CANCELLED (as the interpreter abandons a dispatch). */
#define FAKE_KERNEL_SPIN_CANCELLABLE 0x5b1bu
unsigned fake_dispatch_count(void);
/* GPU hangs reported (sim_event_gpu_hang). */
unsigned fake_hang_count(void);
unsigned fake_dispatch_returns(void);
void fake_release_spin(void);

#endif
