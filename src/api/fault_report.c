/* The fault report: once per sticky error, on stderr and in the log at level >= 1, what is known
 * about the GPU fault that caused it, as AMD's runtime prints its memory-access-fault message:
 *   - the faulting address and GPU, from the KFD memory-exception event (kfd_hsa_memory_exception
 *     _data.va / gpu_id); a trap or another queue error has none;
 *   - the queue that stopped, its error code (queue_inactive_signal, CP_QERR_* bits), the dispatch
 *     id it stopped at and that packet's kernel, named through the functions the program loaded;
 *   - the allocation containing the address, or the nearest one (the address table).
 * What cannot be known is said, not guessed: the access kind (read or write) is not kept by the
 * runtime's event path, so it is reported as unknown. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "../memory/mem.h"
#include "../queues/aql.h"
#include "../queues/signal.h"
#include "../runtime/error.h"
#include "../runtime/internal.h"
#include "loader_api.h"

extern struct hip_handle_set hip_known_functions;

struct kernel_search {
  uint64_t kernel_object;
  const char *name;
};

static void match_function(const void *h, void *ctx)
{
  struct kernel_search *k = ctx;
  const struct ihipModuleSymbol_t *f = h;
  if (k->name || f->magic != HIP_FUNCTION_MAGIC)
    return;
  struct hip_kernel_slot *slots = atomic_load_explicit(&f->resolved, memory_order_acquire);
  for (int i = 0; slots && i < HIP_MODULE_MAX_DEVICES; i++)
    if (atomic_load_explicit(&slots[i].ready, memory_order_acquire) &&
        slots[i].ref.kernel_object == k->kernel_object)
      k->name = f->name;
}

static const char *kernel_name(uint64_t kernel_object)
{
  struct kernel_search k = {kernel_object, NULL};
  if (kernel_object)
    hip_handle_each(&hip_known_functions, match_function, &k);
  return k.name;
}

/* The stopped queue of any device: the one with an error code, else one with work pending. */
static bool find_stopped_queue(struct aql_fault_info *out, int *device)
{
  bool found = false;
  for (int i = 0; i < hip_device_count() && !found; i++) {
    struct hip_device *d = hip_device_peek(i);
    if (!d || !atomic_load_explicit(&d->opened, memory_order_acquire))
      continue;
    pthread_mutex_lock(&d->lock);
    for (struct hip_stream *s = d->streams; s && !found; s = s->next) {
      struct aql_queue *q = __atomic_load_n(&s->queue, __ATOMIC_ACQUIRE);
      struct aql_fault_info info;
      if (!q)
        continue;
      aql_queue_fault_info(q, &info);
      if (info.error_code != 0 || (!found && info.dispatch_id < info.write_id && info.kernel_object)) {
        *out = info;
        *device = i;
        found = info.error_code != 0;
      }
    }
    pthread_mutex_unlock(&d->lock);
  }
  return found || out->queue_id || out->kernel_object;
}

static const char *kind_name(enum mem_kind kind)
{
  switch (kind) {
  case MEM_DEVICE: return "device memory";
  case MEM_DEVICE_FINE:
  case MEM_DEVICE_UNCACHED: return "fine-grained device memory";
  case MEM_HOST_PINNED: return "pinned host memory";
  case MEM_HOST_REGISTERED: return "registered host memory";
  case MEM_MANAGED: return "managed memory";
  default: return "memory";
  }
}

/* Where the address lies: inside an allocation (offset), or how far from the nearest one. */
static void describe_address(uint64_t va, char *buf, size_t len)
{
  struct mem_info mi;
  if (mem_lookup((const void *)(uintptr_t)va, &mi) == 0) {
    snprintf(buf, len, "inside %s %p (%zu bytes) at offset %" PRIu64, kind_name(mi.kind), mi.base,
             mi.size, va - (uint64_t)(uintptr_t)mi.base);
    return;
  }
  if (mem_nearest_block((const void *)(uintptr_t)va, &mi) != 0) {
    snprintf(buf, len, "no allocation exists");
    return;
  }
  uint64_t lo = (uint64_t)(uintptr_t)mi.base, hi = lo + mi.size;
  snprintf(buf, len, "outside every allocation; nearest: %s%s %p (%zu bytes), %" PRIu64 " bytes %s it",
           mi.suballocated ? "the sub-allocation chunk of " : "", kind_name(mi.kind), mi.base,
           mi.size, va < lo ? lo - va : va - hi + 1, va < lo ? "below" : "above");
}

static void report(hipError_t err)
{
  char text[1024], where[256] = "";
  size_t n = 0;
  uint64_t va = 0;
  uint32_t gpu_id = 0;
  bool have_va = event_wait_memory_fault(0, &va, &gpu_id) == 0;

  n += (size_t)snprintf(text + n, sizeof(text) - n, "GPU fault (%s): ", hipGetErrorName(err));
  if (have_va) {
    describe_address(va, where, sizeof(where));
    n += (size_t)snprintf(text + n, sizeof(text) - n,
                          "memory access at %#" PRIx64 " on GPU %u (%s), %s", va, gpu_id,
                          event_memory_fault_reason(), where);
  } else {
    n += (size_t)snprintf(text + n, sizeof(text) - n, "no faulting address (a trap or queue error)");
  }
  struct aql_fault_info q = {0};
  int device = -1;
  if (n < sizeof(text) && find_stopped_queue(&q, &device)) {
    const char *name = kernel_name(q.kernel_object);
    n += (size_t)snprintf(text + n, sizeof(text) - n,
                          "; device %d queue %u stopped at dispatch %" PRIu64
                          " (queue error %#" PRIx64 "), kernel %s",
                          device, q.queue_id, q.dispatch_id, (uint64_t)q.error_code,
                          name ? name : q.kernel_object ? "(not a loaded function)" : "unknown");
  } else if (n < sizeof(text)) {
    n += (size_t)snprintf(text + n, sizeof(text) - n, "; no stopped queue found (kernel unknown)");
  }
  /* Once on stderr whatever the log level, as AMD's runtime does; and in the log when it goes
   * elsewhere (AMD_LOG_LEVEL_FILE). */
  if (hip_log_level < 1 || hip_log_to_file())
    fprintf(stderr, "hipkfd: %s\n", text);
  if (hip_log_level >= 1)
    hip_log(1, "%s", text);
}

__attribute__((constructor)) static void fault_report_install(void)
{
  hip_fault_report_hook = report;
}

/* A program that exits right after the failing wait still gets its report. */
__attribute__((destructor)) static void fault_report_at_exit(void)
{
  hip_fault_report_flush();
}
