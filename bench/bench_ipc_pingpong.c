/* bench_ipc_pingpong: device-to-device ping-pong between two processes of one node over hipIpc*.
 *
 * The program forks before either side loads the runtime. Process A works on device 0 and
 * process B on device 1 (device 0 when there is one); each allocates a buffer, exports it with
 * hipIpcGetMemHandle and opens the other's with hipIpcOpenMemHandle. A buffer is two halves:
 * what the side sends (filled with its letter) and what it receives. One round: A copies SIZE
 * bytes of its send half into B's receive half (hipMemcpy device to device on the opened
 * pointer, then a stream synchronize) and hands the turn to B through a futex in a shared page;
 * B copies back into A's receive half and hands the turn back. A times the rounds.
 *   ipc_pingpong.latency.<size>     half a round, us
 *   ipc_pingpong.bandwidth.<size>   SIZE over half a round, GB/s
 * After the rounds, both sides check that the last bytes they received are the other's.
 *
 * Run on one emulated node with two GPUs:
 *   kfdsim --node bench --gpus 2 [--profile gfx90a] -- build/bench/bench_ipc_pingpong
 * HIPKFD_BENCH_LIB picks the runtime; HIPKFD_BENCH_ITERS the rounds of the smallest sizes. */
#define _GNU_SOURCE
#include "bench.h"

#include <dlfcn.h>
#include <errno.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_SIZE (64u << 20)
#define WAIT_TIMEOUT_S 120

static const size_t sizes[] = { 4, 4096, 65536, 1u << 20, 16u << 20, MAX_SIZE };

/* The page both processes share (mapped before the fork). */
struct shared {
  _Atomic uint32_t turn;        /* even: A's move, odd: B's; futex word */
  _Atomic uint32_t stage;       /* setup steps done by each side (below) */
  hipIpcMemHandle_t handle[2];  /* A's and B's buffers */
  _Atomic int failed;           /* a side gave up: the other stops waiting */
  char error[256];
};

struct side {
  struct bench_hip h;
  hipError_t (*IpcGetMemHandle)(hipIpcMemHandle_t *, void *);
  hipError_t (*IpcOpenMemHandle)(void **, hipIpcMemHandle_t, unsigned int);
  hipError_t (*IpcCloseMemHandle)(void *);
  hipError_t (*Memset)(void *, int, size_t);
  struct shared *sh;
  int id;                       /* 0: A, 1: B */
  void *mine, *theirs;
};

static void futex_wait(_Atomic uint32_t *w, uint32_t seen)
{
  struct timespec ts = { .tv_sec = 1 };
  syscall(SYS_futex, w, FUTEX_WAIT, seen, &ts, NULL, 0);
}

static void futex_wake(_Atomic uint32_t *w)
{
  syscall(SYS_futex, w, FUTEX_WAKE, 1, NULL, NULL, 0);
}

static void side_fail(struct side *s, const char *why)
{
  snprintf(s->sh->error, sizeof(s->sh->error), "%s: %s", s->id ? "B" : "A", why);
  fprintf(stderr, "bench_ipc_pingpong: %s\n", s->sh->error);
  atomic_store(&s->sh->failed, 1);
  futex_wake(&s->sh->turn);
  futex_wake(&s->sh->stage);
  exit(1);
}

