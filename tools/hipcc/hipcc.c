/* hipcc: the HIP compiler driver of hipkfd. Runs clang++ (LLVM 19) with hipkfd's headers, device
 * libraries and runtime, as AMD's hipcc runs ROCm's clang (amd/hipcc/src/hipBin_amd.h in ROCm's
 * llvm-project is the reference for options and environment variables):
 *
 *   - .hip, .cu, .cuh and (unless HIP_COMPILE_CXX_AS_HIP=0) .cpp/.cxx/.cc/.C inputs are HIP,
 *     .c inputs C; an explicit -x decides for the inputs after it;
 *   - offload targets: every --offload-arch= (or deprecated --amdgpu-target=), else
 *     HIP_OFFLOAD_ARCH, GPU_TARGETS, HCC_AMDGPU_TARGET, else the GPUs of the KFD topology,
 *     else gfx90a,gfx942 (hipkfd_tool.h);
 *   - -O3 unless an -O option is given; -mcode-object-version=5 unless one is given (clang-19
 *     otherwise links the v4 ABI device library, ARCHITECTURE.md "Toolchains");
 *   - a link adds libamdhip64 with an rpath to its directory, so the program starts without
 *     LD_LIBRARY_PATH; --genco builds device code only (--cuda-device-only);
 *   - HIPCC_COMPILE_FLAGS_APPEND / HIPCC_LINK_FLAGS_APPEND are appended to compile / link
 *     commands; HIPCC_VERBOSE bits: 1 the clang command, 2 the paths, 4 hipcc's arguments; -v
 *     also prints the clang command (and clang, which receives -v, its own sub-commands).
 * Everything else goes to clang unchanged. The command runs with execv (no shell). */
#include "hipkfd_tool.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct argvec {
  char **v;
  size_t n, cap;
};

static void push(struct argvec *a, const char *s)
{
  if (a->n + 2 > a->cap) {
    size_t cap = a->cap ? a->cap * 2 : 64;
    char **v = realloc(a->v, cap * sizeof(*v));
    if (!v) {
      fprintf(stderr, "hipcc: out of memory\n");
      exit(1);
    }
    a->v = v;
    a->cap = cap;
  }
  a->v[a->n] = strdup(s);
  if (!a->v[a->n]) {
    fprintf(stderr, "hipcc: out of memory\n");
    exit(1);
  }
  a->v[++a->n] = NULL;
}

static void pushf(struct argvec *a, const char *fmt, const char *s)
{
  char buf[PATH_MAX + 64];
  snprintf(buf, sizeof(buf), fmt, s);
  push(a, buf);
}

/* Splits a flags variable into words: blanks separate, single and double quotes group. */
static void push_words(struct argvec *a, const char *s)
{
  char word[4096];
  size_t n = 0;
  char quote = 0;
  bool in_word = false;
  for (;; s++) {
    char c = *s;
    if (c == '\0' || (!quote && (c == ' ' || c == '\t' || c == '\n'))) {
      if (in_word) {
        word[n] = '\0';
        push(a, word);
      }
      n = 0;
      in_word = false;
      if (c == '\0')
        return;
      continue;
    }
    in_word = true;
    if (quote ? c == quote : (c == '\'' || c == '"')) {
      quote = quote ? 0 : c;
      continue;
    }
    if (n + 1 < sizeof(word))
      word[n++] = c;
  }
}

/* What the command line asks for. */
struct request {
  struct argvec tool;          /* arguments for clang, in order, before hipcc's own */
  char targets[1024];          /* from --offload-arch= */
  const char *hip_path_opt, *rocm_path_opt;
  const char *lang;            /* the last -x language, NULL for "by extension" */
  bool typed;                  /* hipcc put a -x before the last input */
  bool has_hip, has_source, compile_only, rdc, has_opt, has_cov, host_only;
  bool print_version, short_version, print_cxxflags, print_ldflags;
  int verbose;
};

static bool has_suffix(const char *s, const char *suffix)
{
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && !strcmp(s + n - m, suffix);
}

