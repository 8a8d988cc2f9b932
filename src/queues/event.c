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

/* ---- memory exceptions ----------------------------------------------------------------------- */

static pthread_mutex_t mem_event_lock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t mem_event_id;            /* (mem_event_lock) */
_Atomic bool event_fault_seen;        /* queues_internal.h event_memory_fault_known_on */
static _Atomic uint64_t last_poll_ns;    /* when the driver was last asked (ns, monotonic) */
static uint64_t fault_va;                /* valid once event_fault_seen (release/acquire) */
uint32_t event_fault_gpu_id;

static void event_memory_forget(void)
{
  pthread_mutex_init(&mem_event_lock, NULL);
  mem_event_id = 0;
  atomic_store(&event_fault_seen, false);
  atomic_store(&last_poll_ns, 0);
}

int event_memory_init(void)
{
  int err = 0;

  pthread_once(&atfork_once, event_register_atfork);
  pthread_mutex_lock(&mem_event_lock);
  /* Manual reset: once a fault is reported the event stays signalled for every poller. */
  if (!mem_event_id)
    err = kfd_create_event(KFD_IOC_EVENT_MEMORY, false, 0, 0, &mem_event_id, NULL, NULL);
  pthread_mutex_unlock(&mem_event_lock);
  return err;
}

static int wait_memory_event(uint32_t timeout_ms)
{
  struct kfd_event_data data;
  uint32_t result = 0, id;
  int err;

  err = event_memory_init();
  if (err)
    return err;
  pthread_mutex_lock(&mem_event_lock);
  id = mem_event_id;
  pthread_mutex_unlock(&mem_event_lock);
  memset(&data, 0, sizeof(data));
  data.event_id = id;
  err = kfd_wait_events(&data, 1, true, timeout_ms, &result);
  if (err)
    return err;
  if (result != KFD_IOC_WAIT_RESULT_COMPLETE)
    return -ETIMEDOUT;
  if (!atomic_load_explicit(&event_fault_seen, memory_order_acquire)) {
    fault_va = data.memory_exception_data.va;
    event_fault_gpu_id = data.memory_exception_data.gpu_id;
    atomic_store_explicit(&event_fault_seen, true, memory_order_release);
  }
  return 0;
}

int event_wait_memory_fault(uint32_t timeout_ms, uint64_t *va, uint32_t *gpu_id)
{
  int err = 0;

  if (!atomic_load_explicit(&event_fault_seen, memory_order_acquire))
    err = wait_memory_event(timeout_ms);
  if (err)
    return err;
  if (va)
    *va = fault_va;
  if (gpu_id)
    *gpu_id = event_fault_gpu_id;
  return 0;
}

/* Polling the event is a syscall: error checks on wait paths call this often, so ask the
 * driver at most once per millisecond (a fault is still seen within 1 ms). */
#define FAULT_POLL_INTERVAL_NS 1000000ull

bool event_memory_fault_seen(void)
{
  struct timespec ts;
  uint64_t now, last;

  if (atomic_load_explicit(&event_fault_seen, memory_order_acquire))
    return true;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  now = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
  last = atomic_load_explicit(&last_poll_ns, memory_order_relaxed);
  if (last && now - last < FAULT_POLL_INTERVAL_NS)
    return false;
  atomic_store_explicit(&last_poll_ns, now, memory_order_relaxed);
  return wait_memory_event(0) == 0;
}

bool event_memory_fault_on(uint32_t gpu_id)
{
  return event_memory_fault_seen() && (event_fault_gpu_id == gpu_id || event_fault_gpu_id == 0);
}
