/* Events, mirroring kfd_events.c.
 *
 * Signal events own a 64-bit slot in the events page (the thunk's GTT BO on dGPUs, passed as
 * event_page_offset = its handle, or a page user space mmaps from /dev/kfd at
 * KFD_MMAP_TYPE_EVENTS). A slot holds UNSIGNALED_EVENT_SLOT (all ones) until the GPU writes
 * into it and raises an interrupt; the interrupt handler acknowledges (rewrites all ones) and
 * sets the event. Other types (memory exception, hw exception, ...) get ids from 0x80000000.
 *
 * Waiting: each waiter is queued on its events and marked activated by set_event(), exactly as
 * the kernel's wait queues do. Event ages (KFD 1.14) only add a fast path: a waiter sending a
 * non-zero last_event_age older than the event's age is activated at once; a waiter sending 0
 * (libhsakmt before 1.14) is woken by any SET_EVENT or interrupt during its wait.
 *
 * Locking: ev_lock protects everything here; ev_cond is broadcast whenever a waiter may have
 * been activated. Never held together with sim_drv.lock except sim_drv.lock -> ev_lock.
 */
#define _GNU_SOURCE
#include "kfd/uapi.h"   /* first: keeps the raw UAPI linux/types.h out */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "kfd/kfd_priv.h"

#define UNSIGNALED_EVENT_SLOT (~0ull)
#define FIRST_NONSIGNAL_EVENT_ID 0x80000000u
#define KFD_EVENT_TIMEOUT_IMMEDIATE 0u           /* kfd_priv.h */
#define KFD_EVENT_TIMEOUT_INFINITE 0xffffffffu

struct waiter;

struct sim_event {
  uint32_t id, type;
  bool auto_reset, signaled;
  uint64_t age;
  struct kfd_hsa_memory_exception_data memory_exception_data;
  struct kfd_hsa_hw_exception_data hw_exception_data;
  struct waiter *waiters;       /* the wait queue */
  struct sim_event *next;       /* list of all events */
};

struct waiter {
  struct sim_event *event;      /* NULL once the event is destroyed */
  bool activated;
  bool age_enabled;
  bool queued;                  /* on event->waiters */
  struct waiter *next;
};

static pthread_mutex_t ev_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ev_cond = PTHREAD_COND_INITIALIZER;
static pthread_once_t ev_once = PTHREAD_ONCE_INIT;
static struct sim_event *events;            /* all events */
static struct sim_event *signal_slots[SIM_SIGNAL_EVENT_LIMIT];
static uint32_t signal_count;
static uint64_t *signal_page;               /* the events page, or NULL */
static uint64_t signal_mapped_size;         /* bytes user space can see (0: not yet mapped) */
static int signal_page_fd = -1;             /* a page the driver allocated (mmap path) */
static uint32_t next_other_id = FIRST_NONSIGNAL_EVENT_ID;

static void ev_init(void)
{
  pthread_condattr_t a;
  pthread_condattr_init(&a);
  pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
  pthread_cond_init(&ev_cond, &a);
  pthread_condattr_destroy(&a);
}

void sim_events_reset(void)
{
  pthread_once(&ev_once, ev_init);
  pthread_mutex_init(&ev_lock, NULL);
  events = NULL;
  memset(signal_slots, 0, sizeof(signal_slots));
  signal_count = 0;
  signal_page = NULL;
  signal_mapped_size = 0;
  signal_page_fd = -1;
  next_other_id = FIRST_NONSIGNAL_EVENT_ID;
}

/* Process teardown: every event goes; the events page belonged to a BO or to us. */
void sim_events_release(void)
{
  pthread_mutex_lock(&ev_lock);
  while (events) {
    struct sim_event *e = events;
    events = e->next;
    for (struct waiter *w = e->waiters; w; w = w->next)
      w->event = NULL;
    free(e);
  }
  pthread_cond_broadcast(&ev_cond);
  memset(signal_slots, 0, sizeof(signal_slots));
  signal_count = 0;
  if (signal_page_fd >= 0) {
    munmap(signal_page, SIM_SIGNAL_EVENT_LIMIT * 8);
    close(signal_page_fd);
  }
  signal_page = NULL;
  signal_page_fd = -1;
  signal_mapped_size = 0;
  next_other_id = FIRST_NONSIGNAL_EVENT_ID;
  pthread_mutex_unlock(&ev_lock);
}

