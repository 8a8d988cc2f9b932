/*
 * src/loader: fat binaries, offload bundles, ELF code objects, kernel metadata, device symbols.
 *
 * Two phases, as Mesa's ac_rtld does:
 *   1. open + validate (pure, no GPU): loader_bundle_find() picks the code object for an ISA out of
 *      a clang offload bundle (plain or CCOB-compressed); loader_code_object_open() parses and
 *      validates the ELF, its AMDGPU metadata note and its kernel descriptors. Every index and
 *      offset read from the file is bounds-checked; bad input returns -ENOEXEC/-EINVAL, never
 *      crashes.
 *   2. upload + relocate (per GPU): loader_load() copies the PT_LOAD segments into device memory,
 *      applies the dynamic relocations against the loaded base, and resolves kernel descriptor
 *      and variable GPU addresses.
 * Every function returns 0 or -errno. Nothing here prints or reads the environment.
 */
#ifndef HIPKFD_LOADER_H
#define HIPKFD_LOADER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct kfd_gpu;

/* ---- ISA names and matching ------------------------------------------------------------- */

/* A target feature: unspecified code runs with either setting (LLVM AMDGPUUsage, "Target
 * Features"); a device always has a definite setting. */
enum loader_feature { LOADER_FEATURE_ANY = 0, LOADER_FEATURE_OFF, LOADER_FEATURE_ON };

struct loader_isa {
  char processor[16];          /* "gfx942" */
  enum loader_feature sramecc;
  enum loader_feature xnack;
};

/* Parses "gfx942", "gfx942:sramecc+:xnack-", "amdgcn-amd-amdhsa--gfx90a:xnack+" or a bundle
 * triple "hipv4-amdgcn-amd-amdhsa--gfx942:sramecc+". -EINVAL if it is none of these. */
int loader_isa_parse(const char *name, struct loader_isa *out);

/* Formats the device ISA name from KFD's gfx_target_version (major*10000 + minor*100 + stepping,
 * e.g. 90402 -> "gfx942", 90010 -> "gfx90a") and the node's feature bits. */
int loader_isa_name(uint32_t gfx_target_version, bool sramecc, bool xnack, char *buf, size_t size);

/* True if code built for `code` runs on `device`: same processor; each feature of the code is
 * either ANY or equal to the device's. */
bool loader_isa_compatible(const struct loader_isa *code, const struct loader_isa *device);

/* ---- Offload bundles -------------------------------------------------------------------- */

/* Finds the code object for `isa_name` (a device ISA name as loader_isa_name() makes) in a clang
 * offload bundle (`__CLANG_OFFLOAD_BUNDLE__`), a compressed bundle (`CCOB`, zstd, header versions
 * 1..3) or a bare AMDGPU ELF (returned as is). Among compatible entries, one naming the features
 * exactly wins over one leaving them unspecified. On success *elf and *elf_size point into `fatbin`
 * or into *decompressed, which the caller frees with free() (NULL when nothing was decompressed).
 * -ENOENT: valid bundle without a matching entry; -ENOEXEC: malformed input. */
int loader_bundle_find(const void *fatbin, size_t size, const char *isa_name,
                       const void **elf, size_t *elf_size, void **decompressed);

/* Writes the device targets a plain offload bundle holds ("gfx90a gfx942:xnack+") into buf, for
 * error messages; "a compressed bundle" or "a bare code object" for the others. */
void loader_bundle_describe(const void *fatbin, size_t size, char *buf, size_t len);

/* The number of bytes a bundle (plain or compressed) occupies, read from its own headers, so a
 * caller holding only a pointer (the __hipRegisterFatBinary ABI) can bound it. `limit` is how many
 * bytes are known readable. -ENOEXEC if the headers do not fit within `limit`. */
int loader_bundle_size(const void *fatbin, size_t limit, size_t *size);

/* ---- ELF code objects ------------------------------------------------------------------- */

