/* Shell commands for the toolchain tests (tc_run.h). */
#include "tc_run.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

int tc_run(char **out, const char *fmt, ...)
{
  char cmd[8192];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(cmd, sizeof(cmd), fmt, ap);
  va_end(ap);
  char full[8300];
  snprintf(full, sizeof(full), "( %s ) 2>&1", cmd);
  FILE *p = popen(full, "r");
  if (!p)
    return -1;
  size_t len = 0, cap = 4096;
  char *buf = malloc(cap);
  size_t n;
  while (buf && (n = fread(buf + len, 1, cap - len - 1, p)) > 0) {
    len += n;
    if (cap - len < 2048) {
      char *b = realloc(buf, cap * 2);
      if (!b)
        break;
      buf = b;
      cap *= 2;
    }
  }
  if (buf)
    buf[len] = '\0';
  int st = pclose(p);
  /* Print before a caller that keeps no output has the buffer freed (ASan: use after free). */
  fprintf(stderr, "$ %s\n%s", cmd, buf ? buf : "");
  if (out)
    *out = buf;
  else
    free(buf);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

void tc_clean_env(void)
{
  static const char *const vars[] = {
      "HIP_PATH", "ROCM_PATH", "HIP_CLANG_PATH", "HIP_LIB_PATH", "DEVICE_LIB_PATH",
      "HIP_DEVICE_LIB_PATH", "HIPCC_VERBOSE", "HIPCC_COMPILE_FLAGS_APPEND",
      "HIPCC_LINK_FLAGS_APPEND", "HIP_OFFLOAD_ARCH", "GPU_TARGETS", "HCC_AMDGPU_TARGET",
      "HIP_PLATFORM", "HIP_COMPILE_CXX_AS_HIP", "LD_PRELOAD", "LD_LIBRARY_PATH", "KFDSIM_PROFILE",
      "KFDSIM_GPUS", "KFDSIM_LIB", "HIPCXX", "CXX", "CC", "CMAKE_PREFIX_PATH", "MAKEFLAGS"};
  for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
    unsetenv(vars[i]);
  tc_run(NULL, "mkdir -p '%s'", TC_SCRATCH);
}
