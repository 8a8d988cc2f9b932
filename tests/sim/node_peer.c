/* One process of an emulated node, driven by test_sim_node: runs the commands of its command
 * line against /dev/kfd (kfdsim preloaded, KFDSIM_NODE set by the test) and prints one line per
 * result on stdout.
 *
 *   alloc MIB [GPU]  allocate MIB MiB of VRAM on GPU (index, default 0): "alloc <0|-errno>"
 *   free             free every buffer allocated so far: "free <0|-errno>"
 *   avail            "avail <gpu> <bytes>" for every GPU (AVAILABLE_MEMORY)
 *   ids              "ids <gpu_id>..." from the topology
 *   sysfs            read the topology without opening /dev/kfd: "gpus <n>"
 *   wait             print "ready", then block until a line (or EOF) arrives on stdin
 *   kill             SIGKILL itself
 *
 * The first command that needs the GPU opens it; "open <-errno>" and exit 1 when it cannot.
 */
#define _GNU_SOURCE
#include "kfd/uapi.h"   /* first: the 1.17 UAPI without the raw linux/types.h */

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kfd_test_util.h"

#define NODES "/sys/devices/virtual/kfd/kfd/topology/nodes"
#define MAX_GPUS 8
#define MAX_BOS 64
#define BASE_VA 0x7f0000000000ull

static int kfd = -1;
static uint32_t n_gpus, gpu_ids[MAX_GPUS];
static int renders[MAX_GPUS];
static uint64_t bos[MAX_BOS];
static unsigned n_bos;

/* The GPUs of the topology: nodes 1.. (node 0 is the CPU). */
static void read_topology(void)
{
  for (n_gpus = 0; n_gpus < MAX_GPUS; n_gpus++) {
    char path[128];
    snprintf(path, sizeof(path), NODES "/%u/gpu_id", n_gpus + 1);
    FILE *f = fopen(path, "r");
    if (!f)
      break;
    int ok = fscanf(f, "%u", &gpu_ids[n_gpus]) == 1;
    fclose(f);
    if (!ok)
      break;
  }
}

static int open_gpus(void)
{
  if (kfd >= 0)
    return 0;
  kfd = open("/dev/kfd", O_RDWR | O_CLOEXEC);
  if (kfd < 0)
    return -errno;
  read_topology();
  for (uint32_t i = 0; i < n_gpus; i++) {
    char path[128], node[128];
    snprintf(node, sizeof(node), NODES "/%u/properties", i + 1);
    snprintf(path, sizeof(path), "/dev/dri/renderD%lld", prop(node, "drm_render_minor"));
    renders[i] = open(path, O_RDWR | O_CLOEXEC);
    if (renders[i] < 0)
      return -errno;
    struct kfd_ioctl_acquire_vm_args vm = { .drm_fd = (uint32_t)renders[i], .gpu_id = gpu_ids[i] };
    int r = kioctl(kfd, AMDKFD_IOC_ACQUIRE_VM, &vm);
    if (r)
      return r;
  }
  return 0;
}

static int do_alloc(uint64_t mib, uint32_t gpu)
{
  if (gpu >= n_gpus || n_bos == MAX_BOS)
    return -EINVAL;
  struct kfd_ioctl_alloc_memory_of_gpu_args a = {
    .va_addr = BASE_VA + ((uint64_t)n_bos << 34), .size = mib << 20, .gpu_id = gpu_ids[gpu],
    .flags = KFD_IOC_ALLOC_MEM_FLAGS_VRAM | KFD_IOC_ALLOC_MEM_FLAGS_WRITABLE };
  int r = kioctl(kfd, AMDKFD_IOC_ALLOC_MEMORY_OF_GPU, &a);
  if (!r)
    bos[n_bos++] = a.handle;
  return r;
}

static int do_free(void)
{
  int r = 0;
  for (; n_bos; n_bos--) {
    struct kfd_ioctl_free_memory_of_gpu_args a = { .handle = bos[n_bos - 1] };
    int e = kioctl(kfd, AMDKFD_IOC_FREE_MEMORY_OF_GPU, &a);
    r = r ? r : e;
  }
  return r;
}

static void do_avail(void)
{
  for (uint32_t i = 0; i < n_gpus; i++) {
    struct kfd_ioctl_get_available_memory_args a = { .gpu_id = gpu_ids[i] };
    int r = kioctl(kfd, AMDKFD_IOC_AVAILABLE_MEMORY, &a);
    printf("avail %u %lld\n", i, r ? (long long)r : (long long)a.available);
  }
}

static void do_wait(void)
{
  char line[64];
  printf("ready\n");
  fflush(stdout);
  if (!fgets(line, sizeof(line), stdin))
    return;
}

int main(int argc, char **argv)
{
  setvbuf(stdout, NULL, _IOLBF, 0);
  for (int i = 1; i < argc; i++) {
    const char *c = argv[i];
    if (!strcmp(c, "wait")) {
      do_wait();
      continue;
    }
    if (!strcmp(c, "kill"))
      raise(SIGKILL);
    if (!strcmp(c, "sysfs")) {
      read_topology();
      printf("gpus %u\n", n_gpus);
      continue;
    }
    int r = open_gpus();
    if (r) {
      printf("open %d\n", r);
      return 1;
    }
    if (!strcmp(c, "alloc") && i + 1 < argc) {
      uint64_t mib = strtoull(argv[++i], NULL, 10);
      uint32_t gpu = 0;
      if (i + 1 < argc && argv[i + 1][0] >= '0' && argv[i + 1][0] <= '9')
        gpu = (uint32_t)strtoul(argv[++i], NULL, 10);
      printf("alloc %d\n", do_alloc(mib, gpu));
    } else if (!strcmp(c, "free")) {
      printf("free %d\n", do_free());
    } else if (!strcmp(c, "avail")) {
      do_avail();
    } else if (!strcmp(c, "ids")) {
      printf("ids");
      for (uint32_t g = 0; g < n_gpus; g++)
        printf(" %u", gpu_ids[g]);
      printf("\n");
    } else {
      fprintf(stderr, "node_peer: unknown command %s\n", c);
      return 2;
    }
  }
  return 0;
}
