/* A "foreign" client: compiled against Debian's ROCm 5.2.3 headers and linked against Debian's
 * libamdhip64.so.5 (DT_NEEDED libamdhip64.so.5, symbols versioned hip_4.2). Run with
 * LD_LIBRARY_PATH pointing at hipkfd's build, it must load hipkfd through the .so.5 name and
 * resolve every versioned reference. */
#include <hip/hip_runtime_api.h>
#include <dlfcn.h>
#include <stdio.h>

int main(void) {
  const char* (*build_name)(void) = (const char* (*)(void))dlsym(RTLD_DEFAULT, "amd_dbgapi_get_build_name");
  printf("runtime: %s\n", build_name ? build_name() : "unknown");
  printf("string: %s\n", hipGetErrorString(hipErrorInvalidValue));
  printf("name: %s\n", hipGetErrorName(hipErrorOutOfMemory));
  return 0;
}