static bool starts(const char *s, const char *prefix)
{
  return !strncmp(s, prefix, strlen(prefix));
}

/* The language an input is compiled as when no -x is in force; NULL for non-sources. */
static const char *input_language(const char *file)
{
  static const char *const cxx[] = {".cpp", ".cxx", ".cc", ".C", ".c++"};
  const char *as_hip = getenv("HIP_COMPILE_CXX_AS_HIP");
  bool cxx_as_hip = !as_hip || strcmp(as_hip, "0") != 0;
  if (has_suffix(file, ".hip"))
    return "hip";
  if (has_suffix(file, ".cu") || has_suffix(file, ".cuh"))
    return cxx_as_hip ? "hip" : "c++";
  for (size_t i = 0; i < sizeof(cxx) / sizeof(cxx[0]); i++)
    if (has_suffix(file, cxx[i]))
      return cxx_as_hip ? "hip" : "c++";
  if (has_suffix(file, ".c"))
    return "c";
  return NULL;
}

static void set_lang(struct request *r, const char *lang)
{
  r->lang = strcmp(lang, "none") ? lang : NULL;
  r->typed = false;
}

static void add_input(struct request *r, const char *file)
{
  const char *lang = r->lang;
  if (!lang) {
    lang = input_language(file);
    if (lang) {
      push(&r->tool, "-x");
      push(&r->tool, lang);
      r->typed = true;
    } else if (r->typed) {
      /* An object after a typed source: back to typing by extension. */
      push(&r->tool, "-x");
      push(&r->tool, "none");
      r->typed = false;
    }
  }
  push(&r->tool, file);
  if (lang && (!strcmp(lang, "hip") || !strcmp(lang, "c") || !strcmp(lang, "c++")))
    r->has_source = true;
  if (lang && !strcmp(lang, "hip"))
    r->has_hip = true;
}

static void add_targets(struct request *r, const char *list)
{
  char buf[1024];
  snprintf(buf, sizeof(buf), "%s", list);
  for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save))
    tool_list_add(r->targets, sizeof(r->targets), t);
}

/* hipcc's own options; false when `arg` is not one of them. */
static bool hipcc_option(struct request *r, const char *arg)
{
  if (starts(arg, "--offload-arch=")) {
    add_targets(r, arg + strlen("--offload-arch="));
  } else if (starts(arg, "--amdgpu-target=")) {
    fprintf(stderr, "hipcc: warning: --amdgpu-target is deprecated: use --offload-arch\n");
    add_targets(r, arg + strlen("--amdgpu-target="));
  } else if (starts(arg, "--hip-path=")) {
    r->hip_path_opt = arg + strlen("--hip-path=");
  } else if (starts(arg, "--rocm-path=")) {
    r->rocm_path_opt = arg + strlen("--rocm-path=");
  } else if (!strcmp(arg, "--short-version")) {
    r->short_version = true;
  } else if (!strcmp(arg, "--cxxflags")) {
    r->print_cxxflags = true;
  } else if (!strcmp(arg, "--ldflags")) {
    r->print_ldflags = true;
  } else if (!strcmp(arg, "-use-staticlib") || !strcmp(arg, "-use-sharedlib")) {
    fprintf(stderr, "hipcc: warning: %s is deprecated and no longer needed\n", arg);
  } else if (starts(arg, "--hipcc-verbose=")) {
    r->verbose |= atoi(arg + strlen("--hipcc-verbose="));
  } else {
    return false;
  }
  return true;
}

/* Options hipcc notes and still passes to clang. */
static void note_option(struct request *r, const char *arg)
{
  if (!strcmp(arg, "-c") || !strcmp(arg, "-E") || !strcmp(arg, "-S") ||
      !strcmp(arg, "-fsyntax-only") || !strcmp(arg, "-M") || !strcmp(arg, "-MM"))
    r->compile_only = true;
  if (!strcmp(arg, "-M") || !strcmp(arg, "-MM"))
    r->host_only = true;
  else if (!strcmp(arg, "-fgpu-rdc"))
    r->rdc = true;
  else if (!strcmp(arg, "-fno-gpu-rdc"))
    r->rdc = false;
  else if (starts(arg, "-O"))
    r->has_opt = true;
  else if (starts(arg, "-mcode-object-version="))
    r->has_cov = true;
  else if (!strcmp(arg, "-v"))
    r->verbose |= 1;
  else if (!strcmp(arg, "--version"))
    r->print_version = true;
  else if (starts(arg, "-x") && arg[2])
    set_lang(r, arg + 2);
}

