/* hipconfig: what hipkfd's installation is, in the options and output formats of AMD's hipconfig
 * (amd/hipcc/src/hipconfig.cpp and hipBin_base.h in ROCm's llvm-project). Each option prints its
 * answer without a newline (-n prints one), so `$(hipconfig --path)` works; with no option the
 * full report is printed. hipkfd adds --offload-arch: the targets hipcc compiles for by default.
 * An unknown option is an error (AMD's prints the full report instead). */
#include "hipkfd_tool.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

extern char **environ;

enum command {
  CMD_UNKNOWN, CMD_PATH, CMD_ROCMPATH, CMD_CPP_CONFIG, CMD_COMPILER, CMD_PLATFORM, CMD_RUNTIME,
  CMD_HIPCLANGPATH, CMD_FULL, CMD_VERSION, CMD_CHECK, CMD_NEWLINE, CMD_HELP, CMD_OFFLOAD_ARCH,
};

/* AMD accepts each option as -x, --x, -name and --name. */
static const struct {
  enum command cmd;
  const char *names[5];
} commands[] = {
    {CMD_PATH, {"-p", "--path", "-path", "--p"}},
    {CMD_ROCMPATH, {"-R", "--rocmpath", "-rocmpath", "--R"}},
    {CMD_CPP_CONFIG, {"-C", "--cpp_config", "-cpp_config", "--C", "--cxx_config"}},
    {CMD_COMPILER, {"-c", "--compiler", "-compiler", "--c"}},
    {CMD_PLATFORM, {"-P", "--platform", "-platform", "--P"}},
    {CMD_RUNTIME, {"-r", "--runtime", "-runtime", "--r"}},
    {CMD_HIPCLANGPATH, {"-l", "--hipclangpath", "-hipclangpath", "--l"}},
    {CMD_FULL, {"-f", "--full", "-full", "--f", "--info"}},
    {CMD_VERSION, {"-v", "--version", "-version", "--v"}},
    {CMD_CHECK, {"--check", "-check"}},
    {CMD_NEWLINE, {"-n", "--newline", "-newline", "--n"}},
    {CMD_HELP, {"-h", "--help", "-help", "--h"}},
    {CMD_OFFLOAD_ARCH, {"--offload-arch", "-offload-arch"}},
};

static enum command lookup(const char *arg)
{
  for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
    for (size_t j = 0; j < 5 && commands[i].names[j]; j++)
      if (!strcmp(arg, commands[i].names[j]))
        return commands[i].cmd;
  return CMD_UNKNOWN;
}

static void usage(FILE *f)
{
  fprintf(f,
          "usage: hipconfig [OPTIONS]\n"
          "  --path,  -p        : print HIP_PATH (use env var if set, else determine from hipconfig path)\n"
          "  --rocmpath,  -R    : print ROCM_PATH (use env var if set, else HIP_PATH)\n"
          "  --cpp_config, -C   : print C++ compiler options\n"
          "  --compiler, -c     : print compiler (clang)\n"
          "  --platform, -P     : print platform (amd)\n"
          "  --runtime, -r      : print runtime (hipkfd)\n"
          "  --hipclangpath, -l : print HIP_CLANG_PATH\n"
          "  --full, -f         : print full config\n"
          "  --version, -v      : print hip version (HIP API level, then hipkfd's release)\n"
          "  --check            : check configuration\n"
          "  --newline, -n      : print newline\n"
          "  --offload-arch     : print the GPU targets hipcc compiles for by default (hipkfd)\n"
          "  --help, -h         : print help message\n");
}

static void cpp_config(const struct tool_paths *p)
{
  printf(" -D__HIP_PLATFORM_HCC__= -D__HIP_PLATFORM_AMD__= -I%s", p->include_dir);
}

/* Runs `clang++ --version` for the report; a missing compiler is reported, not fatal. */
static void print_clang_version(const struct tool_paths *p)
{
  char cmd[PATH_MAX + 32];
  snprintf(cmd, sizeof(cmd), "'%s' --version 2>&1", p->clang);
  fflush(stdout);
  if (system(cmd) != 0)
    printf("(cannot run %s)\n", p->clang);
}

