// An offload bundle of AMDGPU bitcode for test_misc_rtc_link (built as hipcc -fgpu-rdc -c does).
__device__ int twice(int x) { return 2 * x; }
