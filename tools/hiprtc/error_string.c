/* libhiprtc's hiprtcGetErrorString. The names table lives in libamdhip64 (src/api/abi_compat.c),
 * which exports it as hiprtcGetErrorString@@hip_4.2 for ROCm 5 binaries; libhiprtc exports the
 * name unversioned (as AMD's libhiprtc does) and forwards to that definition. A plain or
 * versioned reference would bind back to this function (libhiprtc has no version nodes, so its
 * definition satisfies any version, and a tail call made that an endless loop): the definition
 * is looked up in libamdhip64 itself, which libhiprtc links, so it is already loaded. */
#include <dlfcn.h>
#include <stddef.h>

#include <hip/hiprtc.h>

typedef const char *(*error_string_fn)(hiprtcResult result);

static error_string_fn amdhip64_error_string(void)
{
  static void *fn; /* written racily with one value: atomic loads and stores */
  void *f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
  if (!f) {
    void *lib = dlopen("libamdhip64.so.7", RTLD_LAZY | RTLD_NOLOAD);
    f = lib ? dlsym(lib, "hiprtcGetErrorString") : NULL;
    __atomic_store_n(&fn, f, __ATOMIC_RELEASE);
  }
  error_string_fn out;
  *(void **)&out = f;
  return out;
}

__attribute__((visibility("default"))) const char *hiprtcGetErrorString(hiprtcResult result)
{
  error_string_fn fn = amdhip64_error_string();
  return fn ? fn(result) : "HIPRTC_ERROR_INTERNAL_ERROR";
}