/* Argument value kinds from the metadata (.value_kind), AMDGPUUsage "Code Object V3+ Metadata". */
enum loader_arg_kind {
  LOADER_ARG_BY_VALUE,
  LOADER_ARG_GLOBAL_BUFFER,
  LOADER_ARG_DYNAMIC_SHARED_POINTER,
  LOADER_ARG_SAMPLER,
  LOADER_ARG_IMAGE,
  LOADER_ARG_PIPE,
  LOADER_ARG_QUEUE,
  LOADER_ARG_HIDDEN_GLOBAL_OFFSET_X,
  LOADER_ARG_HIDDEN_GLOBAL_OFFSET_Y,
  LOADER_ARG_HIDDEN_GLOBAL_OFFSET_Z,
  LOADER_ARG_HIDDEN_NONE,
  LOADER_ARG_HIDDEN_PRINTF_BUFFER,
  LOADER_ARG_HIDDEN_HOSTCALL_BUFFER,
  LOADER_ARG_HIDDEN_DEFAULT_QUEUE,
  LOADER_ARG_HIDDEN_COMPLETION_ACTION,
  LOADER_ARG_HIDDEN_MULTIGRID_SYNC_ARG,
  LOADER_ARG_HIDDEN_HEAP_V1,
  LOADER_ARG_HIDDEN_BLOCK_COUNT_X,
  LOADER_ARG_HIDDEN_BLOCK_COUNT_Y,
  LOADER_ARG_HIDDEN_BLOCK_COUNT_Z,
  LOADER_ARG_HIDDEN_GROUP_SIZE_X,
  LOADER_ARG_HIDDEN_GROUP_SIZE_Y,
  LOADER_ARG_HIDDEN_GROUP_SIZE_Z,
  LOADER_ARG_HIDDEN_REMAINDER_X,
  LOADER_ARG_HIDDEN_REMAINDER_Y,
  LOADER_ARG_HIDDEN_REMAINDER_Z,
  LOADER_ARG_HIDDEN_GRID_DIMS,
  LOADER_ARG_HIDDEN_PRIVATE_BASE,
  LOADER_ARG_HIDDEN_SHARED_BASE,
  LOADER_ARG_HIDDEN_QUEUE_PTR,
  LOADER_ARG_HIDDEN_DYNAMIC_LDS_SIZE,
  LOADER_ARG_HIDDEN_UNKNOWN,   /* a hidden_* kind this loader does not know: zero-filled */
};

static inline bool loader_arg_is_hidden(enum loader_arg_kind k) {
  return k >= LOADER_ARG_HIDDEN_GLOBAL_OFFSET_X;
}

struct loader_kernel_arg {
  uint32_t offset;             /* in the kernarg segment */
  uint32_t size;
  enum loader_arg_kind kind;
};

/* The 64-byte kernel descriptor (AMDGPUUsage "Kernel Descriptor"), fields the runtime reads. */
struct loader_kernel_descriptor {
  uint32_t group_segment_fixed_size;
  uint32_t private_segment_fixed_size;
  uint32_t kernarg_size;
  int64_t kernel_code_entry_byte_offset;
  uint32_t compute_pgm_rsrc1, compute_pgm_rsrc2, compute_pgm_rsrc3;
  uint16_t kernel_code_properties;
  uint16_t kernarg_preload;
};

struct loader_kernel {
  char *name;                  /* .name: "_Z6kernelPi" */
  char *symbol;                /* .symbol: "_Z6kernelPi.kd" */
  uint64_t kd_vaddr;           /* the descriptor's address inside the image (st_value) */
  struct loader_kernel_descriptor kd;
  struct loader_kernel_arg *args;   /* all args, explicit then hidden, in metadata order */
  uint32_t nargs;
  uint32_t nexplicit;          /* the first nexplicit args are the source-level parameters */
  uint32_t kernarg_segment_size, kernarg_segment_align;
  uint32_t group_segment_fixed_size, private_segment_fixed_size;
  uint32_t sgpr_count, vgpr_count, agpr_count;
  uint32_t sgpr_spill_count, vgpr_spill_count;
  uint32_t wavefront_size, max_flat_workgroup_size;
  uint32_t reqd_workgroup_size[3];  /* 0 when the metadata does not require one */
  bool uses_dynamic_stack;
  bool uniform_work_group_size;     /* .uniform_work_group_size: global size % block size must be 0 */
};

