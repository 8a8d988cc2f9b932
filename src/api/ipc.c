/* Inter-process memory: hipIpcGetMemHandle / hipIpcOpenMemHandle / hipIpcCloseMemHandle.
 *
 * The exporter turns the device allocation into a dma-buf (mem_ipc_export: EXPORT_DMABUF of its
 * kernel allocation) and keeps that descriptor open. The 64-byte handle names it: the exporter's
 * pid, the descriptor number, the dma-buf's inode (to detect a recycled pid or descriptor), the
 * size of the exported buffer and the pointer's offset in it.
 *
 * The importer fetches a duplicate of the descriptor with pidfd_getfd(2) (Linux 5.6; the caller
 * needs ptrace access to the exporter, which a same-user process has unless Yama's ptrace_scope
 * or a seccomp filter forbids it), and, where that syscall is missing or refused, by opening
 * /proc/<pid>/fd/<n> (same permission rule; enough for memfd-backed buffers). Neither needs a
 * helper thread or a socket in the exporter, and neither needs privileges on this machine's
 * kernel. The buffer is then imported at a fresh VA (mem_ipc_import: IMPORT_DMABUF, GPU map,
 * CPU mmap of the dma-buf).
 *
 * Exported descriptors stay open while their allocation lives. The runtime has no free hook, so
 * each hipIpcGetMemHandle first closes the descriptors of allocations that were freed since
 * (checked by allocation id). Imports are counted: opening the same handle twice in a process
 * gives the same pointer, and the memory goes when the last hipIpcCloseMemHandle drops it.
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

/* An exported descriptor, kept until its allocation is freed. */
struct ipc_export {
	void *base;           /* user allocation start */
	uint64_t alloc_id;    /* mem_info.alloc_id at export: a new allocation at base differs */
	int fd;
	uint64_t ino, buf_size, offset;
	struct ipc_export *next;
};

/* An imported buffer of this process. */
struct ipc_import {
	int32_t pid;
	uint64_t ino;
	char *base;           /* mem_ipc_import result */
	char *user;           /* base + offset: what hipIpcOpenMemHandle returned */
	int refs;
	struct ipc_import *next;
};

static pthread_mutex_t ipc_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ipc_export *ipc_exports; /* (ipc_lock) */
static struct ipc_import *ipc_imports; /* (ipc_lock) */

/* ---- export ----------------------------------------------------------------------------------- */

/* Close the descriptors of freed allocations. ipc_lock held. */
static void exports_collect(void)
{
	for (struct ipc_export **pp = &ipc_exports; *pp;) {
		struct ipc_export *e = *pp;
		struct mem_info mi;
		if (mem_lookup(e->base, &mi) == 0 && mi.base == e->base && mi.alloc_id == e->alloc_id) {
			pp = &e->next;
			continue;
		}
		*pp = e->next;
		close(e->fd);
		free(e);
	}
}

/* The export of the allocation `mi` (existing, or a new dma-buf). ipc_lock held. */
static int export_get(const struct mem_info *mi, struct ipc_export **out)
{
	for (struct ipc_export *e = ipc_exports; e; e = e->next) {
		if (e->base == mi->base && e->alloc_id == mi->alloc_id) {
			*out = e;
			return 0;
		}
	}
	struct ipc_export *e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	size_t buf_size;
	int err = mem_ipc_export(mi->base, &e->fd, &e->offset, &buf_size);
	if (err) {
		free(e);
		return err;
	}
	struct stat st;
	if (fstat(e->fd, &st) != 0) {
		err = -errno;
		close(e->fd);
		free(e);
		return err;
	}
	e->base = mi->base;
	e->alloc_id = mi->alloc_id;
	e->ino = (uint64_t)st.st_ino;
	e->buf_size = buf_size;
	e->next = ipc_exports;
	ipc_exports = e;
	*out = e;
	return 0;
}

static bool kind_exportable(enum mem_kind kind)
{
	return kind == MEM_DEVICE || kind == MEM_DEVICE_FINE || kind == MEM_DEVICE_UNCACHED;
}

