/* The generated KFD sysfs topology of two MI210-like GPUs (KFDSIM_PROFILE=gfx90a,
 * KFDSIM_GPUS=2): the kernel's layout and formats (kfd_topology.c), xGMI links in one hive,
 * and a VM per GPU bound to that GPU's render node. */
#define _GNU_SOURCE
#include "kfd/uapi.h"   /* first: the 1.17 UAPI without the raw linux/types.h */

#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kfd_test_util.h"

#define TOPO "/sys/devices/virtual/kfd/kfd/topology"
#define NODES TOPO "/nodes"


static int count_entries(const char *dir)
{
  DIR *d = opendir(dir);
  struct dirent *e;
  int n = 0;
  if (!d)
    return -1;
  while ((e = readdir(d)))
    n += e->d_name[0] != '.';
  closedir(d);
  return n;
}

static uint32_t gpu_id_of(int node)
{
  char path[128];
  unsigned v = 0;
  snprintf(path, sizeof(path), NODES "/%d/gpu_id", node);
  FILE *f = fopen(path, "r");
  cr_assert_not_null(f, "%s", path);
  cr_assert_eq(fscanf(f, "%u", &v), 1);
  fclose(f);
  return v;
}

Test(topology, three_nodes_cpu_first) {
  cr_assert_eq(count_entries(NODES), 3);
  cr_assert_eq(gpu_id_of(0), 0, "the CPU node has gpu_id 0");
  cr_assert_neq(gpu_id_of(1), 0);
  cr_assert_neq(gpu_id_of(2), 0);
  cr_assert_neq(gpu_id_of(1), gpu_id_of(2));
  cr_assert_gt(prop(NODES "/0/properties", "cpu_cores_count"), 0);
  cr_assert_eq(prop(NODES "/0/properties", "io_links_count"), 2, "a PCIe link to each GPU");
  cr_assert_eq(prop(NODES "/1/properties", "drm_render_minor"), 128);
  cr_assert_eq(prop(NODES "/2/properties", "drm_render_minor"), 129);
}

Test(topology, files_have_the_kernel_format) {
  FILE *f = fopen(NODES "/1/properties", "r");
  cr_assert_not_null(f);
  char line[256], first[64] = "", last[64] = "";
  int n = 0;
  while (fgets(line, sizeof(line), f)) {
    char key[128];
    unsigned long long v;
    char nl;
    cr_assert_eq(sscanf(line, "%127s %llu%c", key, &v, &nl), 3, "\"name value\\n\": %s", line);
    cr_assert_eq(nl, '\n');
    if (!n++)
      strcpy(first, key);
    strcpy(last, key);
  }
  fclose(f);
  cr_assert_str_eq(first, "cpu_cores_count", "node_show starts with cpu_cores_count");
  cr_assert_str_eq(last, "max_engine_clk_ccompute", "and ends with max_engine_clk_ccompute");
  cr_assert_eq(prop(TOPO "/system_properties", "platform_oem"), 0);
  FILE *g = fopen(TOPO "/generation_id", "r");
  unsigned gen = 0;
  cr_assert_not_null(g);
  cr_assert_eq(fscanf(g, "%u", &gen), 1);
  fclose(g);
  cr_assert_geq(gen, 1);
  FILE *c = fopen(NODES "/1/caches/0/properties", "r");
  cr_assert_not_null(c);
  bool sibling = false;
  while (fgets(line, sizeof(line), c))
    sibling |= !strncmp(line, "sibling_map 1,0,", 16);
  fclose(c);
  cr_assert(sibling, "the first L1 is shared by the first CU only");
}

Test(topology, mi210_properties) {
  const char *p = NODES "/1/properties";
  cr_assert_eq(prop(p, "gfx_target_version"), 90010);
  cr_assert_eq(prop(p, "simd_count"), 416);
  cr_assert_eq(prop(p, "device_id"), 0x740f);
  cr_assert_eq(prop(p, "num_xcc"), 1);
  cr_assert_eq(prop(p, "lds_size_in_kb"), 64);
  cr_assert_eq(prop(p, "wave_front_size"), 64);
  cr_assert_eq(prop(NODES "/1/mem_banks/0/properties", "size_in_bytes"), 68702699520ll);
  cr_assert_eq(prop(NODES "/1/mem_banks/0/properties", "heap_type"), 1, "large BAR: FB_PUBLIC");
  cr_assert_eq(count_entries(NODES "/1/caches"), prop(p, "caches_count"));
  cr_assert_eq(count_entries(NODES "/1/p2p_links"), 0);
}

