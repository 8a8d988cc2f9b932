/* bench_startup: what it costs to start using the runtime.
 *   startup.first_malloc   process start (fork+exec by this program) to the first completed hipMalloc
 *   startup.library_load   dlopen() of the library
 *   startup.rss_after_init resident memory after the first hipMalloc
 *   startup.threads        threads the runtime created (process threads after init, minus one)
 * The parent re-executes itself with --child; the child reports through a pipe. */
#define _GNU_SOURCE
#include "bench.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

struct child_report {
  uint64_t done_ns;      /* CLOCK_MONOTONIC when the first hipMalloc returned */
  double load_ns;
  long rss_kib;
  int threads;
};

static long rss_kib(void) {
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  long v = -1;
  while (f && fgets(line, sizeof(line), f))
    if (sscanf(line, "VmRSS: %ld", &v) == 1)
      break;
  if (f)
    fclose(f);
  return v;
}

static int thread_count(void) {
  DIR *d = opendir("/proc/self/task");
  int n = 0;
  struct dirent *e;
  while (d && (e = readdir(d)))
    n += e->d_name[0] != '.';
  if (d)
    closedir(d);
  return n;
}

static int run_child(int fd) {
  struct bench_hip h;
  struct child_report r = {0};
  bench_hip_open(&h);
  void *p;
  BENCH_CHECK(&h, h.Malloc(&p, 4096));
  r.done_ns = bench_now_ns();
  r.load_ns = h.load_ns;
  r.rss_kib = rss_kib();
  r.threads = thread_count();
  return write(fd, &r, sizeof(r)) == (ssize_t)sizeof(r) ? 0 : 1;
}

int main(int argc, char **argv) {
  if (argc == 3 && strcmp(argv[1], "--child") == 0)
    return run_child(atoi(argv[2]));

  size_t iters = bench_iters(20);
  struct bench_samples start = {0}, load = {0}, rss = {0}, thr = {0};
  bench_table_header("start-up");
  for (size_t i = 0; i < iters; i++) {
    int fds[2];
    char fdarg[16];
    if (pipe(fds) != 0)
      return 1;
    snprintf(fdarg, sizeof(fdarg), "%d", fds[1]);
    uint64_t t0 = bench_now_ns();
    pid_t pid = fork();
    if (pid == 0) {
      close(fds[0]);
      execl("/proc/self/exe", argv[0], "--child", fdarg, (char *)NULL);
      _exit(127);
    }
    close(fds[1]);
    struct child_report r;
    ssize_t got = read(fds[0], &r, sizeof(r));
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    if (got != (ssize_t)sizeof(r) || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      fprintf(stderr, "bench_startup: child failed (status %d)\n", status);
      return 1;
    }
    bench_samples_add(&start, (double)(r.done_ns - t0) / 1e6);
    bench_samples_add(&load, r.load_ns / 1e6);
    bench_samples_add(&rss, (double)r.rss_kib / 1024.0);
    bench_samples_add(&thr, (double)(r.threads - 1));
  }
  bench_report("startup.first_malloc", &start, "ms");
  bench_report("startup.library_load", &load, "ms");
  bench_report("startup.rss_after_init", &rss, "MiB");
  bench_report("startup.threads", &thr, "threads");
  return 0;
}
