/* Shareable handles: an allocation created with hipMemHandleTypePosixFileDescriptor exports a
 * dma-buf descriptor; importing it, in this process or another, gives a handle of the same memory. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "vmm_common.h"

#define SIZE (256u << 10)

static unsigned char in[SIZE], out[SIZE];

static hipMemGenericAllocationHandle_t create_shareable(size_t size)
{
	hipMemAllocationProp prop = vmm_prop(0, hipMemHandleTypePosixFileDescriptor);
	hipMemGenericAllocationHandle_t h = NULL;
	cr_assert_eq(hipMemCreate(&h, size, &prop, 0), hipSuccess);
	return h;
}

static void *map_handle(hipMemGenericAllocationHandle_t h, size_t size)
{
	void *va = NULL;
	cr_assert_eq(hipMemAddressReserve(&va, size, 0, NULL, 0), hipSuccess);
	cr_assert_eq(hipMemMap(va, size, 0, h, 0), hipSuccess);
	cr_assert_eq(vmm_set_access(va, size, 0, hipMemAccessFlagsProtReadWrite), hipSuccess);
	return va;
}

static void unmap_free(void *va, size_t size)
{
	cr_assert_eq(hipMemUnmap(va, size), hipSuccess);
	cr_assert_eq(hipMemAddressFree(va, size), hipSuccess);
}

Test(vmm_shareable, export_import_same_process)
{
	hipMemGenericAllocationHandle_t h = create_shareable(SIZE), imp = NULL, imp2 = NULL;
	int fd = -1;

	cr_assert_eq(hipMemExportToShareableHandle(&fd, h, hipMemHandleTypePosixFileDescriptor, 0),
		     hipSuccess);
	cr_assert_geq(fd, 0);
	/* A dma-buf reports its size through lseek(SEEK_END). */
	cr_assert_eq(lseek(fd, 0, SEEK_END), (off_t)SIZE);
	/* clr's form (a pointer to the descriptor) and CUDA's (the descriptor as the pointer). */
	cr_assert_eq(hipMemImportFromShareableHandle(&imp, &fd, hipMemHandleTypePosixFileDescriptor),
		     hipSuccess);
	cr_assert_eq(hipMemImportFromShareableHandle(&imp2, (void *)(uintptr_t)fd,
						     hipMemHandleTypePosixFileDescriptor),
		     hipSuccess);
	cr_assert_neq(imp, h);
	cr_assert_neq(imp2, imp);
	/* The descriptor stays the caller's. */
	cr_assert_eq(close(fd), 0);

	hipMemAllocationProp got;
	memset(&got, 0xff, sizeof(got));
	cr_assert_eq(hipMemGetAllocationPropertiesFromHandle(&got, imp), hipSuccess);
	cr_assert_eq(got.type, hipMemAllocationTypePinned);
	cr_assert_eq(got.requestedHandleType, hipMemHandleTypePosixFileDescriptor);
	cr_assert_eq(got.location.type, hipMemLocationTypeDevice);
	cr_assert_eq(got.location.id, 0);

	void *a = map_handle(h, SIZE), *b = map_handle(imp, SIZE), *c = map_handle(imp2, SIZE);
	for (size_t i = 0; i < SIZE; i++)
		in[i] = (unsigned char)(i * 13 + 1);
	cr_assert_eq(hipMemcpy(a, in, SIZE, hipMemcpyHostToDevice), hipSuccess);
	cr_assert_eq(hipMemcpy(out, b, SIZE, hipMemcpyDeviceToHost), hipSuccess);
	cr_assert_arr_eq(out, in, SIZE);
	cr_assert_eq(hipMemset(c, 0x21, 4096), hipSuccess);
	cr_assert_eq(hipMemcpy(out, a, 4096, hipMemcpyDeviceToHost), hipSuccess);
	for (size_t i = 0; i < 4096; i++)
		cr_assert_eq(out[i], 0x21, "byte %zu", i);

	/* The exporter's handle released first: the imports keep the memory. */
	unmap_free(a, SIZE);
	cr_assert_eq(hipMemRelease(h), hipSuccess);
	cr_assert_eq(hipMemcpy(out, b, SIZE, hipMemcpyDeviceToHost), hipSuccess);
	cr_assert_eq(out[0], 0x21);
	cr_assert_eq(out[SIZE - 1], in[SIZE - 1]);
	unmap_free(b, SIZE);
	unmap_free(c, SIZE);
	cr_assert_eq(hipMemRelease(imp), hipSuccess);
	cr_assert_eq(hipMemRelease(imp2), hipSuccess);
}

