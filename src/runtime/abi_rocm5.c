/* Linked into libamdhip64.so.5 only (src/CMakeLists.txt): overrides the weak ABI flag in abi.c
 * so that this copy of the runtime answers with ROCm 5's enum numbering. */
int hip_abi_rocm_major = 5;
