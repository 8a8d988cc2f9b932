/*
 * Interprocess events: the record area that hipIpcGetEventHandle shares and
 * hipIpcOpenEventHandle maps, as clr builds it (hip_event_ipc.cpp: a POSIX shared-memory object
 * named in the handle, a ring of 32 completion slots, a write index and a read index).
 *
 * A record claims the next slot (waiting until its previous use completed), sets it to 1,
 * queues a GPU write of 0 to it behind the stream's work (hipStreamWriteValue32 on the slot,
 * which is host memory registered with every GPU), then publishes the slot as the latest record.
 * Any process that maps the area sees the latest record complete when its slot reads 0: queries
 * read it, synchronization polls it, and a stream wait is a GPU wait for 0 on it
 * (hipStreamWaitValue32). A slot reused 32 records later may make a late waiter wait for the
 * newer record, as in clr.
 *
 * The area holds the creating pid (opening it in the same process is refused:
 * hipErrorInvalidContext) and a user count; the last user unlinks the name. A creating process
 * that exits with its events still alive unlinks their names at exit (processes that mapped an
 * area keep it; the handle just cannot be opened any more, as with CUDA once the exporting
 * event is gone).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../memory/mem.h"
#include "event_ipc.h"
#include "../runtime/internal.h"
#include "../runtime/runtime.h"

#define IPC_EVENT_MAGIC 0x45504b48u /* "HKPE" */
#define IPC_EVENT_SLOTS 32
#define IPC_EVENT_NAME_MAX 48

/* The shared area: one page, so that registering it with the GPUs covers nothing else. */
struct ipc_event_area {
  uint32_t magic;
  _Atomic int32_t owner_pid;
  _Atomic uint32_t users;
  _Atomic int32_t write_index;       /* records claimed */
  _Atomic int32_t read_index;        /* the latest published record, -1 before the first */
  uint32_t pad[3];
  /* The recording process's pid while a record is pending; the GPU writes 0 when it is done. */
  _Atomic uint32_t slot[IPC_EVENT_SLOTS];
};
#define IPC_EVENT_AREA_SIZE 4096u
_Static_assert(sizeof(struct ipc_event_area) <= IPC_EVENT_AREA_SIZE, "one page");

struct ipc_event {
  struct ipc_event_area *area;
  char name[IPC_EVENT_NAME_MAX];
  bool owned;                        /* created by this process: on the owned list */
  struct ipc_event *next_owned;      /* protected by owned_lock */
};

static pthread_mutex_t owned_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ipc_event *owned_list;  /* protected by owned_lock */
static pthread_once_t exit_once = PTHREAD_ONCE_INIT;

/* At exit: the names of this process's live areas go (a forked child has its own pid in the
 * names it would own, so it never unlinks its parent's). */
static void unlink_owned_at_exit(void)
{
  char prefix[32];
  snprintf(prefix, sizeof(prefix), "/hipkfd_event_%d_", (int)getpid());
  pthread_mutex_lock(&owned_lock);
  for (struct ipc_event *ie = owned_list; ie; ie = ie->next_owned)
    if (!strncmp(ie->name, prefix, strlen(prefix)))
      shm_unlink(ie->name);
  pthread_mutex_unlock(&owned_lock);
}

static void register_exit_hook(void)
{
  atexit(unlink_owned_at_exit);
}

static void owned_add(struct ipc_event *ie)
{
  pthread_once(&exit_once, register_exit_hook);
  pthread_mutex_lock(&owned_lock);
  ie->owned = true;
  ie->next_owned = owned_list;
  owned_list = ie;
  pthread_mutex_unlock(&owned_lock);
}

static void owned_remove(struct ipc_event *ie)
{
  if (!ie->owned)
    return;
  pthread_mutex_lock(&owned_lock);
  for (struct ipc_event **pp = &owned_list; *pp; pp = &(*pp)->next_owned)
    if (*pp == ie) {
      *pp = ie->next_owned;
      break;
    }
  pthread_mutex_unlock(&owned_lock);
}

/* Registers the area with every GPU so that queues can write and wait on its slots. */
static int area_register(struct ipc_event_area *a)
{
  struct hip_device *d = hip_device_current();
  if (!d)
    return -ENODEV;
  return mem_host_register(d->gpu, a, IPC_EVENT_AREA_SIZE, MEM_FLAG_ALL_GPUS | MEM_FLAG_COHERENT);
}