Test(vmm_shareable, errors)
{
	hipMemAllocationProp prop = vmm_prop(0, hipMemHandleTypeWin32);
	hipMemGenericAllocationHandle_t h = NULL, plain = NULL, imp = NULL;
	int fd = -1;

	cr_assert_eq(hipMemCreate(&h, SIZE, &prop, 0), hipErrorNotSupported);
	cr_assert_null(h);
	h = create_shareable(SIZE);
	prop = vmm_prop(0, hipMemHandleTypeNone);
	cr_assert_eq(hipMemCreate(&plain, SIZE, &prop, 0), hipSuccess);

	/* Export: only the type the allocation was created for, no flags, no NULLs. */
	cr_assert_eq(hipMemExportToShareableHandle(&fd, plain, hipMemHandleTypePosixFileDescriptor, 0),
		     hipErrorInvalidValue);
	cr_assert_eq(hipMemExportToShareableHandle(&fd, h, hipMemHandleTypeWin32, 0),
		     hipErrorInvalidValue);
	cr_assert_eq(hipMemExportToShareableHandle(&fd, h, hipMemHandleTypePosixFileDescriptor, 1),
		     hipErrorInvalidValue);
	cr_assert_eq(hipMemExportToShareableHandle(NULL, h, hipMemHandleTypePosixFileDescriptor, 0),
		     hipErrorInvalidValue);
	cr_assert_eq(hipMemExportToShareableHandle(&fd, NULL, hipMemHandleTypePosixFileDescriptor, 0),
		     hipErrorInvalidValue);
	cr_assert_eq(fd, -1);

	/* Import: descriptors that are no dma-buf of the GPU, a wrong type, NULLs. */
	int pipefd[2];
	cr_assert_eq(pipe(pipefd), 0);
	cr_assert_eq(hipMemImportFromShareableHandle(&imp, &pipefd[0], hipMemHandleTypePosixFileDescriptor),
		     hipErrorInvalidValue);
	int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	cr_assert_geq(devnull, 0);
	cr_assert_eq(hipMemImportFromShareableHandle(&imp, &devnull, hipMemHandleTypePosixFileDescriptor),
		     hipErrorInvalidValue);
	int closed = dup(devnull);
	close(closed);
	cr_assert_eq(hipMemImportFromShareableHandle(&imp, &closed, hipMemHandleTypePosixFileDescriptor),
		     hipErrorInvalidValue);
	cr_assert_null(imp);
	cr_assert_eq(hipMemExportToShareableHandle(&fd, h, hipMemHandleTypePosixFileDescriptor, 0),
		     hipSuccess);
	cr_assert_eq(hipMemImportFromShareableHandle(&imp, &fd, hipMemHandleTypeWin32),
		     hipErrorInvalidValue);
	cr_assert_eq(hipMemImportFromShareableHandle(NULL, &fd, hipMemHandleTypePosixFileDescriptor),
		     hipErrorInvalidValue);
	cr_assert_eq(hipMemImportFromShareableHandle(&imp, NULL, hipMemHandleTypePosixFileDescriptor),
		     hipErrorInvalidValue);

	/* A released handle exports nothing. */
	cr_assert_eq(hipMemRelease(h), hipSuccess);
	int fd2 = -1;
	cr_assert_eq(hipMemExportToShareableHandle(&fd2, h, hipMemHandleTypePosixFileDescriptor, 0),
		     hipErrorInvalidValue);
	cr_assert_eq(hipMemRelease(plain), hipSuccess);
	close(fd);
	close(devnull);
	close(pipefd[0]);
	close(pipefd[1]);
}

/* ---- two processes: the descriptor travels over a UNIX socket (SCM_RIGHTS) ----------------- */

