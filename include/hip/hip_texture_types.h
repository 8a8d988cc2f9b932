/* hipkfd: AMD's name for the texture type header. */
#ifndef HIP_INCLUDE_HIP_HIP_TEXTURE_TYPES_H
#define HIP_INCLUDE_HIP_HIP_TEXTURE_TYPES_H
#include <hip/texture_types.h>
#endif
