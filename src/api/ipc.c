/* Inter-process memory: hipIpcGetMemHandle / hipIpcOpenMemHandle / hipIpcCloseMemHandle.
 *
 * The exporter shares the device allocation that holds the pointer (mem_ipc_share: a dma-buf of
 * its kernel allocation, kept open while the allocation lives, and a record of the export in the
 * exporter's memory with a random token). The 64-byte handle names them: the exporter's pid, the
 * descriptor number, the dma-buf's inode, the record's address and token, the allocation's
 * offset in the buffer and its size, and the pointer's offset inside the allocation.
 *
 * The importer trusts none of it: it reads the record from the exporter (mem_ipc_check) and goes
 * on only if every field matches a live record, fetches a duplicate of the descriptor with
 * pidfd_getfd(2) (Linux 5.6; where that syscall is missing or refused, by opening
 * /proc/<pid>/fd/<n>; both need ptrace access to the exporter, which a same-user process has
 * unless Yama or a seccomp filter forbids it), checks its inode, checks the record once more,
 * and maps exactly the allocation's pages of the buffer (mem_ipc_open). What src/memory/ipc.c
 * says about isolation holds from there.
 *
 * Errors, as clr: a malformed handle (no magic, size 0, an offset beyond the size) is
 * hipErrorInvalidValue; a handle of this very process hipErrorInvalidContext; a well-formed one
 * that does not attach (its exporter exited, its allocation was freed, a field was changed, the
 * record is not there) hipErrorInvalidDevicePointer, as clr's failed IpcAttach; closing a pointer
 * that no hipIpcOpenMemHandle returned hipErrorInvalidHandle, as clr's failed IpcDetach.
 *
 * Imports are counted: opening the same handle twice in a process gives the same pointer (clr
 * and CUDA do too), and the mapping goes when the last hipIpcCloseMemHandle drops it.
 *
 * Events: hipIpcGetEventHandle / hipIpcOpenEventHandle are in event.c (the shared record area in
 * event_ipc.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../memory/ipc_handle.h"
#include "../memory/mem.h"
#include "../runtime/error.h"
#include "../runtime/runtime.h"

_Static_assert(sizeof(struct ipc_handle) == sizeof(hipIpcMemHandle_t), "IPC handle layout");

/* An imported allocation of this process. */
struct ipc_import {
	int32_t pid;
	uint64_t record, token, delta; /* which handle: the same one opens the same import */
	struct mem_ipc_view *view;
	char *user;           /* what hipIpcOpenMemHandle returned: the view's base + delta */
	int refs;
	struct ipc_import *next;
};

static pthread_mutex_t ipc_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ipc_import *ipc_imports; /* (ipc_lock) */

/* ---- export ----------------------------------------------------------------------------------- */

hipError_t hipIpcGetMemHandle(hipIpcMemHandle_t *handle, void *devPtr)
{
	struct mem_ipc_share sh;

	if (!handle || !devPtr)
		HIP_RETURN(hipErrorInvalidValue);
	if (hip_device_count() == 0)
		HIP_RETURN(hipErrorNoDevice);
	int err = mem_ipc_share(devPtr, &sh);
	if (err == -ENOSYS)
		HIP_RETURN(hipErrorNotSupported); /* KFD older than 1.12: no dma-buf export */
	/* clr: anything its IpcCreate refuses (unknown pointer, host memory) is an invalid value. */
	if (err)
		HIP_RETURN(err == -ENOMEM ? hipErrorOutOfMemory : hipErrorInvalidValue);
	struct ipc_handle h = {
		.magic = IPC_MAGIC,
		.version = IPC_VERSION,
		.pid = (int32_t)getpid(),
		.fd = sh.fd,
		.ino = sh.ino,
		.record = sh.record,
		.token = sh.token,
		.offset = sh.offset,
		.size = sh.size,
		/* The handle names devPtr itself, which may lie inside the allocation. */
		.delta = (uint64_t)((char *)devPtr - (char *)sh.base),
	};
	memcpy(handle, &h, sizeof(h));
	HIP_RETURN(hipSuccess);
}

/* ---- import ----------------------------------------------------------------------------------- */

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif

/* A descriptor of this process for descriptor `fd` of process `pid`, or -errno. */
static int fetch_remote_fd(pid_t pid, int fd)
{
	int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (pidfd >= 0) {
		int got = (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0);
		int saved = errno;
		close(pidfd);
		if (got >= 0)
			return got;
		errno = saved;
	}
	if (errno == ESRCH)
		return -ESRCH; /* the exporter is gone */
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)pid, fd);
	int got = open(path, O_RDWR | O_CLOEXEC);
	return got >= 0 ? got : -errno;
}

static void share_of_handle(const struct ipc_handle *h, struct mem_ipc_share *sh)
{
	*sh = (struct mem_ipc_share){
		.record = h->record,
		.token = h->token,
		.ino = h->ino,
		.offset = h->offset,
		.size = h->size,
		.fd = h->fd,
	};
}

