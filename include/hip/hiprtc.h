/* hipkfd: hiprtc, HIP's runtime compilation API (C).
 *
 * A program is HIP source plus named in-memory headers; hiprtcCompileProgram turns it into an
 * AMDGPU code object for one GPU architecture, which hipModuleLoadData loads. hipkfd compiles
 * with clang 19 and its own headers (src/api/hiprtc.c says how they are found). Result values
 * and signatures are those of ROCm's hiprtc, so programs built against either header link to
 * either library. */
#ifndef HIP_INCLUDE_HIP_HIPRTC_H
#define HIP_INCLUDE_HIP_HIPRTC_H

#include <stddef.h>

#include <hip/hip_common.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum hiprtcResult {
  HIPRTC_SUCCESS = 0,
  HIPRTC_ERROR_OUT_OF_MEMORY = 1,
  HIPRTC_ERROR_PROGRAM_CREATION_FAILURE = 2,
  HIPRTC_ERROR_INVALID_INPUT = 3,
  HIPRTC_ERROR_INVALID_PROGRAM = 4,
  HIPRTC_ERROR_INVALID_OPTION = 5,
  HIPRTC_ERROR_COMPILATION = 6,
  HIPRTC_ERROR_BUILTIN_OPERATION_FAILURE = 7,
  HIPRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION = 8,
  HIPRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION = 9,
  HIPRTC_ERROR_NAME_EXPRESSION_NOT_VALID = 10,
  HIPRTC_ERROR_INTERNAL_ERROR = 11
} hiprtcResult;

typedef struct _hiprtcProgram* hiprtcProgram;

/* The name of a result ("HIPRTC_SUCCESS", ...); "Invalid HIPRTC error code" for others. */
const char* hiprtcGetErrorString(hiprtcResult result);
/* The HIP version this hiprtc belongs to. */
hiprtcResult hiprtcVersion(int* major, int* minor);

/* A program from `src` (named `name` in diagnostics; NULL: "default_program") and `numHeaders`
 * headers: headers[i] is the text `#include "includeNames[i]"` finds. */
hiprtcResult hiprtcCreateProgram(hiprtcProgram* prog, const char* src, const char* name,
                                 int numHeaders, const char** headers, const char** includeNames);
hiprtcResult hiprtcDestroyProgram(hiprtcProgram* prog);

/* Before compiling: ask for the mangled name of a __global__ function or __device__ variable,
 * written as the address expression a C++ program would use ("&kernel<float>" or
 * "kernel<float>"). After compiling, hiprtcGetLoweredName returns it (valid until the program
 * is destroyed). */
hiprtcResult hiprtcAddNameExpression(hiprtcProgram prog, const char* name_expression);
hiprtcResult hiprtcGetLoweredName(hiprtcProgram prog, const char* name_expression,
                                  const char** lowered_name);

/* Options: --gpu-architecture=<gfx...> (also --offload-arch=, -arch=; default: the current
 * device's), -O0..-O3 (default -O3), and any clang option (-D, -I, -std=, -ffast-math, ...). */
hiprtcResult hiprtcCompileProgram(hiprtcProgram prog, int numOptions, const char** options);

/* The compiler's messages; the size counts the terminating NUL (1 when there are none). */
hiprtcResult hiprtcGetProgramLogSize(hiprtcProgram prog, size_t* logSizeRet);
hiprtcResult hiprtcGetProgramLog(hiprtcProgram prog, char* log);

/* The code object (an AMDGPU ELF for hipModuleLoadData). */
hiprtcResult hiprtcGetCodeSize(hiprtcProgram prog, size_t* codeSizeRet);
hiprtcResult hiprtcGetCode(hiprtcProgram prog, char* code);

#ifdef __cplusplus
}
#endif

#endif
