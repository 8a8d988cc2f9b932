/*
 * Cooperative launches that span several devices (launch_multi.c), and the two entry points of
 * launch.c they are built on.
 */
#ifndef HIPKFD_API_LAUNCH_MULTI_H
#define HIPKFD_API_LAUNCH_MULTI_H

#include <stdint.h>

#include <hip/hip_runtime_api.h>

struct hip_launch;

/* Every check hip_launch makes (function on the stream's device, configuration, cooperative
 * residency, arguments), without dispatching. Returns a hipError_t. */
hipError_t hip_launch_check(const struct hip_launch *l);

/* hip_launch for one member grid of a multi-device cooperative launch: [in] group_va is the GPU
 * address of the grid's multigrid info block (ockl's hidden_multigrid_sync_arg). */
hipError_t hip_launch_multigrid(const struct hip_launch *l, uint64_t group_va);

#endif
