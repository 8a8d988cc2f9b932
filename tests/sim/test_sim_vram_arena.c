/* kfdsim's VRAM arena (sim/kfd/vram_arena.c) through the /dev/kfd ioctls: VRAM BOs are ranges
 * of one file per GPU, and that must not show. Contents survive and are shared by every
 * mapping, a reused range reads as zero, a dma-buf is exactly its BO (size, offsets, lifetime)
 * in this process and in another one, a fork child has an arena of its own, and a BO the arena
 * cannot hold gets a file of its own. Runs with kfdsim preloaded (one MI300X-like GPU; the
 * vram_arena_full suite with KFDSIM_VRAM=64M, see CMakeLists.txt). */
#define _GNU_SOURCE
#include "kfd/uapi.h"   /* first: the 1.17 UAPI without the raw linux/types.h */

#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../sim/kfd_test_util.h"

#define NODES "/sys/devices/virtual/kfd/kfd/topology/nodes"
#define PAGE 4096ull
#define BASE_VA 0x7f0000000000ull   /* GPU VAs well inside the GPUVM aperture, 1 GiB apart */
#define VA(i) (BASE_VA + ((uint64_t)(i) << 30))
#define VRAM_W (KFD_IOC_ALLOC_MEM_FLAGS_VRAM | KFD_IOC_ALLOC_MEM_FLAGS_WRITABLE)
#define GTT_W (KFD_IOC_ALLOC_MEM_FLAGS_GTT | KFD_IOC_ALLOC_MEM_FLAGS_WRITABLE)

static int kfd = -1, render = -1;
static uint32_t gpu_id;

struct bo {
  uint64_t handle, offset, size;
};



/* /dev/kfd, the render node and ACQUIRE_VM, as libhsakmt does (again in a fork child) */
static int open_gpu_checked(void)
{
  kfd = open("/dev/kfd", O_RDWR | O_CLOEXEC);
  FILE *f = fopen(NODES "/1/gpu_id", "r");
  if (kfd < 0 || !f || fscanf(f, "%u", &gpu_id) != 1)
    return -1;
  fclose(f);
  char path[64];
  snprintf(path, sizeof(path), "/dev/dri/renderD%lld",
           prop(NODES "/1/properties", "drm_render_minor"));
  render = open(path, O_RDWR | O_CLOEXEC);
  if (render < 0)
    return -1;
  struct kfd_ioctl_acquire_vm_args vm = { .drm_fd = (uint32_t)render, .gpu_id = gpu_id };
  return kioctl(kfd, AMDKFD_IOC_ACQUIRE_VM, &vm);
}

static void open_gpu(void)
{
  cr_assert_eq(open_gpu_checked(), 0, "an emulated GPU with its VM acquired");
}

static void close_gpu(void)
{
  close(render);
  close(kfd);
}

static int bo_alloc(uint64_t va, uint64_t size, uint32_t flags, struct bo *b)
{
  struct kfd_ioctl_alloc_memory_of_gpu_args a = { .va_addr = va, .size = size, .gpu_id = gpu_id,
                                                  .flags = flags };
  int r = kioctl(kfd, AMDKFD_IOC_ALLOC_MEMORY_OF_GPU, &a);
  *b = (struct bo){ .handle = a.handle, .offset = a.mmap_offset, .size = size };
  return r;
}

static int bo_map(const struct bo *b, bool map)
{
  uint32_t ids[1] = { gpu_id };
  struct kfd_ioctl_map_memory_to_gpu_args a = { .handle = b->handle, .n_devices = 1,
                                                .device_ids_array_ptr = (uintptr_t)ids };
  return kioctl(kfd, map ? AMDKFD_IOC_MAP_MEMORY_TO_GPU : AMDKFD_IOC_UNMAP_MEMORY_FROM_GPU, &a);
}

