/* The hostcall service (hostcall.c): what a launch puts in a kernel's hidden hostcall and
 * multigrid arguments. */
#ifndef HIPKFD_HOSTCALL_HOSTCALL_H
#define HIPKFD_HOSTCALL_HOSTCALL_H

#include <stdint.h>

struct hip_device;

/* The hostcall buffer of [in] d (created with its service thread on first use). Returns 0 or
 * -errno. [out] va: what hidden_hostcall_buffer holds. */
int hip_hostcall_buffer(struct hip_device *d, uint64_t *va);

/* [out] va: what hidden_multigrid_sync_arg holds for a cooperative launch of [in] all_sum
 * work-items on [in] d (ockl's multigrid info for grid 0 of 1). Returns 0 or -errno. */
int hip_multigrid_sync_arg(struct hip_device *d, uint64_t all_sum, uint64_t *va);

#endif
