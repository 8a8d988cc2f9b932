/*
 * Device-side malloc/free: the heap object a kernel finds in hidden_heap_v1 and the host half of
 * the hostcall DEVMEM service that feeds it memory.
 *
 * Facts (ROCm 5.2.3 device libraries, ockl dm.cl as disassembled from Debian's ockl.bc; clr's
 * devhostcall.cpp for the service):
 * - __ockl_dm_alloc/__ockl_dm_dealloc find the heap object ("heap_t") at implicit-argument
 *   offset 96 (hidden_heap_v1) when __oclc_ABI_version >= 500; code object v4 uses a static,
 *   zero-initialised heap_t inside the code object instead (so v4 needs only the service).
 * - heap_t is 100872 bytes and needs no initialisation beyond zeroes: the 5.2.3 library has no
 *   __ockl_dm_init_v1 (later libraries do) and sets up slabs itself.
 * - Memory comes from hostcall service 3 (DEVMEM): lane slot[0] != 0 frees that address;
 *   otherwise slot[1] bytes are allocated (2 MiB slabs must be 2 MiB aligned: the library finds
 *   a slab's header by masking an address; direct allocations must be page aligned: dealloc
 *   treats a page-aligned address as one). The reply in slot[0] is the address, 0 on failure.
 */
#ifndef HIPKFD_DEVICE_HEAP_H
#define HIPKFD_DEVICE_HEAP_H

#include <stdint.h>

struct hip_device;

/* Bytes of ockl's heap_t (ROCm 5.2.3): 3 x 16 x 32 + 2 x 16 x 32 + 16 x 256 x 24 + 8. */
#define DEVICE_HEAP_OBJECT_SIZE 100872u

/* [out] va: what hidden_heap_v1 holds for launches on [in] d: a zeroed heap_t in device memory,
 * allocated on first use. Returns 0 or -errno (-ENOTSUP when the device memory is not
 * host-visible, so it cannot be zeroed here). */
int hip_device_heap(struct hip_device *d, uint64_t *va);

/* Serve one lane of a DEVMEM hostcall packet from a kernel on [in] d: [in,out] slot is the
 * lane's 8 payload words; the reply goes to slot[0] (address or 0) and slot[1] (0). Unknown
 * addresses are not freed (the reply is 0 either way). */
void hip_devmem_serve(struct hip_device *d, uint64_t *slot);

#endif
