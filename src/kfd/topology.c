/* src/kfd/topology.c: the KFD sysfs topology (kfd_topology.c's node_show() and friends), read
 * once into immutable struct kfd_node records, and the visible-device filter. */
#define _GNU_SOURCE
#include "kfd.h"
#include "kfd_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TOPOLOGY_DIR "/sys/devices/virtual/kfd/kfd/topology"
#define MAX_NODES 64
#define PROPS_MAX 8192

static pthread_mutex_t topo_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic bool topo_loaded;           /* release-stored after every field below is final */
static struct kfd_system topo_system;
static struct kfd_node topo_nodes[MAX_NODES]; /* every node, by sysfs index */
static uint32_t topo_node_count;
static const struct kfd_node *all_gpus[MAX_NODES];  /* GPU nodes in sysfs order */
static int all_gpu_count;
/* The visible list (after HIP_VISIBLE_DEVICES filtering); protected by topo_lock for writers,
 * read without lock: set once at init before devices are used, as the header demands. */
static const struct kfd_node *visible_gpus[MAX_NODES];
static _Atomic int visible_count;

/* Read a small sysfs file into buf (NUL-terminated). Returns length or -errno. */
static int read_file(const char *path, char *buf, size_t cap)
{
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  size_t len = 0;

  if (fd < 0)
    return -errno;
  while (len + 1 < cap) {
    ssize_t r = read(fd, buf + len, cap - 1 - len);
    if (r < 0) {
      if (errno == EINTR)
        continue;
      int err = -errno;
      close(fd);
      return err;
    }
    if (r == 0)
      break;
    len += (size_t)r;
  }
  close(fd);
  buf[len] = '\0';
  return (int)len;
}

/* Find "key value" on its own line of a properties file. Returns true and sets *out. */
static bool prop_u64(const char *props, const char *key, uint64_t *out)
{
  size_t klen = strlen(key);
  const char *p = props;

  while (p && *p) {
    if (strncmp(p, key, klen) == 0 && p[klen] == ' ') {
      *out = strtoull(p + klen + 1, NULL, 0);
      return true;
    }
    p = strchr(p, '\n');
    if (p)
      p++;
  }
  return false;
}

static uint32_t prop_u32(const char *props, const char *key)
{
  uint64_t v = 0;
  prop_u64(props, key, &v);
  return (uint32_t)v;
}

static uint64_t prop_u64_or0(const char *props, const char *key)
{
  uint64_t v = 0;
  prop_u64(props, key, &v);
  return v;
}

static int read_sub_props(uint32_t node, const char *sub, uint32_t idx, char *buf, size_t cap)
{
  char path[256];
  snprintf(path, sizeof(path), TOPOLOGY_DIR "/nodes/%u/%s/%u/properties", node, sub, idx);
  return read_file(path, buf, cap);
}

static void parse_mem_banks(struct kfd_node *n, char *buf)
{
  uint32_t count = n->mem_banks_count < KFD_MAX_MEM_BANKS ? n->mem_banks_count : KFD_MAX_MEM_BANKS;

  for (uint32_t i = 0; i < count; i++) {
    struct kfd_mem_bank *b = &n->mem_banks[i];
    if (read_sub_props(n->node_id, "mem_banks", i, buf, PROPS_MAX) < 0)
      continue;
    b->heap_type = prop_u32(buf, "heap_type");
    b->size_bytes = prop_u64_or0(buf, "size_in_bytes");
    b->flags = prop_u32(buf, "flags");
    b->width = prop_u32(buf, "width");
    b->mem_clk_max = prop_u32(buf, "mem_clk_max");
    if (b->heap_type == KFD_HEAP_FRAME_BUFFER_PUBLIC || b->heap_type == KFD_HEAP_FRAME_BUFFER_PRIVATE)
      n->vram_size += b->size_bytes;
  }
}

/* sibling_map is a comma-separated list of 0/1 per CU: count the CUs sharing one instance. */
static uint32_t count_siblings(const char *props)
{
  const char *p = strstr(props, "sibling_map ");
  uint32_t n = 0;

  if (!p)
    return 0;
  for (p += strlen("sibling_map "); *p && *p != '\n'; p++)
    n += *p == '1';
  return n;
}

