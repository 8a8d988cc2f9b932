/* kfdsim observing itself: `kfdsim --version`, `--stats` (and KFDSIM_STATS for programs started
 * without the launcher), `--progress` and the `--timeout` watchdog, each checked by running
 * observe_prog (tests/sim/observe_prog.hip) and reading what it and kfdsim print.
 *
 * The instruction count is exact: obs_straight has no branch, so each wave executes every
 * instruction up to s_endpgm once, and the count per wave is read from the disassembly of the
 * same source compiled device-only (OBS_HSACO, llvm-objdump-19).
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define RUN_DEADLINE_S 240.0 /* any run longer than this is a hang: killed, and the test fails */
#define OBS_WAVES_PER_LAUNCH 16u /* observe_prog: 4 workgroups of 256 work-items */

struct run {
  char *out, *err;
  size_t out_len, err_len;
  int status;
  double secs;
};

static double now_s(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void append(char **buf, size_t *len, const char *data, size_t n)
{
  char *b = realloc(*buf, *len + n + 1);
  cr_assert_not_null(b);
  memcpy(b + *len, data, n);
  *len += n;
  b[*len] = 0;
  *buf = b;
}

/* The child's environment: none of kfdsim's variables from ours, then `env` ("K=V"). */
static void child_env(const char *const env[])
{
  static const char *const ours[] = {"KFDSIM_STATS", "KFDSIM_PROGRESS", "KFDSIM_TIMEOUT",
                                     "KFDSIM_LOG", "KFDSIM_PROFILE", "KFDSIM_GPUS", "LD_PRELOAD"};
  for (size_t i = 0; i < sizeof(ours) / sizeof(ours[0]); i++)
    unsetenv(ours[i]);
  for (size_t i = 0; env && env[i]; i++)
    putenv((char *)env[i]);
}

/* Runs argv with stdout and stderr captured, killing it past RUN_DEADLINE_S. */
static void run(struct run *r, const char *const argv[], const char *const env[])
{
  memset(r, 0, sizeof(*r));
  append(&r->out, &r->out_len, "", 0);
  append(&r->err, &r->err_len, "", 0);
  int po[2], pe[2];
  cr_assert(pipe(po) == 0 && pipe(pe) == 0);
  double t0 = now_s();
  pid_t pid = fork();
  cr_assert(pid >= 0);
  if (pid == 0) {
    dup2(po[1], STDOUT_FILENO);
    dup2(pe[1], STDERR_FILENO);
    close(po[0]);
    close(pe[0]);
    close(po[1]);
    close(pe[1]);
    child_env(env);
    execv(argv[0], (char *const *)argv);
    _exit(127);
  }
  close(po[1]);
  close(pe[1]);
  struct pollfd fds[2] = {{po[0], POLLIN, 0}, {pe[0], POLLIN, 0}};
  int open_fds = 2;
  bool killed = false;
  while (open_fds) {
    int n = poll(fds, 2, 1000);
    if (n < 0 && errno == EINTR)
      continue;
    if (!killed && now_s() - t0 > RUN_DEADLINE_S) {
      kill(pid, SIGKILL);
      killed = true;
    }
    for (int i = 0; i < 2; i++) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
        continue;
      char buf[4096];
      ssize_t got = read(fds[i].fd, buf, sizeof(buf));
      if (got > 0) {
        if (i == 0)
          append(&r->out, &r->out_len, buf, (size_t)got);
        else
          append(&r->err, &r->err_len, buf, (size_t)got);
      } else {
        close(fds[i].fd);
        fds[i].fd = -1;
        open_fds--;
      }
    }
  }
  cr_assert(waitpid(pid, &r->status, 0) == pid);
  r->secs = now_s() - t0;
  cr_assert(!killed, "%s did not end within %.0f s; stderr:\n%s", argv[0], RUN_DEADLINE_S, r->err);
}

static bool exited_ok(const struct run *r)
{
  return WIFEXITED(r->status) && WEXITSTATUS(r->status) == 0;
}

/* One row of a statistics table: "kfdsim: launches waves instructions time_ms  name". */
struct row {
  unsigned long long launches, waves, insts;
  double ms;
};

static bool find_row(const char *text, const char *name, struct row *row)
{
  for (const char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
    struct row r;
    int name_at = 0;
    if (sscanf(line, "kfdsim: %llu %llu %llu %lf %n", &r.launches, &r.waves, &r.insts, &r.ms,
               &name_at) != 4 || !name_at)
      continue;
    size_t n = strlen(name);
    if (!strncmp(line + name_at, name, n) && (line[name_at + n] == '\n' || line[name_at + n] == 0 ||
                                             line[name_at + n] == ' ')) {
      *row = r;
      return true;
    }
  }
  return false;
}

/* Instructions one wave of obs_straight executes: those up to and including s_endpgm, which
 * must be reached without any branch. */
