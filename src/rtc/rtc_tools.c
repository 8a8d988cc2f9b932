/* Running LLVM 19's tools for hiprtc and the linker (see rtc_tools.h). */
#define _GNU_SOURCE
#include "rtc_tools.h"

#include <hip/hip_runtime_api.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define LLVM19_BIN "/usr/lib/llvm-19/bin/"

extern char **environ;

bool rtc_arg(struct rtc_args *a, const char *s)
{
  if (a->argc >= RTC_MAX_ARGS)
    return false;
  a->argv[a->argc++] = s;
  a->argv[a->argc] = NULL;
  return true;
}

bool rtc_argf(struct rtc_args *a, const char *fmt, const char *v)
{
  if (a->nstorage >= RTC_MAX_STORAGE)
    return false;
  char *buf = a->storage[a->nstorage++];
  return snprintf(buf, sizeof(a->storage[0]), fmt, v) < (int)sizeof(a->storage[0]) &&
         rtc_arg(a, buf);
}

bool rtc_scratch_dir(char *dir, size_t size)
{
  const char *tmp = getenv("TMPDIR");
  return snprintf(dir, size, "%s/hiprtc-XXXXXX", tmp && *tmp ? tmp : "/tmp") < (int)size &&
         mkdtemp(dir) != NULL;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
  (void)st;
  (void)flag;
  (void)ftw;
  remove(path);
  return 0;
}

void rtc_remove_tree(const char *dir) { nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS); }

bool rtc_write_file(const char *path, const void *data, size_t len)
{
  FILE *f = fopen(path, "wb");
  if (!f)
    return false;
  bool ok = fwrite(data, 1, len, f) == len;
  return fclose(f) == 0 && ok;
}

char *rtc_read_file(const char *path, size_t *len)
{
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  char *buf = NULL;
  long n = -1;
  if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
      (buf = malloc((size_t)n + 1)) && fread(buf, 1, (size_t)n, f) == (size_t)n) {
    buf[n] = 0;
    *len = (size_t)n;
  } else {
    free(buf);
    buf = NULL;
  }
  fclose(f);
  return buf;
}

/* "clang++-19" -> "/usr/lib/llvm-19/bin/clang++": LLVM's own directory names tools without the
 * version suffix Debian's PATH links carry. */
static bool llvm19_path(const char *tool, char *out, size_t size)
{
  size_t n = strlen(tool);
  if (n < 4 || strcmp(tool + n - 3, "-19") != 0 || strchr(tool, '/'))
    return false;
  return snprintf(out, size, LLVM19_BIN "%.*s", (int)(n - 3), tool) < (int)size;
}

bool rtc_run(struct rtc_args *a, const char *log_path)
{
  posix_spawn_file_actions_t fa;
  char fallback[256];
  if (posix_spawn_file_actions_init(&fa) != 0)
    return false;
  posix_spawn_file_actions_addopen(&fa, 1, log_path, O_WRONLY | O_CREAT | O_APPEND, 0600);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  pid_t pid;
  int rc = posix_spawnp(&pid, a->argv[0], &fa, NULL, (char *const *)a->argv, environ);
  if (rc == ENOENT && llvm19_path(a->argv[0], fallback, sizeof(fallback))) {
    a->argv[0] = fallback;
    rc = posix_spawn(&pid, a->argv[0], &fa, NULL, (char *const *)a->argv, environ);
  }
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) {
    FILE *f = fopen(log_path, "a");
    if (f) {
      fprintf(f, "hiprtc: cannot run %s: %s\n", a->argv[0], strerror(rc));
      fclose(f);
    }
    return false;
  }
  int status;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR)
      return false;
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

void rtc_current_arch(char *out, size_t size)
{
  int dev = 0;
  hipDeviceProp_tR0600 props;
  snprintf(out, size, "gfx942");
  if (hipGetDevice(&dev) == hipSuccess && hipGetDevicePropertiesR0600(&props, dev) == hipSuccess &&
      props.gcnArchName[0])
    snprintf(out, size, "%s", props.gcnArchName);
}
