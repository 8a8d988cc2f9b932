/* copy_from_user / copy_to_user for the emulated driver. User pointers inside ioctl arguments
 * may be wild; the kernel answers -EFAULT, so must kfdsim, never a segfault. The copy goes
 * through process_vm_readv/writev on our own pid, which validates the remote range and fails
 * with EFAULT instead of faulting. */
#define _GNU_SOURCE
#include "kfd/uapi.h"   /* first: keeps the raw UAPI linux/types.h out */

#include <errno.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "kfd/kfd_priv.h"

static int vm_copy(bool write, void *local, uint64_t remote, size_t n)
{
  if (!n)
    return 0;
  if (!remote || remote + n < remote)
    return -EFAULT;
  struct iovec l = { .iov_base = local, .iov_len = n };
  struct iovec r = { .iov_base = (void *)(uintptr_t)remote, .iov_len = n };
  ssize_t done = write ? process_vm_writev(getpid(), &l, 1, &r, 1, 0)
                       : process_vm_readv(getpid(), &l, 1, &r, 1, 0);
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