static struct sim_event *lookup_event(uint32_t id)
{
  if (id < SIM_SIGNAL_EVENT_LIMIT)
    return signal_slots[id];
  for (struct sim_event *e = events; e; e = e->next)
    if (e->id == id)
      return e;
  return NULL;
}

static uint32_t slot_limit(void)
{
  uint64_t n = signal_mapped_size ? signal_mapped_size / 8 : SIM_SIGNAL_EVENT_LIMIT;
  return n < SIM_SIGNAL_EVENT_LIMIT ? (uint32_t)n : SIM_SIGNAL_EVENT_LIMIT;
}

/* allocate_signal_page: a driver page for user space to mmap */
static int allocate_signal_page(void)
{
  size_t size = SIM_SIGNAL_EVENT_LIMIT * 8;
  int fd = memfd_create("kfdsim-events", MFD_CLOEXEC);
  if (fd < 0)
    return -errno;
  void *p = MAP_FAILED;
  if (!ftruncate(fd, (off_t)size))
    p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) {
    close(fd);
    return -ENOMEM;
  }
  memset(p, 0xff, size);
  signal_page = p;
  signal_page_fd = fd;
  return 0;
}

int sim_events_set_page(void *page, uint64_t size)
{
  if (signal_page)
    return -EINVAL;   /* "Event page is already set" */
  signal_page = page;
  signal_mapped_size = size;
  memset(page, 0xff, size < SIM_SIGNAL_EVENT_LIMIT * 8 ? size : SIM_SIGNAL_EVENT_LIMIT * 8);
  return 0;
}

void *sim_events_mmap(void *addr, size_t len, int prot, int flags, int *err)
{
  void *p = MAP_FAILED;
  pthread_mutex_lock(&ev_lock);
  /* kfd_event_mmap: no larger than the page's order (32 KiB, 8 pages); user space may map
   * less (libhsakmt falls back to one page), which limits the usable slots */
  size_t full = SIM_SIGNAL_EVENT_LIMIT * 8;
  if (signal_page_fd < 0 || !len || len > full) {
    *err = -EINVAL;
  } else {
    p = mmap(addr, len, prot, (flags & ~MAP_PRIVATE) | MAP_SHARED, signal_page_fd, 0);
    if (p == MAP_FAILED)
      *err = -errno;
    else
      signal_mapped_size = len;
  }
  pthread_mutex_unlock(&ev_lock);
  return p;
}

static bool can_be_cpu_signaled(const struct sim_event *e)
{
  return e->type == KFD_IOC_EVENT_SIGNAL;
}

static bool can_be_gpu_signaled(const struct sim_event *e)
{
  return e->type == KFD_IOC_EVENT_SIGNAL || e->type == KFD_IOC_EVENT_DEBUG_EVENT;
}

/* set_event(): auto-reset events stay unsignaled when they wake someone */
static void set_event(struct sim_event *e)
{
  e->signaled = !e->auto_reset || !e->waiters;
  if (!++e->age)
    e->age = 2;   /* never wrap to the reserved ages 0 and 1 */
  for (struct waiter *w = e->waiters; w; w = w->next)
    w->activated = true;
  pthread_cond_broadcast(&ev_cond);
}

static int create_locked(struct kfd_ioctl_create_event_args *a)
{
  struct sim_event *e = calloc(1, sizeof(*e));
  if (!e)
    return -ENOMEM;
  e->type = a->event_type;
  e->auto_reset = a->auto_reset != 0;
  e->age = 1;
  if (can_be_gpu_signaled(e)) {
    int r = signal_page ? 0 : allocate_signal_page();
    uint32_t id = 0, limit = slot_limit();
    if (!r && signal_count >= limit)
      r = -ENOSPC;
    while (!r && id < limit && signal_slots[id])
      id++;
    if (!r && id >= limit)
      r = -ENOSPC;
    if (r) {
      free(e);
      return r;
    }
    e->id = id;
    signal_slots[id] = e;
    signal_count++;
    signal_page[id] = UNSIGNALED_EVENT_SLOT;
    a->event_page_offset = SIM_MMAP_TYPE_EVENTS;
    a->event_slot_index = id;
  } else {
    if (next_other_id == 0) {
      free(e);
      return -ENOSPC;
    }
    e->id = next_other_id++;
  }
  e->next = events;
  events = e;
  a->event_id = e->id;
  a->event_trigger_data = e->id;
  return 0;
}