/* A GPU lists one cache instance per CU or per XCC (313 on MI300X); keep one record per distinct
 * (level, type, size) and derive the per-level sizes from the data caches. */
static void parse_caches(struct kfd_node *n, char *buf)
{
  uint32_t kept = 0;

  for (uint32_t i = 0; i < n->caches_count; i++) {
    struct kfd_cache tmp, *c = &tmp;
    if (read_sub_props(n->node_id, "caches", i, buf, PROPS_MAX) < 0)
      continue;
    c->level = prop_u32(buf, "level");
    c->size_kib = prop_u32(buf, "size");
    c->line_size = prop_u32(buf, "cache_line_size");
    c->type = prop_u32(buf, "type");
    c->sibling_count = count_siblings(buf);
    bool dup = false;
    for (uint32_t k = 0; k < kept; k++)
      dup |= n->caches[k].level == c->level && n->caches[k].type == c->type &&
             n->caches[k].size_kib == c->size_kib;
    if (!dup && kept < KFD_MAX_CACHES)
      n->caches[kept++] = *c;
    n->n_caches = kept;
    if (!(c->type & KFD_CACHE_TYPE_DATA) && c->type)
      continue; /* instruction-only caches do not count as L1/L2 */
    if (c->level == 1 && !n->l1_kib)
      n->l1_kib = c->size_kib;
    if (c->level == 2 && !n->l2_kib) {
      n->l2_kib = c->size_kib;
      n->cache_line_size = c->line_size;
    }
    if (c->level == 3 && !n->l3_kib)
      n->l3_kib = c->size_kib;
  }
}

static void parse_links(struct kfd_node *n, const char *sub, uint32_t count, bool p2p, char *buf)
{
  for (uint32_t i = 0; i < count && n->n_io_links < KFD_MAX_IO_LINKS; i++) {
    struct kfd_io_link *l = &n->io_links[n->n_io_links];
    if (read_sub_props(n->node_id, sub, i, buf, PROPS_MAX) < 0)
      continue;
    l->type = prop_u32(buf, "type");
    l->node_from = prop_u32(buf, "node_from");
    l->node_to = prop_u32(buf, "node_to");
    l->weight = prop_u32(buf, "weight");
    l->min_latency = prop_u32(buf, "min_latency");
    l->max_latency = prop_u32(buf, "max_latency");
    l->min_bandwidth = prop_u32(buf, "min_bandwidth");
    l->max_bandwidth = prop_u32(buf, "max_bandwidth");
    l->flags = prop_u32(buf, "flags");
    l->p2p = p2p;
    n->n_io_links++;
  }
}

/* Marketing names by PCI device id: data, not code (AMD's amdgpu.ids lists these names). */
static const struct { uint32_t device_id; const char *name; } marketing_names[] = {
  {0x740c, "AMD Instinct MI250X/MI250"},
  {0x740f, "AMD Instinct MI210"},
  {0x7408, "AMD Instinct MI250X"},
  {0x74a0, "AMD Instinct MI300A"},
  {0x74a1, "AMD Instinct MI300X"},
  {0x74a5, "AMD Instinct MI325X"},
  {0x74a9, "AMD Instinct MI300X HF"},
  {0x74b5, "AMD Instinct MI300X VF"},
};

static void derive_names(struct kfd_node *n)
{
  /* gfx_target_version = major * 10000 + minor * 100 + stepping (kfd_topology.c); the ISA
   * name prints minor and stepping as hex digits, as libhsakmt and ROCr do (gfx90a, gfx942). */
  n->gfx_major = n->gfx_target_version / 10000;
  n->gfx_minor = (n->gfx_target_version / 100) % 100;
  n->gfx_stepping = n->gfx_target_version % 100;
  snprintf(n->name, sizeof(n->name), "gfx%u%x%x", n->gfx_major, n->gfx_minor, n->gfx_stepping);
  snprintf(n->marketing_name, sizeof(n->marketing_name), "%s", n->name);
  for (size_t i = 0; i < sizeof(marketing_names) / sizeof(marketing_names[0]); i++)
    if (marketing_names[i].device_id == n->device_id)
      snprintf(n->marketing_name, sizeof(n->marketing_name), "%s", marketing_names[i].name);
}

/* The CWSR geometry the kernel computes per node and checks at CREATE_QUEUE
 * (kfd_queue.c kfd_queue_ctx_save_restore_size(), kfd_queue_acquire_buffers()). */
