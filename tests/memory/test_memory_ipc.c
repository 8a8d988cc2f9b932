/* IPC memory handles between two processes. The test forks before the runtime is initialised, so
 * the child starts with no GPU state of its own (a child cannot use its parent's KFD state), and
 * both sides talk over pipes: the parent exports, the child imports, checks the parent's data and
 * writes its own, and the parent reads the child's data back from its allocation. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <hip/hip_runtime_api.h>

#include "../support/fd_io.h"

#define IPC_BYTES (1u << 20)
#define IPC_OFFSET 4096u /* the child also opens a handle of an interior pointer */

static uint32_t pattern(size_t i, uint32_t seed)
{
	return (uint32_t)(i * 2654435761u) ^ seed;
}

/* Exit codes of the child: 0 success, otherwise the step that failed. */
static int child_main(int from_parent, int to_parent)
{
	hipIpcMemHandle_t h[2];
	static uint32_t buf[IPC_BYTES / 4];
	void *p = NULL, *q = NULL, *again = NULL;

	if (!read_full(from_parent, h, sizeof(h)))
		return 1;
	if (hipIpcOpenMemHandle(&p, h[0], hipIpcMemLazyEnablePeerAccess) != hipSuccess || !p)
		return 2;
	if (hipMemcpy(buf, p, IPC_BYTES, hipMemcpyDeviceToHost) != hipSuccess)
		return 3;
	for (size_t i = 0; i < IPC_BYTES / 4; i++)
		if (buf[i] != pattern(i, 0x1234))
			return 4;
	/* The handle of an interior pointer opens at that pointer; the same handle twice is the same
	 * mapping (counted). */
	if (hipIpcOpenMemHandle(&q, h[1], 0) != hipSuccess)
		return 5;
	uint32_t w = 0;
	if (hipMemcpy(&w, q, 4, hipMemcpyDeviceToHost) != hipSuccess || w != pattern(IPC_OFFSET / 4, 0x1234))
		return 6;
	if (hipIpcOpenMemHandle(&again, h[0], 0) != hipSuccess || again != p)
		return 7;
	if (hipIpcCloseMemHandle(again) != hipSuccess)
		return 8;
	/* Write our own data for the parent to check. */
	for (size_t i = 0; i < IPC_BYTES / 4; i++)
		buf[i] = pattern(i, 0xbeef);
	if (hipMemcpy(p, buf, IPC_BYTES, hipMemcpyHostToDevice) != hipSuccess)
		return 9;
	if (hipIpcCloseMemHandle(q) != hipSuccess || hipIpcCloseMemHandle(p) != hipSuccess)
		return 10;
	/* clr: a pointer IpcDetach does not know is an invalid handle. */
	if (hipIpcCloseMemHandle(p) != hipErrorInvalidHandle)
		return 11;
	char done = 'd';
	if (write(to_parent, &done, 1) != 1)
		return 12;
	return 0;
}

Test(ipc, two_processes_share_device_memory)
{
	int down[2], up[2];
	cr_assert_eq(pipe(down), 0);
	cr_assert_eq(pipe(up), 0);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		close(down[1]);
		close(up[0]);
		_exit(child_main(down[0], up[1]));
	}
	close(down[0]);
	close(up[1]);

	static uint32_t host[IPC_BYTES / 4], back[IPC_BYTES / 4];
	void *d = NULL;
	hipIpcMemHandle_t h[2];
	for (size_t i = 0; i < IPC_BYTES / 4; i++)
		host[i] = pattern(i, 0x1234);
	cr_assert_eq(hipMalloc(&d, IPC_BYTES), hipSuccess);
	cr_assert_eq(hipMemcpy(d, host, IPC_BYTES, hipMemcpyHostToDevice), hipSuccess);
	cr_assert_eq(hipIpcGetMemHandle(&h[0], d), hipSuccess);
	cr_assert_eq(hipIpcGetMemHandle(&h[1], (char *)d + IPC_OFFSET), hipSuccess);
	/* Our own handle is not for us (clr: invalid context). */
	void *self = NULL;
	cr_assert_eq(hipIpcOpenMemHandle(&self, h[0], 0), hipErrorInvalidContext);
	cr_assert_eq(write(down[1], h, sizeof(h)), (ssize_t)sizeof(h));

	char done = 0;
	bool got = read_full(up[0], &done, 1);
	int status = 0;
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status), "child crashed (status %#x)", status);
	cr_assert_eq(WEXITSTATUS(status), 0, "child failed at step %d", WEXITSTATUS(status));
	cr_assert(got && done == 'd');

	cr_assert_eq(hipMemcpy(back, d, IPC_BYTES, hipMemcpyDeviceToHost), hipSuccess);
	for (size_t i = 0; i < IPC_BYTES / 4; i++)
		cr_assert_eq(back[i], pattern(i, 0xbeef), "word %zu", i);
	cr_assert_eq(hipFree(d), hipSuccess);
}

