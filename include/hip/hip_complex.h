/* hipkfd: complex numbers for HIP code (hipFloatComplex, hipDoubleComplex, hipC* functions). */
#ifndef HIPKFD_HIP_COMPLEX_H
#define HIPKFD_HIP_COMPLEX_H
#include <hip/amd_detail/amd_hip_complex.h>
#endif