static void derive_cwsr(struct kfd_node *n)
{
  uint32_t gfxv = n->gfx_target_version;
  uint32_t xcc = n->num_xcc ? n->num_xcc : 1;
  uint32_t cu_num, wave_num, vgpr_per_cu, wg_per_cu, ctl;

  if (gfxv < 80001 || !n->simd_per_cu || !n->simd_arrays_per_engine)
    return;
  cu_num = n->simd_count / n->simd_per_cu / xcc;
  if (gfxv < 100100) {
    uint32_t limit = n->array_count / n->simd_arrays_per_engine * 512;
    wave_num = cu_num * 40 < limit ? cu_num * 40 : limit;
  } else {
    wave_num = cu_num * 32;
  }
  vgpr_per_cu = 0x40000;
  if (gfxv == 90402 || gfxv == 90010 || gfxv == 90008 || gfxv == 90500)
    vgpr_per_cu = 0x80000;
  else if (gfxv == 110000 || gfxv == 110001 || gfxv == 120000 || gfxv == 120001)
    vgpr_per_cu = 0x60000;
  /* VGPRs + SGPRs (0x4000) + LDS (64 KiB, or the node's LDS on gfx950) + HW registers (0x1000). */
  wg_per_cu = vgpr_per_cu + 0x4000 + (gfxv == 90500 ? n->lds_size_in_kb << 10 : 0x10000) + 0x1000;
  n->wg_data_size = (cu_num * wg_per_cu + 4095u) & ~4095u;
  /* 8 bytes per wave before gfx10 (12 after) + 8, behind the 40-byte save-area header. */
  ctl = wave_num * (gfxv >= 100100 ? 12u : 8u) + 8u;
  ctl = (40u + ctl + 4095u) & ~4095u;
  if (gfxv / 10000 * 10000 == 100000 && ctl > 0x7000)
    ctl = 0x7000;
  n->ctl_stack_size = ctl;
  n->cwsr_size = ctl + n->wg_data_size;
  n->debugger_bytes = (wave_num * 32u + 63u) & ~63u;
}

static void parse_node_props(struct kfd_node *n, const char *p)
{
  n->cpu_cores_count = prop_u32(p, "cpu_cores_count");
  n->simd_count = prop_u32(p, "simd_count");
  n->mem_banks_count = prop_u32(p, "mem_banks_count");
  n->caches_count = prop_u32(p, "caches_count");
  n->io_links_count = prop_u32(p, "io_links_count");
  n->p2p_links_count = prop_u32(p, "p2p_links_count");
  n->max_waves_per_simd = prop_u32(p, "max_waves_per_simd");
  n->lds_size_in_kb = prop_u32(p, "lds_size_in_kb");
  n->gds_size_in_kb = prop_u32(p, "gds_size_in_kb");
  n->num_gws = prop_u32(p, "num_gws");
  n->wave_front_size = prop_u32(p, "wave_front_size");
  n->array_count = prop_u32(p, "array_count");
  n->simd_arrays_per_engine = prop_u32(p, "simd_arrays_per_engine");
  n->cu_per_simd_array = prop_u32(p, "cu_per_simd_array");
  n->simd_per_cu = prop_u32(p, "simd_per_cu");
  n->max_slots_scratch_cu = prop_u32(p, "max_slots_scratch_cu");
  n->gfx_target_version = prop_u32(p, "gfx_target_version");
  n->vendor_id = prop_u32(p, "vendor_id");
  n->device_id = prop_u32(p, "device_id");
  n->location_id = prop_u32(p, "location_id");
  n->domain = prop_u32(p, "domain");
  n->drm_render_minor = prop_u32(p, "drm_render_minor");
  n->hive_id = prop_u64_or0(p, "hive_id");
  n->num_sdma_engines = prop_u32(p, "num_sdma_engines");
  n->num_sdma_xgmi_engines = prop_u32(p, "num_sdma_xgmi_engines");
  n->num_sdma_queues_per_engine = prop_u32(p, "num_sdma_queues_per_engine");
  n->num_cp_queues = prop_u32(p, "num_cp_queues");
  n->max_engine_clk_fcompute = prop_u32(p, "max_engine_clk_fcompute");
  n->max_engine_clk_ccompute = prop_u32(p, "max_engine_clk_ccompute");
  n->local_mem_size = prop_u64_or0(p, "local_mem_size");
  n->fw_version = prop_u32(p, "fw_version");
  n->capability = prop_u32(p, "capability");
  n->capability2 = prop_u32(p, "capability2");
  n->debug_prop = prop_u64_or0(p, "debug_prop");
  n->sdma_fw_version = prop_u32(p, "sdma_fw_version");
  n->unique_id = prop_u64_or0(p, "unique_id");
  n->num_xcc = prop_u32(p, "num_xcc");
  if (!n->num_xcc && n->simd_count)
    n->num_xcc = 1;
  n->cu_count = n->simd_per_cu ? n->simd_count / n->simd_per_cu : 0;
  n->sramecc = (n->capability & KFD_CAP_SRAM_EDCSUPPORTED) != 0;
  /* Doorbells are 8 bytes from gfx9 on, 4 before (libhsakmt queues.c DOORBELL_SIZE). */
  n->doorbell_size = n->gfx_target_version >= 90000 ? 8 : 4;
}