int sim_ioctl_create_event(void *arg)
{
  struct kfd_ioctl_create_event_args *a = arg;
  int r = 0;
  if (a->event_page_offset) {
    /* kfd_kmap_event_page: the offset is the handle of the thunk's events BO */
    pthread_mutex_lock(&sim_drv.lock);
    uint64_t size = 0;
    struct sim_bo *bo = sim_gpu_by_id(SIM_HANDLE_GPU(a->event_page_offset)) ?
                        sim_bo_lookup(a->event_page_offset) : NULL;
    void *page = bo ? sim_bo_host(bo, &size) : NULL;
    pthread_mutex_lock(&ev_lock);
    r = page ? sim_events_set_page(page, size) : -EINVAL;
    pthread_mutex_unlock(&ev_lock);
    pthread_mutex_unlock(&sim_drv.lock);
    if (r)
      return r;
  }
  pthread_mutex_lock(&ev_lock);
  r = create_locked(a);
  pthread_mutex_unlock(&ev_lock);
  return r;
}

int sim_ioctl_destroy_event(void *arg)
{
  struct kfd_ioctl_destroy_event_args *a = arg;
  pthread_mutex_lock(&ev_lock);
  struct sim_event *e = lookup_event(a->event_id);
  if (!e) {
    pthread_mutex_unlock(&ev_lock);
    return -EINVAL;
  }
  for (struct waiter *w = e->waiters; w; w = w->next)
    w->event = NULL;
  pthread_cond_broadcast(&ev_cond);
  for (struct sim_event **p = &events; *p; p = &(*p)->next)
    if (*p == e) {
      *p = e->next;
      break;
    }
  if (e->id < SIM_SIGNAL_EVENT_LIMIT) {
    signal_slots[e->id] = NULL;
    signal_count--;
  }
  pthread_mutex_unlock(&ev_lock);
  free(e);
  return 0;
}

int sim_ioctl_set_event(void *arg)
{
  struct kfd_ioctl_set_event_args *a = arg;
  int r = 0;
  pthread_mutex_lock(&ev_lock);
  struct sim_event *e = lookup_event(a->event_id);
  if (e && can_be_cpu_signaled(e))
    set_event(e);
  else
    r = -EINVAL;
  pthread_mutex_unlock(&ev_lock);
  /* A host signal store (an interrupt signal's SET_EVENT) may release a barrier packet or an
   * SDMA poll the command processor is backing off on: wake it now rather than at its next
   * poll. */
  if (!r)
    for (uint32_t i = 0; i < sim_drv.n_gpus; i++)
      sim_cp_kick(&sim_drv.gpus[i]);
  return r;
}

int sim_ioctl_reset_event(void *arg)
{
  struct kfd_ioctl_reset_event_args *a = arg;
  int r = 0;
  pthread_mutex_lock(&ev_lock);
  struct sim_event *e = lookup_event(a->event_id);
  if (e && can_be_cpu_signaled(e))
    e->signaled = false;
  else
    r = -EINVAL;
  pthread_mutex_unlock(&ev_lock);
  return r;
}

/* ---- interrupts and faults from the GPU side ---------------------------------------------------- */

static void set_event_from_interrupt(struct sim_event *e)
{
  if (e && can_be_gpu_signaled(e)) {
    signal_page[e->id] = UNSIGNALED_EVENT_SLOT;   /* acknowledge_signal */
    set_event(e);
  }
}

static struct sim_event *lookup_by_partial_id(uint32_t id, uint32_t bits)
{
  uint32_t limit = slot_limit();
  if (bits > 31 || (1u << bits) >= SIM_SIGNAL_EVENT_LIMIT) {
    if (id >= limit || signal_page[id] == UNSIGNALED_EVENT_SLOT)
      return NULL;
    return signal_slots[id];
  }
  for (id &= (1u << bits) - 1; id < limit; id += 1u << bits)
    if (signal_page[id] != UNSIGNALED_EVENT_SLOT && signal_slots[id])
      return signal_slots[id];
  return NULL;
}

