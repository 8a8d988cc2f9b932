/* Linking AMDGPU bitcode into a code object: hiprtcLink* and hipLink*.
 *
 * A link state collects bitcode (hiprtc -fgpu-rdc output, or clang offload bundles of bitcode
 * as `hipcc -fgpu-rdc -c` writes them). hiprtcLinkComplete writes them to a scratch directory,
 * unbundles the current architecture's entry with clang-offload-bundler, joins everything into
 * one module with llvm-link (so calls across inputs are resolved before code generation, as
 * ROCm's comgr does), and compiles and links that module with clang into a code object that
 * hipModuleLoadData loads. The code object belongs to the state until hiprtcLinkDestroy.
 *
 * Argument checks and result codes follow ROCm's hiprtc (clr hipamd/src/hiprtc/hiprtc.cpp) and
 * hipLink* (clr hip_module.cpp): a state that is not live is refused rather than dereferenced.
 * hipLink* takes the same bitcode (HIP's documentation: "Adds bitcode data to be linked");
 * clr's newest release links only SPIR-V there, which hipkfd cannot translate
 * (hipErrorNotSupported).
 */
#define _GNU_SOURCE
#include <hip/hip_runtime_api.h>
#include <hip/hiprtc.h>

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtc_tools.h"

#define HIPKFD_EXPORT __attribute__((visibility("default")))
#define LINK_MAX_ISA_OPTS 16

struct link_input {
  hiprtcJITInputType type;
  char *data;
  size_t size;
};

struct ihiprtcLinkState {
  struct ihiprtcLinkState *next;   /* live states (link_lock) */
  struct link_input *inputs;
  size_t ninputs;
  const char *isa_opts[LINK_MAX_ISA_OPTS];
  unsigned nisa_opts;
  int opt_level;                   /* -1: default (-O3) */
  char *info_log, *error_log;      /* the caller's buffers */
  size_t info_log_size, error_log_size;
  char *code;                      /* the linked code object */
  size_t code_size;
};

static pthread_mutex_t link_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ihiprtcLinkState *live_states;

static bool link_live(struct ihiprtcLinkState *st)
{
  bool found = false;
  pthread_mutex_lock(&link_lock);
  for (struct ihiprtcLinkState *s = live_states; s && !found; s = s->next)
    found = s == st;
  pthread_mutex_unlock(&link_lock);
  return st && found;
}

static bool legacy_input(hiprtcJITInputType t)
{
  return t == HIPRTC_JIT_INPUT_CUBIN || t == HIPRTC_JIT_INPUT_PTX ||
         t == HIPRTC_JIT_INPUT_FATBINARY || t == HIPRTC_JIT_INPUT_OBJECT ||
         t == HIPRTC_JIT_INPUT_LIBRARY || t == HIPRTC_JIT_INPUT_NVVM;
}

/* ---- options ---- */

static void set_option(struct ihiprtcLinkState *st, hiprtcJIT_option o, void *v,
                       const char *const **isa_list, unsigned *isa_count)
{
  uintptr_t n = (uintptr_t)v;
  switch (o) {
  case HIPRTC_JIT_INFO_LOG_BUFFER: st->info_log = v; break;
  case HIPRTC_JIT_INFO_LOG_BUFFER_SIZE_BYTES: st->info_log_size = n; break;
  case HIPRTC_JIT_ERROR_LOG_BUFFER: st->error_log = v; break;
  case HIPRTC_JIT_ERROR_LOG_BUFFER_SIZE_BYTES: st->error_log_size = n; break;
  case HIPRTC_JIT_OPTIMIZATION_LEVEL: st->opt_level = n <= 3 ? (int)n : 3; break;
  case HIPRTC_JIT_IR_TO_ISA_OPT_EXT: *isa_list = v; break;
  case HIPRTC_JIT_IR_TO_ISA_OPT_COUNT_EXT: *isa_count = (unsigned)n; break;
  default: break; /* CUDA's JIT knobs: nothing to do for AMDGPU code generation */
  }
}

static bool set_options(struct ihiprtcLinkState *st, unsigned n, hiprtcJIT_option *opts,
                        void **vals)
{
  const char *const *isa_list = NULL;
  unsigned isa_count = 0;
  for (unsigned i = 0; i < n; i++)
    set_option(st, opts[i], vals[i], &isa_list, &isa_count);
  if (isa_count > LINK_MAX_ISA_OPTS || (isa_count && !isa_list))
    return false;
  for (unsigned i = 0; i < isa_count; i++) {
    if (!isa_list[i])
      return false;
    st->isa_opts[st->nisa_opts++] = isa_list[i];
  }
  return true;
}

/* ---- inputs ---- */

