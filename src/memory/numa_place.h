/* src/memory/numa_place.h: NUMA placement of pinned host memory (numa.c). */
#ifndef HIPKFD_MEMORY_NUMA_H
#define HIPKFD_MEMORY_NUMA_H

#include <stdbool.h>
#include <stddef.h>

#include "kfd/kfd.h"

/* Place the pages of host memory at [in] addr, [in] len bytes, not touched yet: on the NUMA node
 * of GPU [in] n, or after the calling thread's policy when [in] thread_policy
 * (hipHostMallocNumaUser). Best effort (libnuma may be absent): never fails. */
void mem_numa_place(void *addr, size_t len, const struct kfd_node *n, bool thread_policy);

#endif
