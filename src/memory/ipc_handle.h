/* The bytes of an IPC memory handle (hipIpcMemHandle_t, 64 bytes): what api/ipc.c writes at
 * export and reads at import, and what a pool import (pool/mempool.c) checks. */
#ifndef HIPKFD_MEMORY_IPC_HANDLE_H
#define HIPKFD_MEMORY_IPC_HANDLE_H

#include <stdint.h>
#include <string.h>

#define IPC_MAGIC 0x50494b48u /* "HKIP" */
#define IPC_VERSION 2u /* 2: handles name an export record and an exact range (memory/ipc.c) */

/* The layout inside hipIpcMemHandle_t (64 bytes). Every field but delta is checked against the
 * exporter's record (mem_ipc_check) before anything is mapped. */
struct ipc_handle {
	uint32_t magic;
	uint32_t version;
	int32_t pid;          /* exporting process */
	int32_t fd;           /* dma-buf descriptor number in the exporter */
	uint64_t ino;         /* st_ino of the dma-buf: guards against a reused pid or fd */
	uint64_t record;      /* the exporter's record of the export (its address there) */
	uint64_t token;       /* random, unique to that record: a new allocation at the same
			       * address gets a handle of its own (as in clr and CUDA) */
	uint64_t offset;      /* the allocation's offset in the dma-buf (page aligned) */
	uint64_t size;        /* bytes of the user's allocation */
	uint64_t delta;       /* the exported pointer's offset inside the allocation */
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
