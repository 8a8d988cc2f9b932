// Interprocess events: a record made in this process, held back on the GPU, is seen pending and
// then complete by another process that opened the event's handle (this binary re-executed).
#include <criterion/criterion.h>
#include <hip/hip_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sys/wait.h>
#include <unistd.h>

#define HIP_OK(expr) cr_assert_eq((expr), hipSuccess, "%s", #expr)

static void hex_encode(const hipIpcEventHandle_t &h, char *out)
{
  const unsigned char *b = (const unsigned char *)&h;
  for (size_t i = 0; i < sizeof(h); i++)
    sprintf(out + 2 * i, "%02x", b[i]);
}

static void hex_decode(const char *in, hipIpcEventHandle_t *h)
{
  unsigned char *b = (unsigned char *)h;
  for (size_t i = 0; i < sizeof(*h); i++) {
    unsigned v = 0;
    sscanf(in + 2 * i, "%2x", &v);
    b[i] = (unsigned char)v;
  }
}

// The other process: RTFIX_EVENT_HANDLE names the event, RTFIX_EVENT_PIPE the descriptor to
// report on. Writes 'N' once it sees the record pending, then waits for it (hipEventSynchronize
// and a stream wait) and exits 0 when everything answered as expected.
// The exporting side, for the exit test: RTFIX_EVENT_EXPORT names a descriptor; makes an
// interprocess event, writes its handle there and exits without destroying it.
__attribute__((constructor)) static void event_ipc_exporter(void)
{
  const char *fd = getenv("RTFIX_EVENT_EXPORT");
  if (!fd)
    return;
  hipEvent_t ev;
  hipIpcEventHandle_t h;
  if (hipEventCreateWithFlags(&ev, hipEventDisableTiming | hipEventInterprocess) != hipSuccess ||
      hipEventRecord(ev, nullptr) != hipSuccess || hipIpcGetEventHandle(&h, ev) != hipSuccess)
    _exit(30);
  char hx[2 * sizeof(h) + 1];
  hex_encode(h, hx);
  /* exit(), not _exit(): a program that ends normally runs the runtime's exit hook. */
  exit(write(atoi(fd), hx, 2 * sizeof(h)) == (ssize_t)(2 * sizeof(h)) ? 0 : 31);
}

__attribute__((constructor)) static void event_ipc_child(void)
{
  const char *hx = getenv("RTFIX_EVENT_HANDLE"), *fd = getenv("RTFIX_EVENT_PIPE");
  if (!hx || !fd)
    return;
  hipIpcEventHandle_t h;
  hex_decode(hx, &h);
  int out = atoi(fd), code = 0;
  hipEvent_t ev = nullptr;
  if (hipIpcOpenEventHandle(&ev, h) != hipSuccess)
    _exit(10);
  char tag = hipEventQuery(ev) == hipErrorNotReady ? 'N' : 'X';
  if (write(out, &tag, 1) != 1)
    _exit(11);
  hipStream_t s;
  if (hipStreamCreate(&s) != hipSuccess || hipStreamWaitEvent(s, ev, 0) != hipSuccess)
    _exit(12);
  if (hipEventSynchronize(ev) != hipSuccess || hipEventQuery(ev) != hipSuccess)
    code = 13;
  if (hipStreamSynchronize(s) != hipSuccess)
    code = 14;
  if (hipEventDestroy(ev) != hipSuccess || hipStreamDestroy(s) != hipSuccess)
    code = 15;
  _exit(tag == 'N' ? code : 16);
}

Test(event_ipc, other_process_sees_pending_then_complete)
{
  hipEvent_t ev;
  hipStream_t s;
  unsigned *flag = nullptr;
  HIP_OK(hipEventCreateWithFlags(&ev, hipEventDisableTiming | hipEventInterprocess));
  HIP_OK(hipStreamCreate(&s));
  HIP_OK(hipHostMalloc((void **)&flag, sizeof(unsigned), hipHostMallocCoherent));
  *flag = 0;
  // The stream holds until the host sets the flag; the record sits behind that wait.
  HIP_OK(hipStreamWaitValue32(s, flag, 1, hipStreamWaitValueEq, 0xffffffffu));
  HIP_OK(hipEventRecord(ev, s));
  cr_assert_eq(hipEventQuery(ev), hipErrorNotReady);
  hipIpcEventHandle_t h;
  HIP_OK(hipIpcGetEventHandle(&h, ev));

  int p[2];
  cr_assert_eq(pipe(p), 0);
  char hx[2 * sizeof(h) + 1], fdtxt[16];
  hex_encode(h, hx);
  snprintf(fdtxt, sizeof(fdtxt), "%d", p[1]);
  pid_t child = fork();
  if (child == 0) {
    setenv("RTFIX_EVENT_HANDLE", hx, 1);
    setenv("RTFIX_EVENT_PIPE", fdtxt, 1);
    execl("/proc/self/exe", "event_ipc_child", (char *)nullptr);
    _exit(20);
  }
  close(p[1]);
  char tag = 0;
  cr_assert_eq(read(p[0], &tag, 1), 1, "the child reported");
  cr_assert_eq(tag, 'N', "the child saw the record pending");
  __atomic_store_n(flag, 1u, __ATOMIC_RELEASE); // release the stream
  int status = 0;
  cr_assert_eq(waitpid(child, &status, 0), child);
  cr_assert(WIFEXITED(status));
  cr_assert_eq(WEXITSTATUS(status), 0, "child exit code %d", WEXITSTATUS(status));
  HIP_OK(hipEventSynchronize(ev));
  HIP_OK(hipEventQuery(ev));
  close(p[0]);
  HIP_OK(hipEventDestroy(ev));
  HIP_OK(hipStreamDestroy(s));
  HIP_OK(hipHostFree(flag));
}

