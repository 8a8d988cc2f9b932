/* src/queues/event.c: KFD events. Signal events need the process events page: for a dGPU the
 * runtime allocates it (KFD_SIGNAL_EVENT_LIMIT 8-byte slots in uncached GTT memory mapped to the
 * GPUs) and passes its handle with the first CREATE_EVENT (kfd_chardev.c kfd_ioctl_create_event,
 * kfd_events.c kfd_event_page_set; libhsakmt events.c does the same). Each signal event's slot
 * in that page is the mailbox the CP writes before raising the interrupt. */
#include "queues_internal.h"
#include "memory/mem.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <time.h>

#define EVENTS_PAGE_SIZE (KFD_SIGNAL_EVENT_LIMIT * 8u)

static pthread_mutex_t page_lock = PTHREAD_MUTEX_INITIALIZER;
static void *events_page;            /* (page_lock) written once; read after event creation */
static bool page_registered;         /* (page_lock) the kernel has accepted the page */
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

/* A forked child has a new KFD process without an events page. */
static void event_memory_forget(void);

static void event_atfork_child(void)
{
  pthread_mutex_init(&page_lock, NULL);
  events_page = NULL;
  page_registered = false;
  event_memory_forget();
}

static void event_register_atfork(void)
{
  pthread_atfork(NULL, NULL, event_atfork_child);
}

static int page_alloc_locked(struct kfd_gpu *gpu)
{
  int err;

  if (events_page)
    return mem_map_to_gpu(events_page, gpu);
  err = mem_alloc(gpu, EVENTS_PAGE_SIZE, MEM_HOST_PINNED,
                  MEM_FLAG_COHERENT | MEM_FLAG_UNCACHED | MEM_FLAG_NO_SUBALLOC | MEM_FLAG_ALL_GPUS,
                  &events_page);
  if (err)
    return err;
  /* The kernel initialises every slot to "unsignalled" when it takes the page. */
  return 0;
}

int event_signal_create(struct kfd_gpu *gpu, uint32_t *event_id, uint64_t *mailbox_va)
{
  uint64_t handle = 0;
  uint32_t id, slot;
  int err;

  pthread_once(&atfork_once, event_register_atfork);
  pthread_mutex_lock(&page_lock);
  err = page_alloc_locked(gpu);
  if (!err && !page_registered)
    err = mem_kfd_handle(events_page, &handle);
  if (!err) {
    /* The page handle goes with the first signal event only (a second one gets -EINVAL). */
    err = kfd_create_event(KFD_IOC_EVENT_SIGNAL, true, 0, page_registered ? 0 : handle, &id, &slot,
                           NULL);
    if (!err)
      page_registered = true;
  }
  pthread_mutex_unlock(&page_lock);
  if (err)
    return err;
  if (slot >= KFD_SIGNAL_EVENT_LIMIT) {
    kfd_destroy_event(id);
    return -ERANGE;
  }
  *event_id = id;
  *mailbox_va = mem_gpu_va(events_page) + (uint64_t)slot * 8u;
  return 0;
}

int event_page_map(struct kfd_gpu *gpu)
{
  int err = 0;

  pthread_once(&atfork_once, event_register_atfork);
  pthread_mutex_lock(&page_lock);
  if (events_page)
    err = mem_map_to_gpu(events_page, gpu);
  pthread_mutex_unlock(&page_lock);
  return err;
}

void event_signal_destroy(uint32_t event_id)
{
  if (event_id)
    kfd_destroy_event(event_id);
}

/* ---- memory and hardware exceptions ---------------------------------------------------------
 *
 * Two events per process, created together and never auto-reset, so that once signalled they
 * stay signalled for every poller: the memory-exception event (a GPU page fault,
 * kfd_signal_vm_fault_event) and the hardware-exception event (a GPU reset after a hang, RAS:
 * kfd_signal_reset_event). Each is latched here the first time a poll sees it. */

static pthread_mutex_t mem_event_lock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t mem_event_id;            /* (mem_event_lock) */
static uint32_t hw_event_id;             /* (mem_event_lock) 0 if the driver refused one */
_Atomic bool event_fault_seen;        /* queues_internal.h event_memory_fault_known_on */
static _Atomic bool hw_exception_seen;
static _Atomic uint64_t last_poll_ns;    /* when the driver was last asked (ns, monotonic) */
static uint64_t fault_va;                /* valid once event_fault_seen (release/acquire) */
static struct kfd_memory_exception_failure fault_failure; /* the same, the driver's reason */
uint32_t event_fault_gpu_id;

static void event_memory_forget(void)
{
  pthread_mutex_init(&mem_event_lock, NULL);
  mem_event_id = 0;
  hw_event_id = 0;
  atomic_store(&event_fault_seen, false);
  atomic_store(&hw_exception_seen, false);
  atomic_store(&last_poll_ns, 0);
}

int event_memory_init(void)
{
  int err = 0;

  pthread_once(&atfork_once, event_register_atfork);
  pthread_mutex_lock(&mem_event_lock);
  if (!mem_event_id) {
    err = kfd_create_event(KFD_IOC_EVENT_MEMORY, false, 0, 0, &mem_event_id, NULL, NULL);
    /* A hang is also worth knowing about, but not worth failing for: no hardware-exception
     * event only means a GPU reset is noticed through the queues' error signals alone. */
    if (!err && kfd_create_event(KFD_IOC_EVENT_HW_EXCEPTION, false, 0, 0, &hw_event_id, NULL,
                                 NULL))
      hw_event_id = 0;
  }
  pthread_mutex_unlock(&mem_event_lock);
  return err;
}

