// IPC isolation through kernels: a kernel in the importing process that writes the whole imported
// range changes exactly that allocation in the exporter (its neighbours in the exporter's chunk
// are checked there), and a kernel that runs past the end faults in the importer, which gets an
// error, while the exporter's memory and device are untouched. Two real processes: the test forks
// before the runtime is initialised (the KFD state is per process) and they talk over pipes; the
// child arms alarm() so that a hang fails the test.
#include <criterion/criterion.h>
#include <hip/hip_runtime.h>

#include <stdint.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#define HIP_OK(expr) cr_assert_eq((expr), hipSuccess, "%s", #expr)

static const size_t SLOT = 4096;
static const size_t ODD = 6000; // not a page multiple: the import's last page has slack

__global__ void fill_words(uint32_t *p, size_t n, uint32_t v)
{
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    p[i] = v;
}

__global__ void fill_bytes(uint8_t *p, size_t n, uint8_t v)
{
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    p[i] = v;
}

static bool read_full(int fd, void *buf, size_t n)
{
  for (size_t got = 0; got < n;) {
    ssize_t r = read(fd, (char *)buf + got, n - got);
    if (r <= 0)
      return false;
    got += (size_t)r;
  }
  return true;
}

static bool write_full(int fd, const void *buf, size_t n)
{
  return write(fd, buf, n) == (ssize_t)n;
}

struct peer {
  pid_t pid;
  int to, from;
};

static peer peer_start(int (*fn)(int from_parent, int to_parent))
{
  int down[2], up[2];
  cr_assert_eq(pipe(down), 0);
  cr_assert_eq(pipe(up), 0);
  pid_t pid = fork();
  cr_assert_geq(pid, 0);
  if (pid == 0) {
    close(down[1]);
    close(up[0]);
    alarm(60);
    _exit(fn(down[0], up[1]));
  }
  close(down[0]);
  close(up[1]);
  return peer{pid, down[1], up[0]};
}