static int bo_free(const struct bo *b)
{
  struct kfd_ioctl_free_memory_of_gpu_args a = { .handle = b->handle };
  return kioctl(kfd, AMDKFD_IOC_FREE_MEMORY_OF_GPU, &a);
}

/* a CPU mapping of the whole BO through the render node */
static uint8_t *bo_cpu(const struct bo *b)
{
  void *p = mmap(NULL, b->size, PROT_READ | PROT_WRITE, MAP_SHARED, render, (off_t)b->offset);
  cr_assert_neq(p, MAP_FAILED, "render mmap: %s", strerror(errno));
  return p;
}

static uint64_t pattern(uint64_t seed, uint64_t off)
{
  return (seed * 0x9e3779b97f4a7c15ull) ^ off;
}

/* one word per page, plus the BO's last word */
static void fill(uint8_t *p, uint64_t size, uint64_t seed)
{
  for (uint64_t off = 0; off < size; off += PAGE)
    *(uint64_t *)(p + off + (seed % 64) * 8) = pattern(seed, off);
  *(uint64_t *)(p + size - 8) = ~seed;
}

static bool holds(const uint8_t *p, uint64_t size, uint64_t seed)
{
  for (uint64_t off = 0; off < size; off += PAGE)
    if (*(const uint64_t *)(p + off + (seed % 64) * 8) != pattern(seed, off))
      return false;
  return *(const uint64_t *)(p + size - 8) == ~seed;
}

static bool all_zero(const uint8_t *p, uint64_t size)
{
  for (uint64_t i = 0; i < size; i += 8)
    if (*(const uint64_t *)(p + i))
      return false;
  return true;
}

/* open descriptors whose target starts with `prefix` (NULL: all of them) */
static int open_files(const char *prefix)
{
  DIR *d = opendir("/proc/self/fd");
  cr_assert_not_null(d);
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    char link[300], target[256];
    snprintf(link, sizeof(link), "/proc/self/fd/%s", e->d_name);
    ssize_t len = readlink(link, target, sizeof(target) - 1);
    if (len > 0) {
      target[len] = 0;
      n += !prefix || !strncmp(target, prefix, strlen(prefix));
    }
  }
  closedir(d);
  return n;
}

TestSuite(vram_arena, .init = open_gpu, .fini = close_gpu);

Test(vram_arena, mixed_sizes_keep_their_contents_across_mappings) {
  static const uint64_t sizes[] = { PAGE, 3 * PAGE, 64 << 10, (64 << 10) + PAGE, 1 << 20,
                                    (2 << 20) - PAGE, 5 << 20, 16 << 20 };
  enum { N = 48 };
  struct bo b[N];
  /* three rounds: allocate all, write each through one mapping, read through another; free
   * every other one and reallocate it with another size (reusing what was freed) */
  for (int i = 0; i < N; i++) {
    cr_assert_eq(bo_alloc(VA(i), sizes[i % 8], VRAM_W, &b[i]), 0);
    cr_assert_eq(bo_map(&b[i], true), 0);
    uint8_t *p = bo_cpu(&b[i]);
    cr_assert(all_zero(p, b[i].size), "a fresh BO reads as zero (%d)", i);
    fill(p, b[i].size, (uint64_t)i + 1);
    munmap(p, b[i].size);
  }
  for (int round = 0; round < 3; round++) {
    for (int i = round % 2; i < N; i += 2) {
      cr_assert_eq(bo_map(&b[i], false), 0);
      cr_assert_eq(bo_free(&b[i]), 0);
      cr_assert_eq(bo_alloc(VA(i), sizes[(i + round + 3) % 8], VRAM_W, &b[i]), 0);
      cr_assert_eq(bo_map(&b[i], true), 0);
      uint8_t *p = bo_cpu(&b[i]);
      cr_assert(all_zero(p, b[i].size), "a reallocated BO reads as zero (round %d, %d)", round, i);
      fill(p, b[i].size, (uint64_t)(round + 1) * 1000 + (uint64_t)i);
      munmap(p, b[i].size);
    }
    for (int i = 0; i < N; i++) {
      uint64_t seed = (uint64_t)i + 1;
      for (int r = round; r >= 0; r--)
        if (i % 2 == r % 2) {
          seed = (uint64_t)(r + 1) * 1000 + (uint64_t)i;
          break;
        }
      uint8_t *q = bo_cpu(&b[i]);
      cr_assert(holds(q, b[i].size, seed), "BO %d holds what was written (round %d)", i, round);
      munmap(q, b[i].size);
    }
  }
  for (int i = 0; i < N; i++) {
    cr_assert_eq(bo_map(&b[i], false), 0);
    cr_assert_eq(bo_free(&b[i]), 0);
  }
}

