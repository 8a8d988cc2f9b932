/* hipkfd: the error entry points: names and messages of every hipError_t, and the thread's last
 * error (hipGetLastError, hipPeekAtLastError, hipExtGetLastError). The state itself lives in
 * src/runtime/error.c; semantics in src/runtime/error.h. */
#include <stddef.h>

#include "../runtime/error.h"

struct hip_error_text {
  hipError_t code;
  const char* name;
  const char* text;
};

/* Names and messages for every hipError_t value. The names are the enumerators (for aliases
 * such as hipErrorMemoryAllocation, the current spelling). The messages are AMD's where clr has
 * one; clr maps 911, 912, 914-916 and 1054 to "unknown error", we describe them instead. */
static const struct hip_error_text error_table[] = {
    {hipSuccess, "hipSuccess", "no error"},
    {hipErrorInvalidValue, "hipErrorInvalidValue", "invalid argument"},
    {hipErrorOutOfMemory, "hipErrorOutOfMemory", "out of memory"},
    {hipErrorNotInitialized, "hipErrorNotInitialized", "initialization error"},
    {hipErrorDeinitialized, "hipErrorDeinitialized", "driver shutting down"},
    {hipErrorProfilerDisabled, "hipErrorProfilerDisabled",
     "profiler disabled while using external profiling tool"},
    {hipErrorProfilerNotInitialized, "hipErrorProfilerNotInitialized", "profiler is not initialized"},
    {hipErrorProfilerAlreadyStarted, "hipErrorProfilerAlreadyStarted", "profiler already started"},
    {hipErrorProfilerAlreadyStopped, "hipErrorProfilerAlreadyStopped", "profiler already stopped"},
    {hipErrorInvalidConfiguration, "hipErrorInvalidConfiguration", "invalid configuration argument"},
    {hipErrorInvalidPitchValue, "hipErrorInvalidPitchValue", "invalid pitch argument"},
    {hipErrorInvalidSymbol, "hipErrorInvalidSymbol", "invalid device symbol"},
    {hipErrorInvalidDevicePointer, "hipErrorInvalidDevicePointer", "invalid device pointer"},
    {hipErrorInvalidMemcpyDirection, "hipErrorInvalidMemcpyDirection", "invalid copy direction for memcpy"},
    {hipErrorInsufficientDriver, "hipErrorInsufficientDriver",
     "driver version is insufficient for runtime version"},
    {hipErrorMissingConfiguration, "hipErrorMissingConfiguration",
     "__global__ function call is not configured"},
    {hipErrorPriorLaunchFailure, "hipErrorPriorLaunchFailure", "unspecified launch failure in prior launch"},
    {hipErrorInvalidDeviceFunction, "hipErrorInvalidDeviceFunction", "invalid device function"},
    {hipErrorNoDevice, "hipErrorNoDevice", "no ROCm-capable device is detected"},
    {hipErrorInvalidDevice, "hipErrorInvalidDevice", "invalid device ordinal"},
    {hipErrorInvalidImage, "hipErrorInvalidImage", "device kernel image is invalid"},
    {hipErrorInvalidContext, "hipErrorInvalidContext", "invalid device context"},
    {hipErrorContextAlreadyCurrent, "hipErrorContextAlreadyCurrent", "context is already current context"},
    {hipErrorMapFailed, "hipErrorMapFailed", "mapping of buffer object failed"},
    {hipErrorUnmapFailed, "hipErrorUnmapFailed", "unmapping of buffer object failed"},
    {hipErrorArrayIsMapped, "hipErrorArrayIsMapped", "array is mapped"},
    {hipErrorAlreadyMapped, "hipErrorAlreadyMapped", "resource already mapped"},
    {hipErrorNoBinaryForGpu, "hipErrorNoBinaryForGpu",
     "no kernel image is available for execution on the device"},
    {hipErrorAlreadyAcquired, "hipErrorAlreadyAcquired", "resource already acquired"},
    {hipErrorNotMapped, "hipErrorNotMapped", "resource not mapped"},
    {hipErrorNotMappedAsArray, "hipErrorNotMappedAsArray", "resource not mapped as array"},
    {hipErrorNotMappedAsPointer, "hipErrorNotMappedAsPointer", "resource not mapped as pointer"},
    {hipErrorECCNotCorrectable, "hipErrorECCNotCorrectable", "uncorrectable ECC error encountered"},
    {hipErrorUnsupportedLimit, "hipErrorUnsupportedLimit", "limit is not supported on this architecture"},
    {hipErrorContextAlreadyInUse, "hipErrorContextAlreadyInUse",
     "exclusive-thread device already in use by a different thread"},
    {hipErrorPeerAccessUnsupported, "hipErrorPeerAccessUnsupported",
     "peer access is not supported between these two devices"},
    {hipErrorInvalidKernelFile, "hipErrorInvalidKernelFile", "invalid kernel file"},
    {hipErrorInvalidGraphicsContext, "hipErrorInvalidGraphicsContext", "invalid OpenGL or DirectX context"},
    {hipErrorInvalidSource, "hipErrorInvalidSource", "device kernel image is invalid"},
    {hipErrorFileNotFound, "hipErrorFileNotFound", "file not found"},
    {hipErrorSharedObjectSymbolNotFound, "hipErrorSharedObjectSymbolNotFound", "shared object symbol not found"},
    {hipErrorSharedObjectInitFailed, "hipErrorSharedObjectInitFailed", "shared object initialization failed"},
    {hipErrorOperatingSystem, "hipErrorOperatingSystem", "OS call failed or operation not supported on this OS"},
    {hipErrorInvalidHandle, "hipErrorInvalidHandle", "invalid resource handle"},
    {hipErrorIllegalState, "hipErrorIllegalState", "the operation cannot be performed in the present state"},
    {hipErrorNotFound, "hipErrorNotFound", "named symbol not found"},
    {hipErrorNotReady, "hipErrorNotReady", "device not ready"},
    {hipErrorIllegalAddress, "hipErrorIllegalAddress", "an illegal memory access was encountered"},
    {hipErrorLaunchOutOfResources, "hipErrorLaunchOutOfResources", "too many resources requested for launch"},
    {hipErrorLaunchTimeOut, "hipErrorLaunchTimeOut", "the launch timed out and was terminated"},
    {hipErrorPeerAccessAlreadyEnabled, "hipErrorPeerAccessAlreadyEnabled", "peer access is already enabled"},
    {hipErrorPeerAccessNotEnabled, "hipErrorPeerAccessNotEnabled", "peer access has not been enabled"},
    {hipErrorSetOnActiveProcess, "hipErrorSetOnActiveProcess", "cannot set while device is active in this process"},
    {hipErrorContextIsDestroyed, "hipErrorContextIsDestroyed", "context is destroyed"},
    {hipErrorAssert, "hipErrorAssert", "device-side assert triggered"},
    {hipErrorHostMemoryAlreadyRegistered, "hipErrorHostMemoryAlreadyRegistered",
     "part or all of the requested memory range is already mapped"},
    {hipErrorHostMemoryNotRegistered, "hipErrorHostMemoryNotRegistered",
     "pointer does not correspond to a registered memory region"},
    {hipErrorLaunchFailure, "hipErrorLaunchFailure", "unspecified launch failure"},
    {hipErrorCooperativeLaunchTooLarge, "hipErrorCooperativeLaunchTooLarge", "too many blocks in cooperative launch"},
    {hipErrorNotSupported, "hipErrorNotSupported", "operation not supported"},
    {hipErrorStreamCaptureUnsupported, "hipErrorStreamCaptureUnsupported",
     "operation not permitted when stream is capturing"},
    {hipErrorStreamCaptureInvalidated, "hipErrorStreamCaptureInvalidated",
     "operation failed due to a previous error during capture"},
    {hipErrorStreamCaptureMerge, "hipErrorStreamCaptureMerge",
     "operation would result in a merge of separate capture sequences"},
    {hipErrorStreamCaptureUnmatched, "hipErrorStreamCaptureUnmatched",
     "capture was not ended in the same stream as it began"},
    {hipErrorStreamCaptureUnjoined, "hipErrorStreamCaptureUnjoined", "capturing stream has unjoined work"},
    {hipErrorStreamCaptureIsolation, "hipErrorStreamCaptureIsolation",
     "dependency created on uncaptured work in another stream"},
    {hipErrorStreamCaptureImplicit, "hipErrorStreamCaptureImplicit",
     "operation would make the legacy stream depend on a capturing blocking stream"},
    {hipErrorCapturedEvent, "hipErrorCapturedEvent",
     "operation not permitted on an event last recorded in a capturing stream"},
    {hipErrorStreamCaptureWrongThread, "hipErrorStreamCaptureWrongThread",
     "attempt to terminate a thread-local capture sequence from another thread"},
    {hipErrorGraphExecUpdateFailure, "hipErrorGraphExecUpdateFailure",
     "the graph update was not performed because it included changes which violated constraints "
     "specific to instantiated graph update"},
    {hipErrorInvalidChannelDescriptor, "hipErrorInvalidChannelDescriptor", "invalid channel descriptor"},
    {hipErrorInvalidTexture, "hipErrorInvalidTexture", "invalid texture"},
    {hipErrorInvalidResourceType, "hipErrorInvalidResourceType", "resource type is not valid for the operation"},
    {hipErrorInvalidResourceConfiguration, "hipErrorInvalidResourceConfiguration",
     "resource configuration is not valid for the operation"},
    {hipErrorStreamDetached, "hipErrorStreamDetached", "the stream is detached"},
    {hipErrorUnknown, "hipErrorUnknown", "unknown error"},
    {hipErrorRuntimeMemory, "hipErrorRuntimeMemory", "runtime memory call returned error"},
    {hipErrorRuntimeOther, "hipErrorRuntimeOther", "runtime call other than memory returned error"},
    {hipErrorInvalidClusterSize, "hipErrorInvalidClusterSize", "invalid cluster size"},
    {hipErrorTbd, "hipErrorTbd", "unknown error"},
};

