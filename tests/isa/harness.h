/* A tiny host for kfdsim's interpreter in tests: loads an AMDGPU ELF code object into host
 * memory, finds a kernel by its descriptor symbol `<name>.kd`, and runs one dispatch with
 * translate() = identity over the buffers the test registered (anything else faults). */
#ifndef TESTS_ISA_HARNESS_H
#define TESTS_ISA_HARNESS_H

#include <stddef.h>
#include <stdint.h>

#include "isa/isa.h"

#define HARNESS_MAX_REGIONS 64

/* The tests' reproducible random numbers: Marsaglia's xorshift64 on a nonzero state. */
static inline uint64_t harness_xorshift(uint64_t *state)
{
  *state ^= *state << 13;
  *state ^= *state >> 7;
  *state ^= *state << 17;
  return *state;
}

struct harness {
  enum isa_target target;
  uint8_t *image;          /* loaded code object (page aligned) */
  size_t image_size;
  const uint8_t *file;     /* the ELF file bytes */
  size_t file_size;
  struct { uint8_t *p; size_t len; } regions[HARNESS_MAX_REGIONS];
  unsigned nregions;
  uint32_t hostcall_msgs;  /* s_sendmsg MSG_INTERRUPT count */
  uint32_t last_m0;
  unsigned host_threads;
  const volatile int *cancel;   /* passed to isa_dispatch.cancel (NULL: not cancellable) */
  uint8_t *karg, *pkt;          /* reused by every launch (runs are sequential) */
  size_t karg_cap;
};

/* Load `path` (an ELF shared object from ld.lld or clang). Returns 0 or -errno. */
int harness_open(struct harness *h, const char *path, enum isa_target target);
void harness_close(struct harness *h);

/* A page-aligned, zeroed buffer of `len` bytes that the "GPU" may access. */
void *harness_alloc(struct harness *h, size_t len);

/* Run kernel `name` with a 1-3 dimensional grid (work-items) and workgroup. */
struct harness_launch {
  const char *name;
  uint32_t grid[3], block[3];
  const void *kernarg;
  size_t kernarg_size;
  uint32_t dyn_lds;
};
int harness_run(struct harness *h, const struct harness_launch *l, struct isa_result *r);

/* The directory holding the build's kernels (set by CMake). */
#ifndef ISA_TEST_KERNEL_DIR
#define ISA_TEST_KERNEL_DIR "."
#endif

#endif
