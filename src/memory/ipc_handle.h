/* The bytes of an IPC memory handle (hipIpcMemHandle_t, 64 bytes): what api/ipc.c writes at
 * export and reads at import, and what a pool import (pool/mempool.c) checks. */
#ifndef HIPKFD_MEMORY_IPC_HANDLE_H
#define HIPKFD_MEMORY_IPC_HANDLE_H

#include <stdint.h>
#include <string.h>

#define IPC_MAGIC 0x50494b48u /* "HKIP" */
#define IPC_VERSION 1u

/* The layout inside hipIpcMemHandle_t (64 bytes). */
struct ipc_handle {
	uint32_t magic;
	uint32_t version;
	int32_t pid;          /* exporting process */
	int32_t fd;           /* dma-buf descriptor number in the exporter */
	uint64_t ino;         /* st_ino of the dma-buf: guards against a reused pid or fd */
	uint64_t buf_size;    /* bytes of the exported kernel allocation */
	uint64_t offset;      /* the exported pointer's offset in it */
	uint64_t alloc_size;  /* bytes of the user's allocation (informational) */
	uint64_t alloc_id;    /* the exporter's allocation id: a new allocation at the same address,
			       * carved from the same kernel buffer and exported through a recycled
			       * descriptor number, still gets a handle of its own (as in clr and
			       * CUDA); importers do not read it */
	uint8_t reserved[8];
};

/* The exporting process of the handle at [in] bytes (64 bytes), or -1 if they are no handle of
 * ours. */
static inline int ipc_handle_pid(const void *bytes)
{
	struct ipc_handle ih;
	memcpy(&ih, bytes, sizeof(ih));
	return ih.magic == IPC_MAGIC && ih.version == IPC_VERSION ? ih.pid : -1;
}

#endif
