/* The KFD topology in sysfs, generated as real files in a private directory so that opendir,
 * readdir, stat and fopen work unchanged; the interposer rewrites the path prefixes
 * /sys/devices/virtual/kfd, /sys/class/kfd and /sys/dev/char/226:<our minors> into it.
 *
 * Formats mirror kfd_topology.c's show functions: "%s %u\n" / "%s %llu\n" properties in the
 * kernel's order, caches' sibling_map as comma-separated bits, the CPU node from the virtual
 * CRAT (kfd_crat.c: cores, one memory bank, a PCIe link per GPU, no caches).
 */
#define _GNU_SOURCE
#include "kfd/uapi.h"   /* first: keeps the raw UAPI linux/types.h out */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/file.h>
#include <sys/sysinfo.h>
#include <time.h>
#include <signal.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "kfd/kfd_priv.h"

#define KFD_SYSFS "/sys/devices/virtual/kfd/kfd"
#define GPU_PROC_ID_BASE 0x80001000u   /* kfd_crat.c: first GPU processor id */
#define HIVE_ID 0x5a3c9e1f2b4d6078ull
#define PCIE_MIN_BW 312u               /* gen1 x1 MB/s (amdgpu_amdkfd_get_pcie_bandwidth_mbytes) */
#define PCIE_MAX_BW 32000u             /* gen4 x16 */

struct text {
  char buf[24576];
  size_t n;
};

__attribute__((format(printf, 2, 3))) static void put(struct text *t, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(t->buf + t->n, sizeof(t->buf) - t->n, fmt, ap);
  va_end(ap);
  if (k > 0)
    t->n += (size_t)k < sizeof(t->buf) - t->n ? (size_t)k : sizeof(t->buf) - t->n - 1;
}

static void p32(struct text *t, const char *name, uint32_t v) { put(t, "%s %u\n", name, v); }
static void p64(struct text *t, const char *name, uint64_t v) { put(t, "%s %" PRIu64 "\n", name, v); }

/* The tree is generated twice at most: first as a dry run that only hashes every entry (path
 * relative to the root, kind, content), then, when no tree with that hash exists yet, for real.
 * The hash names the shared tree (see sim_sysfs_build). */
static struct {
  bool dry;
  uint64_t h[2];
} gen;

static void gen_hash(const void *data, size_t n)
{
  const unsigned char *p = data;
  for (size_t i = 0; i < n; i++) {  /* two FNV-1a streams with different offsets: 128 bits */
    gen.h[0] = (gen.h[0] ^ p[i]) * 0x100000001b3ull;
    gen.h[1] = (gen.h[1] ^ p[i]) * 0x100000001b3ull + 0x9e3779b97f4a7c15ull;
  }
}

/* Hash an entry: its kind, its path below the root (NUL-terminated), its content. */
static void gen_entry(char kind, const char *path, const void *data, size_t n)
{
  size_t root = strlen(sim_drv.sysfs_root);
  if (!strncmp(path, sim_drv.sysfs_root, root))
    path += root;
  gen_hash(&kind, 1);
  gen_hash(path, strlen(path) + 1);
  gen_hash(&n, sizeof(n));
  gen_hash(data, n);
}

static int gen_symlink(const char *target, const char *path)
{
  if (gen.dry) {
    gen_entry('l', path, target, strlen(target));
    return 0;
  }
  return symlink(target, path) && errno != EEXIST ? -errno : 0;
}

static int mkdir_p(char *path)
{
  if (gen.dry) {
    gen_entry('d', path, "", 0);
    return 0;
  }
  if (!mkdir(path, 0755) || errno == EEXIST)
    return 0;
  if (errno != ENOENT)
    return -errno;
  char *slash = strrchr(path, '/');
  if (!slash || slash == path)
    return -ENOENT;
  *slash = 0;
  int r = mkdir_p(path);   /* parents first, then retry the leaf */
  *slash = '/';
  if (r)
    return r;
  return mkdir(path, 0755) && errno != EEXIST ? -errno : 0;
}