void sim_event_interrupt(struct sim_gpu *gpu, uint32_t event_id, uint32_t valid_id_bits)
{
  (void)gpu;
  pthread_mutex_lock(&ev_lock);
  if (signal_page) {
    struct sim_event *e = valid_id_bits ? lookup_by_partial_id(event_id, valid_id_bits) : NULL;
    if (e) {
      set_event_from_interrupt(e);
    } else {
      /* the id was partial or wrong: scan every slot for signaled events */
      uint32_t limit = slot_limit();
      for (uint32_t id = 0; id < limit; id++)
        if (signal_slots[id] && signal_page[id] != UNSIGNALED_EVENT_SLOT)
          set_event_from_interrupt(signal_slots[id]);
    }
  }
  pthread_mutex_unlock(&ev_lock);
}

void sim_event_memory_fault(struct sim_gpu *gpu, uint64_t va, bool write)
{
  /* kfd_signal_vm_fault_event: precise fault with the page address; NotPresent from the
   * fault's "valid" protection bit, ReadOnly when a write hit a read-only page. */
  struct sim_vm_map m;
  bool present = sim_vm_lookup(gpu, va, &m);
  struct kfd_hsa_memory_exception_data d;
  memset(&d, 0, sizeof(d));
  d.gpu_id = sim_gpu_id(gpu);
  d.va = va & ~(SIM_PAGE_SIZE - 1);
  d.failure.NotPresent = !present;
  d.failure.ReadOnly = present && write && !m.writable;
  d.failure.NoExecute = 0;
  d.failure.imprecise = 0;
  d.ErrorType = 0;
  sim_log("GPU %u memory fault at 0x%llx (%s%s)", d.gpu_id, (unsigned long long)va,
          write ? "write" : "read", d.failure.NotPresent ? ", not mapped" : ", read-only");
  pthread_mutex_lock(&ev_lock);
  for (struct sim_event *e = events; e; e = e->next)
    if (e->type == KFD_IOC_EVENT_MEMORY) {
      e->memory_exception_data = d;
      set_event(e);
    }
  pthread_mutex_unlock(&ev_lock);
}

void sim_event_gpu_hang(struct sim_gpu *gpu)
{
  /* kfd_signal_reset_event after a hang: every HW-exception event of the process gets
   * reset_cause GPU_HANG and memory_lost set (the kernel fills both for any reset it signals,
   * leaving reset_type at 0, a whole-GPU reset), with the user's gpu_id, and is set. Memory
   * events are raised only for an ECC reset, not for a hang. */
  struct kfd_hsa_hw_exception_data d;
  memset(&d, 0, sizeof(d));
  d.reset_type = KFD_HW_EXCEPTION_WHOLE_GPU_RESET;
  d.reset_cause = KFD_HW_EXCEPTION_GPU_HANG;
  d.memory_lost = 1;
  d.gpu_id = sim_gpu_id(gpu);
  sim_log("GPU %u hang: queue reset, hardware-exception events raised", d.gpu_id);
  pthread_mutex_lock(&ev_lock);
  for (struct sim_event *e = events; e; e = e->next)
    if (e->type == KFD_IOC_EVENT_HW_EXCEPTION) {
      e->hw_exception_data = d;
      set_event(e);
    }
  pthread_mutex_unlock(&ev_lock);
}

/* ---- WAIT_EVENTS (kfd_wait_on_events) ------------------------------------------------------------- */

static uint32_t test_condition(bool all, uint32_t n, const struct waiter *w)
{
  uint32_t activated = 0;
  for (uint32_t i = 0; i < n; i++) {
    if (!w[i].event)
      return KFD_IOC_WAIT_RESULT_FAIL;
    if (w[i].activated) {
      if (!all)
        return KFD_IOC_WAIT_RESULT_COMPLETE;
      activated++;
    }
  }
  return activated == n ? KFD_IOC_WAIT_RESULT_COMPLETE : KFD_IOC_WAIT_RESULT_TIMEOUT;
}

static void copy_signaled_data(uint32_t n, const struct waiter *w, struct kfd_event_data *data)
{
  for (uint32_t i = 0; i < n; i++) {
    const struct sim_event *e = w[i].event;
    if (!w[i].activated || !e)
      continue;
    if (e->type == KFD_IOC_EVENT_MEMORY)
      data[i].memory_exception_data = e->memory_exception_data;
    else if (e->type == KFD_IOC_EVENT_HW_EXCEPTION)
      data[i].hw_exception_data = e->hw_exception_data;
    else if (e->type == KFD_IOC_EVENT_SIGNAL && w[i].age_enabled)
      data[i].signal_event_data.last_event_age = e->age;
  }
}

