/* hip_runtime_api.h must compile alone as strict C11 (no GNU extensions, -Wpedantic). */
#include <hip/hip_runtime_api.h>

int main(void) {
  hipDeviceProp_t prop;
  hipDeviceProp_tR0000 old;
  dim3 d = {1, 1, 1};
  static hipLaunchConfig_t cfg; /* zero-initialised */
  (void)prop;
  (void)old;
  (void)d;
  (void)cfg;
  return hipSuccess;
}
