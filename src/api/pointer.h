/* Pointer queries shared with other files of src/api. */
#ifndef HIPKFD_API_POINTER_H
#define HIPKFD_API_POINTER_H

#include <hip/hip_runtime_api.h>

/* hipDrvPointerGetAttributes: [in] n attributes [in] attributes of [in] ptr into [out] data[i].
 * An attribute the pointer lacks reads as its default (null, 0, false, -2 for the ordinal) with
 * success, as cuPointerGetAttributes and clr; bad arguments or an unknown attribute ->
 * hipErrorInvalidValue. Does not record the error (the caller's HIP_RETURN does). */
hipError_t hip_pointer_get_attributes_drv(unsigned int n, hipPointer_attribute *attributes,
					  void **data, hipDeviceptr_t ptr);

#endif
