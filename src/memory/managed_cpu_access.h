/* The CPU's AccessedBy advice on managed memory (managed_cpu_access.c). */
#ifndef HIPKFD_MEMORY_MANAGED_CPU_ACCESS_H
#define HIPKFD_MEMORY_MANAGED_CPU_ACCESS_H

#include <stdbool.h>
#include <stdint.h>

/* Record ([in] on) or drop the advice for bytes [start, end) of allocation [in] alloc_id.
 * Returns 0 or -1 (out of memory). */
int managed_cpu_access_set(uint64_t alloc_id, uint64_t start, uint64_t end, bool on);

/* All of [start, end) of allocation [in] alloc_id carries the advice. */
bool managed_cpu_access_covers(uint64_t alloc_id, uint64_t start, uint64_t end);

#endif