static int mkdirs(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int mkdirs(const char *fmt, ...)
{
  char path[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(path, sizeof(path), fmt, ap);
  va_end(ap);
  return mkdir_p(path);
}

static int write_file(const char *dir, const char *name, const char *text, size_t n)
{
  char path[512];
  snprintf(path, sizeof(path), "%s%s/%s", sim_drv.sysfs_root, dir, name);
  if (gen.dry) {
    gen_entry('f', path, text, n);
    return 0;
  }
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0444);
  if (fd < 0)
    return -errno;
  ssize_t w = write(fd, text, n);
  close(fd);
  return w == (ssize_t)n ? 0 : -EIO;
}

static int write_text(const char *dir, const char *name, struct text *t)
{
  return write_file(dir, name, t->buf, t->n);
}

static int write_str(const char *dir, const char *name, const char *s)
{
  return write_file(dir, name, s, strlen(s));
}

/* ---- host facts for the CPU node ------------------------------------------------------- */

static uint32_t first_apic_id(void)
{
  FILE *f = fopen("/proc/cpuinfo", "r");
  char line[256];
  uint32_t id = 0;
  if (!f)
    return 0;
  while (fgets(line, sizeof(line), f))
    if (!strncmp(line, "apicid", 6)) {
      char *c = strchr(line, ':');
      if (c)
        id = (uint32_t)strtoul(c + 1, NULL, 10);
      break;
    }
  fclose(f);
  return id;
}

uint32_t sim_host_cpu_mhz(void)
{
  /* cpufreq_quick_get_max(0) / 1000, or 0 without cpufreq (as in most VMs) */
  FILE *f = fopen("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq", "r");
  unsigned long khz = 0;
  if (f) {
    if (fscanf(f, "%lu", &khz) != 1)
      khz = 0;
    fclose(f);
  }
  return (uint32_t)(khz / 1000);
}

/* ---- one io link ------------------------------------------------------------------------ */

struct link {
  uint32_t type, from, to, weight, min_bw, max_bw, flags;
};

static int write_link(const char *dir, const struct link *l)
{
  struct text t = { .n = 0 };
  p32(&t, "type", l->type);
  p32(&t, "version_major", 0);
  p32(&t, "version_minor", 0);
  p32(&t, "node_from", l->from);
  p32(&t, "node_to", l->to);
  p32(&t, "weight", l->weight);
  p32(&t, "min_latency", 0);
  p32(&t, "max_latency", 0);
  p32(&t, "min_bandwidth", l->min_bw);
  p32(&t, "max_bandwidth", l->max_bw);
  p32(&t, "recommended_transfer_size", 0);
  p32(&t, "recommended_sdma_engine_id_mask", 0);
  p32(&t, "flags", l->flags);
  return write_text(dir, "properties", &t);
}

static struct link pcie_link(uint32_t from, uint32_t to)
{
  return (struct link){ .type = HSA_IOLINK_TYPE_PCIEXPRESS, .from = from, .to = to, .weight = 20,
                        .min_bw = PCIE_MIN_BW, .max_bw = PCIE_MAX_BW, .flags = HSA_IOLINK_FLAGS_ENABLED };
}

/* ---- node properties -------------------------------------------------------------------- */

struct node_facts {
  uint32_t cpu_cores, simd_count, mem_banks, caches, io_links, cpu_core_id_base, simd_id_base;
  const struct sim_gpu *gpu;
};

static void node_properties(struct text *t, const struct node_facts *n)
{
  const struct sim_gpu *g = n->gpu;
  const struct sim_profile *p = g ? g->prof : NULL;
  p32(t, "cpu_cores_count", n->cpu_cores);
  p32(t, "simd_count", n->simd_count);
  p32(t, "mem_banks_count", n->mem_banks);
  p32(t, "caches_count", n->caches);
  p32(t, "io_links_count", n->io_links);
  p32(t, "p2p_links_count", 0);
  p32(t, "cpu_core_id_base", n->cpu_core_id_base);
  p32(t, "simd_id_base", n->simd_id_base);
  p32(t, "max_waves_per_simd", p ? p->max_waves_per_simd : 0);
  p32(t, "lds_size_in_kb", p ? p->lds_size_in_kb : 0);
  p32(t, "gds_size_in_kb", p ? p->gds_size_in_kb : 0);
  p32(t, "num_gws", p ? p->num_gws : 0);
  p32(t, "wave_front_size", p ? p->wave_front_size : 0);
  p32(t, "array_count", p ? p->array_count * p->num_xcc : 0);
  p32(t, "simd_arrays_per_engine", p ? p->simd_arrays_per_engine : 0);
  p32(t, "cu_per_simd_array", p ? p->cu_per_simd_array : 0);
  p32(t, "simd_per_cu", p ? p->simd_per_cu : 0);
  p32(t, "max_slots_scratch_cu", p ? p->max_slots_scratch_cu : 0);
  p32(t, "gfx_target_version", p ? p->gfx_target_version : 0);
  p32(t, "vendor_id", p ? p->vendor_id : 0);
  p32(t, "device_id", p ? p->device_id : 0);
  p32(t, "location_id", g ? g->location_id : 0);
  p32(t, "domain", 0);
  p32(t, "drm_render_minor", g ? g->render_minor : 0);
  p64(t, "hive_id", g && sim_drv.n_gpus > 1 ? HIVE_ID : 0);
  p32(t, "num_sdma_engines", p ? p->num_sdma_engines : 0);
  p32(t, "num_sdma_xgmi_engines", p ? p->num_sdma_xgmi_engines : 0);
  p32(t, "num_sdma_queues_per_engine", p ? p->num_sdma_queues_per_engine : 0);
  p32(t, "num_cp_queues", p ? p->num_cp_queues : 0);
  p32(t, "cwsr_size", g ? g->cwsr_size : 0);
  p32(t, "ctl_stack_size", g ? g->ctl_stack_size : 0);
  if (g) {
    p32(t, "max_engine_clk_fcompute", p->max_engine_clk_fcompute);
    p64(t, "local_mem_size", 0);
    p32(t, "fw_version", p->fw_version);
    p32(t, "capability", p->capability);
    p64(t, "debug_prop", p->debug_prop);
    p32(t, "sdma_fw_version", p->sdma_fw_version);
    p64(t, "unique_id", g->unique_id);
    p32(t, "num_xcc", p->num_xcc);
  }
  p32(t, "max_engine_clk_ccompute", sim_host_cpu_mhz());
}

static int write_node_dirs(const char *dir)
{
  static const char *subdirs[] = { "mem_banks", "caches", "io_links", "p2p_links" };
  for (size_t i = 0; i < 4; i++) {
    int r = mkdirs("%s%s/%s", sim_drv.sysfs_root, dir, subdirs[i]);
    if (r)
      return r;
  }
  return 0;
}

static int write_mem_bank(const char *node_dir, uint32_t heap, uint64_t size, uint32_t width,
                          uint32_t clk, bool gpu)
{
  char dir[256];
  snprintf(dir, sizeof(dir), "%s/mem_banks/0", node_dir);
  int r = mkdirs("%s%s", sim_drv.sysfs_root, dir);
  if (r)
    return r;
  struct text t = { .n = 0 };
  p32(&t, "heap_type", heap);
  p64(&t, "size_in_bytes", size);
  p32(&t, "flags", 0);
  p32(&t, "width", width);
  p32(&t, "mem_clk_max", clk);
  r = write_text(dir, "properties", &t);
  if (!r && gpu)
    r = write_str(dir, "used_memory", "0\n");
  return r;
}

static int write_cpu_node(void)
{
  const char *dir = KFD_SYSFS "/topology/nodes/0";
  struct sysinfo si;
  int r = write_node_dirs(dir);
  if (r)
    return r;
  sysinfo(&si);
  struct node_facts n = {
    .cpu_cores = (uint32_t)sysconf(_SC_NPROCESSORS_ONLN), .mem_banks = 1,
    .io_links = sim_drv.n_gpus, .cpu_core_id_base = first_apic_id(),
  };
  struct text t = { .n = 0 };
  node_properties(&t, &n);
  if ((r = write_text(dir, "properties", &t)) || (r = write_str(dir, "gpu_id", "0\n")) ||
      (r = write_str(dir, "name", "\n")))
    return r;
  r = write_mem_bank(dir, HSA_MEM_HEAP_TYPE_SYSTEM, (uint64_t)si.totalram * si.mem_unit, 0, 0, false);
  for (uint32_t i = 0; !r && i < sim_drv.n_gpus; i++) {
    char ldir[300];
    snprintf(ldir, sizeof(ldir), "%s/io_links/%u", dir, i);
    struct link l = pcie_link(0, i + 1);
    if (!(r = mkdirs("%s%s", sim_drv.sysfs_root, ldir)))
      r = write_link(ldir, &l);
  }
  return r;
}

/* One cache entry. `first`/`count` select the CUs sharing it (bits of sibling_map). */
static int write_cache(const char *node_dir, uint32_t idx, uint32_t proc_id, uint32_t level,
                       uint32_t kb, uint32_t line, uint32_t assoc, uint32_t first, uint32_t count)
{
  char dir[256];
  snprintf(dir, sizeof(dir), "%s/caches/%u", node_dir, idx);
  int r = mkdirs("%s%s", sim_drv.sysfs_root, dir);
  if (r)
    return r;
  struct text t = { .n = 0 };
  p32(&t, "processor_id_low", proc_id);
  p32(&t, "level", level);
  p32(&t, "size", kb);
  p32(&t, "cache_line_size", line);
  p32(&t, "cache_lines_per_tag", 1);
  p32(&t, "association", assoc);
  p32(&t, "latency", 0);
  p32(&t, "type", HSA_CACHE_TYPE_DATA | HSA_CACHE_TYPE_HSACU);
  put(&t, "sibling_map ");
  for (uint32_t b = 0; b < 32 * 8 && t.n + 2 < sizeof(t.buf); b++) { /* CRAT_SIBLINGMAP_SIZE bytes of bits */
    t.buf[t.n++] = b >= first && b < first + count ? '1' : '0';
    t.buf[t.n++] = b + 1 < 32 * 8 ? ',' : '\n';
  }
  t.buf[t.n] = 0;
  return write_text(dir, "properties", &t);
}

static int write_gpu_caches(const char *dir, const struct sim_gpu *g, uint32_t simd_base, uint32_t *count)
{
  const struct sim_profile *p = g->prof;
  uint32_t cus = sim_profile_cu_count(p), per_xcc = cus / p->num_xcc, idx = 0;
  int r = 0;
  for (uint32_t cu = 0; !r && cu < cus; cu++)      /* vector L1: one per CU */
    r = write_cache(dir, idx++, simd_base + cu * p->simd_per_cu, 1, p->l1_kb, p->l1_line,
                    p->l1_assoc, cu % per_xcc, 1);
  for (uint32_t x = 0; !r && x < p->num_xcc; x++)  /* L2: one per XCC */
    r = write_cache(dir, idx++, simd_base + x * per_xcc * p->simd_per_cu, 2, p->l2_kb,
                    p->l2_line, p->l2_assoc, 0, per_xcc);
  if (!r && p->l3_kb)                              /* MALL / Infinity Cache */
    r = write_cache(dir, idx++, simd_base, 3, p->l3_kb, p->l3_line, p->l3_assoc, 0, per_xcc);
  *count = idx;
  return r;
}

static int write_gpu_node(const struct sim_gpu *g)
{
  const struct sim_profile *p = g->prof;
  char dir[256], text[64];
  uint32_t node = g->index + 1, caches = 0;
  uint32_t simd_base = GPU_PROC_ID_BASE + g->index * p->simd_count;
  snprintf(dir, sizeof(dir), KFD_SYSFS "/topology/nodes/%u", node);
  int r = write_node_dirs(dir);
  if (!r)
    r = write_mem_bank(dir, HSA_MEM_HEAP_TYPE_FB_PUBLIC, g->vram_size, p->vram_width, p->mem_clk_max, true);
  if (!r)
    r = write_gpu_caches(dir, g, simd_base, &caches);
  /* io links: the PCIe link to the CPU, then xGMI to every peer (same hive) */
  uint32_t links = 0;
  for (uint32_t i = 0; !r && i <= sim_drv.n_gpus; i++) {
    if (i == node)
      continue;
    struct link l = pcie_link(node, 0);
    if (i) {
      l = (struct link){ .type = HSA_IOLINK_TYPE_XGMI, .from = node, .to = i, .weight = 15,
                         .min_bw = p->xgmi_min_bw, .max_bw = p->xgmi_max_bw,
                         .flags = HSA_IOLINK_FLAGS_ENABLED };
    }
    char ldir[300];
    snprintf(ldir, sizeof(ldir), "%s/io_links/%u", dir, links++);
    if (!(r = mkdirs("%s%s", sim_drv.sysfs_root, ldir)))
      r = write_link(ldir, &l);
  }
  if (r)
    return r;
  struct node_facts n = { .simd_count = p->simd_count, .mem_banks = 1, .caches = caches,
                          .io_links = links, .simd_id_base = simd_base, .gpu = g };
  struct text t = { .n = 0 };
  node_properties(&t, &n);
  snprintf(text, sizeof(text), "%u\n", g->gpu_id);
  if ((r = write_text(dir, "properties", &t)) || (r = write_str(dir, "gpu_id", text)))
    return r;
  snprintf(text, sizeof(text), "%s\n", p->asic_name);
  return write_str(dir, "name", text);
}

/* /sys/dev/char/226:<minor>: what libdrm reads to recognise a DRM node and its PCI device. */
static int write_drm_node(const struct sim_gpu *g)
{
  const struct sim_profile *p = g->prof;
  char dir[256], text[256], target[600];
  snprintf(dir, sizeof(dir), "/sys/dev/char/%u:%u/device", SIM_DRM_MAJOR, g->render_minor);
  int r = mkdirs("%s%s/drm/renderD%u", sim_drv.sysfs_root, dir, g->render_minor);
  if (!r)
    r = mkdirs("%s%s/drm/card%u", sim_drv.sysfs_root, dir, g->index);
  if (r)
    return r;
  struct { const char *name; uint32_t v; int width; } ids[] = {
    { "vendor", p->vendor_id, 4 }, { "device", p->device_id, 4 },
    { "subsystem_vendor", p->vendor_id, 4 }, { "subsystem_device", 0x0c34, 4 },
    { "revision", p->pci_rev, 2 },
  };
  for (size_t i = 0; !r && i < sizeof(ids) / sizeof(ids[0]); i++) {
    snprintf(text, sizeof(text), "0x%0*x\n", ids[i].width, ids[i].v);
    r = write_str(dir, ids[i].name, text);
  }
  if (r)
    return r;
  snprintf(text, sizeof(text), "DRIVER=amdgpu\nPCI_CLASS=38000\nPCI_ID=%04X:%04X\n"
           "PCI_SUBSYS_ID=%04X:0C34\nPCI_SLOT_NAME=0000:%02x:%02x.%x\nMODALIAS=pci:v0000%04Xd0000%04X\n",
           p->vendor_id, p->device_id, p->vendor_id, g->location_id >> 8,
           (g->location_id >> 3) & 0x1f, g->location_id & 7, p->vendor_id, p->device_id);
  if ((r = write_str(dir, "uevent", text)))
    return r;
  /* the PCI device's numa_node (drivers/pci/pci-sysfs.c: dev_to_node, -1 for none) */
  snprintf(text, sizeof(text), "%d\n", sim_profile_numa_node(p, g->index));
  if ((r = write_str(dir, "numa_node", text)))
    return r;
  /* an entry in the private /dev/dri listing (drmGetDevices2 enumerates that directory) */
  snprintf(target, sizeof(target), "%s/dev/dri/renderD%u", sim_drv.sysfs_root, g->render_minor);
  if ((r = mkdirs("%s/dev/dri", sim_drv.sysfs_root)))
    return r;
  if (gen.dry) {
    gen_entry('f', target, "", 0);
  } else {
    int fd = open(target, O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0)
      return -errno;
    close(fd);
  }
  snprintf(target, sizeof(target), "%s%s/subsystem", sim_drv.sysfs_root, dir);
  return gen_symlink("../../../../bus/pci", target);
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
  (void)st; (void)flag; (void)ftw;
  return remove(path);
}

static void remove_tree(const char *path)
{
  nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* ---- one tree shared by every process with the same topology ------------------------------
 *
 * Generating the tree costs thousands of small files per process and removing it at exit
 * thousands of unlinks; both are paid by every test. So the tree is generated once per distinct
 * content and shared:
 *   - its name is the hash of its content (kfdsim-tree-<uid>-<hash>): a process that finds the
 *     name finds the tree it would have written;
 *   - it is written under a private name and published with rename(), so a tree is complete
 *     whenever its name exists (a loser of the race removes its own copy);
 *   - a user holds a shared flock on the tree's directory for as long as it runs (the
 *     descriptor dies with the process, however it ends), and touches its time when it starts;
 *   - a tree unused for SHARED_TREE_IDLE_S is removed by whichever process starts next: it
 *     takes the lock exclusively without waiting (no user), renames the tree away, then removes
 *     it. A process that opened the directory just before checks after locking that the name
 *     still leads to the same directory, and otherwise starts over. */
#define SHARED_TREE_IDLE_S 3600
#define SHARED_TREE_PREFIX "kfdsim-tree-"

static int shared_tree_fd = -1;

static bool pid_dead(int pid)
{
  return pid > 0 && pid != getpid() && kill(pid, 0) != 0 && errno == ESRCH;
}

/* Remove a shared tree nobody holds, after renaming it out of reach. */
static void sweep_shared_tree(const char *base, const char *name)
{
  static unsigned doomed;
  char path[512], away[512];
  snprintf(path, sizeof(path), "%s/%s", base, name);
  int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    return;
  if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
    snprintf(away, sizeof(away), "%s/kfdsim-doomed-%d-%u", base, (int)getpid(), doomed++);
    if (rename(path, away) == 0)
      remove_tree(away);
  }
  close(fd);
}