/* The file offset of the mapping that holds address p (/proc/self/maps), or -1. */
static long long mapping_offset(const void *p, char *path, size_t path_len)
{
  FILE *f = fopen("/proc/self/maps", "r");
  cr_assert_not_null(f);
  char line[512];
  long long found = -1;
  while (fgets(line, sizeof(line), f)) {
    unsigned long start, end, off;
    char name[256] = "";
    if (sscanf(line, "%lx-%lx %*s %lx %*s %*s %255s", &start, &end, &off, name) < 3)
      continue;
    if ((uintptr_t)p >= start && (uintptr_t)p < end) {
      found = (long long)(off + ((uintptr_t)p - start));
      if (path)
        snprintf(path, path_len, "%s", name);
      break;
    }
  }
  fclose(f);
  return found;
}

/* whether the mapping that holds p has VmFlags `flag` (/proc/self/smaps) */
static bool vma_flag(const void *p, const char *flag)
{
  FILE *f = fopen("/proc/self/smaps", "r");
  cr_assert_not_null(f);
  char line[512];
  bool inside = false, found = false;
  while (fgets(line, sizeof(line), f)) {
    unsigned long start, end;
    if (sscanf(line, "%lx-%lx ", &start, &end) == 2 && strchr(line, '-') < strchr(line, ' '))
      inside = (uintptr_t)p >= start && (uintptr_t)p < end;
    else if (inside && !strncmp(line, "VmFlags:", 8)) {
      char want[8];
      snprintf(want, sizeof(want), " %s", flag);
      found = strstr(line + 8, want) != NULL;
      break;
    }
  }
  fclose(f);
  return found;
}

Test(vram_arena, arena_bos_open_no_descriptor) {
  struct bo first, b[40];
  cr_assert_eq(bo_alloc(VA(0), PAGE, VRAM_W, &first), 0);   /* makes the arena */
  int fds = open_files(NULL);
  for (int i = 0; i < 40; i++) {
    uint64_t size = (uint64_t)(i % 5 + 1) << (12 + 2 * (i % 6));   /* 4 KiB .. 20 MiB */
    cr_assert_eq(bo_alloc(VA(i + 1), size, VRAM_W, &b[i]), 0);
  }
  cr_assert_eq(open_files(NULL), fds, "a VRAM BO is a range of the arena, not a file");
  cr_assert_eq(open_files("/memfd:kfdsim-bo:"), 0, "no BO has a file of its own");
  for (int i = 0; i < 40; i++)
    cr_assert_eq(bo_free(&b[i]), 0);
  cr_assert_eq(bo_free(&first), 0);
  cr_assert_eq(open_files(NULL), fds, "freeing closes nothing either");
}