/* A sub-allocated (small) device allocation is shared too: the handle carries its offset. */
Test(ipc, small_allocation_and_stale_handle)
{
	int down[2], up[2];
	cr_assert_eq(pipe(down), 0);
	cr_assert_eq(pipe(up), 0);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		hipIpcMemHandle_t h;
		void *p = NULL;
		uint64_t v = 0;
		close(down[1]);
		close(up[0]);
		if (!read_full(down[0], &h, sizeof(h)))
			_exit(1);
		if (hipIpcOpenMemHandle(&p, h, 0) != hipSuccess)
			_exit(2);
		if (hipMemcpy(&v, p, 8, hipMemcpyDeviceToHost) != hipSuccess || v != 0x0123456789abcdefull)
			_exit(3);
		v = ~v;
		if (hipMemcpy(p, &v, 8, hipMemcpyHostToDevice) != hipSuccess)
			_exit(4);
		if (hipIpcCloseMemHandle(p) != hipSuccess)
			_exit(5);
		if (write(up[1], "x", 1) != 1)
			_exit(6);
		_exit(0);
	}
	close(down[0]);
	close(up[1]);
	void *small[3];
	uint64_t v = 0x0123456789abcdefull;
	for (int i = 0; i < 3; i++)
		cr_assert_eq(hipMalloc(&small[i], 64), hipSuccess);
	cr_assert_eq(hipMemcpy(small[1], &v, 8, hipMemcpyHostToDevice), hipSuccess);
	hipIpcMemHandle_t h;
	cr_assert_eq(hipIpcGetMemHandle(&h, small[1]), hipSuccess);
	cr_assert_eq(write(down[1], &h, sizeof(h)), (ssize_t)sizeof(h));
	char c;
	bool got = read_full(up[0], &c, 1);
	int status = 0;
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %#x", status);
	cr_assert(got);
	cr_assert_eq(hipMemcpy(&v, small[1], 8, hipMemcpyDeviceToHost), hipSuccess);
	cr_assert_eq(v, ~0x0123456789abcdefull);
	for (int i = 0; i < 3; i++)
		cr_assert_eq(hipFree(small[i]), hipSuccess);
}

