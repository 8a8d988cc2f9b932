/* hipkfd: the operation-activity half of the ROCm 5.x profiling interface (what roctracer calls
 * to learn about kernels and copies). See README "Observing a program". */
#ifndef HIP_INCLUDE_HIP_AMD_DETAIL_HIP_RUNTIME_PROF_H
#define HIP_INCLUDE_HIP_AMD_DETAIL_HIP_RUNTIME_PROF_H

#include <stdint.h>
#ifndef __cplusplus
#include <stdbool.h>
#endif

/* Operations an activity callback can be enabled for. */
enum HipVdiOpId {
  kHipVdiOpIdDispatch = 0,
  kHipVdiOpIdCopy = 1,
  kHipVdiOpIdBarrier = 2,
  kHipVdiOpIdNumber = 3
};

/* Command kinds of the activity records (what hipGetCmdName names). */
enum HipVdiCommandKind {
  kHipVdiCommandKernel = 0x11F0,
  kHipVdiMemcpyDeviceToHost = 0x11F3,
  kHipHipVdiMemcpyHostToDevice = 0x11F4,
  kHipVdiMemcpyDeviceToDevice = 0x11F5,
  kHipVidMemcpyDeviceToHostRect = 0x1201,
  kHipVdiMemcpyHostToDeviceRect = 0x1202,
  kHipVdiMemcpyDeviceToDeviceRect = 0x1203,
  kHipVdiFillMemory = 0x1207,
};

#ifdef __cplusplus
extern "C" {
#endif

/* [in] id_callback: void (*)(uint64_t record_id), called when an operation is issued;
 * [in] op_callback: void (*)(uint32_t op, void *activity_record, void *arg), called when it
 * finished; [in] arg: passed to op_callback. */
void hipInitActivityCallback(void* id_callback, void* op_callback, void* arg);
/* Enables (disables) the callbacks for [in] op (enum HipVdiOpId). False for an unknown op. */
bool hipEnableActivityCallback(uint32_t op, bool enable);
/* The name of command kind [in] id ("KernelExecution", ...). */
const char* hipGetCmdName(uint32_t id);

#ifdef __cplusplus
}
#endif

#endif
