/* Paths, version and default offload targets for hipcc and hipconfig (see hipkfd_tool.h). */
#include "hipkfd_tool.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Set by tools/CMakeLists.txt from the install layout and the version header. */
#ifndef TOOL_REL_INCLUDEDIR
#define TOOL_REL_INCLUDEDIR "include"
#endif
#ifndef TOOL_REL_LIBDIR
#define TOOL_REL_LIBDIR "lib"
#endif
#ifndef TOOL_REL_DEVICE_LIBS
#define TOOL_REL_DEVICE_LIBS "share/hipkfd/device-libs"
#endif
#ifndef TOOL_CLANG_DIR
#define TOOL_CLANG_DIR "/usr/lib/llvm-19/bin"
#endif
#ifndef TOOL_HIP_VERSION_FULL
#define TOOL_HIP_VERSION_FULL "0.0.0-unknown"
#endif
#ifndef TOOL_PROJECT_VERSION
#define TOOL_PROJECT_VERSION "0.0.0"
#endif

/* The KFD topology, as rocm_agent_enumerator reads it (amdkfd kfd_topology.c writes one
 * properties file per node; gfx_target_version is 0 for CPU nodes). */
#define KFD_NODES "/sys/class/kfd/kfd/topology/nodes"

bool tool_is_file(const char *path)
{
  struct stat st;
  return path && *path && stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

bool tool_is_dir(const char *path)
{
  struct stat st;
  return path && *path && stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* a/b into out; false (out empty) if it does not fit. */
static bool join(char *out, size_t size, const char *a, const char *b)
{
  size_t na = strlen(a), nb = strlen(b);
  if (na + 1 + nb + 1 > size) {
    out[0] = '\0';
    return false;
  }
  memcpy(out, a, na);
  out[na] = '/';
  memcpy(out + na + 1, b, nb + 1);
  return true;
}

static bool copy(char *out, size_t size, const char *s)
{
  int n = snprintf(out, size, "%s", s);
  return n >= 0 && (size_t)n < size;
}

static const char *env(const char *name)
{
  const char *v = getenv(name);
  return v && *v ? v : NULL;
}

/* <prefix> of <prefix>/bin/<tool>, from the running executable. */
static int self_prefix(char *out, size_t size)
{
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  if (n <= 0)
    return -1;
  exe[n] = '\0';
  for (int up = 0; up < 2; up++) {
    char *slash = strrchr(exe, '/');
    if (!slash)
      return -1;
    *slash = '\0';
  }
  return copy(out, size, exe[0] ? exe : "/") ? 0 : -1;
}

/* KEY=VALUE lines of <hip_path>/share/hip/version, the file clang also reads. */
static void read_version_file(struct tool_paths *p)
{
  char path[PATH_MAX], line[256];
  char major[32] = "", minor[32] = "", patch[32] = "", hash[64] = "";
  if (!join(path, sizeof(path), p->hip_path, "share/hip/version"))
    return;
  FILE *f = fopen(path, "r");
  if (!f)
    return;
  while (fgets(line, sizeof(line), f)) {
    line[strcspn(line, "\r\n")] = '\0';
    char *eq = strchr(line, '=');
    if (!eq || line[0] == '#')
      continue;
    *eq = '\0';
    const char *v = eq + 1;
    if (!strcmp(line, "HIP_VERSION_MAJOR"))
      copy(major, sizeof(major), v);
    else if (!strcmp(line, "HIP_VERSION_MINOR"))
      copy(minor, sizeof(minor), v);
    else if (!strcmp(line, "HIP_VERSION_PATCH"))
      copy(patch, sizeof(patch), v);
    else if (!strcmp(line, "HIP_VERSION_GITHASH"))
      copy(hash, sizeof(hash), v);
    else if (!strcmp(line, "HIPKFD_VERSION"))
      copy(p->hipkfd_version, sizeof(p->hipkfd_version), v);
  }
  fclose(f);
  if (major[0] && minor[0] && patch[0]) {
    snprintf(p->hip_version, sizeof(p->hip_version), "%s.%s.%s-%s", major, minor, patch, hash);
    p->version_file_found = true;
  }
}

static void find_clang(struct tool_paths *p)
{
  char cand[PATH_MAX];
  const char *dir = env("HIP_CLANG_PATH");
  if (!dir) {
    dir = TOOL_CLANG_DIR;
    if (join(cand, sizeof(cand), p->rocm_path, "llvm/bin/clang++") && tool_is_file(cand)) {
      join(p->clang_dir, sizeof(p->clang_dir), p->rocm_path, "llvm/bin");
      dir = NULL;
    }
  }
  if (dir)
    copy(p->clang_dir, sizeof(p->clang_dir), dir);
  /* clang++ as in AMD's layout; clang++-19 where only Debian's versioned name is present. */
  static const char *const names[] = {"clang++", "clang++-19", "clang"};
  for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
    if (join(cand, sizeof(cand), p->clang_dir, names[i]) && access(cand, X_OK) == 0) {
      copy(p->clang, sizeof(p->clang), cand);
      return;
    }
  }
  join(p->clang, sizeof(p->clang), p->clang_dir, "clang++");
}

static void find_device_libs(struct tool_paths *p)
{
  const char *e = env("DEVICE_LIB_PATH");
  if (!e)
    e = env("HIP_DEVICE_LIB_PATH");
  if (e) {
    copy(p->device_lib_dir, sizeof(p->device_lib_dir), e);
    return;
  }
  if (join(p->device_lib_dir, sizeof(p->device_lib_dir), p->rocm_path, "amdgcn/bitcode") &&
      tool_is_dir(p->device_lib_dir))
    return;
  join(p->device_lib_dir, sizeof(p->device_lib_dir), p->hip_path, TOOL_REL_DEVICE_LIBS);
}

int tool_paths_init(struct tool_paths *p, const char *hip_path_opt, const char *rocm_path_opt)
{
  memset(p, 0, sizeof(*p));
  const char *hip = hip_path_opt && *hip_path_opt ? hip_path_opt : env("HIP_PATH");
  if (hip ? !copy(p->hip_path, sizeof(p->hip_path), hip)
          : self_prefix(p->hip_path, sizeof(p->hip_path)) != 0) {
    fprintf(stderr, "cannot tell where hipkfd is installed: set HIP_PATH\n");
    return -1;
  }
  const char *rocm = rocm_path_opt && *rocm_path_opt ? rocm_path_opt : env("ROCM_PATH");
  copy(p->rocm_path, sizeof(p->rocm_path), rocm ? rocm : p->hip_path);
  join(p->include_dir, sizeof(p->include_dir), p->hip_path, TOOL_REL_INCLUDEDIR);
  const char *lib = env("HIP_LIB_PATH");
  if (lib)
    copy(p->lib_dir, sizeof(p->lib_dir), lib);
  else
    join(p->lib_dir, sizeof(p->lib_dir), p->hip_path, TOOL_REL_LIBDIR);
  find_device_libs(p);
  find_clang(p);
  copy(p->hip_version, sizeof(p->hip_version), TOOL_HIP_VERSION_FULL);
  copy(p->hipkfd_version, sizeof(p->hipkfd_version), TOOL_PROJECT_VERSION);
  read_version_file(p);
  return 0;
}

bool tool_list_add(char *list, size_t size, const char *name)
{
  size_t len = strlen(list), nlen = strlen(name);
  if (nlen == 0)
    return true;
  for (const char *s = list; *s;) {
    size_t w = strcspn(s, ",");
    if (w == nlen && !strncmp(s, name, nlen))
      return true;
    s += w + (s[w] == ',');
  }
  if (len + (len > 0) + nlen + 1 > size)
    return false;
  if (len > 0)
    list[len++] = ',';
  memcpy(list + len, name, nlen + 1);
  return true;
}

/* A list separated by commas, semicolons (CMake) or blanks, into `out`. */
static void add_env_list(char *out, size_t size, const char *value)
{
  char buf[1024];
  copy(buf, sizeof(buf), value);
  for (char *save = NULL, *t = strtok_r(buf, ",; \t", &save); t; t = strtok_r(NULL, ",; \t", &save))
    tool_list_add(out, size, t);
}

/* gfx<major><minor><stepping as hex digit>: 90402 -> gfx942, 90010 -> gfx90a. */
static void add_node_target(char *out, size_t size, const char *properties)
{
  FILE *f = fopen(properties, "r");
  if (!f)
    return;
  char line[256];
  unsigned long v = 0;
  while (fgets(line, sizeof(line), f))
    if (sscanf(line, "gfx_target_version %lu", &v) == 1)
      break;
  fclose(f);
  if (v == 0)
    return;
  char name[32];
  snprintf(name, sizeof(name), "gfx%lu%lu%lx", v / 10000, (v / 100) % 100, v % 100);
  tool_list_add(out, size, name);
}

static void topology_targets(char *out, size_t size)
{
  DIR *d = opendir(KFD_NODES);
  if (!d)
    return;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.')
      continue;
    char path[PATH_MAX];
    snprintf(path, sizeof(path), KFD_NODES "/%s/properties", e->d_name);
    add_node_target(out, size, path);
  }
  closedir(d);
}

void tool_default_targets(char *out, size_t size, const char **source)
{
  static const char *const vars[] = {"HIP_OFFLOAD_ARCH", "GPU_TARGETS", "HCC_AMDGPU_TARGET"};
  out[0] = '\0';
  for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
    const char *v = env(vars[i]);
    if (v) {
      add_env_list(out, size, v);
      if (out[0]) {
        *source = vars[i];
        return;
      }
    }
  }
  topology_targets(out, size);
  if (out[0]) {
    *source = "KFD topology";
    return;
  }
  copy(out, size, TOOL_DEFAULT_TARGETS);
  *source = "default (no GPU visible)";
}