static void peer_finish(peer *p)
{
  int status = 0;
  cr_assert_eq(waitpid(p->pid, &status, 0), p->pid);
  cr_assert(WIFEXITED(status), "child killed by signal %d", WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  cr_assert_eq(WEXITSTATUS(status), 0, "child failed at step %d", WEXITSTATUS(status));
  close(p->to);
  close(p->from);
}

// Every byte of [in] bytes at device [in] d is [in] v.
static bool all_bytes(const void *d, size_t bytes, uint8_t v)
{
  uint8_t *h = (uint8_t *)malloc(bytes);
  bool ok = hipMemcpy(h, d, bytes, hipMemcpyDeviceToHost) == hipSuccess;
  for (size_t i = 0; ok && i < bytes; i++)
    ok = h[i] == v;
  free(h);
  return ok;
}

// Exporter side: neighbours around the exported allocations, all filled with known bytes.
struct exported {
  void *below, *slot, *above, *odd, *after_odd;
};

static exported export_setup(hipIpcMemHandle_t h[2])
{
  exported e;
  HIP_OK(hipMalloc(&e.below, SLOT));
  HIP_OK(hipMalloc(&e.slot, SLOT));
  HIP_OK(hipMalloc(&e.above, SLOT));
  HIP_OK(hipMalloc(&e.odd, ODD));
  HIP_OK(hipMalloc(&e.after_odd, ODD));
  HIP_OK(hipMemset(e.below, 0xa1, SLOT));
  HIP_OK(hipMemset(e.slot, 0xb2, SLOT));
  HIP_OK(hipMemset(e.above, 0xc3, SLOT));
  HIP_OK(hipMemset(e.odd, 0xd4, ODD));
  HIP_OK(hipMemset(e.after_odd, 0xe5, ODD));
  HIP_OK(hipIpcGetMemHandle(&h[0], e.slot));
  HIP_OK(hipIpcGetMemHandle(&h[1], e.odd));
  return e;
}

static void export_teardown(exported *e)
{
  for (void *p : {e->below, e->slot, e->above, e->odd, e->after_odd})
    HIP_OK(hipFree(p));
}

// ---- a kernel writes the whole imported range --------------------------------------------------

static int whole_range_child(int from, int to)
{
  hipIpcMemHandle_t h[2];
  void *p = nullptr, *q = nullptr;
  if (!read_full(from, h, sizeof(h)))
    return 1;
  if (hipIpcOpenMemHandle(&p, h[0], 0) != hipSuccess || hipIpcOpenMemHandle(&q, h[1], 0) != hipSuccess)
    return 2;
  fill_words<<<4, 64>>>((uint32_t *)p, SLOT / 4, 0x7e7e7e7eu);
  fill_bytes<<<4, 64>>>((uint8_t *)q, ODD, 0x3c);
  if (hipGetLastError() != hipSuccess || hipDeviceSynchronize() != hipSuccess)
    return 3;
  if (!all_bytes(p, SLOT, 0x7e) || !all_bytes(q, ODD, 0x3c))
    return 4;
  if (hipIpcCloseMemHandle(p) != hipSuccess || hipIpcCloseMemHandle(q) != hipSuccess)
    return 5;
  return write_full(to, "d", 1) ? 0 : 6;
}

Test(ipc_kernels, importer_kernel_changes_only_the_allocation, .timeout = 180)
{
  peer c = peer_start(whole_range_child);
  hipIpcMemHandle_t h[2];
  exported e = export_setup(h);
  cr_assert(write_full(c.to, h, sizeof(h)));
  char done = 0;
  bool got = read_full(c.from, &done, 1);
  peer_finish(&c);
  cr_assert(got);
  cr_assert(all_bytes(e.slot, SLOT, 0x7e), "the importer's kernel wrote the exported slot");
  cr_assert(all_bytes(e.odd, ODD, 0x3c), "and the odd-sized allocation");
  cr_assert(all_bytes(e.below, SLOT, 0xa1), "neighbour below intact");
  cr_assert(all_bytes(e.above, SLOT, 0xc3), "neighbour above intact");
  cr_assert(all_bytes(e.after_odd, ODD, 0xe5), "neighbour of the odd allocation intact");
  export_teardown(&e);
}

// ---- a kernel runs past the end ----------------------------------------------------------------

static int past_end_child(int from, int to)
{
  hipIpcMemHandle_t h[2];
  void *p = nullptr;
  if (!read_full(from, h, sizeof(h)))
    return 1;
  if (hipIpcOpenMemHandle(&p, h[0], 0) != hipSuccess)
    return 2;
  // Three pages from the start of the import: the allocation, then what the exporter's chunk
  // holds next (its neighbour), which the importer has not mapped.
  fill_words<<<4, 64>>>((uint32_t *)p, 3 * SLOT / 4, 0x66666666u);
  hipError_t launch = hipGetLastError();
  hipError_t sync = hipDeviceSynchronize();
  // The fault is the importer's: reported here as an error, never a success or a signal.
  hipError_t seen = launch != hipSuccess ? launch : sync;
  return write_full(to, &seen, sizeof(seen)) ? 0 : 4;
}

Test(ipc_kernels, kernel_past_the_end_faults_in_the_importer, .timeout = 180)
{
  peer c = peer_start(past_end_child);
  hipIpcMemHandle_t h[2];
  exported e = export_setup(h);
  cr_assert(write_full(c.to, h, sizeof(h)));
  hipError_t seen = hipSuccess;
  bool got = read_full(c.from, &seen, sizeof(seen));
  peer_finish(&c);
  cr_assert(got);
  // A GPU memory fault, as CUDA reports one (cudaErrorIllegalAddress).
  cr_assert_eq(seen, hipErrorIllegalAddress, "the importer got %d", seen);
  cr_assert(all_bytes(e.above, SLOT, 0xc3), "the neighbour above is intact");
  cr_assert(all_bytes(e.below, SLOT, 0xa1), "the neighbour below is intact");
  cr_assert(all_bytes(e.odd, ODD, 0xd4), "the other export is intact");
  // The exporter's device did not fault: its own work still runs.
  HIP_OK(hipMemset(e.below, 0x11, SLOT));
  HIP_OK(hipDeviceSynchronize());
  cr_assert(all_bytes(e.below, SLOT, 0x11));
  export_teardown(&e);
}
