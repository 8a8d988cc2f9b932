/* hipkfd: exported entry points that exist only for ABI compatibility.
 *
 *  - the unversioned hipGetDeviceProperties/hipChooseDevice, which old binaries call with the
 *    ROCm 5 (R0000) property layout (ROCm 6+ headers rename the calls to the R0600 entries);
 *  - the C++-mangled entry points that ROCm 5.2 headers emitted references to;
 *  - small helpers libamdhip64.so.5 exported (hipCreateChannelDesc, the half conversions,
 *    __hipGetPCH, the debugger build queries, hiprtcGetErrorString).
 * Each forwards to the C API or is complete on its own. The mangled surface calls are in
 * src/texture/texture_surface.c, beside the calls they forward to. */
#include "../runtime/error.h"

#include <stdint.h>
#include <string.h>

/* The header maps these names to the R0600 entry points for new code; here we define the
 * exported unversioned symbols themselves, with the old layout. */
#undef hipGetDeviceProperties
#undef hipChooseDevice

hipError_t hipGetDeviceProperties(hipDeviceProp_tR0000* prop, int device);
hipError_t hipChooseDevice(int* device, const hipDeviceProp_tR0000* prop);

/* Through the gate (the exported R0000 wrappers), so the API log shows these calls too. */
__typeof__(hipGetDevicePropertiesR0000) gate_hipGetDevicePropertiesR0000 __asm__("hipGetDevicePropertiesR0000");
__typeof__(hipChooseDeviceR0000) gate_hipChooseDeviceR0000 __asm__("hipChooseDeviceR0000");

hipError_t hipGetDeviceProperties(hipDeviceProp_tR0000* prop, int device) {
  return gate_hipGetDevicePropertiesR0000(prop, device);
}

hipError_t hipChooseDevice(int* device, const hipDeviceProp_tR0000* prop) {
  return gate_hipChooseDeviceR0000(device, prop);
}

/* ---- C++-mangled entry points of ROCm 5.2 (declared without extern "C" there) ------------ */

/* They enter through the gate (tools/gate), as a call of the C name would: the exported wrapper,
 * not the implementation the plain name means inside the library, so a ROCm 5 binary is logged,
 * serialized and stopped by a sticky fault like any other. */
__typeof__(hipExtModuleLaunchKernel) gate_hipExtModuleLaunchKernel __asm__("hipExtModuleLaunchKernel");
__typeof__(hipHccModuleLaunchKernel) gate_hipHccModuleLaunchKernel __asm__("hipHccModuleLaunchKernel");
__typeof__(hipLaunchKernel) gate_hipLaunchKernel __asm__("hipLaunchKernel");

#define HIPKFD_EXPORT __attribute__((visibility("default")))


/* hipExtModuleLaunchKernel(hipFunction_t, 6 x uint32_t, size_t, hipStream_t, void**, void**,
 * hipEvent_t, hipEvent_t, uint32_t) */
HIPKFD_EXPORT hipError_t cxx_hipExtModuleLaunchKernel(hipFunction_t f, uint32_t gx, uint32_t gy, uint32_t gz,
                                                      uint32_t lx, uint32_t ly, uint32_t lz, size_t shmem,
                                                      hipStream_t stream, void** params, void** extra,
                                                      hipEvent_t start, hipEvent_t stop, uint32_t flags)
    __asm__("_Z24hipExtModuleLaunchKernelP18ihipModuleSymbol_tjjjjjjmP12ihipStream_tPPvS4_P11ihipEvent_tS6_j");
hipError_t cxx_hipExtModuleLaunchKernel(hipFunction_t f, uint32_t gx, uint32_t gy, uint32_t gz, uint32_t lx,
                                        uint32_t ly, uint32_t lz, size_t shmem, hipStream_t stream,
                                        void** params, void** extra, hipEvent_t start, hipEvent_t stop,
                                        uint32_t flags) {
  return gate_hipExtModuleLaunchKernel(f, gx, gy, gz, lx, ly, lz, shmem, stream, params, extra, start, stop, flags);
}

