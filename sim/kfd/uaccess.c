/* copy_from_user / copy_to_user for the emulated driver. User pointers inside ioctl arguments
 * may be wild; the kernel answers -EFAULT, so must kfdsim, never a segfault. The copy goes
 * through process_vm_readv/writev on our own pid, which validates the remote range and fails
 * with EFAULT instead of faulting; except for a range in the calling thread's stack above our
 * own frame (the caller's live frames, mapped for certain), where most ioctl argument structs
 * live: that is a plain copy, two system calls fewer per ioctl. */
#define _GNU_SOURCE
#include "kfd/uapi.h"   /* first: keeps the raw UAPI linux/types.h out */

#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "kfd/kfd_priv.h"

/* The calling thread's stack [stack_lo, stack_hi); both 0 until looked up, then stack_hi 1 when
 * unknown. */
static _Thread_local uintptr_t stack_lo, stack_hi;

static void thread_stack(void)
{
  pthread_attr_t a;
  void *base;
  size_t size;
  stack_hi = 1;
  if (!pthread_getattr_np(pthread_self(), &a)) {
    if (!pthread_attr_getstack(&a, &base, &size)) {
      stack_lo = (uintptr_t)base;
      stack_hi = (uintptr_t)base + size;
    }
    pthread_attr_destroy(&a);
  }
}

/* [remote, remote + n) lies in frames of our callers on this thread's stack (and we run on that
 * stack, not on a signal stack). */
static bool in_caller_frames(uint64_t remote, size_t n)
{
  uintptr_t here = (uintptr_t)__builtin_frame_address(0);
  if (!stack_hi)
    thread_stack();
  return here > stack_lo && here < stack_hi && remote > here && remote + n <= stack_hi;
}

static int vm_copy(bool write, void *local, uint64_t remote, size_t n)
{
  if (!n)
    return 0;
  if (!remote || remote + n < remote)
    return -EFAULT;
  if (in_caller_frames(remote, n)) {
    if (write)
      memcpy((void *)(uintptr_t)remote, local, n);
    else
      memcpy(local, (const void *)(uintptr_t)remote, n);
    return 0;
  }
  struct iovec l = { .iov_base = local, .iov_len = n };
  struct iovec r = { .iov_base = (void *)(uintptr_t)remote, .iov_len = n };
  ssize_t done = write ? process_vm_writev(sim_self_pid(), &l, 1, &r, 1, 0)
                       : process_vm_readv(sim_self_pid(), &l, 1, &r, 1, 0);
  if (done == (ssize_t)n)
    return 0;
  if (done < 0 && (errno == ENOSYS || errno == EPERM)) {
    /* no cross-memory syscalls here (seccomp): trust the pointer */
    if (write)
      memcpy((void *)(uintptr_t)remote, local, n);
    else
      memcpy(local, (const void *)(uintptr_t)remote, n);
    return 0;
  }
  return -EFAULT;
}

int sim_copy_from_user(void *dst, uint64_t src, size_t n)
{
  return vm_copy(false, dst, src, n);
}

int sim_copy_to_user(uint64_t dst, const void *src, size_t n)
{
  return vm_copy(true, (void *)src, dst, n);
}
