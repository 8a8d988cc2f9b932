/* hipkfd: the built libamdhip64 seen from a client: error names and strings of every code, the
 * not-supported stubs and the last error they leave, the ABI helpers of ROCm 5.2, and symbol
 * versions resolved at run time. No GPU needed. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <hip/hip_runtime_api.h>

/* Exported by libamdhip64 but declared by no header of ours (kernel-language headers, hiprtc). */
hipChannelFormatDesc hipCreateChannelDesc(int x, int y, int z, int w, enum hipChannelFormatKind f);
float __gnu_h2f_ieee(unsigned short h);
unsigned short __gnu_f2h_ieee(float f);
void __hipGetPCH(const char** pch, unsigned int* size);
int hiprtcVersion(int* major, int* minor);
const char* hiprtcGetErrorString(int result);

static const struct {
  hipError_t code;
  const char* name;
} codes[] = {
    {hipSuccess, "hipSuccess"},
    {hipErrorInvalidValue, "hipErrorInvalidValue"},
    {hipErrorOutOfMemory, "hipErrorOutOfMemory"},
    {hipErrorNotInitialized, "hipErrorNotInitialized"},
    {hipErrorDeinitialized, "hipErrorDeinitialized"},
    {hipErrorProfilerDisabled, "hipErrorProfilerDisabled"},
    {hipErrorProfilerNotInitialized, "hipErrorProfilerNotInitialized"},
    {hipErrorProfilerAlreadyStarted, "hipErrorProfilerAlreadyStarted"},
    {hipErrorProfilerAlreadyStopped, "hipErrorProfilerAlreadyStopped"},
    {hipErrorInvalidConfiguration, "hipErrorInvalidConfiguration"},
    {hipErrorInvalidPitchValue, "hipErrorInvalidPitchValue"},
    {hipErrorInvalidSymbol, "hipErrorInvalidSymbol"},
    {hipErrorInvalidDevicePointer, "hipErrorInvalidDevicePointer"},
    {hipErrorInvalidMemcpyDirection, "hipErrorInvalidMemcpyDirection"},
    {hipErrorInsufficientDriver, "hipErrorInsufficientDriver"},
    {hipErrorMissingConfiguration, "hipErrorMissingConfiguration"},
    {hipErrorPriorLaunchFailure, "hipErrorPriorLaunchFailure"},
    {hipErrorInvalidDeviceFunction, "hipErrorInvalidDeviceFunction"},
    {hipErrorNoDevice, "hipErrorNoDevice"},
    {hipErrorInvalidDevice, "hipErrorInvalidDevice"},
    {hipErrorInvalidImage, "hipErrorInvalidImage"},
    {hipErrorInvalidContext, "hipErrorInvalidContext"},
    {hipErrorContextAlreadyCurrent, "hipErrorContextAlreadyCurrent"},
    {hipErrorMapFailed, "hipErrorMapFailed"},
    {hipErrorUnmapFailed, "hipErrorUnmapFailed"},
    {hipErrorArrayIsMapped, "hipErrorArrayIsMapped"},
    {hipErrorAlreadyMapped, "hipErrorAlreadyMapped"},
    {hipErrorNoBinaryForGpu, "hipErrorNoBinaryForGpu"},
    {hipErrorAlreadyAcquired, "hipErrorAlreadyAcquired"},
    {hipErrorNotMapped, "hipErrorNotMapped"},
    {hipErrorNotMappedAsArray, "hipErrorNotMappedAsArray"},
    {hipErrorNotMappedAsPointer, "hipErrorNotMappedAsPointer"},
    {hipErrorECCNotCorrectable, "hipErrorECCNotCorrectable"},
    {hipErrorUnsupportedLimit, "hipErrorUnsupportedLimit"},
    {hipErrorContextAlreadyInUse, "hipErrorContextAlreadyInUse"},
    {hipErrorPeerAccessUnsupported, "hipErrorPeerAccessUnsupported"},
    {hipErrorInvalidKernelFile, "hipErrorInvalidKernelFile"},
    {hipErrorInvalidGraphicsContext, "hipErrorInvalidGraphicsContext"},
    {hipErrorInvalidSource, "hipErrorInvalidSource"},
    {hipErrorFileNotFound, "hipErrorFileNotFound"},
    {hipErrorSharedObjectSymbolNotFound, "hipErrorSharedObjectSymbolNotFound"},
    {hipErrorSharedObjectInitFailed, "hipErrorSharedObjectInitFailed"},
    {hipErrorOperatingSystem, "hipErrorOperatingSystem"},
    {hipErrorInvalidHandle, "hipErrorInvalidHandle"},
    {hipErrorIllegalState, "hipErrorIllegalState"},
    {hipErrorNotFound, "hipErrorNotFound"},
    {hipErrorNotReady, "hipErrorNotReady"},
    {hipErrorIllegalAddress, "hipErrorIllegalAddress"},
    {hipErrorLaunchOutOfResources, "hipErrorLaunchOutOfResources"},
    {hipErrorLaunchTimeOut, "hipErrorLaunchTimeOut"},
    {hipErrorPeerAccessAlreadyEnabled, "hipErrorPeerAccessAlreadyEnabled"},
    {hipErrorPeerAccessNotEnabled, "hipErrorPeerAccessNotEnabled"},
    {hipErrorSetOnActiveProcess, "hipErrorSetOnActiveProcess"},
    {hipErrorContextIsDestroyed, "hipErrorContextIsDestroyed"},
    {hipErrorAssert, "hipErrorAssert"},
    {hipErrorHostMemoryAlreadyRegistered, "hipErrorHostMemoryAlreadyRegistered"},
    {hipErrorHostMemoryNotRegistered, "hipErrorHostMemoryNotRegistered"},
    {hipErrorLaunchFailure, "hipErrorLaunchFailure"},
    {hipErrorCooperativeLaunchTooLarge, "hipErrorCooperativeLaunchTooLarge"},
    {hipErrorNotSupported, "hipErrorNotSupported"},
    {hipErrorStreamCaptureUnsupported, "hipErrorStreamCaptureUnsupported"},
    {hipErrorStreamCaptureInvalidated, "hipErrorStreamCaptureInvalidated"},
    {hipErrorStreamCaptureMerge, "hipErrorStreamCaptureMerge"},
    {hipErrorStreamCaptureUnmatched, "hipErrorStreamCaptureUnmatched"},
    {hipErrorStreamCaptureUnjoined, "hipErrorStreamCaptureUnjoined"},
    {hipErrorStreamCaptureIsolation, "hipErrorStreamCaptureIsolation"},
    {hipErrorStreamCaptureImplicit, "hipErrorStreamCaptureImplicit"},
    {hipErrorCapturedEvent, "hipErrorCapturedEvent"},
    {hipErrorStreamCaptureWrongThread, "hipErrorStreamCaptureWrongThread"},
    {hipErrorGraphExecUpdateFailure, "hipErrorGraphExecUpdateFailure"},
    {hipErrorInvalidChannelDescriptor, "hipErrorInvalidChannelDescriptor"},
    {hipErrorInvalidTexture, "hipErrorInvalidTexture"},
    {hipErrorInvalidResourceType, "hipErrorInvalidResourceType"},
    {hipErrorInvalidResourceConfiguration, "hipErrorInvalidResourceConfiguration"},
    {hipErrorStreamDetached, "hipErrorStreamDetached"},
    {hipErrorUnknown, "hipErrorUnknown"},
    {hipErrorRuntimeMemory, "hipErrorRuntimeMemory"},
    {hipErrorRuntimeOther, "hipErrorRuntimeOther"},
    {hipErrorInvalidClusterSize, "hipErrorInvalidClusterSize"},
    {hipErrorTbd, "hipErrorTbd"},
};