/* Remove what dead processes left: private trees (kfdsim-<pid>-*, before trees were shared, and
 * the fallback), unfinished shared trees (kfdsim-build-<pid>-*), interrupted sweeps
 * (kfdsim-doomed-<pid>-*); and shared trees idle for longer than SHARED_TREE_IDLE_S. */
static void sweep_stale_trees(const char *base, const char *keep)
{
  DIR *d = opendir(base);
  struct dirent *e;
  if (!d)
    return;
  time_t now = time(NULL);
  while ((e = readdir(d))) {
    int pid;
    char suffix[64], path[512];
    struct stat st;
    if (strncmp(e->d_name, "kfdsim-", 7))
      continue;
    snprintf(path, sizeof(path), "%s/%s", base, e->d_name);
    if (lstat(path, &st) || !S_ISDIR(st.st_mode) || st.st_uid != getuid())
      continue;
    if (!strncmp(e->d_name, SHARED_TREE_PREFIX, strlen(SHARED_TREE_PREFIX))) {
      if (strcmp(e->d_name, keep) && now - st.st_mtime > SHARED_TREE_IDLE_S)
        sweep_shared_tree(base, e->d_name);
      continue;
    }
    if ((sscanf(e->d_name, "kfdsim-build-%d-%63s", &pid, suffix) == 2 ||
         sscanf(e->d_name, "kfdsim-doomed-%d-%63s", &pid, suffix) == 2 ||
         sscanf(e->d_name, "kfdsim-%d-%63s", &pid, suffix) == 2) && pid_dead(pid))
      remove_tree(path);
  }
  closedir(d);
}

