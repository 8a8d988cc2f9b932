/* hipkfd: the device-library (ROCm-Device-Libs ockl) functions the kernel-language headers call.
 * They are linked from ockl.bc by clang (-mlink-builtin-bitcode); every name below is exported
 * by Debian 12's rocm-device-libs 5.2.3. */
#ifndef HIPKFD_AMD_DETAIL_DEVICE_LIBRARY_DECLS_H
#define HIPKFD_AMD_DETAIL_DEVICE_LIBRARY_DECLS_H

#include <hip/amd_detail/host_defines.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__HIPKFD_HIP_CLANG__)
/* Short unsigned names AMD's kernel language provides (glibc has ushort, uint and ulong, not
 * uchar or ullong); identical typedefs may repeat in C++. */
typedef unsigned char uchar;
typedef unsigned short ushort;
typedef unsigned int uint;
typedef unsigned long ulong;
typedef unsigned long long ullong;

extern "C" {
/* Dispatch geometry; reads the dispatch packet (code object v4) or the hidden kernel arguments
 * (v5), chosen by __oclc_ABI_version. */
__device__ __attribute__((const)) size_t __ockl_get_local_size(unsigned int dim);
__device__ __attribute__((const)) size_t __ockl_get_enqueued_local_size(unsigned int dim);
__device__ __attribute__((const)) size_t __ockl_get_num_groups(unsigned int dim);
__device__ __attribute__((const)) size_t __ockl_get_global_size(unsigned int dim);

/* Work-group reductions through LDS scratch, with the barriers they need. */
__device__ int __ockl_wgred_add_i32(int x);
__device__ int __ockl_wgred_and_i32(int x);
__device__ int __ockl_wgred_or_i32(int x);

/* Grid-wide barriers of cooperative launches (hidden argument multigrid_sync_arg). */
__device__ void __ockl_grid_sync(void);
__device__ int __ockl_grid_is_valid(void);
__device__ void __ockl_multi_grid_sync(void);
__device__ int __ockl_multi_grid_is_valid(void);
__device__ unsigned int __ockl_multi_grid_num_grids(void);
__device__ unsigned int __ockl_multi_grid_grid_rank(void);
__device__ unsigned int __ockl_multi_grid_size(void);
__device__ unsigned int __ockl_multi_grid_thread_rank(void);

/* Hostcall-based formatted output (printf, assert messages). */
__device__ uint64_t __ockl_printf_begin(uint64_t version);
__device__ uint64_t __ockl_fprintf_stderr_begin(void);
__device__ uint64_t __ockl_printf_append_string_n(uint64_t msg_desc, const char *data,
                                                  uint64_t length, uint32_t is_last);
__device__ uint64_t __ockl_printf_append_args(uint64_t msg_desc, uint32_t num_args,
                                              uint64_t value0, uint64_t value1,
                                              uint64_t value2, uint64_t value3,
                                              uint64_t value4, uint64_t value5,
                                              uint64_t value6, uint32_t is_last);

/* Integer helpers with no single clang builtin. */
__device__ __attribute__((const)) unsigned int __ockl_mul_hi_u32(unsigned int a, unsigned int b);
__device__ __attribute__((const)) int __ockl_mul_hi_i32(int a, int b);
__device__ __attribute__((const)) unsigned long long __ockl_mul_hi_u64(unsigned long long a,
                                                                       unsigned long long b);
__device__ __attribute__((const)) long long __ockl_mul_hi_i64(long long a, long long b);
__device__ __attribute__((const)) unsigned int __ockl_sadd_u32(unsigned int a, unsigned int b,
                                                               unsigned int c);
__device__ __attribute__((const)) unsigned int __ockl_activelane_u32(void);
}
#endif /* __HIPKFD_HIP_CLANG__ */

#endif