Test(error_text, every_code_has_its_name_and_a_message) {
  for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
    const char* name = hipGetErrorName(codes[i].code);
    const char* text = hipGetErrorString(codes[i].code);
    cr_assert_not_null(name, "code %d", (int)codes[i].code);
    cr_assert_str_eq(name, codes[i].name, "code %d", (int)codes[i].code);
    cr_assert_not_null(text, "code %d", (int)codes[i].code);
    cr_assert_gt(strlen(text), 0, "code %d", (int)codes[i].code);
    const char* drv = NULL;
    cr_assert_eq(hipDrvGetErrorName(codes[i].code, &drv), hipSuccess);
    cr_assert_str_eq(drv, name);
    cr_assert_eq(hipDrvGetErrorString(codes[i].code, &drv), hipSuccess);
    cr_assert_str_eq(drv, text);
  }
}

Test(error_text, amd_strings_sample) {
  cr_assert_str_eq(hipGetErrorString(hipSuccess), "no error");
  cr_assert_str_eq(hipGetErrorString(hipErrorInvalidValue), "invalid argument");
  cr_assert_str_eq(hipGetErrorString(hipErrorOutOfMemory), "out of memory");
  cr_assert_str_eq(hipGetErrorString(hipErrorNoDevice), "no ROCm-capable device is detected");
  cr_assert_str_eq(hipGetErrorString(hipErrorInvalidDevice), "invalid device ordinal");
  cr_assert_str_eq(hipGetErrorString(hipErrorNotReady), "device not ready");
  cr_assert_str_eq(hipGetErrorString(hipErrorNotSupported), "operation not supported");
  cr_assert_str_eq(hipGetErrorString(hipErrorIllegalAddress), "an illegal memory access was encountered");
  cr_assert_str_eq(hipGetErrorString(hipErrorUnknown), "unknown error");
}

