/* kfdsim's VRAM arena (sim/kfd/vram_arena.c) through the /dev/kfd ioctls: BO backing files are
 * recycled between BOs, and that must not show. Contents survive and are shared by every
 * mapping, a reused file reads as zero, a dma-buf is exactly its BO (size, offsets, lifetime)
 * in this process and in another one, a fork child never shares the parent's kept files, and
 * the arena's bound holds. Runs with kfdsim preloaded (one MI300X-like GPU). */
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

#include "kfd/vram_arena.h"

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

static int kioctl(int fd, unsigned long cmd, void *arg)
{
  return ioctl(fd, cmd, arg) == 0 ? 0 : -errno;
}

static long long prop(const char *path, const char *name)
{
  FILE *f = fopen(path, "r");
  char key[128];
  long long v, found = -1;
  if (!f)
    return -1;
  while (fscanf(f, "%127s %lld", key, &v) == 2)
    if (!strcmp(key, name))
      found = v;
  fclose(f);
  return found;
}

/* /dev/kfd, the render node and ACQUIRE_VM, as libhsakmt does (again in a fork child) */
static int open_gpu_checked(void)
{
  kfd = open("/dev/kfd", O_RDWR | O_CLOEXEC);
  FILE *f = fopen(NODES "/1/gpu_id", "r");
  if (kfd < 0 || !f || fscanf(f, "%u", &gpu_id) != 1)
    return -1;
  fclose(f);
  char path[64];
  snprintf(path, sizeof(path), "/dev/dri/renderD%lld", prop(NODES "/1/properties", "drm_render_minor"));
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

/* open descriptors that are kfdsim BO files (the arena's kept ones, live BOs', dma-bufs) */
static int bo_files(void)
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
      n += !strncmp(target, "/memfd:kfdsim-bo:", 17);
    }
  }
  closedir(d);
  return n;
}

TestSuite(simarena, .init = open_gpu, .fini = close_gpu);

Test(simarena, mixed_sizes_keep_their_contents_across_mappings) {
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

Test(simarena, a_freed_file_is_reused_and_reads_zero) {
  struct bo a, b;
  cr_assert_eq(bo_alloc(VA(0), 1 << 20, VRAM_W, &a), 0);
  int files = bo_files();
  uint8_t *p = bo_cpu(&a);
  memset(p, 0xab, a.size);
  munmap(p, a.size);
  cr_assert_eq(bo_free(&a), 0);
  cr_assert_eq(bo_files(), files, "the file is kept, not closed");
  /* a BO that fits the kept file takes it: no new file */
  cr_assert_eq(bo_alloc(VA(1), (1 << 20) - 2 * PAGE, VRAM_W, &b), 0);
  cr_assert_eq(bo_files(), files, "the kept file was reused");
  uint8_t *q = bo_cpu(&b);
  cr_assert(all_zero(q, b.size), "the previous BO's bytes are gone");
  munmap(q, b.size);
  cr_assert_eq(bo_free(&b), 0);
  /* a much smaller BO does not take a far larger kept file; nor does another domain */
  cr_assert_eq(bo_alloc(VA(2), PAGE, VRAM_W, &b), 0);
  cr_assert_eq(bo_files(), files + 1, "a 4 KiB BO gets a file of its own");
  cr_assert_eq(bo_free(&b), 0);
  cr_assert_eq(bo_alloc(VA(3), 1 << 20, GTT_W, &b), 0);
  cr_assert_eq(bo_files(), files + 2, "GTT never takes a VRAM file");
  cr_assert_eq(bo_free(&b), 0);
}

Test(simarena, the_arena_keeps_a_bounded_number_of_files) {
  enum { N = SIM_ARENA_KEEP + 8 };
  struct bo b[N];
  int files = bo_files();
  for (int i = 0; i < N; i++) {
    cr_assert_eq(bo_alloc(VA(i), 8 << 20, VRAM_W, &b[i]), 0);
    uint8_t *p = bo_cpu(&b[i]);
    fill(p, b[i].size, (uint64_t)i + 7);
    munmap(p, b[i].size);
  }
  int live = bo_files();
  cr_assert_geq(live, files + N - SIM_ARENA_KEEP, "a BO the arena could not serve has its own file");
  for (int i = 0; i < N; i++)
    cr_assert_eq(bo_free(&b[i]), 0);
  int kept = bo_files();
  cr_assert_leq(kept, files + SIM_ARENA_KEEP, "at most SIM_ARENA_KEEP files are kept");
  cr_assert_lt(kept, live, "the files beyond the arena's bound were closed");
  /* every BO works again, from kept files and new ones alike, and reads as zero */
  for (int i = 0; i < N; i++) {
    cr_assert_eq(bo_alloc(VA(i), 8 << 20, VRAM_W, &b[i]), 0);
    uint8_t *p = bo_cpu(&b[i]);
    cr_assert(all_zero(p, b[i].size), "BO %d reads as zero", i);
    munmap(p, b[i].size);
  }
  for (int i = 0; i < N; i++)
    cr_assert_eq(bo_free(&b[i]), 0);
}

Test(simarena, an_exported_bo_is_exactly_its_dmabuf) {
  struct bo a, imp = { 0 }, again;
  /* a kept 64 KiB file exists first, so the 12 KiB BO below comes from the arena */
  cr_assert_eq(bo_alloc(VA(0), 60 << 10, VRAM_W, &a), 0);
  cr_assert_eq(bo_free(&a), 0);
  cr_assert_eq(bo_alloc(VA(0), 3 * PAGE, VRAM_W, &a), 0);
  cr_assert_eq(bo_map(&a, true), 0);
  uint8_t *p = bo_cpu(&a);
  fill(p, a.size, 42);
  struct kfd_ioctl_export_dmabuf_args e = { .handle = a.handle, .flags = O_CLOEXEC | O_RDWR };
  cr_assert_eq(kioctl(kfd, AMDKFD_IOC_EXPORT_DMABUF, &e), 0);
  int fd = (int)e.dmabuf_fd;
  struct kfd_ioctl_get_dmabuf_info_args info = { .dmabuf_fd = (uint32_t)fd };
  cr_assert_eq(kioctl(kfd, AMDKFD_IOC_GET_DMABUF_INFO, &info), 0);
  cr_assert_eq(info.size, 3 * PAGE, "the dma-buf is the BO's size, not its file's capacity");
  cr_assert_eq(info.gpu_id, gpu_id);
  cr_assert(info.flags & KFD_IOC_ALLOC_MEM_FLAGS_VRAM);
  cr_assert_eq(lseek(fd, 0, SEEK_END), (off_t)(3 * PAGE), "dma_buf_llseek: SEEK_END is the size");
  /* offsets of a dma-buf mmap are the BO's */
  uint8_t *d = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)PAGE);
  cr_assert_neq(d, MAP_FAILED);
  cr_assert_eq(memcmp(d, p + PAGE, 2 * PAGE), 0, "the dma-buf's bytes are the BO's");
  struct kfd_ioctl_import_dmabuf_args im = { .va_addr = VA(8), .gpu_id = gpu_id,
                                             .dmabuf_fd = (uint32_t)fd };
  cr_assert_eq(kioctl(kfd, AMDKFD_IOC_IMPORT_DMABUF, &im), 0);
  imp.handle = im.handle;
  cr_assert_eq(bo_map(&imp, true), 0);
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