/* The GPU's NUMA node: the PCI device's "numa_node" attribute (dev_to_node(), -1 for
 * NUMA_NO_NODE), reached through the render node's /sys/dev/char link. It is also the CPU node
 * the GPU's io link points to (kfd_crat.c kfd_fill_gpu_direct_io_link_to_cpu uses the same
 * value). -1 when unknown. */
static int32_t read_numa_node(const struct kfd_node *n, char *buf)
{
  char path[96];

  snprintf(path, sizeof(path), "/sys/dev/char/226:%u/device/numa_node", n->drm_render_minor);
  if (read_file(path, buf, PROPS_MAX) <= 0)
    return -1;
  char *end;
  long v = strtol(buf, &end, 10);
  return end != buf && v >= 0 && v < 4096 ? (int32_t)v : -1;
}

static int parse_node(uint32_t id, struct kfd_node *n, char *buf)
{
  char path[256];
  int len;

  memset(n, 0, sizeof(*n));
  n->node_id = id;
  snprintf(path, sizeof(path), TOPOLOGY_DIR "/nodes/%u/gpu_id", id);
  len = read_file(path, buf, PROPS_MAX);
  if (len < 0)
    return len;
  n->gpu_id = (uint32_t)strtoul(buf, NULL, 0);
  snprintf(path, sizeof(path), TOPOLOGY_DIR "/nodes/%u/properties", id);
  len = read_file(path, buf, PROPS_MAX);
  if (len < 0)
    return len;
  parse_node_props(n, buf);
  if (n->simd_count)
    derive_names(n);
  else
    snprintf(n->name, sizeof(n->name), "cpu");
  derive_cwsr(n);
  /* Drivers that export the queue save geometry are authoritative (libhsakmt prefers them). */
  {
    uint64_t v;
    if (prop_u64(buf, "ctl_stack_size", &v) && v)
      n->ctl_stack_size = (uint32_t)v;
    if (prop_u64(buf, "cwsr_size", &v) && v)
      n->cwsr_size = (uint32_t)v;
  }
  parse_mem_banks(n, buf);
  parse_caches(n, buf);
  parse_links(n, "io_links", n->io_links_count, false, buf);
  parse_links(n, "p2p_links", n->p2p_links_count, true, buf);
  n->numa_node = n->simd_count ? read_numa_node(n, buf) : -1;
  return 0;
}

static uint32_t count_node_dirs(void)
{
  char path[256];
  uint32_t n = 0;

  for (; n < MAX_NODES; n++) {
    snprintf(path, sizeof(path), TOPOLOGY_DIR "/nodes/%u/properties", n);
    if (access(path, R_OK) != 0)
      break;
  }
  return n;
}