static int area_map(const char *name, bool create, struct ipc_event_area **out)
{
  int fd = shm_open(name, create ? O_RDWR | O_CREAT | O_EXCL : O_RDWR, 0600);
  if (fd < 0)
    return -errno;
  if (create && ftruncate(fd, IPC_EVENT_AREA_SIZE) != 0) {
    int err = -errno;
    close(fd);
    shm_unlink(name);
    return err;
  }
  /* A handle may name any object of the prefix: one shorter than the area would map, then kill
   * the first read past its end with SIGBUS. */
  struct stat st;
  if (!create && (fstat(fd, &st) != 0 || st.st_size < (off_t)IPC_EVENT_AREA_SIZE)) {
    close(fd);
    return -EINVAL;
  }
  void *p = mmap(NULL, IPC_EVENT_AREA_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  int err = p == MAP_FAILED ? -errno : 0;
  close(fd);
  if (err) {
    if (create)
      shm_unlink(name);
    return err;
  }
  *out = p;
  return 0;
}

int ipc_event_create(struct ipc_event **out)
{
  static _Atomic uint32_t serial;
  struct ipc_event *ie = calloc(1, sizeof(*ie));
  if (!ie)
    return -ENOMEM;
  snprintf(ie->name, sizeof(ie->name), "/hipkfd_event_%d_%u", (int)getpid(),
           atomic_fetch_add(&serial, 1));
  int err = area_map(ie->name, true, &ie->area);
  if (err) {
    free(ie);
    return err;
  }
  struct ipc_event_area *a = ie->area;
  atomic_store(&a->owner_pid, (int32_t)getpid());
  atomic_store(&a->users, 1);
  atomic_store(&a->write_index, 0);
  atomic_store(&a->read_index, -1);
  a->magic = IPC_EVENT_MAGIC;
  if ((err = area_register(a))) {
    munmap(a, IPC_EVENT_AREA_SIZE);
    shm_unlink(ie->name);
    free(ie);
    return err;
  }
  owned_add(ie);
  *out = ie;
  return 0;
}

int ipc_event_open(const hipIpcEventHandle_t *handle, struct ipc_event **out)
{
  struct ipc_event *ie = calloc(1, sizeof(*ie));
  if (!ie)
    return -ENOMEM;
  memcpy(ie->name, handle->reserved, sizeof(ie->name) - 1);
  if (ie->name[0] != '/' || strncmp(ie->name, "/hipkfd_event_", 14) != 0) {
    free(ie);
    return -EINVAL;
  }
  int err = area_map(ie->name, false, &ie->area);
  if (err || ie->area->magic != IPC_EVENT_MAGIC) {
    if (!err)
      munmap(ie->area, IPC_EVENT_AREA_SIZE);
    free(ie);
    return -EINVAL;
  }
  if (atomic_load(&ie->area->owner_pid) == (int32_t)getpid()) {
    munmap(ie->area, IPC_EVENT_AREA_SIZE);
    free(ie);
    return -EPERM;
  }
  if ((err = area_register(ie->area))) {
    munmap(ie->area, IPC_EVENT_AREA_SIZE);
    free(ie);
    return err;
  }
  atomic_fetch_add(&ie->area->users, 1);
  *out = ie;
  return 0;
}

void ipc_event_handle(const struct ipc_event *ie, hipIpcEventHandle_t *handle)
{
  memset(handle, 0, sizeof(*handle));
  memcpy(handle->reserved, ie->name, strlen(ie->name));
}

void ipc_event_release(struct ipc_event *ie)
{
  if (!ie)
    return;
  bool last = atomic_fetch_sub(&ie->area->users, 1) == 1;
  owned_remove(ie);
  mem_host_unregister(ie->area);
  munmap(ie->area, IPC_EVENT_AREA_SIZE);
  if (last)
    shm_unlink(ie->name);
  free(ie);
}

static void nap(void)
{
  struct timespec ts = {0, 100000}; /* 0.1 ms */
  nanosleep(&ts, NULL);
}

static double now_seconds(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Is the process that set a pending slot to [in] v gone? A pending record's GPU write comes from
 * the recorder's own queues, which die with it (amdkfd destroys a process's queues when its file
 * is released): a dead recorder's record never completes. A value that is no pid at all (0 is
 * the done state; above the kernel's PID_MAX_LIMIT, 2^22) comes from an area no runtime wrote.
 * kill(pid, 0) only asks whether the process exists: EPERM means it does. */
#define IPC_EVENT_PID_MAX (1u << 22)
static bool recorder_gone(uint32_t v)
{
  if (v == 0 || v > IPC_EVENT_PID_MAX)
    return true;
  return kill((pid_t)v, 0) != 0 && errno == ESRCH;
}

/* Waits until every record claimed before `index` is published, then publishes `index`: records
 * go out in claim order whoever (thread or process) claimed them. The area is memory another
 * process writes, so its indices are not trusted: more than a ring of unpublished records ahead
 * of ours, or a latest record past ours, is an area no runtime wrote; and a latest record that
 * does not move for IPC_EVENT_STALL_SECONDS means the claimer died or never existed (a claim is
 * published right after its write is queued). Either ends the wait: hipErrorInvalidHandle. */
#define IPC_EVENT_STALL_SECONDS 2.0
static hipError_t publish(struct ipc_event_area *a, int32_t index)
{
  const int32_t before = (int32_t)((uint32_t)index - 1u);
  int32_t seen = atomic_load(&a->read_index);
  double deadline = now_seconds() + IPC_EVENT_STALL_SECONDS;
  for (;;) {
    int32_t expected = before;
    if (atomic_compare_exchange_strong(&a->read_index, &expected, index))
      return hipSuccess;
    /* Unsigned distance: a latest record at or past ours wraps to a huge value. */
    uint32_t pending = (uint32_t)before - (uint32_t)expected;
    if (pending > IPC_EVENT_SLOTS)
      return hipErrorInvalidHandle;
    if (expected != seen) {
      seen = expected;
      deadline = now_seconds() + IPC_EVENT_STALL_SECONDS;
    } else if (now_seconds() > deadline) {
      return hipErrorInvalidHandle;
    }
    nap();
  }
}

hipError_t ipc_event_record(struct ipc_event *ie, hipStream_t stream)
{
  struct ipc_event_area *a = ie->area;
  int32_t index = atomic_fetch_add(&a->write_index, 1);
  /* Unsigned: the indices live in memory another process writes (and wrap after 2^31 records);
   * a negative one must still pick a slot of the ring. */
  uint32_t ring = (uint32_t)index % IPC_EVENT_SLOTS;
  _Atomic uint32_t *slot = &a->slot[ring];
  /* A slot is pending only for a record claimed 32 records ago: among the first 32 records of an
   * area none can be (a forged area could otherwise keep this wait going forever). */
  if ((uint32_t)index < IPC_EVENT_SLOTS && atomic_load(slot) != 0)
    return hipErrorInvalidHandle;
  /* The record that used this slot 32 records ago is still pending: its GPU write comes, unless
   * the GPU work failed (then never: the fault's sticky error ends the wait) or its recorder
   * died (then the slot is free to take). */
  uint32_t v;
  while ((v = atomic_load_explicit(slot, memory_order_acquire)) != 0 && !recorder_gone(v)) {
    int fault = hip_fault_poll();
    if (fault)
      return hip_gpu_error(fault);
    nap();
  }
  atomic_store_explicit(slot, (uint32_t)getpid(), memory_order_release);
  hipError_t e = hipStreamWriteValue32(stream, (void *)slot, 0, 0);
  if (e) {
    atomic_store(slot, 0);
    return e;
  }
  return publish(a, index);
}

static const _Atomic uint32_t *latest(const struct ipc_event *ie)
{
  int32_t r = atomic_load_explicit(&ie->area->read_index, memory_order_acquire);
  return r < 0 ? NULL : &ie->area->slot[(uint32_t)r % IPC_EVENT_SLOTS];
}

enum ipc_event_status ipc_event_status(const struct ipc_event *ie)
{
  const _Atomic uint32_t *slot = latest(ie);
  uint32_t v = slot ? atomic_load_explicit(slot, memory_order_acquire) : 0;
  if (v == 0)
    return IPC_EVENT_DONE;
  return recorder_gone(v) ? IPC_EVENT_ABANDONED : IPC_EVENT_PENDING;
}

hipError_t ipc_event_stream_wait(const struct ipc_event *ie, hipStream_t stream)
{
  enum ipc_event_status st = ipc_event_status(ie);
  if (st != IPC_EVENT_PENDING)
    return st == IPC_EVENT_DONE ? hipSuccess : hipErrorInvalidHandle;
  const _Atomic uint32_t *slot = latest(ie);
  return hipStreamWaitValue32(stream, (void *)slot, 0, hipStreamWaitValueEq, 0xffffffffu);
}
