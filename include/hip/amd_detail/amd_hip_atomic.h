/* hipkfd: HIP atomic functions ("Atomic functions" in the HIP C++ language extensions).
 *
 * Every operation is a relaxed read-modify-write, as in CUDA, at one of three scopes:
 *   atomicX         agent (the executing device; also correct for __shared__ memory)
 *   atomicX_block   work-group
 *   atomicX_system  system (host and peer devices)
 * They are clang's __hip_atomic_* builtins, so the backend chooses the instruction for the
 * address space and target (global/flat/ds atomics, or a compare-and-swap loop where the
 * hardware has no safe instruction, e.g. float add on fine-grained memory without
 * -munsafe-fp-atomics). unsafeAtomicAdd forces the hardware float instruction; safeAtomicAdd
 * forces the compare-and-swap loop. */
#ifndef HIPKFD_AMD_DETAIL_AMD_HIP_ATOMIC_H
#define HIPKFD_AMD_DETAIL_AMD_HIP_ATOMIC_H

#include <hip/amd_detail/host_defines.h>

#if defined(__HIPKFD_HIP_CLANG__)

#define __HIPKFD_ADEV__ static __device__ inline __attribute__((always_inline))

/* One family of overloads per operation and scope. */
#define __HIPKFD_ATOMIC_RMW(name, builtin, T, scope)                                       \
  __HIPKFD_ADEV__ T name(T *address, T val) {                                             \
    return builtin(address, val, __ATOMIC_RELAXED, scope);                                \
  }

#define __HIPKFD_ATOMIC_CAS(name, T, scope)                                                \
  __HIPKFD_ADEV__ T name(T *address, T compare, T val) {                                  \
    __hip_atomic_compare_exchange_strong(address, &compare, val, __ATOMIC_RELAXED,        \
                                         __ATOMIC_RELAXED, scope);                        \
    return compare;                                                                       \
  }

#define __HIPKFD_ATOMIC_SUB(name, T, scope)                                                \
  __HIPKFD_ADEV__ T name(T *address, T val) {                                             \
    return __hip_atomic_fetch_add(address, (T)(0 - val), __ATOMIC_RELAXED, scope);         \
  }

#define __HIPKFD_ATOMIC_FSUB(name, T, scope)                                               \
  __HIPKFD_ADEV__ T name(T *address, T val) {                                             \
    return __hip_atomic_fetch_add(address, -val, __ATOMIC_RELAXED, scope);                \
  }