/* tmpfs when there is one (thousands of small files), else $TMPDIR or /tmp */
static const char *tree_base(void)
{
  const char *tmp = getenv("TMPDIR");
  if (access("/dev/shm", W_OK | X_OK) == 0)
    return "/dev/shm";
  return tmp && *tmp ? tmp : "/tmp";
}

/* Write the whole tree below sim_drv.sysfs_root (or only hash it, in a dry run). */
static int generate_tree(void)
{
  int r = mkdirs("%s" KFD_SYSFS "/topology/nodes", sim_drv.sysfs_root);
  if (!r)
    r = mkdirs("%s/sys/class/kfd", sim_drv.sysfs_root);
  if (!r) {
    char link[512];
    snprintf(link, sizeof(link), "%s/sys/class/kfd/kfd", sim_drv.sysfs_root);
    r = gen_symlink("../../devices/virtual/kfd/kfd", link);
  }
  if (!r)
    r = write_str(KFD_SYSFS "/topology", "generation_id", "1\n");
  if (!r)
    r = write_str(KFD_SYSFS "/topology", "system_properties",
                  "platform_oem 0\nplatform_id 0\nplatform_rev 0\n");
  if (!r)
    r = write_cpu_node();
  for (uint32_t i = 0; !r && i < sim_drv.n_gpus; i++) {
    r = write_gpu_node(&sim_drv.gpus[i]);
    if (!r)
      r = write_drm_node(&sim_drv.gpus[i]);
  }
  return r;
}