Test(ipc, argument_errors)
{
	hipIpcMemHandle_t h;
	void *p = NULL, *d = NULL;
	int local = 0;
	cr_assert_eq(hipMalloc(&d, 4096), hipSuccess);
	cr_assert_eq(hipIpcGetMemHandle(NULL, d), hipErrorInvalidValue);
	cr_assert_eq(hipIpcGetMemHandle(&h, NULL), hipErrorInvalidValue);
	cr_assert_eq(hipIpcGetMemHandle(&h, &local), hipErrorInvalidValue, "host memory");
	void *pinned = NULL;
	cr_assert_eq(hipHostMalloc(&pinned, 4096, 0), hipSuccess);
	cr_assert_eq(hipIpcGetMemHandle(&h, pinned), hipErrorInvalidValue, "pinned host memory");
	cr_assert_eq(hipHostFree(pinned), hipSuccess);

	memset(&h, 0, sizeof(h));
	cr_assert_eq(hipIpcOpenMemHandle(&p, h, 0), hipErrorInvalidValue, "garbage handle");
	cr_assert_eq(hipIpcGetMemHandle(&h, d), hipSuccess);
	cr_assert_eq(hipIpcOpenMemHandle(NULL, h, 0), hipErrorInvalidValue);
	cr_assert_eq(hipIpcOpenMemHandle(&p, h, 0x80), hipErrorInvalidValue);
	cr_assert_eq(hipIpcCloseMemHandle(NULL), hipErrorInvalidValue);
	cr_assert_eq(hipIpcCloseMemHandle(d), hipErrorInvalidHandle, "not an imported pointer");

	/* Interprocess events (tests/rtfix has them crossing processes); here the argument checks. */
	hipEvent_t e;
	hipIpcEventHandle_t eh;
	cr_assert_eq(hipEventCreateWithFlags(&e, hipEventInterprocess | hipEventDisableTiming), hipSuccess);
	cr_assert_eq(hipIpcGetEventHandle(&eh, e), hipSuccess);
	cr_assert_eq(hipIpcGetEventHandle(NULL, e), hipErrorInvalidValue);
	cr_assert_eq(hipIpcOpenEventHandle(NULL, eh), hipErrorInvalidValue);
	cr_assert_eq(hipEventDestroy(e), hipSuccess);
	cr_assert_eq(hipFree(d), hipSuccess);
}

/* A handle whose exporter has exited is refused cleanly. */
Test(ipc, handle_of_a_dead_exporter)
{
	int up[2];
	cr_assert_eq(pipe(up), 0);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		hipIpcMemHandle_t h;
		void *d = NULL;
		close(up[0]);
		if (hipMalloc(&d, 1 << 20) != hipSuccess || hipIpcGetMemHandle(&h, d) != hipSuccess)
			_exit(1);
		if (write(up[1], &h, sizeof(h)) != (ssize_t)sizeof(h))
			_exit(2);
		_exit(0);
	}
	close(up[1]);
	hipIpcMemHandle_t h;
	cr_assert(read_full(up[0], &h, sizeof(h)));
	int status = 0;
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	/* clr: a handle that does not attach is an invalid device pointer; the output is untouched. */
	void *p = (void *)1;
	cr_assert_eq(hipIpcOpenMemHandle(&p, h, 0), hipErrorInvalidDevicePointer);
	cr_assert_eq((uintptr_t)p, 1, "a failed call leaves the output alone");
}

/* ---- pools shared between processes ----------------------------------------------------------- */

/* CUDA's POSIX-descriptor handles travel over a unix socket (SCM_RIGHTS). */
static bool send_fd(int sock, int fd, const void *data, size_t len)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = {.iov_base = (void *)data, .iov_len = len};
	struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
			     .msg_controllen = sizeof(cbuf)};
	memset(cbuf, 0, sizeof(cbuf));
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	return sendmsg(sock, &msg, 0) == (ssize_t)len;
}

static int recv_fd(int sock, void *data, size_t len)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = {.iov_base = data, .iov_len = len};
	struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
			     .msg_controllen = sizeof(cbuf)};
	if (recvmsg(sock, &msg, 0) != (ssize_t)len)
		return -1;
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
	if (!c || c->cmsg_type != SCM_RIGHTS)
		return -1;
	int fd;
	memcpy(&fd, CMSG_DATA(c), sizeof(int));
	return fd;
}