static bool is_bitcode(const char *p, size_t n)
{
  static const unsigned char raw[4] = {'B', 'C', 0xc0, 0xde}, wrapper[4] = {0xde, 0xc0, 0x17, 0x0b};
  return n >= 4 && (memcmp(p, raw, 4) == 0 || memcmp(p, wrapper, 4) == 0);
}

static bool is_bundle(const char *p, size_t n)
{
  static const char magic[] = "__CLANG_OFFLOAD_BUNDLE__";
  return n >= sizeof(magic) - 1 && memcmp(p, magic, sizeof(magic) - 1) == 0;
}

static hiprtcResult add_input(struct ihiprtcLinkState *st, hiprtcJITInputType type,
                              const void *data, size_t size)
{
  if (type == HIPRTC_JIT_INPUT_LLVM_BITCODE ? !is_bitcode(data, size)
      : type == HIPRTC_JIT_INPUT_LLVM_BUNDLED_BITCODE ? !is_bundle(data, size)
      : true) /* archives and SPIR-V: not supported */
    return HIPRTC_ERROR_PROGRAM_CREATION_FAILURE;
  struct link_input *in = realloc(st->inputs, (st->ninputs + 1) * sizeof(*in));
  if (!in)
    return HIPRTC_ERROR_OUT_OF_MEMORY;
  st->inputs = in;
  char *copy = malloc(size);
  if (!copy)
    return HIPRTC_ERROR_OUT_OF_MEMORY;
  memcpy(copy, data, size);
  in[st->ninputs++] = (struct link_input){type, copy, size};
  return HIPRTC_SUCCESS;
}

/* ---- the link ---- */

/* The offload-bundle entry of `arch` ("gfx942:sramecc+:xnack-"), tried with its features, then
 * for the processor alone. */
static bool unbundle(const char *in, const char *out, const char *arch, const char *log)
{
  char target[320];
  for (int plain = 0; plain < 2; plain++) {
    int len = plain ? (int)strcspn(arch, ":") : (int)strlen(arch);
    snprintf(target, sizeof(target), "-targets=hip-amdgcn-amd-amdhsa--%.*s", len, arch);
    struct rtc_args a = {0};
    if (rtc_arg(&a, "clang-offload-bundler-19") && rtc_arg(&a, "-type=bc") && rtc_arg(&a, target) &&
        rtc_argf(&a, "-input=%s", in) && rtc_argf(&a, "-output=%s", out) &&
        rtc_arg(&a, "-unbundle") && rtc_run(&a, log)) {
      FILE *f = fopen(out, "rb");
      int c = f ? fgetc(f) : EOF; /* a missing entry unbundles to an empty file */
      if (f)
        fclose(f);
      if (c != EOF)
        return true;
    }
  }
  return false;
}

/* Writes input i as <dir>/in<i>.bc (unbundled if need be); its path in `path`. */
static bool stage_input(const struct link_input *in, size_t i, const char *dir, const char *arch,
                        const char *log, char *path, size_t size)
{
  char raw[4096];
  snprintf(path, size, "%s/in%zu.bc", dir, i);
  if (in->type == HIPRTC_JIT_INPUT_LLVM_BITCODE)
    return rtc_write_file(path, in->data, in->size);
  snprintf(raw, sizeof(raw), "%s/in%zu.bundle", dir, i);
  return rtc_write_file(raw, in->data, in->size) && unbundle(raw, path, arch, log);
}

/* The target's processor: an -mcpu= among the code generator options, else the device's. */
static void link_arch(const struct ihiprtcLinkState *st, char *arch, size_t size)
{
  rtc_current_arch(arch, size);
  for (unsigned i = 0; i < st->nisa_opts; i++)
    if (!strncmp(st->isa_opts[i], "-mcpu=", 6))
      snprintf(arch, size, "%s", st->isa_opts[i] + 6);
}

static bool run_link(struct ihiprtcLinkState *st, const char *dir, const char *log, char *out,
                     size_t out_size)
{
  char arch[256], linked[4096], path[4096], olevel[16];
  struct rtc_args join = {0}, gen = {0};
  link_arch(st, arch, sizeof(arch));
  snprintf(linked, sizeof(linked), "%s/linked.bc", dir);
  snprintf(out, out_size, "%s/linked.co", dir);
  if (st->ninputs > RTC_MAX_STORAGE - 2)
    return false;
  bool ok = rtc_arg(&join, "llvm-link-19") && rtc_arg(&join, "-o") && rtc_arg(&join, linked);
  for (size_t i = 0; ok && i < st->ninputs; i++)
    ok = stage_input(&st->inputs[i], i, dir, arch, log, path, sizeof(path)) &&
         rtc_argf(&join, "%s", path);
  if (!ok || !rtc_run(&join, log))
    return false;
  snprintf(olevel, sizeof(olevel), "-O%d", st->opt_level < 0 ? 3 : st->opt_level);
  ok = rtc_arg(&gen, "clang-19") && rtc_arg(&gen, "-target") && rtc_arg(&gen, "amdgcn-amd-amdhsa") &&
       rtc_argf(&gen, "-mcpu=%s", arch) && rtc_arg(&gen, olevel) && rtc_arg(&gen, "-nogpulib");
  for (unsigned i = 0; ok && i < st->nisa_opts; i++)
    if (strncmp(st->isa_opts[i], "-mcpu=", 6))
      ok = rtc_arg(&gen, st->isa_opts[i]);
  ok = ok && rtc_arg(&gen, linked) && rtc_arg(&gen, "-o") && rtc_arg(&gen, out);
  return ok && rtc_run(&gen, log);
}

