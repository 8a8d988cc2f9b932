/* kfdsim driver state: settings, the emulated GPUs, the facts the command processors ask for,
 * the log hook, and the per-process lifetime (KFD process creation, fork, exit). */
#define _GNU_SOURCE
#include "kfd/uapi.h"   /* first: keeps the raw UAPI linux/types.h out */
#include <ctype.h>
#include <pthread.h>
#include <stdatomic.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kfd/kfd_priv.h"
#include "kfd/node.h"

struct sim_driver sim_drv = { .lock = PTHREAD_MUTEX_INITIALIZER };

void sim_log(const char *fmt, ...)
{
  if (!sim_drv.log)
    return;
  char line[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof(line), fmt, ap);
  va_end(ap);
  fprintf(stderr, "kfdsim[%d]: %s\n", (int)getpid(), line);
}

enum sim_gfx sim_gpu_gfx(const struct sim_gpu *gpu) { return gpu->prof->gfx; }
uint32_t sim_gpu_shader_mhz(const struct sim_gpu *gpu) { return gpu->prof->max_engine_clk_fcompute; }
uint32_t sim_gpu_id(const struct sim_gpu *gpu) { return gpu->gpu_id; }
uint32_t sim_gpu_cu_count(const struct sim_gpu *gpu) { return sim_profile_cu_count(gpu->prof); }

struct sim_gpu *sim_gpu_by_id(uint32_t gpu_id)
{
  for (uint32_t i = 0; i < sim_drv.n_gpus; i++)
    if (sim_drv.gpus[i].gpu_id == gpu_id)
      return &sim_drv.gpus[i];
  return NULL;
}

struct sim_gpu *sim_gpu_by_minor(uint32_t minor)
{
  for (uint32_t i = 0; i < sim_drv.n_gpus; i++)
    if (sim_drv.gpus[i].render_minor == minor)
      return &sim_drv.gpus[i];
  return NULL;
}

/* "64G", "512M", "1048576": bytes, or 0 when malformed. */
static uint64_t parse_size(const char *s)
{
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 0);
  if (errno || end == s)
    return 0;
  switch (toupper((unsigned char)*end)) {
  case 'K': v <<= 10; end++; break;
  case 'M': v <<= 20; end++; break;
  case 'G': v <<= 30; end++; break;
  case 'T': v <<= 40; end++; break;
  default: break;
  }
  if (*end == 'i' || *end == 'B')
    end++;
  if (*end == 'B')
    end++;
  return *end ? 0 : v;
}

/* Sizes amdkfd derives from the node properties: kfd_queue.c kfd_queue_ctx_save_restore_size()
 * (gfx9: 8 control-stack bytes per wave, 40-byte save-area header, 0x80000 VGPR bytes per CU on
 * gfx90a/gfx942, SGPR 0x4000, LDS 0x10000, HWREG 0x1000; sizes per XCC). */
static void gpu_queue_sizes(struct sim_gpu *g)
{
  const struct sim_profile *p = g->prof;
  uint32_t cu_num = p->simd_count / p->simd_per_cu / p->num_xcc;
  uint32_t wave_num = cu_num * 40;
  uint32_t se_limit = p->array_count / p->simd_arrays_per_engine * 512;
  if (se_limit < wave_num)
    wave_num = se_limit;
  uint64_t wg_data = SIM_ALIGN((uint64_t)cu_num * (0x80000 + 0x4000 + 0x10000 + 0x1000), SIM_PAGE_SIZE);
  g->ctl_stack_size = (uint32_t)SIM_ALIGN(40 + wave_num * 8 + 8, SIM_PAGE_SIZE);
  g->debug_memory_size = (uint32_t)SIM_ALIGN(wave_num * 32, 64);
  g->cwsr_size = g->ctl_stack_size + (uint32_t)wg_data;
  g->eop_buffer_size = 4096;
}

static void gpu_init(struct sim_gpu *g, uint32_t index, const struct sim_profile *p, uint64_t vram)
{
  memset(g, 0, sizeof(*g));
  g->index = index;
  g->prof = p;
  /* amdkfd hashes device facts into a 16-bit gpu_id; any stable non-zero value will do. */
  g->gpu_id = (p->gpu_id_base + index * 2311u) & 0xffffu;
  if (!g->gpu_id)
    g->gpu_id = 1;
  g->render_minor = SIM_RENDER_MINOR_BASE + index;
  g->location_id = (0x0c + index * 0x10) << 8;    /* PCI bus:dev.fn as bus << 8 */
  g->unique_id = p->unique_id_base + index;
  g->vram_size = vram ? vram : p->vram_size;
  g->doorbell_fd = -1;
  g->mmio_fd = -1;
  pthread_rwlock_init(&g->vm.lock, NULL);
  gpu_queue_sizes(g);
}