static int load_locked(void)
{
  char *buf = malloc(PROPS_MAX);
  int err = 0;

  if (!buf)
    return -ENOMEM;
  err = read_file(TOPOLOGY_DIR "/system_properties", buf, PROPS_MAX);
  if (err < 0)
    goto out;
  topo_system.platform_oem = prop_u64_or0(buf, "platform_oem");
  topo_system.platform_id = prop_u64_or0(buf, "platform_id");
  topo_system.platform_rev = prop_u64_or0(buf, "platform_rev");
  topo_node_count = count_node_dirs();
  all_gpu_count = 0;
  for (uint32_t i = 0; i < topo_node_count; i++) {
    err = parse_node(i, &topo_nodes[i], buf);
    if (err < 0)
      goto out;
    if (topo_nodes[i].gpu_id && topo_nodes[i].simd_count)
      all_gpus[all_gpu_count++] = &topo_nodes[i];
  }
  topo_system.node_count = topo_node_count;
  topo_system.gpu_count = (uint32_t)all_gpu_count;
  for (int i = 0; i < all_gpu_count; i++)
    visible_gpus[i] = all_gpus[i];
  atomic_store_explicit(&visible_count, all_gpu_count, memory_order_relaxed);
  err = 0;
out:
  free(buf);
  return err;
}

int kfd_topology_load(void)
{
  int err = 0;

  if (atomic_load_explicit(&topo_loaded, memory_order_acquire))
    return 0;
  pthread_mutex_lock(&topo_lock);
  if (!atomic_load_explicit(&topo_loaded, memory_order_relaxed)) {
    err = load_locked();
    if (err == -ENOENT)
      err = 0; /* no KFD at all: zero GPUs, not an error */
    if (!err)
      atomic_store_explicit(&topo_loaded, true, memory_order_release);
  }
  pthread_mutex_unlock(&topo_lock);
  return err;
}

int kfd_topology_system(struct kfd_system *sys)
{
  if (!sys)
    return -EINVAL;
  if (!atomic_load_explicit(&topo_loaded, memory_order_acquire))
    return -ENODEV;
  *sys = topo_system;
  kfd_version(&sys->version_major, &sys->version_minor);
  return 0;
}

int kfd_topology_set_visible(const int *idx, int n)
{
  int count = 0;

  if (!atomic_load_explicit(&topo_loaded, memory_order_acquire))
    return -ENODEV;
  if (n > 0 && !idx)
    return -EINVAL;
  pthread_mutex_lock(&topo_lock);
  if (n < 0) {
    for (count = 0; count < all_gpu_count; count++)
      visible_gpus[count] = all_gpus[count];
  } else {
    for (int i = 0; i < n && count < MAX_NODES; i++) {
      if (idx[i] < 0 || idx[i] >= all_gpu_count)
        break; /* HIP ignores the list from the first invalid entry on */
      bool dup = false;
      for (int j = 0; j < count; j++)
        dup |= visible_gpus[j] == all_gpus[idx[i]];
      if (dup)
        break;
      visible_gpus[count++] = all_gpus[idx[i]];
    }
  }
  atomic_store_explicit(&visible_count, count, memory_order_release);
  pthread_mutex_unlock(&topo_lock);
  return count;
}

int kfd_gpu_count(void)
{
  if (!atomic_load_explicit(&topo_loaded, memory_order_acquire))
    return 0;
  return atomic_load_explicit(&visible_count, memory_order_acquire);
}

const struct kfd_node *kfd_gpu(int index)
{
  if (index < 0 || index >= kfd_gpu_count())
    return NULL;
  return visible_gpus[index];
}

const struct kfd_node *kfd_node_by_id(uint32_t node_id)
{
  if (!atomic_load_explicit(&topo_loaded, memory_order_acquire) || node_id >= topo_node_count)
    return NULL;
  return &topo_nodes[node_id];
}

const struct kfd_node *kfd_node_by_gpu_id(uint32_t gpu_id)
{
  for (int i = 0; gpu_id && i < kfd_topology_all_gpu_count(); i++)
    if (all_gpus[i]->gpu_id == gpu_id)
      return all_gpus[i];
  return NULL;
}

bool kfd_node_can_access_peer(const struct kfd_node *from, const struct kfd_node *to)
{
  if (!from || !to)
    return false;
  if (from == to)
    return true;
  for (uint32_t i = 0; i < from->n_io_links; i++)
    if (from->io_links[i].node_to == to->node_id)
      return true;
  return false;
}

int kfd_topology_gpu_slot(const struct kfd_node *n)
{
  for (int i = 0; i < kfd_topology_all_gpu_count(); i++)
    if (all_gpus[i] == n)
      return i;
  return -1;
}

int kfd_topology_all_gpu_count(void)
{
  return atomic_load_explicit(&topo_loaded, memory_order_acquire) ? all_gpu_count : 0;
}