/* The exporter's descriptor of the buffer a handle names, once the exporter's record vouches for
 * every field; or -errno. The record is checked again after the fetch: in between the exporter
 * may have freed the allocation and reused the descriptor number. */
static int attach_fd(const struct ipc_handle *h)
{
	struct mem_ipc_share sh;
	struct stat st;

	share_of_handle(h, &sh);
	int err = mem_ipc_check(h->pid, &sh);
	if (err)
		return err;
	int fd = fetch_remote_fd(h->pid, h->fd);
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) != 0 || (uint64_t)st.st_ino != h->ino || mem_ipc_check(h->pid, &sh) != 0) {
		close(fd);
		return -ENOENT;
	}
	return fd;
}

/* Import the allocation a handle names. ipc_lock held. */
static hipError_t import_new(const struct ipc_handle *h, struct hip_device *d, struct ipc_import **out)
{
	int fd = attach_fd(h);
	if (fd < 0)
		return hipErrorInvalidDevicePointer;
	struct ipc_import *im = calloc(1, sizeof(*im));
	if (!im) {
		close(fd);
		return hipErrorOutOfMemory;
	}
	int err = mem_ipc_open(d->gpu, fd, h->offset, (size_t)h->size, &im->view);
	close(fd); /* the mapping holds its own reference */
	if (err) {
		free(im);
		return err == -ENOMEM ? hipErrorOutOfMemory : hipErrorInvalidDevicePointer;
	}
	im->pid = h->pid;
	im->record = h->record;
	im->token = h->token;
	im->delta = h->delta;
	im->user = (char *)mem_ipc_view_base(im->view) + h->delta;
	im->refs = 1;
	im->next = ipc_imports;
	ipc_imports = im;
	*out = im;
	return hipSuccess;
}

/* The handle's own consistency: what needs nobody else to check. */
static bool handle_wellformed(const struct ipc_handle *h)
{
	return h->magic == IPC_MAGIC && h->version == IPC_VERSION && h->pid > 0 && h->fd >= 0 &&
	       h->size > 0 && h->size <= SIZE_MAX - 4096 && h->delta < h->size &&
	       (h->offset & 4095) == 0 && h->offset <= UINT64_MAX - h->size && h->record &&
	       (h->record & 7) == 0 && h->token;
}

hipError_t hipIpcOpenMemHandle(void **devPtr, hipIpcMemHandle_t handle, unsigned int flags)
{
	struct ipc_handle h;

	if (!devPtr)
		HIP_RETURN(hipErrorInvalidValue);
	/* CUDA and AMD: hipIpcMemLazyEnablePeerAccess is the one flag; 0 is accepted as well. */
	if (flags & ~(unsigned)hipIpcMemLazyEnablePeerAccess)
		HIP_RETURN(hipErrorInvalidValue);
	memcpy(&h, &handle, sizeof(h));
	if (!handle_wellformed(&h))
		HIP_RETURN(hipErrorInvalidValue);
	/* clr: opening one's own handle is an invalid context. */
	if (h.pid == (int32_t)getpid())
		HIP_RETURN(hipErrorInvalidContext);
	struct hip_device *d = hip_device_current();
	if (!d || !d->gpu)
		HIP_RETURN(hipErrorNoDevice);
	pthread_mutex_lock(&ipc_lock);
	struct ipc_import *im = NULL;
	hipError_t err = hipSuccess;
	for (struct ipc_import *i = ipc_imports; i && !im; i = i->next)
		if (i->pid == h.pid && i->record == h.record && i->token == h.token && i->delta == h.delta)
			im = i;
	if (im)
		im->refs++;
	else
		err = import_new(&h, d, &im);
	if (err == hipSuccess)
		*devPtr = im->user;
	pthread_mutex_unlock(&ipc_lock);
	HIP_RETURN(err);
}

hipError_t hipIpcCloseMemHandle(void *devPtr)
{
	if (!devPtr)
		HIP_RETURN(hipErrorInvalidValue);
	pthread_mutex_lock(&ipc_lock);
	struct ipc_import **pp = &ipc_imports;
	while (*pp && (*pp)->user != devPtr)
		pp = &(*pp)->next;
	struct ipc_import *im = *pp;
	bool last = im && im->refs == 1;
	if (im && !last)
		im->refs--;
	if (last)
		*pp = im->next;
	pthread_mutex_unlock(&ipc_lock);
	if (!im)
		HIP_RETURN(hipErrorInvalidHandle);
	if (!last)
		HIP_RETURN(hipSuccess);
	/* clr finishes the null stream first: work already queued on the mapping must not fault. */
	struct hip_device *d = hip_device_current();
	if (d)
		hip_device_sync_all(d);
	int err = mem_ipc_close(im->view);
	free(im);
	HIP_RETURN(err ? hip_error_from_errno(err) : hipSuccess);
}