/* Open and share-lock the tree at `path`. 0, -ENOENT when it does not exist (or was swept away
 * meanwhile), another -errno on failure. */
static int acquire_shared_tree(const char *path)
{
  int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    return -errno;
  struct stat held, named;
  if (flock(fd, LOCK_SH) || fstat(fd, &held)) {
    int e = -errno;
    close(fd);
    return e;
  }
  if (stat(path, &named) || named.st_ino != held.st_ino || named.st_dev != held.st_dev) {
    close(fd);
    return -ENOENT;   /* renamed away by a sweep between our open and our lock */
  }
  futimens(fd, NULL); /* in use: keeps sweeps away for SHARED_TREE_IDLE_S */
  /* Out of the way of programs that expect their next descriptor to be a low number. */
  int high = fcntl(fd, F_DUPFD_CLOEXEC, 200);
  if (high >= 0) {
    close(fd);
    fd = high;
  }
  shared_tree_fd = fd;
  return 0;
}

/* Write a private copy and publish it under `path`; losing the race to another process is
 * fine (its tree has the same content). */
static int publish_shared_tree(const char *base, const char *path)
{
  char tmp[256];
  snprintf(tmp, sizeof(tmp), "%s/kfdsim-build-%d-XXXXXX", base, (int)getpid());
  if (!mkdtemp(tmp))
    return -errno;
  snprintf(sim_drv.sysfs_root, sizeof(sim_drv.sysfs_root), "%s", tmp);
  int r = generate_tree();
  if (!r && rename(tmp, path) && errno != EEXIST && errno != ENOTEMPTY)
    r = -errno;
  if (access(tmp, F_OK) == 0)
    remove_tree(tmp);   /* lost the race (or failed): ours is not needed */
  return r;
}

