// hip_ext.h (kernel-language side) and hip_runtime_api.h together: hip_ext.h declares the
// hipExt*/hipHcc* module launches with default arguments, so hip_runtime_api.h must not.
#include <hip/hip_runtime_api.h>
#include <hip/hip_ext.h>

int main() {
  return hipExtModuleLaunchKernel(nullptr, 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, nullptr) == hipSuccess;
}
