/* src/kfd/device.c: /dev/kfd, GET_VERSION, the ioctl choke point, fork handling. */
#include "kfd.h"
#include "kfd_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* The process's /dev/kfd descriptor. Written under open_lock, read with an acquire load so the
 * ioctl path takes no lock. -1 until kfd_open() succeeds, and again in a child after fork(). */
static _Atomic int kfd_fd_value = -1;
static pthread_mutex_t open_lock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t version_major, version_minor; /* written under open_lock before kfd_fd_value */
static atomic_uint fork_generation;
static pid_t open_pid;                      /* process that opened kfd_fd_value (open_lock) */
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

/* amdkfd binds a process to the mm that opened /dev/kfd; in a child the inherited descriptor
 * is refused (kfd_chardev.c kfd_ioctl(): "Using KFD FD in wrong process" -> -EBADF). The child
 * closes its copy (that does not affect the parent) and must call kfd_open() again. */
static void kfd_atfork_child(void)
{
  int fd = atomic_exchange(&kfd_fd_value, -1);
  if (fd >= 0)
    close(fd);
  atomic_fetch_add(&fork_generation, 1);
  pthread_mutex_init(&open_lock, NULL);
  kfd_gpu_forget_all();
}

static void kfd_register_atfork(void)
{
  pthread_atfork(NULL, NULL, kfd_atfork_child);
}

unsigned kfd_fork_generation(void)
{
  return atomic_load_explicit(&fork_generation, memory_order_acquire);
}

static int kfd_query_version(int fd, uint32_t *major, uint32_t *minor)
{
  struct kfd_ioctl_get_version_args args = {0};
  int r;

  do {
    r = ioctl(fd, AMDKFD_IOC_GET_VERSION, &args);
  } while (r == -1 && (errno == EINTR || errno == EAGAIN));
  if (r == -1)
    return -errno;
  *major = args.major_version;
  *minor = args.minor_version;
  return 0;
}

int kfd_open(void)
{
  uint32_t major = 0, minor = 0;
  int fd, err;

  pthread_once(&atfork_once, kfd_register_atfork);
  /* Belt and braces for a child created without the atfork handlers running (a raw clone()):
   * the pid no longer matches, so the inherited state is dropped as after fork(). */
  if (atomic_load_explicit(&kfd_fd_value, memory_order_acquire) >= 0 && open_pid != getpid())
    kfd_atfork_child();
  if (atomic_load_explicit(&kfd_fd_value, memory_order_acquire) >= 0)
    return 0;

  pthread_mutex_lock(&open_lock);
  if (atomic_load_explicit(&kfd_fd_value, memory_order_relaxed) >= 0) {
    pthread_mutex_unlock(&open_lock);
    return 0;
  }
  fd = open("/dev/kfd", O_RDWR | O_CLOEXEC);
  if (fd < 0) {
    err = -errno;
    goto fail;
  }
  err = kfd_query_version(fd, &major, &minor);
  if (err)
    goto fail_close;
  /* 1.14 brings event ages and the queue-buffer rules we follow; older drivers are refused. */
  if (major != 1 || minor < 14) {
    err = -ENOTSUP;
    goto fail_close;
  }
  version_major = major;
  version_minor = minor;
  open_pid = getpid();
  atomic_store_explicit(&kfd_fd_value, fd, memory_order_release);
  pthread_mutex_unlock(&open_lock);
  return 0;

fail_close:
  close(fd);
fail:
  pthread_mutex_unlock(&open_lock);
  return err;
}

int kfd_fd(void)
{
  int fd = atomic_load_explicit(&kfd_fd_value, memory_order_acquire);
  return fd >= 0 ? fd : -EBADF;
}

int kfd_version(uint32_t *major, uint32_t *minor)
{
  if (atomic_load_explicit(&kfd_fd_value, memory_order_acquire) < 0)
    return -EBADF;
  if (major)
    *major = version_major;
  if (minor)
    *minor = version_minor;
  return 0;
}

bool kfd_version_at_least(uint32_t major, uint32_t minor)
{
  if (atomic_load_explicit(&kfd_fd_value, memory_order_acquire) < 0)
    return false;
  return version_major > major || (version_major == major && version_minor >= minor);
}

int kfd_ioctl(unsigned long req, void *arg)
{
  int fd = atomic_load_explicit(&kfd_fd_value, memory_order_acquire);
  int r;

  if (fd < 0)
    return -EBADF;
  /* Restarting with the same argument block is what the kernel expects: MAP/UNMAP resume
   * after n_success, WAIT_EVENTS re-arms (kfd_chardev.c, kfd_events.c). */
  do {
    r = ioctl(fd, req, arg);
  } while (r == -1 && (errno == EINTR || errno == EAGAIN));
  return r == -1 ? -errno : 0;
}