static int build_shared_tree(const char *base)
{
  char name[128], path[256];
  memset(&gen, 0, sizeof(gen));
  gen.dry = true;
  gen.h[0] = 0xcbf29ce484222325ull;
  gen.h[1] = 0x84222325cbf29ce4ull;
  sim_drv.sysfs_root[0] = 0;
  int r = generate_tree();
  gen.dry = false;
  if (r)
    return r;
  snprintf(name, sizeof(name), SHARED_TREE_PREFIX "%u-%016llx%016llx", (unsigned)getuid(),
           (unsigned long long)gen.h[0], (unsigned long long)gen.h[1]);
  snprintf(path, sizeof(path), "%s/%s", base, name);
  sweep_stale_trees(base, name);
  for (int tries = 0; tries < 8; tries++) {
    r = acquire_shared_tree(path);
    if (r != -ENOENT)
      break;
    r = publish_shared_tree(base, path);
    if (r)
      break;
  }
  if (!r) {
    snprintf(sim_drv.sysfs_root, sizeof(sim_drv.sysfs_root), "%s", path);
    sim_drv.sysfs_owner = 0;   /* shared: never removed at exit */
  }
  return r;
}

/* The fallback when sharing fails (no flock on this file system, say): a private tree that the
 * process removes at exit. */
