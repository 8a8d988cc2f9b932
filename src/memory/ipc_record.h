/* src/memory/ipc_record.h: the exporter's records of IPC exports, which importers read from the
 * exporter's memory to check a handle (ipc_record.c; the design is in ipc.c). Kept apart from the
 * allocator: its frees retire records, and nothing here calls back into it. */
#ifndef HIPKFD_MEMORY_IPC_RECORD_H
#define HIPKFD_MEMORY_IPC_RECORD_H

#include <stdint.h>

/* What a handle repeats of a record, and what an importer compares. */
struct ipc_record_view {
  uint64_t record;  /* the record's address in the exporter */
  uint64_t token;   /* random, unique to the record */
  uint64_t ino;     /* inode of the dma-buf */
  uint64_t offset;  /* the allocation's offset in the dma-buf */
  uint64_t size;    /* bytes of the allocation */
  int fd;           /* the dma-buf descriptor, in the exporter */
};

/* The live record of the allocation at [in] base with [in] alloc_id, or a new one: [in] mark(arg)
 * is called first (it must return 0 for the export to go on), then the kernel allocation
 * [in] kfd_handle is exported as a dma-buf, holding the allocation at [in] offset, [in] size
 * bytes. All under the records' lock, so one allocation gets one record. [out] out.
 * Returns 0 or -errno. */
int ipc_record_get(const void *base, uint64_t alloc_id, uint64_t kfd_handle, uint64_t offset,
                   uint64_t size, int (*mark)(void *arg), void *arg, struct ipc_record_view *out);

/* The allocation at [in] base with [in] alloc_id was freed: its record is retired (importers
 * find it dead) and its descriptor closed. Nothing if it has none. */
void ipc_record_retire(const void *base, uint64_t alloc_id);

/* Read the record [in] claim names in process [in] pid (process_vm_readv: nothing of the
 * claim's is dereferenced here) and compare: 0 if it is live and every field matches; -ESRCH if
 * the process is gone, -EPERM if this process may not read it, -ENOENT otherwise. */
int ipc_record_check(int pid, const struct ipc_record_view *claim);

#endif