static unsigned long long straight_insts_per_wave(void)
{
  FILE *p = popen(OBS_OBJDUMP " -d --disassemble-symbols=obs_straight " OBS_HSACO, "r");
  cr_assert_not_null(p);
  char line[512];
  unsigned long long n = 0;
  bool end = false;
  while (fgets(line, sizeof(line), p)) {
    if (end || line[0] != '\t' || !strstr(line, "//"))
      continue; /* headers, labels, and the padding after s_endpgm */
    const char *op = line + 1;
    cr_assert(strncmp(op, "s_cbranch", 9) && strncmp(op, "s_branch", 8) &&
                  strncmp(op, "s_setpc", 7) && strncmp(op, "s_swappc", 8),
              "obs_straight is not straight-line code: %s", line);
    n++;
    end = !strncmp(op, "s_endpgm", 8);
  }
  pclose(p);
  cr_assert(end && n > 1, "no s_endpgm in obs_straight's disassembly (%llu instructions)", n);
  return n;
}

TestSuite(kfdsim_observe, .timeout = 500);

Test(kfdsim_observe, version_prints_the_project_version)
{
  const char *argv[] = {OBS_KFDSIM, "--version", NULL};
  struct run r;
  run(&r, argv, NULL);
  cr_assert(exited_ok(&r));
  cr_assert_str_eq(r.out, "kfdsim " OBS_VERSION "\n");
}

Test(kfdsim_observe, stats_count_the_instructions_of_a_known_kernel)
{
  unsigned long long per_wave = straight_insts_per_wave();
  const char *argv[] = {OBS_KFDSIM, "--stats", "--", OBS_PROG, "straight", "3", NULL};
  struct run r;
  run(&r, argv, NULL);
  cr_assert(exited_ok(&r) && strstr(r.out, "PASSED"), "stdout:\n%s\nstderr:\n%s", r.out, r.err);
  struct row k, total;
  cr_assert(find_row(r.err, "obs_straight", &k), "no obs_straight row in:\n%s", r.err);
  cr_assert_eq(k.launches, 3);
  cr_assert_eq(k.waves, 3 * OBS_WAVES_PER_LAUNCH);
  cr_assert_eq(k.insts, 3 * OBS_WAVES_PER_LAUNCH * per_wave, "%llu instructions, expected %llu x %u x 3",
               k.insts, per_wave, OBS_WAVES_PER_LAUNCH);
  cr_assert(k.ms > 0);
  cr_assert(find_row(r.err, "total", &total));
  cr_assert(total.launches >= k.launches && total.insts >= k.insts);
  cr_assert(strstr(r.err, "kfdsim statistics: pid "));
}

/* Without the launcher (MPI, CTest): the variables alone, the table appended to a file whose
 * "%p" is the process id. */
Test(kfdsim_observe, stats_variable_writes_a_file_per_process)
{
  char dir[] = "/tmp/kfdsim_stats_XXXXXX";
  cr_assert_not_null(mkdtemp(dir));
  char stats[256], *preload;
  snprintf(stats, sizeof(stats), "KFDSIM_STATS=%s/stats.%%p.txt", dir);
  cr_assert(asprintf(&preload, "LD_PRELOAD=%s", OBS_PRELOAD) > 0);
  const char *env[] = {preload, stats, "KFDSIM_PROFILE=gfx942", NULL};
  const char *argv[] = {OBS_PROG, "straight", "2", NULL};
  struct run r;
  run(&r, argv, env);
  cr_assert(exited_ok(&r), "stderr:\n%s", r.err);
  cr_assert(!strstr(r.err, "kfdsim statistics"), "the table went to stderr, not the file");

  DIR *d = opendir(dir);
  cr_assert_not_null(d);
  struct dirent *e;
  char path[512] = "";
  unsigned files = 0;
  while ((e = readdir(d)))
    if (!strncmp(e->d_name, "stats.", 6)) {
      snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
      files++;
    }
  closedir(d);
  cr_assert_eq(files, 1);
  FILE *f = fopen(path, "r");
  cr_assert_not_null(f);
  char text[8192];
  size_t n = fread(text, 1, sizeof(text) - 1, f);
  text[n] = 0;
  fclose(f);
  unlink(path);
  rmdir(dir);
  int pid = 0;
  cr_assert(sscanf(strrchr(path, '/') + 1, "stats.%d.txt", &pid) == 1 && pid > 0);
  char header[64];
  snprintf(header, sizeof(header), "kfdsim statistics: pid %d ", pid);
  cr_assert(strstr(text, header), "%s", text);
  struct row k;
  cr_assert(find_row(text, "obs_straight", &k), "%s", text);
  cr_assert_eq(k.launches, 2);
  cr_assert_eq(k.waves, 2 * OBS_WAVES_PER_LAUNCH);
  free(preload);
}

