/* Which HIP ABI this copy of the library speaks. libamdhip64.so.6/.so.7 speak the current one;
 * libamdhip64.so.5 is linked from the same objects plus abi_rocm5.c and speaks ROCm 5's wherever
 * ROCm 6.0 renumbered an enum a caller reads back (tests/abi/rocm5_abi_changes.txt). */
#ifndef HIPKFD_RUNTIME_ABI_H
#define HIPKFD_RUNTIME_ABI_H

#include <hip/hip_runtime_api.h>

/* 5 in libamdhip64.so.5, 7 otherwise. */
int hip_abi_major(void);

/* The value a caller of this library's ABI reads for a memory type / graph node type. */
unsigned hip_abi_memory_type(enum hipMemoryType type);
unsigned hip_abi_graph_node_type(hipGraphNodeType type);

/* hipMemAllocationProp as the caller laid it out: ROCm 5 put compressionType first and location
 * at offset 4; ROCm 6 reordered the fields (rocm5_abi_changes.txt). Same size (32) in both. */
void hip_abi_alloc_prop_in(const hipMemAllocationProp *caller, hipMemAllocationProp *out);
void hip_abi_alloc_prop_out(const hipMemAllocationProp *in, hipMemAllocationProp *caller);

/* A memory type the caller passed in (hip_Memcpy2D, HIP_MEMCPY3D) in this library's numbering.
 * A ROCm 5 value with no ROCm 7 meaning becomes hipMemoryTypeUnregistered (0), which every copy
 * rejects as hipErrorInvalidMemcpyDirection. */
enum hipMemoryType hip_abi_memory_type_in(unsigned type);

/* The caller's parameter blocks in this library's layout and numbering. ROCm 5's HIP_MEMCPY3D
 * has unsigned int offsets, pitches and sizes (128 bytes; ROCm 6: size_t, 184 bytes). */
void hip_abi_memcpy2d_in(const hip_Memcpy2D *caller, hip_Memcpy2D *out);
void hip_abi_memcpy3d_in(const HIP_MEMCPY3D *caller, HIP_MEMCPY3D *out);

/* The flags of entry [i] of a caller's hipExternalSemaphoreSignalParams/WaitParams array: ROCm 6
 * added the nvSciSync union, so flags moved from 64 to 72 and each entry from 136 to 144 bytes. */
unsigned int hip_abi_sem_signal_flags(const hipExternalSemaphoreSignalParams *arr, unsigned i);
unsigned int hip_abi_sem_wait_flags(const hipExternalSemaphoreWaitParams *arr, unsigned i);

#endif