Test(simarena, another_process_imports_an_arena_bo) {
  struct bo a;
  cr_assert_eq(bo_alloc(VA(0), 40 << 10, VRAM_W, &a), 0);
  cr_assert_eq(bo_free(&a), 0);   /* the next BO comes from a kept file */
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

Test(simarena, a_fork_child_never_gets_the_parents_kept_files) {
  struct bo a;
  cr_assert_eq(bo_alloc(VA(0), 2 << 20, VRAM_W, &a), 0);
  cr_assert_eq(bo_free(&a), 0);   /* kept by the parent's arena */
  pid_t pid = fork();
  cr_assert_geq(pid, 0);
  if (pid == 0) {
    /* the child writes the BO it gets and exits without freeing it: had it taken the
     * parent's kept file, the parent would read these bytes in its next BO */
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
  cr_assert_eq(bo_alloc(VA(0), 2 << 20, VRAM_W, &a), 0);
  uint8_t *p = bo_cpu(&a);
  cr_assert(all_zero(p, a.size), "the parent's kept file is its own");
  munmap(p, a.size);
  cr_assert_eq(bo_free(&a), 0);
}

Test(simarena, gpu_written_pages_are_given_back) {
  /* a file kept after its BO was written holds no page when the next BO gets it (checked
   * through that BO's dma-buf, which is the file itself) */
  struct bo a;
  cr_assert_eq(bo_alloc(VA(0), 256 << 10, VRAM_W, &a), 0);
  cr_assert_eq(bo_map(&a, true), 0);
  uint8_t *p = bo_cpu(&a);
  memset(p + 5 * PAGE, 0xee, PAGE);
  munmap(p, a.size);
  cr_assert_eq(bo_map(&a, false), 0);
  cr_assert_eq(bo_free(&a), 0);
  cr_assert_eq(bo_alloc(VA(0), 256 << 10, VRAM_W, &a), 0);
  struct kfd_ioctl_export_dmabuf_args e = { .handle = a.handle, .flags = O_CLOEXEC | O_RDWR };
  cr_assert_eq(kioctl(kfd, AMDKFD_IOC_EXPORT_DMABUF, &e), 0);
  cr_assert_eq(lseek((int)e.dmabuf_fd, 0, SEEK_DATA), -1, "no page left in the reused file");
  cr_assert_eq(errno, ENXIO);
  close((int)e.dmabuf_fd);
  cr_assert_eq(bo_free(&a), 0);
}