/* Wait up to [in] timeout_ms for either exception event and latch what fired. WAIT_EVENTS copies
 * the memory-exception data of an activated memory event only (kfd_events.c
 * copy_signaled_event_data), so a zeroed record that stays zero means the other one fired. */
static int wait_exception_events(uint32_t timeout_ms)
{
  struct kfd_event_data data[2];
  uint32_t result = 0, n = 1;
  int err;

  err = event_memory_init();
  if (err)
    return err;
  memset(data, 0, sizeof(data));
  pthread_mutex_lock(&mem_event_lock);
  data[0].event_id = mem_event_id;
  /* Once latched, a (never reset) hardware exception would answer every wait at once. */
  if (hw_event_id && !atomic_load_explicit(&hw_exception_seen, memory_order_acquire))
    data[n++].event_id = hw_event_id;
  pthread_mutex_unlock(&mem_event_lock);
  err = kfd_wait_events(data, n, false, timeout_ms, &result);
  if (err)
    return err;
  if (result != KFD_IOC_WAIT_RESULT_COMPLETE)
    return -ETIMEDOUT;
  if (!data[0].memory_exception_data.gpu_id && n > 1) {
    atomic_store_explicit(&hw_exception_seen, true, memory_order_release);
    return -EIO;
  }
  if (!atomic_load_explicit(&event_fault_seen, memory_order_acquire)) {
    fault_va = data[0].memory_exception_data.va;
    fault_failure = data[0].memory_exception_data.failure;
    event_fault_gpu_id = data[0].memory_exception_data.gpu_id;
    atomic_store_explicit(&event_fault_seen, true, memory_order_release);
  }
  return 0;
}

int event_wait_memory_fault(uint32_t timeout_ms, uint64_t *va, uint32_t *gpu_id)
{
  int err = 0;

  if (!atomic_load_explicit(&event_fault_seen, memory_order_acquire)) {
    do
      err = wait_exception_events(timeout_ms);
    while (err == -EIO); /* a hardware exception: keep waiting for a page fault */
  }
  if (err)
    return err;
  if (va)
    *va = fault_va;
  if (gpu_id)
    *gpu_id = event_fault_gpu_id;
  return 0;
}

const char *event_memory_fault_reason(void)
{
  if (!atomic_load_explicit(&event_fault_seen, memory_order_acquire))
    return NULL;
  /* The driver's failure flags (kfd_hsa_memory_exception_data.failure, set from the VM fault's
   * status by kfd_signal_vm_fault_event): a read-only failure can only come from a write. */
  if (fault_failure.ReadOnly)
    return "a write to a read-only page";
  if (fault_failure.NoExecute)
    return "an instruction fetch from a page marked no-execute";
  if (fault_failure.NotPresent)
    return "page not present; the driver does not say whether a read or a write";
  return "reason not reported by the driver";
}

/* Polling the events is a syscall: error checks on wait paths call this often, so ask the
 * driver at most once per millisecond (a fault is still seen within 1 ms). Returns true when
 * it is time to ask. */
#define FAULT_POLL_INTERVAL_NS 1000000ull

static bool poll_due(void)
{
  struct timespec ts;
  uint64_t now, last;

  clock_gettime(CLOCK_MONOTONIC, &ts);
  now = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
  last = atomic_load_explicit(&last_poll_ns, memory_order_relaxed);
  if (last && now - last < FAULT_POLL_INTERVAL_NS)
    return false;
  atomic_store_explicit(&last_poll_ns, now, memory_order_relaxed);
  return true;
}

bool event_memory_fault_seen(void)
{
  if (atomic_load_explicit(&event_fault_seen, memory_order_acquire))
    return true;
  return poll_due() && wait_exception_events(0) == 0;
}

bool event_memory_fault_on(uint32_t gpu_id)
{
  return event_memory_fault_seen() && (event_fault_gpu_id == gpu_id || event_fault_gpu_id == 0);
}

bool event_memory_fault_now(uint32_t gpu_id)
{
  if (!atomic_load_explicit(&event_fault_seen, memory_order_acquire))
    wait_exception_events(0);
  return event_memory_fault_known_on(gpu_id);
}

int event_exception_seen(void)
{
  if (atomic_load_explicit(&event_fault_seen, memory_order_acquire))
    return -EFAULT;
  if (atomic_load_explicit(&hw_exception_seen, memory_order_acquire))
    return -EIO;
  if (poll_due()) {
    int err = wait_exception_events(0);
    if (err == 0)
      return -EFAULT;
    if (err == -EIO)
      return -EIO;
  }
  return 0;
}

void event_exceptions_forget(void)
{
  pthread_mutex_lock(&mem_event_lock);
  if (mem_event_id)
    kfd_destroy_event(mem_event_id);
  if (hw_event_id)
    kfd_destroy_event(hw_event_id);
  mem_event_id = 0;
  hw_event_id = 0;
  atomic_store_explicit(&event_fault_seen, false, memory_order_release);
  atomic_store_explicit(&hw_exception_seen, false, memory_order_release);
  atomic_store_explicit(&last_poll_ns, 0, memory_order_relaxed);
  pthread_mutex_unlock(&mem_event_lock);
}