/* The entry for `err`, or NULL for a value outside hipError_t. */
static const struct hip_error_text* error_lookup(hipError_t err) {
  for (size_t i = 0; i < sizeof(error_table) / sizeof(error_table[0]); i++)
    if (error_table[i].code == err)
      return &error_table[i];
  return NULL;
}

const char* hipGetErrorName(hipError_t hip_error) {
  const struct hip_error_text* e = error_lookup(hip_error);
  return e ? e->name : "hipErrorUnknown"; /* AMD's answer for values it does not know */
}

const char* hipGetErrorString(hipError_t hipError) {
  const struct hip_error_text* e = error_lookup(hipError);
  return e ? e->text : "unknown error";
}

/* The driver-style variants fail with hipErrorInvalidValue for a value outside hipError_t, and
 * still hand back the "unknown" text, as clr does. */
hipError_t hipDrvGetErrorName(hipError_t hipError, const char** errorString) {
  if (errorString == NULL)
    return hipErrorInvalidValue;
  *errorString = hipGetErrorName(hipError);
  return error_lookup(hipError) ? hipSuccess : hipErrorInvalidValue;
}

hipError_t hipDrvGetErrorString(hipError_t hipError, const char** errorString) {
  if (errorString == NULL)
    return hipErrorInvalidValue;
  *errorString = hipGetErrorString(hipError);
  return error_lookup(hipError) ? hipSuccess : hipErrorInvalidValue;
}

hipError_t hipGetLastError(void) {
  hipError_t err = hip_tls_last_error;
  hip_tls_last_error = hipSuccess;
  hipError_t sticky = hip_sticky_error_get();
  return sticky != hipSuccess ? sticky : err;
}

/* Like clr, the peek itself leaves through the error state: its result becomes the last command
 * result (and, being the last error, leaves that unchanged). */
hipError_t hipPeekAtLastError(void) {
  hipError_t sticky = hip_sticky_error_get();
  return hip_set_error(sticky != hipSuccess ? sticky : hip_tls_last_error);
}

hipError_t hipExtGetLastError(void) {
  hipError_t err = hip_tls_last_command_error;
  hip_tls_last_command_error = hipSuccess;
  hipError_t sticky = hip_sticky_error_get();
  return sticky != hipSuccess ? sticky : err;
}