#define SIDE_CHECK(s, call)                                                                  \
  do {                                                                                       \
    hipError_t e_ = (call);                                                                  \
    if (e_ != hipSuccess) {                                                                  \
      char why_[160];                                                                        \
      snprintf(why_, sizeof(why_), "%s: %s", #call, (s)->h.GetErrorName(e_));                \
      side_fail((s), why_);                                                                  \
    }                                                                                        \
  } while (0)

/* Wait until *w reaches `want` (a counter that only grows). */
static void wait_for(struct side *s, _Atomic uint32_t *w, uint32_t want)
{
  uint64_t t0 = bench_now_ns();
  for (;;) {
    uint32_t v = atomic_load_explicit(w, memory_order_acquire);
    if (v >= want)
      return;
    if (atomic_load(&s->sh->failed))
      exit(1);
    if (bench_now_ns() - t0 > WAIT_TIMEOUT_S * 1000000000ull)
      side_fail(s, "the other side stopped answering");
    futex_wait(w, v);
  }
}

static void publish(_Atomic uint32_t *w)
{
  atomic_fetch_add_explicit(w, 1, memory_order_release);
  futex_wake(w);
}

static void *sym(struct side *s, const char *name)
{
  void *p = dlsym(s->h.lib, name);
  if (!p)
    side_fail(s, name);
  return p;
}

/* Runtime up, buffer exported, the other's opened. */
static void side_setup(struct side *s)
{
  bench_hip_open(&s->h);
  *(void **)&s->IpcGetMemHandle = sym(s, "hipIpcGetMemHandle");
  *(void **)&s->IpcOpenMemHandle = sym(s, "hipIpcOpenMemHandle");
  *(void **)&s->IpcCloseMemHandle = sym(s, "hipIpcCloseMemHandle");
  *(void **)&s->Memset = sym(s, "hipMemset");
  int count = 0;
  SIDE_CHECK(s, s->h.Init(0));
  SIDE_CHECK(s, s->h.GetDeviceCount(&count));
  SIDE_CHECK(s, s->h.SetDevice(count > 1 ? s->id : 0));
  SIDE_CHECK(s, s->h.Malloc(&s->mine, 2 * (size_t)MAX_SIZE));
  SIDE_CHECK(s, s->Memset(s->mine, 'A' + s->id, 2 * (size_t)MAX_SIZE));
  SIDE_CHECK(s, s->h.DeviceSynchronize());
  SIDE_CHECK(s, s->IpcGetMemHandle(&s->sh->handle[s->id], s->mine));
  publish(&s->sh->stage);
  wait_for(s, &s->sh->stage, 2);              /* both handles are there */
  SIDE_CHECK(s, s->IpcOpenMemHandle(&s->theirs, s->sh->handle[!s->id],
                                    hipIpcMemLazyEnablePeerAccess));
  publish(&s->sh->stage);
  wait_for(s, &s->sh->stage, 4);              /* both opened */
}

/* One move: our send half into their receive half, complete before the turn passes. */
static void move(struct side *s, size_t size)
{
  SIDE_CHECK(s, s->h.Memcpy((char *)s->theirs + MAX_SIZE, s->mine, size,
                            hipMemcpyDeviceToDevice));
  SIDE_CHECK(s, s->h.StreamSynchronize(NULL));
}

static size_t rounds_for(size_t size, size_t small)
{
  if (size <= 65536)
    return small;
  return size <= (1u << 20) ? small / 4 + 1 : 8;
}

/* The other side's last move filled our receive half with its letter. */
static void check_received(struct side *s)
{
  char got[2] = { 0, 0 };
  char *recv = (char *)s->mine + MAX_SIZE;
  SIDE_CHECK(s, s->h.Memcpy(got, recv, 1, hipMemcpyDeviceToHost));
  SIDE_CHECK(s, s->h.Memcpy(got + 1, recv + MAX_SIZE - 1, 1, hipMemcpyDeviceToHost));
  if (got[0] != 'A' + !s->id || got[1] != 'A' + !s->id)
    side_fail(s, "the data that arrived is not the other side's");
}

static void run_b(struct side *s)
{
  uint32_t turn = 1;
  size_t small = bench_iters(200);
  for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
    for (size_t i = 0; i < rounds_for(sizes[k], small) + 1; i++, turn += 2) {
      wait_for(s, &s->sh->turn, turn);
      move(s, sizes[k]);
      publish(&s->sh->turn);
    }
  }
  wait_for(s, &s->sh->turn, turn);            /* A's last move: the full buffer */
  check_received(s);
  SIDE_CHECK(s, s->IpcCloseMemHandle(s->theirs));
  publish(&s->sh->stage);
  wait_for(s, &s->sh->stage, 6);              /* neither side still reads the other's memory */
}

static void size_label(char *out, size_t n, size_t size)
{
  if (size >= (1u << 20))
    snprintf(out, n, "%zuMiB", size >> 20);
  else if (size >= 1024)
    snprintf(out, n, "%zuKiB", size >> 10);
  else
    snprintf(out, n, "%zuB", size);
}

static void run_a(struct side *s)
{
  uint32_t turn = 0;
  size_t small = bench_iters(200);
  bench_table_header("IPC ping-pong between two processes (device to device)");
  for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
    struct bench_samples lat = { 0 }, bw = { 0 };
    size_t rounds = rounds_for(sizes[k], small);
    for (size_t i = 0; i < rounds + 1; i++, turn += 2) {
      uint64_t t0 = bench_now_ns();
      wait_for(s, &s->sh->turn, turn);
      move(s, sizes[k]);
      publish(&s->sh->turn);
      wait_for(s, &s->sh->turn, turn + 2);
      double half = (double)(bench_now_ns() - t0) / 2.0;
      if (i == 0)
        continue;                             /* the first round warms both paths up */
      bench_samples_add(&lat, half / 1000.0);
      bench_samples_add(&bw, (double)sizes[k] / half);   /* bytes per ns = GB/s */
    }
    char name[64], label[32];
    size_label(label, sizeof(label), sizes[k]);
    snprintf(name, sizeof(name), "ipc_pingpong.latency.%s", label);
    bench_report(name, &lat, "us");
    snprintf(name, sizeof(name), "ipc_pingpong.bandwidth.%s", label);
    bench_report(name, &bw, "GB/s");
  }
  move(s, MAX_SIZE);                          /* the last move, checked by B */
  publish(&s->sh->turn);
  wait_for(s, &s->sh->stage, 5);
  check_received(s);
  SIDE_CHECK(s, s->IpcCloseMemHandle(s->theirs));
  publish(&s->sh->stage);
}

int main(void)
{
  struct shared *sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                           -1, 0);
  if (sh == MAP_FAILED) {
    perror("bench_ipc_pingpong: mmap");
    return 1;
  }
  memset(sh, 0, sizeof(*sh));
  fflush(stdout);
  pid_t pid = fork();
  if (pid < 0) {
    perror("bench_ipc_pingpong: fork");
    return 1;
  }
  struct side s = { .sh = sh, .id = pid == 0 };
  side_setup(&s);
  if (pid == 0) {
    run_b(&s);
    _exit(0);
  }
  run_a(&s);
  int st = 0;
  waitpid(pid, &st, 0);
  if (!WIFEXITED(st) || WEXITSTATUS(st) || atomic_load(&sh->failed)) {
    fprintf(stderr, "bench_ipc_pingpong: %s\n", sh->error[0] ? sh->error : "process B failed");
    return 1;
  }
  return 0;
}
