/* bench_sim_vram_arena: what kfdsim's memory ioctls cost for one size of VRAM buffer, measured with the
 * ioctls themselves (no runtime in between). Prints one line per phase with the median and the
 * minimum of `iters` rounds, in nanoseconds:
 *
 *   bench_sim_vram_arena [size_MiB=256] [iters=2000]
 *
 * Run it with kfdsim preloaded (LD_PRELOAD=libkfdsim.so, or under the kfdsim launcher). A
 * benchmark, not a test: nothing is asserted about time. */
#define _GNU_SOURCE
#include "kfd/uapi.h"   /* first: the 1.17 UAPI without the raw linux/types.h */

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#define NODES "/sys/devices/virtual/kfd/kfd/topology/nodes"
#define BENCH_VA 0x7f0000000000ull

static int kfd = -1;
static uint32_t gpu_id;

static int open_gpu(void)
{
  char path[64];
  long long minor = -1, v;
  char key[128];
  kfd = open("/dev/kfd", O_RDWR | O_CLOEXEC);
  FILE *f = fopen(NODES "/1/gpu_id", "r");
  if (kfd < 0 || !f || fscanf(f, "%u", &gpu_id) != 1)
    return -1;
  fclose(f);
  f = fopen(NODES "/1/properties", "r");
  if (!f)
    return -1;
  while (fscanf(f, "%127s %lld", key, &v) == 2)
    if (!strcmp(key, "drm_render_minor"))
      minor = v;
  fclose(f);
  snprintf(path, sizeof(path), "/dev/dri/renderD%lld", minor);
  int render = open(path, O_RDWR | O_CLOEXEC);
  struct kfd_ioctl_acquire_vm_args vm = { .drm_fd = (uint32_t)render, .gpu_id = gpu_id };
  return render < 0 ? -1 : ioctl(kfd, AMDKFD_IOC_ACQUIRE_VM, &vm);
}

static uint64_t now_ns(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

static void report(const char *what, uint64_t *t, int n, uint64_t size)
{
  qsort(t, (size_t)n, sizeof(*t), cmp_u64);
  printf("%s.%lluMiB median_ns=%llu min_ns=%llu\n", what, (unsigned long long)(size >> 20),
         (unsigned long long)t[n / 2], (unsigned long long)t[0]);
}

int main(int argc, char **argv)
{
  uint64_t size = (argc > 1 ? strtoull(argv[1], NULL, 0) : 256) << 20;
  int iters = argc > 2 ? atoi(argv[2]) : 2000;
  if (!size || iters <= 0 || open_gpu()) {
    fprintf(stderr, "bench_sim_vram_arena: no emulated GPU (run with kfdsim preloaded)\n");
    return 1;
  }
  uint64_t *t_alloc = calloc((size_t)iters, sizeof(uint64_t));
  uint64_t *t_free = calloc((size_t)iters, sizeof(uint64_t));
  if (!t_alloc || !t_free)
    return 1;
  for (int i = 0; i < iters; i++) {
    uint32_t ids[1] = { gpu_id };
    struct kfd_ioctl_alloc_memory_of_gpu_args a = {
      .va_addr = BENCH_VA, .size = size, .gpu_id = gpu_id,
      .flags = KFD_IOC_ALLOC_MEM_FLAGS_VRAM | KFD_IOC_ALLOC_MEM_FLAGS_WRITABLE };
    uint64_t t0 = now_ns();
    int r = ioctl(kfd, AMDKFD_IOC_ALLOC_MEMORY_OF_GPU, &a);
    struct kfd_ioctl_map_memory_to_gpu_args m = { .handle = a.handle, .n_devices = 1,
                                                  .device_ids_array_ptr = (uintptr_t)ids };
    if (!r)
      r = ioctl(kfd, AMDKFD_IOC_MAP_MEMORY_TO_GPU, &m);
    uint64_t t1 = now_ns();
    struct kfd_ioctl_unmap_memory_from_gpu_args u = { .handle = a.handle, .n_devices = 1,
                                                      .device_ids_array_ptr = (uintptr_t)ids };
    struct kfd_ioctl_free_memory_of_gpu_args fr = { .handle = a.handle };
    if (!r)
      r = ioctl(kfd, AMDKFD_IOC_UNMAP_MEMORY_FROM_GPU, &u);
    if (!r)
      r = ioctl(kfd, AMDKFD_IOC_FREE_MEMORY_OF_GPU, &fr);
    uint64_t t2 = now_ns();
    if (r) {
      fprintf(stderr, "bench_sim_vram_arena: round %d failed: %s\n", i, strerror(errno));
      return 1;
    }
    t_alloc[i] = t1 - t0;
    t_free[i] = t2 - t1;
  }
  report("alloc_map", t_alloc, iters, size);
  report("unmap_free", t_free, iters, size);
  free(t_alloc);
  free(t_free);
  return 0;
}