/* KFDSIM_GPUS: 1..SIM_MAX_GPUS, 0 when not set, -1 when malformed. */
static long setting_gpus(void)
{
  const char *gpus = getenv("KFDSIM_GPUS");
  if (!gpus || !*gpus)
    return 0;
  char *end;
  long n = strtol(gpus, &end, 10);
  if (*end || n < 1 || n > SIM_MAX_GPUS) {
    sim_log("KFDSIM_GPUS=%s must be 1..%d", gpus, SIM_MAX_GPUS);
    return -1;
  }
  return n;
}

/* KFDSIM_VRAM in bytes (page aligned), 0 when not set, -1 when malformed. */
static int64_t setting_vram(void)
{
  const char *vs = getenv("KFDSIM_VRAM");
  if (!vs || !*vs)
    return 0;
  uint64_t vram = parse_size(vs) & ~(SIM_PAGE_SIZE - 1);
  if (!vram || vram > INT64_MAX) {
    sim_log("KFDSIM_VRAM=%s is not a size (e.g. 16G)", vs);
    return -1;
  }
  return (int64_t)vram;
}

_Static_assert(SIM_MAX_GPUS <= SIM_NODE_MAX_GPUS, "a node holds every GPU");

/* KFDSIM_NODE: the node's configuration wins over defaults; settings this process gives must
 * match it (a real node's GPUs are what they are). */
static int join_node_settings(const char *node, struct sim_node_config *cfg)
{
  struct sim_node_config want = *cfg, dflt = { .n_gpus = 1 }, have;
  const struct sim_profile *p = sim_profile_find(want.profile[0] ? want.profile : "gfx942");
  snprintf(dflt.profile, sizeof(dflt.profile), "%s", p->name);
  dflt.vram_size = p->vram_size;
  int r = sim_node_attach(node, &want, &dflt, &have);
  if (r == -EINVAL && sim_node_attached())
    sim_log("KFDSIM_NODE=%s is %u x %s with %llu bytes of VRAM; this process asked otherwise",
            node, have.n_gpus, have.profile, (unsigned long long)have.vram_size);
  else if (r)
    sim_log("KFDSIM_NODE=%s: cannot attach (%s)", node, strerror(-r));
  if (!r)
    *cfg = have;
  return r;
}

static int read_settings(void)
{
  const char *log = getenv("KFDSIM_LOG");
  sim_drv.log = log && *log && strcmp(log, "0") != 0;

  struct sim_node_config cfg = { 0 };
  const char *prof = getenv("KFDSIM_PROFILE");
  if (prof && *prof) {
    if (!sim_profile_find(prof)) {
      sim_log("KFDSIM_PROFILE=%s is not one of %s", prof, sim_profile_names());
      return -EINVAL;
    }
    snprintf(cfg.profile, sizeof(cfg.profile), "%s", prof);
  }
  long n = setting_gpus();
  int64_t vram = setting_vram();
  if (n < 0 || vram < 0)
    return -EINVAL;
  cfg.n_gpus = (uint32_t)n;
  cfg.vram_size = (uint64_t)vram;

  const char *node = getenv("KFDSIM_NODE");
  if (node && *node) {
    if (sim_node_name_check(node)) {
      sim_log("KFDSIM_NODE=%s: a name of 1..%d characters [A-Za-z0-9._-]", node,
              SIM_NODE_NAME_MAX);
      return -EINVAL;
    }
    int r = join_node_settings(node, &cfg);
    if (r)
      return r;
  }
  sim_drv.prof = sim_profile_find(cfg.profile[0] ? cfg.profile : "gfx942");
  sim_drv.n_gpus = cfg.n_gpus ? cfg.n_gpus : 1;
  for (uint32_t i = 0; i < sim_drv.n_gpus; i++)
    gpu_init(&sim_drv.gpus[i], i, sim_drv.prof, cfg.vram_size);
  return 0;
}

static int init_status = 1;   /* 1: not yet, 0: ready, <0: failed */

int sim_driver_init(void)
{
  pthread_mutex_lock(&sim_drv.lock);
  if (init_status > 0) {
    sim_drv.pid = getpid();
    init_status = read_settings();
    if (!init_status)
      init_status = sim_sysfs_build();
    if (!init_status) {
      sim_drv.ready = true;
      sim_drv.next_mmap_offset = 1ull << 32;
      atexit(sim_driver_fini);
      sim_log("%u x %s ready, sysfs at %s", sim_drv.n_gpus, sim_drv.prof->name, sim_drv.sysfs_root);
    }
  }
  int r = init_status;
  pthread_mutex_unlock(&sim_drv.lock);
  return r;
}

