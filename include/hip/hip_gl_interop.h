/* hipkfd: OpenGL interop. The declarations (hipGLGetDevices, hipGraphicsGLRegister*) and the
 * GL scalar types live in hip_runtime_api.h; hipkfd has no GL interop and these calls return
 * hipErrorNotSupported. */
#ifndef HIP_INCLUDE_HIP_HIP_GL_INTEROP_H
#define HIP_INCLUDE_HIP_HIP_GL_INTEROP_H
#include <hip/hip_runtime_api.h>
#endif