static int pool_child(int sock)
{
	hipMemPoolPtrExportData data;
	int fd = recv_fd(sock, &data, sizeof(data));
	if (fd < 0)
		return 1;
	hipMemPool_t pool = NULL;
	if (hipMemPoolImportFromShareableHandle(&pool, (void *)(intptr_t)fd,
						hipMemHandleTypePosixFileDescriptor, 0) != hipSuccess)
		return 2;
	close(fd);
	/* Nothing is allocated from an imported pool. */
	void *p = NULL;
	if (hipMallocFromPoolAsync(&p, 4096, pool, NULL) != hipErrorInvalidValue)
		return 3;
	if (hipMemPoolImportPointer(&p, pool, &data) != hipSuccess || !p)
		return 4;
	static uint32_t buf[IPC_BYTES / 4];
	if (hipMemcpy(buf, p, IPC_BYTES, hipMemcpyDeviceToHost) != hipSuccess)
		return 5;
	for (size_t i = 0; i < IPC_BYTES / 4; i++)
		if (buf[i] != pattern(i, 0x600d))
			return 6;
	if (hipMemsetD32Async(p, 0x0badf00d, IPC_BYTES / 4, NULL) != hipSuccess)
		return 7;
	/* The importer gives the pointer back in stream order, before the exporter frees it. */
	if (hipFreeAsync(p, NULL) != hipSuccess || hipDeviceSynchronize() != hipSuccess)
		return 8;
	if (hipMemPoolDestroy(pool) != hipSuccess)
		return 9;
	char done = 'd';
	return write(sock, &done, 1) == 1 ? 0 : 10;
}

Test(ipc, pool_shared_with_another_process)
{
	int sv[2];
	cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		close(sv[0]);
		_exit(pool_child(sv[1]));
	}
	close(sv[1]);

	hipMemPoolProps props;
	hipMemPool_t pool = NULL;
	memset(&props, 0, sizeof(props));
	props.allocType = hipMemAllocationTypePinned;
	props.handleTypes = hipMemHandleTypePosixFileDescriptor;
	props.location.type = hipMemLocationTypeDevice;
	props.location.id = 0;
	cr_assert_eq(hipMemPoolCreate(&pool, &props), hipSuccess);
	void *p = NULL;
	static uint32_t host[IPC_BYTES / 4];
	for (size_t i = 0; i < IPC_BYTES / 4; i++)
		host[i] = pattern(i, 0x600d);
	cr_assert_eq(hipMallocFromPoolAsync(&p, IPC_BYTES, pool, NULL), hipSuccess);
	cr_assert_eq(hipMemcpyAsync(p, host, IPC_BYTES, hipMemcpyHostToDevice, NULL), hipSuccess);
	cr_assert_eq(hipStreamSynchronize(NULL), hipSuccess);

	int fd = -1;
	cr_assert_eq(hipMemPoolExportToShareableHandle(&fd, pool, hipMemHandleTypeNone, 0),
		     hipErrorInvalidValue);
	cr_assert_eq(hipMemPoolExportToShareableHandle(&fd, pool, hipMemHandleTypePosixFileDescriptor, 0),
		     hipSuccess);
	cr_assert_geq(fd, 0);
	hipMemPoolPtrExportData data;
	cr_assert_eq(hipMemPoolExportPointer(&data, p), hipSuccess);
	int local;
	cr_assert_eq(hipMemPoolExportPointer(&data, &local), hipErrorInvalidValue);
	cr_assert(send_fd(sv[0], fd, &data, sizeof(data)));
	close(fd);

	char done = 0;
	bool got = read_full(sv[0], &done, 1);
	int status = 0;
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status), "child crashed (status %#x)", status);
	cr_assert_eq(WEXITSTATUS(status), 0, "child failed at step %d", WEXITSTATUS(status));
	cr_assert(got && done == 'd');

	uint32_t w[2] = {0, 0};
	cr_assert_eq(hipMemcpy(&w[0], p, 4, hipMemcpyDeviceToHost), hipSuccess);
	cr_assert_eq(hipMemcpy(&w[1], (char *)p + IPC_BYTES - 4, 4, hipMemcpyDeviceToHost), hipSuccess);
	cr_assert_eq(w[0], 0x0badf00du);
	cr_assert_eq(w[1], 0x0badf00du);
	cr_assert_eq(hipFreeAsync(p, NULL), hipSuccess);
	cr_assert_eq(hipStreamSynchronize(NULL), hipSuccess);
	cr_assert_eq(hipMemPoolDestroy(pool), hipSuccess);
}
