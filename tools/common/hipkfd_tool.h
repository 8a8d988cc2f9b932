/* What hipcc and hipconfig share: where the hipkfd installation and its compiler are, the version
 * it reports, and the offload targets a compilation defaults to.
 *
 * Paths follow AMD's hipcc (amd/hipcc/src/hipBin_*.h in ROCm's llvm-project):
 *   HIP_PATH        hipkfd's prefix: --hip-path=, $HIP_PATH, else the parent of the directory
 *                   holding the running tool (<prefix>/bin/hipcc)
 *   ROCM_PATH       --rocm-path=, $ROCM_PATH, else HIP_PATH
 *   HIP_CLANG_PATH  the directory of clang++: $HIP_CLANG_PATH, <ROCM_PATH>/llvm/bin when it holds
 *                   clang++, else LLVM 19's (/usr/lib/llvm-19/bin)
 *   HIP_LIB_PATH    $HIP_LIB_PATH, else <HIP_PATH>/lib
 *   device libs     $DEVICE_LIB_PATH or $HIP_DEVICE_LIB_PATH, <ROCM_PATH>/amdgcn/bitcode, else
 *                   <HIP_PATH>/share/hipkfd/device-libs */
#ifndef HIPKFD_TOOL_H
#define HIPKFD_TOOL_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

/* With no GPU visible and no override, code is built for both GPUs kfdsim emulates. */
#define TOOL_DEFAULT_TARGETS "gfx90a,gfx942"

struct tool_paths {
  char hip_path[PATH_MAX];
  char rocm_path[PATH_MAX];
  char include_dir[PATH_MAX];
  char lib_dir[PATH_MAX];
  char device_lib_dir[PATH_MAX];
  char clang_dir[PATH_MAX];
  char clang[PATH_MAX];          /* the clang++ driver inside clang_dir */
  char hip_version[128];         /* AMD's form, MAJOR.MINOR.PATCH-GITHASH (share/hip/version) */
  char hipkfd_version[64];       /* hipkfd's own release */
  bool version_file_found;
};

/* Fills `p`. hip_path_opt and rocm_path_opt are --hip-path=/--rocm-path= values or NULL.
 * Returns 0, or -1 with a message on stderr when the tool's own location is unknown. */
int tool_paths_init(struct tool_paths *p, const char *hip_path_opt, const char *rocm_path_opt);

/* The offload targets (comma-separated, no duplicates) a compilation uses when none is given:
 * $HIP_OFFLOAD_ARCH, $GPU_TARGETS, $HCC_AMDGPU_TARGET (lists separated by commas, semicolons or
 * spaces), else the GPUs of the KFD topology (kfdsim's when run under it), else
 * TOOL_DEFAULT_TARGETS. *source says which. */
void tool_default_targets(char *out, size_t size, const char **source);

/* Appends `name` to the comma-separated list `list` unless present; false if it does not fit. */
bool tool_list_add(char *list, size_t size, const char *name);

/* True if `path` names an existing file (or directory, for tool_is_dir). */
bool tool_is_file(const char *path);
bool tool_is_dir(const char *path);

#endif