/* hipHccModuleLaunchKernel: the same without flags */
HIPKFD_EXPORT hipError_t cxx_hipHccModuleLaunchKernel(hipFunction_t f, uint32_t gx, uint32_t gy, uint32_t gz,
                                                      uint32_t lx, uint32_t ly, uint32_t lz, size_t shmem,
                                                      hipStream_t stream, void** params, void** extra,
                                                      hipEvent_t start, hipEvent_t stop)
    __asm__("_Z24hipHccModuleLaunchKernelP18ihipModuleSymbol_tjjjjjjmP12ihipStream_tPPvS4_P11ihipEvent_tS6_");
hipError_t cxx_hipHccModuleLaunchKernel(hipFunction_t f, uint32_t gx, uint32_t gy, uint32_t gz, uint32_t lx,
                                        uint32_t ly, uint32_t lz, size_t shmem, hipStream_t stream,
                                        void** params, void** extra, hipEvent_t start, hipEvent_t stop) {
  return gate_hipHccModuleLaunchKernel(f, gx, gy, gz, lx, ly, lz, shmem, stream, params, extra, start, stop);
}

/* hip_impl::hipLaunchKernelGGLImpl(uintptr_t function, const dim3& grid, const dim3& block,
 * uint32_t sharedMem, hipStream_t, void** kernarg): the hipLaunchKernelGGL path of ROCm 5.2's
 * headers. References are pointers at the ABI level. */
HIPKFD_EXPORT void cxx_hipLaunchKernelGGLImpl(uintptr_t function, const dim3* grid, const dim3* block,
                                              uint32_t shmem, hipStream_t stream, void** kernarg)
    __asm__("_ZN8hip_impl22hipLaunchKernelGGLImplEmRK4dim3S2_jP12ihipStream_tPPv");
void cxx_hipLaunchKernelGGLImpl(uintptr_t function, const dim3* grid, const dim3* block, uint32_t shmem,
                                hipStream_t stream, void** kernarg) {
  /* void in 5.2.3: the launch status is left in the thread's last error by hipLaunchKernel. */
  (void)gate_hipLaunchKernel((const void*)function, *grid, *block, kernarg, shmem, stream);
}

/* hip_impl::hip_init(): runtime initialisation requested by header-side launch helpers. */
HIPKFD_EXPORT hipError_t cxx_hip_init(void) __asm__("_ZN8hip_impl8hip_initEv");
hipError_t cxx_hip_init(void) {
  return hipInit(0);
}

/* ---- Helpers exported by libamdhip64.so.5 ---------------------------------------------------- */

typedef struct hipChannelFormatDesc hip_channel_desc;
HIPKFD_EXPORT hip_channel_desc hipCreateChannelDesc(int x, int y, int z, int w, enum hipChannelFormatKind f);
hip_channel_desc hipCreateChannelDesc(int x, int y, int z, int w, enum hipChannelFormatKind f) {
  hip_channel_desc d = {.x = x, .y = y, .z = z, .w = w, .f = f};
  return d;
}

/* IEEE 754 binary16 <-> binary32, round to nearest even (libgcc's __gnu_* helpers, which old
 * HIP headers call for host-side half arithmetic). */
HIPKFD_EXPORT float __gnu_h2f_ieee(unsigned short h);
float __gnu_h2f_ieee(unsigned short h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t man = h & 0x3ffu;
  uint32_t bits;
  if (exp == 0x1f) {
    bits = sign | 0x7f800000u | (man << 13); /* inf / NaN, payload kept */
  } else if (exp != 0) {
    bits = sign | ((exp + 112u) << 23) | (man << 13); /* rebias 15 -> 127 */
  } else if (man == 0) {
    bits = sign; /* +-0 */
  } else {
    int e = -1; /* subnormal: normalise the mantissa */
    do {
      man <<= 1;
      e++;
    } while ((man & 0x400u) == 0);
    bits = sign | ((uint32_t)(112 - e) << 23) | ((man & 0x3ffu) << 13);
  }
  float f;
  memcpy(&f, &bits, sizeof(f));
  return f;
}