Test(vram_arena, a_freed_range_is_reused_and_reads_zero) {
  struct bo a, b;
  char path[256];
  cr_assert_eq(bo_alloc(VA(0), 1 << 20, VRAM_W, &a), 0);
  cr_assert_eq(bo_map(&a, true), 0);
  uint8_t *p = bo_cpu(&a);
  long long off_a = mapping_offset(p, path, sizeof(path));
  cr_assert_geq(off_a, 0);
  cr_assert(strstr(path, "kfdsim-vram-arena"), "the BO is a range of the arena (%s)", path);
  memset(p, 0xab, a.size);
  munmap(p, a.size);
  cr_assert_eq(bo_map(&a, false), 0);
  cr_assert_eq(bo_free(&a), 0);
  cr_assert_eq(bo_alloc(VA(1), 1 << 20, VRAM_W, &b), 0);
  uint8_t *q = bo_cpu(&b);
  cr_assert_eq(mapping_offset(q, NULL, 0), off_a, "first fit hands the freed range out again");
  cr_assert(all_zero(q, b.size), "the previous BO's bytes are gone");
  /* a BO never mapped anywhere leaves nothing to give back, and reads as zero all the same */
  munmap(q, b.size);
  cr_assert_eq(bo_free(&b), 0);
  cr_assert_eq(bo_alloc(VA(1), 1 << 20, VRAM_W, &b), 0);
  cr_assert_eq(bo_free(&b), 0);
  cr_assert_eq(bo_alloc(VA(1), 1 << 20, VRAM_W, &b), 0);
  q = bo_cpu(&b);
  cr_assert(all_zero(q, b.size));
  munmap(q, b.size);
  cr_assert_eq(bo_free(&b), 0);
}

Test(vram_arena, an_exported_bo_is_exactly_its_dmabuf) {
  struct bo a, imp = { 0 }, again;
  char path[256];
  cr_assert_eq(bo_alloc(VA(0), 3 * PAGE, VRAM_W, &a), 0);
  cr_assert_eq(bo_map(&a, true), 0);
  uint8_t *p = bo_cpu(&a);
  fill(p, a.size, 42);
  cr_assert_eq(madvise(p, a.size, MADV_DONTFORK), 0);   /* as our runtime advises its mappings */
  struct kfd_ioctl_export_dmabuf_args e = { .handle = a.handle, .flags = O_CLOEXEC | O_RDWR };
  cr_assert_eq(kioctl(kfd, AMDKFD_IOC_EXPORT_DMABUF, &e), 0);
  int fd = (int)e.dmabuf_fd;
  struct kfd_ioctl_get_dmabuf_info_args info = { .dmabuf_fd = (uint32_t)fd };
  cr_assert_eq(kioctl(kfd, AMDKFD_IOC_GET_DMABUF_INFO, &info), 0);
  cr_assert_eq(info.size, 3 * PAGE, "the dma-buf is the BO's size");
  cr_assert_eq(info.gpu_id, gpu_id);
  cr_assert(info.flags & KFD_IOC_ALLOC_MEM_FLAGS_VRAM);
  cr_assert_eq(lseek(fd, 0, SEEK_END), (off_t)(3 * PAGE), "dma_buf_llseek: SEEK_END is the size");
  /* the exporter's own mapping, made before the export, now maps the dma-buf */
  cr_assert_eq(mapping_offset(p + PAGE, path, sizeof(path)), (long long)PAGE);
  cr_assert(strstr(path, "kfdsim-bo:"), "the exporter's mapping moved with its BO (%s)", path);
  cr_assert(vma_flag(p, "dc"), "and kept its MADV_DONTFORK");
  /* offsets of a dma-buf mmap are the BO's */
  uint8_t *d = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)PAGE);
  cr_assert_neq(d, MAP_FAILED);
  cr_assert_eq(memcmp(d, p + PAGE, 2 * PAGE), 0, "the dma-buf's bytes are the BO's");
  p[2 * PAGE + 3] = 0x3c;
  cr_assert_eq(d[PAGE + 3], 0x3c, "one memory, whichever mapping writes it");
  struct kfd_ioctl_import_dmabuf_args im = { .va_addr = VA(8), .gpu_id = gpu_id,
                                             .dmabuf_fd = (uint32_t)fd };
  cr_assert_eq(kioctl(kfd, AMDKFD_IOC_IMPORT_DMABUF, &im), 0);
  imp.handle = im.handle;
  cr_assert_eq(bo_map(&imp, true), 0);
  struct kfd_ioctl_export_dmabuf_args e2 = { .handle = a.handle, .flags = O_CLOEXEC };
  cr_assert_eq(kioctl(kfd, AMDKFD_IOC_EXPORT_DMABUF, &e2), 0, "a second export");
  cr_assert_eq(lseek((int)e2.dmabuf_fd, 0, SEEK_END), (off_t)(3 * PAGE));
  close((int)e2.dmabuf_fd);
  /* the exporter frees its BO: the importer's pages stay, and are never handed to a new BO */
  munmap(p, a.size);
  cr_assert_eq(bo_map(&a, false), 0);
  cr_assert_eq(bo_free(&a), 0);
  cr_assert_eq(bo_alloc(VA(0), 3 * PAGE, VRAM_W, &again), 0);
  uint8_t *n = bo_cpu(&again);
  cr_assert(all_zero(n, again.size), "a new BO does not get the exported pages");
  memset(n, 0x5a, again.size);
  cr_assert_eq(*(uint64_t *)(d + PAGE + (42 % 64) * 8), pattern(42, 2 * PAGE),
               "the importer still sees the exporter's bytes");
  munmap(n, again.size);
  munmap(d, 2 * PAGE);
  cr_assert_eq(bo_map(&imp, false), 0);
  cr_assert_eq(bo_free(&imp), 0);
  cr_assert_eq(bo_free(&again), 0);
  close(fd);
}