static void parse(struct request *r, int argc, char **argv)
{
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    if (!strcmp(arg, "-o") || !strcmp(arg, "-x") || !strcmp(arg, "-MF") || !strcmp(arg, "-MT") ||
        !strcmp(arg, "-MQ") || !strcmp(arg, "-include") || !strcmp(arg, "-I") ||
        !strcmp(arg, "-L") || !strcmp(arg, "-Xlinker") || !strcmp(arg, "-Xclang") ||
        !strcmp(arg, "-isystem") || !strcmp(arg, "-D") || !strcmp(arg, "-U") ||
        !strcmp(arg, "-mllvm") || !strcmp(arg, "-Xoffload-linker")) {
      /* An option whose value is the next argument: never an input. */
      push(&r->tool, arg);
      if (i + 1 < argc) {
        if (!strcmp(arg, "-x"))
          set_lang(r, argv[i + 1]);
        push(&r->tool, argv[++i]);
      }
      continue;
    }
    if (hipcc_option(r, arg))
      continue;
    if (!strcmp(arg, "--genco")) {
      r->compile_only = true;
      push(&r->tool, "--cuda-device-only");
      continue;
    }
    if (arg[0] == '-' && arg[1]) {
      note_option(r, arg);
      push(&r->tool, arg);
      continue;
    }
    add_input(r, arg);
  }
}

static const char *verbose_env(void)
{
  const char *v = getenv("HIPCC_VERBOSE");
  return v && *v ? v : "0";
}

/* Flags for compiling HIP sources. */
static void hip_compile_flags(struct argvec *a, const struct request *r,
                              const struct tool_paths *p, const char *targets)
{
  pushf(a, "--hip-path=%s", p->hip_path);
  pushf(a, "--rocm-path=%s", p->rocm_path);
  pushf(a, "--rocm-device-lib-path=%s", p->device_lib_dir);
  char buf[1024];
  snprintf(buf, sizeof(buf), "%s", targets);
  for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save))
    pushf(a, "--offload-arch=%s", t);
  if (!r->has_cov)
    push(a, "-mcode-object-version=5");
  if (r->host_only)
    push(a, "--cuda-host-only");
}

/* Flags for linking: the runtime by path and rpath (clang's own HIP runtime linking is turned off
 * so that Debian's libamdhip64 under /usr can never be picked instead). */
static void link_flags(struct argvec *a, const struct request *r, const struct tool_paths *p,
                       const char *targets)
{
  push(a, "--hip-link");
  push(a, "-no-hip-rt");
  if (r->rdc && !r->has_hip)
    hip_compile_flags(a, r, p, targets); /* the device link needs targets and bitcode */
  pushf(a, "-L%s", p->lib_dir);
  pushf(a, "-Wl,-rpath,%s", p->lib_dir);
  push(a, "-lamdhip64");
  push(a, "--rtlib=compiler-rt");
  push(a, "-unwindlib=libgcc");
}

