/* The fake driver and interpreter behind the command-processor unit tests (see fake_kfd.h). */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fake_kfd.h"
#include "isa/isa.h"

struct mapping {
  uint64_t va, len;
  uint8_t *host;
  bool writable;
};

static pthread_mutex_t g_map_lock = PTHREAD_MUTEX_INITIALIZER;
static struct mapping g_maps[1024];
static unsigned g_nmaps;
static int g_gpu_token;

static unsigned g_interrupts, g_last_bits, g_faults, g_dispatches, g_returns, g_spin_release,
    g_hangs;
static uint32_t g_last_id;
static uint64_t g_last_fault_va;
static bool g_last_fault_write;

struct sim_gpu *fake_gpu(void) { return (struct sim_gpu *)&g_gpu_token; }

void fake_map(uint64_t va, void *host, uint64_t len, bool writable)
{
  pthread_mutex_lock(&g_map_lock);
  if (g_nmaps < 1024)
    g_maps[g_nmaps++] = (struct mapping){va, len, host, writable};
  pthread_mutex_unlock(&g_map_lock);
}

void fake_unmap_all(void)
{
  pthread_mutex_lock(&g_map_lock);
  g_nmaps = 0;
  pthread_mutex_unlock(&g_map_lock);
}

enum sim_gfx sim_gpu_gfx(const struct sim_gpu *gpu) { (void)gpu; return SIM_GFX942; }
uint32_t sim_gpu_shader_mhz(const struct sim_gpu *gpu) { (void)gpu; return 2100; }
uint32_t sim_gpu_id(const struct sim_gpu *gpu) { (void)gpu; return 4242; }
uint32_t sim_gpu_cu_count(const struct sim_gpu *gpu) { (void)gpu; return 4; }

/* The fake maps plain test buffers only: none is fine-grained system memory. */
bool sim_gpuvm_sys_uncached(struct sim_gpu *gpu, uint64_t va)
{
  (void)gpu;
  (void)va;
  return false;
}

void *sim_gpuvm_translate(struct sim_gpu *gpu, uint64_t va, uint64_t len, bool write)
{
  (void)gpu;
  void *p = NULL;
  pthread_mutex_lock(&g_map_lock);
  for (unsigned i = 0; i < g_nmaps; i++) {
    struct mapping *m = &g_maps[i];
    if (va >= m->va && len <= m->len && va - m->va <= m->len - len) {
      if (!write || m->writable)
        p = m->host + (va - m->va);
      break;
    }
  }
  pthread_mutex_unlock(&g_map_lock);
  return p;
}

void sim_event_interrupt(struct sim_gpu *gpu, uint32_t event_id, uint32_t valid_id_bits)
{
  (void)gpu;
  __atomic_store_n(&g_last_id, event_id, __ATOMIC_RELAXED);
  __atomic_store_n(&g_last_bits, valid_id_bits, __ATOMIC_RELAXED);
  __atomic_fetch_add(&g_interrupts, 1, __ATOMIC_RELEASE);
}

void sim_event_memory_fault(struct sim_gpu *gpu, uint64_t va, bool write)
{
  (void)gpu;
  __atomic_store_n(&g_last_fault_va, va, __ATOMIC_RELAXED);
  __atomic_store_n(&g_last_fault_write, write, __ATOMIC_RELAXED);
  __atomic_fetch_add(&g_faults, 1, __ATOMIC_RELEASE);
}

void sim_event_gpu_hang(struct sim_gpu *gpu)
{
  (void)gpu;
  __atomic_fetch_add(&g_hangs, 1, __ATOMIC_RELEASE);
}

void sim_log(const char *fmt, ...)
{
  if (!getenv("KFDSIM_LOG"))
    return;
  va_list ap;
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
}