static int build_private_tree(const char *base)
{
  snprintf(sim_drv.sysfs_root, sizeof(sim_drv.sysfs_root), "%s/kfdsim-%d-XXXXXX", base, (int)getpid());
  if (!mkdtemp(sim_drv.sysfs_root))
    return -errno;
  sim_drv.sysfs_owner = getpid();
  int r = generate_tree();
  if (r)
    sim_sysfs_remove();
  return r;
}

int sim_sysfs_build(void)
{
  const char *base = tree_base();
  int r = build_shared_tree(base);
  if (r) {
    sim_log("shared sysfs tree unavailable (%s): using a private one", strerror(-r));
    r = build_private_tree(base);
  }
  return r;
}

void sim_sysfs_remove(void)
{
  if (!sim_drv.sysfs_root[0] || sim_drv.sysfs_owner != getpid())
    return;
  remove_tree(sim_drv.sysfs_root);
  sim_drv.sysfs_root[0] = 0;
}

/* ---- path rewriting and device nodes ----------------------------------------------------- */

static bool has_prefix(const char *path, const char *prefix)
{
  size_t n = strlen(prefix);
  return !strncmp(path, prefix, n) && (path[n] == 0 || path[n] == '/');
}

static bool our_drm_char(const char *path)
{
  static const char pfx[] = "/sys/dev/char/226:";
  if (strncmp(path, pfx, sizeof(pfx) - 1))
    return false;
  char *end;
  unsigned long minor = strtoul(path + sizeof(pfx) - 1, &end, 10);
  return (*end == 0 || *end == '/') && sim_gpu_by_minor((uint32_t)minor);
}

