/* src/kfd: helpers shared by the files of this layer only. */
#ifndef HIPKFD_KFD_INTERNAL_H
#define HIPKFD_KFD_INTERNAL_H

#include <stdint.h>

/* Incremented in a child after fork(): per-GPU state of an older generation is stale. */
unsigned kfd_fork_generation(void);

/* Called in the child after fork(): drop every per-GPU state of the parent. */
void kfd_gpu_forget_all(void);

/* Index of a GPU node in the unfiltered GPU list, or -1. */
int kfd_topology_gpu_slot(const struct kfd_node *n);

/* Number of GPU nodes before filtering (the size of per-GPU state arrays). */
int kfd_topology_all_gpu_count(void);

#endif
