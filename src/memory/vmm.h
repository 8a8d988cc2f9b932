/* src/memory/vmm.h: the parts of the virtual-memory layer (vmm.c) that mem.h does not declare:
 * sharing a physical allocation as a dma-buf, and per-GPU access of a mapping. */
#ifndef HIPKFD_MEM_VMM_H
#define HIPKFD_MEM_VMM_H

#include <stddef.h>

#include "mem.h"

/* Access of one GPU to a mapping (hipMemAccessFlags values). */
enum mem_vmm_prot {
  MEM_VMM_PROT_NONE = 0,
  MEM_VMM_PROT_READ = 1,
  MEM_VMM_PROT_READ_WRITE = 3,
};

/* Bytes of [in] ph (a page multiple). */
size_t mem_vmm_size(const struct mem_phys *ph);

/* [out] fd: a new dma-buf descriptor of all of [in] ph, owned by the caller (close-on-exec).
 * Returns 0 or -errno. */
int mem_vmm_export(struct mem_phys *ph, int *fd);

/* A physical allocation for [in] gpu backed by the dma-buf [in] fd (this process's or another's
 * export); fd stays the caller's. -EINVAL when fd is no buffer the GPU's render node accepts.
 * [out] out: freed with mem_vmm_destroy(). Returns 0 or -errno. */
int mem_vmm_import(struct kfd_gpu *gpu, int fd, struct mem_phys **out);

/* Set [in] gpu's access to the mapping that starts at [in] va to [in] prot: NONE unmaps it from
 * that GPU, READ maps it read-only, READ_WRITE writable. Returns 0 or -errno (-ENOENT: no mapping
 * starts at va). */
int mem_vmm_access(void *va, struct kfd_gpu *gpu, enum mem_vmm_prot prot);

#endif
