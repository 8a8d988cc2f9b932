/* hiprtc: runtime compilation of HIP source into a code object, by running clang 19.
 *
 * hiprtcCompileProgram writes the program and its named headers into a fresh directory under
 * $TMPDIR, runs `clang++ -x hip --cuda-device-only` there with hipkfd's headers and device
 * libraries for one architecture, and keeps the compiler's messages (the program log) and the
 * linked code object, which hipModuleLoadData loads as it is (with -fgpu-rdc: LLVM bitcode, for
 * hiprtcLink* in rtc_link.c). The source is compiled the way
 * ROCm's hiprtc compiles it: the HIP runtime header is included implicitly, and without -O the
 * optimisation level is -O3.
 *
 * Name expressions ("&kernel<float>") become device globals initialised with that address:
 * `__device__ auto* __hipkfd_rtc_name_<i> = &kernel<float>;`. The compiler then instantiates
 * what the expression names, and the linked code object relocates each global to the symbol
 * it points at, whose name is the lowered (mangled) name.
 *
 * Where things are found, first match wins (environment variables are read per compilation):
 *   compiler   HIPKFD_RTC_COMPILER, clang++-19 on PATH, /usr/lib/llvm-19/bin/clang++
 *   headers    HIPKFD_RTC_INCLUDE_PATH, the source tree's include/, the installed include dir
 *   bitcode    HIPKFD_RTC_DEVICE_LIB_PATH, the build tree's device-libs/, the installed copy,
 *              Debian's rocm-device-libs directory
 */
#define _GNU_SOURCE
#include <hip/hip_runtime_api.h>
#include <hip/hiprtc.h>

#include "rtc_tools.h"

#include <elf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define HIPKFD_EXPORT __attribute__((visibility("default")))

#ifndef HIPKFD_RTC_BUILD_INCLUDE
#define HIPKFD_RTC_BUILD_INCLUDE ""
#endif
#ifndef HIPKFD_RTC_INSTALL_INCLUDE
#define HIPKFD_RTC_INSTALL_INCLUDE "/usr/local/include"
#endif
#ifndef HIPKFD_RTC_BUILD_DEVICE_LIBS
#define HIPKFD_RTC_BUILD_DEVICE_LIBS ""
#endif
#ifndef HIPKFD_RTC_INSTALL_DEVICE_LIBS
#define HIPKFD_RTC_INSTALL_DEVICE_LIBS "/usr/local/share/hipkfd/device-libs"
#endif
#define RTC_DEBIAN_DEVICE_LIBS "/usr/lib/x86_64-linux-gnu/amdgcn/bitcode"
#define RTC_NAME_PREFIX "__hipkfd_rtc_name_"

struct rtc_name {
  char *expression;
  char *lowered; /* after compilation */
};

struct _hiprtcProgram {
  char *source, *name;
  int nheaders;
  char **headers, **include_names;
  struct rtc_name *names;
  int nnames;
  bool compiled;
  char *log;
  size_t log_size; /* with the NUL */
  char *code;
  size_t code_size;
  char *bitcode;   /* -fgpu-rdc: LLVM bitcode instead of a code object */
  size_t bitcode_size;
};

/* ---- small helpers ---- */

/* mkdir -p for the directories of `path` below `root` (an include name may be "a/b.h"). */
static bool make_parents(const char *path)
{
  char tmp[4096];
  if (snprintf(tmp, sizeof(tmp), "%s", path) >= (int)sizeof(tmp))
    return false;
  for (char *p = strchr(tmp + 1, '/'); p; p = strchr(p + 1, '/')) {
    *p = 0;
    if (mkdir(tmp, 0700) != 0 && errno != EEXIST)
      return false;
    *p = '/';
  }
  return true;
}