Test(kfdsim_observe, progress_shows_a_long_dispatch)
{
  /* 8 workgroups spinning 2 s each: they take turns on the host threads as clock pollers
   * (sim/isa/dispatch.c, wave_polled), so the dispatch lasts about 2 s, past the 1 s line. */
  const char *argv[] = {OBS_KFDSIM, "--progress", "--", OBS_PROG, "long", "2000", NULL};
  struct run r;
  run(&r, argv, NULL);
  cr_assert(exited_ok(&r) && strstr(r.out, "PASSED"), "stderr:\n%s", r.err);
  const char *line = strstr(r.err, "kfdsim: obs_long(unsigned long long, int*): ");
  cr_assert_not_null(line, "no progress line in:\n%s", r.err);
  unsigned long long done = 0, total = 0;
  double secs = 0;
  cr_assert(sscanf(line, "kfdsim: obs_long(unsigned long long, int*): %llu/%llu waves, %lf s", &done,
                   &total, &secs) == 3, "%s", line);
  cr_assert_eq(total, 8);
  cr_assert(done < total && secs >= 1.0, "%s", line);
}

Test(kfdsim_observe, progress_is_quiet_for_short_dispatches)
{
  const char *argv[] = {OBS_KFDSIM, "--progress", "--", OBS_PROG, "straight", "2", NULL};
  struct run r;
  run(&r, argv, NULL);
  cr_assert(exited_ok(&r));
  cr_assert(!strstr(r.err, " waves, "), "unexpected progress line:\n%s", r.err);
}

/* An endless kernel under --timeout 2: the watchdog stops it, the queue reports a hang, and the
 * program's hipDeviceSynchronize returns the sticky launch failure instead of waiting forever. */
Test(kfdsim_observe, timeout_turns_an_endless_kernel_into_an_error)
{
  const char *argv[] = {OBS_KFDSIM, "--timeout", "2", "--", OBS_PROG, "hang", NULL};
  struct run r;
  run(&r, argv, NULL);
  cr_assert(exited_ok(&r), "status 0x%x, stderr:\n%s", r.status, r.err);
  cr_assert(strstr(r.out, "sync=719 hipErrorLaunchFailure\n"), "stdout:\n%s", r.out);
  cr_assert(strstr(r.out, "after=719\n"), "the error is not sticky:\n%s", r.out);
  cr_assert(strstr(r.err, "kfdsim: watchdog: kernel obs_spin(int volatile*) "), "stderr:\n%s", r.err);
  cr_assert(r.secs >= 1.9 && r.secs < 60, "took %.1f s", r.secs);
}

Test(kfdsim_observe, bad_timeouts_are_refused)
{
  const char *argv[] = {OBS_KFDSIM, "--timeout", "soon", "--", OBS_PROG, "straight", "1", NULL};
  struct run r;
  run(&r, argv, NULL);
  cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 2);
  cr_assert(strstr(r.err, "kfdsim: invalid --timeout (seconds > 0) 'soon'"), "%s", r.err);

  /* Through the variable the program still runs, without a watchdog, and is told why. */
  char *preload;
  cr_assert(asprintf(&preload, "LD_PRELOAD=%s", OBS_PRELOAD) > 0);
  const char *env[] = {preload, "KFDSIM_TIMEOUT=-1", NULL};
  const char *argv2[] = {OBS_PROG, "straight", "1", NULL};
  run(&r, argv2, env);
  cr_assert(exited_ok(&r) && strstr(r.out, "PASSED"));
  cr_assert(strstr(r.err, "KFDSIM_TIMEOUT='-1' is not a number of seconds"), "%s", r.err);
  free(preload);
}

/* AMD's ROCm 5.2.3 runtime loads the code objects itself: the names resolve the same way. Its
 * own blit kernels have no code object and are listed by descriptor address. */
Test(kfdsim_observe, stats_name_the_kernels_of_amds_runtime)
{
  if (!OBS_PROG_HIPCC[0])
    cr_skip_test("hipcc not installed");
  const char *argv[] = {OBS_KFDSIM, "--profile", "gfx90a", "--stats", "--", OBS_PROG_HIPCC,
                        "straight", "3", NULL};
  struct run r;
  run(&r, argv, NULL);
  cr_assert(exited_ok(&r) && strstr(r.out, "PASSED"), "stderr:\n%s", r.err);
  struct row k;
  cr_assert(find_row(r.err, "obs_straight", &k), "%s", r.err);
  cr_assert_eq(k.launches, 3);
  cr_assert_eq(k.waves, 3 * OBS_WAVES_PER_LAUNCH);
  cr_assert(k.insts > 0 && k.insts % (3 * OBS_WAVES_PER_LAUNCH) == 0, "%llu", k.insts);
}

/* On AMD's runtime the hang ends the program too: ROCr 5.2.3 has no code for a reset queue and
 * aborts on the unknown queue error, after kfdsim said what happened. */
Test(kfdsim_observe, timeout_ends_a_program_on_amds_runtime)
{
  if (!OBS_PROG_HIPCC[0])
    cr_skip_test("hipcc not installed");
  const char *argv[] = {OBS_KFDSIM, "--profile", "gfx90a", "--timeout", "1.5", "--", OBS_PROG_HIPCC,
                        "hang", NULL};
  struct run r;
  run(&r, argv, NULL);
  cr_assert(strstr(r.err, "kfdsim: watchdog: kernel obs_spin(int volatile*) "), "%s", r.err);
  cr_assert(r.secs < 60, "took %.1f s", r.secs);
}
