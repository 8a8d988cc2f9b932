/* kfdsim [--gpus N] [--profile gfx90a|gfx942] [--vram SIZE] [--node NAME] [--log]
 *        [--stats[=FILE]] [--progress] [--timeout SECONDS] -- program args...
 * kfdsim --version
 *
 * Runs a program on emulated AMD GPUs: sets KFDSIM_GPUS / KFDSIM_PROFILE / KFDSIM_VRAM /
 * KFDSIM_NODE / KFDSIM_LOG / KFDSIM_STATS / KFDSIM_PROGRESS / KFDSIM_TIMEOUT (read by
 * libkfdsim.so, so programs started another way can set them too), puts libkfdsim.so into
 * LD_PRELOAD (first, or right after a sanitizer runtime) and execs the program. With --node the
 * launcher stays as the program's parent instead, passes on the signals that end a job, and
 * removes the node's shared state once the program is gone (its last process may have been
 * killed before it could: sim/kfd/node.h). The library is the
 * build tree's when it exists (KFDSIM_BUILD_LIB), else the installed one (KFDSIM_INSTALL_LIB);
 * KFDSIM_LIB overrides both. */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kfd/node.h"

#ifndef KFDSIM_BUILD_LIB
#define KFDSIM_BUILD_LIB ""
#endif
/* The sanitizer runtime libkfdsim.so was built against, in a sanitizer build (HIPKFD_SANITIZE). */
#ifndef KFDSIM_SANITIZER_RUNTIME
#define KFDSIM_SANITIZER_RUNTIME ""
#endif
#ifndef KFDSIM_VERSION
#define KFDSIM_VERSION "unknown"
#endif
#ifndef KFDSIM_INSTALL_LIB
#define KFDSIM_INSTALL_LIB "/usr/local/lib/libkfdsim.so"
#endif

static void usage(FILE *out)
{
  fprintf(out,
          "usage: kfdsim [options] [--] program [args...]\n"
          "       kfdsim --version\n"
          "  --gpus N          number of emulated GPUs, 1..8 (default 1)\n"
          "  --profile P       gfx90a (MI210-like) or gfx942 (MI300X-like, default)\n"
          "  --vram SIZE       VRAM per GPU, e.g. 16G or 512M (default: the profile's)\n"
          "  --node NAME       processes naming the same node share its GPUs and VRAM, as\n"
          "                    the ranks of one machine do (KFDSIM_NODE=NAME)\n"
          "  --log             log driver activity to stderr (KFDSIM_LOG=1)\n"
          "  --stats[=FILE]    at exit, per-kernel launches, waves, instructions and time, on\n"
          "                    stderr or appended to FILE, %%p = pid (KFDSIM_STATS=1|FILE)\n"
          "  --progress        a live line for a dispatch running over 1 s (KFDSIM_PROGRESS=1)\n"
          "  --timeout SECS    stop a dispatch running longer and report a GPU hang\n"
          "                    (KFDSIM_TIMEOUT=SECS)\n"
          "  --version         print kfdsim's version\n");
}

static int bad(const char *what, const char *value)
{
  fprintf(stderr, "kfdsim: invalid %s '%s'\n", what, value ? value : "");
  usage(stderr);
  return 2;
}

static int valid_gpus(const char *s)
{
  char *end;
  long n = strtol(s, &end, 10);
  return *s && !*end && n >= 1 && n <= 8;
}

static int valid_size(const char *s)
{
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 0);
  if (errno || end == s || v == 0)
    return 0;
  if (*end && strchr("KkMmGgTt", *end))
    end++;
  if (*end == 'i')
    end++;
  if (*end == 'B')
    end++;
  return !*end;
}

/* Seconds > 0, decimals allowed (libkfdsim.so reads it with strtod too). */
static int valid_seconds(const char *s)
{
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  return !errno && end != s && !*end && v > 0 && v <= 31536000.0;
}

static const char *library(void)
{
  const char *lib = getenv("KFDSIM_LIB");
  if (lib && *lib)
    return lib;
  if (KFDSIM_BUILD_LIB[0] && access(KFDSIM_BUILD_LIB, R_OK) == 0)
    return KFDSIM_BUILD_LIB;
  return KFDSIM_INSTALL_LIB;
}

/* Whether the LD_PRELOAD entry p[0..n) is a sanitizer runtime (GCC's libasan.so.N, clang's
 * libclang_rt.asan-x86_64.so, and their TSan/UBSan/LSan kin). */
static int is_sanitizer_runtime(const char *p, size_t n)
{
  static const char *const names[] = {"libasan.", "libtsan.", "libubsan.", "liblsan.",
                                      "libhwasan.", "libclang_rt."};
  const char *base = p;
  for (size_t i = 0; i < n; i++)
    if (p[i] == '/')
      base = p + i + 1;
  for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
    if ((size_t)(p + n - base) > strlen(names[i]) && !strncmp(base, names[i], strlen(names[i])))
      return 1;
  return 0;
}

/* libkfdsim.so goes first in LD_PRELOAD, except behind a sanitizer runtime: ASan must be the
 * first library loaded (it checks, and exits before main otherwise), and its interceptors must
 * reach kfdsim's through RTLD_NEXT. A sanitizer build's own runtime is put in front when the
 * caller did not preload one. */