Test(topology, xgmi_hive) {
  long long hive1 = prop(NODES "/1/properties", "hive_id"), hive2 = prop(NODES "/2/properties", "hive_id");
  cr_assert_neq(hive1, 0);
  cr_assert_eq(hive1, hive2, "both GPUs are in one hive");
  cr_assert_eq(prop(NODES "/1/properties", "io_links_count"), 2);
  cr_assert_eq(prop(NODES "/1/io_links/0/properties", "type"), 2, "PCIe to the CPU");
  cr_assert_eq(prop(NODES "/1/io_links/0/properties", "node_to"), 0);
  cr_assert_eq(prop(NODES "/1/io_links/1/properties", "type"), 11, "xGMI to the peer");
  cr_assert_eq(prop(NODES "/1/io_links/1/properties", "node_to"), 2);
  cr_assert_eq(prop(NODES "/1/io_links/1/properties", "weight"), 15);
  cr_assert_eq(prop(NODES "/2/io_links/1/properties", "node_to"), 1);
}

Test(topology, each_vm_binds_its_own_render_node) {
  int kfd = open("/dev/kfd", O_RDWR | O_CLOEXEC);
  int r128 = open("/dev/dri/renderD128", O_RDWR | O_CLOEXEC);
  int r129 = open("/dev/dri/renderD129", O_RDWR | O_CLOEXEC);
  cr_assert(kfd >= 0 && r128 >= 0 && r129 >= 0);
  cr_assert_eq(open("/dev/dri/renderD130", O_RDWR), -1, "no third GPU");
  cr_assert_eq(errno, ENOENT);
  struct kfd_ioctl_acquire_vm_args vm = { .drm_fd = (uint32_t)r129, .gpu_id = gpu_id_of(1) };
  cr_assert_eq(ioctl(kfd, AMDKFD_IOC_ACQUIRE_VM, &vm), -1, "the other GPU's render node");
  cr_assert_eq(errno, EINVAL);
  vm.drm_fd = (uint32_t)r128;
  cr_assert_eq(ioctl(kfd, AMDKFD_IOC_ACQUIRE_VM, &vm), 0);
  cr_assert_eq(ioctl(kfd, AMDKFD_IOC_ACQUIRE_VM, &vm), 0, "the same file again is fine");
  int other = open("/dev/dri/renderD128", O_RDWR | O_CLOEXEC);
  vm.drm_fd = (uint32_t)other;
  cr_assert_eq(ioctl(kfd, AMDKFD_IOC_ACQUIRE_VM, &vm), -1, "a second file for a bound VM");
  cr_assert_eq(errno, EBUSY);
  vm = (struct kfd_ioctl_acquire_vm_args){ .drm_fd = (uint32_t)r129, .gpu_id = gpu_id_of(2) };
  cr_assert_eq(ioctl(kfd, AMDKFD_IOC_ACQUIRE_VM, &vm), 0);
  /* one buffer mapped on both GPUs */
  struct kfd_ioctl_alloc_memory_of_gpu_args a = { .va_addr = 0x7e0000000000ull, .size = 65536,
    .gpu_id = gpu_id_of(1), .flags = KFD_IOC_ALLOC_MEM_FLAGS_VRAM | KFD_IOC_ALLOC_MEM_FLAGS_WRITABLE };
  cr_assert_eq(ioctl(kfd, AMDKFD_IOC_ALLOC_MEMORY_OF_GPU, &a), 0);
  uint32_t ids[2] = { gpu_id_of(1), gpu_id_of(2) };
  struct kfd_ioctl_map_memory_to_gpu_args m = { .handle = a.handle, .device_ids_array_ptr = (uintptr_t)ids,
                                                .n_devices = 2 };
  cr_assert_eq(ioctl(kfd, AMDKFD_IOC_MAP_MEMORY_TO_GPU, &m), 0);
  cr_assert_eq(m.n_success, 2);
  m.n_success = 0;
  cr_assert_eq(ioctl(kfd, AMDKFD_IOC_UNMAP_MEMORY_FROM_GPU, &m), 0);
  struct kfd_ioctl_free_memory_of_gpu_args f = { .handle = a.handle };
  cr_assert_eq(ioctl(kfd, AMDKFD_IOC_FREE_MEMORY_OF_GPU, &f), 0);
  close(other);
  close(r129);
  close(r128);
  close(kfd);
}