/* A device global variable: a global STT_OBJECT symbol that is not a kernel descriptor. */
struct loader_variable {
  char *name;
  uint64_t vaddr;              /* inside the image */
  uint64_t size;
};

/* A dynamic relocation, kept from phase 1 for phase 2. */
struct loader_reloc {
  uint64_t offset;             /* image vaddr patched */
  uint32_t type;               /* R_AMDGPU_* */
  int64_t addend;
  bool symbol_defined;         /* the symbol is defined in this image */
  uint64_t symbol_vaddr;
};

struct loader_segment {
  uint64_t vaddr, memsz;
  uint64_t file_offset, filesz;
};

struct loader_code_object {
  void *elf;                   /* a private copy of the ELF bytes (owned) */
  size_t elf_size;
  uint32_t code_object_version;/* 4, 5 or 6 (from EI_ABIVERSION) */
  uint32_t metadata_version[2];/* amdhsa.version */
  char target[64];             /* amdhsa.target, e.g. "amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-" */
  struct loader_isa isa;       /* from e_flags (EF_AMDGPU_MACH, sramecc/xnack features) */
  struct loader_kernel *kernels;
  uint32_t nkernels;
  struct loader_variable *variables;
  uint32_t nvariables;
  struct loader_segment *segments;
  uint32_t nsegments;
  struct loader_reloc *relocs;
  uint32_t nrelocs;
  uint64_t image_size;         /* highest PT_LOAD vaddr+memsz; the image starts at vaddr 0 */
  uint64_t image_align;
};

/* Phase 1: parses and validates `elf` (copied; the caller's buffer may go away). -ENOEXEC for
 * anything malformed (bad ELF, out-of-bounds index, bad msgpack, metadata that disagrees with the
 * symbol table), -ENOMEM. */
int loader_code_object_open(const void *elf, size_t size, struct loader_code_object **out);
void loader_code_object_close(struct loader_code_object *co);

/* Lookups by .name (kernels; the ".kd" suffix is also accepted) and by symbol name (variables).
 * NULL if absent. */
const struct loader_kernel *loader_find_kernel(const struct loader_code_object *co, const char *name);
const struct loader_variable *loader_find_variable(const struct loader_code_object *co, const char *name);

/* ---- Upload (phase 2) ------------------------------------------------------------------- */

struct loader_image {
  struct kfd_gpu *gpu;
  const struct loader_code_object *co;   /* not owned: must outlive the image */
  void *base;                  /* device memory holding the image (GPU VA == CPU VA) */
  uint64_t base_va;
  size_t size;
};

/* Phase 2: allocates device memory on `gpu`, copies the segments in, zero-fills .bss, applies the
 * relocations (R_AMDGPU_ABS64, ABS32_LO, ABS32_HI, ABS32, RELATIVE64, REL64). */
int loader_load(struct kfd_gpu *gpu, const struct loader_code_object *co, struct loader_image **out);
void loader_unload(struct loader_image *img);

/* Applies the relocations to a host copy of the image laid out at `base_va` (pure; used by
 * loader_load and by tests). `image` holds co->image_size bytes. */
int loader_relocate(const struct loader_code_object *co, void *image, uint64_t base_va);

/* Builds the whole image in a host buffer of co->image_size bytes: zero-fill, copy the segments'
 * file bytes, relocate for `base_va`. */
int loader_image_build(const struct loader_code_object *co, void *image, uint64_t base_va);

/* The AQL kernel_object (GPU VA of the kernel descriptor) and a variable's device address. */
uint64_t loader_kernel_object(const struct loader_image *img, const struct loader_kernel *k);
void *loader_variable_address(const struct loader_image *img, const struct loader_variable *v);

#endif /* HIPKFD_LOADER_H */
