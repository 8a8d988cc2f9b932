/* One emulated node shared by several processes (KFDSIM_NODE=name).
 *
 * On a real machine every process sees the same GPUs: the same gpu_ids and topology, and one
 * VRAM pool per GPU whose use by one process shows in another's AVAILABLE_MEMORY (amdkfd keeps
 * adev->kfd.vram_used per device, amdgpu_amdkfd_gpuvm.c amdgpu_amdkfd_reserve_mem_limit).
 * Processes that name the same node share a POSIX shared-memory segment holding the node's
 * configuration (profile, GPU count, VRAM size: the rest of the topology follows from it) and
 * its VRAM accounting, per process so that a process that dies, killed included, gives its
 * share back. Contents stay per process: a buffer reaches another process as a dma-buf.
 *
 * Self-contained (no driver state) so that the launcher can sweep a node after its program.
 * Every function returns 0 or -errno unless it says otherwise.
 */
#ifndef KFDSIM_NODE_H
#define KFDSIM_NODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SIM_NODE_MAX_GPUS 8
#define SIM_NODE_MAX_PROCS 64
#define SIM_NODE_NAME_MAX 64

/* A node's fixed facts. In a request, a zero field (or empty profile) means "not asked for". */
struct sim_node_config {
  char profile[16];
  uint32_t n_gpus;
  uint64_t vram_size;
};

/* 0 when `name` is 1..SIM_NODE_NAME_MAX characters of [A-Za-z0-9._-], else -EINVAL. */
int sim_node_name_check(const char *name);

/* The shared-memory object of node `name` for this user ("/kfdsim-node-<uid>-<name>"). */
int sim_node_shm_name(const char *name, char *out, size_t out_size);

/* Attach this process to node `name`, creating the node from `want` (missing fields from
 * `dflt`) when it does not exist. A field `want` sets must match an existing node's (else
 * -EINVAL, with the node's configuration in *have). [out] have: the node's configuration.
 * Processes that only attach (a launcher, mpirun) hold no share of the node. */
int sim_node_attach(const char *name, const struct sim_node_config *want,
                    const struct sim_node_config *dflt, struct sim_node_config *have);

/* True once this process image attached to a node. */
bool sim_node_attached(void);

/* Take a process slot (on the first /dev/kfd open): this process's VRAM use is counted in it
 * until it exits. A thread of ours holds the slot's robust mutex for the life of the process,
 * so that its death, however it happens, shows to the others as EOWNERDEAD. -EAGAIN when all
 * SIM_NODE_MAX_PROCS slots are taken by live processes. Idempotent per process. */
int sim_node_join(void);

/* Charge `bytes` of GPU `gpu`'s VRAM to this process: -ENOMEM when the node's GPU has less than
 * that free (after reclaiming the shares of dead processes). Needs sim_node_join. */
int sim_node_charge(uint32_t gpu, uint64_t bytes);
void sim_node_uncharge(uint32_t gpu, uint64_t bytes);

/* VRAM of GPU `gpu` in use on the whole node (dead processes' shares reclaimed first). */
uint64_t sim_node_used(uint32_t gpu);

/* Process exit: this process's slot and share go; the last process of the node removes its
 * segment. Safe to call more than once, and in a process that never attached. */
void sim_node_leave(void);

/* Fork child: the parent's slot is not ours (the mapping stays: the child may join). */
void sim_node_forget_slot(void);

/* Remove node `name` when no live process holds a slot in it (the launcher, after its program:
 * the last process of a node may have been killed before it could). 0 when removed or absent,
 * -EBUSY when a process of the node still lives. */
int sim_node_sweep(const char *name);

#endif