hipError_t hipIpcGetMemHandle(hipIpcMemHandle_t *handle, void *devPtr)
{
	struct mem_info mi;

	if (!handle || !devPtr)
		HIP_RETURN(hipErrorInvalidValue);
	if (hip_device_count() == 0)
		HIP_RETURN(hipErrorNoDevice);
	/* clr: anything its IpcCreate refuses (unknown pointer, host memory) is an invalid value. */
	if (mem_lookup(devPtr, &mi) != 0 || !kind_exportable(mi.kind))
		HIP_RETURN(hipErrorInvalidValue);
	pthread_mutex_lock(&ipc_lock);
	exports_collect();
	struct ipc_export *e = NULL;
	int err = export_get(&mi, &e);
	struct ipc_handle h;
	memset(&h, 0, sizeof(h));
	if (!err) {
		h.magic = IPC_MAGIC;
		h.version = IPC_VERSION;
		h.pid = (int32_t)getpid();
		h.fd = e->fd;
		h.ino = e->ino;
		h.buf_size = e->buf_size;
		/* The handle names devPtr itself, which may lie inside the allocation. */
		h.offset = e->offset + (uint64_t)((char *)devPtr - (char *)mi.base);
		h.alloc_size = mi.size;
		h.alloc_id = mi.alloc_id;
	}
	pthread_mutex_unlock(&ipc_lock);
	if (err == -ENOSYS)
		HIP_RETURN(hipErrorNotSupported); /* KFD older than 1.12: no dma-buf export */
	if (err)
		HIP_RETURN(err == -ENOMEM ? hipErrorOutOfMemory : hipErrorInvalidValue);
	memcpy(handle, &h, sizeof(h));
	HIP_RETURN(hipSuccess);
}

/* The exporting pid of a handle (mempool.c checks pool pointers against their pool's exporter),
 * or -1 when the handle is not one of ours. */
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

/* Import the buffer a handle names. ipc_lock held. */
static hipError_t import_new(const struct ipc_handle *h, struct hip_device *d, struct ipc_import **out)
{
	int fd = fetch_remote_fd(h->pid, h->fd);
	if (fd < 0)
		return hipErrorInvalidValue;
	struct stat st;
	if (fstat(fd, &st) != 0 || (uint64_t)st.st_ino != h->ino) {
		close(fd); /* a stale handle: the pid or descriptor now names something else */
		return hipErrorInvalidValue;
	}
	struct ipc_import *im = calloc(1, sizeof(*im));
	if (!im) {
		close(fd);
		return hipErrorOutOfMemory;
	}
	void *base;
	int err = mem_ipc_import(d->gpu, fd, h->buf_size, &base);
	close(fd); /* the imported buffer holds its own reference */
	if (err) {
		free(im);
		return err == -ENOMEM ? hipErrorOutOfMemory : hipErrorMapFailed;
	}
	im->pid = h->pid;
	im->ino = h->ino;
	im->base = base;
	im->user = im->base + h->offset;
	im->refs = 1;
	im->next = ipc_imports;
	ipc_imports = im;
	*out = im;
	return hipSuccess;
}

static bool handle_valid(const struct ipc_handle *h)
{
	return h->magic == IPC_MAGIC && h->version == IPC_VERSION && h->pid > 0 && h->fd >= 0 &&
	       h->buf_size > 0 && h->offset < h->buf_size;
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
	if (!handle_valid(&h))
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
		if (i->pid == h.pid && i->ino == h.ino && i->user == i->base + h.offset)
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
	int err = 0;
	if (im && --im->refs == 0) {
		*pp = im->next;
		err = mem_free(im->base);
		free(im);
	}
	pthread_mutex_unlock(&ipc_lock);
	if (!im)
		HIP_RETURN(hipErrorInvalidValue);
	HIP_RETURN(err ? hip_error_from_errno(err) : hipSuccess);
}