const char *sim_sysfs_rewrite(const char *path, char *out, size_t out_size)
{
  if (!path || path[0] != '/' || strncmp(path, "/sys/", 5))
    return NULL;
  if (!has_prefix(path, "/sys/devices/virtual/kfd") && !has_prefix(path, "/sys/class/kfd") &&
      !our_drm_char(path))
    return NULL;
  if (sim_driver_init() != 0)
    return NULL;
  if ((size_t)snprintf(out, out_size, "%s%s", sim_drv.sysfs_root, path) >= out_size)
    return NULL;
  return out;
}

const char *sim_dev_dir_rewrite(const char *path, char *out, size_t out_size)
{
  struct stat st;
  if (!path || (strcmp(path, "/dev/dri") && strcmp(path, "/dev/dri/")))
    return NULL;
  if (stat("/dev/dri", &st) == 0 || sim_driver_init() != 0)
    return NULL;   /* a machine with real DRM nodes lists its own */
  if ((size_t)snprintf(out, out_size, "%s/dev/dri", sim_drv.sysfs_root) >= out_size)
    return NULL;
  return out;
}

int sim_dev_match(const char *path, enum sim_file_kind *kind, uint32_t *minor)
{
  if (!path || strncmp(path, "/dev/", 5))
    return 0;
  if (!strcmp(path, "/dev/kfd")) {
    *kind = SIM_FILE_KFD;
    *minor = 0;
    return 1;
  }
  static const char pfx[] = "/dev/dri/renderD";
  if (!strncmp(path, pfx, sizeof(pfx) - 1)) {
    char *end;
    unsigned long m = strtoul(path + sizeof(pfx) - 1, &end, 10);
    if (*end || m < SIM_RENDER_MINOR_BASE || m >= SIM_RENDER_MINOR_BASE + SIM_MAX_GPUS)
      return 0;
    if (sim_driver_init() != 0 || !sim_gpu_by_minor((uint32_t)m))
      return 0;
    *kind = SIM_FILE_RENDER;
    *minor = (uint32_t)m;
    return 1;
  }
  return 0;
}

static void fill_chr_stat(struct stat *st, dev_t rdev, ino_t ino)
{
  memset(st, 0, sizeof(*st));
  st->st_mode = S_IFCHR | 0666;
  st->st_rdev = rdev;
  st->st_ino = ino;
  st->st_nlink = 1;
  st->st_blksize = 4096;
  st->st_dev = makedev(0, 5);
}

/* 1 when `path` is an emulated node (st filled), 0 when not ours. */
int sim_dev_stat(const char *path, struct stat *st)
{
  enum sim_file_kind kind;
  uint32_t minor;
  if (path && !strcmp(path, "/dev/dri") && sim_driver_init() == 0) {
    /* libdrm stats /dev/dri before opening a render node; a machine without a GPU lacks it */
    struct stat real;
    if (stat("/dev/dri", &real) == 0) {
      *st = real;
      return 1;
    }
    memset(st, 0, sizeof(*st));
    st->st_mode = S_IFDIR | 0755;
    st->st_nlink = 2;
    st->st_ino = 0x6b66640;
    st->st_dev = makedev(0, 5);
    return 1;
  }
  if (!sim_dev_match(path, &kind, &minor) || sim_driver_init() != 0)
    return 0;
  if (kind == SIM_FILE_KFD)
    fill_chr_stat(st, makedev(SIM_KFD_MAJOR, 0), 0x6b6664);
  else
    fill_chr_stat(st, makedev(SIM_DRM_MAJOR, minor), 0x6b666400 + minor);
  return 1;
}