/* All types: add, exch, min, max, cas. Integers: sub, and, or, xor. Floats: sub by negation. */
#define __HIPKFD_ATOMIC_COMMON(sfx, T, scope)                                              \
  __HIPKFD_ATOMIC_RMW(atomicAdd##sfx, __hip_atomic_fetch_add, T, scope)                    \
  __HIPKFD_ATOMIC_RMW(atomicExch##sfx, __hip_atomic_exchange, T, scope)                    \
  __HIPKFD_ATOMIC_RMW(atomicMin##sfx, __hip_atomic_fetch_min, T, scope)                    \
  __HIPKFD_ATOMIC_RMW(atomicMax##sfx, __hip_atomic_fetch_max, T, scope)                    \
  __HIPKFD_ATOMIC_CAS(atomicCAS##sfx, T, scope)

#define __HIPKFD_ATOMIC_INTEGER(sfx, T, scope)                                             \
  __HIPKFD_ATOMIC_COMMON(sfx, T, scope)                                                    \
  __HIPKFD_ATOMIC_SUB(atomicSub##sfx, T, scope)                                            \
  __HIPKFD_ATOMIC_RMW(atomicAnd##sfx, __hip_atomic_fetch_and, T, scope)                    \
  __HIPKFD_ATOMIC_RMW(atomicOr##sfx, __hip_atomic_fetch_or, T, scope)                      \
  __HIPKFD_ATOMIC_RMW(atomicXor##sfx, __hip_atomic_fetch_xor, T, scope)

#define __HIPKFD_ATOMIC_FLOAT(sfx, T, scope)                                               \
  __HIPKFD_ATOMIC_COMMON(sfx, T, scope)                                                    \
  __HIPKFD_ATOMIC_FSUB(atomicSub##sfx, T, scope)

#define __HIPKFD_ATOMIC_SCOPE(sfx, scope)                                                  \
  __HIPKFD_ATOMIC_INTEGER(sfx, int, scope)                                                 \
  __HIPKFD_ATOMIC_INTEGER(sfx, unsigned int, scope)                                        \
  __HIPKFD_ATOMIC_INTEGER(sfx, long, scope)                                                \
  __HIPKFD_ATOMIC_INTEGER(sfx, unsigned long, scope)                                       \
  __HIPKFD_ATOMIC_INTEGER(sfx, long long, scope)                                           \
  __HIPKFD_ATOMIC_INTEGER(sfx, unsigned long long, scope)                                  \
  __HIPKFD_ATOMIC_FLOAT(sfx, float, scope)                                                 \
  __HIPKFD_ATOMIC_FLOAT(sfx, double, scope)

__HIPKFD_ATOMIC_SCOPE(, __HIP_MEMORY_SCOPE_AGENT)
__HIPKFD_ATOMIC_SCOPE(_system, __HIP_MEMORY_SCOPE_SYSTEM)
__HIPKFD_ATOMIC_SCOPE(_block, __HIP_MEMORY_SCOPE_WORKGROUP)

/* atomicInc/atomicDec with CUDA's wrap-around semantics:
 *   inc: old >= limit ? 0 : old + 1       dec: (old == 0 || old > limit) ? limit : old - 1
 * which is exactly what the hardware's atomic_inc/atomic_dec do. */
#define __HIPKFD_ATOMIC_INCDEC(sfx, scope_name)                                            \
  __HIPKFD_ADEV__ unsigned int atomicInc##sfx(unsigned int *address, unsigned int limit) { \
    return __builtin_amdgcn_atomic_inc32(address, limit, __ATOMIC_RELAXED, scope_name);    \
  }                                                                                       \
  __HIPKFD_ADEV__ unsigned int atomicDec##sfx(unsigned int *address, unsigned int limit) { \
    return __builtin_amdgcn_atomic_dec32(address, limit, __ATOMIC_RELAXED, scope_name);    \
  }
__HIPKFD_ATOMIC_INCDEC(, "agent")
__HIPKFD_ATOMIC_INCDEC(_system, "")
__HIPKFD_ATOMIC_INCDEC(_block, "workgroup")

/* Result-less add (AMD extension). */
__HIPKFD_ADEV__ void atomicAddNoRet(float *address, float val) {
  (void)__hip_atomic_fetch_add(address, val, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}

/* The compare-and-swap loop every floating-point RMW can fall back to: correct on any memory,
 * fine-grained included. `op` computes the new value from the old one. */
template <class T, class Op>
__HIPKFD_ADEV__ T __hipkfd_atomic_cas_loop(T *address, T val, Op op) {
  T old = __hip_atomic_load(address, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  T desired;
  do {
    desired = op(old, val);
  } while (!__hip_atomic_compare_exchange_weak(address, &old, desired, __ATOMIC_RELAXED,
                                               __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT));
  return old;
}

struct __hipkfd_op_add {
  template <class T> __device__ T operator()(T a, T b) const { return a + b; }
};
struct __hipkfd_op_min {
  template <class T> __device__ T operator()(T a, T b) const { return b < a ? b : a; }
};
struct __hipkfd_op_max {
  template <class T> __device__ T operator()(T a, T b) const { return b > a ? b : a; }
};

__HIPKFD_ADEV__ float safeAtomicAdd(float *address, float val) {
  return __hipkfd_atomic_cas_loop(address, val, __hipkfd_op_add());
}
__HIPKFD_ADEV__ double safeAtomicAdd(double *address, double val) {
  return __hipkfd_atomic_cas_loop(address, val, __hipkfd_op_add());
}
__HIPKFD_ADEV__ float safeAtomicMin(float *address, float val) {
  return __hipkfd_atomic_cas_loop(address, val, __hipkfd_op_min());
}
__HIPKFD_ADEV__ double safeAtomicMin(double *address, double val) {
  return __hipkfd_atomic_cas_loop(address, val, __hipkfd_op_min());
}
__HIPKFD_ADEV__ float safeAtomicMax(float *address, float val) {
  return __hipkfd_atomic_cas_loop(address, val, __hipkfd_op_max());
}
__HIPKFD_ADEV__ double safeAtomicMax(double *address, double val) {
  return __hipkfd_atomic_cas_loop(address, val, __hipkfd_op_max());
}

/* unsafeAtomicAdd: the hardware float add whatever -munsafe-fp-atomics says. LDS has native
 * ds_add_f32/f64 on gfx90a and gfx942, which the plain builtin selects; global memory uses the
 * global_atomic_add_f32/f64 builtins (gfx90a and later), which may not update fine-grained
 * host memory correctly: that is the documented "unsafe" part. */
__HIPKFD_ADEV__ float unsafeAtomicAdd(float *address, float val) {
#if defined(__HIPKFD_DEVICE_PASS__)
  if (__builtin_amdgcn_is_shared((const void *)address))
    return __hip_atomic_fetch_add(address, val, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);
  return __builtin_amdgcn_global_atomic_fadd_f32(
      (__attribute__((address_space(1))) float *)address, val);
#else
  return __hip_atomic_fetch_add(address, val, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
#endif
}
__HIPKFD_ADEV__ double unsafeAtomicAdd(double *address, double val) {
#if defined(__HIPKFD_DEVICE_PASS__)
  if (__builtin_amdgcn_is_shared((const void *)address))
    return __hip_atomic_fetch_add(address, val, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);
  return __builtin_amdgcn_global_atomic_fadd_f64(
      (__attribute__((address_space(1))) double *)address, val);
#else
  return __hip_atomic_fetch_add(address, val, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
#endif
}
/* Float min/max have no unsafe hardware path on these targets that differs from the safe one
 * in a documented way; the unsafe names use the compiler's atomic min/max. */
__HIPKFD_ADEV__ float unsafeAtomicMin(float *address, float val) {
  return __hip_atomic_fetch_min(address, val, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}
__HIPKFD_ADEV__ double unsafeAtomicMin(double *address, double val) {
  return __hip_atomic_fetch_min(address, val, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}
__HIPKFD_ADEV__ float unsafeAtomicMax(float *address, float val) {
  return __hip_atomic_fetch_max(address, val, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}
__HIPKFD_ADEV__ double unsafeAtomicMax(double *address, double val) {
  return __hip_atomic_fetch_max(address, val, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}

#endif /* __HIPKFD_HIP_CLANG__ */
#endif /* HIPKFD_AMD_DETAIL_AMD_HIP_ATOMIC_H */