void sim_driver_fini(void)
{
  sim_node_leave();
  sim_sysfs_remove();
}

__attribute__((destructor)) static void sim_driver_destructor(void)
{
  sim_driver_fini();
}

static _Atomic pid_t self_pid;

static void self_pid_forget(void)
{
  atomic_store(&self_pid, 0);
  sim_node_forget_slot();
}

/* Registered when the library loads (before the program's own libraries register theirs), so
 * that in a fork child this handler runs first: another library's child handler may close a
 * /dev/kfd file, and kfdsim must know by then that it runs in the child. */
__attribute__((constructor)) static void self_pid_hook(void)
{
  pthread_atfork(NULL, NULL, self_pid_forget);
}

pid_t sim_self_pid(void)
{
  pid_t p = atomic_load_explicit(&self_pid, memory_order_relaxed);
  if (p)
    return p;
  p = getpid();
  atomic_store_explicit(&self_pid, p, memory_order_relaxed);
  return p;
}

/* The KFD process: amdkfd creates one per mm on the first open of /dev/kfd, with a process
 * device (pdd) for every GPU. A child after fork() starts with none: the state it inherited
 * describes the parent's buffers and is dropped (not freed: the parent owns that memory). */
int sim_process_attach(void)
{
  if (sim_drv.process_open && sim_drv.pid == sim_self_pid())
    return 0;
  if (sim_drv.pid != sim_self_pid()) {
    sim_drv.pid = sim_self_pid();
    for (uint32_t i = 0; i < sim_drv.n_gpus; i++) {
      struct sim_gpu *g = &sim_drv.gpus[i];
      g->doorbell_fd = -1;
      g->doorbells = NULL;
      g->mmio_fd = -1;
      g->mmio = NULL;
      g->vm.maps = NULL;
      g->vm.n = g->vm.cap = 0;
      /* The forking thread's translation cache holds the parent's maps. */
      atomic_fetch_add(&g->vm.generation, 1);
      pthread_rwlock_init(&g->vm.lock, NULL);
    }
    sim_memory_reset();
    sim_events_reset();
    sim_svm_reset();
    sim_queues_reset();
  }
  /* One slot of the shared node per process: its VRAM use is counted there (node.c). */
  int r = sim_node_join();
  if (r) {
    sim_log("KFDSIM_NODE: no process slot (%s)", strerror(-r));
    return r;
  }
  for (uint32_t i = 0; i < sim_drv.n_gpus; i++) {
    struct sim_gpu *g = &sim_drv.gpus[i];
    g->vram_used = 0;
    g->vm_acquired = false;
    g->drm_file = NULL;
    g->scratch_va = g->tba = g->tma = 0;
  }
  sim_drv.xnack = false;
  sim_drv.runtime_enabled = false;
  sim_drv.process_open = true;
  sim_drv.kfd_files = 0;
  return 0;
}

/* The last /dev/kfd file of the process closed: amdkfd releases the process (queues, buffers,
 * events, SVM ranges) so that a later open starts clean (ROCr's hsa_shut_down + hsa_init).
 * Called with sim_drv.lock held. */
void sim_process_release(void)
{
  sim_queues_release();
  sim_events_release();
  sim_svm_release();
  sim_memory_release();
  for (uint32_t i = 0; i < sim_drv.n_gpus; i++) {
    struct sim_gpu *g = &sim_drv.gpus[i];
    g->vram_used = 0;
    g->vm_acquired = false;
    g->drm_file = NULL;
  }
  sim_drv.process_open = false;
}

/* ---- VRAM accounting: this process's, and the node's when processes share one ------------- */

int sim_vram_charge(struct sim_gpu *g, uint64_t size)
{
  if (sim_node_attached()) {
    int r = sim_node_charge(g->index, size);
    if (r)
      return r;
  } else if (size > g->vram_size - g->vram_used) {
    return -ENOMEM;   /* amdgpu_amdkfd_reserve_mem_limit */
  }
  g->vram_used += size;
  return 0;
}

void sim_vram_uncharge(struct sim_gpu *g, uint64_t size)
{
  if (sim_node_attached())
    sim_node_uncharge(g->index, size);
  g->vram_used -= size;
}

uint64_t sim_vram_used(struct sim_gpu *g)
{
  return sim_node_attached() ? sim_node_used(g->index) : g->vram_used;
}

const char *sim_popen_answer(const char *command)
{
  /* rocminfo checks `lsmod | grep amdgpu` before anything else. */
  if (command && strstr(command, "lsmod") && sim_driver_init() == 0)
    return "amdgpu              15765504  0\n";
  return NULL;
}
