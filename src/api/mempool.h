/* Stream-ordered pools (mempool.c) as other files of src/api see them. */
#ifndef HIPKFD_API_MEMPOOL_H
#define HIPKFD_API_MEMPOOL_H

#include <stdbool.h>

/* True if [in] ptr lies in a block that hipFreeAsync gave back to its pool: the pool keeps the
 * memory mapped for reuse, but for the program it is freed (hipMemPtrGetInfo refuses it, as
 * clr does). */
bool hip_mempool_holds_free(const void *ptr);

#endif
