/* Device printf and assert, both serviced by the host through the hostcall buffer.
 * printf's text is captured by pointing file descriptor 1 at a temporary file around the launch.
 * A failing assert ends the kernel with a trap, so it runs in a child process (this program
 * re-executed with --assert-child); the parent checks the child's message and that the failure
 * was reported (an error from hipDeviceSynchronize, or the process killed by the runtime). */
#include "common.h"

#include <algorithm>
#include <cassert>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

/* Runs `launch`, returns everything written to fd 1 meanwhile (in *text). */
template <class F> static int capture_stdout(F launch, std::string *text) {
  char path[] = "/tmp/kc_printf_XXXXXX";
  int fd = mkstemp(path);
  KC_EXPECT(fd >= 0, "mkstemp failed");
  unlink(path);
  fflush(stdout);
  int saved = dup(1);
  dup2(fd, 1);
  int r = launch();
  fflush(stdout);
  dup2(saved, 1);
  close(saved);
  if (r != KC_OK) {
    close(fd);
    return r;
  }
  off_t len = lseek(fd, 0, SEEK_END);
  text->assign((size_t)len, '\0');
  KC_EXPECT(pread(fd, &(*text)[0], (size_t)len, 0) == len, "reading the captured output failed");
  close(fd);
  return KC_OK;
}

static std::vector<std::string> split_lines(const std::string &s) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < s.size()) {
    size_t nl = s.find('\n', start);
    if (nl == std::string::npos) nl = s.size();
    lines.push_back(s.substr(start, nl - start));
    start = nl + 1;
  }
  return lines;
}

/* ---- every common conversion in one printf ---- */
__global__ void printf_formats(int i, unsigned u, long long ll, double d, float f) {
  printf("int=%d neg=%d uint=%u hex=%x HEX=%08X ll=%lld\n", i, -i, u, u, u, ll);
  printf("f=%.3f e=%.2e g=%g float=%f str=%s char=%c pct=%% w=[%5d] l=[%-4d]\n", d, d, d, (double)f, "hipkfd", 'Z',
         42, 7);
}
static int test_printf_formats() {
  std::string text;
  int r = capture_stdout([] {
    printf_formats<<<1, 1>>>(12345, 0xdeadbeefu, -9876543210123ll, 3.14159265, 0.5f);
    KC_SYNC();
    return KC_OK;
  }, &text);
  if (r != KC_OK) return r;
  const char *want =
      "int=12345 neg=-12345 uint=3735928559 hex=deadbeef HEX=DEADBEEF ll=-9876543210123\n"
      "f=3.142 e=3.14e+00 g=3.14159 float=0.500000 str=hipkfd char=Z pct=% w=[   42] l=[7   ]\n";
  KC_EXPECT(text == want, "printf output:\n%s\nwant:\n%s", text.c_str(), want);
  return KC_OK;
}

/* ---- many work-items print; the set of lines (in any order) is checked ---- */
__global__ void printf_many(int salt) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t % 5 != 2)                                  /* divergent: not every lane prints */
    printf("thread %d block %d value %d\n", t, (int)blockIdx.x, t * salt);
}
static int test_printf_many() {
  const int nb = 3, nt = 64;
  std::string text;
  int r = capture_stdout([] {
    printf_many<<<nb, nt>>>(3);
    KC_SYNC();
    return KC_OK;
  }, &text);
  if (r != KC_OK) return r;
  std::vector<std::string> got = split_lines(text), want;
  for (int t = 0; t < nb * nt; t++)
    if (t % 5 != 2) {
      char line[96];
      snprintf(line, sizeof(line), "thread %d block %d value %d", t, t / nt, t * 3);
      want.push_back(line);
    }
  std::sort(got.begin(), got.end());
  std::sort(want.begin(), want.end());
  KC_EXPECT(got.size() == want.size(), "%zu lines printed, want %zu; output:\n%s", got.size(), want.size(), text.c_str());
  for (size_t k = 0; k < got.size(); k++)
    KC_EXPECT(got[k] == want[k], "printed line \"%s\", want \"%s\"", got[k].c_str(), want[k].c_str());
  return KC_OK;
}

