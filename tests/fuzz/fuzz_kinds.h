/* The .value_kind strings of AMDGPUUsage "Code Object V3+ Metadata", indexed by enum
 * loader_arg_kind, shared by the kernel-argument harness and the seed writer. */
#ifndef HIPKFD_FUZZ_KINDS_H
#define HIPKFD_FUZZ_KINDS_H

#include "loader.h"

static const char *const fuzz_kind_names[] = {
  [LOADER_ARG_BY_VALUE] = "by_value",
  [LOADER_ARG_GLOBAL_BUFFER] = "global_buffer",
  [LOADER_ARG_DYNAMIC_SHARED_POINTER] = "dynamic_shared_pointer",
  [LOADER_ARG_SAMPLER] = "sampler",
  [LOADER_ARG_IMAGE] = "image",
  [LOADER_ARG_PIPE] = "pipe",
  [LOADER_ARG_QUEUE] = "queue",
  [LOADER_ARG_HIDDEN_GLOBAL_OFFSET_X] = "hidden_global_offset_x",
  [LOADER_ARG_HIDDEN_GLOBAL_OFFSET_Y] = "hidden_global_offset_y",
  [LOADER_ARG_HIDDEN_GLOBAL_OFFSET_Z] = "hidden_global_offset_z",
  [LOADER_ARG_HIDDEN_NONE] = "hidden_none",
  [LOADER_ARG_HIDDEN_PRINTF_BUFFER] = "hidden_printf_buffer",
  [LOADER_ARG_HIDDEN_HOSTCALL_BUFFER] = "hidden_hostcall_buffer",
  [LOADER_ARG_HIDDEN_DEFAULT_QUEUE] = "hidden_default_queue",
  [LOADER_ARG_HIDDEN_COMPLETION_ACTION] = "hidden_completion_action",
  [LOADER_ARG_HIDDEN_MULTIGRID_SYNC_ARG] = "hidden_multigrid_sync_arg",
  [LOADER_ARG_HIDDEN_HEAP_V1] = "hidden_heap_v1",
  [LOADER_ARG_HIDDEN_BLOCK_COUNT_X] = "hidden_block_count_x",
  [LOADER_ARG_HIDDEN_BLOCK_COUNT_Y] = "hidden_block_count_y",
  [LOADER_ARG_HIDDEN_BLOCK_COUNT_Z] = "hidden_block_count_z",
  [LOADER_ARG_HIDDEN_GROUP_SIZE_X] = "hidden_group_size_x",
  [LOADER_ARG_HIDDEN_GROUP_SIZE_Y] = "hidden_group_size_y",
  [LOADER_ARG_HIDDEN_GROUP_SIZE_Z] = "hidden_group_size_z",
  [LOADER_ARG_HIDDEN_REMAINDER_X] = "hidden_remainder_x",
  [LOADER_ARG_HIDDEN_REMAINDER_Y] = "hidden_remainder_y",
  [LOADER_ARG_HIDDEN_REMAINDER_Z] = "hidden_remainder_z",
  [LOADER_ARG_HIDDEN_GRID_DIMS] = "hidden_grid_dims",
  [LOADER_ARG_HIDDEN_PRIVATE_BASE] = "hidden_private_base",
  [LOADER_ARG_HIDDEN_SHARED_BASE] = "hidden_shared_base",
  [LOADER_ARG_HIDDEN_QUEUE_PTR] = "hidden_queue_ptr",
  [LOADER_ARG_HIDDEN_DYNAMIC_LDS_SIZE] = "hidden_dynamic_lds_size",
  [LOADER_ARG_HIDDEN_UNKNOWN] = "hidden_from_the_future",
};
#define FUZZ_NKINDS (sizeof(fuzz_kind_names) / sizeof(fuzz_kind_names[0]))

/* The kernel-argument harness's input: a header, then one record per argument. */
struct fuzz_kernarg_header {
  uint32_t segment_size;       /* .kernarg_segment_size */
  uint8_t align_log2;          /* .kernarg_segment_align: 1 << align_log2 below 32, else the
                                * byte itself (mostly not a power of two) */
  uint8_t wave64;              /* .wavefront_size: 64 if odd, else 32 */
} __attribute__((packed));

struct fuzz_kernarg_record {
  uint32_t offset, size;
  uint8_t kind;                /* an index into fuzz_kind_names; beyond it, an unknown kind */
} __attribute__((packed));

#endif
