/* hipkfd: the pre-5.0 name of the AMD extension header. */
#ifndef HIPKFD_HIP_HCC_H
#define HIPKFD_HIP_HCC_H
#include <hip/hip_ext.h>
#endif