static int set_preload(const char *lib)
{
  const char *old = getenv("LD_PRELOAD"), *rest;
  size_t keep = 0;                    /* the leading sanitizer entries of the old list */
  if (!old)
    old = "";
  for (rest = old; *rest;) {
    size_t n = strcspn(rest, ":");
    if (!n || !is_sanitizer_runtime(rest, n))
      break;
    keep = (size_t)(rest - old) + n;
    rest += n + (rest[n] == ':');
  }
  if (!keep)
    rest = old;
  static const char built_runtime[] = KFDSIM_SANITIZER_RUNTIME;
  const char *runtime = keep ? "" : built_runtime;
  char *preload;
  if (asprintf(&preload, "%s%.*s%s%s%s%s", runtime, (int)keep, old, *runtime || keep ? ":" : "",
               lib, *rest ? ":" : "", rest) < 0)
    return -1;
  return setenv("LD_PRELOAD", preload, 1);
}

static volatile sig_atomic_t child_pid;

static void pass_signal(int sig)
{
  if (child_pid > 0)
    kill((pid_t)child_pid, sig);
}

/* --node: run the program as our child, then sweep the node. Exit status: the program's, or
 * 128 + the signal that ended it (as a shell reports it). */
static int run_on_node(const char *node, char **args)
{
  static const int forward[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2 };
  struct sigaction sa = { .sa_handler = pass_signal };
  sigemptyset(&sa.sa_mask);
  pid_t pid = fork();
  if (pid < 0) {
    perror("kfdsim: fork");
    return 127;
  }
  if (pid == 0) {
    execvp(args[0], args);
    fprintf(stderr, "kfdsim: cannot run %s: %s\n", args[0], strerror(errno));
    _exit(127);
  }
  child_pid = pid;
  for (size_t k = 0; k < sizeof(forward) / sizeof(forward[0]); k++)
    sigaction(forward[k], &sa, NULL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
    ;
  int r = sim_node_sweep(node);
  if (r && r != -EBUSY)
    fprintf(stderr, "kfdsim: node %s not removed: %s\n", node, strerror(-r));
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int main(int argc, char **argv)
{
  const char *gpus = NULL, *profile = NULL, *vram = NULL, *stats = NULL, *timeout = NULL;
  const char *node = NULL;
  int log = 0, progress = 0, i = 1;
  for (; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--")) {
      i++;
      break;
    }
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      usage(stdout);
      return 0;
    }
    if (!strcmp(a, "--version")) {
      printf("kfdsim %s\n", KFDSIM_VERSION);
      return 0;
    }
    if (!strcmp(a, "--log")) {
      log = 1;
      continue;
    }
    if (!strcmp(a, "--progress")) {
      progress = 1;
      continue;
    }
    if (!strcmp(a, "--stats") || !strncmp(a, "--stats=", 8)) {
      stats = a[7] ? a + 8 : "1";
      if (!*stats)
        return bad("--stats file", stats);
      continue;
    }
    if (!strncmp(a, "--timeout=", 10)) {
      timeout = a + 10;
      continue;
    }
    const char **slot = !strcmp(a, "--gpus") ? &gpus : !strcmp(a, "--profile") ? &profile :
                        !strcmp(a, "--vram") ? &vram : !strcmp(a, "--timeout") ? &timeout :
                        !strcmp(a, "--node") ? &node : NULL;
    if (!slot) {
      if (a[0] == '-')
        return bad("option", a);
      break;   /* the program, without a "--" */
    }
    if (++i >= argc)
      return bad(a, NULL);
    *slot = argv[i];
  }
  if (i >= argc) {
    fprintf(stderr, "kfdsim: no program given\n");
    usage(stderr);
    return 2;
  }
  if (gpus && !valid_gpus(gpus))
    return bad("--gpus (1..8)", gpus);
  if (profile && strcmp(profile, "gfx90a") && strcmp(profile, "gfx942"))
    return bad("--profile (gfx90a|gfx942)", profile);
  if (vram && !valid_size(vram))
    return bad("--vram", vram);
  if (timeout && !valid_seconds(timeout))
    return bad("--timeout (seconds > 0)", timeout);
  if (node && sim_node_name_check(node))
    return bad("--node (1..64 of A-Z a-z 0-9 . _ -)", node);

  const char *lib = library();
  if (access(lib, R_OK)) {
    fprintf(stderr, "kfdsim: cannot read %s: %s\n", lib, strerror(errno));
    return 127;
  }
  if ((gpus && setenv("KFDSIM_GPUS", gpus, 1)) || (profile && setenv("KFDSIM_PROFILE", profile, 1)) ||
      (vram && setenv("KFDSIM_VRAM", vram, 1)) || (log && setenv("KFDSIM_LOG", "1", 1)) ||
      (stats && setenv("KFDSIM_STATS", stats, 1)) ||
      (progress && setenv("KFDSIM_PROGRESS", "1", 1)) ||
      (timeout && setenv("KFDSIM_TIMEOUT", timeout, 1)) ||
      (node && setenv("KFDSIM_NODE", node, 1))) {
    perror("kfdsim: setenv");
    return 127;
  }
  if (set_preload(lib)) {
    perror("kfdsim");
    return 127;
  }
  if (node)
    return run_on_node(node, &argv[i]);
  execvp(argv[i], &argv[i]);
  fprintf(stderr, "kfdsim: cannot run %s: %s\n", argv[i], strerror(errno));
  return 127;
}