unsigned fake_interrupt_count(void) { return __atomic_load_n(&g_interrupts, __ATOMIC_ACQUIRE); }
uint32_t fake_last_interrupt_id(void) { return __atomic_load_n(&g_last_id, __ATOMIC_RELAXED); }
unsigned fake_last_interrupt_bits(void) { return __atomic_load_n(&g_last_bits, __ATOMIC_RELAXED); }
unsigned fake_fault_count(void) { return __atomic_load_n(&g_faults, __ATOMIC_ACQUIRE); }
uint64_t fake_last_fault_va(void) { return __atomic_load_n(&g_last_fault_va, __ATOMIC_RELAXED); }
bool fake_last_fault_write(void) { return __atomic_load_n(&g_last_fault_write, __ATOMIC_RELAXED); }
unsigned fake_hang_count(void) { return __atomic_load_n(&g_hangs, __ATOMIC_ACQUIRE); }
unsigned fake_dispatch_count(void) { return __atomic_load_n(&g_dispatches, __ATOMIC_ACQUIRE); }
unsigned fake_dispatch_returns(void) { return __atomic_load_n(&g_returns, __ATOMIC_ACQUIRE); }
void fake_release_spin(void) { __atomic_store_n(&g_spin_release, 1, __ATOMIC_RELEASE); }

void fake_reset_events(void)
{
  __atomic_store_n(&g_interrupts, 0, __ATOMIC_RELAXED);
  __atomic_store_n(&g_faults, 0, __ATOMIC_RELAXED);
  __atomic_store_n(&g_dispatches, 0, __ATOMIC_RELAXED);
  __atomic_store_n(&g_last_id, 0, __ATOMIC_RELAXED);
}

static void fake_dispatch(const struct isa_dispatch *d, struct isa_result *r);

void isa_dispatch_run(const struct isa_dispatch *d, struct isa_result *r)
{
  fake_dispatch(d, r);
  __atomic_fetch_add(&g_returns, 1, __ATOMIC_RELEASE);
}

static void fake_dispatch(const struct isa_dispatch *d, struct isa_result *r)
{
  memset(r, 0, sizeof(*r));
  __atomic_fetch_add(&g_dispatches, 1, __ATOMIC_RELEASE);
  uint32_t *kd = d->translate(d->mem_ctx, d->kernel_object, 64, false);
  uint64_t *args = d->translate(d->mem_ctx, d->kernarg_address, 8, false);
  if (!kd || !args) {
    r->status = ISA_BAD_DISPATCH;
    snprintf(r->message, sizeof(r->message), "fake: descriptor or kernarg unmapped");
    return;
  }
  switch (kd[0]) {
  case FAKE_KERNEL_STORE: {
    uint32_t *out = d->translate(d->mem_ctx, args[0], 4, true);
    if (!out) {
      r->status = ISA_PAGE_FAULT;
      r->fault_va = args[0];
      r->fault_write = true;
      return;
    }
    *out = d->grid_size[0] * d->workgroup_size[0];
    return;
  }
  case FAKE_KERNEL_ILLEGAL:
    r->status = ISA_ILLEGAL_INSTR;
    snprintf(r->message, sizeof(r->message), "fake: illegal instruction");
    return;
  case FAKE_KERNEL_SENDMSG:
    d->sendmsg(d->msg_ctx, 1u | (0u << 4), 0x1234567u);
    return;
  case FAKE_KERNEL_SPIN:
    while (!__atomic_load_n(&g_spin_release, __ATOMIC_ACQUIRE))
      usleep(1000);
    return;
  case FAKE_KERNEL_SPIN_CANCELLABLE:
    while (!d->cancel || !*d->cancel)
      usleep(1000);
    r->status = ISA_CANCELLED;
    return;
  case FAKE_KERNEL_FAULT:
    r->status = ISA_PAGE_FAULT;
    r->fault_va = args[0];
    r->fault_write = false;
    return;
  default:
    r->status = ISA_BAD_DISPATCH;
    snprintf(r->message, sizeof(r->message), "fake: unknown kernel");
  }
}
