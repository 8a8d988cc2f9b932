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
  HIPRTC_ERROR_INTERNAL_ERROR = 11,
  HIPRTC_ERROR_LINKING = 100
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

/* The code object (an AMDGPU ELF for hipModuleLoadData); none (size 0) after -fgpu-rdc. */
hiprtcResult hiprtcGetCodeSize(hiprtcProgram prog, size_t* codeSizeRet);
hiprtcResult hiprtcGetCode(hiprtcProgram prog, char* code);
/* With -fgpu-rdc the program compiles to LLVM bitcode (relocatable device code: it may call
 * __device__ functions and use variables other programs define), which the linker below turns
 * into a code object. HIPRTC_ERROR_INVALID_PROGRAM for a program compiled without it. */
hiprtcResult hiprtcGetBitcodeSize(hiprtcProgram prog, size_t* bitcode_size);
hiprtcResult hiprtcGetBitcode(hiprtcProgram prog, char* bitcode);

/* ---- linking bitcode into a code object ---- */

/* Options of hiprtcLinkCreate (the values of hipJitOption). hipkfd uses the log buffers, the
 * optimisation level and the _EXT pair (extra options for the code generator, e.g. "-O2" or
 * "-mcpu=gfx90a"); it accepts and ignores the others. */
typedef enum hiprtcJIT_option {
  HIPRTC_JIT_MAX_REGISTERS = 0,
  HIPRTC_JIT_THREADS_PER_BLOCK,
  HIPRTC_JIT_WALL_TIME,
  HIPRTC_JIT_INFO_LOG_BUFFER,            /* char*: receives the linker's messages */
  HIPRTC_JIT_INFO_LOG_BUFFER_SIZE_BYTES, /* size_t, passed as the pointer value */
  HIPRTC_JIT_ERROR_LOG_BUFFER,           /* char*: receives the messages of a failed link */
  HIPRTC_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
  HIPRTC_JIT_OPTIMIZATION_LEVEL,         /* 0..3, passed as the pointer value */
  HIPRTC_JIT_TARGET_FROM_HIPCONTEXT,
  HIPRTC_JIT_TARGET,
  HIPRTC_JIT_FALLBACK_STRATEGY,
  HIPRTC_JIT_GENERATE_DEBUG_INFO,
  HIPRTC_JIT_LOG_VERBOSE,
  HIPRTC_JIT_GENERATE_LINE_INFO,
  HIPRTC_JIT_CACHE_MODE,
  HIPRTC_JIT_NEW_SM3X_OPT,
  HIPRTC_JIT_FAST_COMPILE,
  HIPRTC_JIT_GLOBAL_SYMBOL_NAMES,
  HIPRTC_JIT_GLOBAL_SYMBOL_ADDRESS,
  HIPRTC_JIT_GLOBAL_SYMBOL_COUNT,
  HIPRTC_JIT_LTO,
  HIPRTC_JIT_FTZ,
  HIPRTC_JIT_PREC_DIV,
  HIPRTC_JIT_PREC_SQRT,
  HIPRTC_JIT_FMA,
  HIPRTC_JIT_NUM_OPTIONS,
  HIPRTC_JIT_IR_TO_ISA_OPT_EXT = 10000,  /* const char**: extra code generator options */
  HIPRTC_JIT_IR_TO_ISA_OPT_COUNT_EXT     /* their count, passed as the pointer value */
} hiprtcJIT_option;

/* Inputs: AMDGPU bitcode, raw (hiprtcGetBitcode, clang -emit-llvm) or in a clang offload bundle
 * (hipcc -fgpu-rdc -c). The CUDA kinds are refused; archives and SPIR-V are not supported. */
typedef enum hiprtcJITInputType {
  HIPRTC_JIT_INPUT_CUBIN = 0,
  HIPRTC_JIT_INPUT_PTX,
  HIPRTC_JIT_INPUT_FATBINARY,
  HIPRTC_JIT_INPUT_OBJECT,
  HIPRTC_JIT_INPUT_LIBRARY,
  HIPRTC_JIT_INPUT_NVVM,
  HIPRTC_JIT_NUM_LEGACY_INPUT_TYPES,
  HIPRTC_JIT_INPUT_LLVM_BITCODE = 100,
  HIPRTC_JIT_INPUT_LLVM_BUNDLED_BITCODE = 101,
  HIPRTC_JIT_INPUT_LLVM_ARCHIVES_OF_BUNDLED_BITCODE = 102,
  HIPRTC_JIT_INPUT_SPIRV = 103,
  HIPRTC_JIT_NUM_INPUT_TYPES = (HIPRTC_JIT_NUM_LEGACY_INPUT_TYPES + 4)
} hiprtcJITInputType;

typedef struct ihiprtcLinkState* hiprtcLinkState;

hiprtcResult hiprtcLinkCreate(unsigned int num_options, hiprtcJIT_option* option_ptr,
                              void** option_vals_pptr, hiprtcLinkState* hip_link_state_ptr);
hiprtcResult hiprtcLinkAddFile(hiprtcLinkState hip_link_state, hiprtcJITInputType input_type,
                               const char* file_path, unsigned int num_options,
                               hiprtcJIT_option* options_ptr, void** option_values);
hiprtcResult hiprtcLinkAddData(hiprtcLinkState hip_link_state, hiprtcJITInputType input_type,
                               void* image, size_t image_size, const char* name,
                               unsigned int num_options, hiprtcJIT_option* options_ptr,
                               void** option_values);
/* Links everything added into one code object for the current device (or -mcpu= given as an
 * _EXT option). *bin_out stays valid until hiprtcLinkDestroy. */
hiprtcResult hiprtcLinkComplete(hiprtcLinkState hip_link_state, void** bin_out, size_t* size_out);
hiprtcResult hiprtcLinkDestroy(hiprtcLinkState hip_link_state);

#ifdef __cplusplus
}
#endif

#endif