/* ---- a long format with a long string argument (several hostcall packets) ---- */
__global__ void printf_long(const char *s) {
  printf("[%s|%s] %d %d %d %d %d %d %d %d %d %d\n", s, "second-literal-string", 1, 2, 3, 4, 5, 6, 7, 8, 9, 10);
}
static int test_printf_long() {
  std::string arg;
  for (int i = 0; i < 300; i++) arg += (char)('a' + i % 26);
  kc_buf<char> ds;
  KC_HIP(ds.upload(std::vector<char>(arg.c_str(), arg.c_str() + arg.size() + 1)));
  std::string text;
  const char *p = ds.p;
  int r = capture_stdout([p] {
    printf_long<<<1, 1>>>(p);
    KC_SYNC();
    return KC_OK;
  }, &text);
  if (r != KC_OK) return r;
  std::string want = "[" + arg + "|second-literal-string] 1 2 3 4 5 6 7 8 9 10\n";
  KC_EXPECT(text == want, "printf output:\n%s\nwant:\n%s", text.c_str(), want.c_str());
  return KC_OK;
}

/* ---- asserts that hold print nothing and do not disturb the results ---- */
__global__ void assert_holds(const int *in, int *out) {
  int t = threadIdx.x;
  assert(in[t] >= 0);
  out[t] = in[t] * 2;
}
static int test_assert_holds() {
  std::vector<int> in(128);
  for (int i = 0; i < 128; i++) in[i] = i;
  kc_buf<int> din, dout;
  KC_HIP(din.upload(in));
  KC_HIP(dout.zero(128));
  std::string text;
  const int *pi = din.p;
  int *po = dout.p;
  int r = capture_stdout([pi, po] {
    assert_holds<<<1, 128>>>(pi, po);
    KC_SYNC();
    return KC_OK;
  }, &text);
  if (r != KC_OK) return r;
  std::vector<int> out;
  KC_HIP(dout.download(out));
  for (int i = 0; i < 128; i++) KC_EXPECT(out[i] == 2 * i, "out[%d] = %d", i, out[i]);
  KC_EXPECT(text.empty(), "a passing assert printed: %s", text.c_str());
  return KC_OK;
}

/* ---- a failing assert, in a child process ---- */
__global__ void assert_fails(const int *in) {
  int x = in[threadIdx.x];
  assert(x != 42);
}
static int assert_child() {
  std::vector<int> in(64, 0);
  in[5] = 42;
  kc_buf<int> din;
  KC_HIP(din.upload(in));
  assert_fails<<<1, 64>>>(din.p);
  hipError_t launch = hipGetLastError();
  hipError_t sync = hipDeviceSynchronize();
  fprintf(stderr, "CHILD launch=%d sync=%d (%s)\n", (int)launch, (int)sync, hipGetErrorName(sync));
  return sync == hipSuccess ? 3 : 4;
}
static char g_self[4096];
static int test_assert_fails() {
  int pipefd[2];
  KC_EXPECT(pipe(pipefd) == 0, "pipe failed");
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  KC_EXPECT(pid >= 0, "fork failed");
  if (pid == 0) {
    dup2(pipefd[1], 1);
    dup2(pipefd[1], 2);
    close(pipefd[0]);
    execl(g_self, g_self, "--assert-child", (char *)nullptr);
    _exit(127);
  }
  close(pipefd[1]);
  std::string text;
  char buf[4096];
  ssize_t got;
  while ((got = read(pipefd[0], buf, sizeof(buf))) > 0) text.append(buf, (size_t)got);
  close(pipefd[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  fprintf(stderr, "  child output:\n%s", text.c_str());
  KC_EXPECT(text.find("Device-side assertion `x != 42' failed.") != std::string::npos,
            "the assert message is missing from the child's output");
  KC_EXPECT(text.find("printf_assert.hip") != std::string::npos, "the assert message lacks the file name");
  KC_EXPECT(text.find("assert_fails") != std::string::npos, "the assert message lacks the function name");
  bool killed = WIFSIGNALED(status);
  bool reported = WIFEXITED(status) && WEXITSTATUS(status) == 4;
  KC_EXPECT(killed || reported, "the failed assert was not reported: child %s %d",
            WIFEXITED(status) ? "exited with" : "status", WIFEXITED(status) ? WEXITSTATUS(status) : status);
  return KC_OK;
}

static const kc_test tests[] = {
    {"printf_formats", test_printf_formats},
    {"printf_many", test_printf_many},
    {"printf_long", test_printf_long},
    {"assert_holds", test_assert_holds},
    {"assert_fails", test_assert_fails},
};

int main(int argc, char **argv) {
  if (argc == 2 && strcmp(argv[1], "--assert-child") == 0) return assert_child();
  ssize_t n = readlink("/proc/self/exe", g_self, sizeof(g_self) - 1);
  if (n <= 0) {
    fprintf(stderr, "cannot find /proc/self/exe\n");
    return 2;
  }
  g_self[n] = 0;
  return kc_run_all(tests, sizeof(tests) / sizeof(tests[0]), argc, argv, "printf_assert");
}