Test(event_ipc, handle_errors)
{
  hipEvent_t plain, ipc, opened = nullptr;
  hipIpcEventHandle_t h;
  HIP_OK(hipEventCreate(&plain));
  HIP_OK(hipEventCreateWithFlags(&ipc, hipEventDisableTiming | hipEventInterprocess));
  cr_assert_eq(hipIpcGetEventHandle(nullptr, ipc), hipErrorInvalidValue);
  cr_assert_eq(hipIpcGetEventHandle(&h, nullptr), hipErrorInvalidValue);
  cr_assert_eq(hipIpcGetEventHandle(&h, plain), hipErrorInvalidConfiguration);
  // An interprocess event must not be timed.
  hipEvent_t timed;
  cr_assert_eq(hipEventCreateWithFlags(&timed, hipEventInterprocess), hipErrorInvalidValue);
  HIP_OK(hipIpcGetEventHandle(&h, ipc));
  // Never recorded: complete, here and through the shared area.
  HIP_OK(hipEventQuery(ipc));
  HIP_OK(hipEventSynchronize(ipc));
  cr_assert_eq(hipIpcOpenEventHandle(nullptr, h), hipErrorInvalidValue);
  cr_assert_eq(hipIpcOpenEventHandle(&opened, h), hipErrorInvalidContext, "same process");
  hipIpcEventHandle_t junk;
  memset(&junk, 0x41, sizeof(junk));
  cr_assert_eq(hipIpcOpenEventHandle(&opened, junk), hipErrorInvalidValue);
  memset(&junk, 0, sizeof(junk));
  strcpy(junk.reserved, "/hipkfd_event_1_999999");
  cr_assert_eq(hipIpcOpenEventHandle(&opened, junk), hipErrorInvalidValue, "no such area");
  // A record through the area completes like any other.
  HIP_OK(hipEventRecord(ipc, nullptr));
  HIP_OK(hipEventSynchronize(ipc));
  HIP_OK(hipEventQuery(ipc));
  HIP_OK(hipStreamWaitEvent(nullptr, ipc, 0));
  HIP_OK(hipDeviceSynchronize());
  HIP_OK(hipEventDestroy(ipc));
  HIP_OK(hipEventDestroy(plain));
}

// An exporter that exits with its event alive takes the event's name with it: its handle can no
// longer be opened, and nothing is left behind in /dev/shm.
Test(event_ipc, exporter_exit_removes_the_name)
{
  int p[2];
  cr_assert_eq(pipe(p), 0);
  char fdtxt[16];
  snprintf(fdtxt, sizeof(fdtxt), "%d", p[1]);
  pid_t child = fork();
  if (child == 0) {
    setenv("RTFIX_EVENT_EXPORT", fdtxt, 1);
    execl("/proc/self/exe", "event_ipc_exporter", (char *)nullptr);
    _exit(20);
  }
  close(p[1]);
  char hx[2 * sizeof(hipIpcEventHandle_t) + 1] = {0};
  cr_assert_eq(read(p[0], hx, sizeof(hx) - 1), (ssize_t)(sizeof(hx) - 1));
  int status = 0;
  cr_assert_eq(waitpid(child, &status, 0), child);
  cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "exporter status 0x%x", status);
  close(p[0]);
  hipIpcEventHandle_t h;
  hex_decode(hx, &h);
  cr_assert_eq(strncmp(h.reserved, "/hipkfd_event_", 14), 0);
  char path[96];
  snprintf(path, sizeof(path), "/dev/shm%s", h.reserved);
  cr_assert_neq(access(path, F_OK), 0, "%s left behind", path);
  hipEvent_t ev = nullptr;
  cr_assert_eq(hipIpcOpenEventHandle(&ev, h), hipErrorInvalidValue);
}
