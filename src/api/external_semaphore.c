/*
 * External semaphores (Vulkan/D3D interop): hipImportExternalSemaphore,
 * hipSignalExternalSemaphoresAsync, hipWaitExternalSemaphoresAsync, hipDestroyExternalSemaphore.
 *
 * Importing a semaphore is not implemented (it needs a DRM syncobj or a D3D fence behind the fd),
 * so no external semaphore ever exists in this runtime and every call that would use one answers
 * hipErrorNotSupported. The arguments are still checked first, in clr's order
 * (hip_memory.cpp): NULL pointers, handle types outside OpaqueFd..D3D12Fence, an fd of 0, a
 * stream handle that is not live, NULL array entries and non-zero per-semaphore flags are all
 * hipErrorInvalidValue. An empty list (numExtSems 0) has nothing to do and succeeds, as in clr.
 */
#include "../runtime/abi.h"
#include "../runtime/error.h"
#include "../runtime/internal.h"

hipError_t hipImportExternalSemaphore(hipExternalSemaphore_t *extSem_out,
                                      const hipExternalSemaphoreHandleDesc *semHandleDesc)
{
  if (!extSem_out || !semHandleDesc)
    HIP_RETURN(hipErrorInvalidValue);
  if (semHandleDesc->type < hipExternalSemaphoreHandleTypeOpaqueFd ||
      semHandleDesc->type > hipExternalSemaphoreHandleTypeD3D12Fence)
    HIP_RETURN(hipErrorInvalidValue);
  if (semHandleDesc->handle.fd == 0)
    HIP_RETURN(hipErrorInvalidValue);
  HIP_RETURN(hipErrorNotSupported);
}

/* NULL, the per-thread stream, or a live stream (clr hip::isValid). */
static bool stream_ok(hipStream_t s)
{
  return !s || s == hipStreamPerThread || s == hipStreamLegacy || hip_stream_valid(s);
}

/* The checks shared by signal and wait; [in] flags_at(i) reads entry i's flags. */
static hipError_t check_list(const hipExternalSemaphore_t *sems, const void *params,
                             unsigned int n, hipStream_t stream, unsigned int (*flags_at)(const void *, unsigned))
{
  if (!sems || !params || !stream_ok(stream))
    return hipErrorInvalidValue;
  for (unsigned int i = 0; i < n; i++) {
    if (!sems[i] || flags_at(params, i))
      return hipErrorInvalidValue;
  }
  /* Any entry is a semaphore this runtime never imported. */
  return n ? hipErrorNotSupported : hipSuccess;
}

/* Entry i of the caller's array, in the caller's ABI (ROCm 5's entries are smaller, abi.h). */
static unsigned int signal_flags(const void *p, unsigned i)
{
  return hip_abi_sem_signal_flags(p, i);
}

static unsigned int wait_flags(const void *p, unsigned i)
{
  return hip_abi_sem_wait_flags(p, i);
}

hipError_t hipSignalExternalSemaphoresAsync(const hipExternalSemaphore_t *extSemArray,
                                            const hipExternalSemaphoreSignalParams *paramsArray,
                                            unsigned int numExtSems, hipStream_t stream)
{
  HIP_RETURN(check_list(extSemArray, paramsArray, numExtSems, stream, signal_flags));
}

hipError_t hipWaitExternalSemaphoresAsync(const hipExternalSemaphore_t *extSemArray,
                                          const hipExternalSemaphoreWaitParams *paramsArray,
                                          unsigned int numExtSems, hipStream_t stream)
{
  HIP_RETURN(check_list(extSemArray, paramsArray, numExtSems, stream, wait_flags));
}

hipError_t hipDestroyExternalSemaphore(hipExternalSemaphore_t extSem)
{
  if (!extSem)
    HIP_RETURN(hipErrorInvalidValue);
  HIP_RETURN(hipErrorNotSupported);
}