static void copy_log(char *buf, size_t size, const char *log)
{
  if (!buf || !size)
    return;
  snprintf(buf, size, "%s", log ? log : "");
}

static hiprtcResult link_complete(struct ihiprtcLinkState *st)
{
  char dir[2048], log[4096], out[4096];
  size_t log_len = 0;
  if (!st->ninputs)
    return HIPRTC_ERROR_LINKING;
  if (!rtc_scratch_dir(dir, sizeof(dir)))
    return HIPRTC_ERROR_INTERNAL_ERROR;
  snprintf(log, sizeof(log), "%s/log.txt", dir);
  rtc_write_file(log, "", 0);
  bool ok = run_link(st, dir, log, out, sizeof(out));
  free(st->code);
  st->code = ok ? rtc_read_file(out, &st->code_size) : NULL;
  char *text = rtc_read_file(log, &log_len);
  copy_log(st->info_log, st->info_log_size, text);
  if (!st->code)
    copy_log(st->error_log, st->error_log_size, text);
  free(text);
  rtc_remove_tree(dir);
  return st->code ? HIPRTC_SUCCESS : HIPRTC_ERROR_LINKING;
}

static void link_free(struct ihiprtcLinkState *st)
{
  for (size_t i = 0; i < st->ninputs; i++)
    free(st->inputs[i].data);
  free(st->inputs);
  free(st->code);
  free(st);
}

/* ---- hiprtcLink* ---- */

HIPKFD_EXPORT hiprtcResult hiprtcLinkCreate(unsigned int num_options, hiprtcJIT_option *option_ptr,
                                            void **option_vals_pptr, hiprtcLinkState *state_out)
{
  if (!state_out || (num_options && (!option_ptr || !option_vals_pptr)))
    return HIPRTC_ERROR_INVALID_INPUT;
  struct ihiprtcLinkState *st = calloc(1, sizeof(*st));
  if (!st)
    return HIPRTC_ERROR_OUT_OF_MEMORY;
  st->opt_level = -1;
  if (!set_options(st, num_options, option_ptr, option_vals_pptr)) {
    free(st);
    return HIPRTC_ERROR_INVALID_OPTION;
  }
  pthread_mutex_lock(&link_lock);
  st->next = live_states;
  live_states = st;
  pthread_mutex_unlock(&link_lock);
  *state_out = st;
  return HIPRTC_SUCCESS;
}

HIPKFD_EXPORT hiprtcResult hiprtcLinkAddData(hiprtcLinkState state, hiprtcJITInputType input_type,
                                             void *image, size_t image_size, const char *name,
                                             unsigned int num_options, hiprtcJIT_option *options_ptr,
                                             void **option_values)
{
  (void)name;
  (void)num_options;
  (void)options_ptr;
  (void)option_values;
  if (!image || !image_size || legacy_input(input_type) || !link_live(state))
    return HIPRTC_ERROR_INVALID_INPUT;
  return add_input(state, input_type, image, image_size);
}

HIPKFD_EXPORT hiprtcResult hiprtcLinkAddFile(hiprtcLinkState state, hiprtcJITInputType input_type,
                                             const char *file_path, unsigned int num_options,
                                             hiprtcJIT_option *options_ptr, void **option_values)
{
  (void)num_options;
  (void)options_ptr;
  (void)option_values;
  if (!state || !file_path || legacy_input(input_type) || !link_live(state))
    return HIPRTC_ERROR_INVALID_INPUT;
  size_t size = 0;
  char *data = rtc_read_file(file_path, &size);
  if (!data)
    return HIPRTC_ERROR_PROGRAM_CREATION_FAILURE;
  hiprtcResult r = add_input(state, input_type, data, size);
  free(data);
  return r;
}