static void print_env(void)
{
  static const char *const prefixes[] = {"HIP", "HSA", "ROCM", "ROCR", "CUDA", "KFDSIM", "GPU_TARGETS",
                                         "HCC_AMDGPU_TARGET", "DEVICE_LIB_PATH", "LD_LIBRARY_PATH"};
  for (char **e = environ; *e; e++)
    for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
      if (!strncmp(*e, prefixes[i], strlen(prefixes[i]))) {
        printf("%s\n", *e);
        break;
      }
}

static void full(const struct tool_paths *p)
{
  char targets[1024];
  const char *source;
  tool_default_targets(targets, sizeof(targets), &source);
  printf("HIP version: %s\n", p->hip_version);
  printf("\n==hipconfig\n");
  printf("HIP_PATH           :%s\n", p->hip_path);
  printf("ROCM_PATH          :%s\n", p->rocm_path);
  printf("HIP_COMPILER       :clang\n");
  printf("HIP_PLATFORM       :amd\n");
  printf("HIP_RUNTIME        :hipkfd\n");
  printf("CPP_CONFIG         :");
  cpp_config(p);
  printf("\n\n==hipkfd\n");
  printf("HIPKFD_VERSION     :%s\n", p->hipkfd_version);
  printf("HIP_LIB_PATH       :%s\n", p->lib_dir);
  printf("DEVICE_LIB_PATH    :%s\n", p->device_lib_dir);
  printf("OFFLOAD_ARCH       :%s (%s)\n", targets, source);
  printf("\n==hip-clang\n");
  printf("HIP_CLANG_PATH     :%s\n", p->clang_dir);
  print_clang_version(p);
  printf("\n== Environment Variables\n");
  print_env();
  struct utsname u;
  if (uname(&u) == 0)
    printf("\n== Linux Kernel\n%s %s %s %s %s\n", u.sysname, u.nodename, u.release, u.version,
           u.machine);
  printf("\n");
}

static bool check_item(const char *what, const char *path, bool ok)
{
  printf("check %s (%s)... %s\n", what, path, ok ? "good" : "FAIL");
  return ok;
}

/* The pieces hipcc needs, each reported; false if one is missing. */
static bool check(const struct tool_paths *p)
{
  char path[PATH_MAX + 64];
  bool ok = true;
  full(p);
  printf("Check system installation:\n");
  ok &= check_item("the version file", p->hip_path, p->version_file_found);
  snprintf(path, sizeof(path), "%s/hip/hip_runtime.h", p->include_dir);
  ok &= check_item("headers", path, tool_is_file(path));
  snprintf(path, sizeof(path), "%s/libamdhip64.so", p->lib_dir);
  ok &= check_item("runtime", path, tool_is_file(path));
  snprintf(path, sizeof(path), "%s/ockl.bc", p->device_lib_dir);
  ok &= check_item("device libraries", path, tool_is_file(path));
  snprintf(path, sizeof(path), "%s/oclc_isa_version_942.bc", p->device_lib_dir);
  ok &= check_item("gfx942 device library", path, tool_is_file(path));
  ok &= check_item("clang++", p->clang, tool_is_file(p->clang));
  return ok;
}

int main(int argc, char **argv)
{
  struct tool_paths p;
  if (tool_paths_init(&p, NULL, NULL) != 0)
    return 1;
  if (argc == 1) {
    full(&p);
    return 0;
  }
  int status = 0;
  for (int i = 1; i < argc; i++) {
    char targets[1024];
    const char *source;
    switch (lookup(argv[i])) {
    case CMD_PATH: printf("%s", p.hip_path); break;
    case CMD_ROCMPATH: printf("%s", p.rocm_path); break;
    case CMD_CPP_CONFIG: cpp_config(&p); break;
    case CMD_COMPILER: printf("clang"); break;
    case CMD_PLATFORM: printf("amd"); break;
    case CMD_RUNTIME: printf("hipkfd"); break;
    case CMD_HIPCLANGPATH: printf("%s", p.clang_dir); break;
    case CMD_FULL: full(&p); break;
    case CMD_VERSION: printf("%s", p.hip_version); break;
    case CMD_CHECK: status |= !check(&p); break;
    case CMD_NEWLINE: printf("\n"); break;
    case CMD_HELP: usage(stdout); break;
    case CMD_OFFLOAD_ARCH:
      tool_default_targets(targets, sizeof(targets), &source);
      printf("%s", targets);
      break;
    case CMD_UNKNOWN:
      fprintf(stderr, "hipconfig: unknown option '%s'\n", argv[i]);
      usage(stderr);
      return 1;
    }
  }
  return status;
}