Test(vram_arena, another_process_imports_an_arena_bo) {
  struct bo a;
  cr_assert_eq(bo_alloc(VA(0), 5 * PAGE, VRAM_W, &a), 0);
  uint8_t *p = bo_cpu(&a);
  fill(p, a.size, 77);
  struct kfd_ioctl_export_dmabuf_args e = { .handle = a.handle, .flags = O_RDWR };
  cr_assert_eq(kioctl(kfd, AMDKFD_IOC_EXPORT_DMABUF, &e), 0);
  pid_t pid = fork();
  cr_assert_geq(pid, 0);
  if (pid == 0) {
    /* its own KFD process, as libhsakmt opens one after fork; the dma-buf is inherited */
    if (open_gpu_checked())
      _exit(2);
    struct kfd_ioctl_get_dmabuf_info_args info = { .dmabuf_fd = e.dmabuf_fd };
    if (kioctl(kfd, AMDKFD_IOC_GET_DMABUF_INFO, &info) || info.size != 5 * PAGE ||
        info.gpu_id != gpu_id || !(info.flags & KFD_IOC_ALLOC_MEM_FLAGS_VRAM))
      _exit(3);
    struct kfd_ioctl_import_dmabuf_args im = { .va_addr = VA(3), .gpu_id = gpu_id,
                                               .dmabuf_fd = e.dmabuf_fd };
    if (kioctl(kfd, AMDKFD_IOC_IMPORT_DMABUF, &im))
      _exit(4);
    uint8_t *q = mmap(NULL, 5 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, (int)e.dmabuf_fd, 0);
    if (q == MAP_FAILED || !holds(q, 5 * PAGE, 77))
      _exit(5);
    q[3 * PAGE + 1] = 0xc3;   /* the exporter sees the importer's writes */
    struct bo imp = { .handle = im.handle };
    _exit(bo_free(&imp) ? 6 : 0);
  }
  int status;
  cr_assert_eq(waitpid(pid, &status, 0), pid);
  cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the importer failed (%d)", status);
  cr_assert_eq(p[3 * PAGE + 1], 0xc3);
  munmap(p, a.size);
  close((int)e.dmabuf_fd);
  cr_assert_eq(bo_free(&a), 0);
}

