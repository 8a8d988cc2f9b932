// Regression: a program that returns from main while a kernel is still running (here one that
// never ends) must exit, not hang in the runtime's exit path (__hipUnregisterFatBinary used to
// wait for every stream) nor in kfdsim's queue teardown.
#include <hip/hip_runtime.h>
#include <cstdio>

__global__ void spin_forever(volatile int *flag) {
  while (*flag == 0) {
  }
}

int main() {
  int *flag = nullptr;
  if (hipMalloc(&flag, sizeof(int)) != hipSuccess || hipMemset(flag, 0, sizeof(int)) != hipSuccess) {
    std::printf("exit_with_running_kernel: setup failed\n");
    return 1;
  }
  spin_forever<<<2, 64>>>(flag);
  if (hipGetLastError() != hipSuccess) {
    std::printf("exit_with_running_kernel: launch failed\n");
    return 1;
  }
  std::printf("exit_with_running_kernel: PASSED (returning with the kernel running)\n");
  return 0;
}