static bool is_dir(const char *p)
{
  struct stat st;
  return p && *p && stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static const char *first_dir(const char *env, const char *a, const char *b, const char *c)
{
  const char *e = getenv(env);
  if (e && *e)
    return e;
  if (is_dir(a))
    return a;
  if (is_dir(b))
    return b;
  return c;
}

/* ---- program objects ---- */

static void free_program(hiprtcProgram p)
{
  free(p->source);
  free(p->name);
  for (int i = 0; i < p->nheaders; i++) {
    free(p->headers[i]);
    free(p->include_names[i]);
  }
  free(p->headers);
  free(p->include_names);
  for (int i = 0; i < p->nnames; i++) {
    free(p->names[i].expression);
    free(p->names[i].lowered);
  }
  free(p->names);
  free(p->log);
  free(p->code);
  free(p->bitcode);
  free(p);
}

HIPKFD_EXPORT hiprtcResult hiprtcCreateProgram(hiprtcProgram *prog, const char *src,
                                               const char *name, int numHeaders,
                                               const char **headers, const char **includeNames)
{
  if (!prog || !src || numHeaders < 0 || (numHeaders > 0 && (!headers || !includeNames)))
    return HIPRTC_ERROR_INVALID_INPUT;
  for (int i = 0; i < numHeaders; i++)
    if (!headers[i] || !includeNames[i] || !includeNames[i][0] || includeNames[i][0] == '/' ||
        strstr(includeNames[i], ".."))
      return HIPRTC_ERROR_INVALID_INPUT;
  hiprtcProgram p = calloc(1, sizeof(*p));
  if (!p)
    return HIPRTC_ERROR_OUT_OF_MEMORY;
  p->source = strdup(src);
  p->name = strdup(name && *name ? name : "default_program");
  p->headers = calloc((size_t)numHeaders + 1, sizeof(char *));
  p->include_names = calloc((size_t)numHeaders + 1, sizeof(char *));
  bool ok = p->source && p->name && p->headers && p->include_names;
  for (int i = 0; ok && i < numHeaders; i++) {
    p->headers[i] = strdup(headers[i]);
    p->include_names[i] = strdup(includeNames[i]);
    p->nheaders = i + 1;
    ok = p->headers[i] && p->include_names[i];
  }
  if (!ok) {
    free_program(p);
    return HIPRTC_ERROR_OUT_OF_MEMORY;
  }
  *prog = p;
  return HIPRTC_SUCCESS;
}

HIPKFD_EXPORT hiprtcResult hiprtcDestroyProgram(hiprtcProgram *prog)
{
  if (!prog || !*prog)
    return HIPRTC_ERROR_INVALID_INPUT;
  free_program(*prog);
  *prog = NULL;
  return HIPRTC_SUCCESS;
}

HIPKFD_EXPORT hiprtcResult hiprtcAddNameExpression(hiprtcProgram prog, const char *name_expression)
{
  if (!prog)
    return HIPRTC_ERROR_INVALID_PROGRAM;
  if (!name_expression || !*name_expression)
    return HIPRTC_ERROR_INVALID_INPUT;
  if (prog->compiled)
    return HIPRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION;
  struct rtc_name *n = realloc(prog->names, sizeof(*n) * ((size_t)prog->nnames + 1));
  if (!n)
    return HIPRTC_ERROR_OUT_OF_MEMORY;
  prog->names = n;
  n[prog->nnames] = (struct rtc_name){.expression = strdup(name_expression)};
  if (!n[prog->nnames].expression)
    return HIPRTC_ERROR_OUT_OF_MEMORY;
  prog->nnames++;
  return HIPRTC_SUCCESS;
}

HIPKFD_EXPORT hiprtcResult hiprtcGetLoweredName(hiprtcProgram prog, const char *name_expression,
                                                const char **lowered_name)
{
  if (!prog)
    return HIPRTC_ERROR_INVALID_PROGRAM;
  if (!name_expression || !lowered_name)
    return HIPRTC_ERROR_INVALID_INPUT;
  if (!prog->compiled)
    return HIPRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION;
  for (int i = 0; i < prog->nnames; i++)
    if (strcmp(prog->names[i].expression, name_expression) == 0 && prog->names[i].lowered) {
      *lowered_name = prog->names[i].lowered;
      return HIPRTC_SUCCESS;
    }
  return HIPRTC_ERROR_NAME_EXPRESSION_NOT_VALID;
}

/* The checks every query of a program's results starts with: the program first, then the
 * caller's [in] out pointer. */
static hiprtcResult query_check(hiprtcProgram prog, const void *out)
{
  if (!prog)
    return HIPRTC_ERROR_INVALID_PROGRAM;
  return out ? HIPRTC_SUCCESS : HIPRTC_ERROR_INVALID_INPUT;
}

HIPKFD_EXPORT hiprtcResult hiprtcGetProgramLogSize(hiprtcProgram prog, size_t *logSizeRet)
{
  hiprtcResult r = query_check(prog, logSizeRet);
  if (r == HIPRTC_SUCCESS)
    *logSizeRet = prog->log ? prog->log_size : 1;
  return r;
}

HIPKFD_EXPORT hiprtcResult hiprtcGetProgramLog(hiprtcProgram prog, char *log)
{
  hiprtcResult r = query_check(prog, log);
  if (r != HIPRTC_SUCCESS)
    return r;
  if (prog->log)
    memcpy(log, prog->log, prog->log_size);
  else
    log[0] = 0;
  return HIPRTC_SUCCESS;
}

HIPKFD_EXPORT hiprtcResult hiprtcGetCodeSize(hiprtcProgram prog, size_t *codeSizeRet)
{
  hiprtcResult r = query_check(prog, codeSizeRet);
  if (r == HIPRTC_SUCCESS)
    *codeSizeRet = prog->code_size;
  return r;
}

HIPKFD_EXPORT hiprtcResult hiprtcGetCode(hiprtcProgram prog, char *code)
{
  hiprtcResult r = query_check(prog, code);
  if (r == HIPRTC_SUCCESS && prog->code_size)
    memcpy(code, prog->code, prog->code_size);
  return r;
}

HIPKFD_EXPORT hiprtcResult hiprtcVersion(int *major, int *minor)
{
  if (!major || !minor)
    return HIPRTC_ERROR_INVALID_INPUT;
  *major = HIP_VERSION_MAJOR;
  *minor = HIP_VERSION_MINOR;
  return HIPRTC_SUCCESS;
}

/* ---- lowered names: read back from the linked code object ---- */

struct elf_view {
  const uint8_t *base;
  size_t size;
  const Elf64_Sym *syms;
  size_t nsyms;
  const char *strtab;
  size_t strsize;
};

static const Elf64_Shdr *elf_section(const struct elf_view *e, unsigned i)
{
  const Elf64_Ehdr *eh = (const Elf64_Ehdr *)e->base;
  uint64_t off = eh->e_shoff + (uint64_t)i * eh->e_shentsize;
  if (i >= eh->e_shnum || off + sizeof(Elf64_Shdr) > e->size)
    return NULL;
  return (const Elf64_Shdr *)(e->base + off);
}

static bool elf_open(struct elf_view *e, const void *data, size_t size)
{
  const Elf64_Ehdr *eh = data;
  *e = (struct elf_view){.base = data, .size = size};
  if (size < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
      eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_shentsize != sizeof(Elf64_Shdr))
    return false;
  for (unsigned i = 0; i < eh->e_shnum; i++) {
    const Elf64_Shdr *s = elf_section(e, i), *str;
    if (!s || s->sh_type != SHT_SYMTAB || !(str = elf_section(e, s->sh_link)) ||
        s->sh_offset + s->sh_size > size || str->sh_offset + str->sh_size > size)
      continue;
    e->syms = (const Elf64_Sym *)(e->base + s->sh_offset);
    e->nsyms = s->sh_size / sizeof(Elf64_Sym);
    e->strtab = (const char *)e->base + str->sh_offset;
    e->strsize = str->sh_size;
    return true;
  }
  return false;
}

static const char *sym_name(const struct elf_view *e, const Elf64_Sym *s)
{
  return s->st_name < e->strsize ? e->strtab + s->st_name : "";
}

static const Elf64_Sym *sym_by_name(const struct elf_view *e, const char *name)
{
  for (size_t i = 0; i < e->nsyms; i++)
    if (strcmp(sym_name(e, &e->syms[i]), name) == 0)
      return &e->syms[i];
  return NULL;
}

/* The function or object at `addr` that is not one of our helper globals. */
static const char *sym_at(const struct elf_view *e, uint64_t addr)
{
  for (size_t i = 0; i < e->nsyms; i++) {
    const Elf64_Sym *s = &e->syms[i];
    unsigned type = ELF64_ST_TYPE(s->st_info);
    const char *n = sym_name(e, s);
    if (s->st_value == addr && *n && (type == STT_FUNC || type == STT_OBJECT) &&
        strncmp(n, RTC_NAME_PREFIX, strlen(RTC_NAME_PREFIX)) != 0)
      return n;
  }
  return NULL;
}

/* What the dynamic relocation at `where` points at (R_AMDGPU_ABS64 names the symbol,
 * R_AMDGPU_RELATIVE64 gives its address as the addend). */
static const char *reloc_target(const struct elf_view *e, uint64_t where)
{
  const Elf64_Ehdr *eh = (const Elf64_Ehdr *)e->base;
  for (unsigned i = 0; i < eh->e_shnum; i++) {
    const Elf64_Shdr *s = elf_section(e, i);
    if (!s || s->sh_type != SHT_RELA || s->sh_offset + s->sh_size > e->size)
      continue;
    const Elf64_Shdr *dsym = elf_section(e, s->sh_link), *dstr;
    const Elf64_Rela *r = (const Elf64_Rela *)(e->base + s->sh_offset);
    for (size_t k = 0; k < s->sh_size / sizeof(*r); k++) {
      if (r[k].r_offset != where)
        continue;
      unsigned type = (unsigned)ELF64_R_TYPE(r[k].r_info);
      if (type == 13 /* R_AMDGPU_RELATIVE64 */)
        return sym_at(e, (uint64_t)r[k].r_addend);
      if (type == 3 /* R_AMDGPU_ABS64 */ && dsym && (dstr = elf_section(e, dsym->sh_link))) {
        size_t idx = ELF64_R_SYM(r[k].r_info);
        const Elf64_Sym *ds = (const Elf64_Sym *)(e->base + dsym->sh_offset) + idx;
        if (dsym->sh_offset + (idx + 1) * sizeof(*ds) <= e->size &&
            ds->st_name < dstr->sh_size)
          return (const char *)e->base + dstr->sh_offset + ds->st_name;
      }
    }
  }
  return NULL;
}

static bool lower_names(hiprtcProgram p)
{
  struct elf_view e;
  if (p->nnames == 0)
    return true;
  if (!elf_open(&e, p->code, p->code_size))
    return false;
  for (int i = 0; i < p->nnames; i++) {
    char helper[64];
    snprintf(helper, sizeof(helper), RTC_NAME_PREFIX "%d", i);
    const Elf64_Sym *s = sym_by_name(&e, helper);
    const char *target = s ? reloc_target(&e, s->st_value) : NULL;
    if (target && !(p->names[i].lowered = strdup(target)))
      return false;
  }
  return true;
}

/* The same for bitcode (-fgpu-rdc: nothing is linked yet): llvm-dis prints each helper global
 * as `@__hipkfd_rtc_name_<i> = ... global ptr @<target>, ...` (the target's name may be quoted). */
static const char *ir_target(const char *ir, int i, size_t *len)
{
  char key[64];
  snprintf(key, sizeof(key), "\n@" RTC_NAME_PREFIX "%d = ", i);
  const char *line = strstr(ir, key);
  if (!line)
    return NULL;
  const char *end = strchr(line + 1, '\n');
  const char *at = strchr(line + strlen(key), '@');
  if (!at || (end && at > end))
    return NULL;
  at++;
  if (*at == '"') {
    const char *q = strchr(at + 1, '"');
    *len = q ? (size_t)(q - at - 1) : 0;
    return q ? at + 1 : NULL;
  }
  *len = strspn(at, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.$");
  return *len ? at : NULL;
}

static bool lower_names_ir(hiprtcProgram p, const char *bitcode_path, const char *dir)
{
  char ll[4096], log[4096];
  struct rtc_args a = {0};
  size_t size;
  if (p->nnames == 0)
    return true;
  snprintf(ll, sizeof(ll), "%s/code.ll", dir);
  snprintf(log, sizeof(log), "%s/dis.txt", dir);
  if (!rtc_arg(&a, "llvm-dis-19") || !rtc_arg(&a, bitcode_path) || !rtc_arg(&a, "-o") ||
      !rtc_arg(&a, ll) || !rtc_run(&a, log))
    return false;
  char *ir = rtc_read_file(ll, &size);
  if (!ir)
    return false;
  bool ok = true;
  for (int i = 0; ok && i < p->nnames; i++) {
    size_t n = 0;
    const char *t = ir_target(ir, i, &n);
    if (t && !(p->names[i].lowered = strndup(t, n)))
      ok = false;
  }
  free(ir);
  return ok;
}

/* ---- compilation ---- */

/* The architecture an option names, or NULL. */
static const char *option_arch(const char *o)
{
  static const char *const prefixes[] = {"--gpu-architecture=", "--offload-arch=", "-arch=", NULL};
  for (int i = 0; prefixes[i]; i++) {
    size_t n = strlen(prefixes[i]);
    if (strncmp(o, prefixes[i], n) == 0 && o[n])
      return o + n;
  }
  return NULL;
}

/* The source as compiled: the user's text plus one helper global per name expression. */
static char *source_with_names(hiprtcProgram p, size_t *len)
{
  size_t cap = strlen(p->source) + 64;
  for (int i = 0; i < p->nnames; i++)
    cap += strlen(p->names[i].expression) + 96;
  char *s = malloc(cap);
  if (!s)
    return NULL;
  size_t n = (size_t)snprintf(s, cap, "%s\n", p->source);
  for (int i = 0; i < p->nnames; i++) {
    const char *x = p->names[i].expression;
    n += (size_t)snprintf(s + n, cap - n, "__device__ auto *" RTC_NAME_PREFIX "%d = %s%s;\n", i,
                          x[0] == '&' ? "" : "&", x);
  }
  *len = n;
  return s;
}

static bool write_inputs(hiprtcProgram p, const char *dir, char *src_path, size_t src_size)
{
  char path[4096];
  for (int i = 0; i < p->nheaders; i++) {
    if (snprintf(path, sizeof(path), "%s/%s", dir, p->include_names[i]) >= (int)sizeof(path) ||
        !make_parents(path) || !rtc_write_file(path, p->headers[i], strlen(p->headers[i])))
      return false;
  }
  const char *base = strrchr(p->name, '/');
  base = base ? base + 1 : p->name;
  if (snprintf(src_path, src_size, "%s/%s", dir, *base ? base : "default_program") >= (int)src_size)
    return false;
  size_t len;
  char *text = source_with_names(p, &len);
  bool ok = text && rtc_write_file(src_path, text, len);
  free(text);
  return ok;
}

static bool wants_rdc(int nopt, const char **opts)
{
  for (int i = 0; i < nopt; i++)
    if (opts[i] && strcmp(opts[i], "-fgpu-rdc") == 0)
      return true;
  return false;
}

static hiprtcResult build_args(struct rtc_args *a, const char *dir, const char *src, const char *out,
                               int nopt, const char **opts, char *arch, size_t arch_size)
{
  bool opt_level = false;
  for (int i = 0; i < nopt; i++) {
    if (!opts[i])
      return HIPRTC_ERROR_INVALID_OPTION;
    const char *x = option_arch(opts[i]);
    if (x)
      snprintf(arch, arch_size, "%s", x);
    if (strncmp(opts[i], "-O", 2) == 0)
      opt_level = true;
  }
  const char *compiler = getenv("HIPKFD_RTC_COMPILER");
  const char *inc = first_dir("HIPKFD_RTC_INCLUDE_PATH", HIPKFD_RTC_BUILD_INCLUDE,
                              HIPKFD_RTC_INSTALL_INCLUDE, HIPKFD_RTC_INSTALL_INCLUDE);
  const char *libs = first_dir("HIPKFD_RTC_DEVICE_LIB_PATH", HIPKFD_RTC_BUILD_DEVICE_LIBS,
                               HIPKFD_RTC_INSTALL_DEVICE_LIBS, RTC_DEBIAN_DEVICE_LIBS);
  bool ok = rtc_arg(a, compiler && *compiler ? compiler : "clang++-19") && rtc_arg(a, "-x") &&
            rtc_arg(a, "hip") && rtc_argf(a, "--offload-arch=%s", arch) && rtc_arg(a, "--cuda-device-only") &&
            rtc_arg(a, "--no-gpu-bundle-output") && rtc_arg(a, "-c") && rtc_arg(a, "-nogpuinc") &&
            /* As AMD's hiprtc: programs see __HIPCC_RTC__ (hip_runtime.h then brings fp16,
             * bfloat16, complex, math constants and cooperative groups), and every error is
             * reported (clang stops at 20 by default; a user's -ferror-limit comes later and
             * wins). */
            rtc_arg(a, "-D__HIPCC_RTC__") && rtc_arg(a, "-ferror-limit=0") &&
            rtc_argf(a, "-I%s", dir) && rtc_argf(a, "-I%s", inc) && rtc_arg(a, "-include") &&
            rtc_arg(a, "__clang_hip_runtime_wrapper.h") && rtc_arg(a, "-include") &&
            rtc_arg(a, "hip/hip_runtime.h") && rtc_argf(a, "--rocm-device-lib-path=%s", libs) &&
            rtc_arg(a, "-mcode-object-version=5") && (opt_level || rtc_arg(a, "-O3")) &&
            (!wants_rdc(nopt, opts) || rtc_arg(a, "-emit-llvm"));
  for (int i = 0; ok && i < nopt; i++)
    if (!option_arch(opts[i]))
      ok = rtc_arg(a, opts[i]);
  ok = ok && rtc_arg(a, src) && rtc_arg(a, "-o") && rtc_arg(a, out);
  return ok ? HIPRTC_SUCCESS : HIPRTC_ERROR_INVALID_OPTION;
}

static void keep_log(hiprtcProgram p, const char *log_path)
{
  size_t len = 0;
  free(p->log);
  p->log = rtc_read_file(log_path, &len);
  p->log_size = p->log ? len + 1 : 0;
  if (p->log && len == 0) { /* no messages: report an empty log */
    free(p->log);
    p->log = NULL;
    p->log_size = 0;
  }
}

/* The outputs of a finished compile: the code object, or with -fgpu-rdc the bitcode. */
static hiprtcResult keep_output(hiprtcProgram prog, bool rdc, const char *out, const char *dir)
{
  char *data;
  size_t size = 0;
  free(prog->code);
  free(prog->bitcode);
  prog->code = prog->bitcode = NULL;
  prog->code_size = prog->bitcode_size = 0;
  data = rtc_read_file(out, &size);
  if (!data)
    return HIPRTC_ERROR_INTERNAL_ERROR;
  if (rdc) {
    prog->bitcode = data;
    prog->bitcode_size = size;
    return lower_names_ir(prog, out, dir) ? HIPRTC_SUCCESS : HIPRTC_ERROR_INTERNAL_ERROR;
  }
  prog->code = data;
  prog->code_size = size;
  return lower_names(prog) ? HIPRTC_SUCCESS : HIPRTC_ERROR_INTERNAL_ERROR;
}

HIPKFD_EXPORT hiprtcResult hiprtcCompileProgram(hiprtcProgram prog, int numOptions,
                                                const char **options)
{
  if (!prog)
    return HIPRTC_ERROR_INVALID_PROGRAM;
  if (numOptions < 0 || (numOptions > 0 && !options))
    return HIPRTC_ERROR_INVALID_INPUT;
  char dir[2048], src[4096], out[4096], log[4096], arch[256];
  if (!rtc_scratch_dir(dir, sizeof(dir)))
    return HIPRTC_ERROR_INTERNAL_ERROR;
  bool rdc = wants_rdc(numOptions, options);
  snprintf(out, sizeof(out), "%s/%s", dir, rdc ? "code.bc" : "code.o");
  snprintf(log, sizeof(log), "%s/log.txt", dir);
  rtc_current_arch(arch, sizeof(arch));

  struct rtc_args a = {0};
  hiprtcResult r = HIPRTC_ERROR_INTERNAL_ERROR;
  if (write_inputs(prog, dir, src, sizeof(src)))
    r = build_args(&a, dir, src, out, numOptions, options, arch, sizeof(arch));
  if (r == HIPRTC_SUCCESS) {
    bool ok = rtc_run(&a, log);
    keep_log(prog, log);
    r = ok ? keep_output(prog, rdc, out, dir) : HIPRTC_ERROR_COMPILATION;
    prog->compiled = r == HIPRTC_SUCCESS;
  }
  rtc_remove_tree(dir);
  return r;
}

/* query_check, and then a program not compiled with -fgpu-rdc has no bitcode to give (clr). */
static hiprtcResult bitcode_check(hiprtcProgram prog, const void *out)
{
  hiprtcResult r = query_check(prog, out);
  if (r == HIPRTC_SUCCESS && !prog->bitcode)
    r = HIPRTC_ERROR_INVALID_PROGRAM;
  return r;
}

HIPKFD_EXPORT hiprtcResult hiprtcGetBitcodeSize(hiprtcProgram prog, size_t *bitcode_size)
{
  hiprtcResult r = bitcode_check(prog, bitcode_size);
  if (r == HIPRTC_SUCCESS)
    *bitcode_size = prog->bitcode_size;
  return r;
}

HIPKFD_EXPORT hiprtcResult hiprtcGetBitcode(hiprtcProgram prog, char *bitcode)
{
  hiprtcResult r = bitcode_check(prog, bitcode);
  if (r == HIPRTC_SUCCESS)
    memcpy(bitcode, prog->bitcode, prog->bitcode_size);
  return r;
}