Test(error_text, aliases_share_the_current_name) {
  cr_assert_str_eq(hipGetErrorName(hipErrorMemoryAllocation), "hipErrorOutOfMemory");
  cr_assert_str_eq(hipGetErrorName(hipErrorInitializationError), "hipErrorNotInitialized");
  cr_assert_str_eq(hipGetErrorName(hipErrorInvalidResourceHandle), "hipErrorInvalidHandle");
  cr_assert_str_eq(hipGetErrorName(hipErrorMapBufferObjectFailed), "hipErrorMapFailed");
}

Test(error_text, values_outside_the_enum) {
  cr_assert_str_eq(hipGetErrorName((hipError_t)12345), "hipErrorUnknown");
  cr_assert_str_eq(hipGetErrorString((hipError_t)12345), "unknown error");
  const char* s = NULL;
  cr_assert_eq(hipDrvGetErrorName((hipError_t)12345, &s), hipErrorInvalidValue);
  cr_assert_str_eq(s, "hipErrorUnknown");
  cr_assert_eq(hipDrvGetErrorString((hipError_t)-1, &s), hipErrorInvalidValue);
  cr_assert_str_eq(s, "unknown error");
  cr_assert_eq(hipDrvGetErrorName(hipSuccess, NULL), hipErrorInvalidValue);
  cr_assert_eq(hipDrvGetErrorString(hipSuccess, NULL), hipErrorInvalidValue);
}

/* OpenGL interop will never exist in hipkfd: these stay stubs. */
Test(stubs, return_not_supported_and_set_last_error) {
  (void)hipGetLastError();
  unsigned count = 7;
  int devices[4];
  cr_assert_eq(hipGLGetDevices(&count, devices, 4, hipGLDeviceListAll), hipErrorNotSupported);
  cr_assert_eq(count, 7u, "a stub writes nothing");
  cr_assert_eq(hipPeekAtLastError(), hipErrorNotSupported);
  cr_assert_eq(hipGetLastError(), hipErrorNotSupported);
  cr_assert_eq(hipGetLastError(), hipSuccess);
  hipGraphicsResource* res = NULL;
  cr_assert_eq(hipGraphicsGLRegisterBuffer(&res, 1, 0), hipErrorNotSupported);
  cr_assert_eq(hipGraphicsGLRegisterImage(&res, 1, 0x0DE1, 0), hipErrorNotSupported);
  cr_assert_null(res);
  cr_assert_eq(hipExtGetLastError(), hipErrorNotSupported);
}

Test(stubs, hiprtc_version_and_error_names) {
  int major = -1, minor = -1;
  cr_assert_eq(hiprtcVersion(&major, &minor), 0, "HIPRTC_SUCCESS");
  cr_assert_eq(major, HIP_VERSION_MAJOR);
  cr_assert_eq(minor, HIP_VERSION_MINOR);
  cr_assert_eq(hiprtcVersion(NULL, &minor), 3, "HIPRTC_ERROR_INVALID_INPUT");
  cr_assert_str_eq(hiprtcGetErrorString(11), "HIPRTC_ERROR_INTERNAL_ERROR");
  cr_assert_str_eq(hiprtcGetErrorString(0), "HIPRTC_SUCCESS");
  cr_assert_str_eq(hiprtcGetErrorString(99), "Invalid HIPRTC error code");
}

Test(compat, channel_desc) {
  hipChannelFormatDesc d = hipCreateChannelDesc(8, 16, 32, 0, hipChannelFormatKindUnsigned);
  cr_assert_eq(d.x, 8);
  cr_assert_eq(d.y, 16);
  cr_assert_eq(d.z, 32);
  cr_assert_eq(d.w, 0);
  cr_assert_eq(d.f, hipChannelFormatKindUnsigned);
}

Test(compat, pch_is_empty) {
  const char* pch = "x";
  unsigned size = 5;
  __hipGetPCH(&pch, &size);
  cr_assert_null(pch);
  cr_assert_eq(size, 0u);
  __hipGetPCH(NULL, NULL); /* must not crash */
}

/* The reference is the compiler's own binary16 conversion (round to nearest even). */
Test(compat, half_to_float_exhaustive) {
  for (uint32_t h = 0; h <= 0xffffu; h++) {
    uint16_t bits = (uint16_t)h;
    _Float16 ref16;
    memcpy(&ref16, &bits, sizeof(bits));
    float ref = (float)ref16;
    float got = __gnu_h2f_ieee(bits);
    if (isnan(ref)) {
      cr_assert(isnan(got), "h=0x%04x", h);
    } else {
      uint32_t a, b;
      memcpy(&a, &ref, 4);
      memcpy(&b, &got, 4);
      cr_assert_eq(a, b, "h=0x%04x: got 0x%08x want 0x%08x", h, b, a);
    }
  }
}