static int send_fd(int sock, int fd)
{
	char byte = 'f';
	struct iovec iov = {.iov_base = &byte, .iov_len = 1};
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
			     .msg_controllen = sizeof(u.buf)};
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	return sendmsg(sock, &msg, 0) == 1 ? 0 : -1;
}

static int recv_fd(int sock)
{
	char byte;
	struct iovec iov = {.iov_base = &byte, .iov_len = 1};
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
			     .msg_controllen = sizeof(u.buf)};
	if (recvmsg(sock, &msg, 0) != 1)
		return -1;
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
	if (!c || c->cmsg_type != SCM_RIGHTS)
		return -1;
	int fd;
	memcpy(&fd, CMSG_DATA(c), sizeof(int));
	return fd;
}

/* The importing process: checks the exporter's pattern, overwrites it with 0xc3, reports by its
 * exit status which step failed (0: all good). */
static int child_use_import(int sock)
{
	int fd = recv_fd(sock);
	hipMemGenericAllocationHandle_t h = NULL;
	void *va = NULL;
	if (fd < 0)
		return 10;
	if (hipMemImportFromShareableHandle(&h, &fd, hipMemHandleTypePosixFileDescriptor) != hipSuccess)
		return 11;
	close(fd);
	if (hipMemAddressReserve(&va, SIZE, 0, NULL, 0) != hipSuccess ||
	    hipMemMap(va, SIZE, 0, h, 0) != hipSuccess)
		return 12;
	hipMemAccessDesc desc = {.location = {.type = hipMemLocationTypeDevice, .id = 0},
				 .flags = hipMemAccessFlagsProtReadWrite};
	if (hipMemSetAccess(va, SIZE, &desc, 1) != hipSuccess)
		return 13;
	if (hipMemcpy(out, va, SIZE, hipMemcpyDeviceToHost) != hipSuccess)
		return 14;
	for (size_t i = 0; i < SIZE; i++)
		if (out[i] != (unsigned char)(i * 5 + 7))
			return 15;
	if (hipMemset(va, 0xc3, SIZE) != hipSuccess || hipDeviceSynchronize() != hipSuccess)
		return 16;
	if (hipMemUnmap(va, SIZE) != hipSuccess || hipMemRelease(h) != hipSuccess ||
	    hipMemAddressFree(va, SIZE) != hipSuccess)
		return 17;
	char ack = 'a';
	return write(sock, &ack, 1) == 1 ? 0 : 18;
}

Test(vmm_shareable, export_to_another_process)
{
	int sv[2];
	cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	/* Fork before this process touches the GPU: each side opens its own device. */
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		close(sv[0]);
		_exit(child_use_import(sv[1]));
	}
	close(sv[1]);

	hipMemGenericAllocationHandle_t h = create_shareable(SIZE);
	void *va = map_handle(h, SIZE);
	for (size_t i = 0; i < SIZE; i++)
		in[i] = (unsigned char)(i * 5 + 7);
	cr_assert_eq(hipMemcpy(va, in, SIZE, hipMemcpyHostToDevice), hipSuccess);
	int fd = -1;
	cr_assert_eq(hipMemExportToShareableHandle(&fd, h, hipMemHandleTypePosixFileDescriptor, 0),
		     hipSuccess);
	cr_assert_eq(send_fd(sv[0], fd), 0);
	close(fd);

	char ack = 0;
	ssize_t got = read(sv[0], &ack, 1);
	int status = 0;
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status));
	cr_assert_eq(WEXITSTATUS(status), 0, "importer failed at step %d", WEXITSTATUS(status));
	cr_assert_eq(got, 1);
	cr_assert_eq(ack, 'a');
	/* What the other process wrote is here. */
	cr_assert_eq(hipMemcpy(out, va, SIZE, hipMemcpyDeviceToHost), hipSuccess);
	for (size_t i = 0; i < SIZE; i++)
		cr_assert_eq(out[i], 0xc3, "byte %zu", i);
	unmap_free(va, SIZE);
	cr_assert_eq(hipMemRelease(h), hipSuccess);
	close(sv[0]);
}
