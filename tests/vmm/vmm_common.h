/* Helpers shared by the tests/vmm suites. */
#ifndef HIPKFD_TESTS_VMM_COMMON_H
#define HIPKFD_TESTS_VMM_COMMON_H

#include <stddef.h>

#include <hip/hip_runtime_api.h>

/* Pinned device memory on [in] dev, with [in] handle_type as the requested OS handle. */
hipMemAllocationProp vmm_prop(int dev, hipMemAllocationHandleType handle_type);

/* The minimum granularity of device 0 (asserted to be 4 KiB). */
size_t vmm_min_granularity(void);

/* hipMemSetAccess of [in] flags for [in] dev on [va, va + size); returns its result. */
hipError_t vmm_set_access(void *va, size_t size, int dev, hipMemAccessFlags flags);

/* hipMemGetAccess of [in] dev at [in] va; asserts success. */
unsigned long long vmm_get_access(void *va, int dev);

/* Reserve [in] size bytes, create [in] size bytes of [in] handle_type on device 0 and map them
 * all, with read-write access for device 0. [out] va, [out] h. */
void vmm_map_new(size_t size, hipMemAllocationHandleType handle_type, void **va,
                 hipMemGenericAllocationHandle_t *h);

/* Undo vmm_map_new (unmap, release, free the reservation), asserting each step. */
void vmm_unmap_free(void *va, size_t size, hipMemGenericAllocationHandle_t h);

#endif