HIPKFD_EXPORT hiprtcResult hiprtcLinkComplete(hiprtcLinkState state, void **bin_out,
                                              size_t *size_out)
{
  if (!bin_out || !size_out || !link_live(state))
    return HIPRTC_ERROR_INVALID_INPUT;
  hiprtcResult r = link_complete(state);
  if (r == HIPRTC_SUCCESS) {
    *bin_out = state->code;
    *size_out = state->code_size;
  }
  return r;
}

HIPKFD_EXPORT hiprtcResult hiprtcLinkDestroy(hiprtcLinkState state)
{
  bool found = false;
  pthread_mutex_lock(&link_lock);
  for (struct ihiprtcLinkState **p = &live_states; *p; p = &(*p)->next)
    if (*p == state) {
      *p = state->next;
      found = true;
      break;
    }
  pthread_mutex_unlock(&link_lock);
  if (!found)
    return HIPRTC_ERROR_INVALID_INPUT;
  link_free(state);
  return HIPRTC_SUCCESS;
}

/* ---- hipLink*: the same linker with hipError_t results (clr hip_module.cpp) ---- */

static hipError_t rtc_to_hip(hiprtcResult r)
{
  switch (r) {
  case HIPRTC_SUCCESS: return hipSuccess;
  case HIPRTC_ERROR_OUT_OF_MEMORY: return hipErrorOutOfMemory;
  case HIPRTC_ERROR_INVALID_INPUT: return hipErrorInvalidValue;
  default: return hipErrorInvalidConfiguration; /* clr: a failed add or link */
  }
}

/* hipLinkCreate takes only the _EXT code generator options (clr refuses CUDA's JIT options). */
HIPKFD_EXPORT hipError_t hipLinkCreate(unsigned int numOptions, hipJitOption *options,
                                       void **optionValues, hipLinkState_t *stateOut)
{
  if (!stateOut || (numOptions && (!options || !optionValues)))
    return hipErrorInvalidValue;
  for (unsigned i = 0; i < numOptions; i++)
    if (options[i] != hipJitOptionIRtoISAOptExt && options[i] != hipJitOptionIRtoISAOptCountExt)
      return hipErrorInvalidValue;
  hiprtcLinkState st;
  hiprtcResult r = hiprtcLinkCreate(numOptions, (hiprtcJIT_option *)options, optionValues, &st);
  if (r == HIPRTC_SUCCESS)
    *stateOut = (hipLinkState_t)st;
  return r == HIPRTC_ERROR_INVALID_OPTION ? hipErrorInvalidValue : rtc_to_hip(r);
}

static hipError_t hip_input_type(hipJitInputType type)
{
  if (type == hipJitInputSpirv)
    return hipErrorNotSupported; /* SPIR-V to AMDGPU needs a translator hipkfd does not have */
  if (type != hipJitInputLLVMBitcode && type != hipJitInputLLVMBundledBitcode)
    return hipErrorInvalidValue;
  return hipSuccess;
}

HIPKFD_EXPORT hipError_t hipLinkAddData(hipLinkState_t state, hipJitInputType type, void *data,
                                        size_t size, const char *name, unsigned int numOptions,
                                        hipJitOption *options, void **optionValues)
{
  (void)name;
  (void)numOptions;
  (void)options;
  (void)optionValues;
  if (!data || !size)
    return hipErrorInvalidImage;
  hipError_t e = hip_input_type(type);
  if (e != hipSuccess)
    return e;
  struct ihiprtcLinkState *st = (struct ihiprtcLinkState *)state;
  if (!link_live(st))
    return hipErrorInvalidHandle;
  return rtc_to_hip(add_input(st, (hiprtcJITInputType)type, data, size));
}

HIPKFD_EXPORT hipError_t hipLinkAddFile(hipLinkState_t state, hipJitInputType type,
                                        const char *path, unsigned int numOptions,
                                        hipJitOption *options, void **optionValues)
{
  if (!state)
    return hipErrorInvalidHandle;
  hipError_t e = hip_input_type(type);
  if (e != hipSuccess)
    return e;
  if (!path || !link_live((struct ihiprtcLinkState *)state))
    return hipErrorInvalidValue;
  return rtc_to_hip(hiprtcLinkAddFile((hiprtcLinkState)state, (hiprtcJITInputType)type, path,
                                      numOptions, (hiprtcJIT_option *)options, optionValues));
}

HIPKFD_EXPORT hipError_t hipLinkComplete(hipLinkState_t state, void **hipBinOut, size_t *sizeOut)
{
  return rtc_to_hip(hiprtcLinkComplete((hiprtcLinkState)state, hipBinOut, sizeOut));
}

HIPKFD_EXPORT hipError_t hipLinkDestroy(hipLinkState_t state)
{
  return rtc_to_hip(hiprtcLinkDestroy((hiprtcLinkState)state));
}