Test(vram_arena, a_fork_child_has_an_arena_of_its_own) {
  struct bo a;
  cr_assert_eq(bo_alloc(VA(0), 2 << 20, VRAM_W, &a), 0);
  uint8_t *p = bo_cpu(&a);
  fill(p, a.size, 5);
  pid_t pid = fork();
  cr_assert_geq(pid, 0);
  if (pid == 0) {
    /* the child's first BO takes the first range of its arena, as the parent's did: had it
     * reused the parent's file, these bytes would land in the parent's BO */
    struct bo c;
    if (open_gpu_checked() || bo_alloc(VA(0), 2 << 20, VRAM_W, &c))
      _exit(2);
    void *q = mmap(NULL, c.size, PROT_READ | PROT_WRITE, MAP_SHARED, render, (off_t)c.offset);
    if (q == MAP_FAILED)
      _exit(3);
    memset(q, 0x77, c.size);
    _exit(0);
  }
  int status;
  cr_assert_eq(waitpid(pid, &status, 0), pid);
  cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the child failed (%d)", status);
  cr_assert(holds(p, a.size, 5), "the parent's BO is its own");
  munmap(p, a.size);
  cr_assert_eq(bo_free(&a), 0);
}

/* With KFDSIM_VRAM=64M the arena is 128 MiB; exported BOs leave their ranges behind. */
static bool small_vram(void)
{
  struct kfd_ioctl_get_available_memory_args m = { .gpu_id = gpu_id };
  return !kioctl(kfd, AMDKFD_IOC_AVAILABLE_MEMORY, &m) && m.available <= (64ull << 20);
}

TestSuite(vram_arena_full, .init = open_gpu, .fini = close_gpu);

Test(vram_arena_full, a_bo_the_arena_cannot_hold_gets_a_file_of_its_own) {
  if (!small_vram())
    cr_skip_test("needs KFDSIM_VRAM=64M (ctest test_sim_vram_arena_full)");
  struct bo a, big, small;
  for (int i = 0; i < 2; i++) {
    /* 48 MiB exported and freed, twice: 96 MiB of the 128 MiB arena are gone for good */
    cr_assert_eq(bo_alloc(VA(i), 48 << 20, VRAM_W, &a), 0);
    struct kfd_ioctl_export_dmabuf_args e = { .handle = a.handle, .flags = O_CLOEXEC };
    cr_assert_eq(kioctl(kfd, AMDKFD_IOC_EXPORT_DMABUF, &e), 0);
    close((int)e.dmabuf_fd);
    cr_assert_eq(bo_free(&a), 0);
  }
  int own = open_files("/memfd:kfdsim-bo:");
  cr_assert_eq(bo_alloc(VA(4), 48 << 20, VRAM_W, &big), 0, "VRAM is free; the arena is not");
  cr_assert_eq(open_files("/memfd:kfdsim-bo:"), own + 1, "the BO has a file of its own");
  cr_assert_eq(bo_alloc(VA(5), 8 << 20, VRAM_W, &small), 0);
  cr_assert_eq(open_files("/memfd:kfdsim-bo:"), own + 1, "a BO that fits is still a range");
  uint8_t *p = bo_cpu(&big), *q = bo_cpu(&small);
  cr_assert(all_zero(p, big.size) && all_zero(q, small.size));
  fill(p, big.size, 9);
  fill(q, small.size, 10);
  munmap(p, big.size);
  munmap(q, small.size);
  p = bo_cpu(&big);
  q = bo_cpu(&small);
  cr_assert(holds(p, big.size, 9) && holds(q, small.size, 10));
  munmap(p, big.size);
  munmap(q, small.size);
  cr_assert_eq(bo_free(&big), 0);
  cr_assert_eq(open_files("/memfd:kfdsim-bo:"), own, "its file is closed at FREE");
  cr_assert_eq(bo_free(&small), 0);
}