static void unlink_waiter(struct waiter *w)
{
  if (!w->event)
    return;
  for (struct waiter **p = &w->event->waiters; *p; p = &(*p)->next)
    if (*p == w) {
      *p = w->next;
      break;
    }
}

static int init_waiters(uint32_t n, struct waiter *w, const struct kfd_event_data *data)
{
  for (uint32_t i = 0; i < n; i++) {
    struct sim_event *e = lookup_event(data[i].event_id);
    if (!e)
      return -EINVAL;
    w[i].event = e;
    w[i].activated = e->signaled;
    e->signaled = e->signaled && !e->auto_reset;
    /* last_event_age 0 is the pre-1.14 protocol: only the wait queue can wake it */
    if (e->type == KFD_IOC_EVENT_SIGNAL && data[i].signal_event_data.last_event_age) {
      w[i].age_enabled = true;
      if (e->age != data[i].signal_event_data.last_event_age)
        w[i].activated = true;
    }
    if (!w[i].activated) {
      w[i].next = e->waiters;
      e->waiters = &w[i];
      w[i].queued = true;
    }
  }
  return 0;
}

int sim_ioctl_wait_events(void *arg)
{
  struct kfd_ioctl_wait_events_args *a = arg;
  if (a->num_events > 16 * SIM_SIGNAL_EVENT_LIMIT)
    return -ENOMEM;
  size_t bytes = (size_t)a->num_events * sizeof(struct kfd_event_data);
  struct kfd_event_data *data = malloc(bytes ? bytes : 1);
  struct waiter *w = calloc(a->num_events ? a->num_events : 1, sizeof(*w));
  if (!w || !data) {
    free(w);
    free(data);
    return -ENOMEM;
  }
  if (sim_copy_from_user(data, a->events_ptr, bytes)) {
    free(w);
    free(data);
    return -EFAULT;
  }
  struct timespec deadline;
  clock_gettime(CLOCK_MONOTONIC, &deadline);
  bool infinite = a->timeout == KFD_EVENT_TIMEOUT_INFINITE;
  deadline.tv_sec += a->timeout / 1000;
  deadline.tv_nsec += (long)(a->timeout % 1000) * 1000000L;
  if (deadline.tv_nsec >= 1000000000L) {
    deadline.tv_sec++;
    deadline.tv_nsec -= 1000000000L;
  }

  /* User space may be waiting for a signal the command processor will raise: wake the CP now
   * rather than leave a doorbell rung meanwhile to its next poll. On every call, a poll with a
   * zero timeout too, and even when the events are already signaled: a runtime spinning on a
   * signal's value polls its event now and then without caring about the event's age, and
   * each completion it spins through sets that event again. */
  for (uint32_t i = 0; i < sim_drv.n_gpus; i++)
    sim_cp_kick(&sim_drv.gpus[i]);

  pthread_once(&ev_once, ev_init);
  pthread_mutex_lock(&ev_lock);
  int r = init_waiters(a->num_events, w, data);
  uint32_t result = KFD_IOC_WAIT_RESULT_FAIL;
  if (!r) {
    result = test_condition(a->wait_for_all, a->num_events, w);
    while (result == KFD_IOC_WAIT_RESULT_TIMEOUT && a->timeout != KFD_EVENT_TIMEOUT_IMMEDIATE) {
      int e = infinite ? pthread_cond_wait(&ev_cond, &ev_lock)
                       : pthread_cond_timedwait(&ev_cond, &ev_lock, &deadline);
      result = test_condition(a->wait_for_all, a->num_events, w);
      if (e == ETIMEDOUT)
        break;
    }
    if (result == KFD_IOC_WAIT_RESULT_COMPLETE)
      copy_signaled_data(a->num_events, w, data);
  }
  for (uint32_t i = 0; i < a->num_events; i++)
    if (w[i].queued)
      unlink_waiter(&w[i]);
  pthread_mutex_unlock(&ev_lock);
  if (!r && result == KFD_IOC_WAIT_RESULT_COMPLETE && sim_copy_to_user(a->events_ptr, data, bytes))
    r = -EFAULT;
  /* kfd_wait_on_events: any error reports FAIL; an event destroyed under a waiter is -EIO */
  if (r)
    result = KFD_IOC_WAIT_RESULT_FAIL;
  else if (result == KFD_IOC_WAIT_RESULT_FAIL)
    r = -EIO;
  free(w);
  free(data);
  a->wait_result = result;
  return r;
}