static void print_command(const char *label, char *const *v)
{
  printf("%s", label);
  for (size_t i = 0; v[i]; i++) {
    bool plain = strspn(v[i], "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                              "-_=+,./:@%") == strlen(v[i]) && v[i][0];
    printf(plain ? " %s" : " '%s'", v[i]);
  }
  printf("\n");
  fflush(stdout);
}

static void print_paths(const struct tool_paths *p, const char *targets, const char *source)
{
  printf("HIP_PATH=%s\nHIP_PLATFORM=amd\nHIP_COMPILER=clang\nHIP_RUNTIME=hipkfd\n", p->hip_path);
  printf("ROCM_PATH=%s\nHIP_CLANG_PATH=%s\nHIP_INCLUDE_PATH=%s\nHIP_LIB_PATH=%s\n", p->rocm_path,
         p->clang_dir, p->include_dir, p->lib_dir);
  printf("DEVICE_LIB_PATH=%s\nHIP_OFFLOAD_ARCH=%s (%s)\n", p->device_lib_dir, targets, source);
}

static void print_flag_list(const struct argvec *a)
{
  for (size_t i = 0; i < a->n; i++)
    printf("%s%s", i ? " " : "", a->v[i]);
  printf("\n");
}

int main(int argc, char **argv)
{
  struct request r = {0};
  r.verbose = atoi(verbose_env());
  parse(&r, argc, argv);
  if (argc < 2) {
    fprintf(stderr, "hipcc: no input files (usage: hipcc [clang options] file.hip... -o app)\n");
    return 1;
  }
  const char *platform = getenv("HIP_PLATFORM");
  if (platform && *platform && strcmp(platform, "amd") && strcmp(platform, "hcc")) {
    fprintf(stderr, "hipcc: HIP_PLATFORM=%s: hipkfd supports only the amd platform\n", platform);
    return 1;
  }
  struct tool_paths p;
  if (tool_paths_init(&p, r.hip_path_opt, r.rocm_path_opt) != 0)
    return 1;

  char targets[1024];
  const char *source = "--offload-arch";
  if (r.targets[0])
    snprintf(targets, sizeof(targets), "%s", r.targets);
  else
    tool_default_targets(targets, sizeof(targets), &source);

  struct argvec cmd = {0}, cxxflags = {0}, ldflags = {0};
  hip_compile_flags(&cxxflags, &r, &p, targets);
  pushf(&cxxflags, "-isystem%s", p.include_dir);
  link_flags(&ldflags, &r, &p, targets);

  if (r.short_version || r.print_cxxflags || r.print_ldflags) {
    if (r.short_version)
      printf("%s\n", p.hip_version);
    if (r.print_cxxflags)
      print_flag_list(&cxxflags);
    if (r.print_ldflags)
      print_flag_list(&ldflags);
    return 0;
  }

  push(&cmd, p.clang);
  if (r.has_source) {
    /* Plain C and C++ sources see hipkfd's headers too (the host API is C). */
    pushf(&cmd, "-isystem%s", p.include_dir);
    if (!r.has_opt)
      push(&cmd, "-O3");
  }
  if (r.has_hip)
    hip_compile_flags(&cmd, &r, &p, targets);
  for (size_t i = 0; i < r.tool.n; i++)
    push(&cmd, r.tool.v[i]);
  if (r.has_source && getenv("HIPCC_COMPILE_FLAGS_APPEND"))
    push_words(&cmd, getenv("HIPCC_COMPILE_FLAGS_APPEND"));
  if (!r.compile_only && !r.print_version) {
    if (!r.has_source && !r.has_opt)
      push(&cmd, "-O3");
    link_flags(&cmd, &r, &p, targets);
    if (getenv("HIPCC_LINK_FLAGS_APPEND"))
      push_words(&cmd, getenv("HIPCC_LINK_FLAGS_APPEND"));
  }

  if (r.verbose & 0x2)
    print_paths(&p, targets, source);
  if (r.verbose & 0x4) {
    printf("hipcc-args:");
    for (int i = 1; i < argc; i++)
      printf(" %s", argv[i]);
    printf("\n");
  }
  if (r.verbose & 0x1)
    print_command("hipcc-cmd:", cmd.v);
  if (r.print_version) {
    printf("HIP version: %s\n", p.hip_version);
    fflush(stdout);
  }
  execv(p.clang, cmd.v);
  fprintf(stderr, "hipcc: cannot run %s: %s (install clang-19, or set HIP_CLANG_PATH to the "
                  "directory holding clang++)\n", p.clang, strerror(errno));
  return 127;
}