HIPKFD_EXPORT unsigned short __gnu_f2h_ieee(float f);
unsigned short __gnu_f2h_ieee(float f) {
  uint32_t bits;
  memcpy(&bits, &f, sizeof(bits));
  uint32_t sign = (bits >> 16) & 0x8000u;
  uint32_t exp = (bits >> 23) & 0xffu;
  uint32_t man = bits & 0x7fffffu;
  if (exp == 0xff) /* inf stays inf; NaN keeps its top payload bits and stays quiet */
    return (unsigned short)(sign | 0x7c00u | (man ? 0x200u | (man >> 13) : 0));
  int e = (int)exp - 127 + 15;
  if (e >= 0x1f)
    return (unsigned short)(sign | 0x7c00u); /* overflow -> inf */
  uint32_t half;
  uint32_t shift;
  if (e <= 0) {
    if (e < -10)
      return (unsigned short)sign; /* below half the smallest subnormal */
    man |= 0x800000u;               /* implicit bit, then denormalise */
    shift = (uint32_t)(14 - e);
    half = man >> shift;
  } else {
    shift = 13;
    half = ((uint32_t)e << 10) | (man >> 13);
  }
  uint32_t rest = man & ((1u << shift) - 1u);
  uint32_t halfway = 1u << (shift - 1);
  if (rest > halfway || (rest == halfway && (half & 1u)))
    half++; /* a carry into the exponent field is the correct rounding */
  return (unsigned short)(sign | half);
}

/* Pre-compiled header for hiprtc: hipkfd ships none. */
HIPKFD_EXPORT void __hipGetPCH(const char** pch, unsigned int* size);
void __hipGetPCH(const char** pch, unsigned int* size) {
  if (pch)
    *pch = NULL;
  if (size)
    *size = 0;
}

/* Build identification for the ROCm debugger. */
HIPKFD_EXPORT const char* amd_dbgapi_get_build_name(void);
HIPKFD_EXPORT const char* amd_dbgapi_get_git_hash(void);
HIPKFD_EXPORT size_t amd_dbgapi_get_build_id(void);
const char* amd_dbgapi_get_build_name(void) {
  return HIP_VERSION_BUILD_NAME;
}
const char* amd_dbgapi_get_git_hash(void) {
  return HIP_VERSION_GITHASH;
}
size_t amd_dbgapi_get_build_id(void) {
  return HIP_VERSION_BUILD_ID;
}

/* hiprtcResult names, 0..11 (HIPRTC_SUCCESS ... HIPRTC_ERROR_INTERNAL_ERROR) and 100. */
HIPKFD_EXPORT const char* hiprtcGetErrorString(int result);
const char* hiprtcGetErrorString(int result) {
  static const char* const names[] = {
      "HIPRTC_SUCCESS",
      "HIPRTC_ERROR_OUT_OF_MEMORY",
      "HIPRTC_ERROR_PROGRAM_CREATION_FAILURE",
      "HIPRTC_ERROR_INVALID_INPUT",
      "HIPRTC_ERROR_INVALID_PROGRAM",
      "HIPRTC_ERROR_INVALID_OPTION",
      "HIPRTC_ERROR_COMPILATION",
      "HIPRTC_ERROR_BUILTIN_OPERATION_FAILURE",
      "HIPRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION",
      "HIPRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION",
      "HIPRTC_ERROR_NAME_EXPRESSION_NOT_VALID",
      "HIPRTC_ERROR_INTERNAL_ERROR",
  };
  if (result == 100)
    return "HIPRTC_ERROR_LINKING";
  if (result < 0 || (size_t)result >= sizeof(names) / sizeof(names[0]))
    return "Invalid HIPRTC error code";
  return names[result];
}
