/* src/memory/ipc_record.c: the exporter's records of IPC exports (see ipc.c for the design).
 *
 * A record lives in this process's heap and is read by importers through process_vm_readv(2).
 * Records are never returned to malloc: a retired one is kept (magic cleared) and reused with a
 * new token, so that an importer holding an old handle reads a dead record, not someone else's
 * bytes that happen to look alive. Locking: records_lock protects both lists. */
#define _GNU_SOURCE
#include "ipc_record.h"
#include "kfd/kfd.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#define RECORD_MAGIC 0x4448434552504948ull /* "HIPRECHD": a live record */

/* What an importer reads and compares with its handle. */
struct record_public {
  uint64_t magic; /* RECORD_MAGIC while the allocation lives, 0 once retired */
  uint64_t token;
  uint64_t ino;
  uint64_t offset;
  uint64_t size;
  int32_t fd;
  uint32_t pad;
};

struct record {
  struct record_public pub; /* first: a handle names the record by this address */
  const void *base;
  uint64_t alloc_id;
  struct record *next;
};

static pthread_mutex_t records_lock = PTHREAD_MUTEX_INITIALIZER;
static struct record *records;      /* live (records_lock) */
static struct record *records_free; /* retired, for reuse (records_lock) */

static void view_of(const struct record *r, struct ipc_record_view *out)
{
  *out = (struct ipc_record_view){
      .record = (uint64_t)(uintptr_t)r,
      .token = r->pub.token,
      .ino = r->pub.ino,
      .offset = r->pub.offset,
      .size = r->pub.size,
      .fd = r->pub.fd,
  };
}

static uint64_t new_token(const struct record *r, uint64_t salt)
{
  uint64_t token = 0;
  if (getrandom(&token, sizeof(token), 0) != (ssize_t)sizeof(token))
    token = salt * 0x9e3779b97f4a7c15ull ^ (uint64_t)(uintptr_t)r;
  return token | 1; /* never 0: a zeroed handle names nothing */
}

/* A new record for a fresh dma-buf of [in] kfd_handle. records_lock held. */
static int record_new(const void *base, uint64_t alloc_id, uint64_t kfd_handle, uint64_t offset,
                      uint64_t size, struct record **out)
{
  struct stat st;
  int fd, err;

  err = kfd_export_dmabuf(kfd_handle, &fd);
  if (err)
    return err;
  if (fstat(fd, &st) != 0) {
    err = -errno;
    close(fd);
    return err;
  }
  struct record *r = records_free;
  if (r)
    records_free = r->next;
  else if (!(r = calloc(1, sizeof(*r)))) {
    close(fd);
    return -ENOMEM;
  }
  r->pub = (struct record_public){
      .token = new_token(r, (uint64_t)st.st_ino ^ alloc_id),
      .ino = (uint64_t)st.st_ino,
      .offset = offset,
      .size = size,
      .fd = fd,
  };
  r->base = base;
  r->alloc_id = alloc_id;
  /* The magic last: a concurrent reader compares every field, so it sees a whole record or a
   * mismatch. */
  __atomic_store_n(&r->pub.magic, RECORD_MAGIC, __ATOMIC_RELEASE);
  r->next = records;
  records = r;
  *out = r;
  return 0;
}

int ipc_record_get(const void *base, uint64_t alloc_id, uint64_t kfd_handle, uint64_t offset,
                   uint64_t size, int (*mark)(void *arg), void *arg, struct ipc_record_view *out)
{
  struct record *r;
  int err = 0;

  pthread_mutex_lock(&records_lock);
  for (r = records; r; r = r->next)
    if (r->base == base && r->alloc_id == alloc_id)
      break;
  if (!r) {
    err = mark(arg);
    if (!err)
      err = record_new(base, alloc_id, kfd_handle, offset, size, &r);
  }
  if (!err)
    view_of(r, out);
  pthread_mutex_unlock(&records_lock);
  return err;
}

void ipc_record_retire(const void *base, uint64_t alloc_id)
{
  pthread_mutex_lock(&records_lock);
  for (struct record **pp = &records; *pp; pp = &(*pp)->next) {
    struct record *r = *pp;
    if (r->base != base || r->alloc_id != alloc_id)
      continue;
    *pp = r->next;
    __atomic_store_n(&r->pub.magic, 0, __ATOMIC_RELEASE);
    close(r->pub.fd); /* importers hold their own references to the buffer */
    r->next = records_free;
    records_free = r;
    break;
  }
  pthread_mutex_unlock(&records_lock);
}

int ipc_record_check(int pid, const struct ipc_record_view *claim)
{
  struct record_public rec;
  struct iovec local = {.iov_base = &rec, .iov_len = sizeof(rec)};
  struct iovec remote = {.iov_base = (void *)(uintptr_t)claim->record, .iov_len = sizeof(rec)};

  if (pid <= 0 || !claim->record)
    return -EINVAL;
  ssize_t n = process_vm_readv((pid_t)pid, &local, 1, &remote, 1, 0);
  if (n < 0)
    return errno == ESRCH ? -ESRCH : errno == EPERM ? -EPERM : -ENOENT;
  if (n != (ssize_t)sizeof(rec))
    return -ENOENT;
  bool same = rec.magic == RECORD_MAGIC && rec.token == claim->token && rec.ino == claim->ino &&
              rec.offset == claim->offset && rec.size == claim->size && rec.fd == claim->fd;
  return same ? 0 : -ENOENT;
}