Test(compat, float_to_half_sweep) {
  /* Every 4093rd float bit pattern plus the boundary cases of rounding and range. */
  for (uint64_t u = 0; u <= 0xffffffffull; u += 4093) {
    uint32_t bits = (uint32_t)u;
    float f;
    memcpy(&f, &bits, 4);
    _Float16 ref16 = (_Float16)f;
    uint16_t ref;
    memcpy(&ref, &ref16, 2);
    uint16_t got = __gnu_f2h_ieee(f);
    if (isnan(f))
      cr_assert((got & 0x7c00u) == 0x7c00u && (got & 0x3ffu) != 0, "f=0x%08x: NaN must stay NaN", bits);
    else
      cr_assert_eq(got, ref, "f=0x%08x: got 0x%04x want 0x%04x", bits, got, ref);
  }
  static const float edge[] = {0.0f, -0.0f, 1.0f, 65504.0f, 65520.0f, 65519.99f, 6.1035156e-05f,
                               5.9604645e-08f, 2.9802322e-08f, 2.9802326e-08f, 1.0009766f, 1.00048828125f,
                               1.00146484375f, INFINITY, -INFINITY};
  for (size_t i = 0; i < sizeof(edge) / sizeof(edge[0]); i++) {
    _Float16 ref16 = (_Float16)edge[i];
    uint16_t ref;
    memcpy(&ref, &ref16, 2);
    cr_assert_eq(__gnu_f2h_ieee(edge[i]), ref, "f=%a", (double)edge[i]);
  }
}

/* Symbol versions as the dynamic loader resolves them for old and new binaries. */
Test(versions, nodes_resolve_at_run_time) {
  void* self = dlopen(HIPKFD_TEST_LIBDIR "/libamdhip64.so.7", RTLD_NOW);
  cr_assert_not_null(self, "%s", dlerror());
  cr_assert_not_null(dlvsym(self, "hipMalloc", "hip_4.2"));
  cr_assert_not_null(dlvsym(self, "hipGetDeviceProperties", "hip_4.2"));
  cr_assert_not_null(dlvsym(self, "hipGetDevicePropertiesR0600", "hip_6.0"));
  cr_assert_not_null(dlvsym(self, "hipExtHostAlloc", "hip_6.3"));
  cr_assert_not_null(dlvsym(self, "hipLaunchKernelExC", "hip_6.5"));
  cr_assert_not_null(dlvsym(self, "hipStreamCopyAttributes", "hip_7.2"));
  cr_assert_null(dlvsym(self, "hipMalloc", "hip_7.2"), "hipMalloc is a hip_4.2 symbol");
  cr_assert_null(dlsym(self, "hip_set_error"), "internal symbols stay local");
  cr_assert_neq(dlvsym(self, "hipGetDeviceProperties", "hip_4.2"),
                dlvsym(self, "hipGetDevicePropertiesR0600", "hip_6.0"),
                "the unversioned name keeps the R0000 layout, it is not the R0600 entry");
  dlclose(self);
}

/* .so.6 is the same file as .so.7 (one ABI, one runtime); .so.5 is a library of its own with
 * the ROCm 5 numbering (src/CMakeLists.txt explains the two-runtime trade-off). */
Test(versions, rocm6_name_is_the_rocm7_library_and_rocm5_is_its_own) {
  void* v7 = dlopen(HIPKFD_TEST_LIBDIR "/libamdhip64.so.7", RTLD_NOW);
  void* v6 = dlopen(HIPKFD_TEST_LIBDIR "/libamdhip64.so.6", RTLD_NOW);
  void* v5 = dlopen(HIPKFD_TEST_LIBDIR "/libamdhip64.so.5", RTLD_NOW);
  cr_assert_not_null(v7, "%s", dlerror());
  cr_assert_not_null(v6, "%s", dlerror());
  cr_assert_not_null(v5, "%s", dlerror());
  cr_assert_eq(dlsym(v6, "hipGetErrorName"), dlsym(v7, "hipGetErrorName"), "one runtime for ROCm 6/7");
  cr_assert_neq(dlsym(v5, "hipGetErrorName"), dlsym(v7, "hipGetErrorName"), ".so.5 is a separate library");
  cr_assert_not_null(dlvsym(v5, "hipMalloc", "hip_4.2"), "the ROCm 5 library keeps the version nodes");
  dlclose(v5);
  dlclose(v6);
  dlclose(v7);
}
