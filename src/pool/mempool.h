/* Stream-ordered pools (mempool.c): what the entry points below reach through the hooks of
 * runtime/internal.h (installed by mempool.c at load). */
#ifndef HIPKFD_POOL_MEMPOOL_H
#define HIPKFD_POOL_MEMPOOL_H

#include <stdbool.h>

/* True if [in] ptr lies in a block that hipFreeAsync gave back to its pool: the pool keeps the
 * memory mapped for reuse, but for the program it is freed (hipMemPtrGetInfo refuses it, as
 * clr does). */
bool hip_mempool_holds_free(const void *ptr);

/* hipDeviceReset: every pool of device [in] device goes with all of its memory, in use or freed,
 * as clr's Device::Reset releases and deletes the device's pools (and CUDA's reset frees every
 * allocation). Handles of the device's pools become invalid; its default pool is made anew on
 * next use. Pointers imported into its imported pools are closed. The device's work must be
 * complete. */
void hip_mempool_reset_device(int device);

#endif
